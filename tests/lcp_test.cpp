// Lemke's method for the contact LCP (reference/contact/lcp.hpp, RBDA §11.5 eq. 11.42) against an
// independent route: enumeration of every complementary index set S (λ_i = 0 off S, ζ̇_i = 0 on S,
// M_SS λ_S = -d_S solved by a rank-revealing decomposition, then λ ≥ 0 and ζ̇ ≥ 0 checked). For a
// symmetric positive semi-definite M the solutions, when they exist, share ζ̇ (and Mλ): Lemke's must
// equal the enumeration's there, at double and at 50 digits. When the enumeration finds no
// solution, Lemke must return a certificate y ≥ 0, My = 0, dᵀy < 0, checked here.
#include "reference/contact/force_qp.hpp"
#include "reference/contact/lcp.hpp"
#include "reference/contact/uniqueness.hpp"
#include "tests/lcp_enumeration.hpp"
#include "tests/test_util.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <type_traits>

namespace rbd::test {
namespace {

template <class T>
struct Enumerated {
  bool found = false;
  VecX<T> zeta_dot, M_lambda;
};

// The first complementary solution the enumeration finds (ζ̇, Mλ are the same for all).
template <class T>
Enumerated<T> enumerate(const MatX<T>& M, const VecX<T>& d, double tol_rel) {
  Enumerated<T> out;
  const std::vector<VecX<T>> first = complementary_solutions<T>(M, d, tol_rel, 1);
  if (first.empty()) return out;
  out.found = true;
  out.zeta_dot = M * first[0] + d;
  out.M_lambda = M * first[0];
  return out;
}

template <class T>
void expect_certified(const MatX<T>& M, const VecX<T>& d, const LcpResult<T>& r, double k, const std::string& what) {
  const double scale = std::max(1.0, std::max(max_abs(M), max_abs(d)));
  if (r.status == LcpResult<T>::Solved) {
    ASSERT_EQ(r.lambda.size(), d.size()) << what;
    // ζ̇'s natural scale: the size of the terms it is the sum of, max|M| max|λ| + max|d| (an
    // ill-conditioned M can need a λ of 1e4 to balance a d of 1).
    const double zscale = max_abs(M) * max_abs(r.lambda) + max_abs(d);
    EXPECT_GE(static_cast<double>(r.lambda.minCoeff()), 0.0) << what;
    EXPECT_GE(static_cast<double>(r.zeta_dot.minCoeff()), -tol<T>(k) * zscale) << what;
    RBD_EXPECT_RESIDUAL(max_abs(VecX<T>(r.lambda.cwiseProduct(r.zeta_dot))), tol<T>(k) * zscale * max_abs(r.lambda),
                        what + ": λᵀζ̇");
    RBD_EXPECT_RESIDUAL(max_abs(VecX<T>(M * r.lambda + d - r.zeta_dot)), tol<T>(k) * zscale, what + ": ζ̇ = Mλ + d");
  } else {
    ASSERT_EQ(r.status, LcpResult<T>::NoSolution) << what << ": " << r.message;
    const VecX<T>& y = r.certificate;
    EXPECT_GE(static_cast<double>(y.minCoeff()), 0.0) << what;
    EXPECT_EQ(static_cast<double>(y.maxCoeff()), 1.0) << what;
    RBD_EXPECT_RESIDUAL(max_abs(VecX<T>(M * y)), tol<T>(k) * scale, what + ": My = 0");
    EXPECT_LT(static_cast<double>(T(d.dot(y))), -tol<T>(k) * scale) << what << ": dᵀy < 0";
  }
}

// A random PSD problem drawn from `rnd`: M = AᵀA with A k x n (n = 1 + the integer part of a draw
// from [0, n_draw); 1 ≤ k ≤ n + 1, singular when k < n, as with redundant or dependent contact
// normals), d random, and in half the problems d = |d| - M x instead (solvable by construction: λ =
// x is feasible). With `degenerate`, also A's last column a repeated or opposed first one (a
// duplicated contact normal) in 40 % of the problems with n > 1, and d(0) = 0 in 20 %.
template <class T>
struct RandomLcp {
  int n = 0, k = 0;
  bool repeated = false;
  MatX<T> M;
  VecX<T> d;
};

template <class T>
RandomLcp<T> random_psd_lcp(Rand& rnd, double n_draw, bool degenerate) {
  RandomLcp<T> p;
  p.n = 1 + static_cast<int>(rnd(0, n_draw));
  p.k = 1 + static_cast<int>(rnd(0, p.n + 0.999));
  MatX<T> A = rnd.mat<T>(p.k, p.n);
  if (degenerate) {
    p.repeated = p.n > 1 && rnd() > 0.6;
    if (p.repeated) A.col(p.n - 1) = A.col(0) * T(rnd() > 0 ? 1 : -1);
  }
  p.M = A.transpose() * A;
  p.d.resize(p.n);
  VecX<T> x(p.n);
  for (int i = 0; i < p.n; ++i) p.d(i) = T(rnd()), x(i) = T(rnd(0, 1));
  if (rnd() > 0.5) p.d = VecX<T>(p.d.cwiseAbs()) - p.M * x;
  if (degenerate && rnd() > 0.8) p.d(0) = T(0);
  return p;
}

template <class T>
class Lcp : public ::testing::Test {};
TYPED_TEST_SUITE(Lcp, Scalars, ScalarName);

// Random PSD problems (random_psd_lcp, with repeated columns and d(0) = 0), some solvable by
// construction with a given active set. Lemke agrees with the enumeration on existence and, where
// solvable, on ζ̇ and Mλ; every answer carries its certificate.
TYPED_TEST(Lcp, AgreesWithEnumerationOnRandomPsdProblems) {
  using T = TypeParam;
  const bool dbl = std::is_same<T, double>::value;
  const int cases = dbl ? 3000 : 400;
  Rand rnd;
  int solved = 0, infeasible = 0, singular = 0;
  for (int c = 0; c < cases; ++c) {
    const RandomLcp<T> p = random_psd_lcp<T>(rnd, 6.999, true);
    const int n = p.n, k = p.k;
    const MatX<T>& M = p.M;
    const VecX<T>& d = p.d;
    singular += k < n || p.repeated;
    const Enumerated<T> e = enumerate<T>(M, d, dbl ? 1e-9 : 1e-40);
    const LcpResult<T> r = solve_lcp<T>(M, d);
    const std::string what = "case " + std::to_string(c) + " (n " + std::to_string(n) + ", rank ≤ " + std::to_string(k) + ")";
    ASSERT_NE(r.status, LcpResult<T>::Failed) << what << ": " << r.message;
    EXPECT_EQ(r.status == LcpResult<T>::Solved, e.found) << what;
    expect_certified<T>(M, d, r, dbl ? 1e5 : 1e8, what);
    // The QP of eq. 11.43 (min ½λᵀMλ + λᵀd over λ ≥ 0) by the primal active-set method: a third
    // route, with the same existence verdict, ζ̇ and Mλ, and its own certificate when none exists.
    const ForceQp<T> fq = solve_force_qp<T>(M, d);
    ASSERT_NE(fq.status, ForceQp<T>::Failed) << what << ": " << fq.message;
    EXPECT_EQ(fq.status == ForceQp<T>::Solved, e.found) << what << ": eq. 11.43";
    if (fq.status == ForceQp<T>::NoSolution) {
      EXPECT_GE(static_cast<double>(fq.certificate.minCoeff()), 0.0) << what;
      RBD_EXPECT_RESIDUAL(max_abs(VecX<T>(M * fq.certificate)), tol<T>(dbl ? 1e5 : 1e8) * (max_abs(M) + 1), what + ": My (11.43)");
      EXPECT_LT(static_cast<double>(T(d.dot(fq.certificate))), 0.0) << what;
    }
    if (r.status == LcpResult<T>::Solved && e.found) {
      // Two routes through a possibly ill-conditioned M_SS: agreement to k ε of the terms' size.
      const double zscale = max_abs(M) * max_abs(r.lambda) + max_abs(d);
      RBD_EXPECT_RESIDUAL(max_abs(VecX<T>(r.zeta_dot - e.zeta_dot)), tol<T>(dbl ? 1e5 : 1e8) * zscale, what + ": ζ̇ unique");
      RBD_EXPECT_RESIDUAL(max_abs(VecX<T>(M * r.lambda - e.M_lambda)), tol<T>(dbl ? 1e5 : 1e8) * zscale, what + ": Mλ unique");
      if (fq.status == ForceQp<T>::Solved) {
        EXPECT_GE(static_cast<double>(fq.lambda.minCoeff()), 0.0) << what << ": 11.43 λ ≥ 0";
        RBD_EXPECT_RESIDUAL(max_abs(VecX<T>(fq.zeta_dot - e.zeta_dot)), tol<T>(dbl ? 1e5 : 1e8) * zscale, what + ": 11.43 ζ̇");
        RBD_EXPECT_RESIDUAL(max_abs(VecX<T>(M * fq.lambda - e.M_lambda)), tol<T>(dbl ? 1e5 : 1e8) * zscale, what + ": 11.43 Mλ");
        RBD_EXPECT_RESIDUAL(max_abs(VecX<T>(fq.lambda.cwiseProduct(fq.zeta_dot))),
                            tol<T>(dbl ? 1e5 : 1e8) * zscale * std::max(1.0, max_abs(fq.lambda)), what + ": 11.43 λᵀζ̇");
      }
      ++solved;
    } else if (r.status == LcpResult<T>::NoSolution) {
      ++infeasible;
    }
  }
  // Both outcomes occur in numbers, so neither branch is tested vacuously.
  EXPECT_GT(solved, cases / 4);
  EXPECT_GT(infeasible, cases / 50);
  EXPECT_GT(singular, cases / 10);
}

// Units: the same contact problem with λ in units a times larger and accelerations b times larger
// (M' = M b/a, d' = d b) is the same problem. Lemke's decisions (status, basis, pivot count, the
// infeasibility certificate y) must not change, and λ' = a λ, ζ̇' = b ζ̇. Factors are powers of
// two far from 1 (2^±200, beyond every scalar's 1000 ε), so the scaled problem is exact and its
// answer must be the unscaled one's, bit for bit. Planted: a tolerance of
// 1000 ε max(1, max|M|, max|d|) (absolute below 1) fails with M or d tiny, and one of
// 1000 ε max|M|, d left unscaled, fails with λ in large units (dᵀy then ends below the bar).
TYPED_TEST(Lcp, DecisionsDoNotDependOnUnits) {
  using T = TypeParam;
  const bool dbl = std::is_same<T, double>::value;
  const int cases = dbl ? 400 : 80;
  using std::ldexp;
  const std::pair<int, int> units[] = {{0, -200}, {200, 0}, {-200, 0}, {0, 200}, {-150, 150}, {150, -250}};
  Rand rnd;
  int solved = 0, infeasible = 0;
  for (int c = 0; c < cases; ++c) {
    const RandomLcp<T> p = random_psd_lcp<T>(rnd, 5.999, false);
    const MatX<T>& M = p.M;
    const VecX<T>& d = p.d;
    const LcpResult<T> r = solve_lcp<T>(M, d);
    ASSERT_NE(r.status, LcpResult<T>::Failed) << "case " << c << ": " << r.message;
    (r.status == LcpResult<T>::Solved ? solved : infeasible)++;
    for (const auto& [ea, eb] : units) {
      const std::string what = "case " + std::to_string(c) + ", λ ×2^" + std::to_string(ea) + ", ζ̇ ×2^" + std::to_string(eb);
      const MatX<T> Mu = M * T(ldexp(T(1), eb - ea));
      const VecX<T> du = d * T(ldexp(T(1), eb));
      const LcpResult<T> u = solve_lcp<T>(Mu, du);
      ASSERT_EQ(u.status, r.status) << what << ": " << u.message;
      EXPECT_EQ(u.pivots, r.pivots) << what;
      EXPECT_EQ(u.borderline, r.borderline) << what;
      if (r.status == LcpResult<T>::Solved) {
        EXPECT_EQ(u.active, r.active) << what;
        const VecX<T> lam = u.lambda * T(ldexp(T(1), -ea)), zd = u.zeta_dot * T(ldexp(T(1), -eb));
        EXPECT_EQ(max_abs(VecX<T>(lam - r.lambda)), 0.0) << what << ": λ' = a λ";
        EXPECT_EQ(max_abs(VecX<T>(zd - r.zeta_dot)), 0.0) << what << ": ζ̇' = b ζ̇";
      } else {
        EXPECT_EQ(max_abs(VecX<T>(u.certificate - r.certificate)), 0.0) << what << ": the certificate y";
      }
    }
  }
  EXPECT_GT(solved, cases / 4);
  EXPECT_GT(infeasible, cases / 50);
}

// λ's uniqueness decided on the solution (reference/contact/uniqueness.hpp) against the
// enumeration: on problems whose solution set is bounded (M = AᵀA with A's first row positive, as
// contact normals with a common upward component: Av = 0, v ≥ 0 forces v = 0), λ is unique iff
// every complementary solution the enumeration finds is Lemke's λ. Singular M throughout (A has
// fewer rows than columns), with d built so that some problems have one solution and others many.
// Planted: "unique iff M is positive-definite" (the old rule) fails on the unique singular ones;
// dropping the sign condition on A (v ≥ 0 where λ* = 0) fails on them too.
TYPED_TEST(Lcp, UniquenessOnASingularMIsDecidedOnTheSolution) {
  using T = TypeParam;
  const bool dbl = std::is_same<T, double>::value;
  const int cases = dbl ? 600 : 150;
  Rand rnd;
  int unique = 0, many = 0;
  for (int c = 0; c < cases; ++c) {
    const int n = 2 + static_cast<int>(rnd(0, 4.999));
    const int k = 1 + static_cast<int>(rnd(0, n - 1 + 0.999 - 1));  // rank < n
    MatX<T> A(k, n);
    for (int j = 0; j < n; ++j) A(0, j) = T(rnd(0.2, 1));
    for (int i = 1; i < k; ++i)
      for (int j = 0; j < n; ++j) A(i, j) = T(rnd());
    const MatX<T> M = A.transpose() * A;
    // d = s - M x with x ≥ 0 on a random support and s ≥ 0 zero there: λ = x solves it; s > 0 on
    // some other indices lifts those contacts (ζ̇ > 0), which is what can make λ unique.
    VecX<T> x = VecX<T>::Zero(n), sl = VecX<T>::Zero(n);
    const double p_force = rnd(0, 1);  // how many contacts carry force
    for (int j = 0; j < n; ++j) {
      if (rnd(0, 1) < p_force) x(j) = T(rnd(0.1, 1));
      else if (rnd(0, 1) < 0.8) sl(j) = T(rnd(0.1, 1));
    }
    const VecX<T> d = sl - M * x;
    const LcpResult<T> r = solve_lcp<T>(M, d);
    const std::string what = "case " + std::to_string(c) + " (n " + std::to_string(n) + ", rank ≤ " + std::to_string(k) + ")";
    ASSERT_EQ(r.status, LcpResult<T>::Solved) << what << ": " << r.message;
    const LcpUniqueness u = lcp_solution_uniqueness<T>(M, d, r.lambda, r.zeta_dot);
    ASSERT_NE(u, LcpUniqueness::Undecided) << what;
    const std::vector<VecX<T>> all = complementary_solutions<T>(M, d, dbl ? 1e-10 : 1e-40);
    ASSERT_FALSE(all.empty()) << what;
    bool one = true;
    for (const VecX<T>& l : all) one = one && max_abs(VecX<T>(l - r.lambda)) <= (dbl ? 1e-7 : 1e-35) * (max_abs(r.lambda) + 1);
    EXPECT_EQ(u == LcpUniqueness::Unique, one) << what << ": " << all.size() << " complementary solutions";
    (u == LcpUniqueness::Unique ? unique : many)++;
  }
  EXPECT_GE(unique, cases / 10);
  EXPECT_GE(many, cases / 10);
  std::cout << "[ uniqueness ] unique " << unique << ", not unique " << many << " (M singular in all)\n";
}

// Example 11.1 (fig. 11.3): a disk in a slot whose walls narrow past the line L. The two normals
// are opposite (n2 = -n1), M = [m -m; -m m]; a solution exists iff d1 + d2 ≥ 0, and otherwise the
// certificate is y = (1, 1): My = 0, dᵀy = d1 + d2 < 0.
TYPED_TEST(Lcp, DiskInANarrowingSlotHasNoSolutionWhenPushedOn) {
  using T = TypeParam;
  const T m = T(3) / T(7);
  MatX<T> M(2, 2);
  M << m, -m, -m, m;
  VecX<T> d(2);
  d << T(-2) / T(3), T(1) / T(5);  // pushed: d1 + d2 < 0
  const LcpResult<T> r = solve_lcp<T>(M, d);
  ASSERT_EQ(r.status, LcpResult<T>::NoSolution) << r.message;
  EXPECT_LE(max_abs(VecX<T>(r.certificate - VecX<T>::Ones(2))), tol<T>(100));
  expect_certified<T>(M, d, r, 100, "disk pushed into the slot");
  d << T(-1) / T(5), T(2) / T(3);  // d1 + d2 > 0: contact 1 pushes, ζ̇ = (0, d1 + d2)
  const LcpResult<T> s = solve_lcp<T>(M, d);
  ASSERT_EQ(s.status, LcpResult<T>::Solved);
  expect_certified<T>(M, d, s, 100, "disk held");
  EXPECT_LE(max_abs(VecX<T>(s.zeta_dot - Eigen::Matrix<T, 2, 1>(T(0), T(-1) / T(5) + T(2) / T(3)))), tol<T>(100));
}

// One contact: the closed form of eq. 11.10, λ = -d/M when d < 0, else λ = 0, ζ̇ = d.
TYPED_TEST(Lcp, SingleContactIsEquation11_10) {
  using T = TypeParam;
  MatX<T> M(1, 1);
  M << T(5) / T(3);
  VecX<T> d(1);
  d << T(-7) / T(11);
  LcpResult<T> r = solve_lcp<T>(M, d);
  ASSERT_EQ(r.status, LcpResult<T>::Solved);
  EXPECT_LE(std::fabs(static_cast<double>(T(r.lambda(0) - (T(7) / T(11)) / (T(5) / T(3))))), tol<T>(10));
  EXPECT_LE(std::fabs(static_cast<double>(r.zeta_dot(0))), tol<T>(10));
  d << T(7) / T(11);
  r = solve_lcp<T>(M, d);
  ASSERT_EQ(r.status, LcpResult<T>::Solved);
  EXPECT_EQ(r.lambda(0), T(0));
  EXPECT_EQ(r.zeta_dot(0), d(0));
}

// Degenerate: four copies of one contact (M of rank 1, every d_i equal and negative): the
// lexicographic rule must end without cycling, with Mλ the single contact's.
TYPED_TEST(Lcp, RepeatedContactsAreSolvedWithoutCycling) {
  using T = TypeParam;
  const int n = 4;
  const MatX<T> M = MatX<T>::Constant(n, n, T(2));
  const VecX<T> d = VecX<T>::Constant(n, T(-1));
  const LcpResult<T> r = solve_lcp<T>(M, d);
  ASSERT_EQ(r.status, LcpResult<T>::Solved) << r.message;
  expect_certified<T>(M, d, r, 100, "four copies of one contact");
  EXPECT_LE(max_abs(VecX<T>(M * r.lambda - VecX<T>::Ones(n))), tol<T>(100));
  EXPECT_EQ(r.active.size(), 1u) << "a basic solution: one of the dependent normals carries the force";
}

}  // namespace
}  // namespace rbd::test
