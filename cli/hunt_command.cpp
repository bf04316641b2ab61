// rbdref hunt --engine E [--budget SECONDS] [--seed S] [--out DIR] [--max-findings N]
//
// Differential fuzzing of one engine against the reference. Each trial draws a random tree
// (checks/random_model.hpp) with the joint types the engine declares it runs (its registry entry),
// a floating base when it runs one, and stresses on top: masses and inertias scaled across eight
// orders of magnitude, offsets up to 1000 m, a base far from the origin; the fixture's samples
// include a near-singular configuration (fixtures/fixture.hpp). The engine runs the fixture,
// compare scores it; a run that fails (a quantity or check outside tolerance, the echo differing,
// the engine refusing a model it declares it runs) is a finding. A finding is shrunk greedily to
// the smallest model and state that still fails the same way: the failing sample alone; bodies
// removed from the leaves; joints made revolute; frame rotations, offsets, inertia rotations and
// stresses taken back one by one. Every step is kept only when the run still fails on the same
// quantity (or the same engine error). The reproducer goes to DIR/<engine>-<trial seed>/:
// model.json (rbdref.model), fixture.json, engine.json, report.json and README.md with the commands
// that reproduce it.
//
// Bounded by --budget (wall seconds, default 60; shrinking shares it) and --seed (trial t uses seed
// + t). --shard K/N runs the trials t ≡ K-1 (mod N) only, so that N processes with the same seed
// share no trial and their reproducers' folders never clash; `rbdref merge` joins their summaries
// (docs/campaigns.md). Exit 0 when no finding, 1 when findings were written, 2 on bad input.
#include "checks/random_model.hpp"
#include "io/model_io.hpp"
#include "io/staging.hpp"
#include "cli/commands.hpp"
#include "engines/adapter.hpp"
#include "fixtures/fixture.hpp"
#include "reports/compare.hpp"

#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <iostream>
#include <optional>
#include <random>
#include <set>
#include <sstream>

namespace rbd::cli {

namespace {

using ojson = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

struct HuntOptions {
  std::string engine, out = "hunt-out";
  double budget = 60;
  std::uint64_t seed = 1;
  std::string seed_text = "1";  // as given: parsed by parse_seed (no silent wrap of -1 or 2^64)
  int max_findings = 3, samples = 3;
  std::string shard_text;       // --shard K/N (empty: every trial)
  ShardSpec shard;
};

// What a run came to: failed or not, and the signature a shrink step must keep.
struct Outcome {
  bool failed = false;
  std::string signature;  // "engine error", "model_echo", or the failing quantities/checks, sorted
  std::string summary;    // the diagnosis, for people
  std::optional<Fixture> fixture;
  std::optional<EngineOutput> output;
  std::optional<Report> report;
};

LoadedModel loaded_of(const ModelDesc& d) {
  LoadedModel lm;
  lm.desc = d;
  lm.file = "hunt";
  lm.kind = "json";
  return lm;
}

// Runs the engine on a fixture of d (`samples` samples drawn with `seed`; only sample `keep` when
// it is not empty) and scores it. nullopt when the engine declares it does not run the model, or
// rbdref cannot build it (a shrink step that made a degenerate model).
std::optional<Outcome> trial(const EngineAdapter& a, const ModelDesc& d, int samples, std::uint64_t seed, const std::string& keep) {
  Fixture f;
  try {
    f = make_fixture(loaded_of(d), samples, seed, *Precision::parse("bin50"));
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (!keep.empty()) {
    std::vector<Sample> kept;
    for (const Sample& s : f.samples)
      if (s.id == keep) kept.push_back(s);
    if (kept.empty()) return std::nullopt;
    f.samples = kept;
  }
  if (!a.unsupported(f).empty()) return std::nullopt;
  Outcome o;
  o.fixture = f;
  try {
    o.output = a.run(f, "fixture.json");
  } catch (const EngineError& e) {
    o.failed = true;
    o.signature = "engine error";
    o.summary = std::string("the engine failed on a model it declares it runs: ") + e.what();
    return o;
  }
  Tolerances tol = Tolerances::defaults(o.output->epsilon("engine.json"));
  o.report = compare(f, "fixture.json", *o.output, "engine.json", tol);
  const Report& r = *o.report;
  std::set<std::string> failing;
  if (r.model_echo.is_object() && r.model_echo.value("status", "") == "differs") failing.insert("model_echo");
  for (const QuantityScore& q : r.quantities)
    if (q.samples > 0 && !q.passed && q.convention.empty()) failing.insert(q.quantity);
  for (const SampleCheck& c : r.checks)
    if (!c.result.passed && c.convention.empty()) failing.insert(c.result.name);
  if (!r.sample_failures.empty()) failing.insert("samples");
  o.failed = !failing.empty();
  for (const std::string& n : failing) o.signature += (o.signature.empty() ? "" : ",") + n;
  o.summary = diagnosis(r);
  return o;
}

// The worst failing sample of a report (the quantity's worst sample of the first failing quantity).
std::string worst_sample(const Outcome& o) {
  if (!o.report) return "";
  for (const QuantityScore& q : o.report->quantities)
    if (q.samples > 0 && !q.passed && q.convention.empty()) return q.worst_sample;
  for (const SampleCheck& c : o.report->checks)
    if (!c.result.passed && c.convention.empty()) return c.sample;
  return "";
}

// The stresses on a drawn tree (the model's numbers stay exact doubles).
void stress(ModelDesc& d, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  for (size_t i = 0; i < d.bodies.size(); ++i) {
    BodyDesc& b = d.bodies[i];
    if (u(rng) < 0.3) {  // mass and inertia scaled together by 10^[-4, 4]
      const double s = std::pow(10.0, -4 + 8 * u(rng));
      b.inertial.mass = Num::exact(b.inertial.mass.value * s);
      for (Num& x : b.inertial.I) x = Num::exact(x.value * s);
    }
    if (i > 0 && u(rng) < 0.15) {  // a long link: the offset scaled by 10^[0, 3]
      const double s = std::pow(10.0, 3 * u(rng));
      for (Num& x : b.origin.xyz) x = Num::exact(x.value * s);
    }
  }
  if (!d.bodies.empty() && u(rng) < 0.2)  // the whole model far from the origin
    d.bodies[0].origin.xyz = {Num::exact(1000 * (u(rng) - 0.5)), Num::exact(1000 * (u(rng) - 0.5)), Num::exact(1000 * u(rng))};
}

// Removes body k (a leaf) from d: later indices shift down by one.
ModelDesc without_body(const ModelDesc& d, int k) {
  ModelDesc e = d;
  e.bodies.erase(e.bodies.begin() + k);
  for (BodyDesc& b : e.bodies)
    if (b.parent > k) --b.parent;
  return e;
}

int run_hunt(const HuntOptions& o) {
  if (!(o.budget > 0) || o.budget > 86400) throw InputError("--budget", "", "expected seconds from 1 to 86400");
  if (o.max_findings < 1) throw InputError("--max-findings", "", "expected a positive integer");
  if (o.out == "-")
    throw InputError("--out", "", "expected a folder for the reproducers ('-' is standard output, where the summary goes already)");
  if (struct stat st; ::stat(o.out.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
    throw InputError(o.out, "", "is not a folder; hunt writes its reproducers there");
  std::unique_ptr<EngineAdapter> adapter;
  std::string names;
  for (auto& a : available_adapters()) {
    names += (names.empty() ? "" : ", ") + a->name();
    if (a->name() == o.engine) adapter = std::move(a);
  }
  if (!adapter) throw InputError("--engine", "", "no adapter '" + o.engine + "' in this build (available: " + names + ")");
  if (adapter->imports_source())
    throw InputError("--engine", "", o.engine + " reads the model's own source file (an import path): hunt draws models in memory; use audit --model");
  const EngineSupport sup = adapter->support();
  std::vector<JointType> joints;
  bool free_root = false;
  for (JointType t : sup.joints) {
    if (t == JointType::Free) free_root = true;
    if (t != JointType::Free || sup.free_below_root) joints.push_back(t);
  }
  joints.push_back(JointType::Fixed);
  std::vector<JointType> movable;
  for (JointType t : joints)
    if (t != JointType::Fixed) movable.push_back(t);
  if (movable.empty()) throw InputError("--engine", "", o.engine + " declares no joint type that hunt can draw");

  const auto start = Clock::now();
  auto left = [&] { return o.budget - std::chrono::duration<double>(Clock::now() - start).count(); };
  int trials = 0, skipped = 0, findings = 0;
  ojson summary = ojson::array();
  const auto stride = static_cast<std::uint64_t>(o.shard.count);
  for (std::uint64_t t = static_cast<std::uint64_t>(o.shard.index - 1); left() > 0 && findings < o.max_findings; t += stride) {
    const std::uint64_t seed = o.seed + t;
    std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 7);
    TreeSpec spec;
    spec.nb = 2 + static_cast<int>(rng() % 7);
    spec.branching = (rng() % 3 == 0) ? 2.0 : 1.0;
    spec.floating_base = free_root && rng() % 3 == 0;
    spec.joints = joints;
    ModelDesc d = random_tree(spec, seed);
    d.name = "hunt_" + std::to_string(seed);
    stress(d, rng);
    std::optional<Outcome> out = trial(*adapter, d, o.samples, seed, "");
    if (!out) {
      ++skipped;
      continue;
    }
    ++trials;
    if (!out->failed) continue;
    ++findings;
    const std::string sig = out->signature;
    std::cerr << "hunt: seed " << seed << ": " << out->summary << " [" << sig << "]; shrinking\n";

    // Shrink: keep a step when the run fails with the same signature.
    std::string keep = worst_sample(*out);
    const int bodies_before = static_cast<int>(d.bodies.size());
    auto still = [&](const ModelDesc& cand, const std::string& k) -> std::optional<Outcome> {
      if (left() <= 0) return std::nullopt;
      std::optional<Outcome> c = trial(*adapter, cand, o.samples, seed, k);
      if (c && c->failed && c->signature == sig) return c;
      return std::nullopt;
    };
    if (!keep.empty()) {
      if (auto c = still(d, keep)) out = c;
      else keep.clear();
    }
    bool progress = true;
    while (progress && left() > 0) {
      progress = false;
      // Leaves first, the last body first.
      for (int k = static_cast<int>(d.bodies.size()) - 1; k >= 0 && d.bodies.size() > 1; --k) {
        bool leaf = true;
        for (const BodyDesc& b : d.bodies) leaf = leaf && b.parent != k;
        if (!leaf) continue;
        const ModelDesc cand = without_body(d, k);
        if (auto c = still(cand, keep)) {
          d = cand, out = c, progress = true;
          break;
        }
      }
      if (progress) continue;
      // Simpler numbers, one at a time.
      for (size_t i = 0; i < d.bodies.size() && !progress; ++i) {
        std::vector<ModelDesc> cands;
        ModelDesc c1 = d;
        if (c1.bodies[i].joint.type != JointType::Revolute && c1.bodies[i].joint.type != JointType::Free &&
            std::find(movable.begin(), movable.end(), JointType::Revolute) != movable.end()) {
          c1.bodies[i].joint.type = JointType::Revolute;
          cands.push_back(c1);
        }
        ModelDesc c2 = d;
        bool rot = false;
        for (Num& x : c2.bodies[i].origin.rpy) rot = rot || x.value != 0, x = Num::exact(0);
        if (rot) cands.push_back(c2);
        ModelDesc c3 = d;
        bool off = false;
        for (Num& x : c3.bodies[i].origin.xyz) off = off || x.value != 0, x = Num::exact(0);
        if (off) cands.push_back(c3);
        ModelDesc c4 = d;  // the inertia about the COM made diagonal (its trace kept)
        auto& I = c4.bodies[i].inertial.I;
        if (I[3].value != 0 || I[4].value != 0 || I[5].value != 0) {
          I[3] = I[4] = I[5] = Num::exact(0);
          cands.push_back(c4);
        }
        ModelDesc c5 = d;
        bool com = false;
        for (Num& x : c5.bodies[i].inertial.com) com = com || x.value != 0, x = Num::exact(0);
        if (com) cands.push_back(c5);
        for (const ModelDesc& c : cands)
          if (auto r = still(c, keep)) {
            d = c, out = r, progress = true;
            break;
          }
      }
    }

    // The reproducer.
    // The reproducer's files appear together or not at all (io/staging.hpp).
    const std::string dir = o.out + "/" + o.engine + "-" + std::to_string(seed);
    StagedFolder stage(dir);
    write_file_atomic(stage.path(dir + "/model.json"), model_to_json(d).dump(1) + "\n");
    if (out->fixture) write_file_atomic(stage.path(dir + "/fixture.json"), fixture_text(fixture_to_json(*out->fixture)));
    if (out->output) write_file_atomic(stage.path(dir + "/engine.json"), engine_output_to_json(*out->output).dump(1) + "\n");
    if (out->report) write_file_atomic(stage.path(dir + "/report.json"), report_to_json(*out->report).dump(1) + "\n");
    std::ostringstream readme;
    readme << "# rbdref hunt: " << o.engine << ", trial seed " << seed << "\n\n"
           << "Finding: " << out->summary << "\n\nFailing: " << sig << "\n\n"
           << "Shrunk from " << bodies_before << " bodies to " << d.bodies.size() << " (" << (keep.empty() ? "every sample" : "sample " + keep)
           << ").\n\nReproduce:\n\n"
           << "    rbdref compare fixture.json engine.json --report report.json   # the score, from the files\n"
           << "    rbdref audit --model model.json --engines " << o.engine << " --no-baseline   # the engine again, on fresh samples\n"
           << "    rbdref eval model.json --state STATE.json                       # the reference at one state\n";
    write_file_atomic(stage.path(dir + "/README.md"), readme.str());
    stage.commit(StagedFolder::When::Now);  // kept as found: an interrupted hunt keeps its findings
    std::cerr << "hunt: seed " << seed << ": shrunk to " << d.bodies.size() << " bodies; wrote " << dir << "/\n";
    summary.push_back({{"seed", seed}, {"signature", sig}, {"diagnosis", out->summary}, {"bodies", d.bodies.size()},
                       {"bodies_before", bodies_before}, {"sample", keep}, {"folder", dir}});
  }
  ojson doc = {{"format", "rbdref.hunt"}, {"version", 1}, {"engine", o.engine}, {"engine_version", adapter->version()},
               {"seed", o.seed}, {"budget_s", o.budget}, {"trials", trials}, {"skipped", skipped}, {"findings", summary}};
  if (!o.shard.whole()) doc["shard"] = {{"index", o.shard.index}, {"count", o.shard.count}};
  std::cout << doc.dump(1) << "\n";
  std::cerr << "hunt: " << o.engine << ": " << trials << " trials (" << skipped << " models it does not run), " << findings << " findings\n";
  return findings ? 1 : 0;
}

}  // namespace

Run add_hunt(CLI::App& app) {
  auto o = std::make_shared<HuntOptions>();
  CLI::App* sub = app.add_subcommand("hunt", "Differential fuzzing of one engine: random models and states, findings shrunk to a reproducer");
  sub->add_option("--engine", o->engine, "The engine adapter to hunt (rbdref engines lists them)")->required();
  sub->add_option("--budget", o->budget, "Wall-clock seconds for trials and shrinking (default 60)");
  sub->add_option("--seed", o->seed_text, "Seed of the first trial: an integer 0..2^64-1 (trial t uses seed + t; default 1)");
  sub->add_option("--out", o->out, "Folder for the reproducers (default hunt-out)")->check(nonempty_output);
  sub->add_option("--max-findings", o->max_findings, "Stop after this many findings (default 3)");
  sub->add_option("--shard", o->shard_text,
                  "K/N: run only the trials t = K-1, K-1+N, K-1+2N, ... (an independent process with its own budget; "
                  "`rbdref merge` joins the N summaries; docs/campaigns.md)");
  return [o] {
    o->seed = parse_seed(o->seed_text, "--seed");
    if (!o->shard_text.empty()) o->shard = parse_shard(o->shard_text, "--shard");
    return run_hunt(*o);
  };
}

}  // namespace rbd::cli
