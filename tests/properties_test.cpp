// Properties of the dynamics algorithms on random trees (checks/random_model.hpp: every joint
// type, branching, floating and fixed bases, physically valid inertias), each checked at double
// and at 50 digits through the property checkers of checks/properties.hpp. A failure prints the
// residual, the tolerance and RapidCheck's reproduce string.
//
// Case counts: every property, at double (suite Properties) and at bin50 (suite PropertiesSlow),
// runs RapidCheck's default of 100 cases from the same generator; RC_PARAMS="max_success=N"
// changes the count for all of them.
#include "checks/properties.hpp"
#include "tests/tree_cases.hpp"
#include "tests/test_util.hpp"

#include <rapidcheck/gtest.h>

namespace rbd::test {
namespace {

struct Case {
  TreeSpec spec;
  std::uint64_t model_seed = 0, state_seed = 0;
};

rc::Gen<Case> gen_case() {
  return rc::gen::apply(
      [](int nb, int bf10, bool floating, std::uint64_t ms, std::uint64_t ss) {
        return Case{tree_spec(nb, bf10 / 10.0, floating), ms, ss};
      },
      rc::gen::inRange(1, 13), rc::gen::inRange(10, 31), rc::gen::arbitrary<bool>(), rc::gen::arbitrary<std::uint64_t>(),
      rc::gen::arbitrary<std::uint64_t>());
}

template <class T>
using Instance = RandomCase<T>;

template <class T>
Instance<T> make(const Case& c) {
  return random_case<T>(c.spec, c.model_seed, c.state_seed);
}

void require(const CheckResult& r) {
  if (!r.passed) RC_FAIL(r.message());
}

// Each property at one scalar; the TEST names below say which identity.
template <class T>
void prop_H_symmetric_positive_definite(const Case& c) {
  const Instance<T> in = make<T>(c);
  if (in.model.nv == 0) return;
  // Symmetry of H assembled from RNEA columns: CRBA's H is symmetric by construction.
  require(check_rnea_H_symmetric<T>(in.model, in.q, default_k(in.model.nv)));
  require(check_positive_definite<T>(crba<T>(in.model, in.q)));
}
template <class T>
void prop_crba_columns(const Case& c) {
  const Instance<T> in = make<T>(c);
  require(check_crba_rnea_columns<T>(in.model, in.q, default_k(in.model.nv)));
}
template <class T>
void prop_aba_inverts_rnea(const Case& c) {
  const Instance<T> in = make<T>(c);
  require(check_fd_inverts_id<T>(in.model, in.q, in.qd, in.qdd, default_k(in.model.nv)));
  require(check_fd_matches_ltdl<T>(in.model, in.q, in.qd, in.tau, default_k(in.model.nv)));
}
template <class T>
void prop_factorizations(const Case& c) {
  const Instance<T> in = make<T>(c);
  const MatX<T> H = crba<T>(in.model, in.q);
  const double k = default_k(in.model.nv);
  require(check_ltdl_reconstructs<T>(H, in.model.dof_parent, k));
  require(check_ltl_reconstructs<T>(H, in.model.dof_parent, k));
  require(check_ltdl_solves<T>(H, in.model.dof_parent, in.tau, k));
  require(check_ltl_solves<T>(H, in.model.dof_parent, in.tau, k));
  require(check_factor_products<T>(H, in.model.dof_parent, in.tau, k));
  require(check_mj_factor_equals_ltdl<T>(H, in.model.dof_parent));
}
template <class T>
void prop_energy(const Case& c) {
  const Instance<T> in = make<T>(c);
  require(check_kinetic_energy<T>(in.model, in.q, in.qd, default_k(in.model.nv)));
  require(check_power_balance<T>(in.model, in.q, in.qd, in.tau, default_k(in.model.nv)));
  require(check_power_balance_fd<T>(in.model, in.q, in.qd, in.tau, default_k(in.model.nv)));
}

#define RBD_PROPERTY(Name, fn)                                                         \
  RC_GTEST_PROP(Properties, Name##_double, ()) { fn<double>(*gen_case()); }            \
  RC_GTEST_PROP(PropertiesSlow, Name##_bin50, ()) { fn<bin50>(*gen_case()); }

RBD_PROPERTY(HIsSymmetricPositiveDefinite, prop_H_symmetric_positive_definite)
RBD_PROPERTY(CrbaColumnsEqualRneaDifferences, prop_crba_columns)
RBD_PROPERTY(AbaInvertsRneaAndMatchesCrbaLtdl, prop_aba_inverts_rnea)
RBD_PROPERTY(LtdlAndLtlReconstructAndSolve, prop_factorizations)
RBD_PROPERTY(KineticEnergyAndPowerBalance, prop_energy)

// At 50 digits the identities hold to ~45 digits, not merely to a tolerance: a double that leaked
// into the templated path would cap them near 16. One fixed 12-body floating tree, all checks.
TEST(Properties, FiftyDigitsShowFortyFiveDigits) {
  Case c;
  c.spec.nb = 12;
  c.spec.branching = 1.5;
  c.spec.floating_base = true;
  c.model_seed = 7;
  c.state_seed = 11;
  const Instance<bin50> in = make<bin50>(c);
  for (const CheckResult& r : check_all<bin50>(in.model, in.q, in.qd, in.qdd, in.tau)) {
    EXPECT_TRUE(r.passed) << r.message();
    if (r.name == "H.positive_definite") continue;  // not a residual of an identity
    // aba.* are forward errors, bounded by κ(H) ε: allow the condition number's digits.
    const double need = r.name.rfind("aba.", 0) == 0 ? 40 : 45;
    EXPECT_GE(r.digits(), need) << r.message();
  }
}

// A tolerance of 1 or more (k ε κ(H) for κ(H) ≥ 1/(kε)) passes every finite residual: the result
// says so rather than reading as evidence. A mass of 1e300 beside one of 1 gives κ(H) ~ 1e300.
TEST(Properties, ATolerancePastOneIsReportedInconclusive) {
  const CheckResult loose = make_check<double>("x", 0.5, 8e251, "d");
  EXPECT_TRUE(loose.passed);
  EXPECT_NE(loose.detail.find("inconclusive"), std::string::npos) << loose.detail;
  const CheckResult tight = make_check<double>("x", 0.5, 0.1, "d");
  EXPECT_FALSE(tight.passed);
  EXPECT_EQ(tight.detail, "d");
}

// Numerical degeneracy is data: a massless leaf body on a prismatic joint makes H singular; LᵀDL,
// LᵀL, mj_factorM and ABA report the failed pivot instead of dividing by zero.
TEST(Properties, SingularHIsReportedNotDividedBy) {
  const Model<double> m = build_model<double>(massless_prismatic_leaf());
  const VecX<double> q = VecX<double>::Constant(2, 0.3), z = VecX<double>::Zero(2);
  const MatX<double> H = crba<double>(m, q);
  const SparseFactor<double> f = ltdl<double>(H, m.dof_parent), g = ltl<double>(H, m.dof_parent);
  EXPECT_FALSE(f.ok);
  EXPECT_EQ(f.failed_at, 1);
  EXPECT_FALSE(g.ok);
  const MjLayout lay = mj_layout(m.dof_parent);
  // MuJoCo's rule (mj_factorI): the zero pivot of DoF 1 is clamped to mjMINVAL and the
  // factorization goes on: L10 = H10 / mjMINVAL, D0 = H00 - L10² mjMINVAL (table 6.3 with the
  // clamped pivot), so the numbers MuJoCo produces on a singular H are reproduced.
  const MjFactor<double> mf = mj_factorI<double>(lay, mj_pack<double>(lay, H));
  EXPECT_FALSE(mf.ok);
  EXPECT_EQ(mf.failed_at, 1);
  ASSERT_EQ(mf.clamped, std::vector<int>{1});
  const double minval = 1e-15;
  EXPECT_EQ(mf.qLD[lay.dof_Madr[1]], minval);
  const double L10 = H(1, 0) / minval;
  EXPECT_EQ(mf.qLD[lay.dof_Madr[1] + 1], L10);
  EXPECT_EQ(mf.qLD[lay.dof_Madr[0]], H(0, 0) - L10 * H(1, 0));
  EXPECT_EQ(mf.qLDiagInv[1], 1 / minval);
  const AbaResult<double> fd = aba<double>(m, q, z, z);
  EXPECT_FALSE(fd.ok);
  EXPECT_EQ(fd.failed_at, 1);
  EXPECT_FALSE(check_positive_definite<double>(H).passed);
}

// ---- Branch-induced sparsity of LᵀDL and LᵀL (RBDA §6.5, table 6.3) ------------------------------
//
// The sparse factorizations visit only ancestors: for each k, i runs over λ(k), λ(λ(k)), ... and
// j over i and its ancestors. Two properties make that a test of the algorithm rather than of
// its input (CRBA's H already holds exact zeros wherever neither DoF is an ancestor of the other):
//
//  (a) Same factor as the dense algorithm. dense_ltdl / dense_ltl below run the recurrences of
//      table 6.3 with i over every DoF below k and j over every DoF up to i (no λ). On CRBA's H
//      they must give bit for bit the sparse factor, and exact zeros at every non-ancestor entry:
//      that is the no-fill-in theorem of §6.5 (an update A_ij -= a A_kj of a non-ancestor pair
//      (i, j) always has a zero factor, a = A_ki / A_kk or A_kj: were i and j both ancestors of k,
//      j would be an ancestor of i, since the ancestors of k form a chain), observed on the dense
//      recurrence; and it shows that the sparse loops skip only operations that subtract zero.
//  (b) Never reads nor writes a non-ancestor entry. Put non-zero garbage into every non-ancestor
//      entry of the lower triangle and every entry above the diagonal of the input: the factor
//      (the diagonal and the ancestor entries) must be bit for bit the one of the clean input, and
//      every other entry of LD must still hold its garbage. A loop that strays off the ancestor
//      chain reads garbage (and the factor changes) or writes over it. The table 6.4 products and
//      solves on the factor of the garbage input (garbage still in LD) must give bit for bit the
//      clean results, and mj_factorI on the packed garbage input the clean factor.

// Dense LᵀDL and LᵀL: table 6.3's recurrences over all i < k and all j ≤ i.
template <class T>
MatX<T> dense_ltdl(MatX<T> A) {
  const int n = static_cast<int>(A.rows());
  for (int k = n - 1; k >= 0; --k)
    for (int i = k - 1; i >= 0; --i) {
      const T a = A(k, i) / A(k, k);
      for (int j = i; j >= 0; --j) A(i, j) -= a * A(k, j);
      A(k, i) = a;
    }
  return A;
}
template <class T>
MatX<T> dense_ltl(MatX<T> A) {
  using std::sqrt;
  const int n = static_cast<int>(A.rows());
  for (int k = n - 1; k >= 0; --k) {
    A(k, k) = sqrt(A(k, k));
    for (int i = k - 1; i >= 0; --i) A(k, i) /= A(k, k);
    for (int i = k - 1; i >= 0; --i)
      for (int j = i; j >= 0; --j) A(i, j) -= A(k, i) * A(k, j);
  }
  return A;
}

// anc(i, j): j == i or j is an ancestor of i in the DoF tree.
std::vector<std::vector<bool>> ancestor_table(const std::vector<int>& lambda) {
  const int n = static_cast<int>(lambda.size());
  std::vector<std::vector<bool>> anc(n, std::vector<bool>(n, false));
  for (int i = 0; i < n; ++i)
    for (int j = i; j >= 0; j = lambda[j]) anc[i][j] = true;
  return anc;
}

// Runs (a) and (b) on the H of one model; returns the first violation ("" when none) and counts
// the non-ancestor pairs i > j the case had (0 for a chain: nothing to fill in).
template <class T>
std::string factor_sparsity_violation(const Model<T>& m, const VecX<T>& q, std::uint64_t seed, int& non_ancestor_pairs) {
  const int n = m.nv;
  const std::vector<int>& lambda = m.dof_parent;
  const auto anc = ancestor_table(lambda);
  const MatX<T> H = crba<T>(m, q);
  auto at = [](const char* what, int i, int j) {
    return std::string(what) + " at (" + std::to_string(i) + ", " + std::to_string(j) + ")";
  };
  non_ancestor_pairs = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < i; ++j)
      if (!anc[i][j]) {
        ++non_ancestor_pairs;
        if (H(i, j) != T(0) || H(j, i) != T(0)) return at("precondition: CRBA's H is not zero at a non-ancestor pair", i, j);
      }

  // (a) sparse = dense, bit for bit, and the dense factor has exact zeros off the ancestor chains.
  const SparseFactor<T> fd = ltdl<T>(H, lambda), fl = ltl<T>(H, lambda);
  if (!fd.ok || !fl.ok) return "H is not positive-definite";
  const MatX<T> Dd = dense_ltdl<T>(H), Dl = dense_ltl<T>(H);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) {
      if (fd.LD(i, j) != Dd(i, j)) return at("ltdl differs from dense LᵀDL", i, j);
      if (fl.LD(i, j) != Dl(i, j)) return at("ltl differs from dense LᵀL", i, j);
      if (!anc[i][j] && (Dd(i, j) != T(0) || Dl(i, j) != T(0))) return at("dense factor fills in", i, j);
    }

  // (b) garbage off the ancestor chains and above the diagonal is neither read nor written.
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uni(1, 2);
  const double scale = static_cast<double>(T(H.cwiseAbs().maxCoeff()));
  MatX<T> G = H;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (j > i || !anc[i][j]) G(i, j) = T((rng() % 2 ? 1 : -1) * scale * uni(rng));
  const SparseFactor<T> gd = ltdl<T>(G, lambda), gl = ltl<T>(G, lambda);
  if (gd.ok != fd.ok || gl.ok != fl.ok || gd.min_pivot != fd.min_pivot || gl.min_pivot != fl.min_pivot)
    return "garbage input changed ok or min_pivot";
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const bool factor_entry = j <= i && anc[i][j];
      if (factor_entry && gd.LD(i, j) != fd.LD(i, j)) return at("ltdl read a non-ancestor entry: factor changed", i, j);
      if (factor_entry && gl.LD(i, j) != fl.LD(i, j)) return at("ltl read a non-ancestor entry: factor changed", i, j);
      if (!factor_entry && gd.LD(i, j) != G(i, j)) return at("ltdl wrote a non-ancestor entry", i, j);
      if (!factor_entry && gl.LD(i, j) != G(i, j)) return at("ltl wrote a non-ancestor entry", i, j);
    }
  VecX<T> b(n);
  for (int i = 0; i < n; ++i) b(i) = T(uni(rng));
  if (ltdl_solve<T>(gd, b) != ltdl_solve<T>(fd, b)) return "ltdl_solve read a non-ancestor entry";
  if (ltl_solve<T>(gl, b) != ltl_solve<T>(fl, b)) return "ltl_solve read a non-ancestor entry";
  if (mul_L<T>(gd, b) != mul_L<T>(fd, b) || mul_Lt<T>(gl, b) != mul_Lt<T>(fl, b)) return "mul_L / mul_Lt read a non-ancestor entry";
  const MjLayout lay = mj_layout(lambda);
  const MjFactor<T> mg = mj_factorI<T>(lay, mj_pack<T>(lay, G)), mh = mj_factorI<T>(lay, mj_pack<T>(lay, H));
  if (mg.qLD != mh.qLD || mg.qLDiagInv != mh.qLDiagInv) return "mj_factorI of the garbage input differs";
  return "";
}

template <class T>
void prop_factor_sparsity(const Case& c) {
  const Instance<T> in = make<T>(c);
  int pairs = 0;
  const std::string err = factor_sparsity_violation<T>(in.model, in.q, c.state_seed, pairs);
  RC_CLASSIFY(pairs > 0, "branched");
  if (!err.empty()) RC_FAIL(err);
}
RBD_PROPERTY(LtdlAndLtlVisitOnlyAncestorsAndEqualDenseFactor, prop_factor_sparsity)

// The same on fixed branched trees, so that the non-ancestor pairs the properties above rely on
// are certainly there: a binary tree of 1-DoF joints, and trees of multi-DoF joints (one DoF
// chain per joint) with a floating base.
TEST(Properties, LtdlAndLtlOnBranchedTreesVisitOnlyAncestors) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Case c;
    c.spec.nb = 15;
    c.spec.branching = seed <= 2 ? 2 : 3;
    c.spec.floating_base = seed % 2 == 0;
    if (seed == 1) c.spec.joints = {JointType::Revolute, JointType::Prismatic, JointType::Helical};
    c.model_seed = seed;
    c.state_seed = seed + 10;
    int pairs = 0;
    const Instance<double> d = make<double>(c);
    EXPECT_EQ(factor_sparsity_violation<double>(d.model, d.q, seed, pairs), "");
    EXPECT_GT(pairs, d.model.nv) << "the tree should be branched";
    const Instance<bin50> b = make<bin50>(c);
    EXPECT_EQ(factor_sparsity_violation<bin50>(b.model, b.q, seed, pairs), "");
  }
}

}  // namespace
}  // namespace rbd::test
