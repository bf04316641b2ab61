// The command line on closed loops (RBDA ch. 8) and contacts (ch. 11): assemble, eval with loop
// joint forces and actuators, fixtures compared and checked on loop models, eval with contacts.
#include "certify/evaluate.hpp"
#include "certify/memory.hpp"
#include "tests/test_paths.hpp"
#include "engines/adapter.hpp"
#include "io/engine_output.hpp"
#include "reference/numeric/scalar.hpp"
#include "tests/cli_run.hpp"
#include "tests/cli_test.hpp"

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>

namespace rbd::test {
namespace {

namespace fs = std::filesystem;

// A closed-loop mechanism end to end: assemble a sketched start, evaluate the result at bin50 and
// double. The top-level qdd is the constrained one (equal to loops.qdd), the state is consistent,
// rank and mobility are the mechanism's, and the three methods agree to within the digits.
TEST_F(Cli, AssembleThenEvalALoopModel) {
  const std::string m = src("fixtures/models/loops/stewart_gough.urdf"), l = src("fixtures/models/loops/stewart_gough.loops.json");
  const std::string out = path("assembled.json");
  CliRun r = run("assemble " + m + " --loops " + l + " --state " + src("fixtures/models/loops/stewart_gough.start.json") +
                    " --out " + out + " --precision bin50");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("position error"), std::string::npos) << r.err;
  for (const char* p : {"bin50", "double"}) {
    SCOPED_TRACE(p);
    r = run("eval " + m + " --loops " + l + " --state " + out + " --precision " + p);
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json doc = nlohmann::json::parse(r.out);
    const nlohmann::json& L = doc["loops"];
    EXPECT_TRUE(L["consistent"].get<bool>());
    EXPECT_EQ(L["rank"].get<int>(), 18);
    EXPECT_EQ(L["mobility"].get<int>(), 6);
    EXPECT_EQ(L["lambda_uniqueness"].get<std::string>(), "unique");
    EXPECT_EQ(L["lambda"].size(), 18u);
    EXPECT_EQ(doc["qdd"], L["qdd"]);
    EXPECT_TRUE(doc.contains("qdd_open_tree"));
    EXPECT_NE(doc["qdd"], doc["qdd_open_tree"]);
    EXPECT_EQ(L["clusters"].size(), 1u);  // all six legs close on the platform
    const int want = std::string(p) == "bin50" ? 44 : 12;
    EXPECT_GE(doc["normwise_certified_digits"]["qdd"].get<int>(), want);
    for (const auto& c : doc["checks"]) EXPECT_TRUE(c["passed"].get<bool>()) << c.dump();
  }
  // Assembling without loops is refused; an active loop joint's force must name an active one.
  r = run("assemble " + src("fixtures/models/double_pendulum.urdf") + " --state " + write("p.json", kPendulumState) + " --out " +
          path("x.json"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no loop joints"), std::string::npos) << r.err;
  const std::string bad = write("bad_tau_loops.json", R"({"q": [0, 0, 0], "tau_loops": {"wrist_pin": 1}})");
  expect_bad("eval " + src("fixtures/models/loops/slider_crank.urdf") + " --loops " + src("fixtures/models/loops/slider_crank.loops.json") +
                 " --state " + bad,
             "bad_tau_loops.json", "tau_loops.wrist_pin");
}

// An active loop joint (§8.6): its force changes the constrained acceleration and shows as tau_a.
TEST_F(Cli, ActiveLoopJointForceEntersTheDynamics) {
  const std::string loops = write("active.json", R"([{"name": "wrist_pin", "type": "revolute", "axis": [0, 1, 0], "active": true,
    "predecessor": {"link": "rod", "xyz": ["0.8", "0", "0"]}, "successor": {"link": "slider", "xyz": [0, 0, 0]}}])");
  const std::string m = src("fixtures/models/loops/slider_crank.urdf"), st = src("fixtures/models/loops/slider_crank.state.json");
  nlohmann::json s = nlohmann::json::parse(slurp(st));
  s["tau_loops"] = {{"wrist_pin", "2.5"}};
  const std::string st2 = write("active_state.json", s.dump());
  const CliRun passive = run("eval " + m + " --loops " + loops + " --state " + st);
  const CliRun active = run("eval " + m + " --loops " + loops + " --state " + st2);
  ASSERT_EQ(passive.status, 0) << passive.err;
  ASSERT_EQ(active.status, 0) << active.err;
  const nlohmann::json a = nlohmann::json::parse(active.out), p = nlohmann::json::parse(passive.out);
  EXPECT_TRUE(a["loops"]["active_loop_joints"].get<bool>());
  EXPECT_TRUE(a["loops"].contains("tau_a"));
  EXPECT_NE(a["qdd"], p["qdd"]);
  bool saw = false;
  for (const auto& c : a["checks"]) {
    EXPECT_TRUE(c["passed"].get<bool>()) << c.dump();
    saw = saw || c["name"] == "loops.active_power";
  }
  EXPECT_TRUE(saw);
  // The passive run lists tau_loops as defaulted.
  EXPECT_NE(p["state"]["defaulted_to_zero"].dump().find("tau_loops"), std::string::npos);
}


// Closed-loop inverse dynamics on the command line (§8.12): at the constrained q̈ that eval itself
// computed from τ (piston 25 N, elbow -2 N·m on fig. 8.3's arm), --actuated q3,q4 is properly
// actuated and recovers exactly those forces; adding q1 makes it over-actuated (minimum-norm u,
// not unique); q2 alone is under-actuated and cannot produce this motion.
TEST_F(Cli, InverseDynamicsWithActuatorSelection) {
  const std::string m = src("fixtures/models/loops/fig83_arm.urdf"), l = src("fixtures/models/loops/fig83_arm.loops.json");
  const std::string st = src("fixtures/models/loops/fig83_arm.state.json");
  CliRun r = run("eval " + m + " --loops " + l + " --state " + st);
  ASSERT_EQ(r.status, 0) << r.err;
  nlohmann::json s = nlohmann::json::parse(slurp(st));
  s["qdd"] = nlohmann::json::parse(r.out)["qdd"];
  const std::string st2 = write("consistent.json", s.dump());
  auto id = [&](const std::string& act) {
    const CliRun e = run("eval " + m + " --loops " + l + " --state " + st2 + " --actuated " + act);
    EXPECT_EQ(e.status, 0) << e.err;
    return nlohmann::json::parse(e.out)["loops"];
  };
  nlohmann::json L = id("q3,q4");
  EXPECT_EQ(L["inverse_dynamics"]["actuation"], "properly actuated");
  EXPECT_TRUE(L["inverse_dynamics"]["qdd_consistent"].get<bool>());
  EXPECT_NEAR(std::stod(L["u"][0].get<std::string>()), 25.0, 1e-40 * 25);
  EXPECT_NEAR(std::stod(L["u"][1].get<std::string>()), -2.0, 1e-40 * 2);
  EXPECT_GE(L["normwise_certified_digits"]["u"].get<int>(), 45);
  L = id("q1,q3,q4");
  EXPECT_EQ(L["inverse_dynamics"]["actuation"], "over-actuated");
  EXPECT_FALSE(L["inverse_dynamics"]["unique"].get<bool>());
  L = id("q2");
  EXPECT_EQ(L["inverse_dynamics"]["actuation"], "under-actuated");
  EXPECT_FALSE(L["inverse_dynamics"]["producible"].get<bool>());
  r = run("eval " + m + " --loops " + l + " --state " + st2 + " --actuated q3,q9");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown DoF 'q9'"), std::string::npos) << r.err;
}

// Fixtures, compare and check on closed-loop models (RBDA ch. 8). The fixture's samples lie on the
// closure manifold to the inputs' double rounding; an "engine" that reports rbdref's own reference
// rounded to double passes compare and every loop check. Planted engine errors are caught: the
// open-tree acceleration (loops ignored), constraint forces off by 0.1 %, and constraint forces
// that do work on the free motions. λ is compared only where unique (Stewart-Gough), τ_c always.
TEST_F(Cli, FixtureCompareAndCheckOnLoopModels) {
  using nlohmann::json;
  struct Case { const char* name; bool unique; };
  for (const Case c : {Case{"stewart_gough", true}, Case{"slider_crank", false}}) {
    SCOPED_TRACE(c.name);
    const std::string dir = src("fixtures/models/loops/");
    const std::string fx = path(std::string(c.name) + ".fixture.json");
    CliRun r = run("fixture " + dir + c.name + ".urdf --loops " + dir + c.name + ".loops.json --samples 3 --out " + fx);
    ASSERT_EQ(r.status, 0) << r.err;
    const json f = json::parse(slurp(fx));
    const int nc = f["samples"][0]["loops"]["n_constraints"].get<int>();
    for (const json& s : f["samples"]) {
      const json& L = s["loops"];
      EXPECT_EQ(L["lambda_uniqueness"].get<std::string>(), c.unique ? "unique" : "minimum_norm");
      // On the manifold to double rounding: |δ| and |K q̇| at the level of the stored doubles.
      EXPECT_LT(std::stod(L["position_error"].get<std::string>()), 1e-14);
      EXPECT_LT(std::stod(L["velocity_error"].get<std::string>()), 1e-13);
      EXPECT_GE(s["normwise_certified_digits"]["qdd"].get<int>(), 40);
      EXPECT_NE(s["outputs"]["qdd"], s["outputs"]["qdd_open_tree"]);
      EXPECT_EQ(L["outputs"]["lambda"].size(), static_cast<size_t>(nc));
    }
    // An engine output built from the reference, rounded to double; `mutate` plants an error.
    auto engine = [&](const std::string& file, const std::function<void(json&, const json&)>& mutate) {
      json e = {{"format", "rbdref.engine_output"}, {"version", 1},
                {"engine", {{"name", "reference-rounded"}, {"version", "1"}, {"scalar", "double"}, {"import_path", "test"}}},
                {"model", {{"name", f["model"]["name"]}, {"sha256", f["model"]["sha256"]}}},
                {"dofs", f["dofs"]}, {"samples", json::array()}};
      auto dbl = [](const json& v) {
        json out = json::array();
        for (const json& x : v) out.push_back(std::stod(x.get<std::string>()));
        return out;
      };
      for (const json& s : f["samples"]) {
        json es = {{"id", s["id"]}, {"inputs", s["inputs"]}, {"qdd", dbl(s["outputs"]["qdd"])},
                   {"tau_c", dbl(s["loops"]["outputs"]["tau_c"])}, {"lambda", dbl(s["loops"]["outputs"]["lambda"])}};
        mutate(es, s);
        e["samples"].push_back(es);
      }
      return write(file, e.dump());
    };
    const std::string rep_file = path("compare.report.json");
    const std::string good = engine("good.json", [](json&, const json&) {});
    r = run("compare " + fx + " " + good + " --report " + rep_file);
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("tau_c"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("lambda not compared") == std::string::npos, c.unique) << r.out;
    r = run("check " + good + " --fixture " + fx);
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    for (const char* k : {"loops.K_qdd_equals_k", "loops.equation_of_motion_projected", "loops.equation_of_motion",
                          "loops.constraint_forces_do_no_work"})
      EXPECT_NE(r.out.find(k), std::string::npos) << k << "\n" << r.out;
    // Loop quantities without the model: the checks cannot run, said so (exit 2).
    expect_bad_input(run("check " + good), "good.json", "samples");
    // Planted: the open spanning tree's acceleration (an engine that ignores the loops).
    const std::string open = engine("open.json", [](json& es, const json& s) {
      json q = json::array();
      for (const json& x : s["outputs"]["qdd_open_tree"]) q.push_back(std::stod(x.get<std::string>()));
      es["qdd"] = q;
    });
    r = run("compare " + fx + " " + open + " --report " + rep_file);
    EXPECT_EQ(r.status, 1) << r.out;
    r = run("check " + open + " --fixture " + fx);
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.out.find("loops.K_qdd_equals_k"), std::string::npos);
    // Planted: τ_c 0.1 % too large: H q̈ + C = τ + τ_c fails, and compare's tau_c.
    const std::string big = engine("big.json", [](json& es, const json&) {
      for (json& x : es["tau_c"]) x = x.get<double>() * 1.001;
    });
    r = run("check " + big + " --fixture " + fx);
    EXPECT_EQ(r.status, 1) << r.out;
    r = run("compare " + fx + " " + big + " --report " + rep_file);
    EXPECT_EQ(r.status, 1) << r.out;
    // Planted: τ_c plus a force on the first DoF alone (not in range(Kᵀ)): it does work.
    const std::string work = engine("work.json", [](json& es, const json&) { es["tau_c"][0] = es["tau_c"][0].get<double>() + 0.5; });
    r = run("check " + work + " --fixture " + fx + " --report " + path("work.report.json"));
    EXPECT_EQ(r.status, 1) << r.out;
    const json rep = json::parse(slurp(path("work.report.json")));
    bool no_work_failed = false;
    for (const json& k : rep["checks"])
      if (k["name"] == "loops.constraint_forces_do_no_work" && !k["passed"].get<bool>()) no_work_failed = true;
    EXPECT_TRUE(no_work_failed) << rep["checks"].dump();
    // λ of the wrong length is bad input.
    const std::string shortl = engine("short.json", [](json& es, const json&) { es["lambda"].erase(0); });
    expect_bad_input(run("compare " + fx + " " + shortl + " --report " + path("never.json")), "short.json", "lambda");
    EXPECT_FALSE(fs::exists(path("never.json")));
  }
}

// eval --contacts end to end on the bundled contact examples (docs/contact.md): the closed forms
// of tests/contact_test.cpp read back from the JSON with their certified digits.
TEST_F(Cli, EvalWithContactsGivesTheLcpSolutionCertified) {
  using nlohmann::json;
  const std::string dir = src("fixtures/models/contacts/");
  // A box resting on four corners: q̈ = 0, λ not unique, exactly two basic solutions mg/2 + mg/2.
  CliRun r = run("eval " + dir + "box.urdf --floating-base --contacts " + dir + "box_on_ground.contacts.json --state " + dir +
                    "box_at_rest.state.json");
  ASSERT_EQ(r.status, 0) << r.err;
  json c = json::parse(r.out)["contacts"];
  EXPECT_EQ(c["status"], "solved");
  EXPECT_EQ(c["rank"], 3);
  EXPECT_EQ(c["lambda_uniqueness"], "not_unique");
  EXPECT_EQ(c["cases"], json::array({"3", "3", "3", "3"}));
  ASSERT_EQ(c["n_basic_solutions"], 2);
  ScopedMpfrDigits guard(120);
  const mpfr mg = from_decimal<mpfr>("2.5") * from_decimal<mpfr>("9.81");
  for (const json& b : c["basic_solutions"]) {
    mpfr sum(0);
    int positive = 0;
    for (const json& x : b) {
      sum += from_decimal<mpfr>(x.get<std::string>());
      positive += from_decimal<mpfr>(x.get<std::string>()) > 0;
    }
    EXPECT_EQ(positive, 2);
    EXPECT_LT(static_cast<double>(abs(mpfr(sum - mg))), 1e-45);
  }
  for (const json& x : c["qdd"]) EXPECT_LT(static_cast<double>(abs(from_decimal<mpfr>(x.get<std::string>()))), 1e-45);
  for (const char* q : {"T", "M", "d", "qdd", "tau_c", "zeta_dot", "lambda"})
    EXPECT_GE(c["normwise_certified_digits"][q].get<int>(), 45) << q;
  // q̈'s entries are 0 in exact arithmetic: their values are rounding noise, which entry-wise digits
  // score 0 (certified-digits.md); norm-wise (above) they are certified against q̈_free's scale.

  // The spinning rod between two planes: a tip moves into its plane (case 2a of §11.4), so the
  // acceleration-level LCP is not posed (table 11.1 applies an impulse first): status
  // impact_first, the contact named, no λ and no certificate, exit 0 (data). M and d are data:
  // d1 + d2 = -√2 ω² with ω = 3 (the LCP over both would have no solution).
  r = run("eval " + dir + "rod.urdf --contacts " + dir + "rod_between_planes.contacts.json --state " + dir + "rod_spinning.state.json");
  ASSERT_EQ(r.status, 0) << r.err;
  c = json::parse(r.out)["contacts"];
  EXPECT_EQ(c["status"], "impact_first");
  EXPECT_NE(std::find(c["cases"].begin(), c["cases"].end(), "2a"), c["cases"].end()) << c["cases"].dump();
  EXPECT_NE(c["message"].get<std::string>().find("case 2a"), std::string::npos) << c["message"];
  EXPECT_TRUE(c["certificate"].is_null());
  EXPECT_TRUE(c["lambda"].is_null());
  EXPECT_TRUE(c["qdd"].is_null());
  const mpfr dsum = from_decimal<mpfr>(c["d"][0].get<std::string>()) + from_decimal<mpfr>(c["d"][1].get<std::string>());
  EXPECT_LT(static_cast<double>(abs(mpfr(dsum + sqrt(mpfr(2)) * 9))), 1e-45);
  // μ on a rigid contact: the forward problem is frictionless, and eval says so (in the document
  // and in the summary), naming the contact.
  {
    const std::string fc = path("friction.contacts.json");
    std::ofstream(fc) << R"([{"name": "rough", "link": "rod", "point": [1, 0, 0], "normal": [1, 1, 0], "friction": "0.5"}])";
    r = run("eval " + dir + "rod.urdf --contacts " + fc + " --state " + dir + "rod_still.state.json");
    ASSERT_EQ(r.status, 0) << r.err;
    const json notes = json::parse(r.out)["contacts"]["notes"];
    ASSERT_EQ(notes.size(), 1u) << notes.dump();
    EXPECT_NE(notes[0].get<std::string>().find("'rough'"), std::string::npos);
    EXPECT_NE(notes[0].get<std::string>().find("frictionless"), std::string::npos);
    r = run("eval " + dir + "rod.urdf --contacts " + dir + "rod_between_planes.contacts.json --state " + dir + "rod_still.state.json");
    EXPECT_TRUE(json::parse(r.out)["contacts"]["notes"].empty());
  }
  // RBDA example 11.1, genuine: the disc sliding at 3 m/s between two concave arcs (R = 2.5,
  // ρ = 0.5) touches both in case 3, and their curvature gives d_i = -v²/(R - ρ) = -4.5: no
  // solution, certificate (1, 1), exit 0 (data). Its version-2 model (convert) gives the same.
  r = run("eval " + dir + "disc_slot.urdf --contacts " + dir + "disc_slot.contacts.json --state " + dir + "disc_sliding.state.json");
  ASSERT_EQ(r.status, 0) << r.err;
  c = json::parse(r.out)["contacts"];
  EXPECT_EQ(c["status"], "no_solution");
  EXPECT_EQ(c["cases"], json::array({"3", "3"}));
  ASSERT_EQ(c["certificate"].size(), 2u);
  for (const json& x : c["certificate"]) EXPECT_LT(static_cast<double>(abs(mpfr(from_decimal<mpfr>(x.get<std::string>()) - 1))), 1e-45);
  for (const json& x : c["d"]) EXPECT_LT(static_cast<double>(abs(mpfr(from_decimal<mpfr>(x.get<std::string>()) + mpfr("4.5")))), 1e-45);
  const std::string disc_v2 = path("disc_slot.json");
  ASSERT_EQ(run("convert " + dir + "disc_slot.urdf --contacts " + dir + "disc_slot.contacts.json --out " + disc_v2).status, 0);
  const CliRun disc_again = run("eval " + disc_v2 + " --state " + dir + "disc_sliding.state.json");
  ASSERT_EQ(disc_again.status, 0) << disc_again.err;
  EXPECT_EQ(json::parse(disc_again.out)["contacts"]["d"], c["d"]);
  r = run("eval " + dir + "rod.urdf --contacts " + dir + "rod_between_planes.contacts.json --state " + dir + "rod_still.state.json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["contacts"]["status"], "solved");

  // The contacts written into a version-2 model by convert give the same numbers as the file.
  const std::string v2 = path("pendulum_contacts.json");
  r = run("convert " + src("fixtures/models/double_pendulum.urdf") + " --contacts " + dir + "double_pendulum_floor.contacts.json --out " + v2);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json::parse(slurp(v2))["version"], 2);
  const CliRun a = run("eval " + v2 + " --state " + dir + "double_pendulum.state.json");
  const CliRun b = run("eval " + src("fixtures/models/double_pendulum.urdf") + " --contacts " + dir +
                          "double_pendulum_floor.contacts.json --state " + dir + "double_pendulum.state.json");
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  const json ca = json::parse(a.out)["contacts"], cb = json::parse(b.out)["contacts"];
  EXPECT_EQ(ca["status"], cb["status"]);
  EXPECT_EQ(ca["cases"], cb["cases"]);
  for (const char* q : {"T", "Tdot_qd", "M", "d", "lambda", "qdd"}) EXPECT_EQ(ca.value(q, json()), cb.value(q, json())) << q;
  EXPECT_TRUE(ca.contains("M") && ca.contains("d"));
  EXPECT_EQ(ca["names"], json::array({"tip_floor", "tip_wall", "elbow_on_tip"}));

  // --impact: a box falling flat onto the ground, elastic (e = 1): energy conserved, every impact
  // check passes, the energy change's closed form matches.
  r = run("eval " + dir + "box.urdf --floating-base --contacts " + dir + "box_on_ground_elastic.contacts.json --state " + dir +
          "box_falling.state.json --impact");
  ASSERT_EQ(r.status, 0) << r.err;
  {
    const json doc = json::parse(r.out);
    const json im = doc["contacts"]["impact"];
    EXPECT_EQ(im["status"], "solved");
    EXPECT_FALSE(im["receiving_impulse"].empty());
    EXPECT_LT(std::fabs(std::stod(im["kinetic_energy_change"].get<std::string>())), 1e-45);
    EXPECT_GE(im["normwise_certified_digits"]["qd_plus"].get<int>(), 45);
    EXPECT_GE(expect_checks_pass(doc, "impact."), 5);
  }
  r = run("eval " + src("fixtures/models/double_pendulum.urdf") + " --state " + dir + "double_pendulum.state.json --impact");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("--impact"), std::string::npos) << r.err;

  // Soft contacts only (§11.8): no LCP, the soft section with its rules checked; the corner whose
  // surface state is given and the three at their default z = φ all touch and slide (slip: |f_t| = μ f_n).
  r = run("eval " + dir + "box.urdf --floating-base --contacts " + dir + "box_on_soft_ground.contacts.json --state " + dir +
          "box_sliding.state.json");
  ASSERT_EQ(r.status, 0) << r.err;
  {
    const json doc = json::parse(r.out);
    const json c = doc["contacts"];
    EXPECT_TRUE(c["rigid"].empty());
    EXPECT_FALSE(c.contains("lambda"));
    const json s = c["soft"];
    ASSERT_EQ(s["names"].size(), 4u);
    EXPECT_EQ(s["touching"], json::array({true, true, true, true}));
    EXPECT_EQ(s["sticking"][0], false);
    ScopedMpfrDigits g(80);
    const mpfr fn = from_decimal<mpfr>(s["fn"][0].get<std::string>());
    // f_n = -K z - D ṗ with z = -0.0015 given, ṗ = -0.05: 20000·0.0015 + 200·0.05 = 40.
    EXPECT_LT(static_cast<double>(abs(mpfr(fn - 40))), 1e-45);
    const mpfr ft = sqrt(mpfr(pow(from_decimal<mpfr>(s["ft"][0].get<std::string>()), 2) + pow(from_decimal<mpfr>(s["ft"][1].get<std::string>()), 2)));
    EXPECT_LT(static_cast<double>(abs(mpfr(ft - from_decimal<mpfr>("0.6") * 40))), 1e-45);
    EXPECT_EQ(expect_checks_pass(doc, "soft."), 4);
  }

  // Contacts on a closed-loop model: refused, naming the contacts file, by every command that
  // loads the model (convert too: it would write a model the others refuse).
  const std::string cf = write("c.json", R"([{"link": "crank", "point": [0, 0, 0], "normal": [0, 0, 1]}])");
  const std::string loops = " --loops " + src("fixtures/models/loops/slider_crank.loops.json") + " --contacts " + cf;
  for (const std::string& cmd :
       {"eval " + src("fixtures/models/loops/slider_crank.urdf") + loops + " --state " + src("fixtures/models/loops/slider_crank.state.json"),
        "convert " + src("fixtures/models/loops/slider_crank.urdf") + loops + " --out " + path("v2.json"),
        "fixture " + src("fixtures/models/loops/slider_crank.urdf") + loops + " --samples 1 --out " + path("v2.json")}) {
    r = run(cmd);
    EXPECT_EQ(r.status, 2) << cmd << "\n" << r.err;
    EXPECT_NE(r.err.find("c.json"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("contacts on a model with loop joints are not supported"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("v2.json"))) << cmd;
  }
}

}  // namespace
}  // namespace rbd::test
