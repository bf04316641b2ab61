// The contact kinematics on the interval scalar: T, Ṫᵀq̇, φ and ζ (RBDA eqs. 11.25-11.31, §11.4),
// and the soft contacts' forces (§11.8, eqs. 11.73-11.79), instantiated for Interval once, in
// interval_contact.cpp. The LCPs decide (Lemke's pivots): their solutions are verified, not
// evaluated, on intervals (certify/prove.cpp).
#pragma once

#include "reference/contact/kinematics.hpp"
#include "reference/contact/soft.hpp"
#include "reference/tree/interval_tree.hpp"

#define RBDREF_INSTANTIATE_INTERVAL_CONTACT(EXT) \
  namespace rbd {                                \
  RBDREF_CONTACT_INSTANTIATE(EXT, Interval)      \
  RBDREF_SOFT_CONTACT_INSTANTIATE(EXT, Interval) \
  }

RBDREF_INSTANTIATE_INTERVAL_CONTACT(extern)
