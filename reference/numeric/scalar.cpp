#include "reference/numeric/scalar.hpp"

#include <cerrno>
#include <cstdlib>
#include <cmath>
#include <cstdint>
#include <cstdio>
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
template <>
int digits10<mpfr50>() {
  return 50;
}

// A scanner rather than std::regex: this runs on every number of every document (and regex
// construction and matching dominated fixture reading). Grammar: [+-]? (d+ .? d* | . d+) ([eE] [+-]? d+)?
// No surrounding spaces: readers of formats where whitespace separates numbers (URDF attributes)
// split and trim before asking.
bool is_decimal(const std::string& s) {
  size_t i = 0;
  const size_t n = s.size();
  auto digit = [&](size_t k) { return k < n && s[k] >= '0' && s[k] <= '9'; };
  if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
  size_t mant = 0;
  while (digit(i)) ++i, ++mant;
  if (i < n && s[i] == '.') {
    ++i;
    while (digit(i)) ++i, ++mant;
  }
  if (mant == 0) return false;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digit(i)) return false;
    while (digit(i)) ++i;
  }
  return i == n;
}

double decimal_half_unit(const std::string& s) {
  if (!is_decimal(s)) return 0;
  // Position of the last written digit relative to the decimal point, and whether any digit is
  // non-zero (a written zero is exact).
  size_t i = (s[0] == '+' || s[0] == '-') ? 1 : 0;
  long frac_digits = 0;
  bool after_point = false, nonzero = false;
  for (; i < s.size() && s[i] != 'e' && s[i] != 'E'; ++i) {
    if (s[i] == '.') { after_point = true; continue; }
    if (s[i] != '0') nonzero = true;
    if (after_point) ++frac_digits;
  }
  if (!nonzero) return 0;
  long exp10 = 0;
  if (i < s.size()) {
    const std::string e = s.substr(i + 1);
    exp10 = e.size() > 6 ? (e[0] == '-' ? -100000 : 100000) : std::strtol(e.c_str(), nullptr, 10);
  }
  const long last = exp10 - frac_digits;  // the last written digit has weight 10^last
  if (last < -400) return 0;
  if (last > 400) return std::numeric_limits<double>::infinity();
  return 0.5 * std::pow(10.0, static_cast<double>(last));
}

std::string round_significant(const std::string& s, int sig) {
  if (!is_decimal(s) || sig < 1) return s;
  size_t i = (s[0] == '+' || s[0] == '-') ? 1 : 0;
  const bool negative = s[0] == '-';
  std::string d;        // the significant digits, leading zeros dropped
  long point = 0;       // digits written before the decimal point
  bool after_point = false;
  for (; i < s.size() && s[i] != 'e' && s[i] != 'E'; ++i) {
    if (s[i] == '.') { after_point = true; continue; }
    if (d.empty() && s[i] == '0') {
      if (after_point) --point;  // a leading zero after the point lowers the exponent
      continue;
    }
    d += s[i];
    if (!after_point) ++point;
  }
  if (d.empty()) return negative ? "-0" : "0";  // zero: its digits carry nothing, as trailing zeros
  if (d.size() <= static_cast<size_t>(sig)) return s;  // no more digits than asked
  long long exp10 = 0;
  if (i < s.size()) {
    const std::string e = s.substr(i + 1);
    if (e.size() > 12) return s;  // beyond any scalar's range: leave the text alone
    exp10 = std::stoll(e);
  }
  // The value is 0.d × 10^(point + exp10), so the leading digit has weight 10^(point + exp10 - 1).
  long long lead = static_cast<long long>(point) + exp10 - 1;
  const bool up = d[static_cast<size_t>(sig)] >= '5';  // half away from zero, on the digits as written
  d.resize(static_cast<size_t>(sig));
  if (up) {
    int k = sig - 1;
    while (k >= 0 && d[static_cast<size_t>(k)] == '9') d[static_cast<size_t>(k--)] = '0';
    if (k >= 0) {
      ++d[static_cast<size_t>(k)];
    } else {  // 99.9 → 100: one more digit in front, the last one dropped
      d = "1" + d.substr(0, d.size() - 1);
      ++lead;
    }
  }
  while (d.size() > 1 && d.back() == '0') d.pop_back();  // trailing zeros carry nothing
  char e[32];
  std::snprintf(e, sizeof e, "e%c%02lld", lead < 0 ? '-' : '+', lead < 0 ? -lead : lead);
  return std::string(negative ? "-" : "") + d[0] + (d.size() > 1 ? "." + d.substr(1) : "") + e;
}

namespace {

void require_decimal(const std::string& s) {
  if (!is_decimal(s)) throw std::invalid_argument("not a finite decimal number: '" + s + "'");
}

}  // namespace

template <>
double from_decimal<double>(const std::string& s) {
  require_decimal(s);
  errno = 0;
  double x = std::strtod(s.c_str(), nullptr);  // correctly rounded (glibc)
  if (errno == ERANGE && !std::isfinite(x)) throw std::invalid_argument("out of range for double: '" + s + "'");
  return x;
}

template <>
long double from_decimal<long double>(const std::string& s) {
  require_decimal(s);
  errno = 0;
  long double x = std::strtold(s.c_str(), nullptr);
  if (errno == ERANGE && !std::isfinite(x)) throw std::invalid_argument("out of range for long double: '" + s + "'");
  return x;
}

// Boost's string constructors round correctly for cpp_bin_float and MPFR; float128 goes through
// libquadmath's strtoflt128, also correctly rounded.
template <>
float128 from_decimal<float128>(const std::string& s) {
  require_decimal(s);
  const float128 x(s);
  if (!is_finite(x)) throw std::invalid_argument("out of range for float128: '" + s + "'");
  return x;
}
namespace {

// cpp_bin_float's string conversion raises 10 to the decimal exponent with a running error bound
// that overflows a signed 64-bit integer (undefined behaviour; UBSan) once the exponent has some
// 50 bits, as in "3.1e-3201592653589793". Such numbers lie far outside T's range: a decimal whose
// leading digit is below T's smallest exponent reads as a signed zero, above its largest is out of
// range (as for double); the others go to Boost.
template <class T>
T bin_float_from_decimal(const std::string& t) {
  size_t i = 0;
  const bool negative = t[i] == '-';
  if (t[i] == '+' || t[i] == '-') ++i;
  long long n_int = 0, k = -1, n = 0;  // leading non-zero digit: index k; n_int digits before the point
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
  require_decimal(s);
  const bin50 x = bin_float_from_decimal<bin50>(s);
  if (!is_finite(x)) throw std::invalid_argument("out of range for bin50: '" + s + "'");
  return x;
}
template <>
bin100 from_decimal<bin100>(const std::string& s) {
  require_decimal(s);
  const bin100 x = bin_float_from_decimal<bin100>(s);
  if (!is_finite(x)) throw std::invalid_argument("out of range for bin100: '" + s + "'");
  return x;
}
namespace {
// MPFR reads decimal text correctly rounded itself.
template <class M>
M mpfr_from_decimal(const std::string& s, const char* what) {
  require_decimal(s);
  const M x(s);
  if (!is_finite(x)) throw std::invalid_argument(std::string("out of range for ") + what + ": '" + s + "'");
  return x;
}
}  // namespace

template <>
mpfr from_decimal<mpfr>(const std::string& s) {
  return mpfr_from_decimal<mpfr>(s, "this MPFR precision");
}
template <>
mpfr50 from_decimal<mpfr50>(const std::string& s) {
  return mpfr_from_decimal<mpfr50>(s, "mpfr50");
}

namespace {
// "e+05", "e-123": the exponent as printf's "e%c%02lld" writes it, without a snprintf per value
// (docs/benchmarks.md, "Text of large fixtures").
void append_exponent(std::string& out, long long E) {
  out += 'e';
  out += E < 0 ? '-' : '+';
  unsigned long long a = E < 0 ? 0ULL - static_cast<unsigned long long>(E) : static_cast<unsigned long long>(E);
  char buf[24];
  int k = 0;
  do {
    buf[k++] = static_cast<char>('0' + a % 10);
    a /= 10;
  } while (a > 0);
  if (k < 2) buf[k++] = '0';
  while (k > 0) out += buf[--k];
}

// x with `digits` significant digits (`all` when digits <= 0) for the Boost numbers. Their
// str(p, scientific) writes p digits after the point, p + 1 significant digits, and all of them
// for p = 0: one significant digit is the full text rounded (round_significant).
template <class T>
std::string boost_str(const T& x, int digits, int all) {
  if (digits <= 0) digits = all;
  if (digits == 1) return round_significant(boost_str(x, all, all), 1);
  return x.str(digits - 1, std::ios_base::scientific);
}
template <class T>
std::string boost_str(const T& x, int digits) {  // float128, cpp_bin_float: max_digits10 + 1
  return boost_str(x, digits, std::numeric_limits<T>::max_digits10 + 1);
}

// ---- cpp_bin_float to decimal without Boost's string conversion --------------------------------
// A fixture writes millions of bin50 values (a 2000-body chain: 4·10⁶ per sample), and Boost's
// str() (a general conversion through dynamic cpp_int) is several times slower than this
// (docs/benchmarks.md, "Scalar primitives"). For a finite x = ±m·2^p (m the B-bit integer
// mantissa) with p < 0 and |x| < 10^(n-1),
// the n significant digits of x are the integer D = round(m·10^s / 2^-p), s = n - 1 - E ≥ 0,
// E = floor(log10 |x|): one exact product of limbs, a shift, and rounding to nearest with ties to
// even on the bits shifted out (as Boost's str and MPFR round). E is first estimated from the
// binary exponent and corrected when D has n + 1 or n - 1 digits. The other cases (p ≥ 0 or
// |x| ≥ 10^(n-1), which need a division; zero, inf, NaN; 10^s beyond the table) go to Boost's str.
// The same text as Boost's str(n - 1, scientific) (Scalar.BinaryFloatTextIsCorrectlyRounded).

// A non-negative integer as little-endian 64-bit limbs, up to kCap of them.
struct Limbs {
  static constexpr int kCap = 26;  // 1664 bits: a 334-bit mantissa times 10^400
  std::uint64_t w[kCap];
  int size = 0;
  void trim() {
    while (size > 0 && w[size - 1] == 0) --size;
  }
};
constexpr int kMaxPow10 = 400;

const std::vector<Limbs>& pow10_limbs() {  // 10^0 … 10^kMaxPow10
  static const std::vector<Limbs> table = [] {
    std::vector<Limbs> t(kMaxPow10 + 1);
    Limbs a;
    a.w[0] = 1;
    a.size = 1;
    for (int k = 0; k <= kMaxPow10; ++k) {
      if (k > 0) {
        unsigned __int128 carry = 0;
        for (int i = 0; i < a.size; ++i) {
          carry += static_cast<unsigned __int128>(a.w[i]) * 10u;
          a.w[i] = static_cast<std::uint64_t>(carry);
          carry >>= 64;
        }
        if (carry) a.w[a.size++] = static_cast<std::uint64_t>(carry);
      }
      t[static_cast<size_t>(k)] = a;
    }
    return t;
  }();
  return table;
}

int compare_limbs(const Limbs& a, const Limbs& b) {
  if (a.size != b.size) return a.size < b.size ? -1 : 1;
  for (int i = a.size - 1; i >= 0; --i)
    if (a.w[i] != b.w[i]) return a.w[i] < b.w[i] ? -1 : 1;
  return 0;
}

// x with n significant digits (n >= 1) as str(n - 1, scientific) writes them, or "" when x is not
// in the case handled here (see above).
template <unsigned D>
std::string bin_float_digits(const mp::number<mp::cpp_bin_float<D>, mp::et_off>& x, int n) {
  using Backend = mp::cpp_bin_float<D>;
  const Backend& b = x.backend();
  const auto e2 = b.exponent();  // |x| in [2^e2, 2^(e2+1))
  if (e2 == Backend::exponent_zero || e2 == Backend::exponent_infinity || e2 == Backend::exponent_nan) return "";
  const std::vector<Limbs>& P10 = pow10_limbs();
  if (n < 1 || n >= kMaxPow10) return "";
  const long long p = static_cast<long long>(e2) - static_cast<long long>(Backend::bit_count) + 1;  // |x| = m 2^p
  if (p >= 0) return "";
  const auto* m = b.bits().limbs();
  static_assert(sizeof(*m) == 8, "64-bit limbs");
  const int m_size = static_cast<int>(b.bits().size());
  // log10 |x| is in [e2 log10 2, e2 log10 2 + 0.302): E is this floor or one more.
  long long E = static_cast<long long>(std::floor(static_cast<double>(e2) * 0.30102999566398119521));
  for (int attempt = 0; attempt < 3; ++attempt) {
    const long long s = n - 1 - E;
    if (s < 0 || s > kMaxPow10) return "";
    const Limbs& t = P10[static_cast<size_t>(s)];
    if (m_size + t.size > Limbs::kCap) return "";
    Limbs num;  // m 10^s, exact
    num.size = m_size + t.size;
    for (int i = 0; i < num.size; ++i) num.w[i] = 0;
    for (int i = 0; i < m_size; ++i) {
      unsigned __int128 carry = 0;
      for (int j = 0; j < t.size; ++j) {
        carry += static_cast<unsigned __int128>(m[i]) * t.w[j] + num.w[i + j];
        num.w[i + j] = static_cast<std::uint64_t>(carry);
        carry >>= 64;
      }
      num.w[i + t.size] = static_cast<std::uint64_t>(carry);
    }
    num.trim();
    // d = num / 2^sh rounded to nearest, ties to even: the bit below d's last (half) and whether
    // any bit under it is set (sticky).
    const unsigned long long sh = static_cast<unsigned long long>(-p);
    const unsigned long long limb = sh / 64, bit = sh % 64;
    Limbs d;
    if (limb < static_cast<unsigned long long>(num.size)) {
      const int L = static_cast<int>(limb);
      d.size = num.size - L;
      for (int i = 0; i < d.size; ++i) {
        const std::uint64_t hi = bit && L + i + 1 < num.size ? num.w[L + i + 1] << (64 - bit) : 0;
        d.w[i] = (num.w[L + i] >> bit) | hi;
      }
      d.trim();
    }
    bool half = false, sticky = false;
    const unsigned long long hl = (sh - 1) / 64, hb = (sh - 1) % 64;
    if (hl < static_cast<unsigned long long>(num.size)) {
      half = (num.w[hl] >> hb) & 1u;
      sticky = hb > 0 && (num.w[hl] & ((std::uint64_t(1) << hb) - 1)) != 0;
      for (unsigned long long i = 0; i < hl && !sticky; ++i) sticky = num.w[i] != 0;
    } else {
      sticky = num.size > 0;
    }
    if (half && (sticky || (d.size > 0 && (d.w[0] & 1u)))) {
      int i = 0;
      while (i < d.size && ++d.w[i] == 0) ++i;
      if (i == d.size) d.w[d.size++] = 1;
    }
    if (compare_limbs(d, P10[static_cast<size_t>(n)]) >= 0) {  // E one too small
      ++E;
      continue;
    }
    if (compare_limbs(d, P10[static_cast<size_t>(n - 1)]) < 0) {  // E one too large
      --E;
      continue;
    }
    // d's n digits, 19 at a time from the right.
    std::string digits(static_cast<size_t>(n), '0');
    size_t pos = digits.size();
    constexpr std::uint64_t kChunk = 10000000000000000000ull;  // 10^19
    while (d.size > 0 && pos > 0) {
      unsigned __int128 r = 0;
      for (int i = d.size - 1; i >= 0; --i) {
        r = (r << 64) | d.w[i];
        d.w[i] = static_cast<std::uint64_t>(r / kChunk);
        r %= kChunk;
      }
      d.trim();
      auto c = static_cast<std::uint64_t>(r);
      for (int k = 0; k < 19 && pos > 0; ++k, c /= 10) digits[--pos] = static_cast<char>('0' + c % 10);
    }
    std::string out;
    out.reserve(static_cast<size_t>(n) + 8);
    if (b.sign()) out += '-';
    out += digits[0];
    if (n > 1) {
      out += '.';
      out.append(digits, 1, std::string::npos);
    }
    append_exponent(out, E);
    return out;
  }
  return "";
}

template <class T>
std::string bin_float_str(const T& x, int digits) {
  if (digits <= 0) digits = std::numeric_limits<T>::max_digits10 + 1;
  std::string s = bin_float_digits(x, digits);
  return s.empty() ? boost_str(x, digits) : s;
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
  return bin_float_str(x, digits);
}
template <>
std::string to_decimal<bin100>(const bin100& x, int digits) {
  return bin_float_str(x, digits);
}
// MPFR: the precision's digits and 4 guard digits by default.
template <>
std::string to_decimal<mpfr>(const mpfr& x, int digits) {
  if (digits == 1) return round_significant(x.str(digits10<mpfr>() + 3, std::ios_base::scientific), 1);
  return x.str((digits > 0 ? digits : digits10<mpfr>() + 4) - 1, std::ios_base::scientific);
}
template <>
std::string to_decimal<mpfr50>(const mpfr50& x, int digits) {
  if (digits == 1) return round_significant(x.str(digits10<mpfr50>() + 3, std::ios_base::scientific), 1);
  return x.str((digits > 0 ? digits : digits10<mpfr50>() + 4) - 1, std::ios_base::scientific);
}

}  // namespace rbd
