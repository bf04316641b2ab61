// write_reproducer and hunt_summary: what the hunt writes (hunt.hpp).
#include "hunt/hunt.hpp"

#include "io/model_io.hpp"
#include "io/staging.hpp"

#include <iostream>
#include <sstream>

namespace rbd::hunt {

namespace {

// The README of a reproducer: the finding, how far it shrank, and the commands that reproduce it.
std::string readme_of(const HuntOptions& o, const Finding& f) {
  std::ostringstream readme;
  readme << "# rbdref hunt: " << o.engine << ", trial seed " << f.seed << "\n\n"
         << "Finding: " << f.outcome.summary << "\n\nFailing: " << f.signature << "\n\n"
         << "Shrunk from " << f.bodies_before << " bodies to " << f.model.bodies.size() << " ("
         << (f.sample.empty() ? "every sample" : "sample " + f.sample) << ").\n\nReproduce:\n\n"
         << "    rbdref compare fixture.json engine.json --report report.json   # the score, from the files\n"
         << "    rbdref audit --model model.json --engines " << o.engine << " --no-baseline   # the engine again, on fresh samples\n"
         << "    rbdref eval model.json --state STATE.json                       # the reference at one state\n";
  return readme.str();
}

}  // namespace

nlohmann::ordered_json write_reproducer(const HuntOptions& o, const Finding& f) {
  const Outcome& out = f.outcome;
  const std::string dir = o.out + "/" + o.engine + "-" + std::to_string(f.seed);
  StagedFolder stage(dir);
  write_file_atomic(stage.path(dir + "/model.json"), model_to_json(f.model).dump(1) + "\n");
  if (out.fixture) write_file_atomic(stage.path(dir + "/fixture.json"), fixture_text(fixture_to_json(*out.fixture)));
  if (out.output) write_file_atomic(stage.path(dir + "/engine.json"), engine_output_to_json(*out.output).dump(1) + "\n");
  if (out.report) write_file_atomic(stage.path(dir + "/report.json"), report_to_json(*out.report).dump(1) + "\n");
  write_file_atomic(stage.path(dir + "/README.md"), readme_of(o, f));
  stage.commit(StagedFolder::When::Now);  // kept as found: an interrupted hunt keeps its findings
  std::cerr << "hunt: seed " << f.seed << ": shrunk to " << f.model.bodies.size() << " bodies; wrote " << dir << "/\n";
  return {{"seed", f.seed}, {"signature", f.signature}, {"diagnosis", out.summary}, {"bodies", f.model.bodies.size()},
          {"bodies_before", f.bodies_before}, {"sample", f.sample}, {"folder", dir}};
}

nlohmann::ordered_json hunt_summary(const HuntOptions& o, const HuntPlan& plan, const HuntTally& tally) {
  nlohmann::ordered_json doc = {{"format", "rbdref.hunt"},
                                {"version", 1},
                                {"engine", o.engine},
                                {"engine_version", plan.adapter->version()},
                                {"seed", o.seed},
                                {"budget_s", o.budget},
                                {"trials", tally.trials},
                                {"skipped", tally.skipped},
                                {"findings", tally.findings}};
  if (!o.shard.whole()) doc["shard"] = {{"index", o.shard.index}, {"count", o.shard.count}};
  return doc;
}

}  // namespace rbd::hunt
