// The contact section of a proof and its impulsive step (certify/prove_steps.hpp; their contracts
// there).
#include "certify/prove_steps.hpp"
#include "certify/verified_solve.hpp"
#include "reference/contact/impulse.hpp"  // impact_offset: the impulsive LCP's d
#include "reference/contact/interval_contact.hpp"
#include "reference/tree/interval_tree.hpp"

#include <algorithm>

namespace rbd::prove_detail {

namespace {

// H⁻¹ b verified (verified_solve), from x0.
VecX<Interval> verified_inverse_times(const MatX<Interval>& H, const VecX<Interval>& b, const VecX<Interval>& x0, const char* what) {
  const VerifiedSolve v = verified_solve(H, b, x0);
  if (!v.ok) throw Undecided(std::string(what) + ": " + v.why);
  return v.x;
}

// The LCP w = Aλ + d ≥ 0, λ ≥ 0, λᵀw = 0 (RBDA eq. 11.42, or §11.7's impulsive one) solved given a
// point solver's basis B (positions in 0 .. m-1; contact `names` per position): A_BB λ_B = -d_B
// verified from x0's entries at B, λ_N = 0; then λ_B > 0 and w_N > 0 must be proven, else the
// basis is degenerate: a Decision naming the contact (`lcp` qualifies the message, `w` names w).
// Returns λ, and w in *w_out.
VecX<Interval> lcp_at_basis(const MatX<Interval>& A, const VecX<Interval>& d, const std::vector<Eigen::Index>& B,
                            const VecX<Interval>& x0, const std::vector<std::string>& names, const std::string& lcp,
                            const std::string& w, VecX<Interval>* w_out) {
  const Eigen::Index m = d.size(), nb = static_cast<Eigen::Index>(B.size());
  VecX<Interval> lambda = VecX<Interval>::Zero(m);
  if (nb > 0) {
    MatX<Interval> ABB(nb, nb);
    VecX<Interval> dB(nb), lB(nb);
    for (Eigen::Index a = 0; a < nb; ++a) {
      dB(a) = -d(B[static_cast<size_t>(a)]);
      lB(a) = x0(B[static_cast<size_t>(a)]);
      for (Eigen::Index b = 0; b < nb; ++b) ABB(a, b) = A(B[static_cast<size_t>(a)], B[static_cast<size_t>(b)]);
    }
    const VerifiedSolve v = verified_solve(ABB, dB, lB);
    if (!v.ok) throw Undecided("the basis of " + lcp + ", M_BB λ_B = -d_B: " + v.why);
    for (Eigen::Index a = 0; a < nb; ++a) {
      if (!(mpfr_sgn(v.x(a).lo()) > 0))
        throw Decision("a degenerate basis of " + lcp + ": λ of contact '" + names[static_cast<size_t>(B[static_cast<size_t>(a)])] +
                       "' is not proven positive (its enclosure reaches 0)");
      lambda(B[static_cast<size_t>(a)]) = v.x(a);
    }
  }
  *w_out = A * lambda + d;
  for (Eigen::Index j = 0; j < m; ++j)
    if (std::find(B.begin(), B.end(), j) == B.end() && !(mpfr_sgn((*w_out)(j).lo()) > 0))
      throw Decision("a degenerate basis of " + lcp + ": " + w + " of the non-basic contact '" + names[static_cast<size_t>(j)] +
                     "' is not proven positive (its enclosure reaches 0)");
  return lambda;
}


}  // namespace

void enclose_contacts(const Evaluation& ev, const StateDesc& state, const Model<Interval>& model, const VecX<Interval>& q,
                      const VecX<Interval>& qd, const VecX<Interval>& tau, const MatX<Interval>* H, const VecX<Interval>* C,
                      std::optional<ContactKinematics<Interval>>& ck, ProofSteps& steps) {
  steps.attempt({"contacts.T", "contacts.Tdot_qd", "contacts.phi", "contacts.zeta"}, [&] {
    ck.emplace(contact_kinematics<Interval>(model, q, qd));
    steps.emit("contacts.T", "evaluated", static_cast<size_t>(ck->Tn.size()), entries(ck->Tn));
    steps.emit("contacts.Tdot_qd", "evaluated", static_cast<size_t>(ck->Tdot_qd.size()), entries(ck->Tdot_qd));
    steps.emit("contacts.phi", "evaluated", static_cast<size_t>(ck->phi.size()), entries(ck->phi));
    steps.emit("contacts.zeta", "evaluated", static_cast<size_t>(ck->zeta.size()), entries(ck->zeta));
  });
  // Soft contacts (§11.8): their forces are functions of the state, evaluated on intervals through
  // the same branches (touching, sticking) the point evaluation took, or not proven.
  std::optional<VecX<Interval>> tau_soft;
  bool soft = false;
  for (const Contact<Interval>& c : model.contacts) soft = soft || c.has_soft;
  if (!soft) tau_soft = VecX<Interval>::Zero(model.nv);
  if (soft)
    steps.attempt({"contacts.soft.z", "contacts.soft.fn", "contacts.soft.ft", "contacts.soft.f_stick", "contacts.soft.zdot",
             "contacts.soft.xdot", "contacts.soft.dissipation", "contacts.soft.tau_soft"},
            [&] {
              if (!ck) throw Decision("T has no enclosure");
              std::vector<bool> given_z;
              VecX<Interval> z, x;
              surface_state<Interval>(state, given_z, z, x);
              const SoftContactForces<Interval> sf = soft_contact_forces<Interval>(model, *ck, qd, given_z, z, x);
              const std::vector<ContactSummary::Soft>& point = ev.contacts.soft;
              const Eigen::Index ns = static_cast<Eigen::Index>(sf.contacts.size());
              if (point.size() != sf.contacts.size()) throw Decision("the evaluation reports no soft contact state");
              VecX<Interval> fn(ns), zz(ns), zdot(ns), ft(2 * ns), xdot(2 * ns), fstick(2 * ns), W(ns);
              for (Eigen::Index a = 0; a < ns; ++a) {
                const SoftContactState<Interval>& c = sf.contacts[static_cast<size_t>(a)];
                if (c.touching != point[static_cast<size_t>(a)].touching || c.sticking != point[static_cast<size_t>(a)].sticking)
                  throw Decision("soft contact '" + point[static_cast<size_t>(a)].name +
                                 "': the interval evaluation decides touching or sticking otherwise than the point one "
                                 "(a state on the boundary of eq. 11.75's or 11.79's cases)");
                fn(a) = c.fn;
                zz(a) = c.z;
                zdot(a) = c.zdot;
                W(a) = c.dissipation;
                for (Eigen::Index k = 0; k < 2; ++k) {
                  ft(2 * a + k) = c.ft(k);
                  xdot(2 * a + k) = c.xdot(k);
                  fstick(2 * a + k) = c.f_stick(k);
                }
              }
              steps.emit("contacts.soft.z", "evaluated", static_cast<size_t>(ns), entries(zz));
              steps.emit("contacts.soft.fn", "evaluated", static_cast<size_t>(ns), entries(fn));
              steps.emit("contacts.soft.ft", "evaluated", static_cast<size_t>(2 * ns), entries(ft));
              steps.emit("contacts.soft.f_stick", "evaluated", static_cast<size_t>(2 * ns), entries(fstick));
              steps.emit("contacts.soft.zdot", "evaluated", static_cast<size_t>(ns), entries(zdot));
              steps.emit("contacts.soft.xdot", "evaluated", static_cast<size_t>(2 * ns), entries(xdot));
              steps.emit("contacts.soft.dissipation", "evaluated", static_cast<size_t>(ns), entries(W));
              steps.emit("contacts.soft.tau_soft", "evaluated", static_cast<size_t>(model.nv), entries(sf.tau_soft));
              tau_soft = sf.tau_soft;
            });
  steps.none({"contacts.certificate"}, "the no-solution certificate claims My = 0, which intervals cannot prove (it holds in exact "
                                 "arithmetic only): reported, not proven");
  for (int k = 0; k < ev.contacts.n_basic_solutions; ++k)
    steps.none({"contacts.basic_solutions[" + std::to_string(k) + "]"},
         "a basic solution is kept by a tolerance test (λ ≥ 0 and ζ̇ ≥ 0 within the tolerance) at a state where λ is not "
         "unique: a decision, not proven");
  const std::vector<std::string> solution = {"contacts.M", "contacts.d", "contacts.qdd_free", "contacts.lambda",
                                             "contacts.zeta_dot", "contacts.qdd", "contacts.tau_c"};
  steps.attempt(solution, [&] {
    if (!ck || !H || !C) throw Decision("T, H or C has no enclosure");
    if (!tau_soft) throw Decision("the soft contacts' forces have no enclosure");
    const ContactSummary& S = ev.contacts;
    std::vector<Eigen::Index> rigid;
    for (const std::string& name : S.rigid)
      for (size_t c = 0; c < model.contacts.size(); ++c)
        if (model.contacts[c].name == name) rigid.push_back(static_cast<Eigen::Index>(c));
    const Eigen::Index n = model.nv, m = static_cast<Eigen::Index>(rigid.size());
    MatX<Interval> Tr(n, m), Y(n, m);
    VecX<Interval> Tdot(m);
    const VecX<Interval> zero = VecX<Interval>::Zero(n);
    for (Eigen::Index j = 0; j < m; ++j) {
      Tr.col(j) = ck->Tn.col(rigid[static_cast<size_t>(j)]);
      Tdot(j) = ck->Tdot_qd(rigid[static_cast<size_t>(j)]);
      Y.col(j) = verified_inverse_times(*H, Tr.col(j), zero, "H⁻¹T");
    }
    const Quantity* fq = ev.find_contact("qdd_free");
    VecX<Interval> f0 = zero;
    if (fq)
      for (Eigen::Index i = 0; i < n; ++i) f0(i) = from_decimal<Interval>(fq->text(static_cast<size_t>(i)));
    const VecX<Interval> f = verified_inverse_times(*H, tau + *tau_soft - *C, f0, "H⁻¹(τ + τ_soft - C)");
    steps.emit("contacts.qdd_free", "verified", static_cast<size_t>(n), entries(f));
    if (m == 0) {  // every contact soft, or none current: no LCP, q̈ = q̈_free and τ_c = 0
      if (S.status != "solved") throw Decision("the contact problem is not solved at this state (" + S.status + ")");
      steps.emit("contacts.qdd", "verified", static_cast<size_t>(n), entries(f));
      steps.emit("contacts.tau_c", "evaluated", static_cast<size_t>(n), entries(zero));
      return;
    }
    const MatX<Interval> M = Tr.transpose() * Y;
    const VecX<Interval> d = Tr.transpose() * f + Tdot;
    steps.emit("contacts.M", "verified", static_cast<size_t>(M.size()), entries(M));
    steps.emit("contacts.d", "verified", static_cast<size_t>(m), entries(d));
    if (S.status != "solved") throw Decision("the LCP is not solved at this state (" + S.status + ")");
    std::vector<std::string> names;
    for (Eigen::Index j = 0; j < m; ++j) names.push_back(model.contacts[static_cast<size_t>(rigid[static_cast<size_t>(j)])].name);
    std::vector<Eigen::Index> B;  // positions in the rigid list of the basic contacts
    for (const std::string& name : S.active)
      for (Eigen::Index j = 0; j < m; ++j)
        if (names[static_cast<size_t>(j)] == name) B.push_back(j);
    const Quantity* lq = ev.find_contact("lambda");
    VecX<Interval> l0 = VecX<Interval>::Zero(m);
    if (lq)
      for (Eigen::Index j = 0; j < m; ++j) l0(j) = from_decimal<Interval>(lq->text(static_cast<size_t>(j)));
    VecX<Interval> zeta_dot;
    const VecX<Interval> lambda = lcp_at_basis(M, d, B, l0, names, "the LCP", "ζ̇", &zeta_dot);
    const VecX<Interval> qdd = f + Y * lambda, tau_c = Tr * lambda;
    steps.emit("contacts.qdd", "verified", static_cast<size_t>(n), entries(qdd));
    steps.emit("contacts.tau_c", "verified", static_cast<size_t>(n), entries(tau_c));
    if (!S.lambda_unique) {
      steps.none({"contacts.lambda", "contacts.zeta_dot"},
           "λ is not unique at this state (rank M < n_c): the reported λ is one of the solutions; q̈ and τ_c, the same "
           "for all of them, are proven");
      return;
    }
    steps.emit("contacts.lambda", "verified", static_cast<size_t>(m), entries(lambda));
    steps.emit("contacts.zeta_dot", "verified", static_cast<size_t>(m), entries(zeta_dot));
  });
}


void enclose_impact(const Evaluation& ev, const Model<Interval>& model, const VecX<Interval>& qd,
                    const ContactKinematics<Interval>* ck, const MatX<Interval>* H, ProofSteps& steps) {
  const ContactSummary::Impact& I = ev.contacts.impact;
  steps.attempt({"contacts.impact.zeta_minus", "contacts.impact.tangential_minus", "contacts.impact.kinetic_minus"}, [&] {
    if (!ck) throw Decision("T has no enclosure");
    const VecX<Interval> vt = ck->Tt.transpose() * qd;
    steps.emit("contacts.impact.zeta_minus", "evaluated", static_cast<size_t>(ck->zeta.size()), entries(ck->zeta));
    steps.emit("contacts.impact.tangential_minus", "evaluated", static_cast<size_t>(vt.size()), entries(vt));
    if (!H) throw Decision("H has no enclosure");
    const VecX<Interval> Tm = VecX<Interval>::Constant(1, Interval(qd.dot(*H * qd)) / Interval(2));
    steps.emit("contacts.impact.kinetic_minus", "evaluated", 1, entries(Tm));
  });
  const std::vector<std::string> step = {"contacts.impact.lambda",    "contacts.impact.u",
                                         "contacts.impact.dqd",       "contacts.impact.qd_plus",
                                         "contacts.impact.zeta_plus", "contacts.impact.tangential_plus",
                                         "contacts.impact.kinetic_plus"};
  steps.attempt(step, [&] {
    if (!ck || !H) throw Decision("T or H has no enclosure");
    if (!I.ok) throw Decision("the impulsive step has no solution at this state (" + I.message + ")");
    std::vector<Eigen::Index> rigid;
    bool frictional = false;
    for (size_t c = 0; c < model.contacts.size(); ++c)
      if (!model.contacts[c].has_soft) {
        rigid.push_back(static_cast<Eigen::Index>(c));
        frictional = frictional || model.contacts[c].has_friction;
      }
    const Eigen::Index n = model.nv, nr = static_cast<Eigen::Index>(rigid.size());
    const Quantity* lq = ev.find_contact("impact.lambda");
    // The impulse directions (T_R, or N with t_x, t_y before t_z of a frictional contact) and 1 + E.
    std::vector<Eigen::Index> col_of;  // per direction: (contact index) * 3 + (0 t_x, 1 t_y, 2 normal)
    for (Eigen::Index c : rigid) {
      if (frictional && model.contacts[static_cast<size_t>(c)].has_friction) {
        col_of.push_back(3 * c);
        col_of.push_back(3 * c + 1);
      }
      col_of.push_back(3 * c + 2);
    }
    const Eigen::Index m = static_cast<Eigen::Index>(col_of.size());
    MatX<Interval> N(n, m), Y(n, m);
    const VecX<Interval> zero = VecX<Interval>::Zero(n);
    for (Eigen::Index j = 0; j < m; ++j) {
      const Eigen::Index c = col_of[static_cast<size_t>(j)] / 3, k = col_of[static_cast<size_t>(j)] % 3;
      N.col(j) = k == 2 ? ck->Tn.col(c) : ck->Tt.col(2 * c + k);
      Y.col(j) = verified_inverse_times(*H, N.col(j), zero, "H⁻¹T");
    }
    const MatX<Interval> A = N.transpose() * Y;
    VecX<Interval> lambda = VecX<Interval>::Zero(m), l0(m);
    for (Eigen::Index j = 0; j < m; ++j)
      l0(j) = lq && static_cast<Eigen::Index>(lq->size()) == m ? from_decimal<Interval>(lq->text(static_cast<size_t>(j)))
                                                                : Interval(0);
    if (frictional) {
      VecX<Interval> rhs = N.transpose() * qd;
      for (Eigen::Index j = 0; j < m; ++j) {
        const Eigen::Index c = col_of[static_cast<size_t>(j)] / 3;
        const Interval one_plus_e =
            col_of[static_cast<size_t>(j)] % 3 == 2 ? Interval(Interval(1) + model.contacts[static_cast<size_t>(c)].e) : Interval(1);
        rhs(j) = -(one_plus_e * rhs(j));
      }
      if (m > 0) {
        const VerifiedSolve v = verified_solve(A, rhs, l0);
        if (!v.ok) throw Undecided("NᵀH⁻¹N λ = -(1 + E)Nᵀq̇⁻ (eq. 11.72): " + v.why);
        lambda = v.x;
      }
    } else {
      VecX<Interval> d(nr);
      for (Eigen::Index a = 0; a < nr; ++a)
        d(a) = impact_offset<Interval>(model.contacts[static_cast<size_t>(rigid[static_cast<size_t>(a)])].e,
                                       ck->zeta(rigid[static_cast<size_t>(a)]));
      std::vector<std::string> names;
      std::vector<Eigen::Index> B;
      for (Eigen::Index a = 0; a < nr; ++a) {
        names.push_back(model.contacts[static_cast<size_t>(rigid[static_cast<size_t>(a)])].name);
        if (std::find(I.receiving.begin(), I.receiving.end(), names.back()) != I.receiving.end()) B.push_back(a);
      }
      VecX<Interval> w;
      lambda = lcp_at_basis(A, d, B, l0, names, "the impulsive LCP", "w", &w);
    }
    const VecX<Interval> u = N * lambda, dqd = Y * lambda, qd_plus = qd + dqd;
    const VecX<Interval> zeta_plus = ck->Tn.transpose() * qd_plus, tangential_plus = ck->Tt.transpose() * qd_plus;
    const VecX<Interval> Tp = VecX<Interval>::Constant(1, Interval(qd_plus.dot(*H * qd_plus)) / Interval(2));
    steps.emit("contacts.impact.u", "verified", static_cast<size_t>(n), entries(u));
    steps.emit("contacts.impact.dqd", "verified", static_cast<size_t>(n), entries(dqd));
    steps.emit("contacts.impact.qd_plus", "verified", static_cast<size_t>(n), entries(qd_plus));
    steps.emit("contacts.impact.zeta_plus", "verified", static_cast<size_t>(zeta_plus.size()), entries(zeta_plus));
    steps.emit("contacts.impact.tangential_plus", "verified", static_cast<size_t>(tangential_plus.size()), entries(tangential_plus));
    steps.emit("contacts.impact.kinetic_plus", "verified", 1, entries(Tp));
    if (!frictional && !I.lambda_unique) {
      steps.none({"contacts.impact.lambda"}, "the impulse λ is not unique at this state: the reported λ is one of the "
                                       "solutions; u = Tλ and the step, the same for all of them, are proven");
      return;
    }
    steps.emit("contacts.impact.lambda", "verified", static_cast<size_t>(m), entries(lambda));
  });
}


}  // namespace rbd::prove_detail
