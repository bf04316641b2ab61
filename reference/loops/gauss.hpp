// G and g from K and k by Gaussian elimination with complete pivoting (RBDA §8.8, eqs. 8.48-8.51).
//
// Given K (m x n, rank r) and k, find G (n x (n - r), full rank, K G = 0) and g (K g = k when the
// equations are consistent) such that x = G y + g gives every solution of K x = k:
//
//   K = Q1 [K11 K12; K21 K22] Q2,  K11 r x r invertible,
//   G = Q2ᵀ [-K11⁻¹ K12; 1],  g = Q2ᵀ [K11⁻¹ k1; 0]                               (eq. 8.51)
//
// so y is the subset x2 of x (the independent coordinates, `independent`). The elimination runs
// on a copy of [K k]: at step t the largest remaining |K_ij| becomes the pivot (rows and columns
// swapped, the swaps recorded: Q1 = row_order, Q2 = col_order); it stops early when the largest
// remaining entry is at most `threshold` (then r = t: the rank decision). Back-substitution of the
// first r rows gives K11⁻¹ K12 and K11⁻¹ k1 (step 3 of the book's list).
//
// Pivot ties: entries within a relative 1000 · max(m, n) · ε_T of the largest are ties, broken by
// position (first column, then first row, of the arrangement so far), so that exact structural ties
// give the same coordinates at every precision. A near tie wider than that band can still be
// decided differently by two precisions; certify() then gives G and g no digits and says so.
//
// The rank threshold is scaled to the working precision: threshold = 1000 · max(m, n) · ε_T ·
// max|K| (recorded, with the smallest pivot kept and the largest entry left, so a user sees the
// gap the decision was made across; near a change of mobility the gap closes, which is data).
// `consistency` is max|k₂ - Y k₁| (what is left in the dropped rows), relative to max|k| + max|K|.
//
// With user-chosen independent coordinates (`chosen`: n - r indices of x), the columns of the
// other coordinates are eliminated in their order with partial (row) pivoting only; if a pivot
// column has nothing above the threshold, the chosen coordinates do not determine the others at
// this configuration: `chosen_ok` is false and `message` says which coordinate failed.
#pragma once

#include "reference/spatial/spatial.hpp"

#include <Eigen/QR>

#include <string>
#include <vector>

namespace rbd {

template <class T>
struct NullSpaceSolution {
  MatX<T> G;                    // n x (n - r)
  VecX<T> g;                    // n
  int rank = 0;                 // r
  std::vector<int> row_order;   // Q1: row_order[t] = row of K pivoted at step t (all m rows)
  std::vector<int> col_order;   // Q2: col_order[t] = column of K at position t (all n columns)
  std::vector<int> independent; // the coordinates y = x2 (col_order[r..n-1])
  T threshold;                  // the rank decision threshold
  T smallest_pivot;             // smallest |pivot| kept (∞ when r = 0: reported as 0)
  T largest_dropped;            // largest |entry| left after the last pivot (0 when r = min(m, n))
  T consistency;                // relative residual of the dropped rows of k
  bool chosen_ok = true;        // false when user-chosen coordinates are not independent
  std::string message;          // why chosen_ok is false
};

// chosen: empty for complete pivoting; else the indices of x to keep independent.
template <class T>
NullSpaceSolution<T> null_space_solution(const MatX<T>& K, const VecX<T>& k, const std::vector<int>& chosen = {});

// A particular solution x of the least-squares constraint K x = P k, P the orthogonal projector
// onto range(K): ns.g (from null_space_solution(K, k)) satisfies only the pivot rows; x = g + Δ,
// Δ on the dependent coordinates (col_order[0..r-1], whose columns of K span range(K)) minimizing
// |K Δ - (k - K g)| by a column-pivoted QR. On consistent equations x = g to rounding.
template <class T>
VecX<T> least_squares_particular(const MatX<T>& K, const VecX<T>& k, const NullSpaceSolution<T>& ns);

// ---- definition ----

template <class T>
NullSpaceSolution<T> null_space_solution(const MatX<T>& K, const VecX<T>& k, const std::vector<int>& chosen) {
  using std::abs;
  const int m = static_cast<int>(K.rows()), n = static_cast<int>(K.cols());
  NullSpaceSolution<T> out;
  MatX<T> A = K;
  VecX<T> b = k;
  std::vector<int> rows(m), cols(n);
  for (int i = 0; i < m; ++i) rows[i] = i;
  for (int j = 0; j < n; ++j) cols[j] = j;
  T kmax(0), bmax(0);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j)
      if (abs(A(i, j)) > kmax) kmax = abs(A(i, j));
    if (abs(b(i)) > bmax) bmax = abs(b(i));
  }
  out.threshold = T(1000) * T(m > n ? m : n) * epsilon<T>() * kmax;
  const T tie_band = T(1000) * T(m > n ? m : n) * epsilon<T>();  // relative: pivots this close are ties
  out.smallest_pivot = T(0);

  // With chosen coordinates: the dependent columns first, in their order; only rows pivot. Their
  // number must be the mobility n - r, r decided by complete pivoting.
  int ndep = n;
  if (!chosen.empty()) {
    const int r_full = null_space_solution<T>(K, k).rank;
    if (static_cast<int>(chosen.size()) != n - r_full) {
      out.chosen_ok = false;
      out.message = "expected " + std::to_string(n - r_full) + " independent coordinates (the mobility n - rank K = " +
                    std::to_string(n) + " - " + std::to_string(r_full) + "), got " + std::to_string(chosen.size());
      return out;
    }
    std::vector<char> is_chosen(n, 0);
    for (int c : chosen) {
      if (c < 0 || c >= n || is_chosen[c]) {
        out.chosen_ok = false;
        out.message = "chosen independent coordinate " + std::to_string(c) + " is out of range or repeated";
        return out;
      }
      is_chosen[c] = 1;
    }
    cols.clear();
    for (int j = 0; j < n; ++j)
      if (!is_chosen[j]) cols.push_back(j);
    ndep = static_cast<int>(cols.size());
    for (int c : chosen) cols.push_back(c);
    MatX<T> P(m, n);
    for (int j = 0; j < n; ++j) P.col(j) = A.col(cols[j]);
    A = P;
  }
  auto swap_rows = [&](int a, int c) {
    if (a == c) return;
    A.row(a).swap(A.row(c));
    std::swap(b(a), b(c));
    std::swap(rows[a], rows[c]);
  };
  auto swap_cols = [&](int a, int c) {
    if (a == c) return;
    A.col(a).swap(A.col(c));
    std::swap(cols[a], cols[c]);
  };
  int r = 0;
  const int steps = m < ndep ? m : ndep;
  for (int t = 0; t < steps; ++t) {
    int pi = t, pj = t;
    T best(0);
    const int jend = chosen.empty() ? n : t + 1;  // partial pivoting: column t only
    for (int j = t; j < jend; ++j)
      for (int i = t; i < m; ++i)
        if (abs(A(i, j)) > best) best = abs(A(i, j));
    // Ties: every entry within `tie_band` of the largest is a candidate, and the first in column
    // order (then row order) of the current arrangement wins. Structural ties (a parallelogram's
    // equal links) are equal in exact arithmetic and differ only by rounding, which differs
    // between precisions: broken by index, both precisions choose alike.
    const T floor_abs = best - tie_band * best;
    bool found = false;
    for (int j = t; j < jend && !found; ++j)
      for (int i = t; i < m && !found; ++i)
        if (abs(A(i, j)) >= floor_abs && abs(A(i, j)) > T(0)) { pi = i; pj = j; found = true; }
    if (!(best > out.threshold)) {
      if (!chosen.empty()) {
        out.chosen_ok = false;
        out.message = "the chosen independent coordinates do not determine coordinate " + std::to_string(cols[t]) +
                      " here (no pivot above the threshold in its column of K)";
      }
      break;
    }
    swap_rows(t, pi);
    swap_cols(t, pj);
    for (int i = t + 1; i < m; ++i) {
      const T f = A(i, t) / A(t, t);
      if (f == T(0)) continue;
      A.row(i).tail(n - t) -= f * A.row(t).tail(n - t);
      b(i) -= f * b(t);
    }
    out.smallest_pivot = r == 0 || best < out.smallest_pivot ? best : out.smallest_pivot;
    r = t + 1;
  }
  if (!chosen.empty() && out.chosen_ok && r < ndep) {
    out.chosen_ok = false;
    out.message = "K has only " + std::to_string(m) + " rows: " + std::to_string(n - ndep) +
                  " chosen independent coordinates leave more dependent ones than constraints";
  }
  out.rank = r;
  out.largest_dropped = T(0);
  for (int i = r; i < m; ++i)
    for (int j = r; j < n; ++j)
      if (abs(A(i, j)) > out.largest_dropped) out.largest_dropped = abs(A(i, j));
  T resid(0);
  for (int i = r; i < m; ++i)
    if (abs(b(i)) > resid) resid = abs(b(i));
  out.consistency = resid / (bmax + kmax > T(0) ? T(bmax + kmax) : T(1));
  out.row_order = rows;
  out.col_order = cols;
  out.independent.assign(cols.begin() + r, cols.end());

  // Back-substitution of the first r rows: U [X | x] = [L⁻¹K12 | L⁻¹k1].
  const int nf = n - r;
  MatX<T> X(r, nf);
  VecX<T> x(r);
  for (int i = r - 1; i >= 0; --i) {
    for (int j = 0; j < nf; ++j) {
      T s = A(i, r + j);
      for (int l = i + 1; l < r; ++l) s -= A(i, l) * X(l, j);
      X(i, j) = s / A(i, i);
    }
    T s = b(i);
    for (int l = i + 1; l < r; ++l) s -= A(i, l) * x(l);
    x(i) = s / A(i, i);
  }
  out.G = MatX<T>::Zero(n, nf);
  out.g = VecX<T>::Zero(n);
  for (int t = 0; t < r; ++t) {
    for (int j = 0; j < nf; ++j) out.G(cols[t], j) = -X(t, j);
    out.g(cols[t]) = x(t);
  }
  for (int j = 0; j < nf; ++j) out.G(cols[r + j], j) = T(1);
  return out;
}

template <class T>
VecX<T> least_squares_particular(const MatX<T>& K, const VecX<T>& k, const NullSpaceSolution<T>& ns) {
  VecX<T> x = ns.g;
  const int r = ns.rank;
  if (r == 0) return x;
  const VecX<T> resid = k - K * x;
  MatX<T> Kd(K.rows(), r);
  for (int t = 0; t < r; ++t) Kd.col(t) = K.col(ns.col_order[static_cast<size_t>(t)]);
  const VecX<T> delta = Kd.colPivHouseholderQr().solve(resid);
  for (int t = 0; t < r; ++t) x(ns.col_order[static_cast<size_t>(t)]) += delta(t);
  return x;
}

#define RBDREF_LOOP_GAUSS_INSTANTIATE(EXT, T)                                                                        \
  EXT template NullSpaceSolution<T> null_space_solution<T>(const MatX<T>&, const VecX<T>&, const std::vector<int>&); \
  EXT template VecX<T> least_squares_particular<T>(const MatX<T>&, const VecX<T>&, const NullSpaceSolution<T>&);
RBDREF_EXTERN_FOR_EACH_SCALAR(RBDREF_LOOP_GAUSS_INSTANTIATE)

}  // namespace rbd
