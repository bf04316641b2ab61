// DART adapter ("dart"): a DART 6.12 Skeleton (Debian libdart-dev) built in code from the
// fixture's model at bin50, each number rounded once to double, with DART's body frames rbdref's.
// Trees of revolute, prismatic, helical, planar, spherical and free joints: H, C, tau, qdd; with
// frictionless rigid point contacts, placed by hand as DART ContactConstraints in its boxed-LCP
// constraint solver (Dantzig, PGS as fallback): contact_lambda, contact_qdd, contact_tau_c,
// impact_lambda, impact_qd_plus, with DART's contact model solved exactly beside them
// (model_values). docs/engines.md, "DART", has the import path, the joints and coordinates, the
// contact model and the findings (FreeJoint's extra ω × v, getConstraintForces after the step,
// the PGS fallback). Beyond it:
//   * the contacts' ShapeNodes have no collision aspect; DART combines the two sides' restitutions
//     as their product (e_i × 1) and turns friction off below 1e-3;
//   * DART's boxed LCP, in its own terms: impulses x = hλ ≥ 0, w = A x − b, A_ij = t_iᵀ H⁻¹ t_j
//     (1 + CFM δ_ij), b = −Tᵀ v_f + c (the depth term is 0 at depth 0), q̇⁺ = v_f + H⁻¹T x; the
//     impulsive step w = A x + Tᵀq̇ − c, q̇⁺ = q̇ + H⁻¹T x.
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
