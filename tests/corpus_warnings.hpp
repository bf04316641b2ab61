// What the model-corpus tests (corpus_test.cpp for URDF, mjcf_test.cpp for MJCF) share: a
// model's warnings matched against the expected ones, exactly.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rbd::test {

// One expected warning: every part must occur in the same warning.
using Warning = std::vector<std::string>;

// Every warning matched by exactly one expected entry and every entry by one warning.
inline void expect_warnings(const std::vector<std::string>& got, const std::vector<Warning>& want, const std::string& what) {
  std::vector<bool> used(got.size(), false);
  for (const Warning& w : want) {
    int found = -1;
    for (size_t k = 0; k < got.size() && found < 0; ++k) {
      if (used[k]) continue;
      bool all = true;
      for (const std::string& part : w) all = all && got[k].find(part) != std::string::npos;
      if (all) found = static_cast<int>(k);
    }
    std::string parts;
    for (const std::string& p : w) parts += "[" + p + "] ";
    EXPECT_GE(found, 0) << what << ": no warning with " << parts;
    if (found >= 0) used[static_cast<size_t>(found)] = true;
  }
  for (size_t k = 0; k < got.size(); ++k) EXPECT_TRUE(used[k]) << what << ": unexpected warning: " << got[k];
}

}  // namespace rbd::test
