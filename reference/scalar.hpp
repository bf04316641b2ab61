// Scalar types of rbdref and the one glue layer between them, Eigen and the standard library.
//
// Supported scalars (all Boost types with expression templates off, so that `auto` and Eigen see
// plain values):
//   double, long double, float128 (IEEE binary128, libquadmath), bin50 and bin100 (Boost
//   cpp_bin_float with 50 / 100 decimal digits), mpfr (MPFR with run-time precision: set it with
//   ScopedMpfrDigits before any value of that type is made).
//
// Rules kept by every templated path in reference/:
//   * no double literal: write T(1) / d, T(1) / T(2), never 1.0 / d or 0.5 * x;
//   * math through ADL: `using std::sqrt; sqrt(x)` (Boost's overloads are found by ADL);
//   * constants from the scalar type: pi<T>();
//   * numbers that come from decimal text (model files) are parsed at the precision of T by
//     from_decimal<T>; a double input converts exactly (T(x) is exact for every supported T).
#pragma once

#include <boost/multiprecision/cpp_bin_float.hpp>
#include <boost/multiprecision/float128.hpp>
#include <boost/multiprecision/mpfr.hpp>
#include <boost/math/constants/constants.hpp>

#include <Eigen/Core>

#include <cmath>
#include <limits>
#include <string>

namespace rbd {

namespace mp = boost::multiprecision;

using float128 = mp::float128;
using bin50 = mp::number<mp::cpp_bin_float<50>, mp::et_off>;
using bin100 = mp::number<mp::cpp_bin_float<100>, mp::et_off>;
using mpfr = mp::number<mp::mpfr_float_backend<0>, mp::et_off>;

// X-macro over the explicitly instantiated scalars: X(type).
#define RBDREF_FOR_EACH_SCALAR(X) \
  X(double)                       \
  X(long double)                  \
  X(::rbd::float128)              \
  X(::rbd::bin50)                 \
  X(::rbd::bin100)                \
  X(::rbd::mpfr)

// Sets MPFR's default precision (decimal digits) for the lifetime of the object and restores the
// previous one afterwards. Values created while it is alive carry that precision.
class ScopedMpfrDigits {
 public:
  explicit ScopedMpfrDigits(unsigned digits10) : saved_(mpfr::default_precision()) {
    mpfr::default_precision(digits10);
  }
  ~ScopedMpfrDigits() { mpfr::default_precision(saved_); }
  ScopedMpfrDigits(const ScopedMpfrDigits&) = delete;
  ScopedMpfrDigits& operator=(const ScopedMpfrDigits&) = delete;

 private:
  unsigned saved_;
};

template <class T>
T pi() {
  return boost::math::constants::pi<T>();
}

// Machine epsilon of T (for mpfr: of the current default precision).
template <class T>
T epsilon() {
  return std::numeric_limits<T>::epsilon();
}

// Decimal digits that T carries: floor(-log10(epsilon)) (15 for double, 50 for bin50, ...).
template <class T>
int digits10() {
  using std::log10;
  return static_cast<int>(-log10(static_cast<long double>(epsilon<T>())));
}
template <>
int digits10<bin50>();
template <>
int digits10<bin100>();
template <>
int digits10<mpfr>();
template <>
int digits10<float128>();

// True for a finite decimal number: optional sign, digits with an optional point, optional
// exponent ("0.1", "-2.5e-3", "1E+2"; not "inf", "nan", "0x1p3", "", nor anything with spaces).
bool is_decimal(const std::string& text);

// Half a unit in the last written digit of a decimal number: the rounding the text may carry
// ("0.083" -> 5e-4, "1.25e-3" -> 5e-6). A written zero ("0", "0.000") is exact: 0. Not a decimal:
// 0. Used to tell violations of physical bounds that are at the level of the input's own rounding
// from real ones (reference/build_model.hpp).
double decimal_half_unit(const std::string& text);

// The decimal number rounded to `sig` significant digits (half away from zero, on the digits as
// written: exact), written as d.ddde±XX without trailing zeros; text with at most `sig` significant
// digits, and anything that is not a decimal, is returned unchanged. Rounding twice to the same
// `sig` is rounding once. Fixtures store each value to its certified digits plus guard digits.
std::string round_significant(const std::string& text, int sig);

// Parses a decimal number ("0.1", "-2.5e-3", "1E+2", "inf" rejected) at the full precision of T,
// correctly rounded. Throws std::invalid_argument on anything that is not a finite decimal number.
template <class T>
T from_decimal(const std::string& text);

// Writes x in scientific notation with `digits` significant digits (0: all digits T carries,
// enough to read the same value back).
template <class T>
std::string to_decimal(const T& x, int digits = 0);

// Converts to double (rounded to nearest).
template <class T>
double to_double(const T& x) {
  return static_cast<double>(x);
}

// True when x is finite (not NaN, not +-inf).
template <class T>
bool is_finite(const T& x) {
  using std::isfinite;
  using boost::multiprecision::isfinite;
  return (isfinite)(x);
}

}  // namespace rbd

// Eigen's view of the Boost scalars. Written here rather than taken from Boost 1.74's
// <boost/multiprecision/eigen.hpp>, whose lowest() returns the smallest positive number and which
// lacks infinity() and quiet_NaN(); both break SelfAdjointEigenSolver. Only et_off numbers are
// supported, so no expression types and no mixed-scalar traits are needed.
namespace Eigen {
template <class Backend>
struct NumTraits<boost::multiprecision::number<Backend, boost::multiprecision::et_off>> {
  using Self = boost::multiprecision::number<Backend, boost::multiprecision::et_off>;
  using Real = Self;
  using NonInteger = Self;
  using Literal = Self;
  using Nested = Self;
  enum {
    IsComplex = 0,
    IsInteger = 0,
    IsSigned = 1,
    RequireInitialization = 1,
    ReadCost = 1,
    AddCost = 4,
    MulCost = 8
  };
  static Real epsilon() { return std::numeric_limits<Real>::epsilon(); }
  static Real dummy_precision() { return Real(1000) * epsilon(); }
  static Real highest() { return (std::numeric_limits<Real>::max)(); }
  static Real lowest() { return -(std::numeric_limits<Real>::max)(); }
  static Real infinity() { return std::numeric_limits<Real>::infinity(); }
  static Real quiet_NaN() { return std::numeric_limits<Real>::quiet_NaN(); }
  static int digits10() { return rbd::digits10<Self>(); }
  static int digits() { return std::numeric_limits<Real>::digits; }
  static int min_exponent() { return std::numeric_limits<Real>::min_exponent; }
  static int max_exponent() { return std::numeric_limits<Real>::max_exponent; }
};
}  // namespace Eigen
