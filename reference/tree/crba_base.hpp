// CRBA (RBDA table 6.2) with its off-diagonal step in base coordinates: the same H(q) as crba()
// (reference/tree/crba.hpp), for deep trees, where that step is the cost.
//
//   MatX<T> crba_base(model, q)      drop-in for crba(model, q)
//
// Table 6.2 carries F = IC_i S_i up the path of body i, F ← Xup_jᵀ F, one spatial transform per
// (body, ancestor) pair, and reads H_ji = S_jᵀ F in body j's coordinates: on a chain of n bodies
// n²/2 transforms (~24 multiplications each). The scalar product of a motion and a force does not
// depend on the coordinates they are written in (RBDA §2.9: (X m)·(X* f) = m·f), and the F that
// reaches body j is ʲX_i* F_i = ʲX_r* ʳX_i* F_i for any common frame r, so with r the root body
// of the tree (a base frame)
//     H_ji = S_jᵀ ʲX_i* F_i = (ʳX_j S_j)ᵀ (ʳX_i* F_i) = S0_jᵀ F0_i,
// with S0_j = ʳX_j S_j once per body and F0_i = ⁱX_rᵀ F_i (the force to base coordinates) once per
// body: one 6-vector dot product per pair of DoFs, as ltdl_articulated (ltdl_articulated.hpp) forms
// L. The composite inertias and the diagonal blocks are table 6.2's, as crba() computes them.
//
// Rounding: the products are taken about the base origin instead of each joint, so an entry's
// error is relative to |S0_j| |F0_i|, which grows with the bodies' distance from that origin
// (moments r × f): H_ji is the difference of terms up to |r| / (lever arm of F_i about joint j)
// times larger than itself. Measured against crba() (scale_test.cpp, CrbaBase.*): ≤ 0.1 n ε of
// max|H| on deep random chains and trees; the world origin would cost two digits on a mechanism
// mounted far from it (84 n ε on far_arm), the root body's costs none. A fixture certifies each
// entry against the check precision's own crba_base all the same.
// evaluate() and the checks use it where table 6.3 is not affordable (Σ depth² > kFactorBudget,
// checks/properties.hpp: chains from ~370 DoFs), crba() everywhere else.
#pragma once

#include "reference/tree/crba.hpp"

namespace rbd {

template <class T>
MatX<T> crba_base(const Model<T>& model, const VecX<T>& q) {
  const int NB = model.NB;
  const TreeKinematics<T> k = kinematics<T>(model, q, VecX<T>::Zero(model.nv), 0);
  std::vector<Mat6<T>> IC(NB);
  for (int i = 0; i < NB; ++i) IC[i] = model.I[i].M;
  // ⁱX_r, from the coordinates of the root body r of i's tree to body i's (the base frame of the
  // note above is r's: every pair lies within one tree, and r's origin is the nearest common one;
  // the world origin can be far from the mechanism), and S0_i = ʳX_i S_i.
  std::vector<Xform<T>> Xr(NB);
  std::vector<Mat6K<T>> S0(NB);
  for (int i = 0; i < NB; ++i) {
    const int p = model.parent[i];
    Xr[i] = p < 0 ? Xform<T>::identity() : k.Xup[i] * Xr[p];
    S0[i] = apply<T>(Xr[i].inverse(), k.S[i]);
  }
  MatX<T> H = MatX<T>::Zero(model.nv, model.nv);
  for (int i = NB - 1; i >= 0; --i) {
    const int p = model.parent[i];
    if (p >= 0) IC[p] += transform_rigid_inertia_to_parent<T>(k.Xup[i], IC[i]);
    const int vi = model.iv[i], ni = model.nvi[i];
    if (ni == 0) continue;
    Mat6K<T> F(6, ni);
    for (int c = 0; c < ni; ++c) F.col(c) = I_times_S_col<T>(IC[i], k, i, c);
    for (int r = 0; r < ni; ++r)
      for (int c = 0; c <= r; ++c) H(vi + c, vi + r) = H(vi + r, vi + c) = S_col_dot<T>(k, i, c, F.col(r));
    const Mat6K<T> F0 = apply_transpose<T>(Xr[i], F);  // F_i in its root's coordinates
    for (int j = p; j >= 0; j = model.parent[j]) {
      const int vj = model.iv[j], nj = model.nvi[j];
      for (int r = 0; r < ni; ++r)
        for (int c = 0; c < nj; ++c) H(vj + c, vi + r) = H(vi + r, vj + c) = S0[j].col(c).dot(F0.col(r));
    }
  }
  if (model.has_armature)
    for (int d = 0; d < model.nv; ++d) H(d, d) += model.armature[d];  // JointDesc::armature
  return H;
}

#define RBDREF_CRBA_BASE_INSTANTIATE(EXT, T) EXT template MatX<T> crba_base<T>(const Model<T>&, const VecX<T>&);
RBDREF_EXTERN_FOR_EACH_TREE_SCALAR(RBDREF_CRBA_BASE_INSTANTIATE)

}  // namespace rbd
