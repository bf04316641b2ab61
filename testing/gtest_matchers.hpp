// GoogleTest matchers for an engine's own test suite: an engine's H, C, τ, q̈, L, D (or a loop or
// contact quantity) at a fixture's sample agrees with rbdref's reference, scored exactly as
// `rbdref compare` scores it (reports/compare.hpp: relative to the quantity's scale, capped at the
// reference's certified or proven digits), with a failure message that names the worst entry.
//
//   #include <rbdref/testing/gtest_matchers.hpp>
//   const rbd::Fixture fx = rbd::read_fixture_file("panda.fixture.json.gz");
//   for (const rbd::Sample& s : fx.samples) {
//     my_engine.set_state(s.q, s.qd);
//     EXPECT_THAT(my_engine.mass_matrix(), rbd::testing::AgreesWith(fx, s.id, "H", 12));   // ≥ 12 digits
//     EXPECT_THAT(my_engine.bias(), rbd::testing::WithinTolerance(fx, s.id, "C"));         // compare's rule
//   }
//
// Values: an Eigen dense matrix or vector (any storage order; read by (row, col)), or any range of
// numbers convertible to double (std::vector<double>, std::array, a row-major flat range for a
// matrix). The engine's scalar is double unless given (`scalar`: "float", "longdouble", ...), which
// sets the tolerance of WithinTolerance. A value of the wrong size, an unknown sample or quantity,
// or a non-finite entry does not match, and the message says which.
#pragma once

#include "reports/compare.hpp"

#include <gmock/gmock.h>

#include <cmath>
#include <cstdio>
#include <iterator>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace rbd::testing {

namespace detail {

template <class T, class = void>
struct IsMatrixLike : std::false_type {};
template <class T>
struct IsMatrixLike<T, std::void_t<decltype(std::declval<const T&>().rows()), decltype(std::declval<const T&>().cols()),
                                   decltype(std::declval<const T&>()(0, 0))>> : std::true_type {};

// Row-major entries of a matrix-like value, or the entries of a range, as doubles.
template <class V>
std::vector<double> entries(const V& v) {
  std::vector<double> out;
  if constexpr (IsMatrixLike<V>::value) {
    for (decltype(v.rows()) i = 0; i < v.rows(); ++i)
      for (decltype(v.cols()) j = 0; j < v.cols(); ++j) out.push_back(static_cast<double>(v(i, j)));
  } else {
    for (const auto& x : v) out.push_back(static_cast<double>(x));
  }
  return out;
}

inline std::string number(double x) {
  char b[40];
  std::snprintf(b, sizeof b, "%.3g", x);
  return b;
}

}  // namespace detail

// Matches when the value scores at least `digits` (compare's digits, see above), or, with
// digits < 0, when it is within compare's tolerance for the engine's scalar.
class AgreesWithMatcher {
 public:
  using is_gtest_matcher = void;
  AgreesWithMatcher(const Fixture& f, std::string sample, std::string quantity, double digits, std::string scalar)
      : f_(&f), sample_(std::move(sample)), quantity_(std::move(quantity)), digits_(digits), scalar_(std::move(scalar)) {}

  template <class V>
  bool MatchAndExplain(const V& value, std::ostream* os) const {
    SampleScore sc;
    try {
      sc = score_quantity(*f_, sample_, quantity_, detail::entries(value), scalar_, "the engine's " + quantity_);
    } catch (const std::exception& e) {  // InputError: the value cannot be scored (size, sample, NaN)
      if (os) *os << e.what();
      return false;
    }
    const bool ok = digits_ >= 0 ? sc.digits >= digits_ : sc.passed;
    if (os) {
      *os << quantity_ << " of sample " << sample_ << " agrees to " << detail::number(sc.digits) << " digits (the reference holds "
          << detail::number(sc.cap) << (sc.proven ? ", proven" : ", certified") << "); ";
      if (digits_ >= 0) *os << "wanted " << detail::number(digits_) << "; ";
      else *os << "relative error " << detail::number(sc.rel_err) << " against tolerance " << detail::number(sc.tolerance) << "; ";
      *os << "worst entry (" << sc.worst_row << ", " << sc.worst_col << "): engine " << sc.engine << ", reference " << sc.reference
          << ", |difference| " << detail::number(sc.abs_err) << " of scale " << detail::number(sc.scale);
    }
    return ok;
  }
  void DescribeTo(std::ostream* os) const {
    *os << "agrees with the reference " << quantity_ << " of sample " << sample_;
    if (digits_ >= 0) *os << " to at least " << detail::number(digits_) << " digits";
    else *os << " within compare's tolerance for a " << scalar_ << " engine";
  }
  void DescribeNegationTo(std::ostream* os) const {
    *os << "does not ";
    DescribeTo(os);
  }

 private:
  const Fixture* f_;  // the fixture outlives the matcher (as in EXPECT_THAT's statement)
  std::string sample_, quantity_;
  double digits_;
  std::string scalar_;
};

// At least `digits` correct digits, compare's way (-log10 of max|x - x*| over the quantity's scale).
inline AgreesWithMatcher AgreesWith(const Fixture& f, const std::string& sample, const std::string& quantity, double digits,
                                    const std::string& scalar = "double") {
  return AgreesWithMatcher(f, sample, quantity, digits, scalar);
}

// Within compare's tolerance for an engine of that scalar (k ε, k ε κ(H), ...; reports/compare.hpp).
inline AgreesWithMatcher WithinTolerance(const Fixture& f, const std::string& sample, const std::string& quantity,
                                         const std::string& scalar = "double") {
  return AgreesWithMatcher(f, sample, quantity, -1, scalar);
}

}  // namespace rbd::testing
