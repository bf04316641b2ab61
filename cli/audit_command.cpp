// rbdref audit [--engines E,...] [--models M,...] [--out DIR] [--data DIR] [--update-golden]
//              [--tol Q=REL ...] [--baseline FILE | --no-baseline] [--write-baseline FILE]
//              [--model FILE ... [--floating-base] [--samples N] [--seed S] [--cache DIR | --no-cache]]
//
// The main job: for each bundled model (DATA/models/manifest.json) × each engine adapter of this
// build: reuse the golden fixture (DATA/golden/<model>.fixture.json) when its model still hashes
// the same, else make a fresh one (into DIR/fixtures, or in place with --update-golden); run the
// adapter; compare; check; write per-pair engine outputs and reports (JSON), the combined audit
// (DIR/audit.json) and JUnit XML (DIR/junit.xml); print the summary table engine × model ×
// quantity → min digits and status. Exit 0 when everything is within tolerance, 1 on any
// discrepancy or engine failure, 2 on bad input (unknown engine or model name, bad manifest).
// With a baseline (--baseline FILE, else DATA/baseline.json when it exists, unless --no-baseline;
// reports/baseline.hpp) exit 1 only on a regression against it: known discrepancies are printed
// as known. --write-baseline FILE records this audit's results as a baseline (keeping the reasons
// of the baseline it was judged against).
// --model FILE (repeatable) audits the user's own models (URDF, MJCF or rbdref JSON) instead of the bundled
// ones (with --models too, both): the fixture is made once per model hash × samples × seed and kept
// in the cache folder (--cache, default $XDG_CACHE_HOME/rbdref or ~/.cache/rbdref), reused while
// the model hashes the same.
// The stages are the audit library's (audit/audit.hpp); this file reads the options.
#include "audit/audit.hpp"
#include "cli/commands.hpp"

#include <memory>

namespace rbd::cli {

Run add_audit(CLI::App& app) {
  auto o = std::make_shared<audit::AuditOptions>();
  CLI::App* sub = app.add_subcommand("audit", "Audit every available engine on every bundled model: fixtures, engines, compare, checks, reports");
  CLI::Option* eng = sub->add_option("--engines", o->engines, "Comma-separated engines (default: every adapter of this build)");
  CLI::Option* mod = sub->add_option("--models", o->models, "Comma-separated bundled model names (default: all in the manifest)");
  sub->add_option("--out", o->out, "Output folder (default audit-out)")->check(nonempty_output);
  sub->add_option("--data", o->data, "Folder holding models/manifest.json and golden/ (default: the source tree's fixtures/, else found beside the binary)");
  sub->add_option("--tol", o->tol, tol_option_help());
  sub->add_flag("--update-golden", o->update_golden, "Regenerate the golden fixtures in DATA/golden instead of reusing them");
  CLI::Option* bl = sub->add_option("--baseline", o->baseline,
                                    "Judge against a baseline (rbdref.baseline, or a previous audit.json): exit 1 only on a regression "
                                    "(default: DATA/baseline.json when it exists)");
  sub->add_flag("--no-baseline", o->no_baseline, "Judge by tolerance alone, ignoring DATA/baseline.json")->excludes(bl);
  sub->add_option("--write-baseline", o->write_baseline, "Write this audit's results as a baseline to FILE")->check(nonempty_output);
  sub->add_option("--model", o->user_models, "Audit this model file (URDF, MJCF or rbdref JSON; repeatable) instead of the bundled models");
  CLI::Option* fb = sub->add_flag("--floating-base", o->floating_base, "--model: attach each root to the world by a free joint");
  CLI::Option* ns = sub->add_option("--samples", o->samples, "--model: number of samples (default 8)");
  CLI::Option* sd = sub->add_option("--seed", o->seed, "--model: seed of the sample generator (default 1)");
  CLI::Option* cache = sub->add_option("--cache", o->cache, "--model: fixture cache folder (default $XDG_CACHE_HOME/rbdref, else ~/.cache/rbdref)");
  sub->add_flag("--no-cache", o->no_cache, "--model: make every fixture anew, cache nothing")->excludes(cache);
  sub->add_option("--max-memory", o->max_memory,
                  "Refuse a model whose estimated memory exceeds SIZE (bytes, or with K, M, G, T; default RBDREF_MAX_MEMORY, "
                  "else 3/4 of the physical memory)");
  return [o, eng, mod, fb, ns, sd, cache] {
    o->engines_given = eng->count() > 0;
    o->models_given = mod->count() > 0;
    for (CLI::Option* x : {fb, ns, sd, cache})
      if (x->count() > 0 && o->model_only_given.empty()) o->model_only_given = x->get_name();
    return audit::run_audit(*o);
  };
}

}  // namespace rbd::cli
