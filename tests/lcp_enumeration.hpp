// The contact LCP (RBDA §11.5, eq. 11.42: ζ̇ = Mλ + d, λ ≥ 0, ζ̇ ≥ 0, λᵀζ̇ = 0) solved by a route
// that shares nothing with the library's Lemke: enumeration of every complementary index set S of
// {0..n-1} (λ_i = 0 off S, ζ̇_i = 0 on S), M_SS λ_S = -d_S solved by a rank-revealing
// decomposition, then λ ≥ 0 and ζ̇ ≥ 0 checked. For a symmetric positive semi-definite M the
// solutions, when there are any, share ζ̇ and Mλ.
#pragma once

#include "tests/test_util.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <vector>

namespace rbd::test {

// The solutions λ of the LCP, one per complementary index set that has one (at most `at_most`, in
// the order of the sets' bit masks); a residual or a sign is accepted within tol_rel times
// max(1, max|M|, max|d|).
template <class T>
std::vector<VecX<T>> complementary_solutions(const MatX<T>& M, const VecX<T>& d, double tol_rel,
                                             std::size_t at_most = std::numeric_limits<std::size_t>::max()) {
  const int n = static_cast<int>(d.size());
  const double scale = std::max(1.0, std::max(max_abs(M), max_abs(d)));
  std::vector<VecX<T>> out;
  for (unsigned mask = 0; mask < (1u << n) && out.size() < at_most; ++mask) {
    std::vector<int> S;
    for (int i = 0; i < n; ++i)
      if (mask & (1u << i)) S.push_back(i);
    VecX<T> lambda = VecX<T>::Zero(n);
    if (!S.empty()) {
      MatX<T> MSS(S.size(), S.size());
      VecX<T> dS(S.size());
      for (size_t a = 0; a < S.size(); ++a) {
        dS(a) = -d(S[a]);
        for (size_t b = 0; b < S.size(); ++b) MSS(a, b) = M(S[a], S[b]);
      }
      const VecX<T> x = MSS.completeOrthogonalDecomposition().solve(dS);
      if (max_abs(VecX<T>(MSS * x - dS)) > tol_rel * scale) continue;  // M_SS λ_S = -d_S has no solution
      for (size_t a = 0; a < S.size(); ++a) lambda(S[a]) = x(a);
    }
    const VecX<T> w = M * lambda + d;
    bool ok = true;
    for (int i = 0; i < n; ++i) ok = ok && lambda(i) >= T(-tol_rel * scale) && w(i) >= T(-tol_rel * scale);
    if (ok) out.push_back(lambda);
  }
  return out;
}

}  // namespace rbd::test
