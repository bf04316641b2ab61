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

#include "reference/loops/constraints.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/QR>

#include <algorithm>

namespace rbd {

template <class T>
LoopForwardDynamics<T> loop_fd_kkt(const MatX<T>& H, const VecX<T>& tau_prime, const MatX<T>& K, const VecX<T>& rhs);

// The KKT matrix M = [H Kᵀ; K 0] of eq. 8.36, and its condition number over its nonzero singular
// values: M is symmetric, so they are its |eigenvalues|, of which the n^c - rank smallest are zero
// for a rank-deficient K. 0 when undefined (no nonzero eigenvalue left). What the three methods'
// agreement tracks (docs/loops.md, "Agreement and conditioning").
template <class T>
MatX<T> kkt_matrix(const MatX<T>& H, const MatX<T>& K);
template <class T>
T kkt_condition(const MatX<T>& H, const MatX<T>& K, int rank);

// ---- definition ----

template <class T>
MatX<T> kkt_matrix(const MatX<T>& H, const MatX<T>& K) {
  const Eigen::Index n = H.rows(), nc = K.rows();
  MatX<T> M = MatX<T>::Zero(n + nc, n + nc);
  M.topLeftCorner(n, n) = H;
  M.topRightCorner(n, nc) = K.transpose();
  M.bottomLeftCorner(nc, n) = K;
  return M;
}

template <class T>
T kkt_condition(const MatX<T>& H, const MatX<T>& K, int rank) {
  VecX<T> mu = Eigen::SelfAdjointEigenSolver<MatX<T>>(kkt_matrix<T>(H, K), Eigen::EigenvaluesOnly).eigenvalues().cwiseAbs();
  std::sort(mu.data(), mu.data() + mu.size());
  const Eigen::Index zero = K.rows() - rank;
  return zero >= 0 && zero < mu.size() && mu(zero) > T(0) ? T(mu(mu.size() - 1) / mu(zero)) : T(0);
}

template <class T>
LoopForwardDynamics<T> loop_fd_kkt(const MatX<T>& H, const VecX<T>& tau_prime, const MatX<T>& K, const VecX<T>& rhs) {
  const Eigen::Index n = H.rows(), nc = K.rows();
  const MatX<T> M = kkt_matrix<T>(H, K);
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

#define RBDREF_LOOP_FD_KKT_INSTANTIATE(EXT, T)                                                                  \
  EXT template LoopForwardDynamics<T> loop_fd_kkt<T>(const MatX<T>&, const VecX<T>&, const MatX<T>&, const VecX<T>&); \
  EXT template MatX<T> kkt_matrix<T>(const MatX<T>&, const MatX<T>&);                                             \
  EXT template T kkt_condition<T>(const MatX<T>&, const MatX<T>&, int);
RBDREF_EXTERN_FOR_EACH_SCALAR(RBDREF_LOOP_FD_KKT_INSTANTIATE)

}  // namespace rbd
