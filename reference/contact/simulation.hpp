// The general procedure of contact-dynamics simulation (RBDA §11.5, table 11.1), with event
// location by interpolating the integration step (eqs. 11.45-11.51), for frictionless rigid
// contacts:
//
//   1. integrate forward, the active contacts treated as equality constraints
//      (q̈ = H⁻¹(τ - C + T_A λ_A), T_Aᵀq̈ + Ṫ_Aᵀq̇ = 0), the other contacts ignored;
//   2. monitor the events: a contact gain (φ_i of a contact not in the current set below 0 and
//      approaching, φ̇_i < 0; a contact that has just bounced is leaving) and a negative contact
//      force (λ_i < 0 on an active contact);
//   3. if the last step saw one, interpolate the step back to the earliest (the step's own
//      polynomial: Euler y(δ) = y₀ + hkδ, eq. 11.49; Heun y(δ) = y₀ + h((δ - ¾δ²)k₁ + ¾δ²k₂), eq. 11.51;
//      the event's δ by bisection on the interpolated state, to the working precision);
//   4. a contact gain is an impact: the impulsive LCP of §11.7 (contact/impulse.hpp) over the
//      current contacts plus the new one, then new current and active sets;
//   6. a negative force: solve the LCP (11.42) over the current contacts (contact/dynamics.hpp) and
//      take the new current set (ζ̇_i = 0) and active set (λ_i > 0);
//   7. go back to 1.
// (Step 5, geometric contact loss, needs the contact's extent — a point leaving a face's edge — which
// the point-on-plane model does not carry; a contact leaves the current set when it separates:
// ζ > 0 after an impact, or ζ̇ > 0 in an LCP solution.)
//
// The state is x = [q; q̇] (q with quaternions; the step uses the exact joint flow for positions:
// q(δ) = q₀ ⊕ ∫ q̇, which for Euler is q₀ ⊕ hδ q̇₀ and for Heun q₀ ⊕ h((δ - ¾δ²) q̇₀ + ¾δ² q̇(⅔h))
// — the velocity integral of the same polynomial, eq. 11.51 applied to α, then the flow of that
// mean velocity: exact for the positions of 1-DoF joints, first-order consistent for quaternions).
#pragma once

#include "reference/contact/dynamics.hpp"
#include "reference/contact/impulse.hpp"
#include "reference/tree/integrate.hpp"

#include <Eigen/Cholesky>

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
  enum Kind { Gain, NegativeForce } kind;
  int contact = -1;
  T time;
};

template <class T>
struct ContactTrajectory {
  std::vector<T> t;
  std::vector<VecX<T>> q, qd;
  std::vector<std::vector<int>> active;  // the active set during each step
  std::vector<ContactEvent<T>> events;
  bool ok = true;
  std::string message;
};

// Simulates from (q, q̇) for `steps` steps of size h with constant τ, starting with the contacts at
// φ ≤ tol as the current set and the LCP's λ > 0 among them as the active set.
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
  for (const Contact<T>& c : model_in.contacts)
    if (c.has_soft) {
      tr.ok = false;
      tr.message = "contact '" + c.name + "' is soft: the table 11.1 procedure here is for rigid contacts";
      return tr;
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
  const T tol = T(1000) * epsilon<T>() * size;
  std::vector<int> current, active;
  // The current and active sets from the LCP over the contacts in contact (φ ≤ tol).
  auto resolve_sets = [&](const std::vector<int>& candidates) {
    active.clear();
    current.clear();
    if (candidates.empty()) return true;
    const ContactDynamics<T> r = contact_dynamics<T>(model, q, qd, tau);
    MatX<T> M(candidates.size(), candidates.size());
    VecX<T> d(candidates.size());
    for (size_t a = 0; a < candidates.size(); ++a) {
      d(a) = r.d(candidates[a]);
      for (size_t b = 0; b < candidates.size(); ++b) M(a, b) = r.M(candidates[a], candidates[b]);
    }
    const LcpResult<T> l = solve_lcp<T>(M, d);
    if (l.status != LcpResult<T>::Solved) return false;
    for (size_t a = 0; a < candidates.size(); ++a) {
      if (l.zeta_dot(a) <= tol) current.push_back(candidates[a]);
      if (std::find(l.active.begin(), l.active.end(), static_cast<int>(a)) != l.active.end() && l.lambda(a) > T(0))
        active.push_back(candidates[a]);
    }
    return true;
  };
  {
    const ContactKinematics<T> ck = contact_kinematics<T>(model, q, qd);
    std::vector<int> touching;
    for (int i = 0; i < nc; ++i)
      if (ck.phi(i) <= tol && ck.zeta(i) <= tol) touching.push_back(i);  // case 3 (or impacting: φ̇ < 0)
    if (!resolve_sets(touching)) {
      tr.ok = false;
      tr.message = "the initial contact LCP has no solution";
      return tr;
    }
  }
  T t(0);
  auto record = [&]() {
    tr.t.push_back(t);
    tr.q.push_back(q);
    tr.qd.push_back(qd);
    tr.active.push_back(active);
  };
  record();
  for (int s = 0; s < steps; ++s) {
    // Stage slopes of [q̇-velocity, q̈]; positions follow the flow of the step's mean velocity.
    VecX<T> qdd1, l1, qdd2, l2;
    if (!detail::constrained_qdd<T>(model, q, qd, tau, active, qdd1, l1)) {
      tr.ok = false;
      tr.message = "dependent active contact normals";
      return tr;
    }
    VecX<T> k1(2 * model.nv), k2(2 * model.nv);
    k1 << qd, qdd1;
    if (method == StepMethod::Heun) {
      const T c = T(2) * h / T(3);
      const VecX<T> q2 = integrate_q<T>(model, q, qd, c), qd2 = qd + c * qdd1;
      if (!detail::constrained_qdd<T>(model, q2, qd2, tau, active, qdd2, l2)) {
        tr.ok = false;
        tr.message = "dependent active contact normals";
        return tr;
      }
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
    // Events at the end of the step: a gain (a non-current contact's φ ≤ 0), a negative λ.
    auto event_at = [&](const T& delta, int& which, bool& gain) {
      VecX<T> qe, qde;
      state_at(delta, qe, qde);
      const ContactKinematics<T> ck = contact_kinematics<T>(model, qe, qde);
      for (int i = 0; i < nc; ++i)
        if (std::find(current.begin(), current.end(), i) == current.end() && ck.phi(i) < -tol && ck.zeta(i) < T(0)) {
          which = i;
          gain = true;
          return true;
        }
      VecX<T> qddx, lx;
      if (detail::constrained_qdd<T>(model, qe, qde, tau, active, qddx, lx))
        for (size_t a = 0; a < active.size(); ++a)
          if (lx(static_cast<Eigen::Index>(a)) < T(0)) {
            which = active[a];
            gain = false;
            return true;
          }
      return false;
    };
    int which = -1;
    bool gain = false;
    T delta(1);
    if (event_at(T(1), which, gain)) {
      // Bisection on δ for the earliest event (eq. 11.46: any intermediate state from the step's polynomial).
      T lo(0), hi(1);
      const int iters = digits10<T>() * 4;
      for (int it = 0; it < iters; ++it) {
        const T mid = (lo + hi) / T(2);
        int w = -1;
        bool g = false;
        if (event_at(mid, w, g)) {
          hi = mid;
          which = w;
          gain = g;
        } else {
          lo = mid;
        }
      }
      delta = hi;
    }
    VecX<T> qn, qdn;
    state_at(delta, qn, qdn);
    q = qn;
    qd = qdn;
    t += delta * h;
    if (which >= 0) {
      tr.events.push_back({gain ? ContactEvent<T>::Gain : ContactEvent<T>::NegativeForce, which, t});
      std::vector<int> candidates = current;
      if (gain) {
        candidates.push_back(which);
        std::sort(candidates.begin(), candidates.end());
        // Step 4: the impact over the current contacts plus the new one (the others are ignored).
        Model<T> sub = model;
        sub.contacts.clear();
        for (int c : candidates) sub.contacts.push_back(model.contacts[c]);
        const ContactImpact<T> im = contact_impact<T>(sub, q, qd);
        if (!im.ok) {
          tr.ok = false;
          tr.message = "impact: " + im.message;
          return tr;
        }
        qd = im.qd_plus;
        // Contacts leaving with ζ⁺ > 0 (bouncing, e > 0) leave the current set.
        T vmax(1);
        for (Eigen::Index i = 0; i < im.zeta_minus.size(); ++i) vmax = std::max(vmax, T(abs(im.zeta_minus(i))));
        const T vtol = T(1000) * epsilon<T>() * vmax;
        std::vector<int> still;
        for (size_t a = 0; a < candidates.size(); ++a)
          if (im.zeta_plus(static_cast<Eigen::Index>(a)) <= vtol) still.push_back(candidates[a]);
        candidates = still;
      }
      if (!resolve_sets(candidates)) {
        tr.ok = false;
        tr.message = "the contact LCP has no solution after the event";
        return tr;
      }
    }
    // A current contact that is no longer active and has separated (φ > 0) leaves the current set
    // (case 1 of §11.4), so that its next gain is seen.
    {
      const ContactKinematics<T> ck = contact_kinematics<T>(model, q, qd);
      std::vector<int> kept;
      for (int i : current)
        if (std::find(active.begin(), active.end(), i) != active.end() || ck.phi(i) <= tol) kept.push_back(i);
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
