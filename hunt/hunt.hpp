// The hunt (`rbdref hunt`): differential fuzzing of one engine against the reference, as library
// stages, which run_hunt calls in order:
//
//   plan_hunt         the options checked, the engine's adapter, the joint types it declares it
//                     runs (its registry entry) and whether it runs a floating base
//   draw_trial        trial t's model (seed + t): a random tree (checks/random_model.hpp) of those
//                     joints, a floating base when the engine runs one, and stresses on top: masses
//                     and inertias scaled across eight orders of magnitude, offsets up to 1000 m, a
//                     base far from the origin
//   run_trial         the engine on a fixture of the model (whose samples include a near-singular
//                     configuration, fixtures/fixture.hpp), compare's score of it: a run that fails
//                     (a quantity or check outside tolerance, the echo differing, the engine
//                     refusing a model it declares it runs) is a finding
//   shrink            a finding shrunk greedily to the smallest model and state that still fails the
//                     same way: the failing sample alone; bodies removed from the leaves; joints
//                     made revolute; frame rotations, offsets, inertia rotations and COM offsets
//                     taken back one by one, each step kept only when the run still fails on the
//                     same quantities (or the same engine error)
//   write_reproducer  the finding's folder OUT/<engine>-<trial seed>/: model.json (rbdref.model),
//                     fixture.json, engine.json, report.json and README.md with the commands that
//                     reproduce it
//   hunt_summary      the summary (format "rbdref.hunt") run_hunt prints on standard output
//
// Bounded by the budget (wall seconds; shrinking shares it) and by max_findings; trial t uses seed
// + t. A shard K/N runs the trials t ≡ K-1 (mod N) only, so that N processes with the same seed
// share no trial and their reproducers' folders never clash (`rbdref merge` joins their summaries,
// docs/campaigns.md). Exit status of run_hunt: 0 no finding, 1 findings written, 2 (InputError) bad
// input, found before any trial.
#pragma once

#include "engines/adapter.hpp"
#include "fixtures/fixture.hpp"
#include "reports/compare.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rbd::hunt {

struct HuntOptions {
  std::string engine, out = "hunt-out";
  double budget = 60;  // wall seconds for trials and shrinking
  std::uint64_t seed = 1;
  int max_findings = 3, samples = 3;
  ShardSpec shard;  // the whole by default
};

struct HuntPlan {
  std::unique_ptr<EngineAdapter> adapter;
  std::vector<JointType> joints;   // what a drawn tree's bodies may have: the declared ones, and fixed
  std::vector<JointType> movable;  // joints without fixed
  bool free_root = false;          // the engine runs a free joint on a root
};
// InputError naming the option when the budget, max_findings or the output folder is bad, when the
// engine is not in this build, reads the model's own source file (an import path), or declares no
// joint type a tree can be drawn with.
HuntPlan plan_hunt(const HuntOptions& o);

// The wall-clock budget, from its making: the seconds left.
class HuntBudget {
 public:
  explicit HuntBudget(double seconds) : seconds_(seconds), start_(std::chrono::steady_clock::now()) {}
  double left() const { return seconds_ - std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  double seconds_;
  std::chrono::steady_clock::time_point start_;
};

ModelDesc draw_trial(const HuntPlan& plan, std::uint64_t seed);

// What a run came to: failed or not, and the signature a shrink step must keep.
struct Outcome {
  bool failed = false;
  std::string signature;  // "engine error", "model_echo", or the failing quantities/checks, sorted
  std::string summary;    // the diagnosis, for people
  std::optional<Fixture> fixture;
  std::optional<EngineOutput> output;
  std::optional<Report> report;
};
// The engine a on a fixture of d (`samples` samples drawn with `seed`; only sample `keep` when it is
// not empty), scored. nullopt when the engine declares it does not run the model, or rbdref cannot
// build it (a shrink step that made a degenerate model).
std::optional<Outcome> run_trial(const EngineAdapter& a, const ModelDesc& d, int samples, std::uint64_t seed, const std::string& keep);
// The worst failing sample of a failed outcome (the first failing quantity's worst sample, else the
// first failing check's sample), or empty.
std::string worst_sample(const Outcome& o);

struct Finding {
  std::uint64_t seed = 0;
  std::string signature;  // the first run's, which every shrink step kept
  int bodies_before = 0;  // the drawn model's bodies
  ModelDesc model;        // shrunk
  Outcome outcome;        // the shrunk model's run
  std::string sample;     // the failing sample kept alone, or empty: every sample
};
// Trial `seed`'s failed run `out` of model d, shrunk while the budget lasts.
Finding shrink(const HuntOptions& o, const HuntPlan& plan, const HuntBudget& budget, std::uint64_t seed, ModelDesc d, Outcome out);

// The finding's folder, its files appearing together (io/staging.hpp) and kept as found (an
// interrupted hunt keeps its findings); the finding's entry in the summary.
nlohmann::ordered_json write_reproducer(const HuntOptions& o, const Finding& f);

struct HuntTally {
  int trials = 0, skipped = 0;  // run, and drawn models the engine does not run
  nlohmann::ordered_json findings = nlohmann::ordered_json::array();
};
nlohmann::ordered_json hunt_summary(const HuntOptions& o, const HuntPlan& plan, const HuntTally& tally);

int run_hunt(const HuntOptions& o);

}  // namespace rbd::hunt
