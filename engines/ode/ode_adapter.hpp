// ODE adapter ("ode", Open Dynamics Engine 0.16, Debian libode-dev, double precision): ODE has no
// joint-space quantities; it steps bodies in maximal coordinates, each joint and contact a row of
// one mixed LCP solved by Dantzig's method (dWorldStep). The adapter builds a world from the
// fixture's model at bin50 (each number rounded once) at each sample's configuration, bodies at
// their COMs, and audits one step of h = 1 s: qdd, and with frictionless rigid point contacts
// contact_lambda, contact_qdd, contact_tau_c, impact_lambda, impact_qd_plus, with ODE's own
// velocity-level contact model solved exactly beside them (model_values). Trees of revolute,
// prismatic, spherical and free joints. docs/engines.md, "ODE", has what ODE is fed, the
// conversion of its velocity change to q̈ (the kinetic least squares of J q̈ + J̇ q̇ = V̇), its
// contact model and the findings. Beyond it:
//   * world damping 0, no auto-disable; velocities are read after the step, positions are not;
//   * the impulsive step (§11.7: gravity, τ and the gyroscopic torque off, h = 1): V⁺ = V +
//     M_b⁻¹(Gᵀμ + J_cᵀΛ) with J_c V⁺ ≥ c; q̇⁺ = q̇ + H⁻¹ Jᵀ M_b (V⁺ - V), Λ_i = n_i · f1_i. That is
//     the rigid impulsive LCP (w = MΛ + (1 + E)ζ⁻) wherever no contact with e > 0 separates
//     (ζ_i > 0): ODE does not bounce separating contacts; model_values carry ODE's rule;
//   * contact_tau_c is Jᵀ of the feedback wrenches f1, t1 on B and f2, t2 on A (ODE's own forces).
#pragma once

#include "engines/adapter.hpp"

#include <memory>

namespace rbd {

std::unique_ptr<EngineAdapter> make_ode_adapter();

}  // namespace rbd
