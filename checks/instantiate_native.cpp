// Property checks for the hardware scalars (double, long double, float128).
#include "checks/contact_checks_impl.hpp"
#include "checks/loop_checks_impl.hpp"
#include "checks/properties_impl.hpp"

namespace rbd {
RBDREF_CHECKS_INSTANTIATE(, double)
RBDREF_LOOP_CHECKS_INSTANTIATE(, double)
RBDREF_CONTACT_CHECKS_INSTANTIATE(, double)
RBDREF_CHECKS_INSTANTIATE(, long double)
RBDREF_LOOP_CHECKS_INSTANTIATE(, long double)
RBDREF_CONTACT_CHECKS_INSTANTIATE(, long double)
RBDREF_CHECKS_INSTANTIATE(, float128)
RBDREF_LOOP_CHECKS_INSTANTIATE(, float128)
RBDREF_CONTACT_CHECKS_INSTANTIATE(, float128)
}  // namespace rbd
