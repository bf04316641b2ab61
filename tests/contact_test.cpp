// Point contacts (RBDA §11.1-11.6: contact kinematics, the acceleration-level LCP, contact
// geometry) against routes that do not share their code:
//   * t_i = ∂φ_i/∂q (eq. 11.40), ζ = φ̇ (11.38) and Ṫᵀq̇ = φ̈ - tᵀq̈ (11.39) by central differences
//     along the exact joint flow q ⊕ s q̇ (integrate_q: q̈ = 0 along it), at 100 digits, on random
//     trees with every joint type and random contacts with the world and between bodies, with a
//     gap (φ ≠ 0) and in contact;
//   * T from the body Jacobians (body coordinates) instead of base-frame motion subspaces; M from a
//     dense LDLᵀ of H instead of the tree's sparse LᵀDL; q̈_free from ABA;
//   * the LCP's solutions from enumeration of every complementary index set (not the library's),
//     compared on ζ̇, Tλ, q̈ (unique) and on λ where M is positive-definite, at bin50 to 40 digits,
//     and the QPs of eqs. 11.43 and 11.44 against them;
//   * closed forms: one contact λ = max(0, -d/M) (§11.1); a box resting on four corners (q̈ = 0,
//     Tλ = C, exactly two basic solutions, λ = mg/2 on either diagonal); a rotating rod between two
//     planes whose normals give t_2 = -t_1 and d_1 + d_2 = -√2 ω² < 0, the analogue of example 11.1
//     (no solution; certificate y = (1, 1)); the minimal contact set of a lying box (§11.6).
// Impulses, soft contact and the simulation procedure are the contact-impulse tests'.
#include "checks/contact_checks.hpp"
#include "reference/contact/dynamics.hpp"
#include "reference/contact/geometry.hpp"
#include "reference/tree/aba.hpp"
#include "reference/tree/integrate.hpp"
#include "reference/tree/jacobian.hpp"
#include "tests/contact_test_util.hpp"
#include "tests/lcp_enumeration.hpp"
#include "tests/test_util.hpp"
#include "tests/tree_cases.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <optional>
#include <vector>

namespace rbd::test {
namespace {

// ---- kinematics ----

// t_i = ∂φ_i/∂q along each DoF's flow, φ̇ = ζ and φ̈ = Ṫᵀq̇ along q̇'s flow (q̈ = 0), ζ = Tᵀq̇, and ζ̇
// along the flow (the rate of tᵀq̇ with q̇ held) = Ṫᵀq̇: central differences at step 1e-30 along the
// exact joint flow q ⊕ s q̇ (integrate_q), at 100 digits.
void expect_kinematics_match_finite_differences(const Model<bin100>& m, const VecX<bin100>& q, const VecX<bin100>& qd) {
  using T = bin100;
  const ContactKinematics<T> ck = contact_kinematics<T>(m, q, qd);
  const double scale = max_abs(ck.Tn) + max_abs(ck.Tdot_qd) + 1;
  EXPECT_LE(max_abs(VecX<T>(ck.Tn.transpose() * qd - ck.zeta)), 1e-90 * scale);
  const T h = dec<T>("1e-30");
  for (int k = 0; k < m.nv; ++k) {
    VecX<T> e = VecX<T>::Zero(m.nv);
    e(k) = T(1);
    const VecX<T> pp = contact_kinematics<T>(m, integrate_q<T>(m, q, e, h), qd).phi;
    const VecX<T> pm = contact_kinematics<T>(m, integrate_q<T>(m, q, e, T(-h)), qd).phi;
    const VecX<T> grad = (pp - pm) / (T(2) * h);
    EXPECT_LE(max_abs(VecX<T>(grad - ck.Tn.row(k).transpose())), 1e-45 * scale) << "DoF " << k;
  }
  const VecX<T> pp = contact_kinematics<T>(m, integrate_q<T>(m, q, qd, h), qd).phi;
  const VecX<T> pm = contact_kinematics<T>(m, integrate_q<T>(m, q, qd, T(-h)), qd).phi;
  EXPECT_LE(max_abs(VecX<T>((pp - pm) / (T(2) * h) - ck.zeta)), 1e-45 * scale) << "φ̇ = ζ";
  const VecX<T> phidd = (pp - T(2) * ck.phi + pm) / (h * h);
  EXPECT_LE(max_abs(VecX<T>(phidd - ck.Tdot_qd)), 1e-25 * scale) << "φ̈ = Ṫᵀq̇: " << phidd.transpose() << " vs "
                                                                  << ck.Tdot_qd.transpose();
  const VecX<T> zp = contact_kinematics<T>(m, integrate_q<T>(m, q, qd, h), qd).zeta;
  const VecX<T> zm = contact_kinematics<T>(m, integrate_q<T>(m, q, qd, T(-h)), qd).zeta;
  EXPECT_LE(max_abs(VecX<T>((zp - zm) / (T(2) * h) - ck.Tdot_qd)), 1e-45 * scale) << "ζ̇ = Ṫᵀq̇";
}

// The above on the random trees of seeds 1..24 (every joint type, some on a floating base), each
// with `contacts` random contacts with the world and between bodies, with a gap, changed by `edit`
// before the model is built; returns how many trees were checked (those whose state builds).
template <class Edit>
int kinematics_match_finite_differences_on_random_trees(int contacts, Edit&& edit) {
  using T = bin100;
  int checked = 0;
  for (std::uint64_t seed = 1; seed <= 24; ++seed) {
    const TreeSpec spec = tree_spec(3 + static_cast<int>(seed % 5), seed % 2 ? 1.0 : 2.0, seed % 3 == 0);
    ModelDesc d = with_random_contacts(random_tree(spec, seed), contacts, seed * 7 + 1, false, true);
    edit(d);
    const std::optional<RandomCase<T>> c = buildable_case<T>(d, seed, 2.0);
    if (!c) continue;
    SCOPED_TRACE("seed " + std::to_string(seed));
    expect_kinematics_match_finite_differences(c->model, c->q, c->qd);
    ++checked;
  }
  return checked;
}

TEST(ContactKinematics, NormalGapRateAndVelocityProductTermByFiniteDifferences) {
  EXPECT_GE(kinematics_match_finite_differences_on_random_trees(4, [](ModelDesc&) {}), 18);
}

// The same on curved geometry (docs/contact.md): spheres of B on planes of A (each with a surface
// point, so that φ is a function of q), and on spheres of A from outside and from inside, between random bodies and
// with the world; the curvature term σ |ṙ_⊥|² / |r| is what φ̈ checks.
TEST(ContactKinematics, CurvedGeometryByFiniteDifferences) {
  int spheres = 0;
  const int checked = kinematics_match_finite_differences_on_random_trees(6, [&spheres](ModelDesc& d) {
    for (size_t i = 0; i < d.contacts.size(); ++i) {
      ContactDesc& c = d.contacts[i];
      c.radius = Num::decimal(std::to_string(0.05 + 0.1 * static_cast<double>(i)));
      if (i % 3 != 0) {  // A's side a sphere, from outside (i % 3 == 1) or inside
        ContactDesc::Sphere sph;
        sph.center = {Num::decimal("0.3"), Num::decimal(std::to_string(-0.2 + 0.1 * static_cast<double>(i))), Num::decimal("-0.7")};
        sph.radius = Num::decimal(i % 3 == 1 ? "0.4" : "2.5");
        sph.inside = i % 3 == 2;
        c.sphere = sph;
        c.surface.reset();
        ++spheres;
      }
    }
  });
  EXPECT_GE(checked, 18);
  EXPECT_GE(spheres, 80);
}

// T through the body Jacobians (body coordinates, reference/tree/jacobian.hpp): t_i = J_Bᵀ (BX0* n̂) -
// J_Aᵀ (AX0* n̂), against contact_kinematics' base-frame motion subspaces.
template <class T>
void expect_T_from_jacobians(const Model<T>& m, const VecX<T>& q, const ContactKinematics<T>& ck) {
  const TreeKinematics<T> k = kinematics<T>(m, q, VecX<T>::Zero(m.nv));
  for (size_t i = 0; i < m.contacts.size(); ++i) {
    VecX<T> t = VecX<T>::Zero(m.nv);
    const Contact<T>& c = m.contacts[i];
    if (c.s >= 0) t += body_jacobian<T>(m, q, c.s).transpose() * k.X0[c.s].apply_force(ck.n_hat[i]).c;
    if (c.p >= 0) t -= body_jacobian<T>(m, q, c.p).transpose() * k.X0[c.p].apply_force(ck.n_hat[i]).c;
    EXPECT_LE(max_abs(VecX<T>(t - ck.Tn.col(i))), tol<T>(1000) * (max_abs(t) + 1)) << "contact " << i;
  }
}

// ---- the LCP against enumeration ----

// Relative agreement in digits of two vectors (against max|b|, floored at `floor`).
template <class T>
double digits(const VecX<T>& a, const VecX<T>& b, double floor = 0) {
  const double err = max_abs(VecX<T>(a - b));
  const double s = std::max(max_abs(b), floor);
  if (err == 0) return 100;
  return -std::log10(err / s);
}

template <class T>
void check_against_enumeration(double min_digits, int n_models) {
  int solved = 0, unsolvable = 0, nonunique = 0, unique_singular = 0;
  for (std::uint64_t seed = 100; seed < 100 + static_cast<std::uint64_t>(n_models); ++seed) {
    const TreeSpec spec = tree_spec(2 + static_cast<int>(seed % 6), seed % 2 ? 1.0 : 2.0, seed % 4 == 0);
    const int nc = 1 + static_cast<int>(seed % 7);
    const ModelDesc d = with_random_contacts(random_tree(spec, seed), nc, seed * 3 + 5, seed % 3 != 0, false);
    const std::optional<RandomCase<T>> c = buildable_case<T>(d, seed, 1.5);
    if (!c) continue;
    const Model<T>& m = c->model;
    const VecX<T>& q = c->q, &qd = c->qd, &tau = c->tau;
    SCOPED_TRACE("seed " + std::to_string(seed));
    const ContactDynamics<T> r = contact_dynamics<T>(m, q, qd, tau);
    ASSERT_TRUE(r.ok) << r.message;
    expect_T_from_jacobians<T>(m, q, r.ck);
    // M and q̈_free by other routes: a dense LDLᵀ of H, and ABA.
    const MatX<T> H = crba<T>(m, q);
    const Eigen::LDLT<MatX<T>> ldlt(H);
    const MatX<T> M2 = r.ck.Tn.transpose() * ldlt.solve(r.ck.Tn);
    const AbaResult<T> fd = aba<T>(m, q, qd, tau);
    ASSERT_TRUE(fd.ok);
    EXPECT_GE(digits<T>(r.M.reshaped(), M2.reshaped()), min_digits) << "M";
    EXPECT_GE(digits<T>(r.qdd_free, fd.qdd), min_digits) << "q̈_free";
    const VecX<T> d2 = r.ck.Tn.transpose() * fd.qdd + r.ck.Tdot_qd;
    EXPECT_GE(digits<T>(r.d, d2), min_digits) << "d";
    // (M's symmetry is not asserted: contact_dynamics copies its lower triangle, so r.M - r.Mᵀ is 0 by
    // assignment; M against M2 above, entry by entry, is the check.)
    // Every complementary solution (one per index set).
    const std::vector<VecX<T>> lambdas = complementary_solutions<T>(M2, d2, 1e3 * static_cast<double>(epsilon<T>()) * 1e3);
    if (lambdas.empty()) {
      ++unsolvable;
      ASSERT_EQ(r.lcp.status, LcpResult<T>::NoSolution) << r.lcp.message;
      // The QP of eq. 11.44 finds its constraints inconsistent, with a certificate of its own.
      ASSERT_EQ(r.qp.status, ContactQp<T>::NoSolution) << r.qp.message;
      EXPECT_GE(static_cast<double>(r.qp.certificate.minCoeff()), 0.0);
      EXPECT_LE(max_abs(VecX<T>(r.M * r.qp.certificate)), tol<T>(1e4) * (max_abs(r.M) + 1));
      EXPECT_LT(static_cast<double>(T(r.d.dot(r.qp.certificate))), 0.0);
      // And the QP of eq. 11.43 over λ ≥ 0 is unbounded below, along a certificate of its own.
      ASSERT_EQ(r.force_qp.status, ForceQp<T>::NoSolution) << r.force_qp.message;
      EXPECT_GE(static_cast<double>(r.force_qp.certificate.minCoeff()), 0.0);
      EXPECT_LE(max_abs(VecX<T>(r.M * r.force_qp.certificate)), tol<T>(1e4) * (max_abs(r.M) + 1));
      EXPECT_LT(static_cast<double>(T(r.d.dot(r.force_qp.certificate))), 0.0);
      const VecX<T>& y = r.lcp.certificate;
      EXPECT_GE(static_cast<double>(y.minCoeff()), 0.0);
      EXPECT_LE(max_abs(VecX<T>(r.M * y)), tol<T>(1e4) * (max_abs(r.M) + 1));
      EXPECT_LT(static_cast<double>(T(r.d.dot(y))), 0.0);
      continue;
    }
    ASSERT_EQ(r.lcp.status, LcpResult<T>::Solved) << r.lcp.message;
    ASSERT_EQ(r.qp.status, ContactQp<T>::Solved) << r.qp.message;
    ++solved;
    // Eq. 11.44 by the dual active-set method: the same q̈ and Tλ, and its multipliers give eq.
    // 11.43 the same minimum.
    EXPECT_GE(digits<T>(r.qp.qdd, r.qdd, max_abs(r.qdd_free)), min_digits) << "QP q̈";
    EXPECT_GE(digits<T>(VecX<T>(r.ck.Tn * r.qp.lambda), r.tau_c, max_abs(r.ck.Tn) * max_abs(r.lcp.lambda)), min_digits) << "QP Tλ";
    EXPECT_GE(static_cast<double>(r.qp.lambda.minCoeff()), 0.0);
    const double zfloor = max_abs(r.M) * max_abs(r.lcp.lambda) + max_abs(r.d);
    const double tfloor = max_abs(r.ck.Tn) * max_abs(r.lcp.lambda);
    // Eq. 11.43 by the primal active-set method: the same ζ̇, Tλ and minimum (λ too where unique).
    ASSERT_EQ(r.force_qp.status, ForceQp<T>::Solved) << r.force_qp.message;
    EXPECT_GE(static_cast<double>(r.force_qp.lambda.minCoeff()), 0.0);
    EXPECT_GE(digits<T>(r.force_qp.zeta_dot, r.lcp.zeta_dot, zfloor), min_digits) << "11.43 ζ̇";
    EXPECT_GE(digits<T>(VecX<T>(r.ck.Tn * r.force_qp.lambda), r.tau_c, tfloor), min_digits) << "11.43 Tλ";
    {
      const T f_lcp = T(r.lcp.lambda.dot(r.M * r.lcp.lambda)) / T(2) + r.lcp.lambda.dot(r.d);
      VecX<T> a(1), b(1);
      a << r.force_qp.objective;
      b << f_lcp;
      EXPECT_GE(digits<T>(a, b, zfloor * max_abs(r.lcp.lambda)), min_digits) << "11.43 minimum";
    }
    if (r.lambda_unique) {
      EXPECT_GE(digits<T>(r.force_qp.lambda, r.lcp.lambda, max_abs(r.lcp.lambda)), min_digits) << "11.43 λ";
    }
    for (const VecX<T>& lam : lambdas) {
      EXPECT_GE(digits<T>(r.lcp.zeta_dot, VecX<T>(M2 * lam + d2), zfloor), min_digits) << "ζ̇";
      EXPECT_GE(digits<T>(r.tau_c, VecX<T>(r.ck.Tn * lam), tfloor), min_digits) << "Tλ";
      EXPECT_GE(digits<T>(r.qdd, VecX<T>(fd.qdd + ldlt.solve(VecX<T>(r.ck.Tn * lam))), max_abs(fd.qdd)), min_digits) << "q̈";
      if (r.lambda_unique) {
        EXPECT_GE(digits<T>(r.lcp.lambda, lam), min_digits) << "λ";
      }
    }
    if (!r.lambda_unique) {
      ++nonunique;
      EXPECT_LT(r.rank, nc);
      // Every basic solution listed is a solution, and Lemke's λ is one of them.
      EXPECT_GE(r.basic_solutions.size(), 1u);
      bool found = false;
      for (const VecX<T>& b : r.basic_solutions) {
        EXPECT_GE(static_cast<double>(b.minCoeff()), 0.0);
        EXPECT_GE(static_cast<double>(VecX<T>(r.M * b + r.d).minCoeff()), -tol<T>(1e4) * (zfloor + 1));
        found = found || digits<T>(b, r.lcp.lambda) >= min_digits;
      }
      EXPECT_TRUE(found) << "Lemke's λ is not among the basic solutions";
    } else if (r.rank < nc) {
      ++unique_singular;  // unique although M is singular: every complementary solution above is λ
    }
  }
  EXPECT_GE(solved, n_models / 3);
  EXPECT_GE(nonunique, 1);
  std::cout << "[ contacts ] solved " << solved << ", without solution " << unsolvable << ", λ not unique " << nonunique
            << ", unique with M singular " << unique_singular << "\n";
}

// RBDA example 11.1: a disc (radius ρ = 1/2, mass 2) slides in a slot whose walls, right of the
// line L, are concave arcs of radius R = 5/2 that narrow it. With its centre D on L, the disc
// touches both arcs (φ = 0) with vertical normals n₂ = -n₁, and moving right at v it neither
// approaches nor leaves them (ζ = 0): both contacts are in case 3. M = (1/m) [1 -1; -1 1], and
// each arc's curvature gives d_i = -v² / (R - ρ) (Ṫᵀq̇ = σ |ṙ_⊥|² / |r|, σ = -1 inside), so
// d₁ + d₂ = -2 v² / (R - ρ) < 0: no λ ≥ 0 keeps both ζ̇ ≥ 0, the book's condition. The certificate
// is y ∝ (1, 1). At rest d = 0 and λ = 0 solves it. At bin50 and bin100 (two precisions).
template <class T>
void expect_example_11_1() {
  ModelDesc m;
  m.name = "disc_in_slot";
  m.bodies.push_back(rigid_body("carriage", -1, "x", JointType::Prismatic, N3(1, 0, 0), 0, N3(0, 0, 0), 0, 0, 0));
  m.bodies.push_back(rigid_body("disc", 0, "y", JointType::Prismatic, N3(0, 1, 0), 2, N3(0, 0, 0), 0.1, 0.1, 0.25));
  for (int k = 0; k < 2; ++k) {
    m.bodies[k].where = "bodies[" + std::to_string(k) + "]";
    ContactDesc c;
    c.name = k == 0 ? "upper_arc" : "lower_arc";
    c.where = "contacts[" + std::to_string(k) + "]";
    c.succ = 1;
    c.point = N3(0, 0, 0);
    c.radius = Num::decimal("0.5");
    ContactDesc::Sphere arc;  // the upper arc's circle is centred below D, the lower arc's above
    arc.center = N3(0, k == 0 ? -2.0 : 2.0, 0);
    arc.radius = Num::decimal("2.5");
    arc.inside = true;
    c.sphere = arc;
    m.contacts.push_back(c);
  }
  const Model<T> model = build_model<T>(m);
  const VecX<T> q = VecX<T>::Zero(2), tau = VecX<T>::Zero(2);
  for (const int v : {3, 0}) {
    VecX<T> qd(2);
    qd << T(v), T(0);
    const ContactDynamics<T> r = contact_dynamics<T>(model, q, qd, tau, {}, VecX<T>(), VecX<T>(), ContactSet::Current);
    ASSERT_TRUE(r.ok && r.posed) << r.message;
    EXPECT_EQ(r.cases, (std::vector<std::string>{"3", "3"})) << "v = " << v;
    ASSERT_EQ(r.rigid.size(), 2u);
    const double eps = tol<T>(1000);
    EXPECT_LE(abs(T(r.M(0, 0) - T(1) / T(2))), eps);
    EXPECT_LE(abs(T(r.M(0, 1) + T(1) / T(2))), eps);
    // d_i = -v² / (R - ρ) = -v² / 2
    for (int i = 0; i < 2; ++i) EXPECT_LE(abs(T(r.d(i) + T(v * v) / T(2))), eps) << "v = " << v;
    if (v != 0) {
      ASSERT_EQ(r.lcp.status, LcpResult<T>::NoSolution);
      const VecX<T>& y = r.lcp.certificate;
      EXPECT_LE(abs(T(y(0) - y(1))), eps * max_abs(y));
      EXPECT_GT(y(0), T(0));
      EXPECT_LT(T(r.d.dot(y)), T(0));
    } else {
      ASSERT_EQ(r.lcp.status, LcpResult<T>::Solved);
      EXPECT_LE(max_abs(r.lcp.lambda), eps);
    }
  }
}
TEST(ContactLcp, Example11_1DiscInANarrowingSlotHasNoSolution) {
  expect_example_11_1<bin50>();
  expect_example_11_1<bin100>();
}

TEST(ContactLcp, MatchesEnumerationAtDouble) { check_against_enumeration<double>(8, 120); }
TEST(ContactLcp, MatchesEnumerationAtBin50To40Digits) { check_against_enumeration<bin50>(40, 60); }

// ---- closed forms ----

TYPED_TEST_SUITE(ContactClosedForm, Scalars);

// Box resting on four corners of its bottom face on the ground z = 0 (normal +z), at rest,
// gravity -g z: the contacts hold it, q̈ = 0 and Tλ = C. M has rank 3 (z, roll, pitch), λ is not
// unique; a basic solution has strictly positive λ on independent normals, and with the COM over
// the face's centre the only ones are the two diagonal pairs, λ = mg/2 each.
TYPED_TEST(ContactClosedForm, BoxRestingOnFourCorners) {
  using T = TypeParam;
  const Model<T> m = build_model<T>(box_on_four_corners());
  VecX<T> q = box_resting<T>(), qd = VecX<T>::Zero(6), tau = VecX<T>::Zero(6);
  const ContactDynamics<T> r = contact_dynamics<T>(m, q, qd, tau);
  ASSERT_EQ(r.lcp.status, LcpResult<T>::Solved);
  for (const std::string& c : r.cases) EXPECT_EQ(c, "3");
  EXPECT_EQ(r.rank, 3);
  EXPECT_FALSE(r.lambda_unique);
  EXPECT_LE(max_abs(r.qdd), tol<T>(100));
  const T mg = dec<T>("2.5") * dec<T>("9.81");
  EXPECT_LE(static_cast<double>(abs(T(r.lcp.lambda.sum() - mg))), tol<T>(100) * 25);
  ASSERT_EQ(r.basic_solutions.size(), 2u);
  for (const VecX<T>& b : r.basic_solutions) {
    int pos = 0;
    for (int i = 0; i < 4; ++i)
      if (b(i) > T(0)) {
        ++pos;
        EXPECT_LE(static_cast<double>(abs(T(b(i) - mg / T(2)))), tol<T>(100) * 25);
      }
    EXPECT_EQ(pos, 2);
    EXPECT_TRUE((b(0) > T(0) && b(2) > T(0)) || (b(1) > T(0) && b(3) > T(0))) << "a diagonal pair";
  }
}

// The same box under a roll torque τ_x = 6 N·m, more than its weight can hold (mg b = 4.905 N·m
// with b = 0.2): the edge y = +b lifts and the box starts to roll about the edge y = -b. M is still
// singular (rank 3 of 4), yet λ is unique (§11.5: a singular M may give one solution): ζ̇ > 0 at the
// lifting corners leaves two contacts, whose normals are independent. Closed form (ω = 0): with a_z
// = b α and both edge corners at ζ̇ = 0, α = (τ_x - m g b) / (I_xx + m b²), λ = (m g + m b α) / 2 at
// each edge corner, I_xx = m (b² + c²) / 3, and the lifting corners' ζ̇ = 2 b α.
TYPED_TEST(ContactClosedForm, BoxTippedByARollTorqueHasOneSolution) {
  using T = TypeParam;
  const Model<T> m = build_model<T>(box_on_four_corners());
  VecX<T> q = box_resting<T>(), qd = VecX<T>::Zero(6), tau = VecX<T>::Zero(6);
  tau(0) = T(6);
  const ContactDynamics<T> r = contact_dynamics<T>(m, q, qd, tau);
  ASSERT_EQ(r.lcp.status, LcpResult<T>::Solved);
  EXPECT_EQ(r.rank, 3);
  EXPECT_TRUE(r.lambda_unique);
  // The model's numbers: the corners at the doubles ±0.2, I_xx as box() computes it in double.
  const T mass = T(2.5), g = dec<T>("9.81"), b = T(0.2);
  const T Ixx = T(2.5 * (0.2 * 0.2 + 0.1 * 0.1) / 3);
  const T alpha = (T(6) - mass * g * b) / (Ixx + mass * b * b);
  const T half = (mass * g + mass * b * alpha) / T(2);
  const T want[4] = {T(0), T(0), half, half};
  for (int i = 0; i < 4; ++i) EXPECT_LE(static_cast<double>(abs(T(r.lcp.lambda(i) - want[i]))), tol<T>(1000) * 30) << "corner " << i;
  for (int i = 0; i < 2; ++i) EXPECT_LE(static_cast<double>(abs(T(r.lcp.zeta_dot(i) - T(2) * b * alpha))), tol<T>(1000) * 30) << "corner " << i;
}

// One contact: λ = max(0, -d/M) (§11.1), on random trees, pushing and pulling.
TYPED_TEST(ContactClosedForm, OneContactLambdaIsMinusDOverM) {
  using T = TypeParam;
  int pulled = 0, pushed = 0;
  for (std::uint64_t seed = 300; seed < 330; ++seed) {
    const ModelDesc d = with_random_contacts(random_tree(tree_spec(3), seed), 1, seed, true, false);
    const std::optional<RandomCase<T>> c = buildable_case<T>(d, seed);
    if (!c) continue;
    const ContactDynamics<T> r = contact_dynamics<T>(c->model, c->q, c->qd, c->tau);
    ASSERT_EQ(r.lcp.status, LcpResult<T>::Solved);
    const T want = r.d(0) < T(0) ? T(-r.d(0) / r.M(0, 0)) : T(0);
    (r.d(0) < T(0) ? pushed : pulled)++;
    EXPECT_LE(static_cast<double>(abs(T(r.lcp.lambda(0) - want))), tol<T>(100) * (static_cast<double>(abs(want)) + 1));
  }
  EXPECT_GE(pushed, 5);
  EXPECT_GE(pulled, 5);
}

// A rod of half-length 1 on a revolute joint about z, spinning at ω, its tips x1 = (1, 0, 0) and
// x2 = (-1, 0, 0) against world planes with normals n1 = (1, 1, 0)/√2 and n2 = (-1, 1, 0)/√2.
// t1 = (x1 × n1)_z = 1/√2 = -t2, so M = [m -m; -m m] with m = 1/(2 I), singular; with ẍ^vp = -ω² x,
// d1 + d2 = n1·ẍ1 + n2·ẍ2 = -ω² (n1·x1 + n2·x2) = -√2 ω². For ω ≠ 0 no λ ≥ 0 gives ζ̇ ≥ 0 (the
// analogue of example 11.1's narrowing slot): certificate y = (1, 1). At ω = 0, d1 + d2 = 0 and
// a solution exists.
TYPED_TEST(ContactClosedForm, SpinningRodBetweenTwoPlanesHasNoSolution) {
  using T = TypeParam;
  ModelDesc d;
  d.bodies.push_back(rigid_body("rod", -1, "hinge", JointType::Revolute, N3(0, 0, 1), 1, N3(0, 0, 0), 0.01, 0.3, 0.3));
  d.gravity = N3(0, 0, 0);
  for (int i = 0; i < 2; ++i) d.contacts.push_back(world_contact(i ? "tip2" : "tip1", 0, N3(i ? -1 : 1, 0, 0), N3(i ? -1 : 1, 1, 0)));
  const Model<T> m = build_model<T>(d);
  VecX<T> q(1), qd(1), tau(1);
  q << T(0);
  tau << dec<T>("0.7");
  qd << dec<T>("3");
  ContactDynamics<T> r = contact_dynamics<T>(m, q, qd, tau);
  const T s2 = sqrt(T(2));
  EXPECT_LE(static_cast<double>(abs(T(r.ck.Tn(0, 0) - T(1) / s2))), tol<T>(10));
  EXPECT_LE(static_cast<double>(abs(T(r.ck.Tn(0, 1) + T(1) / s2))), tol<T>(10));
  EXPECT_LE(static_cast<double>(abs(T(r.d(0) + r.d(1) + s2 * T(9)))), tol<T>(1000));
  EXPECT_EQ(r.rank, 1);
  ASSERT_EQ(r.lcp.status, LcpResult<T>::NoSolution);
  ASSERT_EQ(r.qp.status, ContactQp<T>::NoSolution);
  EXPECT_LE(max_abs(VecX<T>(r.qp.certificate - VecX<T>::Ones(2))), tol<T>(100));
  EXPECT_LE(static_cast<double>(abs(T(r.lcp.certificate(0) - T(1)))), tol<T>(100));
  EXPECT_LE(static_cast<double>(abs(T(r.lcp.certificate(1) - T(1)))), tol<T>(100));
  qd << T(0);
  r = contact_dynamics<T>(m, q, qd, tau);
  ASSERT_EQ(r.lcp.status, LcpResult<T>::Solved);
  EXPECT_LE(max_abs(r.qdd), tol<T>(100));  // the planes wedge it: τ is balanced
}

// ---- contact geometry (§11.6) ----

// The minimal contact set of a box lying on the ground. Its face contact is the four corners
// (none is a positive combination of the others: corner 4 = corners 1 - 2 + 3, with a negative
// coefficient). A point at the face's centre (¼ of the corners' normals) and a point in the middle
// of an edge (½ + ½) add nothing and are dropped; of two identical contacts the later is dropped.
// The coefficients of each dropped contact are returned and reproduce its normal.
TYPED_TEST(ContactClosedForm, MinimalContactSetOfALyingBox) {
  using T = TypeParam;
  ModelDesc d = box(0.3, 0.2, 0.1, 2.5);
  const double pts[8][2] = {{0.3, 0.2}, {-0.3, 0.2}, {-0.3, -0.2}, {0.3, -0.2}, {0, 0}, {0, 0.2}, {0.3, 0.2}, {0.1, -0.05}};
  for (int i = 0; i < 8; ++i) d.contacts.push_back(world_contact("p" + std::to_string(i), 0, N3(pts[i][0], pts[i][1], -0.1), N3(0, 0, 1)));
  const Model<T> m = build_model<T>(d);
  VecX<T> q = VecX<T>::Zero(7);
  q(0) = T(1);
  const ContactKinematics<T> ck = contact_kinematics<T>(m, q, VecX<T>::Zero(6));
  const std::vector<int> kept = minimal_contact_set<T>(ck.Tn);
  EXPECT_EQ(kept, std::vector<int>({0, 1, 2, 3}));
  // Each dropped one is a non-negative combination of the corners.
  MatX<T> A(6, 4);
  for (int j = 0; j < 4; ++j) A.col(j) = ck.Tn.col(j);
  for (int i = 4; i < 8; ++i) {
    const PositiveDependence<T> p = positive_dependence<T>(A, VecX<T>(ck.Tn.col(i)));
    EXPECT_TRUE(p.dependent) << i;
    EXPECT_GE(static_cast<double>(p.c.minCoeff()), 0.0);
    EXPECT_LE(max_abs(VecX<T>(A * p.c - ck.Tn.col(i))), tol<T>(1e3));
  }
  // A corner is not a positive combination of the other three.
  for (int i = 0; i < 4; ++i) {
    MatX<T> B(6, 3);
    for (int j = 0, c = 0; j < 4; ++j)
      if (j != i) B.col(c++) = ck.Tn.col(j);
    EXPECT_FALSE(positive_dependence<T>(B, VecX<T>(ck.Tn.col(i))).dependent) << i;
  }
}

}  // namespace
}  // namespace rbd::test
