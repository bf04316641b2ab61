// An engine's test suite using rbdref's installed package: the fixture read with the library, the
// engine's H and C checked with the GoogleTest matchers, and the library's own reference (CRBA at
// double, from librbdref.so) called like any other C++ API.
#include "pendulum_engine.hpp"

#include <rbdref/testing/gtest_matchers.hpp>

#include "reference/tree/crba.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using rbd::testing::AgreesWith;
using rbd::testing::WithinTolerance;

const rbd::Fixture& fixture() {
  static const rbd::Fixture fx = rbd::read_fixture_file(FIXTURE_FILE);
  return fx;
}

Eigen::Vector2d vec(const std::vector<double>& v) { return {v.at(0), v.at(1)}; }

TEST(Pendulum, AgreesWithFixture) {
  ASSERT_EQ(fixture().samples.size(), 6u);
  for (const rbd::Sample& s : fixture().samples) {
    EXPECT_THAT(my_engine::mass_matrix(vec(s.q)), AgreesWith(fixture(), s.id, "H", 14));
    EXPECT_THAT(my_engine::bias(vec(s.q), vec(s.qd)), WithinTolerance(fixture(), s.id, "C"));
  }
}

TEST(Pendulum, MatcherNamesThePlantedError) {
  const rbd::Sample& s = fixture().samples.at(2);
  Eigen::Matrix2d H = my_engine::mass_matrix(vec(s.q));
  H(1, 0) *= 1 + 1e-9;  // one entry off in its ninth digit
  ::testing::StringMatchResultListener why;
  EXPECT_FALSE(::testing::ExplainMatchResult(AgreesWith(fixture(), s.id, "H", 12), H, &why));
  EXPECT_THAT(why.str(), ::testing::HasSubstr("worst entry (1, 0)"));
  EXPECT_THAT(why.str(), ::testing::HasSubstr("wanted 12"));
  // A value of the wrong size does not match, and says why.
  ::testing::StringMatchResultListener size;
  EXPECT_FALSE(::testing::ExplainMatchResult(AgreesWith(fixture(), s.id, "H", 12), Eigen::Vector3d(1, 2, 3), &size));
  EXPECT_THAT(size.str(), ::testing::HasSubstr("expected nv x nv"));
}

TEST(Pendulum, LibraryReferenceAtDouble) {
  // rbdref's CRBA at double, instantiated in librbdref.so: the engine's H and the library's agree.
  const rbd::Model<double> model = rbd::build_model<double>(fixture().model);
  for (const rbd::Sample& s : fixture().samples) {
    Eigen::VectorXd q(2);
    q << s.q[0], s.q[1];
    const Eigen::MatrixXd H = rbd::crba(model, q);
    EXPECT_THAT(H, AgreesWith(fixture(), s.id, "H", 14));
  }
}

}  // namespace
