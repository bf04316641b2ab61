// Bullet adapter ("bullet"): Bullet 3.24's btMultiBody (Debian libbullet-dev, the double-precision
// "-float64" libraries, BT_USE_DOUBLE_PRECISION), built in code from the fixture's model at bin50,
// each number rounded once to double. Trees of revolute, prismatic and spherical joints on a fixed
// base or a free root, with frictionless rigid point contacts through Bullet's own multibody
// constraint solver: H, C, qdd (no tau: Bullet as packaged has no inverse dynamics), contact_lambda,
// contact_qdd, impact_lambda, impact_qd_plus, with Bullet's contact model solved exactly beside
// them (model_values). docs/engines.md, "Bullet", has the import path, the coordinates, how H and C
// come from Bullet's M⁻¹, the contact model and the findings. Beyond it:
//   * the base: a free joint on body 0 (the only root) makes it Bullet's floating base; otherwise
//     the base is fixed at the world frame and every body is a link (λ(i) = -1 → Bullet's base).
//     Also unsupported: a forest under a free root, a body without positive mass and principal
//     moments;
//   * setupRevolute/setupPrismatic/setupSpherical: parentComToThisPivotOffset = V_pᵀ (o_J − c_p),
//     thisPivotToThisComOffset = V_cᵀ c_c, jointAxis = V_cᵀ a (link frames); the gyroscopic term
//     stays on;
//   * the map g = J q̇ (g: Bullet's generalized velocity, the base's 6 entries only when floating):
//     base ω_w = R_b ω, v_COM,w = R_b (v + ω × c_0) (rbdref: ω, v in body coordinates); spherical
//     ω_link = V_cᵀ ω (Bullet keeps an (x, y, z, w) quaternion); revolute, prismatic 1. τ' = J⁻ᵀ τ
//     (the base's [torque at the COM; force], world);
//   * the impulsive step is Bullet's solver alone at q̇ (forward dynamics with dt = 0 for its caches).
#pragma once

#include "engines/adapter.hpp"

#include <memory>

namespace rbd {

std::unique_ptr<EngineAdapter> make_bullet_adapter();

}  // namespace rbd
