// Closed-loop systems beyond the parallelogram (RBDA ch. 8):
//
// 1. Random loop models (property tests, double and bin50): a random tree (checks/random_model.hpp)
//    closed by 1-3 random loop joints of random types between random bodies. The loops are closed
//    by construction at a random q: X_P is random, and X_S = X_J(q_J) X_P ^pX_0 (^sX_0)⁻¹ for a
//    random loop-joint position q_J, computed in the working precision, so sXp = X_J exactly up to
//    rounding (δ ~ ε). q̇ is projected onto null(K) (assemble()). Cases whose random loops give a
//    rank-deficient or badly conditioned K are discarded (a random closure that is not generically
//    mobile has an inconsistent k: that is a property of the mechanism, tested on the bundled
//    models instead); in half the cases (even loop seed) the first loop joint is then repeated in
//    a turned joint frame, so rank K < n^c with k consistent, and every check must still pass.
//    Besides every check of checks/loop_checks.hpp, two identities with independent routes:
//      (a) d/dt δ(q ⊕ t q̇) = K q̇ at t = 0 for any q̇ (δ from transforms, table 8.1; K from
//          motion subspaces and ε, table 8.4): catches a wrong ε or S in K;
//      (b) d/dt [K(q ⊕ t q̇) q̇] = -k at t = 0 (the constant-velocity flow has q̈ = 0, so the rate
//          of T_kᵀ v_J is the velocity-product part only): catches a wrong k (eq. 8.47).
//    Both by a 4th-order central difference (steps 1e-3 at double, 1e-10 at bin50).
// 2. The bundled loop models (fixtures/models/loops): assembled states are consistent, rank and
//    mobility are the mechanism's, the checks pass at double and bin50, URDF + loops file and the
//    canonical version-2 JSON give identical numbers.
// 3. Assembly: from the sketched starts, Newton converges quadratically to the last digits.
// 4. Fig. 8.3's closed-form γ, G, g (tests/loop_closure_fig83.hpp) against §8.8 (§8.12's inverse
//    dynamics, §8.9's clusters and §8.6's active loop joints: tests/loop_sections_test.cpp).
// 5. The 1 km four-bar: base-frame K, k lose digits, loop-local ones do not.
#include "certify/evaluate.hpp"
#include "checks/loop_checks.hpp"
#include "checks/properties.hpp"
#include "checks/random_model.hpp"
#include "io/model_io.hpp"
#include "io/state_io.hpp"
#include "reference/loops/active.hpp"
#include "reference/loops/assembly.hpp"
#include "reference/loops/clusters.hpp"
#include "reference/loops/fd_clustered.hpp"
#include "tests/loop_closure_fig83.hpp"
#include "reference/loops/fd_kkt.hpp"
#include "reference/loops/fd_lambda.hpp"
#include "reference/loops/fd_projection.hpp"
#include "reference/loops/inverse_dynamics.hpp"
#include "reference/tree/rnea.hpp"
#include "reference/tree/crba.hpp"
#include "reference/tree/integrate.hpp"
#include "reference/loops/constraints.hpp"
#include "reference/loops/gauss.hpp"
#include "tests/loop_bundled.hpp"
#include "tests/test_util.hpp"
#include "tests/tree_cases.hpp"

#include <rapidcheck/gtest.h>

#include <Eigen/SVD>

#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace rbd::test {
namespace {

// ---- 1. random loop models ------------------------------------------------------------------

struct LoopCase {
  TreeSpec spec;
  std::uint64_t model_seed = 0, state_seed = 0, loop_seed = 0;
  int loops = 1;
};

rc::Gen<LoopCase> gen_loop_case() {
  return rc::gen::apply(
      [](int nb, int bf10, bool floating, int nl, std::uint64_t ms, std::uint64_t ss, std::uint64_t ls) {
        return LoopCase{tree_spec(nb, bf10 / 10.0, floating), ms, ss, ls, nl};
      },
      rc::gen::inRange(3, 11), rc::gen::inRange(10, 31), rc::gen::arbitrary<bool>(), rc::gen::inRange(1, 4),
      // Seeds do not shrink: a smaller seed is not a simpler model, and shrinking through them
      // only repeats the case thousands of times.
      rc::gen::noShrink(rc::gen::arbitrary<std::uint64_t>()), rc::gen::noShrink(rc::gen::arbitrary<std::uint64_t>()),
      rc::gen::noShrink(rc::gen::arbitrary<std::uint64_t>()));
}

template <class T>
struct LoopInstance {
  Model<T> model;
  VecX<T> q, qd, qd_raw, tau;
};

// Closes `nl` random loops on the tree at q (see the file comment). Loop types: every jcalc type
// but free (which imposes nothing).
template <class T>
void close_random_loops(Model<T>& m, const VecX<T>& q, int nl, std::uint64_t seed, bool redundant = false) {
  std::mt19937_64 g(seed);
  auto U = [&](double a, double b) { return T(std::uniform_real_distribution<double>(a, b)(g)); };
  const TreeKinematics<T> kin = kinematics<T>(m, q, VecX<T>::Zero(m.nv));
  const JointType types[] = {JointType::Revolute, JointType::Prismatic, JointType::Helical, JointType::Cylindrical,
                             JointType::Planar,   JointType::Spherical, JointType::Fixed};
  for (int l = 0; l < nl; ++l) {
    LoopJoint<T> lj;
    lj.name = "loop" + std::to_string(l);
    const int nb = m.NB;
    lj.s = static_cast<int>(g() % static_cast<std::uint64_t>(nb));
    lj.p = static_cast<int>(g() % static_cast<std::uint64_t>(nb)) - 1;  // -1 (the base) .. nb - 2
    if (lj.p == lj.s) lj.p = -1;
    lj.joint.type = types[g() % 7];
    Vec3<T> a(U(-1, 1), U(-1, 1), U(-1, 1));
    a /= a.norm();
    lj.joint.axis = a;
    Vec3<T> u = a.cross(Vec3<T>(T(0), T(0), T(1)));
    if (u.norm() < T(1) / T(10)) u = a.cross(Vec3<T>(T(1), T(0), T(0)));
    lj.joint.u = u / u.norm();
    // |pitch| ≥ 0.05: a helical joint's turn is read from its translation (docs/loops.md), so δ is
    // smooth only within π |pitch| of translation of the manifold; a near-zero pitch would make the
    // finite differences below cross a turn.
    lj.joint.pitch = U(0.05, 0.3) * (g() % 2 ? T(1) : T(-1));
    Vec3<T> ax(U(-1, 1), U(-1, 1), U(-1, 1));
    const Xform<T> XP(axis_angle<T>(Vec3<T>(ax / ax.norm()), U(-3, 3)), Vec3<T>(U(-0.5, 0.5), U(-0.5, 0.5), U(-0.5, 0.5)));
    // A random joint position q_J (unit quaternion for spherical).
    const int nqj = joint_nq(lj.joint.type), nvj = joint_nv(lj.joint.type);
    std::vector<T> qj(static_cast<size_t>(nqj)), vj(static_cast<size_t>(nvj), T(0));
    for (auto& x : qj) x = U(-1, 1);
    if (lj.joint.type == JointType::Spherical) {
      using std::sqrt;
      T n(0);
      for (auto& x : qj) n += x * x;
      for (auto& x : qj) x /= sqrt(n);
    }
    const Xform<T> XJ = jcalc<T>(lj.joint, qj.data(), vj.data()).XJ;
    const Xform<T> X0p = lj.p < 0 ? Xform<T>() : kin.X0[lj.p];
    lj.XP = XP;
    lj.XS = XJ * XP * X0p * kin.X0[lj.s].inverse();
    lj.nc = 6 - nvj;
    lj.row = m.nc;
    m.nc += lj.nc;
    m.loops.push_back(lj);
  }
  // Redundant constraints: the first loop joint again, its joint frame turned by a random
  // rotation E on both sides (X_P' = rot(E) X_P, X_S' = rot(E) X_S, axis' = E axis): the same
  // constraint in another basis, so K gains rows that are combinations of the first loop's,
  // rank K < n^c, and k stays consistent.
  if (redundant && !m.loops.empty()) {
    LoopJoint<T> lj = m.loops[0];
    Vec3<T> ax(U(-1, 1), U(-1, 1), U(-1, 1));
    const Mat3<T> E = axis_angle<T>(Vec3<T>(ax / ax.norm()), U(-3, 3));
    lj.name += "_again";
    lj.XP = Xform<T>::rot(E) * lj.XP;
    lj.XS = Xform<T>::rot(E) * lj.XS;
    lj.joint.axis = E * lj.joint.axis;
    lj.joint.u = E * lj.joint.u;
    lj.row = m.nc;
    m.nc += lj.nc;
    m.loops.push_back(lj);
  }
}

// nullopt when the case is discarded (K rank deficient or badly conditioned at double).
template <class T>
std::optional<LoopInstance<T>> make_loop_instance(const LoopCase& c) {
  const ModelDesc d = random_tree(c.spec, c.model_seed);
  const Model<double> md = build_model<double>(d);
  const RandomState s = random_state(md, c.state_seed);
  // Decide the case at double, so both precisions test the same cases.
  {
    Model<double> m = md;
    close_random_loops<double>(m, exact_vec<double>(s.q), c.loops, c.loop_seed);
    if (m.nc == 0 || m.nc >= m.nv) return std::nullopt;
    const MatX<double> K = loop_constraints<double>(m, exact_vec<double>(s.q), VecX<double>::Zero(m.nv)).K;
    const Eigen::JacobiSVD<MatX<double>> svd(K);
    const VecX<double> sv = svd.singularValues();
    if (sv(sv.size() - 1) < 1e-3 * sv(0)) return std::nullopt;
  }
  LoopInstance<T> in;
  in.model = build_model<T>(d);
  in.q = exact_vec<T>(s.q);
  close_random_loops<T>(in.model, in.q, c.loops, c.loop_seed, c.loop_seed % 2 == 0);
  in.qd_raw = exact_vec<T>(s.qd);
  in.qd = assemble<T>(in.model, in.q, in.qd_raw).qd;
  in.tau = exact_vec<T>(s.tau);
  return in;
}

// Central difference of order 4 of f at 0 with step h.
template <class T, class F>
VecX<T> rate(F f, const T& h) {
  return (T(8) * (f(h) - f(T(-h))) - (f(T(2) * h) - f(T(-2 * h)))) / (T(12) * h);
}

template <class T>
void loop_property(const LoopCase& c) {
  const std::optional<LoopInstance<T>> in = make_loop_instance<T>(c);
  RC_PRE(in.has_value());
  const Model<T>& m = in->model;
  const bool is_double = std::is_same<T, double>::value;
  const bool redundant = c.loop_seed % 2 == 0;
  RC_CLASSIFY(redundant, "redundant (rank K < n^c)");
  if (redundant) {
    const NullSpaceSolution<T> ns = null_space_solution<T>(loop_constraints<T>(m, in->q, in->qd).K, VecX<T>::Zero(m.nc));
    RC_ASSERT(ns.rank < m.nc);
  }
  // Every loop check of the library.
  for (const CheckResult& r : check_loops<T>(m, in->q, in->qd, in->tau)) {
    if (!r.passed)
      RC_FAIL(r.name + ": residual " + to_decimal(r.residual, 3) + " > tolerance " + to_decimal(r.tolerance, 3) + " (" +
              r.detail + ")");
  }
  const T h = is_double ? T(1) / T(1000) : T(1) / T(10000000000LL);
  const double tolfd = is_double ? 1e-7 : 1e-30;
  // (a) the rate of δ along any q̇ is K q̇ (δ = 0 at q).
  const LoopConstraints<T> lc = loop_constraints<T>(m, in->q, in->qd_raw);
  const VecX<T> ddelta = rate<T>([&](const T& t) { return loop_constraints<T>(m, integrate_q<T>(m, in->q, in->qd_raw, t), in->qd_raw).delta; }, h);
  const double sa = max_abs(VecX<T>(lc.K * in->qd_raw)) + 1;
  std::string types;
  for (const LoopJoint<T>& lj : m.loops) types += std::string(joint_type_name(lj.joint.type)) + " ";
  RC_LOG() << "loop joint types: " << types << "\n";
  RC_ASSERT(max_abs(VecX<T>(ddelta - lc.K * in->qd_raw)) <= tolfd * sa);
  // (b) the rate of K q̇ along the constant-velocity flow is -k.
  const VecX<T> dkv = rate<T>([&](const T& t) { return loop_constraints<T>(m, integrate_q<T>(m, in->q, in->qd_raw, t), in->qd_raw).vel_error; }, h);
  const double sb = max_abs(lc.k) + 1;
  RC_ASSERT(max_abs(VecX<T>(dkv + lc.k)) <= tolfd * sb);
}

RC_GTEST_PROP(LoopProperties, RandomClosures_double, ()) { loop_property<double>(*gen_loop_case()); }
RC_GTEST_PROP(LoopPropertiesSlow, RandomClosures_bin50, ()) { loop_property<bin50>(*gen_loop_case()); }

// ---- 2. bundled loop models -------------------------------------------------------------------

template <class T>
class BundledLoops : public ::testing::Test {};
TYPED_TEST_SUITE(BundledLoops, Scalars, ScalarName);

TYPED_TEST(BundledLoops, AssembledStatesAreConsistentAndChecksPass) {
  using T = TypeParam;
  for (const BundledLoop& b : kBundledLoops) {
    SCOPED_TRACE(b.name);
    const LoadedModel lm = load_bundled(b, false);
    const Model<T> m = build_model<T>(lm.desc);
    const StateDesc st = bundled_state(b, lm.desc);
    const VecX<T> q = to_vec<T>(st.q), qd = to_vec<T>(st.qd), tau = to_vec<T>(st.tau);
    ASSERT_EQ(m.nv, b.n);
    ASSERT_EQ(m.nc, b.nc);
    const LoopConstraints<T> lc = loop_constraints<T>(m, q, qd);
    const NullSpaceSolution<T> ns = null_space_solution<T>(lc.K, lc.k);
    EXPECT_EQ(ns.rank, b.rank);
    EXPECT_EQ(m.nv - ns.rank, b.mobility);
    // On the manifold to the working precision (the states carry 100 digits).
    EXPECT_LE(max_abs(lc.delta), tol<T>(1e4) * 1e3);
    EXPECT_LE(max_abs(lc.vel_error), tol<T>(1e4) * (max_abs(lc.K) * max_abs(qd) + 1));
    for (const CheckResult& r : check_loops<T>(m, q, qd, tau)) EXPECT_TRUE(r.passed) << r.name << ": " << r.residual << " > " << r.tolerance << " " << r.detail;
  }
}

// Off the closure manifold (each mechanism's state displaced by 0.03-0.09 along every joint, with
// its q̇, and Baumgarte α = β = 5) k + k_stab need not be in range(K): the three methods of §8.5
// must solve the
// same least-squares constraint K q̈ = P (k + k_stab), P the orthogonal projector onto range(K),
// here from an SVD of K (a route none of the methods takes), and agree on q̈. Each mechanism also
// with its closure shifted out of its plane (with_shifted_closure): at least three of these
// must be inconsistent, so the least-squares branch is exercised on real mechanisms. (Their
// inconsistent rows are rows K leaves empty, where the pivot rows already are least squares;
// dependent rows that are not empty are Loops.InconsistentConstraintsAreLeastSquaresInAllThreeMethods.)
TYPED_TEST(BundledLoops, OffTheClosureTheThreeMethodsSolveOneLeastSquares) {
  using T = TypeParam;
  const bool dbl = std::is_same<T, double>::value;
  int inconsistent = 0;
  for_each_off_closure<T>([&](const Model<T>& m, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau,
                              const LoopConstraints<T>& lc) {
    const VecX<T> rhs = lc.k + lc.k_stab;
    const MatX<T> H = crba<T>(m, q);
    const VecX<T> tp = tau - bias<T>(m, q, qd);
    Eigen::JacobiSVD<MatX<T>> svd(lc.K, Eigen::ComputeThinU);
    const VecX<T> sv = svd.singularValues();
    int r = 0;
    while (r < sv.size() && sv(r) > T(1000) * T(std::max(lc.K.rows(), lc.K.cols())) * epsilon<T>() * sv(0)) ++r;
    const MatX<T> U = svd.matrixU().leftCols(r);
    const VecX<T> Prhs = U * VecX<T>(U.transpose() * rhs);
    const double scale = max_abs(lc.K) * 10 + max_abs(rhs);
    if (max_abs(VecX<T>(rhs - Prhs)) > 1e-6 * scale) ++inconsistent;
    const LoopForwardDynamics<T> m1 = loop_fd_kkt<T>(H, tp, lc.K, rhs);
    const LoopForwardDynamics<T> m2 = loop_fd_lambda<T>(H, m.dof_parent, tp, lc.K, rhs);
    const LoopProjection<T> m3 = loop_fd_projection<T>(H, tp, lc.K, rhs);
    ASSERT_TRUE(m1.ok && m2.ok && m3.fd.ok);
    const double k = dbl ? 1e8 : 1e12;  // these starts are far from the manifold: K's conditioning enters
    const double qscale = max_abs(m1.qdd) + 1;
    for (const auto& [name, qdd] : {std::pair<const char*, VecX<T>>{"KKT", m1.qdd}, {"λ first", m2.qdd}, {"projection", m3.fd.qdd}})
      RBD_EXPECT_RESIDUAL(max_abs(VecX<T>(lc.K * qdd - Prhs)), tol<T>(k) * scale * qscale, std::string(name) + ": K q̈ = P rhs");
    RBD_EXPECT_RESIDUAL(max_abs(VecX<T>(m3.fd.qdd - m1.qdd)), tol<T>(k) * qscale, "projection vs KKT");
    RBD_EXPECT_RESIDUAL(max_abs(VecX<T>(m2.qdd - m1.qdd)), tol<T>(k) * qscale, "λ first vs KKT");
  });
  EXPECT_GE(inconsistent, 3);
}

// Bennett's linkage (fixtures/models/loops/bennett.*): a spatial 4R loop that Grübler's count calls
// immobile (3 - 5 = -2) and that moves with one DoF because of its geometry (a/sin α = b/sin β).
// Its closed form in the files' coordinates (derived and checked at 60 digits in
// bennett_closed_form.py, from the Denavit-Hartenberg chain and Bennett's relation
// tan(θ₁/2) tan(θ₂/2) = sin((β+α)/2)/sin((β-α)/2) = 20/7):
//   q₂ = -2 atan2(7 sin(q₁/2), 20 cos(q₁/2)),   q₃ = -q₁,
//   dq₂/dq₁ = -140 / (400 cos²(q₁/2) + 49 sin²(q₁/2)),   dq₃/dq₁ = -1.
// At q₁ ∈ {0.4, 1.25, -2.2, 3} the closed-form q closes the loop (δ = 0 to rounding), K has rank
// 2 (mobility 1) with the closed-form tangent in its null space, §8.8's one-column G is that
// tangent, and the three methods agree. The assembled state (Newton at bin100 from the sketch)
// is on the closed-form curve to its precision. Off the curve K's rank is 3 (δ = 1e-3 away).
TYPED_TEST(BundledLoops, BennettLinkageFollowsItsClosedForm) {
  using T = TypeParam;
  const BundledLoop b = kBundledLoops[9];
  ASSERT_EQ(std::string(b.name), "bennett");
  const LoadedModel lm = load_bundled(b, false);
  const Model<T> m = build_model<T>(lm.desc);
  using std::atan2;
  using std::cos;
  using std::sin;
  auto q_of = [](const T& q1) {
    VecX<T> q(3);
    q << q1, T(T(-2) * atan2(T(7) * sin(q1 / T(2)), T(20) * cos(q1 / T(2)))), T(-q1);
    return q;
  };
  auto tangent = [](const T& q1) {
    const T c = cos(q1 / T(2)), s = sin(q1 / T(2));
    VecX<T> t(3);
    t << T(1), T(T(-140) / (T(400) * c * c + T(49) * s * s)), T(-1);
    return t;
  };
  const double lim = std::is_same<T, double>::value ? 1e-13 : 1e-45;
  for (const char* q1s : {"0.4", "1.25", "-2.2", "3"}) {
    SCOPED_TRACE(std::string("q1 = ") + q1s);
    const T q1 = from_decimal<T>(q1s);
    const VecX<T> q = q_of(q1), t = tangent(q1);
    const VecX<T> qd = t * from_decimal<T>("0.7");
    const LoopConstraints<T> lc = loop_constraints<T>(m, q, qd);
    EXPECT_LE(max_abs(lc.delta), lim);
    EXPECT_LE(max_abs(VecX<T>(lc.K * t)), lim * (max_abs(lc.K) + 1));
    const NullSpaceSolution<T> ns = null_space_solution<T>(lc.K, lc.k);
    EXPECT_EQ(ns.rank, 2);
    ASSERT_EQ(ns.G.cols(), 1);
    // G's column is the tangent scaled to 1 on the independent coordinate.
    const int y = ns.independent[0];
    EXPECT_LE(max_abs(VecX<T>(ns.G.col(0) - t / t(y))), lim * 100 * (max_abs(t) / static_cast<double>(abs(t(y)))));
    const MatX<T> H = crba<T>(m, q);
    const VecX<T> tp = VecX<T>::Constant(3, from_decimal<T>("0.3")) - bias<T>(m, q, qd);
    const LoopForwardDynamics<T> m1 = loop_fd_kkt<T>(H, tp, lc.K, lc.k);
    const LoopForwardDynamics<T> m2 = loop_fd_lambda<T>(H, m.dof_parent, tp, lc.K, lc.k);
    const LoopProjection<T> m3 = loop_fd_projection<T>(H, tp, lc.K, lc.k);
    for (const LoopForwardDynamics<T>* fd : {&m1, &m2, &m3.fd}) {
      ASSERT_TRUE(fd->ok);
      EXPECT_EQ(fd->rank, 2);
      EXPECT_LE(max_abs(VecX<T>(fd->qdd - m1.qdd)), lim * 1e3 * (max_abs(m1.qdd) + 1));
    }
  }
  // The assembled state lies on the closed-form curve, its velocity along the tangent.
  const StateDesc st = bundled_state(b, lm.desc);
  const VecX<T> q = to_vec<T>(st.q), qd = to_vec<T>(st.qd);
  EXPECT_LE(max_abs(VecX<T>(q - q_of(q(0)))), lim);
  EXPECT_LE(max_abs(VecX<T>(qd - tangent(q(0)) * qd(0))), lim * (max_abs(qd) + 1));
  // Off the curve (q₂ pushed by 1e-3) the loop cannot move: rank 3.
  VecX<T> off = q_of(from_decimal<T>("0.4"));
  off(1) += from_decimal<T>("1e-3");
  EXPECT_EQ(null_space_solution<T>(loop_constraints<T>(m, off, VecX<T>::Zero(3)).K, VecX<T>::Zero(5)).rank, 3);
}

// Newton onto Bennett's closure at bin100, from the sketch: the rank falls from 3 to 2 on the
// manifold, so K's third singular value shrinks with δ, and inverting it turns δ's rounding into
// steps of any size (the full-rank iteration stalled at |δ| = 9e-94, above the 5.7e-97
// tolerance, "NOT ASSEMBLED"). With the truncated step it closes to the last digits, on the
// closed-form curve. Planted: the truncated step disabled fails here (bin50 and double reach
// their tolerance either way).
TEST(Assembly, BennettClosesToTheLastDigitAtBin100) {
  using T = bin100;
  const BundledLoop b = kBundledLoops[9];
  const LoadedModel lm = load_bundled(b, false);
  const Model<T> m = build_model<T>(lm.desc);
  const StateDesc st = bundled_state(b, lm.desc, "start");
  const Assembly<T> a = assemble<T>(m, to_vec<T>(st.q), to_vec<T>(st.qd));
  ASSERT_TRUE(a.converged) << a.message;
  EXPECT_EQ(a.rank, 2);
  using std::atan2;
  using std::cos;
  using std::sin;
  const T q1 = a.q(0);
  EXPECT_LE(static_cast<double>(abs(T(a.q(1) + T(2) * atan2(T(7) * sin(q1 / T(2)), T(20) * cos(q1 / T(2)))))), 1e-95);
  EXPECT_LE(static_cast<double>(abs(T(a.q(2) + q1))), 1e-95);
}

// Baumgarte stabilization (eqs. 8.21-8.24) in a short simulation: from rest, pushed 1e-4 off the
// manifold, with T_stab = 3 ms (short against every bundled mechanism's motion under its state's
// τ and gravity), the position error follows the critically damped δ(t) = (δ₀ + αδ₀ t)e^{-αt}
// on every bundled mechanism (double; slider_crank and stewart_gough also at bin50). Planted and
// caught: β instead of β² in k_stab (the error then decays along another curve).
template <class T>
void expect_baumgarte(const BundledLoop& b) {
  SCOPED_TRACE(b.name);
  const LoadedModel lm = load_bundled(b, false);
  const Model<T> m = build_model<T>(lm.desc);
  const StateDesc st = bundled_state(b, lm.desc);
  const CheckResult r = check_baumgarte_decay<T>(m, to_vec<T>(st.q), VecX<T>::Zero(m.nv), to_vec<T>(st.tau),
                                                 from_decimal<T>("0.003"), from_decimal<T>("1e-4"));
  std::printf("  %s: %s residual %.2e (%s)\n", b.name, r.name.c_str(), static_cast<double>(r.residual), r.detail.c_str());
  EXPECT_TRUE(r.passed) << r.residual << " > " << r.tolerance << " " << r.detail;
}

TEST(BundledLoopModels, BaumgarteDecaysAsDesigned) {
  for (const BundledLoop& b : kBundledLoops) expect_baumgarte<double>(b);
  for (const BundledLoop& b : kBundledLoops)
    if (std::string(b.name) == "slider_crank" || std::string(b.name) == "stewart_gough") expect_baumgarte<bin50>(b);
}

TEST(BundledLoopModels, UrdfWithLoopsFileEqualsCanonicalVersion2) {
  for (const BundledLoop& b : kBundledLoops) {
    SCOPED_TRACE(b.name);
    const LoadedModel a = load_bundled(b, false), c = load_bundled(b, true);
    const Model<bin50> ma = build_model<bin50>(a.desc), mc = build_model<bin50>(c.desc);
    const StateDesc st = bundled_state(b, a.desc);
    const VecX<bin50> q = to_vec<bin50>(st.q), qd = to_vec<bin50>(st.qd);
    const LoopConstraints<bin50> la = loop_constraints<bin50>(ma, q, qd), lcn = loop_constraints<bin50>(mc, q, qd);
    EXPECT_EQ(max_abs(MatX<bin50>(la.K - lcn.K)), 0.0);
    EXPECT_EQ(max_abs(VecX<bin50>(la.k - lcn.k)), 0.0);
  }
}

// ---- 3. assembly ----------------------------------------------------------------------------

template <class T>
class Assembly : public ::testing::Test {};
TYPED_TEST_SUITE(Assembly, Scalars, ScalarName);

TYPED_TEST(Assembly, NewtonReachesTheLastDigitsAndProjectsTheVelocity) {
  using T = TypeParam;
  for (const BundledLoop& b : kBundledLoops) {
    if (std::string(b.name) == "parallelogram") continue;  // its state file is written by hand
    SCOPED_TRACE(b.name);
    const LoadedModel lm = load_bundled(b, false);
    const Model<T> m = build_model<T>(lm.desc);
    const StateDesc st = bundled_state(b, lm.desc, "start");
    const VecX<T> q0 = to_vec<T>(st.q), qd0 = to_vec<T>(st.qd);
    const rbd::Assembly<T> a = assemble<T>(m, q0, qd0);
    EXPECT_TRUE(a.converged) << a.message;
    EXPECT_GT(static_cast<double>(a.position_error_before), 1e-3);  // the start is off the manifold
    EXPECT_LE(a.iterations, 16);                                    // quadratic: ~log2(digits) steps
    EXPECT_LE(static_cast<double>(a.position_error), tol<T>(100) * 1e3);
    const LoopConstraints<T> lc = loop_constraints<T>(m, a.q, a.qd);
    EXPECT_LE(max_abs(lc.delta), tol<T>(100) * 1e3);
    EXPECT_LE(max_abs(lc.vel_error), tol<T>(1e3) * (max_abs(lc.K) * max_abs(qd0) + 1));
    // The projection is orthogonal: the change of q̇ is in range(Kᵀ), so Gᵀ (q̇ - q̇0) = 0.
    const NullSpaceSolution<T> ns = null_space_solution<T>(lc.K, lc.k);
    EXPECT_LE(max_abs(VecX<T>(ns.G.transpose() * (a.qd - qd0))), tol<T>(1e4) * max_abs(qd0) * max_abs(ns.G));
    // Assembling an assembled state changes nothing beyond rounding.
    const rbd::Assembly<T> again = assemble<T>(m, a.q, a.qd);
    EXPECT_LE(max_abs(VecX<T>(again.q - a.q)), tol<T>(1e4));
  }
}

TEST(Assembly, AnUnclosableLoopIsReportedNotForced) {
  // The slider-crank with the rod's pin moved 0.3 off the plane (along the pin's axis, which its
  // revolute loop joint does not let slide) cannot close: every tree joint moves in the plane.
  const BundledLoop b = kBundledLoops[1];
  LoadedModel lm = load_bundled(b, false);
  lm.desc.loop_joints[0].pred.origin.xyz[1] = Num::decimal("0.3");
  const Model<double> m = build_model<double>(lm.desc);
  const StateDesc st = bundled_state(b, lm.desc, "start");
  const rbd::Assembly<double> a = assemble<double>(m, to_vec<double>(st.q), to_vec<double>(st.qd));
  EXPECT_FALSE(a.converged);
  EXPECT_NE(a.message.find("cannot be closed"), std::string::npos) << a.message;
  EXPECT_GT(a.position_error, 1e-3);
}

// A structure: a free-floating body welded to the world by a fixed loop joint has rank K = 6 = n,
// mobility 0, G with no columns. Every method, every check and the evaluation must take that as
// data (GᵀHG is 0 x 0: it once reached Eigen's eigen-solver, which refuses an empty matrix), and
// the body, assembled onto the weld at rest, stays there: q̈ = 0, τ_c = τ - C.
template <class T>
class ZeroMobility : public ::testing::Test {};
TYPED_TEST_SUITE(ZeroMobility, Scalars, ScalarName);
TYPED_TEST(ZeroMobility, WeldedFreeBodyIsEvaluatedAndChecked) {
  using T = TypeParam;
  ModelDesc desc = random_tree(tree_spec(1, 1.0, true), 31);
  LoopJointDesc L;
  L.name = L.joint.name = "weld";
  L.joint.type = JointType::Fixed;
  L.pred.body = -1;
  L.pred.origin.xyz = {Num::decimal("0.2"), Num::decimal("-0.1"), Num::decimal("1.0")};
  L.pred.origin.rpy = {Num::decimal("0.3"), Num::decimal("0.5"), Num::decimal("-0.2")};
  L.succ.body = 0;
  L.succ.origin.xyz = {Num::decimal("0.15"), Num::decimal("0.05"), Num::decimal("-0.3")};
  L.where = "loop_joints[0]";
  desc.loop_joints.push_back(L);
  const Model<T> m = build_model<T>(desc);
  VecX<T> q0 = VecX<T>::Zero(m.nq);
  q0(0) = T(1);
  const rbd::Assembly<T> a = assemble<T>(m, q0, VecX<T>::Constant(m.nv, T(1)));
  ASSERT_TRUE(a.converged) << a.message << " |δ| " << a.position_error_before << " -> " << a.position_error << " in "
                           << a.iterations << " steps";
  EXPECT_EQ(a.rank, 6);
  EXPECT_LE(max_abs(a.qd), tol<T>(1e4)) << "null(K) = {0}: the projected velocity is zero";
  VecX<T> tau(m.nv);
  for (int i = 0; i < m.nv; ++i) tau(i) = T(i + 1) / T(3);
  for (const CheckResult& c : check_loops<T>(m, a.q, a.qd, tau)) EXPECT_TRUE(c.passed) << c.message();
  StateDesc st;
  for (int i = 0; i < m.nq; ++i) st.q.push_back(Num::decimal(to_decimal(T(a.q(i)), digits10<T>() + 3)));
  for (int i = 0; i < m.nv; ++i) {
    st.qd.push_back(Num::exact(0));
    st.qdd.push_back(Num::exact(0));
    st.tau.push_back(Num::decimal(to_decimal(T(tau(i)), digits10<T>() + 3)));
  }
  const Evaluation e = evaluate(*Precision::parse(std::is_same<T, double>::value ? "double" : "bin50"), desc, st);
  EXPECT_EQ(e.loops.rank, 6);
  EXPECT_EQ(e.loops.mobility, 0);
  const Quantity* qdd = e.find("qdd");
  ASSERT_NE(qdd, nullptr);
  for (const std::string& v : qdd->values) EXPECT_LE(std::fabs(std::stod(v)), 1e4 * static_cast<double>(epsilon<T>())) << v;
}

// ---- 4. fig. 8.3's loop-closure functions -----------------------------------------------------

template <class T>
class Fig83 : public ::testing::Test {};
TYPED_TEST_SUITE(Fig83, Scalars, ScalarName);

TYPED_TEST(Fig83, ClosedFormGammaGgEqualSection88) {
  using T = TypeParam;
  const BundledLoop b = kBundledLoops[2];
  const LoadedModel lm = load_bundled(b, false);
  const Model<T> m = build_model<T>(lm.desc);
  const std::array<int, 4> idx = fig83_dofs<T>(m);
  const T l1 = from_decimal<T>("0.35"), l2 = from_decimal<T>("0.6");  // fig83_arm.urdf (make_models.py)
  for (const char* y1s : {"1.1", "-0.4", "2.5"}) {
    SCOPED_TRACE(y1s);
    const T y1 = from_decimal<T>(y1s), y2 = from_decimal<T>("-0.7"), yd1 = from_decimal<T>("1.3"), yd2 = from_decimal<T>("0.4");
    const Fig83Closure<T> cf = fig83_closure<T>(l1, l2, y1, y2, yd1);
    VecX<T> q(4), qd(4);
    for (int k = 0; k < 4; ++k) q(idx[k]) = cf.q(k);
    const VecX<T> yd = (VecX<T>(2) << yd1, yd2).finished();
    const VecX<T> qd_cf = cf.G * yd;
    for (int k = 0; k < 4; ++k) qd(idx[k]) = qd_cf(k);
    const LoopConstraints<T> lc = loop_constraints<T>(m, q, qd);
    // γ(y) closes the loop and G ẏ is a consistent velocity.
    EXPECT_LE(max_abs(lc.delta), tol<T>(100));
    EXPECT_LE(max_abs(lc.vel_error), tol<T>(100));
    // §8.8 with y = (q1, q4) chosen: G's rows for (q2, q3) and g equal the closed form.
    const NullSpaceSolution<T> ns = null_space_solution<T>(lc.K, lc.k, {idx[0], idx[3]});
    ASSERT_TRUE(ns.chosen_ok) << ns.message;
    ASSERT_EQ(ns.G.cols(), 2);
    // ns.G's columns follow `independent` (q1 then q4, or the other order).
    const int c1 = ns.independent[0] == idx[0] ? 0 : 1;
    for (int k = 0; k < 4; ++k) {
      EXPECT_LE(std::fabs(static_cast<double>(T(ns.G(idx[k], c1) - cf.G(k, 0)))), tol<T>(100)) << k;
      EXPECT_LE(std::fabs(static_cast<double>(T(ns.G(idx[k], 1 - c1) - cf.G(k, 1)))), tol<T>(100)) << k;
      EXPECT_LE(std::fabs(static_cast<double>(T(ns.g(idx[k]) - cf.g(k)))), tol<T>(100)) << k;
    }
  }
}

// The forward dynamics through the closed form alone: GᵀHG ÿ = Gᵀ(τ - C - H g), q̈ = G ÿ + g with
// fig. 8.3's G, g (no K, no k, no elimination), against the three methods of §8.5.
TYPED_TEST(Fig83, ForwardDynamicsThroughTheClosedFormEqualsTheThreeMethods) {
  using T = TypeParam;
  const LoadedModel lm = load_bundled(kBundledLoops[2], false);
  const Model<T> m = build_model<T>(lm.desc);
  const std::array<int, 4> idx = fig83_dofs<T>(m);
  const T l1 = from_decimal<T>("0.35"), l2 = from_decimal<T>("0.6");
  const Fig83Closure<T> cf = fig83_closure<T>(l1, l2, from_decimal<T>("0.9"), from_decimal<T>("-1.2"), from_decimal<T>("2.1"));
  MatX<T> G = MatX<T>::Zero(4, 2);
  VecX<T> q(4), g(4), qd(4), tau(4);
  const VecX<T> yd = (VecX<T>(2) << from_decimal<T>("2.1"), from_decimal<T>("-0.6")).finished();
  const VecX<T> qd_cf = cf.G * yd;
  tau << from_decimal<T>("3"), from_decimal<T>("-1"), from_decimal<T>("40"), from_decimal<T>("0.5");
  for (int k = 0; k < 4; ++k) {
    q(idx[k]) = cf.q(k);
    qd(idx[k]) = qd_cf(k);
    g(idx[k]) = cf.g(k);
    G.row(idx[k]) = cf.G.row(k);
  }
  const MatX<T> H = crba<T>(m, q);
  const VecX<T> C = bias<T>(m, q, qd);
  const VecX<T> ydd = MatX<T>(G.transpose() * H * G).ldlt().solve(VecX<T>(G.transpose() * (tau - C - H * g)));
  const VecX<T> qdd_cf = G * ydd + g;
  const LoopConstraints<T> lc = loop_constraints<T>(m, q, qd);
  for (const VecX<T>& qdd : {loop_fd_kkt<T>(H, VecX<T>(tau - C), lc.K, lc.k).qdd,
                             loop_fd_lambda<T>(H, m.dof_parent, VecX<T>(tau - C), lc.K, lc.k).qdd,
                             loop_fd_projection<T>(H, VecX<T>(tau - C), lc.K, lc.k).fd.qdd})
    EXPECT_LE(max_abs(VecX<T>(qdd - qdd_cf)), tol<T>(1e4) * max_abs(qdd_cf)) << qdd.transpose() << "\n vs " << qdd_cf.transpose();
}

// ---- 5. the book's rounding note: a loop 1 km out ---------------------------------------------

TEST(FarLoop, LocalFrameKeepsTheDigitsTheBaseFrameLoses) {
  for (const BundledLoop& b : {kBundledLoops[7], kBundledLoops[8]}) {
    SCOPED_TRACE(b.name);
    const LoadedModel lm = load_bundled(b, false);
    const StateDesc st = bundled_state(b, lm.desc);
    const Model<bin100> mx = build_model<bin100>(lm.desc);
    const LoopConstraints<bin100> ex = loop_constraints<bin100>(mx, to_vec<bin100>(st.q), to_vec<bin100>(st.qd));
    const Model<double> m = build_model<double>(lm.desc);
    auto digits = [&](LoopFrame f) {
      const LoopConstraints<double> lc = loop_constraints<double>(m, to_vec<double>(st.q), to_vec<double>(st.qd), f);
      double worst = 0;
      for (Eigen::Index i = 0; i < lc.K.size(); ++i)
        worst = std::max(worst, std::fabs(lc.K.data()[i] - static_cast<double>(ex.K.data()[i])) / max_abs(ex.K));
      for (Eigen::Index i = 0; i < lc.k.size(); ++i)
        worst = std::max(worst, std::fabs(lc.k(i) - static_cast<double>(ex.k(i))) / (max_abs(ex.k) + 1e-300));
      return -std::log10(std::max(worst, 1e-17));
    };
    const double local = digits(LoopFrame::Local), base = digits(LoopFrame::Base);
    std::printf("  %s: K and k at double, loop-local frame %.1f digits, base frame %.1f digits\n", b.name, local, base);
    EXPECT_GE(local, 13.0);
    // On the floating frame the loop's root is a moving body 1 km out: the base-frame route carries
    // |r| ~ 1e3 into every S_j, T_k and a^vp and loses ~log10(1000) digits to cancellation; the
    // local route composes the loop's own transforms only. With a fixed base both routes pass
    // through the base (the loop's root), and the measured difference is a fraction of a digit.
    if (b.floating) {
      EXPECT_GE(local - base, 2.0);
    }
  }
}

}  // namespace
}  // namespace rbd::test
