// Simbody adapter ("simbody", Debian libsimbody-dev 3.7): a Simbody system built in code from the
// fixture's model at bin50 (after fixed-joint merging), each number rounded once to double: a
// mobilized body per rbdref body, mobilizer frames turned onto the joint axes, inertias about the
// body origin. Trees of every joint type, and closed loops through Simbody's exact constraints
// (acceleration level, Lagrange multipliers; every loop-joint type but helical, which has no
// built-in Simbody constraint): H, C, tau, qdd, tau_c, lambda, converted by the orthogonal map
// u = J v. docs/engines.md, "Simbody", has the mobilizers, the loop-joint constraints, the map, the
// Simbody call behind each quantity and the measurements.
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
