// Joint models and jcalc (RBDA §4.4, table 4.1). All joint variety of rbdref lives in this file:
// the algorithms only see XJ, S, T, vJ and cJ.
//
// Joint types, their coordinates (q, nq entries) and velocities (qd, nv entries), with a the unit
// joint axis (normalized from the model's axis, URDF semantics) and h the helical pitch:
//
//   type         nq nv  q                      qd            XJ                       S (child coords)
//   revolute     1  1   θ                      θ̇             rot(R(a,θ)ᵀ)             [a; 0]
//   prismatic    1  1   d                      ḋ             xlt(d a)                 [0; a]
//   helical      1  1   θ                      θ̇             rot(R(a,θ)ᵀ) xlt(hθ a)   [a; h a]
//   cylindrical  2  2   θ, d                   θ̇, ḋ          rot(R(a,θ)ᵀ) xlt(d a)    [a 0; 0 a]
//   planar       3  3   x, y, θ                ẋ, ẏ, θ̇       rot(R(n,θ)ᵀ) xlt(x u+y w) [0 0 n; Eu Ew 0]
//   spherical    4  3   qw qx qy qz            ω (child)     rot(R(q)ᵀ)               [1; 0]
//   free         7  6   qw qx qy qz px py pz   ω, v (child)  rot(R(q)ᵀ) xlt(p)        1 (6x6)
//   fixed        0  0   -                      -             1                        (6x0)
//
// Planar: n is the plane normal (the model's axis), u a unit in-plane direction (the model's
// "plane_x", or a fixed choice documented in docs/conventions.md), w = n × u; x and y translate
// along u and w in the parent frame, then θ rotates about n. Its S depends on θ, so cJ ≠ 0.
//
// Quaternion policy: q = (qw, qx, qy, qz) is used as R(q/|q|), computed by a formula that divides
// by |q|², so jcalc never normalizes in place and a non-unit q is not an error here. Readers of
// states reject quaternions whose norm is not 1 within 1e-6 (see docs/conventions.md); what jcalc
// computes is the rotation the unit quaternion q/|q| represents, at the precision of T.
#pragma once

#include "reference/spatial/spatial.hpp"

#include <Eigen/QR>

#include <string>

namespace rbd {

enum class JointType { Revolute, Prismatic, Helical, Cylindrical, Planar, Spherical, Free, Fixed };

int joint_nq(JointType t);
int joint_nv(JointType t);
const char* joint_type_name(JointType t);
// Parses "revolute", "prismatic", ... ; returns false for an unknown name.
bool joint_type_from_name(const std::string& name, JointType& out);

template <class T>
struct Joint {
  JointType type = JointType::Fixed;
  Vec3<T> axis = Vec3<T>(T(0), T(0), T(1));  // unit; the plane normal n for planar
  Vec3<T> u = Vec3<T>(T(1), T(0), T(0));     // planar only: unit in-plane x direction
  T pitch = T(0);                            // helical only: translation per radian
};

// Output of jcalc for one joint at (q, qd); frames: XJ maps the joint's predecessor frame (after
// Xtree) to the successor (body) frame; S, vJ, cJ are in successor coordinates. The constraint-force
// subspace T is force_complement(S).
template <class T>
struct JointKinematics {
  Xform<T> XJ;
  Mat6K<T> S;   // motion subspace, 6 x nv
  Motion<T> vJ; // S qd
  Motion<T> cJ; // S̊ qd, the apparent derivative of S times qd (0 unless S depends on q)
  // k when S = [e_k … e_{k+nv-1}], consecutive columns of the 6x6 identity: a revolute or
  // prismatic joint along a coordinate axis of its frame (one column), spherical (e_0..e_2), free
  // (all six). Then S qd, Sᵀ f and I S are a segment of entries, a segment, and columns of I; the
  // algorithms use it, so that joint variety stays here. -1 otherwise (and for nv = 0).
  int S_axis = -1;
  // k when XJ = rot(E) with E Featherstone's rotx/roty/rotz about axis k (coordinate_rotation_E:
  // a revolute joint about ±e_k), so that XJ Xtree is Xform::compose_coordinate_rotation; -1
  // otherwise.
  int XJ_axis = -1;
};

// jcalc(joint, q, qd): q points at the joint's nq coordinates, qd at its nv velocities.
template <class T>
JointKinematics<T> jcalc(const Joint<T>& jt, const T* q, const T* qd);
// The same into k, whatever k held before: kinematics() reuses one JointKinematics for every body
// (at MPFR's run-time precision a new one is ~60 heap values, mostly S's 6 x 6 storage).
template <class T>
void jcalc_into(const Joint<T>& jt, const T* q, const T* qd, JointKinematics<T>& k);

// The constraint-force subspace T of a joint (RBDA §3.5; named Tf here to keep T for the scalar):
// an orthonormal basis of {f : Sᵀ f = 0}, 6 x (6 - nv), from the S that jcalc returns at q. It is
// computed on demand (loop joints and contacts need it; the tree algorithms do not, and a QR
// per joint per call would be a large share of their cost: docs/benchmarks.md, "Tree
// algorithms: choices measured once").
template <class T>
Mat6K<T> force_complement(const Mat6K<T>& S);

// Derivative of the joint's position coordinates for velocity qd: qdot = Q(q) qd (nq entries).
// Identity for 1-DoF, cylindrical and planar joints; ½ q ⊗ (0, ω) for quaternions; for the free
// joint also ṗ = R(q) v.
template <class T>
void joint_qdot(const Joint<T>& jt, const T* q, const T* qd, T* qdot);

// ---- loop joints (RBDA §8.3, table 8.1) ----
//
// A loop joint k constrains the successor's joint frame s relative to the predecessor's p. With
// sXp = X_S · sX_p · X_P⁻¹ the transform the tree's positions give (eq. 8.24), the constraint holds
// when sXp = XJ(q_J) for some joint coordinates q_J. Otherwise sXp = X_err X_J (eq. 8.25), with
// X_J the joint transform nearest sXp and X_err ≈ 1 - d× (eq. 8.26), d the displacement of the
// successor frame from where the joint would put it, in successor coordinates; δ = Tᵀ d (8.27).
//
// Table 8.1 of the book gives δ entry by entry for joints along z; here one rule serves every type:
//   1. q_J = the coordinates of the joint transform nearest sXp (loop_joint_coordinates: the
//      rotation about the axis that maximizes tr(E_err), the translation along the joint's free
//      directions; a helical joint's turn is chosen by its translation);
//   2. X_J = jcalc(joint, q_J).XJ, X_err = sXp X_J⁻¹ = (E_err, r_err);
//   3. d = [½ vee(E_errᵀ - E_err); E_err r_err]  (from 1 - d× = [1 - ω×, 0; -v×, 1 - ω×]);
//   4. δ = Tᵀ d.
// δ is exactly 0 when the constraint holds, and its rate is Tᵀ v_J (v_J = v_s - v_p in successor
// joint coordinates), the velocity constraint of eq. 8.9: what Baumgarte's k_stab needs (8.22).
// For the book's cylindrical joint on z (example 8.1) this gives d1 = (sXp)_23, d2 = -(sXp)_13 to
// first order, and δ = [d1 d2 d4 d5] (a test checks it).
//
// The constraint-force subspace T of a loop joint (6 x n^c, successor joint-frame coordinates) is
// an orthonormal basis fixed in that frame (T̊ = 0, which table 8.4 assumes), chosen so that λ
// reads as moments and forces along named directions. With a the unit axis, b the unit vector
// perpendicular to a nearest the coordinate axis least aligned with a, c = a × b (for a = z:
// b = x, c = y), and columns written [moment; force]:
//   revolute     [b;0] [c;0] [0;b] [0;c] [0;a]
//   prismatic    [b;0] [c;0] [a;0] [0;b] [0;c]
//   helical      [b;0] [c;0] [0;b] [0;c] [-h a; a]/√(1+h²)
//   cylindrical  [b;0] [c;0] [0;b] [0;c]
//   planar       [u;0] [w;0] [0;n]          (n the normal, u plane_x, w = n × u)
//   spherical    [0;x] [0;y] [0;z]
//   fixed        the 6 x 6 identity
//   free         6 x 0 (no constraint)
template <class T>
Mat6K<T> loop_constraint_basis(const Joint<T>& jt);

// The coordinates q_J (nq entries) of the joint transform nearest X = sXp (step 1 above).
template <class T>
VecX<T> loop_joint_coordinates(const Joint<T>& jt, const Xform<T>& X);

template <class T>
struct LoopJcalc {
  Mat6K<T> Tc;     // constraint-force subspace, successor joint-frame coordinates (6 x n^c)
  VecK<T> delta;   // position error δ = Tᵀ d (n^c)
  Motion<T> d;     // the displacement d (successor joint-frame coordinates)
  VecX<T> qJ;      // coordinates of the nearest joint transform (nq entries: 7 for free)
};
// δ = jcalc(jtype(k), sXp) (eq. 8.23) and T.
template <class T>
LoopJcalc<T> loop_jcalc(const Joint<T>& jt, const Xform<T>& sXp);

// ---- definitions ----
template <class T>
Mat6K<T> force_complement(const Mat6K<T>& S) {
  const Eigen::Index k = S.cols();
  Mat6K<T> Tf(6, 6 - k);
  if (k == 0) {
    Tf = Mat6<T>::Identity();
    return Tf;
  }
  // Full QR of S: the last 6-k columns of Q span the orthogonal complement of range(S).
  Eigen::HouseholderQR<Mat6K<T>> qr(S);
  const Mat6<T> Q = qr.householderQ() * Mat6<T>::Identity();
  Tf = Q.rightCols(6 - k);
  return Tf;
}

namespace detail {
// Column j of S: [ang; lin], [ang; 0] and [0; lin].
template <class T>
void set_column(Mat6K<T>& S, Eigen::Index j, const Vec3<T>& ang, const Vec3<T>& lin) {
  S.col(j).template head<3>() = ang;
  S.col(j).template tail<3>() = lin;
}
template <class T>
void set_column_ang(Mat6K<T>& S, Eigen::Index j, const Vec3<T>& ang) {
  for (int r = 0; r < 3; ++r) S(r, j) = ang(r), S(3 + r, j) = 0;
}
template <class T>
void set_column_lin(Mat6K<T>& S, Eigen::Index j, const Vec3<T>& lin) {
  for (int r = 0; r < 3; ++r) S(r, j) = 0, S(3 + r, j) = lin(r);
}
// k when a = ±e_k exactly (sign in *sign), else -1.
template <class T>
RBDREF_HOT int coordinate_axis(const Vec3<T>& a, int* sign) {
  const bool z0 = a(0) == 0, z1 = a(1) == 0, z2 = a(2) == 0;
  const int k = z1 && z2 ? 0 : z0 && z2 ? 1 : z0 && z1 ? 2 : -1;
  if (k < 0 || !(a(k) == 1 || a(k) == -1)) return -1;
  *sign = a(k) == 1 ? 1 : -1;
  return k;
}
// k when a = +e_k exactly, else -1.
template <class T>
RBDREF_HOT int positive_coordinate_axis(const Vec3<T>& a) {
  int sign = 1;
  const int k = coordinate_axis<T>(a, &sign);
  return sign > 0 ? k : -1;
}
// E = R(a, θ)ᵀ of a revolute joint: Featherstone's rotx/roty/rotz when a = ±e_k (axis = k = the
// coordinate_axis of a, with its sign; about -e_k by θ is about e_k by -θ), Rodrigues otherwise
// (axis = -1).
template <class T>
void revolute_E(const Vec3<T>& a, const T& th, int axis, int sign, Mat3<T>& E) {
  if (axis < 0) E = axis_angle<T>(a, th).transpose();
  else if (sign > 0) coordinate_rotation_E_into<T>(axis, th, E);
  else coordinate_rotation_E_into<T>(axis, T(-th), E);
}
}  // namespace detail

// A revolute joint about +e_k exactly (k = coordinate_revolute_axis(jt) >= 0; -1 for every other
// joint), the commonest joint of URDF models, with its transform composed: Xup = XJ Xtree for
// XJ = rot(E), E Featherstone's rotx/roty/rotz(θ) (RBDA table 2.2), written from cos θ and sin θ
// without forming E. jcalc_into gives this joint S = e_k, vJ = θ̇ e_k, cJ = 0 and XJ_axis = k, and
// Xup here is Xform::compose_coordinate_rotation(k, Xtree) of that XJ, the same operations on the
// same values: kinematics_into (kinematics.hpp) takes this path for these joints at every scalar,
// with the same numbers as jcalc_into followed by the composition (tests/jcalc_test.cpp,
// tests/workspace_test.cpp).
template <class T>
RBDREF_HOT int coordinate_revolute_axis(const Joint<T>& jt) {
  return jt.type == JointType::Revolute ? detail::positive_coordinate_axis<T>(jt.axis) : -1;
}
namespace detail {
template <int k, class T>
void coordinate_revolute_rows(const T& c, const T& s, const T& ms, const Xform<T>& Xtree, Xform<T>& Xup) {
  constexpr int i = (k + 1) % 3, j = (k + 2) % 3;  // E = [row k: e_k; row i: (c, s) on (i, j); row j: (-s, c)]
  // Row k of Xtree.E stays; rows i and j: E(i,i) o_i + E(i,j) o_j and E(j,i) o_i + E(j,j) o_j.
  T t;
  for (int col = 0; col < 3; ++col) {
    Xup.E(k, col) = Xtree.E(k, col);
    mul_to(Xup.E(i, col), c, Xtree.E(i, col));
    mul_to(t, s, Xtree.E(j, col));
    add_to(Xup.E(i, col), Xup.E(i, col), t);
    mul_to(Xup.E(j, col), ms, Xtree.E(i, col));
    mul_to(t, c, Xtree.E(j, col));
    add_to(Xup.E(j, col), Xup.E(j, col), t);
  }
  Xup.r = Xtree.r;
}
}  // namespace detail
template <class T>
void coordinate_revolute_compose(int k, const T& th, const Xform<T>& Xtree, Xform<T>& Xup) {
  T s, c, ms;
  sin_cos(th, s, c);
  neg_to(ms, s);
  switch (k) {  // the axis as a template argument: constant row indices
    case 0: detail::coordinate_revolute_rows<0, T>(c, s, ms, Xtree, Xup); break;
    case 1: detail::coordinate_revolute_rows<1, T>(c, s, ms, Xtree, Xup); break;
    default: detail::coordinate_revolute_rows<2, T>(c, s, ms, Xtree, Xup); break;
  }
}

template <class T>
JointKinematics<T> jcalc(const Joint<T>& jt, const T* q, const T* qd) {
  JointKinematics<T> k;
  jcalc_into<T>(jt, q, qd, k);
  return k;
}

template <class T>
void jcalc_into(const Joint<T>& jt, const T* q, const T* qd, JointKinematics<T>& k) {
  // k starts as a fresh JointKinematics: the identity XJ, zero vJ and cJ, a 6 x 0 S (its 6 x 6
  // storage exists: S is resized and every entry of its columns written), no axes. Values are
  // assigned into k's, so no second 6 x 6 storage or transform is made.
  inplace::set_identity(k.XJ.E);
  inplace::set_zero(k.XJ.r);
  inplace::set_zero(k.vJ.c);
  inplace::set_zero(k.cJ.c);
  k.S.resize(6, 0);
  k.S_axis = -1;
  k.XJ_axis = -1;
  const Vec3<T>& a = jt.axis;
  bool read_S = false;  // S_axis from the S written (below), for the types that do not set it here
  switch (jt.type) {
    case JointType::Revolute: {
      int sign = 1;
      k.XJ_axis = detail::coordinate_axis<T>(a, &sign);
      detail::revolute_E<T>(a, q[0], k.XJ_axis, sign, k.XJ.E);  // rot(E): r stays 0
      k.S.resize(6, 1);
      detail::set_column_ang<T>(k.S, 0, a);
      if (k.XJ_axis >= 0 && sign > 0) k.S_axis = k.XJ_axis;  // S = [e_k; 0]
      break;
    }
    case JointType::Prismatic:
      k.XJ = Xform<T>::xlt(Vec3<T>(q[0] * a));
      k.S.resize(6, 1);
      detail::set_column_lin<T>(k.S, 0, a);
      if (const int ax = detail::positive_coordinate_axis<T>(a); ax >= 0) k.S_axis = 3 + ax;  // S = [0; e_k]
      break;
    case JointType::Helical:
      // rot and xlt commute here: the shift is along the rotation axis.
      k.XJ = Xform<T>(axis_angle<T>(a, q[0]).transpose(), Vec3<T>(jt.pitch * q[0] * a));
      k.S.resize(6, 1);
      detail::set_column<T>(k.S, 0, a, Vec3<T>(jt.pitch * a));
      read_S = true;
      break;
    case JointType::Cylindrical:
      k.XJ = Xform<T>(axis_angle<T>(a, q[0]).transpose(), Vec3<T>(q[1] * a));
      k.S.resize(6, 2);
      detail::set_column_ang<T>(k.S, 0, a);
      detail::set_column_lin<T>(k.S, 1, a);
      read_S = true;
      break;
    case JointType::Planar: {
      const Vec3<T> w = a.cross(jt.u);
      const Mat3<T> E = axis_angle<T>(a, q[2]).transpose();
      k.XJ = Xform<T>(E, Vec3<T>(q[0] * jt.u + q[1] * w));
      k.S.resize(6, 3);
      detail::set_column_lin<T>(k.S, 0, Vec3<T>(E * jt.u));
      detail::set_column_lin<T>(k.S, 1, Vec3<T>(E * w));
      detail::set_column_ang<T>(k.S, 2, a);
      // S̊ qd: only the translation columns turn with θ; d/dt(E) = -θ̇ n× E, and E n× = n× E.
      const Vec3<T> vlin = E * (qd[0] * jt.u + qd[1] * w);
      k.cJ.c.template tail<3>() = -qd[2] * a.cross(vlin);  // angular part stays 0
      read_S = true;
      break;
    }
    case JointType::Spherical:
      k.XJ = Xform<T>::rot(quat_to_R<T>(q[0], q[1], q[2], q[3]).transpose());
      k.S.resize(6, 3);
      k.S.setZero();
      k.S.template topRows<3>().setIdentity();
      k.S_axis = 0;  // S = [e_0 e_1 e_2]
      break;
    case JointType::Free:
      k.XJ = Xform<T>(quat_to_R<T>(q[0], q[1], q[2], q[3]).transpose(), Vec3<T>(q[4], q[5], q[6]));
      k.S = Mat6<T>::Identity();
      k.S_axis = 0;  // S = [e_0 … e_5]
      break;
    case JointType::Fixed:
      k.S.resize(6, 0);
      break;
  }
  const Eigen::Index n = k.S.cols();
  if (n > 0 && read_S) {  // S_axis: the row of column 0's entry 1, if S is then [e_k … e_{k+n-1}]
    int a = 0;
    while (a < 6 && k.S(a, 0) != 1) ++a;
    bool unit = a + n <= 6;
    for (Eigen::Index c = 0; unit && c < n; ++c)
      for (int r = 0; unit && r < 6; ++r) unit = k.S(r, c) == (r == a + c ? 1 : 0);
    if (unit) k.S_axis = a;
  }
  if (k.S_axis >= 0) {
    for (Eigen::Index j = 0; j < n; ++j) k.vJ.c(k.S_axis + j) = qd[j];  // S qd
  } else {
    VecK<T> qdv(k.S.cols());
    for (Eigen::Index j = 0; j < k.S.cols(); ++j) qdv(j) = qd[j];
    k.vJ = Motion<T>(Vec6<T>(k.S * qdv));
  }
}

template <class T>
void joint_qdot(const Joint<T>& jt, const T* q, const T* qd, T* qdot) {
  switch (jt.type) {
    case JointType::Spherical:
    case JointType::Free: {
      // qdot = ½ q ⊗ (0, ω), ω in child coordinates.
      const T w = q[0], x = q[1], y = q[2], z = q[3];
      const T ox = qd[0], oy = qd[1], oz = qd[2];
      qdot[0] = (-x * ox - y * oy - z * oz) / T(2);
      qdot[1] = (w * ox + y * oz - z * oy) / T(2);
      qdot[2] = (w * oy - x * oz + z * ox) / T(2);
      qdot[3] = (w * oz + x * oy - y * ox) / T(2);
      if (jt.type == JointType::Free) {
        // ṗ = R(q) v, v the child-origin velocity in child coordinates.
        const Vec3<T> pd = quat_to_R<T>(w, x, y, z) * Vec3<T>(qd[3], qd[4], qd[5]);
        for (int i = 0; i < 3; ++i) qdot[4 + i] = pd(i);
      }
      break;
    }
    default:
      for (int i = 0; i < joint_nv(jt.type); ++i) qdot[i] = qd[i];
  }
}

namespace detail {
// b ⟂ a (unit): the coordinate axis least aligned with a, projected off a.
template <class T>
Vec3<T> perpendicular(const Vec3<T>& a) {
  using std::abs;
  int kmin = 0;
  for (int k = 1; k < 3; ++k)
    if (prefer_less(T(abs(a(k))), T(abs(a(kmin))))) kmin = k;
  const Vec3<T> b = Vec3<T>::Unit(kmin) - a * a(kmin);
  return b / b.norm();
}
// The angle θ of R(a, θ) nearest (in tr) to the rotation Eᵀ: E maps p to s coordinates and
// jcalc's E_J = R(a, θ)ᵀ, so θ maximizes tr(E R(a, θ)) = cosθ (tr E - aᵀEa) + sinθ tr(E a×) + aᵀEa.
template <class T>
T nearest_angle(const Mat3<T>& E, const Vec3<T>& a) {
  using std::atan2;
  return atan2(T((E * skew<T>(a)).trace()), T(E.trace() - a.dot(E * a)));
}
// Unit quaternion (w, x, y, z), w >= 0, of the rotation R (Shepperd's method: the largest of
// 4w², 4x², 4y², 4z² is computed first, so no division by a small number).
template <class T>
void R_to_quat(const Mat3<T>& R, T* q) {
  using std::sqrt;
  const T t = R.trace();
  const T d[4] = {t, R(0, 0), R(1, 1), R(2, 2)};
  int k = 0;
  for (int i = 1; i < 4; ++i)
    if (d[i] > d[k]) k = i;
  T w, x, y, z;
  if (k == 0) {
    const T s = T(2) * sqrt(T(1) + t);  // 4w
    w = s / T(4); x = (R(2, 1) - R(1, 2)) / s; y = (R(0, 2) - R(2, 0)) / s; z = (R(1, 0) - R(0, 1)) / s;
  } else if (k == 1) {
    const T s = T(2) * sqrt(T(1) + R(0, 0) - R(1, 1) - R(2, 2));  // 4x
    w = (R(2, 1) - R(1, 2)) / s; x = s / T(4); y = (R(0, 1) + R(1, 0)) / s; z = (R(0, 2) + R(2, 0)) / s;
  } else if (k == 2) {
    const T s = T(2) * sqrt(T(1) + R(1, 1) - R(0, 0) - R(2, 2));  // 4y
    w = (R(0, 2) - R(2, 0)) / s; x = (R(0, 1) + R(1, 0)) / s; y = s / T(4); z = (R(1, 2) + R(2, 1)) / s;
  } else {
    const T s = T(2) * sqrt(T(1) + R(2, 2) - R(0, 0) - R(1, 1));  // 4z
    w = (R(1, 0) - R(0, 1)) / s; x = (R(0, 2) + R(2, 0)) / s; y = (R(1, 2) + R(2, 1)) / s; z = s / T(4);
  }
  const T sg = w < T(0) ? T(-1) : T(1);
  q[0] = sg * w; q[1] = sg * x; q[2] = sg * y; q[3] = sg * z;
}
}  // namespace detail

template <class T>
Mat6K<T> loop_constraint_basis(const Joint<T>& jt) {
  const Vec3<T> Z = Vec3<T>::Zero();
  const Vec3<T>& a = jt.axis;
  const Vec3<T> b = detail::perpendicular<T>(a), c = a.cross(b);
  Mat6K<T> Tc;
  auto cols = [&](std::initializer_list<std::pair<Vec3<T>, Vec3<T>>> cs) {
    Tc = Mat6K<T>(6, static_cast<Eigen::Index>(cs.size()));
    Eigen::Index j = 0;
    for (const auto& [n, f] : cs) Tc.col(j++) << n, f;
  };
  switch (jt.type) {
    case JointType::Revolute: cols({{b, Z}, {c, Z}, {Z, b}, {Z, c}, {Z, a}}); break;
    case JointType::Prismatic: cols({{b, Z}, {c, Z}, {a, Z}, {Z, b}, {Z, c}}); break;
    case JointType::Helical: {
      using std::sqrt;
      const T nrm = sqrt(T(1) + jt.pitch * jt.pitch);
      cols({{b, Z}, {c, Z}, {Z, b}, {Z, c}, {Vec3<T>(-jt.pitch * a / nrm), Vec3<T>(a / nrm)}});
      break;
    }
    case JointType::Cylindrical: cols({{b, Z}, {c, Z}, {Z, b}, {Z, c}}); break;
    case JointType::Planar: cols({{jt.u, Z}, {Vec3<T>(a.cross(jt.u)), Z}, {Z, a}}); break;
    case JointType::Spherical: cols({{Z, Vec3<T>::UnitX()}, {Z, Vec3<T>::UnitY()}, {Z, Vec3<T>::UnitZ()}}); break;
    case JointType::Fixed: Tc = Mat6<T>::Identity(); break;
    case JointType::Free: Tc = Mat6K<T>(6, 0); break;
  }
  return Tc;
}

template <class T>
VecX<T> loop_joint_coordinates(const Joint<T>& jt, const Xform<T>& X) {
  const Vec3<T>& a = jt.axis;
  const Vec3<T>& r = X.r;  // the successor frame's origin in predecessor coordinates
  VecX<T> q(joint_nq(jt.type));
  switch (jt.type) {
    case JointType::Revolute: q(0) = detail::nearest_angle<T>(X.E, a); break;
    case JointType::Prismatic: q(0) = a.dot(r); break;
    case JointType::Helical: {
      // The rotation fixes θ modulo 2π; the translation h θ along a picks the turn.
      using std::round;
      const T th = detail::nearest_angle<T>(X.E, a);
      q(0) = th;
      if (jt.pitch != T(0)) {
        const T two_pi = T(2) * pi<T>();
        q(0) = th + two_pi * T(round(T((a.dot(r) / jt.pitch - th) / two_pi)));
      }
      break;
    }
    case JointType::Cylindrical:
      q(0) = detail::nearest_angle<T>(X.E, a);
      q(1) = a.dot(r);
      break;
    case JointType::Planar:
      q(0) = jt.u.dot(r);
      q(1) = a.cross(jt.u).dot(r);
      q(2) = detail::nearest_angle<T>(X.E, a);
      break;
    case JointType::Spherical: detail::R_to_quat<T>(Mat3<T>(X.E.transpose()), q.data()); break;
    case JointType::Free:
      detail::R_to_quat<T>(Mat3<T>(X.E.transpose()), q.data());
      for (int i = 0; i < 3; ++i) q(4 + i) = r(i);
      break;
    case JointType::Fixed: break;
  }
  return q;
}

template <class T>
LoopJcalc<T> loop_jcalc(const Joint<T>& jt, const Xform<T>& sXp) {
  LoopJcalc<T> out;
  out.Tc = loop_constraint_basis<T>(jt);
  out.qJ = loop_joint_coordinates<T>(jt, sXp);
  const VecK<T> zero = VecK<T>::Zero(joint_nv(jt.type));
  const Xform<T> XJ = jcalc<T>(jt, out.qJ.data(), zero.data()).XJ;
  const Xform<T> Xerr = sXp * XJ.inverse();
  const Mat3<T> A = Xerr.E.transpose() - Xerr.E;
  const Vec3<T> w(A(2, 1) / T(2), A(0, 2) / T(2), A(1, 0) / T(2));  // ½ vee(E_errᵀ - E_err)
  out.d = Motion<T>(w, Vec3<T>(Xerr.E * Xerr.r));
  out.delta = out.Tc.transpose() * out.d.c;
  return out;
}

#define RBDREF_JCALC_INSTANTIATE(EXT, T) \
  EXT template JointKinematics<T> jcalc<T>(const Joint<T>&, const T*, const T*);            \
  EXT template void jcalc_into<T>(const Joint<T>&, const T*, const T*, JointKinematics<T>&); \
  EXT template Mat6K<T> force_complement<T>(const Mat6K<T>&);                               \
  EXT template void joint_qdot<T>(const Joint<T>&, const T*, const T*, T*);                 \
  EXT template Mat6K<T> loop_constraint_basis<T>(const Joint<T>&);                          \
  EXT template VecX<T> loop_joint_coordinates<T>(const Joint<T>&, const Xform<T>&);         \
  EXT template LoopJcalc<T> loop_jcalc<T>(const Joint<T>&, const Xform<T>&);

RBDREF_EXTERN_FOR_EACH_TREE_SCALAR(RBDREF_JCALC_INSTANTIATE)

}  // namespace rbd
