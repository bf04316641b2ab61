// The fuzz targets' committed inputs, replayed through the fuzz harness (fuzz/harness.hpp) on every
// test run, with or without libFuzzer: the seeds (fuzz/corpus/<target>/) and the reproducers of
// past findings (fuzz/regressions/<target>/) must each be read or rejected with an InputError.
// A reproducer file is named after the finding it reproduces (docs/fuzzing.md).
#include "fuzz/harness.hpp"
#include "io/io_util.hpp"
#include "io/model_io.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

namespace rbd::test {
namespace {

namespace fs = std::filesystem;
const fs::path kFuzz = fs::path(RBDREF_SOURCE_DIR) / "fuzz";

std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> out;
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_regular_file()) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

class FuzzCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(FuzzCorpus, EveryCommittedInputIsReadOrRejectedWithAnInputError) {
  const fuzz::Target* t = fuzz::find_target(GetParam());
  ASSERT_NE(t, nullptr);
  const std::vector<fs::path> seeds = files_in(kFuzz / "corpus" / t->name);
  EXPECT_GE(seeds.size(), 3u) << "seed corpus fuzz/corpus/" << t->name << " is missing or nearly empty";
  std::vector<fs::path> inputs = seeds;
  for (const fs::path& p : files_in(kFuzz / "regressions" / t->name)) inputs.push_back(p);
  for (const fs::path& p : inputs) EXPECT_EQ(fuzz::finding(*t, read_text_file(p.string())), "") << p;
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzCorpus,
                         ::testing::Values("urdf", "model_json", "state", "fixture", "engine_output"),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

// The state target's model is a valid model with one joint of every type (nq = 19, nv = 17).
TEST(FuzzHarness, StateModelHasEveryJointType) {
  const ModelDesc d = read_model_json(json::parse(fuzz::state_model_json()), "state_model");
  const Model<double> m = build_model<double>(d);
  EXPECT_EQ(m.nq, 19);
  EXPECT_EQ(m.nv, 17);
  EXPECT_EQ(m.NB, 7);
}

}  // namespace
}  // namespace rbd::test
