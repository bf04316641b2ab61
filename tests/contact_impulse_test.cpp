// Point contacts in time (RBDA §11.7-11.8 and the procedure of table 11.1): impulsive dynamics
// against closed forms (two free bodies colliding, eqs. 11.65 and 11.72; an impulse on a floating
// tree's handle, eq. 11.56) and every identity of the impact checks on random trees (momentum,
// restitution, complementarity, kinetic energy); soft contact case by case against the rules of
// eqs. 11.73-11.79, the analytic relaxation of a free surface, and soft and rigid contacts
// together; the step interpolants of eqs. 11.49 and 11.51, and simulations whose events (a box's
// bounces, a contact force vanishing) happen at closed-form times. At double and bin50.
#include "checks/contact_checks.hpp"
#include "reference/contact/dynamics.hpp"
#include "reference/contact/impulse.hpp"
#include "reference/contact/simulation.hpp"
#include "reference/contact/soft.hpp"
#include "reference/tree/aba.hpp"
#include "reference/tree/jacobian.hpp"
#include "tests/contact_test_util.hpp"
#include "tests/test_util.hpp"
#include "tests/tree_cases.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace rbd::test {
namespace {

TYPED_TEST_SUITE(ContactClosedForm, Scalars);

// ---- impulsive dynamics (§11.7) ----

// Two free bodies (random inertias, random poses and velocities) colliding at one contact between
// them: the system's impulse is eq. 11.65, λ = -(1 + e) n̂·(v₂ - v₁) / n̂·(I₁⁻¹ + I₂⁻¹)n̂ with the
// bodies' spatial inertias and velocities in base coordinates; and with friction, the sticking
// impact is eq. 11.72 with N = [n̂_x n̂_y n̂_z] (the same tangent directions as contact_kinematics).
TYPED_TEST(ContactClosedForm, TwoBodyImpactIsEquation11_65And11_72) {
  using T = TypeParam;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    TreeSpec spec = tree_spec(2, 2.0);  // both bodies on the base
    spec.joints = {JointType::Free};
    ModelDesc d = random_tree(spec, seed);
    d.bodies[1].parent = -1;
    d.bodies[0].joint.type = d.bodies[1].joint.type = JointType::Free;
    d.gravity = N3(0, 0, 0);
    ContactDesc c = world_contact("hit", 1, N3(0.1, -0.2, 0.3), N3(0.3, 0.5, -0.8));
    c.pred = 0;  // between the two bodies
    c.restitution = Num::exact(0.6);
    d.contacts.push_back(c);
    const Model<double> md = build_model<double>(d);
    const RandomState st = random_state(md, seed, 2.0);
    for (bool friction : {false, true}) {
      if (friction) d.contacts[0].friction = Num::exact(0.8);
      const Model<T> m = build_model<T>(d);
      const VecX<T> q = exact_vec<T>(st.q), qd = exact_vec<T>(st.qd);
      const ContactImpact<T> r = contact_impact<T>(m, q, qd);
      ASSERT_TRUE(r.ok) << r.message;
      const TreeKinematics<T> k = kinematics<T>(m, q, qd);
      // Base-coordinate inverse inertias and velocities: I₀ = XᵀIX, v₀ = X⁻¹v for X = iX0.
      Mat6<T> Iinv[2];
      Vec6<T> v[2];
      for (int b = 0; b < 2; ++b) {
        const Mat6<T> X = k.X0[b].matrix();
        Iinv[b] = Mat6<T>(X.transpose() * m.I[b].M * X).inverse();
        v[b] = k.X0[b].apply_inverse(k.v[b]).c;
      }
      const T e = T(0.6);  // the exact double the description holds (Num::exact(0.6))
      if (!friction) {
        const Vec6<T> n = r.ck.n_hat[0].c;
        const T want = -(T(1) + e) * n.dot(Vec6<T>(v[1] - v[0])) / n.dot(Vec6<T>((Iinv[0] + Iinv[1]) * n));
        const T got = r.lambda(0);
        // The LCP clips at 0 when the bodies separate (ζ⁻ > 0).
        EXPECT_LE(static_cast<double>(abs(T(got - (want > T(0) ? want : T(0))))), tol<T>(1000) * (static_cast<double>(abs(want)) + 1));
      } else {
        Eigen::Matrix<T, 6, 3> N;
        const Vec3<T> x = r.ck.x[0], ex = r.ck.ex[0], ey = r.ck.ey[0], nz = r.ck.n[0];
        N.col(0) << x.cross(ex), ex;
        N.col(1) << x.cross(ey), ey;
        N.col(2) << x.cross(nz), nz;
        Eigen::Matrix<T, 3, 3> E = Eigen::Matrix<T, 3, 3>::Zero();
        E(2, 2) = e;
        const Eigen::Matrix<T, 3, 1> want = -(N.transpose() * (Iinv[0] + Iinv[1]) * N).inverse() *
                                            ((Eigen::Matrix<T, 3, 3>::Identity() + E) * N.transpose() * Vec6<T>(v[1] - v[0]));
        EXPECT_LE(max_abs(VecX<T>(r.lambda - VecX<T>(want))), tol<T>(1000) * (max_abs(VecX<T>(want)) + 1));
        // Tangential relative velocity stopped, normal one reversed by e.
        EXPECT_LE(max_abs(r.tangential_plus), tol<T>(1000) * (max_abs(r.tangential_minus) + 1));
        EXPECT_LE(static_cast<double>(abs(T(r.zeta_plus(0) + e * r.zeta_minus(0)))), tol<T>(1000) * (max_abs(r.zeta_minus) + 1));
      }
    }
  }
}

// ι = I^A Δv (eq. 11.56): an impulse on the root of a floating tree (the handle of the whole
// articulated body) changes its velocity by (I^A)⁻¹ ι, with I^A from ABA; the route is u = J₀ᵀι
// (11.58), Δq̇ = H⁻¹u (11.57), Δv₀ = J₀Δq̇ (11.59). For a lone body I^A = I (eq. 11.55).
TYPED_TEST(ContactClosedForm, ImpulseOnTheHandleIsArticulatedInertia11_56) {
  using T = TypeParam;
  for (std::uint64_t seed = 11; seed <= 16; ++seed) {
    const RandomCase<T> c = random_case<T>(tree_spec(seed == 11 ? 1 : 5, 1.0, true), seed, seed);
    const Model<T>& m = c.model;
    const VecX<T>& q = c.q, &qd = c.qd;
    const AbaResult<T> fd = aba<T>(m, q, qd, VecX<T>::Zero(m.nv));
    ASSERT_TRUE(fd.ok);
    const MatX<T> J0 = body_jacobian<T>(m, q, 0);
    Vec6<T> iota;
    iota << T(1), dec<T>("-0.5"), dec<T>("2.25"), dec<T>("0.75"), T(-3), dec<T>("1.5");
    const VecX<T> dqd = crba<T>(m, q).ldlt().solve(VecX<T>(J0.transpose() * iota));
    const Vec6<T> dv = J0 * dqd;
    EXPECT_LE(max_abs(Vec6<T>(fd.IA[0] * dv - iota)), tol<T>(1e4) * max_abs(iota)) << "seed " << seed;
    if (m.NB == 1) {
      EXPECT_LE(max_abs(Mat6<T>(fd.IA[0] - m.I[0].M)), tol<T>(100) * max_abs(m.I[0].M));
    }
  }
}

// Frictionless impacts on random trees with random contacts: every identity of check_impact holds
// (momentum balance, restitution, complementarity; the kinetic energy does not increase, and is
// conserved at e = 1, where no separating contact takes an impulse), no contact leaves into its
// surface, and the energy change is the law's ½ Σ λ_i (ζ_i⁻ + ζ_i⁺), at double and bin50. Planted
// once: restitution dropped from d (70 of 208 checks fail), the impulse's sign flipped (71 of 208).
template <class T>
class ContactImpactProperties : public ::testing::Test {};
TYPED_TEST_SUITE(ContactImpactProperties, Scalars);

TYPED_TEST(ContactImpactProperties, MomentumRestitutionAndEnergy) {
  using T = TypeParam;
  int checked = 0, gained = 0, separated = 0, infeasible = 0;
  for (std::uint64_t seed = 400; seed < 440; ++seed) {
    ModelDesc d = with_random_contacts(random_tree(tree_spec(2 + static_cast<int>(seed % 5), 1.0, seed % 2 == 0), seed),
                                       1 + static_cast<int>(seed % 4), seed, seed % 3 == 0, false);
    const double e = seed % 5 == 0 ? 1.0 : (seed % 7) / 7.0;
    for (ContactDesc& c : d.contacts) c.restitution = Num::exact(e);
    const std::optional<RandomCase<T>> rc = buildable_case<T>(d, seed, 2.0);
    if (!rc) continue;
    const Model<T>& m = rc->model;
    const VecX<T>& q = rc->q, &qd = rc->qd;
    SCOPED_TRACE("seed " + std::to_string(seed) + ", e = " + std::to_string(e));
    const ContactImpact<T> r = contact_impact<T>(m, q, qd);
    if (!r.ok) {
      // Newton's law cannot hold everywhere: dependent normals whose positive combination is zero
      // (My = 0, y ≥ 0) with one of them colliding at e > 0, say a point squeezed between two
      // opposed surfaces; the certificate y proves it (dᵀy = Σ y_i e_i min(ζ_i⁻, 0) < 0).
      ASSERT_EQ(r.lcp.status, LcpResult<T>::NoSolution) << r.message;
      const VecX<T>& y = r.lcp.certificate;
      EXPECT_GE(static_cast<double>(y.minCoeff()), 0.0);
      EXPECT_LE(max_abs(VecX<T>(r.ck.Tn * y)), tol<T>(1e4) * (max_abs(r.ck.Tn) + 1));
      EXPECT_LT(static_cast<double>(T(r.d.dot(y))), 0.0);
      ++infeasible;
      continue;
    }
    const std::vector<CheckResult> cs = check_impact<T>(m, q, qd);
    bool conserved = false;
    for (const CheckResult& c : cs) {
      EXPECT_TRUE(c.passed) << c.message();
      conserved = conserved || c.name == "impact.kinetic_energy_conserved";
    }
    gained += r.lambda.sum() > T(0);
    // Every contact leaves without moving into its surface (§11.7).
    EXPECT_GE(static_cast<double>(r.zeta_plus.minCoeff()), -tol<T>(1e4) * (max_abs(r.zeta_minus) + 1));
    // The energy change from the law alone: ½ Σ λ_i (ζ_i⁻ + ζ_i⁺), ζ_i⁺ = -e ζ_i⁻ where colliding and
    // 0 where separating (the contacts taking an impulse); against T⁺ - T⁻ from the velocities.
    T closed(0);
    bool separating_stopped = false;
    for (Eigen::Index i = 0; i < r.lambda.size(); ++i) {
      const T zm = r.zeta_minus(i);
      closed += r.lambda(i) * (zm + (zm < T(0) ? T(-T(e) * zm) : T(0))) / T(2);
      separating_stopped = separating_stopped || (r.lambda(i) > T(0) && zm > T(0));
    }
    separated += separating_stopped;
    const T dT = r.kinetic_plus - r.kinetic_minus;
    EXPECT_LE(static_cast<double>(abs(T(dT - closed))), tol<T>(1e4) * (static_cast<double>(r.kinetic_minus) + 1));
    // (made when no separating contact is stopped and every contact taking an impulse has e = 1,
    // which holds with none taking one)
    EXPECT_EQ(conserved, !separating_stopped && (e == 1.0 || !(r.lambda.sum() > T(0))));
    ++checked;
  }
  EXPECT_GE(checked, 30);
  EXPECT_GE(gained, 10);  // most draws collide
  EXPECT_GE(separated, 1);  // and some stop a separating contact
  EXPECT_LE(infeasible, 3);
}

// A rod lying on the ground, both ends touching, one end coming down and the other rising (§11.7,
// the case that needs ζ⁺ ≥ 0 at a separating contact). A free body of mass 1 along x, ends at
// x = ±1, I_yy = 1/4; ζ₁ = v_z + ω_y, ζ₂ = v_z - ω_y, so M = [[5, -3], [-3, 5]]. With ζ⁻ = (-1, 0.6)
// and e = 1 at both, complementarity with both impulses positive gives M λ = (2, -0.6):
// λ = (41/80, 3/16), ζ⁺ = (1, 0), and the energy rises from 1/10 to 5/32 (the separating end is
// stopped: ΔT = ½ λ₂ ζ₂⁻). If end 2 rises at 3 m/s it separates unaided: λ = (2/5, 0),
// ζ⁺ = (1, 1.8), energy kept. With e₁ = 1/2: M λ = (1.5, -0.6), λ = (57/160, 3/32). Planted: d =
// (1 + e) ζ⁻ for every contact (the old pose) gives λ = (2/5, 0), ζ₂⁺ = -0.6, and fails here.
TYPED_TEST(ContactClosedForm, SeparatingContactIsStoppedNotDrivenIntoTheGround) {
  using T = TypeParam;
  ModelDesc d;
  d.name = "rod";
  d.bodies.push_back(rigid_body("rod", -1, "root", JointType::Free, N3(0, 0, 1), 1.0, N3(0, 0, 0), 0.5, 0.25, 0.25));
  d.bodies[0].where = "bodies[0]";
  d.gravity = N3(0, 0, 0);
  d.contacts.push_back(ground_contact("end1", 0, N3(-1, 0, 0)));
  d.contacts.push_back(ground_contact("end2", 0, N3(1, 0, 0)));
  struct Case {
    const char* zeta2;   // end 2's ζ⁻ (end 1's is -1)
    const char* e1;
    const char* lambda[2];
    const char* zeta_plus[2];
    bool conserved;      // the energy check is made and passes
  };
  const Case cases[] = {
      {"0.6", "1", {"0.5125", "0.1875"}, {"1", "0"}, false},
      {"3", "1", {"0.4", "0"}, {"1", "1.8"}, true},
      {"0.6", "0.5", {"0.35625", "0.09375"}, {"0.5", "0"}, false},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(std::string("zeta2 ") + k.zeta2 + ", e1 " + k.e1);
    d.contacts[0].restitution = Num::decimal(k.e1);
    d.contacts[1].restitution = Num::exact(1);
    const Model<T> m = build_model<T>(d);
    VecX<T> q = VecX<T>::Zero(7), qd = VecX<T>::Zero(6);
    q(0) = T(1);
    const T z1 = T(-1), z2 = dec<T>(k.zeta2);
    qd(1) = (z1 - z2) / T(2);  // ω_y
    qd(5) = (z1 + z2) / T(2);  // v_z
    const ContactImpact<T> r = contact_impact<T>(m, q, qd);
    ASSERT_TRUE(r.ok) << r.message;
    for (int i = 0; i < 2; ++i) {
      EXPECT_LE(static_cast<double>(abs(T(r.lambda(i) - dec<T>(k.lambda[i])))), tol<T>(100)) << "λ" << i + 1;
      EXPECT_LE(static_cast<double>(abs(T(r.zeta_plus(i) - dec<T>(k.zeta_plus[i])))), tol<T>(100)) << "ζ⁺" << i + 1;
    }
    bool conserved = false;
    for (const CheckResult& c : check_impact<T>(m, q, qd)) {
      EXPECT_TRUE(c.passed) << c.message();
      conserved = conserved || c.name == "impact.kinetic_energy_conserved";
    }
    EXPECT_EQ(conserved, k.conserved);
  }
}

// ---- soft contact (§11.8) ----

// One soft contact between a free body's point and the ground, with friction: the rules of eqs.
// 11.73-11.79 case by case from their closed forms (touching and pressing; touching and pulling
// away, f_n clipped to 0; separated from a relaxing surface; sticking; slipping), the dissipation
// W ≥ 0 and equal to D ż² + D_t|ẋ|² + f_tᵀ(ẋ - v), and every soft.* check.
TYPED_TEST(ContactClosedForm, SoftContactRules) {
  using T = TypeParam;
  ModelDesc d = box(0.3, 0.2, 0.1, 2.5);
  ContactDesc c = ground_contact("pad", 0, N3(0.3, 0.2, -0.1));
  c.stiffness = Num::exact(2000);
  c.damping = Num::exact(50);
  c.tangential_stiffness = Num::exact(1000);
  c.tangential_damping = Num::exact(20);
  c.friction = Num::exact(0.5);
  d.contacts.push_back(c);
  const Model<T> m = build_model<T>(d);
  const T K(2000), D(50), Kt(1000), Dt(20), mu = T(0.5);
  struct Case {
    const char* what;
    double height, vz, vx;     // the body's height (the point's φ = height - 0.1) and velocity
    bool given_z;
    double z, x0;              // surface state
    bool touching, sticking;
  };
  const Case cases[] = {
      {"pressing, sticking", 0.099, -0.01, 0.0, false, 0, 0, true, true},
      {"pressing, slipping", 0.099, -0.01, 3.0, false, 0, 0, true, false},
      {"pulling away: f_n clipped to 0", 0.0999, 0.5, 0.0, false, 0, 0, true, true},
      {"separated from a relaxing surface", 0.12, -0.3, 1.0, true, -0.002, 0.001, false, false},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.what);
    VecX<T> q = VecX<T>::Zero(7), qd = VecX<T>::Zero(6);
    q(0) = T(1);
    q(6) = T(k.height);
    qd(3) = T(k.vx);
    qd(5) = T(k.vz);
    std::vector<bool> given{k.given_z};
    VecX<T> z(1), x(2);
    z << T(k.z);
    x << T(k.x0), T(0);
    const ContactKinematics<T> ck = contact_kinematics<T>(m, q, qd);
    const SoftContactForces<T> f = soft_contact_forces<T>(m, ck, qd, given, z, x);
    ASSERT_EQ(f.contacts.size(), 1u);
    const SoftContactState<T>& s = f.contacts[0];
    const T p = T(k.height) - T(0.1);
    EXPECT_LE(static_cast<double>(abs(T(s.p - p))), tol<T>(100));
    EXPECT_EQ(s.touching, k.touching);
    const T zz = k.given_z ? T(k.z) : (p < T(0) ? p : T(0));
    const T fn = k.touching ? std::max(T(0), T(-K * zz - D * T(k.vz))) : T(0);
    EXPECT_LE(static_cast<double>(abs(T(s.fn - fn))), tol<T>(1000) * (static_cast<double>(fn) + 1));
    EXPECT_LE(static_cast<double>(abs(T(s.zdot + (K * zz + fn) / D))), tol<T>(1000) * 10);
    if (std::string(k.what) == "pulling away: f_n clipped to 0") {
      EXPECT_EQ(s.fn, T(0));
    }
    // Tangential: v along the contact's tangent directions; f_stick = -K_t x - D_t v.
    const Vec3<T> vw(T(k.vx), T(0), T(0));
    const Vec3<T> v(ck.ex[0].dot(vw), ck.ey[0].dot(vw), T(0));
    const Vec3<T> fs = -Kt * Vec3<T>(T(k.x0), T(0), T(0)) - Dt * v;
    EXPECT_LE(max_abs(Vec3<T>(s.f_stick - fs)), tol<T>(1000) * 100);
    EXPECT_EQ(s.sticking, k.sticking && fs.norm() <= mu * fn);
    const Vec3<T> ft = fs.norm() <= mu * fn ? fs : Vec3<T>(fs * T(mu * fn / fs.norm()));
    EXPECT_LE(max_abs(Vec3<T>(s.ft - ft)), tol<T>(1000) * 100);
    EXPECT_LE(static_cast<double>(s.ft.norm() - mu * s.fn), tol<T>(1000) * 100);
    // Dissipation.
    const T W = D * s.zdot * s.zdot + Dt * s.xdot.squaredNorm() + s.ft.dot(Vec3<T>(s.xdot - s.v));
    EXPECT_GE(static_cast<double>(W), -tol<T>(1000) * 100);
    EXPECT_LE(static_cast<double>(abs(T(s.dissipation - W))), tol<T>(1e4) * (static_cast<double>(abs(W)) + 1));
    for (const CheckResult& r : check_contacts<T>(m, q, qd, VecX<T>::Zero(6), given, z, x))
      EXPECT_TRUE(r.passed) << r.message();
  }
}

// The free surface relaxes as z₀ e^{-Kt/D} (the book's trick for eq. 11.73 with f_c = 0): against
// RK4 on ż = -K z / D, whose error at h = T_end/2000 is ~(hK/D)⁴/120 per unit time.
TYPED_TEST(ContactClosedForm, SoftSurfaceDecayIsAnalytic) {
  using T = TypeParam;
  const T K(3000), D(40), z0 = T(-0.004), tend = T(0.05);
  const int steps = 2000;
  const T h = tend / T(steps);
  T z = z0;
  auto f = [&](const T& y) { return T(-K * y / D); };
  for (int i = 0; i < steps; ++i) {
    const T k1 = f(z), k2 = f(T(z + h / T(2) * k1)), k3 = f(T(z + h / T(2) * k2)), k4 = f(T(z + h * k3));
    z += h / T(6) * (k1 + T(2) * k2 + T(2) * k3 + k4);
  }
  const T exact = soft_surface_decay<T>(z0, K, D, tend);
  EXPECT_LE(static_cast<double>(abs(T((z - exact) / z0))), 1e-12);
  EXPECT_LT(static_cast<double>(abs(exact)), static_cast<double>(abs(z0)));
}

// Random trees with a mix of rigid and soft contacts: the LCP is over the rigid ones with the
// soft forces as known forces; every check holds (equation of motion with τ_soft, complementarity,
// the soft rules), at double and bin50; and a model whose contacts are all soft needs no LCP.
TYPED_TEST(ContactImpactProperties, SoftAndRigidContactsTogether) {
  using T = TypeParam;
  int checked = 0, touching = 0;
  for (std::uint64_t seed = 600; seed < 630; ++seed) {
    ModelDesc d = with_random_contacts(random_tree(tree_spec(2 + static_cast<int>(seed % 5), 1.0, seed % 2 == 0), seed),
                                       2 + static_cast<int>(seed % 3), seed, true, true);
    for (size_t i = 0; i < d.contacts.size(); ++i)
      if (i % 2 == 0 || seed % 5 == 0) {
        d.contacts[i].stiffness = Num::exact(500.0 + 100.0 * static_cast<double>(i));
        d.contacts[i].damping = Num::exact(20);
        d.contacts[i].friction = Num::exact(0.7);
      }
    const std::optional<RandomCase<T>> rc = buildable_case<T>(d, seed, 1.0);
    if (!rc) continue;
    const Model<T>& m = rc->model;
    const VecX<T>& q = rc->q, &qd = rc->qd, &tau = rc->tau;
    SCOPED_TRACE("seed " + std::to_string(seed));
    const ContactDynamics<T> r = contact_dynamics<T>(m, q, qd, tau);
    ASSERT_TRUE(r.ok);
    for (const SoftContactState<T>& s : r.soft.contacts) touching += s.touching;
    EXPECT_EQ(r.rigid.size() + r.soft.contacts.size(), m.contacts.size());
    if (r.lcp.status != LcpResult<T>::Solved) continue;
    for (const CheckResult& c : check_contacts<T>(m, q, qd, tau)) EXPECT_TRUE(c.passed) << c.message();
    ++checked;
  }
  EXPECT_GE(checked, 20);
  EXPECT_GE(touching, 5);
}

// ---- the procedure of table 11.1 with step interpolation (eqs. 11.45-11.51) ----

// The interpolants: at δ = 1 they are the step (Euler y₀ + hk, Heun y₀ + h(¼k₁ + ¾k₂)); Heun's
// slope is k₁ at δ = 0 and k₂ at δ = ⅔ (p(t) is the line through them, eq. 11.51's derivation).
TYPED_TEST(ContactClosedForm, StepInterpolantsAreEquations11_49And11_51) {
  using T = TypeParam;
  Rand rnd;
  VecX<T> y0(3), k1(3), k2(3);
  for (int i = 0; i < 3; ++i) {
    y0(i) = T(rnd());
    k1(i) = T(rnd());
    k2(i) = T(rnd());
  }
  const T h = T(0.125);
  EXPECT_LE(max_abs(VecX<T>(step_interpolate<T>(StepMethod::Euler, y0, h, k1, k2, T(1)) - (y0 + h * k1))), tol<T>(10));
  EXPECT_LE(max_abs(VecX<T>(step_interpolate<T>(StepMethod::Heun, y0, h, k1, k2, T(1)) - (y0 + h * (k1 / T(4) + T(3) * k2 / T(4))))),
            tol<T>(10));
  // Slopes by central differences in δ (the interpolant is quadratic: exact up to rounding).
  const T e = T(1) / T(1024);
  auto slope = [&](const T& d) {
    return VecX<T>((step_interpolate<T>(StepMethod::Heun, y0, h, k1, k2, T(d + e)) -
                    step_interpolate<T>(StepMethod::Heun, y0, h, k1, k2, T(d - e))) / (T(2) * e * h));
  };
  EXPECT_LE(max_abs(VecX<T>(slope(T(0)) - k1)), tol<T>(1e4));
  EXPECT_LE(max_abs(VecX<T>(slope(T(2) / T(3)) - k2)), tol<T>(1e4));
}

// A box dropped flat onto the ground from 1 m (its contact point under the COM), e = 1/2, Heun
// steps: in free flight the motion is quadratic in time and Heun's interpolant (eq. 11.51) exact,
// so each impact (a contact gain, located by bisection on the interpolant) happens at the closed
// form: t₁ = √(2/g), then every 2e^k v₁/g (v₁ = g t₁): t₂ = t₁(1 + 2e), t₃ = t₂ + 2e² t₁, each to
// ~40 digits at bin50; after each, the rebound is e times the arrival speed (impulsive LCP, §11.7).
TYPED_TEST(ContactClosedForm, BouncingBoxEventsAtTheClosedFormTimes) {
  using T = TypeParam;
  ModelDesc d = box(0.3, 0.2, 0.1, 2.5);
  ContactDesc c = ground_contact("bottom", 0, N3(0, 0, -0.1));
  c.restitution = Num::exact(0.5);
  d.contacts.push_back(c);
  d.gravity = {Num::exact(0), Num::exact(0), Num::decimal("-9.81")};
  const Model<T> m = build_model<T>(d);
  VecX<T> q = VecX<T>::Zero(7), qd = VecX<T>::Zero(6);
  q(0) = T(1);
  q(6) = T(1) + T(0.1);  // the point is at z = -0.1 as the double Num::exact(0.1): the drop is exactly 1 m
  const ContactTrajectory<T> tr = simulate_contacts<T>(m, q, qd, VecX<T>::Zero(6), T(0.0625), 40, StepMethod::Heun);
  ASSERT_TRUE(tr.ok) << tr.message;
  ASSERT_GE(tr.events.size(), 3u);
  const T g = from_decimal<T>("9.81"), e = T(0.5);
  using std::sqrt;
  const T t1 = sqrt(T(2) / g);
  const T want[3] = {t1, T(t1 * (T(1) + T(2) * e)), T(t1 * (T(1) + T(2) * e + T(2) * e * e))};
  const double accuracy = std::is_same<T, double>::value ? 1e-12 : 1e-40;
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(tr.events[k].kind, ContactEvent<T>::Gain);
    EXPECT_EQ(tr.events[k].contact, 0);
    EXPECT_LE(static_cast<double>(abs(T(tr.events[k].time - want[k]))), accuracy) << "impact " << k;
  }
}

// A slider (prismatic along -gravity, mass M) resting on the ground, carrying an eccentric rotor
// (mass m, COM at r along its x-axis, I_yy about its COM) spinning about the horizontal y-axis.
// Held on the ground (z = 0) the rotor is a compound pendulum about a fixed axis. With θ the
// right-handed rotation about +y, the COM is at (r cos θ, 0, -r sin θ), so
//   I_O θ̈ = m g r cos θ                    (I_O = I_yy + m r²)
//   λ = (M + m) g + m z̈_COM = (M + m) g - m r (cos θ θ̈ - sin θ θ̇²)
//   ½ I_O θ̇² - m g r sin θ = ½ I_O θ̇₀²       (energy; θ₀ = 0)
// all independent of rbdref's kinematics and contact code. λ falls as the mass swings over the
// top; where it would turn negative the contact leaves both sets (step 6 of table 11.1). At the
// event's state the closed-form λ must be 0 to the bisection's reach and positive at every state
// before it, the slider must not have moved (beyond the rounding of ζ̇ = 0), and the energy must hold to Heun's error.
// Planted: the active-set solve's M = TᵀH⁻¹T doubled fails (the slider sinks), and so does a 1 %
// error in H's rotor entry, which a check through contact_dynamics would share.
TYPED_TEST(ContactClosedForm, NegativeContactForceEventWhereLambdaVanishes) {
  using T = TypeParam;
  ModelDesc d;
  d.bodies.push_back(rigid_body("slider", -1, "lift", JointType::Prismatic, N3(0, 0, 1), 1, N3(0, 0, 0), 0.01, 0.01, 0.01));
  d.bodies.push_back(rigid_body("rotor", 0, "spin", JointType::Revolute, N3(0, 1, 0), 0.5, N3(0.2, 0, 0), 0.001, 0.001, 0.001));
  d.contacts.push_back(ground_contact("foot", 0, N3(0, 0, 0)));
  const Model<T> m = build_model<T>(d);
  VecX<T> q = VecX<T>::Zero(2), qd = VecX<T>::Zero(2);
  qd(1) = T(20);  // m ω² r = 0.5·400·0.2 = 40 N > (M + m) g ≈ 14.7 N
  const ContactTrajectory<T> tr = simulate_contacts<T>(m, q, qd, VecX<T>::Zero(2), T(0.01), 20, StepMethod::Heun);
  ASSERT_TRUE(tr.ok) << tr.message;
  ASSERT_FALSE(tr.events.empty());
  EXPECT_EQ(tr.events[0].kind, ContactEvent<T>::NegativeForce);
  EXPECT_EQ(tr.active[0], std::vector<int>({0}));
  using std::cos;
  using std::sin;
  const T Ms(1), ms(0.5), r(0.2), Iyy(0.001), g = from_decimal<T>("9.81");  // the model's numbers (doubles 0.2, 0.001)
  const T IO = Iyy + ms * r * r, W = (Ms + ms) * g;
  auto lambda_closed = [&](const T& th, const T& thd) {
    const T thdd = ms * g * r * cos(th) / IO;
    return T(W - ms * r * (cos(th) * thdd - sin(th) * thd * thd));
  };
  const T E0 = IO * qd(1) * qd(1) / T(2);
  size_t k = 0;
  for (; k < tr.t.size() && tr.t[k] < tr.events[0].time; ++k) {
    EXPECT_LE(static_cast<double>(abs(tr.q[k](0))), tol<T>(1e4)) << "state " << k << ": the slider moved while held";
    EXPECT_GT(static_cast<double>(lambda_closed(tr.q[k](1), tr.qd[k](1))), 0.0) << "state " << k;
    // Heun's global error over ≤ 20 steps of h ω = 0.2: well under 1 % of the energy.
    const T E = IO * tr.qd[k](1) * tr.qd[k](1) / T(2) - ms * g * r * sin(tr.q[k](1));
    EXPECT_LE(static_cast<double>(abs(T(E - E0)) / E0), 1e-2) << "state " << k;
  }
  ASSERT_LT(k, tr.t.size());
  const double reach = std::is_same<T, double>::value ? 1e-9 : 1e-35;
  EXPECT_LE(static_cast<double>(abs(lambda_closed(tr.q[k](1), tr.qd[k](1)))) / static_cast<double>(W), reach)
      << "λ = " << lambda_closed(tr.q[k](1), tr.qd[k](1)) << " at θ = " << tr.q[k](1);
  EXPECT_TRUE(tr.active[k].empty());
}


// Table 11.1 with several contacts: the box of box_on_four_corners, flat, above the ground. At
// every recorded state no contact is below its surface by more than `drift`: the positions carry
// the integration error (Heun's quaternion step is first-order consistent, and the active
// contacts are held at the acceleration level), so a bound of the integration error's size, far
// below a sinking box's. `max_drift` reports the current contacts' part of it, and must agree.
template <class T>
void expect_nothing_sinks(const Model<T>& m, const ContactTrajectory<T>& tr, double drift) {
  T worst_current(0);
  for (size_t k = 0; k < tr.q.size(); ++k) {
    const ContactKinematics<T> ck = contact_kinematics<T>(m, tr.q[k], tr.qd[k]);
    for (int i = 0; i < static_cast<int>(ck.phi.size()); ++i) {
      const bool current = std::find(tr.current[k].begin(), tr.current[k].end(), i) != tr.current[k].end();
      if (current) worst_current = std::max(worst_current, T(abs(ck.phi(i))));
      EXPECT_GE(static_cast<double>(ck.phi(i)), -drift) << "state " << k << ", contact " << i << (current ? "" : " (not current)");
    }
  }
  EXPECT_EQ(static_cast<double>(worst_current), static_cast<double>(tr.max_drift));
}

// Dropped flat from 0.5 m with e = 0: all four corners gain contact at t = √(2·0.5/g) at once, the
// impact stops them, and the box stays at rest on its four corners: current set all four, active
// set a basis of range(T) (3 corners: λ > 0 on a diagonal pair, completed by a third with λ = 0).
TYPED_TEST(ContactClosedForm, BoxDroppedFlatWithoutRestitutionComesToRest) {
  using T = TypeParam;
  const Model<T> m = build_model<T>(box_on_four_corners());
  VecX<T> q = box_resting<T>(), qd = VecX<T>::Zero(6);
  q(6) += dec<T>("0.5");
  const ContactTrajectory<T> tr = simulate_contacts<T>(m, q, qd, VecX<T>::Zero(6), dec<T>("0.05"), 16, StepMethod::Heun);
  ASSERT_TRUE(tr.ok) << tr.message;
  ASSERT_EQ(tr.events.size(), 1u);
  EXPECT_EQ(tr.events[0].kind, ContactEvent<T>::Gain);
  using std::sqrt;
  const double accuracy = std::is_same<T, double>::value ? 1e-12 : 1e-40;
  EXPECT_LE(static_cast<double>(abs(T(tr.events[0].time - sqrt(T(1) / dec<T>("9.81"))))), accuracy);
  EXPECT_EQ(tr.current.back(), std::vector<int>({0, 1, 2, 3}));
  EXPECT_EQ(tr.active.back().size(), 3u);
  EXPECT_LE(max_abs(tr.qd.back()), tol<T>(1e4));
  EXPECT_LE(static_cast<double>(abs(T(tr.q.back()(6) - T(0.1)))), tol<T>(1e4));
  expect_nothing_sinks<T>(m, tr, tol<T>(1e4));
}

// Lying on its four corners and turning about the diagonal through corners 0 and 2 (ω = 1 rad/s
// along it): corner 3 comes down (ζ < 0, case 2a), corner 1 lifts. The start is an impact: with
// e = 0 the impulse projects q̇ onto {ζ⁺ ≥ 0 at every touching corner} and takes kinetic energy.
// Before the procedure took the start's impulse and watched the current contacts,
// the active pair 0, 2 let corner 3 sink through the ground (a box falling onto its corners sank
// 0.66 m in 0.3 s).
TYPED_TEST(ContactClosedForm, BoxTurningAboutItsActiveDiagonalIsStoppedNotSunk) {
  using T = TypeParam;
  const Model<T> m = build_model<T>(box_on_four_corners());
  VecX<T> q = box_resting<T>(), qd = VecX<T>::Zero(6);
  using std::sqrt;
  const T len = sqrt(T(0.6) * T(0.6) + T(0.4) * T(0.4));
  qd(0) = T(0.6) / len;
  qd(1) = T(0.4) / len;
  const ContactKinematics<T> ck0 = contact_kinematics<T>(m, q, qd);
  ASSERT_LT(static_cast<double>(ck0.zeta(3)), -0.1);
  ASSERT_GT(static_cast<double>(ck0.zeta(1)), 0.1);
  const ContactTrajectory<T> tr = simulate_contacts<T>(m, q, qd, VecX<T>::Zero(6), dec<T>("0.01"), 12, StepMethod::Heun);
  ASSERT_TRUE(tr.ok) << tr.message;
  ASSERT_FALSE(tr.events.empty());
  EXPECT_EQ(tr.events[0].kind, ContactEvent<T>::Gain);
  EXPECT_EQ(static_cast<double>(tr.events[0].time), 0.0);
  expect_nothing_sinks<T>(m, tr, 1e-4);
  // e = 0: the impulse takes kinetic energy (the LCP is then the H-norm projection of q̇⁻ onto
  // {Tᵀq̇ ≥ 0}, which shortens it), and nothing gives it back beyond gravity's work.
  auto kinetic = [&](size_t k) { return static_cast<double>(T(tr.qd[k].dot(crba<T>(m, tr.q[k]) * tr.qd[k]) / T(2))); };
  const double before = static_cast<double>(T(qd.dot(crba<T>(m, q) * qd) / T(2)));
  EXPECT_LT(kinetic(0), before);
  EXPECT_LE(kinetic(tr.q.size() - 1), before);
}

// Dropped flat from 1 m with e = 1 at every corner: four simultaneous elastic impacts per bounce,
// none of them separating, so each keeps the kinetic energy; Heun is exact in free flight, so the
// total energy ½q̇ᵀHq̇ + m g z is the start's at every recorded state, to rounding.
TYPED_TEST(ContactClosedForm, ElasticBouncesOnFourCornersKeepTheEnergy) {
  using T = TypeParam;
  ModelDesc d = box_on_four_corners();
  for (ContactDesc& c : d.contacts) c.restitution = Num::exact(1);
  const Model<T> m = build_model<T>(d);
  VecX<T> q = box_resting<T>(), qd = VecX<T>::Zero(6);
  q(6) += T(1);
  const ContactTrajectory<T> tr = simulate_contacts<T>(m, q, qd, VecX<T>::Zero(6), T(0.0625), 40, StepMethod::Heun);
  ASSERT_TRUE(tr.ok) << tr.message;
  EXPECT_GE(tr.events.size(), 2u);
  const T mg = T(2.5) * dec<T>("9.81");
  auto energy = [&](size_t k) { return T(T(tr.qd[k].dot(crba<T>(m, tr.q[k]) * tr.qd[k])) / T(2) + mg * tr.q[k](6)); };
  const T e0 = energy(0);
  const double accuracy = std::is_same<T, double>::value ? 1e-10 : 1e-38;
  for (size_t k = 0; k < tr.q.size(); ++k) EXPECT_LE(static_cast<double>(abs(T(energy(k) - e0))), accuracy * 30) << "state " << k;
  expect_nothing_sinks<T>(m, tr, tol<T>(1e4));
}

// Friction is refused, not ignored: the procedure is frictionless.
TEST(ContactSimulation, FrictionIsRefused) {
  ModelDesc d = box_on_four_corners();
  d.contacts[0].friction = Num::exact(0.5);
  const Model<double> m = build_model<double>(d);
  const ContactTrajectory<double> tr = simulate_contacts<double>(m, box_resting<double>(), VecX<double>::Zero(6), VecX<double>::Zero(6), 0.01, 2,
                                                                 StepMethod::Heun);
  EXPECT_FALSE(tr.ok);
  EXPECT_NE(tr.message.find("friction"), std::string::npos) << tr.message;
}

}  // namespace
}  // namespace rbd::test
