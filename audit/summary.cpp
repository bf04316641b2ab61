// The table the audit prints at its end (audit.hpp): one row per engine × model, one column per
// quantity (the smallest LRE digits over the samples, with '!' outside tolerance and '~' outside
// it by a declared convention), the model echo, the checks, the status; then every failure's
// diagnosis and the baseline's verdicts.
#include "audit/audit.hpp"

#include <cstdio>
#include <sstream>

namespace rbd::audit {

namespace {

using ojson = nlohmann::ordered_json;

std::string fmt_digits(double d) {
  char b[16];
  std::snprintf(b, sizeof b, "%.1f", d);
  return b;
}

}  // namespace

std::string audit_summary(const AuditPlan& plan, const AuditResults& results, const AuditJudgement& judgement) {
  const std::optional<Baseline>& baseline = plan.baseline;
  std::ostringstream t;
  const std::vector<std::string>& qs = engine_quantities();
  char line[256];
  std::snprintf(line, sizeof line, "%-10s %-22s", "engine", "model");
  t << line;
  for (const std::string& q : qs) {
    std::snprintf(line, sizeof line, " %9s", q.c_str());
    t << line;
  }
  t << "  echo     checks  status\n";
  size_t ri = 0;
  for (const ojson& run : results.runs_json) {
    std::snprintf(line, sizeof line, "%-10s %-22s", run["engine"].get<std::string>().c_str(), run["model"].get<std::string>().c_str());
    t << line;
    const std::string status = run["status"];
    if (status != "passed" && status != "failed") {
      t << "  " << status << ": " << run.value("reason", "") << "\n";
      continue;
    }
    const Report& r = results.reports[ri++];
    for (const std::string& q : qs) {
      std::string cell = "-";
      for (const QuantityScore& s : r.quantities)
        if (s.quantity == q && s.samples > 0) cell = fmt_digits(s.min_digits) + (s.passed ? " " : s.convention.empty() ? "!" : "~");
      std::snprintf(line, sizeof line, " %9s", cell.c_str());
      t << line;
    }
    const std::string echo = r.model_echo.is_object() ? r.model_echo.value("status", "?") : "none";
    int failed_checks = 0;
    for (const SampleCheck& c : r.checks) failed_checks += c.result.passed || !c.convention.empty() ? 0 : 1;
    std::string verdict = r.passed ? "passed" : "FAILED";
    if (baseline) {
      const auto it = judgement.verdicts.find(run["engine"].get<std::string>() + " × " + run["model"].get<std::string>());
      const BaselineVerdict v = it == judgement.verdicts.end() ? BaselineVerdict{} : it->second;
      if (v.regressed()) verdict = "REGRESSED";
      else if (v.found()) verdict = "FAILED";
      else if (!r.passed) verdict = "known";
    }
    std::snprintf(line, sizeof line, "  %-8s %-6s  %s\n", echo.c_str(), failed_checks ? std::to_string(failed_checks).c_str() : "ok",
                  verdict.c_str());
    t << line;
  }
  t << "(cells: the smallest LRE digits over the samples, capped at the certified digits; '!' = outside tolerance;\n"
       " '~' = outside tolerance by a convention the engine declares, e.g. soft loop constraints: not a defect)\n";
  for (const ojson& run : results.runs_json)
    if (run.value("status", "") == "failed" || run.value("diagnosis", "").rfind("convention (declared)", 0) == 0)
      t << run["engine"].get<std::string>() << " × " << run["model"].get<std::string>() << ": " << run["diagnosis"].get<std::string>()
        << [&]() -> std::string {
             if (!run.contains("baseline") || run["baseline"]["status"] != "known") return "";
             const BaselineEntry* e = baseline->find(run["engine"], run["model"]);
             return e && !e->reason.empty() ? " [known: baseline: " + e->reason + "]" : " [known: baseline]";
           }() << "\n";
  if (baseline) {
    size_t n_known = 0, n_reg = 0, n_imp = 0, n_found = 0;
    std::ostringstream lines;
    for (const auto& [tag, v] : judgement.verdicts) {
      n_known += v.known.empty() ? 0 : 1;
      n_reg += v.regressed() ? 1 : 0;
      n_found += v.found() ? 1 : 0;
      if (!v.other_entry.empty() && v.found()) lines << "  note       " << tag << ": " << v.other_entry << "\n";
      for (const std::string& x : v.regressions) lines << "  REGRESSION " << tag << ": " << x << "\n";
      for (const std::string& x : v.findings) lines << "  FINDING    " << tag << ": " << x << "\n";
      for (const std::string& x : v.improvements) n_imp++, lines << "  improved   " << tag << ": " << x << "\n";
    }
    t << "baseline " << baseline->file << " (margin " << fmt_digits(baseline->margin) << " digits): " << n_reg
      << " engine × model with regressions, " << n_known << " with known discrepancies only"
      << (n_found ? ", " + std::to_string(n_found) + " with findings no entry covers" : std::string()) << (n_imp ? ", improvements to record (--write-baseline)" : "")
      << "\n" << lines.str();
  }

  return t.str();
}

}  // namespace rbd::audit
