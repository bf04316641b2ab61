// The audit's engine runs of one model (audit.hpp): each adapter on the model's fixture, its
// output and report written under --out/<engine>/, its status recorded (unsupported, refused,
// engine failed, passed, failed).
#include "audit/audit.hpp"

#include <cmath>
#include <cstdlib>
#include <iostream>

namespace rbd::audit {

namespace {

using ojson = nlohmann::ordered_json;

// The model's line in audit.json's "models": its file, hash and samples (kind, κ₂(H)).
ojson model_info(const ManifestEntry& me, const Fixture& fx) {
  ojson samples = ojson::array();
  for (const Sample& s : fx.samples) {
    char* end = nullptr;
    const double k = std::strtod(s.condition_number.c_str(), &end);
    samples.push_back({{"id", s.id}, {"kind", s.kind}, {"kappa", end && *end == 0 && std::isfinite(k) ? ojson(k) : ojson("inf")}});
  }
  return {{"name", me.name}, {"file", me.user ? me.file : "models/" + me.file}, {"sha256", fx.model_sha256},
          {"dofs", fx.dofs.size()}, {"seed", fx.seed}, {"samples", samples}};
}

// A run without a report (unsupported, refused, engine failed).
void record(AuditResults& results, const std::string& engine, const std::string& model, const std::string& status,
            const std::string& reason) {
  results.runs_json.push_back({{"engine", engine}, {"model", model}, {"status", status}, {"reason", reason}});
  results.runs.push_back({engine, model, status, "", reason, nullptr, {}});
  results.report_of.push_back(std::string::npos);
}

}  // namespace

void run_engines(const AuditOptions& o, const AuditPlan& plan, size_t model, const AuditFixture& af,
                 AuditResults& results) {
  const ManifestEntry& me = plan.models[model];
  const Fixture& fx = af.fixture;
  results.model_info.push_back(model_info(me, fx));
  const size_t first_run = results.runs.size();
  for (const std::string& n : plan.not_built)
    results.runs_json.push_back({{"engine", n}, {"model", me.name}, {"status", "not available"},
                                 {"reason", "this build has no " + n + " adapter (package not found at build time)"}});
  const size_t total = plan.models.size() * std::max<size_t>(plan.adapters.size(), 1);
  for (size_t k = 0; k < plan.adapters.size(); ++k) {
    const EngineAdapter& a = *plan.adapters[k];
    const size_t step = model * plan.adapters.size() + k + 1;
    std::cerr << "[" << step << "/" << total << "] " << a.name() + " × " + me.name << ": ";
    const std::string why = a.unsupported(fx);
    if (!why.empty()) {
      std::cerr << "unsupported (" << why << ")\n";
      record(results, a.name(), me.name, "unsupported", why);
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
      record(results, a.name(), me.name, "refused", e.what());
      continue;
    } catch (const EngineError& e) {
      std::cerr << "FAILED: " << e.what() << "\n";
      record(results, a.name(), me.name, "engine failed", e.what());
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
    results.runs_json.push_back({{"engine", a.name()}, {"model", me.name}, {"status", r.passed ? "passed" : "failed"},
                                 {"diagnosis", diagnosis(r)}, {"fixture", af.file}, {"engine_output", base + ".engine.json"},
                                 {"report", base + ".report.json"}, {"report_index", results.reports.size()}});
    results.runs.push_back({a.name(), me.name, r.passed ? "passed" : "failed", diagnosis(r), "", nullptr, {}});
    results.report_of.push_back(results.reports.size());
    results.reports.push_back(std::move(r));
  }
  for (size_t i = first_run; i < results.runs.size(); ++i)
    results.runs[i].identity = {fx.model_sha256, static_cast<int>(fx.samples.size()), fx.seed};
}

void link_reports(AuditResults& results) {
  for (size_t i = 0; i < results.runs.size(); ++i)
    if (results.report_of[i] != std::string::npos) results.runs[i].report = &results.reports[results.report_of[i]];
}

}  // namespace rbd::audit
