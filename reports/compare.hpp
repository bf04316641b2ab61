// Comparison of an engine's output with a golden fixture, and the checks that need no reference.
//
// Score of one quantity x of one sample against the reference c (both as vectors of entries):
//   abs_err = max_k |x_k - c_k|
//   scale   = max_k |c_k|, or 1 (absolute error, in the quantity's units) when c = 0: the floor
//   rel_err = abs_err / scale
//   digits  = LRE = -log10(rel_err), capped at the reference's norm-wise certified digits of that
//             quantity in that sample; an exact match scores the cap
// The quantity's score over the samples: max rel_err and min digits over the samples, and the worst
// sample, the one with the largest rel_err / tolerance (for H, C, tau, whose tolerance is the same
// in every sample, the largest rel_err; for qdd, L, D a failing sample with a small κ(H) must not
// hide behind a passing near-singular one), with its sample id and the entry (row, col) where
// |x - c| is largest. Comparisons run in MPFR wide enough for the reference's digits.
//
// Tolerance (pass when rel_err ≤ tolerance), from the engine's precision class ε (its scalar):
//   H, C, tau: k ε;  qdd: k ε κ₂(H) (forward dynamics loses log10 κ digits legitimately);
//   L, D: k ε κ₂(H)^(1/2)
// with k = 1e3 for H, 1e4 for C and tau, 1e3 for qdd, 1e4 for L and D (headroom for sums over
// tens of bodies; a convention bug misses by many orders). The contact quantities (contact_lambda,
// contact_qdd, contact_tau_c, impact_lambda, impact_qd_plus; RBDA ch. 11): 1e4 ε κ₂(H) κ₂(M_S),
// M_S the LCP matrix over the contacts carrying force in the reference's solution (a second
// solve, with M made from H⁻¹); λ only where unique, nothing where the rigid LCP has no solution
// (a note: the engine answers its own contact model there). Per-quantity overrides replace the
// tolerance by an explicit relative error (`--tol qdd=1e-9`). A reference certified to only `cap`
// digits cannot judge an error below 10^-cap: the tolerance used is max(rule, 10^-cap).
#pragma once

#include "checks/check_result.hpp"
#include "io/engine_output.hpp"
#include "fixtures/fixture.hpp"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace rbd {

struct Tolerances {
  double epsilon = 0;                        // of the engine's scalar
  std::map<std::string, double> k;           // per quantity
  std::map<std::string, double> overrides;   // per quantity: explicit relative tolerance
  static Tolerances defaults(double epsilon);
  double tolerance(const std::string& quantity, double kappa) const;
  std::string rule(const std::string& quantity) const;  // "1e3 ε κ(H)" or "override 1e-9"
};

// Adds an override "Q=REL" (the form of `--tol`): Q one of engine_quantities(), REL a positive
// finite number. InputError naming "--tol" otherwise.
void add_tolerance_override(Tolerances& tol, const std::string& spec);

struct SampleScore {
  std::string sample, quantity;
  double abs_err = 0, rel_err = 0, scale = 0, digits = 0, cap = 0, tolerance = 0;
  int worst_row = 0, worst_col = 0;  // col 0 for vectors
  std::string reference, engine;     // the worst entry's two values
  bool passed = false;
  // Outside tolerance, but the engine matches its declared model (conventions.contact_model) there:
  // the model's text, and the digits against the model's own exact values (EngineSample::model_values).
  std::string convention;
  double model_digits = -1;          // -1: not scored against the model
  bool proven = false;               // cap is the reference's proven digits (fixture --prove), not its estimated ones
};

struct QuantityScore {
  std::string quantity;
  int samples = 0, missing = 0;      // compared, and absent from the engine output
  double max_abs_err = 0, max_rel_err = 0, min_digits = 0, cap = 0, tolerance = 0;
  int proven_samples = 0;            // samples whose cap is proven (the others' is estimated)
  std::string worst_sample;
  int worst_row = 0, worst_col = 0;
  std::string rule;
  bool passed = true;
  // Non-empty when the quantity is outside tolerance because the engine solves another problem by
  // design, as its output declares (conventions.soft_loop_constraints): the convention's text. Such
  // a quantity is reported with its digits and does not fail the report.
  std::string convention;
};

// One check on one sample of the engine's own numbers (rbdref check).
struct SampleCheck {
  std::string sample;
  CheckResult result;
  std::string convention;  // as QuantityScore::convention: a failure the engine's declared model explains
};

struct Report {
  std::string engine, engine_version, scalar, import_path, model_name, model_sha256, fixture_file, engine_file;
  json fixture_conventions, engine_conventions, model_echo;
  std::vector<QuantityScore> quantities;
  std::vector<SampleScore> samples;
  std::vector<SampleCheck> checks;
  std::string fixture_precision;     // precision of the reference values, e.g. "bin50"
  double epsilon = 0;                // of the engine's scalar
  std::vector<std::string> notes;    // e.g. samples the engine failed on, echo differences
  std::vector<std::string> sample_failures;  // the notes that fail the report: an engine error on a
                                             // sample, inputs that differ from the fixture's
  bool passed = true;                // every quantity and every check within tolerance (or explained by
                                     // a declared convention), no sample failure
  // Soft loop constraints declared by the engine (conventions.soft_loop_constraints) on a closed-loop
  // model: the declaration, and the constraint violation measured on the engine's own q̈, the
  // largest residual of loops.K_qdd_equals_k over the samples (max|K q̈ - k| / (max|K| max|q̈| +
  // max|k|)); -1 when not applicable.
  std::string soft_constraints;
  double constraint_violation = -1;
};

// Soft loop constraints: an engine whose loop constraints are soft by design (MuJoCo's equality
// constraints: solref/solimp regularization, no J̇q̇ term) says so in its output, conventions
// "soft_loop_constraints": "<what and with which parameters>". On a closed-loop model, qdd, tau_c
// and lambda outside tolerance and a failing loops.K_qdd_equals_k are then marked with that
// convention instead of failing, and the measured violation is reported (Report above). Everything
// else (H, C, tau, the projected equation of motion, τ_c doing no work) is judged as usual.
//
// A declared contact model: an engine whose contacts are not the rigid acceleration-level LCP by
// design (a velocity-level time step, a soft or regularized contact) says so in conventions
// "contact_model": "<what>", and may give per sample the exact values of its own model
// (model_values, computed by its adapter with rbdref's reference). A contact quantity outside
// tolerance at a sample is then the engine's MODEL when the engine's value is within the same
// tolerance of model_values (SampleScore::convention, model_digits), and its NUMBERS otherwise (a
// failure). On a sample where every contact quantity was explained so, the failing contacts.* and
// impact.* checks of the engine's own numbers (which hold the rigid problem's identities) are
// marked with the convention too. Without model_values nothing is excused.
//
// Scores e against f. Throws InputError (naming engine_file) when the model hashes differ, a
// sample id is unknown, the dofs differ from the fixture's, or an input or value has the wrong
// size (q: nq, qd/qdd/tau: nv, H/L: nv x nv, C/tau/qdd/D: nv); all of this is checked before
// anything is scored. An engine sample with `error`, or whose inputs are not the fixture's (beyond
// 1e-12 relative), is a note and a sample failure. Fills Report::checks with check_engine_output.
Report compare(const Fixture& f, const std::string& fixture_file, const EngineOutput& e, const std::string& engine_file,
               const Tolerances& tol);

// The reference-free checks on every sample of an engine output, in extended precision (bin50),
// with tolerance k ε(engine):
//   H.symmetric_raw        max|H - Hᵀ| / max|H| of the raw H when the engine output keeps one
//                          (raw.H), else of H; before anything symmetrizes           k = 10
//   H.positive_definite    smallest eigenvalue of the symmetric part of H > 0 (detail gives λmin)
//   equation_of_motion.fd  ‖H qdd_engine + C - tau_input‖ / (‖H‖ |qdd| + |C| + |tau|)  k = 1e3 κ(H)
//   equation_of_motion.id  ‖H qdd_input + C - tau_engine‖ / (same scale)              k = 1e3
//   ltdl.reconstructs      |Lᵀ D L - H| / |H| when L and D are present                 k = 1e3
// Samples whose `error` is set are skipped; a check whose inputs the sample lacks is not run. The
// extended precision is bin50, or MPFR 20 digits wider than the engine's scalar when that is wider
// than 30 digits. `file` names the engine output in errors (an unknown scalar).
std::vector<SampleCheck> check_engine_output(const EngineOutput& e);
// model: the fixture's model. On a closed-loop model (RBDA ch. 8) the engine's qdd is the
// constrained acceleration and equation_of_motion.fd is replaced by (K, k, G, H, C computed in T
// at the sample's inputs; tolerance 1e3 ε each):
//   loops.K_qdd_equals_k              max|K q̈ - k| / (max|K| max|q̈| + max|k|)
//   loops.equation_of_motion_projected max|Gᵀ(H q̈ + C - τ)| / (max|G| (max|H| max|q̈| + max|C| + max|τ|))
//   loops.equation_of_motion          max|H q̈ + C - τ - τ_c| / (... + max|τ_c|)   when tau_c is given
//   loops.constraint_forces_do_no_work max|Gᵀ τ_c| / (max|G| max|τ_c|)              when tau_c is given
// An output with tau_c or lambda and no closed-loop model is an InputError (the checks need it).
// On a model with contacts (docs/contact.md), with T, Ṫᵀq̇, M, d, H, C computed in T at the inputs:
//   contacts.complementarity          on contact_lambda: λ ≥ 0, ζ̇ = Mλ + d ≥ 0, λᵀζ̇ = 0   1e3 ε κ(H)
//   contacts.acceleration_complementarity  ζ̇ = Tᵀq̈ + Ṫᵀq̇ ≥ 0 on contact_qdd (λ_i ζ̇_i = 0 with λ)   1e3 ε κ(H)
//   contacts.equation_of_motion       H q̈ + C = τ + τ_soft + τ_c (contact_tau_c, or Tλ)       1e3 ε κ(H)
//   contacts.tau_c_is_T_lambda        contact_tau_c = T contact_lambda                        1e3 ε
//   impact.complementarity            ζ⁺ + eζ⁻ ≥ 0 on impact_qd_plus (λ ≥ 0, λ_i w_i = 0 with impact_lambda)
//   impact.momentum_balance           H(q̇⁺ - q̇) = Tλ, frictionless, with impact_lambda
//   impact.kinetic_energy_does_not_increase / _conserved   frictionless, one e / every e = 1
// An output with contact quantities and no model with contacts is an InputError; so is a
// contact_lambda or impact_lambda of the wrong length.
std::vector<SampleCheck> check_engine_output(const EngineOutput& e, const std::string& file, const ModelDesc* model = nullptr);

// One quantity of one sample of a fixture scored exactly as compare scores it (the same scale,
// tolerance rule and cap), without an engine-output file: `values` row-major (an nv x nv matrix for
// H and L, one number per entry otherwise), at the engine's `scalar` (double, float, longdouble,
// float128, mpfr:<d>). For the GoogleTest matchers (testing/gtest_matchers.hpp) and the Python
// module. InputError naming `source` for an unknown sample or quantity, a value of the wrong size,
// or a quantity the sample has no reference for.
SampleScore score_quantity(const Fixture& f, const std::string& sample, const std::string& quantity, const std::vector<double>& values,
                           const std::string& scalar = "double", const std::string& source = "score_quantity");

// The report of `rbdref check`: check_engine_output on every sample (with the fixture's model when
// given: the loop and contact checks), no quantities scored; passed when every check passes and
// the engine failed on no sample. The fixture's model hash must be the engine output's (InputError
// naming `file` otherwise).
Report check_report(const EngineOutput& e, const std::string& file, const Fixture* f = nullptr);

nlohmann::ordered_json report_to_json(const Report& r);

// The audit's one-line diagnosis of a report: "model import: ..." (the echo differs), "numerical:
// ..." (the engine's contact solver failed or stopped short of its own model; digits lost with the
// model and conventions agreeing), "convention or model semantics: ..." (a quantity wrong in its
// leading digits), "convention (declared): ..." (soft loop constraints, a declared contact model),
// or "none" (reports/diagnosis.cpp).
std::string diagnosis(const Report& r);
// JUnit XML for CI dashboards: one <testsuite> per report (engine × model), one <testcase> per
// quantity (classname "rbdref.<engine>.<model>", name the quantity) and one per check kind; a
// <failure> with the worst sample, entry, error and tolerance when it fails.
// Failures known from a baseline (reports/baseline.hpp), per "engine × model": their testcases are
// <skipped> with "known discrepancy (source): ..." instead of <failure>.
struct KnownFailures {
  std::string source;
  std::map<std::string, std::set<std::string>> names;
};
std::string reports_to_junit(const std::vector<Report>& reports, const KnownFailures& known = {});

// Human summaries for the terminal: one line per quantity (samples, min digits, cap, worst
// sample/entry, rel err, tolerance, status) then one per check kind; and the check lines alone.
std::string report_summary(const Report& r);
std::string checks_summary(const std::vector<SampleCheck>& checks);

}  // namespace rbd
