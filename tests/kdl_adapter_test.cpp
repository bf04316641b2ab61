// Orocos KDL as an audited engine (engines/kdl): every bundled fixed-base tree within tolerance with
// the echo matching (H from ChainDynParam, q̈ from ChainFdSolver_RNE on the chains); a branched
// fixed-base tree (the corpus's hand: H from TreeIdSolver_RNE columns, no q̈); a floating base and
// loop joints refused with the joint named.
#include "engines/kdl/kdl_adapter.hpp"
#include "tests/test_paths.hpp"
#include "reports/compare.hpp"
#include "tests/adapter_test_util.hpp"

#include <gtest/gtest.h>

#include <set>

namespace rbd::test {
namespace {

void expect_within_tolerance(const Fixture& f, const std::string& file, const std::set<std::string>& expected) {
  EngineOutput e;
  ASSERT_NO_FATAL_FAILURE(run_matching(*make_kdl_adapter(), f, file, &e));
  const Report r = compare_in_memory(f, file, e);
  std::set<std::string> scored;
  for (const QuantityScore& q : r.quantities) {
    if (q.samples == 0) continue;
    scored.insert(q.quantity);
    EXPECT_TRUE(q.passed) << file << " " << q.quantity << " " << q.min_digits << " digits, worst " << q.worst_sample;
    EXPECT_GT(q.min_digits, 12.0) << file << " " << q.quantity;
  }
  EXPECT_EQ(scored, expected) << file;
  for (const SampleCheck& c : r.checks) EXPECT_TRUE(c.result.passed) << c.sample << " " << c.result.name << " " << c.result.message();
}

TEST(KdlAdapter, BundledChainsMatchTheGoldenFixtures) {
  for (const char* model : {"double_pendulum", "panda", "arm7", "far_arm", "tiny_inertia", "pendulum_contacts"}) {
    const std::string file = golden_file(model);
    expect_within_tolerance(read_fixture_file(file), file, {"H", "C", "tau", "qdd"});
  }
}

TEST(KdlAdapter, BranchedTreeFromTheCorpus) {
  const LoadedModel lm = load_model(std::string(::rbd::test::kSourceDir) + "/tests/data/urdf_corpus/dexterous_hand.urdf");
  const Fixture f = make_fixture(lm, 3, 5, bin50p());
  expect_within_tolerance(f, "dexterous_hand (made in memory)", {"H", "C", "tau"});
}

TEST(KdlAdapter, RefusesFloatingBasesAndLoops) {
  const auto a = make_kdl_adapter();
  const std::string h = a->unsupported(read_fixture_file(golden_file("humanoid")));
  EXPECT_NE(h.find("joint 'pelvis_free'"), std::string::npos) << h;
  EXPECT_NE(h.find("no floating base"), std::string::npos) << h;
  const std::string p = a->unsupported(read_fixture_file(golden_file("parallelogram")));
  EXPECT_NE(p.find("loop joint 'closure'"), std::string::npos) << p;
}

}  // namespace
}  // namespace rbd::test
