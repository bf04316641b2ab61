// Whether the LCP's λ is unique (RBDA §11.5): ζ̇ = Mλ + d, ζ̇ ≥ 0, λ ≥ 0, λᵀζ̇ = 0 with M
// symmetric positive semi-definite.
//
// For such M every solution has the same ζ̇ (they minimize one convex quadratic, ½λᵀMλ + dᵀλ on
// λ ≥ 0, whose minimizers share Mλ), so the solution set is the polyhedron
//   P = {λ ≥ 0 : Mλ = Mλ*,  λ_i = 0 where ζ̇_i > 0}
// around any solution λ*. M positive-definite makes P one point, but it is not needed: a box on
// four corners under a roll torque lifts an edge, ζ̇ > 0 there, and λ on the other two corners is
// unique although M (rank 3 of 4) is singular. P is convex, so it is the point λ* iff no direction
// leaves λ* inside it: with F = {i : ζ̇_i = 0} (the contacts that may carry force) and
// A = {i ∈ F : λ*_i = 0}, the directions are
//   D = {v : v_i = 0 off F,  M_FF v_F = 0,  v_i ≥ 0 on A}
// (M_{:F} v_F = 0 ⇔ v_Fᵀ M_FF v_F = 0 ⇔ M_FF v_F = 0, M being PSD). λ is unique iff D = {0}.
//
// Decided with N, an orthonormal basis of null(M_FF) (its eigenvectors of eigenvalue within the
// rank threshold), k = dim: k = 0, unique; else D ≠ {0} iff some y ≠ 0 has B y ≥ 0, B = N's rows
// on A. If rank B < k such a y is in null(B); otherwise the cone {y : By ≥ 0} is pointed and, when
// not {0}, has an extreme ray where k - 1 independent rows of B vanish: every such row set S is
// tried (y spans null(B_S); y or -y with By ≥ 0 is a direction). The enumeration is over
// C(|A|, k - 1) sets: n_c ≤ kMaxUniquenessContacts. Entries within `tolerance` of 0 count as 0, so a
// case decided only by rounding is reported as not unique.
#pragma once

#include "reference/spatial/spatial.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>

#include <algorithm>
#include <vector>

namespace rbd {

constexpr int kMaxUniquenessContacts = 20;

// Unique / not unique / not decided (n_c above kMaxUniquenessContacts).
enum class LcpUniqueness { Unique, NotUnique, Undecided };

// free_set: F, the indices with ζ̇_i = 0 (the caller's tolerance); zero_lambda: the i ∈ F with
// λ*_i = 0; rank_threshold: an eigenvalue of M_FF at most this counts as 0.
template <class T>
LcpUniqueness lcp_uniqueness(const MatX<T>& M, const std::vector<int>& free_set, const std::vector<bool>& zero_lambda,
                             const T& rank_threshold) {
  using std::abs;
  const int nf = static_cast<int>(free_set.size());
  if (nf == 0) return LcpUniqueness::Unique;
  if (M.rows() > kMaxUniquenessContacts) return LcpUniqueness::Undecided;
  MatX<T> MFF(nf, nf);
  for (int a = 0; a < nf; ++a)
    for (int b = 0; b < nf; ++b) MFF(a, b) = M(free_set[a], free_set[b]);
  const Eigen::SelfAdjointEigenSolver<MatX<T>> es(MFF);
  std::vector<int> null_cols;
  for (int j = 0; j < nf; ++j)
    if (!(es.eigenvalues()(j) > rank_threshold)) null_cols.push_back(j);
  const int k = static_cast<int>(null_cols.size());
  if (k == 0) return LcpUniqueness::Unique;
  std::vector<int> rows_A;  // rows of N (positions in F) where λ* = 0
  for (int a = 0; a < nf; ++a)
    if (zero_lambda[static_cast<size_t>(a)]) rows_A.push_back(a);
  const int na = static_cast<int>(rows_A.size());
  if (na == 0) return LcpUniqueness::NotUnique;  // λ* > 0 on F: ±v both stay in P
  MatX<T> B(na, k);
  for (int r = 0; r < na; ++r)
    for (int c = 0; c < k; ++c) B(r, c) = es.eigenvectors()(rows_A[r], null_cols[c]);
  const T tol = T(1000000) * T(std::max(nf, 1)) * epsilon<T>();
  Eigen::FullPivLU<MatX<T>> lu(B);
  lu.setThreshold(tol);
  if (lu.rank() < k) return LcpUniqueness::NotUnique;
  // y with By ≥ 0 (entries within tol of 0 counted as 0), either sign of a null vector of B_S.
  auto direction = [&](const VecX<T>& y) {
    const VecX<T> By = B * y;
    bool up = true, down = true;
    for (int r = 0; r < na; ++r) {
      up = up && By(r) >= -tol;
      down = down && By(r) <= tol;
    }
    return up || down;
  };
  if (k == 1) return direction(VecX<T>::Ones(1)) ? LcpUniqueness::NotUnique : LcpUniqueness::Unique;
  std::vector<int> pick(static_cast<size_t>(k - 1));
  for (int j = 0; j < k - 1; ++j) pick[static_cast<size_t>(j)] = j;
  while (true) {  // the row sets S of size k - 1, in lexicographic order
    MatX<T> BS(k - 1, k);
    for (int j = 0; j < k - 1; ++j) BS.row(j) = B.row(pick[static_cast<size_t>(j)]);
    Eigen::FullPivLU<MatX<T>> ls(BS);
    ls.setThreshold(tol);
    if (ls.rank() == k - 1) {
      const MatX<T> ker = ls.kernel();
      if (direction(VecX<T>(ker.col(0)))) return LcpUniqueness::NotUnique;
    }
    int j = k - 2;
    while (j >= 0 && pick[static_cast<size_t>(j)] == na - (k - 1) + j) --j;
    if (j < 0) break;
    ++pick[static_cast<size_t>(j)];
    for (int t = j + 1; t < k - 1; ++t) pick[static_cast<size_t>(t)] = pick[static_cast<size_t>(t - 1)] + 1;
  }
  return LcpUniqueness::Unique;
}

// The same for a solution (λ, w = Mλ + d) of the LCP: F = {i : w_i ≤ 1000 n ε (max|M| max|λ| +
// max|d|)}, A = {i ∈ F : λ_i ≤ 1000 n ε max|λ|}, eigenvalues of M_FF up to 1000 n ε max|M| zero.
template <class T>
LcpUniqueness lcp_solution_uniqueness(const MatX<T>& M, const VecX<T>& d, const VecX<T>& lambda, const VecX<T>& w) {
  const int n = static_cast<int>(lambda.size());
  if (n == 0) return LcpUniqueness::Unique;
  const T mmax = M.size() ? T(M.cwiseAbs().maxCoeff()) : T(0);
  const T lmax = lambda.cwiseAbs().maxCoeff();
  const T dmax = d.size() ? T(d.cwiseAbs().maxCoeff()) : T(0);
  const T scale = T(1000) * T(n) * epsilon<T>();
  std::vector<int> F;
  std::vector<bool> zero_lambda;
  for (int i = 0; i < n; ++i)
    if (!(w(i) > scale * (mmax * lmax + dmax))) {
      F.push_back(i);
      zero_lambda.push_back(!(lambda(i) > scale * lmax));
    }
  return lcp_uniqueness<T>(M, F, zero_lambda, T(scale * mmax));
}

}  // namespace rbd
