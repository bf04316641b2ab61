// Spatial (6-D) algebra in Plücker coordinates, [angular; linear] order (RBDA ch. 2; seed
// 003_a9d22234e257a890.txt, eqs. 9-21).
//
//   Motion<T>   m = [ω; v]   velocities, accelerations, motion-subspace columns (space M⁶)
//   Force<T>    f = [n; f]   forces, momenta (space F⁶)
//   Xform<T>    BXA, a Plücker transform from A to B coordinates, stored as (E, r):
//               E = rotation from A to B coordinates (3x3), r = origin of B expressed in A (3).
//               BXA = [E 0; -E r× E]                                        (seed 003 eq. 11)
//   Inertia<T>  a spatial inertia, a symmetric 6x6 matrix in one frame      (seed 003 eq. 17)
//
// Motion and Force are different types, so that a motion is never transformed like a force nor
// added to one. The only products between them are the scalar product f·m (power) and the
// cross products m × m (crm, eq. 9) and m ×* f (crf, eq. 10).
#pragma once

#include "reference/scalar.hpp"

#include <Eigen/Dense>

namespace rbd {

// The small products of the per-body recursions (Xform::apply, crm, crf, I v, ...) are inlined
// where they are used: at double, a call per product costs as much as its arithmetic, and GCC's
// -O2 heuristics stop inlining them once they are written as block expressions.
#define RBDREF_HOT inline __attribute__((always_inline))

template <class T>
using Vec3 = Eigen::Matrix<T, 3, 1>;
template <class T>
using Mat3 = Eigen::Matrix<T, 3, 3>;
template <class T>
using Vec6 = Eigen::Matrix<T, 6, 1>;
template <class T>
using Mat6 = Eigen::Matrix<T, 6, 6>;
template <class T>
using VecX = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <class T>
using MatX = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
// max |x_i| (0 for an empty x), at the scalar's precision.
template <class T>
T max_abs_vec(const VecX<T>& x) {
  using std::abs;
  T m(0);
  for (Eigen::Index i = 0; i < x.size(); ++i)
    if (abs(x(i)) > m) m = abs(x(i));
  return m;
}
// 6 x k with k <= 6, stored without heap allocation (motion subspaces S, force subspaces T).
template <class T>
using Mat6K = Eigen::Matrix<T, 6, Eigen::Dynamic, 0, 6, 6>;
// k-vectors with k <= 6 (joint velocities, joint forces of one joint).
template <class T>
using VecK = Eigen::Matrix<T, Eigen::Dynamic, 1, 0, 6, 1>;
template <class T>
using MatK = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>;

// r× : the 3x3 cross-product matrix, r× x = r × x (seed 003 eq. 1).
template <class T>
Mat3<T> skew(const Vec3<T>& r) {
  Mat3<T> m;
  m << T(0), -r(2), r(1),  //
      r(2), T(0), -r(0),   //
      -r(1), r(0), T(0);
  return m;
}

template <class T>
struct Motion {
  Vec6<T> c = Vec6<T>::Zero();  // [ω; v]
  Motion() = default;
  explicit Motion(const Vec6<T>& c_) : c(c_) {}
  Motion(const Vec3<T>& ang, const Vec3<T>& lin) : c() { c.template head<3>() = ang; c.template tail<3>() = lin; }
  Vec3<T> ang() const { return c.template head<3>(); }
  Vec3<T> lin() const { return c.template tail<3>(); }
  Motion operator+(const Motion& o) const { return Motion(Vec6<T>(c + o.c)); }
  Motion operator-(const Motion& o) const { return Motion(Vec6<T>(c - o.c)); }
  Motion operator-() const { return Motion(Vec6<T>(-c)); }
  Motion& operator+=(const Motion& o) { c += o.c; return *this; }
  friend Motion operator*(const T& s, const Motion& m) { return Motion(Vec6<T>(s * m.c)); }
};

template <class T>
struct Force {
  Vec6<T> c = Vec6<T>::Zero();  // [n; f]
  Force() = default;
  explicit Force(const Vec6<T>& c_) : c(c_) {}
  Force(const Vec3<T>& ang, const Vec3<T>& lin) : c() { c.template head<3>() = ang; c.template tail<3>() = lin; }
  Vec3<T> ang() const { return c.template head<3>(); }
  Vec3<T> lin() const { return c.template tail<3>(); }
  Force operator+(const Force& o) const { return Force(Vec6<T>(c + o.c)); }
  Force operator-(const Force& o) const { return Force(Vec6<T>(c - o.c)); }
  Force operator-() const { return Force(Vec6<T>(-c)); }
  Force& operator+=(const Force& o) { c += o.c; return *this; }
  Force& operator-=(const Force& o) { c -= o.c; return *this; }
  friend Force operator*(const T& s, const Force& f) { return Force(Vec6<T>(s * f.c)); }
};

// f · m: the power of force f on motion m (the only scalar product; seed 003 §2.2).
template <class T>
T dot(const Force<T>& f, const Motion<T>& m) {
  return f.c.dot(m.c);
}

// v × m (seed 003 eq. 9): [ω × mω; ω × mv + v × mω].
template <class T>
RBDREF_HOT Motion<T> crm(const Motion<T>& v, const Motion<T>& m) {
  const auto w = v.c.template head<3>(), vo = v.c.template tail<3>();
  const auto ma = m.c.template head<3>(), ml = m.c.template tail<3>();
  Motion<T> out;
  out.c.template head<3>() = w.cross(ma);
  out.c.template tail<3>() = w.cross(ml) + vo.cross(ma);
  return out;
}

// v × (s e_a), e_a the a-th unit coordinate motion (a = 0..5): s times column a of the 6x6
// matrix v× (crm_matrix), i.e. [ω × s e_a; v × s e_a] for a < 3 and [0; ω × s e_{a-3}] for
// a >= 3, with the products by the zero entries left out. It equals crm(v, m) for m = s e_a
// exactly, not only up to rounding: each entry of crm is a difference of two products of which
// one is an exact zero here (tests/spatial_test.cpp). The velocity product v × vJ of a joint
// whose S is one coordinate axis (kinematics.hpp): 4 multiplies instead of 18.
template <class T>
RBDREF_HOT Motion<T> crm_unit(const Motion<T>& v, int a, const T& s) {
  Motion<T> out;  // zero
  const auto w = v.c.template head<3>();
  const int k = a % 3, i = (k + 1) % 3, j = (k + 2) % 3;  // e_i × e_k = -e_j, e_j × e_k = e_i
  // x × (s e_k) = s (x_j e_i - x_i e_j) for any 3-vector x.
  if (a < 3) {
    const auto vo = v.c.template tail<3>();
    out.c(i) = w(j) * s;
    out.c(j) = -(w(i) * s);
    out.c(3 + i) = vo(j) * s;
    out.c(3 + j) = -(vo(i) * s);
  } else {
    out.c(3 + i) = w(j) * s;
    out.c(3 + j) = -(w(i) * s);
  }
  return out;
}

// v ×* f (seed 003 eq. 10): [ω × n + v × f; ω × f].
template <class T>
RBDREF_HOT Force<T> crf(const Motion<T>& v, const Force<T>& f) {
  const Vec3<T> w = v.ang(), vo = v.lin(), n = f.ang(), fl = f.lin();
  return Force<T>(Vec3<T>(w.cross(n) + vo.cross(fl)), Vec3<T>(w.cross(fl)));
}

// The 6x6 matrices of v× and v×*; crf(v) = -crm(v)ᵀ.
template <class T>
Mat6<T> crm_matrix(const Motion<T>& v) {
  Mat6<T> m = Mat6<T>::Zero();
  const Mat3<T> w = skew<T>(v.ang()), vo = skew<T>(v.lin());
  m.template block<3, 3>(0, 0) = w;
  m.template block<3, 3>(3, 0) = vo;
  m.template block<3, 3>(3, 3) = w;
  return m;
}
template <class T>
Mat6<T> crf_matrix(const Motion<T>& v) {
  Mat6<T> m = Mat6<T>::Zero();
  const Mat3<T> w = skew<T>(v.ang()), vo = skew<T>(v.lin());
  m.template block<3, 3>(0, 0) = w;
  m.template block<3, 3>(0, 3) = vo;
  m.template block<3, 3>(3, 3) = w;
  return m;
}

// Plücker transform BXA = rot(E) xlt(r) (seed 003 eq. 11). Applied to a motion it gives B
// coordinates from A coordinates; apply_force gives the force transform BX*A = BXA^{-T}
// (eq. 14-15); apply_transpose gives BXAᵀ f, which takes a force from B to A coordinates.
template <class T>
struct Xform {
  Mat3<T> E = Mat3<T>::Identity();
  Vec3<T> r = Vec3<T>::Zero();

  Xform() = default;
  Xform(const Mat3<T>& E_, const Vec3<T>& r_) : E(E_), r(r_) {}

  static Xform identity() { return Xform(); }
  // rot(E): a pure change of axes; E maps A coordinates to B coordinates.
  static Xform rot(const Mat3<T>& E) { return Xform(E, Vec3<T>::Zero()); }
  // xlt(r): a pure shift of origin to r (expressed in A).
  static Xform xlt(const Vec3<T>& r) { return Xform(Mat3<T>::Identity(), r); }

  // BXA m = [E ω; E (v - r × ω)]. Written into the result's halves (no Vec3 copies in or out:
  // at the multiprecision scalars a copy costs a sizeable part of an operation); the same
  // operations in the same order as the formula.
  RBDREF_HOT Motion<T> apply(const Motion<T>& m) const {
    const Vec3<T> w = m.ang();
    return Motion<T>(Vec3<T>(E * w), Vec3<T>(E * (m.lin() - r.cross(w))));
  }
  // BX*A f = [E (n - r × f); E f]
  RBDREF_HOT Force<T> apply_force(const Force<T>& f) const {
    Force<T> out;
    const auto fl = f.c.template tail<3>();
    out.c.template head<3>().noalias() = E * (f.c.template head<3>() - r.cross(fl));
    out.c.template tail<3>().noalias() = E * fl;
    return out;
  }
  // BXAᵀ f = AX*B f = [Eᵀ n + r × Eᵀ f; Eᵀ f]  (a force from B to A coordinates)
  RBDREF_HOT Force<T> apply_transpose(const Force<T>& f) const {
    Force<T> out;
    transpose_into(f.c, out.c);
    return out;
  }
  // The same, from and into any 6-vectors (a column of CRBA's F, in place: out may be f).
  template <class In, class Out>
  RBDREF_HOT void transpose_into(const In& f, Out&& out) const {
    const Vec3<T> fl = E.transpose() * f.template tail<3>();
    const Vec3<T> n = E.transpose() * f.template head<3>();
    out.template head<3>().noalias() = n + r.cross(fl);
    out.template tail<3>() = fl;
  }
  // BXA⁻¹ m = AXB m = [Eᵀ ω; Eᵀ v + r × Eᵀ ω]  (a motion from B to A coordinates)
  Motion<T> apply_inverse(const Motion<T>& m) const {
    const Vec3<T> w = E.transpose() * m.ang();
    return Motion<T>(w, Vec3<T>(E.transpose() * m.lin() + r.cross(w)));
  }
  // Composition: (*this) * o = CXB BXA = CXA, with this = CXB, o = BXA.
  Xform operator*(const Xform& o) const { return Xform(Mat3<T>(E * o.E), Vec3<T>(o.r + o.E.transpose() * r)); }
  // The same product when this = rot(E) with E a coordinate rotation about axis k (Featherstone's
  // rotx/roty/rotz, coordinate_rotation_E: row and column k of E are e_k, r = 0), as jcalc makes
  // for a revolute joint about ±e_k: row k of E o.E is row k of o.E, the two other rows mix two
  // rows of o.E, and the translation is o.r (o.r + o.Eᵀ 0). 12 multiplies instead of 36. Equal
  // to operator* exactly, not only up to rounding: every product left out is by an exact 0 or 1
  // (tests/spatial_test.cpp).
  RBDREF_HOT Xform compose_coordinate_rotation(int k, const Xform& o) const {
    Xform out;
    const int i = (k + 1) % 3, j = (k + 2) % 3;
    out.E.row(k) = o.E.row(k);
    for (int c = 0; c < 3; ++c) {
      out.E(i, c) = E(i, i) * o.E(i, c) + E(i, j) * o.E(j, c);
      out.E(j, c) = E(j, i) * o.E(i, c) + E(j, j) * o.E(j, c);
    }
    out.r = o.r;
    return out;
  }
  // BXA⁻¹ = AXB = (Eᵀ, -E r)  (seed 003 eq. 13)
  Xform inverse() const { return Xform(Mat3<T>(E.transpose()), Vec3<T>(-(E * r))); }

  // The 6x6 matrices.
  Mat6<T> matrix() const {
    Mat6<T> X = Mat6<T>::Zero();
    X.template block<3, 3>(0, 0) = E;
    X.template block<3, 3>(3, 0) = -E * skew<T>(r);
    X.template block<3, 3>(3, 3) = E;
    return X;
  }
  Mat6<T> force_matrix() const {
    Mat6<T> X = Mat6<T>::Zero();
    X.template block<3, 3>(0, 0) = E;
    X.template block<3, 3>(0, 3) = -E * skew<T>(r);
    X.template block<3, 3>(3, 3) = E;
    return X;
  }
};

// Time derivative of a Plücker transform (seed 003 eq. 16): for frames A and B moving with
// velocities vA and vB, both expressed in B coordinates,
//   d/dt BXA = (vA - vB)× BXA.
// A joint's XJ = λ(i)'s joint frame to body i, with the predecessor frame at rest: dXJ/dt = -vJ× XJ.
template <class T>
Mat6<T> xform_derivative(const Xform<T>& X, const Motion<T>& vA_in_B, const Motion<T>& vB_in_B) {
  return crm_matrix<T>(vA_in_B - vB_in_B) * X.matrix();
}

// A motion subspace (columns are motion vectors) transformed column by column.
template <class T>
Mat6K<T> apply(const Xform<T>& X, const Mat6K<T>& S) {
  Mat6K<T> out(6, S.cols());
  for (Eigen::Index j = 0; j < S.cols(); ++j) out.col(j) = X.apply(Motion<T>(Vec6<T>(S.col(j)))).c;
  return out;
}
// Force columns taken to the parent: Xᵀ F.
template <class T>
Mat6K<T> apply_transpose(const Xform<T>& X, const Mat6K<T>& F) {
  Mat6K<T> out(6, F.cols());
  for (Eigen::Index j = 0; j < F.cols(); ++j) out.col(j) = X.apply_transpose(Force<T>(Vec6<T>(F.col(j)))).c;
  return out;
}

// Coordinate rotation matrices of Featherstone's rotx/roty/rotz: E for axes rotated by θ about x,
// y, z (E maps parent coordinates to the rotated frame's coordinates, E = R(θ)ᵀ).
template <class T>
Mat3<T> rotz_E(const T& th) {
  T s, c;
  sin_cos(th, s, c);
  Mat3<T> E;
  E << c, s, T(0), -s, c, T(0), T(0), T(0), T(1);
  return E;
}

// E for axes rotated by θ about the coordinate axis k (0: x, 1: y, 2: z): Featherstone's rotx, roty,
// rotz (RBDA §2.8), the exact values of axis_angle(e_k, θ)ᵀ (whose diagonal entry c + (1 - c) is
// 1 only up to rounding).
template <class T>
Mat3<T> coordinate_rotation_E(int k, const T& th) {
  T s, c;
  sin_cos(th, s, c);
  Mat3<T> E = Mat3<T>::Identity();
  const int i = (k + 1) % 3, j = (k + 2) % 3;  // the plane of the rotation, in cyclic order
  E(i, i) = c;
  E(i, j) = s;
  E(j, i) = -s;
  E(j, j) = c;
  return E;
}

// Active rotation by angle θ about the unit axis a (Rodrigues): R = I cosθ + sinθ a× + (1-cosθ) a aᵀ.
// The child frame's axes expressed in the parent are the columns of R; E = Rᵀ.
template <class T>
Mat3<T> axis_angle(const Vec3<T>& a, const T& th) {
  T s, c;
  sin_cos(th, s, c);
  return Mat3<T>(c * Mat3<T>::Identity() + s * skew<T>(a) + (T(1) - c) * a * a.transpose());
}

// Rotation of a quaternion q = (w, x, y, z), child-to-parent (active), for any q != 0: the
// formula divides by |q|², so the result is exactly the rotation that q/|q| represents.
template <class T>
Mat3<T> quat_to_R(const T& w, const T& x, const T& y, const T& z) {
  const T n2 = w * w + x * x + y * y + z * z;
  const T s = T(2) / n2;
  Mat3<T> R;
  R << T(1) - s * (y * y + z * z), s * (x * y - w * z), s * (x * z + w * y),  //
      s * (x * y + w * z), T(1) - s * (x * x + z * z), s * (y * z - w * x),    //
      s * (x * z - w * y), s * (y * z + w * x), T(1) - s * (x * x + y * y);
  return R;
}

// URDF's fixed-axis roll-pitch-yaw: R = Rz(yaw) Ry(pitch) Rx(roll), child-to-parent.
template <class T>
Mat3<T> rpy_to_R(const T& roll, const T& pitch, const T& yaw) {
  const Vec3<T> ex(T(1), T(0), T(0)), ey(T(0), T(1), T(0)), ez(T(0), T(0), T(1));
  return Mat3<T>(axis_angle<T>(ez, yaw) * axis_angle<T>(ey, pitch) * axis_angle<T>(ex, roll));
}

// ---------------------------------------------------------------------------------------------
// Spatial inertia (seed 003 eqs. 17-21).

template <class T>
struct Inertia {
  Mat6<T> M = Mat6<T>::Zero();  // symmetric, [angular; linear] blocks
  Inertia() = default;
  explicit Inertia(const Mat6<T>& M_) : M(M_) {}

  // mcI(m, c, Ic): mass m, centre of mass c and rotational inertia Ic about the COM, all in the
  // body frame: [Ic + m c× c×ᵀ, m c×; m c×ᵀ, m 1]  (seed 003 eqs. 17-18).
  static Inertia mcI(const T& m, const Vec3<T>& c, const Mat3<T>& Ic) {
    const Mat3<T> C = skew<T>(c);
    Inertia I;
    I.M.template block<3, 3>(0, 0) = Ic + m * C * C.transpose();
    I.M.template block<3, 3>(0, 3) = m * C;
    I.M.template block<3, 3>(3, 0) = m * C.transpose();
    I.M.template block<3, 3>(3, 3) = m * Mat3<T>::Identity();
    return I;
  }
  T mass() const { return M(5, 5); }
  // First moment of mass h = m c: the vector of the upper-right block m c× (defined for m = 0).
  Vec3<T> first_moment() const {
    const Mat3<T> H = M.template block<3, 3>(0, 3);
    return Vec3<T>(H(2, 1), H(0, 2), H(1, 0));
  }
  // Centre of mass c = h / m (m > 0).
  Vec3<T> com() const { return first_moment() / mass(); }
  Force<T> operator*(const Motion<T>& v) const { return Force<T>(Vec6<T>(M * v.c)); }
  Inertia operator+(const Inertia& o) const { return Inertia(Mat6<T>(M + o.M)); }
  Inertia& operator+=(const Inertia& o) { M += o.M; return *this; }
};

// The inertia I, given in B coordinates, expressed in A coordinates: BXAᵀ I BXA (seed 003 eq. 20),
// as the book writes it: two dense 6x6 products (459 multiplies with forming X). Any 6x6 I. Kept
// as the reference that the structured forms below are tested against (tests/spatial_test.cpp),
// and used where speed does not matter (merging fixed bodies in build_model).
template <class T>
Mat6<T> transform_inertia_to_parent(const Xform<T>& X, const Mat6<T>& I) {
  const Mat6<T> Xm = X.matrix();
  return Xm.transpose() * I * Xm;
}

// I v for a rigid-body inertia I = [Ī h×; h×ᵀ m1] (seed 003 eq. 18), from its 10 parameters:
//   I v = [Ī ω + h × v; m v - h × ω]
// 24 multiplies instead of the 36 of I.M * v, and the same up to rounding (tests/spatial_test.cpp).
template <class T>
RBDREF_HOT Force<T> rigid_inertia_times(const Mat6<T>& I, const Motion<T>& v) {
  const Vec3<T> h(I(2, 4), I(0, 5), I(1, 3));  // h× = I's upper-right block
  const Vec3<T> w = v.ang(), vl = v.lin();
  return Force<T>(Vec3<T>(I.template topLeftCorner<3, 3>() * w + h.cross(vl)), Vec3<T>(I(5, 5) * vl - h.cross(w)));
}

namespace detail {
// Eᵀ A E for a symmetric 3x3 A (a symmetric tensor from B to A axes): the upper triangle is
// computed and mirrored, so the result is exactly symmetric.
template <class T>
Mat3<T> congruence_sym(const Mat3<T>& E, const Mat3<T>& A) {
  const Mat3<T> AE = A * E;
  Mat3<T> out;
  for (int i = 0; i < 3; ++i)
    for (int j = i; j < 3; ++j) {
      out(i, j) = E(0, i) * AE(0, j) + E(1, i) * AE(1, j) + E(2, i) * AE(2, j);
      if (j != i) out(j, i) = out(i, j);
    }
  return out;
}
}  // namespace detail

// BXAᵀ I BXA for a rigid-body inertia I in B coordinates: I = [Ī h×; h×ᵀ m1] with mass m, first
// moment h = m c and Ī the rotational inertia about B's origin (seed 003 eqs. 17-18; every sum
// of such inertias has the same form, so CRBA's composites do). From the 10 parameters, with
// BXA = (E, r) = rot(E) xlt(r) (RBDA table 2.5, the "rbi" transform XᵀIX):
//   m' = m
//   h' = Eᵀh + m r                             (the COM r + Eᵀc in A coordinates, times m)
//   Ī' = Eᵀ Ī E - r× (Eᵀh)× - h'× r×           (about A's origin)
// Derivation: Ī = Ic + m c×c×ᵀ at both origins (parallel axes) gives Ī' = EᵀĪE - y×r× - r×y×
// - m r×r× with y = Eᵀh, which is the line above. It equals transform_inertia_to_parent (the
// dense XᵀIX) up to rounding for every I of rigid-body form; tests/spatial_test.cpp checks it. The
// two r× products are expanded by a× b× = b aᵀ - (a·b) 1:
//   r×y× + h'×r× = y rᵀ + r h'ᵀ - (r·y + r·h') 1          (symmetric, as y rᵀ + r yᵀ + m r rᵀ)
// About 75 multiplies instead of 459. Only m = I(5,5), h (from the block h×) and Ī are read.
template <class T>
Mat6<T> transform_rigid_inertia_to_parent(const Xform<T>& X, const Mat6<T>& I) {
  const Mat3<T>& E = X.E;
  const Vec3<T>& r = X.r;
  const T& m = I(5, 5);
  const Vec3<T> h(I(2, 4), I(0, 5), I(1, 3));  // h× = I's upper-right block
  const Vec3<T> y = E.transpose() * h;
  const Vec3<T> hp = y + m * r;
  Mat3<T> Ib = detail::congruence_sym<T>(E, Mat3<T>(I.template topLeftCorner<3, 3>()));
  const T d = r.dot(y) + r.dot(hp);
  for (int i = 0; i < 3; ++i)
    for (int j = i; j < 3; ++j) {
      Ib(i, j) -= y(i) * r(j) + r(i) * hp(j);
      if (j == i) Ib(i, i) += d;
      else Ib(j, i) = Ib(i, j);
    }
  Mat6<T> out;
  const Mat3<T> H = skew<T>(hp);
  out.template topLeftCorner<3, 3>() = Ib;
  out.template topRightCorner<3, 3>() = H;
  out.template bottomLeftCorner<3, 3>() = H.transpose();
  out.template bottomRightCorner<3, 3>() = m * Mat3<T>::Identity();
  return out;
}

// BXAᵀ I BXA for a general symmetric 6x6 I (an articulated-body inertia, not of rigid-body form),
// from the block structure of BXA = rot(E) xlt(r) = [E 0; 0 E] [1 0; -r× 1] instead of dense 6x6
// products. With I = [A B; Bᵀ C] (A, C symmetric):
//   rot(E)ᵀ I rot(E) = [EᵀAE EᵀBE; EᵀBᵀE EᵀCE] =: [A1 B1; B1ᵀ C1]
//   xlt(r)ᵀ [A1 B1; B1ᵀ C1] xlt(r) = [A' B'; B'ᵀ C'] with
//     C' = C1,   B' = B1 + r× C1,   A' = A1 + r× B1ᵀ - B' r×
// (multiplying out [1 r×; 0 1][A1 B1; B1ᵀ C1][1 0; -r× 1]; A' is symmetric). The same matrix as
// transform_inertia_to_parent up to rounding, for symmetric I (tests/spatial_test.cpp); about 200
// multiplies instead of 459, and A', C' are exactly symmetric. I's lower-left block is not read.
template <class T>
Mat6<T> transform_articulated_inertia_to_parent(const Xform<T>& X, const Mat6<T>& I) {
  const Mat3<T>& E = X.E;
  const Vec3<T>& r = X.r;
  const Mat3<T> A1 = detail::congruence_sym<T>(E, Mat3<T>(I.template topLeftCorner<3, 3>()));
  const Mat3<T> C1 = detail::congruence_sym<T>(E, Mat3<T>(I.template bottomRightCorner<3, 3>()));
  const Mat3<T> B1 = E.transpose() * Mat3<T>(I.template topRightCorner<3, 3>() * E);
  Mat3<T> Bp, N, P;
  for (int k = 0; k < 3; ++k) {
    Bp.col(k) = B1.col(k) + r.cross(Vec3<T>(C1.col(k)));    // B1 + r× C1, column by column
    N.col(k) = r.cross(Vec3<T>(B1.row(k).transpose()));     // r× B1ᵀ
  }
  for (int k = 0; k < 3; ++k) P.row(k) = Vec3<T>(Bp.row(k).transpose()).cross(r).transpose();  // B' r×
  Mat6<T> out;
  for (int i = 0; i < 3; ++i)
    for (int j = i; j < 3; ++j) {
      out(i, j) = A1(i, j) + N(i, j) - P(i, j);
      out(j, i) = out(i, j);
    }
  out.template topRightCorner<3, 3>() = Bp;
  out.template bottomLeftCorner<3, 3>() = Bp.transpose();
  out.template bottomRightCorner<3, 3>() = C1;
  return out;
}

}  // namespace rbd
