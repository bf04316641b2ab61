// Body Jacobians and velocity-product accelerations (RBDA §8.3, eqs. for loop constraints and
// §11.3 for contacts: v_i = J_i qd, a_i = J_i qdd + a_i^vp).
//
//   J_i (6 x nv, body i coordinates): column block of joint j is iX_j S_j when j is i or an
//       ancestor of i, zero otherwise; iX_j = Xup_i Xup_λ(i) ... down to j.
//   avp_i (body i coordinates): the acceleration of body i at qdd = 0 without gravity,
//       avp_i = Xup_i avp_λ(i) + c_i  (c_i = cJ + v_i × vJ).
#pragma once

#include "reference/tree/kinematics.hpp"

namespace rbd {

template <class T>
MatX<T> body_jacobian(const Model<T>& model, const VecX<T>& q, int body) {
  const TreeKinematics<T> k = kinematics<T>(model, q, VecX<T>::Zero(model.nv));
  MatX<T> J = MatX<T>::Zero(6, model.nv);
  Xform<T> X = Xform<T>::identity();  // iX_j, starting at j = i
  for (int j = body; j >= 0; j = model.parent[j]) {
    J.block(0, model.iv[j], 6, model.nvi[j]) = apply<T>(X, k.S[j]);
    X = X * k.Xup[j];
  }
  return J;
}

template <class T>
std::vector<Motion<T>> velocity_product_accelerations(const Model<T>& model, const VecX<T>& q,
                                                      const VecX<T>& qd) {
  const TreeKinematics<T> k = kinematics<T>(model, q, qd);
  std::vector<Motion<T>> avp(model.NB);
  for (int i = 0; i < model.NB; ++i) {
    const int p = model.parent[i];
    avp[i] = (p < 0 ? Motion<T>() : k.Xup[i].apply(avp[p])) + k.c[i];
  }
  return avp;
}

#define RBDREF_JACOBIAN_INSTANTIATE(EXT, T)                                                        \
  EXT template MatX<T> body_jacobian<T>(const Model<T>&, const VecX<T>&, int);                     \
  EXT template std::vector<Motion<T>> velocity_product_accelerations<T>(const Model<T>&, const VecX<T>&, \
                                                                        const VecX<T>&);
RBDREF_EXTERN_FOR_EACH_TREE_SCALAR(RBDREF_JACOBIAN_INSTANTIATE)

}  // namespace rbd
