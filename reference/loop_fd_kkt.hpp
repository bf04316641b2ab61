// Closed-loop forward dynamics, method 1 of RBDA §8.5: the KKT system (eq. 8.36)
//
//   [H  Kᵀ] [ q̈ ]   [τ - C + τᵃ ]
//   [K  0 ] [-λ ] = [k + k_stab ]
//
// solved directly. The matrix is symmetric but indefinite, and singular when rank K = r < n^c (its
// rank is n + r): it is solved by a complete orthogonal decomposition (column-pivoted Householder
// QR, then an orthogonal reduction of the rank-deficient part), which gives the minimum-norm
// least-squares solution. All solutions share q̈; among them the minimum-norm one has the
// minimum-norm λ, which is what is returned (lambda_unique = false when r < n^c).
//
// Inputs: H (n x n), tau_prime = τ - C + τᵃ (n), K (n^c x n), rhs = k + k_stab (n^c).
// Rank threshold: relative, 1000 (n + n^c) ε_T of the largest pivot (recorded in `threshold`).
#pragma once

#include "reference/loop_constraints.hpp"

#include <Eigen/QR>

namespace rbd {

template <class T>
LoopForwardDynamics<T> loop_fd_kkt(const MatX<T>& H, const VecX<T>& tau_prime, const MatX<T>& K, const VecX<T>& rhs);

// ---- definition ----

template <class T>
LoopForwardDynamics<T> loop_fd_kkt(const MatX<T>& H, const VecX<T>& tau_prime, const MatX<T>& K, const VecX<T>& rhs) {
  const Eigen::Index n = H.rows(), nc = K.rows();
  MatX<T> M = MatX<T>::Zero(n + nc, n + nc);
  M.topLeftCorner(n, n) = H;
  M.topRightCorner(n, nc) = K.transpose();
  M.bottomLeftCorner(nc, n) = K;
  VecX<T> b(n + nc);
  b << tau_prime, rhs;
  LoopForwardDynamics<T> out;
  out.threshold = T(1000) * T(static_cast<int>(n + nc)) * epsilon<T>();
  Eigen::CompleteOrthogonalDecomposition<MatX<T>> cod;
  cod.setThreshold(out.threshold);
  cod.compute(M);
  const VecX<T> x = cod.solve(b);
  out.qdd = x.head(n);
  out.lambda = -x.tail(nc);
  out.rank = static_cast<int>(cod.rank()) - static_cast<int>(n);
  out.lambda_unique = out.rank == nc;
  if (out.rank < 0) {
    out.ok = false;
    out.message = "the KKT matrix has rank " + std::to_string(cod.rank()) + " < n = " + std::to_string(n) +
                  ": H is singular on the null space of K";
  }
  return out;
}

#define RBDREF_LOOP_FD_KKT_INSTANTIATE(EXT, T) \
  EXT template LoopForwardDynamics<T> loop_fd_kkt<T>(const MatX<T>&, const VecX<T>&, const MatX<T>&, const VecX<T>&);
#define RBDREF_LOOP_FD_KKT_EXTERN(T) RBDREF_LOOP_FD_KKT_INSTANTIATE(extern, T)
RBDREF_FOR_EACH_SCALAR(RBDREF_LOOP_FD_KKT_EXTERN)
#undef RBDREF_LOOP_FD_KKT_EXTERN

}  // namespace rbd
