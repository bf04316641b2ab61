// Property checks of closed-loop systems (RBDA ch. 8), each with residual and tolerance (see
// check_result.hpp), on one state of a model with loop joints. The methods solve with the
// loop-local K, k; loops.K_qdd_equals_k checks them against the base-coordinate route's.
//
//   loops.K_G_zero                  max|K G| / (max|K| max|G|)                          ≤ k ε   (eq. 8.43)
//   loops.K_g_equals_k              max|K g - k| / (max|K| max|g| + max|k|)             ≤ k ε   (eq. 8.44)
//   loops.GtHG_positive_definite    smallest eigenvalue of GᵀHG > 0 (residual 0 / 1)            (eq. 8.45)
//   loops.K_qdd_equals_k            max|K_b q̈ - k_b| / (max|K_b| s + max|k|), every method's q̈ against K_b, k_b of
//                                   the base-coordinate route, s the size of its summands     ≤ k ε   (eq. 8.35)
//   loops.equation_of_motion        max|H q̈₁ + C - τ - Kᵀλ₂| / (max|H| max|q̈| + max|C| + max|τ| + max|Kᵀλ|):
//                                   the KKT method's q̈ with the λ-first method's λ         ≤ k ε κ(KKT)  (eq. 8.34)
//   loops.constraint_forces_no_work max|Gᵀ (τ - C - H q̈₂)| / (max|G| (max|τ| + max|C| + max|H| max|q̈|) n):
//                                   τ_c from the equation of motion with the λ-first q̈, G of the
//                                   projection method: no work on any allowed motion       ≤ k ε κ(KKT)  (eq. 8.35)
//   loops.methods_agree             max pairwise |q̈_a - q̈_b| / max(max|q̈|, max|τ - C| / max|H|) over the three methods
//                                   of §8.5                                              ≤ k ε κ(KKT)
//   loops.kkt_rank                  rank(KKT) = n + rank K, the KKT and λ-first ranks equal §8.8's
//                                   (residual = number of disagreements)
//   loops.power_of_constraint_forces  |q̇ᵀ τ_c| / (n max|q̇| max|K| max|λ|)          ≤ k ε + n^c max|K q̇| / (n max|q̇| max|K|)
//                                   (the power balance of eq. 3.23 needs τ_c to do no work on
//                                   the state's velocity; only when it is consistent, K q̇ = 0)
//   loops.active_power              |q̇ᵀ τᵃ - Σ_k τ_kᵀ q̇_J,k| / scale, for active loop joints
//                                   (§8.6): τᵃ from table 8.3 (RNEA with the active forces as
//                                   external forces), q̇_J,k = (SᵀS)⁻¹ Sᵀ v_J,k from the bodies'
//                                   velocities: the power of each active force is τ_kᵀ q̇_J,k
//   loops.forward_dynamics          present (failed) only when a method could not solve
// k = default_k(n). tau_loops: the active loop joints' forces (one vector per loop joint, empty
// for a passive one; all empty or absent: no active forces), used as C - τᵃ (table 8.3).
#pragma once

#include "checks/check_result.hpp"
#include "reference/tree/model.hpp"

#include <vector>

namespace rbd {

template <class T>
std::vector<CheckResult> check_loops(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau,
                                     const std::vector<VecX<T>>& tau_loops = {});

// loops.baumgarte_decay: Baumgarte stabilization (RBDA eqs. 8.21-8.24) makes the position error
// obey δ̈ + 2α δ̇ + β² δ = 0, with α = β = 1/T_stab critically damped:
//   δ(t) = (δ₀ + (δ̇₀ + α δ₀) t) e^{-α t}
// (each row of δ on its own, δ̇₀ = K q̇₀). A short simulation checks it: from q₀ = q ⊕ p w (w a
// fixed unit direction of v, p = `perturbation`: δ₀ = O(p), consistent to first order even for
// redundant loops) and q̇₀ = qd, 3 T_stab of forward dynamics (KKT method, K q̈ = k + k_stab) by
// RK4 with h = T_stab / 20, positions through the exact joint flow q ⊕ t q̇ (integrate.hpp).
// residual = max over t = T_stab, 2 T_stab, 3 T_stab of max|δ(t) - δ_pred(t)| / (max|δ₀| + T_stab max|δ̇₀|),
// tolerance 1e-3 + motion, motion = max|q̇₀| 3T_stab + max|q̈₀| (3T_stab)². The design equation
// is exact only to first order: δ̇ = K q̇ and δ̈ = K q̈ - k hold up to O(|δ|) (relative O(p) =
// 1e-4) and up to terms of |δ| times the mechanism's own motion (δ is measured in the moving
// loop-joint frames: relative O(max|q̇| T_stab + max|q̈| T_stab²); measured on the bundled
// mechanisms: 0.01-0.1 × motion). So the check is meaningful when the mechanism moves little in
// 3 T_stab: start at rest (qd = 0) with T_stab short against its time scale (the tests: 3 ms,
// motion 5e-4 to 8e-3); a wrong k_stab misses by O(1) (β for β²: residual 0.8). RK4's own error
// is ~(h/T_stab)⁴ ≈ 4e-7. ~500 forward-dynamics solves: a library and test check, not part of
// check_loops (eval stays fast).
template <class T>
CheckResult check_baumgarte_decay(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau,
                                  const T& T_stab, const T& perturbation);

#define RBDREF_LOOP_CHECKS_INSTANTIATE(EXT, T) \
  EXT template std::vector<CheckResult> check_loops<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, const VecX<T>&, \
                                                       const std::vector<VecX<T>>&); \
  EXT template CheckResult check_baumgarte_decay<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, const VecX<T>&, \
                                                    const T&, const T&);
RBDREF_EXTERN_FOR_EACH_SCALAR(RBDREF_LOOP_CHECKS_INSTANTIATE)

}  // namespace rbd
