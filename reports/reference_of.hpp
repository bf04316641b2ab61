// The reference quantity an engine quantity is scored against, at a fixture sample: the row's
// fixture key in its section (io/quantities.hpp): the tree quantities by name (H, C, tau, qdd, L,
// D, ...), tau_c and lambda in the loop section, contact_lambda as the contact section's "lambda",
// impact_lambda as its "impact.lambda" (compare, reports/compare.hpp; the Python module's
// Sample.reference). Null when the sample has none.
#pragma once

#include "fixtures/fixture.hpp"
#include "io/quantities.hpp"

#include <string>

namespace rbd {

inline const Quantity* reference_of(const Sample& fs, const std::string& name) {
  const QuantityInfo* q = find_quantity(name);
  if (!q) return fs.ref.find(name);  // a tree output fixtures store and engines do not (kinetic_energy, ...)
  if (!q->fixture_key) return nullptr;
  switch (q->section) {
    case QuantitySection::kTree: return fs.ref.find(q->fixture_key);
    case QuantitySection::kLoops: return fs.ref.find_loop(q->fixture_key);
    case QuantitySection::kContacts:
    case QuantitySection::kImpact: return fs.ref.find_contact(q->fixture_key);
  }
  return nullptr;
}

}  // namespace rbd
