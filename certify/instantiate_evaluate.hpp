// Explicit instantiation of the evaluation (certify/evaluate_impl.hpp) for one scalar: expanded once
// per scalar by a unit that cmake/Instantiate.cmake generates.
#pragma once

#include "certify/evaluate_impl.hpp"

#define RBDREF_INSTANTIATE_EVALUATE(T) \
  namespace rbd::detail {              \
  RBDREF_EVALUATE_INSTANTIATE(, T)     \
  }
