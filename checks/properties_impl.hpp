// Definitions of the property checks declared in properties.hpp. Included only by the
// instantiation units checks/instantiate_*.cpp.
#pragma once

#include "checks/contact_checks.hpp"
#include "checks/loop_checks.hpp"
#include "checks/properties.hpp"

#include <Eigen/Eigenvalues>

#include <cstdint>
#include <cstdio>
#include <future>
#include <type_traits>

namespace rbd {

namespace detail {

template <class Derived>
typename Derived::Scalar max_abs(const Eigen::MatrixBase<Derived>& x) {
  using S = typename Derived::Scalar;
  return x.size() == 0 ? S(0) : S(x.cwiseAbs().maxCoeff());
}
// Induced ∞-norm: the largest row sum of |A|.
template <class T>
T inf_norm(const MatX<T>& A) {
  return A.size() == 0 ? T(0) : T(A.cwiseAbs().rowwise().sum().maxCoeff());
}
// a / b, with 0 / 0 = 0 (both sides of an identity exactly zero).
template <class T>
T ratio(const T& a, const T& b) {
  if (a == T(0)) return T(0);
  return a / b;
}
}  // namespace detail

template <class T>
CheckResult check_symmetric(const MatX<T>& H, double k) {
  using detail::max_abs;
  const T r = detail::ratio<T>(max_abs(MatX<T>(H - H.transpose())), max_abs(H));
  return make_check("H.symmetric", r, tolerance<T>(k), "max|H - Hᵀ| / max|H|");
}

namespace detail {

// Fixed pseudo-random vector in [-1, 1]ⁿ (splitmix64 of seed and index; exact doubles, so the same
// numbers in every T): the x of the randomized (Freivalds) forms.
template <class T>
VecX<T> random_vector(Eigen::Index n, std::uint64_t seed) {
  VecX<T> x(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(i + 1) * 0xD1B54A32D192ED03ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    x(i) = T(static_cast<double>(z >> 11) / 4503599627370496.0 - 1.0);  // exact: k / 2⁵² - 1
  }
  return x;
}

// Table 6.3's cost on this DoF tree: Σ_k depth_k² (depth_k = DoFs from k to the root, k included).

// The columns the RNEA-based checks evaluate: all up to kExactMaxN, else kSampledColumns spread
// evenly (round(c (n - 1) / (kSampledColumns - 1)), first and last included).
inline std::vector<int> sampled_columns(int n) {
  std::vector<int> J;
  if (n <= kExactMaxN) {
    for (int j = 0; j < n; ++j) J.push_back(j);
    return J;
  }
  for (int c = 0; c < kSampledColumns; ++c) {
    const int j = static_cast<int>((static_cast<long long>(c) * (n - 1) * 2 + (kSampledColumns - 1)) / (2 * (kSampledColumns - 1)));
    if (J.empty() || J.back() != j) J.push_back(j);
  }
  return J;
}

// H from inverse dynamics, H_r x = RNEA(q, 0, x) - RNEA(q, 0, 0) with g = 0: columns J (x = e_j)
// and, above kExactMaxN, kRandomVectors products with random_vector(n, 1 + r).
template <class T>
struct RneaInertia {
  std::vector<int> J;
  MatX<T> cols;                 // n x |J|: H_r(:, J)
  std::vector<VecX<T>> x, Hx;   // random x and H_r x (empty when every column is there)
  bool all() const { return static_cast<int>(J.size()) == cols.rows(); }
};
template <class T>
RneaInertia<T> inertia_from_rnea(const Model<T>& model, const VecX<T>& q) {
  Model<T> m0 = model;
  m0.gravity.setZero();
  const int n = model.nv;
  const VecX<T> zero = VecX<T>::Zero(n);
  const VecX<T> C0 = rnea<T>(m0, q, zero, zero);  // exactly 0 without gravity and velocity
  RneaInertia<T> r;
  r.J = sampled_columns(n);
  r.cols.resize(n, static_cast<Eigen::Index>(r.J.size()));
  for (size_t c = 0; c < r.J.size(); ++c)
    r.cols.col(static_cast<Eigen::Index>(c)) = rnea<T>(m0, q, zero, VecX<T>(VecX<T>::Unit(n, r.J[c]))) - C0;
  if (!r.all())
    for (int v = 0; v < kRandomVectors; ++v) {
      r.x.push_back(random_vector<T>(n, static_cast<std::uint64_t>(1 + v)));
      r.Hx.push_back(rnea<T>(m0, q, zero, r.x.back()) - C0);
    }
  return r;
}

template <class T>
CheckResult rnea_H_symmetric(const RneaInertia<T>& R, const MatX<T>& H, double k) {
  using std::abs;
  const char* name = "rnea.H_symmetric";
  if (R.all()) {
    const MatX<T>& Hr = R.cols;
    const T r = ratio<T>(max_abs(MatX<T>(Hr - Hr.transpose())), max_abs(Hr));
    return make_check(name, r, tolerance<T>(k),
                      "max|H_r - H_rᵀ| / max|H_r|, H_r(:, j) = RNEA(q, 0, e_j) - RNEA(q, 0, 0) with g = 0");
  }
  // The J x J block of H_r, entry by entry.
  const int m = static_cast<int>(R.J.size());
  T e(0);
  for (int a = 0; a < m; ++a)
    for (int b = 0; b < a; ++b) {
      const T d = abs(T(R.cols(R.J[a], b) - R.cols(R.J[b], a)));
      if (d > e) e = d;
    }
  T worst = ratio<T>(e, max_abs(R.cols));
  // Bilinear forms over consecutive pairs of the random vectors: |yᵀ H_r x - xᵀ H_r y|.
  const T nH = inf_norm<T>(H);
  const int nr = static_cast<int>(R.x.size());
  for (int v = 0; v < nr; ++v) {
    const VecX<T>&x = R.x[v], &y = R.x[(v + 1) % nr], &Hx = R.Hx[v], &Hy = R.Hx[(v + 1) % nr];
    const T s1 = y.cwiseAbs().sum() * max_abs(x), s2 = x.cwiseAbs().sum() * max_abs(y);
    const T r = ratio<T>(abs(T(y.dot(Hx) - x.dot(Hy))), T(nH * (s1 > s2 ? s1 : s2)));
    if (r > worst) worst = r;
  }
  return make_check(name, worst, tolerance<T>(k),
                    "sampled (n > " + std::to_string(kExactMaxN) + "): max of max|H_r(J, J) - H_r(J, J)ᵀ| / max|H_r(:, J)| over " +
                        std::to_string(m) + " spread columns J and " + std::to_string(nr) +
                        " randomized |yᵀH_r x - xᵀH_r y| / (‖H‖ max(‖y‖₁|x|, ‖x‖₁|y|)), H_r x = RNEA(q, 0, x) - RNEA(q, 0, 0) with g = 0");
}

template <class T>
CheckResult crba_rnea_columns(const RneaInertia<T>& R, const MatX<T>& H, double k) {
  const char* name = "crba.columns_equal_rnea_differences";
  if (R.all()) {
    const T r = ratio<T>(max_abs(MatX<T>(H - R.cols)), max_abs(H));
    return make_check(name, r, tolerance<T>(k),
                      "max|H_crba - H_rnea| / max|H|, H_rnea(:, j) = RNEA(q, 0, e_j) - RNEA(q, 0, 0) with g = 0");
  }
  MatX<T> HJ(H.rows(), static_cast<Eigen::Index>(R.J.size()));
  for (size_t c = 0; c < R.J.size(); ++c) HJ.col(static_cast<Eigen::Index>(c)) = H.col(R.J[c]);
  T worst = ratio<T>(max_abs(MatX<T>(HJ - R.cols)), max_abs(H));
  const T nH = inf_norm<T>(H);
  for (size_t v = 0; v < R.x.size(); ++v) {
    const T r = ratio<T>(max_abs(VecX<T>(H * R.x[v] - R.Hx[v])), T(nH * max_abs(R.x[v])));
    if (r > worst) worst = r;
  }
  return make_check(name, worst, tolerance<T>(k),
                    "sampled (n > " + std::to_string(kExactMaxN) + "): max of max|H_crba(:, J) - H_rnea(:, J)| / max|H| over " +
                        std::to_string(R.J.size()) + " spread columns J and " + std::to_string(R.x.size()) +
                        " randomized ‖H x - H_rnea x‖ / (‖H‖ |x|), H_rnea x = RNEA(q, 0, x) - RNEA(q, 0, 0) with g = 0");
}

// Positive-definiteness: eigenvalues in T up to kEigenMaxN, the pivots of the LᵀDL factor f of H
// above (f.ok: every pivot > 0), with κ from condition_estimate.
template <class T>
CheckResult positive_definite(const MatX<T>& H, const SparseFactor<T>& f, double kappa) {
  using std::abs;
  CheckResult r;
  r.name = "H.positive_definite";
  if (H.size() == 0) return make_check(r.name, T(0), 0.0, "empty matrix");
  if (H.rows() <= kEigenMaxN) {
    // Eigenvalues of the symmetric part, computed in T: the raw asymmetry is check_symmetric's.
    const MatX<T> Hs = (H + H.transpose()) / T(2);
    Eigen::SelfAdjointEigenSolver<MatX<T>> es(Hs, Eigen::EigenvaluesOnly);
    const T lmin = es.eigenvalues()(0), lmax = es.eigenvalues()(H.rows() - 1);
    const T scale = abs(lmax) > abs(lmin) ? abs(lmax) : abs(lmin);
    const T res = lmin > T(0) ? T(0) : (scale > T(0) ? T(-lmin / scale) : T(1));
    r = make_check(r.name, res, 0.0,
                   "smallest eigenvalue " + to_decimal(lmin, 6) + ", largest " + to_decimal(lmax, 6) +
                       (lmin > T(0) ? ", condition number " + to_decimal(T(lmax / lmin), 4) : ""));
    r.passed = lmin > T(0);
    return r;
  }
  T hmax(0);
  for (Eigen::Index i = 0; i < H.rows(); ++i)
    if (abs(H(i, i)) > hmax) hmax = abs(H(i, i));
  const T res = f.ok ? T(0) : (hmax > T(0) ? T(-f.min_pivot / hmax) : T(1));
  r = make_check(r.name, res > T(0) ? res : T(0), 0.0,
                 "LᵀDL pivots (n > " + std::to_string(kEigenMaxN) + "; H > 0 iff every pivot D > 0): smallest pivot " +
                     to_decimal(f.min_pivot, 6) +
                     (f.ok ? ", condition number ≈ " + format_number("%.4g", kappa) + " (Lanczos estimate)"
                           : ", not positive at DoF " + std::to_string(f.failed_at)));
  r.passed = f.ok;
  return r;
}

}  // namespace detail

template <class T>
CheckResult check_positive_definite(const MatX<T>& H) {
  if (H.rows() <= kEigenMaxN) return detail::positive_definite<T>(H, SparseFactor<T>(), 0.0);
  // No tree here: table 6.3 with λ(k) = k - 1, a dense LᵀDL of the lower triangle.
  std::vector<int> chain(static_cast<size_t>(H.rows()));
  for (size_t k = 0; k < chain.size(); ++k) chain[k] = static_cast<int>(k) - 1;
  const SparseFactor<T> f = ltdl<T>(H, chain);
  return detail::positive_definite<T>(H, f, condition_estimate<T>(H, f));
}

template <class T>
T condition_number(const MatX<T>& H) {
  if (H.size() == 0) return T(1);
  Eigen::SelfAdjointEigenSolver<MatX<T>> es(MatX<T>((H + H.transpose()) / T(2)), Eigen::EigenvaluesOnly);
  const T lmin = es.eigenvalues()(0), lmax = es.eigenvalues()(H.rows() - 1);
  if (!(lmin > T(0))) return std::numeric_limits<T>::infinity();
  return lmax / lmin;
}

template <class T>
CheckResult check_rnea_H_symmetric(const Model<T>& model, const VecX<T>& q, double k) {
  const detail::RneaInertia<T> R = detail::inertia_from_rnea<T>(model, q);
  return detail::rnea_H_symmetric<T>(R, R.all() ? MatX<T>() : crba<T>(model, q), k);
}

template <class T>
CheckResult check_crba_rnea_columns(const Model<T>& model, const VecX<T>& q, const MatX<T>& H, double k) {
  return detail::crba_rnea_columns<T>(detail::inertia_from_rnea<T>(model, q), H, k);
}

template <class T>
CheckResult check_crba_rnea_columns(const Model<T>& model, const VecX<T>& q, double k) {
  return check_crba_rnea_columns<T>(model, q, crba<T>(model, q), k);
}

namespace detail {
// Scale of a joint acceleration error: |qdd| plus the acceleration the bias forces alone cause,
// |H⁻¹ C| (so that qdd = 0 under gravity still has a scale: the error then comes from C).
template <class T>
T qdd_scale(const SparseFactor<T>& f, const VecX<T>& qdd, const VecX<T>& C) {
  return max_abs(qdd) + max_abs(ltdl_solve<T>(f, C));
}
}  // namespace detail

namespace detail {
template <class T>
CheckResult fd_inverts_id(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& qdd,
                          const VecX<T>& C, const SparseFactor<T>& f, double kappa, double k) {
  const VecX<T> tau = rnea<T>(model, q, qd, qdd);
  const AbaResult<T> fd = aba<T>(model, q, qd, tau);
  if (!fd.ok || !f.ok)
    return make_check("aba.inverts_rnea", T(1), 0.0, "H is not positive-definite (ABA or LᵀDL found a non-positive pivot)");
  const T scale = qdd_scale<T>(f, qdd, C);
  const T r = ratio<T>(max_abs(VecX<T>(fd.qdd - qdd)), scale);
  return make_check("aba.inverts_rnea", r, tolerance<T>(k) * kappa,
                    "max|ABA(RNEA(qdd)) - qdd| / (max|qdd| + max|H⁻¹C|); tolerance k ε κ(H), κ(H) ≈ " +
                        format_number("%.4g", kappa) + " (Lanczos estimate)");
}

template <class T>
CheckResult fd_matches_ltdl(const AbaResult<T>& fd, const VecX<T>& tau, const VecX<T>& C, const SparseFactor<T>& f,
                            double kappa, double k, const std::string& factor) {
  if (!f.ok || !fd.ok) return make_check("aba.matches_crba_ltdl", T(1), 0.0, "H is not positive-definite");
  const VecX<T> qdd = ltdl_solve<T>(f, VecX<T>(tau - C));
  const T r = ratio<T>(max_abs(VecX<T>(fd.qdd - qdd)), qdd_scale<T>(f, qdd, C));
  return make_check("aba.matches_crba_ltdl", r, tolerance<T>(k) * kappa,
                    "max|ABA(tau) - (LᵀDL)⁻¹(tau - C)| / (max|qdd| + max|H⁻¹C|); tolerance k ε κ(H), κ(H) ≈ " +
                        format_number("%.4g", kappa) + " (Lanczos estimate)" + factor);
}
}  // namespace detail

template <class T>
CheckResult check_fd_inverts_id(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& qdd,
                                double k) {
  const MatX<T> H = crba<T>(model, q);
  const SparseFactor<T> f = ltdl<T>(H, model.dof_parent);
  return detail::fd_inverts_id<T>(model, q, qd, qdd, bias<T>(model, q, qd), f, condition_estimate<T>(H, f), k);
}

template <class T>
CheckResult check_fd_matches_ltdl(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau,
                                  double k) {
  const MatX<T> H = crba<T>(model, q);
  const SparseFactor<T> f = ltdl<T>(H, model.dof_parent);
  return detail::fd_matches_ltdl<T>(aba<T>(model, q, qd, tau), tau, bias<T>(model, q, qd), f, condition_estimate<T>(H, f),
                                    k, "");
}

namespace detail {
// max|Lᵀ D L - H| / max|H| (D = 1 for LᵀL), whole matrix, without the dense O(n³) product:
// (Lᵀ D L)_ij = Σ_k L_ki D_k L_kj over the k below both i and j, i.e. k with i and j on its path
// to the root; every other entry of Lᵀ D L is 0 (branch-induced sparsity, RBDA §6.5). O(n d²).
// Up to kExactMaxN; above, the randomized ‖Lᵀ D L x - H x‖ / (‖H‖ |x|).
template <class T>
CheckResult reconstructs(const MatX<T>& H, const SparseFactor<T>& f, double k, const std::string& name,
                         const std::string& factor) {
  using std::abs;
  const std::string what = f.unit ? "LᵀDL" : "LᵀL";
  if (!f.ok) return make_check(name, T(1), 0.0, "non-positive pivot at DoF " + std::to_string(f.failed_at));
  const int n = static_cast<int>(H.rows());
  const std::vector<int>& lambda = f.lambda;
  if (n <= kExactMaxN) {
    MatX<T> R = MatX<T>::Zero(n, n);  // lower triangle of Lᵀ D L
    std::vector<int> path;
    for (int kk = 0; kk < n; ++kk) {
      path.clear();
      for (int i = kk; i >= 0; i = lambda[i]) path.push_back(i);  // kk and its ancestors, descending
      const T dk = f.unit ? f.LD(kk, kk) : T(1);
      auto Lk = [&](int i) { return i == kk ? (f.unit ? T(1) : f.LD(kk, kk)) : f.LD(kk, i); };
      for (size_t a = 0; a < path.size(); ++a) {
        const T w = dk * Lk(path[a]);
        for (size_t b = a; b < path.size(); ++b) R(path[a], path[b]) += w * Lk(path[b]);
      }
    }
    T e(0);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= i; ++j) {
        const T d1 = abs(T(R(i, j) - H(i, j))), d2 = abs(T(R(i, j) - H(j, i)));
        if (d1 > e) e = d1;
        if (d2 > e) e = d2;
      }
    return make_check(name, ratio<T>(e, max_abs(H)), tolerance<T>(k), "max|" + what + " - H| / max|H|" + factor);
  }
  const T nH = inf_norm<T>(H);
  T worst(0);
  for (int v = 0; v < kRandomVectors; ++v) {
    const VecX<T> x = random_vector<T>(n, static_cast<std::uint64_t>(101 + v));
    VecX<T> y = mul_L<T>(f, x);
    if (f.unit) y = y.cwiseProduct(f.LD.diagonal());
    y = mul_Lt<T>(f, y);
    const T r = ratio<T>(max_abs(VecX<T>(y - H * x)), T(nH * max_abs(x)));
    if (r > worst) worst = r;
  }
  return make_check(name, worst, tolerance<T>(k),
                    "randomized (n > " + std::to_string(kExactMaxN) + "): max over " + std::to_string(kRandomVectors) +
                        " fixed pseudo-random x ∈ [-1, 1]ⁿ of ‖" + what + " x - H x‖ / (‖H‖ |x|)" + factor);
}

template <class T>
T solve_residual(const MatX<T>& H, const VecX<T>& x, const VecX<T>& b) {
  return ratio<T>(max_abs(VecX<T>(H * x - b)), T(inf_norm<T>(H) * max_abs(x) + max_abs(b)));
}

template <class T>
CheckResult solves(const MatX<T>& H, const SparseFactor<T>& f, const VecX<T>& b, double k, const std::string& name,
                   const std::string& factor) {
  if (!f.ok) return make_check(name, T(1), 0.0, "non-positive pivot at DoF " + std::to_string(f.failed_at));
  const VecX<T> x = f.unit ? ltdl_solve<T>(f, b) : ltl_solve<T>(f, b);
  return make_check(name, solve_residual<T>(H, x, b), tolerance<T>(k), "‖H x - b‖ / (‖H‖ |x| + |b|)" + factor);
}

// Sparse L x, Lᵀ x, L⁻¹ x, L⁻ᵀ x against the dense L of each factor given.
template <class T>
CheckResult factor_products(const std::vector<const SparseFactor<T>*>& fs, const VecX<T>& x, double k,
                            const std::string& factor) {
  T worst(0);
  for (const SparseFactor<T>* fp : fs) {
    const SparseFactor<T>& f = *fp;
    if (!f.ok) return make_check("factor.products_and_solves", T(1), 0.0, "H is not positive-definite");
    const MatX<T> L = f.L();
    const VecX<T> y = solve_L<T>(f, x), z = solve_Lt<T>(f, x);
    T xs = max_abs(x);
    if (max_abs(y) > xs) xs = max_abs(y);
    if (max_abs(z) > xs) xs = max_abs(z);
    const T s = max_abs(L) * xs;
    const T e = max_abs(VecX<T>(mul_L<T>(f, x) - L * x)) + max_abs(VecX<T>(mul_Lt<T>(f, x) - L.transpose() * x)) +
                max_abs(VecX<T>(L * y - x)) + max_abs(VecX<T>(L.transpose() * z - x));
    const T r = ratio<T>(e, s);
    if (r > worst) worst = r;
  }
  return make_check("factor.products_and_solves", worst, tolerance<T>(k),
                    std::string("sparse L x, Lᵀ x, L⁻¹ x, L⁻ᵀ x against dense L (") + (fs.size() > 1 ? "LᵀDL and LᵀL" : "LᵀDL") +
                        "), / (max|L| max(|x|, |L⁻¹x|, |L⁻ᵀx|))" + factor);
}
}  // namespace detail

template <class T>
CheckResult check_ltdl_reconstructs(const MatX<T>& H, const std::vector<int>& lambda, double k) {
  return detail::reconstructs<T>(H, ltdl<T>(H, lambda), k, "ltdl.reconstructs_H", "");
}

template <class T>
CheckResult check_ltl_reconstructs(const MatX<T>& H, const std::vector<int>& lambda, double k) {
  return detail::reconstructs<T>(H, ltl<T>(H, lambda), k, "ltl.reconstructs_H", "");
}

template <class T>
CheckResult check_ltdl_solves(const MatX<T>& H, const std::vector<int>& lambda, const VecX<T>& b, double k) {
  return detail::solves<T>(H, ltdl<T>(H, lambda), b, k, "ltdl.solves", "");
}

template <class T>
CheckResult check_ltl_solves(const MatX<T>& H, const std::vector<int>& lambda, const VecX<T>& b, double k) {
  return detail::solves<T>(H, ltl<T>(H, lambda), b, k, "ltl.solves", "");
}

template <class T>
CheckResult check_factor_products(const MatX<T>& H, const std::vector<int>& lambda, const VecX<T>& x, double k) {
  const SparseFactor<T> fd = ltdl<T>(H, lambda), fl = ltl<T>(H, lambda);
  return detail::factor_products<T>({&fd, &fl}, x, k, "");
}

namespace detail {
template <class T>
CheckResult mj_factor_equals_ltdl(const MatX<T>& H, const std::vector<int>& lambda, const SparseFactor<T>& f) {
  using std::abs;
  const MjLayout lay = mj_layout(lambda);
  const MjFactor<T> m = mj_factorI<T>(lay, mj_pack<T>(lay, H));
  // MuJoCo clamps pivots below mjMINVAL (1e-15) and goes on; ltdl stops at a non-positive one.
  // Where either happened the two are different computations by design: reported, not compared.
  if (!m.ok && f.ok)
    return make_check("mj_factorM.equals_ltdl", T(0), 0.0,
                      "not compared: MuJoCo's rule clamped the pivot of DoF " + std::to_string(m.failed_at) +
                          " (below mjMINVAL = 1e-15, still positive for ltdl)");
  if (m.ok && !f.ok) return make_check("mj_factorM.equals_ltdl", T(1), 0.0, "ltdl failed, mj_factorI kept every pivot");
  if (!f.ok) return make_check("mj_factorM.equals_ltdl", T(0), 0.0, "both report a pivot below their threshold (not compared)");
  T worst(0);
  const int nv = static_cast<int>(lambda.size());
  for (int i = 0; i < nv; ++i) {
    int adr = lay.dof_Madr[i];
    for (int j = i; j >= 0; j = lambda[j], ++adr) {
      const T d = abs(T(m.qLD[adr] - f.LD(i, j)));
      if (d > worst) worst = d;
    }
    const T di = abs(T(m.qLDiagInv[i] - T(1) / f.LD(i, i)));
    if (di > worst) worst = di;
  }
  return make_check("mj_factorM.equals_ltdl", worst, 0.0,
                    "max |qLD - LD| over stored entries and |qLDiagInv - 1/D|: identical operations, exact equality");
}

}  // namespace detail

template <class T>
CheckResult check_mj_factor_equals_ltdl(const MatX<T>& H, const std::vector<int>& lambda) {
  return detail::mj_factor_equals_ltdl<T>(H, lambda, ltdl<T>(H, lambda));
}

namespace detail {
template <class T>
CheckResult kinetic_energy(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const MatX<T>& H, double k) {
  using std::abs;
  const T Th = qd.dot(H * qd) / T(2);
  const T Tb = energy<T>(model, q, qd).kinetic;
  const VecX<T> aqd = qd.cwiseAbs();
  const T scale = aqd.dot(H.cwiseAbs() * aqd) / T(2);
  return make_check("energy.kinetic_equals_half_qdT_H_qd", ratio<T>(abs(T(Th - Tb)), scale), tolerance<T>(k),
                    "|½ qdᵀ H qd - Σ ½ vᵢᵀ Iᵢ vᵢ| / (½ |qd|ᵀ |H| |qd|)");
}

template <class T>
CheckResult power_balance(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau,
                          const AbaResult<T>& fd, const MatX<T>& H, const VecX<T>& C, double k) {
  using std::abs;
  if (!fd.ok) return make_check("energy.power_balance", T(1), 0.0, "H is not positive-definite");
  const T rate = energy_rate<T>(model, q, qd, fd.qdd);
  const T power = qd.dot(tau);
  const T scale = qd.cwiseAbs().dot(VecX<T>(tau.cwiseAbs() + H.cwiseAbs() * fd.qdd.cwiseAbs() + C.cwiseAbs()));
  return make_check("energy.power_balance", ratio<T>(abs(T(rate - power)), scale), tolerance<T>(k),
                    "|d(T+V)/dt - qdᵀ tau| / (|qd|ᵀ (|tau| + |H| |qdd| + |C|)) at qdd = ABA(tau)");
}
}  // namespace detail

template <class T>
CheckResult check_kinetic_energy(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, double k) {
  return detail::kinetic_energy<T>(model, q, qd, crba<T>(model, q), k);
}

template <class T>
CheckResult check_power_balance(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau, double k) {
  return detail::power_balance<T>(model, q, qd, tau, aba<T>(model, q, qd, tau), crba<T>(model, q), bias<T>(model, q, qd), k);
}

template <class T>
CheckResult check_power_balance_fd(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau, double k) {
  using std::abs;
  using std::pow;
  using std::sqrt;
  const char* name = "energy.power_balance_fd";
  const AbaResult<T> fd = aba<T>(model, q, qd, tau);
  if (!fd.ok) return make_check(name, T(1), 0.0, "H is not positive-definite");
  const T s = T(1) + qd.cwiseAbs().sum() + sqrt(T(fd.qdd.cwiseAbs().sum()));
  const T h = T(4) * pow(epsilon<T>(), T(1) / T(9)) / s;
  auto E = [&](int j) {
    const T t = T(j) * h;
    const Energy<T> e = energy<T>(model, integrate_q<T>(model, q, qd, t), VecX<T>(qd + t * fd.qdd));
    return T(e.kinetic + e.potential);
  };
  // f'(0) = Σ_j c_j (f(j h) - f(-j h)) / h + O(h⁸): 4/5, -1/5, 4/105, -1/280.
  const T c[4] = {T(4) / T(5), T(-1) / T(5), T(4) / T(105), T(-1) / T(280)};
  T rate(0);
  for (int j = 1; j <= 4; ++j) rate += c[j - 1] * (E(j) - E(-j));
  rate /= h;
  const T power = qd.dot(tau);
  const Energy<T> e0 = energy<T>(model, q, qd);
  const MatX<T> H = crba<T>(model, q);
  const VecX<T> C = bias<T>(model, q, qd);
  const T scale = qd.cwiseAbs().dot(VecX<T>(tau.cwiseAbs() + H.cwiseAbs() * fd.qdd.cwiseAbs() + C.cwiseAbs())) +
                  s * (abs(e0.kinetic) + abs(e0.potential));
  const double tol = static_cast<double>(T(T(k) * pow(epsilon<T>(), T(8) / T(9))));
  return make_check(name, detail::ratio<T>(abs(T(rate - power)), scale), tol,
                    "|D_h(T+V) - qdᵀ tau| / (|qd|ᵀ(|tau| + |H| |qdd| + |C|) + s (T + |V|)), D_h the 8th-order central "
                    "difference along q ⊕ t qd, qd + t qdd, qdd = ABA(tau); h = 4 ε^(1/9)/s = " +
                        to_decimal(h, 3) + ", s = " + to_decimal(s, 3) + "; tolerance k ε^(8/9)");
}

template <class T>
CheckResult check_equation_of_motion(const MatX<T>& H, const VecX<T>& C, const VecX<T>& qdd, const VecX<T>& tau, double k) {
  using detail::max_abs;
  const T r = detail::ratio<T>(max_abs(VecX<T>(H * qdd + C - tau)),
                               T(detail::inf_norm<T>(H) * max_abs(qdd) + max_abs(C) + max_abs(tau)));
  return make_check("equation_of_motion", r, tolerance<T>(k), "‖H qdd + C - tau‖ / (‖H‖ |qdd| + |C| + |tau|)");
}

// H, C, ABA's result, the factor(s) and H_r are computed once and shared; the size switches are
// properties.hpp's.
template <class T>
TreeTerms<T> tree_terms(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau, bool with_kappa) {
  TreeTerms<T> t;
  // Table 6.3 on CRBA's H when affordable, else the O(n d) articulated-body route to the same
  // factor, and CRBA with its pairs in base coordinates (crba_base.hpp: O(n d) dot products
  // instead of spatial transforms).
  t.table63 = ltdl_updates(model.dof_parent) <= kFactorBudget;
  if (t.table63) {
    t.H = crba<T>(model, q);
    t.C = bias<T>(model, q, qd);
    t.fd = aba<T>(model, q, qd, tau);
    t.f = ltdl<T>(t.H, model.dof_parent);
  } else {
    // Deep trees: the factor does not need H, so it is made on a second thread while H, C and
    // ABA are made on this one (each O(n d) multiprecision work on a 2000-DoF chain). Not for the
    // run-time MPFR type, whose default precision is not shared with a new thread.
    std::future<SparseFactor<T>> factor;
    if constexpr (!std::is_same<T, mpfr>::value)
      factor = std::async(std::launch::async, [&model, &q] { return ltdl_articulated<T>(model, q); });
    try {
      t.H = crba_base<T>(model, q);
      t.C = bias<T>(model, q, qd);
      t.fd = aba<T>(model, q, qd, tau);
    } catch (...) {
      if (factor.valid()) factor.wait();  // it reads model and q
      throw;
    }
    t.f = factor.valid() ? factor.get() : ltdl_articulated<T>(model, q);
  }
  if (with_kappa) t.kappa = condition_estimate<T>(t.H, t.f);
  return t;
}

template <class T>
std::vector<CheckResult> check_all(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& qdd,
                                   const VecX<T>& tau, const std::vector<VecX<T>>& tau_loops) {
  return check_all<T>(model, q, qd, qdd, tau, tau_loops, tree_terms<T>(model, q, qd, tau, true));
}

template <class T>
std::vector<CheckResult> check_all(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& qdd,
                                   const VecX<T>& tau, const std::vector<VecX<T>>& tau_loops, const TreeTerms<T>& terms) {
  const double k = default_k(model.nv);
  const std::vector<int>& lambda = model.dof_parent;
  const MatX<T>& H = terms.H;
  const VecX<T>& C = terms.C;
  const AbaResult<T>& fd = terms.fd;
  const bool table63 = terms.table63;
  const SparseFactor<T>& f = terms.f;
  const std::string factor =
      table63 ? std::string()
              : "; factor: ltdl_articulated (Σ depth² > 2²⁴: table 6.3 not run), compared with CRBA's H by ltdl.reconstructs_H";
  const double kappa = terms.kappa;  // once, for every check that needs κ(H)
  const detail::RneaInertia<T> R = detail::inertia_from_rnea<T>(model, q);
  std::vector<CheckResult> out;
  out.push_back(detail::rnea_H_symmetric<T>(R, H, k));
  out.push_back(detail::positive_definite<T>(H, f, kappa));
  out.push_back(detail::crba_rnea_columns<T>(R, H, k));
  out.push_back(detail::fd_inverts_id<T>(model, q, qd, qdd, C, f, kappa, k));
  out.push_back(detail::fd_matches_ltdl<T>(fd, tau, C, f, kappa, k, factor));
  out.push_back(detail::reconstructs<T>(H, f, k, "ltdl.reconstructs_H", factor));
  if (table63) {
    const SparseFactor<T> fl = ltl<T>(H, lambda);
    out.push_back(detail::reconstructs<T>(H, fl, k, "ltl.reconstructs_H", ""));
    out.push_back(detail::solves<T>(H, f, tau, k, "ltdl.solves", ""));
    out.push_back(detail::solves<T>(H, fl, tau, k, "ltl.solves", ""));
    out.push_back(detail::factor_products<T>({&f, &fl}, tau, k, ""));
    out.push_back(detail::mj_factor_equals_ltdl<T>(H, lambda, f));
  } else {
    out.push_back(detail::solves<T>(H, f, tau, k, "ltdl.solves", factor));
    out.push_back(detail::factor_products<T>({&f}, tau, k, factor));
  }
  out.push_back(detail::kinetic_energy<T>(model, q, qd, H, k));
  out.push_back(detail::power_balance<T>(model, q, qd, tau, fd, H, C, k));
  if (fd.ok) out.push_back(check_equation_of_motion<T>(H, C, fd.qdd, tau, k));
  if (model.nc > 0) {
    const std::vector<CheckResult> lcs = check_loops<T>(model, q, qd, tau, tau_loops);
    out.insert(out.end(), lcs.begin(), lcs.end());
  }
  return out;
}

}  // namespace rbd
