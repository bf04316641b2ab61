// ABA: forward dynamics by the articulated-body algorithm (RBDA table 7.1), for joints of any
// number of DoFs.
//
// Inputs: q (nq), qd, tau (nv); f_ext (optional, NB) external force on body i, body i coordinates.
// Output: qdd (nv) with H qdd + C(q, qd, f_ext) = tau. A singular articulated-body pivot D_i
// (H not positive-definite) is reported in `ok` / `failed_at`, not divided by.
//
//   pass 1, i = 0..NB-1:  Xup_i, S_i, v_i, c_i = cJ + v_i × vJ  (kinematics.hpp)
//                         IA_i = I_i;  pA_i = v_i ×* I_i v_i - f_ext_i
//   pass 2, i = NB-1..0:  U_i = IA_i S_i;  D_i = S_iᵀ U_i (+ diag of the armature);  u_i = tau_i - S_iᵀ pA_i
//                         Ia = IA_i - U_i D_i⁻¹ U_iᵀ
//                         pa = pA_i + Ia c_i + U_i D_i⁻¹ u_i
//                         IA_λ(i) += Xup_iᵀ Ia Xup_i;  pA_λ(i) += Xup_iᵀ pa
//   pass 3, i = 0..NB-1:  a'_i = Xup_i a_λ(i) + c_i         (a_-1 = -a_g)
//                         qdd_i = D_i⁻¹ (u_i - U_iᵀ a'_i)
//                         a_i = a'_i + S_i qdd_i
//
// As written, with cheaper forms of the same products: Xup_iᵀ Ia Xup_i uses the block structure
// of Xup_i (transform_articulated_inertia_to_parent, spatial.hpp; Ia is a general symmetric 6x6,
// not a rigid-body inertia), equal to the dense XᵀIX up to rounding; I_i v_i is the rigid-body
// product of the 10 parameters; a 1-DoF joint's D_i is a scalar (divisions by D_i, no LDLᵀ
// factor; the positivity check is D_i > 0), and D_i⁻¹ is kept for pass 3;
// IA S, Sᵀ p and S qdd are column and entry reads when S is made of unit coordinate columns
// (kinematics.hpp); the kinematics skip X0. For the scalars that are not built-in the per-body
// products (Xup a, Xupᵀ f, v ×* I v, Xup_iᵀ Ia Xup_i) are computed in place into values made once
// per call (spatial.hpp, kInPlace): the same operations in the same order, equal bit for bit,
// with no temporary value per operation (at MPFR's run-time precision, a heap block each). The
// workspace form (workspace.hpp) writes q̈ into the caller's vector and allocates nothing.
#pragma once

#include "reference/tree/workspace.hpp"

#include <Eigen/Cholesky>

namespace rbd {

template <class T>
struct AbaResult {
  VecX<T> qdd;         // (nv)
  bool ok = true;      // every D_i positive-definite
  int failed_at = -1;  // body whose D_i was not
  std::vector<Mat6<T>> IA;  // articulated-body inertias I_i^A, body coordinates (NB), when ok: the
                            // inertia of body i as the handle of the subtree it supports (eq. 11.56)
};

// Workspace form (workspace.hpp): q̈ into `qdd` (resized to nv if it is not), scratch in ws; false
// (ws.failed_at the body) when some D_i is not positive-definite, qdd then unspecified. ws.Ic holds
// the articulated-body inertias I_i^A afterwards.
template <class T>
bool aba(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau, TreeWorkspace<T>& ws, VecX<T>& qdd,
         const std::vector<Force<T>>* f_ext = nullptr) {
  const int NB = model.NB;
  const auto n = static_cast<size_t>(NB);
  kinematics_into<T>(model, q, qd, kVelocities, ws.k);
  const TreeKinematics<T>& k = ws.k;
  if (ws.Ic.size() != n) ws.Ic.resize(n);
  if (ws.f.size() != n) ws.a.resize(n), ws.f.resize(n);
  if (ws.U.size() != n) ws.U.resize(n), ws.Dinv.resize(n), ws.u.resize(n);
  std::vector<Mat6<T>>& IA = ws.Ic;
  std::vector<Force<T>>& pA = ws.f;
  std::vector<Mat6K<T>>& U = ws.U;
  std::vector<MatK<T>>& Dinv = ws.Dinv;  // D_i⁻¹ (nvi x nvi; D_i SPD when H is)
  std::vector<VecK<T>>& u = ws.u;
  ws.failed_at = -1;
  for (int i = 0; i < NB; ++i) {
    IA[i] = model.I[i].M;
    pA[i] = crf<T>(k.v[i], rigid_inertia_times<T>(model.I[i].M, k.v[i]));
    if (f_ext) pA[i] -= (*f_ext)[i];
  }
  MatK<T> D;       // D_i = S_iᵀ U_i
  MatK<T> DinvUt;  // D_i⁻¹ U_iᵀ (nvi x 6)
  Mat6<T> Ia, XIX;  // Ia, and Xup_iᵀ Ia Xup_i
  Force<T> pa, fp;  // pa, and Xup_iᵀ pa
  T s1, s2, s3;     // scratch of the in-place products
  for (int i = NB - 1; i >= 0; --i) {
    const int ni = model.nvi[i], vi = model.iv[i];
    U[i].resize(6, ni);
    u[i].resize(ni);
    for (int c = 0; c < ni; ++c) {
      U[i].col(c) = I_times_S_col<T>(IA[i], k, i, c);
      u[i](c) = tau(vi + c) - S_col_dot<T>(k, i, c, pA[i].c);
    }
    D.resize(ni, ni);
    for (int rr = 0; rr < ni; ++rr)
      for (int c = 0; c < ni; ++c) D(rr, c) = S_col_dot<T>(k, i, rr, U[i].col(c));
    if (model.has_armature)  // D_i = S_iᵀ U_i + diag(armature): the rotors' joint-space inertia
      for (int rr = 0; rr < ni; ++rr) D(rr, rr) += model.armature[vi + rr];
    bool pd = true;
    const int p = model.parent[i];
    const bool root = p < 0;  // D⁻¹Uᵀ is needed only to pass Ia, pa to λ(i)
    if (ni == 1) {
      // By division, as the table's D⁻¹: then U(k)/D = 1 exactly where S = e_k, so Ia S = 0
      // exactly and a subtree that is singular in exact arithmetic stays singular at its root.
      pd = D(0, 0) > T(0);
      if (pd) {
        Dinv[i].resize(1, 1);
        Dinv[i](0, 0) = T(1) / D(0, 0);
        if (!root) DinvUt = U[i].transpose() / D(0, 0);
      }
    } else if (ni > 1 && kIsInterval<T>) {
      // On intervals: Cholesky without pivoting, whose only decisions are the pivots' signs (what
      // D_i > 0 means); LDLT's choice of pivot by magnitude would be a decision of its own.
      const Eigen::LLT<MatK<T>> llt(D);
      pd = llt.info() == Eigen::Success;
      if (pd) {
        Dinv[i] = llt.solve(MatK<T>(MatK<T>::Identity(ni, ni)));
        if (!root) DinvUt = llt.solve(MatK<T>(U[i].transpose()));
      }
    } else if (ni > 1) {
      const Eigen::LDLT<MatK<T>> ldlt(D);
      pd = ldlt.info() == Eigen::Success && ldlt.vectorD().minCoeff() > T(0);
      if (pd) {
        Dinv[i] = ldlt.solve(MatK<T>(MatK<T>::Identity(ni, ni)));
        if (!root) DinvUt = ldlt.solve(MatK<T>(U[i].transpose()));
      }
    } else {
      Dinv[i].resize(0, 0);
      DinvUt.resize(0, 6);
    }
    if (!pd) {
      ws.failed_at = i;
      return false;
    }
    if (!root) {
      Ia = IA[i];
      pa = pA[i];
      if constexpr (kInPlace<T>) {  // the same sums in Eigen's order (spatial.hpp, inplace)
        inplace::sub_product_6k_k6<T>(Ia, s1, s2, U[i], DinvUt);
        inplace::add_mat6_vec<T>(pa.c, s1, s2, s3, Ia, k.c[i].c);
        pa.c.noalias() += DinvUt.transpose() * u[i];
      } else if (ni == 1) {
        // The products of the general case at fixed sizes (each entry of U D⁻¹Uᵀ and of D⁻¹Uᵀ u
        // is one product, so the numbers are the same).
        const Vec6<T> U0 = U[i].col(0), W0 = DinvUt.row(0).transpose();
        Ia.noalias() -= U0 * W0.transpose();
        pa.c.noalias() += Ia * k.c[i].c;
        pa.c.noalias() += W0 * u[i](0);
      } else {
        Ia.noalias() -= U[i] * DinvUt;
        pa.c.noalias() += Ia * k.c[i].c;
        pa.c.noalias() += DinvUt.transpose() * u[i];
      }
      transform_articulated_inertia_to_parent_into<T>(k.Xup[i], Ia, XIX);
      IA[p] += XIX;
      k.Xup[i].transpose_into(pa.c, fp.c);
      pA[p] += fp;
    }
  }
  if (qdd.size() != model.nv) qdd.resize(model.nv);
  std::vector<Motion<T>>& a = ws.a;
  const Motion<T> a0 = -model.a_grav();
  VecK<T> ui, qddi;
  for (int i = 0; i < NB; ++i) {
    const int p = model.parent[i];
    k.Xup[i].apply_into(p < 0 ? a0 : a[p], a[i]);
    a[i] += k.c[i];
    ui = u[i];
    ui.noalias() -= U[i].transpose() * a[i].c;
    qddi.noalias() = Dinv[i] * ui;
    qdd.segment(model.iv[i], model.nvi[i]) = qddi;
    add_S_times<T>(k, i, qddi.data(), a[i]);
  }
  return true;
}

template <class T>
AbaResult<T> aba(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau,
                 const std::vector<Force<T>>* f_ext = nullptr) {
  TreeWorkspace<T> ws;
  AbaResult<T> r;
  r.qdd.resize(model.nv);
  r.ok = aba<T>(model, q, qd, tau, ws, r.qdd, f_ext);
  if (!r.ok) {
    r.failed_at = ws.failed_at;
    r.qdd.resize(0);  // no acceleration exists to report
    return r;
  }
  r.IA = std::move(ws.Ic);
  return r;
}

#define RBDREF_ABA_INSTANTIATE(EXT, T)                                                               \
  EXT template bool aba<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, const VecX<T>&, TreeWorkspace<T>&, \
                           VecX<T>&, const std::vector<Force<T>>*);                                 \
  EXT template AbaResult<T> aba<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, const VecX<T>&, \
                                   const std::vector<Force<T>>*);
RBDREF_EXTERN_FOR_EACH_TREE_SCALAR(RBDREF_ABA_INSTANTIATE)

}  // namespace rbd
