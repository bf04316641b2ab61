// Scale: the O(n d) LᵀDL from articulated-body inertias (reference/tree/ltdl_articulated.hpp),
// the Lanczos condition estimate (reference/tree/condition.hpp), and the sampled / randomized forms the
// property checks take above their size switches (checks/properties.hpp), with planted errors.
#include "certify/evaluate_impl.hpp"
#include "tests/test_paths.hpp"
#include "checks/properties.hpp"
#include "checks/random_model.hpp"
#include "io/model_io.hpp"
#include "tests/test_util.hpp"
#include "tests/tree_cases.hpp"

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace rbd::test {
namespace {

std::string src(const std::string& rel) { return std::string(::rbd::test::kSourceDir) + "/" + rel; }

// The bundled tree models (every joint type: all_joints.json), and the humanoid on a floating base.
std::vector<ModelDesc> bundled() {
  std::vector<ModelDesc> out;
  for (const char* f : {"all_joints.json", "arm7.json", "arm7.urdf", "double_pendulum.json", "far_arm.json", "humanoid.json",
                        "panda.urdf", "tiny_inertia.json"})
    out.push_back(load_model(src(std::string("fixtures/models/") + f)).desc);
  LoadOptions fb;
  fb.floating_base = true;
  out.push_back(load_model(src("fixtures/models/humanoid.urdf"), fb).desc);
  return out;
}

// Random trees: every joint type, chains to bushy trees, half on a floating base.
std::vector<ModelDesc> random_trees(int count, int max_nb) {
  std::vector<ModelDesc> out;
  for (int s = 0; s < count; ++s) {
    TreeSpec spec;
    spec.nb = 1 + s % max_nb;
    spec.branching = 1.0 + 0.15 * (s % 8);
    spec.floating_base = s % 2 == 0;
    out.push_back(random_tree(spec, static_cast<std::uint64_t>(1000 + s)));
  }
  return out;
}

// max over the factor's entries (D and L at ancestor pairs) of |a - b|, relative to max|D| for D
// and to max(1, max|L|) for L.
template <class T>
double factor_difference(const SparseFactor<T>& a, const SparseFactor<T>& b) {
  using std::abs;
  const int n = static_cast<int>(a.LD.rows());
  T dmax(0), lmax(1), dd(0), dl(0);
  for (int i = 0; i < n; ++i) {
    if (abs(b.LD(i, i)) > dmax) dmax = abs(b.LD(i, i));
    for (int j = a.lambda[i]; j >= 0; j = a.lambda[j])
      if (abs(b.LD(i, j)) > lmax) lmax = abs(b.LD(i, j));
  }
  for (int i = 0; i < n; ++i) {
    const T e = abs(T(a.LD(i, i) - b.LD(i, i)));
    if (e > dd) dd = e;
    for (int j = a.lambda[i]; j >= 0; j = a.lambda[j]) {
      const T f = abs(T(a.LD(i, j) - b.LD(i, j)));
      if (f > dl) dl = f;
    }
  }
  const double rd = static_cast<double>(T(dd / dmax)), rl = static_cast<double>(T(dl / lmax));
  return rd > rl ? rd : rl;
}

template <class T>
void expect_articulated_equals_ltdl(const ModelDesc& d, std::uint64_t seed) {
  const Model<T> m = build_model<T>(d);
  if (m.nv == 0) return;
  const VecX<T> q = exact_vec<T>(random_state(build_model<double>(d), seed).q);
  const MatX<T> H = crba<T>(m, q);
  const SparseFactor<T> ref = ltdl<T>(H, m.dof_parent), art = ltdl_articulated<T>(m, q);
  ASSERT_TRUE(ref.ok) << d.name;
  ASSERT_TRUE(art.ok) << d.name;
  EXPECT_EQ(art.lambda, ref.lambda);
  EXPECT_TRUE(art.unit);
  // Entries off the factor (upper triangle, non-ancestor pairs) are 0.
  const int n = m.nv;
  for (int i = 0; i < n; ++i) {
    std::vector<bool> anc(static_cast<size_t>(n), false);
    for (int j = i; j >= 0; j = m.dof_parent[j]) anc[static_cast<size_t>(j)] = true;
    for (int j = 0; j < n; ++j) {
      if (!anc[static_cast<size_t>(j)]) ASSERT_EQ(art.LD(i, j), T(0)) << d.name << " (" << i << ", " << j << ")";
    }
  }
  // Different order of operations: agreement to rounding amplified by the conditioning.
  const double kappa = static_cast<double>(condition_number<T>(H));
  const double diff = factor_difference<T>(art, ref);
  EXPECT_LE(diff, 100.0 * n * static_cast<double>(epsilon<T>()) * kappa)
      << d.name << ": nv " << n << ", κ " << kappa << ", " << -std::log10(diff) << " digits";
  // Drop-in: the same solve.
  const VecX<T> b = exact_vec<T>(random_state(build_model<double>(d), seed + 1).tau);
  const VecX<T> x1 = ltdl_solve<T>(ref, b), x2 = ltdl_solve<T>(art, b);
  EXPECT_LE(max_abs(VecX<T>(x1 - x2)) / max_abs(x1), 1000.0 * n * static_cast<double>(epsilon<T>()) * kappa) << d.name;
}

TEST(LtdlArticulated, EqualsTable63OnBundledModelsDouble) {
  for (const ModelDesc& d : bundled()) expect_articulated_equals_ltdl<double>(d, 3);
}
TEST(LtdlArticulated, EqualsTable63OnBundledModelsBin50) {
  for (const ModelDesc& d : bundled()) expect_articulated_equals_ltdl<bin50>(d, 3);
}
TEST(LtdlArticulated, EqualsTable63OnRandomTreesDouble) {
  for (const ModelDesc& d : random_trees(60, 14)) expect_articulated_equals_ltdl<double>(d, 5);
}
TEST(LtdlArticulated, EqualsTable63OnRandomTreesBin50) {
  for (const ModelDesc& d : random_trees(24, 12)) expect_articulated_equals_ltdl<bin50>(d, 5);
}

// At 50 digits the two routes agree to ~45 digits on a well-conditioned floating tree: a double
// that leaked into the recursion would cap it near 16.
TEST(LtdlArticulated, FiftyDigitsAgreeToFortyFive) {
  TreeSpec spec;
  spec.nb = 12;
  spec.branching = 1.5;
  spec.floating_base = true;
  const ModelDesc d = random_tree(spec, 7);
  const Model<bin50> m = build_model<bin50>(d);
  const VecX<bin50> q = exact_vec<bin50>(random_state(build_model<double>(d), 11).q);
  const double diff = factor_difference<bin50>(ltdl_articulated<bin50>(m, q), ltdl<bin50>(crba<bin50>(m, q), m.dof_parent));
  EXPECT_LE(diff, 1e-45);
}

// A singular H (massless leaf on a prismatic joint): the same failed DoF as table 6.3.
TEST(LtdlArticulated, SingularHFailsAtTheSameDof) {
  const Model<double> m = build_model<double>(massless_prismatic_leaf());
  const VecX<double> q = VecX<double>::Constant(2, 0.3);
  const SparseFactor<double> f = ltdl_articulated<double>(m, q);
  EXPECT_FALSE(f.ok);
  EXPECT_EQ(f.failed_at, ltdl<double>(crba<double>(m, q), m.dof_parent).failed_at);
  EXPECT_EQ(std::isinf(condition_estimate<double>(crba<double>(m, q), f)), true);
}

// ---- crba_base (CRBA's pairs in base coordinates) against table 6.2 --------------------------------

// The same H as crba() up to rounding: norm-wise within 4 n ε of max|H|, on the bundled models and
// on deep random chains and trees (equal links), at double and at bin50. Measured worst: 0.07 n ε;
// products about the world origin instead of the root body's gave 84 n ε on far_arm (mounted far
// from the origin), which this bound rejects.
template <class T>
void expect_crba_base_equals_crba(const ModelDesc& d, std::uint64_t seed) {
  const Model<T> m = build_model<T>(d);
  if (m.nv == 0) return;
  const VecX<T> q = exact_vec<T>(random_state(build_model<double>(d), seed).q);
  const MatX<T> H = crba<T>(m, q), Hb = crba_base<T>(m, q);
  const T scale = H.cwiseAbs().maxCoeff(), err = (Hb - H).cwiseAbs().maxCoeff();
  const double rel = static_cast<double>(T(err / scale)), n_eps = m.nv * static_cast<double>(epsilon<T>());
  EXPECT_LE(rel, 4 * n_eps) << d.name << ": nv " << m.nv << ", " << rel / n_eps << " n ε";
  // Symmetric, and exactly zero off the branch pattern (i, j on different branches). On it, an entry
  // that table 6.2 finds exactly zero (S_j orthogonal to F in body j's coordinates) is rounding
  // noise in base coordinates: within the norm-wise bound above.
  auto related = [&](int i, int j) {
    for (int a = std::max(i, j); a >= 0; a = m.dof_parent[a])
      if (a == std::min(i, j)) return true;
    return false;
  };
  for (int i = 0; i < m.nv; ++i)
    for (int j = 0; j < m.nv; ++j) {
      ASSERT_EQ(Hb(i, j), Hb(j, i));
      if (!related(i, j)) ASSERT_EQ(Hb(i, j), T(0)) << d.name << " (" << i << ", " << j << ")";
    }
}
std::vector<ModelDesc> deep_trees() {
  std::vector<ModelDesc> out;
  for (const double branching : {1.0, 1.0, 1.3, 2.0}) {
    TreeSpec spec;
    spec.nb = 120;
    spec.branching = branching;
    spec.taper = 1.0;
    spec.joints = {JointType::Revolute, JointType::Prismatic, JointType::Spherical, JointType::Helical};
    out.push_back(random_tree(spec, 20 + out.size()));
  }
  return out;
}
TEST(CrbaBase, EqualsTable62Double) {
  for (const ModelDesc& d : bundled()) expect_crba_base_equals_crba<double>(d, 3);
  for (const ModelDesc& d : deep_trees()) expect_crba_base_equals_crba<double>(d, 4);
}
TEST(CrbaBase, EqualsTable62Bin50) {
  for (const ModelDesc& d : bundled()) expect_crba_base_equals_crba<bin50>(d, 3);
  for (const ModelDesc& d : deep_trees()) expect_crba_base_equals_crba<bin50>(d, 4);
}

// ---- condition_estimate against the dense eigenvalues in T ---------------------------------------

template <class T>
void expect_condition_matches(const ModelDesc& d, std::uint64_t seed, double rel) {
  const Model<T> m = build_model<T>(d);
  if (m.nv == 0) return;
  const VecX<T> q = exact_vec<T>(random_state(build_model<double>(d), seed).q);
  const MatX<T> H = crba<T>(m, q);
  const double dense = static_cast<double>(condition_number<T>(H));
  ConditionInfo info;
  const double est = condition_estimate<T>(H, ltdl<T>(H, m.dof_parent), &info);
  // At double the dense value itself is only good to ~nε κ.
  const double allow = rel + 100.0 * m.nv * static_cast<double>(epsilon<T>()) * dense;
  EXPECT_LE(std::abs(est - dense) / dense, allow) << d.name << ": nv " << m.nv << ", dense " << dense << ", estimate " << est;
  // The ladder's skip rests on λmin(H) ≤ min_i D_i (a pivot is a Schur complement: condition.hpp).
  EXPECT_LE(info.lambda_min, info.min_pivot * (1 + allow)) << d.name << ": λmin " << info.lambda_min << ", min D " << info.min_pivot;
}

TEST(ConditionEstimate, MatchesDenseEigenvaluesDouble) {
  for (const ModelDesc& d : bundled()) expect_condition_matches<double>(d, 3, 1e-6);
  for (const ModelDesc& d : random_trees(40, 14)) expect_condition_matches<double>(d, 9, 1e-6);
}
TEST(ConditionEstimate, MatchesDenseEigenvaluesBin50) {
  for (const ModelDesc& d : bundled()) expect_condition_matches<bin50>(d, 3, 1e-6);
  for (const ModelDesc& d : random_trees(16, 12)) expect_condition_matches<bin50>(d, 9, 1e-6);
}

// More DoFs than Lanczos steps (n > 120): convergence, not exhaustion of the Krylov space.
TEST(ConditionEstimate, MatchesDenseOnA150DofTree) {
  TreeSpec spec;
  spec.nb = 150;
  spec.branching = 1.2;
  spec.joints = {JointType::Revolute, JointType::Prismatic};
  const ModelDesc d = random_tree(spec, 42);
  expect_condition_matches<double>(d, 2, 1e-6);
}

// κ ~ 1e18 and ~1e30: a body of mass 1e-18 (1e-30) at the end of a chain. At bin50 the estimate
// must still have its 6 digits: the solves run in double-double (3 n ε κ ≤ 1e-9) for the first
// and in bin50 itself for the second; the dense eigenvalues in T are the reference.
void expect_near_singular_bin50(double mass, double min_kappa, int solve_bits) {
  TreeSpec spec;
  spec.nb = 8;
  spec.joints = {JointType::Revolute, JointType::Prismatic};
  ModelDesc d = random_tree(spec, 5);
  BodyDesc& leaf = d.bodies.back();
  leaf.joint.type = JointType::Prismatic;
  leaf.inertial.mass = Num::exact(mass);
  leaf.inertial.I = {Num::exact(mass / 10), Num::exact(mass / 10), Num::exact(mass / 10), Num::exact(0), Num::exact(0), Num::exact(0)};
  const Model<bin50> m = build_model<bin50>(d);
  const VecX<bin50> q = exact_vec<bin50>(random_state(build_model<double>(d), 1).q);
  const MatX<bin50> H = crba<bin50>(m, q);
  const double dense = static_cast<double>(condition_number<bin50>(H));
  ASSERT_GT(dense, min_kappa);
  ConditionInfo info;
  const double est = condition_estimate<bin50>(H, ltdl<bin50>(H, m.dof_parent), &info);
  EXPECT_EQ(info.solve_bits, solve_bits);
  EXPECT_LE(std::abs(est - dense) / dense, 1e-6) << "dense " << dense << ", estimate " << est;
}
TEST(ConditionEstimate, NearSingularAtBin50) {
  expect_near_singular_bin50(1e-18, 1e16, detail::DoubleDouble::digits);
  expect_near_singular_bin50(1e-30, 1e28, std::numeric_limits<bin50>::digits);
}

// The double-double operations of the ladder against bin50 (exact for these operands: a
// double-double has ≤ 2·53 bits over ≤ 2^60 of span): relative error ≤ 16 u² = 2^-102 (the
// published bounds, condition.hpp; the ladder's ε is 2^-100) for the sum, difference, product and
// quotient, over operands of every sign and of
// exponents far apart (where the sum's rounding is hardest), and differences that cancel hi; and
// narrowing a bin50 value to double-double loses at most 2^-106 of it.
TEST(ConditionEstimate, DoubleDoubleOperationsAreWithinTheirEpsilon) {
  using detail::DoubleDouble;
  std::mt19937_64 g(7);
  std::uniform_real_distribution<double> u(-1, 1);
  std::uniform_int_distribution<int> e(-40, 40);
  auto draw = [&] {
    const double hi = std::ldexp(u(g), e(g));
    return DoubleDouble(hi, std::ldexp(hi, -53) * u(g));  // |lo| ≤ ulp(hi) / 2
  };
  auto exact = [](const DoubleDouble& x) { return bin50(x.hi) + bin50(x.lo); };
  const bin50 eps = ldexp(bin50(1), -102);
  double worst = 0;
  for (int i = 0; i < 20000; ++i) {
    const DoubleDouble a = draw(), b = i % 5 == 0 ? DoubleDouble(a.hi, -a.lo * u(g)) : draw();
    const bin50 x = exact(a), y = exact(b);
    const std::pair<DoubleDouble, bin50> results[] = {{a + b, x + y}, {a - b, x - y}, {a * b, x * y}, {a / b, x / y}};
    for (const auto& [got, want] : results) {
      const bin50 err = abs(bin50(exact(got) - want)), scale = abs(want);
      ASSERT_LE(err, eps * scale) << i << ": error " << to_decimal(err, 3) << " of " << to_decimal(want, 20);
      if (scale > 0) worst = std::max(worst, static_cast<double>(err / scale));
    }
  }
  EXPECT_LT(worst, std::ldexp(1.0, -102));
  EXPECT_GT(worst, 0.0);  // the arithmetic is not bin50's in disguise
  // A bin50 value narrowed to double-double (the factor's entries): within 2^-106 of it.
  for (int i = 0; i < 2000; ++i) {
    const bin50 x = ldexp(bin50(u(g)) + bin50(u(g)) * ldexp(bin50(1), -60) + bin50(u(g)) * ldexp(bin50(1), -120), e(g));
    ASSERT_LE(abs(bin50(exact(detail::narrow<DoubleDouble, bin50>(x)) - x)), ldexp(abs(x), -106)) << to_decimal(x);
  }
}

// On a 400-body chain (where long double is not enough: 3 n ε κ > 1e-9) the ladder takes the
// double-double rung, and its λmin agrees with solves in bin50 itself to the estimate's digits.
TEST(ConditionEstimate, DoubleDoubleRungAgreesWithSolvesInT) {
  TreeSpec spec;
  spec.nb = 400;
  spec.branching = 1.0;
  spec.taper = 1.0;  // equal links: κ ~ 10^8 (tapered ones reach 10^68, beyond double-double)
  spec.joints = {JointType::Revolute};
  const ModelDesc d = random_tree(spec, 11);
  const Model<bin50> m = build_model<bin50>(d);
  const VecX<bin50> q = exact_vec<bin50>(random_state(build_model<double>(d), 4).q);
  const MatX<bin50> H = crba<bin50>(m, q);
  const SparseFactor<bin50> f = ltdl<bin50>(H, m.dof_parent);
  ConditionInfo info;
  const double est = condition_estimate<bin50>(H, f, &info);
  ASSERT_GT(3.0 * m.nv * static_cast<double>(std::numeric_limits<long double>::epsilon()) * est, 1e-9) << "κ " << est;
  ASSERT_EQ(info.solve_bits, detail::DoubleDouble::digits) << "κ " << est;
  // λmax / min D already fails long double's bound here: its solves are not run at all.
  ASSERT_GT(3.0 * m.nv * static_cast<double>(std::numeric_limits<long double>::epsilon()) * info.lambda_max / info.min_pivot, 1e-9);
  EXPECT_EQ(info.rungs_run, 1);
  int steps = 0;
  const double inv_lmin_t = detail::inverse_lanczos<bin50, bin50>(f, &steps);
  const double inv_lmin_dd = detail::inverse_lanczos<detail::DoubleDouble, bin50>(f, &steps);
  // The ladder's double-double run starts from the Ritz vector of solves in double (warm start):
  // the same λmin (below) in fewer steps than from the cold start.
  EXPECT_LT(info.steps_min, steps) << "warm " << info.steps_min << " steps, cold " << steps;
  EXPECT_LE(std::abs(info.lambda_min * inv_lmin_t - 1), 1e-9) << "λmin " << info.lambda_min << " vs " << 1 / inv_lmin_t;
  EXPECT_LE(std::abs(inv_lmin_dd / inv_lmin_t - 1), 1e-9) << "λmin " << 1 / inv_lmin_dd << " vs " << 1 / inv_lmin_t;
}

// ---- the checks above their size switches --------------------------------------------------------

struct Big {
  Model<double> m;
  VecX<double> q, qd, qdd, tau;
};
Big big_model(int nb) {
  TreeSpec spec;
  spec.nb = nb;
  spec.branching = 1.1;
  spec.joints = {JointType::Revolute, JointType::Prismatic, JointType::Spherical};
  const ModelDesc d = random_tree(spec, 77);
  Big b;
  b.m = build_model<double>(d);
  const RandomState s = random_state(b.m, 3);
  b.q = exact_vec<double>(s.q);
  b.qd = exact_vec<double>(s.qd);
  b.qdd = exact_vec<double>(s.qdd);
  b.tau = exact_vec<double>(s.tau);
  return b;
}

// A 300-DoF-class tree (above kExactMaxN): every check of check_all passes on correct data, and
// the sampled / randomized forms say so in their detail.
TEST(ScaledChecks, CheckAllPassesAboveTheSwitches) {
  const Big b = big_model(200);  // 200 bodies, some spherical: > 256 DoFs
  ASSERT_GT(b.m.nv, kExactMaxN);
  bool saw_sampled = false, saw_randomized = false;
  for (const CheckResult& r : check_all<double>(b.m, b.q, b.qd, b.qdd, b.tau)) {
    EXPECT_TRUE(r.passed) << r.message();
    saw_sampled |= r.detail.find("sampled") != std::string::npos;
    saw_randomized |= r.detail.find("randomized") != std::string::npos;
  }
  EXPECT_TRUE(saw_sampled);
  EXPECT_TRUE(saw_randomized);
}

// One wrong entry of a > 256-DoF H is still caught: by the randomized LᵀDL reconstruction (an
// entry table 6.3 does not read: above the diagonal) and by the randomized RNEA products (a
// symmetric pair in a column the sample leaves out).
TEST(ScaledChecks, PlantedErrorInHIsCaught) {
  const Big b = big_model(200);
  const int n = b.m.nv;
  ASSERT_GT(n, kExactMaxN);
  const MatX<double> H = crba<double>(b.m, b.q);
  const double k = default_k(n);
  EXPECT_TRUE(check_ltdl_reconstructs<double>(H, b.m.dof_parent, k).passed);
  EXPECT_TRUE(check_ltl_reconstructs<double>(H, b.m.dof_parent, k).passed);
  EXPECT_TRUE(check_crba_rnea_columns<double>(b.m, b.q, H, k).passed);
  // Columns not in the sample (spread as round(c (n - 1) / 63), ~5 apart): between the first two
  // sampled columns, and two past the 33rd.
  const int j = 2, i = static_cast<int>(std::lround(32.0 * (n - 1) / 63.0)) + 2;
  const double delta = 1e-6 * H.cwiseAbs().maxCoeff();
  MatX<double> Hu = H;
  Hu(j, i) += delta;  // above the diagonal: ltdl and ltl never read it
  const CheckResult r1 = check_ltdl_reconstructs<double>(Hu, b.m.dof_parent, k);
  EXPECT_FALSE(r1.passed) << r1.message();
  EXPECT_NE(r1.detail.find("randomized"), std::string::npos);
  EXPECT_FALSE(check_ltl_reconstructs<double>(Hu, b.m.dof_parent, k).passed);
  MatX<double> Hs = H;
  Hs(i, j) += delta;
  Hs(j, i) += delta;
  const CheckResult r2 = check_crba_rnea_columns<double>(b.m, b.q, Hs, k);
  EXPECT_FALSE(r2.passed) << r2.message();
  EXPECT_NE(r2.detail.find("sampled"), std::string::npos);
}

// Above kEigenMaxN positive-definiteness is read from the LᵀDL pivots: same verdict as the
// eigenvalues, on H and on H shifted past its smallest eigenvalue.
TEST(ScaledChecks, PositiveDefiniteByPivotsAgreesWithEigenvalues) {
  const Big b = big_model(60);
  ASSERT_GT(b.m.nv, kEigenMaxN);
  const MatX<double> H = crba<double>(b.m, b.q);
  const Eigen::VectorXd ev = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(H, Eigen::EigenvaluesOnly).eigenvalues();
  const CheckResult good = check_positive_definite<double>(H);
  EXPECT_TRUE(good.passed) << good.message();
  EXPECT_NE(good.detail.find("pivots"), std::string::npos);
  const MatX<double> shifted = H - 1.5 * ev(0) * MatX<double>::Identity(b.m.nv, b.m.nv);
  const CheckResult bad = check_positive_definite<double>(shifted);
  EXPECT_FALSE(bad.passed) << bad.message();
}

// The pattern storage of H and L that evaluations keep (certify/evaluate_impl.hpp, RawTreeMatrixOf:
// 10⁵ stored entries instead of 4·10⁶ on a 2000-body tree) reads back every entry of the full
// matrices exactly, on every random tree and bundled model; and a matrix that is not tree-sparse
// (a nonzero off the pattern, an H whose triangles differ) is refused, so that it is kept in full.
TEST(RawTreeMatrix, ReadsBackTheFullMatricesAndRefusesWhatIsNotTreeSparse) {
  std::vector<ModelDesc> models = random_trees(40, 14);
  for (const ModelDesc& d : bundled()) models.push_back(d);
  int refused_off_pattern = 0;
  for (const ModelDesc& d : models) {
    const Model<double> m = build_model<double>(d);
    const RandomState rs = random_state(m, 7, 1.0);
    const VecX<double> q = Eigen::Map<const VecX<double>>(rs.q.data(), m.nq);
    const MatX<double> H = crba<double>(m, q);
    const SparseFactor<double> f = ltdl<double>(H, m.dof_parent);
    const MatX<double> L = f.L();
    const auto h = detail::RawTreeMatrixOf<double>::make(H, m.dof_parent, false);
    const auto l = detail::RawTreeMatrixOf<double>::make(f.LD, m.dof_parent, true);
    ASSERT_TRUE(h && l) << d.name;
    const int n = m.nv;
    ASSERT_EQ(h->size(), static_cast<size_t>(n) * n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const size_t k = static_cast<size_t>(i) * n + j;
        ASSERT_EQ(h->at(k), H(i, j)) << d.name << " H(" << i << ", " << j << ")";
        ASSERT_EQ(l->at(k), L(i, j)) << d.name << " L(" << i << ", " << j << ")";
      }
    // An H that is not the tree's: asymmetric at an ancestor pair, or nonzero where no DoF is the
    // other's ancestor (two DoFs on different branches).
    for (int i = 0; i < n; ++i)
      if (m.dof_parent[i] >= 0) {
        MatX<double> Ha = H;
        Ha(i, m.dof_parent[i]) = std::nextafter(Ha(i, m.dof_parent[i]), 1e300);
        EXPECT_FALSE(detail::RawTreeMatrixOf<double>::make(Ha, m.dof_parent, false)) << d.name;
        break;
      }
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < i; ++j) {
        bool related = false;
        for (int a = m.dof_parent[i]; a >= 0; a = m.dof_parent[a]) related = related || a == j;
        if (related) continue;
        MatX<double> Ho = H;
        Ho(i, j) = Ho(j, i) = 1e-300;
        EXPECT_FALSE(detail::RawTreeMatrixOf<double>::make(Ho, m.dof_parent, false)) << d.name;
        ++refused_off_pattern;
        i = n;
        break;
      }
  }
  EXPECT_GT(refused_off_pattern, 10);  // branched trees among the models
}

// certify() reads a tree-layout H or L (RawTreeMatrixOf on both sides, same pattern) by its stored
// entries only (certify/evaluate.cpp, certify_tree_raw). Its digits must be those of the entry-by-
// entry route over all n² entries: the same quantities with one side wrapped so that it is read
// only through at(k) are certified again and every digit compared, on random trees and chains and
// the bundled models, at bin50 against bin100.
template <class T>
class EveryEntry final : public detail::TypedRaw<T> {  // at(k) only: certify()'s generic route
 public:
  explicit EveryEntry(std::shared_ptr<const RawValues> r) : r_(std::move(r)), t_(dynamic_cast<const detail::TypedRaw<T>*>(r_.get())) {}
  size_t size() const override { return t_->size(); }
  T at(size_t k) const override { return t_->at(k); }

 private:
  std::shared_ptr<const RawValues> r_;
  const detail::TypedRaw<T>* t_;
};

TEST(RawTreeMatrix, CertifiedDigitsFromStoredEntriesEqualThoseOfEveryEntry) {
  std::vector<ModelDesc> models = random_trees(24, 30);
  for (const ModelDesc& d : bundled()) models.push_back(d);
  TreeSpec chain;
  chain.nb = 60;
  chain.branching = 1.0;
  models.push_back(random_tree(chain, 77));
  const Precision lo_p = *Precision::parse("bin50"), hi_p = lo_p.check();
  int tree_matrices = 0, below_cap = 0;
  for (const ModelDesc& d : models) {
    const Model<double> m = build_model<double>(d);
    const RandomState rs = random_state(m, 11, 1.0);
    const StateDesc st = exact_state(rs);
    Evaluation fast = evaluate(lo_p, d, st, {}, false, EvaluationText::Deferred);
    const Evaluation hi = evaluate(hi_p, d, st, {}, false, EvaluationText::RawOnly);
    Evaluation slow = fast;
    for (Quantity& q : slow.quantities)
      if (std::dynamic_pointer_cast<const detail::RawTreeMatrixOf<bin50>>(q.raw)) {
        q.raw = std::make_shared<EveryEntry<bin50>>(q.raw);
        ++tree_matrices;
      }
    certify(fast, hi);
    certify(slow, hi);
    ASSERT_EQ(fast.quantities.size(), slow.quantities.size());
    for (size_t k = 0; k < fast.quantities.size(); ++k) {
      const Quantity &a = fast.quantities[k], &b = slow.quantities[k];
      EXPECT_EQ(a.normwise_digits, b.normwise_digits) << d.name << " " << a.name;
      ASSERT_EQ(a.digits.size(), b.digits.size()) << d.name << " " << a.name;
      for (size_t e = 0; e < a.digits.size(); ++e) {
        ASSERT_EQ(a.digits[e], b.digits[e]) << d.name << " " << a.name << " entry " << e;
        below_cap += a.digits[e] < lo_p.digits();
      }
    }
  }
  EXPECT_GT(tree_matrices, 2 * static_cast<int>(models.size()) - 4);  // H and L of (nearly) every model
  EXPECT_GT(below_cap, 100);  // digits below the cap: the comparison is not of capped constants
}

}  // namespace
}  // namespace rbd::test
