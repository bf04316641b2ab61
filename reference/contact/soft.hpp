// Soft contact (RBDA §11.8): a massless compliant surface patch S on
// a spring K and damper D in the normal direction (and K_t, D_t tangentially), touching a point of
// the rigid body B. Its state is the surface displacement z (normal) and x (tangential, 2 along
// the contact's t_x, t_y); the contact force is a function of position and velocity, so it enters
// any forward-dynamics algorithm as a known force.
//
// Per contact, with p = φ (the gap to the undeformed surface, contact/kinematics.hpp) and ṗ = ζ:
//   f_n = 0 if p > z,  max(0, -K z - D ṗ) if p = z                    (eq. 11.74 / 11.75)
//   ż   = -(K z + f_n) / D                                            (eq. 11.73 / 11.76)
// and, with friction μ, v = (ζ_x, ζ_y) the tangential velocity of B's point C':
//   f_stick = -K_t x - D_t v                                          (eq. 11.78)
//   f_t = f_stick if |f_stick| ≤ μ f_n (sticking: ẋ = v), else μ f_n f_stick / |f_stick|   (eq. 11.79,
//         the book's 1-D rule with the interval [-μ f_n, μ f_n] read as the disc |f_t| ≤ μ f_n)
//   ẋ   = -(K_t x + f_t) / D_t                                        (eq. 11.77)
// Without friction f_t = 0 and x relaxes. While separated, z has the analytic decay
// z(t) = z₀ e^{-K t / D} (the book's trick that needs no integration of 11.73): soft_surface_decay.
// Touching is p ≤ z + tol (tol = 1000 ε × the model's size); a surface state not given is z =
// min(φ, 0) (the surface where the body is) and x = 0.
//
// The force on B is n̂ f_n + n̂_x f_tx + n̂_y f_ty, in joint space τ_soft = T f_n + T_t f_t. The power
// delivered to the bodies is P = f_n ṗ + f_tᵀv, the springs' energy E = ½K z² + ½K_t |x|² changes
// at Ė = K z ż + K_t xᵀẋ, and the contact dissipates W = -(P + Ė) = D ż² + D_t |ẋ|² + f_tᵀ(ẋ - v)
// ≥ 0: the dampers, plus the slip, where f_t opposes v - ẋ = (f_t - f_stick)/D_t (in slip
// f_tᵀ(v - ẋ) = |f_t|(|f_t| - |f_stick|)/D_t ≤ 0; sticking, ẋ = v).
#pragma once

#include "reference/contact/kinematics.hpp"

#include <vector>

namespace rbd {

template <class T>
struct SoftContactState {
  int contact = -1;             // index into Model::contacts
  T p = T(0), pdot = T(0);      // φ, φ̇ = ζ
  T z = T(0), zdot = T(0);      // surface displacement and its rate
  bool touching = false, sticking = false;
  T fn = T(0);                  // normal force (eq. 11.75)
  Vec3<T> x, xdot, v, f_stick, ft;  // tangential (third entry 0): displacement, rate, slip velocity of C', forces
  T power = T(0), spring_rate = T(0), dissipation = T(0);  // P, Ė, W = -(P + Ė)
};

template <class T>
struct SoftContactForces {
  std::vector<SoftContactState<T>> contacts;  // the soft contacts, in model order
  VecX<T> tau_soft;                           // T f_n + T_t f_t (n)
};

// z: the surface state per contact (model order; `given_z` false: min(φ, 0)); x likewise (2 per
// contact, zeros if empty). Only contacts with has_soft take part.
template <class T>
SoftContactForces<T> soft_contact_forces(const Model<T>& model, const ContactKinematics<T>& ck, const VecX<T>& qd,
                                         const std::vector<bool>& given_z, const VecX<T>& z, const VecX<T>& x);

// z(t) = z₀ e^{-K t / D}: the free surface's relaxation (eq. 11.73 with f_c = 0).
template <class T>
T soft_surface_decay(const T& z0, const T& K, const T& D, const T& t) {
  using std::exp;
  return z0 * exp(T(-K * t / D));
}

// ---- definition ----

template <class T>
SoftContactForces<T> soft_contact_forces(const Model<T>& model, const ContactKinematics<T>& ck, const VecX<T>& qd,
                                         const std::vector<bool>& given_z, const VecX<T>& z, const VecX<T>& x) {
  using std::max;
  using std::min;
  using std::sqrt;
  SoftContactForces<T> out;
  out.tau_soft = VecX<T>::Zero(model.nv);
  T size(1);
  for (int i = 0; i < model.NB; ++i)
    if (model.Xtree[i].r.norm() > size) size = model.Xtree[i].r.norm();
  const T tol = T(1000) * epsilon<T>() * size;
  const VecX<T> vt = ck.Tt.transpose() * qd;
  for (size_t i = 0; i < model.contacts.size(); ++i) {
    const Contact<T>& c = model.contacts[i];
    if (!c.has_soft) continue;
    SoftContactState<T> s;
    s.contact = static_cast<int>(i);
    s.p = ck.phi(i);
    s.pdot = ck.zeta(i);
    s.z = i < given_z.size() && given_z[i] ? z(i) : T(min(s.p, T(0)));
    s.touching = s.p <= s.z + tol;
    if (s.touching) s.fn = max(T(-c.K * s.z - c.D * s.pdot), T(0));
    s.zdot = -(c.K * s.z + s.fn) / c.D;
    s.x = Vec3<T>::Zero();
    if (x.size() >= static_cast<Eigen::Index>(2 * i + 2)) s.x << x(2 * i), x(2 * i + 1), T(0);
    s.v << vt(2 * i), vt(2 * i + 1), T(0);
    s.f_stick = -c.Kt * s.x - c.Dt * s.v;
    s.ft = Vec3<T>::Zero();
    if (c.has_friction) {
      const T fs = s.f_stick.norm();
      if (fs <= c.mu * s.fn) {
        s.ft = s.f_stick;
        s.sticking = true;
      } else {
        s.ft = s.f_stick * T(c.mu * s.fn / fs);
      }
    }
    s.xdot = -(c.Kt * s.x + s.ft) / c.Dt;
    s.power = s.fn * s.pdot + s.ft.dot(s.v);
    s.spring_rate = c.K * s.z * s.zdot + c.Kt * s.x.dot(s.xdot);
    s.dissipation = -(s.power + s.spring_rate);
    out.tau_soft += ck.Tn.col(i) * s.fn + ck.Tt.col(2 * i) * s.ft(0) + ck.Tt.col(2 * i + 1) * s.ft(1);
    out.contacts.push_back(s);
  }
  return out;
}

#define RBDREF_SOFT_CONTACT_INSTANTIATE(EXT, T)                                                                          \
  EXT template SoftContactForces<T> soft_contact_forces<T>(const Model<T>&, const ContactKinematics<T>&, const VecX<T>&, \
                                                           const std::vector<bool>&, const VecX<T>&, const VecX<T>&);
RBDREF_EXTERN_FOR_EACH_SCALAR(RBDREF_SOFT_CONTACT_INSTANTIATE)

}  // namespace rbd
