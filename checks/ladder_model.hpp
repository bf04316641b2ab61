// A ladder of N rungs, built in code for tests and benchmarks of the loop methods at any size
// (the same mechanism as fixtures/models/loops/ladder4.urdf for N = 4; make_models.py):
// two rails of N links (length 0.5, hanging along -z, turning about y) from pivots 0.8 apart;
// rung i hangs from the left rail's link i end and is closed onto the right rail's link i end by a
// revolute loop joint about y. Vertical x-z plane, gravity -z. n = 3N, n^c = 5N, rank 2N,
// mobility N (planar loops built spatially: 3N redundant constraints).
//
// ladder_state(N, θ, θ̇) is a state on the closure manifold for any θ: both rails swing rigidly
// about their pivots (L1 = R1 = θ, the other rail joints 0) and every rung stays horizontal
// (rung_i = -θ), the motion of a parallelogram; q̇ likewise with θ̇.
#pragma once

#include "reference/tree/model.hpp"

#include <string>
#include <vector>

namespace rbd {

inline ModelDesc ladder_desc(int n) {
  ModelDesc d;
  d.name = "ladder" + std::to_string(n);
  d.gravity = {Num::exact(0), Num::exact(0), Num::decimal("-9.81")};
  auto body = [&](const std::string& name, int parent, const char* x, const char* z, const char* m, const char* cx,
                  const char* cz, const char* ixx, const char* iyy, const char* izz) {
    BodyDesc b;
    b.name = name;
    b.parent = parent;
    b.joint.name = name;
    b.joint.type = JointType::Revolute;
    b.joint.axis = {Num::exact(0), Num::exact(1), Num::exact(0)};
    b.origin.xyz = {Num::decimal(x), Num::exact(0), Num::decimal(z)};
    b.inertial.mass = Num::decimal(m);
    b.inertial.com = {Num::decimal(cx), Num::exact(0), Num::decimal(cz)};
    b.inertial.I = {Num::decimal(ixx), Num::decimal(iyy), Num::decimal(izz), Num::exact(0), Num::exact(0), Num::exact(0)};
    b.where = "bodies[" + std::to_string(d.bodies.size()) + "]";
    d.bodies.push_back(b);
    return static_cast<int>(d.bodies.size()) - 1;
  };
  // Rail links: 1 kg rods of length 0.5 (radius 0.02); rungs: 0.6 kg rods of length 0.8.
  std::vector<int> left, right;
  for (int side = 0; side < 2; ++side) {
    int parent = -1;
    for (int i = 0; i < n; ++i) {
      const std::string name = (side == 0 ? "L" : "R") + std::to_string(i + 1);
      const char* x = i == 0 ? (side == 0 ? "0" : "0.8") : "0";
      const char* z = i == 0 ? "0" : "-0.5";
      parent = body(name, parent, x, z, "1.0", "0", "-0.25", "0.02093333333", "0.02093333333", "0.0002");
      (side == 0 ? left : right).push_back(parent);
    }
  }
  for (int i = 0; i < n; ++i) {
    body("rung" + std::to_string(i + 1), left[static_cast<size_t>(i)], "0", "-0.5", "0.6", "0.4", "0", "0.0000675",
         "0.03203375", "0.03203375");
    LoopJointDesc l;
    l.name = "close" + std::to_string(i + 1);
    l.joint.name = l.name;
    l.joint.type = JointType::Revolute;
    l.joint.axis = {Num::exact(0), Num::exact(1), Num::exact(0)};
    l.pred.body = static_cast<int>(d.bodies.size()) - 1;
    l.pred.origin.xyz = {Num::decimal("0.8"), Num::exact(0), Num::exact(0)};
    l.succ.body = right[static_cast<size_t>(i)];
    l.succ.origin.xyz = {Num::exact(0), Num::exact(0), Num::decimal("-0.5")};
    l.where = "loop_joints[" + std::to_string(i) + "]";
    d.loop_joints.push_back(l);
  }
  return d;
}

// q, q̇ in the model's order (L1..LN, R1..RN, rung1..rungN: body order, one DoF each).
template <class T>
void ladder_state(int n, const T& theta, const T& theta_dot, VecX<T>& q, VecX<T>& qd) {
  q = VecX<T>::Zero(3 * n);
  qd = VecX<T>::Zero(3 * n);
  q(0) = q(n) = theta;
  qd(0) = qd(n) = theta_dot;
  for (int i = 0; i < n; ++i) {
    q(2 * n + i) = -theta;
    qd(2 * n + i) = -theta_dot;
  }
}

}  // namespace rbd
