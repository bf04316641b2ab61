// The quantities of rbdref's documents, declared once. Every quantity an engine output carries or a
// fixture sample stores is one row of quantity_table(); the engine-output reader and writer, the
// fixture reader and writer, compare (lengths, references, tolerances, natural scales, uniqueness),
// the engine checks, prove, the audit's table, the command-line help and the Python module iterate
// it. Adding a quantity is one row here plus its reference function and its tests (docs/design.md,
// "Adding a quantity").
//
// A row:
//   name            the key in engine outputs and in reports ("contact_lambda"); for a row stored
//                   only in fixtures, its key there
//   section         where a fixture sample stores its reference: the tree outputs, the loop section
//                   ("loops"), the contact section's forward problem ("contacts", RBDA §11.4) or
//                   its impulsive step ("contacts", keys "impact.*", RBDA §11.7)
//   fixture_key     its key in that section ("lambda" for contact_lambda); nullptr: not stored
//   position        its place in the section's outputs (fixtures keep their bytes: the loop
//                   section writes lambda before tau_c, engine outputs tau_c before lambda)
//   engine_length   its length in an engine output, and fixture_length in a fixture (QuantityLength)
//   stored_when     when a fixture sample has it (besides a positive length)
//   unique_when     when the reference value is the only answer (else compare scores the unique
//                   quantities that depend on it instead, with a note)
//   k, rule         the default tolerance k ε × (1, κ(H), κ(H)^½, κ(H) κ(M_S)) (reports/compare.hpp)
//   scale           the natural scale compare judges it against (NaturalScale)
//   checks          the engine checks that judge an engine's value of it (reports/compare.hpp,
//                   check_engine_output), space-separated; "" for none
//   proven          whether prove encloses it (certify/prove.hpp); its name there is the section's
//                   prefix and fixture_key ("loops.lambda", "contacts.impact.lambda")
//   help            what it is, for --help and docs
//
// Engine-output order (audit table, reports, every list printed) is the table's order.
#pragma once

#include <string>
#include <vector>

namespace rbd {

struct ModelDesc;

enum class QuantitySection {
  kTree,      // a sample's outputs
  kLoops,     // a sample's loop section (closed-loop models, RBDA ch. 8)
  kContacts,  // a sample's contact section, the forward problem (RBDA §11.4-11.6)
  kImpact,    // a sample's contact section, the impulsive step (RBDA §11.7)
};

enum class QuantityLength {
  kNone,             // not in this document
  kNv,               // nv
  kNvByNv,           // nv x nv
  kScalar,           // one number
  kSpatial,          // a spatial vector, 6
  kLoopConstraints,  // n^c, the loop joints' constraint-force components (by K)
  kLoopByNv,         // n^c x nv (K)
  kRigidContacts,    // one per rigid contact of the model, model order
  kLcpContacts,      // one per contact of the sample's LCP (case 3 of §11.4), model order
  kLcpByLcp,         // the LCP's matrix M over those
  kImpulses,         // one per rigid contact; t_x, t_y, normal for a contact with friction
};

enum class ToleranceRule {
  kEpsilon,         // products and sums: k ε
  kKappa,           // a solve with H: k ε κ(H)
  kSqrtKappa,       // the factors of H: k ε κ(H)^½
  kKappaContact,    // a second solve with M = TᵀH⁻¹T: k ε κ(H) κ(M_S)
};

// The natural scale of a value that may vanish in exact arithmetic (reports/compare.cpp).
enum class NaturalScale {
  kNone,              // its own size
  kBiasForces,        // C: the terms RNEA sums (reference/tree/natural_scale.hpp)
  kInverseDynamics,   // τ: likewise
  kForwardDynamics,   // q̈ (trees): H⁻¹(τ - C) and its terms
  kContactQdd,        // q̈ with contacts: q̈_free's
  kContactTauC,       // Tλ: max(|τ|, C's)
  kQdPlus,            // q̇⁺: max|q̇⁻|
  kContactForce,      // λ: q̈_free's times sqrt(|H| / |M|)
  kImpulse,           // impulses: max|q̇⁻| times sqrt(|H| / |M|)
};

enum class StoredWhen {
  kNever,             // engine outputs only
  kAlways,
  kPositiveDefinite,  // H positive-definite (a solve with H or its factor)
  kOnLoops,           // the tree's outputs of a closed-loop model only
  kLcpPosed,          // the forward LCP is posed (H positive-definite, no impact first)
  kLcpSolved,         // the forward LCP has a solution
  kImpactSolved,      // the impulsive step succeeded
};

enum class UniqueWhen {
  kAlways,
  kLoopRank,      // loop constraints of full rank (else the minimum-norm λ)
  kContactRank,   // the forward LCP's λ is unique
  kImpactRank,    // the impulsive step's λ is unique
};

enum QuantityDocuments : unsigned {
  kEngineOutput = 1,    // engine outputs, scored by compare
  kFixture = 2,         // fixture samples
};

struct QuantityInfo {
  const char* name;
  QuantitySection section;
  const char* fixture_key;
  int position;
  QuantityLength engine_length, fixture_length;
  StoredWhen stored_when;
  UniqueWhen unique_when;
  double k;
  ToleranceRule rule;
  NaturalScale scale;
  const char* checks;
  bool proven;
  const char* help;

  unsigned documents() const {
    return (engine_length != QuantityLength::kNone ? kEngineOutput : 0u) | (fixture_key ? kFixture : 0u);
  }
  bool in_engine_output() const { return documents() & kEngineOutput; }
  bool is_matrix() const { return engine_length == QuantityLength::kNvByNv || fixture_length == QuantityLength::kNvByNv; }
  // A contact quantity: its tolerance carries κ(M_S), and it needs a model with contacts.
  bool is_contact() const { return section == QuantitySection::kContacts || section == QuantitySection::kImpact; }
  bool is_loop() const { return section == QuantitySection::kLoops; }
  bool needs_pd() const { return stored_when == StoredWhen::kPositiveDefinite; }
  // The fixture section's key of its reference ("lambda", "impact.lambda"), or "" when not stored.
  std::string fixture_name() const { return fixture_key ? fixture_key : ""; }
  // Its name in a proof (certify/prove.hpp): "qdd", "loops.lambda", "contacts.impact.lambda".
  std::string proof_name() const;
};

const std::vector<QuantityInfo>& quantity_table();

// The entry of engine-output name `name`, or nullptr.
const QuantityInfo* find_quantity(const std::string& name);
// The entry stored at `key` of a fixture section (kContacts and kImpact share the contact
// section: "impact.lambda" is kImpact's), or nullptr.
const QuantityInfo* find_fixture_quantity(QuantitySection section, const std::string& key);
// The rows of a fixture section, in its order (position). kContacts includes kImpact's rows.
std::vector<const QuantityInfo*> fixture_section(QuantitySection section);

inline bool is_matrix_quantity(const std::string& name) {
  const QuantityInfo* q = find_quantity(name);
  return q && q->is_matrix();
}

inline bool is_contact_quantity(const std::string& name) {
  const QuantityInfo* q = find_quantity(name);
  return q && q->is_contact();
}

inline bool is_loop_quantity(const std::string& name) {
  const QuantityInfo* q = find_quantity(name);
  return q && q->is_loop();
}

// The names of the quantities an engine output may carry (compare scores them), in table order.
const std::vector<std::string>& quantity_names();

// The sizes a length rule reads. rigid, impulses: of the model; lcp: of a sample's LCP.
struct QuantityDims {
  int nv = 0, nc = 0, rigid = 0, lcp = 0, impulses = 0;
};
// Rows and columns (0 for a vector; rows 0 for a scalar) of `length` at `dims`.
struct QuantityShape {
  int rows = 0, cols = 0;
};
QuantityShape quantity_shape(QuantityLength length, const QuantityDims& dims);
// The model's rigid contacts (no stiffness, no damping) and impulse components: one per rigid
// contact, three (t_x, t_y, normal) for a contact with friction when any rigid contact has friction
// (the impulsive step is then frictional, RBDA §11.7). nv, nc and lcp are left 0.
QuantityDims contact_dims(const ModelDesc& desc);
// What one entry of a model-sized length is: "loop constraint", "rigid contact", "impulse
// component"; "" for the others.
const char* length_unit(QuantityLength length);
// The expectation of an input error on a length: "expected 3 numbers (one per rigid contact of the
// fixture's model), got 2", `of` naming the model ("the model", "the fixture's model").
std::string length_expectation(QuantityLength length, int want, const std::string& of);

}  // namespace rbd
