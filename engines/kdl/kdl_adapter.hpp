// Orocos KDL 1.5 (Debian liborocos-kdl-dev) adapter: kinematic trees of revolute and prismatic
// joints on a fixed base. KDL has no spherical, planar, cylindrical, helical or free joint and no
// floating base: such models are unsupported, with the joint named.
//
// Import path: the KDL::Tree is built in code from the fixture's model at bin50, each number
// rounded once to double, the way kdl_parser builds it from a URDF (so a user's kdl_parser tree
// and this one describe a model alike):
//   * one Segment per rbdref body, added in rbdref's order (parents first) under a root segment;
//     the joint frame in the parent F = (Eᵀ, r) of Xtree; Joint(name, F.p, F.M a, RotAxis or
//     TransAxis), f_tip = F (KDL's segment pose is joint.pose(q) · f_tip = F · motion about a);
//   * RigidBodyInertia(mass, COM, rotational inertia about the COM), in the segment's tip frame,
//     which is rbdref's body frame.
// KDL numbers its joints in the order segments are added, so its q is rbdref's.
//
// Quantities (KDL's own algorithms; nothing is solved by the adapter):
//   τ  = TreeIdSolver_RNE (q, q̇, q̈, gravity): KDL's recursive Newton-Euler on the tree;
//   C  = the same at q̈ = 0;
//   H  = ChainDynParam::JntToMass on an unbranched model (one root, one child per body), else the
//        columns of TreeIdSolver_RNE at q̇ = 0, g = 0, q̈ = e_j (KDL has no tree mass matrix);
//   q̈ = ChainFdSolver_RNE on an unbranched model (KDL's forward dynamics; trees have none).
// Gravity: KDL takes the gravity vector (its RNE accelerates the base by −g).
//
// Model echo: each segment read back from the KDL::Tree (mass, COM, rotational inertia about the
// segment origin, which is what KDL stores, joint axis in the parent, f_tip) against rbdref's
// model at bin50.
#pragma once

#include "engines/adapter.hpp"

#include <memory>

namespace rbd {

std::unique_ptr<EngineAdapter> make_kdl_adapter();

}  // namespace rbd
