// The one unit that compiles the contact kinematics for Interval (interval_contact.hpp).
#include "reference/contact/interval_contact.hpp"

RBDREF_INSTANTIATE_INTERVAL_CONTACT()
