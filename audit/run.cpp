// The audit's engine runs of one model (audit.hpp): each adapter on the model's fixture, its
// output and report written under --out/<engine>/, its status recorded (unsupported, refused,
// engine failed, passed, failed).
#include "audit/audit.hpp"

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>

namespace rbd::audit {

namespace {

// The model as audited: its file, hash and samples (kind, κ₂(H); a κ that does not read as a
// finite number is a singular H's).
AuditModel audited_model(const ManifestEntry& me, const Fixture& fx) {
  AuditModel m{me.name, me.user ? me.file : "models/" + me.file, fx.model_sha256, fx.dofs.size(), fx.seed, {}};
  for (const Sample& s : fx.samples) {
    char* end = nullptr;
    const double k = std::strtod(s.condition_number.c_str(), &end);
    m.samples.push_back({s.id, s.kind, end && *end == 0 && std::isfinite(k) ? k : std::numeric_limits<double>::infinity()});
  }
  return m;
}

// A run without a report (not available, unsupported, refused, engine failed).
void record(AuditResults& results, const std::string& engine, const std::string& model, RunStatus status, const std::string& reason) {
  RunResult run;
  run.engine = engine, run.model = model, run.status = status, run.reason = reason;
  results.runs.push_back(std::move(run));
}

}  // namespace

void run_engines(const AuditOptions& o, const AuditPlan& plan, size_t model, const AuditFixture& af,
                 AuditResults& results) {
  const ManifestEntry& me = plan.models[model];
  const Fixture& fx = af.fixture;
  results.models.push_back(audited_model(me, fx));
  const size_t first_run = results.runs.size();
  for (const std::string& n : plan.not_built)
    record(results, n, me.name, RunStatus::NotAvailable, "this build has no " + n + " adapter (package not found at build time)");
  const size_t total = plan.models.size() * std::max<size_t>(plan.adapters.size(), 1);
  for (size_t k = 0; k < plan.adapters.size(); ++k) {
    const EngineAdapter& a = *plan.adapters[k];
    const size_t step = model * plan.adapters.size() + k + 1;
    std::cerr << "[" << step << "/" << total << "] " << a.name() + " × " + me.name << ": ";
    const std::string why = a.unsupported(fx);
    if (!why.empty()) {
      std::cerr << "unsupported (" << why << ")\n";
      record(results, a.name(), me.name, RunStatus::Unsupported, why);
      continue;
    }
    std::cerr << fx.samples.size() << " samples... " << std::flush;
    plan.stage->make_folder(o.out + "/" + a.name());
    const std::string base = o.out + "/" + a.name() + "/" + me.name;
    EngineOutput eo;
    try {
      eo = a.imports_source() ? a.run_source(fx, af.file, me.user ? me.file : plan.models_dir + "/" + me.file) : a.run(fx, af.file);
    } catch (const EngineRefusal& e) {
      std::cerr << "refused (" << e.what() << ")\n";
      record(results, a.name(), me.name, RunStatus::Refused, e.what());
      continue;
    } catch (const EngineError& e) {
      std::cerr << "FAILED: " << e.what() << "\n";
      record(results, a.name(), me.name, RunStatus::EngineFailed, e.what());
      results.all_ok = false;
      continue;
    }
    write_file_atomic(staged(plan, base + ".engine.json"), engine_output_to_json(eo).dump(1) + "\n");
    Tolerances tol = Tolerances::defaults(eo.epsilon(base + ".engine.json"));
    tol.overrides = plan.tolerance_overrides;
    Report r = compare(fx, af.file, eo, base + ".engine.json", tol);
    write_file_atomic(staged(plan, base + ".report.json"), report_to_json(r).dump(1) + "\n");
    std::cerr << (r.passed ? "ok" : "DISCREPANCIES") << "\n";
    results.all_ok = results.all_ok && r.passed;
    RunResult run;
    run.engine = a.name(), run.model = me.name, run.status = r.passed ? RunStatus::Passed : RunStatus::Failed;
    run.diagnosis = diagnosis(r);
    run.fixture = af.file, run.engine_output = base + ".engine.json", run.report_file = base + ".report.json";
    run.report_index = results.reports.size();
    results.runs.push_back(std::move(run));
    results.reports.push_back(std::move(r));
  }
  for (size_t i = first_run; i < results.runs.size(); ++i)
    results.runs[i].identity = {fx.model_sha256, static_cast<int>(fx.samples.size()), fx.seed};
}

void link_reports(AuditResults& results) {
  for (RunResult& run : results.runs)
    if (run.report_index) run.report = &results.reports[*run.report_index];
}

}  // namespace rbd::audit
