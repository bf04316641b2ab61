// The table the audit prints at its end (audit.hpp): one row per engine × model, one column per
// quantity (the smallest LRE digits over the samples, with '!' outside tolerance and '~' outside
// it by a declared convention), the model echo, the checks, the status; then every failure's
// diagnosis and the baseline's verdicts.
#include "audit/audit.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace rbd::audit {

namespace {

std::string fmt_digits(double d) {
  char b[16];
  std::snprintf(b, sizeof b, "%.1f", d);
  return b;
}

std::string tag(const RunResult& run) { return run.engine + " × " + run.model; }

void header_row(std::ostringstream& t) {
  char line[256];
  std::snprintf(line, sizeof line, "%-10s %-22s", "engine", "model");
  t << line;
  for (const std::string& q : engine_quantities()) {
    std::snprintf(line, sizeof line, " %9s", q.c_str());
    t << line;
  }
  t << "  echo     checks  status\n";
}

// A run's row: its digits per quantity, echo, failed checks and verdict; a run without a report
// says why.
void run_row(std::ostringstream& t, const RunResult& run, bool with_baseline) {
  char line[256];
  std::snprintf(line, sizeof line, "%-10s %-22s", run.engine.c_str(), run.model.c_str());
  t << line;
  if (!run.report) {
    t << "  " << to_string(run.status) << ": " << run.reason << "\n";
    return;
  }
  const Report& r = *run.report;
  for (const std::string& q : engine_quantities()) {
    std::string cell = "-";
    for (const QuantityScore& s : r.quantities)
      if (s.quantity == q && s.samples > 0) cell = fmt_digits(s.min_digits) + (s.passed ? " " : s.convention.empty() ? "!" : "~");
    std::snprintf(line, sizeof line, " %9s", cell.c_str());
    t << line;
  }
  const std::string echo = r.model_echo.is_object() ? r.model_echo.value("status", "?") : "none";
  int failed_checks = 0;
  for (const SampleCheck& c : r.checks) failed_checks += c.result.passed || !c.convention.empty() ? 0 : 1;
  std::string verdict = r.passed ? to_string(RunStatus::Passed) : "FAILED";
  if (with_baseline) {
    const BaselineVerdict v = run.verdict ? *run.verdict : BaselineVerdict{};
    if (v.regressed()) verdict = "REGRESSED";
    else if (v.found()) verdict = "FAILED";
    else if (!r.passed) verdict = to_string(BaselineStatus::Known);
  }
  std::snprintf(line, sizeof line, "  %-8s %-6s  %s\n", echo.c_str(), failed_checks ? std::to_string(failed_checks).c_str() : "ok",
                verdict.c_str());
  t << line;
}

// Every failed run's diagnosis, and every declared convention's, with the baseline's reason when
// the failure is known.
void diagnosis_lines(std::ostringstream& t, const AuditResults& results) {
  for (const RunResult& run : results.runs) {
    if (run.status != RunStatus::Failed && run.diagnosis.rfind("convention (declared)", 0) != 0) continue;
    t << tag(run) << ": " << run.diagnosis;
    if (run.verdict && run.verdict->status() == BaselineStatus::Known)
      t << (run.verdict->reason.empty() ? " [known: baseline]" : " [known: baseline: " + run.verdict->reason + "]");
    t << "\n";
  }
}

// The baseline's counts, then its lines per run (notes, regressions, findings, improvements), the
// runs in the order of their "engine × model" text.
void baseline_lines(std::ostringstream& t, const Baseline& baseline, const AuditResults& results) {
  std::vector<const RunResult*> judged;
  for (const RunResult& run : results.runs)
    if (run.verdict) judged.push_back(&run);
  std::stable_sort(judged.begin(), judged.end(), [](const RunResult* a, const RunResult* b) { return tag(*a) < tag(*b); });
  size_t n_known = 0, n_reg = 0, n_imp = 0, n_found = 0;
  std::ostringstream lines;
  for (const RunResult* run : judged) {
    const BaselineVerdict& v = *run->verdict;
    const std::string tg = tag(*run);
    n_known += v.known.empty() ? 0 : 1;
    n_reg += v.regressed() ? 1 : 0;
    n_found += v.found() ? 1 : 0;
    if (!v.other_entry.empty() && v.found()) lines << "  note       " << tg << ": " << v.other_entry << "\n";
    for (const std::string& x : v.regressions) lines << "  REGRESSION " << tg << ": " << x << "\n";
    for (const std::string& x : v.findings) lines << "  FINDING    " << tg << ": " << x << "\n";
    for (const std::string& x : v.improvements) n_imp++, lines << "  improved   " << tg << ": " << x << "\n";
  }
  t << "baseline " << baseline.file << " (margin " << fmt_digits(baseline.margin) << " digits): " << n_reg
    << " engine × model with regressions, " << n_known << " with known discrepancies only"
    << (n_found ? ", " + std::to_string(n_found) + " with findings no entry covers" : std::string())
    << (n_imp ? ", improvements to record (--write-baseline)" : "") << "\n"
    << lines.str();
}

}  // namespace

std::string audit_summary(const AuditPlan& plan, const AuditResults& results) {
  std::ostringstream t;
  header_row(t);
  for (const RunResult& run : results.runs) run_row(t, run, plan.baseline.has_value());
  t << "(cells: the smallest LRE digits over the samples, capped at the certified digits; '!' = outside tolerance;\n"
       " '~' = outside tolerance by a convention the engine declares, e.g. soft loop constraints: not a defect)\n";
  diagnosis_lines(t, results);
  if (plan.baseline) baseline_lines(t, *plan.baseline, results);
  return t.str();
}

}  // namespace rbd::audit
