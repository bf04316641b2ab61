#include "certify/verified_solve.hpp"

#include <Eigen/LU>

#include <algorithm>
#include <cmath>

namespace rbd {

using detail::Fr;

namespace {

bin100 mid_bin100(const Interval& x) {
  Fr m(mpfi_get_prec(x.data()));
  mpfi_mid(m.v, x.data());
  return detail::from_mpfr<bin100>(m.v);
}

// An upper bound of max_i Σ_j |C_ij| (the ∞-norm of every matrix in [C]), as an MPFR number.
void norm_inf_upper(mpfr_ptr out, const MatX<Interval>& C) {
  Fr row(mpfr_get_prec(out)), mag(mpfr_get_prec(out));
  mpfr_set_zero(out, 1);
  for (Eigen::Index i = 0; i < C.rows(); ++i) {
    mpfr_set_zero(row.v, 1);
    for (Eigen::Index j = 0; j < C.cols(); ++j) {
      mpfi_mag(mag.v, C(i, j).data());
      mpfr_add(row.v, row.v, mag.v, MPFR_RNDU);
    }
    mpfr_max(out, out, row.v, MPFR_RNDU);
  }
}

}  // namespace

VerifiedSolve verified_solve(const MatX<Interval>& A, const VecX<Interval>& b, const VecX<Interval>& x_approx) {
  VerifiedSolve out;
  const Eigen::Index n = A.rows();
  if (A.cols() != n || b.size() != n || x_approx.size() != n) {
    out.why = "the system is not square";
    return out;
  }
  for (Eigen::Index k = 0; k < A.size(); ++k)
    if (!A.data()[k].bounded()) {
      out.why = "the matrix has an unbounded entry";
      return out;
    }
  MatX<bin100> Am(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j) Am(i, j) = mid_bin100(A(i, j));
  const Eigen::FullPivLU<MatX<bin100>> lu(Am);
  if (!lu.isInvertible()) {
    out.why = "the midpoint matrix is singular at 100 digits";
    return out;
  }
  const MatX<bin100> Rm = lu.inverse();
  MatX<Interval> R(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j) R(i, j) = Interval::of(Rm(i, j));
  VecX<Interval> xt(n);
  for (Eigen::Index i = 0; i < n; ++i) xt(i) = midpoint(x_approx(i));
  for (int pass = 0; pass < 2; ++pass) {
    const VecX<Interval> d = R * VecX<Interval>(b - A * xt);
    for (Eigen::Index i = 0; i < n; ++i) xt(i) = midpoint(xt(i) + d(i));
  }
  const VecX<Interval> z = R * VecX<Interval>(b - A * xt);
  MatX<Interval> C = -(R * A);
  for (Eigen::Index i = 0; i < n; ++i) C(i, i) += Interval(1);
  const mpfr_prec_t bits = ScopedIntervalDigits::bits();
  Fr c(bits), zn(bits), beta(bits), one_minus(bits);
  norm_inf_upper(c.v, C);
  if (!(mpfr_cmp_ui(c.v, 1) < 0)) {
    out.why = "I - R A is not proven contracting (its norm bound is " + std::to_string(mpfr_get_d(c.v, MPFR_RNDU)) +
              " >= 1): the system is too ill-conditioned for this precision, or singular";
    return out;
  }
  MatX<Interval> zc(n, 1);
  zc.col(0) = z;
  norm_inf_upper(zn.v, zc);
  mpfr_ui_sub(one_minus.v, 1, c.v, MPFR_RNDD);
  mpfr_div(beta.v, zn.v, one_minus.v, MPFR_RNDU);
  Fr neg(bits);
  mpfr_neg(neg.v, beta.v, MPFR_RNDD);
  VecX<Interval> X(n);
  for (Eigen::Index i = 0; i < n; ++i) X(i) = Interval::hull(neg.v, beta.v);
  for (int pass = 0; pass < 3; ++pass) {
    const VecX<Interval> Y = z + C * X;
    for (Eigen::Index i = 0; i < n; ++i) mpfi_intersect(X(i).data(), X(i).data(), Y(i).data());
  }
  out.x = xt + X;
  out.ok = true;
  return out;
}

}  // namespace rbd
