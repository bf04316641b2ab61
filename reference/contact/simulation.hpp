// The general procedure of contact-dynamics simulation (RBDA §11.5, table 11.1), with event
// location by interpolating the integration step (eqs. 11.45-11.51), for frictionless rigid
// contacts. Two sets are kept: the current contacts (case 3 of §11.4: touching, φ = 0, not
// separating, ζ = 0, ζ̇ = 0), and the active ones, a subset whose normals are a basis of range(T)
// over the current contacts and which holds every contact with λ > 0.
//
//   0. the start: every touching contact (φ = 0) that approaches (ζ < 0, case 2a) takes its
//      impulse first (§11.7, contact/impulse.hpp, over all touching contacts); those leaving
//      (ζ⁺ > 0, case 2b) are not current; the LCP over the rest gives the two sets (step 6);
//   1. integrate forward, the active contacts treated as equality constraints
//      (q̈ = H⁻¹(τ - C + T_A λ_A), T_Aᵀq̈ + Ṫ_Aᵀq̇ = 0), the other contacts ignored;
//   2. monitor the events over the step, at 8 points of it and not only at its end:
//      - a contact gain: a contact not current below its surface (φ < 0) and approaching (ζ < 0);
//      - a current contact that is not active moving into its surface (ζ < 0): held only
//        through the basis, it is watched like a gain;
//      - a negative contact force, λ_i < 0 on an active contact, and a current contact that is
//        not active accelerating into its surface (ζ̇ < 0): either way the sets are stale;
//   3. interpolate back to the earliest event: the step's own polynomial (Euler y(δ) = y₀ + hkδ,
//      eq. 11.49; Heun y(δ) = y₀ + h((δ - ¾δ²)k₁ + ¾δ²k₂), eq. 11.51), the event's δ by bisection
//      between the last point without it and the first with it, to the working precision;
//   4. a gain is an impact: the impulsive LCP over every contact touching there (φ ≤ tolerance:
//      the current ones and the new), then the LCP over those not leaving gives the new sets;
//   5. geometric contact loss (a point leaving a face's edge) is not modelled: a contact here is a
//      point on an unbounded plane, so it has no edge to leave. Said in every trajectory's `notes`;
//   6. a negative force (or a current contact accelerating in): the LCP over the current contacts
//      (contact/dynamics.hpp); the new current set is ζ̇_i = 0, the new active set λ_i > 0,
//      completed, as the table says, by current contacts with ζ̇_i = λ_i = 0 until its normals
//      span those of the current set;
//   7. go back to 1. A current contact that is not active and has separated (φ > 0) leaves the
//      current set after each step (dynamic contact loss).
// Contacts with friction are refused (the book's procedure and its LCP are frictionless; its
// sticking impact, eq. 11.72, with a frictionless continuous phase would be neither model), as
// are soft contacts (§11.8: their forces are known forces, any integrator will do).
//
// The state is x = [q; q̇] (q with quaternions; the step uses the exact joint flow for positions:
// q(δ) = q₀ ⊕ ∫ q̇, which for Euler is q₀ ⊕ hδ q̇₀ and for Heun q₀ ⊕ h((δ - ¾δ²) q̇₀ + ¾δ² q̇(⅔h))
// — the velocity integral of the same polynomial, eq. 11.51 applied to α, then the flow of that
// mean velocity: exact for the positions of 1-DoF joints, first-order consistent for quaternions).
// The active contacts are held at the acceleration level: their φ drifts with the integration
// error (not corrected); `max_drift` reports the largest |φ| of a current contact seen.
#pragma once

#include "reference/contact/dynamics.hpp"
#include "reference/contact/impulse.hpp"
#include "reference/tree/integrate.hpp"

#include <Eigen/Cholesky>

#include <algorithm>
#include <string>
#include <vector>

namespace rbd {

enum class StepMethod { Euler, Heun };

// The interpolation polynomial of one step (eqs. 11.49, 11.51) for y₀, h and the stage slopes k₁
// (and k₂ for Heun, taken at t₀ + ⅔h): y(δ), δ ∈ [0, 1].
template <class T>
VecX<T> step_interpolate(StepMethod method, const VecX<T>& y0, const T& h, const VecX<T>& k1, const VecX<T>& k2, const T& delta) {
  if (method == StepMethod::Euler) return y0 + h * delta * k1;                                     // eq. 11.49
  const T a = delta - T(3) * delta * delta / T(4), b = T(3) * delta * delta / T(4);
  return y0 + h * (a * k1 + b * k2);                                                             // eq. 11.51
}

template <class T>
struct ContactEvent {
  // Gain: an impact (a contact gained, a current one moving into its surface, or the start's
  // approaching contacts); NegativeForce: λ < 0 on an active contact; CurrentAccelerating: a
  // current contact not active with ζ̇ < 0.
  enum Kind { Gain, NegativeForce, CurrentAccelerating } kind;
  int contact = -1;
  T time;
};

template <class T>
struct ContactTrajectory {
  std::vector<T> t;
  std::vector<VecX<T>> q, qd;
  std::vector<std::vector<int>> active;   // the active set during each step
  std::vector<std::vector<int>> current;  // the current set during each step
  std::vector<ContactEvent<T>> events;
  T max_drift = T(0);                     // the largest |φ| of a current contact at a recorded state
  std::vector<std::string> notes;
  bool ok = true;
  std::string message;
};

// Simulates from (q, q̇) for `steps` steps of size h with constant τ (table 11.1, above).
template <class T>
ContactTrajectory<T> simulate_contacts(const Model<T>& model, VecX<T> q, VecX<T> qd, const VecX<T>& tau, const T& h, int steps,
                                       StepMethod method);

// ---- definition ----

namespace detail {

// q̈ with the active contacts as equalities, and their λ (H⁻¹ by a dense LDLᵀ).
template <class T>
bool constrained_qdd(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau, const std::vector<int>& A,
                     VecX<T>& qdd, VecX<T>& lambda) {
  const MatX<T> H = crba<T>(model, q);
  const VecX<T> C = bias<T>(model, q, qd);
  const Eigen::LDLT<MatX<T>> Hf(H);
  const VecX<T> free = Hf.solve(VecX<T>(tau - C));
  qdd = free;
  lambda = VecX<T>(static_cast<Eigen::Index>(A.size()));
  if (A.empty()) return true;
  const ContactKinematics<T> ck = contact_kinematics<T>(model, q, qd);
  const int m = static_cast<int>(A.size());
  MatX<T> TA(model.nv, m);
  VecX<T> dA(m);
  for (int a = 0; a < m; ++a) {
    TA.col(a) = ck.Tn.col(A[a]);
    dA(a) = ck.Tdot_qd(A[a]);
  }
  const MatX<T> HiT = Hf.solve(TA);
  const MatX<T> M = TA.transpose() * HiT;
  dA += TA.transpose() * free;
  Eigen::FullPivLU<MatX<T>> lu(M);
  lu.setThreshold(T(1000) * T(m) * epsilon<T>());
  if (lu.rank() < m) return false;  // the active normals must be independent (table 11.1's basis)
  lambda = lu.solve(VecX<T>(-dA));
  qdd = free + HiT * lambda;
  return true;
}

}  // namespace detail

template <class T>
ContactTrajectory<T> simulate_contacts(const Model<T>& model_in, VecX<T> q, VecX<T> qd, const VecX<T>& tau, const T& h, int steps,
                                       StepMethod method) {
  using std::abs;
  ContactTrajectory<T> tr;
  tr.notes.push_back("geometric contact loss (table 11.1, step 5) is not modelled: each contact is a point on an unbounded "
                     "plane, which it cannot leave by an edge");
  auto stop = [&](const std::string& why) {
    tr.ok = false;
    tr.message = why;
    return tr;
  };
  for (const Contact<T>& c : model_in.contacts) {
    if (c.has_soft) return stop("contact '" + c.name + "' is soft: the table 11.1 procedure here is for rigid contacts");
    if (c.has_friction)
      return stop("contact '" + c.name + "' has friction: the table 11.1 procedure here is frictionless (its LCP, eq. 11.42), "
                  "and the sticking impact (eq. 11.72) with a frictionless motion between impacts would be neither model");
  }
  // A surface not given is frozen where the point is at the start (φ = 0 there), in A's frame:
  // the plane must stay put for φ to measure anything along the motion.
  Model<T> model = model_in;
  {
    const ContactKinematics<T> ck0 = contact_kinematics<T>(model, q, qd);
    const TreeKinematics<T> k0 = kinematics<T>(model, q, qd);
    for (size_t i = 0; i < model.contacts.size(); ++i) {
      Contact<T>& c = model.contacts[i];
      if (c.has_surface) continue;
      c.has_surface = true;
      c.surface = c.p < 0 ? ck0.x[i] : Vec3<T>(k0.X0[c.p].E * Vec3<T>(ck0.x[i] - k0.X0[c.p].r));
    }
  }
  const int nc = static_cast<int>(model.contacts.size());
  T size(1);
  for (int i = 0; i < model.NB; ++i)
    if (model.Xtree[i].r.norm() > size) size = model.Xtree[i].r.norm();
  const T tol = T(1000) * epsilon<T>() * size;  // on φ
  // On ζ: 1000 ε of the velocities' scale, max|T| max|q̇| (at least 1).
  auto zeta_tol = [&](const ContactKinematics<T>& ck, const VecX<T>& v) {
    T s(1);
    if (v.size() > 0 && ck.Tn.size() > 0) s = std::max(s, T(ck.Tn.cwiseAbs().maxCoeff() * v.cwiseAbs().maxCoeff()));
    return T(T(1000) * epsilon<T>() * s);
  };
  auto contains = [](const std::vector<int>& v, int i) { return std::find(v.begin(), v.end(), i) != v.end(); };
  std::vector<int> current, active;

  // Step 6: the LCP over `candidates`; current = {ζ̇_i = 0}, active = {λ_i > 0} completed by
  // current contacts with λ_i = 0 whose normals widen the span, until it is range(T_current).
  auto resolve_sets = [&](const std::vector<int>& candidates) {
    active.clear();
    current.clear();
    if (candidates.empty()) return true;
    const ContactDynamics<T> r = contact_dynamics<T>(model, q, qd, tau);
    const int n = static_cast<int>(candidates.size());
    MatX<T> M(n, n);
    VecX<T> d(n);
    for (int a = 0; a < n; ++a) {
      d(a) = r.d(candidates[a]);
      for (int b = 0; b < n; ++b) M(a, b) = r.M(candidates[a], candidates[b]);
    }
    const LcpResult<T> l = solve_lcp<T>(M, d);
    if (l.status != LcpResult<T>::Solved) return false;
    const T mmax = M.cwiseAbs().maxCoeff(), lmax = l.lambda.cwiseAbs().maxCoeff(), dmax = d.cwiseAbs().maxCoeff();
    const T wtol = T(1000) * T(n) * epsilon<T>() * (mmax * lmax + dmax);  // ζ̇'s scale: its terms'
    for (int a = 0; a < n; ++a) {
      if (l.zeta_dot(a) <= wtol) current.push_back(candidates[a]);
      if (contains(l.active, a) && l.lambda(a) > T(0)) active.push_back(candidates[a]);
    }
    // The completion to a basis of range(T_current), by rank on M (rank M_SS = rank T_S).
    auto rank_of = [&](const std::vector<int>& S) {
      if (S.empty()) return 0;
      MatX<T> MS(S.size(), S.size());
      for (size_t x = 0; x < S.size(); ++x)
        for (size_t y = 0; y < S.size(); ++y) MS(x, y) = r.M(S[x], S[y]);
      Eigen::FullPivLU<MatX<T>> lu(MS);
      lu.setThreshold(T(1000) * T(nc) * epsilon<T>());
      return static_cast<int>(lu.rank());
    };
    int rank = rank_of(active);
    for (int i : current) {
      if (contains(active, i)) continue;
      std::vector<int> wider = active;
      wider.push_back(i);
      const int rw = rank_of(wider);
      if (rw > rank) {
        active = wider;
        rank = rw;
      }
    }
    std::sort(active.begin(), active.end());
    return true;
  };
  // Step 4: the impact over every contact touching now; the contacts not leaving, for the LCP.
  auto impact = [&](std::vector<int>& candidates) {
    std::vector<int> touching;
    const ContactKinematics<T> ck = contact_kinematics<T>(model, q, qd);
    for (int i = 0; i < nc; ++i)
      if (contains(candidates, i) || ck.phi(i) <= tol) touching.push_back(i);
    Model<T> sub = model;
    sub.contacts.clear();
    for (int c : touching) sub.contacts.push_back(model.contacts[c]);
    const ContactImpact<T> im = contact_impact<T>(sub, q, qd);
    if (!im.ok) return false;
    const T vtol = zeta_tol(ck, VecX<T>(qd.cwiseAbs().cwiseMax(im.qd_plus.cwiseAbs())));
    qd = im.qd_plus;
    candidates.clear();
    for (size_t a = 0; a < touching.size(); ++a)
      if (im.zeta_plus(static_cast<Eigen::Index>(a)) <= vtol) candidates.push_back(touching[a]);
    return true;
  };

  T t(0);
  {
    const ContactKinematics<T> ck = contact_kinematics<T>(model, q, qd);
    const T ztol = zeta_tol(ck, qd);
    std::vector<int> touching;
    int most = -1;
    for (int i = 0; i < nc; ++i) {
      if (ck.phi(i) < -tol)
        return stop("contact '" + model.contacts[i].name + "' starts below its surface (φ = " + to_decimal(ck.phi(i), 3) +
                    "): the procedure starts from a state without penetration");
      if (ck.phi(i) > tol) continue;
      touching.push_back(i);
      if (ck.zeta(i) < -ztol && (most < 0 || ck.zeta(i) < ck.zeta(most))) most = i;
    }
    std::vector<int> candidates;
    if (most >= 0) {  // case 2a at the start: the impulse first
      candidates = touching;
      if (!impact(candidates)) return stop("impact at the start: the impulsive LCP failed");
      tr.events.push_back({ContactEvent<T>::Gain, most, t});
    } else {
      for (int i : touching)
        if (ck.zeta(i) <= ztol) candidates.push_back(i);  // case 2b (separating) is not current
    }
    if (!resolve_sets(candidates)) return stop("the initial contact LCP has no solution");
  }
  auto record = [&]() {
    tr.t.push_back(t);
    tr.q.push_back(q);
    tr.qd.push_back(qd);
    tr.active.push_back(active);
    tr.current.push_back(current);
    if (!current.empty()) {
      const ContactKinematics<T> ck = contact_kinematics<T>(model, q, qd);
      for (int i : current) tr.max_drift = std::max(tr.max_drift, T(abs(ck.phi(i))));
    }
  };
  record();
  for (int s = 0; s < steps; ++s) {
    // Stage slopes of [q̇-velocity, q̈]; positions follow the flow of the step's mean velocity.
    VecX<T> qdd1, l1, qdd2, l2;
    if (!detail::constrained_qdd<T>(model, q, qd, tau, active, qdd1, l1)) return stop("dependent active contact normals");
    VecX<T> k1(2 * model.nv), k2(2 * model.nv);
    k1 << qd, qdd1;
    if (method == StepMethod::Heun) {
      const T c = T(2) * h / T(3);
      const VecX<T> q2 = integrate_q<T>(model, q, qd, c), qd2 = qd + c * qdd1;
      if (!detail::constrained_qdd<T>(model, q2, qd2, tau, active, qdd2, l2)) return stop("dependent active contact normals");
      k2 << qd2, qdd2;
    } else {
      k2 = k1;
    }
    VecX<T> y0(2 * model.nv);
    y0 << VecX<T>::Zero(model.nv), qd;  // first half: the position increment, integrated from 0
    auto state_at = [&](const T& delta, VecX<T>& qo, VecX<T>& qdo) {
      const VecX<T> y = step_interpolate<T>(method, y0, h, k1, k2, delta);
      qo = integrate_q<T>(model, q, VecX<T>(y.head(model.nv)), T(1));  // q₀ ⊕ (∫ q̇)
      qdo = y.tail(model.nv);
    };
    // The events of step 2 at the state of δ (the first found: gains, then forces).
    auto event_at = [&](const T& delta, int& which, typename ContactEvent<T>::Kind& kind) {
      VecX<T> qe, qde;
      state_at(delta, qe, qde);
      const ContactKinematics<T> ck = contact_kinematics<T>(model, qe, qde);
      const T ztol = zeta_tol(ck, qde);
      for (int i = 0; i < nc; ++i) {
        const bool cur = contains(current, i), act = contains(active, i);
        if ((!cur && ck.phi(i) < -tol && ck.zeta(i) < T(0)) || (cur && !act && ck.zeta(i) < -ztol)) {
          which = i;
          kind = ContactEvent<T>::Gain;
          return true;
        }
      }
      VecX<T> qddx, lx;
      if (!detail::constrained_qdd<T>(model, qe, qde, tau, active, qddx, lx)) return false;
      // λ_i < 0 beyond the rounding of the active forces (a completing contact holds λ = 0 exactly
      // only in exact arithmetic).
      const T ltol = lx.size() ? T(T(1000) * T(nc) * epsilon<T>() * lx.cwiseAbs().maxCoeff()) : T(0);
      for (size_t a = 0; a < active.size(); ++a)
        if (lx(static_cast<Eigen::Index>(a)) < -ltol) {
          which = active[a];
          kind = ContactEvent<T>::NegativeForce;
          return true;
        }
      // ζ̇ of the current contacts not active, under the active ones' constraint.
      T amax(1);
      for (Eigen::Index j = 0; j < qddx.size(); ++j) amax = std::max(amax, T(abs(qddx(j))));
      const T atol = T(1000) * epsilon<T>() * (ck.Tn.size() ? T(ck.Tn.cwiseAbs().maxCoeff() * amax) : amax) +
                     T(1000) * epsilon<T>() * (ck.Tdot_qd.size() ? T(ck.Tdot_qd.cwiseAbs().maxCoeff()) : T(0));
      for (int i : current)
        if (!contains(active, i) && T(ck.Tn.col(i).dot(qddx) + ck.Tdot_qd(i)) < -atol) {
          which = i;
          kind = ContactEvent<T>::CurrentAccelerating;
          return true;
        }
      return false;
    };
    // Step 2 at 8 points of the step; step 3 by bisection between the last point without an
    // event and the first with one (eq. 11.46: any intermediate state from the step's polynomial).
    int which = -1;
    typename ContactEvent<T>::Kind kind = ContactEvent<T>::Gain;
    T delta(1);
    constexpr int kPoints = 8;
    for (int k = 1; k <= kPoints; ++k) {
      const T at = T(k) / T(kPoints);
      if (!event_at(at, which, kind)) continue;
      T lo = T(k - 1) / T(kPoints), hi = at;
      const int iters = digits10<T>() * 4;
      for (int it = 0; it < iters; ++it) {
        const T mid = (lo + hi) / T(2);
        int w = -1;
        typename ContactEvent<T>::Kind g = kind;
        if (event_at(mid, w, g)) {
          hi = mid;
          which = w;
          kind = g;
        } else {
          lo = mid;
        }
      }
      delta = hi;
      break;
    }
    VecX<T> qn, qdn;
    state_at(delta, qn, qdn);
    q = qn;
    qd = qdn;
    t += delta * h;
    if (which >= 0) {
      // An event that recurs where the last one was handled (the same kind, contact and time) would
      // make no progress: the sets the LCP gives do not remove it.
      if (!tr.events.empty() && tr.events.back().kind == kind && tr.events.back().contact == which && tr.events.back().time == t)
        return stop("the event at contact '" + model.contacts[static_cast<size_t>(which)].name + "' recurs at t = " +
                    to_decimal(t, 6) + " after its sets were resolved: the procedure cannot progress");
      tr.events.push_back({kind, which, t});
      std::vector<int> candidates = current;
      if (kind == ContactEvent<T>::Gain) {
        candidates.push_back(which);
        if (!impact(candidates)) return stop("impact at t = " + to_decimal(t, 6) + ": the impulsive LCP failed");
      }
      if (!resolve_sets(candidates)) return stop("the contact LCP has no solution after the event at t = " + to_decimal(t, 6));
    }
    // A current contact that is no longer active and has separated (φ > 0) leaves the current set
    // (case 1 of §11.4), so that its next gain is seen.
    {
      const ContactKinematics<T> ck = contact_kinematics<T>(model, q, qd);
      std::vector<int> kept;
      for (int i : current)
        if (contains(active, i) || ck.phi(i) <= tol) kept.push_back(i);
      current = kept;
    }
    record();
  }
  return tr;
}

#define RBDREF_CONTACT_SIMULATION_INSTANTIATE(EXT, T)                                                                      \
  EXT template VecX<T> step_interpolate<T>(StepMethod, const VecX<T>&, const T&, const VecX<T>&, const VecX<T>&, const T&); \
  EXT template ContactTrajectory<T> simulate_contacts<T>(const Model<T>&, VecX<T>, VecX<T>, const VecX<T>&, const T&, int,  \
                                                         StepMethod);
RBDREF_EXTERN_FOR_EACH_SCALAR(RBDREF_CONTACT_SIMULATION_INSTANTIATE)

}  // namespace rbd
