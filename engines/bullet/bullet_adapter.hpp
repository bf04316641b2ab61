// Bullet 3.24 (Debian libbullet-dev, the double-precision "-float64" libraries, BT_USE_DOUBLE_PRECISION)
// adapter: btMultiBody, Featherstone's articulated-body algorithm in Bullet, on trees of revolute,
// prismatic and spherical joints, fixed base or a free root, with frictionless rigid point contacts
// through Bullet's own multibody constraint solver.
//
// Import path: the btMultiBody is built in code by the adapter from the fixture's model at bin50,
// each number rounded once to double:
//   * Bullet's link frame is at the link's COM on its principal axes (its inertia is a diagonal):
//     link i's frame is rbdref body i's frame moved to the COM c_i and turned by V_i, the
//     eigenvectors of the rotational inertia about the COM (a proper rotation, at 50 digits);
//   * the root: a free joint on body 0 (the only root) makes it Bullet's floating base; otherwise
//     the base is fixed at the world frame and every body is a link (λ(i) = -1 → Bullet's base);
//   * revolute → setupRevolute, prismatic → setupPrismatic, spherical → setupSpherical, with
//     rotParentToThis = the inverse of the child link's orientation in the parent link's frame at
//     q = 0 (R_pc = V_pᵀ R_J V_c, R_J the joint frame's axes in the parent), parentComToThisPivotOffset
//     = V_pᵀ (o_J − c_p), thisPivotToThisComOffset = V_cᵀ c_c, jointAxis = V_cᵀ a (link frames);
//     helical, cylindrical and planar joints (Bullet's planar turns about the COM on axes of its own
//     choosing), a free joint below the root, a forest under a free root, loop joints, soft
//     contacts and contacts with friction are unsupported; so is a body without positive mass and
//     principal moments;
//   * Bullet's defaults that change the dynamics are switched off: linear and angular damping
//     (0.04 each) set to 0, the coordinate-velocity clamp (100) raised to 1e30; the gyroscopic term
//     stays on; gravity is applied as m g at each COM (addBaseForce/addLinkForce), as
//     btMultiBodyDynamicsWorld does.
//
// Coordinates. Bullet's velocity vector is [ω (world), v_COM (world), joint DoFs]; its spherical
// joint keeps an (x, y, z, w) quaternion and the relative angular velocity in the child LINK frame.
// With g = Bullet's generalized velocity (the base's 6 entries only for a floating base), g = J q̇:
//   base:      ω_w = R_b ω,  v_COM,w = R_b (v + ω × c_0)     (rbdref: ω, v body coordinates)
//   spherical: ω_link = V_cᵀ ω;  revolute, prismatic: 1
// and J̇q̇ = [0; R_b ω × (v + ω × c_0)] (the rest constant). Converted: H = Jᵀ H' J,
// C = Jᵀ (C' + H' J̇q̇), q̈ = J⁻¹ (q̈' − J̇q̇); τ' = J⁻ᵀ τ (the base's [torque at the COM; force], world).
//
// What Bullet gives. No mass matrix, no bias forces and no inverse dynamics (the Debian package
// lacks BulletInverseDynamics): H' is the inverse, at 50 digits, of Bullet's M⁻¹ built column by
// column by calcAccelerationDeltasMultiDof (M⁻¹ times unit generalized forces); C' = −H' q̈'₀ with
// q̈'₀ Bullet's forward dynamics at τ = 0; q̈' = computeAccelerationsArticulatedBodyAlgorithmMultiDof
// at the sample's τ (dt = 0: nothing integrated). tau is not reported (it would be H q̈ + C, no new
// number of Bullet's).
//
// Contacts (contact_lambda, contact_qdd, impact_lambda, impact_qd_plus). Each contact is a
// btManifoldPoint written by hand (no collision detection) in a manifold of its own between B's
// link collider (Bullet's body A) and A's (a link collider, or a static btCollisionObject for the
// world): position x on both, normal n (Bullet's normalWorldOnB points from its B to its A: from
// rbdref's A into B), distance 0, friction 0, restitution e. Bullet's default solver and settings as
// btMultiBodyDynamicsWorld uses them: btMultiBodyConstraintSolver (projected Gauss-Seidel, 10
// iterations, SOR 1), h = 1/60 s, restitution threshold 0.2 m/s, no CFM; ERP and slop act only on
// penetration (0 here). The contact step: the free step v_f = v + h q̈'_free (forward dynamics with
// dt = h), then solveMultiBodyGroup on v_f and processDeltaVeeMultiDof2: q̈ = (v⁺ − v)/h (exact:
// the step is explicit Euler), λ = m_appliedImpulse / h. The impulsive step: the solver alone at q̇.
//
// Bullet's contact model: impulses x = hλ ≥ 0 with w = M x + Tᵀ q̇_f − r ≥ 0, xᵀw = 0,
// q̇_f = q̇ + h q̈_free, r_i = max(0, e_i (−t_iᵀ q̇_f)) where |t_iᵀ q̇_f| ≥ 0.2 m/s, else 0: a
// velocity-level step without Ṫᵀq̇, equal to the rigid LCP where q̇ = 0 and no bounce triggers. Its
// exact solution (model_values, bin50) is what Bullet's PGS approaches; where 10 sweeps do not
// reach it, compare reports Bullet's NUMBERS, not its model.
#pragma once

#include "engines/adapter.hpp"

#include <memory>

namespace rbd {

std::unique_ptr<EngineAdapter> make_bullet_adapter();

}  // namespace rbd
