// plan_hunt and draw_trial: what the hunt may draw for its engine, and each trial's model (hunt.hpp).
#include "hunt/hunt.hpp"

#include "checks/random_model.hpp"

#include <sys/stat.h>

#include <cmath>
#include <random>

namespace rbd::hunt {

namespace {

// The stresses on a drawn tree (the model's numbers stay exact doubles).
void stress(ModelDesc& d, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  for (size_t i = 0; i < d.bodies.size(); ++i) {
    BodyDesc& b = d.bodies[i];
    if (u(rng) < 0.3) {  // mass and inertia scaled together by 10^[-4, 4]
      const double s = std::pow(10.0, -4 + 8 * u(rng));
      b.inertial.mass = Num::exact(b.inertial.mass.value * s);
      for (Num& x : b.inertial.I) x = Num::exact(x.value * s);
    }
    if (i > 0 && u(rng) < 0.15) {  // a long link: the offset scaled by 10^[0, 3]
      const double s = std::pow(10.0, 3 * u(rng));
      for (Num& x : b.origin.xyz) x = Num::exact(x.value * s);
    }
  }
  if (!d.bodies.empty() && u(rng) < 0.2)  // the whole model far from the origin
    d.bodies[0].origin.xyz = {Num::exact(1000 * (u(rng) - 0.5)), Num::exact(1000 * (u(rng) - 0.5)), Num::exact(1000 * u(rng))};
}

}  // namespace

HuntPlan plan_hunt(const HuntOptions& o) {
  if (!(o.budget > 0) || o.budget > 86400) throw InputError("--budget", "", "expected seconds from 1 to 86400");
  if (o.max_findings < 1) throw InputError("--max-findings", "", "expected a positive integer");
  if (o.out == "-")
    throw InputError("--out", "", "expected a folder for the reproducers ('-' is standard output, where the summary goes already)");
  if (struct stat st; ::stat(o.out.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
    throw InputError(o.out, "", "is not a folder; hunt writes its reproducers there");
  HuntPlan plan;
  std::string names;
  for (auto& a : available_adapters()) {
    names += (names.empty() ? "" : ", ") + a->name();
    if (a->name() == o.engine) plan.adapter = std::move(a);
  }
  if (!plan.adapter) throw InputError("--engine", "", "no adapter '" + o.engine + "' in this build (available: " + names + ")");
  if (plan.adapter->imports_source())
    throw InputError("--engine", "", o.engine + " reads the model's own source file (an import path): hunt draws models in memory; use audit --model");
  const EngineSupport sup = plan.adapter->support();
  for (JointType t : sup.joints) {
    if (t == JointType::Free) plan.free_root = true;
    if (t != JointType::Free || sup.free_below_root) plan.joints.push_back(t);
  }
  plan.joints.push_back(JointType::Fixed);
  for (JointType t : plan.joints)
    if (t != JointType::Fixed) plan.movable.push_back(t);
  if (plan.movable.empty()) throw InputError("--engine", "", o.engine + " declares no joint type that hunt can draw");
  return plan;
}

ModelDesc draw_trial(const HuntPlan& plan, std::uint64_t seed) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 7);
  TreeSpec spec;
  spec.nb = 2 + static_cast<int>(rng() % 7);
  spec.branching = (rng() % 3 == 0) ? 2.0 : 1.0;
  spec.floating_base = plan.free_root && rng() % 3 == 0;
  spec.joints = plan.joints;
  ModelDesc d = random_tree(spec, seed);
  d.name = "hunt_" + std::to_string(seed);
  stress(d, rng);
  return d;
}

}  // namespace rbd::hunt
