// Comparison of an engine output with a fixture (reports/compare.hpp), the reference-free checks
// of an engine's own numbers, the report writers, and `rbdref compare` / `rbdref check` end to end.
//
// The engine under test is a perfect double engine: the fixture's own reference values rounded to
// double. It must score ~16 digits everywhere and pass; one entry perturbed by a relative 1e-8
// must be found (sample, entry, ~8 digits) and fail; bad input of every kind is exit status 2
// with nothing written.
#include "fixtures/fixture.hpp"
#include "tests/test_paths.hpp"
#include "io/engine_output.hpp"
#include "reports/compare.hpp"
#include "tests/cli_run.hpp"
#include "tests/rounded_engine.hpp"

#include <Eigen/Dense>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <tinyxml2.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

namespace rbd::test {
namespace {

namespace fs = std::filesystem;

std::string src(const std::string& rel) { return std::string(::rbd::test::kSourceDir) + "/" + rel; }

// The double pendulum with 4 samples (home, near_singular, 2 random) at bin50, certified against
// bin100. Made once for the whole file.
const Fixture& pendulum() {
  static const Fixture f = make_fixture(load_model(src("fixtures/models/double_pendulum.urdf")), 4, 7, *Precision::parse("bin50"));
  return f;
}

// A perfect double engine: every reference value of the fixture rounded to the nearest double.
EngineOutput rounded_engine(const Fixture& f) {
  EngineOutput e = rounded_reference_engine(f, "roundoff", "1.0", engine_quantities());
  e.import_path = "in-process: the fixture's values rounded to double";
  e.fixture_file = "pendulum.fixture.json";
  e.conventions = json::parse(canonical_conventions(f.model).dump());
  return e;
}

// Multiplies entry (i, j) of quantity `name` of sample `id` by (1 + rel).
void perturb(EngineOutput& e, const std::string& id, const std::string& name, int i, int j, double rel) {
  NumMatrix& m = sample_of(e, id).values.at(name);
  Num& x = m.v[m.cols > 0 ? i * m.cols + j : i];
  x = Num::exact(x.value * (1 + rel));
}

const QuantityScore& quantity(const Report& r, const std::string& name) {
  for (const QuantityScore& q : r.quantities)
    if (q.quantity == name) return q;
  throw std::logic_error("no quantity " + name);
}

Report run_compare(const EngineOutput& e) {
  return compare(pendulum(), "pendulum.fixture.json", e, "engine.json", Tolerances::defaults(e.epsilon("engine.json")));
}

// ---- compare -----------------------------------------------------------------------------------

// Rounding each reference value to double is a relative error ≤ 2^-53 of the quantity's largest
// entry: LRE ≥ 15.9 digits for every quantity, far inside k ε, and every check holds.
TEST(Compare, ReferenceRoundedToDoubleScoresSixteenDigitsAndPasses) {
  const Report r = run_compare(rounded_engine(pendulum()));
  EXPECT_TRUE(r.passed);
  ASSERT_EQ(r.quantities.size(), 6u);
  for (const QuantityScore& q : r.quantities) {
    EXPECT_TRUE(q.passed) << q.quantity;
    EXPECT_EQ(q.samples, 4) << q.quantity;
    EXPECT_EQ(q.missing, 0) << q.quantity;
    EXPECT_GE(q.min_digits, 15.5) << q.quantity;
    EXPECT_LE(q.max_rel_err, std::ldexp(1.0, -53) * 1.0000001) << q.quantity;
    EXPECT_GE(q.cap, 45) << q.quantity;
    EXPECT_LE(q.min_digits, q.cap) << q.quantity;
  }
  EXPECT_EQ(r.samples.size(), 24u);
  EXPECT_FALSE(r.checks.empty());
  for (const SampleCheck& c : r.checks) EXPECT_TRUE(c.result.passed) << c.sample << " " << c.result.message();
  EXPECT_TRUE(r.sample_failures.empty());
}

// |x - c| = 1e-8 |H10| at one entry; the norm-wise score is -log10(1e-8 |H10| / max|H|).
TEST(Compare, PerturbedEntryIsFoundWithItsSampleEntryAndDigits) {
  EngineOutput e = rounded_engine(pendulum());
  perturb(e, "s002", "H", 1, 0, 1e-8);
  const Report r = run_compare(e);
  EXPECT_FALSE(r.passed);
  const QuantityScore& H = quantity(r, "H");
  EXPECT_FALSE(H.passed);
  EXPECT_EQ(H.worst_sample, "s002");
  EXPECT_EQ(H.worst_row, 1);
  EXPECT_EQ(H.worst_col, 0);
  const Quantity& ref = *pendulum().find("s002")->ref.find("H");
  double hmax = 0;
  for (const std::string& v : ref.values) hmax = std::max(hmax, std::abs(std::stod(v)));
  const double expected = -std::log10(1e-8 * std::abs(std::stod(ref.values[2])) / hmax);
  EXPECT_NEAR(H.min_digits, expected, 0.01);
  EXPECT_GE(H.min_digits, 8.0);
  EXPECT_LT(H.min_digits, 9.5);
  for (const char* q : {"C", "tau", "qdd", "L", "D"}) EXPECT_TRUE(quantity(r, q).passed) << q;
  for (const SampleScore& s : r.samples)
    if (s.quantity == "H" && s.sample == "s002") {
      EXPECT_FALSE(s.passed);
      EXPECT_EQ(s.reference, ref.values[2]);
    }
}

// An exactly equal value (the reference's own decimal string) scores the certified cap.
TEST(Compare, ExactMatchScoresTheCertifiedCap) {
  EngineOutput e = rounded_engine(pendulum());
  const Quantity& ref = *pendulum().find("s000")->ref.find("C");
  NumMatrix& C = sample_of(e, "s000").values.at("C");
  for (size_t k = 0; k < ref.values.size(); ++k) C.v[k] = Num::decimal(ref.values[k]);
  const Report r = run_compare(e);
  for (const SampleScore& s : r.samples)
    if (s.quantity == "C" && s.sample == "s000") {
      EXPECT_EQ(s.rel_err, 0.0);
      EXPECT_EQ(s.digits, ref.normwise_digits);
    }
}

TEST(Compare, ModelHashMismatchIsInputErrorNamingBothFiles) {
  EngineOutput e = rounded_engine(pendulum());
  e.model_sha256 = std::string(64, '0');
  try {
    run_compare(e);
    FAIL() << "no InputError";
  } catch (const InputError& err) {
    EXPECT_EQ(err.file(), "engine.json");
    EXPECT_EQ(err.field(), "model.sha256");
    EXPECT_NE(std::string(err.what()).find(pendulum().model_sha256), std::string::npos) << err.what();
    EXPECT_NE(std::string(err.what()).find("pendulum.fixture.json"), std::string::npos) << err.what();
  }
}

TEST(Compare, UnknownSampleAndOtherDofsAreInputErrors) {
  EngineOutput e = rounded_engine(pendulum());
  e.samples[1].id = "s999";
  EXPECT_THROW(run_compare(e), InputError);
  e = rounded_engine(pendulum());
  std::swap(e.dofs[0], e.dofs[1]);
  try {
    run_compare(e);
    FAIL() << "no InputError";
  } catch (const InputError& err) {
    EXPECT_EQ(err.field(), "dofs");
  }
  e = rounded_engine(pendulum());
  e.samples[0].qd.pop_back();
  EXPECT_THROW(run_compare(e), InputError);
}

// A quantity the engine does not produce is counted, not failed.
TEST(Compare, MissingQuantityIsCountedNotFailed) {
  EngineOutput e = rounded_engine(pendulum());
  for (EngineSample& s : e.samples) s.values.erase("L");
  const Report r = run_compare(e);
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(quantity(r, "L").missing, 4);
  EXPECT_EQ(quantity(r, "L").samples, 0);
  EXPECT_TRUE(quantity(r, "L").passed);
}

// An engine that fails on a sample: a note, a sample failure, and a failed report.
TEST(Compare, EngineErrorOnASampleIsANoteAndAFailure) {
  EngineOutput e = rounded_engine(pendulum());
  sample_of(e, "s003").values.clear();
  sample_of(e, "s003").error = "mj_forward: warning: Nan in QACC";
  const Report r = run_compare(e);
  EXPECT_FALSE(r.passed);
  ASSERT_EQ(r.sample_failures.size(), 1u);
  EXPECT_NE(r.sample_failures[0].find("s003"), std::string::npos);
  EXPECT_EQ(quantity(r, "H").samples, 3);
  EXPECT_TRUE(quantity(r, "H").passed);
}

// The engine ran another state than the fixture's: its values cannot be scored.
TEST(Compare, OtherInputStateIsASampleFailure) {
  EngineOutput e = rounded_engine(pendulum());
  sample_of(e, "s001").qd[0] = Num::exact(sample_of(e, "s001").qd[0].value + 0.5);
  const Report r = run_compare(e);
  EXPECT_FALSE(r.passed);
  ASSERT_EQ(r.sample_failures.size(), 1u);
  EXPECT_NE(r.sample_failures[0].find("inputs.qd[0]"), std::string::npos) << r.sample_failures[0];
}

// Tolerance rules: k ε for H, C, tau; k ε κ for qdd; k ε κ^½ for L, D; overrides replace them.
TEST(Compare, ToleranceIsKEpsilonTimesConditionFactor) {
  Tolerances t = Tolerances::defaults(0x1p-52);
  EXPECT_DOUBLE_EQ(t.tolerance("H", 1e6), 1e3 * 0x1p-52);
  EXPECT_DOUBLE_EQ(t.tolerance("C", 1e6), 1e4 * 0x1p-52);
  EXPECT_DOUBLE_EQ(t.tolerance("qdd", 1e6), 1e3 * 0x1p-52 * 1e6);
  EXPECT_DOUBLE_EQ(t.tolerance("L", 1e6), 1e4 * 0x1p-52 * 1e3);
  EXPECT_EQ(t.rule("qdd"), "1e3 ε κ(H)");
  EXPECT_EQ(t.rule("D"), "1e4 ε κ(H)^½");
  add_tolerance_override(t, "qdd=1e-9");
  EXPECT_EQ(t.tolerance("qdd", 1e6), 1e-9);
  EXPECT_EQ(t.rule("qdd"), "override 1e-09");
  for (const char* bad : {"kinetic_energy=1e-9", "H=-1e-9", "H=0", "H=abc", "H", "H=nan", "=1e-9"}) {
    try {
      add_tolerance_override(t, bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "--tol") << bad;
    }
  }
}

// An override loose enough lets the perturbed entry pass.
TEST(Compare, ToleranceOverrideReplacesTheRule) {
  EngineOutput e = rounded_engine(pendulum());
  perturb(e, "s002", "H", 1, 0, 1e-8);
  Tolerances t = Tolerances::defaults(e.epsilon("engine.json"));
  add_tolerance_override(t, "H=1e-6");
  const Report r = compare(pendulum(), "pendulum.fixture.json", e, "engine.json", t);
  EXPECT_TRUE(quantity(r, "H").passed);
  EXPECT_EQ(quantity(r, "H").rule, "override 1e-06");
}

TEST(Compare, ReportJsonCarriesEverySection) {
  EngineOutput e = rounded_engine(pendulum());
  perturb(e, "s002", "H", 1, 0, 1e-8);
  const nlohmann::ordered_json j = report_to_json(run_compare(e));
  EXPECT_EQ(j["format"], "rbdref.report");
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["engine"]["scalar"], "double");
  EXPECT_EQ(j["model"]["sha256"], pendulum().model_sha256);
  EXPECT_EQ(j["fixture"]["file"], "pendulum.fixture.json");
  EXPECT_TRUE(j["conventions"]["fixture"].is_object());
  EXPECT_TRUE(j["conventions"]["engine"].is_object());
  EXPECT_EQ(j["quantities"][0]["quantity"], "H");
  EXPECT_EQ(j["quantities"][0]["worst"]["sample"], "s002");
  EXPECT_EQ(j["quantities"][0]["worst"]["entry"], nlohmann::ordered_json::array({1, 0}));
  EXPECT_FALSE(j["quantities"][0]["passed"].get<bool>());
  EXPECT_EQ(j["samples"].size(), 24u);
  ASSERT_FALSE(j["checks"].empty());
  for (const char* k : {"sample", "name", "passed", "residual", "tolerance", "digits", "detail"})
    EXPECT_TRUE(j["checks"][0].contains(k)) << k;
  EXPECT_FALSE(j["passed"].get<bool>());
}

// A soft-constraint engine (MuJoCo's equality constraints) on a loop model, simulated: its
// constraint forces are 90 % of the exact ones, τ_c' = 0.9 τ_c, and its q̈ the one they produce,
// q̈' = q̈ - 0.1 H⁻¹ τ_c (so its own H q̈' + C = τ + τ_c' holds and τ_c' does no work). Undeclared,
// qdd, tau_c and K q̈ = k fail; declared (conventions.soft_loop_constraints), the same numbers pass
// as a convention with the violation measured, and the declaration covers nothing else: an H off
// by 1e-6 still fails. A declaration that is not a string is an input error naming the field.
TEST(Compare, DeclaredSoftLoopConstraintsAreAConventionOnlyForTheConstrainedQuantities) {
  const std::string file = src("fixtures/golden/slider_crank.fixture.json");
  const Fixture f = read_fixture_file(file);
  EngineOutput e = rounded_engine(f);
  for (size_t k = 0; k < f.samples.size(); ++k) {
    const Sample& s = f.samples[k];
    const int nv = static_cast<int>(f.dofs.size());
    Eigen::MatrixXd H(nv, nv);
    Eigen::VectorXd qdd(nv), tau_c(nv);
    for (int i = 0; i < nv; ++i) {
      qdd(i) = from_decimal<double>(s.ref.find("qdd")->values[i]);
      tau_c(i) = from_decimal<double>(s.ref.find_loop("tau_c")->values[i]);
      for (int j = 0; j < nv; ++j) H(i, j) = from_decimal<double>(s.ref.find("H")->values[i * nv + j]);
    }
    const Eigen::VectorXd qdd_soft = qdd - 0.1 * H.ldlt().solve(tau_c);
    NumMatrix q, t;
    q.rows = t.rows = nv;
    for (int i = 0; i < nv; ++i) {
      q.v.push_back(Num::exact(qdd_soft(i)));
      t.v.push_back(Num::exact(0.9 * tau_c(i)));
    }
    e.samples[k].values["qdd"] = q;
    e.samples[k].values["tau_c"] = t;
  }
  const Tolerances tol = Tolerances::defaults(e.epsilon("engine.json"));
  const Report undeclared = compare(f, file, e, "engine.json", tol);
  EXPECT_FALSE(undeclared.passed);
  EXPECT_FALSE(quantity(undeclared, "qdd").passed);
  EXPECT_TRUE(quantity(undeclared, "qdd").convention.empty());

  e.conventions["soft_loop_constraints"] = "test: constraint forces at 90 %";
  const Report declared = compare(f, file, e, "engine.json", tol);
  EXPECT_TRUE(declared.passed) << report_summary(declared);
  for (const char* n : {"qdd", "tau_c"}) {
    EXPECT_FALSE(quantity(declared, n).passed) << n;
    EXPECT_NE(quantity(declared, n).convention.find("90 %"), std::string::npos) << n;
  }
  EXPECT_TRUE(quantity(declared, "H").convention.empty());
  EXPECT_GT(declared.constraint_violation, 1e-3);
  for (const SampleCheck& c : declared.checks) {
    if (c.result.name == "loops.K_qdd_equals_k") EXPECT_FALSE(c.convention.empty()) << c.sample;
    else EXPECT_TRUE(c.result.passed) << c.sample << ": " << c.result.message();
  }
  const nlohmann::ordered_json j = report_to_json(declared);
  EXPECT_EQ(j["soft_loop_constraints"]["constraint_violation"].get<double>(), declared.constraint_violation);
  EXPECT_NE(reports_to_junit({declared}).find("<skipped message=\"convention: soft loop constraints"), std::string::npos);

  perturb(e, "s003", "H", 1, 0, 1e-6);
  EXPECT_FALSE(compare(f, file, e, "engine.json", tol).passed) << "the declaration must not cover H";

  e.conventions["soft_loop_constraints"] = 1;
  try {
    compare(f, file, e, "engine.json", tol);
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& x) {
    EXPECT_NE(std::string(x.what()).find("conventions.soft_loop_constraints"), std::string::npos) << x.what();
  }
}

// ---- checks of the engine's own numbers ---------------------------------------------------------

const SampleCheck* find_check(const std::vector<SampleCheck>& cs, const std::string& sample, const std::string& name) {
  for (const SampleCheck& c : cs)
    if (c.sample == sample && c.result.name == name) return &c;
  return nullptr;
}

TEST(CheckEngineOutput, RoundedReferenceSatisfiesEveryIdentity) {
  const std::vector<SampleCheck> cs = check_engine_output(rounded_engine(pendulum()));
  for (const char* name : {"H.symmetric_raw", "H.positive_definite", "equation_of_motion.fd", "equation_of_motion.id",
                           "ltdl.reconstructs"})
    for (const Sample& s : pendulum().samples) {
      const SampleCheck* c = find_check(cs, s.id, name);
      ASSERT_NE(c, nullptr) << s.id << " " << name;
      EXPECT_TRUE(c->result.passed) << c->result.message();
      if (std::string(name) != "H.positive_definite") {
        EXPECT_GT(c->result.tolerance, 0.0) << name;
      }
    }
}

// H(1,0) ≠ H(0,1) by a relative 1e-10 in the engine's raw H: far beyond 10 ε.
TEST(CheckEngineOutput, AsymmetricRawHFailsSymmetricRaw) {
  EngineOutput e = rounded_engine(pendulum());
  const NumMatrix& H = sample_of(e, "s000").values.at("H");
  sample_of(e, "s000").raw = {{"H", {{H.v[0].value, H.v[1].value}, {H.v[2].value * (1 + 1e-10), H.v[3].value}}}};
  const NumMatrix& H1 = sample_of(e, "s001").values.at("H");
  sample_of(e, "s001").raw = {{"H", {{H1.v[0].value, H1.v[1].value}, {H1.v[2].value, H1.v[3].value}}}};
  const std::vector<SampleCheck> cs = check_engine_output(e);
  const SampleCheck* bad = find_check(cs, "s000", "H.symmetric_raw");
  ASSERT_NE(bad, nullptr);
  EXPECT_FALSE(bad->result.passed) << bad->result.message();
  EXPECT_GT(bad->result.residual, 1e-11);
  EXPECT_DOUBLE_EQ(bad->result.tolerance, 10 * 0x1p-52);
  EXPECT_NE(bad->result.detail.find("raw H"), std::string::npos) << bad->result.detail;
  const SampleCheck* good = find_check(cs, "s001", "H.symmetric_raw");
  ASSERT_NE(good, nullptr);
  EXPECT_TRUE(good->result.passed);
  EXPECT_NE(good->result.detail.find("raw H"), std::string::npos) << good->result.detail;
  const SampleCheck* conv = find_check(cs, "s002", "H.symmetric_raw");
  ASSERT_NE(conv, nullptr);
  EXPECT_NE(conv->result.detail.find("converted H"), std::string::npos) << conv->result.detail;
}

// The engine's qdd off by a relative 1e-6: H qdd + C ≠ tau far beyond 1e3 ε κ(H); its inverse
// dynamics (at the input qdd) still holds.
TEST(CheckEngineOutput, QddInconsistentWithItsOwnHCTauFailsEquationOfMotionFd) {
  EngineOutput e = rounded_engine(pendulum());
  perturb(e, "s002", "qdd", 0, 0, 1e-6);
  const std::vector<SampleCheck> cs = check_engine_output(e);
  const SampleCheck* fd = find_check(cs, "s002", "equation_of_motion.fd");
  ASSERT_NE(fd, nullptr);
  EXPECT_FALSE(fd->result.passed) << fd->result.message();
  EXPECT_NE(fd->result.detail.find("κ(H)"), std::string::npos);
  const SampleCheck* id = find_check(cs, "s002", "equation_of_motion.id");
  ASSERT_NE(id, nullptr);
  EXPECT_TRUE(id->result.passed) << id->result.message();
}

TEST(CheckEngineOutput, NonPositiveDefiniteHFails) {
  EngineOutput e = rounded_engine(pendulum());
  NumMatrix& H = sample_of(e, "s003").values.at("H");
  for (Num& x : H.v) x = Num::exact(-x.value);
  const std::vector<SampleCheck> cs = check_engine_output(e);
  const SampleCheck* c = find_check(cs, "s003", "H.positive_definite");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->result.passed);
}

// The audit's diagnosis tells an engine that disagrees with itself from a convention: q̈ wrong in
// its leading digits while the engine's own H, C and τ hold and its H q̈ + C = τ breaks is a fault
// of its numbers (an engine's forward-dynamics path, as DART's through its URDF loader on TALOS);
// the same q̈ error with H, C, τ and q̈ all in another dof order keeps every identity of the
// engine's own outputs and stays "convention or model semantics".
TEST(Diagnosis, AnEngineThatDisagreesWithItselfIsNumerical) {
  EngineOutput bad = rounded_engine(pendulum());
  for (Num& x : sample_of(bad, "s002").values.at("qdd").v) x = Num::exact(-3 * x.value);
  const Report r = run_compare(bad);
  const std::string d = diagnosis(r);
  EXPECT_EQ(d.rfind("numerical: the engine disagrees with itself", 0), 0u) << d;
  EXPECT_NE(d.find("equation_of_motion.fd fails at sample s002"), std::string::npos) << d;
  EXPECT_NE(d.find("H "), std::string::npos) << d;  // what holds is named

  // Dofs swapped in every output: the engine is self-consistent in its own order.
  EngineOutput swapped = rounded_engine(pendulum());
  for (EngineSample& es : swapped.samples) {
    for (const char* name : {"C", "tau", "qdd"}) {
      auto it = es.values.find(name);
      if (it != es.values.end()) std::swap(it->second.v[0], it->second.v[1]);
    }
    auto H = es.values.find("H");
    if (H != es.values.end()) {
      std::swap(H->second.v[0], H->second.v[3]);
      std::swap(H->second.v[1], H->second.v[2]);
    }
    es.values.erase("L");
    es.values.erase("D");
  }
  const std::string ds = diagnosis(run_compare(swapped));
  EXPECT_EQ(ds.find("disagrees with itself"), std::string::npos) << ds;
}

// ---- JUnit --------------------------------------------------------------------------------------

TEST(Junit, XmlParsesAndMarksThePerturbedQuantity) {
  EngineOutput e = rounded_engine(pendulum());
  perturb(e, "s002", "H", 1, 0, 1e-8);
  const std::string xml = reports_to_junit({run_compare(rounded_engine(pendulum())), run_compare(e)});
  tinyxml2::XMLDocument doc;
  ASSERT_EQ(doc.Parse(xml.c_str()), tinyxml2::XML_SUCCESS) << xml;
  const tinyxml2::XMLElement* root = doc.FirstChildElement("testsuites");
  ASSERT_NE(root, nullptr);
  const tinyxml2::XMLElement* good = root->FirstChildElement("testsuite");
  ASSERT_NE(good, nullptr);
  const tinyxml2::XMLElement* bad = good->NextSiblingElement("testsuite");
  ASSERT_NE(bad, nullptr);
  EXPECT_STREQ(good->Attribute("name"), "rbdref.roundoff.double_pendulum");
  EXPECT_EQ(good->IntAttribute("failures"), 0);
  // Count the testcases and failures of each suite; the suites' attributes must agree.
  int total_tests = 0, total_failures = 0;
  for (const tinyxml2::XMLElement* suite : {good, bad}) {
    int tests = 0, failures = 0;
    for (const tinyxml2::XMLElement* tc = suite->FirstChildElement("testcase"); tc; tc = tc->NextSiblingElement("testcase")) {
      ++tests;
      EXPECT_STREQ(tc->Attribute("classname"), "rbdref.roundoff.double_pendulum");
      if (tc->FirstChildElement("failure")) ++failures;
    }
    EXPECT_EQ(suite->IntAttribute("tests"), tests);
    EXPECT_EQ(suite->IntAttribute("failures"), failures);
    total_tests += tests;
    total_failures += failures;
  }
  EXPECT_EQ(root->IntAttribute("tests"), total_tests);
  EXPECT_EQ(root->IntAttribute("failures"), total_failures);
  // The H testcase of the perturbed report has exactly one failure, naming s002 and entry (1,0).
  // (The perturbed H is also asymmetric and breaks H qdd + C = tau: those checks fail too.)
  int h_failures = 0;
  for (const tinyxml2::XMLElement* tc = bad->FirstChildElement("testcase"); tc; tc = tc->NextSiblingElement("testcase")) {
    if (std::string(tc->Attribute("name")) != "H") continue;
    for (const tinyxml2::XMLElement* f = tc->FirstChildElement("failure"); f; f = f->NextSiblingElement("failure")) {
      ++h_failures;
      const std::string msg = f->Attribute("message");
      EXPECT_NE(msg.find("s002"), std::string::npos) << msg;
      EXPECT_NE(msg.find("(1,0)"), std::string::npos) << msg;
    }
  }
  EXPECT_EQ(h_failures, 1);
  for (const char* q : {"C", "tau", "qdd", "L", "D"})
    for (const tinyxml2::XMLElement* tc = bad->FirstChildElement("testcase"); tc; tc = tc->NextSiblingElement("testcase"))
      if (std::string(tc->Attribute("name")) == q) {
        EXPECT_EQ(tc->FirstChildElement("failure"), nullptr) << q;
      }
}

TEST(Junit, SpecialCharactersAreEscaped) {
  EngineOutput e = rounded_engine(pendulum());
  e.engine = "a<b>&\"c'";
  sample_of(e, "s003").values.clear();
  sample_of(e, "s003").error = "failed: x < 0 && y > \"1\" 'z'";
  const std::string xml = reports_to_junit({run_compare(e)});
  tinyxml2::XMLDocument doc;
  ASSERT_EQ(doc.Parse(xml.c_str()), tinyxml2::XML_SUCCESS) << xml;
  const tinyxml2::XMLElement* suite = doc.FirstChildElement("testsuites")->FirstChildElement("testsuite");
  EXPECT_STREQ(suite->Attribute("name"), "rbdref.a<b>&\"c'.double_pendulum");
  EXPECT_EQ(suite->IntAttribute("failures"), 1);
}

// A quantity the engine never produced is a skipped testcase, neither passed nor failed.
TEST(Junit, AbsentQuantityIsSkipped) {
  EngineOutput e = rounded_engine(pendulum());
  for (EngineSample& s : e.samples) s.values.erase("D");
  const std::string xml = reports_to_junit({run_compare(e)});
  tinyxml2::XMLDocument doc;
  ASSERT_EQ(doc.Parse(xml.c_str()), tinyxml2::XML_SUCCESS) << xml;
  const tinyxml2::XMLElement* suite = doc.FirstChildElement("testsuites")->FirstChildElement("testsuite");
  EXPECT_EQ(suite->IntAttribute("skipped"), 1);
  EXPECT_EQ(suite->IntAttribute("failures"), 0);
  for (const tinyxml2::XMLElement* tc = suite->FirstChildElement("testcase"); tc; tc = tc->NextSiblingElement("testcase"))
    EXPECT_EQ(tc->FirstChildElement("skipped") != nullptr, std::string(tc->Attribute("name")) == "D") << tc->Attribute("name");
}

// ---- the commands ------------------------------------------------------------------------------

class CompareCli : public CliFolderTest {
 protected:
  void SetUp() override {
    CliFolderTest::SetUp();
    fixture_ = write("fx.json", fixture_to_json(pendulum()).dump());
  }
  static nlohmann::json engine_json(const EngineOutput& e) { return nlohmann::json::parse(engine_output_to_json(e).dump()); }

  // `rbdref compare` expecting bad input: status 2, the message names `file` and `field`, and
  // neither the report nor the JUnit file (nor a temporary) exists afterwards.
  void expect_bad(const std::string& fixture, const std::string& engine, const std::string& extra, const std::string& file,
                  const std::string& field) {
    expect_bad_input(run("compare " + fixture + " " + engine + " --report " + path("r.json") + " --junit " + path("r.xml") + extra),
                     file, field);
    EXPECT_FALSE(fs::exists(path("r.json"))) << "a report was written";
    EXPECT_FALSE(fs::exists(path("r.xml"))) << "a JUnit file was written";
  }

  std::string fixture_;
};

TEST_F(CompareCli, WithinToleranceIsExitZeroWithBothReports) {
  const std::string eng = write("eo.json", engine_json(rounded_engine(pendulum())).dump());
  const CliRun r = run("compare " + fixture_ + " " + eng + " --report " + path("r.json") + " --junit " + path("r.xml"));
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  const nlohmann::json rep = nlohmann::json::parse(std::ifstream(path("r.json")));
  EXPECT_EQ(rep["format"], "rbdref.report");
  EXPECT_TRUE(rep["passed"].get<bool>());
  tinyxml2::XMLDocument doc;
  EXPECT_EQ(doc.LoadFile(path("r.xml").c_str()), tinyxml2::XML_SUCCESS);
  EXPECT_NE(r.out.find("PASSED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("qdd"), std::string::npos) << r.out;
}

TEST_F(CompareCli, PerturbedEntryIsExitOne) {
  EngineOutput e = rounded_engine(pendulum());
  perturb(e, "s002", "H", 1, 0, 1e-8);
  const std::string eng = write("eo.json", engine_json(e).dump());
  const CliRun r = run("compare " + fixture_ + " " + eng + " --report " + path("r.json") + " --junit " + path("r.xml"));
  ASSERT_EQ(r.status, 1) << r.err << r.out;
  EXPECT_NE(r.out.find("s002 (1,0)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAILED"), std::string::npos) << r.out;
  const nlohmann::json rep = nlohmann::json::parse(std::ifstream(path("r.json")));
  EXPECT_FALSE(rep["passed"].get<bool>());
  // A loose enough override makes H pass; repeated --tol options accumulate.
  const CliRun r2 = run("compare " + fixture_ + " " + eng + " --report " + path("r2.json") + " --tol H=1e-6 --tol qdd=1e-3");
  const nlohmann::json rep2 = nlohmann::json::parse(std::ifstream(path("r2.json")));
  EXPECT_EQ(rep2["quantities"][0]["rule"], "override 1e-06") << r2.out;
  EXPECT_EQ(rep2["quantities"][3]["rule"], "override 0.001") << r2.out;
  EXPECT_TRUE(rep2["quantities"][0]["passed"].get<bool>());
}

TEST_F(CompareCli, BadInputIsExitTwoAndWritesNothing) {
  const nlohmann::json good = engine_json(rounded_engine(pendulum()));
  const std::string text = good.dump();
  // Truncated JSON, of the engine output and of the fixture.
  expect_bad(fixture_, write("eo.json", text.substr(0, text.size() / 2)), "", "eo.json", "JSON");
  const std::string fx_text = fixture_to_json(pendulum()).dump();
  expect_bad(write("fx2.json", fx_text.substr(0, fx_text.size() / 3)), write("eo.json", text), "", "fx2.json", "JSON");
  // "nan" where a number goes (a JSON NaN literal is not JSON at all).
  nlohmann::json j = good;
  j["samples"][0]["H"][0][0] = "nan";
  expect_bad(fixture_, write("eo.json", j.dump()), "", "eo.json", "samples[0].H[0][0]");
  // Wrong dimensions: a row of 3 in a 2 x 2 H, and a C of 3.
  j = good;
  j["samples"][1]["H"][1].push_back(0.5);
  expect_bad(fixture_, write("eo.json", j.dump()), "", "eo.json", "samples[1].H[1]");
  j = good;
  j["samples"][2]["C"].push_back(0.5);
  expect_bad(fixture_, write("eo.json", j.dump()), "", "eo.json", "samples[2].C");
  // Missing field.
  j = good;
  j["samples"][0]["inputs"].erase("qd");
  expect_bad(fixture_, write("eo.json", j.dump()), "", "eo.json", "samples[0].inputs.qd");
  j = good;
  j["engine"].erase("scalar");
  expect_bad(fixture_, write("eo.json", j.dump()), "", "eo.json", "engine.scalar");
  // Unknown version.
  j = good;
  j["version"] = 2;
  expect_bad(fixture_, write("eo.json", j.dump()), "", "eo.json", "version");
  // Another model.
  j = good;
  j["model"]["sha256"] = std::string(64, 'f');
  expect_bad(fixture_, write("eo.json", j.dump()), "", "eo.json", "model.sha256");
  // A sample the fixture does not have.
  j = good;
  j["samples"][3]["id"] = "s042";
  expect_bad(fixture_, write("eo.json", j.dump()), "", "eo.json", "samples[3].id");
  // Bad --tol.
  expect_bad(fixture_, write("eo.json", text), " --tol energy=1e-9", "--tol", "energy");
  expect_bad(fixture_, write("eo.json", text), " --tol qdd=-1", "--tol", "qdd");
  // Missing file.
  expect_bad(fixture_, path("missing.json"), "", "missing.json", "cannot open");
}

TEST_F(CompareCli, CheckCommandExitStatusFollowsTheChecks) {
  const std::string good = write("good.json", engine_json(rounded_engine(pendulum())).dump());
  CliRun r = run("check " + good + " --report " + path("c.json"));
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("equation_of_motion.fd"), std::string::npos) << r.out;
  const nlohmann::json rep = nlohmann::json::parse(std::ifstream(path("c.json")));
  EXPECT_EQ(rep["format"], "rbdref.report");
  EXPECT_TRUE(rep["fixture"].is_null());
  EXPECT_TRUE(rep["passed"].get<bool>());

  EngineOutput e = rounded_engine(pendulum());
  perturb(e, "s002", "qdd", 0, 0, 1e-6);
  r = run("check " + write("bad.json", engine_json(e).dump()));
  EXPECT_EQ(r.status, 1) << r.err << r.out;
  EXPECT_NE(r.out.find("FAIL"), std::string::npos) << r.out;

  nlohmann::json j = engine_json(rounded_engine(pendulum()));
  j["version"] = 7;
  r = run("check " + write("v.json", j.dump()) + " --report " + path("c2.json"));
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("v.json"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("c2.json")));
}

}  // namespace
}  // namespace rbd::test
