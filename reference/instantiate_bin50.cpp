#include "reference/instantiate.hpp"

RBDREF_INSTANTIATE_ALL(rbd::bin50)
