// Spatial (6-D) algebra in Plücker coordinates, [angular; linear] order (RBDA ch. 2; Carius's
// spatial-algebra notes, 2018, eqs. 9-21, cited below as "Carius eq. N").
//
//   Motion<T>   m = [ω; v]   velocities, accelerations, motion-subspace columns (space M⁶)
//   Force<T>    f = [n; f]   forces, momenta (space F⁶)
//   Xform<T>    BXA, a Plücker transform from A to B coordinates, stored as (E, r):
//               E = rotation from A to B coordinates (3x3), r = origin of B expressed in A (3).
//               BXA = [E 0; -E r× E]                                        (Carius eq. 11)
//   Inertia<T>  a spatial inertia, a symmetric 6x6 matrix in one frame      (Carius eq. 17)
//
// Motion and Force are different types, so that a motion is never transformed like a force nor
// added to one. The only products between them are the scalar product f·m (power) and the
// cross products m × m (crm, eq. 9) and m ×* f (crf, eq. 10).
#pragma once

#include "reference/numeric/scalar.hpp"
#include "reference/spatial/inplace.hpp"

#include <Eigen/Dense>

#include <type_traits>

namespace rbd {

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


// r× : the 3x3 cross-product matrix, r× x = r × x (Carius eq. 1).
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
  Vec6<T> c;  // [ω; v]
  Motion() { inplace::set_zero(c); }
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
  Vec6<T> c;  // [n; f]
  Force() { inplace::set_zero(c); }
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

// f · m: the power of force f on motion m (the only scalar product; RBDA §2.3).
template <class T>
T dot(const Force<T>& f, const Motion<T>& m) {
  return f.c.dot(m.c);
}

// v × m (Carius eq. 9): [ω × mω; ω × mv + v × mω]. crm_expr is the Eigen expression; crm is its
// entrywise form, for every scalar (the expression's association: equal bit for bit at the
// multiprecision scalars; see inplace.hpp for double).
template <class T>
RBDREF_HOT Motion<T> crm_expr(const Motion<T>& v, const Motion<T>& m) {
  const auto w = v.c.template head<3>(), vo = v.c.template tail<3>();
  const auto ma = m.c.template head<3>(), ml = m.c.template tail<3>();
  Motion<T> out;
  out.c.template head<3>() = w.cross(ma);
  out.c.template tail<3>() = w.cross(ml) + vo.cross(ma);
  return out;
}
template <class T>
RBDREF_HOT Motion<T> crm(const Motion<T>& v, const Motion<T>& m) {
  const auto w = inplace::head3(v.c), vo = inplace::tail3(v.c);
  const auto ma = inplace::head3(m.c), ml = inplace::tail3(m.c);
  Motion<T> out;
  T s, t;
  inplace::cross<T>(out.c.template head<3>(), s, w, ma);
  inplace::cross<T>(out.c.template tail<3>(), s, w, ml);
  inplace::add_cross<T>(out.c.template tail<3>(), s, t, vo, ma);  // ω × ml + v × mω
  return out;
}

// v × (s e_a), e_a the a-th unit coordinate motion (a = 0..5): s times column a of the 6x6
// matrix v× (crm_matrix), i.e. [ω × s e_a; v × s e_a] for a < 3 and [0; ω × s e_{a-3}] for
// a >= 3, with the products by the zero entries left out. It equals crm(v, m) for m = s e_a
// exactly, not only up to rounding: each entry of crm is a difference of two products of which
// one is an exact zero here (tests/spatial_test.cpp). The velocity product v × vJ of a joint
// whose S is one coordinate axis (kinematics.hpp): 4 multiplies instead of 18.
template <class T>
RBDREF_HOT void crm_unit_into(const Motion<T>& v, int a, const T& s, Motion<T>& out);
template <class T>
RBDREF_HOT Motion<T> crm_unit(const Motion<T>& v, int a, const T& s) {
  Motion<T> out;
  crm_unit_into<T>(v, a, s, out);
  return out;
}
// The same into out (not v).
template <class T>
RBDREF_HOT void crm_unit_into(const Motion<T>& v, int a, const T& s, Motion<T>& out) {
  inplace::set_zero(out.c);
  const auto w = inplace::head3(v.c);
  const int k = a % 3, i = (k + 1) % 3, j = (k + 2) % 3;  // e_i × e_k = -e_j, e_j × e_k = e_i
  // x × (s e_k) = s (x_j e_i - x_i e_j) for any 3-vector x.
  const int o = a < 3 ? 0 : 3;  // ω × s e_k goes to the linear half when a >= 3
  mul_to(out.c(o + i), w(j), s);
  mul_to(out.c(o + j), w(i), s);
  neg_to(out.c(o + j), out.c(o + j));
  if (a < 3) {
    const auto vo = inplace::tail3(v.c);
    mul_to(out.c(3 + i), vo(j), s);
    mul_to(out.c(3 + j), vo(i), s);
    neg_to(out.c(3 + j), out.c(3 + j));
  }
}

// v ×* f (Carius eq. 10): [ω × n + v × f; ω × f]; crf_expr the Eigen expression (as crm).
template <class T>
RBDREF_HOT Force<T> crf_expr(const Motion<T>& v, const Force<T>& f) {
  const Vec3<T> w = v.ang(), vo = v.lin(), n = f.ang(), fl = f.lin();
  return Force<T>(Vec3<T>(w.cross(n) + vo.cross(fl)), Vec3<T>(w.cross(fl)));
}
template <class T>
RBDREF_HOT Force<T> crf(const Motion<T>& v, const Force<T>& f) {
  const auto w = inplace::head3(v.c), vo = inplace::tail3(v.c);
  const auto n = inplace::head3(f.c), fl = inplace::tail3(f.c);
  Force<T> out;
  T s, t;
  inplace::cross<T>(out.c.template head<3>(), s, w, n);
  inplace::add_cross<T>(out.c.template head<3>(), s, t, vo, fl);  // ω × n + v × f
  inplace::cross<T>(out.c.template tail<3>(), s, w, fl);
  return out;
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

// Plücker transform BXA = rot(E) xlt(r) (Carius eq. 11). Applied to a motion it gives B
// coordinates from A coordinates; apply_force gives the force transform BX*A = BXA^{-T}
// (eq. 14-15); apply_transpose gives BXAᵀ f, which takes a force from B to A coordinates.
template <class T>
struct Xform {
  Mat3<T> E;
  Vec3<T> r;

  Xform() {  // the identity
    inplace::set_identity(E);
    inplace::set_zero(r);
  }
  Xform(const Mat3<T>& E_, const Vec3<T>& r_) : E(E_), r(r_) {}

  static Xform identity() { return Xform(); }
  // rot(E): a pure change of axes; E maps A coordinates to B coordinates.
  static Xform rot(const Mat3<T>& E) { return Xform(E, Vec3<T>::Zero()); }
  // xlt(r): a pure shift of origin to r (expressed in A).
  static Xform xlt(const Vec3<T>& r) { return Xform(Mat3<T>::Identity(), r); }

  // BXA m = [E ω; E (v - r × ω)]: apply_expr is the Eigen expression, apply its entrywise form
  // for every scalar (the expression's association: equal bit for bit at the multiprecision
  // scalars; see inplace.hpp for double).
  RBDREF_HOT Motion<T> apply(const Motion<T>& m) const {
    Motion<T> out;
    apply_into(m, out);
    return out;
  }
  RBDREF_HOT Motion<T> apply_expr(const Motion<T>& m) const {
    const Vec3<T> w = m.ang();
    return Motion<T>(Vec3<T>(E * w), Vec3<T>(E * (m.lin() - r.cross(w))));
  }
  // The same into out (not m).
  RBDREF_HOT void apply_into(const Motion<T>& m, Motion<T>& out) const {
    const auto w = inplace::head3(m.c), v = inplace::tail3(m.c);
    T s;
    Vec3<T> t;
    inplace::mat3_vec<T>(out.c.template head<3>(), s, E, w);  // E ω
    inplace::cross<T>(t, s, r, w);                           // r × ω
#pragma GCC unroll 3
    for (int i = 0; i < 3; ++i) sub_to(t(i), v(i), t(i));    // v - r × ω
    inplace::mat3_vec<T>(out.c.template tail<3>(), s, E, t);  // E (v - r × ω)
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
  // The same, from and into any 6-vectors (a column of CRBA's F, in place: out may be f);
  // transpose_into_expr is the Eigen expression, transpose_into its entrywise form.
  template <class In, class Out>
  RBDREF_HOT void transpose_into(const In& f, Out&& out) const {
    T s;
    Vec3<T> fl, n;
    inplace::mat3t_vec<T>(fl, s, E, inplace::Seg3<T>{f.data() + 3});  // Eᵀ f
    inplace::mat3t_vec<T>(n, s, E, inplace::Seg3<T>{f.data()});  // Eᵀ n (f is read only up to here)
    inplace::cross<T>(out.template head<3>(), s, r, fl);   // r × Eᵀ f
#pragma GCC unroll 3
    for (int i = 0; i < 3; ++i) {
      add_to(out(i), n(i), out(i));  // Eᵀ n + r × Eᵀ f
      out(3 + i) = fl(i);
    }
  }
  // Every column of a 6 x k block of force vectors taken to the parent's coordinates, in place:
  // column by column the same products as transpose_into (CRBA's F of a subtree, crba.hpp).
  template <class M>
  RBDREF_HOT void transpose_cols_into(M&& F) const {
    for (Eigen::Index c = 0; c < F.cols(); ++c) transpose_into(F.col(c), F.col(c));
  }
  template <class In, class Out>
  RBDREF_HOT void transpose_into_expr(const In& f, Out&& out) const {
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
    compose_coordinate_rotation_into(k, o, out);
    return out;
  }
  // The same into out (neither this nor o).
  RBDREF_HOT void compose_coordinate_rotation_into(int k, const Xform& o, Xform& out) const {
    if constexpr (kInPlace<T>) {
      const int i = (k + 1) % 3, j = (k + 2) % 3;
      out.E.row(k) = o.E.row(k);
      T s;
      for (int c = 0; c < 3; ++c) {
        mul_to(out.E(i, c), E(i, i), o.E(i, c));
        mul_to(s, E(i, j), o.E(j, c));
        add_to(out.E(i, c), out.E(i, c), s);
        mul_to(out.E(j, c), E(j, i), o.E(i, c));
        mul_to(s, E(j, j), o.E(j, c));
        add_to(out.E(j, c), out.E(j, c), s);
      }
      out.r = o.r;
    } else {
      compose_coordinate_rotation_expr(k, o, out);
    }
  }
  // The expression form (the in-place form's reference, and double's).
  RBDREF_HOT void compose_coordinate_rotation_expr(int k, const Xform& o, Xform& out) const {
    const int i = (k + 1) % 3, j = (k + 2) % 3;
    out.E.row(k) = o.E.row(k);
    for (int c = 0; c < 3; ++c) {
      out.E(i, c) = E(i, i) * o.E(i, c) + E(i, j) * o.E(j, c);
      out.E(j, c) = E(j, i) * o.E(i, c) + E(j, j) * o.E(j, c);
    }
    out.r = o.r;
  }
  // BXA⁻¹ = AXB = (Eᵀ, -E r)  (Carius eq. 13)
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

// Time derivative of a Plücker transform (Carius eq. 16): for frames A and B moving with
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
void coordinate_rotation_E_into(int k, const T& th, Mat3<T>& E);
template <class T>
Mat3<T> coordinate_rotation_E(int k, const T& th) {
  Mat3<T> E;
  coordinate_rotation_E_into<T>(k, th, E);
  return E;
}
// The same into E (not th).
template <class T>
void coordinate_rotation_E_into(int k, const T& th, Mat3<T>& E) {
  inplace::set_identity(E);
  const int i = (k + 1) % 3, j = (k + 2) % 3;  // the plane of the rotation, in cyclic order
  sin_cos(th, E(i, j), E(i, i));
  E(j, j) = E(i, i);
  neg_to(E(j, i), E(i, j));
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
// Spatial inertia (Carius eqs. 17-21).

template <class T>
struct Inertia {
  Mat6<T> M = Mat6<T>::Zero();  // symmetric, [angular; linear] blocks
  Inertia() = default;
  explicit Inertia(const Mat6<T>& M_) : M(M_) {}

  // mcI(m, c, Ic): mass m, centre of mass c and rotational inertia Ic about the COM, all in the
  // body frame: [Ic + m c× c×ᵀ, m c×; m c×ᵀ, m 1]  (Carius eqs. 17-18).
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

// The inertia I, given in B coordinates, expressed in A coordinates: BXAᵀ I BXA (Carius eq. 20),
// as the book writes it: two dense 6x6 products (459 multiplies with forming X). Any 6x6 I. Kept
// as the reference that the structured forms below are tested against (tests/spatial_test.cpp),
// and used where speed does not matter (merging fixed bodies in build_model).
template <class T>
Mat6<T> transform_inertia_to_parent(const Xform<T>& X, const Mat6<T>& I) {
  const Mat6<T> Xm = X.matrix();
  return Xm.transpose() * I * Xm;
}

// I v for a rigid-body inertia I = [Ī h×; h×ᵀ m1] (Carius eq. 18), from its 10 parameters:
//   I v = [Ī ω + h × v; m v - h × ω]
// 24 multiplies instead of the 36 of I.M * v, and the same up to rounding (tests/spatial_test.cpp).
// rigid_inertia_times_expr is the Eigen expression; rigid_inertia_times its entrywise form, for
// every scalar (equal bit for bit at the multiprecision scalars; see inplace.hpp for double).
namespace detail {
// h of a rigid-body inertia, read in place: h× = I's upper-right block, h = (I(2,4), I(0,5), I(1,3)).
template <class T>
struct FirstMomentView {
  const Mat6<T>& I;
  const T& operator()(int k) const { return k == 0 ? I(2, 4) : k == 1 ? I(0, 5) : I(1, 3); }
};
}  // namespace detail

template <class T>
RBDREF_HOT Force<T> rigid_inertia_times_expr(const Mat6<T>& I, const Motion<T>& v) {
  const Vec3<T> h(I(2, 4), I(0, 5), I(1, 3));  // h× = I's upper-right block
  const Vec3<T> w = v.ang(), vl = v.lin();
  return Force<T>(Vec3<T>(I.template topLeftCorner<3, 3>() * w + h.cross(vl)), Vec3<T>(I(5, 5) * vl - h.cross(w)));
}
template <class T>
RBDREF_HOT Force<T> rigid_inertia_times(const Mat6<T>& I, const Motion<T>& v) {
  const detail::FirstMomentView<T> h{I};
  const auto w = inplace::head3(v.c), vl = inplace::tail3(v.c);
  Force<T> out;
  T s, t;
  inplace::cross<T>(out.c.template head<3>(), s, h, vl);  // h × v
  inplace::cross<T>(out.c.template tail<3>(), s, h, w);   // h × ω
#pragma GCC unroll 3
  for (int i = 0; i < 3; ++i) {
    inplace::dot3<T>(t, s, I(i, 0), w(0), I(i, 1), w(1), I(i, 2), w(2));  // (Ī ω)_i
    add_to(out.c(i), t, out.c(i));
    mul_to(t, I(5, 5), vl(i));
    sub_to(out.c(3 + i), t, out.c(3 + i));  // m v - h × ω
  }
  return out;
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
// congruence_sym(E, A) into the diagonal block of out at (o, o), A = I's diagonal block at (o, o):
// the same operations in the same order (AE's entries are Eigen's 3-term sums, the congruence's
// sums of three products left to right). W is scratch for A E.
template <class T>
void congruence_sym_into(const Mat3<T>& E, const Mat6<T>& I, int o, Mat6<T>& out, Mat3<T>& W, T& s) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) inplace::dot3<T>(W(i, j), s, I(o + i, o), E(0, j), I(o + i, o + 1), E(1, j), I(o + i, o + 2), E(2, j));
  for (int i = 0; i < 3; ++i)
    for (int j = i; j < 3; ++j) {
      T& x = out(o + i, o + j);
      mul_to(x, E(0, i), W(0, j));
      mul_to(s, E(1, i), W(1, j));
      add_to(x, x, s);
      mul_to(s, E(2, i), W(2, j));
      add_to(x, x, s);
      if (j != i) out(o + j, o + i) = x;
    }
}
}  // namespace detail

// BXAᵀ I BXA for a rigid-body inertia I in B coordinates: I = [Ī h×; h×ᵀ m1] with mass m, first
// moment h = m c and Ī the rotational inertia about B's origin (Carius eqs. 17-18; every sum
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
void transform_rigid_inertia_to_parent_into(const Xform<T>& X, const Mat6<T>& I, Mat6<T>& out);

template <class T>
Mat6<T> transform_rigid_inertia_to_parent(const Xform<T>& X, const Mat6<T>& I) {
  Mat6<T> out;
  transform_rigid_inertia_to_parent_into<T>(X, I, out);
  return out;
}

template <class T>
Mat6<T> transform_rigid_inertia_to_parent_expr(const Xform<T>& X, const Mat6<T>& I) {
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

// transform_rigid_inertia_to_parent_expr is the expression form above; the function itself and
// its _into form (out not I) are it for double and long double, and for the kInPlace scalars
// compute every entry by the operations of the expression form, in its order (equal bit for bit;
// tests/spatial_test.cpp).
template <class T>
void transform_rigid_inertia_to_parent_into(const Xform<T>& X, const Mat6<T>& I, Mat6<T>& out) {
  if constexpr (!kInPlace<T>) {
    out = transform_rigid_inertia_to_parent_expr<T>(X, I);
  } else {
    const Mat3<T>& E = X.E;
    const Vec3<T>& r = X.r;
    const T& m = I(5, 5);
    const detail::FirstMomentView<T> h{I};
    T s, t, d;
    Vec3<T> y, hp;
    Mat3<T> W;
    inplace::mat3t_vec<T>(y, s, E, h);  // y = Eᵀ h
    for (int i = 0; i < 3; ++i) {
      mul_to(t, m, r(i));
      add_to(hp(i), y(i), t);  // h' = y + m r
    }
    detail::congruence_sym_into<T>(E, I, 0, out, W, s);  // Eᵀ Ī E, upper left
    inplace::dot3<T>(d, s, r(0), y(0), r(1), y(1), r(2), y(2));
    inplace::dot3<T>(t, s, r(0), hp(0), r(1), hp(1), r(2), hp(2));
    add_to(d, d, t);  // d = r·y + r·h'
    for (int i = 0; i < 3; ++i)
      for (int j = i; j < 3; ++j) {
        T& o = out(i, j);
        mul_to(t, y(i), r(j));
        mul_to(s, r(i), hp(j));
        add_to(t, t, s);
        sub_to(o, o, t);  // - (y rᵀ + r h'ᵀ)_ij
        if (j == i) add_to(o, o, d);
        else out(j, i) = o;
      }
    // h'× and its transpose; m 1 as the expression form computes it (m·1, m·0).
    for (int i = 0; i < 3; ++i) {
      out(i, 3 + i) = 0;
      neg_to(out(i, 3 + (i + 1) % 3), hp((i + 2) % 3));
      out(i, 3 + (i + 2) % 3) = hp((i + 1) % 3);
    }
    t = 0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        out(3 + j, i) = out(i, 3 + j);
        if (i == j) out(3 + i, 3 + j) = m;
        else mul_to(out(3 + i, 3 + j), m, t);
      }
  }
}

// acc += BXAᵀ I BXA for a rigid-body inertia I: CRBA's IC_λ(i) += Xup_iᵀ IC_i Xup_i, by the
// formulas of transform_rigid_inertia_to_parent above (m, h' = Eᵀh + m r, Ī' = Eᵀ Ī E - (y rᵀ +
// r h'ᵀ) + (r·y + r·h') 1, y = Eᵀh). For the kInPlace scalars: that transform into `scratch`,
// then the 6x6 sum (the same numbers as the two steps). For double and long double: E, r and the
// 10 parameters are read into local values, and each entry of the result is added to acc
// directly, skipping h×'s diagonal and m 1's off-diagonal (exact zeros); with nothing to alias,
// the compiler keeps the operands in registers (CRBA faster than through the Eigen expression
// and a 6x6 temporary: docs/benchmarks.md, "Workspace forms, and Pinocchio in one process", item
// 2). Equal to acc + the dense XᵀIX up to
// rounding (tests/spatial_test.cpp).
template <class T>
RBDREF_HOT void add_rigid_inertia_to_parent(const Xform<T>& X, const Mat6<T>& I, Mat6<T>& acc, Mat6<T>& scratch) {
  if constexpr (kInPlace<T>) {
    transform_rigid_inertia_to_parent_into<T>(X, I, scratch);
    acc += scratch;
  } else {
    T E[3][3], r[3], A[3][3];  // E, r; Ī
#pragma GCC unroll 3
    for (int i = 0; i < 3; ++i) {
      r[i] = X.r(i);
#pragma GCC unroll 3
      for (int j = 0; j < 3; ++j) E[i][j] = X.E(i, j), A[i][j] = I(i, j);
    }
    const T m = I(5, 5), h[3] = {I(2, 4), I(0, 5), I(1, 3)};  // h× = I's upper-right block
    T y[3], hp[3], AE[3][3];
#pragma GCC unroll 3
    for (int i = 0; i < 3; ++i) {
      y[i] = E[0][i] * h[0] + E[1][i] * h[1] + E[2][i] * h[2];  // y = Eᵀ h
      hp[i] = y[i] + m * r[i];                                   // h' = y + m r
#pragma GCC unroll 3
      for (int j = 0; j < 3; ++j) AE[i][j] = A[i][0] * E[0][j] + A[i][1] * E[1][j] + A[i][2] * E[2][j];
    }
    const T d = (r[0] * y[0] + r[1] * y[1] + r[2] * y[2]) + (r[0] * hp[0] + r[1] * hp[1] + r[2] * hp[2]);
#pragma GCC unroll 3
    for (int i = 0; i < 3; ++i)
#pragma GCC unroll 3
      for (int j = i; j < 3; ++j) {  // Ī', upper triangle, mirrored
        T c = E[0][i] * AE[0][j] + E[1][i] * AE[1][j] + E[2][i] * AE[2][j] - (y[i] * r[j] + r[i] * hp[j]);
        if (j == i) {
          acc(i, i) += c + d;
        } else {
          acc(i, j) += c;
          acc(j, i) += c;
        }
      }
#pragma GCC unroll 3
    for (int i = 0; i < 3; ++i) {  // h'× and its transpose; m 1
      const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
      acc(i, 3 + i1) -= hp[i2];
      acc(i, 3 + i2) += hp[i1];
      acc(3 + i1, i) -= hp[i2];
      acc(3 + i2, i) += hp[i1];
      acc(3 + i, 3 + i) += m;
    }
  }
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
void transform_articulated_inertia_to_parent_into(const Xform<T>& X, const Mat6<T>& I, Mat6<T>& out);

template <class T>
Mat6<T> transform_articulated_inertia_to_parent(const Xform<T>& X, const Mat6<T>& I) {
  Mat6<T> out;
  transform_articulated_inertia_to_parent_into<T>(X, I, out);
  return out;
}

template <class T>
Mat6<T> transform_articulated_inertia_to_parent_expr(const Xform<T>& X, const Mat6<T>& I) {
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


// transform_articulated_inertia_to_parent_expr is the block form above; the function and its _into
// form (out not I) are it for double and long double, and for the kInPlace scalars compute every
// entry by its operations in its order (equal bit for bit; tests/spatial_test.cpp).
template <class T>
void transform_articulated_inertia_to_parent_into(const Xform<T>& X, const Mat6<T>& I, Mat6<T>& out) {
  if constexpr (!kInPlace<T>) {
    out = transform_articulated_inertia_to_parent_expr<T>(X, I);
  } else {
    const Mat3<T>& E = X.E;
    const Vec3<T>& r = X.r;
    T s, t;
    Mat3<T> W, B1;
    detail::congruence_sym_into<T>(E, I, 0, out, W, s);  // A1 = Eᵀ A E, upper left
    detail::congruence_sym_into<T>(E, I, 3, out, W, s);  // C1 = Eᵀ C E = C', lower right
    for (int i = 0; i < 3; ++i)  // W = B E, B1 = Eᵀ (B E)
      for (int j = 0; j < 3; ++j) inplace::dot3<T>(W(i, j), s, I(i, 3), E(0, j), I(i, 4), E(1, j), I(i, 5), E(2, j));
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) inplace::dot3<T>(B1(i, j), s, E(0, i), W(0, j), E(1, i), W(1, j), E(2, i), W(2, j));
    // B' = B1 + r× C1, column by column, into the upper right: (r × C1.col(k))_i + B1(i, k)
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < 3; ++i) {
        const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        inplace::ab_minus_cd<T>(t, s, r(i1), out(3 + i2, 3 + k), r(i2), out(3 + i1, 3 + k));
        add_to(out(i, 3 + k), B1(i, k), t);
      }
    // A' = (A1 + r× B1ᵀ) - B' r×, upper triangle, mirrored: N(i,j) = (r × B1.row(j))_i,
    // P(i,j) = (B'.row(i) × r)_j.
    for (int i = 0; i < 3; ++i)
      for (int j = i; j < 3; ++j) {
        const int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
        T& x = out(i, j);
        inplace::ab_minus_cd<T>(t, s, r(i1), B1(j, i2), r(i2), B1(j, i1));
        add_to(x, x, t);
        inplace::ab_minus_cd<T>(t, s, out(i, 3 + j1), r(j2), out(i, 3 + j2), r(j1));
        sub_to(x, x, t);
        if (j != i) out(j, i) = x;
      }
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) out(3 + j, i) = out(i, 3 + j);  // B'ᵀ
  }
}

}  // namespace rbd
