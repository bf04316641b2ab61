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
#include <vector>

namespace rbd {

namespace mp = boost::multiprecision;

using float128 = mp::float128;
using bin50 = mp::number<mp::cpp_bin_float<50>, mp::et_off>;
using bin100 = mp::number<mp::cpp_bin_float<100>, mp::et_off>;
using mpfr = mp::number<mp::mpfr_float_backend<0>, mp::et_off>;
// MPFR at a fixed 50 decimal digits with its limbs inside the value (allocate_stack): no heap
// allocation per value or temporary, which is most of what the run-time precision type costs
// (docs/benchmarks.md). The same binary precision as mpfr at 50 digits (Boost converts digits to
// bits by the same rule for both), so the same MPFR operations give the same bits: the tree
// algorithms agree with mpfr at ScopedMpfrDigits(50) exactly (tests/scalar_test.cpp).
using mpfr50 = mp::number<mp::mpfr_float_backend<50, mp::allocate_stack>, mp::et_off>;

// X-macros over the explicitly instantiated scalars, the one list of them (cmake/Instantiate.cmake
// reads it from here): RBDREF_FOR_EACH_SCALAR_ARG(X, A) expands X(A, type) for each type.
#define RBDREF_FOR_EACH_SCALAR_ARG(X, A) \
  X(A, double)                           \
  X(A, long double)                      \
  X(A, ::rbd::float128)                  \
  X(A, ::rbd::bin50)                     \
  X(A, ::rbd::bin100)                    \
  X(A, ::rbd::mpfr)

// The scalars of the tree algorithms (RBDA ch. 1-7: spatial algebra, joints, the model, RNEA,
// CRBA, the LᵀDL factors, ABA, energies, Jacobians, integration; reference/tree/instantiate.hpp):
// every scalar above and mpfr50, the fixed-precision MPFR type. The closed-loop and contact
// algorithms, the checks and the evaluation are instantiated for the scalars above only (mpfr50
// is for library users and the benchmarks; the command line's MPFR is run-time precision), and
// compile where they are used for mpfr50.
#define RBDREF_FOR_EACH_TREE_SCALAR_ARG(X, A) \
  RBDREF_FOR_EACH_SCALAR_ARG(X, A)            \
  X(A, ::rbd::mpfr50)

// X(type) for each scalar.
#define RBDREF_APPLY_TO_SCALAR_(X, T) X(T)
#define RBDREF_FOR_EACH_SCALAR(X) RBDREF_FOR_EACH_SCALAR_ARG(RBDREF_APPLY_TO_SCALAR_, X)
#define RBDREF_FOR_EACH_TREE_SCALAR(X) RBDREF_FOR_EACH_TREE_SCALAR_ARG(RBDREF_APPLY_TO_SCALAR_, X)

// A header with explicit instantiations defines INST(EXT, T) (its templates for scalar T, each
// line prefixed by EXT) and ends with one of these, which declare them extern for every scalar; the
// instantiation units (cmake/Instantiate.cmake) expand INST(, T), the only place they compile.
#define RBDREF_EXTERN_FOR_EACH_SCALAR(INST) RBDREF_FOR_EACH_SCALAR_ARG(INST, extern)
#define RBDREF_EXTERN_FOR_EACH_TREE_SCALAR(INST) RBDREF_FOR_EACH_TREE_SCALAR_ARG(INST, extern)

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

// True for the interval scalar (reference/numeric/interval.hpp), whose comparisons cannot always
// decide: the few steps that only check a point model (an eigenvalue solver on an inertia) are
// skipped for it.
template <class T>
inline constexpr bool kIsInterval = false;

// a < b where the answer only chooses among formulas that are all valid (the component to scale
// an axis by, the coordinate axis to project off a direction): for the interval scalar the
// midpoints choose (interval.hpp), since every choice yields an enclosure.
template <class T>
bool prefer_less(const T& a, const T& b) {
  return a < b;
}

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
template <>
int digits10<mpfr50>();

// True for a finite decimal number: optional sign, digits with an optional point, optional
// exponent ("0.1", "-2.5e-3", "1E+2"; not "inf", "nan", "0x1p3", "", nor anything with spaces).
bool is_decimal(const std::string& text);

// Half a unit in the last written digit of a decimal number: the rounding the text may carry
// ("0.083" -> 5e-4, "1.25e-3" -> 5e-6). A written zero ("0", "0.000") is exact: 0. Not a decimal:
// 0. Used to tell violations of physical bounds that are at the level of the input's own rounding
// from real ones (reference/tree/build_model.hpp).
double decimal_half_unit(const std::string& text);

// The decimal number rounded to `sig` significant digits (half away from zero, on the digits as
// written: exact), written as d.ddde±XX without trailing zeros; a zero (any spelling) as "0" or
// "-0"; other text with at most `sig` significant digits, and anything that is not a decimal, is
// returned unchanged. Rounding twice to the same `sig` is rounding once. Fixtures store each value
// to its certified digits plus guard digits.
std::string round_significant(const std::string& text, int sig);

// Parses a decimal number ("0.1", "-2.5e-3", "1E+2", "inf" rejected) at the full precision of T,
// correctly rounded. Throws std::invalid_argument on anything that is not a finite decimal number.
template <class T>
T from_decimal(const std::string& text);

// Writes x in scientific notation with `digits` significant digits (0: enough to read the same
// value back: 17 for double, 21 for long double, max_digits10 + 1 for float128 and cpp_bin_float
// (37, 54 for bin50, 104 for bin100), digits10 + 4 for MPFR).
template <class T>
std::string to_decimal(const T& x, int digits = 0);

// Converts to double (rounded to nearest).
template <class T>
double to_double(const T& x) {
  return static_cast<double>(x);
}

// sin θ and cos θ together, for the joint rotations (spatial.hpp: rotx/roty/rotz, Rodrigues),
// which need both and where, at the multiprecision scalars, the series are most of the cost of
// the kinematics. Per scalar:
//   double, long double   the C library's sincos and sincosl: one call, the values of its sin
//                         and cos (glibc computes both alike: 2·10⁷ arguments, no difference);
//   float128              libquadmath's sincosq;
//   mpfr, mpfr50          mpfr_sin_cos: both correctly rounded, from one evaluation (the same
//                         values as Boost's sin and cos, which call mpfr_sin and mpfr_cos);
//   bin50, bin100         θ = r + k π/2 reduced in a type of 2·digits + 20 digits (θ is exact
//                         there; |r| <= π/4), then sin r by its Taylor series (detail::sin_taylor)
//                         and cos r = sqrt((1 - sin r)(1 + sin r)) (>= 0.707, so the root does not
//                         amplify the series' error; detail::sqrt_half_to_one), placed by the
//                         quadrant k mod 4. Boost's own sin and cos reduce with π at the
//                         scalar's precision and lose log10|θ| digits (1500 units in the last
//                         place at θ = 12345, 10⁸ at 2e9: tests/scalar_test.cpp); this keeps a few
//                         units for |θ| < 10^digits. Series and root are ours for speed (Boost's
//                         sin and sqrt are slower: docs/benchmarks.md, "Scalar primitives"),
//                         ~0.7 and ~0.45 units of 2^-digits off the
//                         exact values (measured against 2·digits + 20; the bound of the test is
//                         2 units for the whole sin_cos). Beyond |θ| = 10^digits, where that
//                         reduction is no longer exact enough, MPFR's (detail::sin_cos_by_mpfr).
inline void sin_cos(double th, double& s, double& c) { ::sincos(th, &s, &c); }
inline void sin_cos(long double th, long double& s, long double& c) { ::sincosl(th, &s, &c); }
inline void sin_cos(const float128& th, float128& s, float128& c) {
  __float128 sv, cv;
  sincosq(th.backend().value(), &sv, &cv);
  s = float128(sv);
  c = float128(cv);
}
inline void sin_cos(const mpfr& th, mpfr& s, mpfr& c) {
  mpfr sv(0), cv(0);  // MPFR's default precision, as the values of Boost's sin and cos
  mpfr_sin_cos(sv.backend().data(), cv.backend().data(), th.backend().data(), MPFR_RNDN);
  s = std::move(sv);
  c = std::move(cv);
}
inline void sin_cos(const mpfr50& th, mpfr50& s, mpfr50& c) {
  mpfr_sin_cos(s.backend().data(), c.backend().data(), th.backend().data(), MPFR_RNDN);
}
// Arithmetic into an existing value, r = a · b, a + b, a - b, -a, with no temporary value: the same
// correctly rounded result as the operator (r = a * b), and r may be a or b. The hot spatial
// products are written with them for the scalars that are not built-in (spatial.hpp, kInPlace):
// at the run-time precision MPFR every temporary is a heap block with an mpfr_init2 and an
// mpfr_clear, which cost more than the operation (docs/benchmarks.md, "MPFR in place").
//   built-in, float128, cpp_bin_float   the operator itself (no heap; a temporary is a copy);
//   mpfr50                              mpfr_mul / mpfr_add / mpfr_sub into r (one precision);
//   mpfr                                the same when r, a and b have one precision. Boost's
//                                       operators give the result at the larger precision of a
//                                       and b, which the assignment gives r; otherwise
//                                       (mixed precisions) the operator itself, so the value and
//                                       the precision r ends with are the operator's in every case.
template <class T>
inline void mul_to(T& r, const T& a, const T& b) {
  r = a * b;
}
template <class T>
inline void add_to(T& r, const T& a, const T& b) {
  r = a + b;
}
template <class T>
inline void sub_to(T& r, const T& a, const T& b) {
  r = a - b;
}
template <class T>
inline void neg_to(T& r, const T& a) {
  r = -a;
}
namespace detail {
inline bool one_precision(const mpfr& r, const mpfr& a, const mpfr& b) {
  const mpfr_prec_t p = mpfr_get_prec(r.backend().data());
  return mpfr_get_prec(a.backend().data()) == p && mpfr_get_prec(b.backend().data()) == p;
}
}  // namespace detail
inline void mul_to(mpfr& r, const mpfr& a, const mpfr& b) {
  if (detail::one_precision(r, a, b)) mpfr_mul(r.backend().data(), a.backend().data(), b.backend().data(), MPFR_RNDN);
  else r = a * b;
}
inline void add_to(mpfr& r, const mpfr& a, const mpfr& b) {
  if (detail::one_precision(r, a, b)) mpfr_add(r.backend().data(), a.backend().data(), b.backend().data(), MPFR_RNDN);
  else r = a + b;
}
inline void sub_to(mpfr& r, const mpfr& a, const mpfr& b) {
  if (detail::one_precision(r, a, b)) mpfr_sub(r.backend().data(), a.backend().data(), b.backend().data(), MPFR_RNDN);
  else r = a - b;
}
inline void neg_to(mpfr& r, const mpfr& a) {
  if (detail::one_precision(r, a, a)) mpfr_neg(r.backend().data(), a.backend().data(), MPFR_RNDN);
  else r = -a;
}
inline void neg_to(mpfr50& r, const mpfr50& a) { mpfr_neg(r.backend().data(), a.backend().data(), MPFR_RNDN); }
inline void mul_to(mpfr50& r, const mpfr50& a, const mpfr50& b) {
  mpfr_mul(r.backend().data(), a.backend().data(), b.backend().data(), MPFR_RNDN);
}
inline void add_to(mpfr50& r, const mpfr50& a, const mpfr50& b) {
  mpfr_add(r.backend().data(), a.backend().data(), b.backend().data(), MPFR_RNDN);
}
inline void sub_to(mpfr50& r, const mpfr50& a, const mpfr50& b) {
  mpfr_sub(r.backend().data(), a.backend().data(), b.backend().data(), MPFR_RNDN);
}

namespace detail {

// sin r for |r| <= π/4 at T = cpp_bin_float: the Taylor series r Σ_k (-r²)^k / (2k+1)!, k = 0..K,
// summed by Horner in r² from its last term, s ← 1 - s r² / ((2k)(2k+1)), k = K..1, with K the
// first k after which the terms left out, from (π/4)^(2K+2) / (2K+3)! relative to r on, are below
// 2^-(digits + 6) (K = 19 at bin50, 33 at bin100). The terms decrease and alternate, so each
// partial sum stays within [1 - r²/6, 1]: no cancellation.
template <class T>
T sin_taylor(const T& r) {
  static const std::vector<T> inv = [] {  // inv[k] = 1 / ((2k)(2k+1)), each rounded once
    std::vector<T> v(1, T(0));
    const double bound = -(std::numeric_limits<T>::digits + 6) * std::log(2.0), log_r = std::log(0.7854);
    for (int k = 1;; ++k) {
      v.push_back(T(1) / T((2 * k) * (2 * k + 1)));
      if ((2 * k + 2) * log_r - std::lgamma(2.0 * k + 4) < bound) return v;
    }
  }();
  const T r2 = r * r;
  T s(1);
  for (size_t k = inv.size() - 1; k >= 1; --k) {
    s *= r2;
    s *= inv[k];
    s = T(1) - s;
  }
  return r * s;
}

// sqrt(a) for a in [1/2, 1] at T = cpp_bin_float: Newton on ρ = 1/sqrt(a) from double's root
// (ρ ← ρ + ρ (1 - a ρ²) / 2 doubles the correct bits: 53 → 106 → 212 → 424), stopped once ρ holds
// more than half of T's bits; then y = a ρ and the last step y + ρ (a - y²) / 2, which doubles
// them again and is within half a unit of the root up to a few units of T's rounding.
template <class T>
T sqrt_half_to_one(const T& a) {
  T rho(1.0 / std::sqrt(static_cast<double>(a)));
  for (int bits = 50; bits < std::numeric_limits<T>::digits / 2 + 8; bits *= 2) {
    T t = a * rho;
    t *= rho;
    rho += rho * T(T(1) - t) / 2;
  }
  const T y = a * rho;
  return y + rho * T(a - y * y) / 2;
}

}  // namespace detail

namespace detail {

// y := the finite binary floating-point x exactly (y has precision ≥ x's bits + 64): x is scaled
// into [1/2, 1) by its exponent, then split into doubles, each the nearest double to what is left
// (the remainder x - d is exact in T), summed exactly in y, and scaled back.
template <class T>
void exact_mpfr(mpfr_ptr y, const T& x) {
  using std::frexp;
  using boost::multiprecision::frexp;
  mpfr_set_zero(y, 1);
  if (x == T(0)) return;
  int e = 0;
  T r = frexp(x, &e);
  while (r != T(0)) {
    const double d = static_cast<double>(r);
    mpfr_add_d(y, y, d, MPFR_RNDN);  // exact: y holds every bit of x
    r -= T(d);
  }
  mpfr_mul_2si(y, y, e, MPFR_RNDN);
}

// y in T, within a unit of T's last place: the sum of the doubles nearest to what is left of y.
template <class T>
T from_mpfr(mpfr_srcptr y) {
  mpfr_t rest;
  mpfr_init2(rest, mpfr_get_prec(y));
  mpfr_set(rest, y, MPFR_RNDN);
  T r(0);
  for (int k = 0; k < std::numeric_limits<T>::digits / 53 + 3 && !mpfr_zero_p(rest); ++k) {
    const double d = mpfr_get_d(rest, MPFR_RNDN);
    r += T(d);
    mpfr_sub_d(rest, rest, d, MPFR_RNDN);  // exact: d is rest rounded to 53 bits
  }
  mpfr_clear(rest);
  return r;
}

// sin θ and cos θ of a finite θ of any size by MPFR (correctly rounded at T's bits + 16, then to T).
template <class T>
void sin_cos_by_mpfr(const T& th, T& s, T& c) {
  const mpfr_prec_t bits = std::numeric_limits<T>::digits;
  mpfr_t x, sv, cv;
  mpfr_init2(x, bits + 64);
  mpfr_init2(sv, bits + 16);
  mpfr_init2(cv, bits + 16);
  exact_mpfr(x, th);
  mpfr_sin_cos(sv, cv, x, MPFR_RNDN);
  s = from_mpfr<T>(sv);
  c = from_mpfr<T>(cv);
  mpfr_clear(x);
  mpfr_clear(sv);
  mpfr_clear(cv);
}

}  // namespace detail

template <unsigned Digits>
void sin_cos(const mp::number<mp::cpp_bin_float<Digits>, mp::et_off>& th, mp::number<mp::cpp_bin_float<Digits>, mp::et_off>& s,
             mp::number<mp::cpp_bin_float<Digits>, mp::et_off>& c) {
  using T = mp::number<mp::cpp_bin_float<Digits>, mp::et_off>;
  using W = mp::number<mp::cpp_bin_float<2 * Digits + 20>, mp::et_off>;
  static const W half_pi = boost::math::constants::half_pi<W>();
  static const W two_over_pi = W(1) / half_pi;
  static const W limit = pow(W(10), static_cast<int>(Digits));
  const W x(th);  // exact
  using std::abs;
  if (!(abs(x) < limit)) {  // beyond what W reduces exactly enough: MPFR's, any argument
    if (!(boost::multiprecision::isfinite)(th)) {
      s = sin(th);
      c = cos(th);
    } else {
      detail::sin_cos_by_mpfr(th, s, c);
    }
    return;
  }
  const W k = round(W(x * two_over_pi));
  const T r(W(x - W(k * half_pi)));
  const T sr = detail::sin_taylor(r);
  const T cr = detail::sqrt_half_to_one(T((T(1) - sr) * (T(1) + sr)));
  // k mod 4, by an integer where k fits one (|θ| < 7e18), else by fmod
  const int quadrant = abs(k) < W(4e18) ? static_cast<int>(static_cast<long long>(k) & 3)
                                        : (static_cast<int>(fmod(k, W(4))) + 4) % 4;
  switch (quadrant) {
    case 0: s = sr, c = cr; break;       // θ = r
    case 1: s = cr, c = -sr; break;      // θ = r + π/2
    case 2: s = -sr, c = -cr; break;     // θ = r + π
    default: s = -cr, c = sr; break;     // θ = r + 3π/2
  }
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
