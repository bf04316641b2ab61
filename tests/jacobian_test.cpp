// Body Jacobians and velocity-product accelerations (jacobian.hpp): v_i = J_i qd, and
// a_i = J_i qdd + avp_i against the time derivative of the body velocity, taken by a central
// difference at 100 digits (h = 1e-30: truncation ~1e-60, rounding ~1e-70).
#include "reference/tree/jacobian.hpp"
#include "reference/tree/state_space.hpp"
#include "tests/tree_cases.hpp"
#include "tests/test_util.hpp"

namespace rbd::test {
namespace {

TEST(Jacobian, VelocityAndAccelerationOfEveryBody) {
  using T = bin100;
  const T h = from_decimal<T>("1e-30");
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const RandomCase<T> c = random_case<T>(tree_spec(8, 1.5, seed % 2 == 0), seed, seed + 100);
    const Model<T>& m = c.model;
    const VecX<T>& q = c.q, &qd = c.qd, &qdd = c.qdd;
    const VecX<T> qdot = qdfn<T>(m, q, qd);  // q̇ = Q(q) qd
    const TreeKinematics<T> k = kinematics<T>(m, q, qd);
    const TreeKinematics<T> kp = kinematics<T>(m, VecX<T>(q + h * qdot), VecX<T>(qd + h * qdd));
    const TreeKinematics<T> km = kinematics<T>(m, VecX<T>(q - h * qdot), VecX<T>(qd - h * qdd));
    const std::vector<Motion<T>> avp = velocity_product_accelerations<T>(m, q, qd);
    for (int i = 0; i < m.NB; ++i) {
      const MatX<T> J = body_jacobian<T>(m, q, i);
      RBD_EXPECT_RESIDUAL(max_abs(Vec6<T>(J * qd - k.v[i].c)), 1e-90, "J qd = v, body " + std::to_string(i));
      // a_i = iX0 d/dt (0X_i v_i): the derivative of the velocity in a fixed frame.
      const Vec6<T> Vp = kp.X0[i].apply_inverse(kp.v[i]).c, Vm = km.X0[i].apply_inverse(km.v[i]).c;
      const Motion<T> a = k.X0[i].apply(Motion<T>(Vec6<T>((Vp - Vm) / (T(2) * h))));
      RBD_EXPECT_RESIDUAL(max_abs(Vec6<T>(J * qdd + avp[i].c - a.c)), 1e-55,
                          "J qdd + avp = dv/dt, body " + std::to_string(i) + ", seed " + std::to_string(seed));
    }
  }
}

}  // namespace
}  // namespace rbd::test
