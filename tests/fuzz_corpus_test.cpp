// The fuzz targets' committed inputs, replayed through the fuzz harness (fuzz/harness.hpp) on every
// test run, with or without libFuzzer: the seeds (fuzz/corpus/<target>/) and the reproducers of
// past findings (fuzz/regressions/<target>/) must each be read or rejected with an InputError.
// A reproducer file is named after the finding it reproduces (docs/fuzzing.md).
#include "fuzz/harness.hpp"
#include "tests/test_paths.hpp"
#include "io/io_util.hpp"
#include "io/model_io.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

namespace rbd::test {
namespace {

namespace fs = std::filesystem;
const fs::path kFuzz = fs::path(::rbd::test::kSourceDir) / "fuzz";

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
                         ::testing::Values("urdf", "model_json", "mjcf", "state", "fixture", "engine_output"),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

// A JSON document nested 200 000 levels deep is an InputError for every JSON reader: nlohmann's
// dump() (the message about a wrong version) and copies (an engine output's model_echo and raw)
// recursed once per level and overflowed the stack.
TEST(FuzzHarness, DeeplyNestedJsonIsAnInputError) {
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  const std::string engine = R"({"format": "rbdref.engine_output", "version": 1,
    "engine": {"name": "e", "version": "1", "scalar": "double"}, "model": {"name": "m", "sha256": "0"},
    "model_echo": )" + deep + R"(, "dofs": ["a"],
    "samples": [{"id": "s", "inputs": {"q": [0], "qd": [0], "qdd": [0], "tau": [0]}, "C": [1]}]})";
  const std::pair<const char*, std::string> inputs[] = {
      {"model_json", R"({"format": "rbdref.model", "version": )" + deep + "}"},
      {"state", R"({"q": )" + deep + "}"},
      {"fixture", R"({"format": "rbdref.fixture", "version": )" + deep + "}"},
      {"engine_output", R"({"format": "rbdref.engine_output", "version": )" + deep + "}"},
      {"engine_output", engine}};
  for (const auto& [target, text] : inputs) EXPECT_EQ(fuzz::finding(*fuzz::find_target(target), text), "") << target;
}

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
