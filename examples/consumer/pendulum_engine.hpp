// "My engine": the double pendulum of double_pendulum.urdf in closed form (Lagrange), as an engine
// developer's own implementation would compute it. Two uniform rods, m = 1 kg, l = 1 m, COM at
// l/2, I_yy about the COM as written in the URDF, both joints about y; gravity 9.81 along -z.
//   H = [2I + m(lc² + l² + lc²) + 2 m l lc cos q2,  I + m lc² + m l lc cos q2;  sym,  I + m lc²]
//   C = [-m l lc sin q2 (2 q̇1 q̇2 + q̇2²) + g (m lc + m l) sin q1 + g m lc sin(q1 + q2),
//         m l lc sin q2 q̇1² + g m lc sin(q1 + q2)]
#pragma once

#include <Eigen/Dense>

#include <cmath>
#include <cstdlib>

namespace my_engine {

constexpr double m = 1.0, l = 1.0, lc = 0.5, I = 0.0833333333333333, g = 9.81;

inline Eigen::Matrix2d mass_matrix(const Eigen::Vector2d& q) {
  const double c2 = std::cos(q(1));
  // PLANT_ERROR=1: the coupling term with the wrong sign (the planted error the suite must catch).
  const double s = std::getenv("PLANT_ERROR") ? -1.0 : 1.0;
  Eigen::Matrix2d H;
  H(0, 0) = 2 * I + m * (lc * lc + l * l + lc * lc) + 2 * m * l * lc * c2;
  H(0, 1) = H(1, 0) = I + m * lc * lc + s * m * l * lc * c2;
  H(1, 1) = I + m * lc * lc;
  return H;
}

inline Eigen::Vector2d bias(const Eigen::Vector2d& q, const Eigen::Vector2d& qd) {
  const double s2 = std::sin(q(1)), h = m * l * lc;
  return {-h * s2 * (2 * qd(0) * qd(1) + qd(1) * qd(1)) + g * (m * lc + m * l) * std::sin(q(0)) + g * m * lc * std::sin(q(0) + q(1)),
          h * s2 * qd(0) * qd(0) + g * m * lc * std::sin(q(0) + q(1))};
}

}  // namespace my_engine
