// jcalc (RBDA table 4.1) for every joint type: S is the derivative of XJ (Carius eq. 16), cJ
// the derivative of S along the motion, T spans the forces that do no work on S, and axes are
// normalized without changing the joint's type or direction.
#include "reference/tree/jcalc.hpp"
#include "tests/test_util.hpp"

namespace rbd::test {
namespace {

const JointType kMoving[] = {JointType::Revolute, JointType::Prismatic, JointType::Helical, JointType::Cylindrical,
                             JointType::Planar,   JointType::Spherical, JointType::Free};

template <class T>
Joint<T> random_joint(JointType t, Rand& r) {
  Joint<T> j;
  j.type = t;
  Vec3<T> a = r.vec3<T>();
  j.axis = a / a.norm();
  Vec3<T> u = r.vec3<T>();
  u -= j.axis * j.axis.dot(u);
  j.u = u / u.norm();
  j.pitch = T(r(-0.3, 0.3));
  return j;
}

// A joint configuration (unit quaternions for spherical and free joints) and velocity.
template <class T>
void random_q(JointType t, Rand& r, std::vector<T>& q, std::vector<T>& qd) {
  q.assign(joint_nq(t), T(0));
  qd.assign(joint_nv(t), T(0));
  for (auto& x : q) x = T(r());
  for (auto& x : qd) x = T(r());
  if (t == JointType::Spherical || t == JointType::Free) {
    using std::sqrt;
    const T n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; ++k) q[k] /= n;
  }
}

// dXJ/dt = -vJ× XJ (eq. 16 with the predecessor at rest) and d(S)/dt qd = cJ, against central
// differences along q(t) = q ± h q̇ (q̇ = joint_qdot) at 100 digits, h = 1e-30.
TEST(Jcalc, MotionSubspaceIsDerivativeOfJointTransform) {
  using T = bin100;
  Rand r;
  const T h = from_decimal<T>("1e-30");
  for (JointType t : kMoving) {
    for (int n = 0; n < 5; ++n) {
      const Joint<T> j = random_joint<T>(t, r);
      std::vector<T> q, qd;
      random_q<T>(t, r, q, qd);
      std::vector<T> qdot(q.size()), qp(q.size()), qm(q.size());
      joint_qdot<T>(j, q.data(), qd.data(), qdot.data());
      for (size_t k = 0; k < q.size(); ++k) {
        qp[k] = q[k] + h * qdot[k];
        qm[k] = q[k] - h * qdot[k];
      }
      const JointKinematics<T> J = jcalc<T>(j, q.data(), qd.data());
      const JointKinematics<T> Jp = jcalc<T>(j, qp.data(), qd.data()), Jm = jcalc<T>(j, qm.data(), qd.data());
      const Mat6<T> dX = (Jp.XJ.matrix() - Jm.XJ.matrix()) / (T(2) * h);
      const Mat6<T> expect = xform_derivative<T>(J.XJ, Motion<T>(), J.vJ);
      RBD_EXPECT_RESIDUAL(max_abs(Mat6<T>(dX - expect)), 1e-55, std::string("dXJ/dt, ") + joint_type_name(t));
      VecK<T> qdv(qd.size());
      for (size_t k = 0; k < qd.size(); ++k) qdv(k) = qd[k];
      const Vec6<T> dS = (Jp.S - Jm.S) * qdv / (T(2) * h);
      RBD_EXPECT_RESIDUAL(max_abs(Vec6<T>(dS - J.cJ.c)), 1e-55, std::string("cJ = (dS/dt) qd, ") + joint_type_name(t));
    }
  }
}

template <class T>
class JcalcTyped : public ::testing::Test {};
TYPED_TEST_SUITE(JcalcTyped, Scalars);

// Tᵀ S = 0, [S T] has full rank 6 (RBDA §3.5), vJ = S qd, and the sizes nq, nv of table 4.1.
TYPED_TEST(JcalcTyped, ConstraintForceSubspaceComplementsS) {
  using T = TypeParam;
  Rand r;
  for (JointType t : kMoving) {
    const Joint<T> j = random_joint<T>(t, r);
    std::vector<T> q, qd;
    random_q<T>(t, r, q, qd);
    const JointKinematics<T> J = jcalc<T>(j, q.data(), qd.data());
    const Mat6K<T> Tf = force_complement<T>(J.S);
    ASSERT_EQ(J.S.cols(), joint_nv(t));
    ASSERT_EQ(Tf.cols(), 6 - joint_nv(t));
    RBD_EXPECT_RESIDUAL(max_abs(MatX<T>(Tf.transpose() * J.S)), tol<T>(16), std::string("TᵀS, ") + joint_type_name(t));
    Mat6<T> ST;
    ST << J.S, Tf;
    using std::abs;
    EXPECT_GT(static_cast<double>(T(abs(ST.determinant()))), 1e-3) << joint_type_name(t);
  }
  EXPECT_EQ(joint_nq(JointType::Free), 7);
  EXPECT_EQ(joint_nv(JointType::Free), 6);
  EXPECT_EQ(joint_nq(JointType::Spherical), 4);
  EXPECT_EQ(joint_nv(JointType::Spherical), 3);
  EXPECT_EQ(joint_nv(JointType::Fixed), 0);
}

// S_axis (recorded by jcalc for the algorithms' entry reads): k exactly when S = [e_k … e_{k+nv-1}].
TYPED_TEST(JcalcTyped, UnitAxisSubspaceIsRecorded) {
  using T = TypeParam;
  Rand r;
  for (JointType t : {JointType::Revolute, JointType::Prismatic, JointType::Helical, JointType::Cylindrical,
                      JointType::Planar, JointType::Spherical, JointType::Free, JointType::Fixed}) {
    for (int ax = 0; ax < 7; ++ax) {  // x, y, z, -x, -y, -z, and a random axis
      Joint<T> j = random_joint<T>(t, r);
      if (ax < 3) j.axis = Vec3<T>::Unit(ax);
      if (ax >= 3 && ax < 6) j.axis = Vec3<T>(-Vec3<T>::Unit(ax - 3));
      std::vector<T> q, qd;
      random_q<T>(t, r, q, qd);
      const JointKinematics<T> J = jcalc<T>(j, q.data(), qd.data());
      const Eigen::Index n = J.S.cols();
      int expect = -1;
      for (int k = 0; n > 0 && k + n <= 6 && expect < 0; ++k)
        if (max_abs(Mat6K<T>(J.S - Mat6<T>::Identity().middleCols(k, n))) == 0.0) expect = k;
      EXPECT_EQ(J.S_axis, expect) << joint_type_name(t) << " axis " << ax;
      if (ax < 3 && (t == JointType::Revolute || t == JointType::Prismatic))
        EXPECT_EQ(J.S_axis, t == JointType::Revolute ? ax : ax + 3);
      if (t == JointType::Spherical || t == JointType::Free) EXPECT_EQ(J.S_axis, 0);
      // vJ = S qd either way
      VecK<T> qdv(n);
      for (Eigen::Index k = 0; k < n; ++k) qdv(k) = qd[k];
      EXPECT_EQ(max_abs(Vec6<T>(J.vJ.c - J.S * qdv)), 0.0);
    }
  }
}

// The short route of a revolute joint about +e_k (kinematics.hpp): coordinate_revolute_axis names
// exactly these joints, and coordinate_revolute_compose(k, θ, Xtree) is bit for bit jcalc's XJ
// composed with Xtree (compose_coordinate_rotation, and the full product XJ Xtree: E's other
// entries are exact zeros and ones).
TYPED_TEST(JcalcTyped, CoordinateRevoluteRouteIsJcalcComposed) {
  using T = TypeParam;
  Rand r;
  for (int ax = 0; ax < 7; ++ax) {
    Joint<T> j;
    j.type = JointType::Revolute;
    j.axis = ax < 3 ? Vec3<T>(Vec3<T>::Unit(ax)) : ax < 6 ? Vec3<T>(-Vec3<T>::Unit(ax - 3)) : random_joint<T>(JointType::Revolute, r).axis;
    EXPECT_EQ(coordinate_revolute_axis<T>(j), ax < 3 ? ax : -1) << "axis " << ax;
    Joint<T> p = j;
    p.type = JointType::Prismatic;
    EXPECT_EQ(coordinate_revolute_axis<T>(p), -1);
    if (ax >= 3) continue;
    for (const T th : {T(7) / T(10), T(-23) / T(10), T(12345) / T(7)}) {
      const Xform<T> Xtree(axis_angle<T>(random_joint<T>(JointType::Revolute, r).axis, T(r(-3, 3))).transpose(), r.vec3<T>());
      const T zero(0);
      const JointKinematics<T> J = jcalc<T>(j, &th, &zero);
      ASSERT_EQ(J.XJ_axis, ax);
      Xform<T> X;
      coordinate_revolute_compose<T>(ax, th, Xtree, X);
      const Xform<T> viaJ = J.XJ.compose_coordinate_rotation(ax, Xtree), full = J.XJ * Xtree;
      EXPECT_EQ(max_abs(Mat3<T>(X.E - viaJ.E)), 0.0) << "axis " << ax;
      EXPECT_EQ(max_abs(Mat3<T>(X.E - full.E)), 0.0) << "axis " << ax;
      EXPECT_EQ(max_abs(Vec3<T>(X.r - full.r)), 0.0) << "axis " << ax;
    }
  }
}

// A revolute joint about -z turning by θ equals one about +z turning by -θ: a negative axis is a
// direction, not another joint; and a revolute joint by θ = π/2 about z maps the parent's x axis
// onto the child's -y coordinates (E = R(z, θ)ᵀ).
TYPED_TEST(JcalcTyped, NegativeAxisIsReversedRotation) {
  using T = TypeParam;
  Joint<T> a, b;
  a.type = b.type = JointType::Revolute;
  a.axis = Vec3<T>(T(0), T(0), T(-1));
  b.axis = Vec3<T>(T(0), T(0), T(1));
  const T th = T(7) / T(10), mth = -th, zero(0);
  const JointKinematics<T> Ja = jcalc<T>(a, &th, &zero), Jb = jcalc<T>(b, &mth, &zero);
  EXPECT_EQ(max_abs(Mat6<T>(Ja.XJ.matrix() - Jb.XJ.matrix())), 0.0);
  const T quarter = pi<T>() / T(2);
  const JointKinematics<T> Jq = jcalc<T>(b, &quarter, &zero);
  const Vec3<T> x_in_child = Jq.XJ.E * Vec3<T>(T(1), T(0), T(0));
  RBD_EXPECT_RESIDUAL(max_abs(Vec3<T>(x_in_child - Vec3<T>(T(0), T(-1), T(0)))), tol<T>(4), "rotation sense");
}

// Quaternion policy: jcalc uses q/|q|, so a scaled quaternion gives the same XJ.
TYPED_TEST(JcalcTyped, QuaternionIsUsedNormalized) {
  using T = TypeParam;
  Rand r;
  for (JointType t : {JointType::Spherical, JointType::Free}) {
    const Joint<T> j = random_joint<T>(t, r);
    std::vector<T> q, qd;
    random_q<T>(t, r, q, qd);
    std::vector<T> q2 = q;
    for (int k = 0; k < 4; ++k) q2[k] *= T(3);
    const JointKinematics<T> J1 = jcalc<T>(j, q.data(), qd.data()), J2 = jcalc<T>(j, q2.data(), qd.data());
    RBD_EXPECT_RESIDUAL(max_abs(Mat6<T>(J1.XJ.matrix() - J2.XJ.matrix())), tol<T>(16), joint_type_name(t));
  }
}

}  // namespace
}  // namespace rbd::test
