// Impulsive dynamics of a rigid-body system with point contacts (RBDA §11.7): the step change of q̇ when contacts collide.
//
//   u = H Δq̇                                  (eq. 11.57: the joint-space impulse u)
//   u = Σ J_iᵀ ι_i = T λ                      (eq. 11.58 over the contacts: ι_i = n̂_i λ_i)
//   ζ⁻ = Tᵀ q̇⁻,  Δζ = Tᵀ Δq̇ = M λ             (eqs. 11.62-11.63 in joint space, M = TᵀH⁻¹T)
//
// Frictionless contacts: Newton's restitution law, Δζ = -(1 + e_i) ζ_i⁻ (eq. 11.64), belongs to a
// contact that collides (approaches, ζ_i⁻ < 0); every touching contact must leave without moving
// into its surface, ζ_i⁺ = ζ_i⁻ + Δζ_i ≥ 0 (§11.7), and receives an impulse only where it is
// stopped. Posed over all touching contacts as the impulsive LCP
//   w = M λ + d ≥ 0,  λ ≥ 0,  λᵀw = 0,   d_i = ζ_i⁻ + e_i min(ζ_i⁻, 0)
// so that w_i = ζ_i⁺ + e_i min(ζ_i⁻, 0): a colliding contact that receives an impulse leaves with
// ζ_i⁺ = -e_i ζ_i⁻, one that leaves faster receives none; a separating (or resting, ζ_i⁻ = 0)
// contact receives an impulse only when the others' impulses would drive it into its surface, and
// then leaves with ζ_i⁺ = 0. (Writing w = Mλ + (1 + E)ζ⁻ for every contact would demand
// ζ_i⁺ ≥ -e_i ζ_i⁻ < 0 of a separating one: it could be left moving into the ground.) For one
// colliding contact between two free bodies this is eq. 11.65,
// λ = -(1 + e) n·(v₂ - v₁) / n·(I₁⁻¹ + I₂⁻¹)n. Solved by Lemke (lcp.hpp) with the same
// certificate. The kinetic energy changes by ΔT = ½ Σ λ_i (ζ_i⁻ + ζ_i⁺) (H symmetric, u = Tλ), which
// with complementarity is ½ Σ_{ζ_i⁻<0} (1 - e_i) λ_i ζ_i⁻ + ½ Σ_{ζ_i⁻>0} λ_i ζ_i⁻: never positive,
// and zero at e = 1, when no separating contact takes an impulse; a separating contact stopped by
// the others' impulses adds a positive term, and the total can rise (Newton's law at several
// simultaneous contacts; at e = 0 it cannot: the LCP is then the H-norm projection of q̇⁻ onto
// {Tᵀq̇ ≥ 0}).
//
// Contacts with friction (a `friction` μ given): the sticking impact of eqs. 11.66-11.72, every such
// contact colliding with its tangential motion brought to zero: N = [t_x t_y t_z] per contact
// (3 columns, n̂_x, n̂_y in the tangent plane through the contact point, n̂_z = n̂), and
//   λ = -(Nᵀ H⁻¹ N)⁻¹ (1 + E) Nᵀ q̇⁻,   E = diag(0, 0, e) per contact     (eq. 11.72)
// (the book's two-body form with Nᵀ(I₁⁻¹ + I₂⁻¹)N generalized to the system by u = Nλ). The book
// assumes sticking; whether the result is consistent with it is reported per contact: λ_z ≥ 0 and
// |(λ_x, λ_y)| ≤ μ λ_z (inside the friction cone). When frictional and frictionless contacts are
// mixed, the frictionless ones join the sticking solve with their normal row only (they are
// assumed to collide too; λ_z ≥ 0 is then reported as for the others).
//
// Soft contacts (§11.8: stiffness and damping given) take no impulse: a compliant surface's force
// stays finite, so it has no impulsive part (the book's reason soft contact needs no impact
// dynamics). They are left out (`rigid` lists the contacts that take part; λ is over them).
#pragma once

#include "reference/contact/kinematics.hpp"
#include "reference/tree/crba.hpp"
#include "reference/contact/lcp.hpp"
#include "reference/contact/uniqueness.hpp"

#include <Eigen/Cholesky>

#include <string>
#include <vector>

namespace rbd {

template <class T>
struct ContactImpact {
  bool ok = false;          // H positive-definite and, for sticking, NᵀH⁻¹N nonsingular
  std::string message;
  bool frictional = false;  // some rigid contact has μ: the sticking impact (eq. 11.72) was solved
  std::vector<int> rigid;   // the contacts taking part (not soft), in model order
  ContactKinematics<T> ck;
  VecX<T> zeta_minus;       // ζ⁻ = Tᵀq̇⁻ (normal separation velocities), n_c
  LcpResult<T> lcp;         // frictionless: the impulsive LCP on w = Mλ + d, d_i = ζ_i⁻ + e_i min(ζ_i⁻, 0)
  VecX<T> d;                // frictionless: that d, over the rigid contacts
  bool lambda_unique = true;  // frictionless: λ is the LCP's only solution (uniqueness.hpp); sticking: NᵀH⁻¹N nonsingular
  MatX<T> N;                // frictional: the n x m impulse directions (t_x, t_y, t_z per frictional contact, t_z per other)
  VecX<T> lambda;           // the impulse coefficients: one per rigid contact (frictionless) or m (frictional)
  VecX<T> u;                // joint-space impulse T λ (or N λ)
  VecX<T> dqd, qd_plus;     // Δq̇ = H⁻¹u, q̇⁺ = q̇⁻ + Δq̇
  VecX<T> zeta_plus;        // Tᵀq̇⁺, n_c
  VecX<T> tangential_minus, tangential_plus;  // (ζ_x, ζ_y) per contact before and after, 2 n_c
  T kinetic_minus = T(0), kinetic_plus = T(0);
  std::vector<bool> in_cone;  // frictional: per rigid contact, λ_z ≥ 0 and |λ_t| ≤ μ λ_z (sticking consistent)
};

template <class T>
ContactImpact<T> contact_impact(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd);

// The impulsive LCP's offset of one contact, d = ζ⁻ + e min(ζ⁻, 0): w = Δζ + d = ζ⁺ + e min(ζ⁻, 0).
template <class T>
T impact_offset(const T& e, const T& zeta_minus) {
  return zeta_minus < T(0) ? T((T(1) + e) * zeta_minus) : zeta_minus;
}

// ---- definition ----

template <class T>
ContactImpact<T> contact_impact(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd) {
  using std::sqrt;
  ContactImpact<T> r;
  const int nc = static_cast<int>(model.contacts.size());
  r.ck = contact_kinematics<T>(model, q, qd);
  const MatX<T> H = crba<T>(model, q);
  const Eigen::LDLT<MatX<T>> Hf(H);
  if (Hf.info() != Eigen::Success || !(Hf.vectorD().minCoeff() > T(0))) {
    r.message = "H is not positive-definite: the impulsive equation u = H Δq̇ (eq. 11.57) has no unique solution";
    return r;
  }
  r.zeta_minus = r.ck.zeta;
  r.tangential_minus = r.ck.Tt.transpose() * qd;
  r.kinetic_minus = T(qd.dot(H * qd)) / T(2);
  for (int i = 0; i < nc; ++i)
    if (!model.contacts[i].has_soft) {
      r.rigid.push_back(i);
      r.frictional = r.frictional || model.contacts[i].has_friction;
    }
  const int nr = static_cast<int>(r.rigid.size());
  if (!r.frictional) {
    MatX<T> TR(model.nv, nr);
    for (int a = 0; a < nr; ++a) TR.col(a) = r.ck.Tn.col(r.rigid[a]);
    const MatX<T> M = nr > 0 ? MatX<T>(TR.transpose() * Hf.solve(TR)) : MatX<T>(0, 0);
    r.d = VecX<T>(nr);
    for (int a = 0; a < nr; ++a) r.d(a) = impact_offset<T>(model.contacts[r.rigid[a]].e, r.zeta_minus(r.rigid[a]));
    const MatX<T> Ms = (M + M.transpose()) / T(2);
    r.lcp = solve_lcp<T>(Ms, r.d);
    if (r.lcp.status != LcpResult<T>::Solved) {
      r.message = r.lcp.status == LcpResult<T>::NoSolution ? "the impulsive LCP has no solution (certificate y: My = 0, dᵀy < 0)"
                                                           : r.lcp.message;
      return r;
    }
    r.lambda = r.lcp.lambda;
    r.lambda_unique = lcp_solution_uniqueness<T>(Ms, r.d, r.lambda, r.lcp.zeta_dot) == LcpUniqueness::Unique;
    r.u = TR * r.lambda;
  } else {
    // Columns: t_x, t_y, t_z for a frictional contact, t_z alone otherwise; E on the t_z rows.
    std::vector<VecX<T>> cols;
    std::vector<T> one_plus_e;
    std::vector<VecX<T>> zeta_rows;
    for (int i : r.rigid) {
      const Contact<T>& c = model.contacts[i];
      if (c.has_friction) {
        cols.push_back(r.ck.Tt.col(2 * i));
        cols.push_back(r.ck.Tt.col(2 * i + 1));
        one_plus_e.push_back(T(1));
        one_plus_e.push_back(T(1));
      }
      cols.push_back(r.ck.Tn.col(i));
      one_plus_e.push_back(T(1) + c.e);
    }
    const int m = static_cast<int>(cols.size());
    r.N = MatX<T>(model.nv, m);
    for (int j = 0; j < m; ++j) r.N.col(j) = cols[j];
    const MatX<T> A = m > 0 ? MatX<T>(r.N.transpose() * Hf.solve(r.N)) : MatX<T>(0, 0);
    VecX<T> rhs = r.N.transpose() * qd;
    for (int j = 0; j < m; ++j) rhs(j) *= -one_plus_e[j];
    r.lambda = VecX<T>(0);
    if (m > 0) {  // (Eigen's factorizations are not used on empty matrices)
      Eigen::FullPivLU<MatX<T>> lu(A);
      lu.setThreshold(T(1000) * T(m) * epsilon<T>());
      if (lu.rank() < m) {
        r.message = "NᵀH⁻¹N is singular (rank " + std::to_string(lu.rank()) + " of " + std::to_string(m) +
                    "): the sticking impact (eq. 11.72) constrains more directions than the system can move in";
        return r;
      }
      r.lambda = lu.solve(rhs);
    }
    r.u = r.N * r.lambda;
    for (int a = 0, j = 0; a < nr; ++a) {
      const Contact<T>& c = model.contacts[r.rigid[a]];
      if (c.has_friction) {
        const T lt = sqrt(T(r.lambda(j) * r.lambda(j) + r.lambda(j + 1) * r.lambda(j + 1)));
        const T ln = r.lambda(j + 2);
        r.in_cone.push_back(ln >= T(0) && lt <= c.mu * ln);
        j += 3;
      } else {
        r.in_cone.push_back(r.lambda(j) >= T(0));
        j += 1;
      }
    }
  }
  r.dqd = Hf.solve(r.u);
  r.qd_plus = qd + r.dqd;
  r.zeta_plus = r.ck.Tn.transpose() * r.qd_plus;
  r.tangential_plus = r.ck.Tt.transpose() * r.qd_plus;
  r.kinetic_plus = T(r.qd_plus.dot(H * r.qd_plus)) / T(2);
  r.ok = true;
  return r;
}

#define RBDREF_CONTACT_IMPULSE_INSTANTIATE(EXT, T) \
  EXT template ContactImpact<T> contact_impact<T>(const Model<T>&, const VecX<T>&, const VecX<T>&);
RBDREF_EXTERN_FOR_EACH_SCALAR(RBDREF_CONTACT_IMPULSE_INSTANTIATE)

}  // namespace rbd
