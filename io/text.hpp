#pragma once
// Small text helpers shared by the command line, the audit and the reports.

#include <string>
#include <vector>

namespace rbd {

// The items separated by sep ("a, b, c"); "" for none.
inline std::string join(const std::vector<std::string>& items, const char* sep = ", ") {
  std::string s;
  for (size_t k = 0; k < items.size(); ++k) s += (k ? sep : "") + items[k];
  return s;
}

}  // namespace rbd
