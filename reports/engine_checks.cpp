// The reference-free checks of an engine's own numbers (reports/compare.hpp,
// check_engine_output). Residuals are computed in an extended precision T (bin50, or MPFR wider
// than the engine), so that they measure the engine's values, not the checker's rounding; the
// tolerances are k ε(engine), since the question is whether the engine's values are consistent to
// the engine's precision.
#include "checks/contact_checks.hpp"
#include "checks/properties.hpp"
#include "certify/precision.hpp"
#include "io/quantities.hpp"
#include "io/state_io.hpp"
#include "reference/tree/build_model.hpp"
#include "reference/contact/dynamics.hpp"
#include "reference/contact/impulse.hpp"
#include "reference/tree/crba.hpp"
#include "reference/loops/constraints.hpp"
#include "reference/loops/gauss.hpp"
#include "reference/tree/rnea.hpp"
#include "reports/compare.hpp"

#include <cmath>
#include <functional>
#include <cstdio>
#include <limits>

namespace rbd {

namespace {

// max_k |x_k| of a matrix or vector (0 when empty).
template <class T>
T max_abs(const MatX<T>& x) {
  return x.size() == 0 ? T(0) : T(x.cwiseAbs().maxCoeff());
}

template <class T>
MatX<T> to_mat(const NumMatrix& m) {
  MatX<T> A(m.rows, m.cols);
  for (int i = 0; i < m.rows; ++i)
    for (int j = 0; j < m.cols; ++j) A(i, j) = m.v[i * m.cols + j].template as<T>();
  return A;
}

// The engine's raw H (sample.raw.H) when it is a square array of rows of numbers (JSON numbers or
// decimal strings); false when absent or of another form (then the converted H is used).
template <class T>
bool raw_H(const json& raw, size_t nv, MatX<T>& H, std::string& why_not) {
  if (!raw.is_object() || !raw.contains("H")) {
    why_not = "the output keeps no raw.H";
    return false;
  }
  const json& j = raw["H"];
  const size_t n = j.is_array() ? j.size() : 0;
  if (n == 0) {
    why_not = "raw.H is not an array of rows";
    return false;
  }
  if (n != nv) {  // a raw H of another size says nothing about this model's H
    why_not = "raw.H has " + std::to_string(n) + " rows, the model has " + std::to_string(nv) + " DoFs: not used";
    return false;
  }
  H.resize(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(n));
  for (size_t i = 0; i < n; ++i) {
    if (!j[i].is_array() || j[i].size() != n) {
      why_not = "raw.H is not a square array of rows";
      return false;
    }
    for (size_t k = 0; k < n; ++k) {
      try {
        H(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k)) = json_num(j[i][k], "", "").as<T>();
      } catch (const InputError&) {
        why_not = "raw.H holds an entry that is not a finite number";
        return false;
      }
    }
  }
  return true;
}

// Re-judges a residual computed in T against the engine's tolerance.
CheckResult retolerate(CheckResult r, std::string name, double tol, std::string detail) {
  r.name = std::move(name);
  r.tolerance = tol;
  r.passed = r.residual <= tol;  // a NaN residual never passes
  r.detail = std::move(detail);
  return r;
}

// The loop checks of one sample (a closed-loop model, RBDA ch. 8): the engine's constrained q̈ and
// constraint forces τ_c against K, k, G, H, C computed by rbdref in T at the sample's inputs.
template <class T>
void loop_checks(const Model<T>& m, const EngineSample& s, const NumMatrix* qddn, const NumMatrix* taucn, double eps,
                 const std::function<void(CheckResult)>& add) {
  const VecX<T> q = to_vec<T>(s.q), qd = to_vec<T>(s.qd), tau = to_vec<T>(s.tau);
  const LoopConstraints<T> lc = loop_constraints<T>(m, q, qd);
  const NullSpaceSolution<T> ns = null_space_solution<T>(lc.K, lc.k);
  const MatX<T> H = crba<T>(m, q);
  const VecX<T> C = bias<T>(m, q, qd);
  const T mK = max_abs(lc.K), mk = max_abs(MatX<T>(lc.k)), mG = max_abs(ns.G), mH = max_abs(H), mC = max_abs(MatX<T>(C)),
          mt = max_abs(MatX<T>(tau));
  auto ratio = [](const T& num, const T& den) { return num == T(0) ? T(0) : num / den; };
  if (qddn) {
    const VecX<T> qdd = to_vec<T>(qddn->v);
    const T mq = max_abs(MatX<T>(qdd));
    add(make_check("loops.K_qdd_equals_k", ratio(max_abs(MatX<T>(lc.K * qdd - lc.k)), T(mK * mq + mk)), 1e3 * eps,
                   "max|K q̈_engine - k| / (max|K| max|q̈| + max|k|): the engine's acceleration closes the loops "
                   "(K, k of RBDA eqs. 8.9-8.16 at the input state); tolerance 1e3 ε"));
    if (ns.G.cols() > 0) {
      const VecX<T> r = ns.G.transpose() * (H * qdd + C - tau);
      add(make_check("loops.equation_of_motion_projected", ratio(max_abs(MatX<T>(r)), T(mG * (mH * mq + mC + mt))), 1e3 * eps,
                     "max|Gᵀ(H q̈_engine + C - τ)| / (max|G| (max|H| max|q̈| + max|C| + max|τ|)): the equation of motion "
                     "along the mechanism's free motions (§8.8: τ_c does no work on them); tolerance 1e3 ε"));
    }
    if (taucn) {
      const VecX<T> tc = to_vec<T>(taucn->v);
      add(make_check("loops.equation_of_motion", ratio(max_abs(MatX<T>(H * qdd + C - tau - tc)), T(mH * mq + mC + mt + max_abs(MatX<T>(tc)))),
                     1e3 * eps, "max|H q̈_engine + C - τ - τ_c,engine| / (max|H| max|q̈| + max|C| + max|τ| + max|τ_c|); tolerance 1e3 ε"));
    }
  }
  if (taucn && ns.G.cols() > 0) {
    const VecX<T> tc = to_vec<T>(taucn->v);
    add(make_check("loops.constraint_forces_do_no_work", ratio(max_abs(MatX<T>(ns.G.transpose() * tc)), T(mG * max_abs(MatX<T>(tc)))),
                   1e3 * eps, "max|Gᵀ τ_c,engine| / (max|G| max|τ_c|): constraint forces do no work on the free motions "
                   "(eq. 8.35, Gᵀτ_c = 0); tolerance 1e3 ε"));
  }
}

// What the contact checks of one sample share: rbdref's own terms in T at the sample's inputs.
// rc: the forward problem as the reference states it, the LCP over the contacts in case 3 of §11.4
// (dynamics.hpp): a separated or separating contact has no complementarity condition, and with a
// colliding one no acceleration-level problem is posed (those two checks are then not made).
// τ_c = Tλ and the impulses act on every rigid contact (`rigid`, TR, Tdot), whose columns come
// from the same contact kinematics. κ(H) scales the tolerances of what came out of the engine's
// solves.
template <class T>
struct ContactTerms {
  const Model<T>& m;
  VecX<T> q, qd, tau;
  ContactDynamics<T> rc;
  std::vector<int> rigid;
  int nr = 0, nl = 0;
  MatX<T> TR, H;
  VecX<T> Tdot, Tdot_l, C, tau_soft;
  double kappa = 1;
  std::string kappa_text;

  ContactTerms(const Model<T>& model, const EngineSample& s)
      : m(model), q(to_vec<T>(s.q)), qd(to_vec<T>(s.qd)), tau(to_vec<T>(s.tau)),
        rc(contact_dynamics<T>(model, q, qd, tau, {}, VecX<T>(), VecX<T>(), ContactSet::Current)) {
    for (int i = 0; i < static_cast<int>(m.contacts.size()); ++i)
      if (!m.contacts[i].has_soft) rigid.push_back(i);
    nr = static_cast<int>(rigid.size());
    nl = static_cast<int>(rc.rigid.size());
    TR.resize(m.nv, nr);
    Tdot.resize(nr);
    for (int a = 0; a < nr; ++a) {
      TR.col(a) = rc.ck.Tn.col(rigid[a]);
      Tdot(a) = rc.ck.Tdot_qd(rigid[a]);
    }
    Tdot_l.resize(nl);
    for (int a = 0; a < nl; ++a) Tdot_l(a) = rc.ck.Tdot_qd(rc.rigid[a]);
    H = crba<T>(m, q);
    C = bias<T>(m, q, qd);
    const double kH = static_cast<double>(condition_number<T>(H));
    kappa = std::isfinite(kH) ? kH : 1.0;
    kappa_text = std::isfinite(kH) ? "κ(H) = " + format_number("%.4g", kH) : "κ(H) infinite: 1e3 ε";
    tau_soft = rc.soft.tau_soft.size() == m.nv ? rc.soft.tau_soft : VecX<T>(VecX<T>::Zero(m.nv));
  }
  // The engine's λ (one per rigid contact) at the LCP's contacts.
  VecX<T> lcp_part(const VecX<T>& lam_all) const {
    VecX<T> out(nl);
    for (int a = 0; a < nl; ++a)
      out(a) = lam_all(static_cast<Eigen::Index>(std::find(rigid.begin(), rigid.end(), rc.rigid[a]) - rigid.begin()));
    return out;
  }
};

template <class T>
T ratio(const T& num, const T& den) {
  return num == T(0) ? T(0) : num / den;
}

// The forward problem's checks (RBDA §11.4-11.6, eqs. 11.32-11.42) on the engine's contact forces
// λ (lamn), q̈ (qddn) and τ_c (tcn), each given or null.
template <class T>
void forward_contact_checks(const ContactTerms<T>& t, const NumMatrix* lamn, const NumMatrix* qddn, const NumMatrix* tcn, double eps,
                            const std::function<void(CheckResult)>& add) {
  const ContactDynamics<T>& rc = t.rc;
  const int nr = t.nr, nl = t.nl;
  const MatX<T>& TR = t.TR;
  const MatX<T>& H = t.H;
  const VecX<T>& C = t.C;
  const VecX<T>& tau = t.tau;
  const VecX<T>& tau_soft = t.tau_soft;
  const VecX<T>& Tdot = t.Tdot;
  const VecX<T>& Tdot_l = t.Tdot_l;
  const double kappa = t.kappa;
  const std::string& kappa_text = t.kappa_text;
  auto lcp_part = [&t](const VecX<T>& l) { return t.lcp_part(l); };
  // contacts.complementarity on the engine's λ: ζ̇ = Mλ + d (eqs. 11.34-11.42) with M, d exact.
  if (lamn && rc.ok && rc.posed && static_cast<int>(lamn->v.size()) == nr) {
    const VecX<T> lam = lcp_part(to_vec<T>(lamn->v));
    const std::vector<CheckResult> lc = check_lcp_solution<T>(rc.M, rc.d, lam, VecX<T>(rc.M * lam + rc.d), 1);
    add(retolerate(lc.front(), "contacts.complementarity", 1e3 * eps * kappa,
                   "on the engine's λ at the contacts in case 3 of §11.4 with ζ̇ = Mλ + d (M, d of eqs. 11.35-11.36 at the input state): max(-min λ / max|λ|, "
                   "-min ζ̇ / s, max|λ_i ζ̇_i| / (max|λ| s)), s = max|M| max|λ| + max|d|; tolerance 1e3 ε κ(H), " + kappa_text));
  }
  // contacts.acceleration_complementarity: the engine's q̈ keeps every contact from accelerating
  // into its surface, ζ̇ = Tᵀq̈ + Ṫᵀq̇ ≥ 0 (eq. 11.32), and with its λ, λ_i ζ̇_i = 0.
  if (qddn) {
    const VecX<T> qdd = to_vec<T>(qddn->v);
    const VecX<T> w = rc.T_rigid.transpose() * qdd + Tdot_l;
    // The acceleration scale includes q̈_free = H⁻¹(τ - C): where the contacts lock the system, q̈
    // is 0 in exact arithmetic and the engine's is rounding, to be judged against the motion stopped.
    T qscale = max_abs(MatX<T>(qdd));
    if (rc.ok) qscale = std::max(qscale, T(max_abs(MatX<T>(rc.qdd_free))));
    const T sw = max_abs(TR) * qscale + max_abs(MatX<T>(Tdot));
    T res = nl ? T(std::max(T(0), T(-w.minCoeff()))) : T(0);
    if (lamn && nl && static_cast<int>(lamn->v.size()) == nr) {
      const VecX<T> lam = lcp_part(to_vec<T>(lamn->v));
      const T sl = max_abs(MatX<T>(lam)) > T(0) ? max_abs(MatX<T>(lam)) : T(1);
      res = std::max(T(ratio<T>(res, sw)), T(lam.cwiseProduct(w).cwiseAbs().maxCoeff() / (sl * (sw > T(0) ? sw : T(1)))));
    } else {
      res = ratio<T>(res, sw);
    }
    if (rc.posed)
      add(make_check("contacts.acceleration_complementarity", res, 1e3 * eps * kappa,
                   "ζ̇ = Tᵀq̈_engine + Ṫᵀq̇ at the contacts in case 3 of §11.4 (eq. 11.32): max(-min ζ̇, max|λ_i ζ̇_i| / max|λ| when λ is given) / (max|T| max(|q̈|, "
                   "|q̈_free|) + max|Ṫᵀq̇|), q̈_free = H⁻¹(τ - C); tolerance 1e3 ε κ(H), " + kappa_text));
    // contacts.equation_of_motion: H q̈ + C = τ + τ_soft + τ_c (eq. 11.41), τ_c the engine's (or Tλ).
    if (tcn || lamn) {
      const VecX<T> tc = tcn ? to_vec<T>(tcn->v) : VecX<T>(TR * to_vec<T>(lamn->v));
      // (τ_c = Tλ from λ: its size is max|T| max|λ|, as for the momentum balance below)
      const T stc = tcn ? max_abs(MatX<T>(tc)) : T(max_abs(TR) * max_abs(MatX<T>(to_vec<T>(lamn->v))));
      const T den = max_abs(H) * max_abs(MatX<T>(qdd)) + max_abs(MatX<T>(C)) + max_abs(MatX<T>(tau)) + stc +
                    max_abs(MatX<T>(tau_soft));
      add(make_check("contacts.equation_of_motion", ratio<T>(max_abs(MatX<T>(H * qdd + C - tau - tau_soft - tc)), den),
                     1e3 * eps * kappa,
                     std::string("max|H q̈_engine + C - τ - τ_soft - τ_c| / (the terms' sizes), τ_c = ") +
                         (tcn ? "the engine's contact_tau_c" : "T λ_engine") + " (eq. 11.41); tolerance 1e3 ε κ(H), " + kappa_text));
    }
  }
  // contacts.tau_c_is_T_lambda: the engine's generalized contact force is Tλ (eq. 11.39).
  if (tcn && lamn) {
    const VecX<T> tc = to_vec<T>(tcn->v), lam = to_vec<T>(lamn->v);
    add(make_check("contacts.tau_c_is_T_lambda",
                   ratio<T>(max_abs(MatX<T>(tc - TR * lam)), T(max_abs(TR) * max_abs(MatX<T>(lam)) + max_abs(MatX<T>(tc)))), 1e3 * eps,
                   "max|τ_c - Tλ| / (max|T| max|λ| + max|τ_c|), T of eq. 11.31 at the input state; tolerance 1e3 ε"));
  }
}

// The impulsive step's checks (RBDA §11.7) on the engine's q̇⁺ (qdpn) and impulses (implamn, or null).
template <class T>
void impact_checks(const ContactTerms<T>& t, const NumMatrix* qdpn, const NumMatrix* implamn, double eps,
                   const std::function<void(CheckResult)>& add) {
  using std::abs;
  const Model<T>& m = t.m;
  const int nr = t.nr;
  const std::vector<int>& rigid = t.rigid;
  const MatX<T>& TR = t.TR;
  const MatX<T>& H = t.H;
  const VecX<T>& q = t.q;
  const VecX<T>& qd = t.qd;
  const double kappa = t.kappa;
  const std::string& kappa_text = t.kappa_text;
  // The impulsive step (§11.7): ζ⁺ = Tᵀq̇⁺, w = ζ⁺ + e min(ζ⁻, 0) ≥ 0, λ ≥ 0, λᵀw = 0 (Newton
  // restitution where a contact collides, ζ⁺ ≥ 0 where it separates; frictionless; impulse.hpp),
  // H(q̇⁺ - q̇) = u (eq. 11.57), kinetic energy.
  {
    const VecX<T> qdp = to_vec<T>(qdpn->v);
    const VecX<T> zp = TR.transpose() * qdp, zm = TR.transpose() * qd;
    VecX<T> w(nr);
    bool frictional = false, all_elastic = true;
    for (int a = 0; a < nr; ++a) {
      const Contact<T>& c = m.contacts[rigid[a]];
      w(a) = zp(a) + (zm(a) < T(0) ? T(c.e * zm(a)) : T(0));
      frictional = frictional || c.has_friction;
      all_elastic = all_elastic && c.e == T(1);
    }
    const T sz = max_abs(TR) * std::max(max_abs(MatX<T>(qdp)), max_abs(MatX<T>(qd)));
    T res = nr ? ratio<T>(T(std::max(T(0), T(-w.minCoeff()))), sz) : T(0);
    std::string what = "max(-min(ζ⁺ + e min(ζ⁻, 0))";
    if (implamn && !frictional && nr) {
      const VecX<T> lam = to_vec<T>(implamn->v);
      const T sl = max_abs(MatX<T>(lam)) > T(0) ? max_abs(MatX<T>(lam)) : T(1);
      res = std::max(res, T(-lam.minCoeff() / sl));
      res = std::max(res, T(lam.cwiseProduct(w).cwiseAbs().maxCoeff() / (sl * (sz > T(0) ? sz : T(1)))));
      what += ", -min λ / max|λ|, max|λ_i w_i| / max|λ|";
    }
    add(make_check("impact.complementarity", res, 1e3 * eps * kappa,
                   what + ") / (max|T| max(|q̇⁺|, |q̇⁻|)), w = Tᵀq̇⁺_engine + e min(Tᵀq̇⁻, 0) (Newton restitution where "
                   "colliding, eq. 11.64, ζ⁺ ≥ 0 where separating, §11.7; "
                   "with friction the normal rows); tolerance 1e3 ε κ(H), " + kappa_text));
    if (implamn && !frictional) {
      // Scaled by max|T| max|λ|, not max|Tλ|: with nearly dependent normals λ is large and Tλ a
      // cancellation, which a λ rounded to the engine's precision cannot reproduce better.
      const VecX<T> lam = to_vec<T>(implamn->v);
      // The velocity scale is max(|q̇⁻|, |q̇⁺|), not |Δq̇|: q̇⁺ is known to ε |q̇⁺| only, so a small (or
      // zero) Δq̇ cannot be checked to more than that.
      const VecX<T> u = TR * lam, du = H * VecX<T>(qdp - qd);
      const T vscale = std::max(max_abs(MatX<T>(qdp)), max_abs(MatX<T>(qd)));
      add(make_check("impact.momentum_balance",
                     ratio<T>(max_abs(MatX<T>(du - u)), T(max_abs(H) * vscale + max_abs(TR) * max_abs(MatX<T>(lam)))),
                     1e3 * eps * kappa,
                     "max|H (q̇⁺_engine - q̇) - T λ_engine| / (max|H| max(|q̇⁻|, |q̇⁺|) + max|T| max|λ|) (eq. 11.57); "
                     "tolerance 1e3 ε κ(H), " + kappa_text));
    }
    const T Tm = T(qd.dot(H * qd)) / T(2), Tp = T(qdp.dot(H * qdp)) / T(2);
    // The energy statements hold when no separating contact takes an impulse (impulse.hpp), which
    // the reference's impulses decide.
    bool separating_stopped = false;
    if (!frictional && nr) {
      const ContactImpact<T> ref = contact_impact<T>(m, q, qd);
      for (int a = 0; ref.ok && a < nr; ++a)
        separating_stopped = separating_stopped || (ref.lambda(a) > T(0) && zm(a) > T(0));
    }
    if (!frictional && !separating_stopped && nr && Tm > T(0)) {
      if (all_elastic)
        add(make_check("impact.kinetic_energy_conserved", T(abs(T(Tp - Tm)) / Tm), 1e3 * eps * kappa,
                       "|T⁺ - T⁻| / T⁻ with the engine's q̇⁺ (every e = 1, frictionless); tolerance 1e3 ε κ(H), " + kappa_text));
      else
        add(make_check("impact.kinetic_energy_does_not_increase", T(std::max(T(0), T(Tp - Tm)) / Tm), 1e3 * eps * kappa,
                       "max(0, T⁺ - T⁻) / T⁻ with the engine's q̇⁺ (e ≤ 1, frictionless, no separating contact taking an "
                       "impulse); tolerance "
                       "1e3 ε κ(H), " + kappa_text));
    }
  }
}

// The contact checks of one sample (a model with contacts, RBDA ch. 11, frictionless rigid point
// contacts; soft contacts enter as the known forces τ_soft of their default surface state): the
// engine's contact forces, accelerations and post-impact velocities against T, Ṫᵀq̇, M, d, H, C
// computed by rbdref in T at the sample's inputs (ContactTerms).
template <class T>
void contact_checks(const Model<T>& m, const EngineSample& s, double eps, const std::function<void(CheckResult)>& add) {
  auto get = [&](const char* name) -> const NumMatrix* {
    auto it = s.values.find(name);
    return it == s.values.end() ? nullptr : &it->second;
  };
  const NumMatrix *lamn = get("contact_lambda"), *qddn = get("contact_qdd"), *tcn = get("contact_tau_c"),
                  *qdpn = get("impact_qd_plus"), *implamn = get("impact_lambda");
  if (!lamn && !qddn && !tcn && !qdpn && !implamn) return;
  const ContactTerms<T> terms(m, s);
  forward_contact_checks<T>(terms, lamn, qddn, tcn, eps, add);
  if (qdpn) impact_checks<T>(terms, qdpn, implamn, eps, add);
}

struct RunChecks {
  const EngineOutput& e;
  double eps;  // of the engine's scalar
  const ModelDesc* model;  // the fixture's model (loop checks), or null
  std::vector<SampleCheck>& out;

  template <class T>
  void operator()() const {
    const bool loops = model && !model->loop_joints.empty();
    const bool contacts = model && !model->contacts.empty();
    Model<T> m;
    if (loops || contacts) m = build_model<T>(*model);
    for (const EngineSample& s : e.samples) {
      if (!s.error.empty()) continue;  // the engine produced nothing to check
      auto add = [&](CheckResult r) { out.push_back({s.id, std::move(r), std::string()}); };
      const auto get = [&](const char* name) -> const NumMatrix* {
        auto it = s.values.find(name);
        return it == s.values.end() ? nullptr : &it->second;
      };
      const NumMatrix *Hn = get("H"), *Cn = get("C"), *taun = get("tau"), *qddn = get("qdd"), *Ln = get("L"), *Dn = get("D");
      if (loops) loop_checks<T>(m, s, qddn, get("tau_c"), eps, add);
      if (contacts) contact_checks<T>(m, s, eps, add);

      // H.symmetric_raw: max|H - Hᵀ| / max|H| of what the engine computed, before any conversion
      // could symmetrize it (k = 10: a symmetric algorithm writes both triangles from one value).
      MatX<T> Hraw;
      std::string why_not;
      if (raw_H<T>(s.raw, e.dofs.size(), Hraw, why_not)) {
        add(retolerate(check_symmetric<T>(Hraw, 1), "H.symmetric_raw", 10 * eps,
                       "max|H - Hᵀ| / max|H| of the raw H (raw.H, as the engine produced it); tolerance 10 ε"));
      } else if (Hn) {
        add(retolerate(check_symmetric<T>(to_mat<T>(*Hn), 1), "H.symmetric_raw", 10 * eps,
                       "max|H - Hᵀ| / max|H| of the converted H (" + why_not + "); tolerance 10 ε"));
      }
      if (!Hn) continue;  // every other check needs H
      const MatX<T> H = to_mat<T>(*Hn);

      // H.positive_definite: λmin of (H + Hᵀ)/2 > 0, eigenvalues in T.
      add(check_positive_definite<T>(H));

      // κ(H) = λmax / λmin in T; infinite when H is not positive-definite.
      const double kappa = static_cast<double>(condition_number<T>(H));
      const bool finite_kappa = std::isfinite(kappa);
      const VecX<T> tau_in = to_vec<T>(s.tau), qdd_in = to_vec<T>(s.qdd);

      // equation_of_motion.fd: the engine's forward dynamics satisfies H qdd + C = tau at the
      // input tau. The residual is a backward error; its tolerance carries κ(H) as the header states.
      // (On a closed-loop model the engine's q̈ is the constrained one: H q̈ + C = τ + τ_c, checked
      // by the loop checks above.)
      if (Cn && qddn && !loops) {
        const CheckResult r = check_equation_of_motion<T>(H, to_vec<T>(Cn->v), to_vec<T>(qddn->v), tau_in, 1);
        add(retolerate(r, "equation_of_motion.fd", 1e3 * eps * (finite_kappa ? kappa : 1.0),
                       "‖H qdd_engine + C - tau_input‖ / (‖H‖ |qdd| + |C| + |tau|); tolerance 1e3 ε κ(H), " +
                           (finite_kappa ? "κ(H) = " + format_number("%.4g", kappa)
                                         : std::string("κ(H) infinite (H not positive-definite): 1e3 ε"))));
      }
      // equation_of_motion.id: the engine's inverse dynamics at the input qdd.
      if (Cn && taun) {
        const CheckResult r = check_equation_of_motion<T>(H, to_vec<T>(Cn->v), qdd_in, to_vec<T>(taun->v), 1);
        add(retolerate(r, "equation_of_motion.id", 1e3 * eps,
                       "‖H qdd_input + C - tau_engine‖ / (‖H‖ |qdd| + |C| + |tau|); tolerance 1e3 ε"));
      }
      // ltdl.reconstructs: max|Lᵀ D L - H| / max|H| of the engine's own factors.
      if (Ln && Dn) {
        const MatX<T> L = to_mat<T>(*Ln);
        const VecX<T> D = to_vec<T>(Dn->v);
        const MatX<T> R = L.transpose() * D.asDiagonal() * L;
        const T mh = max_abs(H);
        const T num = max_abs(MatX<T>(R - H));
        const T res = num == T(0) ? T(0) : num / mh;
        add(make_check("ltdl.reconstructs", res, 1e3 * eps, "max|LᵀDL - H| / max|H| of the engine's L, D and H; tolerance 1e3 ε"));
      }
    }
  }
};

}  // namespace

std::vector<SampleCheck> check_engine_output(const EngineOutput& e, const std::string& file, const ModelDesc* model) {
  const double eps = e.epsilon(file);
  // bin50 carries 50 digits: 17 more than float128, the widest fixed scalar an engine reports.
  // An MPFR engine gets MPFR 20 digits wider than itself.
  const int d = static_cast<int>(std::ceil(-std::log10(eps)));
  const Precision p = d <= 34 ? *Precision::parse("bin50") : *Precision::parse("mpfr:" + std::to_string(d + 20));
  std::vector<SampleCheck> out;
  bool loop_values = false;
  for (const EngineSample& s : e.samples)
    for (const auto& [name, v] : s.values) loop_values = loop_values || is_loop_quantity(name);
  if (loop_values && (!model || model->loop_joints.empty()))
    throw InputError(file, "samples", "the output carries loop quantities (tau_c, lambda), whose checks need the closed-loop "
                                      "model: give the fixture (`rbdref check OUTPUT --fixture F`)");
  bool contact_values = false;
  for (const EngineSample& s : e.samples)
    for (const auto& [name, v] : s.values) contact_values = contact_values || is_contact_quantity(name);
  if (contact_values && (!model || model->contacts.empty()))
    throw InputError(file, "samples", "the output carries contact quantities (contact_*, impact_*), whose checks need the "
                                      "model with its contacts: give the fixture (`rbdref check OUTPUT --fixture F`)");
  if (model && !model->contacts.empty()) {
    // The lengths the model gives (io/quantities.hpp), before anything is computed.
    QuantityDims dims = contact_dims(*model);
    for (size_t k = 0; k < e.samples.size(); ++k)
      for (const auto& [name, v] : e.samples[k].values) {
        const QuantityInfo* qi = find_quantity(name);
        if (!qi || !qi->is_contact() || !*length_unit(qi->engine_length)) continue;
        const int want = quantity_shape(qi->engine_length, dims).rows;
        if (v.size() != want)
          throw InputError(file, "samples[" + std::to_string(k) + "]." + name,
                           length_expectation(qi->engine_length, want, "the model") + ", got " + std::to_string(v.size()));
      }
  }
  with_precision(p, RunChecks{e, eps, model, out});
  return out;
}

std::vector<SampleCheck> check_engine_output(const EngineOutput& e) { return check_engine_output(e, "engine output", nullptr); }

}  // namespace rbd
