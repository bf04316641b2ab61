// The audit's outputs (audit.hpp; docs/reports.md): audit.json (every run, the models, every
// report), junit.xml, the self-contained report.html, and with --write-baseline the baseline of
// this audit (keeping the reasons of the baseline it was judged against). Each written atomically.
#include "audit/audit.hpp"
#include "reports/html_report.hpp"

#include <iostream>

namespace rbd::audit {

void write_audit(const AuditOptions& o, const AuditPlan& plan, const AuditResults& results,
                 const AuditJudgement& judgement) {
  using ojson = nlohmann::ordered_json;
  const std::optional<Baseline>& baseline = plan.baseline;
  ojson audit;
  audit["format"] = "rbdref.audit";
  audit["version"] = 1;
  audit["passed"] = results.all_ok;
  if (baseline) audit["baseline"] = {{"file", baseline->file}, {"margin_digits", baseline->margin}, {"regressed", judgement.regressed}};
  audit["runs"] = results.runs_json;
  audit["models"] = results.model_info;
  ojson rj = ojson::array();
  for (const Report& r : results.reports) rj.push_back(report_to_json(r));
  audit["reports"] = rj;
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
    for (const AuditRun& ar : results.runs) {
      BaselineEntry e = baseline_entry(ar);
      if (baseline)
        if (const BaselineEntry* old = baseline->find(ar.engine, ar.model)) e.reason = old->reason, e.margin = old->margin;
      entries.push_back(std::move(e));
    }
    const std::string file = staged(plan, o.write_baseline);
    if (file != o.write_baseline) make_dir(file.substr(0, file.find_last_of('/')));  // a folder under --out
    write_file_atomic(file, baseline_to_json(entries, baseline ? baseline->margin : 0.5).dump(1) + "\n");
    std::cerr << "audit: wrote the baseline " << o.write_baseline << " (" << entries.size() << " engine × model entries)\n";
  }
}

}  // namespace rbd::audit
