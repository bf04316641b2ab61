// Certified digits cannot claim more than the values have (docs/certified-digits.md). A value's
// certified digits are its agreement with the same evaluation at the check precision
// (Precision::check()); here the same values are measured against a third evaluation that shares
// nothing with that choice: MPFR at 500 digits, wider than every check precision. certify() on
// that pair gives the digits the values really have (the same rule: error over max(|x*|, the
// quantity's floor)); the certified ones must never exceed them, entry by entry and norm-wise, at
// every precision, on well- and ill-conditioned states: the double pendulum folded back on itself
// (q = (1e-9, 3.14159265), where double keeps 7 digits of C), an arm far from its base,
// a chain with a mass ratio of 1e6, and the humanoid on a floating base.
// Planted: Precision::check() returning the working precision itself for double and long double
// (every value then agrees with itself, 15 digits claimed of C where 7 are there): fails here.
#include "certify/evaluate.hpp"
#include "checks/random_model.hpp"
#include "io/model_io.hpp"
#include "tests/test_paths.hpp"
#include "tests/tree_cases.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace rbd::test {
namespace {

std::string src(const std::string& rel) { return std::string(::rbd::test::kSourceDir) + "/" + rel; }

struct Case {
  std::string what;
  LoadedModel lm;
  StateDesc state;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  {
    Case c{"double pendulum folded", load_model(src("fixtures/models/double_pendulum.urdf")), {}};
    c.state.q = {Num::decimal("1e-9"), Num::decimal("3.14159265")};
    c.state.qd = {Num::decimal("0.3"), Num::decimal("-0.7")};
    c.state.qdd = {Num::decimal("1"), Num::decimal("-1")};
    c.state.tau = {Num::decimal("0.1"), Num::decimal("0.2")};
    out.push_back(c);
  }
  LoadOptions fb;
  fb.floating_base = true;
  const std::pair<const char*, LoadOptions> models[] = {
      {"far_arm.json", LoadOptions()}, {"tiny_inertia.json", LoadOptions()}, {"humanoid.urdf", fb}};
  for (const auto& [file, options] : models) {
    Case c{file, load_model(src(std::string("fixtures/models/") + file), options), {}};
    c.state = exact_state(random_state(model_layout(c.lm.desc), 7, 2.0));
    out.push_back(c);
  }
  return out;
}

TEST(CertifiedDigits, NeverExceedWhatAWiderIndependentEvaluationMeasures) {
  const Precision wide = *Precision::parse("mpfr:500");
  int below_cap = 0, compared = 0;
  for (const Case& c : cases()) {
    const Evaluation reference = evaluate(wide, c.lm.desc, c.state, {}, false, EvaluationText::RawOnly);
    for (const char* name : {"double", "longdouble", "float128", "bin50", "bin100", "mpfr:60"}) {
      const Precision p = *Precision::parse(name);
      SCOPED_TRACE(c.what + " at " + name);
      const Evaluation claimed = evaluate_certified(p, c.lm.desc, c.state, {}, false, false, EvaluationText::Deferred);
      Evaluation measured = evaluate(p, c.lm.desc, c.state, {}, false, EvaluationText::Deferred);
      certify(measured, reference);
      ASSERT_EQ(claimed.quantities.size(), measured.quantities.size());
      for (size_t i = 0; i < claimed.quantities.size(); ++i) {
        const Quantity &a = claimed.quantities[i], &b = measured.quantities[i];
        ASSERT_EQ(a.name, b.name);
        ASSERT_EQ(a.digits.size(), b.digits.size()) << a.name;
        for (size_t k = 0; k < a.digits.size(); ++k) {
          // One digit of slack: the two floors round the same error on either side of a power of ten.
          EXPECT_LE(a.digits[k], b.digits[k] + 1) << a.name << "[" << k << "] claims " << a.digits[k] << ", has " << b.digits[k];
          ++compared;
        }
        EXPECT_LE(a.normwise_digits, b.normwise_digits + 1) << a.name << " norm-wise";
        if (name == std::string("double") && c.what == "double pendulum folded" && a.name == "C") below_cap += a.min_digits() <= 10;
      }
    }
  }
  EXPECT_GT(compared, 1000);
  // The folded pendulum is the ill-conditioned case the check must see through: at double, C
  // keeps 7 digits (its entries cancel), and that is what is certified.
  EXPECT_EQ(below_cap, 1);
}

}  // namespace
}  // namespace rbd::test
