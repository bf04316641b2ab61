// rbdref hunt --engine E [--budget SECONDS] [--seed S] [--out DIR] [--max-findings N] [--shard K/N]
//
// Differential fuzzing of one engine against the reference: random trees of the joint types the
// engine declares it runs, stressed; each run that fails (a quantity or check outside tolerance,
// the echo differing, the engine refusing a model it declares it runs) is a finding, shrunk to the
// smallest model and state that still fails the same way, its reproducer written to
// DIR/<engine>-<trial seed>/ (model.json, fixture.json, engine.json, report.json, README.md).
// The summary (format "rbdref.hunt") goes to standard output. Bounded by --budget (wall seconds,
// default 60; shrinking shares it) and --max-findings; trial t uses --seed + t. --shard K/N runs
// the trials t ≡ K-1 (mod N) only (`rbdref merge` joins the N summaries; docs/campaigns.md).
// Exit 0 when no finding, 1 when findings were written, 2 on bad input.
// The stages are the hunt library's (hunt/hunt.hpp); this file reads the options.
#include "cli/commands.hpp"
#include "hunt/hunt.hpp"

#include <memory>

namespace rbd::cli {

Run add_hunt(CLI::App& app) {
  auto o = std::make_shared<hunt::HuntOptions>();
  auto seed = std::make_shared<std::string>("1");  // as given: parsed by parse_seed (no silent wrap of -1 or 2^64)
  auto shard = std::make_shared<std::string>();    // --shard K/N (empty: every trial)
  CLI::App* sub = app.add_subcommand("hunt", "Differential fuzzing of one engine: random models and states, findings shrunk to a reproducer");
  sub->add_option("--engine", o->engine, "The engine adapter to hunt (rbdref engines lists them)")->required();
  sub->add_option("--budget", o->budget, "Wall-clock seconds for trials and shrinking (default 60)");
  sub->add_option("--seed", *seed, "Seed of the first trial: an integer 0..2^64-1 (trial t uses seed + t; default 1)");
  add_output_option(sub, "--out", o->out, "Folder for the reproducers (default hunt-out)");
  sub->add_option("--max-findings", o->max_findings, "Stop after this many findings (default 3)");
  sub->add_option("--shard", *shard,
                  "K/N: run only the trials t = K-1, K-1+N, K-1+2N, ... (an independent process with its own budget; "
                  "`rbdref merge` joins the N summaries; docs/campaigns.md)");
  return [o, seed, shard] {
    o->seed = parse_seed(*seed, "--seed");
    if (!shard->empty()) o->shard = parse_shard(*shard, "--shard");
    return hunt::run_hunt(*o);
  };
}

}  // namespace rbd::cli
