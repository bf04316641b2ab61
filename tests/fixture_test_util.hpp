// What the two fixture test files share: the bundled fixtures folder and the small fixture they
// start from (3 samples of the double pendulum at bin50, seed 11), made once per test binary.
#pragma once

#include "fixtures/fixture.hpp"
#include "tests/test_paths.hpp"

#include <string>

namespace rbd::test {

// fixtures/ below the source tree: models/, golden/, baseline.json.
inline const std::string kData = std::string(::rbd::test::kSourceDir) + "/fixtures";

inline const Fixture& small_fixture() {
  static const Fixture f = make_fixture(load_model(kData + "/models/double_pendulum.urdf"), 3, 11, *Precision::parse("bin50"));
  return f;
}

}  // namespace rbd::test
