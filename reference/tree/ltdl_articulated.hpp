// The LᵀDL factor of the joint-space inertia matrix H(q) (RBDA table 6.3's factor, the one
// ltdl(H, λ) computes), obtained from articulated-body inertias in O(n d) operations for depth d,
// without forming H: RBDA §6.4 and §7.3; R. Featherstone, "Efficient factorization of the
// joint-space inertia matrix for branched kinematic trees", IJRR 24(6), 2005.
//
//   SparseFactor<T> ltdl_articulated(model, q)      drop-in for ltdl(crba(model, q), model.dof_parent)
//
// Derivation. Table 6.3 runs k = n-1 .. 0; when it reaches DoF k, rows and columns 0..k of its
// working matrix hold the Schur complement H⁽ᵏ⁾ = H_RR - H_RE H_EE⁻¹ H_ER, R = {0..k}, E = {k+1..n-1}
// (Gaussian elimination from the bottom), and it stores L_ki = H⁽ᵏ⁾_ki / H⁽ᵏ⁾_kk, D_k = H⁽ᵏ⁾_kk.
// The Schur complement is the joint-space inertia of the tree whose DoFs in E are free with zero
// joint force: from H [q̈_R; q̈_E] = [τ_R; 0], q̈_E = -H_EE⁻¹ H_ER q̈_R and H⁽ᵏ⁾ q̈_R = τ_R (zero
// velocity, no gravity: H is the linear part of inverse dynamics). Let b be the body of DoF k and
// k the last DoF of b's joint. In regular numbering E contains every DoF of b's descendants
// (plus DoFs of other branches, which do not touch row k). The force across joint b is then the
// force on b as the handle of its subtree of free joints, f_b = I^A_b a_b (RBDA §7.2-7.3, eq. 7.20
// with zero bias force), where I^A_b is the articulated-body inertia of table 7.1's pass 2:
//     I^A_b = I_b + Σ_{c child of b} ᶜX_bᵀ (I^A_c - U_c D_c⁻¹ U_cᵀ) ᶜX_b,   U_c = I^A_c S_c,
//     D_c = S_cᵀ U_c  (velocity terms zero).
// a_b depends only on q̈ of b's own and ancestor DoFs: a_b = Σ_j ᵇX_{body(j)} S_j q̈_j. So the rows
// of b's joint in the Schur complement are, for every ancestor body j (and j = b),
//     H⁽ᵏ⁾(b, j) = S_bᵀ I^A_b ᵇX_j S_j,        in particular B = H⁽ᵏ⁾(b, b) = S_bᵀ I^A_b S_b,
// and zero against non-ancestors. Within b's joint, λ(k) is the previous DoF of the same joint
// (Model::dof_parent), so table 6.3 eliminates b's n_b DoFs one by one, last first, touching only
// [A Mᵀ; M B] with M = H⁽ᵏ⁾(b, ancestors): that is the scalar LᵀDL of the n_b x n_b block,
// B = L_Bᵀ D_B L_B (per-DoF L and D inside the joint), and, matching [A Mᵀ; M B] = Lᵀ D L blockwise,
// M = L_Bᵀ D_B L_{b,anc}, i.e.
//     L(b, j) = D_B⁻¹ L_B⁻ᵀ S_bᵀ I^A_b ᵇX_j S_j = G_bᵀ ᵇX_j S_j,    G_b = U_b L_B⁻¹ D_B⁻¹  (6 x n_b).
// What remains on the ancestors, A - Mᵀ B⁻¹ M, is the Schur complement with b's joint free too:
// exactly ABA's I^A_b - U_b B⁻¹ U_bᵀ = I^A_b - G_b D_B G_bᵀ passed to the parent (table 7.1), so
// the recursion closes. D_B holds table 6.3's pivots: H is positive-definite iff all are > 0.
//
// Algorithm (leaf first, as table 7.1's pass 2 and table 6.2's CRBA):
//   Xup, S from kinematics(q, 0);  IA_i = I_i
//   for b = NB-1 .. 0:
//     U = IA_b S_b;  B = S_bᵀ U;  table 6.3 on B with λ(r) = r - 1: B = L_Bᵀ D_B L_B
//     W = U L_B⁻¹;  G = W D_B⁻¹;   LD(b, b) = [L_B strictly below, D_B on the diagonal]
//     G0 = ᵇX_0ᵀ G  (forces to base coordinates);  for every ancestor j:  LD(b, j) = G0ᵀ S0_j,
//                   S0_j = ⁰X_j S_j once per body: since ᵇX_j = ᵇX_0 ⁰X_j, Gᵀ ᵇX_j S_j = G0ᵀ S0_j
//                   (CRBA's way, F = Xup_jᵀ F up the path, costs a spatial transform per pair;
//                   this is one 6-vector dot product per DoF pair)
//     IA_λ(b) += Xup_bᵀ (IA_b - W Gᵀ) Xup_b          (W Gᵀ = U B⁻¹ Uᵀ)
// Cost: O(1) spatial work per body plus 6 multiply-adds per (DoF, ancestor DoF) pair: O(n d)
// (O(n²) for a chain, where table 6.3 on H is O(n d²) = O(n³)); no H is formed.
//
// Output: the SparseFactor of ltdl() (reference/tree/ltdl.hpp): LD (nv x nv) with D on the diagonal and
// L in the strict lower triangle at the ancestor entries; unlike ltdl, every other entry (the
// upper triangle, the non-ancestor entries) is 0, not H's (they are never read). lambda =
// model.dof_parent, unit = true. A pivot that is not positive stops the factorization:
// ok = false, failed_at = that DoF (the same DoF ltdl stops at, up to rounding), min_pivot = the
// smallest pivot computed (the failed one included); otherwise min_pivot = min D. The entries equal
// ltdl's up to rounding (a different order of operations): ~ε κ(H)-level relative.
#pragma once

#include "reference/tree/kinematics.hpp"
#include "reference/tree/ltdl.hpp"

namespace rbd {

template <class T>
SparseFactor<T> ltdl_articulated(const Model<T>& model, const VecX<T>& q) {
  const int NB = model.NB;
  const TreeKinematics<T> k = kinematics<T>(model, q, VecX<T>::Zero(model.nv));
  std::vector<Mat6<T>> IA(NB);
  for (int i = 0; i < NB; ++i) IA[i] = model.I[i].M;
  std::vector<Mat6K<T>> S0(NB);  // ⁰X_i S_i: motion subspaces in base coordinates
  for (int i = 0; i < NB; ++i) S0[i] = apply<T>(k.X0[i].inverse(), k.S[i]);
  SparseFactor<T> f;
  f.LD = MatX<T>::Zero(model.nv, model.nv);
  f.lambda = model.dof_parent;
  f.unit = true;
  bool have_pivot = false;
  for (int b = NB - 1; b >= 0; --b) {
    const int vb = model.iv[b], nb = model.nvi[b];
    const int p = model.parent[b];
    if (nb == 0) {  // no DoF: the body is rigidly part of its parent's articulated body
      if (p >= 0) IA[p] += transform_inertia_to_parent<T>(k.Xup[b], IA[b]);
      continue;
    }
    const Mat6K<T> U = IA[b] * k.S[b];
    MatK<T> B = k.S[b].transpose() * U;
    if (model.has_armature)  // the joint's block of H gains the armature (JointDesc::armature)
      for (int r = 0; r < nb; ++r) B(r, r) += model.armature[vb + r];
    // Table 6.3 on the joint's block, last DoF first (λ within a joint: the previous DoF).
    for (int r = nb - 1; r >= 0; --r) {
      const T piv = B(r, r);
      if constexpr (!kIsInterval<T>)  // a diagnostic; on intervals left 0 (ltdl.hpp)
        if (!have_pivot || piv < f.min_pivot) f.min_pivot = piv;
      have_pivot = true;
      if (!(piv > T(0))) {
        f.ok = false;
        f.failed_at = vb + r;
        return f;
      }
      for (int i = r - 1; i >= 0; --i) {
        const T a = B(r, i) / piv;
        for (int j = i; j >= 0; --j) B(i, j) -= a * B(r, j);
        B(r, i) = a;
      }
    }
    // W = U L_B⁻¹ (W L_B = U, L_B unit lower: columns last to first); G = W D_B⁻¹.
    Mat6K<T> W = U;
    for (int c = nb - 1; c >= 0; --c)
      for (int r = c + 1; r < nb; ++r) W.col(c) -= W.col(r) * B(r, c);
    Mat6K<T> G(6, nb);
    for (int c = 0; c < nb; ++c) G.col(c) = W.col(c) / B(c, c);
    for (int r = 0; r < nb; ++r)
      for (int c = 0; c <= r; ++c) f.LD(vb + r, vb + c) = B(r, c);
    // L(b, j) = Gᵀ ᵇX_j S_j = (ᵇX_0ᵀ G)ᵀ (⁰X_j S_j): G as forces in base coordinates, once per
    // body, against the motion subspaces in base coordinates, one dot product per DoF pair.
    const Mat6K<T> G0 = apply_transpose<T>(k.X0[b], G);
    for (int j = model.parent[b]; j >= 0; j = model.parent[j])
      for (int r = 0; r < nb; ++r)  // (G0ᵀ S0_j)(r, c) column by column: no temporary matrix per pair
        for (int c = 0; c < model.nvi[j]; ++c) f.LD(vb + r, model.iv[j] + c) = G0.col(r).dot(S0[j].col(c));
    if (p >= 0) IA[p] += transform_inertia_to_parent<T>(k.Xup[b], Mat6<T>(IA[b] - W * G.transpose()));
  }
  if (!have_pivot) f.min_pivot = T(0);
  return f;
}

#define RBDREF_LTDL_ARTICULATED_INSTANTIATE(EXT, T) \
  EXT template SparseFactor<T> ltdl_articulated<T>(const Model<T>&, const VecX<T>&);
RBDREF_EXTERN_FOR_EACH_TREE_SCALAR(RBDREF_LTDL_ARTICULATED_INSTANTIATE)

}  // namespace rbd
