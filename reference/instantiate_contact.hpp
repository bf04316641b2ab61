// Explicit instantiation of contact, the LCP, impulses and soft contact (RBDA ch. 11) for one
// scalar (reference/instantiate.hpp).
#pragma once

#include "reference/contact.hpp"
#include "reference/contact_dynamics.hpp"
#include "reference/contact_force_qp.hpp"
#include "reference/contact_impulse.hpp"
#include "reference/contact_qp.hpp"
#include "reference/contact_simulation.hpp"
#include "reference/lcp.hpp"
#include "reference/soft_contact.hpp"
#include "reference/state_space.hpp"

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
  RBDREF_STATE_SPACE_INSTANTIATE(, T)          \
  }
