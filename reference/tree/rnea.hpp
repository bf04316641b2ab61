// RNEA: inverse dynamics by the recursive Newton-Euler algorithm (RBDA table 5.1;
// Carius's spatial-algebra notes, 2018, eqs. 30-38).
//
//   tau = rnea(model, q, qd, qdd, f_ext)     tau = H(q) qdd + C(q, qd, f_ext)
//   C   = bias(model, q, qd, f_ext)          rnea with qdd = 0 (Coriolis, centrifugal, gravity)
//
// Inputs: q (nq), qd, qdd (nv); f_ext (optional, NB) the external force on body i in body i
// coordinates. Output: tau (nv), the joint forces.
//
//   a_-1 = -a_g                                                   (gravity as a base acceleration)
//   forward, i = 0..NB-1:
//     a_i = Xup_i a_λ(i) + S_i qdd_i + c_i                        (c_i = cJ + v_i × vJ)
//     f_i = I_i a_i + v_i ×* I_i v_i - f_ext_i                    (Carius eqs. 36-37)
//   backward, i = NB-1..0:
//     tau_i = S_iᵀ f_i                                            (eq. 38)
//     f_λ(i) += Xup_iᵀ f_i                                        (force to parent coordinates)
//
// As written, with three cheaper forms of the same products: the world transforms X0 are not
// computed (kinematics without kWorldTransforms); I_i v is the rigid-body product from the 10
// inertia parameters (rigid_inertia_times, spatial.hpp); S_i qdd_i and S_iᵀ f_i are entry reads
// when S_i is made of unit coordinate columns (add_S_times, S_col_dot, kinematics.hpp). The
// workspace form (workspace.hpp) writes τ into the caller's vector and allocates nothing. For the
// scalars that are not built-in, Xup a, I v, v ×* f and Xupᵀ f are computed in place
// (spatial.hpp, kInPlace): the same operations in the same order, equal bit for bit, without a
// temporary value per operation.
#pragma once

#include "reference/tree/workspace.hpp"

namespace rbd {

// Workspace form (workspace.hpp): τ into `tau` (resized to nv if it is not), scratch in ws.
template <class T>
void rnea(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& qdd, TreeWorkspace<T>& ws, VecX<T>& tau,
          const std::vector<Force<T>>* f_ext = nullptr) {
  const int NB = model.NB;
  kinematics_into<T>(model, q, qd, kVelocities, ws.k);
  const TreeKinematics<T>& k = ws.k;
  if (ws.a.size() != static_cast<size_t>(NB)) ws.a.resize(static_cast<size_t>(NB)), ws.f.resize(static_cast<size_t>(NB));
  std::vector<Motion<T>>& a = ws.a;
  std::vector<Force<T>>& f = ws.f;
  const Motion<T> a0 = -model.a_grav();
  for (int i = 0; i < NB; ++i) {
    const int p = model.parent[i];
    k.Xup[i].apply_into(p < 0 ? a0 : a[p], a[i]);
    a[i] += k.c[i];
    add_S_times<T>(k, i, qdd.data() + model.iv[i], a[i]);
    const Mat6<T>& I = model.I[i].M;
    f[i] = rigid_inertia_times<T>(I, a[i]);
    f[i] += crf<T>(k.v[i], rigid_inertia_times<T>(I, k.v[i]));
    if (f_ext) f[i] -= (*f_ext)[i];
  }
  if (tau.size() != model.nv) tau.resize(model.nv);
  Force<T> fp;  // Xup_iᵀ f_i
  for (int i = NB - 1; i >= 0; --i) {
    for (int j = 0; j < model.nvi[i]; ++j) tau(model.iv[i] + j) = S_col_dot<T>(k, i, j, f[i].c);
    if (model.has_armature)  // the rotors' joint-space inertia (JointDesc::armature)
      for (int j = 0; j < model.nvi[i]; ++j) tau(model.iv[i] + j) += model.armature[model.iv[i] + j] * qdd(model.iv[i] + j);
    const int p = model.parent[i];
    if (p >= 0) {
      k.Xup[i].transpose_into(f[i].c, fp.c);
      f[p] += fp;
    }
  }
}

// C(q, qd) = rnea(q, qd, 0), workspace form.
template <class T>
void bias(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, TreeWorkspace<T>& ws, VecX<T>& C,
          const std::vector<Force<T>>* f_ext = nullptr) {
  if (ws.zero.size() != model.nv) ws.zero = VecX<T>::Zero(model.nv);
  rnea<T>(model, q, qd, ws.zero, ws, C, f_ext);
}

template <class T>
VecX<T> rnea(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& qdd,
             const std::vector<Force<T>>* f_ext = nullptr) {
  TreeWorkspace<T> ws;
  VecX<T> tau(model.nv);
  rnea<T>(model, q, qd, qdd, ws, tau, f_ext);
  return tau;
}

// C(q, qd) = rnea(q, qd, 0): the joint forces that produce zero acceleration.
template <class T>
VecX<T> bias(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd,
             const std::vector<Force<T>>* f_ext = nullptr) {
  return rnea<T>(model, q, qd, VecX<T>::Zero(model.nv), f_ext);
}

#define RBDREF_RNEA_INSTANTIATE(EXT, T)                                                                   \
  EXT template void rnea<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, const VecX<T>&, TreeWorkspace<T>&, \
                            VecX<T>&, const std::vector<Force<T>>*);                                    \
  EXT template void bias<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, TreeWorkspace<T>&, VecX<T>&, \
                            const std::vector<Force<T>>*);                                              \
  EXT template VecX<T> rnea<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, const VecX<T>&,           \
                               const std::vector<Force<T>>*);                                           \
  EXT template VecX<T> bias<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, const std::vector<Force<T>>*);
RBDREF_EXTERN_FOR_EACH_TREE_SCALAR(RBDREF_RNEA_INSTANTIATE)

}  // namespace rbd
