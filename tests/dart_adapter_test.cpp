// The real DART (Debian libdart 6.12) through the adapter: H, C, τ and q̈ on the bundled trees'
// golden fixtures and on every joint type DART has (helical as its ScrewJoint, planar, ball, free);
// with frictionless contacts, DART's own ContactConstraint and boxed-LCP solver, which equal the
// rigid LCP at rest (up to its CFM) and follow DART's velocity-level model, predicted exactly, in
// motion (engines/dart/dart_adapter.hpp).
#include "engines/dart/dart_adapter.hpp"
#include "tests/test_paths.hpp"
#include "reports/compare.hpp"
#include "tests/adapter_test_util.hpp"

#include <gtest/gtest.h>

#include <boost/math/constants/constants.hpp>

#include <cstdio>
#include <map>
#include <utility>
#include <vector>

namespace rbd::test {
namespace {

Report run_dart(const Fixture& f, const std::string& file, EngineOutput* keep = nullptr) {
  return run_and_compare(*make_dart_adapter(), f, file, keep);
}

// Every tree quantity DART computes is scored at every sample and passes the usual tolerance.
void expect_tree_quantities_pass(const Fixture& f, const Report& r, const std::string& name) {
  std::map<std::string, int> scored;
  for (const QuantityScore& q : r.quantities) {
    scored[q.quantity] = q.samples;
    if (q.quantity == "H" || q.quantity == "C" || q.quantity == "tau" || q.quantity == "qdd") {
      std::printf("  dart %-22s %-4s min %.1f digits (worst sample %s)\n", name.c_str(), q.quantity.c_str(), q.min_digits,
                  q.worst_sample.c_str());
      EXPECT_TRUE(q.passed) << name << " " << q.quantity;
      EXPECT_GE(q.min_digits, 8.0) << name << " " << q.quantity;
    }
  }
  for (const char* q : {"H", "C", "tau", "qdd"})
    EXPECT_EQ(scored[q], static_cast<int>(f.samples.size())) << name << ": " << q << " not scored at every sample";
  // The tree checks pass; contact checks on DART's numbers may fail only as its declared model.
  for (const SampleCheck& c : r.checks)
    EXPECT_TRUE(c.result.passed || !c.convention.empty()) << name << " " << c.sample << ": " << c.result.message();
}

class DartOnBundledTree : public ::testing::TestWithParam<const char*> {};
TEST_P(DartOnBundledTree, TreeQuantitiesMatchTheGoldenFixture) {
  const std::string file = golden_file(GetParam());
  const Fixture f = read_fixture_file(file);
  const Report r = run_dart(f, file);
  expect_tree_quantities_pass(f, r, GetParam());
  EXPECT_TRUE(r.passed) << GetParam();
}
INSTANTIATE_TEST_SUITE_P(Golden, DartOnBundledTree, golden_trees());

// The bundled all-joints tree with its cylindrical joint (which DART lacks) made revolute: helical
// (DART's pitch per turn), planar, spherical and free joints, whose positions DART keeps in
// exponential coordinates.
LoadedModel for_dart(LoadedModel lm) {
  int changed = 0;
  for (BodyDesc& b : lm.desc.bodies)
    if (b.joint.type == JointType::Cylindrical) b.joint.type = JointType::Revolute, ++changed;
  EXPECT_EQ(changed, 1);
  return lm;
}
LoadedModel all_joints_for_dart(bool helical) {
  return for_dart(load_model(std::string(::rbd::test::kSourceDir) +
                             (helical ? "/fixtures/models/all_joints.json" : "/fixtures/models/all_joints_no_helical.json")));
}
TEST(DartAdapter, EveryJointTypeDartHas) {
  for (bool helical : {true, false}) {
    const Fixture f = make_fixture(all_joints_for_dart(helical), 8, 11, bin50p());
    const Report r = run_dart(f, "all_joints (cylindrical → revolute)");
    expect_tree_quantities_pass(f, r, helical ? "all_joints-cyl" : "all_joints_no_helical-cyl");
    EXPECT_TRUE(r.passed);
  }
}

// Planted: the helical pitch passed per radian (DART wants it per turn) fails the comparison; the
// pitch per turn passes.
TEST(DartAdapter, AWrongPitchConventionWouldBeCaught) {
  LoadedModel lm = all_joints_for_dart(true);
  const Fixture f = make_fixture(lm, 4, 3, bin50p());
  const EngineOutput good = make_dart_adapter()->run(f, "all_joints");
  // Scale the helical pitch in the fixture's model by 2π: the adapter then gives DART 2π times the
  // pitch the fixture's values were computed with, as if it had forgotten DART's per-turn unit.
  Fixture wrong = f;
  for (BodyDesc& b : wrong.model.bodies)
    if (b.joint.type == JointType::Helical)
      b.joint.pitch = Num::decimal(to_decimal(bin50(b.joint.pitch.as<bin50>() * bin50(2) * boost::math::constants::pi<bin50>()), 40));
  const EngineOutput bad = make_dart_adapter()->run(wrong, "all_joints (pitch × 2π)");
  EXPECT_FALSE(compare_in_memory(f, "all_joints", bad, "(planted)").passed);
  EXPECT_TRUE(compare_in_memory(f, "all_joints", good, "(good)").passed);
}

TEST(DartAdapter, UnsupportedPartsAreNamed) { expect_joints_and_loops_refused(*make_dart_adapter(), "cylindrical"); }

// At the "at_rest" sample (q̇ = 0) DART's step is the rigid LCP but for its CFM (1e-5 on M's
// diagonal): its λ is within ~CFM of the reference's there, and within its own model's exact
// values everywhere; every departure from the rigid reference is reported as DART's declared
// contact model, none as numbers, and a planted error in its numbers is not excused.
void expect_its_own_model_everywhere(const Fixture& f, const ContactCase& c) {
  ASSERT_EQ(f.samples[2].kind, "at_rest");
  EngineOutput e;
  const Report r = run_dart(f, c.name, &e);
  expect_tree_quantities_pass(f, r, c.name);
  int explained = 0, model_scored = 0;
  for (const SampleScore& s : r.samples) {
    if (s.quantity.rfind("contact_", 0) != 0 && s.quantity.rfind("impact_", 0) != 0) continue;
    if (!s.passed) {
      ++explained;
      EXPECT_FALSE(s.convention.empty()) << c.name << " " << s.sample << " " << s.quantity << ": DART departs from its own model";
    }
    if (s.model_digits > 0) {
      ++model_scored;
      EXPECT_GE(s.model_digits, 9.0) << c.name << " " << s.sample << " " << s.quantity;
    }
    // At rest the rigid problem and DART's differ by the CFM alone: 4+ digits.
    if (s.sample == "s002") {
      EXPECT_GE(s.digits, 4.0) << c.name << " at rest: " << s.quantity;
    }
  }
  EXPECT_GT(explained, 0) << c.name << ": no sample departs from the rigid LCP (DART's model has no Ṫᵀq̇ and a CFM)";
  // An impact.* check is excused for having no rigid answer only where the reference's impulsive
  // LCP indeed has none (the rod jammed between its planes).
  expect_no_rigid_impact_only_where_none_exists(f, r, c.name);
  for (const QuantityScore& q : r.quantities) EXPECT_TRUE(q.passed || !q.convention.empty()) << c.name << ": " << q.quantity;
  EXPECT_TRUE(r.passed) << c.name;
  std::printf("  dart %-10s contact scores outside the rigid tolerance: %d, each DART's model\n", c.name, explained);

  // Planted: DART's q̈ and τ_c scaled by 1 + 1e-6 are numbers, not the model.
  expect_planted_error_is_numbers(f, c.name, e, {"contact_qdd", "contact_tau_c"});
}
class DartWithContacts : public ::testing::TestWithParam<ContactCase> {};
TEST_P(DartWithContacts, ItsOwnModelEverywhere) {
  const ContactCase& c = GetParam();
  expect_its_own_model_everywhere(contact_case_fixture(c), c);
}

// Contacts on bodies moved by every DART joint type (the all-joints tree, its cylindrical joint made
// revolute): a free base, a screw, a planar sled and a ball link against the world. DART's free
// step is q̇ + h q̈ on all but the FreeJoint (whose g the model carries).
TEST(DartAdapter, ContactsOnEveryJointType) {
  const LoadedModel lm = for_dart(load_with_contacts("fixtures/models/all_joints.json",
      R"([{"name": "base_floor", "body": "base", "point": ["0.1", "0.1", "-0.1"], "normal": [0, 0, 1]},
          {"name": "nut_wall", "body": "screw_nut", "point": [0, 0, "0.05"], "normal": [1, 0, "0.3"], "restitution": "0.5"},
          {"name": "sled_floor", "body": "sled", "point": ["0.05", 0, 0], "normal": [0, "0.2", 1]},
          {"name": "ball_wall", "body": "ball_link", "point": [0, "0.1", "0.2"], "normal": [0, 1, 0]}])", false));
  expect_its_own_model_everywhere(make_fixture(lm, 6, 9, bin50p()), ContactCase{"all_joints", "all_joints.json", "", false});
}

INSTANTIATE_TEST_SUITE_P(Contacts, DartWithContacts, bundled_contact_cases(), contact_case_name);

TEST(DartAdapter, FrictionAndSoftContactsAreUnsupported) {
  EXPECT_NE(make_dart_adapter()->unsupported(friction_box_fixture()).find("friction"), std::string::npos);
}

}  // namespace
}  // namespace rbd::test

#ifdef RBDREF_HAVE_DART_URDF
namespace rbd::test {
namespace {

// DART's own URDF loader ("dart-urdf"). The double pendulum, the arm and the free box (a FLOATING
// root) load as rbdref reads them and keep their digits. The Panda does not: DART gives every link
// without an <inertial> its default Inertia (1 kg, unit moments) where the URDF means massless, so
// panda_link7, which carries the two frames welded below it (panda_link8, panda_hand_tcp), weighs
// 2 kg more in DART (the echo's composite of the node and its welded children), and every quantity
// is wrong in its leading digits: an import difference, which the echo names.
TEST(DartUrdf, LoadsTheUrdfAndItsEchoFindsTheDefaultMassOfBareLinks) {
  const auto a = make_dart_urdf_adapter();
  const std::string models = std::string(::rbd::test::kSourceDir) + "/fixtures/models/";
  for (const auto& [name, urdf] : std::vector<std::pair<std::string, std::string>>{
           {"double_pendulum", "double_pendulum.urdf"}, {"arm7", "arm7.urdf"}, {"box_contacts", "contacts/box.urdf"}}) {
    const Fixture f = read_fixture_file(golden_file(name));
    ASSERT_EQ(a->unsupported(f), "") << name;
    const EngineOutput e = a->run_source(f, name, models + urdf);
    EXPECT_EQ(e.model_echo.value("status", ""), "match") << name << e.model_echo.dump(1);
    const Report r = compare_in_memory(f, name, e);
    for (const QuantityScore& q : r.quantities)
      if (q.samples > 0 && q.quantity.rfind("contact", 0) != 0 && q.quantity.rfind("impact", 0) != 0)
        EXPECT_TRUE(q.passed) << name << " " << q.quantity << " " << q.min_digits;
  }
  const Fixture f = read_fixture_file(golden_file("panda"));
  EXPECT_THROW(a->run(f, "panda"), EngineError);
  const EngineOutput e = a->run_source(f, "panda", models + "panda.urdf");
  ASSERT_EQ(e.model_echo.value("status", ""), "differs");
  bool seen = false;
  for (const json& b : e.model_echo["bodies"]) {
    const double dm = b["mass"]["engine"].get<double>() - std::stod(b["mass"]["rbdref"].get<std::string>());
    if (b["body"] == "panda_link7") {
      seen = true;
      EXPECT_NEAR(dm, 2.0, 1e-12);  // two bare links × DART's default 1 kg
    } else {
      EXPECT_NEAR(dm, 0.0, 1e-12) << b.dump();
    }
  }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace rbd::test
#endif
