// Explicit instantiation of contact, the LCP, impulses and soft contact (RBDA ch. 11) for one
// scalar of RBDREF_FOR_EACH_SCALAR, in the units it shares with the loops (reference/CMakeLists.txt).
#pragma once

#include "reference/contact/kinematics.hpp"
#include "reference/contact/dynamics.hpp"
#include "reference/contact/force_qp.hpp"
#include "reference/contact/impulse.hpp"
#include "reference/contact/qp.hpp"
#include "reference/contact/simulation.hpp"
#include "reference/contact/lcp.hpp"
#include "reference/contact/soft.hpp"

#define RBDREF_INSTANTIATE_CONTACT(T)          \
  namespace rbd {                              \
  RBDREF_LCP_INSTANTIATE(, T)                  \
  RBDREF_CONTACT_FORCE_QP_INSTANTIATE(, T)     \
  RBDREF_CONTACT_INSTANTIATE(, T)              \
  RBDREF_CONTACT_DYNAMICS_INSTANTIATE(, T)     \
  RBDREF_CONTACT_QP_INSTANTIATE(, T)           \
  RBDREF_CONTACT_IMPULSE_INSTANTIATE(, T)      \
  RBDREF_CONTACT_SIMULATION_INSTANTIATE(, T)   \
  RBDREF_SOFT_CONTACT_INSTANTIATE(, T)         \
  }
