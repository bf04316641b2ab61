// Kinetic and potential energy, spatial momentum, and the power of gravity (RBDA §2.13-2.14;
// kinetic energy and power identities of RBDA ch. 3).
//
//   T_kin = Σ_i ½ v_iᵀ I_i v_i + ½ Σ_d a_d q̇_d²         (= ½ qdᵀ H qd; a the armature, per DoF)
//   V     = -Σ_i g · (m_i p_c,i)                          p_c,i: COM of body i in base coordinates
//   h     = Σ_i iX0ᵀ (I_i v_i)                            total spatial momentum, base coordinates
//                                                          (the armature has none: a model with
//                                                          armature does not conserve h)
//   dT/dt = Σ_i v_i · I_i a_i + Σ_d a_d q̇_d q̈_d        (I_i is constant in body coordinates and
//                                                          v_i × v_i = 0, so d/dt(I v) in body
//                                                          coordinates is I a + v ×* I v, and the
//                                                          second term does no work on v)
//   dV/dt = -Σ_i v_i · I_i (iX0 a_g)                      minus the power of gravity
// The accelerations a_i here are the true ones (no gravity offset).
#pragma once

#include "reference/tree/kinematics.hpp"

namespace rbd {

template <class T>
struct Energy {
  T kinetic;
  T potential;
  Force<T> momentum;  // spatial momentum about the base origin, base coordinates
};

template <class T>
Energy<T> energy(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd) {
  const TreeKinematics<T> k = kinematics<T>(model, q, qd);
  Energy<T> e{T(0), T(0), Force<T>()};
  for (int i = 0; i < model.NB; ++i) {
    const Force<T> hi = model.I[i] * k.v[i];
    e.kinetic += dot(hi, k.v[i]) / T(2);
    // m p_c in base coordinates from the body-frame first moment h = m c (no division, so a
    // massless body contributes exactly 0): iX0 = (E, r), m p_c = m r + Eᵀ h.
    const Xform<T>& X = k.X0[i];
    const Vec3<T> mpc = model.I[i].mass() * X.r + X.E.transpose() * model.I[i].first_moment();
    e.potential -= model.gravity.dot(mpc);
    e.momentum += X.apply_transpose(hi);
  }
  // The rotors' kinetic energy ½ Σ a q̇² (JointDesc::armature); not in the spatial momentum.
  if (model.has_armature)
    for (int d = 0; d < model.nv; ++d) e.kinetic += model.armature[d] * qd(d) * qd(d) / T(2);
  return e;
}

// d(T + V)/dt from body velocities and accelerations: Σ_i v_i · I_i (a_i - iX0 a_g), with a_i the
// true body accelerations for the given qdd (no gravity offset). Equals qdᵀ tau when qdd solves
// the forward dynamics for tau (power balance).
template <class T>
T energy_rate(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& qdd) {
  const TreeKinematics<T> k = kinematics<T>(model, q, qd);
  std::vector<Motion<T>> a(model.NB);
  T rate(0);
  for (int i = 0; i < model.NB; ++i) {
    const int p = model.parent[i];
    const Motion<T> Sqdd(Vec6<T>(k.S[i] * qdd.segment(model.iv[i], model.nvi[i])));
    a[i] = (p < 0 ? Motion<T>() : k.Xup[i].apply(a[p])) + Sqdd + k.c[i];
    const Motion<T> ag = k.X0[i].apply(model.a_grav());
    rate += dot(model.I[i] * (a[i] - ag), k.v[i]);
  }
  if (model.has_armature)
    for (int d = 0; d < model.nv; ++d) rate += model.armature[d] * qd(d) * qdd(d);
  return rate;
}

#define RBDREF_ENERGY_INSTANTIATE(EXT, T)                                                   \
  EXT template Energy<T> energy<T>(const Model<T>&, const VecX<T>&, const VecX<T>&);        \
  EXT template T energy_rate<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, const VecX<T>&);
RBDREF_EXTERN_FOR_EACH_TREE_SCALAR(RBDREF_ENERGY_INSTANTIATE)

}  // namespace rbd
