// What the engine-adapter tests share: the bin50 precision of their fixtures, the bundled golden
// fixtures and the trees among them, an adapter run scored by compare() in memory, the norm-wise
// LRE of engine values against reference decimals, an error planted in an engine's numbers,
// fixtures with contacts from a contacts file written on the spot, and the contact sets every
// adapter with contacts is run on (a pendulum on a floor and a tilted wall with an elbow contact
// between its links; a free box on its four corners, M of rank 3; a hinged rod between two tilted
// planes, one elastic, jammed at some samples so that no rigid answer exists).
#pragma once

#include "checks/random_model.hpp"
#include "tests/test_paths.hpp"
#include "engines/adapter.hpp"
#include "fixtures/fixture.hpp"
#include "io/model_io.hpp"
#include "reports/compare.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include <unistd.h>

namespace rbd::test {

inline const Precision& bin50p() {
  static const Precision p = *Precision::parse("bin50");
  return p;
}

// fixtures/golden/MODEL.fixture.json below the source tree.
inline std::string golden_file(const std::string& model) {
  return std::string(::rbd::test::kSourceDir) + "/fixtures/golden/" + model + ".fixture.json";
}

// The bundled trees whose golden fixtures every tree adapter is run on.
inline ::testing::internal::ParamGenerator<const char*> golden_trees() {
  return ::testing::Values("double_pendulum", "panda", "arm7", "humanoid", "tiny_inertia", "far_arm");
}

// A bundled model with the fewest digits an engine must keep on it (engine-specific bars).
struct ModelCase {
  const char* name;
  double min_digits;
};
// Stable test names in ctest (the default prints the struct's bytes, a pointer among them).
inline void PrintTo(const ModelCase& c, std::ostream* os) { *os << c.name; }
inline std::string model_case_name(const ::testing::TestParamInfo<ModelCase>& i) { return i.param.name; }

// The bundled trees' golden fixtures with the bar `digits`, far_arm's (1 km out, where world-frame
// arithmetic loses ~3 digits) `far_digits`; `all_joints` names the all-joints tree the engine runs.
inline ::testing::internal::ParamGenerator<ModelCase> golden_tree_cases(double digits, double far_digits, const char* all_joints) {
  return ::testing::Values(ModelCase{"double_pendulum", digits}, ModelCase{"panda", digits}, ModelCase{"arm7", digits},
                           ModelCase{"humanoid", digits}, ModelCase{all_joints, digits}, ModelCase{"tiny_inertia", digits},
                           ModelCase{"far_arm", far_digits});
}
// The bundled closed-loop mechanisms' golden fixtures likewise, far_fourbar's bar `far_digits`.
inline ::testing::internal::ParamGenerator<ModelCase> golden_loop_cases(double digits, double far_digits) {
  return ::testing::Values(ModelCase{"parallelogram", digits}, ModelCase{"slider_crank", digits}, ModelCase{"fig83_arm", digits},
                           ModelCase{"delta3", digits}, ModelCase{"stewart_gough", digits}, ModelCase{"six_bar", digits},
                           ModelCase{"ladder4", digits}, ModelCase{"far_fourbar", far_digits});
}

// The largest finite condition number κ(H) over the fixture's samples (1 at least): the digits a
// correct double engine may lose in what it solves with H.
inline double max_condition_number(const Fixture& f) {
  double kappa = 1;
  for (const Sample& s : f.samples)
    if (s.condition_number != "inf") kappa = std::max(kappa, std::stod(s.condition_number));
  return kappa;
}

// e scored against f by compare() with the default tolerances at e's own ε; `engine_file` labels
// the output as a file would.
inline Report compare_in_memory(const Fixture& f, const std::string& fixture_file, const EngineOutput& e,
                                const std::string& engine_file = "(in memory)") {
  return compare(f, fixture_file, e, engine_file, Tolerances::defaults(e.epsilon(engine_file)));
}

// Runs the adapter on f, expecting the model supported, the echo matching and no sample's error;
// the output is kept in *keep when given, and scored against f.
inline Report run_and_compare(const EngineAdapter& adapter, const Fixture& f, const std::string& file, EngineOutput* keep = nullptr) {
  EXPECT_EQ(adapter.unsupported(f), "");
  const EngineOutput e = adapter.run(f, file);
  EXPECT_EQ(e.model_echo.value("status", ""), "match") << e.model_echo.dump(1);
  for (const EngineSample& s : e.samples) EXPECT_EQ(s.error, "") << s.id;
  if (keep) *keep = e;
  return compare_in_memory(f, file, e);
}

// Runs the adapter on f into *out; fatal unless the model is supported and the echo matches.
inline void run_matching(const EngineAdapter& adapter, const Fixture& f, const std::string& file, EngineOutput* out) {
  ASSERT_EQ(adapter.unsupported(f), "");
  *out = adapter.run(f, file);
  ASSERT_EQ(out->model_echo.value("status", ""), "match") << out->model_echo.dump(1);
}

// Norm-wise LRE of engine values `x` against reference decimals `c`, computed at 50 digits.
inline double lre(const std::vector<std::string>& c, const std::vector<bin50>& x) {
  bin50 err(0), scale(0);
  for (size_t k = 0; k < c.size(); ++k) {
    const bin50 ck = from_decimal<bin50>(c[k]);
    using std::abs;
    err = std::max(err, bin50(abs(bin50(x[k] - ck))));
    scale = std::max(scale, bin50(abs(ck)));
  }
  if (err == 0) return 50;
  return -std::log10(static_cast<double>(err / (scale > 0 ? scale : bin50(1))));
}
// An engine quantity's entries (row-major) at 50 digits.
inline std::vector<bin50> values(const NumMatrix& m) {
  std::vector<bin50> out;
  for (const Num& n : m.v) out.push_back(n.as<bin50>());
  return out;
}
// A raw JSON array of doubles (an engine's own numbers) at 50 digits; nested arrays row by row.
inline std::vector<bin50> raw_values(const json& a) {
  std::vector<bin50> out;
  for (const auto& x : a) {
    if (x.is_array()) {
      for (const auto& y : x) out.push_back(bin50(y.get<double>()));
    } else {
      out.push_back(bin50(x.get<double>()));
    }
  }
  return out;
}

// The tree quantities of a sample within double precision of the reference: H, C and τ to 13
// digits, q̈ (a solve with H) to 10.
inline void expect_tree_values_match(const Sample& s, const EngineSample& es) {
  EXPECT_GE(lre(s.ref.find("H")->values, values(es.values.at("H"))), 13) << s.id;
  EXPECT_GE(lre(s.ref.find("C")->values, values(es.values.at("C"))), 13) << s.id;
  EXPECT_GE(lre(s.ref.find("tau")->values, values(es.values.at("tau"))), 13) << s.id;
  EXPECT_GE(lre(s.ref.find("qdd")->values, values(es.values.at("qdd"))), 10) << s.id;
}

// A random floating tree of nb bodies (branching 2) on the joint types `joints`, whose base joint
// frame is itself rotated and shifted (Xtree ≠ 1, so the world pose composes two transforms):
// where a velocity or free-joint map shows. Its fixture: 4 samples from seed 9.
inline Fixture turned_floating_tree(int nb, const std::vector<JointType>& joints, std::uint64_t seed) {
  TreeSpec spec;
  spec.nb = nb;
  spec.branching = 2;
  spec.floating_base = true;
  spec.joints = joints;
  LoadedModel lm;
  lm.desc = random_tree(spec, seed);
  lm.desc.bodies[0].origin.xyz = {Num::decimal("0.3"), Num::decimal("-1.2"), Num::decimal("0.7")};
  lm.desc.bodies[0].origin.rpy = {Num::decimal("0.4"), Num::decimal("-0.9"), Num::decimal("2.2")};
  lm.file = "random_tree";
  lm.kind = "json";
  return make_fixture(lm, 4, 9, bin50p());
}

// The golden fixtures with a cylindrical or helical joint (all_joints) and with a loop joint
// (slider_crank), which a tree engine without those joints refuses: unsupported() names the joint
// (its text contains `joint_named`) and the loop joint, and run() throws.
inline void expect_joints_and_loops_refused(const EngineAdapter& adapter, const std::string& joint_named) {
  const Fixture f = read_fixture_file(golden_file("all_joints"));
  const std::string why = adapter.unsupported(f);
  EXPECT_NE(why.find(joint_named), std::string::npos) << why;
  EXPECT_THROW(adapter.run(f, "all_joints"), EngineError);
  const Fixture loops = read_fixture_file(golden_file("slider_crank"));
  EXPECT_NE(adapter.unsupported(loops).find("loop joint"), std::string::npos);
}

// An import-path adapter on the double pendulum: run() without the source is an error; from the
// URDF the echo matches and every quantity is within tolerance.
inline void expect_urdf_import_matches(const EngineAdapter& a) {
  const std::string file = golden_file("double_pendulum");
  const Fixture f = read_fixture_file(file);
  ASSERT_EQ(a.unsupported(f), "");
  EXPECT_THROW(a.run(f, file), EngineError);
  const EngineOutput e = a.run_source(f, file, std::string(::rbd::test::kSourceDir) + "/fixtures/models/double_pendulum.urdf");
  EXPECT_EQ(e.model_echo.value("status", ""), "match") << e.model_echo.dump(1);
  EXPECT_TRUE(compare_in_memory(f, file, e).passed);
}

// e's `quantities` at every sample scaled by 1 + 1e-6 and shifted by 1e-6 (an error planted in the
// engine's numbers, which a quantity that is 0, a locked system's q̈, shows too), scored against f.
inline Report planted_error_report(const Fixture& f, const std::string& file, EngineOutput e,
                                   std::initializer_list<const char*> quantities) {
  for (EngineSample& s : e.samples)
    for (const char* q : quantities)
      if (s.values.count(q))
        for (Num& x : s.values.at(q).v) x = Num::decimal(to_decimal(bin50(x.as<bin50>() * bin50("1.000001") + bin50("1e-6")), 25));
  return compare_in_memory(f, file, e, "(planted)");
}
// The planted error fails, and contact_qdd fails as numbers: no declared contact model excuses it.
inline void expect_planted_error_is_numbers(const Fixture& f, const std::string& name, const EngineOutput& e,
                                            std::initializer_list<const char*> quantities) {
  const Report bad = planted_error_report(f, name, e, quantities);
  EXPECT_FALSE(bad.passed) << name;
  for (const QuantityScore& q : bad.quantities)
    if (q.quantity == "contact_qdd") {
      EXPECT_TRUE(!q.passed && q.convention.empty()) << name;
    }
}

// An impact.* check excused for having no rigid answer only where the reference's impulsive LCP
// indeed has none.
inline void expect_no_rigid_impact_only_where_none_exists(const Fixture& f, const Report& r, const std::string& name) {
  for (const SampleCheck& ch : r.checks)
    if (ch.convention.find("rigid impulsive LCP has no solution") != std::string::npos) {
      const Sample* fs = f.find(ch.sample);
      ASSERT_NE(fs, nullptr);
      EXPECT_FALSE(fs->ref.contacts.impact.ok) << name << " " << ch.sample;
    }
}

// The bundled `model` (path below the source tree) with the contacts of `contacts_json`.
inline LoadedModel load_with_contacts(const std::string& model, const std::string& contacts_json, bool floating) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("rbdref_adapter_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string file = (dir / "c.contacts.json").string();
  std::ofstream(file) << contacts_json;
  LoadOptions lo;
  lo.floating_base = floating;
  lo.contacts_file = file;
  LoadedModel lm = load_model(std::string(::rbd::test::kSourceDir) + "/" + model, lo);
  fs::remove_all(dir);
  return lm;
}
// Its fixture: n samples from `seed`.
inline Fixture contact_fixture(const std::string& model, const std::string& contacts_json, bool floating, int n, std::uint64_t seed) {
  return make_fixture(load_with_contacts(model, contacts_json, floating), n, seed, bin50p());
}

// The free box with one frictional contact: an engine with frictionless rigid contacts only
// names the friction in unsupported().
inline Fixture friction_box_fixture() {
  return contact_fixture("fixtures/models/contacts/box.urdf",
                         R"([{"name": "pp", "link": "box", "point": [0, 0, "-0.1"], "normal": [0, 0, 1], "friction": "0.5"}])",
                         true, 1, 1);
}

struct ContactCase {
  const char* name;
  const char* model;
  const char* contacts;
  bool floating;
};
inline void PrintTo(const ContactCase& c, std::ostream* os) { *os << c.name; }

// The case's fixture as every adapter runs it: 6 samples from seed 7 (s002 the "at_rest" sample).
inline Fixture contact_case_fixture(const ContactCase& c) { return contact_fixture(c.model, c.contacts, c.floating, 6, 7); }

// That fixture into *f (fatal unless s002 is "at_rest"), run by the adapter into *e and scored
// into *r as run_and_compare does.
inline void run_contact_case(const EngineAdapter& adapter, const ContactCase& c, Fixture* f, EngineOutput* e, Report* r) {
  *f = contact_case_fixture(c);
  ASSERT_EQ(f->samples[2].kind, "at_rest");
  *r = run_and_compare(adapter, *f, c.name, e);
}

inline ::testing::internal::ParamGenerator<ContactCase> bundled_contact_cases() {
  return ::testing::Values(
      ContactCase{"pendulum", "fixtures/models/double_pendulum.urdf",
                  R"({"contacts": [
                    {"name": "tip_floor", "link": "link2", "point": [0, 0, -1], "normal": [0, 0, 1]},
                    {"name": "tip_wall", "link": "link2", "point": [0, 0, -1], "normal": [1, 0, "0.2"], "restitution": "0.5"},
                    {"name": "elbow", "bodies": ["link2", "link1"], "point": [0, 0, "-0.5"], "normal": [1, 0, 0]}]})",
                  false},
      ContactCase{"box", "fixtures/models/contacts/box.urdf",
                  R"({"contacts": [
                    {"name": "pp", "link": "box", "point": ["0.3", "0.2", "-0.1"], "normal": [0, 0, 1]},
                    {"name": "mp", "link": "box", "point": ["-0.3", "0.2", "-0.1"], "normal": [0, 0, 1]},
                    {"name": "mm", "link": "box", "point": ["-0.3", "-0.2", "-0.1"], "normal": [0, 0, 1]},
                    {"name": "pm", "link": "box", "point": ["0.3", "-0.2", "-0.1"], "normal": [0, 0, 1]}]})",
                  true},
      ContactCase{"rod", "fixtures/models/contacts/rod.urdf",
                  R"([{"name": "tip1", "link": "rod", "point": [1, 0, 0], "normal": [1, 1, 0]},
                      {"name": "tip2", "link": "rod", "point": [-1, 0, 0], "normal": [-1, 1, 0], "restitution": 1}])",
                  false});
}
inline std::string contact_case_name(const ::testing::TestParamInfo<ContactCase>& i) { return i.param.name; }

}  // namespace rbd::test
