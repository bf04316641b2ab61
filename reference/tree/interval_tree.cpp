// The one unit that compiles the tree algorithms for Interval (interval_tree.hpp).
#include "reference/tree/interval_tree.hpp"

RBDREF_INSTANTIATE_INTERVAL_TREE()
