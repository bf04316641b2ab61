// κ₂(H) = λmax(H) / λmin(H) of a symmetric positive-definite H (the joint-space inertia matrix)
// without an eigendecomposition in T: two Lanczos iterations (Golub & Van Loan, Matrix
// Computations, 4th ed., §10.1, with full reorthogonalization, §10.3.1), one on H and one on H⁻¹,
// where H⁻¹ is applied through the LᵀDL factor of RBDA §6.5 (table 6.3; table 6.4's
// back-substitutions: ltdl_solve).
//
//   double condition_estimate(H, f)     f = ltdl(H, λ) (or any drop-in factor of H, e.g.
//                                       ltdl_articulated); +infinity when !f.ok
//
//   λmax(H):   Lanczos in double on H rounded to double (symmetric part). The largest eigenvalue of
//              a symmetric matrix is perfectly conditioned in the absolute sense, |δλ| ≤ ‖δH‖₂, and
//              λmax ≥ ‖H‖₂, so rounding H to double moves it by at most ~ε_double relative.
//   λmin(H) = 1 / λmax(H⁻¹):  Lanczos in double on the operator x ↦ H⁻¹ x, each product the
//              back-substitutions of table 6.4 (L⁻ᵀ, D⁻¹, L⁻¹: ltdl_solve's) on x, O(nnz L)
//              operations, with f's L and D rounded to a solve precision P, then rounded to double.
//              The solve is backward stable: the computed H⁻¹ x is exact for some H + δH with
//              ‖δH‖ ≲ n ε_P ‖H‖ (rounding f to P is a perturbation of the same kind), so by Weyl
//              λmin comes out with relative error ≲ n ε_P κ(H), plus the double rounding of the
//              Lanczos arithmetic. Precision ladder (cost): P = long double (64 bits, hardware), then
//              double-double (DoubleDouble below: ~106 bits from hardware doubles, ε taken as
//              2^-100; cheaper than float128's software arithmetic), then T itself, each only
//              when T is wider; the first P whose bound 3 n ε_P κ_P ≤ 1e-9 is accepted (κ_P its own result:
//              a κ that P cannot resolve comes out large and moves up the ladder). A rung is not
//              tried when the bound already fails for κ_lb = λmax / min_i D_i ≤ κ: each pivot
//              D_i of LᵀDL is a Schur complement, D_i = 1 / (M⁻¹)_ii for a principal submatrix M
//              of H, so D_i ≥ λmin(M) ≥ λmin(H) (Cauchy interlacing), and the Lanczos λmax is a
//              lower bound of λmax(H) (a 2000-DoF chain: κ ~ 10¹⁰, long double's solves skipped;
//              docs/benchmarks.md, "Tree algorithms: choices measured once"). With P = T, κ up
//              to ~10^(digits(T) - 10) is resolved to ~6 significant digits (at bin50: 10^40; at
//              double κ ≪ 10^6 is sharp, larger κ only to the digits left).
//   Each iteration: w = A v_k - β_{k-1} v_{k-1};  α_k = v_kᵀ w;  w -= α_k v_k;  then w is
//              reorthogonalized twice against every previous v (classical Gram-Schmidt, "twice is
//              enough"); β_k = |w|₂; v_{k+1} = w / β_k. The Ritz values are the eigenvalues of the
//              tridiagonal T_k = tridiag(β, α, β); the largest one, θ, increases monotonically to
//              λmax(A) and has an eigenvalue of A within the residual bound β_k |s_k| of it (s the
//              Ritz vector's last entry). Stop when β_k |s_k| ≤ 1e-10 θ, or when θ moved by ≤ 1e-10 θ
//              in the last step with β_k |s_k| ≤ 1e-4 θ (error ~ (β_k |s_k|)² / gap), or on breakdown (β_k ≈ 0:
//              an invariant subspace, θ exact), or after min(n, 120) steps (n steps: exact up to
//              rounding). Starting vector: a fixed pseudo-random vector (deterministic output); a rung after
//              the first, and the double-double or T rung that comes first, starts from the Ritz
//              vector of the run before it (or of solves in double) plus 10⁻³ of the pseudo-random one.
//              Without convergence θ is a lower bound of λmax: κ is then under-estimated (both
//              Ritz values are bounds from inside), by less than the residual bound relative.
//
// Cost: ≤ 120 dense products in double (O(n²) each) and ≤ 120 solves per rung of the ladder
// (O(nnz L) each, at bin50 for a 2000-DoF chain: long double or double-double instead of bin50),
// instead of the O(n³) eigenvalues in T of checks/properties.hpp's condition_number. Returns a
// double: κ is reported to ~6 digits (the fixtures store 6).
#pragma once

#include "reference/tree/ltdl.hpp"
#include "reference/numeric/scalar.hpp"

#include <Eigen/Eigenvalues>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace rbd {

// What the two iterations found (optional output).
struct ConditionInfo {
  double lambda_max = 0, lambda_min = 0;  // the estimates of λmax(H), λmin(H)
  int steps_max = 0, steps_min = 0;       // Lanczos steps on H and on H⁻¹ (the last run)
  int solve_bits = 0;                     // mantissa bits of the precision the H⁻¹ solves ran in
  int rungs_run = 0;                      // inverse Lanczos runs (rungs of the ladder tried)
  double min_pivot = 0;                   // min_i D_i: λmin ≤ min D (a rung skipped by it)
};

template <class T>
double condition_estimate(const MatX<T>& H, const SparseFactor<T>& f, ConditionInfo* info = nullptr);

namespace detail {

// Largest eigenvalue of the symmetric operator `apply` (n x n) by Lanczos with full
// reorthogonalization (see above). Deterministic start: the fixed pseudo-random vector, plus
// `warm` when given (the Ritz vector of an earlier run on a nearby operator: the same largest
// eigenvalue in fewer steps; the pseudo-random part, 10⁻³ of it, keeps a component along every
// eigenvector as the cold start has). `ritz`, when given, receives the Ritz vector of θ.
template <class Apply>
double lanczos_max(Eigen::Index n, const Apply& apply, int* steps, const Eigen::VectorXd* warm = nullptr,
                   Eigen::VectorXd* ritz = nullptr) {
  if (n == 0) return 0;
  const int max_steps = static_cast<int>(n < 120 ? n : 120);
  std::vector<Eigen::VectorXd> V;
  V.reserve(static_cast<size_t>(max_steps) + 1);
  Eigen::VectorXd v(n);
  std::uint64_t s = 0x9E3779B97F4A7C15ull;  // splitmix64: a fixed pseudo-random start in (0.5, 1.5)
  for (Eigen::Index i = 0; i < n; ++i) {
    s += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    v(i) = 0.5 + static_cast<double>(z >> 11) / 9007199254740992.0;
  }
  v /= v.norm();
  if (warm && warm->size() == n && warm->allFinite() && warm->norm() > 0) {
    v = *warm / warm->norm() + 1e-3 * v;
    v /= v.norm();
  }
  V.push_back(v);
  std::vector<double> alpha, beta;
  double theta = 0, previous = 0;
  Eigen::VectorXd s_theta;  // θ's eigenvector of T_k
  for (int k = 0; k < max_steps; ++k) {
    if (steps) *steps = k + 1;
    Eigen::VectorXd w = apply(V[k]);
    if (k > 0) w -= beta[k - 1] * V[k - 1];
    const double a = V[k].dot(w);
    alpha.push_back(a);
    w -= a * V[k];
    for (int pass = 0; pass < 2; ++pass)
      for (const Eigen::VectorXd& u : V) w -= u.dot(w) * u;
    const double b = w.norm();
    // Ritz values of T_k (k+1 x k+1).
    const int m = k + 1;
    Eigen::VectorXd d(m), e(m - 1);
    for (int i = 0; i < m; ++i) d(i) = alpha[i];
    for (int i = 0; i + 1 < m; ++i) e(i) = beta[i];
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es;
    es.computeFromTridiagonal(d, e, Eigen::ComputeEigenvectors);
    theta = es.eigenvalues()(m - 1);
    if (ritz) s_theta = es.eigenvectors().col(m - 1);
    const double resid = b * std::abs(es.eigenvectors()(m - 1, m - 1));
    const double scale = std::abs(theta) > 0 ? std::abs(theta) : 1.0;
    // Converged: the residual bound, or θ settled to 1e-10 with a residual small enough that the
    // error bound resid² / gap is far below it. Breakdown: w lies (to rounding) in span(V), the
    // Krylov space is invariant and θ is exact.
    const bool settled = k > 0 && std::abs(theta - previous) <= 1e-10 * scale && resid <= 1e-4 * scale;
    if (resid <= 1e-10 * scale || settled || b <= 1e-14 * scale || !std::isfinite(b)) break;
    previous = theta;
    beta.push_back(b);
    V.push_back(w / b);
  }
  if (ritz) {
    ritz->setZero(n);
    for (Eigen::Index i = 0; i < s_theta.size(); ++i) *ritz += s_theta(i) * V[static_cast<size_t>(i)];
  }
  return theta;
}

}  // namespace detail

namespace detail {

// Double-double arithmetic (Dekker 1971; Hida, Li & Bailey, "Algorithms for quad-double precision
// floating point arithmetic", 2001): x = hi + lo with |lo| ≤ ulp(hi) / 2, from error-free
// transformations of IEEE doubles (two_sum; two_prod by Dekker's split, no FMA needed). The
// operations the solves need: the accurate sum, the product and the quotient by three corrected
// quotients, each with relative error ≤ 16 u² = 2^-102 (u = 2^-53; Joldes, Muller & Popescu,
// "Tight and rigorous error bounds for basic building blocks of double-word arithmetic", ACM
// TOMS 44(2), 2017: 3u² for this sum, ≤ 7u² for this product, ≤ 15u² for the simplest division;
// measured here: ≤ 4.1u², ConditionEstimate.DoubleDoubleOperationsAreWithinTheirEpsilon). The
// ladder takes ε = 2^-100, four times that. Valid while values stay within ~[2^-968, 2^996]
// (split overflows above; lo is subnormal below): inverse_lanczos checks the factor's entries
// and the ladder moves on otherwise.
struct DoubleDouble {
  static constexpr int digits = 106;  // mantissa bits, as numeric_limits<T>::digits
  double hi = 0, lo = 0;
  DoubleDouble() = default;
  explicit DoubleDouble(double x) : hi(x) {}
  DoubleDouble(double h, double l) : hi(h), lo(l) {}
  explicit operator double() const { return hi + lo; }
};
inline DoubleDouble quick_two_sum(double a, double b) {  // |a| ≥ |b|
  const double s = a + b;
  return {s, b - (s - a)};
}
inline DoubleDouble two_sum(double a, double b) {
  const double s = a + b, bb = s - a;
  return {s, (a - (s - bb)) + (b - bb)};
}
inline DoubleDouble two_prod(double a, double b) {
  const double p = a * b;
  const double ta = 134217729.0 * a, tb = 134217729.0 * b;  // 2^27 + 1: Dekker's split
  const double ah = ta - (ta - a), al = a - ah, bh = tb - (tb - b), bl = b - bh;
  return {p, ((ah * bh - p) + ah * bl + al * bh) + al * bl};
}
inline DoubleDouble operator+(const DoubleDouble& x, const DoubleDouble& y) {
  DoubleDouble s = two_sum(x.hi, y.hi);
  const DoubleDouble t = two_sum(x.lo, y.lo);
  s.lo += t.hi;
  s = quick_two_sum(s.hi, s.lo);
  s.lo += t.lo;
  return quick_two_sum(s.hi, s.lo);
}
inline DoubleDouble operator-(const DoubleDouble& x) { return {-x.hi, -x.lo}; }
inline DoubleDouble operator-(const DoubleDouble& x, const DoubleDouble& y) { return x + (-y); }
inline DoubleDouble operator*(const DoubleDouble& x, const DoubleDouble& y) {
  DoubleDouble p = two_prod(x.hi, y.hi);
  p.lo += x.hi * y.lo + x.lo * y.hi;
  return quick_two_sum(p.hi, p.lo);
}
inline DoubleDouble operator/(const DoubleDouble& x, const DoubleDouble& y) {
  const double q1 = x.hi / y.hi;
  DoubleDouble r = x - y * DoubleDouble(q1);
  const double q2 = r.hi / y.hi;
  r = r - y * DoubleDouble(q2);
  const double q3 = r.hi / y.hi;
  return quick_two_sum(q1, q2) + DoubleDouble(q3);
}
inline DoubleDouble& operator-=(DoubleDouble& x, const DoubleDouble& y) { return x = x - y; }
inline DoubleDouble& operator/=(DoubleDouble& x, const DoubleDouble& y) { return x = x / y; }

template <class P>
struct SolvePrecision {  // the ladder's view of P: mantissa bits and the ε of its bound
  static constexpr int digits = std::numeric_limits<P>::digits;
  static double epsilon() { return static_cast<double>(std::numeric_limits<P>::epsilon()); }
};
template <>
struct SolvePrecision<DoubleDouble> {
  static constexpr int digits = DoubleDouble::digits;
  static double epsilon() { return std::ldexp(1.0, -100); }
};

// x rounded to P (P no wider than T): through long double, hi + lo, so that a float128 gets all
// of its 113 bits from any T; a double-double is x's nearest double and the nearest double to
// the rest, x - hi, exact in T.
template <class P, class T>
P narrow(const T& x) {
  if constexpr (std::is_same<P, T>::value) {
    return x;
  } else if constexpr (std::is_same<P, double>::value) {  // the warm-up's solves (any rounding serves)
    return static_cast<double>(x);
  } else if constexpr (std::is_same<P, DoubleDouble>::value) {
    const double hi = static_cast<double>(x);
    return DoubleDouble(hi, static_cast<double>(T(x - T(hi))));
  } else {
    const long double hi = static_cast<long double>(x);
    if constexpr (std::is_same<P, long double>::value) {
      return hi;
    } else {
      const long double lo = static_cast<long double>(T(x - T(hi)));
      return P(hi) + P(lo);
    }
  }
}

// λmax(H⁻¹) by lanczos_max, H⁻¹ applied through f's L and D rounded to P, stored row by row (each
// DoF's ancestor entries contiguous: the solves stream memory instead of striding across LD).
template <class P, class T>
double inverse_lanczos(const SparseFactor<T>& f, int* steps, const Eigen::VectorXd* warm = nullptr,
                       Eigen::VectorXd* ritz = nullptr) {
  const int n = static_cast<int>(f.LD.rows());
  std::vector<int> start(static_cast<size_t>(n) + 1, 0), col;
  std::vector<P> val, d(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    d[static_cast<size_t>(i)] = narrow<P, T>(f.LD(i, i));
    for (int j = f.lambda[i]; j >= 0; j = f.lambda[j]) {
      col.push_back(j);
      val.push_back(narrow<P, T>(f.LD(i, j)));
    }
    start[static_cast<size_t>(i) + 1] = static_cast<int>(col.size());
  }
  if constexpr (std::is_same<P, DoubleDouble>::value) {  // within its range (see DoubleDouble)
    auto outside = [](const DoubleDouble& v) {
      const double a = std::abs(v.hi);
      return !(a <= 0x1p990) || (a != 0 && a < 0x1p-960);
    };
    for (const DoubleDouble& v : val)
      if (outside(v)) return std::numeric_limits<double>::quiet_NaN();
    for (const DoubleDouble& v : d)
      if (outside(v)) return std::numeric_limits<double>::quiet_NaN();
  }
  std::vector<P> y(static_cast<size_t>(n));
  return lanczos_max(n, [&](const Eigen::VectorXd& x) {
    for (int i = 0; i < n; ++i) y[static_cast<size_t>(i)] = P(x(i));  // exact
    for (int i = n - 1; i >= 0; --i)                                   // y <- L⁻ᵀ y
      for (int e = start[static_cast<size_t>(i)]; e < start[static_cast<size_t>(i) + 1]; ++e)
        y[static_cast<size_t>(col[static_cast<size_t>(e)])] -= val[static_cast<size_t>(e)] * y[static_cast<size_t>(i)];
    for (int i = 0; i < n; ++i) y[static_cast<size_t>(i)] /= d[static_cast<size_t>(i)];  // y <- D⁻¹ y
    for (int i = 0; i < n; ++i) {                                                       // y <- L⁻¹ y
      P acc = y[static_cast<size_t>(i)];
      for (int e = start[static_cast<size_t>(i)]; e < start[static_cast<size_t>(i) + 1]; ++e)
        acc -= val[static_cast<size_t>(e)] * y[static_cast<size_t>(col[static_cast<size_t>(e)])];
      y[static_cast<size_t>(i)] = acc;
    }
    Eigen::VectorXd out(n);
    for (int i = 0; i < n; ++i) out(i) = static_cast<double>(y[static_cast<size_t>(i)]);
    return out;
  }, steps, warm, ritz);
}

// The precision ladder: accept λmin from solves in P when 3 n ε_P κ ≤ 1e-9 (see above).
template <class P>
bool accurate_enough(double inv_lmin, double lmax, Eigen::Index n) {
  const double kappa = lmax * inv_lmin;
  const double eps = SolvePrecision<P>::epsilon();
  return std::isfinite(kappa) && inv_lmin > 0 && 3.0 * static_cast<double>(n) * eps * kappa <= 1e-9;
}
// Whether P's rung can pass at all: the bound for κ_lb = λmax / min D ≤ κ (see above).
template <class P>
bool worth_trying(double lmax, double min_d, Eigen::Index n) {
  return !(min_d > 0) || accurate_enough<P>(1 / min_d, lmax, n);
}

}  // namespace detail

template <class T>
double condition_estimate(const MatX<T>& H, const SparseFactor<T>& f, ConditionInfo* info) {
  const double inf = std::numeric_limits<double>::infinity();
  const Eigen::Index n = H.rows();
  if (n == 0) return 1;
  if (!f.ok) return inf;
  Eigen::MatrixXd Hd(n, n);
  for (Eigen::Index j = 0; j < n; ++j)
    for (Eigen::Index i = j; i < n; ++i) Hd(i, j) = Hd(j, i) = 0.5 * (static_cast<double>(H(i, j)) + static_cast<double>(H(j, i)));
  int s1 = 0, s2 = 0, digits = std::numeric_limits<T>::digits;
  const double lmax = detail::lanczos_max(n, [&](const Eigen::VectorXd& x) { return Eigen::VectorXd(Hd * x); }, &s1);
  double inv_lmin = -1;
  const double min_d = static_cast<double>(f.min_pivot);  // min_i D_i, kept by ltdl and ltdl_articulated
  bool done = false;
  int runs = 0;
  // Each run after the first starts from the Ritz vector of the run before (lanczos_max's warm
  // start); the costly rungs, double-double and T, get one from solves in double when no run
  // came before them (a 2000-DoF chain: 28 → 5 double-double steps; a 400-DoF one: 12 → 5).
  Eigen::VectorXd warm;
  auto warm_up = [&] {
    if (warm.size() == 0) detail::inverse_lanczos<double, T>(f, nullptr, nullptr, &warm);
  };
  // Cheaper precisions first, when T is wider than them.
  if constexpr (std::numeric_limits<T>::digits > std::numeric_limits<long double>::digits) {
    if (detail::worth_trying<long double>(lmax, min_d, n)) {
      inv_lmin = detail::inverse_lanczos<long double, T>(f, &s2, nullptr, &warm);
      ++runs;
      done = detail::accurate_enough<long double>(inv_lmin, lmax, n);
      digits = std::numeric_limits<long double>::digits;
    }
  }
  if constexpr (std::numeric_limits<T>::digits > detail::DoubleDouble::digits) {
    if (!done && detail::worth_trying<detail::DoubleDouble>(lmax, min_d, n)) {
      warm_up();
      Eigen::VectorXd ritz;
      inv_lmin = detail::inverse_lanczos<detail::DoubleDouble, T>(f, &s2, &warm, &ritz);
      warm = std::move(ritz);
      ++runs;
      done = detail::accurate_enough<detail::DoubleDouble>(inv_lmin, lmax, n);
      digits = detail::DoubleDouble::digits;
    }
  }
  if (!done) {
    if (std::numeric_limits<T>::digits > std::numeric_limits<long double>::digits) warm_up();  // not at double, long double
    inv_lmin = detail::inverse_lanczos<T, T>(f, &s2, warm.size() ? &warm : nullptr);
    ++runs;
    digits = std::numeric_limits<T>::digits;
  }
  if (info) *info = ConditionInfo{lmax, 1 / inv_lmin, s1, s2, digits, runs, min_d};
  if (!(inv_lmin > 0) || !(lmax > 0)) return inf;
  const double kappa = lmax * inv_lmin;
  return std::isfinite(kappa) ? kappa : inf;
}

#define RBDREF_CONDITION_INSTANTIATE(EXT, T) \
  EXT template double condition_estimate<T>(const MatX<T>&, const SparseFactor<T>&, ConditionInfo*);
RBDREF_EXTERN_FOR_EACH_TREE_SCALAR(RBDREF_CONDITION_INSTANTIATE)

}  // namespace rbd
