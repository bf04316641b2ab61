// Sparse factorizations of the joint-space inertia matrix that exploit branch-induced sparsity
// (RBDA §6.5, tables 6.3 and 6.4).
//
//   H = Lᵀ D L   (ltdl)    L unit lower triangular, D diagonal
//   H = Lᵀ L     (ltl)     L lower triangular
//
// lambda is the DoF parent array (Model::dof_parent): lambda[k] < k, and H(i,j) may be non-zero
// only when i is an ancestor of j or j of i. Then L has exactly the sparsity of the lower
// triangle of H, and the factorization fills nothing in: each loop runs over ancestors only, so
// the cost is O(n d²) for depth d instead of O(n³).
//
// Storage is the book's: the factor overwrites a copy of H; for ltdl the diagonal holds D and
// the strict lower triangle holds L (its unit diagonal is implied); for ltl the lower triangle
// holds L. Entries above the diagonal are left as they were in H and are never read.
//
// Degeneracy is data: `ok` is false and `failed_at` names the DoF whose pivot D_kk (or the
// radicand of L_kk) was not positive, i.e. H is not positive-definite.
#pragma once

#include "reference/spatial/spatial.hpp"

#include <vector>

namespace rbd {

template <class T>
struct SparseFactor {
  MatX<T> LD;               // factor in place (nv x nv), see above
  std::vector<int> lambda;  // DoF parent array
  bool unit = true;         // ltdl: L has an implied unit diagonal and D is on LD's diagonal;
                            // ltl: LD's diagonal is L's diagonal
  bool ok = true;           // every pivot positive
  int failed_at = -1;       // first DoF (in factorization order, k = n-1 .. 0) with a bad pivot
  T min_pivot;              // smallest D_kk (ltdl) or L_kk² (ltl)

  MatX<T> L() const;        // explicit L (nv x nv): unit diagonal for ltdl
  VecX<T> D() const;        // explicit D (nv): ltdl's pivots; ones for ltl
};

// The work of table 6.3 on a tree with DoF parents λ: Σ_k depth_k² scalar updates (depth_k: DoFs
// on the path of DoF k to the root), O(n d²); n³/3 on a chain. Callers switch to
// ltdl_articulated (O(n d)) above a budget.
inline double ltdl_updates(const std::vector<int>& lambda) {
  std::vector<double> depth(lambda.size());
  double cost = 0;
  for (size_t k = 0; k < lambda.size(); ++k) {
    depth[k] = 1 + (lambda[k] >= 0 ? depth[static_cast<size_t>(lambda[k])] : 0);
    cost += depth[k] * depth[k];
  }
  return cost;
}

// RBDA table 6.3, LTDL:
//   for k = n-1..0:
//     i = λ(k)
//     while i ≠ -1:
//       a = H_ki / H_kk
//       j = i
//       while j ≠ -1:  H_ij -= a H_kj;  j = λ(j)
//       H_ki = a
//       i = λ(i)
template <class T>
SparseFactor<T> ltdl(const MatX<T>& H, const std::vector<int>& lambda);

// RBDA table 6.3, LTL:
//   for k = n-1..0:
//     H_kk = sqrt(H_kk)
//     i = λ(k);  while i ≠ -1:  H_ki /= H_kk;  i = λ(i)
//     i = λ(k)
//     while i ≠ -1:
//       j = i;  while j ≠ -1:  H_ij -= H_ki H_kj;  j = λ(j)
//       i = λ(i)
template <class T>
SparseFactor<T> ltl(const MatX<T>& H, const std::vector<int>& lambda);

// Products and back-substitutions with the factor's L (RBDA table 6.4), for either
// factorization (f.unit tells whether L's diagonal is implied).
template <class T> VecX<T> mul_L(const SparseFactor<T>& f, VecX<T> x);    // L x
template <class T> VecX<T> mul_Lt(const SparseFactor<T>& f, VecX<T> x);   // Lᵀ x
template <class T> VecX<T> solve_L(const SparseFactor<T>& f, VecX<T> x);  // L⁻¹ x
template <class T> VecX<T> solve_Lt(const SparseFactor<T>& f, VecX<T> x); // L⁻ᵀ x

// H x = b with H = Lᵀ D L:  x = L⁻¹ D⁻¹ L⁻ᵀ b.
template <class T> VecX<T> ltdl_solve(const SparseFactor<T>& f, const VecX<T>& b);
// H x = b with H = Lᵀ L:  x = L⁻¹ L⁻ᵀ b.
template <class T> VecX<T> ltl_solve(const SparseFactor<T>& f, const VecX<T>& b);

// Workspace forms (workspace.hpp): the factor into a caller's SparseFactor, the solves in place;
// nothing allocated once the factor has held an nv x nv matrix.
template <class T> void ltdl(const MatX<T>& H, const std::vector<int>& lambda, SparseFactor<T>& f);
template <class T> void solve_L_in_place(const SparseFactor<T>& f, VecX<T>& x);     // x <- L⁻¹ x
template <class T> void solve_Lt_in_place(const SparseFactor<T>& f, VecX<T>& x);    // x <- L⁻ᵀ x
template <class T> void ltdl_solve_in_place(const SparseFactor<T>& f, VecX<T>& x);  // x <- H⁻¹ x

// ---- definitions ----

template <class T>
MatX<T> SparseFactor<T>::L() const {
  const Eigen::Index n = LD.rows();
  MatX<T> L = MatX<T>::Zero(n, n);
  for (Eigen::Index k = 0; k < n; ++k) {
    L(k, k) = unit ? T(1) : LD(k, k);
    for (int i = lambda[k]; i >= 0; i = lambda[i]) L(k, i) = LD(k, i);
  }
  return L;
}

template <class T>
VecX<T> SparseFactor<T>::D() const {
  return unit ? VecX<T>(LD.diagonal()) : VecX<T>(VecX<T>::Ones(LD.rows()));
}

// Workspace form: the factor into f, whose storage is kept from one call to the next (nothing
// allocated once f has held an nv x nv factor; workspace.hpp).
template <class T>
void ltdl(const MatX<T>& H, const std::vector<int>& lambda, SparseFactor<T>& f) {
  f.LD = H;
  f.lambda = lambda;
  f.unit = true;
  f.ok = true;
  f.failed_at = -1;
  MatX<T>& A = f.LD;
  const int n = static_cast<int>(A.rows());
  for (int k = n - 1; k >= 0; --k) {
    if (!(A(k, k) > T(0))) {  // not positive-definite: stop, the rest would divide by it
      f.ok = false;
      f.failed_at = k;
      break;
    }
    for (int i = lambda[k]; i >= 0; i = lambda[i]) {
      const T a = A(k, i) / A(k, k);
      for (int j = i; j >= 0; j = lambda[j]) A(i, j) -= a * A(k, j);
      A(k, i) = a;
    }
  }
  // The smallest pivot, a diagnostic: an interval factor leaves it 0 (the smallest of overlapping
  // enclosures is no decision the proof needs; each pivot was proven positive above).
  if constexpr (!kIsInterval<T>) f.min_pivot = n > 0 ? A.diagonal().minCoeff() : T(0);
}

template <class T>
SparseFactor<T> ltdl(const MatX<T>& H, const std::vector<int>& lambda) {
  SparseFactor<T> f;
  ltdl<T>(H, lambda, f);
  return f;
}

template <class T>
SparseFactor<T> ltl(const MatX<T>& H, const std::vector<int>& lambda) {
  using std::sqrt;
  SparseFactor<T> f;
  f.LD = H;
  f.lambda = lambda;
  f.unit = false;
  MatX<T>& A = f.LD;
  const int n = static_cast<int>(A.rows());
  f.min_pivot = n > 0 ? A(n - 1, n - 1) : T(0);
  for (int k = n - 1; k >= 0; --k) {
    if (A(k, k) < f.min_pivot) f.min_pivot = A(k, k);
    if (!(A(k, k) > T(0))) {  // not positive-definite: stop before sqrt of a non-positive number
      f.ok = false;
      f.failed_at = k;
      break;
    }
    A(k, k) = sqrt(A(k, k));
    for (int i = lambda[k]; i >= 0; i = lambda[i]) A(k, i) /= A(k, k);
    for (int i = lambda[k]; i >= 0; i = lambda[i])
      for (int j = i; j >= 0; j = lambda[j]) A(i, j) -= A(k, i) * A(k, j);
  }
  return f;
}

// L x: (L x)_i = L_ii x_i + Σ_{j ancestor of i} L_ij x_j; ascending order would overwrite x_j
// before use, so go descending (x_i depends only on ancestors j < i).
template <class T>
VecX<T> mul_L(const SparseFactor<T>& f, VecX<T> x) {
  const auto& L = f.LD;
  const bool unit = f.unit;
  for (int i = static_cast<int>(x.size()) - 1; i >= 0; --i) {
    if (!unit) x(i) *= L(i, i);
    for (int j = f.lambda[i]; j >= 0; j = f.lambda[j]) x(i) += L(i, j) * x(j);
  }
  return x;
}

// Lᵀ x: (Lᵀ x)_j = L_jj x_j + Σ_{i descendant of j} L_ij x_i; ascending order reads x_i, i > j,
// only after x_j is done.
template <class T>
VecX<T> mul_Lt(const SparseFactor<T>& f, VecX<T> x) {
  const auto& L = f.LD;
  const bool unit = f.unit;
  const int n = static_cast<int>(x.size());
  for (int i = 0; i < n; ++i) {
    const T xi = x(i);  // still the input value: only descendants (later) add into x(i)
    if (!unit) x(i) *= L(i, i);
    for (int j = f.lambda[i]; j >= 0; j = f.lambda[j]) x(j) += L(i, j) * xi;
  }
  return x;
}

// x <- L⁻¹ x, ascending: x_i = (x_i - Σ_{j ancestor} L_ij x_j) / L_ii.
template <class T>
void solve_L_in_place(const SparseFactor<T>& f, VecX<T>& x) {
  const auto& L = f.LD;
  const bool unit = f.unit;
  const int n = static_cast<int>(x.size());
  for (int i = 0; i < n; ++i) {
    for (int j = f.lambda[i]; j >= 0; j = f.lambda[j]) x(i) -= L(i, j) * x(j);
    if (!unit) x(i) /= L(i, i);
  }
}
template <class T>
VecX<T> solve_L(const SparseFactor<T>& f, VecX<T> x) {
  solve_L_in_place<T>(f, x);
  return x;
}

// x <- L⁻ᵀ x, descending: x_i /= L_ii; then x_j -= L_ij x_i for the ancestors j of i.
template <class T>
void solve_Lt_in_place(const SparseFactor<T>& f, VecX<T>& x) {
  const auto& L = f.LD;
  const bool unit = f.unit;
  for (int i = static_cast<int>(x.size()) - 1; i >= 0; --i) {
    if (!unit) x(i) /= L(i, i);
    for (int j = f.lambda[i]; j >= 0; j = f.lambda[j]) x(j) -= L(i, j) * x(i);
  }
}
template <class T>
VecX<T> solve_Lt(const SparseFactor<T>& f, VecX<T> x) {
  solve_Lt_in_place<T>(f, x);
  return x;
}

// x <- H⁻¹ x = L⁻¹ D⁻¹ L⁻ᵀ x, in place (workspace.hpp).
template <class T>
void ltdl_solve_in_place(const SparseFactor<T>& f, VecX<T>& x) {
  solve_Lt_in_place<T>(f, x);             // x <- L⁻ᵀ x
  x.array() /= f.LD.diagonal().array();   // x <- D⁻¹ x
  solve_L_in_place<T>(f, x);              // x <- L⁻¹ x
}
template <class T>
VecX<T> ltdl_solve(const SparseFactor<T>& f, const VecX<T>& b) {
  VecX<T> x = b;
  ltdl_solve_in_place<T>(f, x);
  return x;
}

template <class T>
VecX<T> ltl_solve(const SparseFactor<T>& f, const VecX<T>& b) {
  return solve_L<T>(f, solve_Lt<T>(f, b));  // x = L⁻¹ L⁻ᵀ b
}

#define RBDREF_LTDL_INSTANTIATE(EXT, T)                                                \
  EXT template struct SparseFactor<T>;                                                 \
  EXT template void ltdl<T>(const MatX<T>&, const std::vector<int>&, SparseFactor<T>&); \
  EXT template SparseFactor<T> ltdl<T>(const MatX<T>&, const std::vector<int>&);       \
  EXT template void solve_L_in_place<T>(const SparseFactor<T>&, VecX<T>&);             \
  EXT template void solve_Lt_in_place<T>(const SparseFactor<T>&, VecX<T>&);            \
  EXT template void ltdl_solve_in_place<T>(const SparseFactor<T>&, VecX<T>&);          \
  EXT template SparseFactor<T> ltl<T>(const MatX<T>&, const std::vector<int>&);        \
  EXT template VecX<T> mul_L<T>(const SparseFactor<T>&, VecX<T>);                      \
  EXT template VecX<T> mul_Lt<T>(const SparseFactor<T>&, VecX<T>);                     \
  EXT template VecX<T> solve_L<T>(const SparseFactor<T>&, VecX<T>);                    \
  EXT template VecX<T> solve_Lt<T>(const SparseFactor<T>&, VecX<T>);                   \
  EXT template VecX<T> ltdl_solve<T>(const SparseFactor<T>&, const VecX<T>&);          \
  EXT template VecX<T> ltl_solve<T>(const SparseFactor<T>&, const VecX<T>&);
RBDREF_EXTERN_FOR_EACH_TREE_SCALAR(RBDREF_LTDL_INSTANTIATE)

}  // namespace rbd
