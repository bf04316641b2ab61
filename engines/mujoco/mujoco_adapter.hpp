// MuJoCo (Debian libmujoco-dev 2.2.2) adapter.
//
// Import path: rbdref writes MJCF from the fixture's built model (model at bin50 after fixed-joint
// merging), so MuJoCo sees exactly rbdref's bodies, frames and inertias:
//   * body pos/quat = Xtree (the joint frame in the parent body), joints at the body origin;
//   * inertia: the rotational inertia about the COM diagonalized in extended precision, written as
//     <inertial pos quat diaginertia> with 20 significant digits (MuJoCo would otherwise diagonalize
//     a fullinertia itself, in double);
//   * compiler: angle radian, inertiafromgeom false, balanceinertia false, boundmass/boundinertia
//     0, fusestatic false; option: constraint, contact and passive forces disabled; no armature,
//     damping or frictionloss (MJCF defaults of 0).
// Joints: revolute → hinge, prismatic → slide, cylindrical → hinge + slide (θ, d), planar →
// slide(u) + slide(w) + hinge(n) (x, y, θ), spherical → ball, free (root only) → freejoint.
// MuJoCo has no helical joint and free joints only at the root: such models are unsupported.
//
// Loop joints (RBDA ch. 8) become equality constraints: revolute → two connects on the axis 0.1 m
// apart, spherical → one connect, fixed → weld; sliding loop joints are unsupported. Every anchor
// is written into eq_data after loading (the compiler would derive the second body's from qpos0,
// which is off the closure manifold). The constraints are soft (solref/solimp) and omit J̇q̇: the
// output declares conventions.soft_loop_constraints, and compare reports the constrained
// quantities as that convention with the violation measured (docs/engines.md, docs/reports.md).
// tau_c = qfrc_constraint; tau comes from mj_inverse with the constraint solver off.
//
// Contacts (RBDA ch. 11), frictionless and rigid in the fixture: run as MuJoCo contact constraints
// on exactly the fixture's contacts (docs/engines.md): inert geoms on the bodies, mj_collision
// finds nothing, the adapter writes mjData.contact (dist 0, pos x, frame n from A into B, dim 1,
// MuJoCo's default solref/solimp) and runs the rest of mj_forward with the solver converged. The
// output declares conventions.contact_model (MuJoCo's soft model) and writes model_values: the LCP
// (A + R) f + J a0 − aref ≥ 0 ⊥ f ≥ 0 solved at bin50 with MuJoCo's R and aref.
//
// Model echo: every body's mass, COM, rotational inertia, pos and quat and every joint axis read
// back from mjModel and compared with rbdref's model at bin50 (engine output "model_echo").
//
// Conventions and the state-dependent map (canonical v → MuJoCo v' = J v):
//   MuJoCo orders DoFs by its depth-first body order; the map includes that permutation.
//   Free joint: qpos = [p_w, quat_w] (world position and orientation of the body, w first);
//   qvel = [R v, ω] with (ω, v) rbdref's body-coordinate velocity and R the body's world rotation:
//   J = [[0, R], [1, 0]] on that joint, orthogonal, so J⁻¹ = Jᵀ. Then
//     H = Jᵀ H' J,  tau = Jᵀ tau',  C = Jᵀ (C' + H' J̇v),  qdd = Jᵀ (qdd' − J̇v),
//   with J̇v = [R (ω × v); 0] on a free joint (d/dt(R v) = R v̇ + R (ω × v)), 0 elsewhere.
//   Inputs go the other way: qvel = J qd, qacc = J qdd + J̇v (for mj_inverse), qfrc_applied = J tau.
//   The factor qLD is compared only when J is the identity (same DoF order, no free joint).
#pragma once

#include "engines/adapter.hpp"
#include "reference/tree/model.hpp"

#include <memory>
#include <string>
#include <vector>

namespace rbd {

std::unique_ptr<EngineAdapter> make_mujoco_adapter();
// MuJoCo's own URDF import path ("mujoco-urdf"): mj_loadXML on the model's URDF, then the same
// samples, conversions and echo (trees of revolute and prismatic joints on a fixed base).
std::unique_ptr<EngineAdapter> make_mujoco_urdf_adapter();

// The MJCF text the adapter feeds MuJoCo for a model description.
std::string mujoco_mjcf(const ModelDesc& desc);

// The map of the header above at one state: v' = J v, and J̇v. mj_dof[k] is MuJoCo's DoF index of
// canonical DoF k for joints that map one to one; free joints use their 6 DoFs as described.
struct MujocoMap {
  MatX<bin50> J;
  VecX<bin50> Jdot_v;
  bool identity = true;
};
MujocoMap mujoco_map(const Model<bin50>& m, const std::vector<int>& mj_dof_of_joint,
                     const std::vector<double>& q, const std::vector<double>& qd);

}  // namespace rbd
