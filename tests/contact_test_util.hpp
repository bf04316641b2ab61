// What the point-contact tests (RBDA ch. 11) share: random contacts on random trees, the small
// models of the closed forms (a free box, one-DoF bodies, contacts of a body's point with the
// world), and the typed test suite of the closed forms, whose tests span §11.1-11.8.
#pragma once

#include "checks/random_model.hpp"
#include "tests/test_util.hpp"
#include "tests/tree_cases.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>

namespace rbd::test {

template <class T>
T dec(const char* s) {
  return from_decimal<T>(s);
}

inline Num3 N3(double a, double b, double c) { return {Num::exact(a), Num::exact(b), Num::exact(c)}; }

// Random contacts on a random tree: half with the world (normal in world coordinates), half
// between two random bodies (all with the world when world_only); each with a surface point (so
// φ is a function of q) when `gap`.
inline ModelDesc with_random_contacts(ModelDesc d, int count, std::uint64_t seed, bool world_only, bool gap) {
  std::mt19937_64 g(seed);
  auto u = [&](double a, double b) { return std::uniform_real_distribution<double>(a, b)(g); };
  const int nb = static_cast<int>(d.bodies.size());
  for (int i = 0; i < count; ++i) {
    ContactDesc c;
    c.name = "c" + std::to_string(i);
    c.where = "contacts[" + std::to_string(i) + "]";
    c.succ = static_cast<int>(u(0, nb - 1e-9));
    c.pred = (world_only || i % 2 == 0) ? -1 : static_cast<int>(u(0, nb - 1e-9));
    if (c.pred == c.succ) c.pred = -1;
    c.point = N3(u(-0.5, 0.5), u(-0.5, 0.5), u(-0.5, 0.5));
    c.normal = N3(u(-1, 1), u(-1, 1), u(-1, 1));
    if (gap) c.surface = N3(u(-1, 1), u(-1, 1), u(-1, 1));
    d.contacts.push_back(c);
  }
  return d;
}

// The random case of `d` (tree_cases.hpp) when its contacts all build: a contact whose two sides
// merge into one body is refused by build_model, and such draws are skipped (nullopt).
template <class T>
std::optional<RandomCase<T>> buildable_case(const ModelDesc& d, std::uint64_t state_seed, double scale = 1.0) {
  try {
    return random_case<T>(d, state_seed, scale);
  } catch (const ModelError&) {
    return std::nullopt;
  }
}

// A body on joint `joint` of `type` about or along `axis`, with mass `mass`, COM `com` and the
// diagonal rotational inertia (ixx, iyy, izz) about the COM.
inline BodyDesc rigid_body(const std::string& name, int parent, const std::string& joint, JointType type, const Num3& axis,
                           double mass, const Num3& com, double ixx, double iyy, double izz) {
  BodyDesc b;
  b.name = name;
  b.parent = parent;
  b.joint.name = joint;
  b.joint.type = type;
  b.joint.axis = axis;
  b.inertial.mass = Num::exact(mass);
  b.inertial.com = com;
  b.inertial.I = {Num::exact(ixx), Num::exact(iyy), Num::exact(izz), Num::exact(0), Num::exact(0), Num::exact(0)};
  return b;
}

// One free body, a box 2a x 2b x 2c of mass m with its COM at its frame origin.
inline ModelDesc box(double a, double b, double c, double mass) {
  ModelDesc d;
  d.name = "box";
  d.bodies.push_back(rigid_body("box", -1, "root", JointType::Free, N3(0, 0, 1), mass, N3(0, 0, 0), mass * (b * b + c * c) / 3,
                                mass * (a * a + c * c) / 3, mass * (a * a + b * b) / 3));
  d.bodies[0].where = "bodies[0]";
  return d;
}

// Body `succ`'s point `point` (body coordinates) against the world, normal `normal` (world).
inline ContactDesc world_contact(const std::string& name, int succ, const Num3& point, const Num3& normal) {
  ContactDesc c;
  c.name = name;
  c.succ = succ;
  c.point = point;
  c.normal = normal;
  return c;
}
// ... on the ground z = 0: normal +z, its surface point at the origin (φ is the point's height).
inline ContactDesc ground_contact(const std::string& name, int succ, const Num3& point) {
  ContactDesc c = world_contact(name, succ, point, N3(0, 0, 1));
  c.surface = N3(0, 0, 0);
  return c;
}

// The box 0.6 x 0.4 x 0.2 of 2.5 kg with a contact at each corner of its bottom face, normals +z
// (corner i at (±0.3, ±0.2): 0 (+,+), 1 (-,+), 2 (-,-), 3 (+,-)) against the ground z = 0, and its
// configuration resting there.
inline ModelDesc box_on_four_corners() {
  ModelDesc d = box(0.3, 0.2, 0.1, 2.5);
  const double cx[4] = {0.3, -0.3, -0.3, 0.3}, cy[4] = {0.2, 0.2, -0.2, -0.2};
  for (int i = 0; i < 4; ++i) d.contacts.push_back(ground_contact("corner" + std::to_string(i), 0, N3(cx[i], cy[i], -0.1)));
  return d;
}
template <class T>
VecX<T> box_resting() {
  VecX<T> q = VecX<T>::Zero(7);
  q(0) = T(1);
  q(6) = T(0.1);  // the corners' z = -0.1 is the double Num::exact(0.1): φ = 0 exactly at every precision
  return q;
}

// The closed forms of chapter 11 at double and bin50.
template <class T>
class ContactClosedForm : public ::testing::Test {};

}  // namespace rbd::test
