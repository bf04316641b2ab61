// Forward dynamics with frictionless point contacts (RBDA §11.3-11.5):
//
//   H q̈ + C = τ + T λ                                        (eq. 11.41)
//   ζ̇ = M λ + d,  ζ̇ ≥ 0,  λ ≥ 0,  ζ̇ᵀλ = 0                     (eq. 11.42)
//   M = Tᵀ H⁻¹ T                                             (eq. 11.35)
//   d = Tᵀ H⁻¹ (τ - C) + Ṫᵀ q̇                                 (eq. 11.36)
//
// T and Ṫᵀq̇ from contact_kinematics (reference/contact/kinematics.hpp). H⁻¹ through H = Lᵀ D L (table 6.3):
// with W = L⁻ᵀ T, M = Wᵀ D⁻¹ W, symmetric positive semi-definite by construction. The LCP is solved
// by Lemke's method (reference/contact/lcp.hpp), which returns λ or a certificate y that no λ exists, and
// independently as the QP of eq. 11.44 (reference/contact/qp.hpp, whose multipliers minimize 11.43).
// Then q̈ = q̈_free + H⁻¹ T λ with q̈_free = H⁻¹(τ - C), and τ_c = T λ (eq. 11.32).
//
// Uniqueness (§11.5, properties 1-2): ζ̇, Tλ and q̈ are unique when a solution exists. λ is unique
// when M is positive-definite (the normals t_i independent, rank T = n_c), and may be unique when
// it is not (the book: a singular M may give one solution): decided on the solution's own
// polyhedron (contact/uniqueness.hpp), with ζ̇_i = 0 and λ_i = 0 within 1000 n_c ε of their scales.
// The rank is decided on M's LDLᵀ with complete (diagonal) pivoting, a pivot counted as zero below
// 1000 n_c ε max|M| (`rank_threshold`).
//
// Every basic solution (§11.5: λ_i > 0 only on contacts with independent normals) is listed when λ
// is not unique and n_c ≤ kMaxEnumerated: for each index set S with M_SS nonsingular, λ_S =
// -M_SS⁻¹ d_S, kept when λ ≥ 0 and ζ̇ ≥ 0 within `tolerance`. They differ only in λ (by a vector
// of null(T)).
//
// Soft contacts (those with stiffness and damping, §11.8, contact/soft.hpp) are not in the LCP:
// their forces are functions of the state (and of the surface state z, x), computed first and added
// to τ as known forces, τ_soft = T f_n + T_t f_t. The LCP is over the rigid contacts (`rigid`), with
// T, Ṫᵀq̇ their columns and q̈_free = H⁻¹(τ + τ_soft - C).
//
// The cases of §11.4, per contact, from φ and φ̇ = ζ with tolerances at double's resolution (below):
//   "1" separated (φ > 0), "2a" impact (φ = 0, φ̇ < 0), "2b" separating (φ = 0, φ̇ > 0),
//   "3" in contact (φ = φ̇ = 0), "penetrating" (φ < 0).
// Which contacts the LCP covers (`set`):
//   ContactSet::Current   the book's forward problem (§11.4, table 11.1): the rigid contacts in
//                         case 3 only. A separated (1) or separating (2b) contact carries no force
//                         and is left out. A colliding (2a) or penetrating contact makes the
//                         acceleration-level problem meaningless (table 11.1 applies an impulse
//                         first; a penetration is not a valid state): then `posed` is false, the
//                         reason is in `message`, M and d are over every rigid contact and no LCP is
//                         solved.
//   ContactSet::Given     every rigid contact, whatever its case: the caller's contact set (the
//                         simulation's candidates, an engine's contact constraints).
#pragma once

#include "reference/contact/kinematics.hpp"
#include "reference/contact/force_qp.hpp"
#include "reference/contact/qp.hpp"
#include "reference/tree/crba.hpp"
#include "reference/contact/lcp.hpp"
#include "reference/tree/ltdl.hpp"
#include "reference/tree/rnea.hpp"
#include "reference/contact/soft.hpp"
#include "reference/contact/uniqueness.hpp"

#include <string>
#include <vector>

namespace rbd {

enum class ContactSet { Current, Given };

template <class T>
struct ContactDynamics {
  ContactKinematics<T> ck;
  bool posed = true;         // ContactSet::Current: no rigid contact collides (2a) or penetrates
  bool penetrating = false;  // not posed because a rigid contact penetrates (else one collides)
  MatX<T> M;                 // n_c x n_c (eq. 11.35)
  VecX<T> d;                 // n_c (eq. 11.36)
  VecX<T> qdd_free;          // H⁻¹(τ - C): the acceleration without contact forces
  bool ok = false;           // H positive-definite (else message)
  std::string message;
  LcpResult<T> lcp;          // λ, ζ̇ or the certificate
  ContactQp<T> qp;           // eq. 11.44 by the dual active-set method: the independent route
  ForceQp<T> force_qp;       // eq. 11.43 by a primal active-set method on the bounds: a third route
  VecX<T> qdd, tau_c;        // when lcp.status == Solved
  int rank = 0;              // rank of M (= rank T)
  bool lambda_unique = true;              // decided (uniqueness.hpp); false also when undecided or unsolved
  LcpUniqueness uniqueness = LcpUniqueness::Unique;
  T rank_threshold = T(0);
  std::vector<VecX<T>> basic_solutions;  // every basic λ, when not unique and n_c ≤ kMaxEnumerated
  bool enumerated = false;
  std::vector<std::string> cases;        // §11.4 per contact
  T phi_tolerance = T(0), zeta_tolerance = T(0);
  std::vector<int> rigid;                // contacts in the LCP (M, d, λ, ζ̇ are over these, in order):
                                         // case 3 (ContactSet::Current) or all (Given, or not posed)
  SoftContactForces<T> soft;             // the soft contacts' forces
  MatX<T> T_rigid;                       // T's columns of the rigid contacts
};

constexpr int kMaxEnumerated = 12;

// given_z, z, x: the soft contacts' surface state (soft_contact_forces; empty: the defaults).
template <class T>
ContactDynamics<T> contact_dynamics(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau,
                                    const std::vector<bool>& given_z = {}, const VecX<T>& z = VecX<T>(),
                                    const VecX<T>& x = VecX<T>(), ContactSet set = ContactSet::Given);

// ---- definition ----

template <class T>
ContactDynamics<T> contact_dynamics(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau,
                                    const std::vector<bool>& given_z, const VecX<T>& z, const VecX<T>& x, ContactSet set) {
  using std::abs;
  using std::sqrt;
  ContactDynamics<T> r;
  r.ck = contact_kinematics<T>(model, q, qd);
  const int nc = static_cast<int>(model.contacts.size());
  const MatX<T> H = crba<T>(model, q);
  const VecX<T> C = bias<T>(model, q, qd);
  const SparseFactor<T> f = ltdl<T>(H, model.dof_parent);
  // §11.4 cases. φ against the model's size, ζ against |t| |q̇| (its terms' size).
  T size(1), vmax(0), tmax(0);
  for (int i = 0; i < model.NB; ++i)
    if (model.Xtree[i].r.norm() > size) size = model.Xtree[i].r.norm();
  for (Eigen::Index i = 0; i < qd.size(); ++i) vmax = std::max(vmax, T(abs(qd(i))));
  for (Eigen::Index i = 0; i < r.ck.Tn.size(); ++i) tmax = std::max(tmax, T(abs(r.ck.Tn.data()[i])));
  // A case is a decision, made at one tolerance whatever the working precision (1000 ε of double,
  // 2⁻⁵², against the terms' size): both precisions of a certification then decide alike, and a
  // state written in double (every fixture's) that keeps a contact current to its rounding is in
  // case 3. (At the working precision a ζ left by the inputs' rounding, ~1e-17, would be a
  // collision at bin50.)
  const T eps_case = T(1000) / T(4503599627370496LL);  // 1000 · 2⁻⁵²
  r.phi_tolerance = eps_case * size;
  r.zeta_tolerance = eps_case * (tmax * vmax * T(model.nv) + T(1));
  for (int i = 0; i < nc; ++i) {
    const T phi = r.ck.phi(i), zeta = r.ck.zeta(i);
    if (phi > r.phi_tolerance) r.cases.push_back("1");
    else if (phi < -r.phi_tolerance) r.cases.push_back("penetrating");
    else if (zeta < -r.zeta_tolerance) r.cases.push_back("2a");
    else if (zeta > r.zeta_tolerance) r.cases.push_back("2b");
    else r.cases.push_back("3");
  }
  std::string colliding, penetrating;  // (ContactSet::Current) the rigid contacts in case 2a, penetrating
  for (int i = 0; i < nc; ++i) {
    if (model.contacts[i].has_soft) continue;
    if (set == ContactSet::Current) {
      if (r.cases[i] == "2a") colliding += (colliding.empty() ? "'" : ", '") + model.contacts[i].name + "'";
      if (r.cases[i] == "penetrating") penetrating += (penetrating.empty() ? "'" : ", '") + model.contacts[i].name + "'";
    }
    if (set == ContactSet::Given || r.cases[i] == "3") r.rigid.push_back(i);
  }
  if (!colliding.empty() || !penetrating.empty()) {
    r.posed = false;
    r.penetrating = !penetrating.empty();
    r.message = !penetrating.empty()
                    ? "contact " + penetrating + " penetrates (φ < 0, §11.4): not a valid state of the rigid contact problem"
                    : "contact " + colliding + " approaches its surface (φ = 0, ζ < 0: case 2a of §11.4): table 11.1 "
                      "applies an impulse first (eval --impact), and the acceleration-level LCP is not posed";
    r.rigid.clear();
    for (int i = 0; i < nc; ++i)
      if (!model.contacts[i].has_soft) r.rigid.push_back(i);
  }
  const int nr = static_cast<int>(r.rigid.size());
  r.T_rigid = MatX<T>(model.nv, nr);
  VecX<T> Tdot_r(nr);
  for (int a = 0; a < nr; ++a) {
    r.T_rigid.col(a) = r.ck.Tn.col(r.rigid[a]);
    Tdot_r(a) = r.ck.Tdot_qd(r.rigid[a]);
  }
  if (!f.ok) {
    r.message = "H is not positive-definite (LTDL pivot of DoF " + std::to_string(f.failed_at) + "): M = TᵀH⁻¹T is undefined";
    return r;
  }
  r.ok = true;
  r.soft = soft_contact_forces<T>(model, r.ck, qd, given_z, z, x);
  r.qdd_free = ltdl_solve<T>(f, VecX<T>(tau + r.soft.tau_soft - C));
  {
  const int nc = nr;  // the LCP is over the rigid contacts
  // M = Wᵀ D⁻¹ W, W = L⁻ᵀ T.
  MatX<T> W(model.nv, nc);
  for (int i = 0; i < nc; ++i) W.col(i) = solve_Lt<T>(f, VecX<T>(r.T_rigid.col(i)));
  const VecX<T> D = f.D();
  MatX<T> WD = W;
  // (No row views of an nv x 0 W when every contact is soft: a block of an empty matrix offsets
  // its null data pointer, which is undefined; clang's UBSan reports it.)
  if (nc > 0)
    for (Eigen::Index k = 0; k < WD.rows(); ++k) WD.row(k) /= D(k);
  r.M = W.transpose() * WD;
  for (int i = 0; i < nc; ++i)
    for (int j = 0; j < i; ++j) r.M(j, i) = r.M(i, j);  // the same sums in either order; exact symmetry
  r.d = r.T_rigid.transpose() * r.qdd_free + Tdot_r;
  // Rank of M by LDLᵀ with diagonal pivoting.
  T mmax(0);
  for (Eigen::Index i = 0; i < r.M.size(); ++i) mmax = std::max(mmax, T(abs(r.M.data()[i])));
  r.rank_threshold = T(1000) * T(std::max(nc, 1)) * epsilon<T>() * mmax;
  {
    MatX<T> A = r.M;
    std::vector<int> left(nc);
    for (int i = 0; i < nc; ++i) left[i] = i;
    while (!left.empty()) {
      size_t best = 0;
      for (size_t a = 1; a < left.size(); ++a)
        if (A(left[a], left[a]) > A(left[best], left[best])) best = a;
      const int p = left[best];
      const T piv = A(p, p);
      if (!(piv > r.rank_threshold)) break;
      ++r.rank;
      left.erase(left.begin() + static_cast<std::ptrdiff_t>(best));
      for (int a : left)
        for (int b : left) A(a, b) -= A(a, p) * A(p, b) / piv;
    }
  }
  if (!r.posed) return r;  // M, d and the rank as data; no LCP (see ContactSet::Current)
  r.lcp = solve_lcp<T>(r.M, r.d);
  r.uniqueness = r.rank == nc ? LcpUniqueness::Unique : LcpUniqueness::NotUnique;
  if (r.rank < nc && r.lcp.status == LcpResult<T>::Solved)
    r.uniqueness = lcp_solution_uniqueness<T>(r.M, r.d, r.lcp.lambda, r.lcp.zeta_dot);
  r.lambda_unique = r.uniqueness == LcpUniqueness::Unique;
  r.qp = solve_contact_qp<T>(H, r.T_rigid, Tdot_r, r.qdd_free);
  r.force_qp = solve_force_qp<T>(r.M, r.d);
  if (r.lcp.status == LcpResult<T>::Solved) {
    r.tau_c = r.T_rigid * r.lcp.lambda;
    r.qdd = r.qdd_free + ltdl_solve<T>(f, r.tau_c);
  }
  if (!r.lambda_unique && nc <= kMaxEnumerated && r.lcp.status == LcpResult<T>::Solved) {
    r.enumerated = true;
    const T tol = T(1000) * epsilon<T>() * (mmax * (r.lcp.lambda.size() ? r.lcp.lambda.maxCoeff() : T(0)) + T(abs(r.d.maxCoeff())) +
                                           T(abs(r.d.minCoeff())) + T(1));
    for (unsigned mask = 0; mask < (1u << nc); ++mask) {  // mask 0: λ = 0
      std::vector<int> S;
      for (int i = 0; i < nc; ++i)
        if (mask & (1u << i)) S.push_back(i);
      const int m = static_cast<int>(S.size());
      if (m > r.rank) continue;  // a basic solution's support has independent normals
      MatX<T> MSS(m, m);
      VecX<T> dS(m);
      for (int a = 0; a < m; ++a) {
        dS(a) = -r.d(S[a]);
        for (int b = 0; b < m; ++b) MSS(a, b) = r.M(S[a], S[b]);
      }
      VecX<T> xS(0);
      if (m > 0) {
        Eigen::FullPivLU<MatX<T>> lu(MSS);
        lu.setThreshold(T(1000) * T(nc) * epsilon<T>());
        if (lu.rank() < m) continue;
        xS = lu.solve(dS);
      }
      VecX<T> lambda = VecX<T>::Zero(nc);
      bool ok = true;
      for (int a = 0; a < m; ++a) {
        ok = ok && xS(a) > tol;  // strictly positive on S: a zero entry is the smaller set's solution
        lambda(S[a]) = xS(a);
      }
      if (!ok) continue;
      const VecX<T> w = r.M * lambda + r.d;
      for (int i = 0; i < nc; ++i) ok = ok && w(i) >= -tol;
      if (ok) r.basic_solutions.push_back(lambda);
    }
  }
  }
  return r;
}

#define RBDREF_CONTACT_DYNAMICS_INSTANTIATE(EXT, T)                                                                         \
  EXT template ContactDynamics<T> contact_dynamics<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, const VecX<T>&,         \
                                                      const std::vector<bool>&, const VecX<T>&, const VecX<T>&, ContactSet);
RBDREF_EXTERN_FOR_EACH_SCALAR(RBDREF_CONTACT_DYNAMICS_INSTANTIATE)

}  // namespace rbd
