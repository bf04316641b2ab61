// rbdref assemble MODEL [--loops L] --state S.json --out S2.json [--precision P]
//
// Moves a closed-loop model's state onto its closure manifold (reference/loops/assembly.hpp):
// q by Newton with minimum-norm steps until max|δ| reaches the working precision's last digits,
// q̇ by the orthogonal projection onto null(K). qdd and tau are copied through unchanged. The
// output is a state file (docs/formats.md, "State") keyed by joint name, every number a decimal
// string with all the digits of P; the residuals before and after go to stderr. Exit status: 0
// assembled, 1 Newton did not reach the tolerance (the file is still written: the best q found,
// with its residual on stderr), 2 bad input.
#include "certify/memory.hpp"
#include "cli/commands.hpp"
#include "certify/evaluate.hpp"
#include "certify/precision.hpp"
#include "io/state_io.hpp"
#include "reference/loops/assembly.hpp"

#include <iostream>
#include <memory>

namespace rbd::cli {

namespace {

struct AssembleOptions {
  std::string model, state, precision = "bin50", out;
  int max_iterations = 100;
  ModelOptions mo;
  void add_to(CLI::App* sub) {
    add_model_argument(sub, model, " (with --loops, or a version-2 model)");
    sub->add_option("--state", state, "State file: JSON with q (and qd, qdd, tau)")->required();
    add_output_option(sub, "--out", out, "Write the assembled state here (atomically; '-': stdout)")->required();
    add_precision_option(sub, precision);
    sub->add_option("--max-iterations", max_iterations, "Newton steps at most (default 100)");
    mo.add_to(sub);
    mo.add_max_memory(sub);
  }
};

using ojson = nlohmann::ordered_json;

struct Result {
  std::vector<std::string> q, qd;
  std::string pos_before, pos_after, vel_before, vel_after, tolerance;
  int iterations = 0, rank = 0;
  bool converged = false;
  std::string message;
};

struct RunAssembly {
  const ModelDesc& desc;
  const StateDesc& state;
  int max_iterations;
  Result& r;
  template <class T>
  void operator()() const {
    const Model<T> m = build_model<T>(desc);
    const Assembly<T> a = assemble<T>(m, to_vec<T>(state.q), to_vec<T>(state.qd), max_iterations);
    for (Eigen::Index i = 0; i < a.q.size(); ++i) r.q.push_back(to_decimal(a.q(i)));
    for (Eigen::Index i = 0; i < a.qd.size(); ++i) r.qd.push_back(to_decimal(a.qd(i)));
    r.pos_before = to_decimal(a.position_error_before, 3);
    r.pos_after = to_decimal(a.position_error, 3);
    r.vel_before = to_decimal(a.velocity_error_before, 3);
    r.vel_after = to_decimal(a.velocity_error, 3);
    r.tolerance = to_decimal(a.position_tolerance, 3);
    r.iterations = a.iterations;
    r.rank = a.rank;
    r.converged = a.converged;
    r.message = a.message;
  }
};

// A vector keyed by joint name: a number for a 1-DoF joint, an array for a multi-DoF one.
ojson keyed(const Model<double>& m, const std::vector<std::string>& v, bool is_q) {
  ojson o = ojson::object();
  for (int i = 0; i < m.NB; ++i) {
    const int n = is_q ? m.nqi[i] : m.nvi[i], off = is_q ? m.iq[i] : m.iv[i];
    if (n == 1) {
      o[m.joint_name[i]] = v[off];
    } else {
      ojson a = ojson::array();
      for (int k = 0; k < n; ++k) a.push_back(v[off + k]);
      o[m.joint_name[i]] = a;
    }
  }
  return o;
}

int run_assemble(const AssembleOptions& o) {
  const std::optional<Precision> p = parse_precision_option(o.precision);
  if (o.max_iterations < 1 || o.max_iterations > 10000)
    throw InputError("--max-iterations", "", "expected an integer from 1 to 10000, got " + std::to_string(o.max_iterations));
  check_outputs({o.model, o.state, o.mo.loops}, {{"--out", o.out}});
  const LoadedModel lm = load_model(o.model, o.mo.load_options());
  print_model_warnings("assemble", lm);
  const Model<double> layout = model_layout(lm.desc);
  check_model_memory(lm.file, lm.desc, *p, o.mo.max_memory);
  if (layout.nc == 0)
    throw InputError(o.model, "loop_joints",
                     "the model has no loop joints: there is nothing to assemble (give the loops with --loops LOOPS.json)");
  const StateDesc state = read_state_option(o.state, layout, &*p);
  Result r;
  run_at_precision(*p, o.model, RunAssembly{lm.desc, state, o.max_iterations, r});
  auto nums = [](const std::vector<Num>& v) {
    std::vector<std::string> s;
    for (const Num& n : v) s.push_back(n.str());
    return s;
  };
  ojson doc = ojson::object();
  doc["q"] = keyed(layout, r.q, true);
  doc["qd"] = keyed(layout, r.qd, false);
  doc["qdd"] = keyed(layout, nums(state.qdd), false);
  doc["tau"] = keyed(layout, nums(state.tau), false);
  write_document(o.out, doc.dump(2) + "\n");
  std::cerr << "rbdref assemble: " << o.model << " at " << p->name() << ", " << layout.nc << " loop constraints, rank "
            << r.rank << "\n"
            << "  position error max|δ|:    " << r.pos_before << " -> " << r.pos_after << " (tolerance " << r.tolerance << ", "
            << r.iterations << " Newton steps)\n"
            << "  velocity error max|K q̇|: " << r.vel_before << " -> " << r.vel_after << "\n";
  return finish_document(r.converged, "NOT ASSEMBLED", r.message, o.out);
}

}  // namespace

Run add_assemble(CLI::App& app) {
  return add_command(app, "assemble", "Move a closed-loop state onto its closure manifold (q by Newton, qd by projection)", run_assemble);
}

}  // namespace rbd::cli
