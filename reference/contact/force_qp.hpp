// The contact problem as the quadratic program of the contact forces (RBDA §11.5 eq. 11.43):
//
//   minimize    f(λ) = ½ λᵀ M λ + λᵀ d        (M = TᵀH⁻¹T symmetric positive-semidefinite)
//   subject to  λ ≥ 0
//
// whose optimality (KKT) conditions are exactly the LCP (11.42): ζ̇ = ∇f = Mλ + d ≥ 0, λ ≥ 0,
// λᵀζ̇ = 0 (the multipliers of the bounds are ζ̇). Solved here by a primal active-set method on the
// bounds, the third route beside Lemke's tableau (lcp.hpp) and the dual method on eq. 11.44
// (contact/qp.hpp):
//
//   F: the free contacts (λ_F unconstrained), B = the others (λ_B = 0). Start at λ = 0, F = ∅.
//   1. Minimize f over λ_F with λ_B = 0: M_FF λ_F = -d_F, by the eigen-decomposition of M_FF
//      (rank at the threshold 1000 n ε max|M|), taking the minimum-norm solution. If -d_F has a
//      component r outside range(M_FF), f decreases without bound along p_F = -r (M_FF p = 0,
//      d_Fᵀp = -|r|² < 0).
//   2. A bounded minimizer λ*: move from λ towards it; if a free λ_i reaches 0 first, stop there and
//      move i to B (a blocking bound), go to 1. Otherwise λ = λ*.
//      An unbounded direction p: if p ≥ 0, no solution exists: y = p has y ≥ 0, My = 0 (for PSD M,
//      pᵀM_FF p = 0 implies M p = 0 for p padded with zeros) and dᵀy < 0 — the certificate of
//      lcp.hpp and contact/qp.hpp; else move along p until a free λ_i reaches 0, move it to B, go to 1.
//   3. At a minimizer on F: the bounds' multipliers are ζ̇_B = (Mλ + d)_B. If every one is ≥ -tol,
//      λ is optimal; else the most negative one leaves B for F (f decreases along it), go to 1.
//
// f decreases strictly at each release and never increases, so no (F, B) repeats and the method
// ends in finitely many steps (capped at 50 (n + 1)²; `Failed` with a message beyond). Where M is
// singular λ is not unique; this returns the minimum-norm λ_F on its final free set, which need
// not be Lemke's λ: Mλ (hence ζ̇ and Tλ, the forces the contacts exert) and f(λ) are the same for
// every minimizer.
#pragma once

#include "reference/numeric/scalar.hpp"
#include "reference/spatial/spatial.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <string>
#include <vector>

namespace rbd {

template <class T>
struct ForceQp {
  enum Status { Solved, NoSolution, Failed };
  Status status = Failed;
  VecX<T> lambda;       // a minimizer of eq. 11.43
  VecX<T> zeta_dot;     // Mλ + d, the bounds' multipliers
  T objective = T(0);   // ½λᵀMλ + λᵀd
  VecX<T> certificate;  // NoSolution: y ≥ 0, My = 0, dᵀy < 0 (max y = 1)
  std::vector<int> free_set;
  int steps = 0;
  std::string message;
};

template <class T>
ForceQp<T> solve_force_qp(const MatX<T>& M, const VecX<T>& d);

// ---- definition ----

template <class T>
ForceQp<T> solve_force_qp(const MatX<T>& M, const VecX<T>& d) {
  using std::abs;
  const int n = static_cast<int>(d.size());
  ForceQp<T> r;
  T mmax(0), dmax(0);
  for (Eigen::Index i = 0; i < M.size(); ++i) mmax = std::max(mmax, T(abs(M.data()[i])));
  for (int i = 0; i < n; ++i) dmax = std::max(dmax, T(abs(d(i))));
  const T eps = epsilon<T>();
  const T rank_tol = T(1000) * T(n + 1) * eps * (mmax > T(0) ? mmax : T(1));
  VecX<T> lambda = VecX<T>::Zero(n);
  std::vector<bool> free(static_cast<size_t>(n), false);
  auto finish_solved = [&]() {
    r.status = ForceQp<T>::Solved;
    r.lambda = lambda;
    r.zeta_dot = M * lambda + d;
    r.objective = T(lambda.dot(M * lambda)) / T(2) + lambda.dot(d);
    for (int i = 0; i < n; ++i)
      if (free[static_cast<size_t>(i)]) r.free_set.push_back(i);
    return r;
  };
  if (n == 0) return finish_solved();
  const int max_steps = 50 * (n + 1) * (n + 1);
  while (r.steps < max_steps) {
    ++r.steps;
    std::vector<int> F;
    for (int i = 0; i < n; ++i)
      if (free[static_cast<size_t>(i)]) F.push_back(i);
    const int nf = static_cast<int>(F.size());
    // The scale of ζ̇ at the current λ, for the multipliers' sign test.
    T lmax(0);
    for (int i = 0; i < n; ++i) lmax = std::max(lmax, T(abs(lambda(i))));
    const T ztol = T(1000) * T(n + 1) * eps * (mmax * lmax + dmax);
    if (nf == 0) {
      // λ = 0: optimal iff d ≥ 0; else release the most negative d_i.
      int p = -1;
      T worst = -ztol;
      for (int i = 0; i < n; ++i)
        if (d(i) < worst) { worst = d(i); p = i; }
      if (p < 0) return finish_solved();
      free[static_cast<size_t>(p)] = true;
      continue;
    }
    // 1. The minimizer on F (or a direction of unbounded descent).
    MatX<T> MFF(nf, nf);
    VecX<T> dF(nf), lF(nf);
    for (int a = 0; a < nf; ++a) {
      dF(a) = d(F[a]);
      lF(a) = lambda(F[a]);
      for (int b = 0; b < nf; ++b) MFF(a, b) = M(F[a], F[b]);
    }
    const Eigen::SelfAdjointEigenSolver<MatX<T>> es(MFF);
    if (es.info() != Eigen::Success) {
      r.message = "the eigen-decomposition of M_FF did not converge";
      return r;
    }
    const MatX<T>& V = es.eigenvectors();
    const VecX<T>& sig = es.eigenvalues();
    VecX<T> target = VecX<T>::Zero(nf), null_part = VecX<T>::Zero(nf);
    for (int k = 0; k < nf; ++k) {
      const T c = V.col(k).dot(dF);
      if (sig(k) > rank_tol) target -= (c / sig(k)) * V.col(k);
      else null_part += c * V.col(k);
    }
    T nmax(0);
    for (int a = 0; a < nf; ++a) nmax = std::max(nmax, T(abs(null_part(a))));
    const bool unbounded = nmax > T(1000) * T(n + 1) * eps * (dmax > T(0) ? dmax : T(1));
    // 2. Move towards the minimizer (dir = λ* - λ_F, up to step 1) or along p = -r (unbounded).
    const VecX<T> dir = unbounded ? VecX<T>(-null_part) : VecX<T>(target - lF);
    T step = unbounded ? std::numeric_limits<T>::infinity() : T(1);
    int block = -1;
    for (int a = 0; a < nf; ++a)
      if (dir(a) < T(0)) {
        const T s = lF(a) / T(-dir(a));
        if (s < step) { step = s; block = a; }
      }
    if (unbounded && block < 0) {
      // No bound stops the descent: p ≥ 0 with M p = 0, dᵀp < 0.
      VecX<T> y = VecX<T>::Zero(n);
      for (int a = 0; a < nf; ++a) y(F[a]) = dir(a) > T(0) ? dir(a) : T(0);
      r.status = ForceQp<T>::NoSolution;
      r.certificate = y / T(y.maxCoeff());
      r.message = "f is unbounded below on λ ≥ 0: no λ ≥ 0 keeps every ζ̇ ≥ 0";
      return r;
    }
    for (int a = 0; a < nf; ++a) lambda(F[a]) = lF(a) + step * dir(a);
    if (block >= 0) {
      lambda(F[block]) = T(0);  // exactly on its bound
      free[static_cast<size_t>(F[block])] = false;
      continue;
    }
    // 3. The bounds' multipliers at the minimizer on F.
    const VecX<T> w = M * lambda + d;
    int p = -1;
    T worst = -ztol;
    for (int i = 0; i < n; ++i)
      if (!free[static_cast<size_t>(i)] && w(i) < worst) { worst = w(i); p = i; }
    if (p < 0) return finish_solved();
    free[static_cast<size_t>(p)] = true;
  }
  r.message = "no optimum after " + std::to_string(max_steps) + " steps (cycling on a degenerate problem)";
  return r;
}

#define RBDREF_CONTACT_FORCE_QP_INSTANTIATE(EXT, T) EXT template ForceQp<T> solve_force_qp<T>(const MatX<T>&, const VecX<T>&);
RBDREF_EXTERN_FOR_EACH_SCALAR(RBDREF_CONTACT_FORCE_QP_INSTANTIATE)

}  // namespace rbd
