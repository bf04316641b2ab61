// Identities of spatial algebra (RBDA ch. 2; Carius's spatial-algebra notes, 2018), at double and at 50 digits.
#include "reference/tree/build_model.hpp"
#include "reference/tree/kinematics.hpp"
#include "tests/test_util.hpp"
#include "tests/tree_cases.hpp"

namespace rbd::test {
namespace {

template <class T>
class Spatial : public ::testing::Test {};
TYPED_TEST_SUITE(Spatial, Scalars);

template <class T>
Xform<T> random_xform(Rand& r) {
  return Xform<T>(r.rotation<T>(), r.vec3<T>());
}

// X X⁻¹ = 1 (eq. 13), as matrices and through the inverse applied to a motion.
TYPED_TEST(Spatial, InverseComposesToIdentity) {
  using T = TypeParam;
  Rand r;
  for (int n = 0; n < 20; ++n) {
    const Xform<T> X = random_xform<T>(r);
    const Mat6<T> P = X.matrix() * X.inverse().matrix();
    RBD_EXPECT_RESIDUAL(max_abs(Mat6<T>(P - Mat6<T>::Identity())), tol<T>(32), "X X⁻¹ - 1");
    const Motion<T> m(r.vec6<T>());
    RBD_EXPECT_RESIDUAL(max_abs(Vec6<T>(X.apply_inverse(X.apply(m)).c - m.c)), tol<T>(32), "X⁻¹ (X m) - m");
  }
}

// crf(v) = -crm(v)ᵀ (eqs. 9-10), and the matrices agree with the vector products.
TYPED_TEST(Spatial, ForceCrossIsMinusMotionCrossTranspose) {
  using T = TypeParam;
  Rand r;
  for (int n = 0; n < 20; ++n) {
    const Motion<T> v(r.vec6<T>()), m(r.vec6<T>());
    const Force<T> f(r.vec6<T>());
    EXPECT_EQ(max_abs(Mat6<T>(crf_matrix<T>(v) + crm_matrix<T>(v).transpose())), 0.0);
    RBD_EXPECT_RESIDUAL(max_abs(Vec6<T>(crm_matrix<T>(v) * m.c - crm<T>(v, m).c)), tol<T>(8), "v×m matrix vs vector");
    RBD_EXPECT_RESIDUAL(max_abs(Vec6<T>(crf_matrix<T>(v) * f.c - crf<T>(v, f).c)), tol<T>(8), "v×*f matrix vs vector");
    // v × v = 0, and power is invariant: (v ×* f) · m = -f · (v × m).
    EXPECT_EQ(max_abs(crm<T>(v, v).c), 0.0);
    const T p1 = dot(crf<T>(v, f), m), p2 = -dot(f, crm<T>(v, m));
    RBD_EXPECT_RESIDUAL(static_cast<double>(T(abs(T(p1 - p2)))), tol<T>(16), "(v×*f)·m + f·(v×m)");
  }
}

// X* = X⁻ᵀ (eq. 14), apply_force and apply_transpose agree with the matrices, and power is
// frame-invariant: (X* f) · (X m) = f · m.
TYPED_TEST(Spatial, ForceTransformIsInverseTranspose) {
  using T = TypeParam;
  Rand r;
  for (int n = 0; n < 20; ++n) {
    const Xform<T> X = random_xform<T>(r);
    const Mat6<T> Xm = X.matrix();
    RBD_EXPECT_RESIDUAL(max_abs(Mat6<T>(X.force_matrix() - Xm.inverse().transpose())), tol<T>(64), "X* - X⁻ᵀ");
    const Force<T> f(r.vec6<T>());
    const Motion<T> m(r.vec6<T>());
    RBD_EXPECT_RESIDUAL(max_abs(Vec6<T>(X.apply_force(f).c - X.force_matrix() * f.c)), tol<T>(16), "apply_force");
    RBD_EXPECT_RESIDUAL(max_abs(Vec6<T>(X.apply_transpose(f).c - Xm.transpose() * f.c)), tol<T>(16), "apply_transpose");
    RBD_EXPECT_RESIDUAL(max_abs(Vec6<T>(X.apply(m).c - Xm * m.c)), tol<T>(16), "apply");
    const T p = dot(X.apply_force(f), X.apply(m)) - dot(f, m);
    RBD_EXPECT_RESIDUAL(static_cast<double>(T(abs(p))), tol<T>(32), "power invariance");
  }
}

// Composition: (CXB BXA) as Xform equals the product of the 6x6 matrices.
TYPED_TEST(Spatial, CompositionIsMatrixProduct) {
  using T = TypeParam;
  Rand r;
  for (int n = 0; n < 20; ++n) {
    const Xform<T> A = random_xform<T>(r), B = random_xform<T>(r);
    RBD_EXPECT_RESIDUAL(max_abs(Mat6<T>((A * B).matrix() - A.matrix() * B.matrix())), tol<T>(32), "composition");
  }
}

// Transform derivative (eq. 16) against a central difference at 100 digits along a screw motion:
// B moves with constant body velocity vB relative to a fixed A, X(t) = BXA(t); a central difference
// with h = 1e-30 has truncation error ~h² = 1e-60 and rounding ~ε/h = 1e-70.
TEST(Spatial, TransformDerivativeMatchesCentralDifference) {
  using T = bin100;
  Rand r;
  const Xform<T> X0 = random_xform<T>(r);
  Vec3<T> w = r.vec3<T>();
  const Vec3<T> v = r.vec3<T>();
  const T h = from_decimal<T>("1e-30");
  // B's frame at time t, for constant angular velocity w and linear velocity v of B's origin,
  // both in B coordinates: BXA(t) = exp(-t vB×) BXA(0), the exponential of a screw: rotation
  // about w by |w| t with the translation integrated in closed form.
  auto X_at = [&](const T& t) {
    const T th = w.norm() * t;
    const Vec3<T> a = w / w.norm();
    const Mat3<T> Rt = axis_angle<T>(a, th);  // B(t) axes in B(0)
    // Origin of B(t) in B(0): ∫ R(s) v ds = (t a aᵀ + sinθ/|w| 1 + (1 - cosθ)/|w| a×) v.
    using std::cos;
    using std::sin;
    const Mat3<T> Q = t * a * a.transpose() + (sin(th) / w.norm()) * (Mat3<T>::Identity() - a * a.transpose()) +
                      ((T(1) - cos(th)) / w.norm()) * skew<T>(a);
    const Xform<T> step(Mat3<T>(Rt.transpose()), Vec3<T>(Q * v));  // B(t) X B(0)
    return step * X0;
  };
  const Mat6<T> fd = (X_at(h).matrix() - X_at(-h).matrix()) / (T(2) * h);
  const Mat6<T> an = xform_derivative<T>(X0, Motion<T>(), Motion<T>(w, v));
  RBD_EXPECT_RESIDUAL(max_abs(Mat6<T>(fd - an)), 1e-55, "dX/dt vs central difference");
}

// mcI (eqs. 17-18) and the inertia transform (eq. 20): a body's inertia moved to another frame by
// Xᵀ I X equals mcI built directly in that frame from the moved COM and rotated Ic; and the
// combined inertia of two bodies (eq. 19) has the total mass and the mass-weighted COM.
TYPED_TEST(Spatial, InertiaTransformMatchesMcIInNewFrame) {
  using T = TypeParam;
  Rand r;
  for (int n = 0; n < 10; ++n) {
    const T m = T(r(0.5, 3));
    const Vec3<T> c = r.vec3<T>();
    const Mat3<T> E0 = r.rotation<T>();
    const Mat3<T> Ic = E0 * Vec3<T>(T(r(0.2, 0.4)), T(r(0.2, 0.4)), T(r(0.2, 0.4))).asDiagonal() * E0.transpose();
    const Inertia<T> IB = Inertia<T>::mcI(m, c, Ic);
    const Xform<T> X = random_xform<T>(r);  // BXA
    // In A: COM at r + Eᵀ c, rotational inertia Eᵀ Ic E.
    const Inertia<T> IA = Inertia<T>::mcI(m, Vec3<T>(X.r + X.E.transpose() * c), Mat3<T>(X.E.transpose() * Ic * X.E));
    RBD_EXPECT_RESIDUAL(max_abs(Mat6<T>(transform_inertia_to_parent<T>(X, IB.M) - IA.M)), tol<T>(64), "Xᵀ I X vs mcI");
    RBD_EXPECT_RESIDUAL(max_abs(Vec3<T>(IA.com() - Vec3<T>(X.r + X.E.transpose() * c))), tol<T>(64), "com()");
    const Inertia<T> sum = IB + IB;
    RBD_EXPECT_RESIDUAL(static_cast<double>(T(abs(T(sum.mass() - T(2) * m)))), tol<T>(4), "combined mass");
    RBD_EXPECT_RESIDUAL(max_abs(Vec3<T>(sum.com() - c)), tol<T>(16), "combined COM");
  }
}

// The structured inertia transforms (RBDA table 2.5; spatial.hpp) against the book's dense
// BXAᵀ I BXA (transform_inertia_to_parent), on 200 random transforms and inertias (fixed seed):
// rigid-body inertias mcI for the 10-parameter form (CRBA's composites), general symmetric
// positive-definite 6x6 for the block form (ABA's articulated inertias). Agreement to ~1e-13
// relative at double and ~1e-48 at bin50, i.e. rounding only.
template <class T>
Mat6<T> random_rigid_inertia(Rand& r) {
  const Mat3<T> R = r.rotation<T>();
  const Vec3<T> l = r.vec3<T>(0.1, 2);
  const Mat3<T> Ic = R * l.asDiagonal() * R.transpose();
  return Inertia<T>::mcI(T(r(0.1, 5)), r.vec3<T>(-1, 1), Ic).M;
}
template <class T>
Mat6<T> random_spd6(Rand& r) {
  Mat6<T> B;
  for (int j = 0; j < 6; ++j) B.col(j) = r.vec6<T>();
  return Mat6<T>(B * B.transpose() + Mat6<T>::Identity() / T(10));
}

// For 200 draws of X (any rotation, a translation within ±2) and I = inertia(r): the structured
// transform(X, I) against the dense product within 100 ε relative, then more(r, I, transform(X, I)).
template <class T, class Inertia, class Transform, class More>
void expect_inertia_transform_matches_dense(Inertia inertia, Transform transform, const std::string& what, More more) {
  Rand r;
  for (int n = 0; n < 200; ++n) {
    const Xform<T> X(r.rotation<T>(), r.vec3<T>(-2, 2));
    const Mat6<T> I = inertia(r);
    const Mat6<T> dense = transform_inertia_to_parent<T>(X, I);
    const Mat6<T> fast = transform(X, I);
    RBD_EXPECT_RESIDUAL(max_abs(Mat6<T>(fast - dense)) / max_abs(dense), tol<T>(100), what);
    more(r, I, fast);
  }
}

TYPED_TEST(Spatial, RigidInertiaTransformMatchesDense) {
  using T = TypeParam;
  expect_inertia_transform_matches_dense<T>(
      random_rigid_inertia<T>, [](const Xform<T>& X, const Mat6<T>& I) { return transform_rigid_inertia_to_parent<T>(X, I); },
      "rigid XᵀIX vs dense", [](Rand& r, const Mat6<T>& I, const Mat6<T>&) {
        // and the rigid-body product I v from the 10 parameters
        const Motion<T> v(r.vec6<T>());
        const Vec6<T> Iv = I * v.c;
        RBD_EXPECT_RESIDUAL(max_abs(Vec6<T>(rigid_inertia_times<T>(I, v).c - Iv)) / max_abs(Iv), tol<T>(100),
                            "rigid I v vs dense");
      });
}

// CRBA's IC_λ += Xup_iᵀ IC_i Xup_i (add_rigid_inertia_to_parent: at double its own scalar code,
// at the other scalars the transform and a sum) against the dense product added to the same
// starting composite, within 100 ε relative to the sum; acc starts as a rigid-body inertia, so
// the skipped zero entries must stay what they were.
TYPED_TEST(Spatial, RigidInertiaAddedToParentMatchesDense) {
  using T = TypeParam;
  Rand r;
  for (int n = 0; n < 200; ++n) {
    const Xform<T> X(r.rotation<T>(), r.vec3<T>(-2, 2));
    const Mat6<T> I = random_rigid_inertia<T>(r), J = random_rigid_inertia<T>(r);
    const Mat6<T> acc0 = (J + J.transpose()) / T(2);  // exactly symmetric, as CRBA's composites
    Mat6<T> acc = acc0, scratch;
    add_rigid_inertia_to_parent<T>(X, I, acc, scratch);
    const Mat6<T> dense = Mat6<T>(acc0 + transform_inertia_to_parent<T>(X, I));
    RBD_EXPECT_RESIDUAL(max_abs(Mat6<T>(acc - dense)) / max_abs(dense), tol<T>(100), "IC += XᵀIX vs dense");
    EXPECT_EQ(max_abs(Mat6<T>(acc - acc.transpose())), 0.0);  // exactly symmetric
  }
}

TYPED_TEST(Spatial, ArticulatedInertiaTransformMatchesDense) {
  using T = TypeParam;
  expect_inertia_transform_matches_dense<T>(
      random_spd6<T>, [](const Xform<T>& X, const Mat6<T>& I) { return transform_articulated_inertia_to_parent<T>(X, I); },
      "block XᵀIX vs dense", [](Rand&, const Mat6<T>&, const Mat6<T>& fast) {
        EXPECT_EQ(max_abs(Mat6<T>(fast - fast.transpose())), 0.0);  // exactly symmetric
      });
}

// The coordinate-axis shortcuts are the general products with the products by exact zeros and
// ones left out, so they must agree to the last bit, not within a tolerance: XJ Xtree for XJ =
// rotx/roty/rotz (either sign of θ), v × (s e_a) for every a, and Xᵀ f written in place.
TYPED_TEST(Spatial, CoordinateAxisShortcutsAreTheGeneralProductsExactly) {
  using T = TypeParam;
  Rand r;
  for (int n = 0; n < 30; ++n)
    for (int k = 0; k < 3; ++k) {
      const T th = r.vec3<T>()(0) * T(4);
      const Xform<T> XJ = Xform<T>::rot(coordinate_rotation_E<T>(k, n % 2 ? th : T(-th)));
      const Xform<T> Xtree = random_xform<T>(r);
      const Xform<T> fast = XJ.compose_coordinate_rotation(k, Xtree), general = XJ * Xtree;
      EXPECT_EQ(max_abs(Mat3<T>(fast.E - general.E)), 0.0) << "k " << k;
      EXPECT_EQ(max_abs(Vec3<T>(fast.r - general.r)), 0.0) << "k " << k;
    }
  for (int n = 0; n < 30; ++n) {
    const Motion<T> v(r.vec6<T>());
    const T s = r.vec3<T>()(1);
    for (int a = 0; a < 6; ++a) {
      Vec6<T> e = Vec6<T>::Zero();
      e(a) = s;
      EXPECT_EQ(max_abs(Vec6<T>(crm_unit<T>(v, a, s).c - crm<T>(v, Motion<T>(e)).c)), 0.0) << "a " << a;
    }
    const Xform<T> X = random_xform<T>(r);
    const Force<T> f(r.vec6<T>());
    Mat6K<T> F(6, 2);
    F.col(0) = f.c;
    F.col(1) = -f.c;
    X.transpose_into(F.col(1), F.col(1));
    EXPECT_EQ(max_abs(Vec6<T>(F.col(1) + X.apply_transpose(f).c)), 0.0);
    EXPECT_EQ(max_abs(Vec6<T>(F.col(0) - f.c)), 0.0);  // the other column untouched
  }
}

// kinematics() takes the shortcuts where jcalc says they apply (revolute joints about ±e_k:
// XJ_axis; S = e_a: crm_unit); on trees whose joints are all about coordinate axes, of both
// signs, every Xup_i and c_i equals the general XJ Xtree and cJ + v × vJ to the last bit.
TYPED_TEST(Spatial, KinematicsShortcutsEqualTheGeneralProducts) {
  using T = TypeParam;
  int shortcuts = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    TreeSpec spec = tree_spec(8, 1.0, seed % 2 == 0);
    spec.joints = {JointType::Revolute, JointType::Prismatic, JointType::Revolute, JointType::Spherical};
    ModelDesc d = random_tree(spec, seed);
    for (std::size_t i = 0; i < d.bodies.size(); ++i) {
      const int k = static_cast<int>((i + seed) % 3);
      const double sign = (i / 3 + seed) % 2 ? -1.0 : 1.0;
      d.bodies[i].joint.axis = {Num::exact(k == 0 ? sign : 0.0), Num::exact(k == 1 ? sign : 0.0), Num::exact(k == 2 ? sign : 0.0)};
    }
    const RandomCase<T> c = random_case<T>(d, seed, 2.0);
    const Model<T>& m = c.model;
    const VecX<T>& q = c.q, &qd = c.qd;
    const TreeKinematics<T> k = kinematics<T>(m, q, qd, kVelocities);
    for (int i = 0; i < m.NB; ++i) {
      const JointKinematics<T> J = jcalc<T>(m.joint[i], q.data() + m.iq[i], qd.data() + m.iv[i]);
      shortcuts += J.XJ_axis >= 0;
      const Xform<T> X = J.XJ * m.Xtree[i];
      EXPECT_EQ(max_abs(Mat3<T>(k.Xup[i].E - X.E)), 0.0) << "body " << i;
      EXPECT_EQ(max_abs(Vec3<T>(k.Xup[i].r - X.r)), 0.0) << "body " << i;
      EXPECT_EQ(max_abs(Vec6<T>(k.c[i].c - (J.cJ + crm<T>(k.v[i], J.vJ)).c)), 0.0) << "body " << i;
    }
  }
  EXPECT_GT(shortcuts, 10);  // the shortcut was taken, with both signs of the axis
}

// The in-place forms of the hot products (spatial.hpp, kInPlace: mul_to / add_to / sub_to into the
// result, no temporary per operation) against the Eigen expressions they stand for, at every
// scalar that takes them: equal entry for entry and bit for bit (value and sign of zero), not only
// up to rounding, since each does the same operations in the same association. mpfr at 50 digits.
// Each association was planted wrong once (a 3-term sum left to right, ABA's run-time-depth sum
// right to left, the 6-term sum split differently): the comparison fails at every scalar (and at
// float128, while it was in the list).
template <class T>
class InPlace : public ::testing::Test {};
// bin50 stands for the scalars whose in-place forms are the operators themselves (float128,
// bin100: the same template code); mpfr and mpfr50 take mpfr_mul etc. A fourth type added
// compile time for no path of its own.
using InPlaceScalars = ::testing::Types<bin50, mpfr, mpfr50>;
TYPED_TEST_SUITE(InPlace, InPlaceScalars);

template <class A, class B>
void expect_same_bits(const Eigen::MatrixBase<A>& a, const Eigen::MatrixBase<B>& b, const std::string& what) {
  using std::signbit;
  using boost::multiprecision::signbit;
  ASSERT_EQ(a.rows(), b.rows());
  ASSERT_EQ(a.cols(), b.cols());
  for (Eigen::Index j = 0; j < a.cols(); ++j)
    for (Eigen::Index i = 0; i < a.rows(); ++i)
      EXPECT_TRUE(a(i, j) == b(i, j) && signbit(a(i, j)) == signbit(b(i, j)))
          << what << " (" << i << ", " << j << "): " << to_decimal(a(i, j)) << " vs " << to_decimal(b(i, j));
}

TYPED_TEST(InPlace, EqualsTheEigenExpressionsBitForBit) {
  using T = TypeParam;
  static_assert(kInPlace<T>);
  ScopedMpfrDigits digits(50);
  Rand r;
  // Random doubles divided by 3 and 7: full mantissas in T. (Products of two doubles are exact at
  // 50 digits, and so are many of their sums; then every association gives the same bits and the
  // comparison could not see a wrong one.)
  const auto full6 = [&r] { return Vec6<T>(r.vec6<T>() / T(3)); };
  for (int n = 0; n < 40; ++n) {
    const Xform<T> X(r.rotation<T>(), Vec3<T>(r.vec3<T>(-2, 2) / T(7)));
    const Motion<T> v(full6()), m(full6());
    const Force<T> f(full6());
    const Mat6<T> I = random_rigid_inertia<T>(r), IA0 = random_rigid_inertia<T>(r);
    const std::string at = " #" + std::to_string(n);
    expect_same_bits(X.apply(m).c, X.apply_expr(m).c, "X m" + at);
    Motion<T> Xm;
    X.apply_into(m, Xm);
    expect_same_bits(Xm.c, X.apply_expr(m).c, "apply_into" + at);
    Vec6<T> fe, g = f.c;
    X.transpose_into_expr(f.c, fe);
    expect_same_bits(X.apply_transpose(f).c, fe, "Xᵀ f" + at);
    X.transpose_into(g, g);  // in place, as CRBA takes F's columns to the parent
    expect_same_bits(g, fe, "Xᵀ f in place" + at);
    expect_same_bits(crm<T>(v, m).c, crm_expr<T>(v, m).c, "v × m" + at);
    expect_same_bits(crf<T>(v, f).c, crf_expr<T>(v, f).c, "v ×* f" + at);
    expect_same_bits(rigid_inertia_times<T>(I, v).c, rigid_inertia_times_expr<T>(I, v).c, "I v" + at);
    expect_same_bits(transform_rigid_inertia_to_parent<T>(X, I), transform_rigid_inertia_to_parent_expr<T>(X, I),
                     "XᵀIX rigid" + at);
    {
      Mat6<T> acc = IA0, scratch;
      add_rigid_inertia_to_parent<T>(X, I, acc, scratch);
      expect_same_bits(acc, Mat6<T>(IA0 + transform_rigid_inertia_to_parent_expr<T>(X, I)), "IC += XᵀIX rigid" + at);
    }
    const Mat6<T> IA = random_spd6<T>(r);
    expect_same_bits(transform_articulated_inertia_to_parent<T>(X, IA),
                     transform_articulated_inertia_to_parent_expr<T>(X, IA), "XᵀIX articulated" + at);
    // ABA's products: Ia -= U D⁻¹Uᵀ (depth k = nvi, known at run time) and pa += Ia c
    {
      const int k = 1 + n % 6;
      Mat6K<T> U(6, k);
      MatK<T> B(k, 6);
      for (int c = 0; c < k; ++c) U.col(c) = full6(), B.row(c) = full6().transpose();
      Mat6<T> a = IA, b = IA;
      T s1, s2, s3;
      inplace::sub_product_6k_k6<T>(a, s1, s2, U, B);
      b.noalias() -= U * B;
      expect_same_bits(a, b, "Ia -= U B, k " + std::to_string(k) + at);
      Vec6<T> x = f.c, y = f.c;
      inplace::add_mat6_vec<T>(x, s1, s2, s3, IA, m.c);
      y.noalias() += IA * m.c;
      expect_same_bits(x, y, "p += I c" + at);
    }
    for (int k = 0; k < 3; ++k) {
      const Xform<T> XJ = Xform<T>::rot(coordinate_rotation_E<T>(k, T(v.c(k) * T(3))));
      Xform<T> a, b;
      XJ.compose_coordinate_rotation_into(k, X, a);
      XJ.compose_coordinate_rotation_expr(k, X, b);
      expect_same_bits(a.E, b.E, "XJ Xtree E, k " + std::to_string(k) + at);
      expect_same_bits(a.r, b.r, "XJ Xtree r, k " + std::to_string(k) + at);
    }
  }
  // The default values, set entry by entry: zero motion and force, identity transform.
  expect_same_bits(Motion<T>().c, Vec6<T>(Vec6<T>::Zero()), "Motion()");
  expect_same_bits(Force<T>().c, Vec6<T>(Vec6<T>::Zero()), "Force()");
  expect_same_bits(Xform<T>().E, Mat3<T>(Mat3<T>::Identity()), "Xform().E");
  expect_same_bits(Xform<T>().r, Vec3<T>(Vec3<T>::Zero()), "Xform().r");
}

// mpfr's in-place arithmetic keeps the operators' precision rule when the operands' precisions
// differ (Boost: the result has the larger precision): the same value and precision as r = a * b.
TEST(InPlace, MixedMpfrPrecisionsFallBackToTheOperators) {
  ScopedMpfrDigits d30(30);
  const mpfr a = mpfr(1) / mpfr(3);
  mpfr r;
  {
    ScopedMpfrDigits d60(60);
    const mpfr b = mpfr(2) / mpfr(7);
    mul_to(r, a, b);
    const mpfr expect = a * b;
    EXPECT_EQ(r.precision(), expect.precision());
    EXPECT_EQ(r, expect);
    EXPECT_EQ(r.precision(), 60u);
    add_to(r, a, b);
    EXPECT_EQ(r, mpfr(a + b));
    sub_to(r, b, a);
    EXPECT_EQ(r, mpfr(b - a));
  }
}

}  // namespace
}  // namespace rbd::test
