// The audit judged against its baseline (audit.hpp; reports/baseline.hpp): a run is "known" when
// it fails only by what the baseline lists, "regressed" when it has a regression.
#include "audit/audit.hpp"

namespace rbd::audit {

AuditJudgement judge_baseline(const AuditPlan& plan, AuditResults& results) {
  AuditJudgement j;
  if (!plan.baseline) return j;
  const Baseline& baseline = *plan.baseline;
  j.known.source = "baseline " + baseline.file;
  for (RunResult& run : results.runs) {
    if (run.status == RunStatus::NotAvailable) continue;
    BaselineVerdict v = judge(baseline, run);
    j.regressed = j.regressed || v.regressed();
    j.found = j.found || v.found();
    // JUnit names a report by the model's own name, which for --model is not the run's name.
    if (run.report) j.known.names[run.report->engine + " × " + run.report->model_name] = v.known_names;
    run.verdict = std::move(v);
  }
  return j;
}

}  // namespace rbd::audit
