// The model layer: URDF import (fixed-joint merging, inertial rotations, floating base, axis
// normalization), decimals read at the working precision, and the canonical JSON round trip.
#include "io/model_io.hpp"
#include "reference/tree/crba.hpp"
#include "reference/tree/rnea.hpp"
#include "tests/test_util.hpp"

namespace rbd::test {
namespace {

template <class T>
class ModelIo : public ::testing::Test {};
TYPED_TEST_SUITE(ModelIo, Scalars);

const char* kLink = R"(<inertial><origin xyz="0.1 -0.05 0.2" rpy="0.3 -0.2 0.1"/><mass value="1.3"/>
  <inertia ixx="0.05" iyy="0.04" izz="0.03" ixy="0.001" ixz="-0.002" iyz="0.003"/></inertial>)";

// A chain base -a-> A -b-> B -c-> C, with joint b either fixed or revolute.
std::string chain(const std::string& b_type) {
  std::string s = "<robot name='chain'><link name='base'/>";
  for (const char* l : {"A", "B", "C"}) s += std::string("<link name='") + l + "'>" + kLink + "</link>";
  s += R"(<joint name="a" type="revolute"><parent link="base"/><child link="A"/><origin xyz="0 0 0.1" rpy="0.1 0.2 0.3"/><axis xyz="0 0 1"/></joint>)";
  s += "<joint name='b' type='" + b_type +
       R"('><parent link="A"/><child link="B"/><origin xyz="0.3 0.1 -0.2" rpy="-0.4 0.5 0.6"/><axis xyz="1 1 0"/></joint>)";
  s += R"(<joint name="c" type="continuous"><parent link="B"/><child link="C"/><origin xyz="0.2 0 0.1" rpy="0 0.7 0"/><axis xyz="0 -1 0"/></joint>)";
  return s + "</robot>";
}

// Merging a fixed joint's child into its parent is the same as locking a revolute joint at
// q = 0: H of the merged model is H of the unlocked one without the locked row and column, and
// C is its C at zero velocity of the locked joint. Independent routes: Xᵀ I X merging in
// build_model versus the joint left in the tree.
TYPED_TEST(ModelIo, FixedJointMergeEqualsLockedJoint) {
  using T = TypeParam;
  const Model<T> merged = build_model<T>(read_urdf(chain("fixed"), "fixed.urdf"));
  const Model<T> open = build_model<T>(read_urdf(chain("revolute"), "open.urdf"));
  ASSERT_EQ(merged.nv, 2);
  ASSERT_EQ(open.nv, 3);
  VecX<T> q2(2), qd2(2), q3(3), qd3(3);
  q2 << T(7) / T(10), T(-13) / T(10);
  qd2 << T(1) / T(2), T(9) / T(10);
  q3 << q2(0), T(0), q2(1);
  qd3 << qd2(0), T(0), qd2(1);
  const MatX<T> H2 = crba<T>(merged, q2), H3 = crba<T>(open, q3);
  const VecX<T> C2 = bias<T>(merged, q2, qd2), C3 = bias<T>(open, q3, qd3);
  const int keep[2] = {0, 2};
  double eH = 0, eC = 0;
  for (int i = 0; i < 2; ++i) {
    eC = std::max(eC, static_cast<double>(T(abs(T(C2(i) - C3(keep[i]))))));
    for (int j = 0; j < 2; ++j) eH = std::max(eH, static_cast<double>(T(abs(T(H2(i, j) - H3(keep[i], keep[j]))))));
  }
  RBD_EXPECT_RESIDUAL(eH, tol<T>(100) * max_abs(H3), "H merged vs locked");
  RBD_EXPECT_RESIDUAL(eC, tol<T>(100) * max_abs(C3), "C merged vs locked");
}

// <inertial rpy> rotates the inertia's axes: diag(1, 2, 3) turned by yaw = π/2 about z is
// diag(2, 1, 3) in the link frame (R I Rᵀ with R = Rz(π/2)). π/2 is given to 60 digits, so the
// 50-digit model sees it to 50 digits.
TYPED_TEST(ModelIo, InertialRpyRotatesInertiaAsRIRt) {
  using T = TypeParam;
  const std::string urdf = R"(<robot name="r"><link name="base"/><link name="a"><inertial>
    <origin xyz="0 0 0" rpy="0 0 1.57079632679489661923132169163975144209858469968755291048747"/><mass value="2"/>
    <inertia ixx="1" iyy="2" izz="3" ixy="0" ixz="0" iyz="0"/></inertial></link>
    <joint name="j" type="revolute"><parent link="base"/><child link="a"/><axis xyz="1 0 0"/></joint></robot>)";
  const Model<T> m = build_model<T>(read_urdf(urdf, "r.urdf"));
  Mat3<T> expect = Mat3<T>::Zero();
  expect.diagonal() << T(2), T(1), T(3);
  const Mat3<T> Ic = m.I[0].M.template topLeftCorner<3, 3>();  // COM at the origin: Ic itself
  RBD_EXPECT_RESIDUAL(max_abs(Mat3<T>(Ic - expect)), tol<T>(16), "R I Rᵀ");
}

// --floating-base: the root gets a free joint (nq 7, nv 6) and keeps its inertia; the linear
// block of H is the total mass times the identity (body coordinates, RBDA §6.2).
TYPED_TEST(ModelIo, FloatingBaseAddsFreeJoint) {
  using T = TypeParam;
  UrdfOptions o;
  o.floating_base = true;
  const Model<T> m = build_model<T>(read_urdf(chain("revolute"), "c.urdf", o));
  ASSERT_EQ(m.nq, 7 + 3);
  ASSERT_EQ(m.nv, 6 + 3);
  EXPECT_EQ(m.joint[0].type, JointType::Free);
  VecX<T> q = VecX<T>::Zero(m.nq);
  q(0) = T(1) / T(2);
  q(1) = T(1) / T(2);
  q(2) = T(-1) / T(2);
  q(3) = T(1) / T(2);
  for (int k = 7; k < m.nq; ++k) q(k) = T(k) / T(10);
  const MatX<T> H = crba<T>(m, q);
  const T mtotal = from_decimal<T>("1.3") * T(3);  // A, B, C each 1.3 kg; the base link is massless
  const Mat3<T> lin = H.block(3, 3, 3, 3);
  RBD_EXPECT_RESIDUAL(max_abs(Mat3<T>(lin - mtotal * Mat3<T>::Identity())), tol<T>(64) * 6, "H_linear = m 1");
}

// Numbers from URDF text are decimals at the working precision: the 1.3 kg mass is 13/10 to the
// last digit of T, not the double nearest 1.3 (which differs from it in the 17th digit).
TYPED_TEST(ModelIo, UrdfDecimalsAreReadAtWorkingPrecision) {
  using T = TypeParam;
  const Model<T> m = build_model<T>(read_urdf(chain("revolute"), "c.urdf"));
  EXPECT_EQ(m.I[0].mass(), T(13) / T(10));
  if (std::numeric_limits<T>::digits > 60) {
    EXPECT_NE(m.I[0].mass(), T(1.3));
  }
}

// Axes are normalized, and a negative axis stays negative.
TEST(ModelIo, AxisIsNormalizedKeepingDirection) {
  const Model<bin50> m = build_model<bin50>(read_urdf(chain("revolute"), "c.urdf"));
  const bin50 s = sqrt(bin50(2)) / bin50(2);
  EXPECT_LE(static_cast<double>(bin50(abs(bin50(m.joint[1].axis(0) - s)))), 1e-49);
  EXPECT_LE(static_cast<double>(bin50(abs(bin50(m.joint[1].axis(1) - s)))), 1e-49);
  EXPECT_EQ(m.joint[2].axis(1), bin50(-1));
}

// An axis of any size a double holds normalizes to its direction, bit for bit the axis of ordinary
// size: its length squared would underflow (1e-200, the smallest subnormal) or overflow (1e300)
// in double, which used to make a "zero axis" (and a zero axis at 1e300, silently).
template <class T>
void expect_axis_of_any_size(const char* what) {
  for (const char* axis : {"0 1e-200 0", "0 4.9e-324 0", "0 1e300 0", "0 -1e-200 0", "3e-200 4e-200 0", "3e300 4e300 0"}) {
    std::string urdf = chain("revolute");
    const std::string from = R"(<axis xyz="1 1 0"/>)";
    urdf.replace(urdf.find(from), from.size(), std::string(R"(<axis xyz=")") + axis + "\"/>");
    const Model<T> m = build_model<T>(read_urdf(urdf, "c.urdf"));
    const std::string sign = axis[2] == '-' ? "-" : "";
    const bool pythagorean = std::string(axis)[0] == '3';
    const Vec3<T> expect = pythagorean ? Vec3<T>(T(3) / T(5), T(4) / T(5), T(0)) : Vec3<T>(T(0), T(sign.empty() ? 1 : -1), T(0));
    for (int k = 0; k < 3; ++k) {
      using std::abs;
      EXPECT_LE(static_cast<double>(T(abs(T(m.joint[1].axis(k) - expect(k))))), static_cast<double>(std::numeric_limits<T>::epsilon()))
          << what << " axis " << axis << " [" << k << "]";
    }
  }
}

TEST(ModelIo, AxisOfAnySizeIsItsDirection) {
  expect_axis_of_any_size<double>("double");
  expect_axis_of_any_size<bin50>("bin50");
}

// Canonical JSON: write then read gives the same description (numbers keep their text or their
// exact double), and the same model at 50 digits.
TEST(ModelIo, CanonicalJsonRoundTrips) {
  const ModelDesc d = read_urdf(chain("fixed"), "c.urdf");
  const json j = model_to_json(d);
  const ModelDesc e = read_model_json(json::parse(j.dump()), "c.json");
  EXPECT_EQ(model_to_json(e), j);
  const Model<bin50> a = build_model<bin50>(d), b = build_model<bin50>(e);
  ASSERT_EQ(a.NB, b.NB);
  for (int i = 0; i < a.NB; ++i) {
    EXPECT_EQ(a.I[i].M, b.I[i].M);
    EXPECT_EQ(a.Xtree[i].matrix(), b.Xtree[i].matrix());
  }
}

}  // namespace
}  // namespace rbd::test

namespace rbd::test {
namespace {

// A point mass (zero rotational inertia) is a valid body: a pendulum of one has H = m l².
TEST(ModelIo, PointMassIsAccepted) {
  const std::string urdf = R"(<robot name="p"><link name="base"/><link name="bob"><inertial>
    <origin xyz="0.5 0 0"/><mass value="2"/><inertia ixx="0" iyy="0" izz="0" ixy="0" ixz="0" iyz="0"/></inertial></link>
    <joint name="j" type="continuous"><parent link="base"/><child link="bob"/><axis xyz="0 1 0"/></joint></robot>)";
  const Model<bin50> m = build_model<bin50>(read_urdf(urdf, "p.urdf"));
  VecX<bin50> q(1);
  q << bin50(1) / bin50(3);
  EXPECT_EQ(crba<bin50>(m, q)(0, 0), bin50(1) / bin50(2));  // 2 kg · (0.5 m)², exact in binary
}

}  // namespace
}  // namespace rbd::test
