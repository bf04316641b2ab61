// The interval scalar (reference/numeric/interval.hpp) and the proof built on it (certify/prove.hpp).
//
// Arithmetic: every operation on random operands contains the exact result, bracketed by MPFR at
// 2000 bits rounded down and up (so the check itself is rigorous); multiplication rounded to
// nearest (the planted defect) is caught by the same check. Decimals are enclosed, not rounded;
// comparisons answer only when certain; sine and cosine are enclosed at 1e300.
//
// Proof: a pendulum's closed form (from decimal text) lies inside every radius; on every bundled
// tree, at bin50, every entry of H, C, τ, q̈, L, D, the energies and the
// momentum satisfies |oracle - value| <= radius, the oracle being an evaluation at mpfr:120 (a
// point evaluation, no interval code, 70 digits beyond the value); the proven digits reach the
// targets (45 norm-wise for H, C, τ, q̈); the oracle of a state moved by 1e-40 escapes the radius
// (the containment check can fail); a singular H proves no q̈, L or D.
#include "certify/prove.hpp"
#include "certify/precision.hpp"
#include "io/model_io.hpp"
#include "reference/tree/interval_tree.hpp"
#include "tests/test_paths.hpp"
#include "io/files.hpp"
#include "io/json_read.hpp"
#include "tests/loop_bundled.hpp"
#include "tests/tree_cases.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <random>

namespace rbd::test {
namespace {

struct Fr {
  mpfr_t v;
  explicit Fr(mpfr_prec_t bits = 2000) { mpfr_init2(v, bits); }
  ~Fr() { mpfr_clear(v); }
};

// f at 2000 bits, rounded down and up, inside x: the exact value of f is then inside x.
bool encloses(const Interval& x, const std::function<int(mpfr_ptr, mpfr_rnd_t)>& f) {
  Fr d, u;
  f(d.v, MPFR_RNDD);
  f(u.v, MPFR_RNDU);
  return mpfr_lessequal_p(x.lo(), d.v) && mpfr_lessequal_p(u.v, x.hi());
}

// Random doubles of every sign and a wide range of exponents.
double random_double(std::mt19937_64& g) {
  std::uniform_real_distribution<double> m(-1, 1);
  std::uniform_int_distribution<int> e(-40, 40);
  return std::ldexp(m(g), e(g));
}

// The count of operations (of 6 kinds, 300 operand pairs) whose result does not contain the exact value.
int arithmetic_failures() {
  ScopedIntervalDigits g(60);
  std::mt19937_64 gen(7);
  int failures = 0;
  for (int k = 0; k < 300; ++k) {
    const double a = random_double(gen), b = random_double(gen);
    const Interval A(a), B(b);
    failures += !encloses(A + B, [&](mpfr_ptr r, mpfr_rnd_t rnd) { mpfr_set_d(r, a, rnd); return mpfr_add_d(r, r, b, rnd); });
    failures += !encloses(A - B, [&](mpfr_ptr r, mpfr_rnd_t rnd) { mpfr_set_d(r, a, rnd); return mpfr_sub_d(r, r, b, rnd); });
    failures += !encloses(A * B, [&](mpfr_ptr r, mpfr_rnd_t rnd) { mpfr_set_d(r, a, rnd); return mpfr_mul_d(r, r, b, rnd); });
    failures += !encloses(A / B, [&](mpfr_ptr r, mpfr_rnd_t rnd) { mpfr_set_d(r, a, rnd); return mpfr_div_d(r, r, b, rnd); });
    failures += !encloses(sqrt(abs(A)), [&](mpfr_ptr r, mpfr_rnd_t rnd) { mpfr_set_d(r, std::abs(a), rnd); return mpfr_sqrt(r, r, rnd); });
    failures += !encloses(sin(A) * cos(B), [&](mpfr_ptr r, mpfr_rnd_t rnd) {
      // sin a cos b rounded in one direction: both factors' enclosures at 2000 bits
      Fr s, c, s2, c2;
      mpfr_set_d(s.v, a, MPFR_RNDN);
      mpfr_set_d(c.v, b, MPFR_RNDN);
      mpfr_sin(s2.v, s.v, MPFR_RNDN);
      mpfr_cos(c2.v, c.v, MPFR_RNDN);
      const int t = mpfr_mul(r, s2.v, c2.v, MPFR_RNDN);
      // 2000-bit nearest values are within 2^-1990 relative of the exact product: step past it
      mpfr_t eps;
      mpfr_init2(eps, 64);
      mpfr_set_ui_2exp(eps, 1, mpfr_get_exp(r) - 1990, MPFR_RNDN);
      if (rnd == MPFR_RNDD) mpfr_sub(r, r, eps, MPFR_RNDD);
      else mpfr_add(r, r, eps, MPFR_RNDU);
      mpfr_clear(eps);
      return t;
    });
  }
  return failures;
}

TEST(Interval, EveryOperationContainsTheExactResult) { EXPECT_EQ(arithmetic_failures(), 0); }

TEST(Interval, PlantedNearestProductIsCaught) {
  Interval::set_planted_nearest_product(true);
  const int failures = arithmetic_failures();
  Interval::set_planted_nearest_product(false);
  // The products of two doubles are exact at 60 digits (106 bits), planted or not; the product of
  // the enclosures of sin a and cos b is not a single number, and its nearest midpoint product
  // misses the exact value: each of the 300 such cases must be caught.
  EXPECT_GE(failures, 300);
}

TEST(Interval, DecimalsAreEnclosedNotRounded) {
  ScopedIntervalDigits g(30);
  const Interval x = from_decimal<Interval>("0.1");
  EXPECT_FALSE(x.is_point());
  Fr t;  // 10 lo < 1 < 10 hi, exactly (2000 bits hold the products)
  mpfr_mul_ui(t.v, x.lo(), 10, MPFR_RNDN);
  EXPECT_LT(mpfr_cmp_ui(t.v, 1), 0);
  mpfr_mul_ui(t.v, x.hi(), 10, MPFR_RNDN);
  EXPECT_GT(mpfr_cmp_ui(t.v, 1), 0);
  EXPECT_TRUE(from_decimal<Interval>("0.5").is_point());
  EXPECT_TRUE(Interval(0.1).is_point());  // a double is its exact binary value
  EXPECT_THROW(from_decimal<Interval>("0.1 "), std::invalid_argument);
}

TEST(Interval, PointValuesOfEveryScalarConvertExactly) {
  ScopedIntervalDigits g(120);
  const bin50 x = bin50(1) / 3;
  const Interval X = Interval::of(x);
  EXPECT_TRUE(X.is_point());
  // x · 3 - 1 is exactly the rounding error of 1/3 in bin50, which the point interval keeps
  const Interval e = X * Interval(3) - Interval(1);
  const bin50 ex = x * 3 - 1;
  EXPECT_TRUE(e.is_point());
  EXPECT_NE(to_double(e), 0.0);  // 1/3 is not a binary number
  // and it is 3x - 1 exactly: x's exact decimal expansion (200 digits hold its ~168 bits) in MPFR
  Fr m;
  mpfr_set_str(m.v, to_decimal(x, 200).c_str(), 10, MPFR_RNDN);
  mpfr_mul_ui(m.v, m.v, 3, MPFR_RNDN);
  mpfr_sub_ui(m.v, m.v, 1, MPFR_RNDN);
  EXPECT_TRUE(mpfr_equal_p(m.v, e.lo()));
  (void)ex;
  const bin100 y = bin100(2) / 7;
  const Interval Y = Interval::of(y) * Interval(7) - Interval(2);
  EXPECT_TRUE(Interval::of(y).is_point());
  mpfr_set_str(m.v, to_decimal(y, 400).c_str(), 10, MPFR_RNDN);
  mpfr_mul_ui(m.v, m.v, 7, MPFR_RNDN);
  mpfr_sub_ui(m.v, m.v, 2, MPFR_RNDN);
  EXPECT_TRUE(mpfr_equal_p(m.v, Y.lo()));
}

TEST(Interval, ComparisonsAnswerOnlyWhenCertain) {
  ScopedIntervalDigits g(30);
  const Interval third = Interval(1) / Interval(3), one(1), zero(0);
  EXPECT_TRUE(zero < third);
  EXPECT_FALSE(one < third);
  EXPECT_TRUE(third <= one);
  EXPECT_THROW((void)(third < Interval(1) / Interval(3)), Undecided);
  EXPECT_FALSE(third == third);   // not a single number: the general path
  EXPECT_TRUE(zero == Interval(0));
  EXPECT_THROW(one / (third - third), Undecided);  // holds 0
  EXPECT_THROW(sqrt(third - third), Undecided);
  EXPECT_THROW(round(Interval::hull(Interval(0.5).lo(), Interval(0.5).hi()) + third - third), Undecided);
}

TEST(Interval, SineAndCosineAreEnclosedAtAnyArgument) {
  ScopedIntervalDigits g(50);
  for (double th : {1e300, 12345.678, -7e22, 3.141592653589793}) {
    const Interval s = sin(Interval(th)), c = cos(Interval(th));
    EXPECT_TRUE(encloses(s, [&](mpfr_ptr r, mpfr_rnd_t rnd) { mpfr_set_d(r, th, rnd); return mpfr_sin(r, r, rnd); })) << th;
    EXPECT_TRUE(encloses(c, [&](mpfr_ptr r, mpfr_rnd_t rnd) { mpfr_set_d(r, th, rnd); return mpfr_cos(r, r, rnd); })) << th;
    // and tightly: a few units of 50 digits
    Fr w(64);
    mpfr_sub(w.v, s.hi(), s.lo(), MPFR_RNDU);
    EXPECT_LT(mpfr_get_d(w.v, MPFR_RNDU), 1e-48) << th;
  }
}

// ---- The proof of an evaluation ----

// Entries k of the proven quantities where |oracle - value| > radius + the oracle's own error
// (10^-110 of its quantity's scale); "" when none.
std::string escapes(const Evaluation& ev, const Proof& proof, const Evaluation& oracle, const std::vector<std::string>& skip = {}) {
  std::string out;
  std::vector<std::pair<const ProvenQuantity*, int>> all;  // (quantity, section: 0 tree, 1 loops, 2 contacts)
  for (const ProvenQuantity& p : proof.quantities) all.push_back({&p, 0});
  for (const ProvenQuantity& p : proof.loop_quantities) all.push_back({&p, 1});
  for (const ProvenQuantity& p : proof.contact_quantities) all.push_back({&p, 2});
  for (const auto& [pp, sec] : all) {
    const ProvenQuantity& p = *pp;
    if (!p.not_proven.empty() || std::find(skip.begin(), skip.end(), p.name) != skip.end()) continue;
    const Quantity* v = sec == 1 ? ev.find_loop(p.name) : sec == 2 ? ev.find_contact(p.name) : ev.find(p.name);
    const Quantity* o = sec == 1 ? oracle.find_loop(p.name) : sec == 2 ? oracle.find_contact(p.name) : oracle.find(p.name);
    if (!v || !o || o->size() != v->size()) return "oracle or value missing for " + p.name;
    Fr a, b, r, scale;
    mpfr_set_zero(scale.v, 1);
    for (size_t k = 0; k < o->size(); ++k) {
      mpfr_set_str(a.v, o->text(k).c_str(), 10, MPFR_RNDN);
      mpfr_abs(a.v, a.v, MPFR_RNDN);
      mpfr_max(scale.v, scale.v, a.v, MPFR_RNDN);
    }
    // the oracle's error is relative to the terms that make the quantity: its natural scale
    if (!v->scale.empty()) {
      mpfr_set_str(a.v, v->scale.c_str(), 10, MPFR_RNDU);
      mpfr_max(scale.v, scale.v, a.v, MPFR_RNDU);
    }
    mpfr_mul_d(scale.v, scale.v, 1e-110, MPFR_RNDU);
    for (size_t k = 0; k < o->size(); ++k) {
      mpfr_set_str(a.v, o->text(k).c_str(), 10, MPFR_RNDN);
      mpfr_set_str(b.v, v->text(k).c_str(), 10, MPFR_RNDN);
      mpfr_sub(a.v, a.v, b.v, MPFR_RNDN);
      mpfr_abs(a.v, a.v, MPFR_RNDN);
      mpfr_set_str(r.v, p.radius.at(k).c_str(), 10, MPFR_RNDU);
      mpfr_add(r.v, r.v, scale.v, MPFR_RNDU);
      if (mpfr_greater_p(a.v, r.v)) {
        out += p.name + "[" + std::to_string(k) + "] ";
        break;
      }
    }
  }
  return out;
}

struct Bundled {
  const char* file;
  bool floating;
};

class ProofOfBundledTrees : public ::testing::TestWithParam<Bundled> {};

TEST_P(ProofOfBundledTrees, OracleInsideEveryRadiusAndTargetsReached) {
  LoadOptions lo;
  lo.floating_base = GetParam().floating;
  const LoadedModel lm = load_model(std::string(kSourceDir) + "/fixtures/models/" + GetParam().file, lo);
  const Model<double> layout = build_model<double>(lm.desc);
  const Precision p = *Precision::parse("bin50");
  for (std::uint64_t seed : {1, 2}) {
    const StateDesc state = exact_state(random_state(layout, seed));
    const Evaluation ev = evaluate_certified(p, lm.desc, state);
    const Proof proof = prove(ev, lm.desc, state);
    const Evaluation oracle = evaluate(*Precision::parse("mpfr:120"), lm.desc, state);
    EXPECT_EQ(escapes(ev, proof, oracle), "") << GetParam().file << " seed " << seed;
    for (const char* name : {"H", "C", "tau", "qdd", "L", "D", "kinetic_energy", "potential_energy", "momentum"}) {
      const ProvenQuantity* q = proof.find(name);
      ASSERT_NE(q, nullptr) << name;
      ASSERT_EQ(q->not_proven, "") << GetParam().file << " " << name;
      EXPECT_GE(q->digits, 45) << GetParam().file << " " << name;  // the issue's target for H, C, τ, q̈
      // and as sharp as the estimate, up to 2 digits
      EXPECT_GE(q->digits, ev.find(name)->normwise_digits - 2) << GetParam().file << " " << name;
    }
    // A state moved by 1e-40 in its first coordinate: its values escape the radii.
    StateDesc moved = state;
    moved.q[0] = Num::decimal(to_decimal(bin100(moved.q[0].value) + bin100(1) / bin100("1e40"), 60));
    const Evaluation other = evaluate(*Precision::parse("mpfr:120"), lm.desc, moved);
    EXPECT_NE(escapes(ev, proof, other), "") << GetParam().file;
  }
}

INSTANTIATE_TEST_SUITE_P(Interval, ProofOfBundledTrees,
                         ::testing::Values(Bundled{"double_pendulum.json", false}, Bundled{"arm7.json", false},
                                           Bundled{"panda.urdf", false}, Bundled{"far_arm.json", false},
                                           Bundled{"humanoid.json", false}, Bundled{"tiny_inertia.json", false},
                                           Bundled{"all_joints.json", false}, Bundled{"humanoid.urdf", true}),
                         [](const auto& info) {
                           std::string n = info.param.file;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n + (info.param.floating ? "_floating" : "");
                         });

// The bundled closed-loop mechanisms, every DoF actuated (§8.12: over-actuated, u the minimum-norm
// choice): K, k, δ and K q̇ evaluated on intervals; G and g verified given the pivot sequence;
// q̈, λ, τ_c and u verified where the rank decision is proven: K of full row rank (delta3,
// Stewart-Gough), or the dropped rows exactly 0 (the planar loops' out-of-plane rows). Each oracle
// value (mpfr:120; its λ is A⁺b by the λ-first method, a route that shares no step with the
// restricted KKT system) inside its radius,
// 40 digits proven. fig83_arm (its plane tilted by an rpy of 1.5707963267948966) and Bennett's
// linkage are redundant only to within rounding: reported not proven, with the reason.
TEST(ProofOfBundledLoops, RankDecisionProvenWhereDroppedRowsAreExactlyZero) {
  for (const BundledLoop& b : kBundledLoops) {
    const LoadedModel lm = load_bundled(b);
    const StateDesc state = bundled_state(b, lm.desc);
    std::vector<int> all(static_cast<size_t>(b.n));
    for (int i = 0; i < b.n; ++i) all[static_cast<size_t>(i)] = i;
    const Evaluation ev = evaluate_certified(*Precision::parse("bin50"), lm.desc, state, all);
    const Proof proof = prove(ev, lm.desc, state);
    const Evaluation oracle = evaluate(*Precision::parse("mpfr:120"), lm.desc, state, all);
    // G and g are claimed given the pivot sequence: compared where the oracle chose the same one
    // (all but Bennett's, which closes only to 1e-101 and has rank 3 at 120 digits).
    const bool same_pivots = oracle.loops.pivot_rows == ev.loops.pivot_rows && oracle.loops.col_order == ev.loops.col_order;
    EXPECT_EQ(same_pivots, std::string(b.name) != "bennett") << b.name;
    EXPECT_EQ(escapes(ev, proof, oracle, same_pivots ? std::vector<std::string>{} : std::vector<std::string>{"G", "g"}), "")
        << b.name;
    auto find = [&](const std::string& n) -> const ProvenQuantity* {
      for (const ProvenQuantity& p : proof.loop_quantities)
        if (p.name == n) return &p;
      return nullptr;
    };
    for (const char* n : {"K", "k", "delta", "velocity_error", "G", "g"}) {
      ASSERT_NE(find(n), nullptr) << b.name << " " << n;
      ASSERT_EQ(find(n)->not_proven, "") << b.name << " " << n;
      EXPECT_GE(find(n)->digits, 40) << b.name << " " << n;
    }
    const bool tilted = std::string(b.name) == "fig83_arm" || std::string(b.name) == "bennett";
    for (const char* n : {"qdd", "lambda", "tau_c", "u"}) {
      ASSERT_NE(find(n), nullptr) << b.name << " " << n;
      if (!tilted) {
        ASSERT_EQ(find(n)->not_proven, "") << b.name << " " << n;
        EXPECT_GE(find(n)->digits, 40) << b.name << " " << n;
      } else {
        EXPECT_NE(find(n)->not_proven.find("not exactly 0"), std::string::npos) << b.name << " " << n;
      }
    }
  }
}

// Contacts (RBDA ch. 11): a box resting on one corner (a non-degenerate LCP: λ > 0) has T, Ṫᵀq̇, φ,
// ζ evaluated, M, d, q̈_free verified, and λ, ζ̇, q̈, τ_c verified from Lemke's basis, each oracle
// value inside its radius and 40 digits proven; on four corners the basis is degenerate (λ is not
// unique, a basic λ is 0): the solution is reported not proven, never proven.
TEST(ProofOfContacts, LcpBasisVerifiedWhereNotDegenerate) {
  const std::string dir = std::string(kSourceDir) + "/fixtures/models/contacts/";
  for (const bool one_corner : {true, false}) {
    const std::string contacts = (std::filesystem::temp_directory_path() /
                                  ("rbdref_interval_contacts_" + std::to_string(::getpid()) + ".json")).string();
    {
      std::ofstream out(contacts);
      if (one_corner)
        out << R"({"contacts": [{"name": "corner_pp", "link": "box", "point": ["0.3", "0.2", "-0.1"], "normal": [0, 0, 1]}]})";
      else
        out << read_text_file(dir + "box_on_ground.contacts.json");
    }
    LoadOptions lo;
    lo.floating_base = true;
    lo.contacts_file = contacts;
    const LoadedModel lm = load_model(dir + "box.urdf", lo);
    std::filesystem::remove(contacts);
    const StateDesc state = read_state(read_json_file(dir + "box_at_rest.state.json"), "state", model_layout(lm.desc));
    const Evaluation ev = evaluate_certified(*Precision::parse("bin50"), lm.desc, state);
    const Proof proof = prove(ev, lm.desc, state);
    const Evaluation oracle = evaluate(*Precision::parse("mpfr:120"), lm.desc, state);
    EXPECT_EQ(escapes(ev, proof, oracle), "") << one_corner;
    auto find = [&](const std::string& n) -> const ProvenQuantity* {
      for (const ProvenQuantity& p : proof.contact_quantities)
        if (p.name == n) return &p;
      return nullptr;
    };
    for (const char* n : {"T", "Tdot_qd", "phi", "zeta", "M", "d", "qdd_free", "lambda", "zeta_dot", "qdd", "tau_c"}) {
      ASSERT_NE(find(n), nullptr) << n;
      const bool solution = std::string(n) == "lambda" || std::string(n) == "zeta_dot" || std::string(n) == "qdd" || std::string(n) == "tau_c";
      if (one_corner || !solution) {
        ASSERT_EQ(find(n)->not_proven, "") << one_corner << " " << n;
        EXPECT_GE(find(n)->digits, 40) << n;
      } else {
        EXPECT_NE(find(n)->not_proven, "") << n;
        EXPECT_TRUE(find(n)->radius.empty()) << n;
      }
    }
  }
}

// Soft contacts (§11.8) and the impulsive step (§11.7) on the box: the soft forces evaluated and
// q̈ verified with them (box sliding on a compliant floor, every contact slipping); the impulse of
// a corner falling onto the floor, frictionless (the impulsive LCP at a one-contact basis) and
// sticking (eq. 11.72, μ given), every quantity 40 digits proven and each oracle value (mpfr:120)
// inside its radius; four corners falling is a degenerate basis (a corner whose w is 0 in exact
// arithmetic): reported not proven, never proven.
TEST(ProofOfContacts, SoftForcesAndImpulsiveStep) {
  const std::string dir = std::string(kSourceDir) + "/fixtures/models/contacts/";
  const std::string corner = R"({"name": "corner_pp", "link": "box", "point": ["0.3", "0.2", "-0.1"], "normal": [0, 0, 1], "restitution": "0.5")";
  struct Case {
    std::string name, contacts, state;
    bool impact, degenerate;
  };
  const std::vector<Case> cases = {
      {"soft sliding", read_text_file(dir + "box_on_soft_ground.contacts.json"), "box_sliding", false, false},
      {"corner falling", R"({"contacts": [)" + corner + "}]}", "box_falling", true, false},
      {"corner falling, sticking", R"({"contacts": [)" + corner + R"(, "friction": "0.8"}]})", "box_falling", true, false},
      {"four corners falling", read_text_file(dir + "box_on_ground_elastic.contacts.json"), "box_falling", true, true},
  };
  for (const Case& c : cases) {
    const std::string contacts = (std::filesystem::temp_directory_path() /
                                  ("rbdref_interval_soft_" + std::to_string(::getpid()) + ".json")).string();
    {
      std::ofstream out(contacts);
      out << c.contacts;
    }
    LoadOptions lo;
    lo.floating_base = true;
    lo.contacts_file = contacts;
    const LoadedModel lm = load_model(dir + "box.urdf", lo);
    std::filesystem::remove(contacts);
    const StateDesc state = read_state(read_json_file(dir + c.state + ".state.json"), "state", model_layout(lm.desc));
    const Evaluation ev = evaluate_certified(*Precision::parse("bin50"), lm.desc, state, {}, c.impact);
    const Proof proof = prove(ev, lm.desc, state);
    const Evaluation oracle = evaluate(*Precision::parse("mpfr:120"), lm.desc, state, {}, c.impact);
    EXPECT_EQ(escapes(ev, proof, oracle), "") << c.name;
    std::vector<std::string> names;
    if (c.impact)
      names = {"impact.zeta_minus", "impact.tangential_minus", "impact.kinetic_minus", "impact.lambda", "impact.u",
               "impact.dqd", "impact.qd_plus", "impact.zeta_plus", "impact.tangential_plus", "impact.kinetic_plus"};
    else
      names = {"soft.z", "soft.fn", "soft.ft", "soft.f_stick", "soft.zdot", "soft.xdot", "soft.dissipation",
               "soft.tau_soft", "qdd_free", "qdd", "tau_c"};
    int checked = 0;
    for (const std::string& n : names) {
      const ProvenQuantity* p = nullptr;
      for (const ProvenQuantity& x : proof.contact_quantities)
        if (x.name == n) p = &x;
      ASSERT_NE(p, nullptr) << c.name << " " << n;
      const bool step = c.impact && n.find("minus") == std::string::npos;
      if (c.degenerate && step) {
        EXPECT_NE(p->not_proven.find("degenerate"), std::string::npos) << c.name << " " << n << ": " << p->not_proven;
        EXPECT_TRUE(p->radius.empty()) << c.name << " " << n;
      } else {
        ASSERT_EQ(p->not_proven, "") << c.name << " " << n;
        EXPECT_GE(p->digits, 40) << c.name << " " << n;
      }
      ++checked;
    }
    EXPECT_EQ(checked, static_cast<int>(names.size()));
  }
}

// A closed form, independent of every library route: a pendulum hinged about y with its COM at
// (l, 0, 0) of its frame, gravity (0, 0, -g). R_y(θ) takes the COM to (l cos θ, 0, -l sin θ), so
// V = -m g l sin θ and, with H = Iyy + m l² (Iyy about the COM),
//     C = ∂V/∂θ = -m g l cos θ,   τ = H q̈ + C,   q̈ = (τ - C) / H,   T = ½ H q̇².
// Every parameter is decimal text (0.1 is no binary number): the closed form is computed in MPFR at
// 2000 bits from the same text, and every value must lie within its radius of it.
TEST(ProofOfClosedForm, PendulumFromDecimalText) {
  BodyDesc b;
  b.name = "link";
  b.where = "bodies[0]";
  b.joint.type = JointType::Revolute;
  b.joint.axis = {Num::exact(0), Num::exact(1), Num::exact(0)};
  b.inertial.mass = Num::decimal("1.7");
  b.inertial.com = {Num::decimal("0.35"), Num::exact(0), Num::exact(0)};
  b.inertial.I = {Num::decimal("0.03"), Num::decimal("0.021"), Num::decimal("0.011"), Num::exact(0), Num::exact(0), Num::exact(0)};
  ModelDesc d;
  d.bodies = {b};
  StateDesc state;
  state.q = {Num::decimal("0.7")};
  state.qd = {Num::decimal("-1.3")};
  state.qdd = {Num::decimal("0.4")};
  state.tau = {Num::decimal("2.5")};
  const Evaluation ev = evaluate_certified(*Precision::parse("bin50"), d, state);
  const Proof proof = prove(ev, d, state);
  Fr m, l, I, g, th, qd, qdd, tau, H, C, t;
  mpfr_set_str(m.v, "1.7", 10, MPFR_RNDN);
  mpfr_set_str(l.v, "0.35", 10, MPFR_RNDN);
  mpfr_set_str(I.v, "0.021", 10, MPFR_RNDN);
  mpfr_set_str(g.v, "9.81", 10, MPFR_RNDN);
  mpfr_set_str(th.v, "0.7", 10, MPFR_RNDN);
  mpfr_set_str(qd.v, "-1.3", 10, MPFR_RNDN);
  mpfr_set_str(qdd.v, "0.4", 10, MPFR_RNDN);
  mpfr_set_str(tau.v, "2.5", 10, MPFR_RNDN);
  mpfr_mul(H.v, l.v, l.v, MPFR_RNDN);
  mpfr_mul(H.v, H.v, m.v, MPFR_RNDN);
  mpfr_add(H.v, H.v, I.v, MPFR_RNDN);  // H = Iyy + m l²
  mpfr_cos(C.v, th.v, MPFR_RNDN);
  mpfr_mul(C.v, C.v, m.v, MPFR_RNDN);
  mpfr_mul(C.v, C.v, g.v, MPFR_RNDN);
  mpfr_mul(C.v, C.v, l.v, MPFR_RNDN);
  mpfr_neg(C.v, C.v, MPFR_RNDN);  // C = -m g l cos θ
  auto within = [&](const char* name, mpfr_srcptr exact) {
    const ProvenQuantity* p = proof.find(name);
    const Quantity* v = ev.find(name);
    if (!p || !v || !p->not_proven.empty()) return false;
    Fr x, r;
    mpfr_set_str(x.v, v->text(0).c_str(), 10, MPFR_RNDN);
    mpfr_sub(x.v, x.v, exact, MPFR_RNDN);
    mpfr_abs(x.v, x.v, MPFR_RNDN);
    mpfr_set_str(r.v, p->radius.at(0).c_str(), 10, MPFR_RNDU);
    return mpfr_lessequal_p(x.v, r.v) && p->digits >= 48;
  };
  EXPECT_TRUE(within("H", H.v));
  EXPECT_TRUE(within("C", C.v));
  mpfr_mul(t.v, H.v, qdd.v, MPFR_RNDN);
  mpfr_add(t.v, t.v, C.v, MPFR_RNDN);
  EXPECT_TRUE(within("tau", t.v));
  mpfr_sub(t.v, tau.v, C.v, MPFR_RNDN);
  mpfr_div(t.v, t.v, H.v, MPFR_RNDN);
  EXPECT_TRUE(within("qdd", t.v));
  mpfr_mul(t.v, qd.v, qd.v, MPFR_RNDN);
  mpfr_mul(t.v, t.v, H.v, MPFR_RNDN);
  mpfr_div_ui(t.v, t.v, 2, MPFR_RNDN);
  EXPECT_TRUE(within("kinetic_energy", t.v));
  // and a closed form of another pendulum (COM at 0.36) escapes: the check can fail
  mpfr_set_str(l.v, "0.36", 10, MPFR_RNDN);
  mpfr_mul(t.v, l.v, l.v, MPFR_RNDN);
  mpfr_mul(t.v, t.v, m.v, MPFR_RNDN);
  mpfr_add(t.v, t.v, I.v, MPFR_RNDN);
  EXPECT_FALSE(within("H", t.v));
}

// q = 1e300 (an exact double): no precision's ordinary reduction is exact there, but MPFR's and
// MPFI's are; the evaluation's values are right and the proof says so, against the oracle.
TEST(ProofOfHugeAngles, AngleOf1e300IsProvenNotRefused) {
  const LoadedModel lm = load_model(std::string(kSourceDir) + "/fixtures/models/double_pendulum.json", LoadOptions());
  StateDesc state;
  state.q = {Num::exact(1e300), Num::exact(-3e299)};
  state.qd = {Num::exact(1.25), Num::exact(-0.5)};
  state.qdd = {Num::exact(0.25), Num::exact(2)};
  state.tau = {Num::exact(1), Num::exact(-1)};
  const Evaluation ev = evaluate_certified(*Precision::parse("bin50"), lm.desc, state);
  const Proof proof = prove(ev, lm.desc, state);
  const Evaluation oracle = evaluate(*Precision::parse("mpfr:120"), lm.desc, state);
  EXPECT_EQ(escapes(ev, proof, oracle), "");
  for (const char* name : {"H", "C", "tau", "qdd"}) {
    ASSERT_EQ(proof.find(name)->not_proven, "") << name;
    EXPECT_GE(proof.find(name)->digits, 45) << name;
  }
  // bin50's own sine there is MPFR's, within 2 units of 10^-50 of the exact one
  bin50 s, c;
  sin_cos(bin50(1e300), s, c);
  Fr exact, mine;
  mpfr_set_d(exact.v, 1e300, MPFR_RNDN);
  mpfr_sin(exact.v, exact.v, MPFR_RNDN);
  mpfr_set_str(mine.v, to_decimal(s, 60).c_str(), 10, MPFR_RNDN);
  mpfr_sub(mine.v, mine.v, exact.v, MPFR_RNDN);
  EXPECT_LT(std::abs(mpfr_get_d(mine.v, MPFR_RNDN)), 2 * static_cast<double>(std::numeric_limits<bin50>::epsilon()));
}

TEST(ProofOfDegenerateH, SingularHProvesNoAccelerationAndNoFactor) {
  const ModelDesc d = massless_prismatic_leaf();
  const Model<double> layout = build_model<double>(d);
  const StateDesc state = exact_state(random_state(layout, 3));
  const Evaluation ev = evaluate_certified(*Precision::parse("bin50"), d, state);
  const Proof proof = prove(ev, d, state);
  for (const char* name : {"qdd", "L", "D"}) {
    const ProvenQuantity* q = proof.find(name);
    EXPECT_TRUE(q == nullptr || !q->not_proven.empty()) << name;
  }
  ASSERT_NE(proof.find("H"), nullptr);
  EXPECT_EQ(proof.find("H")->not_proven, "");
}

// The same 1e-40 of a true value, planted in a reported value: the radius no longer covers it
// when the radius is computed for the true value, and proven_quantity measures from the reported
// text (its claim is about the text): a value moved by 10 radii gets a radius 10 times larger.
TEST(ProofRadius, IsMeasuredFromTheReportedText) {
  ScopedIntervalDigits g(60);
  Quantity q;
  q.name = "x";
  q.rows = 2;
  q.values = {"1", "0.5"};
  const std::vector<Interval> enc = {Interval(1), from_decimal<Interval>("0.5000000000000000000000000000000000000000001")};
  const ProvenQuantity p = proven_quantity(q, enc, 50);
  EXPECT_EQ(p.radius[0], "0");
  EXPECT_EQ(p.entry_digits[0], 50);
  EXPECT_EQ(p.radius[1], "1.01e-43");  // 1e-43 and the enclosure's width, rounded up
  EXPECT_EQ(p.entry_digits[1], 42);
  EXPECT_EQ(p.digits, 42);
}

}  // namespace
}  // namespace rbd::test
