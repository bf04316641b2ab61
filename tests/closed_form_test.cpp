// Closed forms from Lagrangian (and Newton–Euler) mechanics, derived in the comments, against
// RNEA, CRBA, ABA and the energies, at double and at 50 digits (bin50).
//
// Every model parameter and state entry is a decimal string used twice: as Num::decimal in the
// model description (so Model<bin50> holds the true decimal, not its double rounding) and through
// from_decimal<T> in the closed form. The closed form is evaluated in T with its own formulas
// (no library kinematics, no library spatial algebra), so agreement to ~k ε(T) at bin50 shows
// ~48 digits and that no double leaks into the templated path.
//
// Tolerance of every check: kTol · ε(T) · scale, kTol = 100, scale = a sum of the magnitudes of
// the terms that make up the checked quantity (so cancellation in the result does not shrink it).
// Each check also records its residual and the digits it achieved (-log10(residual / scale)) as
// a test property (visible with --gtest_output=xml).
//
// Planar geometry used by tests 1, 2 and 4. A revolute joint about +y by θ rotates the body by
//   R_y(θ) = [[c, 0, s], [0, 1, 0], [-s, 0, c]],  (x, y, z) ↦ (c x + s z, y, -s x + c z).
// Writing a point of the x-z plane as the complex number u = X - iZ, this is u ↦ e^{iθ} u: a
// counter-clockwise rotation by θ, so the textbook planar formulas hold in the u-plane with
// "up" = +z = -Im u. Gravity (0, 0, -g) gives V = m g Z (zero at the base origin, as energy()
// defines it). The y coordinate of a point never moves, so y offsets of COMs and joint origins
// do not enter T, and for ω ∥ y the rotational kinetic energy is ½ ωᵀ Ic ω = ½ Iyy ω²: the
// products of inertia ixy, ixz, iyz and Ixx, Izz are present in the models below on purpose and
// must not change the generalized forces.
//
// Velocity terms come from the Christoffel symbols of H:
//   C_i = Σ_jk Γ_ijk q̇_j q̇_k + ∂V/∂q_i,  Γ_ijk = ½ (∂H_ij/∂q_k + ∂H_ik/∂q_j - ∂H_jk/∂q_i).
#include "reference/aba.hpp"
#include "reference/crba.hpp"
#include "reference/energy.hpp"
#include "reference/model.hpp"
#include "reference/rnea.hpp"
#include "tests/test_util.hpp"

#include <Eigen/LU>

#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace rbd::test {
namespace {

constexpr double kTol = 100;  // k of the tolerance k ε(T) scale, for every check in this file

template <class T>
class ClosedForm : public ::testing::Test {};
struct ScalarName {
  template <class T>
  static std::string GetName(int) {
    return std::is_same<T, double>::value ? "double" : "bin50";
  }
};
TYPED_TEST_SUITE(ClosedForm, Scalars, ScalarName);

// ---- helpers -----------------------------------------------------------------------------------

template <class T>
T dec(const char* s) {
  return from_decimal<T>(s);
}
Num D(const char* s) { return Num::decimal(s); }
Num3 D3(const char* x, const char* y, const char* z) { return {D(x), D(y), D(z)}; }

template <class T>
VecX<T> decvec(const std::vector<const char*>& xs) {
  VecX<T> v(static_cast<Eigen::Index>(xs.size()));
  Eigen::Index k = 0;
  for (const char* x : xs) v(k++) = dec<T>(x);
  return v;
}

template <class Derived>
typename Derived::Scalar maxabs(const Eigen::MatrixBase<Derived>& x) {
  return x.cwiseAbs().maxCoeff();
}
// Infinity norm (max row sum), for the scale of a solve.
template <class Derived>
typename Derived::Scalar infnorm(const Eigen::MatrixBase<Derived>& x) {
  return x.cwiseAbs().rowwise().sum().maxCoeff();
}

// EXPECT residual <= kTol ε(T) scale, printing both; records residual and digits as a property.
template <class T>
void expect_small(const T& residual, const T& scale, const std::string& what) {
  using std::log10;
  const T tol = T(kTol) * epsilon<T>() * scale;
  const double r = to_double(residual), t = to_double(tol);
  const double digits =
      residual > T(0) ? to_double(T(-log10(T(residual / scale)))) : std::numeric_limits<double>::infinity();
  EXPECT_LE(r, t) << what << ": residual " << r << " > tolerance " << t << " (= " << kTol << " eps "
                  << to_double(epsilon<T>()) << " * scale " << to_double(scale) << "); " << digits
                  << " digits relative to scale";
  std::ostringstream rec;
  rec << "residual " << r << " tolerance " << t << " digits " << digits;
  ::testing::Test::RecordProperty(what, rec.str());
}

struct BodySpec {
  const char* name;
  int parent;
  JointType type;
  Num3 axis;
  Num3 xyz;               // joint frame origin in the parent body frame
  Num3 rpy;               // joint frame rotation (URDF rpy)
  const char* mass;
  Num3 com;
  std::array<const char*, 6> I;  // ixx iyy izz ixy ixz iyz about the COM
};

BodyDesc make_body(const BodySpec& s) {
  BodyDesc b;
  b.name = s.name;
  b.where = s.name;
  b.parent = s.parent;
  b.joint.name = std::string(s.name) + "_joint";
  b.joint.type = s.type;
  b.joint.axis = s.axis;
  b.origin.xyz = s.xyz;
  b.origin.rpy = s.rpy;
  b.inertial.mass = D(s.mass);
  b.inertial.com = s.com;
  for (int k = 0; k < 6; ++k) b.inertial.I[k] = D(s.I[k]);
  return b;
}

const Num3 kZero3 = D3("0", "0", "0");
const Num3 kAxisX = D3("1", "0", "0");
const Num3 kAxisY = D3("0", "1", "0");

// ---- 1. single pendulum ------------------------------------------------------------------------
//
// One revolute joint about +y, joint frame at (0, 0, z0) in the base (no rotation). The link has
// mass m, COM c = (l, 0, 0) in the body frame and rotational inertia Ic about the COM with moment
// Iyy about the y axis (plus products of inertia, irrelevant as explained at the top).
// COM in the base: (l cos θ, 0, z0 - l sin θ), velocity magnitude l θ̇, ω = θ̇ ŷ:
//   T = ½ (Iyy + m l²) θ̇²                    ⇒ H = Iyy + m l²   (parallel-axis theorem)
//   V = m g (z0 - l sin θ)                    ⇒ ∂V/∂θ = -m g l cos θ
// H is constant, so there is no velocity term (Γ = 0): C = -m g l cos θ.
// Sign check at θ = 0: the link points along +x, gravity's moment about the joint is
// (l, 0, 0) × (0, 0, -m g) = (0, +m g l, 0), so holding it takes τ = -m g l = C. ✓
//   rnea(θ, θ̇, θ̈) = H θ̈ + C,  crba = H,  aba(H θ̈ + C) = θ̈,  kinetic = ½ H θ̇²,  potential = V.
TYPED_TEST(ClosedForm, SinglePendulumMatchesLagrangian) {
  using T = TypeParam;
  using std::abs;
  using std::cos;
  using std::sin;
  const char *sm = "1.5", *sl = "0.7", *sz0 = "0.5", *sIyy = "0.04";
  ModelDesc d;
  d.bodies = {make_body({"link", -1, JointType::Revolute, kAxisY, D3("0", "0", sz0), kZero3, sm, D3(sl, "0", "0"),
                         {"0.05", sIyy, "0.03", "0.002", "-0.001", "0.003"}})};
  const Model<T> model = build_model<T>(d);
  ASSERT_EQ(model.nv, 1);
  const T m = dec<T>(sm), l = dec<T>(sl), z0 = dec<T>(sz0), Iyy = dec<T>(sIyy), g = dec<T>("9.81");

  struct State { const char *q, *qd, *qdd; };
  const std::vector<State> states = {{"0", "0.8", "-0.4"}, {"0.3", "-1.7", "2.1"},   {"-1.1", "0.25", "0.6"},
                                     {"2.9", "3.3", "-1.2"}, {"-3.05", "-0.9", "0"}, {"1.5707963", "1.1", "0.35"}};
  int n = 0;
  for (const State& s : states) {
    const std::string tag = "state" + std::to_string(n++) + "_";
    SCOPED_TRACE("theta = " + std::string(s.q));
    const T th = dec<T>(s.q), thd = dec<T>(s.qd), thdd = dec<T>(s.qdd);
    VecX<T> q(1), qd(1), qdd(1);
    q << th;
    qd << thd;
    qdd << thdd;

    const T H = Iyy + m * l * l;
    const T C = -m * g * l * cos(th);
    const T tau = H * thdd + C;
    const T V = m * g * (z0 - l * sin(th));
    const T Tkin = H * thd * thd / T(2);
    const T s_tau = abs(T(H * thdd)) + m * g * l;  // magnitudes of the two terms of τ

    expect_small<T>(abs(T(crba<T>(model, q)(0, 0) - H)), H, tag + "H");
    expect_small<T>(abs(T(bias<T>(model, q, qd)(0) - C)), m * g * l, tag + "C");
    expect_small<T>(abs(T(rnea<T>(model, q, qd, qdd)(0) - tau)), s_tau, tag + "rnea");
    VecX<T> tv(1);
    tv << tau;
    const AbaResult<T> fd = aba<T>(model, q, qd, tv);
    ASSERT_TRUE(fd.ok);
    expect_small<T>(abs(T(fd.qdd(0) - thdd)), T(abs(thdd) + s_tau / H), tag + "aba");
    const Energy<T> e = energy<T>(model, q, qd);
    expect_small<T>(abs(T(e.kinetic - Tkin)), Tkin, tag + "kinetic");
    expect_small<T>(abs(T(e.potential - V)), T(m * g * (abs(z0) + l)), tag + "potential");
  }
}

// ---- 2. double pendulum with velocities --------------------------------------------------------
//
// Two revolute joints about +y. Joint 1 at (x0, y0, z0) in the base; joint 2 at (l1, e2, 0) in
// body 1 with origin rpy (0, β, 0), i.e. its frame is pitched by β about y, so the relative angle
// of link 2 is φ2 = q2 + β (R_y(β) R_y(q2) = R_y(q2 + β); the joint axis y is unchanged).
// COMs (lc1, d1, 0) and (lc2, d2, 0); moments I1, I2 about y through the COMs; masses m1, m2.
// In the u-plane (see top), with φ1 = q1, φ12 = q1 + φ2, and the joint-1 origin u0:
//   u_c1 = u0 + lc1 e^{iφ1},   u_c2 = u0 + l1 e^{iφ1} + lc2 e^{iφ12}
//   |u̇_c1|² = lc1² q̇1²,   |u̇_c2|² = l1² q̇1² + lc2² (q̇1 + q̇2)² + 2 l1 lc2 q̇1 (q̇1 + q̇2) cos φ2
//   T = ½ (I1 + m1 lc1²) q̇1² + ½ m2 |u̇_c2|² + ½ I2 (q̇1 + q̇2)²
// so, with c2 = cos φ2, s2 = sin φ2:
//   H11 = I1 + I2 + m1 lc1² + m2 (l1² + lc2² + 2 l1 lc2 c2)
//   H12 = H21 = I2 + m2 (lc2² + l1 lc2 c2)
//   H22 = I2 + m2 lc2²
// Only ∂/∂q2 of H is non-zero: ∂H11/∂q2 = 2h, ∂H12/∂q2 = h, ∂H22/∂q2 = 0, h = -m2 l1 lc2 s2:
//   Γ111 = 0, Γ112 = Γ121 = ½ ∂H11/∂q2 = h, Γ122 = ∂H12/∂q2 - ½ ∂H22/∂q1 = h
//   Γ211 = ∂H21/∂q1 - ½ ∂H11/∂q2 = -h, Γ212 = Γ221 = ½ (∂H21/∂q2 - ∂H12/∂q2) = 0, Γ222 = 0
//   ⇒ Coriolis/centrifugal:  C1 = h (2 q̇1 q̇2 + q̇2²) = -m2 l1 lc2 s2 (2 q̇1 q̇2 + q̇2²)
//                            C2 = -h q̇1² = m2 l1 lc2 s2 q̇1²
// Heights Z = -Im u: Z_c1 = z0 - lc1 sin φ1, Z_c2 = z0 - l1 sin φ1 - lc2 sin φ12, V = g Σ m Z:
//   G1 = ∂V/∂q1 = -g (m1 lc1 cos φ1 + m2 (l1 cos φ1 + lc2 cos φ12)),   G2 = -g m2 lc2 cos φ12
//   C = [C1 + G1; C2 + G2].
TYPED_TEST(ClosedForm, DoublePendulumWithVelocitiesMatchesLagrangian) {
  using T = TypeParam;
  using std::abs;
  using std::cos;
  using std::sin;
  const char *sm1 = "1.2", *slc1 = "0.45", *sI1 = "0.031", *sl1 = "0.9", *sz0 = "1.1";
  const char *sm2 = "0.8", *slc2 = "0.35", *sI2 = "0.017", *sbeta = "0.25";
  ModelDesc d;
  d.bodies = {
      make_body({"link1", -1, JointType::Revolute, kAxisY, D3("0.1", "-0.2", sz0), kZero3, sm1, D3(slc1, "0.05", "0"),
                 {"0.004", sI1, "0.033", "0.001", "-0.002", "0.0005"}}),
      make_body({"link2", 0, JointType::Revolute, kAxisY, D3(sl1, "0.07", "0"), D3("0", sbeta, "0"), sm2,
                 D3(slc2, "-0.03", "0"), {"0.003", sI2, "0.016", "-0.0004", "0.001", "0.0007"}})};
  const Model<T> model = build_model<T>(d);
  ASSERT_EQ(model.nv, 2);
  const T m1 = dec<T>(sm1), lc1 = dec<T>(slc1), I1 = dec<T>(sI1), l1 = dec<T>(sl1), z0 = dec<T>(sz0);
  const T m2 = dec<T>(sm2), lc2 = dec<T>(slc2), I2 = dec<T>(sI2), beta = dec<T>(sbeta), g = dec<T>("9.81");

  struct State { std::vector<const char*> q, qd, qdd; };
  const std::vector<State> states = {{{"0.4", "-1.3"}, {"1.7", "-0.6"}, {"0.25", "0.5"}},
                                     {{"-2.1", "2.6"}, {"-0.9", "2.3"}, {"-1.4", "0.8"}},
                                     {{"1.0", "-0.25"}, {"3.1", "4.2"}, {"0", "0"}}};
  int n = 0;
  for (const State& s : states) {
    const std::string tag = "state" + std::to_string(n++) + "_";
    const VecX<T> q = decvec<T>(s.q), qd = decvec<T>(s.qd), qdd = decvec<T>(s.qdd);
    SCOPED_TRACE(tag);
    const T phi1 = q(0), phi2 = T(q(1) + beta), phi12 = T(phi1 + phi2);
    const T c1 = cos(phi1), s1 = sin(phi1), c2 = cos(phi2), s2 = sin(phi2), c12 = cos(phi12), s12 = sin(phi12);
    const T qd1 = qd(0), qd2 = qd(1);

    MatX<T> H(2, 2);
    H(0, 0) = I1 + I2 + m1 * lc1 * lc1 + m2 * (l1 * l1 + lc2 * lc2 + T(2) * l1 * lc2 * c2);
    H(0, 1) = H(1, 0) = I2 + m2 * (lc2 * lc2 + l1 * lc2 * c2);
    H(1, 1) = I2 + m2 * lc2 * lc2;
    const T h = -m2 * l1 * lc2 * s2;
    VecX<T> C(2);
    C(0) = h * (T(2) * qd1 * qd2 + qd2 * qd2) - g * (m1 * lc1 * c1 + m2 * (l1 * c1 + lc2 * c12));
    C(1) = -h * qd1 * qd1 - g * m2 * lc2 * c12;
    const VecX<T> tau = H * qdd + C;
    const T v2sq = l1 * l1 * qd1 * qd1 + lc2 * lc2 * (qd1 + qd2) * (qd1 + qd2) + T(2) * l1 * lc2 * qd1 * (qd1 + qd2) * c2;
    const T Tkin = (I1 + m1 * lc1 * lc1) * qd1 * qd1 / T(2) + m2 * v2sq / T(2) + I2 * (qd1 + qd2) * (qd1 + qd2) / T(2);
    const T V = g * (m1 * (z0 - lc1 * s1) + m2 * (z0 - l1 * s1 - lc2 * s12));

    // Scales: magnitudes of the terms.
    const T sH = maxabs(H);
    const T sC = m2 * l1 * lc2 * (qd1 * qd1 + T(2) * abs(T(qd1 * qd2)) + qd2 * qd2) + g * (m1 * lc1 + m2 * (l1 + lc2));
    const T sTau = infnorm(H) * maxabs(qdd) + sC;
    const MatX<T> Hinv = H.inverse();
    const T sQdd = maxabs(qdd) + infnorm(Hinv) * sTau;

    expect_small<T>(maxabs(MatX<T>(crba<T>(model, q) - H)), sH, tag + "H");
    expect_small<T>(maxabs(VecX<T>(bias<T>(model, q, qd) - C)), sC, tag + "C");
    expect_small<T>(maxabs(VecX<T>(rnea<T>(model, q, qd, qdd) - tau)), sTau, tag + "rnea");
    const AbaResult<T> fd = aba<T>(model, q, qd, tau);
    ASSERT_TRUE(fd.ok);
    expect_small<T>(maxabs(VecX<T>(fd.qdd - qdd)), sQdd, tag + "aba");
    const Energy<T> e = energy<T>(model, q, qd);
    expect_small<T>(abs(T(e.kinetic - Tkin)), T(sH * maxabs(qd) * maxabs(qd) * T(2)), tag + "kinetic");
    expect_small<T>(abs(T(e.potential - V)), T(g * (m1 * (z0 + lc1) + m2 * (z0 + l1 + lc2))), tag + "potential");
  }
}

// ---- 3. free body ------------------------------------------------------------------------------
//
// One body on a free joint at the base origin: mass m, COM c (body frame), rotational inertia Ic
// about the COM (non-diagonal). q = (qw, qx, qy, qz, p): orientation R = R(q/|q|) (Hamilton,
// body-to-base, written out below) and origin p; qd = [ω; v], the body's angular velocity and its
// origin's velocity, both in body coordinates; qdd = [ω̇; v̇] the time derivatives of those
// body-coordinate components. The joint's force τ = [n; F]: moment about the body origin and force,
// body coordinates.
//
// Newton–Euler about the COM in body coordinates (g_b = Rᵀ g; the body frame turns with ω, so the
// base-frame acceleration of the origin in body coordinates is v̇ + ω × v):
//   Newton:  m (v̇ + ω × v + ω̇ × c + ω × (ω × c)) = F + m g_b
//   Euler:   Ic ω̇ + ω × (Ic ω) = n - c × F
// Stacked at the body origin with the spatial inertia I = [Ic + m c× c×ᵀ, m c×; m c×ᵀ, m 1]
// (built by hand below) and the spatial cross product v×* = [ω× v×; 0 ω×], these read
//   τ = I (qdd - a_g) + v×* I v,   a_g = [0; g_b]
// (the linear rows are Newton: m (c×ᵀ ω̇ + v̇ - g_b) + ω × (m c×ᵀ ω + m v) = F; the angular rows
// are Euler plus c × Newton). Since [ω; v] are body-coordinate components of the body's own
// spatial velocity, d/dt of them is its spatial acceleration (v × v = 0), so qdd solves
//   I qdd = τ - v×* I v + I a_g,
// a 6x6 SPD system solved here with Eigen in T. Checked: aba(τ) = that qdd, the 3-vector
// Newton and Euler equations hold for aba's qdd (an independent reading of the same physics),
// rnea(aba(τ)) = τ, kinetic energy ½ m |v + ω × c|² + ½ ωᵀ Ic ω (König) and V = -m g·(p + R c).
TYPED_TEST(ClosedForm, FreeBodyAbaMatchesNewtonEuler) {
  using T = TypeParam;
  using std::abs;
  const char* sm = "2.5";
  const std::array<const char*, 3> sc = {"0.1", "-0.2", "0.05"};
  const std::array<const char*, 6> sI = {"0.3", "0.25", "0.2", "0.01", "-0.02", "0.015"};
  ModelDesc d;
  d.bodies = {make_body({"body", -1, JointType::Free, D3("0", "0", "1"), kZero3, kZero3, sm, D3(sc[0], sc[1], sc[2]), sI})};
  const Model<T> model = build_model<T>(d);
  ASSERT_EQ(model.nq, 7);
  ASSERT_EQ(model.nv, 6);

  const T m = dec<T>(sm), g = dec<T>("9.81");
  const Vec3<T> c(dec<T>(sc[0]), dec<T>(sc[1]), dec<T>(sc[2])), gvec(T(0), T(0), -g);
  Mat3<T> Ic;
  Ic << dec<T>(sI[0]), dec<T>(sI[3]), dec<T>(sI[4]),  //
      dec<T>(sI[3]), dec<T>(sI[1]), dec<T>(sI[5]),    //
      dec<T>(sI[4]), dec<T>(sI[5]), dec<T>(sI[2]);
  // |(0.7, 0.1, -0.5, 0.5)| = 1 exactly in decimal: a general, non-identity unit quaternion.
  const VecX<T> q = decvec<T>({"0.7", "0.1", "-0.5", "0.5", "1.0", "-2.0", "0.3"});
  const VecX<T> qd = decvec<T>({"0.3", "-1.1", "0.7", "0.4", "0.2", "-0.9"});
  const std::vector<VecX<T>> taus = {decvec<T>({"0.2", "-0.1", "0.3", "1.5", "-2.0", "30.0"}),
                                     decvec<T>({"0", "0", "0", "0", "0", "0"}),
                                     decvec<T>({"-1.3", "0.8", "2.2", "-4.0", "7.5", "12.25"})};

  // R(q/|q|) = 1 + (2/|q|²) (w [x]× + [x]×²) for x = (qx, qy, qz), written out.
  const T w = q(0), x = q(1), y = q(2), z = q(3);
  const T s = T(2) / (w * w + x * x + y * y + z * z);
  Mat3<T> R;
  R << T(1) - s * (y * y + z * z), s * (x * y - w * z), s * (x * z + w * y),  //
      s * (x * y + w * z), T(1) - s * (x * x + z * z), s * (y * z - w * x),    //
      s * (x * z - w * y), s * (y * z + w * x), T(1) - s * (x * x + y * y);
  const Vec3<T> p = q.segment(4, 3), om = qd.head(3), v = qd.tail(3), gb = R.transpose() * gvec;

  auto cross_matrix = [](const Vec3<T>& r) {
    Mat3<T> M;
    M << T(0), -r(2), r(1), r(2), T(0), -r(0), -r(1), r(0), T(0);
    return M;
  };
  const Mat3<T> cx = cross_matrix(c), wx = cross_matrix(om), vx = cross_matrix(v);
  Mat6<T> I6;
  I6 << Mat3<T>(Ic + m * cx * cx.transpose()), Mat3<T>(m * cx), Mat3<T>(m * cx.transpose()),
      Mat3<T>(m * Mat3<T>::Identity());
  Mat6<T> vxs = Mat6<T>::Zero();  // v×*
  vxs.template block<3, 3>(0, 0) = wx;
  vxs.template block<3, 3>(0, 3) = vx;
  vxs.template block<3, 3>(3, 3) = wx;
  Vec6<T> vel, ag;
  vel << om, v;
  ag << Vec3<T>::Zero(), gb;
  const Vec6<T> bias6 = vxs * (I6 * vel);

  int n = 0;
  for (const VecX<T>& tau : taus) {
    const std::string tag = "tau" + std::to_string(n++) + "_";
    SCOPED_TRACE(tag);
    const Vec6<T> rhs = Vec6<T>(tau) - bias6 + I6 * ag;
    const Vec6<T> expect = I6.partialPivLu().solve(rhs);

    const T sForce = maxabs(tau) + maxabs(bias6) + infnorm(I6) * g;  // terms of τ at the solution
    const T sQdd = maxabs(expect) + infnorm(Mat6<T>(I6.inverse())) * sForce;

    const AbaResult<T> fd = aba<T>(model, q, qd, tau);
    ASSERT_TRUE(fd.ok);
    ASSERT_EQ(fd.qdd.size(), 6);
    expect_small<T>(maxabs(VecX<T>(fd.qdd - expect)), sQdd, tag + "aba_vs_6x6");

    // The 3-vector Newton and Euler equations, evaluated with aba's qdd.
    const Vec3<T> wd = fd.qdd.head(3), vd = fd.qdd.tail(3), nn = tau.head(3), F = tau.tail(3);
    const Vec3<T> newton = m * (vd + om.cross(v) + wd.cross(c) + om.cross(Vec3<T>(om.cross(c)))) - F - m * gb;
    const Vec3<T> euler = Ic * wd + om.cross(Vec3<T>(Ic * om)) - nn + c.cross(F);
    expect_small<T>(maxabs(newton), sForce, tag + "newton");
    expect_small<T>(maxabs(euler), sForce, tag + "euler");

    expect_small<T>(maxabs(VecX<T>(rnea<T>(model, q, qd, fd.qdd) - tau)), T(sForce + infnorm(I6) * maxabs(expect)),
                    tag + "rnea_of_aba");
  }

  const Energy<T> e = energy<T>(model, q, qd);
  const Vec3<T> vc = v + om.cross(c);
  const T Tkin = m * vc.squaredNorm() / T(2) + om.dot(Ic * om) / T(2);
  const Vec3<T> pc = p + R * c;
  const T V = -m * gvec.dot(pc);
  expect_small<T>(abs(T(e.kinetic - Tkin)), T(infnorm(I6) * maxabs(vel) * maxabs(vel) * T(3)), "kinetic");
  expect_small<T>(abs(T(e.potential - V)), T(m * g * (maxabs(p) + c.norm())), "potential");
}

// ---- 4. prismatic–revolute chain (cart-pole) ---------------------------------------------------
//
// Cart: prismatic along x, joint frame at (0, 0, zc) in the base; mass M, COM (cx, cy, cz), some
// inertia (it never rotates, so only M matters). Pole: revolute about y, joint frame at
// (ox, 0, oz) in the cart; mass m, COM (0, d, -lc) (hanging at θ = 0), moment Ip about y.
// R_y(θ) (0, d, -lc) = (-lc sin θ, d, -lc cos θ), so the pole COM is at
//   X = x + ox - lc s,   Z = zc + oz - lc c      (s = sin θ, c = cos θ)
//   Ẋ = ẋ - lc c θ̇,      Ż = lc s θ̇
//   T = ½ M ẋ² + ½ m ((ẋ - lc c θ̇)² + (lc s θ̇)²) + ½ Ip θ̇²
//     = ½ (M + m) ẋ² - m lc c ẋ θ̇ + ½ (Ip + m lc²) θ̇²
//   H = [[M + m, -m lc c], [-m lc c, Ip + m lc²]]
// Only H12 depends on q (on θ): ∂H12/∂θ = m lc s, so
//   Γ122 = ∂H12/∂θ - ½ ∂H22/∂x = m lc s, Γ112 = ½ ∂H11/∂θ = 0, Γ111 = 0,
//   Γ211 = ∂H21/∂x - ½ ∂H11/∂θ = 0, Γ212 = ½ (∂H21/∂θ - ∂H12/∂θ) = 0, Γ222 = 0
// (check: d/dt ∂T/∂ẋ = (M + m) ẍ - m lc c θ̈ + m lc s θ̇², and ∂T/∂θ = m lc s ẋ θ̇ cancels the
// ẋ θ̇ term of d/dt ∂T/∂θ̇). V = g (M (zc + cz) + m (zc + oz - lc c)), ∂V/∂θ = m g lc s:
//   C = [m lc s θ̇²;  m g lc s].
TYPED_TEST(ClosedForm, PrismaticRevoluteChainMatchesLagrangian) {
  using T = TypeParam;
  using std::abs;
  using std::cos;
  using std::sin;
  const char *sM = "3.0", *scz = "0.05", *szc = "0.4", *sox = "0.15", *soz = "0.3";
  const char *sm = "0.6", *scomz = "-0.55", *sIp = "0.012";  // pole COM z = -lc
  ModelDesc d;
  d.bodies = {make_body({"cart", -1, JointType::Prismatic, kAxisX, D3("0", "0", szc), kZero3, sM, D3("0.1", "0.2", scz),
                         {"0.05", "0.07", "0.09", "0.001", "0.002", "-0.003"}}),
              make_body({"pole", 0, JointType::Revolute, kAxisY, D3(sox, "0", soz), kZero3, sm, D3("0", "0.02", scomz),
                         {"0.0125", sIp, "0.001", "0.0003", "-0.0005", "0.0002"}})};
  const Model<T> model = build_model<T>(d);
  ASSERT_EQ(model.nv, 2);
  const T M = dec<T>(sM), cz = dec<T>(scz), zc = dec<T>(szc), oz = dec<T>(soz);
  const T m = dec<T>(sm), lc = -dec<T>(scomz), Ip = dec<T>(sIp), g = dec<T>("9.81");

  struct State { std::vector<const char*> q, qd, qdd; };
  const std::vector<State> states = {{{"0.3", "2.2"}, {"-0.5", "1.9"}, {"0.7", "-0.3"}},
                                     {{"-1.25", "-0.6"}, {"2.4", "-3.1"}, {"-1.5", "2.0"}},
                                     {{"0", "0.05"}, {"0.1", "6.5"}, {"0", "0"}}};
  int n = 0;
  for (const State& st : states) {
    const std::string tag = "state" + std::to_string(n++) + "_";
    SCOPED_TRACE(tag);
    const VecX<T> q = decvec<T>(st.q), qd = decvec<T>(st.qd), qdd = decvec<T>(st.qdd);
    const T c = cos(q(1)), s = sin(q(1)), xd = qd(0), thd = qd(1);

    MatX<T> H(2, 2);
    H << M + m, -m * lc * c, -m * lc * c, Ip + m * lc * lc;
    VecX<T> C(2);
    C << m * lc * s * thd * thd, m * g * lc * s;
    const VecX<T> tau = H * qdd + C;
    const T Tkin = M * xd * xd / T(2) +
                   m * ((xd - lc * c * thd) * (xd - lc * c * thd) + (lc * s * thd) * (lc * s * thd)) / T(2) +
                   Ip * thd * thd / T(2);
    const T V = g * (M * (zc + cz) + m * (zc + oz - lc * c));

    const T sH = maxabs(H);
    const T sC = m * lc * (thd * thd + g);
    const T sTau = infnorm(H) * maxabs(qdd) + sC;
    const T sQdd = maxabs(qdd) + infnorm(MatX<T>(H.inverse())) * sTau;

    expect_small<T>(maxabs(MatX<T>(crba<T>(model, q) - H)), sH, tag + "H");
    expect_small<T>(maxabs(VecX<T>(bias<T>(model, q, qd) - C)), sC, tag + "C");
    expect_small<T>(maxabs(VecX<T>(rnea<T>(model, q, qd, qdd) - tau)), sTau, tag + "rnea");
    const AbaResult<T> fd = aba<T>(model, q, qd, tau);
    ASSERT_TRUE(fd.ok);
    expect_small<T>(maxabs(VecX<T>(fd.qdd - qdd)), sQdd, tag + "aba");
    const Energy<T> e = energy<T>(model, q, qd);
    expect_small<T>(abs(T(e.kinetic - Tkin)), T(sH * maxabs(qd) * maxabs(qd) * T(2)), tag + "kinetic");
    expect_small<T>(abs(T(e.potential - V)), T(g * (M * (zc + abs(cz)) + m * (zc + oz + lc))), tag + "potential");
  }
}

}  // namespace
}  // namespace rbd::test
