// Assembly of a closed-loop state: q onto the closure manifold δ(q) = 0, q̇ onto null(K)
// (RBDA §8.3: the position constraint is implicit in the loop joints, δ of table 8.1 measures how
// far each loop is from closed; §8.10: K q̇ = 0 is the velocity constraint of a scleronomic system).
//
// Position, Newton with minimum-norm steps in velocity space:
//   Δv = -K(q)⁺ δ(q),   q ← q ⊕ Δv  (integrate_q with t = 1: the exact flow of a joint velocity,
//                                     so quaternions stay unit and no coordinate chart is needed)
// K is δ's derivative along q̇ exactly on the manifold and to O(|δ|) off it (δ̇ = T_kᵀ v_J there,
// docs/loops.md), so the iteration converges quadratically once close. K⁺ is the minimum-norm
// least-squares inverse by a complete orthogonal decomposition with §8.8's rank threshold
// 1000 · max(n^c, n) · ε · max|K| (an overconstrained loop's redundant rows are dropped, not
// inverted); when that step does not halve max|δ|, one that also drops the directions of K
// below √ε max|K| is tried (a rank that falls on the manifold, as an overconstrained spatial
// loop's does, makes K nearly singular there). A step that does not reduce max|δ| is halved (at most 40 times); iteration stops at
// δ = 0, at max_iterations, or when two successive steps fail to reduce max|δ| by half (the
// working precision's last digit has been reached): the best q seen is returned.
//
// Velocity: q̇ ← q̇ - K⁺ K q̇, the orthogonal projection onto null(K) in the Euclidean norm of v
// (the nearest consistent velocity; applied twice, the second pass removing the first's rounding).
//
// Converged means max|δ| ≤ 10⁴ ε · size (size = max(1, the largest tree offset |r|)), the
// tolerance `eval` calls consistent; position and velocity errors before and after are returned
// so the caller can print them.
#pragma once

#include "reference/tree/integrate.hpp"
#include "reference/loops/constraints.hpp"

#include <Eigen/QR>

#include <string>

namespace rbd {

template <class T>
struct Assembly {
  VecX<T> q, qd;                             // the assembled state (nq, nv)
  T position_error_before, position_error;   // max|δ| before and after
  T velocity_error_before, velocity_error;   // max|K q̇| before and after
  T position_tolerance;                      // 10⁴ ε · size
  int iterations = 0;                        // Newton steps taken
  int rank = 0;                              // rank K at the assembled q
  bool converged = false;                    // position_error ≤ position_tolerance
  std::string message;                       // why not, when not
};

template <class T>
Assembly<T> assemble(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, int max_iterations = 100);

// ---- definition ----

namespace detail {

// The minimum-norm least-squares inverse of K by a complete orthogonal decomposition, with the
// rank threshold of §8.8 (relative to max|K|).
template <class T>
Eigen::CompleteOrthogonalDecomposition<MatX<T>> min_norm_inverse(const MatX<T>& K, const T& threshold = T(0)) {
  using std::abs;
  Eigen::CompleteOrthogonalDecomposition<MatX<T>> cod;
  const Eigen::Index big = K.rows() > K.cols() ? K.rows() : K.cols();
  // Eigen's threshold is relative to the largest pivot of the QR, which is within a factor
  // √(n^c) of max|K|: the same decision as loops/gauss.hpp's up to that factor. A larger
  // `threshold` (relative) drops more.
  const T base = T(1000) * T(static_cast<int>(big)) * epsilon<T>();
  cod.setThreshold(threshold > base ? threshold : base);
  cod.compute(K);
  return cod;
}

}  // namespace detail

template <class T>
Assembly<T> assemble(const Model<T>& model, const VecX<T>& q0, const VecX<T>& qd0, int max_iterations) {
  Assembly<T> out;
  T size(1);
  for (int i = 0; i < model.NB; ++i)
    if (model.Xtree[i].r.norm() > size) size = model.Xtree[i].r.norm();
  out.position_tolerance = T(10000) * epsilon<T>() * size;
  const VecX<T> zero = VecX<T>::Zero(model.nv);
  VecX<T> q = q0;
  LoopConstraints<T> lc = loop_constraints<T>(model, q, zero);
  T err = max_abs_vec<T>(lc.delta);
  out.position_error_before = err;
  out.velocity_error_before = max_abs_vec<T>(VecX<T>(lc.K * qd0));
  int stalls = 0;
  using std::sqrt;
  const T truncate = sqrt(epsilon<T>());
  // One Newton step with K⁺ at a relative rank threshold, shortened until it reduces max|δ|.
  auto try_step = [&](const T& threshold, VecX<T>& q_try, LoopConstraints<T>& lc_try) {
    const VecX<T> step = -detail::min_norm_inverse<T>(lc.K, threshold).solve(lc.delta);
    T t(1), err_try = err;
    for (int halvings = 0; halvings <= 40; ++halvings, t /= T(2)) {
      q_try = integrate_q<T>(model, q, step, t);
      lc_try = loop_constraints<T>(model, q_try, zero);
      err_try = max_abs_vec<T>(lc_try.delta);
      if (err_try < err) break;
    }
    return err_try;
  };
  while (err > T(0) && out.iterations < max_iterations && stalls < 2) {
    VecX<T> q_try;
    LoopConstraints<T> lc_try;
    T err_try = try_step(T(0), q_try, lc_try);
    if (!(err_try < err / T(2))) {
      // An overconstrained loop has a rank that drops on the manifold (a Bennett linkage: rank 3
      // off it, 2 on it): near the manifold K's extra singular value is O(|δ|) and inverting it
      // turns δ's rounding into a step of any size. Without the directions below √ε max|K| the
      // step is Newton's on the manifold's rank, and δ's part along them is O(|δ|²).
      VecX<T> q2;
      LoopConstraints<T> lc2;
      const T err2 = try_step(truncate, q2, lc2);
      if (err2 < err_try) q_try = q2, lc_try = lc2, err_try = err2;
    }
    ++out.iterations;
    if (!(err_try < err)) break;  // no step length reduces δ: the last digit is reached
    // A stall is a step that does not halve δ near the rounding floor (within 10⁶ of the
    // tolerance): two in a row end the iteration there. Far from the manifold a slow step is
    // progress (δ's rotation part is sin-like past 90°), bounded by max_iterations.
    stalls = err_try > err / T(2) && err_try <= T(1000000) * out.position_tolerance ? stalls + 1 : 0;
    q = q_try;
    lc = lc_try;
    err = err_try;
  }
  out.q = q;
  out.position_error = err;
  out.converged = err <= out.position_tolerance;
  if (!out.converged)
    out.message = "Newton stopped at max|δ| = " + to_decimal(err, 3) + " after " + std::to_string(out.iterations) +
                  " steps (tolerance " + to_decimal(out.position_tolerance, 3) +
                  "): the loops cannot be closed from this configuration (a loop longer than its links reach, or a "
                  "starting point in another assembly mode's basin that does not converge)";
  // Velocity: two passes of the orthogonal projection onto null(K).
  const Eigen::CompleteOrthogonalDecomposition<MatX<T>> cod = detail::min_norm_inverse<T>(lc.K);
  VecX<T> qd = qd0;
  for (int pass = 0; pass < 2; ++pass) qd -= cod.solve(VecX<T>(lc.K * qd));
  out.qd = qd;
  out.velocity_error = max_abs_vec<T>(VecX<T>(lc.K * qd));
  out.rank = static_cast<int>(cod.rank());
  return out;
}

#define RBDREF_LOOP_ASSEMBLY_INSTANTIATE(EXT, T) \
  EXT template Assembly<T> assemble<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, int);
RBDREF_EXTERN_FOR_EACH_SCALAR(RBDREF_LOOP_ASSEMBLY_INSTANTIATE)

}  // namespace rbd
