// The interval scalar: a closed interval [lo, hi] of MPFR numbers whose every operation rounds
// outward, so that the result contains every value the operation takes on the operands' members.
// An algorithm of reference/ run on Interval values (from_decimal<Interval> of the inputs as
// written, or the exact doubles) returns an enclosure of the exact value of the same formula on
// the exact inputs: the proof behind rbdref's proven digits (docs/certified-digits.md).
//
// Arithmetic, square root, sine, cosine, atan2 and π are MPFI's (libmpfi, over MPFR): rigorous at
// any argument (sin and cos of 1e300 are enclosed, not guessed). The comparisons are ours, because
// an interval cannot always decide:
//   a < b, a <= b, a > b, a >= b   the answer when it holds, or fails, for every pair of members;
//                                  otherwise Undecided is thrown (an algorithm whose branch depends
//                                  on the rounding proves nothing; the caller reports why);
//   a == b                         true when both are the same single number (an exact zero or one:
//                                  the structural shortcuts of the spatial algebra); false otherwise,
//                                  which sends the algorithm down its general path, valid for every
//                                  member; a != b is its negation;
//   a / b, sqrt(a)                 Undecided when b holds 0, or a holds a negative number.
// Values carry the thread's interval precision (ScopedIntervalDigits) when they are made; an
// operation's result has that precision and encloses the exact result whatever the operands'.
#pragma once

#include "reference/numeric/scalar.hpp"

#include <mpfi.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace rbd {

// A decision an interval evaluation could not take: the enclosures overlap where the algorithm
// branches (a comparison, a pivot, a division by an interval that holds 0).
class Undecided : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {
// An MPFR number of `bits` for the duration of a scope (the endpoints' arithmetic of the proofs).
struct Fr {
  mpfr_t v;
  explicit Fr(mpfr_prec_t bits) { mpfr_init2(v, bits); }
  ~Fr() { mpfr_clear(v); }
  Fr(const Fr&) = delete;
  Fr& operator=(const Fr&) = delete;
};
// The precision (bits) of the intervals made on this thread.
inline thread_local mpfr_prec_t t_interval_bits = 200;
}  // namespace detail

// Sets the thread's interval precision to `digits10` decimal digits for the lifetime of the object
// (at least 20, so that every double and long double converts exactly).
class ScopedIntervalDigits {
 public:
  explicit ScopedIntervalDigits(unsigned digits10);
  ~ScopedIntervalDigits() { detail::t_interval_bits = saved_; }
  ScopedIntervalDigits(const ScopedIntervalDigits&) = delete;
  ScopedIntervalDigits& operator=(const ScopedIntervalDigits&) = delete;
  static unsigned digits10();  // of the thread's current precision
  static mpfr_prec_t bits() { return detail::t_interval_bits; }

 private:
  mpfr_prec_t saved_;
};

class Interval {
 public:
  Interval() { init(); mpfi_set_si(v_, 0); }
  Interval(int x) { init(); mpfi_set_si(v_, x); }                    // exact
  Interval(long x) { init(); mpfi_set_si(v_, x); }                   // exact
  Interval(long long x) { init(); mpfi_set_si(v_, static_cast<long>(x)); }
  Interval(unsigned x) { init(); mpfi_set_ui(v_, x); }
  Interval(unsigned long x) { init(); mpfi_set_ui(v_, x); }
  Interval(double x) { init(); mpfi_set_d(v_, x); }                  // exact (precision >= 64 bits)
  Interval(long double x);                                             // exact
  // [lo, hi] from two MPFR numbers (rounded outward to this precision).
  static Interval hull(mpfr_srcptr lo, mpfr_srcptr hi);
  // The enclosure of a point value of another scalar: exact when it fits the precision.
  static Interval of(const mpfr& x);
  // x = Σ of doubles, taken exactly (double, long double, float128, cpp_bin_float).
  template <class T>
  static Interval of(const T& x);

  Interval(const Interval& o) {
    mpfi_init2(v_, std::max(mpfi_get_prec(o.v_), detail::t_interval_bits));
    mpfi_set(v_, o.v_);
  }
  Interval(Interval&& o) noexcept {
    init_empty();
    mpfi_swap(v_, o.v_);
  }
  Interval& operator=(const Interval& o) {
    if (this != &o) {
      if (!live()) init();
      mpfi_set(v_, o.v_);
    }
    return *this;
  }
  Interval& operator=(Interval&& o) noexcept {
    mpfi_swap(v_, o.v_);
    return *this;
  }
  ~Interval() {
    if (live()) mpfi_clear(v_);
  }

  mpfi_srcptr data() const { return v_; }
  mpfi_ptr data() { return v_; }
  mpfr_srcptr lo() const { return &v_->left; }
  mpfr_srcptr hi() const { return &v_->right; }
  bool is_point() const { return mpfr_equal_p(lo(), hi()) != 0; }
  bool contains_zero() const { return mpfi_has_zero(v_) > 0; }
  bool bounded() const { return mpfi_bounded_p(v_) != 0; }
  // Whether the interval holds x (an MPFR number, exactly).
  bool contains(mpfr_srcptr x) const { return mpfi_is_inside_fr(x, v_) > 0; }
  double lo_double() const { return mpfr_get_d(lo(), MPFR_RNDD); }
  double hi_double() const { return mpfr_get_d(hi(), MPFR_RNDU); }

  Interval& operator+=(const Interval& b) { mpfi_add(v_, v_, b.v_); return *this; }
  Interval& operator-=(const Interval& b) { mpfi_sub(v_, v_, b.v_); return *this; }
  Interval& operator*=(const Interval& b);
  Interval& operator/=(const Interval& b);

  // For tests of the tests: multiplications round to nearest (both ends the same nearest point),
  // the defect the interval tests must catch. Thread-local; off unless a test sets it.
  static void set_planted_nearest_product(bool on);

 private:
  struct Empty {};
  void init() { mpfi_init2(v_, detail::t_interval_bits); }
  void init_empty() { v_->left._mpfr_d = nullptr; v_->right._mpfr_d = nullptr; }
  bool live() const { return v_->left._mpfr_d != nullptr; }
  mpfi_t v_;
};

inline Interval operator+(Interval a, const Interval& b) { return a += b; }
inline Interval operator-(Interval a, const Interval& b) { return a -= b; }
inline Interval operator*(Interval a, const Interval& b) { return a *= b; }
inline Interval operator/(Interval a, const Interval& b) { return a /= b; }
inline Interval operator-(const Interval& a) {
  Interval r;
  mpfi_neg(r.data(), a.data());
  return r;
}
inline Interval operator+(const Interval& a) { return a; }

// Comparisons (see the file's comment): certain answers, or Undecided.
bool operator<(const Interval& a, const Interval& b);
inline bool operator>(const Interval& a, const Interval& b) { return b < a; }
bool operator<=(const Interval& a, const Interval& b);
inline bool operator>=(const Interval& a, const Interval& b) { return b <= a; }
bool operator==(const Interval& a, const Interval& b);
inline bool operator!=(const Interval& a, const Interval& b) { return !(a == b); }

// The midpoints' order: a choice among formulas that are all valid (scalar.hpp).
bool prefer_less(const Interval& a, const Interval& b);

// The point interval at x's midpoint (a single number: a point algorithm's approximation).
Interval midpoint(const Interval& x);

Interval abs(const Interval& a);
// {min(x, y)} and {max(x, y)} over x in a, y in b, exact: the continuous choices a formula can make
// without a comparison (std::min and std::max would ask a < b, which overlapping intervals cannot
// answer). Found by ADL after `using std::min;`, preferred to std::min's template.
Interval min(const Interval& a, const Interval& b);
Interval max(const Interval& a, const Interval& b);
Interval sqrt(const Interval& a);
Interval sin(const Interval& a);
Interval cos(const Interval& a);
Interval atan2(const Interval& y, const Interval& x);
Interval ldexp(const Interval& a, int e);  // a · 2^e, exact
Interval round(const Interval& a);         // the nearest integer, when every member rounds to it
// a = m · 2^e with e the exponent of a's end of larger magnitude (|m| about [1/2, 1]), exact.
Interval frexp(const Interval& a, int* e);
inline void sin_cos(const Interval& th, Interval& s, Interval& c) {
  s = sin(th);
  c = cos(th);
}
inline bool isfinite(const Interval& a) { return a.bounded() && mpfi_nan_p(a.data()) == 0; }
inline bool isnan(const Interval& a) { return mpfi_nan_p(a.data()) != 0; }
inline bool isinf(const Interval& a) { return !isfinite(a) && !isnan(a); }

template <>
inline constexpr bool kIsInterval<Interval> = true;
template <>
inline bool is_finite<Interval>(const Interval& x) {
  return isfinite(x);
}
template <>
Interval pi<Interval>();
template <>
Interval epsilon<Interval>();
template <>
int digits10<Interval>();
template <>
Interval from_decimal<Interval>(const std::string& text);  // the enclosure of the decimal
// "[lo, hi]", each end with `digits` significant digits rounded outward (0: enough to read back).
template <>
std::string to_decimal<Interval>(const Interval& x, int digits);
template <>
double to_double<Interval>(const Interval& x);  // the nearest double to the midpoint


template <class T>
Interval Interval::of(const T& x) {
  mpfr_t y;
  mpfr_init2(y, std::numeric_limits<T>::digits + 64);
  if (!is_finite(x)) {
    mpfr_clear(y);
    throw Undecided("a value that is not finite has no enclosure");
  }
  detail::exact_mpfr(y, x);
  Interval r;
  mpfi_set_fr(r.data(), y);
  mpfr_clear(y);
  return r;
}

}  // namespace rbd

namespace Eigen {
template <>
struct NumTraits<rbd::Interval> {
  using Self = rbd::Interval;
  using Real = Self;
  using NonInteger = Self;
  using Literal = Self;
  using Nested = Self;
  enum { IsComplex = 0, IsInteger = 0, IsSigned = 1, RequireInitialization = 1, ReadCost = 1, AddCost = 8, MulCost = 16 };
  static Real epsilon() { return rbd::epsilon<rbd::Interval>(); }
  static Real dummy_precision() { return Real(1000) * epsilon(); }
  static Real highest();
  static Real lowest() { return -highest(); }
  static Real infinity();
  static Real quiet_NaN();
  static int digits10() { return rbd::digits10<rbd::Interval>(); }
  static int digits() { return static_cast<int>(rbd::ScopedIntervalDigits::bits()); }
};
}  // namespace Eigen
