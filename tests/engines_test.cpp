// The engine registry (`rbdref engines`): what each adapter declares it runs (EngineSupport) is
// what it runs. Every declared joint type is accepted and every other refused by the adapter's own
// `unsupported`, on a one-body model of that joint; a free joint below the root likewise; the bundled
// loop mechanisms are accepted exactly when all their joint types are declared; on the bundled
// pendulum with contacts the adapter's outputs carry contact_* (impact_*) exactly when it declares
// contacts (the impulsive step), and never a quantity it does not declare.
#include "engines/adapter.hpp"
#include "tests/test_paths.hpp"
#include "io/model_io.hpp"
#include "tests/adapter_test_util.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include <unistd.h>

namespace rbd::test {
namespace {

namespace fs = std::filesystem;
const std::string kSrc = ::rbd::test::kSourceDir;

bool has(const std::vector<JointType>& v, JointType t) { return std::find(v.begin(), v.end(), t) != v.end(); }

// A canonical model: `root` joint on a body attached to the world, and optionally a child body
// on a `child` joint.
Fixture joint_fixture(const std::string& root, const std::string& child = "") {
  const auto body = [](const std::string& name, const std::string& parent, const std::string& type) {
    return std::string("{\"name\": \"") + name + "\", \"parent\": " + parent + ", \"joint\": {\"name\": \"j_" + name +
           "\", \"type\": \"" + type + "\"" + (type == "spherical" || type == "free" ? "" : ", \"axis\": [0, \"0.6\", \"0.8\"]") +
           (type == "helical" ? ", \"pitch\": \"0.05\"" : "") +
           "}, \"origin\": {\"xyz\": [\"0.1\", 0, \"0.2\"], \"rpy\": [0, \"0.3\", 0]}, \"inertial\": {\"mass\": \"1.5\", "
           "\"com\": [\"0.05\", 0, \"0.1\"], \"I\": {\"ixx\": \"0.02\", \"iyy\": \"0.03\", \"izz\": \"0.04\", \"ixy\": 0, "
           "\"ixz\": 0, \"iyz\": 0}}}";
  };
  std::string bodies = body("b1", "null", root);
  if (!child.empty()) bodies += ", " + body("b2", "\"b1\"", child);
  const std::string text = "{\"format\": \"rbdref.model\", \"version\": 1, \"name\": \"probe\", \"gravity\": [0, 0, \"-9.81\"], "
                           "\"bodies\": [" + bodies + "]}";
  const fs::path file = fs::temp_directory_path() / ("rbdref_engines_" + std::to_string(::getpid()) + ".json");
  std::ofstream(file) << text;
  Fixture f = make_fixture(load_model(file.string()), 2, 1, bin50p());
  fs::remove(file);
  return f;
}

TEST(EngineRegistry, EveryBuiltAdapterIsListedWithItsVersion) {
  const auto adapters = available_adapters();
  ASSERT_FALSE(adapters.empty());
  std::set<std::string> names;
  for (const auto& a : adapters) {
    EXPECT_TRUE(names.insert(a->name()).second) << a->name() << " listed twice";
    EXPECT_FALSE(a->version().empty()) << a->name();
    const EngineSupport s = a->support();
    EXPECT_FALSE(s.joints.empty()) << a->name();
    EXPECT_FALSE(s.quantities.empty()) << a->name();
    EXPECT_FALSE(s.import_path.empty()) << a->name();
    EXPECT_EQ(s.contacts, !s.contact_model.empty()) << a->name() << ": a contact model is declared exactly when contacts run";
  }
}

TEST(EngineRegistry, DeclaredJointTypesAreTheAcceptedOnes) {
  const std::vector<JointType> all = {JointType::Revolute, JointType::Prismatic, JointType::Helical, JointType::Cylindrical,
                                      JointType::Planar, JointType::Spherical, JointType::Free};
  for (const auto& a : available_adapters()) {
    // An import-path adapter reads the model's URDF, which these in-memory models lack: its joints
    // are tested on URDFs in its own test file.
    if (a->imports_source()) continue;
    const EngineSupport s = a->support();
    for (JointType t : all) {
      const std::string why = a->unsupported(joint_fixture(joint_type_name(t)));
      EXPECT_EQ(why.empty(), has(s.joints, t)) << a->name() << " " << joint_type_name(t) << ": " << why;
    }
    const std::string below = a->unsupported(joint_fixture("revolute", "free"));
    EXPECT_EQ(below.empty(), has(s.joints, JointType::Free) && has(s.joints, JointType::Revolute) && s.free_below_root)
        << a->name() << ": free joint below the root: " << below;
  }
}

// An adapter of MuJoCo's own MJCF import: the bundled fixtures come from URDF and JSON.
bool imports_mjcf(const EngineAdapter& a) {
  const std::string n = a.name();
  return n.size() > 5 && n.compare(n.size() - 5, 5, "-mjcf") == 0;
}

TEST(EngineRegistry, DeclaredLoopJointsAreTheAcceptedOnes) {
  int loop_models = 0;
  for (const char* name : {"parallelogram", "slider_crank", "fig83_arm", "delta3", "stewart_gough", "six_bar", "ladder4", "far_fourbar"}) {
    const Fixture f = read_fixture_file(kSrc + "/fixtures/golden/" + name + ".fixture.json");
    ASSERT_FALSE(f.model.loop_joints.empty()) << name;
    ++loop_models;
    for (const auto& a : available_adapters()) {
      if (imports_mjcf(*a)) continue;  // MJCF loop models: tests/mjcf_test.cpp
      const EngineSupport s = a->support();
      bool expect = true;
      for (const BodyDesc& b : f.model.bodies)
        if (b.joint.type != JointType::Fixed) expect = expect && has(s.joints, b.joint.type);
      for (const LoopJointDesc& L : f.model.loop_joints) expect = expect && has(s.loop_joints, L.joint.type);
      const std::string why = a->unsupported(f);
      EXPECT_EQ(why.empty(), expect) << a->name() << " on " << name << ": " << why;
    }
  }
  EXPECT_EQ(loop_models, 8);
}

TEST(EngineRegistry, DeclaredQuantitiesAndContactsAreWhatTheOutputsCarry) {
  const Fixture tree = read_fixture_file(kSrc + "/fixtures/golden/double_pendulum.fixture.json");
  const Fixture contacts = read_fixture_file(kSrc + "/fixtures/golden/pendulum_contacts.fixture.json");
  for (const auto& a : available_adapters()) {
    if (imports_mjcf(*a)) continue;  // its outputs on MJCF models: MjcfAdapters in tests/mjcf_test.cpp
    const EngineSupport s = a->support();
    const std::set<std::string> declared(s.quantities.begin(), s.quantities.end());
    ASSERT_EQ(a->unsupported(tree), "") << a->name();
    std::set<std::string> produced;
    const auto run = [&](const Fixture& f, const std::string& name, const std::string& urdf) {
      return a->imports_source() ? a->run_source(f, name, kSrc + "/fixtures/models/" + urdf) : a->run(f, name);
    };
    for (const EngineSample& es : run(tree, "double_pendulum", "double_pendulum.urdf").samples)
      for (const auto& [q, v] : es.values) produced.insert(q);
    for (const std::string& q : produced) EXPECT_TRUE(declared.count(q)) << a->name() << " outputs undeclared " << q;
    for (const char* q : {"H", "C", "tau", "qdd", "L", "D"})
      if (declared.count(q)) {
        EXPECT_TRUE(produced.count(q)) << a->name() << " declares " << q << " but gives none on a tree";
      }
    if (!a->unsupported(contacts).empty()) {
      EXPECT_FALSE(s.contacts) << a->name() << " declares contacts but refuses the pendulum's";
      continue;
    }
    std::set<std::string> with_contacts;
    for (const EngineSample& es : run(contacts, "pendulum_contacts", "double_pendulum.urdf").samples)
      for (const auto& [q, v] : es.values) with_contacts.insert(q);
    for (const std::string& q : with_contacts) EXPECT_TRUE(declared.count(q)) << a->name() << " outputs undeclared " << q;
    EXPECT_EQ(with_contacts.count("contact_qdd") > 0, s.contacts) << a->name();
    EXPECT_EQ(with_contacts.count("impact_qd_plus") > 0, s.impact) << a->name();
  }
}

}  // namespace
}  // namespace rbd::test
