// Scores an engine output against a fixture (reports/compare.hpp). Every difference is taken in
// MPFR wide enough for the reference's digits: the reference's decimal strings are read at that
// precision, the engine's numbers (exact binary doubles, or decimal text) likewise, so the
// measured error is the engine's, not a rounding of either side. Doubles hold only the final
// errors that are reported.
#include "reports/compare.hpp"
#include "reports/reference_of.hpp"
#include "io/numbers.hpp"
#include "io/quantities.hpp"
#include "io/text.hpp"

#include "checks/properties.hpp"
#include "reference/tree/build_model.hpp"
#include "reference/tree/natural_scale.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <set>

namespace rbd {

namespace {

// "1e3" for a power of ten, else the shortest %g form ("2.5e+03").
std::string fmt_k(double k) {
  if (k > 0) {
    const double e = std::round(std::log10(k));
    if (std::pow(10.0, e) == k) return "1e" + format_number("%.0f", e);
  }
  return format_number("%g", k);
}

// κ₂(H) of a fixture sample: a decimal string, or "inf" (H not positive-definite).
double parse_kappa(const std::string& text) {
  if (!is_decimal(text)) return std::numeric_limits<double>::infinity();
  return std::strtod(text.c_str(), nullptr);
}

// The entry (row, col) of flat index k of a quantity with `cols` columns (0 for a vector).
void entry_of(int k, int cols, int& row, int& col) {
  row = cols > 0 ? k / cols : k;
  col = cols > 0 ? k % cols : 0;
}

// The names of a model's rigid contacts (no stiffness, no damping), in model order: the order of
// an engine's contact_lambda and of the impulses.
std::vector<std::string> rigid_contact_names(const ModelDesc& desc) {
  std::vector<std::string> out;
  for (const ContactDesc& c : desc.contacts)
    if (!c.stiffness && !c.damping) out.push_back(c.name);
  return out;
}

// An engine's contact_lambda (one per rigid contact of the model, model order) restricted to the
// sample's LCP contacts (ContactSummary::rigid: those in case 3 of §11.4), the reference λ's
// entries; unchanged when the LCP covers every rigid contact.
NumMatrix lcp_entries(const NumMatrix& engine, const ModelDesc& desc, const ContactSummary& S) {
  const std::vector<std::string> all = rigid_contact_names(desc);
  if (S.rigid == all || engine.size() != static_cast<int>(all.size())) return engine;
  NumMatrix out;
  out.rows = static_cast<int>(S.rigid.size());
  for (const std::string& n : S.rigid)
    out.v.push_back(engine.v[static_cast<size_t>(std::find(all.begin(), all.end(), n) - all.begin())]);
  return out;
}

// The rigid contacts of a model (the LCP's, in model order) and, for each, whether it has friction.
std::vector<bool> rigid_friction(const ModelDesc& desc) {
  std::vector<bool> out;
  for (const ContactDesc& c : desc.contacts)
    if (!c.stiffness && !c.damping) out.push_back(c.friction.has_value());
  return out;
}

// The conditioning of a sample's contact solve, κ_c: κ₂ of M (eq. 11.35) restricted to the
// contacts that carry force in the reference's solution (λ_i > 0, the equalities the solution
// satisfies; for an impact the normal impulses), 1 when none does. From the fixture's M in bin50;
// +inf when the sample has no M. The contact quantities' tolerance is k ε κ(H) κ_c: the contact
// forces are a second solve, with M, itself made from H⁻¹. (A frictional impact solves with
// NᵀH⁻¹N, whose normal block is this M: κ_c is its proxy there.)
// (lambda: another solution's λ, as decimal text, whose support is used instead of the reference's:
// an engine model's own solution, for the tolerance of the comparison with it.)
double contact_kappa(const Sample& fs, const ModelDesc& desc, bool impact, const std::vector<std::string>* lambda = nullptr) {
  const Quantity* M = fs.ref.find_contact("M");
  const Quantity* ref_lam = fs.ref.find_contact(impact ? "impact.lambda" : "lambda");
  if (!M || (!ref_lam && !lambda)) return std::numeric_limits<double>::infinity();
  const std::vector<std::string>& lv = lambda ? *lambda : ref_lam->values;
  const int n = M->rows;  // M is over the LCP's contacts (ContactSummary::rigid)
  const std::vector<bool> fr = rigid_friction(desc);
  const bool frictional = impact && fs.ref.contacts.impact.frictional;
  const std::vector<std::string>& lcp = fs.ref.contacts.rigid;
  const std::vector<std::string> all = rigid_contact_names(desc);  // the impulses' (and an engine's λ) order
  // λ over the LCP's contacts (the reference's forward λ) or over every rigid contact (impulses, an
  // engine's λ); the support is kept as indices of M.
  const bool over_lcp = !impact && lv.size() == lcp.size();
  std::vector<int> support;
  for (int i = 0, j = 0; i < static_cast<int>(fr.size()) && i < static_cast<int>(all.size()); ++i) {
    const int normal = j + (frictional && fr[i] ? 2 : 0);
    j += frictional && fr[i] ? 3 : 1;
    const auto at = std::find(lcp.begin(), lcp.end(), all[static_cast<size_t>(i)]);
    if (at == lcp.end()) continue;
    const int m = static_cast<int>(at - lcp.begin());
    if (m >= n) continue;
    const int k = over_lcp ? m : normal;
    if (k < static_cast<int>(lv.size()) && from_decimal<double>(lv[static_cast<size_t>(k)]) > 0) support.push_back(m);
  }
  if (support.empty()) return 1.0;
  const auto m = static_cast<Eigen::Index>(support.size());
  MatX<bin50> S(m, m);
  for (Eigen::Index a = 0; a < m; ++a)
    for (Eigen::Index b = 0; b < m; ++b) S(a, b) = from_decimal<bin50>(M->values[support[a] * n + support[b]]);
  const bin50 k = condition_number<bin50>(S);
  return is_finite(k) ? static_cast<double>(k) : std::numeric_limits<double>::infinity();
}

// Decimal digits of the engine's scalar: -log10 ε rounded up.
int engine_digits(double epsilon) { return static_cast<int>(std::ceil(-std::log10(epsilon))); }

}  // namespace

// ---- tolerances --------------------------------------------------------------------------------

Tolerances Tolerances::defaults(double epsilon) {
  Tolerances t;
  t.epsilon = epsilon;
  // k (io/quantities.hpp): headroom for sums over tens of bodies (H, qdd: 1e3; the others 1e4,
  // their entries being differences of larger terms). A convention bug misses by many orders.
  for (const QuantityInfo& q : quantity_table()) t.k[q.name] = q.k;
  return t;
}

double Tolerances::tolerance(const std::string& quantity, double kappa) const {
  if (auto o = overrides.find(quantity); o != overrides.end()) return o->second;
  const auto it = k.find(quantity);
  const double kq = it != k.end() ? it->second : 1e4;
  // Forward dynamics is a linear solve: its forward error is bounded by κ(H) ε (backward stable
  // algorithm); the factors of H by κ(H)^(1/2) ε. H, C, tau are products and sums: ε.
  // The loop forces come from the same solve as the constrained q̈ (KKT system, docs/loops.md).
  // The contact quantities: a second solve, with M (kappa is then κ(H) κ_c, compare.hpp).
  const QuantityInfo* q = find_quantity(quantity);
  switch (q ? q->rule : ToleranceRule::kEpsilon) {
    case ToleranceRule::kKappa:
    case ToleranceRule::kKappaContact: return kq * epsilon * kappa;
    case ToleranceRule::kSqrtKappa: return kq * epsilon * std::sqrt(kappa);
    case ToleranceRule::kEpsilon: break;
  }
  return kq * epsilon;
}

std::string Tolerances::rule(const std::string& quantity) const {
  if (auto o = overrides.find(quantity); o != overrides.end()) return "override " + format_number("%g", o->second);
  const auto it = k.find(quantity);
  const std::string kq = fmt_k(it != k.end() ? it->second : 1e4);
  const QuantityInfo* q = find_quantity(quantity);
  switch (q ? q->rule : ToleranceRule::kEpsilon) {
    case ToleranceRule::kKappa: return kq + " ε κ(H)";
    case ToleranceRule::kKappaContact: return kq + " ε κ(H) κ(M_S)";
    case ToleranceRule::kSqrtKappa: return kq + " ε κ(H)^½";
    case ToleranceRule::kEpsilon: break;
  }
  return kq + " ε";
}

void add_tolerance_override(Tolerances& tol, const std::string& spec) {
  const size_t eq = spec.find('=');
  const std::string q = eq == std::string::npos ? spec : spec.substr(0, eq);
  const std::vector<std::string>& known = engine_quantities();
  if (eq == std::string::npos || std::find(known.begin(), known.end(), q) == known.end())
    throw InputError("--tol", "", "expected QUANTITY=REL with QUANTITY one of " + join(known) + ", got '" + spec + "'");
  const std::string v = spec.substr(eq + 1);
  const double rel = is_decimal(v) ? std::strtod(v.c_str(), nullptr) : 0.0;
  if (!is_decimal(v) || !(rel > 0) || !std::isfinite(rel))
    throw InputError("--tol", q, "expected a positive relative tolerance such as 1e-9, got '" + v + "'");
  tol.overrides[q] = rel;
}

// ---- comparison --------------------------------------------------------------------------------

namespace {

// Checks that the engine output can be scored against the fixture at all; InputError otherwise.
// Runs before any scoring, so that a bad input produces no partial report.
void validate(const Fixture& f, const std::string& fixture_file, const EngineOutput& e, const std::string& engine_file) {
  if (e.model_sha256 != f.model_sha256)
    throw InputError(engine_file, "model.sha256",
                     "\"" + e.model_sha256 + "\" does not match the fixture's " + f.model_sha256 + " (" + fixture_file +
                         "): the engine ran another model, or a model edited after the fixture was made");
  if (e.dofs != f.dofs)
    throw InputError(engine_file, "dofs",
                     "expected the fixture's dofs [" + join(f.dofs) + "] (" + fixture_file + "), got [" + join(e.dofs) + "]");
  const size_t nv = f.dofs.size(), nq = f.q_coordinates.size();
  QuantityDims dims = contact_dims(f.model);
  dims.nv = static_cast<int>(nv);
  dims.nc = f.model.loop_joints.empty() ? 0 : model_layout(f.model).nc;
  for (size_t k = 0; k < e.samples.size(); ++k) {
    const EngineSample& s = e.samples[k];
    const std::string path = "samples[" + std::to_string(k) + "]";
    if (!f.find(s.id))
      throw InputError(engine_file, path + ".id",
                       "'" + s.id + "' is not a sample of the fixture " + fixture_file + " (it has " + f.samples.front().id +
                           " .. " + f.samples.back().id + ")");
    if (s.q.size() != nq)
      throw InputError(engine_file, path + ".inputs.q",
                       "expected nq = " + std::to_string(nq) + " numbers (the fixture's q_coordinates), got " +
                           std::to_string(s.q.size()));
    const std::pair<const char*, size_t> inputs[] = {{"qd", s.qd.size()}, {"qdd", s.qdd.size()}, {"tau", s.tau.size()}};
    for (const auto& [name, n] : inputs)
      if (n != nv)
        throw InputError(engine_file, path + ".inputs." + name,
                         "expected nv = " + std::to_string(nv) + " numbers, got " + std::to_string(n));
    for (const auto& [name, m] : s.values) {
      const QuantityInfo* row = find_quantity(name);
      if (!row)
        throw InputError(engine_file, path + "." + name, "expected a quantity of an engine output (" + join(engine_quantities()) + ")");
      const QuantityInfo& qi = *row;
      if (qi.is_loop() && dims.nc == 0)
        throw InputError(engine_file, path + "." + name, "the fixture's model has no loop joints: no constraint forces to compare");
      if (qi.is_contact() && f.model.contacts.empty())
        throw InputError(engine_file, path + "." + name, "the fixture's model has no contacts: no contact quantities to compare");
      const QuantityShape want = quantity_shape(qi.engine_length, dims);
      const bool ok = m.rows == want.rows && m.cols == want.cols && m.size() == (want.cols ? want.rows * want.cols : want.rows);
      if (!ok) {
        const int n = qi.engine_length == QuantityLength::kNvByNv || qi.engine_length == QuantityLength::kNv ? dims.nv : want.rows;
        throw InputError(engine_file, path + "." + name,
                         length_expectation(qi.engine_length, n, "the fixture's model") +
                             (*length_unit(qi.engine_length) ? ", got " + std::to_string(m.size()) : std::string()));
      }
    }
  }
}

// The inputs the engine says it ran against the fixture's: they must be the same state. Engine
// adapters may renormalize a quaternion, so equal means within 1e-12 relative (max(1, |x|)).
std::string input_mismatch(const EngineSample& es, const Sample& fs) {
  const std::pair<const char*, std::pair<const std::vector<Num>*, const std::vector<double>*>> inputs[] = {
      {"q", {&es.q, &fs.q}}, {"qd", {&es.qd, &fs.qd}}, {"qdd", {&es.qdd, &fs.qdd}}, {"tau", {&es.tau, &fs.tau}}};
  for (const auto& [name, vs] : inputs) {
    const std::vector<Num>& x = *vs.first;
    const std::vector<double>& y = *vs.second;
    for (size_t k = 0; k < x.size() && k < y.size(); ++k) {
      const double xv = x[k].as<double>();
      if (std::abs(xv - y[k]) > 1e-12 * std::max(1.0, std::abs(y[k])))
        return std::string("inputs.") + name + "[" + std::to_string(k) + "] is " + x[k].str() + ", the fixture's is " +
               Num::exact(y[k]).str();
    }
  }
  return "";
}

// The natural scales of a sample's tree quantities (reference/tree/natural_scale.hpp), in bin50
// from the fixture's model and the sample's inputs (exact doubles): the size of the terms RNEA sums
// for C and τ, and of H⁻¹(τ - C) and its terms for q̈; decimal text, empty where there is none (q̈
// of a closed-loop model is the loop solution, with its own scale; H not positive-definite).
struct TreeScaleText {
  std::string C, tau, qdd;
};
TreeScaleText tree_scales(const Model<bin50>& model, const Sample& fs) {
  auto vec = [](const std::vector<double>& x) {
    VecX<bin50> v(static_cast<Eigen::Index>(x.size()));
    for (size_t i = 0; i < x.size(); ++i) v(static_cast<Eigen::Index>(i)) = bin50(x[i]);
    return v;
  };
  const VecX<bin50> q = vec(fs.q), qd = vec(fs.qd), qdd = vec(fs.qdd), tau = vec(fs.tau);
  if (q.size() != model.nq || qd.size() != model.nv || qdd.size() != model.nv || tau.size() != model.nv) return {};
  const TreeTerms<bin50> t = tree_terms<bin50>(model, q, qd, tau, false);
  const TreeScales<bin50> s = tree_natural_scales<bin50>(model, q, qd, qdd, tau, t.C, t.fd.ok ? t.fd.qdd : VecX<bin50>(), t.f);
  TreeScaleText out{to_decimal(s.C, 20), to_decimal(s.tau, 20), ""};
  if (s.has_qdd && model.nc == 0) out.qdd = to_decimal(s.qdd, 20);
  return out;
}

// The natural scale of a quantity at a sample (decimal text; empty for none), by its declared rule
// (io/quantities.hpp, NaturalScale). Trees: C, τ and q̈ against the terms that produced them
// (tree_scales). Contacts: q̈ with contacts against q̈_free's (the sample's forward dynamics,
// max(max|q̈_free|, its natural scale)), Tλ against max(|τ|, C's natural scale), q̇⁺ against
// max|q̇⁻|, λ and the impulses against that of q̈_free (max|q̇⁻|) times sqrt(max|H| / max|M|). A
// value that vanishes in exact arithmetic (a system the contacts lock: q̈ = 0) is then scored by
// its error relative to the motion it stops, not to its own rounding noise.
std::string natural_scale(const Sample& fs, NaturalScale rule, const TreeScaleText& ts) {
  auto max_of = [](const Quantity* q) {
    bin50 m(0);
    if (q)
      for (const std::string& v : q->values) m = std::max(m, bin50(abs(from_decimal<bin50>(v))));
    return m;
  };
  auto at_least = [](bin50 m, const std::string& scale) { return scale.empty() ? m : std::max(m, from_decimal<bin50>(scale)); };
  auto max_qd = [&fs] {
    bin50 m(0);
    for (double v : fs.qd) m = std::max(m, bin50(std::abs(v)));
    return m;
  };
  bin50 s(0);
  switch (rule) {
    case NaturalScale::kNone: return "";
    case NaturalScale::kBiasForces: return ts.C;
    case NaturalScale::kInverseDynamics: return ts.tau;
    case NaturalScale::kForwardDynamics: return ts.qdd;
    case NaturalScale::kContactQdd: s = at_least(max_of(fs.ref.find("qdd")), ts.qdd); break;
    case NaturalScale::kContactTauC:
      s = at_least(max_of(fs.ref.find("C")), ts.C);
      for (double v : fs.tau) s = std::max(s, bin50(std::abs(v)));
      break;
    case NaturalScale::kQdPlus: s = max_qd(); break;
    case NaturalScale::kContactForce:
    case NaturalScale::kImpulse: {
      // A contact force (impulse) of the size that changes q̈ (q̇) by about its own size: with
      // M = TᵀH⁻¹T, |T| ~ sqrt(|M| |H|), so λ ~ |T| |q̈| / |M| = |q̈| sqrt(|H| / |M|). At a sample where
      // the contacts carry nothing (ζ = 0 at an impact) the engine's rounding-level λ is judged
      // against that, not against its own noise.
      const bin50 M = max_of(fs.ref.find_contact("M")), H = max_of(fs.ref.find("H"));
      if (!(M > 0) || !(H > 0)) return "";
      s = rule == NaturalScale::kContactForce ? at_least(max_of(fs.ref.find("qdd")), ts.qdd) : max_qd();
      using std::sqrt;
      s *= bin50(sqrt(bin50(H / M)));
      break;
    }
  }
  return s > 0 ? to_decimal(s, 20) : "";
}

// The forces (impulses) of a contact problem, λ: the row of `section` that is not always unique.
const QuantityInfo* contact_forces(QuantitySection section) {
  for (const QuantityInfo& q : quantity_table())
    if (q.section == section && q.in_engine_output() && q.unique_when != UniqueWhen::kAlways) return &q;
  return nullptr;
}

// The engine quantities of `section` that are unique wherever they are defined (scored where λ is not).
std::vector<std::string> unique_in(QuantitySection section) {
  std::vector<std::string> out;
  for (const QuantityInfo& q : quantity_table())
    if (q.section == section && q.in_engine_output() && q.unique_when == UniqueWhen::kAlways) out.push_back(q.name);
  return out;
}

// Score of one quantity of one sample, in MPFR at the current default precision:
//   abs_err = max_k |x_k - c_k|, scale = max(max_k |c_k|, the quantity's natural scale) (1 when
//   both are 0), rel_err = abs_err / scale,
//   digits = min(cap, max(0, -log10 rel_err)), cap when x = c exactly.
SampleScore score(const std::string& sample, const Quantity& ref, const NumMatrix& eng, double tolerance) {
  using std::abs;
  using std::log10;
  SampleScore sc;
  sc.sample = sample;
  sc.quantity = ref.name;
  mpfr worst(0), scale(0);
  int kworst = 0;
  for (int k = 0; k < static_cast<int>(ref.values.size()); ++k) {
    const mpfr c = from_decimal<mpfr>(ref.values[k]);
    const mpfr x = eng.v[k].as<mpfr>();
    // |x_k - c_k|, exact up to the MPFR precision (both sides are read without rounding to double)
    const mpfr d = abs(mpfr(x - c));
    if (d > worst) {
      worst = d;
      kworst = k;
    }
    if (abs(c) > scale) scale = abs(c);
  }
  // The natural scale (set by compare: tree_scales, contact_scale): a value that is zero in exact
  // arithmetic (C of a balanced body, a locked system's q̈) is judged against the size of the
  // terms that produced it.
  if (!ref.scale.empty()) scale = std::max(scale, mpfr(abs(from_decimal<mpfr>(ref.scale))));
  // Absolute floor: a quantity whose reference is exactly zero is scored by its absolute error.
  if (scale == 0) scale = mpfr(1);
  const mpfr rel = worst / scale;
  sc.abs_err = static_cast<double>(worst);
  sc.scale = static_cast<double>(scale);
  sc.rel_err = static_cast<double>(rel);
  // The cap: the proven digits where the fixture carries a proof of this quantity, else the
  // estimated (certified) ones.
  sc.proven = ref.proven_digits >= 0;
  sc.cap = sc.proven ? ref.proven_digits : ref.normwise_digits;
  if (worst == 0) {
    sc.digits = sc.cap;
  } else {
    const double lre = static_cast<double>(-log10(rel));
    sc.digits = std::max(0.0, std::min(lre, sc.cap));
  }
  // A reference certified to `cap` digits cannot judge an error below 10^-cap.
  sc.tolerance = std::max(tolerance, std::pow(10.0, -sc.cap));
  sc.passed = sc.rel_err <= sc.tolerance;
  entry_of(kworst, ref.cols, sc.worst_row, sc.worst_col);
  sc.reference = ref.values[kworst];
  sc.engine = eng.v[kworst].str();
  return sc;
}

// How far past (or short of) its tolerance a sample is: the worst sample maximizes this.
double badness(const SampleScore& s) {
  if (!(s.tolerance < std::numeric_limits<double>::infinity())) return 0;
  return s.rel_err / s.tolerance;
}


// The fields of a report that come from the engine output alone (compare and check).
Report report_header(const EngineOutput& e, const std::string& engine_file) {
  Report r;
  r.engine = e.engine;
  r.engine_version = e.engine_version;
  r.scalar = e.scalar;
  r.import_path = e.import_path;
  r.model_name = e.model_name;
  r.model_sha256 = e.model_sha256;
  r.engine_file = engine_file;
  r.engine_conventions = e.conventions;
  r.model_echo = e.model_echo;
  return r;
}

// Informational notes on the pair: another model name (same hash), the adapter's model echo
// differing from the fixture's (a model-import problem rather than a numerical one), fixture
// samples the engine did not run.
void note_pair(const Fixture& f, const EngineOutput& e, Report& r) {
  if (e.model_name != f.model.name)
    r.notes.push_back("the engine output names the model '" + e.model_name + "', the fixture '" + f.model.name +
                      "' (same hash: informational)");
  if (r.model_echo.is_object() && r.model_echo.value("status", "") == "differs")
    r.notes.push_back("model echo: the engine's model differs from the fixture's (see model_echo): "
                      "discrepancies may come from the model import, not from the engine's arithmetic");
  std::vector<std::string> not_run;
  for (const Sample& s : f.samples) {
    bool found = false;
    for (const EngineSample& es : e.samples) found = found || es.id == s.id;
    if (!found) not_run.push_back(s.id);
  }
  if (!not_run.empty())
    r.notes.push_back(std::to_string(not_run.size()) + " of the fixture's " + std::to_string(f.samples.size()) +
                      " samples are absent from the engine output: " + join(not_run));
}

// The engine's declared contact model (conventions.contact_model) on a model with contacts, as the
// reports name it; "" when none is declared.
std::string declared_contact_model(const Fixture& f, const EngineOutput& e, const std::string& engine_file) {
  if (f.model.contacts.empty() || !e.conventions.is_object() || !e.conventions.contains("contact_model")) return "";
  const json& d = e.conventions["contact_model"];
  if (!d.is_string() || d.get<std::string>().empty())
    throw InputError(engine_file, "conventions.contact_model",
                     "expected a non-empty string saying which contact model the engine solves (e.g. a velocity-level time step)");
  return "contact model (" + d.get<std::string>() + ")";
}

// λ judged against the engine's own model where λ itself may be one of many solutions of that
// model's LCP (a singular M whose rigid problem has one solution, §11.5, can have many in the
// model's): both sides replaced by Mλ, which every solution of either LCP shares (M of the
// fixture's contact section, bin50). Unchanged when the sample has no M of that size.
void to_M_lambda(const Sample& fs, Quantity& model, NumMatrix& engine) {
  const Quantity* Mq = fs.ref.find_contact("M");
  const int nr = static_cast<int>(fs.ref.contacts.rigid.size());
  if (!Mq || nr == 0 || model.values.size() != static_cast<size_t>(nr)) return;
  MatX<bin50> M(nr, nr);
  VecX<bin50> lm(nr), le(nr);
  for (int i = 0; i < nr; ++i) {
    lm(i) = from_decimal<bin50>(model.values[static_cast<size_t>(i)]);
    le(i) = engine.v[static_cast<size_t>(i)].as<bin50>();
    for (int j = 0; j < nr; ++j) M(i, j) = from_decimal<bin50>(Mq->values[static_cast<size_t>(i * nr + j)]);
  }
  const VecX<bin50> Mlm = M * lm, Mle = M * le;
  for (int i = 0; i < nr; ++i) {
    model.values[static_cast<size_t>(i)] = to_decimal(Mlm(i), 30);
    engine.v[static_cast<size_t>(i)] = Num::decimal(to_decimal(Mle(i), 30));
  }
  model.scale.clear();
}

std::string decimal_text(const Num& x) { return x.is_double ? to_decimal(bin50(x.value), 30) : x.text; }

// The scoring of an engine output's samples against a fixture, quantity by quantity, and what the
// later stages need of it (which failures the engine's declared contact model explains).
class Scoring {
 public:
  Scoring(const Fixture& f, const Tolerances& tol, std::string contact_model, Report& r)
      : f_(f), tol_(tol), contact_model_(std::move(contact_model)), r_(r), scale_model_(build_model<bin50>(f.model)) {
    for (const std::string& name : engine_quantities()) {
      qs_[name].quantity = name;
      qs_[name].rule = tol.rule(name);
    }
  }

  // One engine sample: a failure when the engine failed or ran another state, else every quantity
  // it carries scored.
  void sample(const EngineSample& es) {
    const Sample& fs = *f_.find(es.id);
    if (!es.error.empty()) return fail("sample " + es.id + ": the engine failed: " + es.error);
    if (es.raw.is_object() && es.raw.contains("engine_messages") && es.raw["engine_messages"].is_array())
      for (const json& msg : es.raw["engine_messages"])
        if (msg.is_string()) r_.notes.push_back("sample " + es.id + ": the engine said: " + msg.get<std::string>());
    if (const std::string m = input_mismatch(es, fs); !m.empty())
      return fail("sample " + es.id + ": " + m + ": the engine ran another state; its values are not scored");
    const double kappa = parse_kappa(fs.condition_number);
    const TreeScaleText ts = tree_scales(scale_model_, fs);
    for (const std::string& name : engine_quantities()) quantity(es, fs, *find_quantity(name), kappa, ts);
  }

  // The quantities' scores into the report, in table order; an engine that answers a contact
  // problem at some samples and not at others where the rigid problem has a solution failed there.
  void aggregate() {
    for (const std::string& name : engine_quantities()) {
      const QuantityScore& q = qs_[name];
      if (q.samples == 0 && q.missing == 0) continue;
      if (find_quantity(name)->is_contact() && q.samples > 0 && q.missing > 0)
        fail(name + ": absent at " + std::to_string(q.missing) + " sample(s) where the reference has a value, "
             "given at " + std::to_string(q.samples) + ": the engine failed to answer there");
      if (q.samples == 0) r_.notes.push_back(name + ": absent from every engine sample, not compared");
      r_.quantities.push_back(q);
    }
  }

  // The declared contact model on the checks and quantities it explains: a quantity none of whose
  // failures is the engine's numbers; a contacts.* or impact.* check failing where the rigid problem
  // has no solution (the engine answers its own model), or at a sample where every failing contact
  // quantity is the model's.
  void explain(std::vector<SampleCheck>& checks) {
    for (QuantityScore& q : r_.quantities)
      if (!q.passed && unexplained_[q.quantity] == 0 && !contact_model_.empty()) q.convention = contact_model_;
    for (SampleCheck& c : checks) {
      const Sample* fs = f_.find(c.sample);
      if (c.result.passed || !fs || !fs->ref.contacts.present) continue;
      const ContactSummary& S = fs->ref.contacts;
      if (S.status != "solved" && c.result.name.rfind("contacts.", 0) == 0)
        c.convention = (S.status == "impact_first" || S.status == "penetrating"
                            ? "the rigid contact LCP is not posed at this sample (status "
                            : "the rigid contact LCP has no solution at this sample (status ") +
                       S.status + "): the engine answers its own contact model";
      else if (S.impact.present && !S.impact.ok && c.result.name.rfind("impact.", 0) == 0)
        c.convention = "the rigid impulsive LCP has no solution at this sample (" + S.impact.message +
                       "): the engine answers its own contact model";
    }
    for (SampleCheck& c : checks)
      if (!c.result.passed && model_explained_.count(c.sample) && !numbers_failed_.count(c.sample) &&
          (c.result.name.rfind("contacts.", 0) == 0 || c.result.name.rfind("impact.", 0) == 0))
        c.convention = contact_model_;
  }

 private:
  void fail(const std::string& n) {
    r_.notes.push_back(n);
    r_.sample_failures.push_back(n);
  }

  // Why a quantity the engine gives at a sample is not compared there ("" when it is): the rigid
  // problem has no solution to score against (an engine returning contact forces then solves another
  // contact problem, which is not an error), the impulsive step failed, or λ is one of many.
  std::string not_compared(const EngineSample& es, const Sample& fs, const QuantityInfo& qi, const Quantity* ref) const {
    const std::string at = "sample " + es.id + ": " + qi.name + " not compared: ";
    const ContactSummary& S = fs.ref.contacts;
    const bool impact = qi.section == QuantitySection::kImpact;
    if (qi.is_contact() && !impact && S.status != "solved")
      return at + "the reference's contact LCP status is " + S.status +
             (S.status == "no_solution"    ? " (no λ ≥ 0 keeps every ζ̇ ≥ 0, RBDA example 11.1; certificate in the fixture)"
              : S.status == "impact_first" ? " (a contact collides, case 2a of §11.4: the rigid answer is an impulse first, scored as "
                                             "impact_*)"
              : S.status == "penetrating"  ? " (a contact penetrates: no valid rigid state)"
                                           : "") +
             ": the engine's answer is its own contact model's";
    if (impact && !S.impact.ok) return at + "the reference's impulsive step failed (" + S.impact.message + ")";
    const bool contact_unique = qi.unique_when == UniqueWhen::kImpactRank    ? S.impact.lambda_unique
                                : qi.unique_when == UniqueWhen::kContactRank ? S.lambda_unique
                                                                              : true;
    if (qi.is_contact() && !contact_unique)
      // Redundant contacts: λ is one of many; Tλ, q̈ (and q̇⁺) are unique and are what is scored.
      return at + "λ is not unique (M has rank " + std::to_string(S.rank) + " of n_c = " + std::to_string(S.rigid.size()) + "; " +
             join(unique_in(qi.section)) + ", unique, are compared)";
    if (qi.unique_when == UniqueWhen::kLoopRank && ref && !fs.ref.loops.lambda_unique)
      // A redundant constraint set: λ is one of many (the reference's is the minimum-norm one), so
      // an engine's λ is not wrong for differing. τ_c = Kᵀλ is unique and is what is scored.
      return "sample " + es.id + ": lambda not compared: the loop constraints have rank " + std::to_string(fs.ref.loops.rank) +
             " < n^c = " + std::to_string(fs.ref.loops.n_constraints) + ", so λ is not unique (tau_c, unique, is compared)";
    return "";
  }

  // One quantity of one sample: scored against the reference, and where it fails and the engine
  // declares a contact model, against that model's exact values.
  void quantity(const EngineSample& es, const Sample& fs, const QuantityInfo& qi, double kappa, const TreeScaleText& ts) {
    const std::string name = qi.name;
    const Quantity* ref = reference_of(fs, name);
    auto ev = es.values.find(name);
    // λ of the LCP's contacts only: a separated or separating contact has no reference λ (§11.4).
    EngineSample es_lcp;
    if (qi.engine_length == QuantityLength::kRigidContacts && qi.fixture_length == QuantityLength::kLcpContacts &&
        ev != es.values.end() && fs.ref.contacts.status == "solved") {
      es_lcp.values[name] = lcp_entries(ev->second, f_.model, fs.ref.contacts);
      if (const auto mv = es.model_values.find(name); mv != es.model_values.end())
        es_lcp.model_values[name] = lcp_entries(mv->second, f_.model, fs.ref.contacts);
      ev = es_lcp.values.find(name);
    }
    const std::map<std::string, NumMatrix>& model_values = es_lcp.values.empty() ? es.model_values : es_lcp.model_values;
    const bool given = ev != es.values.end();
    if (given)
      if (const std::string why = not_compared(es, fs, qi, ref); !why.empty()) return r_.notes.push_back(why);
    if (!ref) {
      if (given)
        r_.notes.push_back("sample " + es.id + ": " + name + " not compared: the reference has none (" +
                           (fs.ref.degeneracy.empty() ? "not computed" : fs.ref.degeneracy) + ")");
      return;
    }
    QuantityScore& q = qs_[name];
    if (!given) {  // (its length, when given, is the reference's: validate() checked it)
      ++q.missing;
      return;
    }
    const bool impact = qi.section == QuantitySection::kImpact;
    const double kq = qi.is_contact() ? kappa * contact_kappa(fs, f_.model, impact) : kappa;
    Quantity rq = *ref;
    rq.scale = natural_scale(fs, qi.scale, ts);
    SampleScore sc = score(es.id, rq, ev->second, tol_.tolerance(name, kq));
    sc.quantity = name;  // the engine's name (the reference's may be "lambda" of the contact section)
    if (!sc.passed && !contact_model_.empty() && qi.is_contact()) {
      against_model(es, fs, qi, rq, ev->second, model_values, kappa, kq, sc);
      (sc.convention.empty() ? numbers_failed_ : model_explained_).insert(es.id);
    }
    if (!sc.passed && sc.convention.empty()) ++unexplained_[name];
    add(q, sc);
  }

  // A failing contact quantity against the engine's own model's exact values (model_values): the
  // model's LCP has the same M but its own support, whose conditioning bounds the engine's
  // legitimate loss there; λ is judged on Mλ (to_M_lambda). Within tolerance: the model's.
  void against_model(const EngineSample& es, const Sample& fs, const QuantityInfo& qi, const Quantity& rq, const NumMatrix& value,
                     const std::map<std::string, NumMatrix>& model_values, double kappa, double kq, SampleScore& sc) const {
    const auto mv = model_values.find(qi.name);
    if (mv == model_values.end() || mv->second.size() != value.size()) return;
    Quantity mq = rq;
    for (int k = 0; k < mv->second.size(); ++k) mq.values[static_cast<size_t>(k)] = decimal_text(mv->second.v[static_cast<size_t>(k)]);
    const QuantityInfo& forces = *contact_forces(qi.section);
    double mk = kq;
    if (const auto ml = model_values.find(forces.name); ml != model_values.end()) {
      std::vector<std::string> lv;
      for (const Num& x : ml->second.v) lv.push_back(decimal_text(x));
      mk = std::max(kq, kappa * contact_kappa(fs, f_.model, qi.section == QuantitySection::kImpact, &lv));
    }
    NumMatrix eng = value;
    if (&qi == &forces) to_M_lambda(fs, mq, eng);
    const SampleScore ms = score(es.id, mq, eng, std::max(sc.tolerance, tol_.tolerance(qi.name, mk)));
    sc.model_digits = ms.digits;
    if (ms.passed) sc.convention = contact_model_;
  }

  // Aggregate: max errors, min digits, min cap; the worst sample by rel_err / tolerance.
  void add(QuantityScore& q, const SampleScore& sc) {
    if (q.samples == 0) {
      q.min_digits = sc.digits;
      q.cap = sc.cap;
    }
    ++q.samples;
    q.proven_samples += sc.proven ? 1 : 0;
    q.max_abs_err = std::max(q.max_abs_err, sc.abs_err);
    q.max_rel_err = std::max(q.max_rel_err, sc.rel_err);
    q.min_digits = std::min(q.min_digits, sc.digits);
    q.cap = std::min(q.cap, sc.cap);
    const double b = badness(sc);
    if (q.samples == 1 || b > worst_badness_[q.quantity]) {
      worst_badness_[q.quantity] = b;
      q.worst_sample = sc.sample;
      q.worst_row = sc.worst_row;
      q.worst_col = sc.worst_col;
      q.tolerance = sc.tolerance;
    }
    q.passed = q.passed && sc.passed;
    r_.samples.push_back(sc);
  }

  const Fixture& f_;
  const Tolerances& tol_;
  const std::string contact_model_;  // declared: contact quantities matching model_values are the model's
  Report& r_;
  const Model<bin50> scale_model_;   // for the natural scales (tree_scales)
  std::map<std::string, QuantityScore> qs_;
  std::map<std::string, double> worst_badness_;
  std::map<std::string, int> unexplained_;    // per quantity: failures not explained by the declared model
  std::set<std::string> model_explained_;     // samples whose every failing contact quantity the model explains
  std::set<std::string> numbers_failed_;
};

// A declared soft-constraint model (conventions.soft_loop_constraints) on a closed-loop model: its
// consequences (qdd, tau_c, lambda, loops.K_qdd_equals_k) are a convention, and the violation is
// measured.
void apply_soft_constraints(const Fixture& f, const EngineOutput& e, const std::string& engine_file, Report& r) {
  if (f.model.loop_joints.empty() || !e.conventions.is_object() || !e.conventions.contains("soft_loop_constraints")) return;
  const json& d = e.conventions["soft_loop_constraints"];
  if (!d.is_string() || d.get<std::string>().empty())
    throw InputError(engine_file, "conventions.soft_loop_constraints",
                     "expected a non-empty string saying which soft model the engine uses (e.g. solref/solimp)");
  r.soft_constraints = d.get<std::string>();
  const std::string why = "soft loop constraints (" + r.soft_constraints + ")";
  for (QuantityScore& q : r.quantities)
    if (!q.passed && (q.quantity == "qdd" || is_loop_quantity(q.quantity))) q.convention = why;
  for (SampleCheck& c : r.checks)
    if (c.result.name == "loops.K_qdd_equals_k") {
      r.constraint_violation = std::max(r.constraint_violation, c.result.residual);
      if (!c.result.passed) c.convention = why;
    }
}

// Passed: no sample failure, and every quantity and check within tolerance or explained.
bool verdict(const Report& r) {
  bool passed = r.sample_failures.empty();
  for (const QuantityScore& q : r.quantities) passed = passed && (q.passed || !q.convention.empty());
  for (const SampleCheck& c : r.checks) passed = passed && (c.result.passed || !c.convention.empty());
  return passed;
}

}  // namespace

Report compare(const Fixture& f, const std::string& fixture_file, const EngineOutput& e, const std::string& engine_file,
               const Tolerances& tol) {
  validate(f, fixture_file, e, engine_file);
  Report r = report_header(e, engine_file);
  r.model_name = f.model.name;
  r.model_sha256 = f.model_sha256;
  r.fixture_file = fixture_file;
  r.fixture_precision = f.precision;
  r.epsilon = tol.epsilon;
  r.fixture_conventions = canonical_conventions(f.model);
  note_pair(f, e, r);
  // Wide enough for every digit of the reference and of the engine's numbers, with 20 to spare.
  const int wide = std::max(f.digits, engine_digits(tol.epsilon)) + 20;
  ScopedMpfrDigits guard(static_cast<unsigned>(std::max(wide, 50)));
  Scoring scoring(f, tol, declared_contact_model(f, e, engine_file), r);
  for (const EngineSample& es : e.samples) scoring.sample(es);
  scoring.aggregate();
  r.checks = check_engine_output(e, engine_file, &f.model);
  scoring.explain(r.checks);
  apply_soft_constraints(f, e, engine_file, r);
  r.passed = verdict(r);
  return r;
}

SampleScore score_quantity(const Fixture& f, const std::string& sample, const std::string& quantity, const std::vector<double>& values,
                           const std::string& scalar, const std::string& source) {
  const Sample* fs = f.find(sample);
  if (!fs)
    throw InputError(source, "sample", "'" + sample + "' is not a sample of the fixture (it has " +
                                           (f.samples.empty() ? std::string("none") : f.samples.front().id + " .. " + f.samples.back().id) + ")");
  if (!find_quantity(quantity))
    throw InputError(source, "quantity", "'" + quantity + "' is not a quantity an engine output carries (" + join(engine_quantities()) + ")");
  Fixture one;  // the model and this sample: compare's checks and scales see nothing else
  one.model = f.model;
  one.model_sha256 = f.model_sha256;
  one.precision = f.precision;
  one.check_precision = f.check_precision;
  one.digits = f.digits;
  one.dofs = f.dofs;
  one.q_coordinates = f.q_coordinates;
  one.samples = {*fs};
  EngineOutput e;
  e.engine = source;
  e.scalar = scalar;
  e.model_sha256 = f.model_sha256;
  e.dofs = f.dofs;
  EngineSample es;
  es.id = sample;
  es.q = exact_nums(fs->q);
  es.qd = exact_nums(fs->qd);
  es.qdd = exact_nums(fs->qdd);
  es.tau = exact_nums(fs->tau);
  NumMatrix m;
  const int nv = static_cast<int>(f.dofs.size()), n = static_cast<int>(values.size());
  if (is_matrix_quantity(quantity) && n == nv * nv) m.rows = m.cols = nv;
  else m.rows = n;
  for (int k = 0; k < n; ++k) {
    if (!std::isfinite(values[static_cast<size_t>(k)]))
      throw InputError(source, quantity, "entry " + std::to_string(k) + " is not finite (" + std::to_string(values[static_cast<size_t>(k)]) +
                                             "): an engine's non-finite value is a failure, not a number to score");
    m.v.push_back(Num::exact(values[static_cast<size_t>(k)]));
  }
  es.values[quantity] = m;
  e.samples.push_back(es);
  const Report r = compare(one, "fixture", e, source, Tolerances::defaults(e.epsilon(source)));
  for (const SampleScore& sc : r.samples)
    if (sc.quantity == quantity) return sc;
  throw InputError(source, quantity, "sample " + sample + " of the fixture has no reference value of " + quantity +
                                         " (e.g. qdd where H is not positive-definite, lambda where it is not unique)");
}

Report check_report(const EngineOutput& e, const std::string& file, const Fixture* f) {
  if (f && f->model_sha256 != e.model_sha256)
    throw InputError(file, "model.sha256", "\"" + e.model_sha256 + "\" does not match the fixture's " + f->model_sha256);
  Report r = report_header(e, file);
  r.epsilon = e.epsilon(file);
  r.checks = check_engine_output(e, file, f ? &f->model : nullptr);
  // An engine that failed on a sample fails the check run, as it fails a comparison.
  for (const EngineSample& s : e.samples)
    if (!s.error.empty()) {
      r.notes.push_back("sample " + s.id + ": the engine failed: " + s.error + " (not checked)");
      r.sample_failures.push_back(r.notes.back());
    }
  r.passed = r.sample_failures.empty();
  for (const SampleCheck& c : r.checks) r.passed = r.passed && c.result.passed;
  return r;
}

}  // namespace rbd
