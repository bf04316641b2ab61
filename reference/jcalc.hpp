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

#include "reference/spatial.hpp"

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
};

// jcalc(joint, q, qd): q points at the joint's nq coordinates, qd at its nv velocities.
template <class T>
JointKinematics<T> jcalc(const Joint<T>& jt, const T* q, const T* qd);

// The constraint-force subspace T of a joint (RBDA §3.5; named Tf here to keep T for the scalar):
// an orthonormal basis of {f : Sᵀ f = 0}, 6 x (6 - nv), from the S that jcalc returns at q. It is
// computed on demand (loop joints and contacts need it; the tree algorithms do not, and a QR
// per joint per call would be a fifth of their cost).
template <class T>
Mat6K<T> force_complement(const Mat6K<T>& S);

// Derivative of the joint's position coordinates for velocity qd: qdot = Q(q) qd (nq entries).
// Identity for 1-DoF, cylindrical and planar joints; ½ q ⊗ (0, ω) for quaternions; for the free
// joint also ṗ = R(q) v.
template <class T>
void joint_qdot(const Joint<T>& jt, const T* q, const T* qd, T* qdot);

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

template <class T>
JointKinematics<T> jcalc(const Joint<T>& jt, const T* q, const T* qd) {
  JointKinematics<T> k;
  const Vec3<T> Z = Vec3<T>::Zero();
  const Vec3<T>& a = jt.axis;
  switch (jt.type) {
    case JointType::Revolute:
      k.XJ = Xform<T>::rot(axis_angle<T>(a, q[0]).transpose());
      k.S = Mat6K<T>(6, 1);
      k.S.col(0) << a, Z;
      break;
    case JointType::Prismatic:
      k.XJ = Xform<T>::xlt(Vec3<T>(q[0] * a));
      k.S = Mat6K<T>(6, 1);
      k.S.col(0) << Z, a;
      break;
    case JointType::Helical:
      // rot and xlt commute here: the shift is along the rotation axis.
      k.XJ = Xform<T>(axis_angle<T>(a, q[0]).transpose(), Vec3<T>(jt.pitch * q[0] * a));
      k.S = Mat6K<T>(6, 1);
      k.S.col(0) << a, Vec3<T>(jt.pitch * a);
      break;
    case JointType::Cylindrical:
      k.XJ = Xform<T>(axis_angle<T>(a, q[0]).transpose(), Vec3<T>(q[1] * a));
      k.S = Mat6K<T>(6, 2);
      k.S.col(0) << a, Z;
      k.S.col(1) << Z, a;
      break;
    case JointType::Planar: {
      const Vec3<T> w = a.cross(jt.u);
      const Mat3<T> E = axis_angle<T>(a, q[2]).transpose();
      k.XJ = Xform<T>(E, Vec3<T>(q[0] * jt.u + q[1] * w));
      k.S = Mat6K<T>(6, 3);
      k.S.col(0) << Z, Vec3<T>(E * jt.u);
      k.S.col(1) << Z, Vec3<T>(E * w);
      k.S.col(2) << a, Z;
      // S̊ qd: only the translation columns turn with θ; d/dt(E) = -θ̇ n× E, and E n× = n× E.
      const Vec3<T> vlin = E * (qd[0] * jt.u + qd[1] * w);
      k.cJ = Motion<T>(Z, Vec3<T>(-qd[2] * a.cross(vlin)));
      break;
    }
    case JointType::Spherical:
      k.XJ = Xform<T>::rot(quat_to_R<T>(q[0], q[1], q[2], q[3]).transpose());
      k.S = Mat6K<T>(6, 3);
      k.S.setZero();
      k.S.template topRows<3>().setIdentity();
      break;
    case JointType::Free:
      k.XJ = Xform<T>(quat_to_R<T>(q[0], q[1], q[2], q[3]).transpose(), Vec3<T>(q[4], q[5], q[6]));
      k.S = Mat6<T>::Identity();
      break;
    case JointType::Fixed:
      k.S = Mat6K<T>(6, 0);
      break;
  }
  VecK<T> qdv(k.S.cols());
  for (Eigen::Index j = 0; j < k.S.cols(); ++j) qdv(j) = qd[j];
  k.vJ = Motion<T>(Vec6<T>(k.S * qdv));
  return k;
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

#define RBDREF_JCALC_INSTANTIATE(EXT, T)                                                      \
  EXT template JointKinematics<T> jcalc<T>(const Joint<T>&, const T*, const T*);            \
  EXT template Mat6K<T> force_complement<T>(const Mat6K<T>&);                               \
  EXT template void joint_qdot<T>(const Joint<T>&, const T*, const T*, T*);

#define RBDREF_JCALC_EXTERN(T) RBDREF_JCALC_INSTANTIATE(extern, T)
RBDREF_FOR_EACH_SCALAR(RBDREF_JCALC_EXTERN)
#undef RBDREF_JCALC_EXTERN

}  // namespace rbd
