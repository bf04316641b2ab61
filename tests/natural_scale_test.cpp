// Natural scales (reference/tree/natural_scale.hpp) and the scores they set (reports/compare.cpp,
// docs/reports.md, Scores): a closed form on one pendulum, the bound |τ_i| ≤ s_i on random trees of
// every joint type, the held-still q̈ against a dense solve, and a C that is exactly zero (a
// spherical body whose centre of mass lies on its tilted hinge) judged against its terms: a double
// engine's 1e-17 passes, an error of 1e-6 fails.
#include "fixtures/fixture.hpp"
#include "io/model_io.hpp"
#include "reference/tree/crba.hpp"
#include "reference/tree/natural_scale.hpp"
#include "reference/tree/rnea.hpp"
#include "reports/compare.hpp"
#include "tests/rounded_engine.hpp"
#include "tests/test_util.hpp"
#include "tests/tree_cases.hpp"

#include <Eigen/Dense>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace rbd::test {
namespace {

namespace fs = std::filesystem;

// A model file written from text into the test's temporary folder, loaded.
LoadedModel urdf_model(const std::string& name, const std::string& text) {
  const fs::path p = fs::path(::testing::TempDir()) / (name + ".urdf");
  std::ofstream(p) << text;
  return load_model(p.string());
}

// One link on a hinge about y through the joint origin; centre of mass at (l, 0, 0); rotational
// inertia diag(a, b, c) about the centre of mass.
LoadedModel pendulum(double m, double l, double a, double b, double c) {
  return urdf_model("pendulum", R"(<robot name="pendulum"><link name="base"/>
<link name="arm"><inertial><origin xyz=")" + std::to_string(l) + R"( 0 0"/><mass value=")" + std::to_string(m) +
                                    R"("/><inertia ixx=")" + std::to_string(a) + R"(" iyy=")" + std::to_string(b) +
                                    R"(" izz=")" + std::to_string(c) + R"(" ixy="0" ixz="0" iyz="0"/></inertial></link>
<joint name="hinge" type="continuous"><parent link="base"/><child link="arm"/><axis xyz="0 1 0"/></joint></robot>)");
}

// The size rules of natural_scale.hpp worked by hand for this pendulum at q̇ = w, q̈ = u (a single
// body, parent the base, joint at the origin, so every |r| = 0):
//   V = (|w|, 0); A = (|w||w| + |u|, g)       (ω × ω_J counted as |ω||ω_J|; a_0 = (0, g))
//   I A = (‖Ī_o‖ (w² + |u|) + m l g, m g + m l w²),  I V = (‖Ī_o‖ |w|, m l |w|)
//   f = I A + V ×* I V: angular half ‖Ī_o‖ (2 w² + |u|) + m l g
//   s = |s_ω| · that = ‖Ī_o‖_F (2 w² + |u|) + m g l,  Ī_o = diag(a, b + m l², c + m l²).
// At w = u = 0 it is m g l at every q: the hanging pendulum's C = 0 is judged against the gravity
// moment of the arm held level.
TEST(NaturalScale, OnePendulumMatchesItsClosedForm) {
  using T = bin50;
  const double m = 2, l = 0.5, a = 0.01, b = 0.02, c = 0.03;
  const Model<T> model = build_model<T>(pendulum(m, l, a, b, c).desc);
  const T g = model.gravity.norm();
  // The file's decimals as the model reads them (exactly, not the nearest doubles).
  auto D = [](double x) { return T(std::to_string(x)); };
  const T ml2 = D(m) * D(l) * D(l);
  const T Io = sqrt(D(a) * D(a) + (D(b) + ml2) * (D(b) + ml2) + (D(c) + ml2) * (D(c) + ml2));
  for (const double qv : {0.0, 0.7, -1.5707963267948966, 3.0})
    for (const double w : {0.0, 1.5, -4.0})
      for (const double u : {0.0, -2.5}) {
        VecX<T> q(1), qd(1), qdd(1);
        q << T(qv);
        qd << T(w);
        qdd << T(u);
        const T expected = Io * (T(2) * T(w) * T(w) + abs(T(u))) + D(m) * g * D(l);
        const VecX<T> s = rnea_term_scale<T>(model, q, qd, qdd);
        EXPECT_LT(abs(T(s(0) - expected)), T("1e-45") * expected) << "q " << qv << " w " << w << " u " << u;
        EXPECT_LE(abs(T(rnea<T>(model, q, qd, qdd)(0))), s(0));
      }
}

// Two links on parallel hinges about y, the second hinge at (L, 0, 0) of the first link, centres of
// mass at (l₁, 0, 0) and (l₂, 0, 0), at rest (q̇ = q̈ = 0): the rules give A = (0, g) on both bodies,
// f₂ = (m₂ l₂ g, m₂ g), and f₂ carried to link 1 adds |r| F = L m₂ g to its moment:
//   s = (g (m₁ l₁ + m₂ (L + l₂)),  g m₂ l₂)
// at every q: the gravity torques of the arm held out level, which C reaches when it is.
TEST(NaturalScale, TwoLinksAtRestAreJudgedAgainstTheArmHeldLevel) {
  using T = bin50;
  const LoadedModel lm = urdf_model("two_links", R"(<robot name="two_links"><link name="base"/>
<link name="a"><inertial><origin xyz="0.25 0 0"/><mass value="2"/><inertia ixx="0.01" iyy="0.02" izz="0.03" ixy="0" ixz="0" iyz="0"/></inertial></link>
<link name="b"><inertial><origin xyz="0.375 0 0"/><mass value="1.5"/><inertia ixx="0.01" iyy="0.02" izz="0.03" ixy="0" ixz="0" iyz="0"/></inertial></link>
<joint name="j1" type="continuous"><parent link="base"/><child link="a"/><axis xyz="0 1 0"/></joint>
<joint name="j2" type="continuous"><parent link="a"/><child link="b"/><origin xyz="0.75 0 0"/><axis xyz="0 1 0"/></joint></robot>)");
  const Model<T> model = build_model<T>(lm.desc);
  const T g = model.gravity.norm();
  const T s1 = g * (T("2") * T("0.25") + T("1.5") * (T("0.75") + T("0.375"))), s2 = g * T("1.5") * T("0.375");
  const VecX<T> zero = VecX<T>::Zero(2);
  for (const double q1 : {0.0, 0.4, -2.0})
    for (const double q2 : {0.0, 1.0}) {
      VecX<T> q(2);
      q << T(q1), T(q2);
      const VecX<T> s = rnea_term_scale<T>(model, q, zero, zero);
      EXPECT_LT(abs(T(s(0) - s1)), T("1e-45") * s1) << q1 << " " << q2;
      EXPECT_LT(abs(T(s(1) - s2)), T("1e-45") * s2) << q1 << " " << q2;
      if (q1 == 0.0 && q2 == 0.0) {  // held level: C reaches its scale
        const VecX<T> C = bias<T>(model, q, zero);
        EXPECT_LT(abs(T(abs(C(0)) - s1)), T("1e-45") * s1);
        EXPECT_LT(abs(T(abs(C(1)) - s2)), T("1e-45") * s2);
      }
    }
}

// s_i ≥ |τ_i| in exact arithmetic (each size bounds the norm it stands for), at q̈ = 0 (C) and at a
// random q̈ (τ), on random chains and trees of every joint type, fixed and floating, at velocities
// up to 10 so that the velocity products dominate somewhere.
TEST(NaturalScale, BoundsRneaOnRandomTrees) {
  using T = bin50;
  int cases = 0;
  double ratio_max = 0;
  for (const bool floating : {false, true})
    for (const double branching : {1.0, 2.0})
      for (std::uint64_t seed = 1; seed <= 10; ++seed) {
        const RandomCase<T> c = random_case<T>(tree_spec(8, branching, floating), seed, 100 + seed, 10.0);
        const VecX<T> zero = VecX<T>::Zero(c.model.nv);
        for (const VecX<T>* qdd : {&zero, &c.qdd}) {
          const VecX<T> tau = rnea<T>(c.model, c.q, c.qd, *qdd);
          const VecX<T> s = rnea_term_scale<T>(c.model, c.q, c.qd, *qdd);
          ASSERT_EQ(s.size(), tau.size());
          for (Eigen::Index i = 0; i < s.size(); ++i) {
            EXPECT_LE(abs(tau(i)), s(i) * T("1.0000000000000000000000000000000000000001"))
                << "seed " << seed << " floating " << floating << " dof " << i;
            if (abs(tau(i)) > 0) ratio_max = std::max(ratio_max, static_cast<double>(s(i) / abs(tau(i))));
          }
          ++cases;
        }
      }
  EXPECT_EQ(cases, 80);
  RecordProperty("max s/|tau|", std::to_string(ratio_max));
}

// A robot that τ = C holds still has q̈ = 0; its q̈ is judged against the fall it stops,
// max|H⁻¹ C|, here from a dense LDLT of CRBA's H (no code shared with the sparse factor the scale
// uses). At τ = C/2, q̈ and H⁻¹τ are half the fall and the scale is still the whole fall.
TEST(NaturalScale, HeldStillQddIsJudgedAgainstTheFallItStops) {
  using T = bin50;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const RandomCase<T> c = random_case<T>(tree_spec(7, 1.5, seed % 2 == 0), seed, 40 + seed);
    const VecX<T> C = bias<T>(c.model, c.q, c.qd);
    const MatX<T> H = crba<T>(c.model, c.q);
    const SparseFactor<T> f = ltdl<T>(H, c.model.dof_parent);
    ASSERT_TRUE(f.ok);
    const VecX<T> fall = Eigen::LDLT<MatX<T>>(H).solve(C);
    T expected(0);
    for (Eigen::Index i = 0; i < fall.size(); ++i) expected = std::max(expected, T(abs(fall(i))));
    const VecX<T> held = VecX<T>::Zero(c.model.nv);  // q̈ of τ = C
    const TreeScales<T> s = tree_natural_scales<T>(c.model, c.q, c.qd, c.qdd, C, C, held, f);
    ASSERT_TRUE(s.has_qdd);
    EXPECT_GT(expected, T(0));
    EXPECT_LT(abs(T(s.qdd - expected)), T("1e-40") * expected) << "seed " << seed;
    const VecX<T> half = C / T(2);
    const TreeScales<T> h = tree_natural_scales<T>(c.model, c.q, c.qd, c.qdd, half, C, VecX<T>(-fall / T(2)), f);
    EXPECT_LT(abs(T(h.qdd - expected)), T("1e-40") * expected) << "seed " << seed;
  }
}

// The issue's body: a sphere-like inertia (Ic = 0.1 · 1) whose centre of mass lies on its hinge
// axis (0.6, 0, 0.8), with the joint turned and raised. Gravity's moment about the axis is
// axis · (c × m g) = 0 with c ∥ axis, and ω × Ī_o ω = 0 with Ī_o axis ∥ axis: C = 0 at every state.
LoadedModel balanced_body() {
  return urdf_model("balanced", R"(<robot name="balanced"><link name="base"/>
<link name="ball"><inertial><origin xyz="0.3 0 0.4"/><mass value="3"/>
<inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
<joint name="tilted" type="continuous"><parent link="base"/><child link="ball"/>
<origin xyz="0 0 1" rpy="0.3 0.2 0.1"/><axis xyz="0.6 0 0.8"/></joint></robot>)");
}

TEST(NaturalScale, ZeroCIsJudgedAgainstItsTerms) {
  const Fixture f = make_fixture(balanced_body(), 4, 3, *Precision::parse("bin50"));
  for (const Sample& s : f.samples) {
    const Quantity* C = s.ref.find("C");
    ASSERT_NE(C, nullptr);
    for (const std::string& v : C->values) EXPECT_LT(abs(from_decimal<bin50>(v)), bin50("1e-45")) << s.id << ": " << v;
    // Certified against its natural scale (3 · 9.81 · 0.5 N·m), not against its own rounding noise.
    EXPECT_GE(C->normwise_digits, 45) << s.id;
  }
  auto engine_with_C = [&](const char* value) {
    EngineOutput e = rounded_reference_engine(f, "roundoff", "1.0", engine_quantities());
    e.fixture_file = "balanced.fixture.json";
    e.conventions = json::parse(canonical_conventions(f.model).dump());
    for (EngineSample& es : e.samples)
      for (Num& x : es.values.at("C").v) x = Num::decimal(value);
    return compare(f, "balanced.fixture.json", e, "engine.json", Tolerances::defaults(e.epsilon("engine.json")));
  };
  auto C_score = [](const Report& r) {
    for (const QuantityScore& q : r.quantities)
      if (q.quantity == "C") return q;
    throw std::logic_error("no C");
  };
  // A double engine's rounding-level C: ~16 digits against ~15 N·m, and the audit passes.
  const Report good = engine_with_C("1e-17");
  EXPECT_TRUE(C_score(good).passed);
  EXPECT_GE(C_score(good).min_digits, 15.0);
  EXPECT_TRUE(good.passed);
  // A real error: 1e-6 N·m fails.
  const Report bad = engine_with_C("1e-6");
  EXPECT_FALSE(C_score(bad).passed);
  EXPECT_LT(C_score(bad).min_digits, 8.0);
  EXPECT_FALSE(bad.passed);
}

}  // namespace
}  // namespace rbd::test
