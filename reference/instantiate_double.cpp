#include "reference/instantiate.hpp"

RBDREF_INSTANTIATE_ALL(double)
