// ODE (Open Dynamics Engine, Debian libode-dev 0.16, double precision) adapter: kinematic trees of
// revolute, prismatic, spherical and free joints, with frictionless rigid point contacts (RBDA
// ch. 11). ODE has no joint-space quantities (no H, no C): it integrates bodies in maximal
// coordinates, each joint and contact a row of one mixed LCP solved by Dantzig's pivoting method
// (dWorldStep). What it gives is the step: qdd, and with contacts contact_lambda, contact_qdd,
// contact_tau_c, impact_lambda, impact_qd_plus.
//
// Import path: the ODE world is built in code by the adapter from the fixture's model at bin50,
// each number rounded once to double, at each sample's configuration (a new world per step):
//   * one dBody per rbdref body, placed at its COM (ODE requires the mass centre at the body's
//     position), turned like the body frame, mass and rotational inertia about the COM in body axes
//     (dMassSetParameters); a massless body is unsupported;
//   * revolute → dJointCreateHinge (anchor: the body origin, axis: S's angular part in world),
//     prismatic → dJointCreateSlider (axis: S's linear part), spherical → dJointCreateBall, free →
//     no joint; each attached (child, parent or the world); helical, cylindrical and planar joints,
//     loop joints, soft contacts and contacts with friction (ODE's friction is a pyramid or box
//     approximation of the cone) are unsupported;
//   * contact i: a dContact joint at x_i with normal n_i (world, from A into B), depth 0,
//     mu = 0, bounce = e_i with bounce_vel = 0 when e_i > 0, attached (B, A or the world);
//   * world ERP = 0 and CFM = 0 (no position correction, no regularization), damping 0, no
//     auto-disable; gyroscopic mode OFF and the gyroscopic torque -ω × I ω added explicitly with
//     dBodyAddTorque (ODE's own implicit gyroscopic term, Lacoursière 2006, depends on h);
//   * τ: the equal and opposite wrenches S_i τ_i on body i and its parent, as ODE forces at the
//     COM and torques (dBodyAddForce, dBodyAddTorque).
//
// The step: one dWorldStep of h = 1 s, so that V⁺ - V is ODE's acceleration times 1 (no division
// by a small h, no cancellation beyond |V|/|V̇|); ODE's velocity update is exactly linear in h once
// the gyroscopic term is explicit. Velocities are read after the step; positions are not.
//
// Conventions and the conversion to joint space. ODE's velocities are V_i = (ω_i, v_ci), world, at
// the COM; V = J q̇ on the tree. ODE imposes its constraints on the velocity AFTER the step, G V⁺ =
// 0 (joints) and J_c V⁺ ≥ c (contacts): it has no J̇q̇ term. Its acceleration V̇ = (V⁺ - V)/h is
// converted to q̈ by the kinetic (M-weighted) least squares of J q̈ + J̇ q̇ = V̇:
//   q̈ = H⁻¹ Jᵀ M_b (V̇ - J̇ q̇) = H⁻¹ (Jᵀ M_b V̇ - C + C_ODE),   C_ODE = G + J_ωᵀ (ω × I ω)
// (Jᵀ M_b J̇ q̇ = C - C_ODE; Jᵀ M_b V̇ is the joint-space force of the body wrenches M_i V̇_i, by
// RNEA's backward pass). On a tree ODE's V̇ has G V̇ = 0, and the constraint forces do no work on
// range(J), so this q̈ = H⁻¹(τ - C) exactly: the velocity-level step loses nothing there.
// Contacts are another matter: ODE's contact row is J_c V⁺ ≥ c, i.e. Tᵀ q̈' ≥ c - ζ with q̈' =
// H⁻¹(τ - C_ODE + Tλ), against the rigid model's Tᵀ q̈ + Ṫᵀq̇ ≥ 0 (eq. 11.30, 11.33). ODE's λ
// solves the LCP
//   w = M λ + Tᵀ H⁻¹(τ - C_ODE) + ζ/h - c/h ≥ 0,  λ ≥ 0,  λᵀw = 0,  c_i = -e_i ζ_i if e_i > 0 and ζ_i < 0
// which is the rigid LCP (M, d) where q̇ = 0 (the fixture's "at_rest" sample) and differs from it
// where q̇ ≠ 0: this is ODE's contact MODEL (a velocity-level time step), declared in
// conventions.contact_model, and its exact values (λ, q̈ = H⁻¹(τ - C + Tλ), Tλ; the impulsive step
// likewise) are computed here with rbdref's reference at bin50 and written as model_values, so
// that compare tells the model from the numbers (reports/compare.hpp).
// The impulsive step (§11.7): gravity 0, no gyroscopic torque, no τ, h = 1: V⁺ = V + M_b⁻¹(Gᵀμ +
// J_cᵀΛ) with J_c V⁺ ≥ c; Δq̇ = H⁻¹ Jᵀ M_b (V⁺ - V), q̇⁺ = q̇ + Δq̇, Λ_i = n_i · f1_i (feedback).
// That is the rigid impulsive LCP (w = MΛ + (1 + E)ζ⁻) wherever no contact with e > 0 separates
// (ζ_i > 0): ODE does not bounce separating contacts; model_values carry ODE's rule.
// contact_lambda = n_i · f1_i from dJointFeedback (f1 the force on B, world); contact_tau_c = Jᵀ of
// the feedback wrenches (f1, t1 on B, f2, t2 on A: ODE's own numbers, not T λ).
#pragma once

#include "engines/adapter.hpp"

#include <memory>

namespace rbd {

std::unique_ptr<EngineAdapter> make_ode_adapter();

}  // namespace rbd
