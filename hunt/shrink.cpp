// shrink: a finding made as small as it stays failing the same way (hunt.hpp). Each stage tries
// candidates in order and keeps the first whose run fails with the finding's signature.
#include "hunt/hunt.hpp"

#include <algorithm>

namespace rbd::hunt {

namespace {

// A candidate's run, when it fails the way the finding does (nullopt too once the budget is spent).
struct SameFailure {
  const HuntOptions& o;
  const HuntPlan& plan;
  const HuntBudget& budget;
  const Finding& f;
  std::optional<Outcome> operator()(const ModelDesc& cand, const std::string& keep) const {
    if (budget.left() <= 0) return std::nullopt;
    std::optional<Outcome> c = run_trial(*plan.adapter, cand, o.samples, f.seed, keep);
    if (c && c->failed && c->signature == f.signature) return c;
    return std::nullopt;
  }
};

// Removes body k (a leaf) from d: later indices shift down by one.
ModelDesc without_body(const ModelDesc& d, int k) {
  ModelDesc e = d;
  e.bodies.erase(e.bodies.begin() + k);
  for (BodyDesc& b : e.bodies)
    if (b.parent > k) --b.parent;
  return e;
}

// The failing sample alone, when it still fails so.
void keep_worst_sample(Finding& f, const SameFailure& same) {
  f.sample = worst_sample(f.outcome);
  if (f.sample.empty()) return;
  if (auto c = same(f.model, f.sample)) f.outcome = std::move(*c);
  else f.sample.clear();
}

// One leaf fewer (the last body first); false when no leaf can go.
bool drop_a_leaf(Finding& f, const SameFailure& same) {
  const ModelDesc& d = f.model;
  for (int k = static_cast<int>(d.bodies.size()) - 1; k >= 0 && d.bodies.size() > 1; --k) {
    bool leaf = true;
    for (const BodyDesc& b : d.bodies) leaf = leaf && b.parent != k;
    if (!leaf) continue;
    ModelDesc cand = without_body(d, k);
    if (auto c = same(cand, f.sample)) {
      f.model = std::move(cand), f.outcome = std::move(*c);
      return true;
    }
  }
  return false;
}

// Body i with one thing simpler each: its joint revolute (where the engine runs revolute joints),
// its frame unrotated, its offset zero, its inertia about the COM diagonal (the trace kept), its COM
// at the origin; only the changes that change something.
std::vector<ModelDesc> simpler_bodies(const ModelDesc& d, size_t i, const std::vector<JointType>& movable) {
  std::vector<ModelDesc> cands;
  ModelDesc c1 = d;
  if (c1.bodies[i].joint.type != JointType::Revolute && c1.bodies[i].joint.type != JointType::Free &&
      std::find(movable.begin(), movable.end(), JointType::Revolute) != movable.end()) {
    c1.bodies[i].joint.type = JointType::Revolute;
    cands.push_back(c1);
  }
  ModelDesc c2 = d;
  bool rot = false;
  for (Num& x : c2.bodies[i].origin.rpy) rot = rot || x.value != 0, x = Num::exact(0);
  if (rot) cands.push_back(c2);
  ModelDesc c3 = d;
  bool off = false;
  for (Num& x : c3.bodies[i].origin.xyz) off = off || x.value != 0, x = Num::exact(0);
  if (off) cands.push_back(c3);
  ModelDesc c4 = d;
  auto& I = c4.bodies[i].inertial.I;
  if (I[3].value != 0 || I[4].value != 0 || I[5].value != 0) {
    I[3] = I[4] = I[5] = Num::exact(0);
    cands.push_back(c4);
  }
  ModelDesc c5 = d;
  bool com = false;
  for (Num& x : c5.bodies[i].inertial.com) com = com || x.value != 0, x = Num::exact(0);
  if (com) cands.push_back(c5);
  return cands;
}

// One number simpler, body by body; false when nothing simpler fails so.
bool simplify_a_body(Finding& f, const SameFailure& same, const std::vector<JointType>& movable) {
  for (size_t i = 0; i < f.model.bodies.size(); ++i)
    for (ModelDesc& c : simpler_bodies(f.model, i, movable))
      if (auto r = same(c, f.sample)) {
        f.model = std::move(c), f.outcome = std::move(*r);
        return true;
      }
  return false;
}

}  // namespace

Finding shrink(const HuntOptions& o, const HuntPlan& plan, const HuntBudget& budget, std::uint64_t seed, ModelDesc d, Outcome out) {
  Finding f;
  f.seed = seed;
  f.signature = out.signature;
  f.bodies_before = static_cast<int>(d.bodies.size());
  f.model = std::move(d);
  f.outcome = std::move(out);
  const SameFailure same{o, plan, budget, f};
  keep_worst_sample(f, same);
  // Leaves first; then simpler numbers, one at a time; again while either made progress.
  while (budget.left() > 0 && (drop_a_leaf(f, same) || simplify_a_body(f, same, plan.movable))) {
  }
  return f;
}

}  // namespace rbd::hunt
