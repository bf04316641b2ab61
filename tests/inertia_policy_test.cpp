// Inertias of real robot descriptions (docs/urdf.md, "Inertias"): bounds checked on the merged
// bodies the dynamics sees, a tolerance of the rounding of the written digits, the inertia policy
// (accept by default, strict on request), and messages that name the link as written.
#include "io/model_io.hpp"
#include "tests/test_util.hpp"

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace rbd::test {
namespace {

namespace fs = std::filesystem;

// The files of this process's tests, in one folder removed when the test program exits.
const fs::path& temp_folder() {
  struct Folder {
    fs::path path = fs::temp_directory_path() / ("rbdref_inertia_" + std::to_string(::getpid()));
    ~Folder() {
      std::error_code ec;
      fs::remove_all(path, ec);
    }
  };
  static const Folder folder;
  return folder.path;
}

std::string write_temp(const std::string& name, const std::string& text) {
  const fs::path& dir = temp_folder();
  fs::create_directories(dir);
  const fs::path p = dir / name;
  std::ofstream(p) << text;
  return p.string();
}

LoadOptions opts(bool floating, InertiaPolicy p) {
  LoadOptions o;
  o.floating_base = floating;
  o.inertia = p;
  return o;
}

template <class T>
class InertiaNotes : public ::testing::Test {};
TYPED_TEST_SUITE(InertiaNotes, Scalars);

int count(const std::vector<ModelNote>& notes, ModelNote::Kind k) {
  int n = 0;
  for (const ModelNote& m : notes) n += m.kind == k ? 1 : 0;
  return n;
}

// The quadruped pattern: a `base` placeholder with 1e-6 in all six entries (principal moments
// 0, 0, 3e-6: the triangle inequality broken by all of 3e-6, far beyond the rounding of four
// written digits) welded to the real trunk. Line 2 holds the placeholder's <inertial>.
std::string quadruped(const char* base_to_trunk) {
  return std::string(R"(<robot name="quad">
<link name="base"><inertial><mass value="0.001"/><inertia ixx="1.000e-6" iyy="1.000e-6" izz="1.000e-6" ixy="1.000e-6" ixz="1.000e-6" iyz="1.000e-6"/></inertial></link>
<joint name="floating_base" type=")") + base_to_trunk + R"("><parent link="base"/><child link="trunk"/><axis xyz="0 0 1"/></joint>
<link name="trunk"><inertial><origin xyz="0.01 0 0"/><mass value="6.0"/><inertia ixx="0.0158" iyy="0.0377" izz="0.0456" ixy="0" ixz="0" iyz="0"/></inertial></link>
<joint name="hip" type="revolute"><parent link="trunk"/><child link="thigh"/><origin xyz="0.2 0.05 0"/><axis xyz="1 0 0"/></joint>
<link name="thigh"><inertial><mass value="1.0"/><inertia ixx="0.005" iyy="0.005" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
</robot>)";
}

TEST(InertiaPolicy, PlaceholderMergedIntoThePhysicalTrunkLoadsEvenStrict) {
  const std::string f = write_temp("quad.urdf", quadruped("fixed"));
  const LoadedModel lm = load_model(f, opts(true, InertiaPolicy::Strict));
  EXPECT_EQ(count(lm.notes, ModelNote::NonPhysical), 0);
  ASSERT_EQ(count(lm.notes, ModelNote::NonPhysicalLink), 1);
  EXPECT_EQ(lm.notes[0].field, "link 'base' <inertial> (line 2)");
  EXPECT_NE(lm.notes[0].message.find("merged into"), std::string::npos) << lm.notes[0].message;
  const Model<bin50> m = build_model<bin50>(lm.desc);
  EXPECT_EQ(m.NB, 2);
  EXPECT_EQ(m.I[0].mass(), from_decimal<bin50>("6.001"));  // 0.001 + 6.0, read at 50 digits
}

TEST(InertiaPolicy, PlaceholderOnItsOwnBodyIsNonPhysical) {
  const std::string f = write_temp("quad_rev.urdf", quadruped("revolute"));
  try {
    load_model(f, opts(true, InertiaPolicy::Strict));
    FAIL() << "strict accepted a non-physical body";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "link 'base' <inertial> (line 2)");
    EXPECT_NE(std::string(e.what()).find("triangle inequality"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--inertia accept"), std::string::npos) << e.what();
  }
  const LoadedModel lm = load_model(f, opts(true, InertiaPolicy::Accept));  // the default
  ASSERT_EQ(count(lm.notes, ModelNote::NonPhysical), 1);
  EXPECT_EQ(lm.warnings().back().rfind("non_physical: link 'base' <inertial> (line 2)", 0), 0u) << lm.warnings().back();
}

// A thin rod about the axis (1, 2, 2)/3: I = a (1 - d dᵀ) with a = 0.3 has principal moments
// 0, a, a. Written to six or seven digits (iyz rounded the other way), its smallest principal
// moment comes out -2.9e-7 and the triangle inequality is broken by 9.9e-7: both far below the
// rounding the written digits allow (‖u‖_F ≈ 1.1e-6). Accepted, under strict too, and noted.
TEST(InertiaPolicy, ViolationWithinTheWrittenDigitsIsRounding) {
  const std::string f = write_temp("rod.urdf", R"(<robot name="rod"><link name="base"/>
<link name="rod"><inertial><mass value="1.2"/><inertia ixx="0.266667" iyy="0.166667" izz="0.166667" ixy="-0.0666667" ixz="-0.0666667" iyz="-0.133334"/></inertial></link>
<joint name="j" type="revolute"><parent link="base"/><child link="rod"/><axis xyz="0 0 1"/></joint></robot>)");
  const LoadedModel lm = load_model(f, opts(false, InertiaPolicy::Strict));
  ASSERT_EQ(lm.notes.size(), 1u);
  EXPECT_EQ(lm.notes[0].kind, ModelNote::RoundingLevel);
  EXPECT_EQ(lm.notes[0].field, "link 'rod' <inertial> (line 2)");
  // The same inertia with its iyz written to one digit more, and wrong by 1e-5: no longer rounding.
  std::string text = read_text_file(f);
  text.replace(text.find("-0.133334"), 9, "-0.1333440");
  const std::string g = write_temp("rod2.urdf", text);
  EXPECT_THROW(load_model(g, opts(false, InertiaPolicy::Strict)), InputError);
}

// Two links, each non-physical, welded together: the message names the body, both links and the
// fixed joint, with their lines.
TEST(InertiaPolicy, MergedBodyMessageNamesItsLinksAndJoints) {
  const std::string f = write_temp("two.urdf", R"(<robot name="two"><link name="base"/>
<link name="A"><inertial><mass value="1"/><inertia ixx="1.000" iyy="1.000" izz="3.000" ixy="0" ixz="0" iyz="0"/></inertial></link>
<link name="B"><inertial><mass value="1"/><inertia ixx="1.000" iyy="1.000" izz="3.000" ixy="0" ixz="0" iyz="0"/></inertial></link>
<joint name="j" type="revolute"><parent link="base"/><child link="A"/><axis xyz="0 0 1"/></joint>
<joint name="weld" type="fixed"><parent link="A"/><child link="B"/></joint></robot>)");
  try {
    load_model(f, opts(false, InertiaPolicy::Strict));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(),
              "body 'A' (link 'A' <inertial> (line 2) merged with link 'B' <inertial> (line 3) through fixed joint 'weld' (line 5))");
  }
}

// Two point masses welded 10 km apart: the merged body's principal moments about its COM are
// exactly 0, μd², μd² (a dumbbell: on the boundary of physical, triangle equality). They must be
// computed from COM differences (parallel-axis theorem), not recovered from the spatial inertia,
// where Ī - m c×c×ᵀ cancels some 16 digits (m|c|² ≈ 1e9) and the noise, at double, pushes the
// zero moment below zero or breaks the equality: a physical body reported as broken. Several
// placements, so that the noise of the wrong route lands on the wrong side in at least one.
TYPED_TEST(InertiaNotes, FarWeldedLinkGivesNoSpuriousNote) {
  using T = TypeParam;
  for (const char* xyz : {"10000 0.5 0", "-7000 3000 0.25", "123.456 9876.5 -4321", "0 0 10000", "8191 8191 8191"}) {
    const ModelDesc d = read_urdf(std::string(R"(<robot name="far"><link name="base"/>
<link name="A"><inertial><mass value="0.001"/><inertia ixx="0" iyy="0" izz="0" ixy="0" ixz="0" iyz="0"/></inertial></link>
<link name="B"><inertial><mass value="10"/><inertia ixx="0" iyy="0" izz="0" ixy="0" ixz="0" iyz="0"/></inertial></link>
<joint name="j" type="revolute"><parent link="base"/><child link="A"/><axis xyz="0 0 1"/></joint>
<joint name="weld" type="fixed"><parent link="A"/><child link="B"/><origin xyz=")") + xyz + R"(" rpy="0.3 0.2 0.1"/></joint></robot>)",
                                  "far.urdf");
    const Model<T> m = build_model<T>(d);
    EXPECT_TRUE(m.notes.empty()) << xyz << ": " << m.notes.front().field << ": " << m.notes.front().message;
  }
}

TEST(InertiaPolicy, NegativeMassIsAlwaysAnErrorNamingTheLink) {
  const std::string f = write_temp("neg.urdf", R"(<robot name="n"><link name="base"/>
<link name="a"><inertial><mass value="-1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
<joint name="j" type="revolute"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/></joint></robot>)");
  for (InertiaPolicy p : {InertiaPolicy::Accept, InertiaPolicy::Strict}) {
    try {
      load_model(f, opts(false, p));
      FAIL();
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "link 'a' <inertial> (line 2) <mass>");
    }
  }
}

// The planar joint's plane_x is tested for being parallel to the axis relative to its own length:
// a long axis and a short, perpendicular plane_x are fine.
TEST(ModelChecks, PlanarPlaneXIsJudgedByItsOwnLength) {
  const std::string f = write_temp("planar.json", R"({"format": "rbdref.model", "version": 1, "bodies": [
    {"name": "a", "parent": null, "joint": {"type": "planar", "axis": [0, 0, 1000], "plane_x": [0.001, 0, 0]},
     "inertial": {"mass": 1, "com": [0, 0, 0], "I": {"ixx": 1, "iyy": 1, "izz": 1, "ixy": 0, "ixz": 0, "iyz": 0}}}]})");
  const LoadedModel lm = load_model(f);
  const Model<double> m = build_model<double>(lm.desc);
  EXPECT_EQ(m.joint[0].u, Vec3<double>(1, 0, 0));
  std::string text = read_text_file(f);
  text.replace(text.find("[0.001, 0, 0]"), 13, "[1e-9, 0, 5]");  // along the axis within 2e-10: refused
  EXPECT_THROW(load_model(write_temp("planar2.json", text)), InputError);
}

TEST(ModelChecks, DuplicateJointNamesAndKeysAreRefused) {
  const char* body = R"({"name": "%s", "parent": %s, "joint": {"name": "j", "type": "revolute", "axis": [0, 0, 1]},
     "inertial": {"mass": 1, "com": [0, 0, 0], "I": {"ixx": 1, "iyy": 1, "izz": 1, "ixy": 0, "ixz": 0, "iyz": 0}}})";
  char a[512], b[512];
  std::snprintf(a, sizeof a, body, "a", "null");
  std::snprintf(b, sizeof b, body, "b", "\"a\"");
  const std::string f = write_temp("dup.json", std::string(R"({"format": "rbdref.model", "version": 1, "bodies": [)") + a + "," + b + "]}");
  try {
    load_model(f);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "bodies[1].joint.name");
  }
  const std::string g = write_temp("dupkey.json", std::string(R"({"format": "rbdref.model", "version": 1, "version": 1, "bodies": [)") + a + "]}");
  try {
    load_model(g);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "version");
  }
}

// Quaternions are checked before any arithmetic: a tiny one (|q|² underflows in double) is
// refused, not turned into NaN.
TEST(ModelChecks, TinyQuaternionIsRefusedBeforeArithmetic) {
  const std::string f = write_temp("q.json", R"({"format": "rbdref.model", "version": 1, "bodies": [
    {"name": "a", "parent": null, "origin": {"xyz": [0, 0, 0], "quat": [1e-200, 0, 0, 0]}, "joint": {"type": "revolute", "axis": [0, 0, 1]},
     "inertial": {"mass": 1, "com": [0, 0, 0], "I": {"ixx": 1, "iyy": 1, "izz": 1, "ixy": 0, "ixz": 0, "iyz": 0}}}]})");
  try {
    load_model(f);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "bodies[0].origin.quat");
  }
  EXPECT_DOUBLE_EQ(quaternion_norm(exact_nums({3e-200, 4e-200, 0, 0}).data()), 5e-200);
  EXPECT_DOUBLE_EQ(quaternion_norm(exact_nums({3e200, 4e200, 0, 0}).data()), 5e200);
}

}  // namespace
}  // namespace rbd::test
