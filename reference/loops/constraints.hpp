// Loop constraint equations (RBDA §8.2-8.3, §8.7, table 8.4): K q̈ = k + k_stab.
//
// For loop joint k (loop l) with predecessor p = p(k), successor s = s(k) (-1 = the fixed base),
// joint frames placed by X_P, X_S (model.loops), and T_k its constraint-force subspace
// (loop_constraint_basis, successor joint-frame coordinates, T̊ = 0):
//
//   K_lj   = ε_lj T_kᵀ S_j                                            (eqs. 8.19-8.20)
//            ε_lj = +1 for tree joints between the loop's root and s, -1 between it and p, 0
//            otherwise (eq. 8.18; the root is the deepest common ancestor of p and s)
//   k_l    = -T_kᵀ (a_s^vp - a_p^vp + v_s × v_p)                      (eq. 8.47, from 8.15)
//   k_stab = -2α T_kᵀ v_J - β² δ_l, v_J = v_s - v_p, δ_l = jcalc(type, sXp) (eqs. 8.22-8.24)
//
// every vector in one frame F. a^vp are the velocity-product accelerations without gravity (the
// book's a_g offset cancels in the difference; the base has a^vp = 0 here, so it must not be
// added to one side only). Also returned: δ and the velocity error T_kᵀ v_J = (K q̇)_l (what a
// consistent state has at 0), and λ's frame T_k.
//
// The frame F (the book's rounding-error note, end of §8.7):
//   LoopFrame::Base   F = base coordinates, as table 8.4: every S_j, v_i, a_i^vp is taken to the
//                     base by ⁰X_i = (ⁱX_0)⁻¹ and T_k by X_sᵀ. Simple, but a loop far from the
//                     base origin (a floating robot 1 km away) puts |r| ~ 1e3 into every
//                     transformed S_j and a^vp, and k loses digits to cancellation.
//   LoopFrame::Local  F = the loop joint's successor frame: transforms are composed along the
//                     loop's own path from its root (ʲX_i products of the tree's Xup), so only the
//                     loop's own dimensions enter; when the loop's root is the fixed base the
//                     path still passes through it.
// Both give the same K, k in exact arithmetic: every entry is a pairing T_kᵀ m of the force basis
// and a motion (S_j, v, a^vp), both taken to F, and a change of frame leaves a pairing unchanged.
// Only the rounding differs (tests/loop_test.cpp: BaseAndLocalFramesAgree).
//
// Shapes: K nc x nv, k, k_stab, delta, vel_error nc, with loop l in rows
// model.loops[l].row .. + nc_l. Baumgarte: alpha = beta = 1 / T_stab; both 0 give k_stab = 0.
#pragma once

#include "reference/tree/jacobian.hpp"

#include <string>
#include <vector>

namespace rbd {

enum class LoopFrame { Base, Local };

template <class T>
struct LoopConstraints {
  MatX<T> K;           // nc x nv
  VecX<T> k;           // nc
  VecX<T> k_stab;      // nc
  VecX<T> delta;       // nc: position errors δ (0 on the closure manifold)
  VecX<T> vel_error;   // nc: T_kᵀ v_J (0 for a consistent velocity)
  std::vector<Mat6K<T>> Tc;  // per loop: T_k in successor joint-frame coordinates (λ_k's basis)
  std::vector<int> root;     // per loop: the deepest common ancestor of p(k) and s(k) (-1 = base)
};

template <class T>
LoopConstraints<T> loop_constraints(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd,
                                    LoopFrame frame = LoopFrame::Local, const T& alpha = T(0),
                                    const T& beta = T(0));

// The result of the forward dynamics of a closed-loop system by any of the three methods of §8.5
// (loops/fd_kkt.hpp, loops/fd_lambda.hpp, loops/fd_projection.hpp): the tree accelerations q̈ that
// satisfy K q̈ = k + k_stab, and the constraint-force variables λ (τ_c = Kᵀλ) where the method
// gives them. When rank K < n^c, q̈ is still unique but λ is not: the methods return the
// minimum-norm λ (lambda_unique = false).
template <class T>
struct LoopForwardDynamics {
  VecX<T> qdd;               // n
  VecX<T> lambda;            // n^c (empty when the method does not produce λ)
  bool lambda_unique = true; // rank K = n^c
  int rank = 0;              // rank K as the method decided it
  T threshold;               // its rank decision threshold (relative, as the method states)
  bool ok = true;            // false: H (or GᵀHG) not positive-definite; qdd is then not valid
  std::string message;
};

// ---- definition ----

template <class T>
LoopConstraints<T> loop_constraints(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, LoopFrame frame,
                                    const T& alpha, const T& beta) {
  const TreeKinematics<T> kin = kinematics<T>(model, q, qd);
  std::vector<Motion<T>> avp(model.NB);
  for (int i = 0; i < model.NB; ++i) {
    const int p = model.parent[i];
    avp[i] = (p < 0 ? Motion<T>() : kin.Xup[i].apply(avp[p])) + kin.c[i];
  }
  LoopConstraints<T> out;
  out.K = MatX<T>::Zero(model.nc, model.nv);
  out.k = VecX<T>::Zero(model.nc);
  out.k_stab = VecX<T>::Zero(model.nc);
  out.delta = VecX<T>::Zero(model.nc);
  out.vel_error = VecX<T>::Zero(model.nc);

  // ʲX_i for an ancestor j of i (j = -1: the base), by the tree's own transforms.
  auto down = [&](int j, int i) {
    Xform<T> X = Xform<T>::identity();  // iXj, built from i upwards
    for (int b = i; b != j; b = model.parent[b]) X = X * kin.Xup[b];
    return X;
  };
  for (const LoopJoint<T>& lj : model.loops) {
    const int p = lj.p, s = lj.s;
    // The loop's root: the deepest common ancestor (regular numbering: walk the larger index up).
    int i = p, j = s;
    while (i != j) {
      if (i > j) i = model.parent[i];
      else j = model.parent[j];
    }
    const int root = i;
    out.root.push_back(root);

    // FX_b for the bodies of the loop (b = -1: the base frame), and FX_sk (the successor joint frame).
    // Base: F = 0, FX_b = X0_b⁻¹. Local: F = (s,k), FX_b = X_S sX_root (bX_root)⁻¹.
    // b is on the loop's path or is its root (b = -1 only when the root is the base).
    const Xform<T> FXroot = lj.XS * down(root, s);
    auto FX = [&](int b) {
      if (frame == LoopFrame::Base) return b < 0 ? Xform<T>::identity() : kin.X0[b].inverse();
      return FXroot * down(root, b).inverse();
    };
    // sXp = X_S sX_p X_P⁻¹ through the loop's root (eq. 8.24).
    const Xform<T> sXp = lj.XS * down(root, s) * down(root, p).inverse() * lj.XP.inverse();
    const LoopJcalc<T> lc = loop_jcalc<T>(lj.joint, sXp);
    // T_k in F: force coordinates F ← (s,k) are FX*_(s,k) = ((s,k)X_F)ᵀ.
    const Xform<T> skXF = frame == LoopFrame::Base ? Xform<T>(lj.XS * (s < 0 ? Xform<T>::identity() : kin.X0[s]))
                                                   : Xform<T>::identity();
    const Mat6K<T> TF = apply_transpose<T>(skXF, lc.Tc);
    auto in_F = [&](int b, const std::vector<Motion<T>>& m) { return b < 0 ? Motion<T>() : FX(b).apply(m[b]); };
    const Motion<T> vs = in_F(s, kin.v), vp = in_F(p, kin.v);
    const Motion<T> as = in_F(s, avp), ap = in_F(p, avp);
    const Eigen::Index r0 = lj.row, nc = lj.nc;
    out.k.segment(r0, nc) = -(TF.transpose() * (as - ap + crm<T>(vs, vp)).c);
    out.vel_error.segment(r0, nc) = TF.transpose() * (vs - vp).c;
    out.delta.segment(r0, nc) = lc.delta;
    out.k_stab.segment(r0, nc) = -T(2) * alpha * out.vel_error.segment(r0, nc) - beta * beta * lc.delta;
    // K_lj = ε_lj T_kᵀ (FX_j S_j) over the loop's path.
    for (int b = s; b != root; b = model.parent[b])
      out.K.block(r0, model.iv[b], nc, model.nvi[b]) += TF.transpose() * apply<T>(FX(b), kin.S[b]);
    for (int b = p; b != root; b = model.parent[b])
      out.K.block(r0, model.iv[b], nc, model.nvi[b]) -= TF.transpose() * apply<T>(FX(b), kin.S[b]);
    out.Tc.push_back(lc.Tc);
  }
  return out;
}

#define RBDREF_LOOP_CONSTRAINTS_INSTANTIATE(EXT, T)                                                              \
  EXT template LoopConstraints<T> loop_constraints<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, LoopFrame, \
                                                      const T&, const T&);
RBDREF_EXTERN_FOR_EACH_SCALAR(RBDREF_LOOP_CONSTRAINTS_INSTANTIATE)

}  // namespace rbd
