// Quaternions as read (states, model origins): |q| from the written numbers, and the tolerance on
// |q| - 1 that every reader applies.
#pragma once

#include "reference/tree/model.hpp"

namespace rbd {

// |q| of a quaternion written as numbers, computed without underflow or overflow (scaled by its
// largest component), from the numbers as doubles; NaN if a component is not representable.
double quaternion_norm(const Num* q);

// The tolerance on |q| - 1 of every quaternion rbdref reads (states, model origins): 1e-6. A
// quaternion outside it is refused before any arithmetic (a tiny one would underflow |q|²).
constexpr double kQuaternionTolerance = 1e-6;

}  // namespace rbd
