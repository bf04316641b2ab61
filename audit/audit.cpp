// run_audit: the audit's stages in order (audit.hpp).
#include "audit/audit.hpp"

#include <iostream>

namespace rbd::audit {

int run_audit(const AuditOptions& o) {
  AuditPlan plan = plan_audit(o);
  // Every output under --out appears at the end, whole, or not at all (an exit 2 or an
  // interruption on the way leaves nothing).
  StagedFolder stage(o.out);
  plan.stage = &stage;
  stage.make_folder(o.out + "/fixtures");
  AuditResults results;
  for (size_t m = 0; m < plan.models.size(); ++m) run_engines(o, plan, m, audit_fixture(o, plan, m), results);
  link_reports(results);
  const AuditJudgement judgement = judge_baseline(plan, results);
  const std::string summary = audit_summary(plan, results);
  write_audit(o, plan, results, judgement);
  stage.commit();
  if (!o.write_baseline.empty() && staged(plan, o.write_baseline) == o.write_baseline) write_baseline(o, plan, results);
  // With the baseline written to standard output the human summary goes to standard error.
  (o.write_baseline == "-" ? std::cerr : std::cout) << summary << "wrote " << o.out << "/audit.json, " << o.out << "/junit.xml, " << o.out
                                                    << "/report.html and per-run files under " << o.out << "/\n";
  return (plan.baseline ? !judgement.regressed && !judgement.found : results.all_ok) ? 0 : 1;
}

}  // namespace rbd::audit
