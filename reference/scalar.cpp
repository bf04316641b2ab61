#include "reference/scalar.hpp"

#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace rbd {

template <>
int digits10<bin50>() {
  return 50;
}
template <>
int digits10<bin100>() {
  return 100;
}
template <>
int digits10<float128>() {
  return 33;
}
template <>
int digits10<mpfr>() {
  return static_cast<int>(mpfr::default_precision());
}

// \s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*, scanned by hand: libstdc++'s std::regex recurses
// once per character and overflows the stack on numbers tens of thousands of digits long.
bool is_decimal(const std::string& s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; };
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  const size_t n = s.size();
  size_t i = 0;
  while (i < n && space(s[i])) ++i;
  if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
  size_t mantissa_digits = 0;
  for (; i < n && digit(s[i]); ++i) ++mantissa_digits;
  if (i < n && s[i] == '.')
    for (++i; i < n && digit(s[i]); ++i) ++mantissa_digits;
  if (mantissa_digits == 0) return false;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exponent_digits = 0;
    for (; i < n && digit(s[i]); ++i) ++exponent_digits;
    if (exponent_digits == 0) return false;
  }
  while (i < n && space(s[i])) ++i;
  return i == n;
}

namespace {

// The number of a decimal text, without the surrounding whitespace that is_decimal accepts and
// that Boost's, MPFR's and libquadmath's parsers reject (" 1.0 " in a URDF attribute).
std::string require_decimal(const std::string& s) {
  if (!is_decimal(s)) throw std::invalid_argument("not a finite decimal number: '" + s + "'");
  const char* kSpace = " \t\n\v\f\r";
  const size_t b = s.find_first_not_of(kSpace);
  return s.substr(b, s.find_last_not_of(kSpace) - b + 1);
}

}  // namespace

template <>
double from_decimal<double>(const std::string& s) {
  const std::string t = require_decimal(s);
  errno = 0;
  double x = std::strtod(t.c_str(), nullptr);  // correctly rounded (glibc)
  if (errno == ERANGE && !std::isfinite(x)) throw std::invalid_argument("out of range for double: '" + s + "'");
  return x;
}

template <>
long double from_decimal<long double>(const std::string& s) {
  const std::string t = require_decimal(s);
  errno = 0;
  long double x = std::strtold(t.c_str(), nullptr);
  if (errno == ERANGE && !std::isfinite(x)) throw std::invalid_argument("out of range for long double: '" + s + "'");
  return x;
}

// Boost's string constructors round correctly for cpp_bin_float and MPFR; float128 goes through
// libquadmath's strtoflt128, also correctly rounded.
template <>
float128 from_decimal<float128>(const std::string& s) {
  return float128(require_decimal(s));
}
namespace {

// cpp_bin_float's string conversion raises 10 to the decimal exponent with a running error bound
// that overflows a signed 64-bit integer (undefined behaviour; UBSan) once the exponent has some
// 50 bits, as in "3.1e-3201592653589793". Such numbers lie far outside T's range: t (trimmed, a
// decimal) whose leading digit is below T's smallest exponent reads as a signed zero, above its
// largest is out of range (as for double); the others go to Boost.
template <class T>
T bin_float_from_decimal(const std::string& t) {
  size_t i = 0;
  const bool negative = t[i] == '-';
  if (t[i] == '+' || t[i] == '-') ++i;
  // Leading digit: index k among the mantissa's digits, n_int digits before the point.
  long long n_int = 0, k = -1, n = 0;
  bool point = false;
  for (; i < t.size() && t[i] != 'e' && t[i] != 'E'; ++i) {
    if (t[i] == '.') {
      point = true;
      continue;
    }
    if (k < 0 && t[i] != '0') k = n;
    ++n;
    if (!point) ++n_int;
  }
  if (k < 0) return negative ? T(-0.0) : T(0);
  long long exponent = 0;  // saturated: beyond 10^15 the answer no longer depends on it
  if (i < t.size()) {
    ++i;
    const bool exponent_negative = t[i] == '-';
    if (t[i] == '+' || t[i] == '-') ++i;
    for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i)
      if (exponent < 1000000000000000LL) exponent = exponent * 10 + (t[i] - '0');
    if (exponent_negative) exponent = -exponent;
  }
  const long long lead = n_int - 1 - k + exponent;  // the leading digit is d · 10^lead
  if (lead < std::numeric_limits<T>::min_exponent10 - 1) return negative ? T(-0.0) : T(0);
  if (lead > std::numeric_limits<T>::max_exponent10) throw std::invalid_argument("out of range: '" + t + "'");
  return T(t);
}

}  // namespace

template <>
bin50 from_decimal<bin50>(const std::string& s) {
  return bin_float_from_decimal<bin50>(require_decimal(s));
}
template <>
bin100 from_decimal<bin100>(const std::string& s) {
  return bin_float_from_decimal<bin100>(require_decimal(s));
}
template <>
mpfr from_decimal<mpfr>(const std::string& s) {
  return mpfr(require_decimal(s));
}

namespace {
template <class T>
std::string boost_str(const T& x, int digits) {
  if (digits <= 0) digits = std::numeric_limits<T>::max_digits10;
  return x.str(digits, std::ios_base::scientific);
}
}  // namespace

template <>
std::string to_decimal<double>(const double& x, int digits) {
  if (digits <= 0) digits = 17;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*e", digits - 1, x);
  return buf;
}
template <>
std::string to_decimal<long double>(const long double& x, int digits) {
  if (digits <= 0) digits = 21;
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.*Le", digits - 1, x);
  return buf;
}
template <>
std::string to_decimal<float128>(const float128& x, int digits) {
  return boost_str(x, digits);
}
template <>
std::string to_decimal<bin50>(const bin50& x, int digits) {
  return boost_str(x, digits);
}
template <>
std::string to_decimal<bin100>(const bin100& x, int digits) {
  return boost_str(x, digits);
}
template <>
std::string to_decimal<mpfr>(const mpfr& x, int digits) {
  if (digits <= 0) digits = static_cast<int>(mpfr::default_precision()) + 3;
  return x.str(digits, std::ios_base::scientific);
}

}  // namespace rbd
