// Closed-loop forward dynamics by the sparse-matrix method (RBDA §8.13, eq. 8.64): every body's
// equation of motion and every joint's constraint, tree joints and loop joints alike, in one
// sparse symmetric system
//
//   [ I     -B ] [ a ]   [ τ^B ]                                                       (eq. 8.64)
//   [ -Bᵀ    0 ] [ λ ] = [ -ρ  ]
//
// unknowns a_i (body i's spatial acceleration, body i coordinates; 6 N_B) and λ_k (joint k's
// constraint-force variables, n_k^c = 6 - n_k for every joint). Per joint k, with T_k a basis of
// its constraint forces in s(k)'s coordinates (tree joint i: the complement of S_i, S_iᵀT_i = 0,
// from a QR of S_i; loop joint: X_Sᵀ T_k of loop_jcalc) and X = ˢX_p (body to body):
//   B_k,s = T_k,   B_k,p = -Xᵀ T_k                  (f_k = T_k λ_k on s, its opposite on p)
//   ρ_k   = T_kᵀ (c_k + X a_p^known)                (the acceleration constraint
//                                                    T_kᵀ (a_s - X a_p) = T_kᵀ c_k)
// where c_k = c_J + v_s × v_J (kin.c for a tree joint; v_s × v_J for a loop joint, whose T is
// fixed in s: d/dt ˢX_p = -v_J× ˢX_p), and a_p^known = -a_g when p is the fixed base (gravity as a
// base acceleration), else 0 (a_p is an unknown). Body rows:
//   τ^B_i = -v_i ×* I_i v_i + T^a_i τ_i - Σ_{children j} ʲX_iᵀ T^a_j τ_j + (active loop forces)
// with T^a = S (SᵀS)⁻¹ the tree joints' active-force bases (Sᵀ T^a = 1, so Sᵀ f = τ). The
// active loop joints' forces enter the same way (loop_active.hpp's f^x). Afterwards
//   q̈_i = (S_iᵀ S_i)⁻¹ S_iᵀ (a_i - ⁱX_λ a_λ - c_i).
//
// The matrix has O(N_B + N_L) nonzero blocks; for a tree, and for many loop systems (a ladder),
// a fill-reducing ordering factorizes it in O(n) (§8.13; bench/: BM_LoopSparse/<rungs>). The
// book assumes a properly constrained system (the matrix nonsingular). An overconstrained one
// (any planar loop built spatially) makes it singular: here it is solved by a rank-revealing
// sparse QR (Eigen::SparseQR, COLAMD ordering, pivot threshold 1000 (6 N_B + n^c) ε relative to
// the largest column norm), which returns a solution of the consistent singular system: a and
// q̈ are unique, λ is then one of many (lambda_unique = false), not the minimum-norm one.
#pragma once

#include "reference/jcalc.hpp"
#include "reference/kinematics.hpp"
#include "reference/loop_active.hpp"
#include "reference/loop_constraints.hpp"

#include <Eigen/OrderingMethods>
#include <Eigen/SparseCore>
#include <Eigen/SparseQR>

#include <vector>

namespace rbd {

template <class T>
struct LoopSparseResult {
  VecX<T> qdd;          // n
  VecX<T> a;            // 6 N_B: body accelerations, body coordinates
  VecX<T> lambda_tree;  // Σ (6 - n_i): the tree joints' constraint forces (T_i coordinates)
  VecX<T> lambda_loop;  // n^c: the loop joints' (T_k of loop_jcalc, as λ of the other methods)
  int rank = 0;         // rank of the sparse matrix (6 N_B + Σ n^c when properly constrained)
  int size = 0;         // its order
  long nonzeros = 0;    // its structural nonzeros
  bool lambda_unique = true;
};

template <class T>
LoopSparseResult<T> loop_fd_sparse(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau,
                                   const std::vector<VecX<T>>& tau_loops = {});

// ---- definition ----

template <class T>
LoopSparseResult<T> loop_fd_sparse(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau,
                                   const std::vector<VecX<T>>& tau_loops) {
  using Triplet = Eigen::Triplet<T>;
  const int NB = model.NB;
  const TreeKinematics<T> kin = kinematics<T>(model, q, qd);
  const Motion<T> a0 = -model.a_grav();
  // Constraint bases of the tree joints, body coordinates: the complement of S_i.
  std::vector<MatX<T>> Ttree(static_cast<size_t>(NB)), Ta(static_cast<size_t>(NB));
  std::vector<int> row(static_cast<size_t>(NB) + model.loops.size());
  int nrow = 6 * NB;
  for (int i = 0; i < NB; ++i) {
    const MatX<T> S = kin.S[i];
    Eigen::HouseholderQR<MatX<T>> qr(S);
    const MatX<T> Q = qr.householderQ() * MatX<T>::Identity(6, 6);
    Ttree[static_cast<size_t>(i)] = Q.rightCols(6 - S.cols());
    Ta[static_cast<size_t>(i)] = S * MatX<T>(S.transpose() * S).inverse();
    row[static_cast<size_t>(i)] = nrow;
    nrow += static_cast<int>(6 - S.cols());
  }
  // Loop joints: T_k in s coordinates, ˢX_p, and the velocity-product term.
  std::vector<MatX<T>> Tloop(model.loops.size());
  std::vector<Xform<T>> sXp(model.loops.size());
  for (size_t l = 0; l < model.loops.size(); ++l) {
    const LoopJoint<T>& lj = model.loops[l];
    const Xform<T> X0s = lj.s < 0 ? Xform<T>() : kin.X0[lj.s], X0p = lj.p < 0 ? Xform<T>() : kin.X0[lj.p];
    sXp[l] = X0s * X0p.inverse();
    const LoopJcalc<T> lc = loop_jcalc<T>(lj.joint, Xform<T>(lj.XS * sXp[l] * lj.XP.inverse()));
    Tloop[l] = apply_transpose<T>(lj.XS, lc.Tc);
    row[static_cast<size_t>(NB) + l] = nrow;
    nrow += lj.nc;
  }
  std::vector<Triplet> trip;
  VecX<T> rhs = VecX<T>::Zero(nrow);
  // Body rows: I_i a_i and the known forces.
  const std::vector<Force<T>> fx = active_loop_forces<T>(model, q, tau_loops);
  for (int i = 0; i < NB; ++i) {
    const Mat6<T> I = model.I[i].M;
    for (int r = 0; r < 6; ++r)
      for (int c = 0; c < 6; ++c)
        if (I(r, c) != T(0)) trip.emplace_back(6 * i + r, 6 * i + c, I(r, c));
    Vec6<T> f = -crf<T>(kin.v[i], model.I[i] * kin.v[i]).c + fx[static_cast<size_t>(i)].c;
    f += Ta[static_cast<size_t>(i)] * tau.segment(model.iv[i], model.nvi[i]);
    rhs.segment(6 * i, 6) += f;
    const int p = model.parent[i];
    if (p >= 0) rhs.segment(6 * p, 6) -= kin.Xup[i].apply_transpose(Force<T>(Vec6<T>(Ta[static_cast<size_t>(i)] * tau.segment(model.iv[i], model.nvi[i])))).c;
  }
  // B blocks: +B in the body rows' λ columns (sign: I a - B λ), constraint rows -Bᵀ a = -ρ.
  auto add_joint = [&](int r0, const MatX<T>& Ts, int s, int p, const Xform<T>& X, const Vec6<T>& c) {
    const Eigen::Index nc = Ts.cols();
    const MatX<T> Bp = p >= 0 ? MatX<T>(apply_transpose<T>(X, Mat6K<T>(Ts))) : MatX<T>();  // Xᵀ T, p coordinates
    for (Eigen::Index j = 0; j < nc; ++j)
      for (int r = 0; r < 6; ++r) {
        if (Ts(r, j) != T(0)) {
          trip.emplace_back(6 * s + r, r0 + static_cast<int>(j), T(-Ts(r, j)));
          trip.emplace_back(r0 + static_cast<int>(j), 6 * s + r, T(-Ts(r, j)));
        }
        if (p >= 0 && Bp(r, j) != T(0)) {
          trip.emplace_back(6 * p + r, r0 + static_cast<int>(j), Bp(r, j));
          trip.emplace_back(r0 + static_cast<int>(j), 6 * p + r, Bp(r, j));
        }
      }
    Vec6<T> known = c;
    if (p < 0) known += X.apply(a0).c;  // a_p = -a_g at the fixed base: T (a_s - X a0) = T c
    rhs.segment(r0, nc) = -(Ts.transpose() * known);
  };
  for (int i = 0; i < NB; ++i) add_joint(row[static_cast<size_t>(i)], Ttree[static_cast<size_t>(i)], i, model.parent[i], kin.Xup[i], kin.c[i].c);
  for (size_t l = 0; l < model.loops.size(); ++l) {
    const LoopJoint<T>& lj = model.loops[l];
    const Motion<T> vs = lj.s < 0 ? Motion<T>() : kin.v[lj.s];
    const Motion<T> vp = lj.p < 0 ? Motion<T>() : sXp[l].apply(kin.v[lj.p]);
    const Vec6<T> c = crm<T>(vs, Motion<T>(vs - vp)).c;
    if (lj.s >= 0) {
      add_joint(row[static_cast<size_t>(NB) + l], Tloop[l], lj.s, lj.p, sXp[l], c);
    } else {
      // A loop joint whose successor is the base: constraint on p alone, a_s = -a_g known.
      const Eigen::Index r0 = row[static_cast<size_t>(NB) + l], nc = Tloop[l].cols();
      const MatX<T> Bp = apply_transpose<T>(sXp[l], Mat6K<T>(Tloop[l]));
      for (Eigen::Index j = 0; j < nc; ++j)
        for (int r = 0; r < 6; ++r)
          if (Bp(r, j) != T(0)) {
            trip.emplace_back(6 * lj.p + r, static_cast<int>(r0 + j), Bp(r, j));
            trip.emplace_back(static_cast<int>(r0 + j), 6 * lj.p + r, Bp(r, j));
          }
      rhs.segment(r0, nc) = -(Tloop[l].transpose() * (c - a0.c));
    }
  }
  Eigen::SparseMatrix<T> A(nrow, nrow);
  A.setFromTriplets(trip.begin(), trip.end());
  A.makeCompressed();
  Eigen::SparseQR<Eigen::SparseMatrix<T>, Eigen::COLAMDOrdering<int>> qr;
  qr.setPivotThreshold(T(1000) * T(nrow) * epsilon<T>());
  qr.compute(A);
  const VecX<T> x = qr.solve(rhs);
  LoopSparseResult<T> out;
  out.size = nrow;
  out.nonzeros = static_cast<long>(A.nonZeros());
  out.rank = static_cast<int>(qr.rank());
  out.lambda_unique = out.rank == nrow;
  out.a = x.head(6 * NB);
  const int end_tree = model.loops.empty() ? nrow : row[static_cast<size_t>(NB)];
  out.lambda_tree = x.segment(6 * NB, end_tree - 6 * NB);
  out.lambda_loop = x.tail(nrow - end_tree);
  out.qdd = VecX<T>(model.nv);
  for (int i = 0; i < NB; ++i) {
    const int p = model.parent[i];
    const Motion<T> ap = p < 0 ? a0 : Motion<T>(Vec6<T>(out.a.segment(6 * p, 6)));
    const Vec6<T> rel = out.a.segment(6 * i, 6) - kin.Xup[i].apply(ap).c - kin.c[i].c;
    const MatX<T> S = kin.S[i];
    out.qdd.segment(model.iv[i], model.nvi[i]) = MatX<T>(S.transpose() * S).ldlt().solve(VecX<T>(S.transpose() * rel));
  }
  return out;
}

#define RBDREF_LOOP_FD_SPARSE_INSTANTIATE(EXT, T)                                                          \
  EXT template LoopSparseResult<T> loop_fd_sparse<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, const VecX<T>&, \
                                                     const std::vector<VecX<T>>&);
#define RBDREF_LOOP_FD_SPARSE_EXTERN(T) RBDREF_LOOP_FD_SPARSE_INSTANTIATE(extern, T)
RBDREF_FOR_EACH_SCALAR(RBDREF_LOOP_FD_SPARSE_EXTERN)
#undef RBDREF_LOOP_FD_SPARSE_EXTERN

}  // namespace rbd
