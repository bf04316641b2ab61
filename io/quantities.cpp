// The quantity table (io/quantities.hpp) and the rules that read it.
#include "io/quantities.hpp"
#include "io/model_io.hpp"

namespace rbd {

const std::vector<QuantityInfo>& quantity_table() {
  using S = QuantitySection;
  using N = QuantityLength;
  using W = StoredWhen;
  using U = UniqueWhen;
  using R = ToleranceRule;
  using X = NaturalScale;
  // clang-format off
  static const std::vector<QuantityInfo> t{
  // name                section       fixture key       pos  engine length       fixture length      stored when             unique when       k    rule               natural scale         checks that read it                      proven  help
  {"H",                S::kTree,     "H",               0, N::kNvByNv,          N::kNvByNv,          W::kAlways,           U::kAlways,       1e3, R::kEpsilon,       X::kNone,             "H.symmetric_raw H.positive_definite equation_of_motion.fd equation_of_motion.id ltdl.reconstructs", true, "joint-space inertia matrix (CRBA)"},
  {"C",                S::kTree,     "C",               1, N::kNv,              N::kNv,              W::kAlways,           U::kAlways,       1e4, R::kEpsilon,       X::kBiasForces,       "equation_of_motion.fd equation_of_motion.id", true, "bias forces C(q, q̇) (RNEA with q̈ = 0)"},
  {"tau",              S::kTree,     "tau",             2, N::kNv,              N::kNv,              W::kAlways,           U::kAlways,       1e4, R::kEpsilon,       X::kInverseDynamics,  "equation_of_motion.id",                  true,  "inverse dynamics τ = H q̈ + C"},
  {"qdd",              S::kTree,     "qdd",             3, N::kNv,              N::kNv,              W::kPositiveDefinite, U::kAlways,       1e3, R::kKappa,         X::kForwardDynamics,  "equation_of_motion.fd loops.K_qdd_equals_k loops.equation_of_motion_projected loops.equation_of_motion", true, "forward dynamics q̈ (constrained on loop models)"},
  {"qdd_open_tree",    S::kTree,     "qdd_open_tree",   4, N::kNone,            N::kNv,              W::kOnLoops,          U::kAlways,       1e3, R::kKappa,         X::kNone,             "",                                       true,  "ABA of the spanning tree, loops open"},
  {"L",                S::kTree,     "L",               5, N::kNvByNv,          N::kNvByNv,          W::kPositiveDefinite, U::kAlways,       1e4, R::kSqrtKappa,     X::kNone,             "ltdl.reconstructs",                      true,  "unit lower factor of H = Lᵀ D L (RBDA table 6.3)"},
  {"D",                S::kTree,     "D",               6, N::kNv,              N::kNv,              W::kPositiveDefinite, U::kAlways,       1e4, R::kSqrtKappa,     X::kNone,             "ltdl.reconstructs",                      true,  "diagonal of H = Lᵀ D L"},
  {"kinetic_energy",   S::kTree,     "kinetic_energy",  7, N::kNone,            N::kScalar,          W::kAlways,           U::kAlways,       1e4, R::kEpsilon,       X::kNone,             "",                                       true,  "kinetic energy ½ q̇ᵀ H q̇"},
  {"potential_energy", S::kTree,     "potential_energy",8, N::kNone,            N::kScalar,          W::kAlways,           U::kAlways,       1e4, R::kEpsilon,       X::kNone,             "",                                       true,  "potential energy in gravity"},
  {"momentum",         S::kTree,     "momentum",        9, N::kNone,            N::kSpatial,         W::kAlways,           U::kAlways,       1e4, R::kEpsilon,       X::kNone,             "",                                       true,  "spatial momentum of the system, base coordinates"},
  {"K",                S::kLoops,    "K",               0, N::kNone,            N::kLoopByNv,        W::kAlways,           U::kAlways,       1e4, R::kEpsilon,       X::kNone,             "",                                       true,  "loop constraint matrix K (K q̈ = k, RBDA eq. 8.6)"},
  {"k",                S::kLoops,    "k",               1, N::kNone,            N::kLoopConstraints, W::kAlways,           U::kAlways,       1e4, R::kEpsilon,       X::kNone,             "",                                       true,  "loop constraint right-hand side k"},
  {"delta",            S::kLoops,    "delta",           2, N::kNone,            N::kLoopConstraints, W::kAlways,           U::kAlways,       1e4, R::kEpsilon,       X::kNone,             "",                                       true,  "loop position errors"},
  {"velocity_error",   S::kLoops,    "velocity_error",  3, N::kNone,            N::kLoopConstraints, W::kAlways,           U::kAlways,       1e4, R::kEpsilon,       X::kNone,             "",                                       true,  "loop velocity errors K q̇"},
  {"tau_c",            S::kLoops,    "tau_c",           5, N::kNv,              N::kNv,              W::kAlways,           U::kAlways,       1e4, R::kKappa,         X::kNone,             "loops.equation_of_motion loops.constraint_forces_do_no_work", true, "loop constraint forces in joint space, Kᵀλ"},
  {"lambda",           S::kLoops,    "lambda",          4, N::kLoopConstraints, N::kLoopConstraints, W::kAlways,           U::kLoopRank,     1e4, R::kKappa,         X::kNone,             "",                                       true,  "loop constraint-force components λ"},
  {"M",                S::kContacts, "M",               0, N::kNone,            N::kLcpByLcp,        W::kLcpPosed,         U::kAlways,       1e4, R::kEpsilon,       X::kNone,             "",                                       true,  "the contact LCP's matrix TᵀH⁻¹T (RBDA eq. 11.42)"},
  {"d",                S::kContacts, "d",               1, N::kNone,            N::kLcpContacts,     W::kLcpPosed,         U::kAlways,       1e4, R::kEpsilon,       X::kNone,             "",                                       true,  "the contact LCP's vector (RBDA eq. 11.42)"},
  {"contact_lambda",   S::kContacts, "lambda",          2, N::kRigidContacts,   N::kLcpContacts,     W::kLcpSolved,        U::kContactRank,  1e4, R::kKappaContact,  X::kContactForce,     "contacts.acceleration_complementarity contacts.tau_c_is_T_lambda contacts.equation_of_motion", true, "contact forces λ (RBDA eq. 11.42)"},
  {"zeta_dot",         S::kContacts, "zeta_dot",        3, N::kNone,            N::kLcpContacts,     W::kLcpSolved,        U::kAlways,       1e4, R::kEpsilon,       X::kNone,             "",                                       true,  "the contacts' normal accelerations ζ̇ = Mλ + d"},
  {"contact_qdd",      S::kContacts, "qdd",             4, N::kNv,              N::kNv,              W::kLcpSolved,        U::kAlways,       1e4, R::kKappaContact,  X::kContactQdd,       "contacts.acceleration_complementarity contacts.equation_of_motion", true, "q̈ with the contact forces"},
  {"contact_tau_c",    S::kContacts, "tau_c",           5, N::kNv,              N::kNv,              W::kLcpSolved,        U::kAlways,       1e4, R::kKappaContact,  X::kContactTauC,      "contacts.equation_of_motion contacts.tau_c_is_T_lambda", true, "contact forces in joint space, Tλ"},
  {"impact_lambda",    S::kImpact,   "impact.lambda",   6, N::kImpulses,        N::kImpulses,        W::kImpactSolved,     U::kImpactRank,   1e4, R::kKappaContact,  X::kImpulse,          "impact.complementarity impact.momentum_balance", true, "contact impulses (RBDA §11.7)"},
  {"impact_qd_plus",   S::kImpact,   "impact.qd_plus",  7, N::kNv,              N::kNv,              W::kImpactSolved,     U::kAlways,       1e4, R::kKappaContact,  X::kQdPlus,           "impact.complementarity impact.momentum_balance impact.kinetic_energy_conserved impact.kinetic_energy_does_not_increase", true, "q̇ after the impulsive step"},
  };
  // clang-format on
  return t;
}

std::string QuantityInfo::proof_name() const {
  if (!fixture_key) return "";
  switch (section) {
    case QuantitySection::kTree: return fixture_key;
    case QuantitySection::kLoops: return std::string("loops.") + fixture_key;
    case QuantitySection::kContacts:
    case QuantitySection::kImpact: return std::string("contacts.") + fixture_key;
  }
  return "";
}

const QuantityInfo* find_quantity(const std::string& name) {
  for (const QuantityInfo& q : quantity_table())
    if (q.in_engine_output() && name == q.name) return &q;
  return nullptr;
}

namespace {
bool same_section(QuantitySection a, QuantitySection b) {
  auto contact = [](QuantitySection s) { return s == QuantitySection::kContacts || s == QuantitySection::kImpact; };
  return a == b || (contact(a) && contact(b));
}
}  // namespace

const QuantityInfo* find_fixture_quantity(QuantitySection section, const std::string& key) {
  for (const QuantityInfo& q : quantity_table())
    if (q.fixture_key && same_section(q.section, section) && key == q.fixture_key) return &q;
  return nullptr;
}

std::vector<const QuantityInfo*> fixture_section(QuantitySection section) {
  std::vector<const QuantityInfo*> out;
  for (const QuantityInfo& q : quantity_table())
    if (q.fixture_key && same_section(q.section, section)) out.push_back(&q);
  // Stable by position: a section's rows are few, an insertion sort keeps the table's order on ties.
  for (size_t i = 1; i < out.size(); ++i)
    for (size_t j = i; j > 0 && out[j]->position < out[j - 1]->position; --j) std::swap(out[j], out[j - 1]);
  return out;
}

const std::vector<std::string>& quantity_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const QuantityInfo& q : quantity_table())
      if (q.in_engine_output()) v.push_back(q.name);
    return v;
  }();
  return names;
}

QuantityShape quantity_shape(QuantityLength length, const QuantityDims& d) {
  switch (length) {
    case QuantityLength::kNone: return {0, 0};
    case QuantityLength::kNv: return {d.nv, 0};
    case QuantityLength::kNvByNv: return {d.nv, d.nv};
    case QuantityLength::kScalar: return {0, 0};
    case QuantityLength::kSpatial: return {6, 0};
    case QuantityLength::kLoopConstraints: return {d.nc, 0};
    case QuantityLength::kLoopByNv: return {d.nc, d.nv};
    case QuantityLength::kRigidContacts: return {d.rigid, 0};
    case QuantityLength::kLcpContacts: return {d.lcp, 0};
    case QuantityLength::kLcpByLcp: return {d.lcp, d.lcp};
    case QuantityLength::kImpulses: return {d.impulses, 0};
  }
  return {0, 0};
}

QuantityDims contact_dims(const ModelDesc& desc) {
  QuantityDims d;
  bool frictional = false;
  for (const ContactDesc& c : desc.contacts)
    if (!c.stiffness && !c.damping) frictional = frictional || c.friction.has_value();
  for (const ContactDesc& c : desc.contacts)
    if (!c.stiffness && !c.damping) {
      ++d.rigid;
      d.impulses += frictional && c.friction ? 3 : 1;
    }
  return d;
}

const char* length_unit(QuantityLength length) {
  switch (length) {
    case QuantityLength::kLoopConstraints: return "loop constraint";
    case QuantityLength::kRigidContacts: return "rigid contact";
    case QuantityLength::kImpulses: return "impulse component";
    default: return "";
  }
}

std::string length_expectation(QuantityLength length, int want, const std::string& of) {
  const std::string n = std::to_string(want);
  switch (length) {
    case QuantityLength::kLoopConstraints: return "expected n^c = " + n + " numbers (one per loop constraint of " + of + ")";
    case QuantityLength::kRigidContacts: return "expected " + n + " numbers (one per rigid contact of " + of + ")";
    case QuantityLength::kImpulses:
      return "expected " + n + " numbers (one impulse per rigid contact; t_x, t_y, normal for a contact with friction)";
    case QuantityLength::kNvByNv: return "expected nv x nv = " + n + " x " + n + " (array of rows)";
    default: return "expected nv = " + n + " numbers";
  }
}

}  // namespace rbd
