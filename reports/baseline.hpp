// CI baselines for `rbdref audit --baseline FILE` (docs/reports.md "Baselines").
//
// A baseline records, per engine × model, the smallest digits of every quantity and the
// discrepancies that are known (with their diagnosis and, hand-written, the reason they are
// accepted). A project adopts rbdref with its known discrepancies and ratchets: an audit judged
// against a baseline fails only on a regression, and prints the known discrepancies as known.
//
// Regressions of one engine × model run (R the run now, B its baseline entry, m the margin):
//   - R's engine failed (threw) and B does not record that;
//   - a quantity with B's digits d_B now has fewer than d_B − m digits (a loss of digits, even
//     inside tolerance: the ratchet);
//   - a quantity, a check kind, the samples (engine errors, other inputs) or the model echo fails
//     now and is not among B's known failures (within the margin or not: a new failure);
// An entry applies to a run of the same engine and model name *and* the same model and fixture: its
// model_sha256 (the canonical model's hash), samples and seed, where the entry records them (an
// entry written before they were recorded applies by name). A run with no entry that applies is
// judged by tolerance alone, and its failures are findings, not regressions: nothing regressed
// that was never recorded (a user's --model named like a bundled one, the same model with other
// samples). The audit exits 1 on a regression or a finding.
// Known: the failures B lists, within the margin. Improved: a known failure now within tolerance,
// or a quantity more than m digits above d_B (the baseline can be raised: --write-baseline).
// A run B lists that did not run now (engine not built, model not selected) is neither.
//
// The file is either a baseline (format "rbdref.baseline", version 1, written by
// `audit --write-baseline`, meant to be edited by hand) or a previous audit's audit.json (format
// "rbdref.audit"), whose runs and reports give the same entries with the default margin.
#pragma once

#include "reports/compare.hpp"
#include "reports/run_status.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rbd {

struct BaselineEntry {
  std::string engine, model;
  RunStatus status = RunStatus::Passed;  // any but not available
  std::map<std::string, double> digits;  // quantity -> smallest digits over the samples
  std::set<std::string> known_failures;  // quantity names, check names, "samples", "model_echo"
  std::string diagnosis, reason;         // the audit's diagnosis; why it is accepted (hand-written)
  double margin = -1;                    // this entry's margin in digits; -1: the file's
  // What the entry was recorded on; empty / 0 / unset: not recorded (the entry applies by name).
  std::string model_sha256;
  int samples = 0;
  std::optional<std::uint64_t> seed;
};

struct Baseline {
  std::string file;
  double margin = 0.5;  // digits
  std::vector<BaselineEntry> entries;
  // The entry of engine × model (by name), or null.
  const BaselineEntry* find(const std::string& engine, const std::string& model) const;
};

// What a run was made on: its fixture's model hash, sample count and seed.
struct RunIdentity {
  std::string model_sha256;
  int samples = 0;
  std::uint64_t seed = 0;
};
// Whether entry e was recorded on this model and fixture (fields e lacks are not compared).
bool entry_applies(const BaselineEntry& e, const RunIdentity& id);

// Reads a baseline or an audit.json. InputError naming the file and the field otherwise.
Baseline read_baseline(const std::string& path);

// One run of an audit, as the baseline sees it: its status and, when it ran, its report.
struct AuditRun {
  std::string engine, model;
  RunStatus status = RunStatus::Passed;
  std::string diagnosis, reason;  // the report's diagnosis; why it did not run or failed
  const Report* report = nullptr;
  RunIdentity identity;
};

// The entry a run makes: digits rounded down to 0.1 (a baseline must not sit on the edge of a
// rounding), the failures it has now, its diagnosis.
BaselineEntry baseline_entry(const AuditRun& run);
nlohmann::ordered_json baseline_to_json(const std::vector<BaselineEntry>& entries, double margin);

struct BaselineVerdict {
  std::string engine, model;
  bool in_baseline = false;                                   // an entry applies
  std::string other_entry;                                    // an entry of this name for another model or fixture
  std::vector<std::string> regressions, known, improvements;  // one line each, for people
  std::vector<std::string> findings;                          // failures of a run no entry applies to
  std::set<std::string> known_names;                          // the failing names B accepts
  std::string reason;                                         // B's reason, hand-written
  bool regressed() const { return !regressions.empty(); }
  bool found() const { return !findings.empty(); }
  // regressed, else known (a known failure), else matches (an entry applies), else not in baseline.
  BaselineStatus status() const {
    return regressed() ? BaselineStatus::Regressed : !known.empty() ? BaselineStatus::Known
                                                   : in_baseline   ? BaselineStatus::Matches
                                                                   : BaselineStatus::NotInBaseline;
  }
};

BaselineVerdict judge(const Baseline& b, const AuditRun& run);

// The failures of a report that fail it (not explained by a declared convention): quantity names,
// check names, "samples" and "model_echo".
std::set<std::string> report_failures(const Report& r);

}  // namespace rbd
