// The real MuJoCo (Debian libmujoco 2.2.2) through the adapter, on every bundled model's golden
// fixture, and the proof that the free-joint map is right (and that a wrong one is caught).
#include "checks/random_model.hpp"
#include "tests/test_paths.hpp"
#include "engines/mujoco/mujoco_adapter.hpp"
#include "engines/values.hpp"
#include "reports/compare.hpp"
#include "tests/adapter_test_util.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>

namespace rbd::test {
namespace {

const std::string kData = std::string(::rbd::test::kSourceDir) + "/fixtures";

// ModelCase::min_digits: H, C, tau at least this; qdd, L and D at least this minus log10 κ(H).
class MujocoOnBundledModel : public ::testing::TestWithParam<ModelCase> {};

// Every quantity of every sample against the golden reference. The minimum digits are what a
// double engine that computes the right thing must reach; far_arm's bar is lower by design: the
// model sits 1 km from the origin, where world-frame arithmetic loses about 3 digits (measured
// 12.4, recorded below), which the audit reports as a numerical discrepancy.
TEST_P(MujocoOnBundledModel, MatchesTheGoldenFixture) {
  const std::string file = golden_file(GetParam().name);
  const Fixture f = read_fixture_file(file);
  EngineOutput e;
  ASSERT_NO_FATAL_FAILURE(run_matching(*make_mujoco_adapter(), f, file, &e));
  const Report r = compare_in_memory(f, file, e);
  for (const QuantityScore& q : r.quantities) {
    if (q.samples == 0) continue;
    RecordProperty(q.quantity + "_min_digits", std::to_string(q.min_digits));
    std::printf("  mujoco %-22s %-4s min %.1f digits (worst sample %s)\n", GetParam().name, q.quantity.c_str(),
                q.min_digits, q.worst_sample.c_str());
    // qdd and the factor lose up to log10 κ(H) digits in any correct double engine.
    const double kappa = max_condition_number(f);
    const bool conditioned = q.quantity == "qdd" || q.quantity == "L" || q.quantity == "D";
    const double bar = GetParam().min_digits - (conditioned ? std::log10(kappa) : 0.0);
    EXPECT_GE(q.min_digits, std::max(bar, 6.0)) << q.quantity << " on " << GetParam().name;
  }
  // The engine's own numbers are self-consistent (symmetric PD H, its FD and ID agree).
  for (const SampleCheck& c : r.checks) EXPECT_TRUE(c.result.passed) << c.sample << ": " << c.result.message();
}

INSTANTIATE_TEST_SUITE_P(Golden, MujocoOnBundledModel, golden_tree_cases(13, 11, "all_joints_no_helical"), model_case_name);

// A model with a helical joint is reported as unsupported, not run.
TEST(MujocoAdapter, HelicalJointIsUnsupported) {
  const Fixture f = read_fixture_file(golden_file("all_joints"));
  const auto adapter = make_mujoco_adapter();
  EXPECT_NE(adapter->unsupported(f).find("helical"), std::string::npos);
  EXPECT_THROW(adapter->run(f, "all_joints"), EngineError);
}

// Loop joints that slide have no MuJoCo equality constraint (connect and weld hold points and
// frames): such a model is unsupported, with the joint named, not run as an open tree.
TEST(MujocoAdapter, SlidingLoopJointIsUnsupported) {
  LoadedModel lm = load_model(kData + "/models/loops/slider_crank.json");
  ASSERT_FALSE(lm.desc.loop_joints.empty());
  lm.desc.loop_joints[0].joint.type = JointType::Prismatic;
  Fixture f;  // the decision reads the model only
  f.model = lm.desc;
  const auto adapter = make_mujoco_adapter();
  EXPECT_NE(adapter->unsupported(f).find("(prismatic)"), std::string::npos) << adapter->unsupported(f);
  EXPECT_THROW(adapter->run(f, "slider_crank"), EngineError);
}

// The bundled closed-loop mechanisms through MuJoCo's equality constraints. The tree quantities (H,
// C, tau) are judged as on any tree. The constrained ones are MuJoCo's soft-constraint model, which
// the output declares: they are reported with their digits and the measured constraint violation
// max|K q̈ - k| / scale as a convention, not a defect; MuJoCo's own τ_c must still be a constraint
// force (Gᵀτ_c = 0) that balances its own q̈ (H q̈ + C = τ + τ_c), and without the declaration the
// same numbers fail, so the declaration is what makes the difference, not a loose tolerance.
class MujocoOnBundledLoopModel : public ::testing::TestWithParam<ModelCase> {};
TEST_P(MujocoOnBundledLoopModel, SoftConstraintsAreAConventionWithTheViolationMeasured) {
  const std::string file = golden_file(GetParam().name);
  const Fixture f = read_fixture_file(file);
  ASSERT_FALSE(f.model.loop_joints.empty());
  EngineOutput e;
  ASSERT_NO_FATAL_FAILURE(run_matching(*make_mujoco_adapter(), f, file, &e));
  const Report r = compare_in_memory(f, file, e);
  EXPECT_TRUE(r.passed);
  EXPECT_FALSE(r.soft_constraints.empty());
  std::printf("  mujoco %-16s constraint violation %.2e\n", GetParam().name, r.constraint_violation);
  EXPECT_GT(r.constraint_violation, 1e-9) << "soft constraints are measurably soft";
  // But they are constraints: over the samples, MuJoCo's q̈ is nearer the constrained reference
  // than the open tree's (which it would report with the equality constraints lost).
  double to_ref = 0, to_open = 0;
  for (size_t k = 0; k < f.samples.size(); ++k) {
    const std::vector<bin50> x = values(e.samples[k].values.at("qdd"));
    to_ref += std::pow(10.0, -lre(f.samples[k].ref.find("qdd")->values, x));
    to_open += std::pow(10.0, -lre(f.samples[k].ref.find("qdd_open_tree")->values, x));
  }
  EXPECT_LT(to_ref, to_open) << "MuJoCo's q̈ should follow the constraints";
  for (const QuantityScore& q : r.quantities) {
    if (q.samples == 0) continue;
    std::printf("  mujoco %-16s %-6s min %.1f digits%s\n", GetParam().name, q.quantity.c_str(), q.min_digits,
                q.convention.empty() ? "" : " (convention: soft constraints)");
    if (q.quantity == "H" || q.quantity == "C" || q.quantity == "tau") {
      EXPECT_TRUE(q.passed) << q.quantity;
      EXPECT_GE(q.min_digits, GetParam().min_digits) << q.quantity;
    } else {
      EXPECT_TRUE(q.passed || !q.convention.empty()) << q.quantity;
    }
  }
  int own_balance = 0;
  for (const SampleCheck& c : r.checks) {
    if (c.result.name == "loops.equation_of_motion" || c.result.name == "loops.constraint_forces_do_no_work" ||
        c.result.name == "loops.equation_of_motion_projected") {
      EXPECT_TRUE(c.result.passed) << c.sample << ": " << c.result.message();
      ++own_balance;
    }
    if (!c.result.passed) {
      EXPECT_EQ(c.result.name, "loops.K_qdd_equals_k") << "only the softness may fail";
    }
  }
  EXPECT_EQ(own_balance, 3 * static_cast<int>(f.samples.size()));
  e.conventions.erase("soft_loop_constraints");
  EXPECT_FALSE(compare_in_memory(f, file, e).passed) << "undeclared, the softness is a failure";
}
INSTANTIATE_TEST_SUITE_P(Golden, MujocoOnBundledLoopModel, golden_loop_cases(13, 11), model_case_name);

// The free-joint map on a floating base whose joint frame is itself rotated and shifted (Xtree ≠ 1,
// so the world pose composes two transforms), at random non-identity orientations with non-zero
// base velocities: converted values agree with rbdref to double precision. The same raw MuJoCo
// numbers pushed through wrong maps (no map; J without the J̇v term) disagree, so this test
// fails if the map is wrong.
TEST(MujocoAdapter, FreeJointMapIsRightAndAWrongMapIsCaught) {
  const Fixture f = turned_floating_tree(6, {JointType::Revolute, JointType::Prismatic, JointType::Spherical}, 42);
  const EngineOutput e = make_mujoco_adapter()->run(f, "random_tree");
  ASSERT_EQ(e.model_echo.value("status", ""), "match") << e.model_echo.dump(1);
  int checked = 0;
  for (size_t k = 0; k < f.samples.size(); ++k) {
    const Sample& s = f.samples[k];
    if (s.kind != "random") continue;  // identity orientation hides map bugs: only random samples
    ++checked;
    ASSERT_LT(std::fabs(s.q[0]), 0.999) << "orientation must not be the identity";
    const EngineSample& es = e.samples[k];
    const int nv = static_cast<int>(f.dofs.size());
    // Right map.
    expect_tree_values_match(s, es);
    // No map at all: MuJoCo's raw H and bias taken as canonical.
    const std::vector<bin50> rawH = raw_values(es.raw.at("H")), rawC = raw_values(es.raw.at("qfrc_bias"));
    EXPECT_LT(lre(s.ref.find("H")->values, rawH), 3) << s.id << ": the raw H should not match (the map matters)";
    // J without J̇v: C = Jᵀ C'.
    // MuJoCo's DoF address of each rbdref joint, as the adapter found it (the random tree is in
    // breadth-first order, MuJoCo's is depth-first: the map includes a permutation).
    const std::vector<int> mj_dof = e.conventions.at("mujoco_dof_of_joint").get<std::vector<int>>();
    const MujocoMap map = mujoco_map(build_model<bin50>(f.model), mj_dof, s.q, s.qd);
    ASSERT_FALSE(map.identity);
    VecX<bin50> Cp(nv);
    for (int i = 0; i < nv; ++i) Cp(i) = rawC[i];
    const VecX<bin50> C_wrong = map.J.transpose() * Cp;
    EXPECT_LT(lre(s.ref.find("C")->values, std::vector<bin50>(C_wrong.data(), C_wrong.data() + nv)), 6)
        << s.id << ": dropping J̇v must show in C";
  }
  EXPECT_GE(checked, 2);
}

// The MJCF the adapter writes is loadable and carries no compiler default that would change the
// model (the echo above verifies the numbers; this checks the settings are there).
TEST(MujocoAdapter, MjcfDisablesEveryModelChangingCompilerStep) {
  const LoadedModel lm = load_model(kData + "/models/panda.urdf");
  const std::string x = mujoco_mjcf(lm.desc);
  for (const char* s : {"angle=\"radian\"", "inertiafromgeom=\"false\"", "balanceinertia=\"false\"", "boundmass=\"0\"",
                        "boundinertia=\"0\"", "fusestatic=\"false\"", "constraint=\"disable\"", "passive=\"disable\""})
    EXPECT_NE(x.find(s), std::string::npos) << s;
}

// Contacts (RBDA ch. 11): MuJoCo's soft contact model on the bundled contact fixtures. MuJoCo
// departs from the rigid LCP wherever a contact carries force (its regularization R, its reference
// acceleration aref, no J̇q̇), and matches its own model, LCP(A + R, J a0 - aref) solved by rbdref
// at bin50, to near double precision at every sample: every departure is the declared model, none
// is numbers. A planted error in MuJoCo's q̈ (1e-6 relative) is not excused.
TEST(MujocoContacts, EveryDepartureIsItsSoftModelAndAPlantedErrorIsNot) {
  for (const char* name : {"box_contacts", "pendulum_contacts"}) {
    const std::string file = golden_file(name);
    const Fixture f = read_fixture_file(file);
    const auto adapter = make_mujoco_adapter();
    ASSERT_EQ(adapter->unsupported(f), "");
    EngineOutput e = adapter->run(f, file);
    ASSERT_TRUE(e.conventions.contains("contact_model")) << name;
    const Report r = compare_in_memory(f, file, e);
    int departures = 0, scored = 0;
    for (const SampleScore& sc : r.samples) {
      if (sc.quantity.rfind("contact_", 0) != 0) continue;
      ++scored;
      if (sc.passed) continue;
      ++departures;
      EXPECT_FALSE(sc.convention.empty()) << name << " " << sc.sample << " " << sc.quantity;
      EXPECT_GE(sc.model_digits, 12.0) << name << " " << sc.sample << " " << sc.quantity;
    }
    EXPECT_GT(scored, 8) << name;
    // (The rigid reference is posed where every rigid contact is in case 3 of §11.4: at rest and
    // sliding along the contacts; there MuJoCo's soft contacts, pulled toward aref, depart from it.)
    EXPECT_GT(departures, 1) << name << ": MuJoCo's soft contacts should depart from the rigid LCP";
    EXPECT_TRUE(r.passed) << name;
    std::printf("  mujoco %-18s %d of %d contact scores are MuJoCo's soft model, none its numbers\n", name, departures, scored);

    EXPECT_FALSE(planted_error_report(f, file, e, {"contact_qdd"}).passed) << name;
  }
}

// The departure as a function of solref/solimp (raw.contact_model_sweep). At every setting MuJoCo
// matches its own model solved exactly: its numbers are sound whatever the parameters. Its
// departure from the rigid LCP is two terms of the model, and the sweep tells them apart:
//   * where Tᵀq̇ = 0 (the "in_contact" sample) only the regularization R = (1 − d)/d · diagApprox(A)
//     acts: stiffer contacts (dmin 0.999, timeconst 0.004) are closer to the rigid q̈ by a digit
//     or more than the defaults;
//   * where the contacts move (ζ ≠ 0) the reference acceleration aref = −b ζ, b = 2/(dmax ·
//     timeconst), dominates: a shorter timeconst moves MuJoCo FURTHER from the rigid q̈, at least
//     at one sample. Stiffer is not "more rigid" there: it is a stronger velocity stabilization.
TEST(MujocoContacts, DepartureAsAFunctionOfSolrefSolimp) {
  const std::string file = golden_file("box_contacts");
  const Fixture f = read_fixture_file(file);
  const EngineOutput e = make_mujoco_adapter()->run(f, file);
  int rows = 0, in_contact = 0, velocity_term = 0;
  for (size_t si = 0; si < e.samples.size(); ++si) {
    const EngineSample& s = e.samples[si];
    ASSERT_TRUE(s.raw.contains("contact_model_sweep")) << s.id;
    std::map<std::string, double> rigid;
    for (const json& row : s.raw["contact_model_sweep"]) {
      ++rows;
      const std::string name = row["setting"].get<std::string>();
      ASSERT_FALSE(row["qdd_digits_vs_own_model"].is_null()) << s.id << " " << name;
      EXPECT_GE(row["qdd_digits_vs_own_model"].get<double>(), 12.0) << s.id << " " << name;
      if (!row["qdd_digits_vs_rigid"].is_null()) rigid[name] = row["qdd_digits_vs_rigid"].get<double>();
      std::printf("  mujoco box %s %-10s %-42s vs rigid %5.1f  vs own model %5.1f digits\n", s.id.c_str(), f.samples[si].kind.c_str(),
                  name.c_str(), row["qdd_digits_vs_rigid"].is_null() ? -1.0 : row["qdd_digits_vs_rigid"].get<double>(),
                  row["qdd_digits_vs_own_model"].get<double>());
    }
    if (!rigid.count("default") || rigid["default"] > 3) continue;  // no contact force to speak of
    if (f.samples[si].kind == "in_contact") {
      ++in_contact;
      EXPECT_GT(rigid["dmin 0.999, dmax 0.9999, timeconst 0.004"], rigid["default"] + 1.0) << s.id;
    } else if (rigid["timeconst 0.004 (2 × timestep)"] < rigid["default"] - 0.2) {
      ++velocity_term;
    }
  }
  EXPECT_EQ(rows, static_cast<int>(8 * f.samples.size()));
  EXPECT_EQ(in_contact, 1) << "the fixture's in_contact sample did not show MuJoCo's regularization";
  EXPECT_GT(velocity_term, 0) << "no moving sample where a shorter timeconst moves MuJoCo away from the rigid LCP";
}

// MuJoCo's own URDF import ("mujoco-urdf"). On the double pendulum (diagonal inertias) MuJoCo's
// model is rbdref's and every quantity is within tolerance. On the Panda MuJoCo's URDF import changes
// the model: the echo differs in the rotational inertias alone (masses, COMs, frames and axes
// within 64 ε) — MuJoCo 2.2.2 diagonalizes each <inertia> with off-diagonal terms itself, in double,
// to a far looser tolerance than the rounding of the file's numbers — and the diagnosis is a model
// import, not lost digits. Without the URDF the adapter refuses to run.
TEST(MujocoUrdf, ImportsTheUrdfAndItsEchoFindsTheInertiaItChanges) {
  const auto a = make_mujoco_urdf_adapter();
  ASSERT_NO_FATAL_FAILURE(expect_urdf_import_matches(*a));
  {
    const std::string file = golden_file("panda");
    const Fixture f = read_fixture_file(file);
    const EngineOutput e = a->run_source(f, file, kData + "/models/panda.urdf");
    ASSERT_EQ(e.model_echo.value("status", ""), "differs") << e.model_echo.dump(1);
    const double tol = e.model_echo["tolerance"]["relative"].get<double>();
    const json& mx = e.model_echo["max"];
    EXPECT_GT(mx["inertia_rel_err"].get<double>(), 1e3 * tol) << mx.dump();
    for (const char* k : {"mass_rel_err", "frame_rot_err", "joint_axis_err"}) EXPECT_LE(mx[k].get<double>(), tol) << k;
    for (const char* k : {"com_abs_err_m", "frame_pos_abs_err_m"}) EXPECT_LE(mx[k].get<double>(), 1e3 * tol) << k;
    EXPECT_FALSE(compare_in_memory(f, file, e).passed);
  }
  // A floating base is refused: MuJoCo's URDF import welds the root link to the world.
  const std::string why = a->unsupported(read_fixture_file(golden_file("box_contacts")));
  EXPECT_NE(why.find("welds the root link"), std::string::npos) << why;
}

// A user's URDF names meshes (package://...) that are not at hand: MuJoCo cannot open them, so the
// import path loads the URDF again without its <visual> and <collision> elements and says so
// (conventions.import_note); the UR-style arm then matches rbdref's model. A URDF whose links'
// own inertias MuJoCo refuses before it fuses them (the ANYmal-style quadruped's bare frames) is a
// refusal (EngineRefusal: the audit's "refused"), not a failure.
TEST(MujocoUrdf, MissingMeshesAreStrippedAndOwnInertiaChecksAreRefusals) {
  const std::string corpus = std::string(::rbd::test::kSourceDir) + "/tests/data/urdf_corpus/";
  const auto a = make_mujoco_urdf_adapter();
  {
    const Fixture f = make_fixture(load_model(corpus + "ur_style_arm.urdf"), 2, 3, bin50p());
    const EngineOutput e = a->run_source(f, "ur_style_arm", corpus + "ur_style_arm.urdf");
    ASSERT_TRUE(e.conventions.contains("import_note")) << e.conventions.dump(1);
    EXPECT_NE(e.conventions["import_note"].get<std::string>().find("<visual> and <collision> elements removed"), std::string::npos);
    EXPECT_EQ(e.model_echo.value("status", ""), "match") << e.model_echo.dump(1);
    EXPECT_TRUE(compare_in_memory(f, "ur", e).passed);
  }
  const Fixture f = make_fixture(load_model(corpus + "anymal_style_quadruped.urdf"), 1, 3, bin50p());
  EXPECT_THROW(a->run_source(f, "anymal", corpus + "anymal_style_quadruped.urdf"), EngineRefusal);
}

TEST(StripUrdfGeometry, RemovesVisualAndCollisionOnly) {
  const std::string urdf =
      "<robot><link name=\"a\"><inertial><mass value=\"1\"/></inertial><visual><geometry><mesh filename=\"package://x/a.stl\"/>"
      "</geometry></visual><collision name=\"c\"><geometry><box size=\"1 1 1\"/></geometry></collision><visual/></link>"
      "<link name=\"visualizer\"/></robot>";
  int removed = 0;
  const std::string s = strip_urdf_geometry(urdf, &removed);
  EXPECT_EQ(removed, 3);
  EXPECT_EQ(s, "<robot><link name=\"a\"><inertial><mass value=\"1\"/></inertial></link><link name=\"visualizer\"/></robot>");
}

}  // namespace
}  // namespace rbd::test
