// CRBA: the joint-space inertia matrix H(q) by the composite-rigid-body algorithm (RBDA table 6.2).
//
// Input: q (nq). Output: H (nv x nv), symmetric, both triangles filled.
//
//   IC_i = I_i                                          (composite inertia, body i coordinates)
//   backward, i = NB-1..0:
//     IC_λ(i) += Xup_iᵀ IC_i Xup_i                      (if λ(i) ≠ -1)
//     F = IC_i S_i                                      (6 x nvi, body i coordinates)
//     H_ii = S_iᵀ F
//     j = i
//     while λ(j) ≠ -1:
//       F = Xup_jᵀ F;  j = λ(j)                         (F to body j coordinates)
//       H_ij = Fᵀ S_j;  H_ji = H_ijᵀ
#pragma once

#include "reference/kinematics.hpp"

namespace rbd {

template <class T>
MatX<T> crba(const Model<T>& model, const VecX<T>& q) {
  const int NB = model.NB;
  const TreeKinematics<T> k = kinematics<T>(model, q, VecX<T>::Zero(model.nv));
  std::vector<Mat6<T>> IC(NB);
  for (int i = 0; i < NB; ++i) IC[i] = model.I[i].M;
  MatX<T> H = MatX<T>::Zero(model.nv, model.nv);
  for (int i = NB - 1; i >= 0; --i) {
    const int p = model.parent[i];
    if (p >= 0) IC[p] += transform_inertia_to_parent<T>(k.Xup[i], IC[i]);
    Mat6K<T> F = IC[i] * k.S[i];
    const int vi = model.iv[i], ni = model.nvi[i];
    H.block(vi, vi, ni, ni) = k.S[i].transpose() * F;
    for (int j = i; model.parent[j] >= 0;) {
      F = apply_transpose<T>(k.Xup[j], F);
      j = model.parent[j];
      const int vj = model.iv[j], nj = model.nvi[j];
      H.block(vi, vj, ni, nj) = F.transpose() * k.S[j];
      H.block(vj, vi, nj, ni) = H.block(vi, vj, ni, nj).transpose();
    }
  }
  return H;
}

#define RBDREF_CRBA_INSTANTIATE(EXT, T) EXT template MatX<T> crba<T>(const Model<T>&, const VecX<T>&);
#define RBDREF_CRBA_EXTERN(T) RBDREF_CRBA_INSTANTIATE(extern, T)
RBDREF_FOR_EACH_SCALAR(RBDREF_CRBA_EXTERN)
#undef RBDREF_CRBA_EXTERN

}  // namespace rbd
