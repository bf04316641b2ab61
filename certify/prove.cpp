#include "certify/prove.hpp"

#include "checks/properties.hpp"  // kFactorBudget: the point evaluation's choice of LᵀDL route
#include "io/model_io.hpp"  // model_layout: the DoF parents, for the factor route
#include "io/quantities.hpp"
#include "io/state_io.hpp"
#include "certify/verified_solve.hpp"
#include "reference/contact/impulse.hpp"  // impact_offset: the impulsive LCP's d
#include "reference/contact/interval_contact.hpp"
#include "reference/loops/interval_loops.hpp"
#include "reference/tree/interval_tree.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

namespace rbd {

using detail::Fr;

const ProvenQuantity* Proof::find(const std::string& name) const {
  for (const ProvenQuantity& q : quantities)
    if (q.name == name) return &q;
  return nullptr;
}

namespace {

constexpr double kMinusInf = -std::numeric_limits<double>::infinity();

// Why a quantity is not proven that more interval digits cannot change (a redundant constraint,
// a degenerate LCP basis, an unsolved LCP), as opposed to Undecided (an enclosure too wide to
// decide: a wider interval precision may decide it).
struct Decision : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// log10 |x| in double (x may lie beyond double's exponent range), rounded up when `up`, else down;
// kMinusInf for 0.
double log10_abs(mpfr_srcptr x, bool up) {
  if (mpfr_zero_p(x)) return kMinusInf;
  long e = 0;
  const double m = std::abs(mpfr_get_d_2exp(&e, x, up ? MPFR_RNDA : MPFR_RNDZ));
  const double l = std::log10(m) + static_cast<double>(e) * 0.30102999566398120;
  return up ? std::nextafter(l, std::numeric_limits<double>::infinity()) : std::nextafter(l, kMinusInf);
}

// x as decimal text with 3 significant digits, rounded up (x >= 0).
std::string up_text(mpfr_srcptr x) {
  if (mpfr_zero_p(x)) return "0";
  mpfr_exp_t e = 0;
  char* s = mpfr_get_str(nullptr, &e, 10, 3, x, MPFR_RNDU);
  const std::string m(s);
  mpfr_free_str(s);
  return m.substr(0, 1) + "." + m.substr(1) + "e" + (e - 1 < 0 ? "-" : "+") + std::to_string(std::labs(static_cast<long>(e - 1)));
}

// The enclosures of one evaluation at one interval precision: name -> entries (row-major), or the
// reason a quantity has none.
// The proven quantities of one evaluation at one interval precision, each made from its enclosure
// as soon as the enclosure exists (a 2000-DoF chain's interval H is gigabytes at the hundreds of
// digits it needs), with log10 of its relative width (log10_relative_width), or the reason a
// quantity has none.
struct Enclosures {
  bool undecided = false;  // some quantity met an Undecided: a wider precision may prove it
  std::map<std::string, ProvenQuantity> proven;
  std::map<std::string, double> log_width;
  std::map<std::string, std::string> why_not;
  std::set<std::string> decided;  // not proven for a Decision: more digits cannot change that
  // Quantities that a wider attempt need not compute again: proven narrow enough (log_width within
  // the target, prove()) or decided. Filled by prove() between attempts.
  std::set<std::string> settled;
  // The interval digits an undecided quantity is expected to need (0: no estimate; the widening
  // then follows the guard digits): the articulated factor's measured wrapping per body.
  int wanted_digits = 0;
};

// Entry k (row-major) of an enclosure, asked in increasing k.
using EntryAt = std::function<const Interval&(size_t)>;

EntryAt entries(const MatX<Interval>& A) {
  const size_t cols = static_cast<size_t>(A.cols());
  return [&A, cols](size_t k) -> const Interval& {
    return A(static_cast<Eigen::Index>(k / cols), static_cast<Eigen::Index>(k % cols));
  };
}
EntryAt entries(const VecX<Interval>& x) {
  return [&x](size_t k) -> const Interval& { return x(static_cast<Eigen::Index>(k)); };
}
// L of a unit LᵀDL factor read from its LD storage as SparseFactor::L() reads it (1 on the
// diagonal, LD(k, i) at k's ancestors i, exact 0 elsewhere), without the dense copy.
EntryAt entries_L(const SparseFactor<Interval>& f) {
  const size_t n = static_cast<size_t>(f.LD.rows());
  auto row = std::make_shared<std::vector<char>>(n, 0);
  auto current = std::make_shared<size_t>(n);
  auto one = std::make_shared<Interval>(1), zero = std::make_shared<Interval>(0);
  return [&f, n, row, current, one, zero](size_t k) -> const Interval& {
    const size_t i = k / n, j = k % n;
    if (i != *current) {
      std::fill(row->begin(), row->end(), 0);
      for (int a = f.lambda[i]; a >= 0; a = f.lambda[static_cast<size_t>(a)]) (*row)[static_cast<size_t>(a)] = 1;
      *current = i;
    }
    if (i == j) return *one;
    return (*row)[j] ? f.LD(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) : *zero;
  };
}

double log10_relative_width(size_t n, const EntryAt& at, double lscale);
double log10_scale(const std::string& scale);

// q̈ = H⁻¹(τ - C) by residual correction from x̃ (prove.hpp): the enclosure x̃ + e, e ∋ H⁻¹ r,
// r = τ - RNEA(q, q̇, x̃) = H (q̈ - x̃), H⁻¹ through the interval LᵀDL factor f (whose pivots were
// proven positive, so every H of the enclosure is positive-definite); once more from the first
// enclosure's midpoint unless that enclosure is already 10^-target narrow (log10_relative_width,
// against q̈'s natural scale `lscale`: a narrow factor makes the second pass, as costly as the
// first, useless).
VecX<Interval> verified_qdd(const Model<Interval>& model, const SparseFactor<Interval>& f, const VecX<Interval>& q,
                            const VecX<Interval>& qd, const VecX<Interval>& tau, VecX<Interval> x, double lscale,
                            double target) {
  VecX<Interval> enclosure;
  for (int pass = 0; pass < 2; ++pass) {
    const VecX<Interval> r = tau - rnea<Interval>(model, q, qd, x);
    enclosure = x + ltdl_solve<Interval>(f, r);
    if (pass == 0) {
      const double w = log10_relative_width(static_cast<size_t>(enclosure.size()), entries(enclosure), lscale);
      if (w > kMinusInf && w <= -target) break;
      for (Eigen::Index i = 0; i < x.size(); ++i) x(i) = midpoint(enclosure(i));
    }
  }
  return enclosure;
}

// The number of bodies on the longest path from the base.
int tree_depth(const ModelDesc& desc) {
  int depth = 0;
  std::vector<int> d(desc.bodies.size(), 0);
  for (size_t b = 0; b < desc.bodies.size(); ++b) {
    const int p = desc.bodies[b].parent;
    d[b] = p < 0 ? 1 : d[static_cast<size_t>(p)] + 1;
    depth = std::max(depth, d[b]);
  }
  return depth;
}

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

// The contact section (RBDA ch. 11, frictionless rigid contacts, soft ones as known forces), given
// the point evaluation's contact cases (§11.4: which contacts the LCP covers): T, Ṫᵀq̇, φ, ζ
// evaluated (eqs. 11.25-11.31); the soft contacts' forces evaluated (§11.8, eqs. 11.73-11.79) when
// the intervals take the point evaluation's branches (touching, sticking); H⁻¹T and q̈_free =
// H⁻¹(τ + τ_soft - C) verified (verified_solve), so M = TᵀH⁻¹T and d = Tᵀq̈_free + Ṫᵀq̇ (eqs.
// 11.35, 11.36) are enclosed; the LCP's solution given
// Lemke's final basis B: M_BB λ_B = -d_B verified, λ_N = 0, then λ_B > 0 and ζ̇_N = (Mλ + d)_N > 0
// must be proven (a degenerate basis, an entry whose enclosure reaches 0, is reported not
// proven). Then (λ, ζ̇) solves the true LCP, and q̈ = q̈_free + H⁻¹Tλ, τ_c = Tλ, which are the same
// for every solution (M = TᵀH⁻¹T: Mλ₁ = Mλ₂ forces Tλ₁ = Tλ₂); λ itself only where it is unique.
template <class Emit, class Attempt, class None>
void enclose_contacts(const Evaluation& ev, const StateDesc& state, const Model<Interval>& model, const VecX<Interval>& q,
                      const VecX<Interval>& qd, const VecX<Interval>& tau, const MatX<Interval>* H, const VecX<Interval>* C,
                      std::optional<ContactKinematics<Interval>>& ck, Emit& emit, Attempt& attempt, None& none) {
  attempt({"contacts.T", "contacts.Tdot_qd", "contacts.phi", "contacts.zeta"}, [&] {
    ck.emplace(contact_kinematics<Interval>(model, q, qd));
    emit("contacts.T", "evaluated", static_cast<size_t>(ck->Tn.size()), entries(ck->Tn));
    emit("contacts.Tdot_qd", "evaluated", static_cast<size_t>(ck->Tdot_qd.size()), entries(ck->Tdot_qd));
    emit("contacts.phi", "evaluated", static_cast<size_t>(ck->phi.size()), entries(ck->phi));
    emit("contacts.zeta", "evaluated", static_cast<size_t>(ck->zeta.size()), entries(ck->zeta));
  });
  // Soft contacts (§11.8): their forces are functions of the state, evaluated on intervals through
  // the same branches (touching, sticking) the point evaluation took, or not proven.
  std::optional<VecX<Interval>> tau_soft;
  bool soft = false;
  for (const Contact<Interval>& c : model.contacts) soft = soft || c.has_soft;
  if (!soft) tau_soft = VecX<Interval>::Zero(model.nv);
  if (soft)
    attempt({"contacts.soft.z", "contacts.soft.fn", "contacts.soft.ft", "contacts.soft.f_stick", "contacts.soft.zdot",
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
              emit("contacts.soft.z", "evaluated", static_cast<size_t>(ns), entries(zz));
              emit("contacts.soft.fn", "evaluated", static_cast<size_t>(ns), entries(fn));
              emit("contacts.soft.ft", "evaluated", static_cast<size_t>(2 * ns), entries(ft));
              emit("contacts.soft.f_stick", "evaluated", static_cast<size_t>(2 * ns), entries(fstick));
              emit("contacts.soft.zdot", "evaluated", static_cast<size_t>(ns), entries(zdot));
              emit("contacts.soft.xdot", "evaluated", static_cast<size_t>(2 * ns), entries(xdot));
              emit("contacts.soft.dissipation", "evaluated", static_cast<size_t>(ns), entries(W));
              emit("contacts.soft.tau_soft", "evaluated", static_cast<size_t>(model.nv), entries(sf.tau_soft));
              tau_soft = sf.tau_soft;
            });
  none({"contacts.certificate"}, "the no-solution certificate claims My = 0, which intervals cannot prove (it holds in exact "
                                 "arithmetic only): reported, not proven");
  for (int k = 0; k < ev.contacts.n_basic_solutions; ++k)
    none({"contacts.basic_solutions[" + std::to_string(k) + "]"},
         "a basic solution is kept by a tolerance test (λ ≥ 0 and ζ̇ ≥ 0 within the tolerance) at a state where λ is not "
         "unique: a decision, not proven");
  const std::vector<std::string> solution = {"contacts.M", "contacts.d", "contacts.qdd_free", "contacts.lambda",
                                             "contacts.zeta_dot", "contacts.qdd", "contacts.tau_c"};
  attempt(solution, [&] {
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
    emit("contacts.qdd_free", "verified", static_cast<size_t>(n), entries(f));
    if (m == 0) {  // every contact soft, or none current: no LCP, q̈ = q̈_free and τ_c = 0
      if (S.status != "solved") throw Decision("the contact problem is not solved at this state (" + S.status + ")");
      emit("contacts.qdd", "verified", static_cast<size_t>(n), entries(f));
      emit("contacts.tau_c", "evaluated", static_cast<size_t>(n), entries(zero));
      return;
    }
    const MatX<Interval> M = Tr.transpose() * Y;
    const VecX<Interval> d = Tr.transpose() * f + Tdot;
    emit("contacts.M", "verified", static_cast<size_t>(M.size()), entries(M));
    emit("contacts.d", "verified", static_cast<size_t>(m), entries(d));
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
    emit("contacts.qdd", "verified", static_cast<size_t>(n), entries(qdd));
    emit("contacts.tau_c", "verified", static_cast<size_t>(n), entries(tau_c));
    if (!S.lambda_unique) {
      none({"contacts.lambda", "contacts.zeta_dot"},
           "λ is not unique at this state (rank M < n_c): the reported λ is one of the solutions; q̈ and τ_c, the same "
           "for all of them, are proven");
      return;
    }
    emit("contacts.lambda", "verified", static_cast<size_t>(m), entries(lambda));
    emit("contacts.zeta_dot", "verified", static_cast<size_t>(m), entries(zeta_dot));
  });
}

// The impulsive step (RBDA §11.7, eval --impact; contact/impulse.hpp) over the rigid contacts R:
// ζ⁻ = Tᵀq̇⁻ and (ζ_x, ζ_y)⁻ = T_tᵀq̇⁻ from the contact section's kinematics `ck`, and T⁻ = ½ q̇ᵀHq̇,
// evaluated.
//   Frictionless: the impulsive LCP w = Mλ + d ≥ 0, λ ≥ 0, λᵀw = 0, M = T_RᵀH⁻¹T_R (H⁻¹T_R
//     verified), d_i = ζ_i⁻ + e_i min(ζ_i⁻, 0) (its branch decided on intervals), solved given the
//     point evaluation's receiving set B (λ_i > 0): M_BB λ_B = -d_B verified, then λ_B > 0 and w_N
//     > 0 proven (else a degenerate basis, not proven). Then u = T_Rλ is the same for every
//     solution (M symmetric positive semi-definite: two solutions differ by a vector of null(M) =
//     null(T_R)), and so are Δq̇ = H⁻¹u, q̇⁺, ζ⁺, (ζ_x, ζ_y)⁺ and T⁺; λ only where it is unique.
//   Sticking (some contact has μ): λ = -(NᵀH⁻¹N)⁻¹(1 + E)Nᵀq̇⁻ (eq. 11.72), verified; unique.
// Δq̇ = (H⁻¹T_R)λ (or (H⁻¹N)λ) from the verified columns, q̇⁺ = q̇⁻ + Δq̇, T⁺ = ½ q̇⁺ᵀHq̇⁺.
template <class Emit, class Attempt, class None>
void enclose_impact(const Evaluation& ev, const Model<Interval>& model, const VecX<Interval>& qd,
                    const ContactKinematics<Interval>* ck, const MatX<Interval>* H, Emit& emit, Attempt& attempt, None& none) {
  const ContactSummary::Impact& I = ev.contacts.impact;
  attempt({"contacts.impact.zeta_minus", "contacts.impact.tangential_minus", "contacts.impact.kinetic_minus"}, [&] {
    if (!ck) throw Decision("T has no enclosure");
    const VecX<Interval> vt = ck->Tt.transpose() * qd;
    emit("contacts.impact.zeta_minus", "evaluated", static_cast<size_t>(ck->zeta.size()), entries(ck->zeta));
    emit("contacts.impact.tangential_minus", "evaluated", static_cast<size_t>(vt.size()), entries(vt));
    if (!H) throw Decision("H has no enclosure");
    const VecX<Interval> Tm = VecX<Interval>::Constant(1, Interval(qd.dot(*H * qd)) / Interval(2));
    emit("contacts.impact.kinetic_minus", "evaluated", 1, entries(Tm));
  });
  const std::vector<std::string> step = {"contacts.impact.lambda",    "contacts.impact.u",
                                         "contacts.impact.dqd",       "contacts.impact.qd_plus",
                                         "contacts.impact.zeta_plus", "contacts.impact.tangential_plus",
                                         "contacts.impact.kinetic_plus"};
  attempt(step, [&] {
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
    emit("contacts.impact.u", "verified", static_cast<size_t>(n), entries(u));
    emit("contacts.impact.dqd", "verified", static_cast<size_t>(n), entries(dqd));
    emit("contacts.impact.qd_plus", "verified", static_cast<size_t>(n), entries(qd_plus));
    emit("contacts.impact.zeta_plus", "verified", static_cast<size_t>(zeta_plus.size()), entries(zeta_plus));
    emit("contacts.impact.tangential_plus", "verified", static_cast<size_t>(tangential_plus.size()), entries(tangential_plus));
    emit("contacts.impact.kinetic_plus", "verified", 1, entries(Tp));
    if (!frictional && !I.lambda_unique) {
      none({"contacts.impact.lambda"}, "the impulse λ is not unique at this state: the reported λ is one of the "
                                       "solutions; u = Tλ and the step, the same for all of them, are proven");
      return;
    }
    emit("contacts.impact.lambda", "verified", static_cast<size_t>(m), entries(lambda));
  });
}

bool exact_zero(const Interval& x) { return mpfr_zero_p(x.lo()) && mpfr_zero_p(x.hi()); }

// The loop section (RBDA ch. 8) of a closed-loop model: K, k, δ and K q̇ evaluated (table 8.1,
// eq. 8.34). The rest takes the point algorithm's rank decision (§8.8: rank r, the pivot rows P
// and the column order Q2, LoopSummary) and proves what follows from it:
//
//   q̈, λ, τ_c  the KKT system of eq. 8.36 restricted to the rows P,
//                  [H     -K_Pᵀ] [q̈ ]   [τ - C + τᵃ        ]
//                  [K_P    0   ] [λ_P] = [(k + k_stab)_P    ],
//              verified (verified_solve: ‖I - R A‖ < 1 proves K_P of full row rank on the whole
//              enclosure). When r = n^c that is the whole system and λ is unique. When r < n^c
//              the decision is proven only if every dropped row of K and of k + k_stab encloses
//              exactly 0 (a planar loop's out-of-plane rows, computed without rounding): then
//              rank K = r, the dropped constraints are 0 = 0, and the minimum-norm λ is λ_P with 0
//              on the dropped rows; otherwise nothing is claimed (the decision cannot be proven:
//              a rank drop is not robust to perturbation).
//   G, g       eq. 8.51 given the pivot sequence: K₁₁ X = K₁₂ and K₁₁ x = (k + k_stab)_P verified,
//              K₁₁ = K(P, dependent columns); G = Q2ᵀ[-X; 1], g = Q2ᵀ[x; 0]. A function of K and
//              the pivots whether or not the dropped rows are dependent (the evaluation's
//              independent_coordinates name the choice).
//   τᵃ         C - (C - τᵃ), evaluated.
//   u          §8.12 (eq. 8.63) G_uᵀ u = Gᵀ τ_ID, τ_ID = H q̈ + C - τᵃ at the state's q̈, when the
//              rank decision is proven (then range G = null K, and u does not depend on the
//              basis): properly actuated, G_uᵀ u = b verified; over-actuated, the minimum-norm
//              u = G_u y, (G_uᵀ G_u) y = b verified; under-actuated (a least-squares choice) not.
template <class Emit, class Attempt>
void enclose_loops(const Evaluation& ev, const StateDesc& state, const Model<Interval>& model, const VecX<Interval>& q,
                   const VecX<Interval>& qd, const VecX<Interval>& qdd_state, const VecX<Interval>& tau,
                   const MatX<Interval>* H, const VecX<Interval>* C, Emit& emit, Attempt& attempt) {
  const LoopSummary& L = ev.loops;
  std::optional<LoopConstraints<Interval>> lc;
  attempt({"loops.K", "loops.k", "loops.delta", "loops.velocity_error"}, [&] {
    lc.emplace(loop_constraints<Interval>(model, q, qd, LoopFrame::Local));
    emit("loops.K", "evaluated", static_cast<size_t>(lc->K.size()), entries(lc->K));
    emit("loops.k", "evaluated", static_cast<size_t>(lc->k.size()), entries(lc->k));
    emit("loops.delta", "evaluated", static_cast<size_t>(lc->delta.size()), entries(lc->delta));
    emit("loops.velocity_error", "evaluated", static_cast<size_t>(lc->vel_error.size()), entries(lc->vel_error));
  });
  const Eigen::Index n = model.nv, m = model.nc, r = L.rank;
  const bool pivots = static_cast<Eigen::Index>(L.pivot_rows.size()) == r && static_cast<Eigen::Index>(L.col_order.size()) == n;
  std::vector<Eigen::Index> kept(L.pivot_rows.begin(), L.pivot_rows.end());
  std::sort(kept.begin(), kept.end());
  VecX<Interval> rhs;
  // Why the rank decision is not proven ("" when it is: r = n^c, or every dropped row is exactly 0).
  std::string unproven_rank;
  if (lc) {
    rhs = lc->k + lc->k_stab;
    for (Eigen::Index i = 0; i < m && unproven_rank.empty(); ++i) {
      if (std::binary_search(kept.begin(), kept.end(), i)) continue;
      bool zero = exact_zero(rhs(i));
      for (Eigen::Index j = 0; j < n; ++j) zero = zero && exact_zero(lc->K(i, j));
      if (!zero)
        unproven_rank = "the constraints are redundant (rank K = " + std::to_string(r) + " < n^c = " + std::to_string(m) +
                        " by §8.8's rank decision) and row " + std::to_string(i) +
                        " of K or k + k_stab, which the decision drops, is not exactly 0 on intervals: the decision "
                        "cannot be proven, and q̈, τ_c and λ (the minimum-norm choice) depend on it";
    }
  }
  bool active = false;
  for (const std::vector<Num>& t : state.tau_loops) active = active || !t.empty();
  std::optional<VecX<Interval>> Cc;  // C - τᵃ
  attempt({"loops.qdd", "loops.lambda", "loops.tau_c", "loops.tau_a", "qdd"}, [&] {
    if (!lc || !H || !C) throw Decision("K, H or C has no enclosure");
    if (!pivots) throw Decision("the evaluation carries no pivot sequence (§8.8)");
    Cc = active ? bias_minus_active<Interval>(model, q, qd, to_vecs<Interval>(state.tau_loops)) : *C;
    if (active) {
      const VecX<Interval> tau_a = *C - *Cc;
      emit("loops.tau_a", "evaluated", static_cast<size_t>(n), entries(tau_a));
    }
    if (!unproven_rank.empty()) throw Decision(unproven_rank);
    const Quantity* xq = ev.find_loop("qdd");
    const Quantity* xl = ev.find_loop("lambda");
    if (!xq || !xl) throw Decision("the evaluation reports no loop solution");
    MatX<Interval> A = MatX<Interval>::Zero(n + r, n + r);
    VecX<Interval> b(n + r), x0(n + r);
    A.topLeftCorner(n, n) = *H;
    b.head(n) = tau - *Cc;
    for (Eigen::Index i = 0; i < n; ++i) x0(i) = from_decimal<Interval>(xq->text(static_cast<size_t>(i)));
    for (Eigen::Index a = 0; a < r; ++a) {
      const Eigen::Index i = kept[static_cast<size_t>(a)];
      A.block(n + a, 0, 1, n) = lc->K.row(i);
      A.block(0, n + a, n, 1) = -lc->K.row(i).transpose();
      b(n + a) = rhs(i);
      x0(n + a) = from_decimal<Interval>(xl->text(static_cast<size_t>(i)));
    }
    const VerifiedSolve v = verified_solve(A, b, x0);
    if (!v.ok) throw Undecided("the KKT system (eq. 8.36) of the pivot rows: " + v.why);
    const VecX<Interval> qdd = v.x.head(n);
    VecX<Interval> lambda = VecX<Interval>::Zero(m);
    for (Eigen::Index a = 0; a < r; ++a) lambda(kept[static_cast<size_t>(a)]) = v.x(n + a);
    const VecX<Interval> tau_c = lc->K.transpose() * lambda;
    emit("loops.qdd", "verified", static_cast<size_t>(n), entries(qdd));
    emit("qdd", "verified", static_cast<size_t>(n), entries(qdd));
    emit("loops.lambda", "verified", static_cast<size_t>(m), entries(lambda));
    emit("loops.tau_c", "verified", static_cast<size_t>(n), entries(tau_c));
  });
  std::optional<MatX<Interval>> G;
  attempt({"loops.G", "loops.g"}, [&] {
    if (!lc) throw Decision("K has no enclosure");
    if (!pivots) throw Decision("the evaluation carries no pivot sequence (§8.8)");
    const Quantity* pG = ev.find_loop("G");
    const Quantity* pg = ev.find_loop("g");
    const Eigen::Index f = n - r;
    MatX<Interval> K11(r, r), K12(r, f), X0(r, f);
    VecX<Interval> k1(r), x0(r);
    for (Eigen::Index a = 0; a < r; ++a) {
      const Eigen::Index i = L.pivot_rows[static_cast<size_t>(a)];
      for (Eigen::Index t = 0; t < n; ++t) {
        const Eigen::Index j = L.col_order[static_cast<size_t>(t)];
        if (t < r)
          K11(a, t) = lc->K(i, j);
        else
          K12(a, t - r) = lc->K(i, j);
      }
      k1(a) = rhs(i);
      const Eigen::Index c = L.col_order[static_cast<size_t>(a)];
      for (Eigen::Index t = 0; t < f; ++t)
        X0(a, t) = pG ? Interval(-from_decimal<Interval>(pG->text(static_cast<size_t>(c * f + t)))) : Interval(0);
      x0(a) = pg ? from_decimal<Interval>(pg->text(static_cast<size_t>(c))) : Interval(0);
    }
    G.emplace(MatX<Interval>::Zero(n, f));
    VecX<Interval> g = VecX<Interval>::Zero(n);
    if (r > 0) {
      for (Eigen::Index t = 0; t < f; ++t) {
        const VerifiedSolve v = verified_solve(K11, K12.col(t), X0.col(t));
        if (!v.ok) throw Undecided("K₁₁ X = K₁₂ (eq. 8.51) at the pivots: " + v.why);
        for (Eigen::Index a = 0; a < r; ++a) (*G)(L.col_order[static_cast<size_t>(a)], t) = -v.x(a);
      }
      const VerifiedSolve v = verified_solve(K11, k1, x0);
      if (!v.ok) throw Undecided("K₁₁ x = k₁ (eq. 8.51) at the pivots: " + v.why);
      for (Eigen::Index a = 0; a < r; ++a) g(L.col_order[static_cast<size_t>(a)]) = v.x(a);
    }
    for (Eigen::Index t = 0; t < f; ++t) (*G)(L.col_order[static_cast<size_t>(r + t)], t) = Interval(1);
    emit("loops.G", "verified", static_cast<size_t>(G->size()), entries(*G));
    emit("loops.g", "verified", static_cast<size_t>(n), entries(g));
  });
  if (!L.id.present) return;
  attempt({"loops.u"}, [&] {
    if (!G || !H || !Cc) throw Decision("G, H or C - τᵃ has no enclosure");
    if (!unproven_rank.empty()) throw Decision(unproven_rank + " (u needs range G = null K)");
    if (!L.id.producible || L.id.kind.rfind("under", 0) == 0)
      throw Decision("under-actuated (§8.12): u is the least-squares choice of eq. 8.63, a rank decision of its own");
    const Eigen::Index f = G->cols(), p = static_cast<Eigen::Index>(L.id.actuated_dofs.size());
    const Quantity* pu = ev.find_loop("u");
    const VecX<Interval> b = G->transpose() * VecX<Interval>(*H * qdd_state + *Cc);
    MatX<Interval> Gu(p, f);
    VecX<Interval> u0(p);
    for (Eigen::Index j = 0; j < p; ++j) {
      if (f > 0) Gu.row(j) = G->row(L.id.actuated_dofs[static_cast<size_t>(j)]);  // (no row views of an n x 0 G)
      u0(j) = pu ? from_decimal<Interval>(pu->text(static_cast<size_t>(j))) : Interval(0);
    }
    VecX<Interval> u = VecX<Interval>::Zero(p);  // mobility 0: no equations, u = 0 is the minimum norm
    if (f == 0) {
    } else if (p == f) {
      const VerifiedSolve v = verified_solve(Gu.transpose(), b, u0);
      if (!v.ok) throw Undecided("G_uᵀ u = Gᵀ τ_ID (eq. 8.63): " + v.why);
      u = v.x;
    } else {
      const VerifiedSolve v = verified_solve(Gu.transpose() * Gu, b, VecX<Interval>::Zero(f));
      if (!v.ok) throw Undecided("the minimum-norm u of eq. 8.63, (G_uᵀ G_u) y = Gᵀ τ_ID: " + v.why);
      u = Gu * v.x;
    }
    emit("loops.u", "verified", static_cast<size_t>(p), entries(u));
  });
}

// The enclosures of ev at the current interval precision. `prev`, the previous (narrower) attempt:
// the tree's quantities it settled are taken from it instead of computed again (a deep chain's H
// is proven long before its articulated factor is); the loop and contact sections, whose
// steps share their enclosures, are computed whole.
Enclosures enclose(const Evaluation& ev, const ModelDesc& desc, const StateDesc& state, const Enclosures* prev) {
  Enclosures out;
  // The proof of quantity `name` of ev (a loop quantity: "loops." + its name) from n entries, if
  // ev reports it.
  auto emit = [&](const std::string& name, const char* method, size_t n, const EntryAt& at) {
    const bool loop = name.rfind("loops.", 0) == 0, contact = name.rfind("contacts.", 0) == 0;
    const Quantity* q = loop ? ev.find_loop(name.substr(6)) : contact ? ev.find_contact(name.substr(9)) : ev.find(name);
    if (!q) return;
    out.log_width[name] = log10_relative_width(n, at, log10_scale(q->scale));
    out.proven[name] = proven_quantity(*q, n, at, ev.cap);
    out.proven[name].method = method;
  };
  auto none = [&out](const std::vector<std::string>& names, const std::string& why) {
    for (const std::string& n : names) out.why_not[n] = why;
  };
  std::optional<Model<Interval>> built;
  try {
    built.emplace(build_model<Interval>(desc));
  } catch (const Undecided& u) {
    std::vector<std::string> tree;
    for (const QuantityInfo* row : fixture_section(QuantitySection::kTree)) tree.push_back(row->fixture_key);
    none(tree, std::string("the model's construction: ") + u.what());
    return out;
  }
  const Model<Interval>& model = *built;
  const VecX<Interval> q = to_vec<Interval>(state.q), qd = to_vec<Interval>(state.qd), qdd = to_vec<Interval>(state.qdd),
                       tau = to_vec<Interval>(state.tau);
  const bool table63 = ltdl_updates(model.dof_parent) <= kFactorBudget;
  auto attempt = [&](const std::vector<std::string>& names, auto&& f) {
    try {
      f();
    } catch (const Decision& d) {
      none(names, d.what());
      out.decided.insert(names.begin(), names.end());
    } catch (const Undecided& u) {
      none(names, u.what());
      out.undecided = true;
    }
  };
  auto settled = [prev](const std::vector<std::string>& names) {
    if (!prev) return false;
    for (const std::string& n : names)
      if (!prev->settled.count(n)) return false;
    return true;
  };
  // A tree group: taken from prev when it settled them, else attempted.
  auto attempt_or_reuse = [&](const std::vector<std::string>& names, auto&& f) {
    if (!settled(names)) return attempt(names, f);
    for (const std::string& n : names) {
      if (auto it = prev->proven.find(n); it != prev->proven.end()) out.proven[n] = it->second;
      if (auto it = prev->log_width.find(n); it != prev->log_width.end()) out.log_width[n] = it->second;
      if (auto it = prev->why_not.find(n); it != prev->why_not.end()) out.why_not[n] = it->second;
      if (prev->decided.count(n)) out.decided.insert(n);
    }
  };
  const bool sections = !model.contacts.empty() || model.nc > 0;
  // ABA's acceleration of the tree: "qdd" on a tree, "qdd_open_tree" on a closed-loop model.
  const std::string aba_name = model.nc > 0 ? "qdd_open_tree" : "qdd";
  const std::vector<std::string> factor = {"L", "D", aba_name};
  std::optional<MatX<Interval>> H;
  const auto crba_H = [&] {
    H = table63 ? crba<Interval>(model, q) : crba_base<Interval>(model, q);
    emit("H", "evaluated", static_cast<size_t>(H->size()), entries(*H));
  };
  if (sections || (table63 && !settled(factor)))
    attempt({"H"}, crba_H);  // the sections and table 6.3 need H itself
  else
    attempt_or_reuse({"H"}, crba_H);
  std::optional<VecX<Interval>> C;
  const auto bias_C = [&] {
    C = bias<Interval>(model, q, qd);
    emit("C", "evaluated", static_cast<size_t>(C->size()), entries(*C));
  };
  if (sections)
    attempt({"C"}, bias_C);
  else
    attempt_or_reuse({"C"}, bias_C);
  attempt_or_reuse({"tau"}, [&] {
    const VecX<Interval> t = rnea<Interval>(model, q, qd, qdd);
    emit("tau", "evaluated", static_cast<size_t>(t.size()), entries(t));
  });
  if (!model.contacts.empty() && model.nc == 0)
  {
    std::optional<ContactKinematics<Interval>> ck;
    enclose_contacts(ev, state, model, q, qd, tau, H ? &*H : nullptr, C ? &*C : nullptr, ck, emit, attempt, none);
    if (ev.contacts.impact.present)
      enclose_impact(ev, model, qd, ck ? &*ck : nullptr, H ? &*H : nullptr, emit, attempt, none);
  }
  if (model.nc > 0)
    enclose_loops(ev, state, model, q, qd, qdd, tau, H ? &*H : nullptr, C ? &*C : nullptr, emit, attempt);
  attempt_or_reuse(factor, [&] {
    if (table63 && !H) throw Decision("H has no enclosure");
    // The articulated factor's L and D lose ~0.9 digits per body to the wrapping on chains
    // (docs/benchmarks.md): where it cannot succeed, go to that at once rather than by the guard
    // digits, attempt after attempt (a shortfall left is then measured, and met by the next).
    const int articulated_digits = ev.cap + 12 + tree_depth(desc);
    if (!table63 && static_cast<int>(ScopedIntervalDigits::digits10()) < articulated_digits - articulated_digits / 8) {
      // far below what the wrapping needs: the factor would fail, after costing as much as H
      out.wanted_digits = articulated_digits;
      throw Undecided("the articulated factor of a tree this deep needs about " + std::to_string(articulated_digits) +
                      " interval digits (its wrapping, ~0.9 digits per body)");
    }
    std::optional<SparseFactor<Interval>> factored;
    try {
      factored.emplace(table63 ? ltdl<Interval>(*H, model.dof_parent) : ltdl_articulated<Interval>(model, q));
    } catch (const Undecided&) {
      if (!table63) out.wanted_digits = articulated_digits;
      throw;
    }
    SparseFactor<Interval>& f = *factored;
    H.reset();
    if (!f.ok) {
      if (!table63) out.wanted_digits = articulated_digits;
      throw Undecided("the pivot D of DoF " + std::to_string(f.failed_at) + " is not proven positive");
    }
    const size_t n = static_cast<size_t>(f.LD.rows());
    emit("L", "evaluated", n * n, entries_L(f));
    const VecX<Interval> D = f.D();
    emit("D", "evaluated", n, entries(D));
    if (const Quantity* x = ev.find(aba_name)) {
      VecX<Interval> xt(x->size());
      for (size_t k = 0; k < x->size(); ++k) xt(static_cast<Eigen::Index>(k)) = midpoint(from_decimal<Interval>(x->text(k)));
      const VecX<Interval> e = verified_qdd(model, f, q, qd, tau, xt, log10_scale(x->scale), ev.cap + 4);
      emit(aba_name, "verified", static_cast<size_t>(e.size()), entries(e));
    }
  });
  H.reset();
  attempt_or_reuse({"kinetic_energy", "potential_energy", "momentum"}, [&] {
    const Energy<Interval> e = energy<Interval>(model, q, qd);
    const VecX<Interval> T(VecX<Interval>::Constant(1, e.kinetic)), V(VecX<Interval>::Constant(1, e.potential));
    const VecX<Interval> h(e.momentum.c);
    emit("kinetic_energy", "evaluated", 1, entries(T));
    emit("potential_energy", "evaluated", 1, entries(V));
    emit("momentum", "evaluated", 6, entries(h));
  });
  return out;
}

// max over entries of log10(width / scale), scale = max(max|value|, the quantity's natural scale
// `lscale`, as log10): how far the enclosures are from the points. A quantity with no natural
// scale whose every enclosure reaches 0 (exact zeros, computed through cancellation: a planar
// loop's out-of-plane k) has no relative width to reach: -inf, no reason to widen.
double log10_relative_width(size_t n, const EntryAt& at, double lscale) {
  double lw = kMinusInf, lv = kMinusInf;
  Fr w(64);
  for (size_t k = 0; k < n; ++k) {
    const Interval& x = at(k);
    if (!x.bounded()) return std::numeric_limits<double>::infinity();
    mpfr_sub(w.v, x.hi(), x.lo(), MPFR_RNDU);
    lw = std::max(lw, log10_abs(w.v, true));
    lv = std::max({lv, log10_abs(x.lo(), false), log10_abs(x.hi(), false)});
  }
  if (lw == kMinusInf) return kMinusInf;
  lv = std::max(lv, lscale);
  if (lscale == kMinusInf && lv <= lw) return kMinusInf;
  return lw - lv;
}

// log10 of a quantity's natural scale (Quantity::scale, decimal text), -inf when it has none.
double log10_scale(const std::string& scale) {
  if (scale.empty() || !is_decimal(scale)) return kMinusInf;
  Fr s(64);
  mpfr_set_str(s.v, scale.c_str(), 10, MPFR_RNDZ);
  return log10_abs(s.v, false);
}

// The first attempt's interval digits: the working digits + 12 + depth/4 (τ's wrapping, ~0.2 digits
// per body, the widest of the tree's evaluated quantities). Beyond table 6.3's budget, where the
// articulated factor forces a second attempt anyway (~0.9 digits per body), the first serves H
// alone: depth · 0.15 (H's wrapping, ~0.13); C and τ, O(n), follow in the second.
int start_digits(const Evaluation& ev, const ModelDesc& desc, bool articulated) {
  const int depth = tree_depth(desc);
  return ev.cap + 12 + (articulated ? (3 * depth + 19) / 20 : (depth + 3) / 4);
}

}  // namespace

ProvenQuantity proven_quantity(const Quantity& q, const std::vector<Interval>& enclosure, int cap) {
  return proven_quantity(q, enclosure.size(), [&enclosure](size_t k) -> const Interval& { return enclosure[k]; }, cap);
}

ProvenQuantity proven_quantity(const Quantity& q, size_t count, const std::function<const Interval&(size_t)>& at, int cap) {
  ProvenQuantity p;
  p.name = q.name;
  p.rows = q.rows;
  p.cols = q.cols;
  const size_t n = q.size();
  if (count != n) {
    p.not_proven = "the enclosure has " + std::to_string(count) + " entries, the quantity " + std::to_string(n);
    return p;
  }
  // The bounds below are each one MPFR operation, correctly rounded in the safe direction, so 64
  // bits keep them rigorous (a radius is reported to 3 digits).
  const mpfr_prec_t bits = std::max<mpfr_prec_t>(64, ScopedIntervalDigits::bits());
  Fr r(64), t(64), big(64), rmax(64), vmax(64);
  mpfr_set_zero(rmax.v, 1);
  mpfr_set_zero(vmax.v, 1);
  std::vector<double> lrad(n), lval(n);
  p.radius.resize(n);
  for (size_t k = 0; k < n; ++k) {
    const Interval& e = at(k);
    if (!e.bounded() || isnan(e)) {
      p.not_proven = "entry " + std::to_string(k) + " has no bounded enclosure";
      p.radius.clear();
      return p;
    }
    // The reported decimal, enclosed: exact when it is a binary number of few bits (0, 1, 0.5),
    // else 40 digits narrower than the text's own last digit, far below any radius it can have.
    Interval v;
    {
      const std::string& text = q.text(k);
      ScopedIntervalDigits wide(static_cast<unsigned>(std::min<double>(bits * 0.30103 + 10, static_cast<double>(text.size()) + 40)));
      v = from_decimal<Interval>(text);
    }
    // radius = max(hi(e) - lo(v), hi(v) - lo(e)), rounded up: |true - value| for every pair.
    mpfr_sub(r.v, e.hi(), v.lo(), MPFR_RNDU);
    mpfr_sub(t.v, v.hi(), e.lo(), MPFR_RNDU);
    mpfr_max(r.v, r.v, t.v, MPFR_RNDU);
    if (mpfr_sgn(r.v) < 0) mpfr_set_zero(r.v, 1);
    p.radius[k] = up_text(r.v);
    lrad[k] = log10_abs(r.v, true);
    // |true| >= |value| - radius (lower bound, rounded down)
    mpfr_abs(t.v, v.lo(), MPFR_RNDD);
    mpfr_abs(big.v, v.hi(), MPFR_RNDD);
    mpfr_min(t.v, t.v, big.v, MPFR_RNDD);
    if (v.contains_zero()) mpfr_set_zero(t.v, 1);
    mpfr_max(vmax.v, vmax.v, t.v, MPFR_RNDD);
    mpfr_sub(t.v, t.v, r.v, MPFR_RNDD);
    lval[k] = mpfr_sgn(t.v) > 0 ? log10_abs(t.v, false) : kMinusInf;
    mpfr_max(rmax.v, rmax.v, r.v, MPFR_RNDU);
  }
  // The quantity's scale: max |true| >= max |value| - max radius, or its natural scale.
  mpfr_sub(vmax.v, vmax.v, rmax.v, MPFR_RNDD);
  double lscale = mpfr_sgn(vmax.v) > 0 ? log10_abs(vmax.v, false) : kMinusInf;
  if (!q.scale.empty() && is_decimal(q.scale)) {
    Fr s(bits);
    mpfr_set_str(s.v, q.scale.c_str(), 10, MPFR_RNDZ);
    if (!mpfr_zero_p(s.v)) lscale = std::max(lscale, log10_abs(s.v, false));
  }
  auto clamp = [cap](double d) { return static_cast<int>(std::max(0.0, std::min<double>(std::floor(d), cap))); };
  const double worst = log10_abs(rmax.v, true);
  p.digits = worst == kMinusInf ? cap : lscale > kMinusInf ? clamp(lscale - worst) : 0;
  p.entry_digits.assign(n, 0);
  const double lfloor = lscale - cap;
  for (size_t k = 0; k < n; ++k) {
    if (lrad[k] == kMinusInf) {
      p.entry_digits[k] = cap;
      continue;
    }
    const double lden = std::max(lval[k], lfloor);
    if (lden > kMinusInf) p.entry_digits[k] = clamp(lden - lrad[k]);
  }
  return p;
}

void apply_proven_digits(Evaluation& ev, const Proof& proof) {
  auto apply = [](std::vector<Quantity>& qs, const std::vector<ProvenQuantity>& ps) {
    for (const ProvenQuantity& p : ps)
      if (p.not_proven.empty())
        for (Quantity& q : qs)
          if (q.name == p.name) q.proven_digits = p.digits;
  };
  apply(ev.quantities, proof.quantities);
  apply(ev.loop_quantities, proof.loop_quantities);
  apply(ev.contact_quantities, proof.contact_quantities);
}

Proof prove(const Evaluation& ev, const ModelDesc& desc, const StateDesc& state) {
  // MPFR keeps constants (π, log 2) and sine tables in caches local to each thread, which a thread
  // that ends (fixture --prove's workers) would leave behind: freed when the proof returns.
  struct FreeThreadCaches {
    ~FreeThreadCaches() { mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE); }
  } free_caches;
  const auto t0 = std::chrono::steady_clock::now();
  Proof proof;
  proof.present = true;
  int digits = start_digits(ev, desc, ltdl_updates(model_layout(desc).dof_parent) > kFactorBudget);
  Enclosures enc;
  std::optional<Enclosures> prev;
  for (;;) {
    ++proof.attempts;
    {
      ScopedIntervalDigits g(static_cast<unsigned>(digits));
      enc = enclose(ev, desc, state, prev ? &*prev : nullptr);
    }
    proof.interval_digits = digits;
    // Every enclosure 100 times narrower than a unit of the working precision, or widen.
    double shortfall = 0;
    for (const auto& [name, w] : enc.log_width) {
      shortfall = std::max(shortfall, w + ev.cap + 2);
      if (w + ev.cap + 2 <= 0) enc.settled.insert(name);
    }
    enc.settled.insert(enc.decided.begin(), enc.decided.end());
    // An undecided branch widens too: by the guard digits again (the wrapping grows with the
    // depth, and the interval ABA's more than CRBA's or RNEA's), or to the digits it is expected
    // to need.
    if (enc.undecided)
      shortfall = std::max({shortfall, static_cast<double>(digits - ev.cap), static_cast<double>(enc.wanted_digits - digits - 10)});
    if (shortfall <= 0 || proof.attempts >= 4 || digits >= kMaxIntervalDigits) break;
    digits = std::min(kMaxIntervalDigits, digits + static_cast<int>(std::ceil(std::min(shortfall, 1e6))) + 10);
    prev = std::move(enc);
  }
  for (const Quantity& q : ev.quantities) {
    auto it = enc.proven.find(q.name);
    if (it != enc.proven.end()) {
      proof.quantities.push_back(std::move(it->second));
    } else {
      ProvenQuantity p;
      p.name = q.name;
      p.rows = q.rows;
      p.cols = q.cols;
      auto why = enc.why_not.find(q.name);
      p.not_proven = why != enc.why_not.end() ? why->second : "no enclosure of this quantity yet";
      proof.quantities.push_back(std::move(p));
    }
  }
  // A section's quantities (prefix "loops." or "contacts." in the enclosures' names): the proof of
  // each, or why there is none.
  auto section = [&enc](const std::vector<Quantity>& qs, const std::string& prefix, std::vector<ProvenQuantity>& out) {
    for (const Quantity& q : qs) {
      auto it = enc.proven.find(prefix + q.name);
      if (it != enc.proven.end()) {
        out.push_back(std::move(it->second));
        out.back().name = q.name;
        continue;
      }
      ProvenQuantity p;
      p.name = q.name;
      p.rows = q.rows;
      p.cols = q.cols;
      auto why = enc.why_not.find(prefix + q.name);
      p.not_proven = why != enc.why_not.end() ? why->second : "no enclosure of this quantity yet";
      out.push_back(std::move(p));
    }
  };
  section(ev.loop_quantities, "loops.", proof.loop_quantities);
  section(ev.contact_quantities, "contacts.", proof.contact_quantities);
  proof.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return proof;
}

}  // namespace rbd
