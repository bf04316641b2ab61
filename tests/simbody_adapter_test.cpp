// The real Simbody (Debian libsimbody 3.7) through the adapter: every bundled tree's golden fixture,
// every bundled closed-loop mechanism's golden fixture (Simbody's exact constraints, redundant
// ones included), and the proof that the velocity map is right (and that a wrong one is caught).
#include "checks/random_model.hpp"
#include "tests/test_paths.hpp"
#include "engines/simbody/simbody_adapter.hpp"
#include "reports/compare.hpp"
#include "tests/adapter_test_util.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <set>
#include <utility>

namespace rbd::test {
namespace {

// Runs Simbody on a golden fixture and scores it: the model echo matches, every compared quantity
// reaches the bar (ModelCase::min_digits for H, C, tau; that minus log10 κ(H) for qdd, tau_c and
// lambda), and the engine's own numbers pass compare's self-consistency checks.
void audit_golden(const ModelCase& c, bool loops) {
  const std::string file = golden_file(c.name);
  const Fixture f = read_fixture_file(file);
  ASSERT_EQ(!f.model.loop_joints.empty(), loops) << file;
  EngineOutput e;
  ASSERT_NO_FATAL_FAILURE(run_matching(*make_simbody_adapter(), f, file, &e));
  const Report r = compare_in_memory(f, file, e);
  const double kappa = max_condition_number(f);
  std::set<std::string> scored;
  for (const QuantityScore& q : r.quantities) {
    if (q.samples == 0) continue;
    scored.insert(q.quantity);
    std::printf("  simbody %-22s %-6s min %.1f digits (worst sample %s)\n", c.name, q.quantity.c_str(), q.min_digits,
                q.worst_sample.c_str());
    const bool conditioned = q.quantity == "qdd" || q.quantity == "tau_c" || q.quantity == "lambda";
    const double bar = c.min_digits - (conditioned ? std::log10(kappa) : 0.0);
    EXPECT_GE(q.min_digits, std::max(bar, 6.0)) << q.quantity << " on " << c.name;
    EXPECT_TRUE(q.passed) << q.quantity << " on " << c.name;
  }
  for (const char* q : {"H", "C", "tau", "qdd"}) EXPECT_TRUE(scored.count(q)) << q << " was not scored on " << c.name;
  if (loops) {
    EXPECT_TRUE(scored.count("tau_c")) << "tau_c was not scored on " << c.name;
  }
  for (const SampleCheck& ch : r.checks) EXPECT_TRUE(ch.result.passed) << ch.sample << ": " << ch.result.message();
}

class SimbodyOnBundledTree : public ::testing::TestWithParam<ModelCase> {};
TEST_P(SimbodyOnBundledTree, MatchesTheGoldenFixture) { audit_golden(GetParam(), false); }
// far_arm (the Panda 1 km out) loses digits in any engine that works in world coordinates.
INSTANTIATE_TEST_SUITE_P(Golden, SimbodyOnBundledTree, golden_tree_cases(13, 11, "all_joints"), model_case_name);

// The closed-loop mechanisms: Simbody's constrained q̈ and constraint forces against the
// reference. parallelogram, slider_crank, fig83_arm, six_bar, ladder4 and far_fourbar are planar
// mechanisms built spatially, so their constraint sets are redundant (rank K < n^c): Simbody must
// cope with that, and λ is not compared (not unique); delta3 and stewart_gough are properly
// constrained and λ, in rbdref's bases, is compared too.
class SimbodyOnBundledLoopModel : public ::testing::TestWithParam<ModelCase> {};
TEST_P(SimbodyOnBundledLoopModel, MatchesTheGoldenFixture) { audit_golden(GetParam(), true); }
INSTANTIATE_TEST_SUITE_P(Golden, SimbodyOnBundledLoopModel, golden_loop_cases(13, 10), model_case_name);

// λ is compared where unique: on the properly constrained delta robot every sample's λ is scored,
// so a wrong sign, frame or basis in the adapter's λ would fail the test above; here it is made
// sure that the comparison happened and that a λ of the opposite sign is caught.
TEST(SimbodyAdapter, LambdaIsComparedWhereUniqueAndASignErrorIsCaught) {
  const std::string file = golden_file("delta3");
  const Fixture f = read_fixture_file(file);
  EngineOutput e = make_simbody_adapter()->run(f, file);
  int compared = 0;
  for (size_t k = 0; k < f.samples.size(); ++k) {
    const Quantity* ref = f.samples[k].ref.find_loop("lambda");
    ASSERT_NE(ref, nullptr);
    ASSERT_TRUE(f.samples[k].ref.loops.lambda_unique);
    const std::vector<bin50> lam = values(e.samples[k].values.at("lambda"));
    EXPECT_GE(lre(ref->values, lam), 10) << f.samples[k].id;
    std::vector<bin50> flipped;
    for (const bin50& x : lam) flipped.push_back(-x);
    EXPECT_LT(lre(ref->values, flipped), 1) << f.samples[k].id << ": -λ must not match";
    ++compared;
  }
  EXPECT_EQ(compared, static_cast<int>(f.samples.size()));
}

// Every loop-joint type's Simbody constraint set, with λ compared in full (moments and forces):
// a free-floating body held to the world by one loop joint of the type (tilted axis, both joint
// frames rotated and off the body origin) has n^c = 6 - n_k independent constraints, so λ is
// unique. A constraint set that constrained the wrong directions, a moment taken about the wrong
// point or a frame mix-up would show in qdd, tau_c or lambda.
// Each type twice: the body as the successor (predecessor the base), and reversed (the base as the
// successor, which takes the other branch of ε and of the adapter's λ: the reaction on the body).
struct LoopTypeCase {
  JointType type;
  bool base_is_successor;
};
class SimbodyLoopJointType : public ::testing::TestWithParam<LoopTypeCase> {};
TEST_P(SimbodyLoopJointType, ConstrainedDynamicsAndLambdaMatch) {
  TreeSpec spec;
  spec.nb = 1;
  spec.floating_base = true;
  LoadedModel lm;
  lm.desc = random_tree(spec, 31);
  lm.desc.gravity = {Num::decimal("0.4"), Num::decimal("-1.1"), Num::decimal("-9.81")};
  LoopJointDesc L;
  L.name = "hold";
  L.joint.name = "hold";
  L.joint.type = GetParam().type;
  L.joint.axis = {Num::decimal("0.3"), Num::decimal("-0.5"), Num::decimal("0.8")};
  L.pred.body = -1;
  L.pred.origin.xyz = {Num::decimal("0.2"), Num::decimal("-0.1"), Num::decimal("1.0")};
  L.pred.origin.rpy = {Num::decimal("0.3"), Num::decimal("0.5"), Num::decimal("-0.2")};
  L.succ.body = 0;
  L.succ.origin.xyz = {Num::decimal("0.15"), Num::decimal("0.05"), Num::decimal("-0.3")};
  L.succ.origin.rpy = {Num::decimal("-0.4"), Num::decimal("0.1"), Num::decimal("0.7")};
  L.where = "loop_joints[0]";
  if (GetParam().base_is_successor) std::swap(L.pred, L.succ);
  lm.desc.loop_joints.push_back(L);
  lm.file = "free_body_held_by_one_loop_joint";
  lm.kind = "json";
  const Fixture f = make_fixture(lm, 4, 5, bin50p());
  const EngineOutput e = make_simbody_adapter()->run(f, lm.file);
  ASSERT_EQ(e.model_echo.value("status", ""), "match") << e.model_echo.dump(1);
  for (size_t k = 0; k < f.samples.size(); ++k) {
    const Sample& s = f.samples[k];
    ASSERT_TRUE(s.ref.loops.lambda_unique) << s.id;
    const EngineSample& es = e.samples[k];
    const double kq = std::log10(std::max(1.0, std::stod(s.condition_number)));
    EXPECT_GE(lre(s.ref.find("qdd")->values, values(es.values.at("qdd"))), 13 - kq) << s.id;
    EXPECT_GE(lre(s.ref.find_loop("tau_c")->values, values(es.values.at("tau_c"))), 13 - kq) << s.id;
    EXPECT_GE(lre(s.ref.find_loop("lambda")->values, values(es.values.at("lambda"))), 13 - kq) << s.id;
  }
}
void PrintTo(const LoopTypeCase& c, std::ostream* os) {
  *os << joint_type_name(c.type) << (c.base_is_successor ? " (base as successor)" : "");
}
INSTANTIATE_TEST_SUITE_P(
    EveryType, SimbodyLoopJointType,
    ::testing::Values(LoopTypeCase{JointType::Revolute, false}, LoopTypeCase{JointType::Prismatic, false},
                      LoopTypeCase{JointType::Cylindrical, false}, LoopTypeCase{JointType::Planar, false},
                      LoopTypeCase{JointType::Spherical, false}, LoopTypeCase{JointType::Fixed, false},
                      LoopTypeCase{JointType::Revolute, true}, LoopTypeCase{JointType::Prismatic, true},
                      LoopTypeCase{JointType::Cylindrical, true}, LoopTypeCase{JointType::Planar, true},
                      LoopTypeCase{JointType::Spherical, true}, LoopTypeCase{JointType::Fixed, true}),
    [](const ::testing::TestParamInfo<LoopTypeCase>& i) {
      return std::string(joint_type_name(i.param.type)) + (i.param.base_is_successor ? "_base_successor" : "");
    });

// The velocity map on a floating base whose joint frame is rotated and shifted, with ball and
// planar joints, at random orientations and non-zero velocities: converted values agree with
// rbdref to double precision. Simbody's raw numbers taken as canonical (no map) disagree, so this
// test fails if the map is wrong or missing.
TEST(SimbodyAdapter, VelocityMapIsRightAndNoMapIsCaught) {
  const Fixture f =
      turned_floating_tree(7, {JointType::Revolute, JointType::Prismatic, JointType::Spherical, JointType::Planar, JointType::Helical}, 7);
  const EngineOutput e = make_simbody_adapter()->run(f, "random_tree");
  ASSERT_EQ(e.model_echo.value("status", ""), "match") << e.model_echo.dump(1);
  int checked = 0;
  for (size_t k = 0; k < f.samples.size(); ++k) {
    const Sample& s = f.samples[k];
    if (s.kind != "random") continue;  // the identity orientation hides map errors
    ++checked;
    const EngineSample& es = e.samples[k];
    expect_tree_values_match(s, es);
    EXPECT_LT(lre(s.ref.find("C")->values, raw_values(es.raw.at("C"))), 3) << s.id << ": Simbody's raw C must not match";
    EXPECT_LT(lre(s.ref.find("qdd")->values, raw_values(es.raw.at("udot"))), 3) << s.id << ": raw u̇ must not match";
  }
  EXPECT_GE(checked, 2);
}

// Simbody has no helical loop constraint: such a model is unsupported, with the joint named.
TEST(SimbodyAdapter, HelicalLoopJointIsUnsupported) {
  LoadedModel lm = load_model(std::string(::rbd::test::kSourceDir) + "/fixtures/models/loops/parallelogram.json");
  ASSERT_FALSE(lm.desc.loop_joints.empty());
  lm.desc.loop_joints[0].joint.type = JointType::Helical;
  Fixture f;  // the decision reads the model only (a helical joint cannot close this loop anyway)
  f.model = lm.desc;
  const auto adapter = make_simbody_adapter();
  EXPECT_NE(adapter->unsupported(f).find("helical"), std::string::npos) << adapter->unsupported(f);
  EXPECT_THROW(adapter->run(f, "parallelogram"), EngineError);
}

}  // namespace
}  // namespace rbd::test
