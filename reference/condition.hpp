// κ₂(H) = λmax(H) / λmin(H) of a symmetric positive-definite H (the joint-space inertia matrix)
// without an eigendecomposition in T: two Lanczos iterations (Golub & Van Loan, Matrix
// Computations, 4th ed., §10.1, with full reorthogonalization, §10.3.1), one on H and one on H⁻¹,
// where H⁻¹ is applied through the LᵀDL factor of RBDA §6.5 (table 6.3; table 6.4's
// back-substitutions: ltdl_solve).
//
//   double condition_estimate(H, f)     f = ltdl(H, λ) (or any drop-in factor of H, e.g.
//                                       ltdl_articulated); +infinity when !f.ok
//
//   λmax(H):   Lanczos in double on H rounded to double (symmetric part). The largest eigenvalue of
//              a symmetric matrix is perfectly conditioned in the absolute sense, |δλ| ≤ ‖δH‖₂, and
//              λmax ≥ ‖H‖₂, so rounding H to double moves it by at most ~ε_double relative.
//   λmin(H) = 1 / λmax(H⁻¹):  Lanczos in double on the operator x ↦ H⁻¹ x, each product one
//              ltdl_solve in T on x converted to T (O(nnz L) operations in T), then rounded to double.
//              The solve is backward stable in T: the computed H⁻¹ x is exact for some H + δH with
//              ‖δH‖ ~ n ε_T ‖H‖, so λmin comes out with relative error ~ n ε_T κ(H) plus double
//              rounding of the Lanczos arithmetic: κ up to ~10^(digits(T) - 10) is resolved to ~6
//              significant digits (at bin50: 10^40; at double only κ ≪ 10^10 is sharp).
//   Each iteration: w = A v_k - β_{k-1} v_{k-1};  α_k = v_kᵀ w;  w -= α_k v_k;  then w is
//              reorthogonalized twice against every previous v (classical Gram-Schmidt, "twice is
//              enough"); β_k = |w|₂; v_{k+1} = w / β_k. The Ritz values are the eigenvalues of the
//              tridiagonal T_k = tridiag(β, α, β); the largest one, θ, increases monotonically to
//              λmax(A) and has an eigenvalue of A within the residual bound β_k |s_k| of it (s the
//              Ritz vector's last entry). Stop when β_k |s_k| ≤ 1e-10 θ, or on breakdown (β_k ≈ 0:
//              an invariant subspace, θ exact), or after min(n, 120) steps (n steps: exact up to
//              rounding). Starting vector: a fixed pseudo-random vector (deterministic output).
//              Without convergence θ is a lower bound of λmax: κ is then under-estimated (both
//              Ritz values are bounds from inside), by less than the residual bound relative.
//
// Cost: ≤ 120 dense products in double (O(n²) each) and ≤ 120 ltdl_solve in T (O(nnz L) each),
// instead of the O(n³) eigenvalues in T of checks/properties.hpp's condition_number. Returns a
// double: κ is reported to ~6 digits (the fixtures store 6).
#pragma once

#include "reference/ltdl.hpp"

#include <Eigen/Eigenvalues>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace rbd {

template <class T>
double condition_estimate(const MatX<T>& H, const SparseFactor<T>& f);

namespace detail {

// Largest eigenvalue of the symmetric operator `apply` (n x n) by Lanczos with full
// reorthogonalization (see above). Deterministic start.
template <class Apply>
double lanczos_max(Eigen::Index n, const Apply& apply) {
  if (n == 0) return 0;
  const int max_steps = static_cast<int>(n < 120 ? n : 120);
  std::vector<Eigen::VectorXd> V;
  V.reserve(static_cast<size_t>(max_steps) + 1);
  Eigen::VectorXd v(n);
  std::uint64_t s = 0x9E3779B97F4A7C15ull;  // splitmix64: a fixed pseudo-random start in (0.5, 1.5)
  for (Eigen::Index i = 0; i < n; ++i) {
    s += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    v(i) = 0.5 + static_cast<double>(z >> 11) / 9007199254740992.0;
  }
  v /= v.norm();
  V.push_back(v);
  std::vector<double> alpha, beta;
  double theta = 0;
  for (int k = 0; k < max_steps; ++k) {
    Eigen::VectorXd w = apply(V[k]);
    if (k > 0) w -= beta[k - 1] * V[k - 1];
    const double a = V[k].dot(w);
    alpha.push_back(a);
    w -= a * V[k];
    for (int pass = 0; pass < 2; ++pass)
      for (const Eigen::VectorXd& u : V) w -= u.dot(w) * u;
    const double b = w.norm();
    // Ritz values of T_k (k+1 x k+1).
    const int m = k + 1;
    Eigen::VectorXd d(m), e(m - 1);
    for (int i = 0; i < m; ++i) d(i) = alpha[i];
    for (int i = 0; i + 1 < m; ++i) e(i) = beta[i];
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es;
    es.computeFromTridiagonal(d, e, Eigen::ComputeEigenvectors);
    theta = es.eigenvalues()(m - 1);
    const double resid = b * std::abs(es.eigenvectors()(m - 1, m - 1));
    const double scale = std::abs(theta) > 0 ? std::abs(theta) : 1.0;
    // Breakdown: w lies (to rounding) in span(V), the Krylov space is invariant and θ is exact.
    if (resid <= 1e-10 * scale || b <= 1e-14 * scale || !std::isfinite(b)) break;
    beta.push_back(b);
    V.push_back(w / b);
  }
  return theta;
}

}  // namespace detail

template <class T>
double condition_estimate(const MatX<T>& H, const SparseFactor<T>& f) {
  const double inf = std::numeric_limits<double>::infinity();
  const Eigen::Index n = H.rows();
  if (n == 0) return 1;
  if (!f.ok) return inf;
  Eigen::MatrixXd Hd(n, n);
  for (Eigen::Index j = 0; j < n; ++j)
    for (Eigen::Index i = 0; i < n; ++i) Hd(i, j) = static_cast<double>(T(H(i, j)));
  Hd = (0.5 * (Hd + Hd.transpose())).eval();
  const double lmax = detail::lanczos_max(n, [&](const Eigen::VectorXd& x) { return Eigen::VectorXd(Hd * x); });
  const double inv_lmin = detail::lanczos_max(n, [&](const Eigen::VectorXd& x) {
    VecX<T> xt(n);
    for (Eigen::Index i = 0; i < n; ++i) xt(i) = T(x(i));  // exact
    const VecX<T> y = ltdl_solve<T>(f, xt);
    Eigen::VectorXd yd(n);
    for (Eigen::Index i = 0; i < n; ++i) yd(i) = static_cast<double>(y(i));
    return yd;
  });
  if (!(inv_lmin > 0) || !(lmax > 0)) return inf;
  const double kappa = lmax * inv_lmin;
  return std::isfinite(kappa) ? kappa : inf;
}

#define RBDREF_CONDITION_INSTANTIATE(EXT, T) \
  EXT template double condition_estimate<T>(const MatX<T>&, const SparseFactor<T>&);
#define RBDREF_CONDITION_EXTERN(T) RBDREF_CONDITION_INSTANTIATE(extern, T)
RBDREF_FOR_EACH_SCALAR(RBDREF_CONDITION_EXTERN)
#undef RBDREF_CONDITION_EXTERN

}  // namespace rbd
