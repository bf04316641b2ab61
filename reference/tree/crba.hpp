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
//   H_dd += a_d                                         (armature, per DoF: JointDesc::armature)
//
// As written, with cheaper forms of the same products: IC_λ(i) += Xup_iᵀ IC_i Xup_i is the
// rigid-body transform of the 10 inertia parameters added into IC_λ(i)
// (add_rigid_inertia_to_parent, spatial.hpp: every composite is a sum of rigid-body inertias, so
// of that form), equal to the dense XᵀIX of the table up to rounding; F is taken to the parent
// column by column in place; IC_i S_i and Sᵀ F are column and entry reads when S is made of unit
// coordinate columns (kinematics.hpp); only Xup and S are computed by the kinematics (no X0, no
// velocities). Xup_jᵀ F, and for the scalars that are not built-in Xup_iᵀ IC_i Xup_i, are
// computed in place (spatial.hpp, inplace.hpp): the same operations in the same order as the
// expressions, equal bit for bit, without a temporary value per operation. The workspace form
// (workspace.hpp) writes H into the caller's matrix and allocates nothing.
//
// Where every subtree's DoFs are contiguous (a depth-first numbering: URDF, MJCF and the bundled
// models), the walk is reordered, not changed: F holds, in body i's coordinates, the columns
// IC_j S_j of every DoF of i's subtree; row block i of H is S_iᵀ F over them, and then the whole
// block is taken to λ(i) at once. Each column meets the same transforms in the same order as in
// the table's walk, and each entry the same S_iᵀ F, so H is the same bit for bit; the numbering
// test falls back to the walk otherwise. Fewer instructions on the humanoid at double
// (docs/benchmarks.md, "Tree algorithms: choices measured once").
#pragma once

#include "reference/tree/workspace.hpp"

#include <algorithm>

namespace rbd {

// Workspace form (workspace.hpp): H into `H` (resized to nv x nv if it is not), scratch in ws.
template <class T>
void crba(const Model<T>& model, const VecX<T>& q, TreeWorkspace<T>& ws, MatX<T>& H) {
  const int NB = model.NB;
  if (ws.zero.size() != model.nv) ws.zero = VecX<T>::Zero(model.nv);
  kinematics_into<T>(model, q, ws.zero, 0, ws.k);
  const TreeKinematics<T>& k = ws.k;
  if (ws.Ic.size() != static_cast<size_t>(NB)) ws.Ic.resize(static_cast<size_t>(NB));
  std::vector<Mat6<T>>& IC = ws.Ic;
  for (int i = 0; i < NB; ++i) IC[i] = model.I[i].M;
  if (H.rows() != model.nv || H.cols() != model.nv) H.resize(model.nv, model.nv);
  inplace::set_zero(H);
  Mat6<T> XIX;  // scratch of add_rigid_inertia_to_parent
  // Contiguous subtrees (see above): subtree_end[i] is one past the last DoF of i's subtree, and
  // the subtree's DoF count must equal the range's length.
  const auto n = static_cast<size_t>(NB);
  if (ws.subtree_end.size() != n) ws.subtree_end.resize(n), ws.subtree_count.resize(n);
  std::vector<int>& end_of = ws.subtree_end;
  std::vector<int>& count = ws.subtree_count;
  for (int i = 0; i < NB; ++i) end_of[i] = model.iv[i] + model.nvi[i], count[i] = model.nvi[i];
  bool contiguous = true;
  for (int i = NB - 1; i >= 0; --i) {  // children (higher indices) are complete before i is read
    if (count[i] != end_of[i] - model.iv[i]) contiguous = false;
    const int p = model.parent[i];
    if (p >= 0) end_of[p] = std::max(end_of[p], end_of[i]), count[p] += count[i];
  }
  if (contiguous) {
    auto& F = ws.F;
    if (F.cols() != model.nv) F.resize(6, model.nv);
    for (int i = NB - 1; i >= 0; --i) {
      const int p = model.parent[i];
      if (p >= 0) add_rigid_inertia_to_parent<T>(k.Xup[i], IC[i], IC[p], XIX);
      const int vi = model.iv[i], ni = model.nvi[i], end = end_of[i];
      for (int c = 0; c < ni; ++c) F.col(vi + c) = I_times_S_col<T>(IC[i], k, i, c);
      // Row block i of H against its own DoFs and its subtree's: S_iᵀ F, mirrored.
      for (int r = 0; r < ni; ++r) {
        for (int c = 0; c <= r; ++c) H(vi + c, vi + r) = H(vi + r, vi + c) = S_col_dot<T>(k, i, c, F.col(vi + r));
        for (int c = vi + ni; c < end; ++c) H(c, vi + r) = H(vi + r, c) = S_col_dot<T>(k, i, r, F.col(c));
      }
      if (p >= 0) k.Xup[i].transpose_cols_into(F.middleCols(vi, end - vi));  // to the parent's coordinates
    }
  } else {  // table 6.2's walk, column by column, from each body to the base
    Mat6K<T> F;
    for (int i = NB - 1; i >= 0; --i) {
      const int p = model.parent[i];
      if (p >= 0) add_rigid_inertia_to_parent<T>(k.Xup[i], IC[i], IC[p], XIX);
      const int vi = model.iv[i], ni = model.nvi[i];
      F.resize(6, ni);
      for (int c = 0; c < ni; ++c) F.col(c) = I_times_S_col<T>(IC[i], k, i, c);
      // The joint's own block S_iᵀ IC_i S_i: each pair once, so that H is symmetric to the last bit
      // (fixtures store it once) — entry (r, c) of the product, written also at (c, r).
      for (int r = 0; r < ni; ++r)
        for (int c = 0; c <= r; ++c) H(vi + c, vi + r) = H(vi + r, vi + c) = S_col_dot<T>(k, i, c, F.col(r));
      for (int j = i; model.parent[j] >= 0;) {
        for (int c = 0; c < ni; ++c) k.Xup[j].transpose_into(F.col(c), F.col(c));  // F.col(c) = Xup_jᵀ F.col(c)
        j = model.parent[j];
        const int vj = model.iv[j], nj = model.nvi[j];
        for (int r = 0; r < ni; ++r)
          for (int c = 0; c < nj; ++c) H(vj + c, vi + r) = H(vi + r, vj + c) = S_col_dot<T>(k, j, c, F.col(r));
      }
    }
  }
  if (model.has_armature)
    for (int d = 0; d < model.nv; ++d) H(d, d) += model.armature[d];  // JointDesc::armature
}

template <class T>
MatX<T> crba(const Model<T>& model, const VecX<T>& q) {
  TreeWorkspace<T> ws;
  MatX<T> H(model.nv, model.nv);
  crba<T>(model, q, ws, H);
  return H;
}

#define RBDREF_CRBA_INSTANTIATE(EXT, T)                                                 \
  EXT template void crba<T>(const Model<T>&, const VecX<T>&, TreeWorkspace<T>&, MatX<T>&); \
  EXT template MatX<T> crba<T>(const Model<T>&, const VecX<T>&);
RBDREF_EXTERN_FOR_EACH_TREE_SCALAR(RBDREF_CRBA_INSTANTIATE)

}  // namespace rbd
