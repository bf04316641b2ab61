// Orocos KDL adapter ("kdl"): a KDL 1.5 KDL::Tree (Debian liborocos-kdl-dev) built in code from
// the fixture's model at bin50, each number rounded once to double, the way kdl_parser builds one
// from a URDF. Trees of revolute and prismatic joints on a fixed base (KDL has no other joint type
// and no floating base; loop joints are unsupported too, contacts not run): tau and C from KDL's
// recursive Newton-Euler, H and, on an unbranched model, qdd (KDL has no forward dynamics on a
// tree). docs/engines.md, "Orocos KDL", has the construction, the quantities and the echo. Beyond it:
//   * the segments hang under a root segment in rbdref's body order; KDL numbers its joints in the
//     order segments are added, so its q is rbdref's; a segment's pose is joint.pose(q) · f_tip,
//     F · the motion about a;
//   * unbranched: one root and at most one child per body (the Chain solvers run root to last body);
//   * gravity: KDL takes the gravity vector (its RNE accelerates the base by −g);
//   * the echo reads each segment back (mass, COM, rotational inertia about the segment origin,
//     joint axis in the parent, f_tip), the COM relative to max(1 m, |c|).
#pragma once

#include "engines/adapter.hpp"

#include <memory>

namespace rbd {

std::unique_ptr<EngineAdapter> make_kdl_adapter();

}  // namespace rbd
