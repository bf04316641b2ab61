// What the command-line tests share (tests/cli_test.cpp, tests/cli_sections_test.cpp): the Cli
// fixture (a folder per test, `rbdref` run in it) and its expectations. One type for every TU, as
// GoogleTest requires of the tests of one suite.
#pragma once

#include "tests/cli_run.hpp"
#include "tests/test_paths.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace rbd::test {

class Cli : public CliFolderTest {
 protected:
  static std::string src(const std::string& rel) { return std::string(::rbd::test::kSourceDir) + "/" + rel; }

  // Runs eval expecting bad input: status 2, the message names `file` and `field`, no output.
  void expect_bad(const std::string& args, const std::string& file, const std::string& field) {
    const std::string out = path("result.json");
    expect_bad_input(run(args + " --out " + out), file, field);
    EXPECT_FALSE(std::filesystem::exists(out)) << "an output file was written";
  }
};

// The checks of an eval document whose names start with `prefix`, each passed; how many there are.
inline int expect_checks_pass(const nlohmann::json& doc, const std::string& prefix) {
  int n = 0;
  for (const nlohmann::json& k : doc["checks"])
    if (k["name"].get<std::string>().rfind(prefix, 0) == 0) {
      ++n;
      EXPECT_TRUE(k["passed"].get<bool>()) << k.dump();
    }
  return n;
}

inline const char* const kPendulumState = R"({"q": {"shoulder": "0.3", "elbow": "-0.7"}, "qd": [1.25, 0.5], "qdd": [0.1, -0.2], "tau": [2, -1]})";

}  // namespace rbd::test
