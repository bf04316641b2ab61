// The audit's outputs (audit.hpp; docs/reports.md): audit.json (every run, the models, every
// report), junit.xml, the self-contained report.html (made from audit.json's document), and with
// --write-baseline the baseline of this audit (keeping the reasons of the baseline it was judged
// against). Each written atomically.
#include "audit/audit.hpp"
#include "reports/html_report.hpp"

#include <cmath>
#include <iostream>

namespace rbd::audit {

namespace {

using ojson = nlohmann::ordered_json;

// A run's verdict: its baseline status and the lines behind it.
ojson verdict_json(const BaselineVerdict& v) {
  ojson j = {{"status", to_string(v.status())}, {"regressions", v.regressions}, {"known", v.known},
             {"improvements", v.improvements}, {"findings", v.findings}};
  if (!v.reason.empty()) j["reason"] = v.reason;
  if (!v.other_entry.empty()) j["other_entry"] = v.other_entry;
  return j;
}

// audit.json's runs[i]: with a report its diagnosis, files and report index; without, the reason.
ojson run_json(const RunResult& run) {
  ojson j = {{"engine", run.engine}, {"model", run.model}, {"status", to_string(run.status)}};
  if (run.report_index) {
    j["diagnosis"] = run.diagnosis;
    j["fixture"] = run.fixture;
    j["engine_output"] = run.engine_output;
    j["report"] = run.report_file;
    j["report_index"] = *run.report_index;
  } else {
    j["reason"] = run.reason;
  }
  if (run.verdict) j["baseline"] = verdict_json(*run.verdict);
  return j;
}

// audit.json's models[i]; κ₂(H) is "inf" where H is singular (JSON has no infinity).
ojson model_json(const AuditModel& m) {
  ojson samples = ojson::array();
  for (const AuditModel::Sample& s : m.samples)
    samples.push_back({{"id", s.id}, {"kind", s.kind}, {"kappa", std::isfinite(s.kappa) ? ojson(s.kappa) : ojson("inf")}});
  return {{"name", m.name}, {"file", m.file}, {"sha256", m.sha256}, {"dofs", m.dofs}, {"seed", m.seed}, {"samples", samples}};
}

}  // namespace

ojson audit_document(const AuditPlan& plan, const AuditResults& results, const AuditJudgement& judgement) {
  ojson audit;
  audit["format"] = "rbdref.audit";
  audit["version"] = 1;
  audit["passed"] = results.all_ok;
  if (plan.baseline)
    audit["baseline"] = {{"file", plan.baseline->file}, {"margin_digits", plan.baseline->margin}, {"regressed", judgement.regressed}};
  ojson runs = ojson::array(), models = ojson::array(), reports = ojson::array();
  for (const RunResult& run : results.runs) runs.push_back(run_json(run));
  for (const AuditModel& m : results.models) models.push_back(model_json(m));
  for (const Report& r : results.reports) reports.push_back(report_to_json(r));
  audit["runs"] = runs;
  audit["models"] = models;
  audit["reports"] = reports;
  return audit;
}

void write_audit(const AuditOptions& o, const AuditPlan& plan, const AuditResults& results,
                 const AuditJudgement& judgement) {
  const ojson audit = audit_document(plan, results, judgement);
  write_file_atomic(staged(plan, o.out + "/audit.json"), audit.dump(1) + "\n");
  write_file_atomic(staged(plan, o.out + "/junit.xml"), reports_to_junit(results.reports, judgement.known));
  write_file_atomic(staged(plan, o.out + "/report.html"), audit_html(audit));
  // A baseline under --out is part of the staged result; elsewhere it is written after it.
  if (!o.write_baseline.empty() && staged(plan, o.write_baseline) != o.write_baseline) write_baseline(o, plan, results);
}

void write_baseline(const AuditOptions& o, const AuditPlan& plan, const AuditResults& results) {
  const std::optional<Baseline>& baseline = plan.baseline;
  if (!o.write_baseline.empty()) {
    std::vector<BaselineEntry> entries;
    for (const RunResult& run : results.runs) {
      if (run.status == RunStatus::NotAvailable) continue;
      BaselineEntry e = baseline_entry(run);
      if (baseline)
        if (const BaselineEntry* old = baseline->find(run.engine, run.model)) e.reason = old->reason, e.margin = old->margin;
      entries.push_back(std::move(e));
    }
    const std::string file = staged(plan, o.write_baseline);
    if (file != o.write_baseline) make_dir(file.substr(0, file.find_last_of('/')));  // a folder under --out
    write_file_atomic(file, baseline_to_json(entries, baseline ? baseline->margin : 0.5).dump(1) + "\n");
    std::cerr << "audit: wrote the baseline " << o.write_baseline << " (" << entries.size() << " engine × model entries)\n";
  }
}

}  // namespace rbd::audit
