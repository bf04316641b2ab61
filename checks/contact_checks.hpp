// Property checks of contact (RBDA ch. 11), each with residual and tolerance (check_result.hpp).
//
// On any LCP ζ̇ = Mλ + d (eq. 11.42), for a solution (λ, ζ̇) from anywhere (rbdref's, an engine's):
//   contacts.complementarity     max(-min λ / sλ, -min ζ̇ / sζ, max|λ_i ζ̇_i| / (sλ sζ))        ≤ k ε
//                                sλ = max|λ| (1 if 0), sζ = max|M| sλ + max|d| (ζ̇'s summands)
//   contacts.zeta_dot_equation   max|Mλ + d - ζ̇| / sζ                                        ≤ k ε
// For a no-solution certificate y:
//   contacts.no_solution_certificate  max(-min y, max|My| / max|M|, [dᵀy ≥ 0]) with max y = 1  ≤ k ε
//                                (y ≥ 0, My = 0 and dᵀy < 0 prove that no λ ≥ 0 has ζ̇ ≥ 0: Farkas)
// On a model with contacts at one state (check_contacts; the solution of contact_dynamics):
//   contacts.M_positive_semidefinite  -min eig(M) / max|M|                                   ≤ k ε
//   contacts.zeta_is_T_qd        max|ζ - Tᵀq̇| / (max|T| max|q̇| + 1e-300): ζ from the points'
//                                velocities, T from the joints' motion subspaces (eq. 11.28)  ≤ k ε
//   contacts.equation_of_motion  max|H q̈ + C - τ - Tλ| / (max|H| max|q̈| + max|C| + max|τ| + max|Tλ|)  ≤ k ε
//                                (eq. 11.41; H and C from CRBA and RNEA, q̈ from contact_dynamics)
//   and the complementarity and zeta_dot_equation checks above on ζ̇ = Tᵀq̈ + Ṫᵀq̇ of the solution's
//   q̈ (not Lemke's ζ̇, 0 on its basis by assignment), or the certificate's.
// With soft contacts (§11.8, contact/soft.hpp), per soft contact, over all of them:
//   soft.friction_cone           max(0, |f_t| - μ f_n) / (max f_n + 1e-300)                   ≤ k ε
//   soft.stick_slip_rule         sticking iff |f_stick| ≤ μ f_n (residual 1 if violated), and sticking ⇒
//                                |ẋ - v| / (max|v| + max|ẋ|) (the surface moves with the point)  ≤ k ε
//   soft.surface_follows         touching with f_n > 0 ⇒ |ż - ṗ| / (max|ṗ| + max|ż|)          ≤ k ε
//   soft.dissipation             max(-min W, |W - (D ż² + D_t|ẋ|² + f_tᵀ(ẋ - v))|) / (sum of its
//                                terms' sizes): W = -(P + Ė) ≥ 0 and equals the dampers' and slip's ≤ k ε
// The impulsive step (check_impact, §11.7; contact/impulse.hpp):
//   impact.momentum_balance      max|Δq̇ - ABA(q, 0, u)| / (max|Δq̇| + max|ABA|), no gravity    ≤ k ε κ(H)  (eq. 11.57)
//   impact.restitution           max over contacts receiving an impulse of |ζ⁺ + e ζ⁻| where
//                                colliding or sticking, |ζ⁺| where separating (and, for a sticking
//                                contact, |ζ_x⁺|, |ζ_y⁺|) / max(|ζ⁻|, |ζ_t⁻|)                 ≤ k ε  (eqs. 11.64, 11.71)
//   impact.complementarity       λ ≥ 0, w ≥ 0, λᵢwᵢ = 0 on w = Tᵀq̇⁺ + e min(ζ⁻, 0) (frictionless)
//   impact.zeta_dot_equation     max|Mλ + d - w| / s, d = ζ⁻ + e min(ζ⁻, 0)                     ≤ k ε
//   impact.kinetic_energy_does_not_increase  max(0, T⁺ - T⁻) / T⁻   (frictionless, no separating
//                                contact taking an impulse)                                     ≤ k ε
//   impact.kinetic_energy_conserved          |T⁺ - T⁻| / T⁻          (the same, and e = 1 at the
//                                contacts taking an impulse)                                    ≤ k ε
// k = default_k(n).
#pragma once

#include "checks/check_result.hpp"
#include "reference/tree/model.hpp"

#include <vector>

namespace rbd {

template <class T>
std::vector<CheckResult> check_lcp_solution(const MatX<T>& M, const VecX<T>& d, const VecX<T>& lambda, const VecX<T>& zeta_dot, double k);
template <class T>
CheckResult check_lcp_certificate(const MatX<T>& M, const VecX<T>& d, const VecX<T>& y, double k);
// given_z, z, x: the soft contacts' surface state (as contact_dynamics; empty: the defaults).
template <class T>
std::vector<CheckResult> check_contacts(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau,
                                        const std::vector<bool>& given_z = {}, const VecX<T>& z = VecX<T>(),
                                        const VecX<T>& x = VecX<T>());
template <class T>
std::vector<CheckResult> check_impact(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd);

#define RBDREF_CONTACT_CHECKS_INSTANTIATE(EXT, T)                                                                          \
  EXT template std::vector<CheckResult> check_lcp_solution<T>(const MatX<T>&, const VecX<T>&, const VecX<T>&, const VecX<T>&, \
                                                              double);                                                    \
  EXT template CheckResult check_lcp_certificate<T>(const MatX<T>&, const VecX<T>&, const VecX<T>&, double);               \
  EXT template std::vector<CheckResult> check_contacts<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, const VecX<T>&,  \
                                                          const std::vector<bool>&, const VecX<T>&, const VecX<T>&);     \
  EXT template std::vector<CheckResult> check_impact<T>(const Model<T>&, const VecX<T>&, const VecX<T>&);
RBDREF_EXTERN_FOR_EACH_SCALAR(RBDREF_CONTACT_CHECKS_INSTANTIATE)

}  // namespace rbd
