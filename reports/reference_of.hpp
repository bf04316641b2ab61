// The reference quantity an engine quantity is scored against, at a fixture sample: the tree
// quantities by name (H, C, tau, qdd, L, D, ...), tau_c and lambda in the loop section, and
// contact_lambda, contact_qdd, contact_tau_c, impact_lambda, impact_qd_plus in the contact section
// (compare, reports/compare.hpp; the Python module's Sample.reference). Null when the sample has none.
#pragma once

#include "fixtures/fixture.hpp"

#include <string>

namespace rbd {

inline const Quantity* reference_of(const Sample& fs, const std::string& name) {
  if (name == "tau_c" || name == "lambda") return fs.ref.find_loop(name);
  if (name == "contact_lambda") return fs.ref.find_contact("lambda");
  if (name == "contact_qdd") return fs.ref.find_contact("qdd");
  if (name == "contact_tau_c") return fs.ref.find_contact("tau_c");
  if (name == "impact_lambda") return fs.ref.find_contact("impact.lambda");
  if (name == "impact_qd_plus") return fs.ref.find_contact("impact.qd_plus");
  return fs.ref.find(name);
}

}  // namespace rbd
