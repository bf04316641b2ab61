#include "reference/numeric/interval.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>

namespace rbd {

using detail::Fr;

namespace {
thread_local bool t_planted_nearest = false;

// An MPFR number at `bits` for the duration of a scope.
[[noreturn]] void undecided(const std::string& what, const Interval& a, const Interval& b) {
  throw Undecided(what + ": " + to_decimal(a, 6) + " and " + to_decimal(b, 6) + " overlap");
}
}  // namespace

ScopedIntervalDigits::ScopedIntervalDigits(unsigned digits10) : saved_(detail::t_interval_bits) {
  const unsigned d = std::max(digits10, 20u);
  detail::t_interval_bits = static_cast<mpfr_prec_t>(std::ceil(d * 3.321928094887362)) + 1;
}

unsigned ScopedIntervalDigits::digits10() {
  return static_cast<unsigned>(std::floor((detail::t_interval_bits - 1) * 0.30102999566398120));
}

Interval::Interval(long double x) {
  init();
  Fr f(64);
  mpfr_set_ld(f.v, x, MPFR_RNDN);  // exact: 64 bits
  mpfi_set_fr(v_, f.v);
}

Interval Interval::hull(mpfr_srcptr lo, mpfr_srcptr hi) {
  Interval r;
  mpfi_interv_fr(r.data(), lo, hi);
  return r;
}

Interval Interval::of(const mpfr& x) {
  Interval r;
  mpfi_set_fr(r.data(), x.backend().data());
  return r;
}

Interval& Interval::operator*=(const Interval& b) {
  if (t_planted_nearest) {
    Fr m(mpfi_get_prec(v_)), n(mpfi_get_prec(b.v_));
    mpfi_mid(m.v, v_);
    mpfi_mid(n.v, b.v_);
    mpfr_mul(m.v, m.v, n.v, MPFR_RNDN);
    mpfi_set_fr(v_, m.v);
    return *this;
  }
  mpfi_mul(v_, v_, b.v_);
  return *this;
}

Interval& Interval::operator/=(const Interval& b) {
  if (b.contains_zero()) undecided("division by an interval that holds 0", *this, b);
  mpfi_div(v_, v_, b.v_);
  return *this;
}

Interval midpoint(const Interval& x) {
  Fr m(mpfi_get_prec(x.data()));
  mpfi_mid(m.v, x.data());
  return Interval::hull(m.v, m.v);
}

void Interval::set_planted_nearest_product(bool on) { t_planted_nearest = on; }

bool operator<(const Interval& a, const Interval& b) {
  if (mpfr_less_p(a.hi(), b.lo())) return true;     // every member of a below every member of b
  if (mpfr_greaterequal_p(a.lo(), b.hi())) return false;
  undecided("a comparison a < b", a, b);
}

bool operator<=(const Interval& a, const Interval& b) {
  if (mpfr_lessequal_p(a.hi(), b.lo())) return true;
  if (mpfr_greater_p(a.lo(), b.hi())) return false;
  undecided("a comparison a <= b", a, b);
}

bool operator==(const Interval& a, const Interval& b) {
  return a.is_point() && b.is_point() && mpfr_equal_p(a.lo(), b.lo());
}

bool prefer_less(const Interval& a, const Interval& b) {
  Fr m(mpfi_get_prec(a.data())), n(mpfi_get_prec(b.data()));
  mpfi_mid(m.v, a.data());
  mpfi_mid(n.v, b.data());
  return mpfr_less_p(m.v, n.v) != 0;
}

Interval abs(const Interval& a) {
  Interval r;
  mpfi_abs(r.data(), a.data());
  return r;
}

Interval min(const Interval& a, const Interval& b) {
  Interval r;
  mpfr_min(&r.data()->left, a.lo(), b.lo(), MPFR_RNDD);
  mpfr_min(&r.data()->right, a.hi(), b.hi(), MPFR_RNDU);
  return r;
}

Interval max(const Interval& a, const Interval& b) {
  Interval r;
  mpfr_max(&r.data()->left, a.lo(), b.lo(), MPFR_RNDD);
  mpfr_max(&r.data()->right, a.hi(), b.hi(), MPFR_RNDU);
  return r;
}

Interval sqrt(const Interval& a) {
  if (mpfr_sgn(a.lo()) < 0) undecided("the square root of an interval with negative members", a, Interval(0));
  Interval r;
  mpfi_sqrt(r.data(), a.data());
  return r;
}

Interval sin(const Interval& a) {
  Interval r;
  mpfi_sin(r.data(), a.data());
  return r;
}

Interval cos(const Interval& a) {
  Interval r;
  mpfi_cos(r.data(), a.data());
  return r;
}

Interval atan2(const Interval& y, const Interval& x) {
  // atan2 jumps across the negative x axis: only x > 0, or y bounded away from 0, is continuous.
  if (!(mpfr_sgn(x.lo()) > 0) && y.contains_zero()) undecided("atan2 at the cut (x <= 0, y near 0)", y, x);
  Interval r;
  mpfi_atan2(r.data(), y.data(), x.data());
  return r;
}

Interval ldexp(const Interval& a, int e) {
  Interval r;
  mpfi_mul_2si(r.data(), a.data(), e);
  return r;
}

Interval round(const Interval& a) {
  Fr lo(mpfi_get_prec(a.data())), hi(mpfi_get_prec(a.data()));
  mpfr_round(lo.v, a.lo());
  mpfr_round(hi.v, a.hi());
  if (!mpfr_equal_p(lo.v, hi.v)) undecided("rounding to an integer", a, a);
  Interval r;
  mpfi_set_fr(r.data(), lo.v);
  return r;
}

Interval frexp(const Interval& a, int* e) {
  if (a.contains_zero() || !a.bounded()) undecided("frexp of an interval that holds 0", a, a);
  // The exponent of the end of larger magnitude: a · 2^-e is exact whatever e is.
  const mpfr_srcptr big = mpfr_cmpabs(a.lo(), a.hi()) > 0 ? a.lo() : a.hi();
  *e = static_cast<int>(mpfr_get_exp(big));
  return ldexp(a, -*e);
}

template <>
Interval pi<Interval>() {
  Interval r;
  mpfi_const_pi(r.data());
  return r;
}

template <>
Interval epsilon<Interval>() {
  return ldexp(Interval(1), 1 - static_cast<int>(ScopedIntervalDigits::bits()));
}

template <>
int digits10<Interval>() {
  return static_cast<int>(ScopedIntervalDigits::digits10());
}

template <>
Interval from_decimal<Interval>(const std::string& text) {
  if (!is_decimal(text)) throw std::invalid_argument("not a finite decimal number: '" + text + "'");
  Interval r;
  if (mpfi_set_str(r.data(), text.c_str(), 10) != 0) throw std::invalid_argument("not a decimal number: '" + text + "'");
  return r;
}

namespace {
std::string fr_text(mpfr_srcptr x, int digits, mpfr_rnd_t rnd) {
  if (mpfr_nan_p(x)) return "nan";
  if (mpfr_inf_p(x)) return mpfr_sgn(x) < 0 ? "-inf" : "inf";
  if (mpfr_zero_p(x)) return "0";
  mpfr_exp_t e = 0;
  char* s = mpfr_get_str(nullptr, &e, 10, static_cast<size_t>(digits), x, rnd);
  std::string m(s);
  mpfr_free_str(s);
  const bool neg = m[0] == '-';
  if (neg) m.erase(0, 1);
  std::string out = (neg ? "-" : "") + m.substr(0, 1) + (m.size() > 1 ? "." + m.substr(1) : "") + "e" +
                    (e - 1 < 0 ? "-" : "+") + std::to_string(std::labs(static_cast<long>(e - 1)));
  return out;
}
}  // namespace

template <>
std::string to_decimal<Interval>(const Interval& x, int digits) {
  const int d = digits > 0 ? digits : static_cast<int>(ScopedIntervalDigits::digits10()) + 4;
  return "[" + fr_text(x.lo(), d, MPFR_RNDD) + ", " + fr_text(x.hi(), d, MPFR_RNDU) + "]";
}

template <>
double to_double<Interval>(const Interval& x) {
  Fr m(mpfi_get_prec(x.data()));
  mpfi_mid(m.v, x.data());
  return mpfr_get_d(m.v, MPFR_RNDN);
}

}  // namespace rbd

Eigen::NumTraits<rbd::Interval>::Real Eigen::NumTraits<rbd::Interval>::highest() {
  rbd::Interval r;
  mpfr_set_inf(&r.data()->left, 1);
  mpfr_nextbelow(&r.data()->left);
  mpfr_set(&r.data()->right, &r.data()->left, MPFR_RNDN);
  return r;
}
Eigen::NumTraits<rbd::Interval>::Real Eigen::NumTraits<rbd::Interval>::infinity() {
  rbd::Interval r;
  mpfr_set_inf(&r.data()->left, 1);
  mpfr_set_inf(&r.data()->right, 1);
  return r;
}
Eigen::NumTraits<rbd::Interval>::Real Eigen::NumTraits<rbd::Interval>::quiet_NaN() {
  rbd::Interval r;
  mpfr_set_nan(&r.data()->left);
  mpfr_set_nan(&r.data()->right);
  return r;
}
