// The audit's diagnosis of a report (compare.hpp: diagnosis).
#include "reports/compare.hpp"
#include "io/quantities.hpp"

#include <cstdio>
#include <initializer_list>

namespace rbd {

namespace {

std::string fmt_digits(double d) {
  char b[16];
  std::snprintf(b, sizeof b, "%.1f", d);
  return b;
}

// The engine's identities among its own outputs (reports/engine_checks.cpp): the quantity each
// judges, the others it is judged against (which must agree with the reference, or the failure
// may be a convention that moves them all: another dof order breaks H q̈ + C = τ at the input
// τ too), and what it says.
struct OwnIdentity {
  const char* check;
  const char* quantity;
  std::initializer_list<const char*> against;
  const char* says;
};
const OwnIdentity kOwnIdentities[] = {
    {"equation_of_motion.fd", "qdd", {"H", "C"}, "its forward dynamics q̈ does not satisfy H q̈ + C = τ with its own H and C"},
    {"equation_of_motion.id", "tau", {"H", "C"}, "its inverse dynamics τ is not H q̈ + C with its own H and C"},
    {"ltdl.reconstructs", "L", {"H"}, "its factors L, D do not reconstruct its own H"},
    {"H.symmetric_raw", "H", {}, "its H is not symmetric"},
};

}  // namespace

// What most likely makes an engine differ, from the echo and the size of the errors:
//   the echo differs                        → model import (the engine computes with another model)
//   some quantity has < 3 digits            → convention or model semantics (frame, sign, order,
//                                             joint definition: errors as large as the values)
//   within 3 digits but outside tolerance   → numerical (model and conventions agree; digits lost)
//   a contact quantity off the engine's own declared model (model_values) → numerical: its solver
//                                             stopped short (checked before the < 3 digits rule)
//   a quantity wrong (< 3 digits or outside tolerance) that one of the engine's own identities
//   ties to its other outputs, those others right and the identity broken → numerical: the engine
//   disagrees with itself (checked before the < 3 digits rule: H, C right and H q̈ + C = τ broken
//   leave only q̈; a convention moves several quantities at once)
//   soft loop constraints declared          → convention (declared), with the measured violation
// Quantities and checks explained by a declared convention are left out of the first three.
std::string diagnosis(const Report& r) {
  if (r.model_echo.is_object() && r.model_echo.value("status", "") == "differs")
    return "model import: the engine's model differs from the fixture's (see model_echo)";
  // A contact quantity that fails, not by the engine's declared model, at a sample where the engine
  // itself reported trouble (raw.engine_messages, in the notes): its solver failed there.
  for (const SampleScore& sc : r.samples) {
    if (sc.passed || !sc.convention.empty() || !is_contact_quantity(sc.quantity))
      continue;
    const std::string said = "sample " + sc.sample + ": the engine said: ";
    for (const std::string& n : r.notes)
      if (n.rfind(said, 0) == 0)
        return "numerical: the engine's contact solver failed at sample " + sc.sample + " (" + sc.quantity + " " +
               fmt_digits(sc.digits) + " digits; it said: " + n.substr(said.size()) + ")";
  }
  // A contact quantity that fails at a sample where the engine declared its model and the model's
  // exact values were computed, but the engine does not reach them: its solver stopped short (an
  // iterative solver's sweeps, a fallback). Named by the sample with the fewest digits against the
  // model, so the reader is sent to the sample that is numbers, not to one the model explains.
  {
    const SampleScore* worst = nullptr;
    for (const SampleScore& sc : r.samples)
      if (!sc.passed && sc.convention.empty() && sc.model_digits >= 0 &&
          is_contact_quantity(sc.quantity) &&
          (!worst || sc.model_digits < worst->model_digits))
        worst = &sc;
    if (worst)
      return "numerical: the engine does not reach its own declared contact model at sample " + worst->sample + " (" +
             worst->quantity + " " + fmt_digits(worst->model_digits) + " digits against the model's exact values, " +
             fmt_digits(worst->digits) + " against the rigid LCP): its solver stopped short there";
  }
  // An engine whose own outputs disagree: a quantity failing where an identity that ties it to the
  // engine's other outputs breaks.
  auto agrees = [&](const char* name) {
    for (const QuantityScore& o : r.quantities)
      if (o.quantity == name) return o.samples > 0 && o.passed;
    return false;
  };
  for (const OwnIdentity& id : kOwnIdentities)
    for (const QuantityScore& q : r.quantities) {
      if (q.quantity != id.quantity || q.samples == 0 || q.passed || !q.convention.empty()) continue;
      bool others = true;
      for (const char* a : id.against) others = others && agrees(a);
      if (!others) continue;
      for (const SampleCheck& c : r.checks)
        if (c.result.name == id.check && !c.result.passed && c.convention.empty()) {
          std::string kept;
          for (const QuantityScore& o : r.quantities)
            if (o.passed && o.samples > 0 && o.quantity != q.quantity)
              kept += (kept.empty() ? "" : ", ") + o.quantity + " " + fmt_digits(o.min_digits);
          return "numerical: the engine disagrees with itself: " + std::string(id.says) + " (" + id.check + " fails at sample " +
                 c.sample + ", " + fmt_digits(c.result.digits()) + " digits); " + q.quantity + " " + fmt_digits(q.min_digits) +
                 " digits" + (kept.empty() ? std::string() : " while " + kept + " digits hold") +
                 ": a fault of the engine's numbers, not of the import or a convention";
        }
    }
  for (const QuantityScore& q : r.quantities)
    if (q.samples > 0 && q.min_digits < 3 && q.convention.empty())
      return "convention or model semantics: " + q.quantity + " is wrong in its leading digits (" +
             fmt_digits(q.min_digits) + " digits; sample " + q.worst_sample + ")";
  if (!r.passed) {
    std::string worst;
    for (const QuantityScore& q : r.quantities)
      if (!q.passed && q.convention.empty()) worst += (worst.empty() ? "" : ", ") + q.quantity + " " + fmt_digits(q.min_digits) + " digits";
    for (const SampleCheck& c : r.checks)
      if (!c.result.passed && c.convention.empty()) { worst += (worst.empty() ? "" : ", ") + c.result.name + " fails"; break; }
    return "numerical: model import and conventions agree, the engine loses digits (" + worst + ")";
  }
  if (!r.soft_constraints.empty()) {
    std::string which;
    for (const QuantityScore& q : r.quantities)
      if (!q.convention.empty()) which += (which.empty() ? "" : ", ") + q.quantity + " " + fmt_digits(q.min_digits) + " digits";
    char v[32];
    std::snprintf(v, sizeof v, "%.2e", r.constraint_violation);
    // The engine's own statement of its model is in the report (soft_loop_constraints), not repeated here.
    return std::string("convention (declared): soft loop constraints, measured violation max|K q̈ - k| / scale = ") + v +
           (which.empty() ? std::string("; every quantity within tolerance nonetheless") : "; outside tolerance by it: " + which) +
           "; not a numerical defect (the report's soft_loop_constraints says what the engine solves)";
  }
  std::string which;
  for (const QuantityScore& q : r.quantities)
    if (!q.convention.empty() && is_contact_quantity(q.quantity))
      which += (which.empty() ? "" : ", ") + q.quantity + " " + fmt_digits(q.min_digits) + " digits";
  if (!which.empty())
    return "convention (declared): the engine's contact model, which its own exact values (model_values) reproduce; "
           "outside the rigid tolerance by it: " + which + "; not a numerical defect";
  return "none";
}


}  // namespace rbd
