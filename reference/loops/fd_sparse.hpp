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
// active loop joints' forces enter the same way (loops/active.hpp's f^x). Afterwards
//   q̈_i = (S_iᵀ S_i)⁻¹ S_iᵀ (a_i - ⁱX_λ a_λ - c_i).
//
// Solution: the sparse LDLᵀ of eq. 8.64 in the order "all body accelerations first, then the
// constraint forces in a fill-reducing (AMD) order". Eliminating a (I block diagonal, 6×6 SPD per
// body, so this step has no fill beyond the blocks) leaves the Schur complement
//   S λ = ρ - Bᵀ I⁻¹ τ^B,   S = Bᵀ I⁻¹ B,   a = I⁻¹ (τ^B + B λ)
// S couples two joints only when they share a body, so it has O(N_B + N_L) nonzeros; its sparse
// LDLᵀ with an approximate-minimum-degree ordering costs O(N) for a chain, a tree and a ladder
// (bench/: BM_LoopSparse/<rungs>, N = 10 … 1000; docs/benchmarks.md). S is positive definite when
// the system is properly constrained (the book's assumption) and positive semi-definite, singular,
// when it is overconstrained (any planar loop built spatially). Both are handled by one route:
// the factorization is of S + ε D, D = diag(S), ε = √ε_mach (relative to each column's own scale:
// S's diagonal holds the bodies' inverse inertias, orders of magnitude apart on a mechanism with
// light rods), and iterative refinement against S itself,
//   λ_{j+1} = λ_j + (S + ε D)⁻¹ (b - S λ_j),   λ_0 = 0,
// which is the proximal-point iteration: on range(S) it contracts by ε/(σ + ε) per step (σ the
// smallest nonzero eigenvalue of D^-½ S D^-½, so ~√ε_mach · κ), on null(S) it leaves λ at 0, so
// the limit is the λ of least D-norm of the consistent singular system (over the tree and loop
// joints' forces together, so λ_loop is then not the KKT method's minimum-norm λ_loop), a and q̈
// unique (lambda_unique = false then). The rank of S is decided by factorizing twice, at ε/16 and
// at ε (same ordering): the pivot of a column dependent on those before it is
// d_j = ε (S_jj + cᵀ D c) + O(ε²), c its combination coefficients, so it grows 16-fold with ε,
// while an independent column's pivot is its Schur complement, independent of ε to O(ε): a pivot
// that grows more than 4-fold is counted as dependent (ambiguous only when the scaled matrix has
// an eigenvalue near ε, i.e. S is numerically singular at this precision anyway). The rank is
// reported, q̈ does not depend on it. The refinement stops when the residual no longer halves
// (recorded: refinement_steps, residual).
//
// Baumgarte stabilization (§8.3, eqs. 8.21-8.22): `k_stab` (n^c, loops/constraints.hpp's, empty
// for none) is added to the loop joints' rows, which are K's rows in the same T_k bases, so the
// method solves K q̈ = k + k_stab like the other three. A state off the closure with an
// overconstrained loop makes the system inconsistent: the refinement then stalls above the
// rounding level (converged = false), and there is no least-squares answer from this method.
#pragma once

#include "reference/tree/jcalc.hpp"
#include "reference/tree/kinematics.hpp"
#include "reference/loops/active.hpp"
#include "reference/loops/constraints.hpp"

#include <Eigen/OrderingMethods>
#include <Eigen/SparseCore>
#include <Eigen/SparseCholesky>

#include <vector>

namespace rbd {

template <class T>
struct LoopSparseResult {
  VecX<T> qdd;          // n
  VecX<T> a;            // 6 N_B: body accelerations, body coordinates
  VecX<T> lambda_tree;  // Σ (6 - n_i): the tree joints' constraint forces (T_i coordinates)
  VecX<T> lambda_loop;  // n^c: the loop joints' (T_k of loop_jcalc, as λ of the other methods)
  int rank = 0;         // rank of the sparse matrix (6 N_B + Σ n^c when properly constrained)
  int size = 0;         // its order, 6 N_B + Σ n^c
  long nonzeros = 0;    // structural nonzeros of the matrix of eq. 8.64
  long factor_nonzeros = 0;  // nonzeros of the LDLᵀ factor L of S (the fill; O(N) on a ladder)
  int refinement_steps = 0;
  T residual = T(0);    // |S λ - b|∞ at the end of the refinement
  bool converged = true;  // the refinement reached the rounding level (false: an inconsistent system)
  bool lambda_unique = true;
};

template <class T>
LoopSparseResult<T> loop_fd_sparse(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau,
                                   const std::vector<VecX<T>>& tau_loops = {}, const VecX<T>& k_stab = VecX<T>());

// ---- definition ----

template <class T>
LoopSparseResult<T> loop_fd_sparse(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau,
                                   const std::vector<VecX<T>>& tau_loops, const VecX<T>& k_stab) {
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
  // Baumgarte: the loop rows' constraint T_kᵀ(a_s - X a_p - c) = k_stab,k (the same rows, bases
  // and order as K's, so K q̈ = k + k_stab).
  if (k_stab.size() > 0)
    for (size_t l = 0; l < model.loops.size(); ++l)
      rhs.segment(row[static_cast<size_t>(NB) + l], model.loops[l].nc) -= k_stab.segment(model.loops[l].row, model.loops[l].nc);
  Eigen::SparseMatrix<T> A(nrow, nrow);
  A.setFromTriplets(trip.begin(), trip.end());
  A.makeCompressed();
  // Block elimination of the accelerations: B (6 N_B × n_λ) is A's upper-right block with its sign
  // (A = [I -B; -Bᵀ 0]), I⁻¹ block by block.
  const int na = 6 * NB, nl = nrow - na;
  const Eigen::SparseMatrix<T> B = -A.block(0, na, na, nl);
  std::vector<Triplet> itrip;
  for (int i = 0; i < NB; ++i) {
    const Mat6<T> Ii = Mat6<T>(model.I[i].M).ldlt().solve(Mat6<T>::Identity());
    for (int r = 0; r < 6; ++r)
      for (int c = 0; c < 6; ++c)
        if (Ii(r, c) != T(0)) itrip.emplace_back(6 * i + r, 6 * i + c, Ii(r, c));
  }
  Eigen::SparseMatrix<T> Iinv(na, na);
  Iinv.setFromTriplets(itrip.begin(), itrip.end());
  const Eigen::SparseMatrix<T> IinvB = Iinv * B;
  Eigen::SparseMatrix<T> S = Eigen::SparseMatrix<T>(B.transpose()) * IinvB;
  S.makeCompressed();
  const VecX<T> Iinv_tau = Iinv * rhs.head(na);
  const VecX<T> b = -rhs.tail(nl) - VecX<T>(B.transpose() * Iinv_tau);
  // Regularization relative to each column's own scale (S's diagonal spans the bodies' inverse
  // inertias, many orders of magnitude on a mechanism with light rods): S + ε diag(S).
  VecX<T> dS(nl);
  for (int j = 0; j < nl; ++j) dS(j) = S.coeff(j, j) > T(0) ? T(S.coeff(j, j)) : T(1);
  using std::sqrt;
  const T eps_reg = sqrt(epsilon<T>());
  // Rank probe: the same factorization at ε/16 first. A pivot of a dependent column is
  // proportional to ε, an independent one does not depend on it (to O(ε)).
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<T>, Eigen::Lower, Eigen::AMDOrdering<int>> ldlt;
  auto regularized = [&](const T& e) {
    const VecX<T> d = e * dS;
    return Eigen::SparseMatrix<T>(S + Eigen::SparseMatrix<T>(d.asDiagonal()));  // O(nnz), no insertion
  };
  ldlt.analyzePattern(regularized(eps_reg / T(16)));
  ldlt.factorize(regularized(eps_reg / T(16)));
  const VecX<T> D_probe = ldlt.vectorD();
  ldlt.factorize(regularized(eps_reg));
  LoopSparseResult<T> out;
  out.size = nrow;
  out.nonzeros = static_cast<long>(A.nonZeros());
  out.factor_nonzeros = static_cast<long>(ldlt.matrixL().nestedExpression().nonZeros());
  VecX<T> lambda = VecX<T>::Zero(nl);
  VecX<T> r = b;
  T rnorm = max_abs_vec<T>(r);
  using std::abs;
  T Snorm = T(0);  // ‖S‖∞
  {
    VecX<T> rowsum = VecX<T>::Zero(nl);
    for (int k = 0; k < S.outerSize(); ++k)
      for (typename Eigen::SparseMatrix<T>::InnerIterator e(S, k); e; ++e) rowsum(e.row()) += abs(e.value());
    for (int j = 0; j < nl; ++j) Snorm = std::max(Snorm, T(rowsum(j)));
  }
  // The rounding level of b - S λ: a few units of ‖S‖ ‖λ‖ + ‖b‖.
  auto floor_at = [&](const VecX<T>& l) { return T(8) * epsilon<T>() * (Snorm * max_abs_vec<T>(l) + max_abs_vec<T>(b)); };
  out.converged = false;
  for (int it = 0; it < 200 && ldlt.info() == Eigen::Success; ++it) {
    if (rnorm <= floor_at(lambda)) {
      out.converged = true;
      break;
    }
    const VecX<T> lnext = lambda + ldlt.solve(r);
    const VecX<T> rnext = b - S * lnext;
    const T nnext = max_abs_vec<T>(rnext);
    if (!(nnext < rnorm)) {
      out.converged = rnorm <= T(1000) * floor_at(lambda);
      break;
    }
    const bool stalled = nnext > rnorm / T(2);
    lambda = lnext, r = rnext, rnorm = nnext, out.refinement_steps = it + 1;
    if (stalled) {
      out.converged = rnorm <= T(1000) * floor_at(lambda);
      break;
    }
  }
  out.residual = rnorm;
  const VecX<T> D = ldlt.vectorD();  // a copy (Eigen returns D by value): once, not per entry
  int rankS = 0;
  for (Eigen::Index j = 0; j < D.size(); ++j)
    if (abs(D(j)) < T(4) * abs(D_probe(j))) ++rankS;
  out.rank = na + rankS;
  out.lambda_unique = rankS == nl;
  VecX<T> x(nrow);
  x.head(na) = Iinv_tau + IinvB * lambda;
  x.tail(nl) = lambda;
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
                                                     const std::vector<VecX<T>>&, const VecX<T>&);
RBDREF_EXTERN_FOR_EACH_SCALAR(RBDREF_LOOP_FD_SPARSE_INSTANTIATE)

}  // namespace rbd
