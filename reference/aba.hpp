// ABA: forward dynamics by the articulated-body algorithm (RBDA table 7.1), for joints of any
// number of DoFs.
//
// Inputs: q (nq), qd, tau (nv); f_ext (optional, NB) external force on body i, body i coordinates.
// Output: qdd (nv) with H qdd + C(q, qd, f_ext) = tau. A singular articulated-body pivot D_i
// (H not positive-definite) is reported in `ok` / `failed_at`, not divided by.
//
//   pass 1, i = 0..NB-1:  Xup_i, S_i, v_i, c_i = cJ + v_i × vJ  (kinematics.hpp)
//                         IA_i = I_i;  pA_i = v_i ×* I_i v_i - f_ext_i
//   pass 2, i = NB-1..0:  U_i = IA_i S_i;  D_i = S_iᵀ U_i;  u_i = tau_i - S_iᵀ pA_i
//                         Ia = IA_i - U_i D_i⁻¹ U_iᵀ
//                         pa = pA_i + Ia c_i + U_i D_i⁻¹ u_i
//                         IA_λ(i) += Xup_iᵀ Ia Xup_i;  pA_λ(i) += Xup_iᵀ pa
//   pass 3, i = 0..NB-1:  a'_i = Xup_i a_λ(i) + c_i         (a_-1 = -a_g)
//                         qdd_i = D_i⁻¹ (u_i - U_iᵀ a'_i)
//                         a_i = a'_i + S_i qdd_i
#pragma once

#include "reference/kinematics.hpp"

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

template <class T>
AbaResult<T> aba(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau,
                 const std::vector<Force<T>>* f_ext = nullptr) {
  const int NB = model.NB;
  const TreeKinematics<T> k = kinematics<T>(model, q, qd);
  std::vector<Mat6<T>> IA(NB);
  std::vector<Force<T>> pA(NB);
  for (int i = 0; i < NB; ++i) {
    IA[i] = model.I[i].M;
    pA[i] = crf<T>(k.v[i], model.I[i] * k.v[i]);
    if (f_ext) pA[i] -= (*f_ext)[i];
  }
  AbaResult<T> r;
  std::vector<Mat6K<T>> U(NB);
  std::vector<Eigen::LDLT<MatK<T>>> Dinv(NB);  // factor of D_i (nvi x nvi, SPD when H is)
  std::vector<VecK<T>> u(NB);
  for (int i = NB - 1; i >= 0; --i) {
    const int ni = model.nvi[i];
    U[i] = IA[i] * k.S[i];
    const MatK<T> D = k.S[i].transpose() * U[i];
    u[i] = tau.segment(model.iv[i], ni) - k.S[i].transpose() * pA[i].c;
    Dinv[i].compute(D);
    if (Dinv[i].info() != Eigen::Success || !(Dinv[i].vectorD().minCoeff() > T(0))) {
      r.ok = false;
      r.failed_at = i;
      r.qdd.resize(0);  // no acceleration exists to report
      return r;
    }
    const int p = model.parent[i];
    if (p >= 0) {
      const Mat6<T> Ia = IA[i] - U[i] * Dinv[i].solve(MatK<T>(U[i].transpose()));
      const Force<T> pa(Vec6<T>(pA[i].c + Ia * k.c[i].c + U[i] * Dinv[i].solve(u[i])));
      IA[p] += transform_inertia_to_parent<T>(k.Xup[i], Ia);
      pA[p] += k.Xup[i].apply_transpose(pa);
    }
  }
  r.qdd.resize(model.nv);
  std::vector<Motion<T>> a(NB);
  const Motion<T> a0 = -model.a_grav();
  for (int i = 0; i < NB; ++i) {
    const int p = model.parent[i];
    const Motion<T> ap = k.Xup[i].apply(p < 0 ? a0 : a[p]) + k.c[i];
    const VecK<T> qddi = Dinv[i].solve(VecK<T>(u[i] - U[i].transpose() * ap.c));
    r.qdd.segment(model.iv[i], model.nvi[i]) = qddi;
    a[i] = ap + Motion<T>(Vec6<T>(k.S[i] * qddi));
  }
  r.IA = std::move(IA);  // not read by the forward pass
  return r;
}

#define RBDREF_ABA_INSTANTIATE(EXT, T)                                                               \
  EXT template AbaResult<T> aba<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, const VecX<T>&, \
                                   const std::vector<Force<T>>*);
#define RBDREF_ABA_EXTERN(T) RBDREF_ABA_INSTANTIATE(extern, T)
RBDREF_FOR_EACH_SCALAR(RBDREF_ABA_EXTERN)
#undef RBDREF_ABA_EXTERN

}  // namespace rbd
