// The quantities of rbdref's documents: one table that the engine-output reader and writer, the
// fixture reader, compare's tolerances and `--tol`, the audit's summary and the command-line help
// read, so that a quantity is added in one place.
//
//   name            the key in engine outputs, fixtures (a sample's outputs) and reports
//   shape           nv x nv matrix, nv-vector, scalar, spatial 6-vector, or a length the model gives
//   documents       which documents carry it: an engine output (scored by compare), a fixture
//                   sample's tree outputs (the loop and contact sections have their own keys)
//   needs_pd        defined only when H is positive definite (a solve with H or its factor)
//   k, rule         the default tolerance k ε × (1, κ(H), κ(H)^½, κ(H) κ(M_S)) (reports/compare.hpp)
//   help            what it is, for --help and docs
//
// Order is the order of the audit's table, of a fixture sample's outputs and of every list
// printed.
#pragma once

#include <string>
#include <vector>

namespace rbd {

enum class QuantityShape {
  kMatrixNv,    // nv x nv
  kVectorNv,    // nv
  kScalar,      // one number
  kSpatial,     // a spatial vector, 6
  kLoopForces,  // n^c, the loop joints' constraint-force components
  kContacts,    // one per rigid contact component (normal, or normal and two tangential)
  kImpulses,    // the impulse components of the impulsive step
};

enum class ToleranceRule {
  kEpsilon,         // products and sums: k ε
  kKappa,           // a solve with H: k ε κ(H)
  kSqrtKappa,       // the factors of H: k ε κ(H)^½
  kKappaContact,    // a second solve with M = TᵀH⁻¹T: k ε κ(H) κ(M_S)
};

enum QuantityDocuments : unsigned {
  kEngineOutput = 1,    // engine outputs, scored by compare
  kFixtureOutputs = 2,  // a fixture sample's tree outputs
  kFixtureOnLoops = 4,  // a fixture sample's outputs on a closed-loop model only
};

struct QuantityInfo {
  const char* name;
  QuantityShape shape;
  unsigned documents;
  bool needs_pd;
  double k;
  ToleranceRule rule;
  const char* help;
};

inline const std::vector<QuantityInfo>& quantity_table() {
  using S = QuantityShape;
  using R = ToleranceRule;
  constexpr unsigned E = kEngineOutput, F = kFixtureOutputs, FL = kFixtureOnLoops;
  static const std::vector<QuantityInfo> t{
      {"H", S::kMatrixNv, E | F, false, 1e3, R::kEpsilon, "joint-space inertia matrix (CRBA)"},
      {"C", S::kVectorNv, E | F, false, 1e4, R::kEpsilon, "bias forces C(q, q̇) (RNEA with q̈ = 0)"},
      {"tau", S::kVectorNv, E | F, false, 1e4, R::kEpsilon, "inverse dynamics τ = H q̈ + C"},
      {"qdd", S::kVectorNv, E | F, true, 1e3, R::kKappa, "forward dynamics q̈ (constrained on loop models)"},
      {"qdd_open_tree", S::kVectorNv, FL, true, 1e3, R::kKappa, "ABA of the spanning tree, loops open"},
      {"L", S::kMatrixNv, E | F, true, 1e4, R::kSqrtKappa, "unit lower factor of H = Lᵀ D L (RBDA table 6.3)"},
      {"D", S::kVectorNv, E | F, true, 1e4, R::kSqrtKappa, "diagonal of H = Lᵀ D L"},
      {"kinetic_energy", S::kScalar, F, false, 1e4, R::kEpsilon, "kinetic energy ½ q̇ᵀ H q̇"},
      {"potential_energy", S::kScalar, F, false, 1e4, R::kEpsilon, "potential energy in gravity"},
      {"momentum", S::kSpatial, F, false, 1e4, R::kEpsilon, "spatial momentum of the system, base coordinates"},
      {"tau_c", S::kVectorNv, E, false, 1e4, R::kKappa, "loop constraint forces in joint space, Kᵀλ"},
      {"lambda", S::kLoopForces, E, false, 1e4, R::kKappa, "loop constraint-force components λ"},
      {"contact_lambda", S::kContacts, E, false, 1e4, R::kKappaContact, "contact forces λ (RBDA eq. 11.42)"},
      {"contact_qdd", S::kVectorNv, E, false, 1e4, R::kKappaContact, "q̈ with the contact forces"},
      {"contact_tau_c", S::kVectorNv, E, false, 1e4, R::kKappaContact, "contact forces in joint space, Tλ"},
      {"impact_lambda", S::kImpulses, E, false, 1e4, R::kKappaContact, "contact impulses (RBDA §11.7)"},
      {"impact_qd_plus", S::kVectorNv, E, false, 1e4, R::kKappaContact, "q̇ after the impulsive step"},
  };
  return t;
}

// The entry of `name`, or nullptr.
inline const QuantityInfo* find_quantity(const std::string& name) {
  for (const QuantityInfo& q : quantity_table())
    if (name == q.name) return &q;
  return nullptr;
}

inline bool is_matrix_quantity(const std::string& name) {
  const QuantityInfo* q = find_quantity(name);
  return q && q->shape == QuantityShape::kMatrixNv;
}

// The contact and impact quantities (their tolerance carries κ(M_S)).
inline bool is_contact_quantity(const std::string& name) {
  const QuantityInfo* q = find_quantity(name);
  return q && q->rule == ToleranceRule::kKappaContact;
}

// The names of the quantities an engine output may carry (compare scores them), in table order.
inline const std::vector<std::string>& quantity_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const QuantityInfo& q : quantity_table())
      if (q.documents & kEngineOutput) v.push_back(q.name);
    return v;
  }();
  return names;
}

}  // namespace rbd
