// What the engine-adapter tests share: the bin50 precision of their fixtures, fixtures with
// contacts from a contacts file written on the spot, and the contact sets every adapter with
// contacts is run on (a pendulum on a floor and a tilted wall with an elbow contact between its
// links; a free box on its four corners, M of rank 3; a hinged rod between two tilted planes, one
// elastic, jammed at some samples so that no rigid answer exists).
#pragma once

#include "fixtures/fixture.hpp"
#include "io/model_io.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>

#include <unistd.h>

namespace rbd::test {

inline const Precision& bin50p() {
  static const Precision p = *Precision::parse("bin50");
  return p;
}

// A fixture of the bundled `model` (path below the source tree) with the contacts of
// `contacts_json`, n samples from `seed`.
inline Fixture contact_fixture(const std::string& model, const std::string& contacts_json, bool floating, int n, std::uint64_t seed) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("rbdref_adapter_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string file = (dir / "c.contacts.json").string();
  std::ofstream(file) << contacts_json;
  LoadOptions lo;
  lo.floating_base = floating;
  lo.contacts_file = file;
  Fixture f = make_fixture(load_model(std::string(RBDREF_SOURCE_DIR) + "/" + model, lo), n, seed, bin50p());
  fs::remove_all(dir);
  return f;
}

struct ContactCase {
  const char* name;
  const char* model;
  const char* contacts;
  bool floating;
};
inline void PrintTo(const ContactCase& c, std::ostream* os) { *os << c.name; }

inline ::testing::internal::ParamGenerator<ContactCase> bundled_contact_cases() {
  return ::testing::Values(
      ContactCase{"pendulum", "fixtures/models/double_pendulum.urdf",
                  R"({"contacts": [
                    {"name": "tip_floor", "link": "link2", "point": [0, 0, -1], "normal": [0, 0, 1]},
                    {"name": "tip_wall", "link": "link2", "point": [0, 0, -1], "normal": [1, 0, "0.2"], "restitution": "0.5"},
                    {"name": "elbow", "bodies": ["link2", "link1"], "point": [0, 0, "-0.5"], "normal": [1, 0, 0]}]})",
                  false},
      ContactCase{"box", "fixtures/models/contacts/box.urdf",
                  R"({"contacts": [
                    {"name": "pp", "link": "box", "point": ["0.3", "0.2", "-0.1"], "normal": [0, 0, 1]},
                    {"name": "mp", "link": "box", "point": ["-0.3", "0.2", "-0.1"], "normal": [0, 0, 1]},
                    {"name": "mm", "link": "box", "point": ["-0.3", "-0.2", "-0.1"], "normal": [0, 0, 1]},
                    {"name": "pm", "link": "box", "point": ["0.3", "-0.2", "-0.1"], "normal": [0, 0, 1]}]})",
                  true},
      ContactCase{"rod", "fixtures/models/contacts/rod.urdf",
                  R"([{"name": "tip1", "link": "rod", "point": [1, 0, 0], "normal": [1, 1, 0]},
                      {"name": "tip2", "link": "rod", "point": [-1, 0, 0], "normal": [-1, 1, 0], "restitution": 1}])",
                  false});
}
inline std::string contact_case_name(const ::testing::TestParamInfo<ContactCase>& i) { return i.param.name; }

}  // namespace rbd::test
