// rbdref check ENGINE_OUTPUT [--fixture F] [--report R.json]
//
// The reference-free checks of an engine's own numbers (reports/compare.hpp, check_engine_output):
// H symmetric as the engine produced it, H positive-definite, H qdd + C = tau both ways, LᵀDL = H;
// residuals in extended precision, tolerances k ε(engine). No fixture is needed. Prints one line
// per check kind (samples, failures, worst sample, residual, tolerance); --report writes an
// rbdref.report document with `fixture: null` and no quantities. --fixture names the fixture the
// engine ran (its model must be the output's): on a closed-loop model it is required, and the
// loop checks (K q̈ = k, Gᵀ(H q̈ + C - τ) = 0, Gᵀτ_c = 0, H q̈ + C = τ + τ_c) replace H q̈ + C = τ; on a
// model with contacts it is required for the contact quantities, and the contact and impact checks
// (complementarity of λ and of q̈, H q̈ + C = τ + τ_c, τ_c = Tλ, Newton restitution, momentum,
// energy; docs/contact.md) join.
// Exit status: 0 every check passes, 1 a check fails or the engine failed on a sample, 2 bad input
// (nothing is written).
#include "cli/commands.hpp"
#include "reports/compare.hpp"

#include <iostream>
#include <memory>
#include <optional>

namespace rbd::cli {

namespace {

struct CheckOptions {
  std::string engine_output, report, fixture;
  void add_to(CLI::App* sub) {
    sub->add_option("engine_output", engine_output, "Engine output file (rbdref.engine_output)")->required();
    sub->add_option("--fixture", fixture, "The fixture the engine ran: its model (required for a closed-loop model)");
    add_output_option(sub, "--report", report, "Write the JSON report here (atomically)");
  }
};

int run_check(const CheckOptions& o) {
  check_outputs({o.engine_output, o.fixture}, {{"--report", o.report}});
  const EngineOutput e = read_engine_output_file(o.engine_output);
  std::optional<Fixture> f;
  if (!o.fixture.empty()) {
    f = read_fixture_file(o.fixture);
    if (f->model_sha256 != e.model_sha256)
      throw InputError(o.engine_output, "model.sha256",
                       "\"" + e.model_sha256 + "\" does not match the fixture's " + f->model_sha256 + " (" + o.fixture + ")");
  }
  const Report r = check_report(e, o.engine_output, f ? &*f : nullptr);

  if (!o.report.empty()) write_file_atomic(o.report, report_to_json(r).dump(2) + "\n");
  // With the report on standard output the human summary goes to standard error.
  std::ostream& say = o.report == "-" ? std::cerr : std::cout;
  say << "rbdref check: " << e.engine << " " << e.engine_version << " (" << e.scalar << ") on " << e.model_name << ", "
      << e.samples.size() << " samples\n"
      << checks_summary(r.checks);
  for (const std::string& n : r.notes) say << "note: " << n << "\n";
  say << (r.passed ? "PASSED" : "FAILED") << "\n";
  return r.passed ? 0 : 1;
}

}  // namespace

Run add_check(CLI::App& app) {
  return add_command(app, "check", "Reference-free checks of an engine output's own numbers", run_check);
}

}  // namespace rbd::cli
