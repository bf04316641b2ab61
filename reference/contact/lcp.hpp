// The linear complementarity problem of contact (RBDA §11.5, eq. 11.42):
//
//   ζ̇ = M λ + d,   ζ̇ ≥ 0,   λ ≥ 0,   ζ̇ᵀλ = 0          (M n_c x n_c, symmetric positive semi-definite)
//
// solved by Lemke's complementary pivoting method (Cottle, Pang & Stone, "The Linear
// Complementarity Problem", §4.4) with covering vector e = 1 and the lexicographic rule, which
// makes every ratio test unique and so rules out cycling on degenerate problems (contacts at rest
// with d_i = 0, repeated contacts). All arithmetic is in T: at bin50 the pivots are 50-digit
// operations, and the returned λ is recomputed from the final basis by a fresh solve, so its last
// digits are not the accumulated pivot rounding.
//
// Either way the result is a certificate:
//   solved       λ ≥ 0, ζ̇ = Mλ + d ≥ 0, λᵀζ̇ = 0: ζ̇_i is exactly 0 on the basic λ_i (`active`),
//                the residual of ζ̇ = Mλ + d there is for the caller to check;
//   no solution  y ≥ 0, y ≠ 0, M y = 0, dᵀy < 0. Then no λ ≥ 0 has Mλ + d ≥ 0: yᵀ(Mλ + d) =
//                (My)ᵀλ + dᵀy = dᵀy < 0 (Farkas). For symmetric positive semi-definite M Lemke ends
//                on a secondary ray only when the problem is infeasible, and the ray's λ-part is
//                such a y: along the ray w_h = Mλ_h + e z0_h with λ_hᵀw_h = 0, so λ_hᵀMλ_h = 0,
//                hence Mλ_h = 0 (M PSD) and z0_h = 0, and complementarity with the current point
//                gives dᵀλ_h = -z0 eᵀλ_h < 0 (example 11.1's disk in a narrowing slot: M = [m -m;
//                -m m], d1 + d2 < 0, y = (1, 1)).
// For a PSD M a solution, when one exists, has unique ζ̇ (and unique Tλ when M = TᵀH⁻¹T, the
// book's property 2); λ is unique when M is positive-definite, and may be when it is not
// (contact/uniqueness.hpp decides). Lemke returns a basic solution (the contacts with λ_i > 0
// have independent normals, as table 11.1 wants).
//
// Units: everything runs on M and d divided by the powers of two just above max|M| and max|d|,
// so no decision depends on the units of λ and ζ̇ (a problem in N and m/s² and the same one in
// kN and mm/s² pivot alike; bit for bit when the factors are powers of two). Zero tests use
// `pivot_tolerance` = 1000 ε_T: an entry below it is treated as 0 in the ratio test. A ray whose
// certificate has dᵀy ≥ -n pivot_tolerance (scaled d) proves nothing (the problem is on the
// boundary of solvability within rounding, as when dependent contact normals carry consistent d):
// then the complementary index sets are searched (n ≤ 16; `borderline` set) and, if none solves,
// the result is Failed, saying so.
#pragma once

#include "reference/spatial/spatial.hpp"

#include <Eigen/LU>

#include <algorithm>
#include <string>
#include <vector>

namespace rbd {

template <class T>
struct LcpResult {
  enum Status { Solved, NoSolution, Failed };
  Status status = Failed;
  VecX<T> lambda;       // n_c (Solved)
  VecX<T> zeta_dot;     // ζ̇ = Mλ + d (Solved)
  VecX<T> certificate;  // y (NoSolution): y ≥ 0, My = 0, dᵀy < 0, scaled to max y = 1
  std::vector<int> active;  // contacts with λ basic in the final basis (λ_i > 0 or degenerate)
  int pivots = 0;
  T pivot_tolerance;
  bool borderline = false;  // solved by the enumeration fallback after a ray with dᵀy at rounding level
  std::string message;  // why Failed (pivot limit, a pivot below the tolerance)
};

// Lemke's method on (M, d). M must be square with d's size; n_c = 0 is solved trivially.
template <class T>
LcpResult<T> solve_lcp(const MatX<T>& M, const VecX<T>& d);

// ---- definition ----

namespace detail {

// Row i of the tableau divided by a, against row j divided by b, lexicographically over the
// columns `cols` (the right-hand side first, then B⁻¹'s columns): true when row i's is smaller.
template <class T>
bool lex_less(const MatX<T>& tab, int i, const T& a, int j, const T& b, const std::vector<int>& cols) {
  for (int c : cols) {
    const T x = tab(i, c) / a, y = tab(j, c) / b;
    if (x < y) return true;
    if (y < x) return false;
  }
  return false;
}

constexpr int kMaxLcpEnumeration = 16;

// The borderline fallback: the first complementary index set S (in order of size) with M_SS
// nonsingular whose λ_S = -M_SS⁻¹ d_S ≥ -tol and ζ̇ ≥ -tol, tol = pivot_tolerance; for n ≤
// kMaxLcpEnumeration. Fills r as solved (λ clipped at 0, ζ̇ exactly 0 on S) and returns true.
template <class T>
bool solve_by_enumeration(const MatX<T>& M, const VecX<T>& d, LcpResult<T>& r) {
  const int n = static_cast<int>(d.size());
  if (n > kMaxLcpEnumeration) return false;
  const T tol = r.pivot_tolerance;
  for (int size = 0; size <= n; ++size)
    for (unsigned mask = 0; mask < (1u << n); ++mask) {
      if (__builtin_popcount(mask) != size) continue;
      std::vector<int> S;
      for (int i = 0; i < n; ++i)
        if (mask & (1u << i)) S.push_back(i);
      VecX<T> lambda = VecX<T>::Zero(n);
      if (size > 0) {
        MatX<T> MSS(size, size);
        VecX<T> dS(size);
        for (int a = 0; a < size; ++a) {
          dS(a) = -d(S[a]);
          for (int b = 0; b < size; ++b) MSS(a, b) = M(S[a], S[b]);
        }
        Eigen::FullPivLU<MatX<T>> lu(MSS);
        lu.setThreshold(T(1000) * T(n) * epsilon<T>());
        if (lu.rank() < size) continue;
        const VecX<T> x = lu.solve(dS);
        bool ok = true;
        for (int a = 0; a < size; ++a) {
          ok = ok && x(a) >= -tol;
          lambda(S[a]) = x(a) > T(0) ? x(a) : T(0);
        }
        if (!ok) continue;
      }
      VecX<T> w = M * lambda + d;
      bool ok = true;
      for (int i = 0; i < n; ++i) ok = ok && w(i) >= -tol;
      if (!ok) continue;
      for (int a : S) w(a) = T(0);
      r.status = LcpResult<T>::Solved;
      r.lambda = lambda;
      r.zeta_dot = w;
      r.active = S;
      r.borderline = true;
      return true;
    }
  return false;
}

}  // namespace detail

template <class T>
LcpResult<T> solve_lcp(const MatX<T>& M_in, const VecX<T>& d_in) {
  using std::abs;
  const int n = static_cast<int>(d_in.size());
  LcpResult<T> r;
  r.pivot_tolerance = T(1000) * epsilon<T>();
  if (n == 0 || d_in.minCoeff() >= T(0)) {  // λ = 0 solves it (the book's remark 1 after eq. 11.22)
    r.status = LcpResult<T>::Solved;
    r.lambda = VecX<T>::Zero(n);
    r.zeta_dot = d_in;
    return r;
  }
  // The problem in its own units: M̂ = M / 2^eM, d̂ = d / 2^ed with 2^eM, 2^ed the powers of two
  // just above max|M| and max|d| (exact scalings), so every decision is the same whatever units
  // λ and ζ̇ are given in. λ = 2^(ed - eM) λ̂ and ζ̇ = 2^ed ζ̂̇, exactly.
  T mmax(0), dmax(0);
  for (Eigen::Index i = 0; i < M_in.size(); ++i) mmax = std::max(mmax, T(abs(M_in.data()[i])));
  for (int i = 0; i < n; ++i) dmax = std::max(dmax, T(abs(d_in(i))));
  using std::frexp;
  using std::ldexp;
  int eM = 0, ed = 0;
  if (mmax > T(0)) (void)frexp(mmax, &eM);  // M = 0: the first ray proves d ≱ 0 infeasible, in any units
  (void)frexp(dmax, &ed);
  const MatX<T> M = M_in * T(ldexp(T(1), -eM));
  const VecX<T> d = d_in * T(ldexp(T(1), -ed));
  const T lambda_unit = ldexp(T(1), ed - eM), zeta_unit = ldexp(T(1), ed);
  // Tableau of  w - M λ - e z0 = d  in the current basis: columns w (0..n-1), λ (n..2n-1), z0 (2n),
  // right-hand side (2n+1). basic[i] is the variable of row i. Initially B = I (w basic).
  const int Z0 = 2 * n, RHS = 2 * n + 1;
  MatX<T> tab = MatX<T>::Zero(n, 2 * n + 2);
  tab.leftCols(n) = MatX<T>::Identity(n, n);
  tab.block(0, n, n, n) = -M;
  tab.col(Z0).setConstant(T(-1));
  tab.col(RHS) = d;
  std::vector<int> basic(n);
  for (int i = 0; i < n; ++i) basic[i] = i;
  // Lexicographic order: the right-hand side, then B⁻¹ (the w columns of the tableau).
  std::vector<int> lex_cols{RHS};
  for (int i = 0; i < n; ++i) lex_cols.push_back(i);
  auto pivot = [&](int row, int col) {
    tab.row(row) /= tab(row, col);
    for (int i = 0; i < n; ++i)
      if (i != row && tab(i, col) != T(0)) tab.row(i) -= tab(i, col) * tab.row(row);
    basic[row] = col;
    ++r.pivots;
  };
  // First pivot: z0 enters where d_i is lexicographically most negative (after it, every basic
  // value is ≥ 0).
  int row = 0;
  for (int i = 1; i < n; ++i)
    if (detail::lex_less<T>(tab, i, T(1), row, T(1), lex_cols)) row = i;
  int leaving = basic[row];
  pivot(row, Z0);
  const int max_pivots = 50 * (n + 1) * (n + 1);
  while (r.pivots < max_pivots) {
    const int entering = leaving < n ? leaving + n : leaving - n;  // the complement of the leaver
    // Ratio test over rows whose entering-column entry is positive (it decreases their basic value).
    int best = -1;
    for (int i = 0; i < n; ++i) {
      if (!(tab(i, entering) > r.pivot_tolerance)) continue;
      if (best < 0 || detail::lex_less<T>(tab, i, tab(i, entering), best, tab(best, entering), lex_cols)) best = i;
    }
    if (best < 0) {
      // Secondary ray: the entering variable grows without bound. Its λ-part is the certificate.
      VecX<T> y = VecX<T>::Zero(n);
      if (entering >= n) y(entering - n) = T(1);
      for (int i = 0; i < n; ++i)
        if (basic[i] >= n && basic[i] < 2 * n) y(basic[i] - n) = -tab(i, entering);
      for (int i = 0; i < n; ++i)
        if (y(i) < T(0)) y(i) = T(0);  // rounding of entries that are 0 on the exact ray
      const T ymax = y.size() ? y.maxCoeff() : T(0);
      if (!(ymax > T(0))) {
        r.message = "Lemke's method ended on a ray with no λ-part (M is not positive semi-definite?)";
        return r;
      }
      y /= ymax;
      // A proof needs dᵀy < 0 beyond rounding. When |dᵀy| is at rounding level the problem sits
      // on the boundary of solvability (d's component along null(M) ∩ R₊ⁿ is zero in exact
      // arithmetic, e.g. two contacts with dependent normals and consistent d): the exact problem
      // may be solvable, so look for a solution among the complementary index sets instead.
      if (!(d.dot(y) < -r.pivot_tolerance * T(n))) {
        if (detail::solve_by_enumeration<T>(M, d, r)) {
          r.lambda *= lambda_unit;
          r.zeta_dot *= zeta_unit;
          return r;
        }
        r.message = "Lemke's method ended on a ray with dᵀy = " + to_decimal(T(d_in.dot(y)), 3) +
                    ", at rounding level: the problem is on the boundary of solvability at this precision" +
                    (n > detail::kMaxLcpEnumeration ? " (too many contacts to enumerate)" : "");
        return r;
      }
      r.status = LcpResult<T>::NoSolution;
      r.certificate = y;
      return r;
    }
    leaving = basic[best];
    pivot(best, entering);
    if (leaving == Z0) {
      // z0 left the basis: the basic λ solve the LCP. Recompute them from the final basis (a
      // fresh LU solve of the basis columns) rather than read the accumulated tableau.
      MatX<T> Bm = MatX<T>::Zero(n, n);
      for (int i = 0; i < n; ++i) {
        const int v = basic[i];
        if (v < n) Bm(v, i) = T(1);       // w_v: column e_v
        else Bm.col(i) = -M.col(v - n);    // λ: column -M e
      }
      const VecX<T> x = Bm.fullPivLu().solve(d);
      r.lambda = VecX<T>::Zero(n);
      for (int i = 0; i < n; ++i)
        if (basic[i] >= n) {
          r.lambda(basic[i] - n) = x(i) > T(0) ? x(i) : T(0);  // a basic value is ≥ 0; -0 rounding clipped
          r.active.push_back(basic[i] - n);
        }
      std::sort(r.active.begin(), r.active.end());
      // ζ̇ = Mλ + d, and exactly 0 where λ is basic (its w is nonbasic, so 0 in the basic
      // solution): complementarity holds exactly, and Mλ + d there is its rounding (checked by
      // the caller as the residual of ζ̇ = Mλ + d).
      r.zeta_dot = M * r.lambda + d;
      for (int a : r.active) r.zeta_dot(a) = T(0);
      r.lambda *= lambda_unit;
      r.zeta_dot *= zeta_unit;
      r.status = LcpResult<T>::Solved;
      return r;
    }
  }
  r.message = "Lemke's method did not end within " + std::to_string(max_pivots) + " pivots";
  return r;
}

#define RBDREF_LCP_INSTANTIATE(EXT, T) EXT template LcpResult<T> solve_lcp<T>(const MatX<T>&, const VecX<T>&);
RBDREF_EXTERN_FOR_EACH_SCALAR(RBDREF_LCP_INSTANTIATE)

}  // namespace rbd
