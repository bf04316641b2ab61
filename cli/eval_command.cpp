// rbdref eval MODEL --state STATE.json [--precision P] [--out FILE] [--floating-base] [--prove]
//
// Reference values of one state (certify/evaluate.hpp) at precision P, certified against a wider
// precision, plus the property checks (checks/properties.hpp) at P. Output: one JSON document
// (format "rbdref.eval", docs/formats.md) on stdout, or written atomically to FILE.
#include "certify/memory.hpp"
#include "cli/commands.hpp"
#include "reports/eval_document.hpp"

#include <iostream>
#include <memory>

namespace rbd::cli {

namespace {

struct EvalOptions {
  std::string model, state, precision = "bin50", out;
  std::string actuated;  // --actuated: comma-separated DoF names, or "all" (closed-loop ID, §8.12)
  bool impact = false;   // --impact: the impulsive step of the contacts (§11.7)
  bool prove = false;    // --prove: proven digits on intervals (certify/prove.hpp)
  ModelOptions mo;
  void add_to(CLI::App* sub) {
    add_model_argument(sub, model);
    sub->add_option("--state", state, "State file: JSON with q, qd, qdd, tau")->required();
    add_precision_option(sub, precision);
    add_output_option(sub, "--out", out, "Write the JSON here (atomically) instead of to stdout ('-': stdout)");
    sub->add_option("--actuated", actuated,
                    "Closed-loop inverse dynamics (RBDA §8.12) at the state's qdd: the actuated DoFs, comma-separated names "
                    "(as in the output's dofs) or all");
    sub->add_flag("--impact", impact,
                  "With contacts: the impulsive step at the state's qd (RBDA §11.7): impulses, post-impact qd, energy change");
    sub->add_flag("--prove", prove,
                  "Also prove the digits: enclose each true value on intervals and report |true - value| <= radius "
                  "(the document's proof section, docs/certified-digits.md)");
    mo.add_to(sub, true);
    mo.add_max_memory(sub);
  }
};

int run_eval(const EvalOptions& o) {
  const std::optional<Precision> p = parse_precision_option(o.precision);
  check_outputs({o.model, o.state, o.mo.loops, o.mo.contacts}, {{"--out", o.out}});
  const LoadedModel lm = load_model(o.model, o.mo.load_options());
  const Model<double> layout = model_layout(lm.desc);
  check_model_memory(lm.file, lm.desc, *p, o.mo.max_memory, 1, o.prove ? Proving::yes : Proving::no);
  // Without a proof, angles the precision cannot reduce are refused (certified digits could be
  // wrong); with one, every sine is enclosed rigorously and the proof says how many digits hold.
  const StateDesc state = read_state_option(o.state, layout, o.prove ? nullptr : &*p);
  if (o.impact && layout.contacts.empty())
    throw InputError("--impact", "", "needs contacts (a contacts file with --contacts, or a version-2 model with contacts)");
  const std::vector<int> actuated = parse_actuated(o.actuated, layout);
  CertifiedEvaluation r = certified_evaluation(lm, state, *p, actuated, o.impact, o.model);
  if (o.prove) r.proof = prove(r.ev, lm.desc, state);
  const EvalDocument d = eval_document(lm, state, o.state, o.mo.floating_base, r);
  print_model_warnings("eval", lm);
  if (o.out.empty() || o.out == "-") {
    d.write(std::cout);
  } else {
    write_file_atomic(o.out, [&](std::ostream& out) { d.write(out); });
    std::cerr << eval_summary(lm, layout.nv, r, d.all_passed) << "  wrote " << o.out << "\n";
  }
  const Evaluation& ev = r.ev;
  const bool all_passed = d.all_passed;
  // Reference values are produced even when a check fails. A failed identity at the working
  // precision on a positive-definite H means the reference itself is in doubt: a discrepancy
  // (status 1). A singular or indefinite H is numerical degeneracy, reported as data
  // (positive_definite, degeneracy; the checks that need H⁻¹ fail and say so): status 0.
  return all_passed || !ev.positive_definite ? 0 : 1;
}

}  // namespace

Run add_eval(CLI::App& app) {
  return add_command(app, "eval", "Reference values of one state, each with its certified digits", run_eval);
}

}  // namespace rbd::cli
