// The trees the tests are run on: a random tree (checks/random_model.hpp) with a random state, as
// the property tests set them up (the description, the model built in T, and the state's q, q̇,
// q̈, τ converted to T exactly: every entry is a double, so the same case is checked at every
// precision), and the smallest tree whose H is singular.
#pragma once

#include "checks/random_model.hpp"
#include "io/numbers.hpp"
#include "io/state_io.hpp"
#include "tests/test_util.hpp"

#include <cstdint>

namespace rbd::test {

// nb bodies, parent(i) = floor((i - 1) / branching), on a floating base or not; every joint type.
inline TreeSpec tree_spec(int nb, double branching = 1.0, bool floating = false) {
  TreeSpec spec;
  spec.nb = nb;
  spec.branching = branching;
  spec.floating_base = floating;
  return spec;
}

template <class T>
struct RandomCase {
  ModelDesc desc;
  Model<T> model;
  VecX<T> q, qd, qdd, tau;
};

// The model of `d` in T with random_state(its double model, state_seed, scale); build_model's
// ModelError passes through.
template <class T>
RandomCase<T> random_case(const ModelDesc& d, std::uint64_t state_seed, double scale = 1.0) {
  RandomCase<T> c;
  c.desc = d;
  c.model = build_model<T>(d);
  const RandomState s = random_state(build_model<double>(d), state_seed, scale);
  c.q = exact_vec<T>(s.q);
  c.qd = exact_vec<T>(s.qd);
  c.qdd = exact_vec<T>(s.qdd);
  c.tau = exact_vec<T>(s.tau);
  return c;
}
// A random state as a state document of exact binary doubles (what evaluate() and prove() read).
inline StateDesc exact_state(const RandomState& s) {
  StateDesc st;
  st.q = exact_nums(s.q);
  st.qd = exact_nums(s.qd);
  st.qdd = exact_nums(s.qdd);
  st.tau = exact_nums(s.tau);
  return st;
}

// ... of random_tree(spec, model_seed).
template <class T>
RandomCase<T> random_case(const TreeSpec& spec, std::uint64_t model_seed, std::uint64_t state_seed, double scale = 1.0) {
  return random_case<T>(random_tree(spec, model_seed), state_seed, scale);
}

// A revolute body "a" carrying a massless body "b" on a prismatic joint: b's DoF moves no mass, so
// H is singular, with the zero pivot at DoF 1 (RBDA table 6.3).
inline ModelDesc massless_prismatic_leaf() {
  BodyDesc a;
  a.name = "a";
  a.where = "bodies[0]";
  a.joint.type = JointType::Revolute;
  a.inertial.mass = Num::exact(1);
  a.inertial.I = {Num::exact(0.1), Num::exact(0.1), Num::exact(0.1), Num::exact(0), Num::exact(0), Num::exact(0)};
  BodyDesc b = a;
  b.name = "b";
  b.where = "bodies[1]";
  b.parent = 0;
  b.joint.type = JointType::Prismatic;
  b.inertial = InertialDesc();  // massless
  ModelDesc d;
  d.bodies = {a, b};
  return d;
}

}  // namespace rbd::test
