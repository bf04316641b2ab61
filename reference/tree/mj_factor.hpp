// MuJoCo's in-place sparse Lᵀ D L factorization, mj_factorM / mj_factorI, in MuJoCo's layout
// (MuJoCo's engine_core_smooth.c; RBDA table 6.3 in a compressed row store).
//
// Layout (MuJoCo's mjModel / mjData arrays, 0-based, -1 = no parent):
//   dof_parentid (nv)  the DoF parent array λ (Model::dof_parent)
//   dof_Madr     (nv)  where row i starts in qM; row i holds, in this order,
//                      M(i,i), M(i,λ(i)), M(i,λ(λ(i))), ... (the diagonal, then the ancestors)
//   nM                 total number of stored entries
//   qM  (nM)           the inertia matrix in that layout
//   qLD (nM)           the factor in the same layout: D_ii on the diagonal entries, L_ij elsewhere
//   qLDiagInv     (nv) 1 / D_ii
//   qLDiagSqrtInv (nv) 1 / sqrt(D_ii)
//
// mj_factorI performs exactly the operations of ltdl (ltdl.hpp) in the same order, so the two
// give bit-identical factors for every scalar when every pivot is at least mjMINVAL (1e-15);
// below it MuJoCo clamps the pivot to mjMINVAL and goes on, and so does this reference:
//   for k = nv-1..0:
//     if M(k,k) < mjMINVAL: M(k,k) = mjMINVAL        (mjWARN_INERTIA)
//     i = λ(k)
//     while i ≠ -1:
//       tmp = M(k,i) / M(k,k)                         (region 2a)
//       M(i, i..) -= tmp M(k, i..)   (the cnt entries of row k from i on, along i's chain; region 3)
//       M(k,i) = tmp                                   (region 2b)
//       i = λ(i)
#pragma once

#include "reference/spatial/spatial.hpp"

#include <vector>

namespace rbd {

struct MjLayout {
  std::vector<int> dof_parentid;  // (nv)
  std::vector<int> dof_Madr;      // (nv)
  std::vector<int> rownnz;        // entries of each row: 1 + number of ancestors (nv)
  int nM = 0;
};

// The layout of a DoF parent array.
MjLayout mj_layout(const std::vector<int>& dof_parentid);

template <class T>
struct MjFactor {
  std::vector<T> qLD;            // (nM)
  std::vector<T> qLDiagInv;      // (nv)
  std::vector<T> qLDiagSqrtInv;  // (nv)
  bool ok = true;                // every D_kk ≥ mjMINVAL (no pivot clamped)
  int failed_at = -1;            // the first DoF (k = nv-1 .. 0) whose pivot was clamped
  std::vector<int> clamped;      // every DoF whose pivot was clamped (MuJoCo's mjWARN_INERTIA)
};

// MuJoCo's mjMINVAL (mjtnum.h, double build): the smallest pivot mj_factorI keeps. The constant
// is the double nearest 1e-15, exactly as MuJoCo compares with it, widened to T without rounding.
template <class T>
T mj_minval() {
  return T(1e-15);
}

// Packs a dense symmetric H into qM (reads the lower triangle).
template <class T>
std::vector<T> mj_pack(const MjLayout& m, const MatX<T>& H);

// mj_factorI(M) -> qLD, qLDiagInv, qLDiagSqrtInv.
template <class T>
MjFactor<T> mj_factorI(const MjLayout& m, const std::vector<T>& qM);

// mj_solveLD: x = M⁻¹ b from the factor (x <- L⁻ᵀ b, x <- D⁻¹ x, x <- L⁻¹ x).
template <class T>
VecX<T> mj_solveLD(const MjLayout& m, const MjFactor<T>& f, VecX<T> x);

// ---- definitions ----

template <class T>
std::vector<T> mj_pack(const MjLayout& m, const MatX<T>& H) {
  std::vector<T> qM(m.nM);
  const int nv = static_cast<int>(m.dof_Madr.size());
  for (int i = 0; i < nv; ++i) {
    int adr = m.dof_Madr[i];
    for (int j = i; j >= 0; j = m.dof_parentid[j]) qM[adr++] = H(i, j);
  }
  return qM;
}

template <class T>
MjFactor<T> mj_factorI(const MjLayout& m, const std::vector<T>& qM) {
  using std::sqrt;
  MjFactor<T> f;
  std::vector<T>& qLD = f.qLD;
  qLD = qM;
  const int nv = static_cast<int>(m.dof_Madr.size());
  for (int k = nv - 1; k >= 0; --k) {
    const int Madr_kk = m.dof_Madr[k];
    // MuJoCo's rule: a pivot below mjMINVAL (zero, negative, or tiny) is replaced by mjMINVAL
    // with the warning mjWARN_INERTIA, and the factorization goes on; reproduced here so that
    // "identical numbers" holds on degenerate H as well. The clamp is reported (ok, clamped).
    // A NaN pivot compares false and is clamped too, as in MuJoCo.
    if (!(qLD[Madr_kk] >= mj_minval<T>())) {
      if (f.ok) f.failed_at = k;
      f.ok = false;
      f.clamped.push_back(k);
      qLD[Madr_kk] = mj_minval<T>();
    }
    int Madr_ki = Madr_kk + 1;
    for (int i = m.dof_parentid[k]; i >= 0; i = m.dof_parentid[i], ++Madr_ki) {
      const T tmp = qLD[Madr_ki] / qLD[Madr_kk];               // tmp = M(k,i) / M(k,k)
      const int cnt = m.rownnz[k] - (Madr_ki - Madr_kk);         // entries of row k from i on
      T* row_i = qLD.data() + m.dof_Madr[i];
      const T* row_k = qLD.data() + Madr_ki;
      for (int c = 0; c < cnt; ++c) row_i[c] -= tmp * row_k[c];  // M(i,j) -= M(k,j) tmp
      qLD[Madr_ki] = tmp;
    }
  }
  f.qLDiagInv.resize(nv);
  f.qLDiagSqrtInv.resize(nv);
  for (int i = 0; i < nv; ++i) {  // every pivot is ≥ mjMINVAL > 0 here
    const T qLDi = qLD[m.dof_Madr[i]];
    f.qLDiagInv[i] = T(1) / qLDi;
    f.qLDiagSqrtInv[i] = T(1) / sqrt(qLDi);
  }
  return f;
}

template <class T>
VecX<T> mj_solveLD(const MjLayout& m, const MjFactor<T>& f, VecX<T> x) {
  const int nv = static_cast<int>(m.dof_Madr.size());
  // x <- L⁻ᵀ x
  for (int i = nv - 1; i >= 0; --i) {
    int adr = m.dof_Madr[i] + 1;
    for (int j = m.dof_parentid[i]; j >= 0; j = m.dof_parentid[j], ++adr) x(j) -= f.qLD[adr] * x(i);
  }
  // x <- D⁻¹ x
  for (int i = 0; i < nv; ++i) x(i) *= f.qLDiagInv[i];
  // x <- L⁻¹ x
  for (int i = 0; i < nv; ++i) {
    int adr = m.dof_Madr[i] + 1;
    for (int j = m.dof_parentid[i]; j >= 0; j = m.dof_parentid[j], ++adr) x(i) -= f.qLD[adr] * x(j);
  }
  return x;
}

#define RBDREF_MJ_FACTOR_INSTANTIATE(EXT, T)                                                  \
  EXT template std::vector<T> mj_pack<T>(const MjLayout&, const MatX<T>&);                    \
  EXT template MjFactor<T> mj_factorI<T>(const MjLayout&, const std::vector<T>&);             \
  EXT template VecX<T> mj_solveLD<T>(const MjLayout&, const MjFactor<T>&, VecX<T>);
RBDREF_EXTERN_FOR_EACH_TREE_SCALAR(RBDREF_MJ_FACTOR_INSTANTIATE)

}  // namespace rbd
