// The one unit that compiles the loop constraints for Interval (interval_loops.hpp).
#include "reference/loops/interval_loops.hpp"

RBDREF_INSTANTIATE_INTERVAL_LOOPS()
