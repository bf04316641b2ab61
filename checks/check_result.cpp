#include "checks/check_result.hpp"

#include <cstdio>

namespace rbd {

std::string format_number(const char* format, double x) {
  char buf[96];
  std::snprintf(buf, sizeof buf, format, x);
  return buf;
}

std::string CheckResult::message() const {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s: residual %.3g %s tolerance %.3g (%.1f digits)", name.c_str(), residual,
                passed ? "<=" : ">", tolerance, digits());
  std::string s = buf;
  if (!detail.empty()) s += " [" + detail + "]";
  return s;
}

}  // namespace rbd
