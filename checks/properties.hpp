// Property checks: identities that hold for every correct implementation, evaluated with a
// residual and a tolerance (check_result.hpp). They serve the tests (at double and at 50 digits),
// `rbdref check` on an engine's own numbers, and downstream users as a library.
//
// Norms: |x| = max-abs of a vector or matrix; ‖A‖ = the induced ∞-norm (max row sum). Each
// residual is dimensionless; its scale is stated with the check. κ(H) = λmax / λmin.
//
//   check_symmetric            |H - Hᵀ| / |H|                                   ≤ k ε
//                              (for an H from elsewhere, e.g. an engine: CRBA's H is symmetric by
//                              construction, it writes H_ji as H_ijᵀ)
//   check_rnea_H_symmetric     |H_r - H_rᵀ| / |H_r|, H_r(:, j) = RNEA(q, 0, e_j) - RNEA(q, 0, 0)
//                              (g = 0), H assembled column by column from inverse dynamics ≤ k ε
//   check_positive_definite    λmin(H) > 0 (eigenvalues in T; LᵀDL pivots above kEigenMaxN);
//                              residual = max(0, -λmin/λmax)
//   check_crba_rnea_columns    |H - [RNEA(q, 0, e_j) - RNEA(q, 0, 0)]_j| / |H|  (g = 0)   ≤ k ε
//   check_fd_inverts_id        |ABA(q, qd, RNEA(q, qd, qdd)) - qdd| / s         ≤ k ε κ(H)
//   check_fd_matches_ltdl      |ABA(tau) - (LᵀDL)⁻¹ (tau - C)| / s             ≤ k ε κ(H)
//                              s = |qdd| + |H⁻¹ C| (a scale also when qdd = 0)
//   check_ltdl_reconstructs    |Lᵀ D L - H| / |H|                               ≤ k ε
//   check_ltl_reconstructs     |Lᵀ L - H| / |H|                                 ≤ k ε
//   check_ltdl_solves          ‖H x - b‖ / (‖H‖ |x| + |b|),  x = ltdl_solve(b)   ≤ k ε
//   check_ltl_solves           same with x = ltl_solve(b)                       ≤ k ε
//   check_factor_products      sparse L x, Lᵀ x, L⁻¹ x, L⁻ᵀ x against dense L, / (|L| |x|)  ≤ k ε
//   check_mj_factor_equals_ltdl  max |qLD - LD| over the stored entries, and the inverse
//                              diagonals; the operations are the same, so the tolerance is 0
//   check_kinetic_energy       |½ qdᵀ H qd - Σ ½ vᵢᵀ Iᵢ vᵢ| / (½ |qd|ᵀ |H| |qd|)  ≤ k ε
//   check_power_balance        |d(T+V)/dt - qdᵀ tau| / (|qd|ᵀ (|tau| + |H| |qdd| + |C|)),
//                              qdd = ABA(tau), d(T+V)/dt from body velocities and accelerations
//                              (energy_rate, no finite differences)                ≤ k ε
//                              energy_rate builds the body accelerations with the same
//                              velocity-product terms c_i as RNEA and ABA, so a wrong c_i (jcalc's
//                              cJ or v_i × vJ) passes it; check_power_balance_fd does not share them.
//   check_power_balance_fd     |D_h(T+V) - qdᵀ tau| / (|qd|ᵀ (|tau| + |H| |qdd| + |C|) + s (T + |V|))
//                              ≤ k ε^(8/9). D_h is the 8th-order central difference of
//                              E(t) = T(q(t), qd(t)) + V(q(t)) at t = 0 on the trajectory
//                              q(t) = integrate_q(q, qd, t), qd(t) = qd + t qdd, qdd = ABA(tau).
//                              E(t) needs only positions and body velocities (energy()), no c_i.
//                              dE/dt at 0 depends only on the tangent (q'(0) = Q(q) qd, qd'(0) = qdd),
//                              so any path with that tangent would do; integrate_q is the exact one.
//                              Step h = 4 ε^(1/9) / s with the rate scale s = 1 + Σ|qd| + sqrt(Σ|qdd|)
//                              (1/time; lengths of order 1 m): the truncation error ~(h s)^8 and the
//                              rounding error ~ε / (h s) of the difference are both ~ε^(8/9) relative
//                              to s (T + |V|), the size of the terms it differences (the factor 4
//                              balances the two on random trees: measured, rounding dominates below
//                              it, truncation grows 256-fold per doubling above 8). Sharp only in a
//                              wide scalar (~89 digits at bin100, ~44 at bin50, ~13 at double), so it
//                              is not part of check_all.
//   check_equation_of_motion   ‖H qdd + C - tau‖ / (‖H‖ |qdd| + |C| + |tau|)     ≤ k ε
//                              (an engine's own FD and ID outputs against each other)
//
// k defaults to 100 · nv: rounding errors of these algorithms grow with the number of DoFs along
// a path and the number of terms summed; 100 is headroom for constants, not for bugs.
//
// Size switches (check_all on 2000 bodies at bin50). The meaning and tolerance of
// every check stay; above a switch a check evaluates a cheaper form, and its detail says which:
//   n ≤ kEigenMaxN (64)      check_positive_definite: eigenvalues in T (λmin, λmax, κ);
//                            above: the signs of the LᵀDL pivots D (exact for a symmetric H: H > 0
//                            iff every pivot of table 6.3 is > 0), residual max(0, -min D / max H_kk),
//                            κ from condition_estimate (reference/tree/condition.hpp)
//   κ(H) in the aba.* tolerances: condition_estimate (Lanczos on H and on H⁻¹ through the factor;
//                            ~6 digits) at every n, instead of eigenvalues in T
//   n ≤ kExactMaxN (256)     ltdl/ltl.reconstructs_H: exact max|LᵀDL - H| / max|H| over the whole
//                            matrix (sparse sums over common ancestors, O(n d²));
//                            above: randomized (Freivalds) ‖LᵀDL x - H x‖ / (‖H‖ |x|) for
//                            kRandomVectors fixed pseudo-random x ∈ [-1, 1]ⁿ, O(n² + nnz L) each;
//                            a wrong entry E of H or of the factor moves it by ~|E| / ‖H‖
//                            rnea.H_symmetric, crba.columns_equal_rnea_differences: all n columns
//                            H_r(:, j) = RNEA(q, 0, e_j) - RNEA(q, 0, 0); above: kSampledColumns
//                            evenly spread columns (first and last included), compared entry by
//                            entry (crba: H(:, J) - H_r(:, J); symmetry: the J x J block of H_r),
//                            plus kRandomVectors randomized products H_r x = RNEA(q, 0, x) - RNEA(q, 0, 0):
//                            crba: ‖H x - H_r x‖ / (‖H‖ |x|); symmetry: the bilinear forms
//                            |yᵀ H_r x - xᵀ H_r y| / (‖H‖ max(‖y‖₁ |x|, ‖x‖₁ |y|)) over pairs (x, y)
//   Σ_k (depth_k)² ≤ kFactorBudget (2²⁴; depth_k = DoFs on the path of DoF k to the root: table
//                            6.3's cost, n³/3 on a chain, so chains up to ~370 DoFs):
//                            check_all factors CRBA's H by table 6.3 (ltdl, ltl) and runs the ltl.*
//                            and mj_factorM.equals_ltdl checks. Above: the factor is
//                            ltdl_articulated (reference/tree/ltdl_articulated.hpp, O(n d)), checked
//                            against CRBA's H by ltdl.reconstructs_H, and the table 6.3 / LᵀL /
//                            mj_factorM checks are not run (each would cost O(n d²) in T: minutes
//                            per factorization for a 2000-body chain at bin50; docs/benchmarks.md,
//                            "Tree algorithms: choices measured once").
#pragma once

#include "checks/check_result.hpp"
#include "reference/tree/aba.hpp"
#include "reference/tree/condition.hpp"
#include "reference/tree/crba.hpp"
#include "reference/tree/crba_base.hpp"
#include "reference/tree/energy.hpp"
#include "reference/tree/integrate.hpp"
#include "reference/tree/ltdl.hpp"
#include "reference/tree/ltdl_articulated.hpp"
#include "reference/tree/mj_factor.hpp"
#include "reference/tree/rnea.hpp"

namespace rbd {

// Default k for a problem with n DoFs.
inline double default_k(Eigen::Index n) { return 100.0 * static_cast<double>(n > 0 ? n : 1); }

// Size switches (see above).
constexpr int kEigenMaxN = 64;
constexpr int kExactMaxN = 256;
constexpr int kSampledColumns = 64;
constexpr int kRandomVectors = 4;
constexpr double kFactorBudget = 16777216.0;  // 2²⁴ scalar updates

template <class T> CheckResult check_symmetric(const MatX<T>& H, double k);
template <class T> CheckResult check_positive_definite(const MatX<T>& H);
// κ(H) = λmax/λmin from the eigenvalues in T (infinity when λmin ≤ 0).
template <class T> T condition_number(const MatX<T>& H);
template <class T> CheckResult check_rnea_H_symmetric(const Model<T>& model, const VecX<T>& q, double k);
template <class T> CheckResult check_crba_rnea_columns(const Model<T>& model, const VecX<T>& q, double k);
// The same with H given (e.g. an engine's H, or a planted error): H against RNEA's columns of model at q.
template <class T> CheckResult check_crba_rnea_columns(const Model<T>& model, const VecX<T>& q, const MatX<T>& H, double k);
template <class T> CheckResult check_fd_inverts_id(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& qdd, double k);
template <class T> CheckResult check_fd_matches_ltdl(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau, double k);
template <class T> CheckResult check_ltdl_reconstructs(const MatX<T>& H, const std::vector<int>& lambda, double k);
template <class T> CheckResult check_ltl_reconstructs(const MatX<T>& H, const std::vector<int>& lambda, double k);
template <class T> CheckResult check_ltdl_solves(const MatX<T>& H, const std::vector<int>& lambda, const VecX<T>& b, double k);
template <class T> CheckResult check_ltl_solves(const MatX<T>& H, const std::vector<int>& lambda, const VecX<T>& b, double k);
template <class T> CheckResult check_factor_products(const MatX<T>& H, const std::vector<int>& lambda, const VecX<T>& x, double k);
template <class T> CheckResult check_mj_factor_equals_ltdl(const MatX<T>& H, const std::vector<int>& lambda);
template <class T> CheckResult check_kinetic_energy(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, double k);
template <class T> CheckResult check_power_balance(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau, double k);
template <class T> CheckResult check_power_balance_fd(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau, double k);
template <class T> CheckResult check_equation_of_motion(const MatX<T>& H, const VecX<T>& C, const VecX<T>& qdd, const VecX<T>& tau, double k);


// What check_all and the evaluation of a state (certify/evaluate_impl.hpp) both compute: CRBA's H
// (table 6.2), C = RNEA(q, q̇, 0), ABA at τ (table 7.1), the LᵀDL factor of H (table 6.3 while
// Σ depth² ≤ kFactorBudget, else ltdl_articulated: `table63` says which; beyond it H comes from
// crba_base, CRBA with its pairs in base coordinates) and, with `with_kappa`, κ₂(H) by
// condition_estimate (else 0). `rbdref eval` computes them once for both.
template <class T>
struct TreeTerms {
  MatX<T> H;
  VecX<T> C;
  AbaResult<T> fd;
  SparseFactor<T> f;
  bool table63 = true;
  double kappa = 0;
};
template <class T>
TreeTerms<T> tree_terms(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau, bool with_kappa);

// The model-based checks above on one state (qdd is used by check_fd_inverts_id, tau by the
// forward-dynamics checks), with k = default_k(nv): symmetry is check_rnea_H_symmetric (CRBA's H
// is symmetric by construction), and check_power_balance_fd is left out (see above).
template <class T>
std::vector<CheckResult> check_all(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& qdd,
                                   const VecX<T>& tau, const std::vector<VecX<T>>& tau_loops = {});
// The same on terms already computed for this (model, q, qd, tau) by tree_terms(…, true).
template <class T>
std::vector<CheckResult> check_all(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& qdd,
                                   const VecX<T>& tau, const std::vector<VecX<T>>& tau_loops, const TreeTerms<T>& terms);

#define RBDREF_CHECKS_INSTANTIATE(EXT, T)                                                                              \
  EXT template CheckResult check_symmetric<T>(const MatX<T>&, double);                                                \
  EXT template CheckResult check_positive_definite<T>(const MatX<T>&);                                                \
  EXT template T condition_number<T>(const MatX<T>&);                                                                 \
  EXT template CheckResult check_rnea_H_symmetric<T>(const Model<T>&, const VecX<T>&, double);                        \
  EXT template CheckResult check_crba_rnea_columns<T>(const Model<T>&, const VecX<T>&, double);                       \
  EXT template CheckResult check_crba_rnea_columns<T>(const Model<T>&, const VecX<T>&, const MatX<T>&, double);     \
  EXT template CheckResult check_fd_inverts_id<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, const VecX<T>&, double); \
  EXT template CheckResult check_fd_matches_ltdl<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, const VecX<T>&, double); \
  EXT template CheckResult check_ltdl_reconstructs<T>(const MatX<T>&, const std::vector<int>&, double);               \
  EXT template CheckResult check_ltl_reconstructs<T>(const MatX<T>&, const std::vector<int>&, double);                \
  EXT template CheckResult check_ltdl_solves<T>(const MatX<T>&, const std::vector<int>&, const VecX<T>&, double);     \
  EXT template CheckResult check_ltl_solves<T>(const MatX<T>&, const std::vector<int>&, const VecX<T>&, double);      \
  EXT template CheckResult check_factor_products<T>(const MatX<T>&, const std::vector<int>&, const VecX<T>&, double); \
  EXT template CheckResult check_mj_factor_equals_ltdl<T>(const MatX<T>&, const std::vector<int>&);                   \
  EXT template CheckResult check_kinetic_energy<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, double);          \
  EXT template CheckResult check_power_balance<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, const VecX<T>&, double); \
  EXT template CheckResult check_power_balance_fd<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, const VecX<T>&, double); \
  EXT template CheckResult check_equation_of_motion<T>(const MatX<T>&, const VecX<T>&, const VecX<T>&, const VecX<T>&, double); \
  EXT template std::vector<CheckResult> check_all<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, const VecX<T>&, \
                                                     const VecX<T>&, const std::vector<VecX<T>>&);                     \
  EXT template std::vector<CheckResult> check_all<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, const VecX<T>&, \
                                                     const VecX<T>&, const std::vector<VecX<T>>&, const TreeTerms<T>&); \
  EXT template TreeTerms<T> tree_terms<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, const VecX<T>&, bool);
RBDREF_EXTERN_FOR_EACH_SCALAR(RBDREF_CHECKS_INSTANTIATE)

}  // namespace rbd
