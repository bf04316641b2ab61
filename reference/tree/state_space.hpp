// The equations of motion in state-space form (RBDA §3.1):
//
//   q̇ = Q(q) α                       (eq. 3.6)   q̇ = qdfn(model, q, α)                  (eq. 3.7)
//   ẋ = [q̇; α̇] = [Q α; H⁻¹(τ - C)]    (eq. 3.8)   ẋ = FD_x(model, x, τ)
//                                                 = [qdfn(model, q, α); FD(model, q, α, τ)]  (eq. 3.9)
//
// α is the velocity vector (rbdref's qd, nv entries) and q the position vector (nq entries):
// they differ for spherical and free joints, whose q holds a unit quaternion (and a position) and
// whose α is the body-frame angular (and linear) velocity: Q(q) is ½ q ⊗ (0, ω) there (and ṗ =
// R(q) v), the identity for every other joint (jcalc.hpp, joint_qdot). FD is ABA (table 7.1).
// x = [q; α] has nq + nv entries; ẋ has nq + nv.
#pragma once

#include "reference/tree/aba.hpp"

#include <string>

namespace rbd {

// q̇ = Q(q) α, joint by joint (eq. 3.7).
template <class T>
VecX<T> qdfn(const Model<T>& model, const VecX<T>& q, const VecX<T>& alpha);


// ẋ = FD_x(model, x, τ) (eq. 3.9); `ok` false (and ẋ empty) when ABA meets a singular articulated
// inertia (H not positive-definite).
template <class T>
struct StateDerivative {
  VecX<T> xdot;
  bool ok = false;
};
template <class T>
StateDerivative<T> fd_x(const Model<T>& model, const VecX<T>& x, const VecX<T>& tau);

// ---- definitions ----

template <class T>
VecX<T> qdfn(const Model<T>& model, const VecX<T>& q, const VecX<T>& alpha) {
  VecX<T> qdot(model.nq);
  for (int i = 0; i < model.NB; ++i)
    joint_qdot<T>(model.joint[i], q.data() + model.iq[i], alpha.data() + model.iv[i], qdot.data() + model.iq[i]);
  return qdot;
}

template <class T>
StateDerivative<T> fd_x(const Model<T>& model, const VecX<T>& x, const VecX<T>& tau) {
  StateDerivative<T> r;
  const VecX<T> q = x.head(model.nq), alpha = x.segment(model.nq, model.nv);
  const AbaResult<T> fd = aba<T>(model, q, alpha, tau);
  if (!fd.ok) return r;
  r.xdot.resize(model.nq + model.nv);
  r.xdot << qdfn<T>(model, q, alpha), fd.qdd;
  r.ok = true;
  return r;
}

#define RBDREF_STATE_SPACE_INSTANTIATE(EXT, T)                                               \
  EXT template VecX<T> qdfn<T>(const Model<T>&, const VecX<T>&, const VecX<T>&);            \
  EXT template StateDerivative<T> fd_x<T>(const Model<T>&, const VecX<T>&, const VecX<T>&);
RBDREF_EXTERN_FOR_EACH_TREE_SCALAR(RBDREF_STATE_SPACE_INSTANTIATE)

}  // namespace rbd
