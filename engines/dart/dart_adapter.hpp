// DART 6.12 (Debian libdart-dev) adapter: kinematic trees of revolute, prismatic, helical, planar,
// spherical and free joints, with frictionless rigid point contacts (RBDA ch. 11) run through
// DART's own ContactConstraint and its boxed-LCP constraint solver (Dantzig, PGS as fallback).
//
// Import path: the Skeleton is built in code by the adapter from the fixture's model at bin50, each
// number rounded once to double (DART's URDF loader is another import path, not this one):
//   * one BodyNode per rbdref body, created in rbdref's order (parents first); the joint's
//     T_ParentBodyToJoint is Xtree (joint frame in the parent), T_ChildBodyToJoint the identity, so
//     DART's body frame is rbdref's; Inertia(mass, COM in body coordinates, rotational inertia about
//     the COM in body axes);
//   * revolute → RevoluteJoint (axis), prismatic → PrismaticJoint, helical → ScrewJoint with
//     DART's pitch per turn = 2π × rbdref's pitch per radian, planar → PlanarJoint on the arbitrary
//     plane (u, n × u) (DART's rotation axis u × (n × u) = n), spherical → BallJoint, free →
//     FreeJoint; cylindrical joints (DART 6.12 has none), loop joints, soft contacts and contacts
//     with friction are unsupported; a massless body is unsupported (DART's inertia must be
//     positive);
//   * coordinates: revolute, prismatic, helical, planar as rbdref's; spherical and free positions
//     as DART's exponential coordinates (BallJoint/FreeJoint::convertToPositions of the rotation
//     rbdref's quaternion gives); DART's velocities of a BallJoint (ω, child coordinates) and a
//     FreeJoint (ω, v of the child origin, child coordinates) are rbdref's, so H, C, τ, q̈ need no
//     conversion, only DART's DoF order (joint->getIndexInSkeleton; DART orders a forest tree by
//     tree).
//
// Tree quantities: H = getMassMatrix, C = getCoriolisAndGravityForces, τ = computeInverseDynamics
// at the sample's q̈ (getForces), q̈ = computeForwardDynamics at the sample's τ (getAccelerations).
// Joint damping, springs, armature and limits are DART's defaults (all off).
//
// Contacts (frictionless; contact_lambda, contact_qdd, contact_tau_c, impact_lambda,
// impact_qd_plus): contact i becomes a dart::collision::Contact at x_i with normal n_i (world, from
// A into B, which is DART's "from bodyNode2 to bodyNode1" with bodyNode1 = B), depth 0, between a
// ShapeNode of B (restitution e_i, friction 0) and one of A (restitution 1, friction 0; the world
// is a welded BodyNode of an immobile ground Skeleton); DART combines the restitutions as their
// product and turns friction off below 1e-3. The ContactConstraint is added to the World's
// constraint solver by hand (collision detection is not involved: the ShapeNodes have no collision
// aspect), with DART's default time step h = 0.001 s and its defaults CFM = 1e-5, ERP = 0.01.
//
// DART's contact model (as its ContactConstraint and World::step implement it). One step: the free
// velocity v_f = q̇ + h (q̈_free + g), with g = ω × v on each FreeJoint's linear DoFs and 0
// elsewhere (DART 6.12's FreeJoint::integrateVelocities advances the body-frame linear velocity by
// a + ω × v, not by its derivative a: measured to 1e-14), then impulses x ≥ 0 (x = hλ) from the
// boxed LCP
//   w = A x − b,  A_ij = t_iᵀ H⁻¹ t_j (1 + CFM δ_ij),  b = −Tᵀ v_f + c,
//   c_i = e_i (−t_iᵀ v_f) where that exceeds DART's bounce threshold 0.1 m/s (capped at 100 m/s), else 0
// (the depth term is 0 at depth 0), then q̇⁺ = v_f + H⁻¹T x. Per unit h that is
//   w/h = M' λ + Tᵀ(q̈_free + g) + ζ/h − c/h,  M' = M + CFM diag(M),
// the rigid LCP (M, d) where q̇ = 0 up to CFM (the fixture's "at_rest" sample) and a velocity-level
// model elsewhere: no Ṫᵀq̇ term, ζ/h in its place. The impulsive step is the constraint solver
// alone at q̇ (no free step): w = A x + Tᵀq̇ − c, q̇⁺ = q̇ + H⁻¹T x. Both problems are solved here
// exactly with rbdref's reference at bin50 (model_values), so compare tells DART's model from its
// numbers (reports/compare.hpp), as for ODE.
//
// The step is World::step's sequence (computeForwardDynamics, integrateVelocities, the constraint
// solver, computeImpulseForwardDynamics) read before integratePositions. contact_lambda = n_i ·
// force_i (the force DART stores in the Contact: n x / h on B); contact_tau_c = DART's own
// Skeleton::getConstraintForces(); contact_qdd = (q̇⁺ − q̇)/h − g, the acceleration the forces make
// (DART's getAccelerations() after the step is off by O(h) even with no impulse: it is not used).
// After a whole World::step, getConstraintForces is evaluated lazily at the NEW positions
// (Jᵀ(q + h q̇⁺) f): kept in raw as constraint_forces_after_integratePositions.
#pragma once

#include "engines/adapter.hpp"

#include <memory>

namespace rbd {

std::unique_ptr<EngineAdapter> make_dart_adapter();
// DART's own URDF loader as an audited import path ("dart-urdf"; when libdart-utils-urdf-dev is
// installed): trees of revolute and prismatic joints, a floating root; the echo compares each body
// with DART's node and the nodes welded below it.
std::unique_ptr<EngineAdapter> make_dart_urdf_adapter();

}  // namespace rbd
