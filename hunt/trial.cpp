// run_trial and worst_sample: one run of the engine on a drawn model, scored (hunt.hpp).
#include "hunt/hunt.hpp"

#include <set>

namespace rbd::hunt {

namespace {

LoadedModel loaded_of(const ModelDesc& d) {
  LoadedModel lm;
  lm.desc = d;
  lm.file = "hunt";
  lm.kind = "json";
  return lm;
}

// The failing quantities and checks of a report (the echo differing, sample failures), sorted.
std::set<std::string> failing_of(const Report& r) {
  std::set<std::string> failing;
  if (r.model_echo.is_object() && r.model_echo.value("status", "") == "differs") failing.insert("model_echo");
  for (const QuantityScore& q : r.quantities)
    if (q.samples > 0 && !q.passed && q.convention.empty()) failing.insert(q.quantity);
  for (const SampleCheck& c : r.checks)
    if (!c.result.passed && c.convention.empty()) failing.insert(c.result.name);
  if (!r.sample_failures.empty()) failing.insert("samples");
  return failing;
}

}  // namespace

std::optional<Outcome> run_trial(const EngineAdapter& a, const ModelDesc& d, int samples, std::uint64_t seed, const std::string& keep) {
  Fixture f;
  try {
    f = make_fixture(loaded_of(d), samples, seed, *Precision::parse("bin50"));
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (!keep.empty()) {
    std::vector<Sample> kept;
    for (const Sample& s : f.samples)
      if (s.id == keep) kept.push_back(s);
    if (kept.empty()) return std::nullopt;
    f.samples = kept;
  }
  if (!a.unsupported(f).empty()) return std::nullopt;
  Outcome o;
  o.fixture = f;
  try {
    o.output = a.run(f, "fixture.json");
  } catch (const EngineError& e) {
    o.failed = true;
    o.signature = "engine error";
    o.summary = std::string("the engine failed on a model it declares it runs: ") + e.what();
    return o;
  }
  Tolerances tol = Tolerances::defaults(o.output->epsilon("engine.json"));
  o.report = compare(f, "fixture.json", *o.output, "engine.json", tol);
  const std::set<std::string> failing = failing_of(*o.report);
  o.failed = !failing.empty();
  for (const std::string& n : failing) o.signature += (o.signature.empty() ? "" : ",") + n;
  o.summary = diagnosis(*o.report);
  return o;
}

std::string worst_sample(const Outcome& o) {
  if (!o.report) return "";
  for (const QuantityScore& q : o.report->quantities)
    if (q.samples > 0 && !q.passed && q.convention.empty()) return q.worst_sample;
  for (const SampleCheck& c : o.report->checks)
    if (!c.result.passed && c.convention.empty()) return c.sample;
  return "";
}

}  // namespace rbd::hunt
