// Forward kinematics and body velocities: the first (outward) pass shared by RNEA (RBDA table 5.1)
// and ABA (table 7.1), and used on its own by CRBA, the energies and the Jacobians.
//
// For i = 0..NB-1 (λ(i) < i):
//   [XJ, S_i, vJ, cJ] = jcalc(joint i, q_i, qd_i)
//   Xup_i = XJ Xtree_i                    (iXλ(i); Xform::compose_coordinate_rotation when XJ is
//                                          rotx/roty/rotz, jcalc's XJ_axis: exactly the same product)
//   X0_i  = Xup_i X0_λ(i)                 (iX0; X0_-1 = 1)
//   v_i   = Xup_i v_λ(i) + vJ             (v_-1 = 0)
//   c_i   = cJ + v_i × vJ                 (the velocity-product term c_i of RBDA table 7.1;
//                                          crm_unit when S_i = e_a: exactly the same product)
// Preconditions: q has nq entries, qd has nv entries (zero vector for position-only use).
//
// A revolute joint about +e_k (coordinate_revolute_axis, jcalc.hpp: the commonest joint of URDF
// models) takes a shorter route to the same numbers: S = e_k, vJ = θ̇ e_k, cJ = 0 are known, and
// Xup_i comes from cos θ, sin θ and Xtree_i directly (coordinate_revolute_compose), the operations
// of compose_coordinate_rotation without forming XJ, so jcalc is not called for it.
//
// RNEA, CRBA and ABA read only Xup, S (and v, c): they pass parts without kWorldTransforms (X0 is
// then left empty), and CRBA without kVelocities (v, c left empty).
#pragma once

#include "reference/tree/model.hpp"

#include <type_traits>
#include <vector>

namespace rbd {

template <class T>
struct TreeKinematics {
  std::vector<Xform<T>> Xup;   // iXλ(i), parent to body i coordinates (NB)
  std::vector<Xform<T>> X0;    // iX0, base to body i coordinates (NB; empty without kWorldTransforms)
  std::vector<Mat6K<T>> S;     // motion subspace of joint i, body i coordinates, 6 x nvi (NB)
  std::vector<int> S_axis;     // k when S_i = e_k (JointKinematics::S_axis), else -1 (NB)
  std::vector<Motion<T>> v;    // spatial velocity of body i, body i coordinates (NB; empty without kVelocities)
  std::vector<Motion<T>> c;    // cJ + v_i × vJ, body i coordinates (NB; empty without kVelocities)
};

// What kinematics() computes besides Xup and S (bit flags).
enum KinematicsParts { kWorldTransforms = 1, kVelocities = 2, kAllKinematics = 3 };

// Into k, whose vectors keep their storage from one call to the next (the workspace forms of the
// algorithms, workspace.hpp: nothing allocated once k has held this model's parts).
template <class T>
void kinematics_into(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, int parts, TreeKinematics<T>& k) {
  const int NB = model.NB;
  const bool world = parts & kWorldTransforms, vel = parts & kVelocities;
  const auto n = static_cast<size_t>(NB);
  if (k.Xup.size() != n) k.Xup.resize(n);
  if (world && k.X0.size() != n) k.X0.resize(n);
  if (k.S.size() != n) k.S.resize(n);
  if (k.S_axis.size() != n) k.S_axis.resize(n);
  if (vel && k.v.size() != n) k.v.resize(n), k.c.resize(n);
  // The coordinate-axis shortcuts save multiplies, which is what a multiprecision scalar pays
  // for; at double and long double Eigen's vectorized 3x3 products are as fast as the indexed
  // scalar code, and RNEA measured slower with them (docs/benchmarks.md, "Second pass").
  constexpr bool kShortcuts = !std::is_floating_point<T>::value;
  JointKinematics<T> J;  // one for every body (jcalc_into replaces all of it)
  Motion<T> vJ_e, zero;  // the short route's vJ = θ̇ e_k (0 between bodies) and cJ = 0
  inplace::set_zero(vJ_e.c);
  inplace::set_zero(zero.c);
  for (int i = 0; i < NB; ++i) {
    const int p = model.parent[i];
    const int rk = coordinate_revolute_axis<T>(model.joint[i]);
    const Motion<T>* vJ;
    const Motion<T>* cJ;
    int unit_axis;  // a when S = e_a and v × vJ is taken as crm_unit, else -1
    if (rk >= 0) {  // revolute about +e_k: S = e_k, vJ = θ̇ e_k, cJ = 0 (jcalc.hpp)
      coordinate_revolute_compose<T>(rk, q(model.iq[i]), model.Xtree[i], k.Xup[i]);
      k.S_axis[i] = rk;
      k.S[i].resize(6, 1);
      inplace::set_zero(k.S[i]);
      k.S[i](rk, 0) = 1;
      vJ_e.c(rk) = qd(model.iv[i]);
      vJ = &vJ_e, cJ = &zero, unit_axis = rk;
    } else {
      jcalc_into<T>(model.joint[i], q.data() + model.iq[i], qd.data() + model.iv[i], J);
      if (kShortcuts && J.XJ_axis >= 0) J.XJ.compose_coordinate_rotation_into(J.XJ_axis, model.Xtree[i], k.Xup[i]);
      else k.Xup[i] = J.XJ * model.Xtree[i];
      k.S_axis[i] = J.S_axis;
      k.S[i] = J.S;
      vJ = &J.vJ, cJ = &J.cJ;
      unit_axis = kShortcuts && J.S_axis >= 0 && J.S.cols() == 1 ? J.S_axis : -1;
    }
    if (world) k.X0[i] = p < 0 ? k.Xup[i] : k.Xup[i] * k.X0[p];
    if (vel) {
      if (p < 0) {
        k.v[i] = *vJ;
      } else {
        k.Xup[i].apply_into(k.v[p], k.v[i]);
        k.v[i] += *vJ;
      }
      // v × vJ: for S = e_a (one coordinate axis), vJ = qd e_a and the product is crm_unit.
      if (unit_axis >= 0) {
        crm_unit_into<T>(k.v[i], unit_axis, qd(model.iv[i]), k.c[i]);
        k.c[i] += *cJ;
      } else {
        k.c[i] = *cJ + crm<T>(k.v[i], *vJ);
      }
    }
    if (rk >= 0) vJ_e.c(rk) = 0;
  }
}

template <class T>
TreeKinematics<T> kinematics(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd,
                             int parts = kAllKinematics) {
  TreeKinematics<T> k;
  kinematics_into<T>(model, q, qd, parts, k);
  return k;
}

// Products with S_i, reading S_axis: when S_i = [e_k … e_{k+nvi-1}] (consecutive unit coordinate
// columns: revolute or prismatic along a coordinate axis, spherical, free) each is a plain read;
// otherwise the columns of S_i are used.
//
// m += S_i x, x the nvi joint entries of body i.
template <class T>
RBDREF_HOT void add_S_times(const TreeKinematics<T>& k, int i, const T* x, Motion<T>& m) {
  const Eigen::Index n = k.S[i].cols();
  if (k.S_axis[i] >= 0) {
    for (Eigen::Index j = 0; j < n; ++j) m.c(k.S_axis[i] + j) += x[j];
  } else {
    for (Eigen::Index j = 0; j < n; ++j) m.c += k.S[i].col(j) * x[j];
  }
}
// Entry j of S_iᵀ f (f a force 6-vector: a Vec6 or a column of a 6 x k matrix).
template <class T, class V>
RBDREF_HOT T S_col_dot(const TreeKinematics<T>& k, int i, Eigen::Index j, const V& f) {
  if (k.S_axis[i] >= 0) return f(k.S_axis[i] + j);
  return k.S[i].col(j).dot(f);
}
// Column j of I S_i (I a 6x6 inertia).
template <class T>
RBDREF_HOT Vec6<T> I_times_S_col(const Mat6<T>& I, const TreeKinematics<T>& k, int i, Eigen::Index j) {
  if (k.S_axis[i] >= 0) return I.col(k.S_axis[i] + j);
  return I * k.S[i].col(j);
}

#define RBDREF_KINEMATICS_INSTANTIATE(EXT, T)                                                              \
  EXT template void kinematics_into<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, int, TreeKinematics<T>&); \
  EXT template TreeKinematics<T> kinematics<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, int);
RBDREF_EXTERN_FOR_EACH_TREE_SCALAR(RBDREF_KINEMATICS_INSTANTIATE)

}  // namespace rbd
