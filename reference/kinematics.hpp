// Forward kinematics and body velocities: the first (outward) pass shared by RNEA (RBDA table 5.1)
// and ABA (table 7.1), and used on its own by CRBA, the energies and the Jacobians.
//
// For i = 0..NB-1 (λ(i) < i):
//   [XJ, S_i, vJ, cJ] = jcalc(joint i, q_i, qd_i)
//   Xup_i = XJ Xtree_i                    (iXλ(i))
//   X0_i  = Xup_i X0_λ(i)                 (iX0; X0_-1 = 1)
//   v_i   = Xup_i v_λ(i) + vJ             (v_-1 = 0)
//   c_i   = cJ + v_i × vJ                 (the velocity-product term c_i of RBDA table 7.1)
// Preconditions: q has nq entries, qd has nv entries (zero vector for position-only use).
#pragma once

#include "reference/model.hpp"

#include <vector>

namespace rbd {

template <class T>
struct TreeKinematics {
  std::vector<Xform<T>> Xup;   // iXλ(i), parent to body i coordinates (NB)
  std::vector<Xform<T>> X0;    // iX0, base to body i coordinates (NB)
  std::vector<Mat6K<T>> S;     // motion subspace of joint i, body i coordinates, 6 x nvi (NB)
  std::vector<Motion<T>> v;    // spatial velocity of body i, body i coordinates (NB)
  std::vector<Motion<T>> c;    // cJ + v_i × vJ, body i coordinates (NB)
};

template <class T>
TreeKinematics<T> kinematics(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd) {
  const int NB = model.NB;
  TreeKinematics<T> k;
  k.Xup.resize(NB);
  k.X0.resize(NB);
  k.S.resize(NB);
  k.v.resize(NB);
  k.c.resize(NB);
  for (int i = 0; i < NB; ++i) {
    const JointKinematics<T> J = jcalc<T>(model.joint[i], q.data() + model.iq[i], qd.data() + model.iv[i]);
    const int p = model.parent[i];
    k.Xup[i] = J.XJ * model.Xtree[i];
    k.X0[i] = p < 0 ? k.Xup[i] : k.Xup[i] * k.X0[p];
    k.S[i] = J.S;
    k.v[i] = p < 0 ? J.vJ : k.Xup[i].apply(k.v[p]) + J.vJ;
    k.c[i] = J.cJ + crm<T>(k.v[i], J.vJ);
  }
  return k;
}

}  // namespace rbd
