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
  write_file_atomic(o.out + "/audit.json", audit.dump(1) + "\n");
  write_file_atomic(o.out + "/junit.xml", reports_to_junit(results.reports, judgement.known));
  write_file_atomic(o.out + "/report.html", audit_html(audit, o.out + "/audit.json"));
  if (!o.write_baseline.empty()) {
    std::vector<BaselineEntry> entries;
    for (const AuditRun& ar : results.runs) {
      BaselineEntry e = baseline_entry(ar);
      if (baseline)
        if (const BaselineEntry* old = baseline->find(ar.engine, ar.model)) e.reason = old->reason, e.margin = old->margin;
      entries.push_back(std::move(e));
    }
    write_file_atomic(o.write_baseline, baseline_to_json(entries, baseline ? baseline->margin : 0.5).dump(1) + "\n");
    std::cerr << "audit: wrote the baseline " << o.write_baseline << " (" << entries.size() << " engine × model entries)\n";
  }
}

}  // namespace rbd::audit
