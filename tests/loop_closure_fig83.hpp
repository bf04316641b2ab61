// Loop-closure functions (RBDA §8.11, eqs. 8.56-8.60) of the worked example, fig. 8.3: a two-link
// arm (B1, B4) moved by a linear actuator (cylinder B2, piston B3), one loop, mobility 2.
//
// Geometry, in the plane of the mechanism (x, y of the joint frames, every axis along z):
//   joint 1 (revolute, q1) at the origin turns B1; joint 4 (revolute, q4) at B1's tip turns B4;
//   joint 2 (revolute, q2) at (l1, 0) turns the cylinder B2, whose x axis points at angle q2;
//   joint 3 (prismatic, q3) slides the piston B3 along that axis, its origin at distance q3;
//   loop joint 5 (revolute) pins the piston's origin to B1 at distance l2 from joint 1.
// The loop is the triangle (joint 1, joint 2, joint 5). With y = (y1, y2) = (q1, q4) and
//   v = (v_x, v_y) = (l2 cos y1 - l1, l2 sin y1)   (joint 5 seen from joint 2)
// the closure function γ (eq. 8.56), on C = { y : d > 0 } (y1 ≠ 0 when l1 = l2), is
//   q1 = y1,   q2 = θ2 = atan2(v_y, v_x),   q3 = d = |v|,   q4 = y2
// and by differentiating v with v' = dv/dy1 = l2 (-sin y1, cos y1) (|v'| = l2, v·v' = l1 l2 sin y1,
// v_x v'_y - v_y v'_x = l2² - l1 l2 cos y1):
//   d'  = l1 l2 sin y1 / d
//   θ2' = (l2² - l1 l2 cos y1) / d²
//   d'' = l1 l2 cos y1 / d - d'² / d                       (= (l1 l2 cos y1 - (d')²) / d)
//   θ2''= l1 l2 sin y1 / d² - 2 θ2' d' / d
// so G = ∂γ/∂y (eq. 8.58) and g = Ġ ẏ (eq. 8.60) are, in q order (q1, q2, q3, q4):
//   G = [1 0; θ2' 0; d' 0; 0 1],   g = (0, θ2'' ẏ1², d'' ẏ1², 0)
// block diagonal as the book remarks (a 3 x 1 and a 1 x 1 block). Scalar formulas only: no K, no
// elimination; a closed form that only the tests use, so it lives with them (compiled where it is
// used, not instantiated per scalar). tests/loop_models_test.cpp checks them against §8.8's G, g (loops/gauss.hpp with y
// chosen as the independent coordinates) on the bundled fig83_arm model.
#pragma once

#include <array>
#include <string>

#include "reference/spatial/spatial.hpp"
#include "reference/tree/model.hpp"

namespace rbd {

template <class T>
struct Fig83Closure {
  VecX<T> q;  // γ(y): (q1, q2, q3, q4)
  MatX<T> G;  // 4 x 2
  VecX<T> g;  // 4
};

template <class T>
Fig83Closure<T> fig83_closure(const T& l1, const T& l2, const T& y1, const T& y2, const T& yd1);

// ---- definition ----

template <class T>
Fig83Closure<T> fig83_closure(const T& l1, const T& l2, const T& y1, const T& y2, const T& yd1) {
  using std::atan2;
  using std::cos;
  using std::sin;
  using std::sqrt;
  const T s = sin(y1), c = cos(y1);
  const T vx = l2 * c - l1, vy = l2 * s;
  const T d = sqrt(T(vx * vx + vy * vy));
  const T th2 = atan2(vy, vx);
  const T dp = l1 * l2 * s / d;
  const T thp = (l2 * l2 - l1 * l2 * c) / (d * d);
  const T dpp = (l1 * l2 * c - dp * dp) / d;
  const T thpp = l1 * l2 * s / (d * d) - T(2) * thp * dp / d;
  Fig83Closure<T> out;
  out.q = VecX<T>(4);
  out.q << y1, th2, d, y2;
  out.G = MatX<T>::Zero(4, 2);
  out.G(0, 0) = T(1);
  out.G(1, 0) = thp;
  out.G(2, 0) = dp;
  out.G(3, 1) = T(1);
  out.g = VecX<T>::Zero(4);
  out.g(1) = thpp * yd1 * yd1;
  out.g(2) = dpp * yd1 * yd1;
  return out;
}

// fig83_arm's DoF index of each of q1..q4: its joints are named so, in an order of the model's own.
template <class T>
inline std::array<int, 4> fig83_dofs(const Model<T>& m) {
  std::array<int, 4> idx{-1, -1, -1, -1};
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < m.NB; ++i)
      if (m.joint_name[i] == "q" + std::to_string(k + 1)) idx[static_cast<size_t>(k)] = m.iv[i];
  return idx;
}

}  // namespace rbd
