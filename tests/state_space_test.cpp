// RBDA chapter 3 pieces that simulation needs (reference/tree/state_space.hpp, reference/spatial/subspace.hpp):
//   * qdfn (eq. 3.7) is the rate of the exact joint flow: d/dt (q ⊕ t α) at t = 0, by central
//     differences at 100 digits on random trees with every joint type (quaternions included);
//   * FD_x (eqs. 3.8-3.9): its q̇ is the same rate, and RNEA maps its q̈ back to τ;
//   * the decomposition f = f_a + f_c of eq. 3.28 against the KKT system of a body constrained to a
//     motion subspace (I a = f + T λ, Tᵀ a = 0, T spanning S^⊥), its basis invariance (S → S A) and
//     Sᵀ f_c = 0, at double and bin50.
#include "reference/tree/integrate.hpp"
#include "reference/tree/rnea.hpp"
#include "reference/tree/state_space.hpp"
#include "reference/spatial/subspace.hpp"
#include "tests/tree_cases.hpp"
#include "tests/test_util.hpp"

#include <gtest/gtest.h>

#include <Eigen/LU>

namespace rbd::test {
namespace {

TEST(StateSpace, QdfnIsTheRateOfTheJointFlow) {
  using T = bin100;
  int quaternion_models = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const RandomCase<T> c = random_case<T>(tree_spec(4 + static_cast<int>(seed % 4), 1.0, seed % 2 == 0), seed, seed, 2.0);
    const Model<T>& m = c.model;
    const VecX<T>& q = c.q, &alpha = c.qd, &tau = c.tau;
    const T h = from_decimal<T>("1e-30");
    const VecX<T> rate = (integrate_q<T>(m, q, alpha, h) - integrate_q<T>(m, q, alpha, T(-h))) / (T(2) * h);
    const VecX<T> qdot = qdfn<T>(m, q, alpha);
    ASSERT_EQ(qdot.size(), m.nq);
    EXPECT_LE(max_abs(VecX<T>(qdot - rate)), 1e-50 * (max_abs(qdot) + 1)) << "seed " << seed;
    quaternion_models += m.nq > m.nv;
    // FD_x = [q̇; q̈]: its first half is the same flow rate (against the differences, not qdfn), its
    // second the acceleration that inverse dynamics (RNEA, a route that shares no code with ABA)
    // maps back to τ.
    VecX<T> x(m.nq + m.nv);
    x << q, alpha;
    const StateDerivative<T> xd = fd_x<T>(m, x, tau);
    ASSERT_TRUE(xd.ok);
    EXPECT_LE(max_abs(VecX<T>(xd.xdot.head(m.nq) - rate)), 1e-50 * (max_abs(rate) + 1)) << "seed " << seed;
    const VecX<T> tau_back = rnea<T>(m, q, alpha, VecX<T>(xd.xdot.tail(m.nv)));
    EXPECT_LE(max_abs(VecX<T>(tau_back - tau)), 1e-80 * (max_abs(tau) + 1)) << "seed " << seed;
  }
  EXPECT_GE(quaternion_models, 10);
}

template <class T>
class Subspace : public ::testing::Test {};
TYPED_TEST_SUITE(Subspace, Scalars);

TYPED_TEST(Subspace, ForceDecompositionIsTheConstrainedBodysKkt) {
  using T = TypeParam;
  Rand rnd;
  for (int trial = 0; trial < 40; ++trial) {
    const int m = 1 + trial % 5;
    // A physical spatial inertia: mass, COM, rotational inertia about the COM.
    const T mass = T(rnd(0.5, 3));
    const Vec3<T> c = rnd.vec3<T>();
    const Mat3<T> R = rnd.rotation<T>();
    const Vec3<T> pm(T(rnd(0.1, 1)), T(rnd(0.1, 1)), T(rnd(0.1, 1)));
    const Mat3<T> Ic = R * Vec3<T>(pm(1) + pm(2), pm(0) + pm(2), pm(0) + pm(1)).asDiagonal() * R.transpose();
    const Mat6<T> I = Inertia<T>::mcI(mass, c, Ic).M;
    MatX<T> S(6, m);
    for (int j = 0; j < m; ++j) S.col(j) = rnd.vec6<T>();
    const Vec6<T> f = rnd.vec6<T>();
    const ForceDecomposition<T> r = decompose_force<T>(I, S, f);
    const double fs = max_abs(f);
    // f_c ∈ S^⊥, f = f_a + f_c exactly by construction, f_a ∈ I S.
    EXPECT_LE(max_abs(VecX<T>(S.transpose() * r.f_c)), tol<T>(1e3) * fs * max_abs(S));
    // Basis invariance: S A for a random invertible A.
    MatX<T> A(m, m);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j) A(i, j) = T(rnd()) + (i == j ? T(3) : T(0));
    const ForceDecomposition<T> r2 = decompose_force<T>(I, MatX<T>(S * A), f);
    EXPECT_LE(max_abs(Vec6<T>(r2.f_a - r.f_a)), tol<T>(1e5) * fs);
    // The KKT system of the constrained body: I a = f + T λ, Tᵀ a = 0, with T spanning S^⊥.
    const MatX<T> Tc = Eigen::FullPivLU<MatX<T>>(MatX<T>(S.transpose())).kernel();
    ASSERT_EQ(Tc.cols(), 6 - m);
    MatX<T> K = MatX<T>::Zero(12 - m, 12 - m);
    K.topLeftCorner(6, 6) = I;
    K.topRightCorner(6, 6 - m) = -Tc;
    K.bottomLeftCorner(6 - m, 6) = Tc.transpose();
    VecX<T> rhs = VecX<T>::Zero(12 - m);
    rhs.head(6) = f;
    const VecX<T> sol = K.fullPivLu().solve(rhs);
    const Vec6<T> a = sol.head(6);
    EXPECT_LE(max_abs(Vec6<T>(r.a - a)), tol<T>(1e6) * (max_abs(a) + 1)) << "trial " << trial;
    EXPECT_LE(max_abs(Vec6<T>(r.Phi * f - a)), tol<T>(1e6) * (max_abs(a) + 1));
    // The constraint force is -f_c: I a = f_a.
    EXPECT_LE(max_abs(Vec6<T>(I * a - r.f_a)), tol<T>(1e6) * fs);
  }
}

// Eq. 3.28 needs only the subspace, not a basis: S with a repeated column, a dependent one or a
// zero one spans what its independent columns span and must give their decomposition, and S = 0
// gives f_a = 0 (a body that cannot move takes every force as constraint force). Planted: SᵀIS
// inverted as given (singular: NaN or an error of order 1) fails each rank-deficient case.
TYPED_TEST(Subspace, RankDeficientSIsTheSubspaceItSpans) {
  using T = TypeParam;
  Rand rnd;
  for (int trial = 0; trial < 20; ++trial) {
    const int m = 1 + trial % 4;
    const Mat3<T> R = rnd.rotation<T>();
    const Vec3<T> pm(T(rnd(0.1, 1)), T(rnd(0.1, 1)), T(rnd(0.1, 1)));
    const Mat3<T> Ic = R * Vec3<T>(pm(1) + pm(2), pm(0) + pm(2), pm(0) + pm(1)).asDiagonal() * R.transpose();
    const Mat6<T> I = Inertia<T>::mcI(T(rnd(0.5, 3)), rnd.vec3<T>(), Ic).M;
    MatX<T> S(6, m);
    for (int j = 0; j < m; ++j) S.col(j) = rnd.vec6<T>();
    const Vec6<T> f = rnd.vec6<T>();
    const ForceDecomposition<T> full = decompose_force<T>(I, S, f);
    ASSERT_TRUE(full.ok);
    EXPECT_EQ(full.rank, m);
    MatX<T> Sd(6, m + 2);  // S, a combination of its columns, a zero column
    Sd.leftCols(m) = S;
    Sd.col(m) = S * VecX<T>::Constant(m, T(1) / T(3));
    Sd.col(m + 1).setZero();
    const ForceDecomposition<T> dep = decompose_force<T>(I, Sd, f);
    ASSERT_TRUE(dep.ok);
    EXPECT_EQ(dep.rank, m) << "trial " << trial;
    const double fs = max_abs(f);
    EXPECT_LE(max_abs(Vec6<T>(dep.f_a - full.f_a)), tol<T>(1e5) * fs) << "trial " << trial;
    EXPECT_LE(max_abs(Vec6<T>(dep.a - full.a)), tol<T>(1e6) * (max_abs(full.a) + 1)) << "trial " << trial;
    EXPECT_LE(max_abs(Mat6<T>(dep.Phi - full.Phi)), tol<T>(1e6) * (max_abs(full.Phi) + 1)) << "trial " << trial;
  }
  const ForceDecomposition<T> none = decompose_force<T>(Mat6<T>::Identity(), MatX<T>::Zero(6, 2), Vec6<T>::Ones());
  ASSERT_TRUE(none.ok);
  EXPECT_EQ(none.rank, 0);
  EXPECT_EQ(max_abs(none.f_a), 0.0);
  EXPECT_EQ(max_abs(Vec6<T>(none.f_c - Vec6<T>::Ones())), 0.0);
  EXPECT_EQ(max_abs(none.Phi), 0.0);
}

}  // namespace
}  // namespace rbd::test
