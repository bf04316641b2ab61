// The audit judged against its baseline (audit.hpp; reports/baseline.hpp): a run is "known" when
// it fails only by what the baseline lists, "regressed" when it has a regression.
#include "audit/audit.hpp"

namespace rbd::audit {

AuditJudgement judge_baseline(const AuditPlan& plan, AuditResults& results) {
  AuditJudgement j;
  if (!plan.baseline) return j;
  const Baseline& baseline = *plan.baseline;
  j.known.source = "baseline " + baseline.file;
  for (const AuditRun& ar : results.runs) {
    BaselineVerdict v = judge(baseline, ar);
    j.regressed = j.regressed || v.regressed();
    j.found = j.found || v.found();
    // JUnit names a report by the model's own name, which for --model is not the run's name.
    if (ar.report) j.known.names[ar.report->engine + " × " + ar.report->model_name] = v.known_names;
    j.verdicts[ar.engine + " × " + ar.model] = std::move(v);
  }
  for (nlohmann::ordered_json& run : results.runs_json) {
    const auto it = j.verdicts.find(run["engine"].get<std::string>() + " × " + run["model"].get<std::string>());
    if (it == j.verdicts.end()) continue;
    const BaselineVerdict& v = it->second;
    run["baseline"] = {{"status", v.regressed() ? "regressed" : !v.known.empty() ? "known" : v.in_baseline ? "matches" : "not in baseline"},
                       {"regressions", v.regressions}, {"known", v.known}, {"improvements", v.improvements},
                       {"findings", v.findings}};
    if (!v.reason.empty()) run["baseline"]["reason"] = v.reason;
    if (!v.other_entry.empty()) run["baseline"]["other_entry"] = v.other_entry;
  }
  return j;
}

}  // namespace rbd::audit
