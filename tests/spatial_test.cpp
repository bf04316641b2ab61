// Identities of spatial algebra (seed 003 §2-3), at double and at 50 digits.
#include "tests/test_util.hpp"

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

TYPED_TEST(Spatial, RigidInertiaTransformMatchesDense) {
  using T = TypeParam;
  Rand r;
  for (int n = 0; n < 200; ++n) {
    const Xform<T> X(r.rotation<T>(), r.vec3<T>(-2, 2));
    const Mat6<T> I = random_rigid_inertia<T>(r);
    const Mat6<T> dense = transform_inertia_to_parent<T>(X, I);
    const Mat6<T> fast = transform_rigid_inertia_to_parent<T>(X, I);
    RBD_EXPECT_RESIDUAL(max_abs(Mat6<T>(fast - dense)) / max_abs(dense), tol<T>(100), "rigid XᵀIX vs dense");
    // and the rigid-body product I v from the 10 parameters
    const Motion<T> v(r.vec6<T>());
    const Vec6<T> Iv = I * v.c;
    RBD_EXPECT_RESIDUAL(max_abs(Vec6<T>(rigid_inertia_times<T>(I, v).c - Iv)) / max_abs(Iv), tol<T>(100),
                        "rigid I v vs dense");
  }
}

TYPED_TEST(Spatial, ArticulatedInertiaTransformMatchesDense) {
  using T = TypeParam;
  Rand r;
  for (int n = 0; n < 200; ++n) {
    const Xform<T> X(r.rotation<T>(), r.vec3<T>(-2, 2));
    const Mat6<T> I = random_spd6<T>(r);
    const Mat6<T> dense = transform_inertia_to_parent<T>(X, I);
    const Mat6<T> fast = transform_articulated_inertia_to_parent<T>(X, I);
    RBD_EXPECT_RESIDUAL(max_abs(Mat6<T>(fast - dense)) / max_abs(dense), tol<T>(100), "block XᵀIX vs dense");
    EXPECT_EQ(max_abs(Mat6<T>(fast - fast.transpose())), 0.0);  // exactly symmetric
  }
}

}  // namespace
}  // namespace rbd::test
