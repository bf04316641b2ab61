// The contact problem as a quadratic program (RBDA §11.5 eq. 11.44),
// Gauss's principle of least constraint with inequality constraints:
//
//   minimize    ½ (q̈ - q̈_f)ᵀ H (q̈ - q̈_f),   q̈_f = H⁻¹(τ - C)
//   subject to  Tᵀ q̈ + Ṫᵀ q̇ ≥ 0                                   (ζ̇ ≥ 0)
//
// solved by the dual active-set method of Goldfarb and Idnani ("A numerically stable dual method
// for solving strictly convex quadratic programs", Math. Programming 27, 1983), here with the
// projections recomputed densely at every step (H⁻¹ by a dense LDLᵀ of H, the active normals' Gram
// matrix NᵀH⁻¹N by a fresh LDLᵀ): a route that shares nothing with Lemke's tableau (lcp.hpp) or
// with the tree's sparse factorization.
//
// Its multipliers are the contact forces: at the optimum H(q̈ - q̈_f) = T λ, λ ≥ 0, λᵀζ̇ = 0, which is
// eq. 11.41 with the LCP 11.42; and λ minimizes eq. 11.43, ½λᵀMλ + λᵀd over λ ≥ 0 (the dual of
// 11.44). The method starts at q̈ = q̈_f (λ = 0) and adds the most violated constraint p, moving
// along z = H⁻¹n_p - H⁻¹N r, r = (NᵀH⁻¹N)⁻¹NᵀH⁻¹n_p, dropping an active constraint whose
// multiplier reaches 0 first. When z = 0 and no multiplier can drop (r ≤ 0) the constraints are
// inconsistent: y = (−r on the active set, 1 on p) has T y = n_p − N r = 0, so M y = 0, y ≥ 0 and
// dᵀy < 0 — the same certificate as Lemke's (no q̈ satisfies every ζ̇ ≥ 0).
#pragma once

#include "reference/contact/lcp.hpp"

#include <Eigen/Cholesky>

#include <limits>
#include <vector>

namespace rbd {

template <class T>
struct ContactQp {
  enum Status { Solved, NoSolution, Failed };
  Status status = Failed;
  VecX<T> qdd;          // the minimizer of eq. 11.44
  VecX<T> lambda;       // its multipliers (a minimizer of eq. 11.43)
  VecX<T> certificate;  // NoSolution: y ≥ 0, T y = 0, dᵀy < 0 (max y = 1)
  std::vector<int> active;
  int steps = 0;
  std::string message;
};

// H: n x n positive-definite; Tn: n x n_c; Tdot_qd: n_c; qdd_free = H⁻¹(τ - C).
template <class T>
ContactQp<T> solve_contact_qp(const MatX<T>& H, const MatX<T>& Tn, const VecX<T>& Tdot_qd, const VecX<T>& qdd_free);

// ---- definition ----

template <class T>
ContactQp<T> solve_contact_qp(const MatX<T>& H, const MatX<T>& Tn, const VecX<T>& Tdot_qd, const VecX<T>& qdd_free) {
  using std::abs;
  const int n = static_cast<int>(H.rows()), nc = static_cast<int>(Tn.cols());
  ContactQp<T> r;
  if (nc == 0) {  // no constraint: the unconstrained minimizer (and no LDLᵀ solve with an empty right-hand side)
    r.status = ContactQp<T>::Solved;
    r.qdd = qdd_free;
    r.lambda = VecX<T>(0);
    return r;
  }
  const Eigen::LDLT<MatX<T>> Hf(H);
  const MatX<T> HiT = Hf.solve(Tn);  // H⁻¹ t_j for every contact
  T scale(1);
  for (Eigen::Index i = 0; i < Tn.size(); ++i) scale = std::max(scale, T(abs(Tn.data()[i])));
  T vscale(1);
  for (int i = 0; i < n; ++i) vscale = std::max(vscale, T(abs(qdd_free(i))));
  for (int j = 0; j < nc; ++j) vscale = std::max(vscale, T(abs(Tdot_qd(j))));
  const T tol = T(1000) * T(std::max(n, nc) + 1) * epsilon<T>() * scale * vscale;
  VecX<T> x = qdd_free;
  std::vector<int> A;  // active constraints
  VecX<T> u(0);        // their multipliers
  auto slack = [&](int j) { return T(Tn.col(j).dot(x) + Tdot_qd(j)); };
  const int max_steps = 50 * (nc + 1) * (nc + 1);
  while (r.steps < max_steps) {
    int p = -1;
    T worst = -tol;
    for (int j = 0; j < nc; ++j) {
      if (std::find(A.begin(), A.end(), j) != A.end()) continue;
      const T s = slack(j);
      if (s < worst) { worst = s; p = j; }
    }
    if (p < 0) {
      r.status = ContactQp<T>::Solved;
      r.qdd = x;
      r.lambda = VecX<T>::Zero(nc);
      for (size_t a = 0; a < A.size(); ++a) r.lambda(A[a]) = u(static_cast<Eigen::Index>(a));
      r.active = A;
      std::sort(r.active.begin(), r.active.end());
      return r;
    }
    T up(0);  // multiplier of p as it is being added
    while (r.steps < max_steps) {
      ++r.steps;
      const int m = static_cast<int>(A.size());
      VecX<T> rr(m);
      VecX<T> z = HiT.col(p);
      if (m > 0) {
        MatX<T> G(m, m);  // NᵀH⁻¹N
        VecX<T> b(m);     // NᵀH⁻¹n_p
        for (int a = 0; a < m; ++a) {
          b(a) = Tn.col(A[a]).dot(HiT.col(p));
          for (int c = 0; c < m; ++c) G(a, c) = Tn.col(A[a]).dot(HiT.col(A[c]));
        }
        rr = G.ldlt().solve(b);
        for (int a = 0; a < m; ++a) z -= rr(a) * HiT.col(A[a]);
      }
      // Partial step: the first active multiplier to reach 0.
      T t1 = std::numeric_limits<T>::infinity();
      int k = -1;
      for (int a = 0; a < m; ++a)
        if (rr(a) > T(0)) {
          const T ta = u(a) / rr(a);
          if (ta < t1) { t1 = ta; k = a; }
        }
      // Full step: to the constraint's boundary, when z moves it (zᵀH z > 0).
      const T ztn = Tn.col(p).dot(z);
      T t2 = std::numeric_limits<T>::infinity();
      // zᵀn_p = |z|²_H: 0 when n_p is in the span of the active normals (relative to n_pᵀH⁻¹n_p).
      const bool moves = ztn > T(1000) * T(n + nc) * epsilon<T>() * T(Tn.col(p).dot(HiT.col(p)));
      if (moves) t2 = -slack(p) / ztn;
      if (!moves && k < 0) {
        // Inconsistent: n_p = N r with r ≤ 0 (up to rounding).
        VecX<T> y = VecX<T>::Zero(nc);
        y(p) = T(1);
        for (int a = 0; a < m; ++a) y(A[a]) = rr(a) < T(0) ? T(-rr(a)) : T(0);
        const T ymax = y.maxCoeff();
        r.status = ContactQp<T>::NoSolution;
        r.certificate = y / ymax;
        return r;
      }
      const T t = std::min(t1, t2);
      if (moves) x += t * z;
      for (int a = 0; a < m; ++a) u(a) -= t * rr(a);
      up += t;
      if (t2 <= t1) {  // p becomes active
        A.push_back(p);
        u.conservativeResize(m + 1);
        u(m) = up;
        break;
      }
      // Drop k (its multiplier is 0) and continue towards p.
      A.erase(A.begin() + k);
      VecX<T> u2(m - 1);
      for (int a = 0, b = 0; a < m; ++a)
        if (a != k) u2(b++) = u(a);
      u = u2;
    }
  }
  r.message = "the dual active-set method did not end within " + std::to_string(max_steps) + " steps";
  return r;
}

#define RBDREF_CONTACT_QP_INSTANTIATE(EXT, T)                                                                   \
  EXT template ContactQp<T> solve_contact_qp<T>(const MatX<T>&, const MatX<T>&, const VecX<T>&, const VecX<T>&);
RBDREF_EXTERN_FOR_EACH_SCALAR(RBDREF_CONTACT_QP_INSTANTIATE)

}  // namespace rbd
