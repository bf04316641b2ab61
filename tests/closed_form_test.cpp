// Closed forms from Lagrangian (and Newton–Euler) mechanics, derived in the comments, against
// RNEA, CRBA, ABA and the energies, at double and at 50 and 100 digits (bin50, bin100). Every
// joint type has one: revolute (1, 2, 4), prismatic (4), free (3), helical (5), cylindrical (6),
// planar (7), spherical (8), with non-zero velocities wherever H depends on q.
//
// Every model parameter and state entry is a decimal string used twice: as Num::decimal in the
// model description (so Model<bin50> holds the true decimal, not its double rounding) and through
// from_decimal<T> in the closed form. The closed form is evaluated in T with its own formulas
// (no library kinematics, no library spatial algebra), so agreement to ~k ε(T) at bin50 and
// bin100 shows ~48 and ~98 digits and that no double leaks into the templated path. The
// Lagrangians of tests 5-7 are also expanded symbolically by tests/closed_form_lagrangian.py
// (sympy; Lagrange's equations from the COM positions and body rotations, independently of this
// library; not part of ctest), which agrees with the H and C written below term by term.
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
#include "reference/tree/aba.hpp"
#include "reference/tree/crba.hpp"
#include "reference/tree/energy.hpp"
#include "reference/tree/model.hpp"
#include "reference/tree/rnea.hpp"
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

// The closed forms call abs, cos and sin unqualified: std's for double, Boost.Multiprecision's
// (found by argument) for bin50 and bin100.
using std::abs;
using std::cos;
using std::sin;

template <class T>
class ClosedForm : public ::testing::Test {};
using ClosedFormScalars = ::testing::Types<double, bin50, bin100>;
TYPED_TEST_SUITE(ClosedForm, ClosedFormScalars, ScalarName);

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
const Num3 kAxisZ = D3("0", "0", "1");

// The dynamics checks of tests 2 and 4-8 on one state, against the closed-form H and C: crba = H,
// bias = C, rnea(qdd) = H qdd + C, aba(H qdd + C) = qdd. sC is the sum of the magnitudes of the
// terms of C (velocity products and gravity); the scales of τ and q̈ follow from it and H.
template <class T>
void expect_dynamics(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& qdd, const MatX<T>& H,
                     const VecX<T>& C, const T& sC, const std::string& tag) {
  const VecX<T> tau = H * qdd + C;
  const T sH = maxabs(H);
  const T sTau = infnorm(H) * maxabs(qdd) + sC;
  const T sQdd = maxabs(qdd) + infnorm(MatX<T>(H.inverse())) * sTau;
  expect_small<T>(maxabs(MatX<T>(crba<T>(model, q) - H)), sH, tag + "H");
  expect_small<T>(maxabs(VecX<T>(bias<T>(model, q, qd) - C)), sC, tag + "C");
  expect_small<T>(maxabs(VecX<T>(rnea<T>(model, q, qd, qdd) - tau)), sTau, tag + "rnea");
  const AbaResult<T> fd = aba<T>(model, q, qd, tau);
  ASSERT_TRUE(fd.ok);
  expect_small<T>(maxabs(VecX<T>(fd.qdd - qdd)), sQdd, tag + "aba");
}

// energy() against the closed-form kinetic and potential energies Tkin and V, each within
// kTol ε(T) of its scale (sT, sV).
template <class T>
void expect_energy(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const T& Tkin, const T& sT, const T& V, const T& sV,
                   const std::string& tag) {
  const Energy<T> e = energy<T>(model, q, qd);
  expect_small<T>(abs(T(e.kinetic - Tkin)), sT, tag + "kinetic");
  expect_small<T>(abs(T(e.potential - V)), sV, tag + "potential");
}

// A state of a closed-form test: q, qd, qdd as decimal strings.
struct DecState {
  std::vector<const char*> q, qd, qdd;
};
// check(tag, q, qd, qdd) on each state in T, tagged "state<k>_" (and so traced).
template <class T, class Check>
void for_each_state(const std::vector<DecState>& states, Check&& check) {
  int n = 0;
  for (const DecState& st : states) {
    const std::string tag = "state" + std::to_string(n++) + "_";
    SCOPED_TRACE(tag);
    check(tag, decvec<T>(st.q), decvec<T>(st.qd), decvec<T>(st.qdd));
  }
}

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
    expect_energy<T>(model, q, qd, Tkin, Tkin, V, T(m * g * (abs(z0) + l)), tag);
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

  const std::vector<DecState> states = {{{"0.4", "-1.3"}, {"1.7", "-0.6"}, {"0.25", "0.5"}},
                                        {{"-2.1", "2.6"}, {"-0.9", "2.3"}, {"-1.4", "0.8"}},
                                        {{"1.0", "-0.25"}, {"3.1", "4.2"}, {"0", "0"}}};
  for_each_state<T>(states, [&](const std::string& tag, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& qdd) {
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
    const T sC = m2 * l1 * lc2 * (qd1 * qd1 + T(2) * abs(T(qd1 * qd2)) + qd2 * qd2) + g * (m1 * lc1 + m2 * (l1 + lc2));
    expect_dynamics<T>(model, q, qd, qdd, H, C, sC, tag);

    const T v2sq = l1 * l1 * qd1 * qd1 + lc2 * lc2 * (qd1 + qd2) * (qd1 + qd2) + T(2) * l1 * lc2 * qd1 * (qd1 + qd2) * c2;
    const T Tkin = (I1 + m1 * lc1 * lc1) * qd1 * qd1 / T(2) + m2 * v2sq / T(2) + I2 * (qd1 + qd2) * (qd1 + qd2) / T(2);
    const T V = g * (m1 * (z0 - lc1 * s1) + m2 * (z0 - l1 * s1 - lc2 * s12));
    expect_energy<T>(model, q, qd, Tkin, T(maxabs(H) * maxabs(qd) * maxabs(qd) * T(2)), V,
                     T(g * (m1 * (z0 + lc1) + m2 * (z0 + l1 + lc2))), tag);
  });
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

  const Vec3<T> vc = v + om.cross(c);
  const T Tkin = m * vc.squaredNorm() / T(2) + om.dot(Ic * om) / T(2);
  const Vec3<T> pc = p + R * c;
  const T V = -m * gvec.dot(pc);
  expect_energy<T>(model, q, qd, Tkin, T(infnorm(I6) * maxabs(vel) * maxabs(vel) * T(3)), V, T(m * g * (maxabs(p) + c.norm())), "");
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

  const std::vector<DecState> states = {{{"0.3", "2.2"}, {"-0.5", "1.9"}, {"0.7", "-0.3"}},
                                        {{"-1.25", "-0.6"}, {"2.4", "-3.1"}, {"-1.5", "2.0"}},
                                        {{"0", "0.05"}, {"0.1", "6.5"}, {"0", "0"}}};
  for_each_state<T>(states, [&](const std::string& tag, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& qdd) {
    const T c = cos(q(1)), s = sin(q(1)), xd = qd(0), thd = qd(1);

    MatX<T> H(2, 2);
    H << M + m, -m * lc * c, -m * lc * c, Ip + m * lc * lc;
    VecX<T> C(2);
    C << m * lc * s * thd * thd, m * g * lc * s;
    expect_dynamics<T>(model, q, qd, qdd, H, C, T(m * lc * (thd * thd + g)), tag);

    const T Tkin = M * xd * xd / T(2) +
                   m * ((xd - lc * c * thd) * (xd - lc * c * thd) + (lc * s * thd) * (lc * s * thd)) / T(2) +
                   Ip * thd * thd / T(2);
    const T V = g * (M * (zc + cz) + m * (zc + oz - lc * c));
    expect_energy<T>(model, q, qd, Tkin, T(maxabs(H) * maxabs(qd) * maxabs(qd) * T(2)), V,
                     T(g * (M * (zc + abs(cz)) + m * (zc + oz + lc))), tag);
  });
}

// ---- 5. helical joint carrying a pendulum ------------------------------------------------------
//
// Body 1 on a helical joint about +z with pitch p (it rises p per radian), joint frame at
// (0, 0, z0) in the base: angle θ, rotation R_z(θ), origin at (0, 0, z0 + p θ). Mass m1, COM
// (a1, b1, c1) in body 1, moment I1zz about the vertical axis through the COM (ω1 = θ̇ ẑ, so the
// other entries of its inertia, present on purpose, do not enter T). Body 2 on a revolute joint
// about body 1's x axis, joint frame at (d, 0, hz) in body 1: angle φ, rotation R_z(θ) R_x(φ).
// Mass m2, COM (cx2, 0, -l) in body 2 (hanging at φ = 0, offset cx2 along the hinge), inertia
// diag(A, B, Cc) about the COM in body-2 axes (diagonal to keep the algebra short).
// With s = sin φ, c = cos φ: R_x(φ) (cx2, 0, -l) = (cx2, l s, -l c), so the COM of body 2 in
// body-1 coordinates is ρ = (X, l s, hz - l c), X = d + cx2. Its velocity in body-1 coordinates
// (the frame turns with θ̇ ẑ and rises with p θ̇ ẑ):
//   v2 = p θ̇ ẑ + θ̇ ẑ × ρ + ρ̇ = (-l s θ̇,  X θ̇ + l c φ̇,  p θ̇ + l s φ̇)
//   |v2|² = (l² s² + X² + p²) θ̇² + 2 l (X c + p s) θ̇ φ̇ + l² φ̇²
// ω2 in body-2 axes: R_x(φ)ᵀ θ̇ ẑ + φ̇ x̂ = (φ̇, s θ̇, c θ̇), ½ ω2ᵀ diag(A, B, Cc) ω2 =
// ½ (A φ̇² + (B s² + Cc c²) θ̇²). Body 1: v1 = p θ̇ ẑ + θ̇ ẑ × (a1, b1, c1), |v1|² = (a1² + b1² + p²) θ̇².
//   T = ½ H11 θ̇² + H12 θ̇ φ̇ + ½ H22 φ̇² with
//   H11 = I1zz + m1 (a1² + b1² + p²) + m2 (l² s² + X² + p²) + B s² + Cc c²
//   H12 = m2 l (X c + p s),   H22 = m2 l² + A
// Only φ enters H: ∂H11/∂φ = 2 K s c with K = m2 l² + B - Cc, ∂H12/∂φ = m2 l (p c - X s), so
//   Γ111 = 0,  Γ112 = Γ121 = ½ ∂H11/∂φ = K s c,  Γ122 = ∂H12/∂φ - ½ ∂H22/∂θ = m2 l (p c - X s)
//   Γ211 = ∂H21/∂θ - ½ ∂H11/∂φ = -K s c,  Γ212 = Γ221 = ½ (∂H21/∂φ - ∂H12/∂φ) = 0,  Γ222 = 0
//   C1 = 2 K s c θ̇ φ̇ + m2 l (p c - X s) φ̇² + ∂V/∂θ,   C2 = -K s c θ̇² + ∂V/∂φ
// The pitch enters the velocity terms through m2 l p c φ̇²: the swing velocity l s φ̇ ẑ is along
// the rise p θ̇ ẑ of the screw. Heights: z_c1 = z0 + p θ + c1, z_c2 = z0 + p θ + hz - l c, and
// V = g (m1 z_c1 + m2 z_c2):  ∂V/∂θ = g p (m1 + m2),  ∂V/∂φ = g m2 l s.
TYPED_TEST(ClosedForm, HelicalScrewCarryingPendulumMatchesLagrangian) {
  using T = TypeParam;
  const char *sp = "0.08", *sz0 = "0.3", *sm1 = "2.0", *sa1 = "0.12", *sb1 = "-0.07", *sc1 = "0.2", *sI1zz = "0.045";
  const char *sd = "0.4", *shz = "0.1", *sm2 = "0.7", *scx2 = "0.05", *sl = "0.3";
  const char *sA = "0.011", *sB = "0.009", *sCc = "0.004";
  ModelDesc d;
  d.bodies = {make_body({"screw", -1, JointType::Helical, kAxisZ, D3("0", "0", sz0), kZero3, sm1, D3(sa1, sb1, sc1),
                         {"0.05", "0.06", sI1zz, "0.004", "-0.003", "0.002"}}),
              make_body({"pendulum", 0, JointType::Revolute, kAxisX, D3(sd, "0", shz), kZero3, sm2,
                         D3(scx2, "0", "-0.3"), {sA, sB, sCc, "0", "0", "0"}})};
  d.bodies[0].joint.pitch = D(sp);
  const Model<T> model = build_model<T>(d);
  ASSERT_EQ(model.nv, 2);
  const T p = dec<T>(sp), z0 = dec<T>(sz0), m1 = dec<T>(sm1), a1 = dec<T>(sa1), b1 = dec<T>(sb1), c1 = dec<T>(sc1);
  const T I1zz = dec<T>(sI1zz), dd = dec<T>(sd), hz = dec<T>(shz), m2 = dec<T>(sm2), cx2 = dec<T>(scx2), l = dec<T>(sl);
  const T A = dec<T>(sA), B = dec<T>(sB), Cc = dec<T>(sCc), g = dec<T>("9.81");
  const T X = dd + cx2, K = m2 * l * l + B - Cc;

  const std::vector<DecState> states = {{{"0.7", "-0.4"}, {"1.3", "2.1"}, {"0.5", "-0.8"}},
                                        {{"-2.2", "1.9"}, {"-0.6", "0.9"}, {"1.1", "0.3"}},
                                        {{"4.0", "2.9"}, {"2.5", "-3.2"}, {"0", "0"}}};
  for_each_state<T>(states, [&](const std::string& tag, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& qdd) {
    const T th = q(0), s = sin(q(1)), c = cos(q(1)), thd = qd(0), phd = qd(1);

    MatX<T> H(2, 2);
    H(0, 0) = I1zz + m1 * (a1 * a1 + b1 * b1 + p * p) + m2 * (l * l * s * s + X * X + p * p) + B * s * s + Cc * c * c;
    H(0, 1) = H(1, 0) = m2 * l * (X * c + p * s);
    H(1, 1) = m2 * l * l + A;
    VecX<T> C(2);
    C(0) = T(2) * K * s * c * thd * phd + m2 * l * (p * c - X * s) * phd * phd + g * p * (m1 + m2);
    C(1) = -K * s * c * thd * thd + g * m2 * l * s;
    const T sK = m2 * l * l + B + Cc;  // magnitudes of the terms of K
    const T sC = sK * (T(2) * abs(T(thd * phd)) + thd * thd) + m2 * l * (abs(p) + abs(X)) * phd * phd +
                 g * (abs(p) * (m1 + m2) + m2 * l);
    expect_dynamics<T>(model, q, qd, qdd, H, C, sC, tag);

    const T v1sq = (a1 * a1 + b1 * b1 + p * p) * thd * thd;
    const T v2sq = (l * l * s * s + X * X + p * p) * thd * thd + T(2) * l * (X * c + p * s) * thd * phd + l * l * phd * phd;
    const T Tkin = (I1zz * thd * thd + m1 * v1sq + m2 * v2sq + A * phd * phd + (B * s * s + Cc * c * c) * thd * thd) / T(2);
    const T V = g * (m1 * (z0 + p * th + c1) + m2 * (z0 + p * th + hz - l * c));
    expect_energy<T>(model, q, qd, Tkin, T(maxabs(H) * maxabs(qd) * maxabs(qd) * T(2)), V,
                     T(g * (m1 * (z0 + abs(p * th) + abs(c1)) + m2 * (z0 + abs(p * th) + hz + l))), tag);
  });
}

// ---- 6. turntable carrying a cylindrical joint ---------------------------------------------------
//
// Body 1 on a revolute joint about +z at (0, 0, z0): angle ψ, rotation R_z(ψ). Mass m1, COM
// (a1, b1, c1), moment I1zz about the vertical axis through its COM. Body 2 on a cylindrical joint
// along body 1's x axis, joint frame at (0, e, hz) in body 1: q2 = (θ, d), rotation θ about x and
// slide d along x, so body 2's origin is at (d, e, hz) in body 1 and its rotation is R_z(ψ) R_x(θ).
// Mass m2, COM (cx, cy, cz) in body 2, inertia diag(A, B, Cc) about the COM in body-2 axes.
// With c = cos θ, s = sin θ: R_x(θ) (cx, cy, cz) = (cx, Y, Z), Y = cy c - cz s, Z = cy s + cz c,
// so dY/dθ = -Z, dZ/dθ = Y and Y² + Z² = r² = cy² + cz². The COM of body 2 in body 1 is
// ρ = (X, e + Y, hz + Z), X = d + cx. Velocity in body-1 coordinates:
//   v2 = ψ̇ ẑ × ρ + ρ̇ = (ḋ - (e + Y) ψ̇,  X ψ̇ - Z θ̇,  Y θ̇)
//   |v2|² = ḋ² + ((e + Y)² + X²) ψ̇² + r² θ̇² - 2 (e + Y) ψ̇ ḋ - 2 X Z ψ̇ θ̇
// ω2 in body-2 axes: R_x(θ)ᵀ ψ̇ ẑ + θ̇ x̂ = (θ̇, s ψ̇, c ψ̇): ½ (A θ̇² + (B s² + Cc c²) ψ̇²).
// Body 1: ½ (I1zz + m1 (a1² + b1²)) ψ̇². With q = (ψ, θ, d), T = ½ q̇ᵀ H q̇:
//   H11 = I1zz + m1 (a1² + b1²) + m2 ((e + Y)² + X²) + B s² + Cc c²
//   H12 = -m2 X Z,   H13 = -m2 (e + Y),   H22 = A + m2 r²,   H23 = 0,   H33 = m2
// H depends on θ (Y, Z, s, c) and on d (X), not on ψ. C = Ḣ q̇ - ½ ∂(q̇ᵀ H q̇)/∂q (the Christoffel
// sum regrouped) is shorter here. With
//   ∂H11/∂θ = 2 (B - Cc) s c - 2 m2 (e + Y) Z,  ∂H11/∂d = 2 m2 X,
//   ∂H12/∂θ = -m2 X Y,  ∂H12/∂d = -m2 Z,  ∂H13/∂θ = m2 Z,  ∂H13/∂d = 0:
//   Ḣ11 = ∂H11/∂θ θ̇ + 2 m2 X ḋ,  Ḣ12 = -m2 X Y θ̇ - m2 Z ḋ,  Ḣ13 = m2 Z θ̇
//   ½ ∂(q̇ᵀHq̇)/∂θ = ½ ∂H11/∂θ ψ̇² - m2 X Y ψ̇ θ̇ + m2 Z ψ̇ ḋ,   ½ ∂(q̇ᵀHq̇)/∂d = m2 X ψ̇² - m2 Z ψ̇ θ̇
//   C1 = Ḣ11 ψ̇ + Ḣ12 θ̇ + Ḣ13 ḋ = 2 ((B - Cc) s c - m2 (e + Y) Z) ψ̇ θ̇ + 2 m2 X ψ̇ ḋ - m2 X Y θ̇²
//   C2 = Ḣ12 ψ̇ - ½ ∂(q̇ᵀHq̇)/∂θ = (m2 (e + Y) Z - (B - Cc) s c) ψ̇² - 2 m2 Z ψ̇ ḋ + ∂V/∂θ
//   C3 = Ḣ13 ψ̇ - ½ ∂(q̇ᵀHq̇)/∂d = 2 m2 Z ψ̇ θ̇ - m2 X ψ̇²          (-m2 X ψ̇²: centrifugal)
// The joint's rotation and slide are coupled through the turntable: ψ̇ ḋ in C1 and C2, ψ̇ θ̇ in
// C1 and C3. Heights: z_c1 = z0 + c1, z_c2 = z0 + hz + Z:  ∂V/∂θ = g m2 Y,  ∂V/∂ψ = ∂V/∂d = 0.
TYPED_TEST(ClosedForm, TurntableCarryingCylindricalJointMatchesLagrangian) {
  using T = TypeParam;
  const char *sz0 = "0.25", *sm1 = "1.5", *sa1 = "0.1", *sb1 = "0.05", *sc1 = "0.15", *sI1zz = "0.025";
  const char *se = "0.12", *shz = "0.2", *sm2 = "0.9", *scx = "0.15", *scy = "0.04", *scz = "-0.06";
  const char *sA = "0.006", *sB = "0.01", *sCc = "0.008";
  ModelDesc d;
  d.bodies = {make_body({"turntable", -1, JointType::Revolute, kAxisZ, D3("0", "0", sz0), kZero3, sm1, D3(sa1, sb1, sc1),
                         {"0.03", "0.035", sI1zz, "0.002", "0.001", "-0.003"}}),
              make_body({"sleeve", 0, JointType::Cylindrical, kAxisX, D3("0", se, shz), kZero3, sm2, D3(scx, scy, scz),
                         {sA, sB, sCc, "0", "0", "0"}})};
  const Model<T> model = build_model<T>(d);
  ASSERT_EQ(model.nv, 3);
  const T z0 = dec<T>(sz0), m1 = dec<T>(sm1), a1 = dec<T>(sa1), b1 = dec<T>(sb1), c1 = dec<T>(sc1), I1zz = dec<T>(sI1zz);
  const T e = dec<T>(se), hz = dec<T>(shz), m2 = dec<T>(sm2), cx = dec<T>(scx), cy = dec<T>(scy), cz = dec<T>(scz);
  const T A = dec<T>(sA), B = dec<T>(sB), Cc = dec<T>(sCc), g = dec<T>("9.81");
  const T r2 = cy * cy + cz * cz;

  const std::vector<DecState> states = {{{"0.4", "-1.1", "0.3"}, {"1.2", "0.7", "-0.9"}, {"0.3", "-0.5", "1.4"}},
                                        {{"-2.5", "2.2", "-0.45"}, {"-0.8", "3.1", "1.6"}, {"1.0", "0.2", "-0.7"}},
                                        {{"1.9", "0.35", "0.8"}, {"2.7", "-1.4", "0.6"}, {"0", "0", "0"}}};
  for_each_state<T>(states, [&](const std::string& tag, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& qdd) {
    const T c = cos(q(1)), s = sin(q(1)), Y = cy * c - cz * s, Z = cy * s + cz * c, X = q(2) + cx;
    const T psd = qd(0), thd = qd(1), dd = qd(2);

    MatX<T> H(3, 3);
    H(0, 0) = I1zz + m1 * (a1 * a1 + b1 * b1) + m2 * ((e + Y) * (e + Y) + X * X) + B * s * s + Cc * c * c;
    H(0, 1) = H(1, 0) = -m2 * X * Z;
    H(0, 2) = H(2, 0) = -m2 * (e + Y);
    H(1, 1) = A + m2 * r2;
    H(1, 2) = H(2, 1) = T(0);
    H(2, 2) = m2;
    const T W = (B - Cc) * s * c - m2 * (e + Y) * Z;
    VecX<T> C(3);
    C(0) = T(2) * W * psd * thd + T(2) * m2 * X * psd * dd - m2 * X * Y * thd * thd;
    C(1) = -W * psd * psd - T(2) * m2 * Z * psd * dd + g * m2 * Y;
    C(2) = T(2) * m2 * Z * psd * thd - m2 * X * psd * psd;
    const T sW = abs(B) + abs(Cc) + m2 * (abs(e) + abs(Y)) * abs(Z);  // magnitudes of the terms of W
    const T sC = sW * (T(2) * abs(T(psd * thd)) + psd * psd) + m2 * abs(X) * (T(2) * abs(T(psd * dd)) + abs(Y) * thd * thd + psd * psd) +
                 m2 * abs(Z) * (T(2) * abs(T(psd * dd)) + T(2) * abs(T(psd * thd))) + g * m2 * abs(Y);
    expect_dynamics<T>(model, q, qd, qdd, H, C, sC, tag);

    const T v2sq = dd * dd + ((e + Y) * (e + Y) + X * X) * psd * psd + r2 * thd * thd - T(2) * (e + Y) * psd * dd -
                   T(2) * X * Z * psd * thd;
    const T Tkin = ((I1zz + m1 * (a1 * a1 + b1 * b1)) * psd * psd + m2 * v2sq + A * thd * thd + (B * s * s + Cc * c * c) * psd * psd) / T(2);
    const T V = g * (m1 * (z0 + c1) + m2 * (z0 + hz + Z));
    expect_energy<T>(model, q, qd, Tkin, T(maxabs(H) * maxabs(qd) * maxabs(qd) * T(3)), V,
                     T(g * (m1 * (z0 + c1) + m2 * (z0 + hz + abs(Z)))), tag);
  });
}

// ---- 7. body on a planar joint -----------------------------------------------------------------
//
// Planar joint with normal n = +x and in-plane direction u = +y (plane_x), so w = n × u = +z: the
// vertical y-z plane. Joint frame at o = (ox, oy, oz) in the base, not rotated. q = (x, y, θ): the
// body's origin is at o + x u + y w = (ox, oy + x, oz + y), and the body is turned by R_x(θ).
// Mass m, COM (cx, cy, cz), rotational inertia about the COM with Ixx about the x axis (ω = θ̇ x̂,
// so only Ixx enters T; the other entries are present on purpose).
// R_x(θ) (cx, cy, cz) = (cx, Y, Z) with Y, Z as in test 6 (dY/dθ = -Z, dZ/dθ = Y, Y² + Z² = r²):
//   COM velocity (0, ẋ - Z θ̇, ẏ + Y θ̇),  T = ½ m (ẋ² + ẏ² + r² θ̇² - 2 Z ẋ θ̇ + 2 Y ẏ θ̇) + ½ Ixx θ̇²
//   H = [[m, 0, -m Z], [0, m, m Y], [-m Z, m Y, Ixx + m r²]]
// Only H13 and H23 depend on q (on θ): ∂H13/∂θ = -m Y, ∂H23/∂θ = -m Z. With
// C = Ḣ q̇ - ½ ∂(q̇ᵀHq̇)/∂q and ½ ∂(q̇ᵀHq̇)/∂θ = -m Y ẋ θ̇ - m Z ẏ θ̇:
//   C1 = Ḣ13 θ̇ = -m Y θ̇²,   C2 = Ḣ23 θ̇ = -m Z θ̇²
//   C3 = Ḣ31 ẋ + Ḣ32 ẏ - ½ ∂(q̇ᵀHq̇)/∂θ = (-m Y ẋ - m Z ẏ) θ̇ + (m Y ẋ + m Z ẏ) θ̇ = 0
// i.e. the centripetal force -m θ̇² (Y, Z) that keeps the COM on its circle about the body origin,
// and no moment. The θ̇ ẋ and θ̇ ẏ terms cancel, which in RNEA takes the planar joint's cJ (S's
// translation columns turn with θ). Heights: z_c = oz + y + Z, V = m g z_c, so
//   C = (-m Y θ̇²,  -m Z θ̇² + m g,  m g Y).
TYPED_TEST(ClosedForm, PlanarBodyMatchesLagrangian) {
  using T = TypeParam;
  const char *sox = "0.2", *soy = "-0.1", *soz = "0.5", *sm = "1.3", *scx = "0.07", *scy = "0.25", *scz = "-0.12";
  const char* sIxx = "0.02";
  ModelDesc d;
  d.bodies = {make_body({"slider", -1, JointType::Planar, kAxisX, D3(sox, soy, soz), kZero3, sm, D3(scx, scy, scz),
                         {sIxx, "0.03", "0.025", "0.001", "-0.002", "0.0015"}})};
  d.bodies[0].joint.plane_x = kAxisY;
  const Model<T> model = build_model<T>(d);
  ASSERT_EQ(model.nv, 3);
  const T oz = dec<T>(soz), m = dec<T>(sm), cy = dec<T>(scy), cz = dec<T>(scz), Ixx = dec<T>(sIxx), g = dec<T>("9.81");
  const T r2 = cy * cy + cz * cz;

  const std::vector<DecState> states = {{{"0.3", "-0.2", "0.9"}, {"1.1", "-0.7", "2.3"}, {"0.4", "0.6", "-1.2"}},
                                        {{"-1.4", "0.8", "-2.6"}, {"-0.5", "1.9", "-3.4"}, {"-0.9", "0.1", "0.5"}},
                                        {{"0.05", "0.45", "3.0"}, {"2.2", "0.3", "1.7"}, {"0", "0", "0"}}};
  for_each_state<T>(states, [&](const std::string& tag, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& qdd) {
    const T c = cos(q(2)), s = sin(q(2)), Y = cy * c - cz * s, Z = cy * s + cz * c;
    const T xd = qd(0), yd = qd(1), thd = qd(2);

    MatX<T> H(3, 3);
    H << m, T(0), -m * Z,  //
        T(0), m, m * Y,    //
        -m * Z, m * Y, Ixx + m * r2;
    VecX<T> C(3);
    C << -m * Y * thd * thd, -m * Z * thd * thd + m * g, m * g * Y;
    const T sC = m * (abs(Y) + abs(Z)) * thd * thd + m * g * (T(1) + abs(Y));
    expect_dynamics<T>(model, q, qd, qdd, H, C, sC, tag);

    const T Tkin = (m * (xd * xd + yd * yd + r2 * thd * thd - T(2) * Z * xd * thd + T(2) * Y * yd * thd) + Ixx * thd * thd) / T(2);
    const T V = m * g * (oz + q(1) + Z);
    expect_energy<T>(model, q, qd, Tkin, T(maxabs(H) * maxabs(qd) * maxabs(qd) * T(3)), V, T(m * g * (oz + abs(q(1)) + abs(Z))), tag);
  });
}

// ---- 8. body on a spherical joint: rotation about a fixed point (Euler's equations) -------------
//
// Spherical joint at O = (ox, oy, oz) in the base, joint frame not rotated: q a unit quaternion,
// R = R(q) body-to-base (written out below), qd = ω and qdd = ω̇ in body coordinates, τ the moment
// about O in body coordinates. Mass m, COM c (body), rotational inertia Ic about the COM (general,
// with products of inertia). About the fixed point O the inertia is I_O = Ic + m (|c|² 1 - c cᵀ)
// (parallel axes) and the angular momentum in base coordinates is L = R I_O ω. With Ṙ = R ω×:
//   dL/dt = R (I_O ω̇ + ω × (I_O ω)) = R τ + (R c) × (m g)      (moments about O: joint, gravity)
// so, in body coordinates, with g_b = Rᵀ (0, 0, -g):
//   τ = I_O ω̇ + ω × (I_O ω) - m c × g_b              (Euler's equations with the gravity moment)
//   H = I_O (constant in body coordinates),   C = ω × (I_O ω) - m c × g_b
//   T = ½ ωᵀ I_O ω,   V = m g (oz + (R c)_z)
// The velocity product is ω × (I_O ω), non-zero because I_O is not isotropic.
TYPED_TEST(ClosedForm, SphericalBodyMatchesEulerEquations) {
  using T = TypeParam;
  const char* sm = "1.7";
  const std::array<const char*, 3> so = {"0.3", "-0.4", "0.8"}, sc = {"0.15", "-0.05", "0.25"};
  const std::array<const char*, 6> sI = {"0.04", "0.05", "0.03", "0.006", "-0.004", "0.003"};
  ModelDesc d;
  d.bodies = {make_body({"ball", -1, JointType::Spherical, kAxisZ, D3(so[0], so[1], so[2]), kZero3, sm,
                         D3(sc[0], sc[1], sc[2]), sI})};
  const Model<T> model = build_model<T>(d);
  ASSERT_EQ(model.nq, 4);
  ASSERT_EQ(model.nv, 3);
  const T m = dec<T>(sm), oz = dec<T>(so[2]), g = dec<T>("9.81");
  const Vec3<T> c(dec<T>(sc[0]), dec<T>(sc[1]), dec<T>(sc[2]));
  Mat3<T> Ic;
  Ic << dec<T>(sI[0]), dec<T>(sI[3]), dec<T>(sI[4]),  //
      dec<T>(sI[3]), dec<T>(sI[1]), dec<T>(sI[5]),    //
      dec<T>(sI[4]), dec<T>(sI[5]), dec<T>(sI[2]);
  const Mat3<T> IO = Ic + m * (c.squaredNorm() * Mat3<T>::Identity() - c * c.transpose());

  // Unit quaternions whose squares sum to 1 exactly in decimal.
  const std::vector<DecState> states = {{{"0.7", "0.1", "-0.5", "0.5"}, {"1.4", "-0.6", "2.1"}, {"0.3", "-1.2", "0.8"}},
                                        {{"0.1", "0.7", "0.5", "-0.5"}, {"-2.3", "0.9", "1.7"}, {"1.5", "0.4", "-0.6"}},
                                        {{"0.1", "0.1", "0.7", "0.7"}, {"0.8", "3.2", "-1.1"}, {"0", "0", "0"}}};
  for_each_state<T>(states, [&](const std::string& tag, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& qdd) {
    // R(q) for a unit quaternion (w, x, y, z) (Hamilton), written out.
    const T w = q(0), x = q(1), y = q(2), z = q(3);
    Mat3<T> R;
    R << T(1) - T(2) * (y * y + z * z), T(2) * (x * y - w * z), T(2) * (x * z + w * y),  //
        T(2) * (x * y + w * z), T(1) - T(2) * (x * x + z * z), T(2) * (y * z - w * x),    //
        T(2) * (x * z - w * y), T(2) * (y * z + w * x), T(1) - T(2) * (x * x + y * y);
    const Vec3<T> om = qd, gb = R.transpose() * Vec3<T>(T(0), T(0), -g);

    const MatX<T> H = IO;
    const Vec3<T> gyro = om.cross(Vec3<T>(IO * om)), grav = -m * c.cross(gb);
    const VecX<T> C = gyro + grav;
    const T sC = maxabs(IO) * T(3) * maxabs(om) * maxabs(om) * T(2) + m * g * c.cwiseAbs().sum() * T(2);
    expect_dynamics<T>(model, q, qd, qdd, H, C, sC, tag);

    const T Tkin = om.dot(IO * om) / T(2);
    const T V = m * g * (oz + Vec3<T>(R * c)(2));
    expect_energy<T>(model, q, qd, Tkin, T(maxabs(IO) * maxabs(om) * maxabs(om) * T(9)), V, T(m * g * (oz + c.norm())), tag);
  });
}

}  // namespace
}  // namespace rbd::test
