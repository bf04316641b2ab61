// Closed-loop forward dynamics, method 2 of RBDA §8.5: λ first (eqs. 8.37-8.41), with the LᵀL
// factorization of the tree's H (table 6.3), so branch-induced sparsity is used:
//
//   1. H = LᵀL                                   (ltl, over the DoF parents λ(i))
//   2. τ' = τ - C + τᵃ
//   3. Y = L⁻ᵀ Kᵀ,  z = L⁻ᵀ τ'                   (back-substitutions; A = K H⁻¹ Kᵀ = YᵀY needs
//                                                 L⁻ᵀ, since H⁻¹ = L⁻¹ L⁻ᵀ)
//   4. A = YᵀY,  b = k + k_stab - Yᵀz            (eqs. 8.38-8.39)
//   5. A λ = b                                   (A is n^c x n^c, symmetric positive semi-definite
//                                                 of rank r: λ = A⁺ b, the minimum-norm solution
//                                                 of eq. 8.41 with z = 0, by a complete orthogonal
//                                                 decomposition; unique when r = n^c)
//   6. H q̈ = τ' + Kᵀλ                            (ltl_solve)
//
// A⁺b is also the minimum-norm λ of every solution, since null(A) = null(Kᵀ) (H is positive
// definite), so methods 1 and 2 return the same λ. If H is not positive definite (a massless
// body), ltl fails and the result says so (ok = false).
// Rank threshold: relative, 1000 n^c ε_T of A's largest pivot. A's condition is K's squared
// times H's, so r is decided on a squared scale: 10^-(digits/2) gaps survive, closer ones merge
// (method 3 decides on K itself; the report compares the ranks).
#pragma once

#include "reference/loops/constraints.hpp"
#include "reference/tree/ltdl.hpp"

#include <Eigen/QR>

namespace rbd {

template <class T>
LoopForwardDynamics<T> loop_fd_lambda(const MatX<T>& H, const std::vector<int>& dof_parent, const VecX<T>& tau_prime,
                                      const MatX<T>& K, const VecX<T>& rhs);

// ---- definition ----

template <class T>
LoopForwardDynamics<T> loop_fd_lambda(const MatX<T>& H, const std::vector<int>& dof_parent, const VecX<T>& tau_prime,
                                      const MatX<T>& K, const VecX<T>& rhs) {
  const Eigen::Index nc = K.rows();
  LoopForwardDynamics<T> out;
  out.threshold = T(1000) * T(static_cast<int>(nc > 0 ? nc : 1)) * epsilon<T>();
  const SparseFactor<T> f = ltl<T>(H, dof_parent);  // 1
  if (!f.ok) {
    out.ok = false;
    out.message = "H is not positive-definite (LᵀL failed at DoF " + std::to_string(f.failed_at) + ")";
    return out;
  }
  MatX<T> Y(H.rows(), nc);  // 3
  for (Eigen::Index c = 0; c < nc; ++c) Y.col(c) = solve_Lt<T>(f, VecX<T>(K.row(c).transpose()));
  const VecX<T> z = solve_Lt<T>(f, tau_prime);
  const MatX<T> A = Y.transpose() * Y;  // 4
  const VecX<T> b = rhs - Y.transpose() * z;
  Eigen::CompleteOrthogonalDecomposition<MatX<T>> cod;  // 5
  cod.setThreshold(out.threshold);
  cod.compute(A);
  out.lambda = cod.solve(b);
  out.rank = static_cast<int>(cod.rank());
  out.lambda_unique = out.rank == nc;
  out.qdd = ltl_solve<T>(f, VecX<T>(tau_prime + K.transpose() * out.lambda));  // 6
  return out;
}

#define RBDREF_LOOP_FD_LAMBDA_INSTANTIATE(EXT, T)                                                              \
  EXT template LoopForwardDynamics<T> loop_fd_lambda<T>(const MatX<T>&, const std::vector<int>&, const VecX<T>&, \
                                                        const MatX<T>&, const VecX<T>&);
RBDREF_EXTERN_FOR_EACH_SCALAR(RBDREF_LOOP_FD_LAMBDA_INSTANTIATE)

}  // namespace rbd
