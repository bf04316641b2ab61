// The closed-loop algorithms without decisions on the interval scalar: the loop constraints K, k,
// δ, K q̇ (table 8.1, eq. 8.34; a loop joint's coordinates by atan2 away from its cut) and the
// active loop joints' forces (table 8.3), instantiated for Interval once, in interval_loops.cpp.
// The three forward-dynamics methods decide (ranks, pivots): their results are verified, not
// evaluated, on intervals (certify/verified_solve.hpp).
#pragma once

#include "reference/loops/active.hpp"
#include "reference/loops/constraints.hpp"
#include "reference/tree/interval_tree.hpp"

#define RBDREF_INSTANTIATE_INTERVAL_LOOPS(EXT)        \
  namespace rbd {                                     \
  RBDREF_LOOP_CONSTRAINTS_INSTANTIATE(EXT, Interval)  \
  RBDREF_LOOP_ACTIVE_INSTANTIATE(EXT, Interval)       \
  }

RBDREF_INSTANTIATE_INTERVAL_LOOPS(extern)
