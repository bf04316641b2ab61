// The exact flow of a joint velocity: q ⊕ t q̇ (RBDA §4.4 eq. 4.7's Q(q), integrated in closed
// form). Used by the energy checks (a trajectory with a known tangent) and by loop assembly
// (Newton steps on the closure manifold, loops/assembly.hpp).
#pragma once

#include "reference/tree/jcalc.hpp"
#include "reference/tree/model.hpp"

namespace rbd {

// q ⊕ t qd: the configuration reached from q in time t at the constant joint velocity qd, the exact
// flow of q̇ = Q(q) qd (joint_qdot), joint by joint:
//   revolute, prismatic, helical, cylindrical, planar   q + t qd   (Q = 1: planar's x, y are
//                                                       coordinates in the parent frame)
//   spherical   q ⊗ exp(t ω / 2) = q ⊗ (cos(t|ω|/2), sin(t|ω|/2) ω/|ω|)   (ω body-frame: Ṙ = R ω×)
//   free        the quaternion as spherical; p(t) = p + R(q) ∫₀ᵗ exp(s ω×) ds v
//               = p + R(q) (t v + (1 - cos x)/|ω|² ω × v + (x - sin x)/|ω|³ ω × (ω × v)), x = t|ω|
// (the joints have no integrator of their own: jcalc.hpp gives only the derivative Q(q) qd).
template <class T>
VecX<T> integrate_q(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const T& t);

// ---- definition ----

template <class T>
VecX<T> integrate_q(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const T& t) {
  using std::cos;
  using std::sin;
  VecX<T> out = q;
  for (int i = 0; i < model.NB; ++i) {
    const JointType type = model.joint[i].type;
    const T* qi = q.data() + model.iq[i];
    const T* vi = qd.data() + model.iv[i];
    T* o = out.data() + model.iq[i];
    if (type != JointType::Spherical && type != JointType::Free) {
      for (int k = 0; k < model.nvi[i]; ++k) o[k] = qi[k] + t * vi[k];  // nq = nv, Q = 1
      continue;
    }
    // Orientation: q ⊗ e, e = exp(t ω / 2) = (cos(x/2), sin(x/2) ω/|ω|), x = t |ω|.
    const Vec3<T> w(vi[0], vi[1], vi[2]);
    const T wn = w.norm();
    const T x = t * wn;
    const T half_s = sin(T(x / T(2)));
    const T ew = cos(T(x / T(2)));
    const Vec3<T> ev = wn > T(0) ? Vec3<T>(w * T(half_s / wn)) : Vec3<T>::Zero();
    const T qw = qi[0];
    const Vec3<T> qv(qi[1], qi[2], qi[3]);
    const Vec3<T> rv = qw * ev + ew * qv + qv.cross(ev);  // Hamilton product, as in joint_qdot
    o[0] = qw * ew - qv.dot(ev);
    for (int k = 0; k < 3; ++k) o[1 + k] = rv(k);
    if (type == JointType::Free) {
      // ṗ = R(t) v with R(t) = R(q) exp(s ω×): p(t) = p + R(q) ∫₀ᵗ exp(s ω×) ds v.
      const Vec3<T> v(vi[3], vi[4], vi[5]);
      Vec3<T> d = t * v;
      if (wn > T(0)) {
        const T one_minus_cos = T(2) * half_s * half_s;  // 1 - cos x without cancellation
        const Vec3<T> wv = w.cross(v);
        d += (one_minus_cos / (wn * wn)) * wv + (T(x - sin(x)) / (wn * wn * wn)) * Vec3<T>(w.cross(wv));
      }
      const Vec3<T> p = Vec3<T>(qi[4], qi[5], qi[6]) + quat_to_R<T>(qi[0], qi[1], qi[2], qi[3]) * d;
      for (int k = 0; k < 3; ++k) o[4 + k] = p(k);
    }
  }
  return out;
}

#define RBDREF_INTEGRATE_INSTANTIATE(EXT, T) \
  EXT template VecX<T> integrate_q<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, const T&);
RBDREF_EXTERN_FOR_EACH_TREE_SCALAR(RBDREF_INTEGRATE_INSTANTIATE)

}  // namespace rbd
