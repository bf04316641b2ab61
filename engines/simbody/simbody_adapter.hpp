// Simbody (Debian libsimbody-dev 3.7) adapter: kinematic trees and closed loops, the loops closed by
// Simbody's exact (acceleration-level, Lagrange-multiplier) constraints.
//
// Import path: the Simbody system is built in code from the fixture's model at bin50 (after
// fixed-joint merging), each number rounded once to double:
//   * a MobilizedBody per rbdref body, added in body order (so Simbody's q and u follow rbdref's
//     joint order), on its parent's mobilized body or Ground;
//   * mobilizer frames: F = the joint frame (Xtree) turned by R_a, M = the body frame turned by the
//     same R_a, where R_a carries the mobilizer's own axis onto the rbdref joint's axis: Simbody's
//     Pin, Cylinder and Screw move along their common z, Slider along x, Planar rotates about z and
//     translates along x, y (R_a = [u, n × u, n]); Ball and Free use R_a = 1;
//   * Body::Rigid(MassProperties(m, c, I_o)) with I_o the rotational inertia about the BODY
//     ORIGIN (Simbody's convention; it is the top-left block of rbdref's spatial inertia), not
//     about the COM;
//   * Force::UniformGravity with the model's gravity; Force::DiscreteForces carries τ.
// Joints: revolute → Pin, prismatic → Slider, helical → Screw (pitch: translation per radian, as
// rbdref's), cylindrical → Cylinder (θ, d), planar → Planar, spherical → Ball (quaternion), free →
// Free (quaternion, then translation).
//
// Loop joints become Simbody constraints between the predecessor's and the successor's joint
// frames (P in body p(k), S in body s(k); a the axis, b, c two unit vectors perpendicular to it):
//   revolute     Ball(P origin, S origin) + ConstantAngle(b_P ⊥ a_S) + ConstantAngle(c_P ⊥ a_S)   5
//   prismatic    ConstantOrientation(P, S) + PointOnLine(S origin on the line (P origin, a_P))   5
//   cylindrical  PointOnLine(S origin on (P origin, a_P)) + the two ConstantAngles of revolute     4
//   planar       PointInPlane(S origin in the plane through P origin ⊥ n_P) + ConstantAngle(u_P ⊥
//                n_S) + ConstantAngle(w_P ⊥ n_S)                                                  3
//   spherical    Ball                                                                             3
//   fixed        Weld(P, S)                                                                       6
//   free         nothing                                                                          0
// Each imposes the same n_k^c = 6 − n_k equations as rbdref's loop joint, so a mechanism that is
// overconstrained in rbdref (a planar four-bar built spatially) is overconstrained in Simbody too:
// that is how the adapter tests Simbody's handling of redundant constraints. A helical loop joint
// (rotation and translation coupled) has no built-in Simbody constraint: such models are
// unsupported.
//
// Conventions and the state-dependent map (canonical v → Simbody u = J v; J is orthogonal):
//   Ball: u = w_FM in F = R ω (ω rbdref's body-coordinate angular velocity, R = R_FM);
//   Free: u = [R ω; R v] (v the body-origin velocity in body coordinates; Simbody's is in F);
//   Planar: u = (θ̇, ẋ, ẏ) against rbdref's (ẋ, ẏ, θ̇): a permutation;
//   everything else: u = v. J̇v = [0; R (ω × v)] on a Free joint, 0 elsewhere (ω × ω = 0 on Ball).
// Then H = Jᵀ H' J, C = Jᵀ (C' + H' J̇v), tau = Jᵀ tau', qdd = Jᵀ (u̇ − J̇v), tau_c = Jᵀ tau_c'.
//
// Quantities: H from calcM; C and tau from calcResidualForceIgnoringConstraints (udot = 0, resp.
// J qdd + J̇v) with gravity as the force subsystem's body forces; qdd from realizing
// Stage::Acceleration with τ applied (on a loop model: Simbody's constrained forward dynamics);
// tau_c = −Gᵀλ (Simbody writes M u̇ + Gᵀλ = f_applied; rbdref H q̈ + C = τ + τ_c), from the
// multipliers by calcConstraintForcesFromMultipliers and the system Jacobian transpose; lambda:
// each loop joint's constraint force on its successor, moved to the successor joint frame and
// projected on rbdref's basis T_k (λ_k = T_kᵀ f_k; T_k orthonormal, docs/loops.md).
//
// Build trap: Debian's Simbody is known to crash when the including translation unit is compiled
// with -DNDEBUG (the library itself is built without it, and its headers have NDEBUG-dependent
// code); engines/CMakeLists.txt compiles this file with -UNDEBUG whatever the build type.
#pragma once

#include "engines/adapter.hpp"

#include <memory>

namespace rbd {

std::unique_ptr<EngineAdapter> make_simbody_adapter();

}  // namespace rbd
