// Property checks for the software scalars (bin50, bin100, mpfr).
#include "checks/contact_checks_impl.hpp"
#include "checks/loop_checks_impl.hpp"
#include "checks/properties_impl.hpp"

namespace rbd {
RBDREF_CHECKS_INSTANTIATE(, bin50)
RBDREF_LOOP_CHECKS_INSTANTIATE(, bin50)
RBDREF_CONTACT_CHECKS_INSTANTIATE(, bin50)
RBDREF_CHECKS_INSTANTIATE(, bin100)
RBDREF_LOOP_CHECKS_INSTANTIATE(, bin100)
RBDREF_CONTACT_CHECKS_INSTANTIATE(, bin100)
RBDREF_CHECKS_INSTANTIATE(, mpfr)
RBDREF_LOOP_CHECKS_INSTANTIATE(, mpfr)
RBDREF_CONTACT_CHECKS_INSTANTIATE(, mpfr)
}  // namespace rbd
