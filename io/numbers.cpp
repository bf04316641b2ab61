// The number helpers of numbers.hpp: decimal-text checks and exact doubles as Num.
#include "io/numbers.hpp"

namespace rbd {

bool decimal_exponent_within(const std::string& s, long long limit) {
  const size_t e = s.find_first_of("eE");
  if (e == std::string::npos) return static_cast<long long>(s.size()) <= limit;
  size_t i = e + 1;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  while (i < s.size() && s[i] == '0') ++i;  // leading zeros of the exponent
  if (s.size() - i > 12) return false;
  const long long x = s.size() > i ? std::stoll(s.substr(i)) : 0;
  return x + static_cast<long long>(e) <= limit;  // the mantissa's digits shift it by at most their count
}

bool decimal_mantissa_nonzero(const std::string& s) {
  for (char c : s) {
    if (c == 'e' || c == 'E') break;
    if (c >= '1' && c <= '9') return true;
  }
  return false;
}

std::vector<Num> exact_nums(const std::vector<double>& v) {
  std::vector<Num> out;
  for (double x : v) out.push_back(Num::exact(x));
  return out;
}

}  // namespace rbd
