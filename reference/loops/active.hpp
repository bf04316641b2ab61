// Active loop joints: C - τᵃ (RBDA §8.6, tables 8.2 and 8.3).
//
// An active loop joint k carries a known force τ_k (one entry per DoF of its type, as a tree
// joint's τ: N·m about a revolute axis, N along a prismatic one, ...). Its spatial force, in the
// successor joint frame, is
//   f_k^a = T_k^a τ_k,   T_k^a = S_k (S_kᵀ S_k)⁻¹
// the active-force subspace dual to the joint's motion subspace S_k (T_k^aᵀ S_k = 1, and
// T_k^aᵀ T_k = 0 since T_k ⟂ S_k): its power on any relative velocity v_J = S_k q̇_J is τ_kᵀ q̇_J.
// (For a revolute joint T^a = S = [axis; 0]; for a helical one S/(1 + h²).) S_k is jcalc's at the
// loop joint's coordinates (loop_joint_coordinates of sXp): constant for every type but planar,
// whose S turns with its angle (the book assumes T^a constant; this is the general case).
//
// f_k^a acts on s(k) and -f_k^a on p(k) (eq. 8.28): as external forces on the spanning tree, in
// body coordinates
//   f^x_s += X_Sᵀ f_k^a,      f^x_p -= (ˢX_p)ᵀ X_Sᵀ f_k^a
// (ˢX_p from the tree's kinematics; X_Sᵀ takes a force from the joint frame to body s). Table 8.3
// subtracts them inside RNEA's first loop, which is RNEA with f_ext (rnea.hpp): so
//   C - τᵃ = bias(q, q̇, f^x)                                                  (table 8.3)
// and τᵃ = Σ_k J_Lkᵀ f_k^a (eq. 8.28) is its difference from C. The equations of motion then use
// τ - (C - τᵃ) wherever a passive system uses τ - C (eq. 8.6).
//
// Inputs: tau_a, one vector per loop joint (size nv of its type; empty for a passive one).
// Output of active_loop_forces: f^x (NB, body coordinates); of bias_minus_active: C - τᵃ (nv).
#pragma once

#include "reference/tree/jcalc.hpp"
#include "reference/tree/kinematics.hpp"
#include "reference/tree/rnea.hpp"

#include <vector>

namespace rbd {

template <class T>
std::vector<Force<T>> active_loop_forces(const Model<T>& model, const VecX<T>& q, const std::vector<VecX<T>>& tau_a);

template <class T>
VecX<T> bias_minus_active(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const std::vector<VecX<T>>& tau_a);

// ---- definition ----

template <class T>
std::vector<Force<T>> active_loop_forces(const Model<T>& model, const VecX<T>& q, const std::vector<VecX<T>>& tau_a) {
  const TreeKinematics<T> kin = kinematics<T>(model, q, VecX<T>::Zero(model.nv));
  std::vector<Force<T>> fx(static_cast<size_t>(model.NB));
  for (size_t l = 0; l < model.loops.size() && l < tau_a.size(); ++l) {
    if (tau_a[l].size() == 0) continue;
    const LoopJoint<T>& lj = model.loops[l];
    const Xform<T> X0s = lj.s < 0 ? Xform<T>() : kin.X0[lj.s];
    const Xform<T> X0p = lj.p < 0 ? Xform<T>() : kin.X0[lj.p];
    const Xform<T> sXp_bodies = X0s * X0p.inverse();                  // ˢX_p, body to body
    const Xform<T> sXp = lj.XS * sXp_bodies * lj.XP.inverse();        // joint frame to joint frame
    const VecX<T> qJ = loop_joint_coordinates<T>(lj.joint, sXp);
    const int nv = joint_nv(lj.joint.type);
    std::vector<T> qd0(static_cast<size_t>(nv), T(0));
    const Mat6K<T> S = jcalc<T>(lj.joint, qJ.data(), qd0.data()).S;
    const MatX<T> StS = S.transpose() * S;
    const Vec6<T> fa = S * VecX<T>(StS.ldlt().solve(tau_a[l]));       // T^a τ_k, joint frame
    const Force<T> Fs = lj.XS.apply_transpose(Force<T>(fa));           // in body s coordinates
    if (lj.s >= 0) fx[static_cast<size_t>(lj.s)] += Fs;
    if (lj.p >= 0) fx[static_cast<size_t>(lj.p)] -= sXp_bodies.apply_transpose(Fs);
  }
  return fx;
}

template <class T>
VecX<T> bias_minus_active(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const std::vector<VecX<T>>& tau_a) {
  const std::vector<Force<T>> fx = active_loop_forces<T>(model, q, tau_a);
  return rnea<T>(model, q, qd, VecX<T>::Zero(model.nv), &fx);
}

#define RBDREF_LOOP_ACTIVE_INSTANTIATE(EXT, T)                                                                         \
  EXT template std::vector<Force<T>> active_loop_forces<T>(const Model<T>&, const VecX<T>&, const std::vector<VecX<T>>&); \
  EXT template VecX<T> bias_minus_active<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, const std::vector<VecX<T>>&);
RBDREF_EXTERN_FOR_EACH_SCALAR(RBDREF_LOOP_ACTIVE_INSTANTIATE)

}  // namespace rbd
