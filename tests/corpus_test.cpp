// Robot descriptions in the styles of published ones (tests/data/urdf_corpus, README there): each
// file goes through the real `rbdref` command with the options of its table entry. A model that
// loads must load with the stated nq and nv and exactly the stated warnings (every warning
// matched by one entry, every entry by one warning), evaluate on a zero state (exit 0) and, where
// marked, make a fixture of two samples; a model that is refused must be refused by every
// command that loads models, with exit status 2, the stated message and no file written. Every
// file of the folder must have an entry.
#include "fixtures/fixture.hpp"
#include "tests/test_paths.hpp"
#include "tests/cli_run.hpp"
#include "tests/corpus_warnings.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace rbd::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kCorpus = std::string(::rbd::test::kSourceDir) + "/tests/data/urdf_corpus";

struct Entry {
  std::string file;
  std::vector<std::string> options;  // --floating-base, --inertia strict
  // Loads: nq, nv and the exact warnings (nv > 0).
  int nq = 0, nv = 0;
  std::vector<Warning> warnings;
  std::vector<std::string> dofs;  // when given: the dof names in order
  bool fixture = false;           // also `rbdref fixture --samples 2`
  // Refused: parts of the message (exit status 2; the file name is always required).
  std::vector<std::string> error;
};

Warning mimic(const std::string& joint, int line, const std::string& leader) {
  return {"joint '" + joint + "' (line " + std::to_string(line) + ") <mimic joint=\"" + leader + "\">: ignored",
          "independent degree of freedom"};
}
const Warning kGazebo1{"ignored 1 <gazebo> element (actuation and simulator settings"};
const Warning kGazebo3{"ignored 3 <gazebo> elements (actuation and simulator settings"};

const std::vector<Entry>& table() {
  static const std::vector<Entry> t = [] {
    std::vector<Entry> v;
    auto loads = [&](std::string file, std::vector<std::string> opt, int nq, int nv, std::vector<Warning> w,
                     bool fixture = false) {
      Entry e;
      e.file = std::move(file);
      e.options = std::move(opt);
      e.nq = nq;
      e.nv = nv;
      e.warnings = std::move(w);
      e.fixture = fixture;
      v.push_back(e);
      return &v.back();
    };
    auto refused = [&](std::string file, std::vector<std::string> opt, std::vector<std::string> msg) {
      Entry e;
      e.file = std::move(file);
      e.options = std::move(opt);
      e.error = std::move(msg);
      v.push_back(e);
    };
    loads("ur_style_arm.urdf", {}, 6, 6, {kGazebo1, {"ignored 6 <transmission> elements (actuation and simulator settings"}});
    loads("franka_style_arm_hand.urdf", {}, 9, 9, {mimic("panda_finger_joint2", 193, "panda_finger_joint1")}, true);
    loads("iiwa_style_arm.urdf", {}, 7, 7, {kGazebo3});
    // The `base` placeholder with 1e-6 in all six entries (moments 3e-6, 0, 0) is within the
    // rounding of one significant digit: no inertia warning.
    loads("unitree_style_quadruped.urdf", {"--floating-base"}, 19, 18,
          {kGazebo3, {"ignored 12 <transmission> elements"}}, true);
    const Warning face_front{"non_physical_link: link 'face_front' <inertial> (line 41): ", "triangle inequality",
                             "the body 'base' it is merged into (what the dynamics sees) is physical"};
    loads("anymal_style_quadruped.urdf", {"--floating-base"}, 19, 18, {face_front});
    loads("anymal_style_quadruped.urdf", {"--floating-base", "--inertia", "strict"}, 19, 18, {face_front});
    loads("anymal_style_quadruped.urdf", {}, 12, 12,
          {{"non_physical_link: link 'face_front' <inertial> (line 41): ",
            "welded to the fixed base through fixed joint 'base_to_face_front'", "no effect on the dynamics"}});
    const std::vector<Warning> humanoid{
        // The hands carry massless frame links merged in, which add nothing and are not named.
        {"rounding_level: link 'l_hand' <inertial> (line 169): ", "triangle inequality", "accepted as rounding"},
        {"rounding_level: link 'r_hand' <inertial> (line 293): ", "not positive semi-definite: principal moments -4.55",
         "accepted as rounding"}};
    loads("cad_style_humanoid.urdf", {"--floating-base"}, 32, 31, humanoid);
    loads("cad_style_humanoid.urdf", {"--floating-base", "--inertia", "strict"}, 32, 31, humanoid);
    const std::vector<Warning> hand{mimic("index_joint_3", 71, "index_joint_2"), mimic("middle_joint_3", 134, "middle_joint_2"),
                                    mimic("thumb_joint_3", 197, "thumb_joint_2")};
    loads("dexterous_hand.urdf", {}, 12, 12, hand);
    loads("dexterous_hand.urdf", {"--floating-base"}, 19, 18, hand);
    loads("mobile_manipulator.urdf", {}, 15, 15,
          {{"ignored 1 <ros2_control> element (actuation and simulator settings"},
           {"ignored 1 <xacro:arg> element (xacro leftover)"},
           {"ignored 2 <xacro:property> elements (xacro leftover)"}});
    loads("sw_exporter_style_arm.urdf", {}, 5, 5, {});
    loads("bom_pan_tilt.urdf", {}, 2, 2, {});
    loads("nonphysical_inertia_arm.urdf", {}, 6, 6,
          {mimic("gripper_sub", 93, "gripper"),
           {"non_physical: link 'link3' <inertial> (line 45): ", "triangle inequality", "beyond the rounding of the written digits"}},
          true);
    refused("nonphysical_inertia_arm.urdf", {"--inertia", "strict"},
            {"link 'link3' <inertial> (line 45)", "triangle inequality", "--inertia strict"});
    refused("quadrotor_fixed_only.urdf", {}, {"no degrees of freedom", "every joint is fixed", "--floating-base"});
    loads("quadrotor_fixed_only.urdf", {"--floating-base"}, 7, 6, {kGazebo1});
    refused("xacro_macro_call.urdf", {}, {"<xacro:leg> (line 33)", "unexpanded xacro macro call", "expand it first"});
    refused("xacro_expression.urdf", {},
            {"joint 'wheel_left_joint' (line 30) <origin> xyz", "${wheel_separation/2}", "expand it first"});
    loads("joints_before_links_scara.urdf", {}, 4, 4, {})->dofs = {"j1_shoulder", "j2_elbow", "j3_quill", "j4_roll"};
    loads("floating_planar_rig.urdf", {}, 12, 11, {})->dofs = {
        "turntable_joint", "box_pose[0]", "box_pose[1]", "box_pose[2]", "box_pose[3]", "box_pose[4]", "box_pose[5]",
        "puck_slide[0]", "puck_slide[1]", "puck_slide[2]", "puck_finger"};
    loads("kinova_style_arm.urdf", {}, 7, 7, {});
    return v;
  }();
  return t;
}

std::string describe(const Entry& e) {
  std::string s = e.file;
  for (const std::string& o : e.options) s += " " + o;
  return s;
}

// The test's folder (TestFolder, tests/cli_run.hpp) holds the commands' captured output in
// capture/ and their outputs in scratch folders beside it.
class Corpus : public TestFolder<::testing::TestWithParam<size_t>> {
 protected:
  // A fresh, empty output folder.
  std::string scratch(const std::string& name) {
    const fs::path p = dir_ / name;
    fs::remove_all(p);
    fs::create_directories(p);
    return p.string();
  }
  CliRun run(const std::vector<std::string>& args) { return run_captured(args); }

  static std::vector<std::string> with(std::vector<std::string> head, const std::vector<std::string>& opts,
                                       const std::vector<std::string>& tail) {
    head.insert(head.end(), opts.begin(), opts.end());
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
  }

  // A zero state from the canonical model: 0 for every coordinate, identity quaternions.
  static json zero_state(const json& model) {
    json q = json::object();
    for (const json& b : model["bodies"]) {
      const std::string t = b["joint"]["type"], n = b["joint"]["name"];
      if (t == "fixed") continue;
      if (t == "free") q[n] = {1, 0, 0, 0, 0, 0, 0};
      else if (t == "spherical") q[n] = {1, 0, 0, 0};
      else if (t == "planar") q[n] = {0, 0, 0};
      else if (t == "cylindrical") q[n] = {0, 0};
      else q[n] = 0;
    }
    return {{"q", q}};
  }

  void check_loads(const Entry& e) {
    const std::string what = describe(e);
    const std::string path = kCorpus + "/" + e.file;
    const std::string dir = scratch("out");
    // convert: the canonical model and its import notes.
    const CliRun c = run(with({"convert", path}, e.options, {"--out", dir + "/model.json"}));
    ASSERT_EQ(c.status, 0) << what << ": " << c.describe() << "\n" << c.err;
    const json model = json::parse(slurp(dir + "/model.json"));
    const std::vector<std::string> notes = model.value("import_notes", std::vector<std::string>{});
    expect_warnings(notes, e.warnings, what + " (convert import_notes)");
    size_t stderr_warnings = 0;
    for (size_t p = c.err.find("rbdref convert: warning: " + path + ": "); p != std::string::npos;
         p = c.err.find("rbdref convert: warning: " + path + ": ", p + 1))
      ++stderr_warnings;
    EXPECT_EQ(stderr_warnings, notes.size()) << what << ": every warning on stderr too\n" << c.err;

    // eval on a zero state: exit 0, the sizes, the same warnings, a positive-definite H.
    {
      std::ofstream(dir + "/zero.json") << zero_state(model).dump();
    }
    const CliRun ev = run(with({"eval", path}, e.options, {"--state", dir + "/zero.json", "--out", dir + "/eval.json"}));
    ASSERT_EQ(ev.status, 0) << what << ": " << ev.describe() << "\n" << ev.err;
    const json doc = json::parse(slurp(dir + "/eval.json"));
    EXPECT_EQ(doc["model"]["nq"], e.nq) << what;
    EXPECT_EQ(doc["model"]["nv"], e.nv) << what;
    EXPECT_EQ(doc["model"]["warnings"].get<std::vector<std::string>>(), notes) << what;
    EXPECT_TRUE(doc["positive_definite"].get<bool>()) << what << ": " << doc["degeneracy"];
    for (const json& ch : doc["checks"]) EXPECT_TRUE(ch["passed"].get<bool>()) << what << ": " << ch.dump();
    if (!e.dofs.empty()) {
      EXPECT_EQ(doc["dofs"].get<std::vector<std::string>>(), e.dofs) << what;
    }

    if (e.fixture) {
      const std::string fx = dir + "/fixture.json";
      const CliRun f = run(with({"fixture", path}, e.options, {"--samples", "2", "--seed", "1", "--out", fx}));
      ASSERT_EQ(f.status, 0) << what << ": " << f.describe() << "\n" << f.err;
      const Fixture back = read_fixture_file(fx);
      EXPECT_EQ(back.samples.size(), 2u) << what;
      EXPECT_EQ(back.model_warnings, notes) << what;
      EXPECT_EQ(static_cast<int>(back.dofs.size()), e.nv) << what;
    }
  }

  void check_refused(const Entry& e) {
    const std::string path = kCorpus + "/" + e.file;
    const std::string dir = scratch("out");
    {
      std::ofstream(dir + "/state.json") << R"({"q": [0]})";
    }
    const std::vector<std::vector<std::string>> commands = {
        with({"convert", path}, e.options, {"--out", dir + "/model.json"}),
        with({"eval", path}, e.options, {"--state", dir + "/state.json", "--out", dir + "/eval.json"}),
        with({"fixture", path}, e.options, {"--samples", "2", "--out", dir + "/fixture.json"})};
    for (const auto& args : commands) {
      const std::string what = describe(e) + " (" + args[0] + ")";
      const CliRun r = run(args);
      EXPECT_EQ(r.status, 2) << what << ": " << r.describe() << "\n" << r.err;
      EXPECT_EQ(r.err.rfind("rbdref: error: " + path + ": ", 0), 0u) << what << ": message does not start with the file\n" << r.err;
      for (const std::string& part : e.error) EXPECT_NE(r.err.find(part), std::string::npos) << what << ": no [" << part << "] in\n" << r.err;
      EXPECT_TRUE(r.out.empty()) << what << ": " << r.out;
      std::set<std::string> files;
      for (const auto& f : fs::directory_iterator(dir)) files.insert(f.path().filename().string());
      EXPECT_EQ(files, std::set<std::string>{"state.json"}) << what << ": a file was written";
    }
  }

};

TEST(CorpusTable, EveryFileHasAnEntryAndAStyleHeader) {
  std::set<std::string> in_table;
  for (const Entry& e : table()) in_table.insert(e.file);
  std::set<std::string> in_folder;
  for (const auto& f : fs::directory_iterator(kCorpus)) {
    const std::string name = f.path().filename().string();
    if (name == "README.md") continue;
    in_folder.insert(name);
    EXPECT_TRUE(in_table.count(name)) << name << " has no entry in the corpus table (tests/corpus_test.cpp)";
    const std::string text = slurp(f.path().string());
    EXPECT_NE(text.find("rbdref URDF corpus. Style:"), std::string::npos) << name << ": no style header";
    EXPECT_NE(text.find("Quirk"), std::string::npos) << name << ": the header does not name its quirk";
  }
  for (const std::string& name : in_table) EXPECT_TRUE(in_folder.count(name)) << name << " is in the table but not in " << kCorpus;
  const std::string readme = slurp(kCorpus + "/README.md");
  for (const std::string& name : in_folder) EXPECT_NE(readme.find("`" + name + "`"), std::string::npos) << name << " is not in README.md";
  EXPECT_GE(in_folder.size(), 15u);
}

TEST_P(Corpus, LoadsOrIsRefusedAsStated) {
  const Entry& e = table()[GetParam()];
  if (e.error.empty()) check_loads(e);
  else check_refused(e);
}

// One test per entry, named after the file and options (ctest runs them in parallel).
std::string entry_name(const ::testing::TestParamInfo<size_t>& info) {
  std::string s;
  for (char ch : describe(table()[info.param])) {
    const bool alnum = std::isalnum(static_cast<unsigned char>(ch)) != 0;
    if (alnum) s += ch;
    else if (!s.empty() && s.back() != '_') s += '_';
  }
  return s;
}

INSTANTIATE_TEST_SUITE_P(Urdf, Corpus, ::testing::Range<size_t>(0, table().size()), entry_name);

}  // namespace
}  // namespace rbd::test
