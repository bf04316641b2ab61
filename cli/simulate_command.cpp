// rbdref simulate MODEL --contacts C.json --state S.json --step H --steps N [--method euler|heun]
//                 [--precision P] --out TRAJ.json
//
// The general procedure of contact-dynamics simulation, RBDA §11.5 table 11.1
// (reference/contact/simulation.hpp): the active contacts as equalities, gain and negative-force
// events located on the step's own polynomial (Euler eq. 11.49, Heun eq. 11.51), an impact (§11.7)
// at every gain, the LCP (11.42) for the new sets after every event. τ is the state's, constant.
// The trajectory file ("rbdref.trajectory", docs/formats.md) holds every step's t, q, q̇ and
// active set, and the events, every number a decimal string with the digits of P. Exit status: 0
// simulated, 1 the procedure stopped (an LCP without solution, dependent active normals; the file
// holds the trajectory up to there and the reason), 2 bad input.
#include "certify/memory.hpp"
#include "cli/commands.hpp"
#include "certify/evaluate.hpp"
#include "certify/precision.hpp"
#include "io/state_io.hpp"
#include "reference/contact/simulation.hpp"

#include <iostream>
#include <memory>

namespace rbd::cli {

namespace {

using ojson = nlohmann::ordered_json;

struct SimulateOptions {
  std::string model, state, precision = "bin50", out, step, method = "heun";
  int steps = 0;
  ModelOptions mo;
  void add_to(CLI::App* sub) {
    add_model_argument(sub, model, " (with --contacts, or a version-2 model)");
    sub->add_option("--state", state, "State file: the initial q, qd, and the constant tau")->required();
    sub->add_option("--step", step, "Step size h in seconds (a decimal, read at the working precision)")->required();
    sub->add_option("--steps", steps, "Number of steps")->required();
    sub->add_option("--method", method, "euler (eq. 11.49) | heun (eq. 11.51, default)");
    add_output_option(sub, "--out", out, "Write the trajectory here (atomically; '-': stdout)")->required();
    add_precision_option(sub, precision);
    mo.add_to(sub, true);
    mo.add_max_memory(sub);
  }
};

struct Result {
  ojson samples = ojson::array(), events = ojson::array(), notes = ojson::array();
  std::string max_drift;
  bool ok = true;
  std::string message;
};

struct RunSimulation {
  const ModelDesc& desc;
  const StateDesc& state;
  const std::string& step;
  int steps;
  StepMethod method;
  Result& r;
  template <class T>
  void operator()() const {
    const Model<T> m = build_model<T>(desc);
    const T h = from_decimal<T>(step);
    const ContactTrajectory<T> tr =
        simulate_contacts<T>(m, to_vec<T>(state.q), to_vec<T>(state.qd), to_vec<T>(state.tau), h, steps, method);
    auto vec = [](const VecX<T>& x) {
      ojson a = ojson::array();
      for (Eigen::Index i = 0; i < x.size(); ++i) a.push_back(to_decimal(x(i)));
      return a;
    };
    for (size_t k = 0; k < tr.t.size(); ++k) {
      ojson s;
      s["t"] = to_decimal(tr.t[k]);
      s["q"] = vec(tr.q[k]);
      s["qd"] = vec(tr.qd[k]);
      auto names = [&](const std::vector<std::vector<int>>& sets) {
        ojson a = ojson::array();
        if (k < sets.size())
          for (int c : sets[k]) a.push_back(m.contacts[static_cast<size_t>(c)].name);
        return a;
      };
      s["current"] = names(tr.current);
      s["active"] = names(tr.active);
      r.samples.push_back(s);
    }
    for (const ContactEvent<T>& e : tr.events)
      r.events.push_back({{"kind", e.kind == ContactEvent<T>::Gain            ? "gain"
                                   : e.kind == ContactEvent<T>::NegativeForce ? "negative_force"
                                                                              : "current_accelerating"},
                          {"contact", e.contact >= 0 ? m.contacts[static_cast<size_t>(e.contact)].name : ""},
                          {"time", to_decimal(e.time)}});
    for (const std::string& n : tr.notes) r.notes.push_back(n);
    r.max_drift = to_decimal(tr.max_drift, 3);
    r.ok = tr.ok;
    r.message = tr.message;
  }
};

int run_simulate(const SimulateOptions& o) {
  const std::optional<Precision> p = parse_precision_option(o.precision);
  if (o.steps < 1 || o.steps > 1000000) throw InputError("--steps", "", "expected an integer from 1 to 1000000, got " + std::to_string(o.steps));
  StepMethod method;
  if (o.method == "euler") method = StepMethod::Euler;
  else if (o.method == "heun") method = StepMethod::Heun;
  else throw InputError("--method", "", "expected euler (eq. 11.49) or heun (eq. 11.51), got '" + o.method + "'");
  {
    bool ok = !o.step.empty();
    double h = 0;
    try {
      size_t used = 0;
      h = std::stod(o.step, &used);
      ok = ok && used == o.step.size();
    } catch (const std::exception&) {
      ok = false;
    }
    if (!ok || !(h > 0) || !std::isfinite(h))
      throw InputError("--step", "", "expected a positive finite step size in seconds (a decimal number), got '" + o.step + "'");
  }
  check_outputs({o.model, o.state, o.mo.contacts}, {{"--out", o.out}});
  const LoadedModel lm = load_model(o.model, o.mo.load_options());
  print_model_warnings("simulate", lm);
  const Model<double> layout = model_layout(lm.desc);
  check_model_memory(lm.file, lm.desc, *p, o.mo.max_memory);
  if (lm.desc.contacts.empty())
    throw InputError(o.model, "contacts", "the model has no contacts: give them with --contacts CONTACTS.json (RBDA ch. 11)");
  for (const ContactDesc& c : lm.desc.contacts)
    if (c.damping)
      throw InputError(c.file.empty() ? o.model : c.file, c.where,
                       "contact '" + c.name + "' is soft (stiffness, damping): the table 11.1 procedure is for rigid contacts");
  for (const ContactDesc& c : lm.desc.contacts)
    if (c.friction)
      throw InputError(c.file.empty() ? o.model : c.file, c.where + ".friction",
                       "contact '" + c.name + "' has friction: the table 11.1 procedure is frictionless (its LCP, eq. 11.42); "
                       "a sticking impact (eq. 11.72) between frictionless motions would be neither model");
  const StateDesc state = read_state_option(o.state, layout, &*p);
  Result r;
  run_at_precision(*p, o.model, RunSimulation{lm.desc, state, o.step, o.steps, method, r});
  ojson doc;
  doc["format"] = "rbdref.trajectory";
  doc["version"] = 1;
  doc["model"] = lm.desc.name;
  doc["procedure"] = "RBDA §11.5 table 11.1: frictionless rigid contacts, events located on the step polynomial";
  doc["precision"] = p->name();
  doc["method"] = o.method;
  doc["step"] = o.step;
  doc["steps"] = o.steps;
  ojson contacts = ojson::array();
  for (const ContactDesc& c : lm.desc.contacts) contacts.push_back(c.name);
  doc["contacts"] = contacts;
  doc["ok"] = r.ok;
  if (!r.ok) doc["message"] = r.message;
  doc["notes"] = r.notes;
  doc["max_drift"] = r.max_drift;
  doc["events"] = r.events;
  doc["samples"] = r.samples;
  write_document(o.out, doc.dump(1) + "\n");
  std::cerr << "rbdref simulate: " << o.model << " at " << p->name() << ", " << lm.desc.contacts.size() << " contacts, "
            << r.samples.size() << " states, " << r.events.size() << " events (" << o.method << ", h = " << o.step << ")\n";
  return finish_document(r.ok, "STOPPED", r.message, o.out);
}

}  // namespace

Run add_simulate(CLI::App& app) {
  return add_command(app, "simulate", "Contact-dynamics simulation by RBDA table 11.1 (events, impacts, active sets)", run_simulate);
}

}  // namespace rbd::cli
