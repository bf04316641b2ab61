// The audit (`rbdref audit`, the main job) as library stages, which run_audit calls in order:
//
//   plan_audit       what to audit: the models (the bundled manifest, --models, the user's
//                    --model files), the engines (the registry's, --engines), the tolerance
//                    overrides, the baseline; then every input read (models, golden fixtures)
//                    and every output path checked, before anything is written
//   audit_fixture    per model, its fixture: the golden one while the model hashes the same, the
//                    cached one of a user's model, else a new one (into the cache or --out)
//   run_engines      per model, each adapter run on the fixture and its output compared: one
//                    RunResult per engine × model (AuditResults)
//   link_reports     each run pointed at its report
//   judge_baseline   each run judged against the baseline (its verdict: known, regressed, ...)
//   audit_summary    the table engine × model × quantity printed at the end
//   write_audit      audit.json (audit_document, the one place the results become JSON),
//                    junit.xml, report.html (made from that document), the baseline asked for
//
// Judge, summary and outputs read the results (AuditResults); report.html is made from audit.json's
// document in memory, as `rbdref html` makes it from the file, so that both give the same page.
// Exit status of run_audit: 0 everything within tolerance (or, with a baseline, no regression),
// 1 a discrepancy or an engine failure, 2 (InputError) bad input, found before any output.
// docs/reports.md describes the outputs, docs/engines.md the engines.
#pragma once

#include "engines/adapter.hpp"
#include "fixtures/fixture.hpp"
#include "io/staging.hpp"
#include "reports/baseline.hpp"
#include "reports/compare.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rbd::audit {

struct AuditOptions {
  std::string engines, models, out = "audit-out", data;
  bool engines_given = false, models_given = false;
  std::string model_only_given;  // an option that applies to --model, given without it
  std::vector<std::string> tol;  // --tol Q=REL, as `compare` reads them
  bool update_golden = false;
  std::string baseline, write_baseline;
  bool no_baseline = false;
  std::vector<std::string> user_models;  // --model
  bool floating_base = false;
  int samples = 8;
  std::uint64_t seed = 1;
  std::string cache;
  bool no_cache = false;
  std::string max_memory;  // --max-memory (certify/memory.hpp)
};

// One model of the audit: a manifest entry (docs/formats.md, "Manifest") or a --model file.
struct ManifestEntry {
  std::string name, file;
  std::string loops;     // a loops file beside a URDF or JSON tree, or empty
  std::string contacts;  // a contacts file (docs/contact.md), or empty
  bool floating_base = false;
  int samples = 8;
  std::uint64_t seed = 1;
  std::string description;
  bool user = false;  // --model: file is the user's path, not in the data folder
};

// DATA/models/manifest.json, every field checked (InputError naming it).
std::vector<ManifestEntry> read_manifest(const std::string& path);

struct AuditPlan {
  std::string data, models_dir, golden_dir;
  std::string cache;  // the fixture cache of --model files, or empty
  std::vector<ManifestEntry> models;
  std::vector<LoadedModel> loaded;             // per model
  std::vector<std::optional<Fixture>> goldens; // per model: its golden fixture, when reused
  std::vector<std::unique_ptr<EngineAdapter>> adapters;
  std::vector<std::string> not_built;          // asked for, known, but not in this build
  std::map<std::string, double> tolerance_overrides;
  std::optional<Baseline> baseline;
  // Where the outputs under --out are written until the audit is complete (io/staging.hpp);
  // staged(plan, path) is the place to write `path`.
  StagedFolder* stage = nullptr;
};
inline std::string staged(const AuditPlan& plan, const std::string& path) { return plan.stage ? plan.stage->path(path) : path; }
AuditPlan plan_audit(const AuditOptions& o);

struct AuditFixture {
  Fixture fixture;
  std::string file;  // where it is (golden, cache, or DIR/fixtures)
};
AuditFixture audit_fixture(const AuditOptions& o, const AuditPlan& plan, size_t model);

// One engine × model run: what the baseline judges (AuditRun: engine, model, status, diagnosis,
// reason, report, identity), the files written of it, and its verdict. audit.json's runs[].
struct RunResult : AuditRun {
  std::string fixture, engine_output, report_file;  // when it has a report (passed or failed)
  std::optional<size_t> report_index;               // its report in AuditResults::reports
  std::optional<BaselineVerdict> verdict;           // judged against the baseline (not when not available)
};

// One audited model (audit.json's models[]): its file, hash and samples, the samples' kinds and
// κ₂(H) for the HTML report.
struct AuditModel {
  struct Sample {
    std::string id, kind;
    double kappa = 0;  // κ₂(H); infinity where H is singular
  };
  std::string name, file, sha256;
  size_t dofs = 0;
  std::uint64_t seed = 0;
  std::vector<Sample> samples;
};

struct AuditResults {
  std::vector<Report> reports;
  std::vector<RunResult> runs;     // every engine × model, in the order they ran
  std::vector<AuditModel> models;  // per model
  bool all_ok = true;              // every run within tolerance, no engine failed
};
// Runs every adapter of the plan on the model's fixture and appends the model and its runs (their
// engine outputs and reports written under --out as they are made).
void run_engines(const AuditOptions& o, const AuditPlan& plan, size_t model, const AuditFixture& fx,
                 AuditResults& results);

// Points each run at its report, once every report is made (the vector no longer grows).
void link_reports(AuditResults& results);

struct AuditJudgement {
  KnownFailures known;  // for JUnit
  bool regressed = false;
  bool found = false;  // a failure of a run no baseline entry applies to
};
// Against plan.baseline (nothing without one): sets each run's verdict (every run but the not
// available ones).
AuditJudgement judge_baseline(const AuditPlan& plan, AuditResults& results);

std::string audit_summary(const AuditPlan& plan, const AuditResults& results);

// audit.json's document (docs/reports.md): format, version, passed, the baseline, runs, models,
// reports.
nlohmann::ordered_json audit_document(const AuditPlan& plan, const AuditResults& results, const AuditJudgement& judgement);

// audit.json, junit.xml and report.html into the stage, and the --write-baseline file when it is
// under --out; write_baseline writes it (after the stage is committed when it is elsewhere).
void write_audit(const AuditOptions& o, const AuditPlan& plan, const AuditResults& results,
                 const AuditJudgement& judgement);
void write_baseline(const AuditOptions& o, const AuditPlan& plan, const AuditResults& results);

int run_audit(const AuditOptions& o);

// Helpers the stages share (audit/plan.cpp).
std::vector<std::string> split_list(const std::string& s);  // "a,b" -> {a, b}, empty items dropped

}  // namespace rbd::audit
