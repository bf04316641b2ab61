// Point contacts (reference/contact/kinematics.hpp, contact/dynamics.hpp; RBDA §11.1-11.5) against routes
// that do not share their code:
//   * t_i = ∂φ_i/∂q (eq. 11.40), ζ = φ̇ (11.38) and Ṫᵀq̇ = φ̈ - tᵀq̈ (11.39) by central differences
//     along the exact joint flow q ⊕ s q̇ (integrate_q: q̈ = 0 along it), at 100 digits, on random
//     trees with every joint type and random contacts with the world and between bodies, with a
//     gap (φ ≠ 0) and in contact;
//   * T from the body Jacobians (reference/tree/jacobian.hpp, body coordinates) instead of base-frame
//     motion subspaces; M from a dense LDLᵀ of H instead of the tree's sparse LᵀDL; q̈_free from ABA;
//   * the LCP's solutions from enumeration of every complementary index set (here, not the
//     library's), compared on ζ̇, Tλ, q̈ (unique) and on λ where M is positive-definite, at bin50
//     to 40 digits;
//   * closed forms: one contact λ = max(0, -d/M) (§11.1); a box resting on four corners (q̈ = 0,
//     Tλ = C, exactly two basic solutions, λ = mg/2 on either diagonal); a rotating rod between two
//     planes whose normals give t_2 = -t_1 and d_1 + d_2 = -√2 ω² < 0, the analogue of example 11.1
//     (no solution; certificate y = (1, 1)).
#include "checks/random_model.hpp"
#include "reference/tree/aba.hpp"
#include "checks/contact_checks.hpp"
#include "reference/contact/dynamics.hpp"
#include "reference/contact/geometry.hpp"
#include "reference/contact/impulse.hpp"
#include "reference/contact/simulation.hpp"
#include "reference/contact/soft.hpp"
#include "reference/tree/integrate.hpp"
#include "reference/tree/jacobian.hpp"
#include "tests/test_util.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace rbd::test {
namespace {

template <class T>
T dec(const char* s) {
  return from_decimal<T>(s);
}

Num3 N3(double a, double b, double c) { return {Num::exact(a), Num::exact(b), Num::exact(c)}; }

// Random contacts on a random tree: half with the world (normal in world coordinates), half
// between two random bodies, every one with a surface point (so φ is a function of q).
ModelDesc with_random_contacts(ModelDesc d, int count, std::uint64_t seed, bool world_only, bool gap) {
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

// A tree whose contacts all build (a contact whose two sides merge into one body is refused by
// build_model; such draws are skipped).
template <class T>
bool build(const ModelDesc& d, Model<T>& m) {
  try {
    m = build_model<T>(d);
    return true;
  } catch (const ModelError&) {
    return false;
  }
}

// ---- kinematics ----

TEST(ContactKinematics, NormalGapRateAndVelocityProductTermByFiniteDifferences) {
  using T = bin100;
  int checked = 0;
  for (std::uint64_t seed = 1; seed <= 24; ++seed) {
    TreeSpec spec;
    spec.nb = 3 + static_cast<int>(seed % 5);
    spec.branching = seed % 2 ? 1.0 : 2.0;
    spec.floating_base = seed % 3 == 0;
    const ModelDesc d = with_random_contacts(random_tree(spec, seed), 4, seed * 7 + 1, false, true);
    Model<T> m;
    if (!build<T>(d, m)) continue;
    const RandomState st = random_state(build_model<double>(d), seed, 2.0);
    const VecX<T> q = exact_vec<T>(st.q), qd = exact_vec<T>(st.qd);
    const ContactKinematics<T> ck = contact_kinematics<T>(m, q, qd);
    SCOPED_TRACE("seed " + std::to_string(seed));
    const double scale = max_abs(ck.Tn) + max_abs(ck.Tdot_qd) + 1;
    // ζ from the point velocities equals Tᵀq̇ from the motion subspaces (eq. 11.28).
    EXPECT_LE(max_abs(VecX<T>(ck.Tn.transpose() * qd - ck.zeta)), 1e-90 * scale);
    // t_i = ∂φ_i/∂q along each DoF's flow; φ̇ = ζ and φ̈ = Ṫᵀq̇ along q̇'s flow (q̈ = 0).
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
    // ζ̇ along the flow (the rate of tᵀq̇ with q̇ held: q̈ = 0) is Ṫᵀq̇ too.
    const VecX<T> zp = contact_kinematics<T>(m, integrate_q<T>(m, q, qd, h), qd).zeta;
    const VecX<T> zm = contact_kinematics<T>(m, integrate_q<T>(m, q, qd, T(-h)), qd).zeta;
    EXPECT_LE(max_abs(VecX<T>((zp - zm) / (T(2) * h) - ck.Tdot_qd)), 1e-45 * scale) << "ζ̇ = Ṫᵀq̇";
    ++checked;
  }
  EXPECT_GE(checked, 18);
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

template <class T>
struct Enumerated {
  std::vector<VecX<T>> lambdas;  // every complementary solution found (one per index set)
};

template <class T>
Enumerated<T> enumerate(const MatX<T>& M, const VecX<T>& d, double tol_rel) {
  const int n = static_cast<int>(d.size());
  const double scale = std::max(1.0, std::max(max_abs(M), max_abs(d)));
  Enumerated<T> out;
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    std::vector<int> S;
    for (int i = 0; i < n; ++i)
      if (mask & (1u << i)) S.push_back(i);
    VecX<T> lambda = VecX<T>::Zero(n);
    if (!S.empty()) {
      MatX<T> MSS(S.size(), S.size());
      VecX<T> dS(S.size());
      for (size_t a = 0; a < S.size(); ++a) {
        dS(a) = -d(S[a]);
        for (size_t b = 0; b < S.size(); ++b) MSS(a, b) = M(S[a], S[b]);
      }
      const VecX<T> x = MSS.completeOrthogonalDecomposition().solve(dS);
      if (max_abs(VecX<T>(MSS * x - dS)) > tol_rel * scale) continue;
      for (size_t a = 0; a < S.size(); ++a) lambda(S[a]) = x(a);
    }
    const VecX<T> w = M * lambda + d;
    bool ok = true;
    for (int i = 0; i < n; ++i) ok = ok && lambda(i) >= T(-tol_rel * scale) && w(i) >= T(-tol_rel * scale);
    if (ok) out.lambdas.push_back(lambda);
  }
  return out;
}

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
  int solved = 0, unsolvable = 0, nonunique = 0;
  for (std::uint64_t seed = 100; seed < 100 + static_cast<std::uint64_t>(n_models); ++seed) {
    TreeSpec spec;
    spec.nb = 2 + static_cast<int>(seed % 6);
    spec.branching = seed % 2 ? 1.0 : 2.0;
    spec.floating_base = seed % 4 == 0;
    const int nc = 1 + static_cast<int>(seed % 7);
    const ModelDesc d = with_random_contacts(random_tree(spec, seed), nc, seed * 3 + 5, seed % 3 != 0, false);
    Model<T> m;
    if (!build<T>(d, m)) continue;
    const RandomState st = random_state(build_model<double>(d), seed, 1.5);
    const VecX<T> q = exact_vec<T>(st.q), qd = exact_vec<T>(st.qd), tau = exact_vec<T>(st.tau);
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
    // Symmetric PSD by construction.
    EXPECT_EQ(max_abs(MatX<T>(r.M - r.M.transpose())), 0.0);
    const Enumerated<T> en = enumerate<T>(M2, d2, 1e3 * static_cast<double>(epsilon<T>()) * 1e3);
    if (en.lambdas.empty()) {
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
    for (const VecX<T>& lam : en.lambdas) {
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
    } else {
      EXPECT_EQ(r.rank, nc);
    }
  }
  EXPECT_GE(solved, n_models / 3);
  EXPECT_GE(nonunique, 1);
  std::cout << "[ contacts ] solved " << solved << ", without solution " << unsolvable << ", λ not unique " << nonunique << "\n";
}

TEST(ContactLcp, MatchesEnumerationAtDouble) { check_against_enumeration<double>(8, 120); }
TEST(ContactLcp, MatchesEnumerationAtBin50To40Digits) { check_against_enumeration<bin50>(40, 60); }

// ---- closed forms ----

// One free body (a box 2a x 2b x 2c, mass m, COM at its frame origin) on a free joint.
ModelDesc box(double a, double b, double c, double mass) {
  ModelDesc d;
  d.name = "box";
  BodyDesc bd;
  bd.name = "box";
  bd.where = "bodies[0]";
  bd.joint.name = "root";
  bd.joint.type = JointType::Free;
  bd.inertial.mass = Num::exact(mass);
  bd.inertial.I = {Num::exact(mass * (b * b + c * c) / 3), Num::exact(mass * (a * a + c * c) / 3),
                   Num::exact(mass * (a * a + b * b) / 3), Num::exact(0), Num::exact(0), Num::exact(0)};
  d.bodies.push_back(bd);
  return d;
}

template <class T>
class ContactClosedForm : public ::testing::Test {};
TYPED_TEST_SUITE(ContactClosedForm, Scalars);

// Box resting on four corners of its bottom face on the ground z = 0 (normal +z), at rest,
// gravity -g z: the contacts hold it, q̈ = 0 and Tλ = C. M has rank 3 (z, roll, pitch), λ is not
// unique; a basic solution has strictly positive λ on independent normals, and with the COM over
// the face's centre the only ones are the two diagonal pairs, λ = mg/2 each.
TYPED_TEST(ContactClosedForm, BoxRestingOnFourCorners) {
  using T = TypeParam;
  ModelDesc d = box(0.3, 0.2, 0.1, 2.5);
  const double cx[4] = {0.3, -0.3, -0.3, 0.3}, cy[4] = {0.2, 0.2, -0.2, -0.2};
  for (int i = 0; i < 4; ++i) {
    ContactDesc c;
    c.name = "corner" + std::to_string(i);
    c.succ = 0;
    c.point = N3(cx[i], cy[i], -0.1);
    c.normal = N3(0, 0, 1);
    d.contacts.push_back(c);
  }
  const Model<T> m = build_model<T>(d);
  VecX<T> q = VecX<T>::Zero(7), qd = VecX<T>::Zero(6), tau = VecX<T>::Zero(6);
  q(0) = T(1);
  q(6) = dec<T>("0.1");
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

// One contact: λ = max(0, -d/M) (§11.1), on random trees, pushing and pulling.
TYPED_TEST(ContactClosedForm, OneContactLambdaIsMinusDOverM) {
  using T = TypeParam;
  int pulled = 0, pushed = 0;
  for (std::uint64_t seed = 300; seed < 330; ++seed) {
    TreeSpec spec;
    spec.nb = 3;
    const ModelDesc d = with_random_contacts(random_tree(spec, seed), 1, seed, true, false);
    Model<T> m;
    if (!build<T>(d, m)) continue;
    const RandomState st = random_state(build_model<double>(d), seed);
    const ContactDynamics<T> r = contact_dynamics<T>(m, exact_vec<T>(st.q), exact_vec<T>(st.qd), exact_vec<T>(st.tau));
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
  BodyDesc bd;
  bd.name = "rod";
  bd.joint.name = "hinge";
  bd.joint.type = JointType::Revolute;
  bd.joint.axis = N3(0, 0, 1);
  bd.inertial.mass = Num::exact(1);
  bd.inertial.I = {Num::exact(0.01), Num::exact(0.3), Num::exact(0.3), Num::exact(0), Num::exact(0), Num::exact(0)};
  d.bodies.push_back(bd);
  d.gravity = N3(0, 0, 0);
  for (int i = 0; i < 2; ++i) {
    ContactDesc c;
    c.name = i ? "tip2" : "tip1";
    c.succ = 0;
    c.point = N3(i ? -1 : 1, 0, 0);
    c.normal = N3(i ? -1 : 1, 1, 0);
    d.contacts.push_back(c);
  }
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

// ---- impulsive dynamics (§11.7) ----

// Two free bodies (random inertias, random poses and velocities) colliding at one contact between
// them: the system's impulse is eq. 11.65, λ = -(1 + e) n̂·(v₂ - v₁) / n̂·(I₁⁻¹ + I₂⁻¹)n̂ with the
// bodies' spatial inertias and velocities in base coordinates; and with friction, the sticking
// impact is eq. 11.72 with N = [n̂_x n̂_y n̂_z] (the same tangent directions as contact_kinematics).
TYPED_TEST(ContactClosedForm, TwoBodyImpactIsEquation11_65And11_72) {
  using T = TypeParam;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    TreeSpec spec;
    spec.nb = 2;
    spec.branching = 2.0;  // both bodies on the base
    spec.joints = {JointType::Free};
    ModelDesc d = random_tree(spec, seed);
    d.bodies[1].parent = -1;
    d.bodies[0].joint.type = d.bodies[1].joint.type = JointType::Free;
    d.gravity = N3(0, 0, 0);
    ContactDesc c;
    c.name = "hit";
    c.pred = 0;
    c.succ = 1;
    c.point = N3(0.1, -0.2, 0.3);
    c.normal = N3(0.3, 0.5, -0.8);
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
    TreeSpec spec;
    spec.nb = seed == 11 ? 1 : 5;
    spec.floating_base = true;
    const ModelDesc d = random_tree(spec, seed);
    const Model<T> m = build_model<T>(d);
    const RandomState st = random_state(build_model<double>(d), seed);
    const VecX<T> q = exact_vec<T>(st.q), qd = exact_vec<T>(st.qd);
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
// (momentum balance, restitution, complementarity; kinetic energy does not increase with one e,
// and is conserved at e = 1), at double and bin50. Planted once: restitution dropped from d (70 of
// 208 checks fail), the impulse's sign flipped (71 of 208).
template <class T>
class ContactImpactProperties : public ::testing::Test {};
TYPED_TEST_SUITE(ContactImpactProperties, Scalars);

TYPED_TEST(ContactImpactProperties, MomentumRestitutionAndEnergy) {
  using T = TypeParam;
  int checked = 0, gained = 0;
  for (std::uint64_t seed = 400; seed < 440; ++seed) {
    TreeSpec spec;
    spec.nb = 2 + static_cast<int>(seed % 5);
    spec.floating_base = seed % 2 == 0;
    ModelDesc d = with_random_contacts(random_tree(spec, seed), 1 + static_cast<int>(seed % 4), seed, seed % 3 == 0, false);
    const double e = seed % 5 == 0 ? 1.0 : (seed % 7) / 7.0;
    for (ContactDesc& c : d.contacts) c.restitution = Num::exact(e);
    Model<T> m;
    if (!build<T>(d, m)) continue;
    const RandomState st = random_state(build_model<double>(d), seed, 2.0);
    const VecX<T> q = exact_vec<T>(st.q), qd = exact_vec<T>(st.qd);
    SCOPED_TRACE("seed " + std::to_string(seed) + ", e = " + std::to_string(e));
    const std::vector<CheckResult> cs = check_impact<T>(m, q, qd);
    bool conserved = false;
    for (const CheckResult& c : cs) {
      EXPECT_TRUE(c.passed) << c.message();
      conserved = conserved || c.name == "impact.kinetic_energy_conserved";
    }
    EXPECT_EQ(conserved, e == 1.0);
    const ContactImpact<T> r = contact_impact<T>(m, q, qd);
    ASSERT_TRUE(r.ok);
    gained += r.lambda.sum() > T(0);
    // The closed form of the energy change with one e.
    const T dT = r.kinetic_plus - r.kinetic_minus;
    const T closed = -(T(1) - T(e)) / (T(2) * (T(1) + T(e))) * r.lambda.dot(VecX<T>(r.ck.Tn.transpose() * r.dqd));
    EXPECT_LE(static_cast<double>(abs(T(dT - closed))), tol<T>(1e4) * (static_cast<double>(r.kinetic_minus) + 1));
    ++checked;
  }
  EXPECT_GE(checked, 30);
  EXPECT_GE(gained, 10);  // most draws collide
}

// ---- soft contact (§11.8) ----

// One soft contact between a free body's point and the ground, with friction: the rules of eqs.
// 11.73-11.79 case by case from their closed forms (touching and pressing; touching and pulling
// away, f_n clipped to 0; separated from a relaxing surface; sticking; slipping), the dissipation
// W ≥ 0 and equal to D ż² + D_t|ẋ|² + f_tᵀ(ẋ - v), and every soft.* check.
TYPED_TEST(ContactClosedForm, SoftContactRules) {
  using T = TypeParam;
  ModelDesc d = box(0.3, 0.2, 0.1, 2.5);
  ContactDesc c;
  c.name = "pad";
  c.succ = 0;
  c.point = N3(0.3, 0.2, -0.1);
  c.normal = N3(0, 0, 1);
  c.surface = N3(0, 0, 0);
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
    TreeSpec spec;
    spec.nb = 2 + static_cast<int>(seed % 5);
    spec.floating_base = seed % 2 == 0;
    ModelDesc d = with_random_contacts(random_tree(spec, seed), 2 + static_cast<int>(seed % 3), seed, true, true);
    for (size_t i = 0; i < d.contacts.size(); ++i)
      if (i % 2 == 0 || seed % 5 == 0) {
        d.contacts[i].stiffness = Num::exact(500.0 + 100.0 * static_cast<double>(i));
        d.contacts[i].damping = Num::exact(20);
        d.contacts[i].friction = Num::exact(0.7);
      }
    Model<T> m;
    if (!build<T>(d, m)) continue;
    const RandomState st = random_state(build_model<double>(d), seed, 1.0);
    const VecX<T> q = exact_vec<T>(st.q), qd = exact_vec<T>(st.qd), tau = exact_vec<T>(st.tau);
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
  for (int i = 0; i < 8; ++i) {
    ContactDesc c;
    c.name = "p" + std::to_string(i);
    c.succ = 0;
    c.point = N3(pts[i][0], pts[i][1], -0.1);
    c.normal = N3(0, 0, 1);
    d.contacts.push_back(c);
  }
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
  ContactDesc c;
  c.name = "bottom";
  c.succ = 0;
  c.point = N3(0, 0, -0.1);
  c.normal = N3(0, 0, 1);
  c.surface = N3(0, 0, 0);
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

// A slider (prismatic along -gravity) resting on the ground, carrying an eccentric rotor spinning
// about a horizontal axis: the ground's reaction λ = (M + m) g + m ω² r sin θ (+ the rotor's angular
// acceleration term) falls as the mass swings up; when it would turn negative, the event is located
// where λ = 0 (to the bisection's precision) and the contact leaves both sets (step 6 of table 11.1).
TYPED_TEST(ContactClosedForm, NegativeContactForceEventWhereLambdaVanishes) {
  using T = TypeParam;
  ModelDesc d;
  BodyDesc slider;
  slider.name = "slider";
  slider.joint.name = "lift";
  slider.joint.type = JointType::Prismatic;
  slider.joint.axis = N3(0, 0, 1);
  slider.inertial.mass = Num::exact(1);
  slider.inertial.I = {Num::exact(0.01), Num::exact(0.01), Num::exact(0.01), Num::exact(0), Num::exact(0), Num::exact(0)};
  d.bodies.push_back(slider);
  BodyDesc rotor;
  rotor.name = "rotor";
  rotor.parent = 0;
  rotor.joint.name = "spin";
  rotor.joint.type = JointType::Revolute;
  rotor.joint.axis = N3(0, 1, 0);
  rotor.inertial.mass = Num::exact(0.5);
  rotor.inertial.com = N3(0.2, 0, 0);
  rotor.inertial.I = {Num::exact(0.001), Num::exact(0.001), Num::exact(0.001), Num::exact(0), Num::exact(0), Num::exact(0)};
  d.bodies.push_back(rotor);
  ContactDesc c;
  c.name = "foot";
  c.succ = 0;
  c.point = N3(0, 0, 0);
  c.normal = N3(0, 0, 1);
  c.surface = N3(0, 0, 0);
  d.contacts.push_back(c);
  const Model<T> m = build_model<T>(d);
  VecX<T> q = VecX<T>::Zero(2), qd = VecX<T>::Zero(2);
  qd(1) = T(20);  // m ω² r = 0.5·400·0.2 = 40 N > (M + m) g ≈ 14.7 N
  const ContactTrajectory<T> tr = simulate_contacts<T>(m, q, qd, VecX<T>::Zero(2), T(0.01), 20, StepMethod::Heun);
  ASSERT_TRUE(tr.ok) << tr.message;
  ASSERT_FALSE(tr.events.empty());
  EXPECT_EQ(tr.events[0].kind, ContactEvent<T>::NegativeForce);
  EXPECT_EQ(tr.active[0], std::vector<int>({0}));
  // At the event's state, λ of the active contact is at zero within the bisection's reach.
  size_t k = 0;
  while (k < tr.t.size() && tr.t[k] < tr.events[0].time) ++k;
  ASSERT_LT(k, tr.t.size());
  const ContactDynamics<T> r = contact_dynamics<T>(m, tr.q[k], tr.qd[k], VecX<T>::Zero(2));
  const T scale = T(14.7);
  const T lam = -r.d(0) / r.M(0, 0);  // the contact's force were it held (ζ̇ = 0)
  const double reach = std::is_same<T, double>::value ? 1e-9 : 1e-35;
  EXPECT_LE(static_cast<double>(abs(lam)) / static_cast<double>(scale), reach);
  EXPECT_TRUE(tr.active[k].empty());
}

}  // namespace
}  // namespace rbd::test
