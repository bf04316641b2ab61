// Closed-loop forward dynamics, method 3 of RBDA §8.5: solve the constraint first (eqs. 8.42-8.46).
//
//   K q̈ = k + k_stab  →  q̈ = G ÿ + g      (G, g by Gaussian elimination with complete pivoting,
//                                           §8.8, loops/gauss.hpp; K G = 0, K g = k + k_stab)
//   Gᵀ H G ÿ = Gᵀ (τ - C + τᵃ - H g)       (eq. 8.45: λ eliminated by Gᵀ, since Gᵀ Kᵀ = 0)
//   q̈ = G ÿ + g
//
// When k + k_stab is not in range(K) (a state off the closure manifold), g satisfies only the
// pivot rows; it is replaced by x = g + Δ with K x = P (k + k_stab), P the orthogonal projector
// onto range(K), so that method 3 solves the same least-squares constraint as methods 1 and 2
// (both give K q̈ = P (k + k_stab): the KKT system's minimum-norm least-squares residual lies in
// null(Kᵀ), and method 2's A⁺ projects onto range(A) = range(K)). On a consistent state x = g to
// rounding.
//
// GᵀHG is (n - r) x (n - r), symmetric positive-definite when H is; it is factorized as a dense
// LᵀDL (ltdl over a chain of DoF parents), so a loss of definiteness is reported (ok = false).
// This method gives no λ. `chosen` passes user-chosen independent coordinates to §8.8 (then a
// choice that does not determine the others is reported: ok = false, message).
#pragma once

#include "reference/loops/constraints.hpp"
#include "reference/loops/gauss.hpp"
#include "reference/tree/ltdl.hpp"

namespace rbd {

template <class T>
struct LoopProjection {
  LoopForwardDynamics<T> fd;   // qdd (lambda empty), rank, threshold (absolute, §8.8's), ok
  NullSpaceSolution<T> ns;     // G, g, the pivot sequence and the rank decision
  VecX<T> ydd;                 // ÿ
  MatX<T> GtHG;                // Gᵀ H G
  VecX<T> particular;          // the x of q̈ = G ÿ + x: g, corrected to least squares (below)
};

template <class T>
LoopProjection<T> loop_fd_projection(const MatX<T>& H, const VecX<T>& tau_prime, const MatX<T>& K, const VecX<T>& rhs,
                                     const std::vector<int>& chosen = {});

// ---- definition ----

template <class T>
LoopProjection<T> loop_fd_projection(const MatX<T>& H, const VecX<T>& tau_prime, const MatX<T>& K, const VecX<T>& rhs,
                                     const std::vector<int>& chosen) {
  LoopProjection<T> out;
  out.ns = null_space_solution<T>(K, rhs, chosen);
  out.fd.rank = out.ns.rank;
  out.fd.threshold = out.ns.threshold;
  out.fd.lambda_unique = out.ns.rank == K.rows();
  if (!out.ns.chosen_ok) {
    out.fd.ok = false;
    out.fd.message = out.ns.message;
    return out;
  }
  const MatX<T>& G = out.ns.G;
  out.GtHG = G.transpose() * H * G;
  const Eigen::Index m = G.cols();
  std::vector<int> chain(m);
  for (Eigen::Index i = 0; i < m; ++i) chain[i] = static_cast<int>(i) - 1;
  const SparseFactor<T> f = ltdl<T>(out.GtHG, chain);
  if (!f.ok) {
    out.fd.ok = false;
    out.fd.message = "GᵀHG is not positive-definite (LᵀDL failed at row " + std::to_string(f.failed_at) + ")";
    return out;
  }
  // The particular solution of K x = P rhs (g alone satisfies only the pivot rows; gauss.hpp).
  const VecX<T> x = least_squares_particular<T>(K, rhs, out.ns);
  out.particular = x;
  out.ydd = ltdl_solve<T>(f, VecX<T>(G.transpose() * (tau_prime - H * x)));
  out.fd.qdd = G * out.ydd + x;
  return out;
}

#define RBDREF_LOOP_FD_PROJECTION_INSTANTIATE(EXT, T)                                                        \
  EXT template LoopProjection<T> loop_fd_projection<T>(const MatX<T>&, const VecX<T>&, const MatX<T>&, const VecX<T>&, \
                                                       const std::vector<int>&);
RBDREF_EXTERN_FOR_EACH_SCALAR(RBDREF_LOOP_FD_PROJECTION_INSTANTIATE)

}  // namespace rbd
