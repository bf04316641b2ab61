// Closed forms from Lagrangian mechanics, derived in the comments, against RNEA, CRBA, ABA and
// the energies, at double and at 50 digits. Parameters are decimal strings, so the 50-digit model
// and the 50-digit formula both see the true decimals.
#include "reference/aba.hpp"
#include "reference/crba.hpp"
#include "reference/energy.hpp"
#include "reference/rnea.hpp"
#include "tests/test_util.hpp"

namespace rbd::test {
namespace {

template <class T>
class ClosedForm : public ::testing::Test {};
TYPED_TEST_SUITE(ClosedForm, Scalars);

template <class T>
T dec(const char* s) {
  return from_decimal<T>(s);
}

Num3 v3(const char* x, const char* y, const char* z) { return {Num::decimal(x), Num::decimal(y), Num::decimal(z)}; }

BodyDesc body(const std::string& name, int parent, JointType t, Num3 axis, Num3 xyz, const char* mass, Num3 com,
              const char* iyy) {
  BodyDesc b;
  b.name = name;
  b.where = name;
  b.parent = parent;
  b.joint.name = name;
  b.joint.type = t;
  b.joint.axis = axis;
  b.origin.xyz = xyz;
  b.inertial.mass = Num::decimal(mass);
  b.inertial.com = com;
  // Iyy is the moment that matters for rotation about y; the others are valid but irrelevant.
  b.inertial.I = {Num::decimal(iyy), Num::decimal(iyy), Num::decimal(iyy), Num::exact(0), Num::exact(0), Num::exact(0)};
  return b;
}

template <class T>
VecX<T> vec(std::initializer_list<const char*> xs) {
  VecX<T> v(static_cast<Eigen::Index>(xs.size()));
  Eigen::Index k = 0;
  for (const char* x : xs) v(k++) = dec<T>(x);
  return v;
}

// Single pendulum, revolute about y at the origin, COM c = (l, 0, 0), mass m, Iyy about the COM.
// Rotation by θ about y takes x to (cos θ, 0, -sin θ), so the COM is at z = -l sin θ:
//   T = ½ (Iyy + m l²) θ̇²,  V = m g z = -m g l sin θ   (gravity (0, 0, -g))
//   H = Iyy + m l²,  C = ∂V/∂θ = -m g l cos θ  (no velocity terms for one DoF).
TYPED_TEST(ClosedForm, SinglePendulumMatchesLagrangian) {
  using T = TypeParam;
  using std::cos;
  using std::sin;
  ModelDesc d;
  d.bodies = {body("link", -1, JointType::Revolute, v3("0", "1", "0"), v3("0", "0", "0"), "1.5", v3("0.7", "0", "0"), "0.02")};
  const Model<T> model = build_model<T>(d);
  const T m = dec<T>("1.5"), l = dec<T>("0.7"), Iyy = dec<T>("0.02"), g = dec<T>("9.81");
  for (const char* th_s : {"0", "0.3", "-1.1", "2.9"}) {
    const T th = dec<T>(th_s), thd = dec<T>("0.8"), thdd = dec<T>("-0.4");
    VecX<T> q(1), qd(1), qdd(1);
    q << th;
    qd << thd;
    qdd << thdd;
    const T H = Iyy + m * l * l, C = -m * g * l * cos(th);
    const T tau = H * thdd + C;
    RBD_EXPECT_RESIDUAL(static_cast<double>(T(abs(T(crba<T>(model, q)(0, 0) - H)))), tol<T>(8), "H");
    RBD_EXPECT_RESIDUAL(static_cast<double>(T(abs(T(rnea<T>(model, q, qd, qdd)(0) - tau)))), tol<T>(16) * 20, "tau");
    VecX<T> tv(1);
    tv << tau;
    RBD_EXPECT_RESIDUAL(static_cast<double>(T(abs(T(aba<T>(model, q, qd, tv).qdd(0) - thdd)))), tol<T>(64) * 20, "qdd");
    const Energy<T> e = energy<T>(model, q, qd);
    RBD_EXPECT_RESIDUAL(static_cast<double>(T(abs(T(e.kinetic - H * thd * thd / T(2))))), tol<T>(8), "kinetic");
    RBD_EXPECT_RESIDUAL(static_cast<double>(T(abs(T(e.potential + m * g * l * sin(th))))), tol<T>(16) * 10, "potential");
  }
}

// Double pendulum in the x-z plane, both joints about y; link 1 has its COM at (lc1, 0, 0) and
// joint 2 at (l1, 0, 0); link 2 has its COM at (lc2, 0, 0). In the plane spanned by x and -z a
// rotation about +y is counter-clockwise, so the textbook planar result applies with
// c2 = cos θ2, s2 = sin θ2:
//   H11 = I1 + I2 + m1 lc1² + m2 (l1² + lc2² + 2 l1 lc2 c2)
//   H12 = I2 + m2 (lc2² + l1 lc2 c2),   H22 = I2 + m2 lc2²
//   velocity terms (Christoffel symbols of H, with h = -m2 l1 lc2 s2):
//     C1 = h (2 θ̇1 θ̇2 + θ̇2²),   C2 = -h θ̇1²
//   gravity: z1 = -lc1 s1, z2 = -l1 s1 - lc2 s12, V = g (m1 z1 + m2 z2):
//     G1 = -g (m1 lc1 c1 + m2 (l1 c1 + lc2 c12)),   G2 = -g m2 lc2 c12.
TYPED_TEST(ClosedForm, DoublePendulumWithVelocitiesMatchesLagrangian) {
  using T = TypeParam;
  using std::cos;
  using std::sin;
  ModelDesc d;
  d.bodies = {body("l1", -1, JointType::Revolute, v3("0", "1", "0"), v3("0", "0", "0"), "1.2", v3("0.45", "0", "0"), "0.031"),
              body("l2", 0, JointType::Revolute, v3("0", "1", "0"), v3("0.9", "0", "0"), "0.8", v3("0.35", "0", "0"), "0.017")};
  const Model<T> model = build_model<T>(d);
  const T m1 = dec<T>("1.2"), m2 = dec<T>("0.8"), l1 = dec<T>("0.9"), lc1 = dec<T>("0.45"), lc2 = dec<T>("0.35");
  const T I1 = dec<T>("0.031"), I2 = dec<T>("0.017"), g = dec<T>("9.81");
  const VecX<T> q = vec<T>({"0.4", "-1.3"}), qd = vec<T>({"1.7", "-0.6"}), qdd = vec<T>({"0.25", "0.5"});
  const T c1 = cos(q(0)), s1 = sin(q(0)), c2 = cos(q(1)), s2 = sin(q(1)), c12 = cos(T(q(0) + q(1)));
  MatX<T> H(2, 2);
  H(0, 0) = I1 + I2 + m1 * lc1 * lc1 + m2 * (l1 * l1 + lc2 * lc2 + T(2) * l1 * lc2 * c2);
  H(0, 1) = H(1, 0) = I2 + m2 * (lc2 * lc2 + l1 * lc2 * c2);
  H(1, 1) = I2 + m2 * lc2 * lc2;
  const T h = -m2 * l1 * lc2 * s2;
  VecX<T> C(2);
  C(0) = h * (T(2) * qd(0) * qd(1) + qd(1) * qd(1)) - g * (m1 * lc1 * c1 + m2 * (l1 * c1 + lc2 * c12));
  C(1) = -h * qd(0) * qd(0) - g * m2 * lc2 * c12;
  (void)s1;
  const double sH = max_abs(H), sC = max_abs(C);
  RBD_EXPECT_RESIDUAL(max_abs(MatX<T>(crba<T>(model, q) - H)), tol<T>(32) * sH, "H");
  RBD_EXPECT_RESIDUAL(max_abs(VecX<T>(bias<T>(model, q, qd) - C)), tol<T>(64) * sC, "C");
  const VecX<T> tau = H * qdd + C;
  RBD_EXPECT_RESIDUAL(max_abs(VecX<T>(rnea<T>(model, q, qd, qdd) - tau)), tol<T>(64) * (sH + sC), "tau");
  RBD_EXPECT_RESIDUAL(max_abs(VecX<T>(aba<T>(model, q, qd, tau).qdd - qdd)), tol<T>(512) * (sH + sC), "qdd");
  RBD_EXPECT_RESIDUAL(static_cast<double>(T(abs(T(energy<T>(model, q, qd).kinetic - qd.dot(H * qd) / T(2))))),
                      tol<T>(32) * sH, "kinetic");
}

// A free body: mass m, COM c (body frame), rotational inertia Ic about the COM (non-diagonal),
// orientation R = R(q) ≠ 1, body angular velocity ω and origin velocity v (body coordinates),
// applied joint force τ = [n; F] (moment about the body origin and force, body coordinates).
// Newton–Euler about the COM, in body coordinates (g_b = Rᵀ g):
//   Euler:   Ic ω̇ + ω × Ic ω = n - c × F
//   Newton:  m (v̇ + ω̇ × c + ω × (v + ω × c)) = F + m g_b
// so ω̇ = Ic⁻¹ (n - c × F - ω × Ic ω), v̇ = F/m + g_b - ω̇ × c - ω × (v + ω × c), and the free
// joint's qdd = [ω̇; v̇] (its velocity coordinates are the body-coordinate ω and v).
TYPED_TEST(ClosedForm, FreeBodyAbaMatchesNewtonEuler) {
  using T = TypeParam;
  ModelDesc d;
  BodyDesc b = body("body", -1, JointType::Free, v3("0", "0", "1"), v3("0", "0", "0"), "2.5", v3("0.1", "-0.2", "0.05"), "0");
  b.inertial.I = {Num::decimal("0.3"), Num::decimal("0.25"), Num::decimal("0.2"),
                  Num::decimal("0.01"), Num::decimal("-0.02"), Num::decimal("0.015")};
  d.bodies = {b};
  const Model<T> model = build_model<T>(d);
  const T m = dec<T>("2.5");
  const Vec3<T> c(dec<T>("0.1"), dec<T>("-0.2"), dec<T>("0.05")), g(T(0), T(0), -dec<T>("9.81"));
  Mat3<T> Ic;
  Ic << dec<T>("0.3"), dec<T>("0.01"), dec<T>("-0.02"), dec<T>("0.01"), dec<T>("0.25"), dec<T>("0.015"), dec<T>("-0.02"),
      dec<T>("0.015"), dec<T>("0.2");
  // q: a unit quaternion (0.5, 0.5, -0.5, 0.5) is exact in binary; position arbitrary.
  const VecX<T> q = vec<T>({"0.5", "0.5", "-0.5", "0.5", "1.0", "-2.0", "0.3"});
  const VecX<T> qd = vec<T>({"0.3", "-1.1", "0.7", "0.4", "0.2", "-0.9"});
  const VecX<T> tau = vec<T>({"0.2", "-0.1", "0.3", "1.5", "-2.0", "30.0"});
  const Mat3<T> R = quat_to_R<T>(q(0), q(1), q(2), q(3));
  const Vec3<T> w = qd.head(3), v = qd.tail(3), n = tau.head(3), F = tau.tail(3), gb = R.transpose() * g;
  const Vec3<T> wd = Ic.inverse() * Vec3<T>(n - c.cross(F) - w.cross(Ic * w));
  const Vec3<T> vd = F / m + gb - wd.cross(c) - w.cross(Vec3<T>(v + w.cross(c)));
  VecX<T> expect(6);
  expect << wd, vd;
  const AbaResult<T> fd = aba<T>(model, q, qd, tau);
  ASSERT_TRUE(fd.ok);
  RBD_EXPECT_RESIDUAL(max_abs(VecX<T>(fd.qdd - expect)), tol<T>(2048), "ABA vs Newton–Euler");
  RBD_EXPECT_RESIDUAL(max_abs(VecX<T>(rnea<T>(model, q, qd, expect) - tau)), tol<T>(2048), "RNEA(qdd) = tau");
}

// Cart-pole: a cart on a prismatic joint along x (mass M) carrying a pendulum on a revolute joint
// about y with COM c = (0, 0, lc), mass m, Iyy = Ip. Rotation by θ about y takes z to
// (sin θ, 0, cos θ): COM at (x + lc s, 0, lc c), velocity (ẋ + lc c θ̇, 0, -lc s θ̇):
//   T = ½ M ẋ² + ½ m ((ẋ + lc c θ̇)² + (lc s θ̇)²) + ½ Ip θ̇²,  V = m g lc c
//   H = [[M + m, m lc c], [m lc c, Ip + m lc²]]
//   x:  d/dt ∂T/∂ẋ = (M + m) ẍ + m lc c θ̈ - m lc s θ̇²           → C1 = -m lc s θ̇²
//   θ:  d/dt ∂T/∂θ̇ - ∂T/∂θ = m lc c ẍ + (Ip + m lc²) θ̈  (the ẋ θ̇ terms cancel), ∂V/∂θ = -m g lc s
//                                                                → C2 = -m g lc s
TYPED_TEST(ClosedForm, PrismaticRevoluteChainMatchesLagrangian) {
  using T = TypeParam;
  using std::cos;
  using std::sin;
  ModelDesc d;
  d.bodies = {body("cart", -1, JointType::Prismatic, v3("1", "0", "0"), v3("0", "0", "0"), "3.0", v3("0.1", "0.2", "0"), "0.05"),
              body("pole", 0, JointType::Revolute, v3("0", "1", "0"), v3("0", "0", "0"), "0.6", v3("0", "0", "0.55"), "0.012")};
  const Model<T> model = build_model<T>(d);
  const T M = dec<T>("3.0"), m = dec<T>("0.6"), lc = dec<T>("0.55"), Ip = dec<T>("0.012"), g = dec<T>("9.81");
  const VecX<T> q = vec<T>({"0.3", "2.2"}), qd = vec<T>({"-0.5", "1.9"}), qdd = vec<T>({"0.7", "-0.3"});
  const T c = cos(q(1)), s = sin(q(1));
  MatX<T> H(2, 2);
  H << M + m, m * lc * c, m * lc * c, Ip + m * lc * lc;
  VecX<T> C(2);
  C << -m * lc * s * qd(1) * qd(1), -m * g * lc * s;
  const double sH = max_abs(H), sC = max_abs(C);
  RBD_EXPECT_RESIDUAL(max_abs(MatX<T>(crba<T>(model, q) - H)), tol<T>(32) * sH, "H");
  RBD_EXPECT_RESIDUAL(max_abs(VecX<T>(bias<T>(model, q, qd) - C)), tol<T>(64) * sC, "C");
  const VecX<T> tau = H * qdd + C;
  RBD_EXPECT_RESIDUAL(max_abs(VecX<T>(aba<T>(model, q, qd, tau).qdd - qdd)), tol<T>(512) * (sH + sC), "qdd");
}

}  // namespace
}  // namespace rbd::test
