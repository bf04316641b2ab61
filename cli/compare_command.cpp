// rbdref compare FIXTURE ENGINE_OUTPUT --report R.json [--junit R.xml] [--tol Q=REL ...]
//
// Scores an engine output against a golden fixture (reports/compare.hpp): per quantity the
// norm-wise relative error and LRE digits of every sample, capped at the reference's certified
// digits, against a tolerance k ε(engine) (× κ(H) for qdd, × κ(H)^½ for L and D), plus the
// reference-free checks of the engine's own numbers. Writes the report (format "rbdref.report",
// docs/reports.md) and optionally JUnit XML, each atomically, and prints a summary table.
// Exit status: 0 everything within tolerance, 1 discrepancies, 2 bad input (nothing is written).
#include "cli/commands.hpp"
#include "reports/compare.hpp"

#include <cstdio>
#include <iostream>
#include <memory>

namespace rbd::cli {

namespace {

struct CompareOptions {
  std::string fixture, engine_output, report, junit;
  std::vector<std::string> tol;
  void add_to(CLI::App* sub) {
    sub->add_option("fixture", fixture, "Fixture file (rbdref.fixture)")->required();
    sub->add_option("engine_output", engine_output, "Engine output file (rbdref.engine_output)")->required();
    add_output_option(sub, "--report", report, "Write the JSON report here (atomically)")->required();
    add_output_option(sub, "--junit", junit, "Also write JUnit XML here (atomically)");
    sub->add_option("--tol", tol, tol_option_help())->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  }
};

int run_compare(const CompareOptions& o) {
  // Everything that can be bad input is read and validated before anything is written; no output
  // may alias an input or the other output.
  check_outputs({o.fixture, o.engine_output}, {{"--report", o.report}, {"--junit", o.junit}});
  const Fixture f = read_fixture_file(o.fixture);
  const EngineOutput e = read_engine_output_file(o.engine_output);
  Tolerances tol = Tolerances::defaults(e.epsilon(o.engine_output));
  for (const std::string& spec : o.tol) add_tolerance_override(tol, spec);
  const Report r = compare(f, o.fixture, e, o.engine_output, tol);

  const std::string json_text = report_to_json(r).dump(2) + "\n";
  const std::string xml_text = o.junit.empty() ? "" : reports_to_junit({r});
  // Each output replaces its file atomically; a failure of the second leaves the first complete
  // (never a file deleted that was not finished being replaced).
  write_file_atomic(o.report, json_text);
  if (!o.junit.empty()) write_file_atomic(o.junit, xml_text);
  // With an output on standard output the human summary goes to standard error.
  std::ostream& say = o.report == "-" || o.junit == "-" ? std::cerr : std::cout;
  say << report_summary(r) << "wrote " << (o.report == "-" ? "the report to standard output" : o.report)
      << (o.junit.empty() ? "" : " and " + (o.junit == "-" ? std::string("JUnit to standard output") : o.junit)) << "\n";
  return r.passed ? 0 : 1;
}

}  // namespace

Run add_compare(CLI::App& app) {
  return add_command(app, "compare", "Score an engine output against a fixture (digits, tolerances, checks)", run_compare);
}

}  // namespace rbd::cli
