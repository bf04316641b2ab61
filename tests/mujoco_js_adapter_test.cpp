// MuJoCo 3 (npm mujoco-js, the official WebAssembly build, under Node.js) through its adapter: on
// every bundled tree's golden fixture within tolerance with the model echo matching; the factor
// read from MuJoCo 3's compressed rows; side by side with MuJoCo 2.2.2 on the same states; loop
// models refused with the loop joint named.
#include "engines/mujoco_js/mujoco_js_adapter.hpp"
#include "tests/test_paths.hpp"
#include "reports/compare.hpp"
#include "tests/adapter_test_util.hpp"
#ifdef RBDREF_HAVE_MUJOCO
#include "engines/mujoco/mujoco_adapter.hpp"
#endif

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace rbd::test {
namespace {

class MujocoJsOnBundledTree : public ::testing::TestWithParam<const char*> {};

// Within tolerance (far_arm excepted: MuJoCo 3 loses H's digits 1 km from the origin as 2.2.2
// does, 12.4 digits, a known discrepancy of fixtures/baseline.json), the echo matching, L and D
// compared on the models without a free joint.
TEST_P(MujocoJsOnBundledTree, MatchesTheGoldenFixture) {
  const std::string file = golden_file(GetParam());
  const Fixture f = read_fixture_file(file);
  const auto a = make_mujoco_js_adapter();
  EngineOutput e;
  ASSERT_NO_FATAL_FAILURE(run_matching(*a, f, file, &e));
  EXPECT_NE(a->version().find("3."), std::string::npos) << a->version();
  const Report r = compare_in_memory(f, file, e);
  bool free_joint = false;
  for (const BodyDesc& b : f.model.bodies) free_joint = free_joint || b.joint.type == JointType::Free;
  std::set<std::string> scored;
  for (const QuantityScore& q : r.quantities) {
    if (q.samples == 0) continue;
    scored.insert(q.quantity);
    if (std::string(GetParam()) == "far_arm" && q.quantity == "H") {
      EXPECT_GT(q.min_digits, 12.0);
      continue;
    }
    EXPECT_TRUE(q.passed) << q.quantity << " " << q.min_digits << " digits, worst " << q.worst_sample;
  }
  for (const char* q : {"H", "C", "tau", "qdd"}) EXPECT_TRUE(scored.count(q)) << q;
  EXPECT_EQ(scored.count("L") + scored.count("D"), free_joint ? 0u : 2u);
  for (const SampleCheck& c : r.checks) EXPECT_TRUE(c.result.passed) << c.sample << " " << c.result.name << " " << c.result.message();
}

INSTANTIATE_TEST_SUITE_P(Bundled, MujocoJsOnBundledTree,
                         ::testing::Values("double_pendulum", "panda", "arm7", "humanoid", "all_joints_no_helical", "tiny_inertia",
                                           "far_arm", "pendulum_contacts"));

TEST(MujocoJs, RefusesLoopModelsNamingTheJoint) {
  const Fixture f = read_fixture_file(golden_file("parallelogram"));
  const std::string why = make_mujoco_js_adapter()->unsupported(f);
  EXPECT_NE(why.find("loop joint 'closure'"), std::string::npos) << why;
  EXPECT_THROW(make_mujoco_js_adapter()->run(f, "x"), EngineError);
}

#ifdef RBDREF_HAVE_MUJOCO
// The two MuJoCo versions on the same states agree with each other entry by entry to 13 digits of
// the quantity's size (H, C, tau), 13 − log10 κ₂(H) digits for what a solve with H yields (qdd)
// and 13 − log10 κ^½ for the factor: an independent check of the adapter's inputs, DoF map and
// factor layout (each version's own: 2.2.2's dof_Madr chains, 3's compressed rows).
TEST(MujocoJs, AgreesWithMujoco222OnTheSameStates) {
  for (const char* model : {"humanoid", "panda"}) {
    const std::string file = golden_file(model);
    const Fixture f = read_fixture_file(file);
    const EngineOutput a = make_mujoco_js_adapter()->run(f, file), b = make_mujoco_adapter()->run(f, file);
    ASSERT_EQ(a.samples.size(), b.samples.size());
    for (size_t s = 0; s < a.samples.size(); ++s)
      for (const auto& [q, va] : a.samples[s].values) {
        const auto it = b.samples[s].values.find(q);
        ASSERT_NE(it, b.samples[s].values.end()) << q;
        ASSERT_EQ(va.v.size(), it->second.v.size());
        double err = 0, scale = 0;
        for (size_t k = 0; k < va.v.size(); ++k) {
          const double x = va.v[k].as<double>(), y = it->second.v[k].as<double>();
          err = std::max(err, std::fabs(x - y));
          scale = std::max(scale, std::fabs(y));
        }
        const double kappa = std::stod(f.samples[s].condition_number);
        const double amp = q == "qdd" ? kappa : q == "L" || q == "D" ? std::sqrt(kappa) : 1.0;
        EXPECT_LE(err, 1e-13 * amp * std::max(scale, 1.0)) << model << " " << a.samples[s].id << " " << q << " κ " << kappa;
      }
  }
}
#endif

// MuJoCo 3's own URDF import ("mujoco-js-urdf"). The double pendulum loads as written. The Panda
// does not, and not only by the full-inertia diagonalization 2.2.2 shares (mujoco-urdf): MuJoCo
// 3.3.8 fuses the hand into panda_link7 through the bare link panda_link8 and loses that fixed
// joint's offset (0 0 0.107): panda_link7's fused COM lands low by the hand's share of the mass
// times 0.107 m, 0.73 / 1.465522 × 0.107 (the URDF's numbers), while the masses agree. MuJoCo
// 2.2.2's URDF import and rbdref place it right (their echo: 1e-17 m).
TEST(MujocoJsUrdf, LosesTheOffsetOfAFixedJointBehindABareLink) {
  const auto a = make_mujoco_js_urdf_adapter();
  ASSERT_NO_FATAL_FAILURE(expect_urdf_import_matches(*a));
  const std::string file = golden_file("panda");
  const EngineOutput e = a->run_source(read_fixture_file(file), file, std::string(::rbd::test::kSourceDir) + "/fixtures/models/panda.urdf");
  ASSERT_EQ(e.model_echo.value("status", ""), "differs");
  bool seen = false;
  for (const json& b : e.model_echo["bodies"]) {
    EXPECT_LE(b["mass"]["rel_err"].get<double>(), 1e-15) << b.dump();
    if (b["body"] != "panda_link7") continue;
    seen = true;
    EXPECT_NEAR(b["com_abs_err_m"].get<double>(), 0.73 / 1.465522 * 0.107, 1e-9) << b.dump();
  }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace rbd::test
