// Properties of the dynamics algorithms on random trees (checks/random_model.hpp: every joint
// type, branching, floating and fixed bases, physically valid inertias), each checked at double
// and at 50 digits through the property checkers of checks/properties.hpp. A failure prints the
// residual, the tolerance and RapidCheck's reproduce string.
//
// Case counts: every property, at double (suite Properties) and at bin50 (suite PropertiesSlow),
// runs RapidCheck's default of 100 cases from the same generator; RC_PARAMS="max_success=N"
// changes the count for all of them.
#include "checks/properties.hpp"
#include "checks/random_model.hpp"
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
        Case c;
        c.spec.nb = nb;
        c.spec.branching = bf10 / 10.0;
        c.spec.floating_base = floating;
        c.model_seed = ms;
        c.state_seed = ss;
        return c;
      },
      rc::gen::inRange(1, 13), rc::gen::inRange(10, 31), rc::gen::arbitrary<bool>(), rc::gen::arbitrary<std::uint64_t>(),
      rc::gen::arbitrary<std::uint64_t>());
}

template <class T>
struct Instance {
  Model<T> model;
  VecX<T> q, qd, qdd, tau;
};

template <class T>
Instance<T> make(const Case& c) {
  const ModelDesc d = random_tree(c.spec, c.model_seed);
  Instance<T> in;
  in.model = build_model<T>(d);
  const RandomState s = random_state(build_model<double>(d), c.state_seed);
  auto v = [](const std::vector<double>& x) {
    VecX<T> y(static_cast<Eigen::Index>(x.size()));
    for (size_t k = 0; k < x.size(); ++k) y(static_cast<Eigen::Index>(k)) = T(x[k]);  // exact
    return y;
  };
  in.q = v(s.q);
  in.qd = v(s.qd);
  in.qdd = v(s.qdd);
  in.tau = v(s.tau);
  return in;
}

void require(const CheckResult& r) {
  if (!r.passed) RC_FAIL(r.message());
}

// Each property at one scalar; the TEST names below say which identity.
template <class T>
void prop_H_symmetric_positive_definite(const Case& c) {
  const Instance<T> in = make<T>(c);
  if (in.model.nv == 0) return;
  const MatX<T> H = crba<T>(in.model, in.q);
  require(check_symmetric<T>(H, default_k(in.model.nv)));
  require(check_positive_definite<T>(H));
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

// Numerical degeneracy is data: a massless leaf body on a prismatic joint makes H singular; LᵀDL,
// LᵀL, mj_factorM and ABA report the failed pivot instead of dividing by zero.
TEST(Properties, SingularHIsReportedNotDividedBy) {
  ModelDesc d;
  BodyDesc a;
  a.name = "a";
  a.where = "bodies[0]";
  a.joint.type = JointType::Revolute;
  a.inertial.mass = Num::exact(1);
  a.inertial.I = {Num::exact(0.1), Num::exact(0.1), Num::exact(0.1), Num::exact(0), Num::exact(0), Num::exact(0)};
  BodyDesc b = a;
  b.name = "b";
  b.where = "bodies[1]";
  b.parent = 0;
  b.joint.type = JointType::Prismatic;
  b.inertial = InertialDesc();  // massless
  d.bodies = {a, b};
  const Model<double> m = build_model<double>(d);
  const VecX<double> q = VecX<double>::Constant(2, 0.3), z = VecX<double>::Zero(2);
  const MatX<double> H = crba<double>(m, q);
  const SparseFactor<double> f = ltdl<double>(H, m.dof_parent), g = ltl<double>(H, m.dof_parent);
  EXPECT_FALSE(f.ok);
  EXPECT_EQ(f.failed_at, 1);
  EXPECT_FALSE(g.ok);
  const MjLayout lay = mj_layout(m.dof_parent);
  EXPECT_FALSE(mj_factorI<double>(lay, mj_pack<double>(lay, H)).ok);
  const AbaResult<double> fd = aba<double>(m, q, z, z);
  EXPECT_FALSE(fd.ok);
  EXPECT_EQ(fd.failed_at, 1);
  EXPECT_FALSE(check_positive_definite<double>(H).passed);
}

// Branch-induced sparsity (RBDA §6.5): L has non-zeros only where H has (a DoF and its
// ancestors), i.e. the factorization fills nothing in.
TEST(Properties, LtdlHasNoFillIn) {
  TreeSpec spec;
  spec.nb = 15;
  spec.branching = 2;
  const Model<double> m = build_model<double>(random_tree(spec, 3));
  const RandomState s = random_state(m, 4);
  const VecX<double> q = Eigen::Map<const VecX<double>>(s.q.data(), m.nq);
  const MatX<double> H = crba<double>(m, q);
  const SparseFactor<double> f = ltdl<double>(H, m.dof_parent);
  const MatX<double> L = f.L();
  for (int i = 0; i < m.nv; ++i)
    for (int j = 0; j < i; ++j) {
      bool ancestor = false;
      for (int k = m.dof_parent[i]; k >= 0; k = m.dof_parent[k]) ancestor = ancestor || k == j;
      if (!ancestor) {
        EXPECT_EQ(H(i, j), 0.0) << i << "," << j;
        EXPECT_EQ(L(i, j), 0.0) << i << "," << j;
      }
    }
}

}  // namespace
}  // namespace rbd::test
