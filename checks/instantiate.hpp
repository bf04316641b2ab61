// Explicit instantiation of the property checks (properties, loop_checks, contact_checks) for one
// scalar: expanded once per scalar by a unit that cmake/Instantiate.cmake generates.
#pragma once

#include "checks/contact_checks_impl.hpp"
#include "checks/loop_checks_impl.hpp"
#include "checks/properties_impl.hpp"

#define RBDREF_INSTANTIATE_CHECKS(T)       \
  namespace rbd {                          \
  RBDREF_CHECKS_INSTANTIATE(, T)           \
  RBDREF_LOOP_CHECKS_INSTANTIATE(, T)      \
  RBDREF_CONTACT_CHECKS_INSTANTIATE(, T)   \
  }
