// MJCF read as MuJoCo reads it (io/mjcf.cpp, docs/mjcf.md), and armature (JointDesc::armature).
//
// The MJCF corpus (tests/data/mjcf_corpus) goes through the real command: each model loads with
// its stated sizes and exactly its stated warnings, or is refused with exit status 2 and its stated
// message; every file has an entry. Each model that loads is then audited against MuJoCo's own
// import of the same file (MuJoCo defines the format; it shares no code with rbdref's reader): H
// and C to the digits double allows where MuJoCo's compiler keeps the file's numbers, and an echo
// that says so, or that names the import difference where it does not (a fullinertia or several
// geoms diagonalized in double).
//
// Armature is checked against routes that do not use it: on a joint attached to the fixed base an
// armature a equals a disk of moment a about the joint axis on the body (its other moments and its
// mass do nothing there), and everywhere ABA and the articulated LᵀDL (which add it to D_i) agree
// with CRBA's H solved densely.
#include "engines/adapter.hpp"
#include "fixtures/fixture.hpp"
#include "io/model_io.hpp"
#include "reference/numeric/interval.hpp"
#include "reference/tree/aba.hpp"
#include "reference/tree/crba.hpp"
#include "reference/tree/energy.hpp"
#include "reference/tree/kinematics.hpp"
#include "reference/tree/ltdl.hpp"
#include "reference/tree/ltdl_articulated.hpp"
#include "reference/tree/rnea.hpp"
#include "tests/cli_run.hpp"
#include "tests/corpus_warnings.hpp"
#include "tests/test_paths.hpp"
#include "tests/tree_cases.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <Eigen/Cholesky>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace rbd::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kCorpus = std::string(kSourceDir) + "/tests/data/mjcf_corpus";

// ---- The corpus ----------------------------------------------------------------------------------

struct Entry {
  std::string file;
  int nq = 0, nv = 0, loops = 0;
  std::vector<Warning> warnings;
  // Against MuJoCo's own import: the echo's status and the least digits of H and C over the samples.
  std::string echo = "match";
  double min_digits = 13;
  bool mujoco2 = true;             // MuJoCo 2.2.2 reads it (else it refuses a later MuJoCo's element)
  std::vector<std::string> error;  // refused: parts of the message
};

const Warning kPassive{"joint damping, stiffness, frictionloss and limits are not modelled"};
Warning free_note(const std::string& joint, int line) {
  return {"joint '" + joint + "' (line " + std::to_string(line) + "): free joint", "initial configuration (MuJoCo's qpos0)"};
}

const std::vector<Entry>& table() {
  static const std::vector<Entry> t = [] {
    std::vector<Entry> v;
    auto loads = [&](std::string file, int nq, int nv, std::vector<Warning> w, std::string echo = "match", double digits = 13,
                     int loops = 0) {
      Entry e;
      e.file = std::move(file);
      e.nq = nq, e.nv = nv, e.loops = loops;
      e.warnings = std::move(w);
      e.echo = std::move(echo);
      e.min_digits = digits;
      v.push_back(e);
    };
    auto refused = [&](std::string file, std::vector<std::string> msg) {
      Entry e;
      e.file = std::move(file);
      e.error = std::move(msg);
      v.push_back(e);
    };
    // The wrist's fullinertia and the upper arm's two geoms are diagonalized by MuJoCo in double
    // (~7 digits kept): the echo names the inertia, H agrees to what MuJoCo kept.
    loads("arm_defaults.xml", 6, 6,
          {kPassive, {"ignored 1 <actuator> element"}, {"ignored 1 <asset> element"}, {"ignored 1 <geom> element of <worldbody>"},
           {"ignored 1 <light> element of <worldbody>"}},
          "differs", 6);
    loads("quadruped_free.xml", 19, 18, {kPassive, free_note("root", 24), {"ignored 1 <sensor> element"}});
    // The left forearm's capsule and ellipsoid, diagonalized by MuJoCo: 1e-12.
    loads("humanoid_include.xml", 21, 19, {kPassive, free_note("root", 20), {"ignored 1 <actuator> element"},
                                           {"ignored 1 <geom> element of <worldbody>"}},
          "differs", 11);
    loads("fourbar_connect.xml", 3, 3, {{"equality connect 'close' (line 24): a spherical loop joint"}}, "match", 13, 1);
    loads("weld_relpose.xml", 9, 8,
          {free_note("joint1", 10), {"equality weld 'equality0' (line 19): a fixed loop joint"},
           {"equality weld 'equality1' (line 20): a fixed loop joint"}},
          "match", 13, 2);
    loads("mesh_with_inertial.xml", 1, 1, {kPassive, {"ignored 1 <asset> element"}});
    loads("planar_slider_ref.xml", 4, 4, {{"<option><flag gravity=\"disable\"> (line 6): gravity 0"}});
    // MuJoCo 3 only; the upper arm's capsule and box, diagonalized by MuJoCo: 2.4e-14.
    loads("frame_element.xml", 2, 2, {}, "differs", 13);
    v.back().mujoco2 = false;
    refused("humanoid_parts.xml", {"<mujoco>", "expected a <worldbody>"});
    refused("mesh_without_inertial.xml", {"body 'link2' (line 13)", "(line 15) (type mesh)", "give the body an <inertial>"});
    refused("nested_free_joint.xml", {"joint 'ball_free' (line 9)", "not a child of <worldbody>"});
    refused("two_orientations.xml", {"body 'b' (line 4)", "at most one orientation"});
    refused("unknown_class.xml", {"(line 9) class", "unknown default class 'lnk'"});
    refused("missing_include.xml", {"<include file=\"no_such_part.xml\"> (line 9)", "cannot read the included file"});
    refused("bad_number.xml", {"joint 'j' (line 5) axis", "expected decimal numbers", "0 0 one"});
    return v;
  }();
  return t;
}

// The test's folder (TestFolder, tests/cli_run.hpp): the commands' captured output in capture/,
// their outputs beside it.
class MjcfCorpus : public TestFolder<::testing::TestWithParam<size_t>> {
 protected:
  CliRun run(const std::vector<std::string>& args) { return run_captured(args); }
};

TEST_P(MjcfCorpus, LoadsOrIsRefusedAsStatedAndAgreesWithMuJoCo) {
  const Entry& e = table()[GetParam()];
  const std::string path = kCorpus + "/" + e.file;
  const std::string out = (dir_ / "model.json").string();
  const CliRun c = run({"convert", path, "--out", out});
  if (!e.error.empty()) {
    EXPECT_EQ(c.status, 2) << e.file << ": " << c.describe() << "\n" << c.err;
    EXPECT_NE(c.err.find(e.file), std::string::npos) << c.err;
    for (const std::string& part : e.error) EXPECT_NE(c.err.find(part), std::string::npos) << e.file << ": no [" << part << "] in\n" << c.err;
    EXPECT_FALSE(fs::exists(out)) << e.file << ": a refused model wrote " << out;
    const CliRun ev = run({"eval", path, "--out", (dir_ / "eval.json").string()});
    EXPECT_EQ(ev.status, 2) << e.file << " (eval): " << ev.err;
    return;
  }
  ASSERT_EQ(c.status, 0) << e.file << ": " << c.describe() << "\n" << c.err;
  const json model = json::parse(slurp(out));
  expect_warnings(model.value("import_notes", std::vector<std::string>{}), e.warnings, e.file);
  EXPECT_EQ(model.value("loop_joints", json::array()).size(), static_cast<size_t>(e.loops)) << e.file;

  // The canonical JSON is the same model: its H at a fixture's samples equals the MJCF's.
  const std::string fx = (dir_ / "f.json").string();
  const CliRun f = run({"fixture", path, "--samples", "2", "--out", fx});
  ASSERT_EQ(f.status, 0) << e.file << ": " << f.err;
  const Fixture fix = read_fixture_file(fx);
  EXPECT_EQ(fix.source_kind, "mjcf");
  const Model<double> m = build_model<double>(fix.model);
  EXPECT_EQ(m.nq, e.nq) << e.file;
  EXPECT_EQ(m.nv, e.nv) << e.file;

  // MuJoCo's own import of the same file, through the audit: the MJCF paths this build has (MuJoCo
  // 3 comes from npm, which a machine may lack; its adapter is then not built).
  std::string engines;
  for (const auto& ad : available_adapters())
    if (ad->name() == "mujoco-mjcf" || ad->name() == "mujoco-js-mjcf") engines += (engines.empty() ? "" : ",") + ad->name();
  ASSERT_NE(engines.find("mujoco-mjcf"), std::string::npos) << "MuJoCo 2.2.2 (libmujoco-dev) is installed by setup.sh";
  const std::string aud = (dir_ / "audit").string();
  const CliRun a = run({"audit", "--model", path, "--engines", engines, "--samples", "3", "--no-cache", "--no-baseline", "--out", aud});
  ASSERT_TRUE(a.status == 0 || a.status == 1) << e.file << ": " << a.describe() << "\n" << a.err;
  int ran = 0;
  for (const char* engine : {"mujoco-mjcf", "mujoco-js-mjcf"}) {
    const std::string stem = fs::path(e.file).stem().string();
    const fs::path rep = fs::path(aud) / engine / (stem + ".report.json");
    if (!fs::exists(rep)) {
      // MuJoCo 3 runs from npm, which a machine may lack (docs/engines.md), and refuses loops;
      // MuJoCo 2.2.2 must run where it reads the file, and say why where it does not.
      if (std::string(engine) == "mujoco-mjcf") {
        EXPECT_FALSE(e.mujoco2) << e.file << ": mujoco-mjcf wrote no report\n" << a.out << a.err;
        if (!e.mujoco2) EXPECT_NE(a.out.find("MuJoCo 2.2.2 does not read"), std::string::npos) << a.out;
      }
      continue;
    }
    ++ran;
    const json r = json::parse(slurp(rep.string()));
    const json eo = json::parse(slurp((fs::path(aud) / engine / (stem + ".engine.json")).string()));
    EXPECT_EQ(eo["model_echo"]["status"], e.echo) << e.file << " " << engine << ": " << eo["model_echo"]["max"].dump();
    for (const json& q : r["quantities"]) {
      const std::string name = q["quantity"];
      if (name != "H" && name != "C") continue;
      EXPECT_GE(q["min_digits"].get<double>(), e.min_digits) << e.file << " " << engine << " " << name;
    }
  }
  if (e.mujoco2) EXPECT_GE(ran, 1) << e.file;
}

std::string entry_name(const ::testing::TestParamInfo<size_t>& info) {
  std::string n = table()[info.param].file;
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}
INSTANTIATE_TEST_SUITE_P(Files, MjcfCorpus, ::testing::Range<size_t>(0, table().size()), entry_name);

TEST(MjcfCorpusTable, EveryFileHasAnEntry) {
  std::set<std::string> listed;
  for (const Entry& e : table()) listed.insert(e.file);
  for (const auto& de : fs::directory_iterator(kCorpus))
    if (de.path().extension() == ".xml") EXPECT_TRUE(listed.count(de.path().filename().string())) << de.path();
}

// ---- Semantics, against forms that share no code with the reader's ------------------------------

ModelDesc mjcf(const std::string& body) {
  return read_mjcf("<mujoco><worldbody>" + body + "</worldbody></mujoco>", "test.xml");
}
Mat3<bin50> rot_of(const ModelDesc& d, int i = 0) { return build_model<bin50>(d).Xtree[static_cast<size_t>(i)].E.transpose(); }
double diff(const Mat3<bin50>& a, const Mat3<bin50>& b) { return max_abs(Mat3<bin50>(a - b)); }
const std::string kGeom = "<geom type='sphere' size='0.1'/><joint axis='0 0 1'/>";

TEST(MjcfSemantics, OrientationSpecifiersAgreeWithEachOther) {
  const double tol = 1e-48;
  const bin50 h = sqrt(bin50(2)) / 2;  // cos 45° = sin 45°
  Mat3<bin50> Rz90;
  Rz90 << 0, -1, 0, 1, 0, 0, 0, 0, 1;
  // A quarter turn about z, five ways (degrees, MuJoCo's default unit).
  EXPECT_LE(diff(rot_of(mjcf("<body axisangle='0 0 2 90'>" + kGeom + "</body>")), Rz90), tol);
  EXPECT_LE(diff(rot_of(mjcf("<body euler='0 0 90'>" + kGeom + "</body>")), Rz90), tol);
  EXPECT_LE(diff(rot_of(mjcf("<body xyaxes='0 3 0 -1 0 0'>" + kGeom + "</body>")), Rz90), tol);
  EXPECT_LE(diff(rot_of(mjcf("<body quat='" + to_decimal(h, 60) + " 0 0 " + to_decimal(h, 60) + "'>" + kGeom + "</body>")), Rz90), tol);
  // zaxis: the shortest rotation, (0,0,1) -> x is a quarter turn about y; opposite: half turn about x.
  Mat3<bin50> Ry90, Rx180;
  Ry90 << 0, 0, 1, 0, 1, 0, -1, 0, 0;
  Rx180 << 1, 0, 0, 0, -1, 0, 0, 0, -1;
  EXPECT_LE(diff(rot_of(mjcf("<body zaxis='2 0 0'>" + kGeom + "</body>")), Ry90), tol);
  EXPECT_LE(diff(rot_of(mjcf("<body zaxis='0 0 -1'>" + kGeom + "</body>")), Rx180), tol);
  // Euler sequences: intrinsic x-y-z is extrinsic Z-Y-X in reverse order.
  const std::string w = "<worldbody><body euler='10 20 30'>" + kGeom + "</body></worldbody></mujoco>";
  const ModelDesc a = read_mjcf("<mujoco><compiler eulerseq='xyz'/>" + w, "a.xml");
  const ModelDesc b = read_mjcf("<mujoco><compiler eulerseq='XYZ'/>" + w, "b.xml");
  const ModelDesc c = read_mjcf("<mujoco><compiler eulerseq='ZYX'/><worldbody><body euler='30 20 10'>" + kGeom +
                                    "</body></worldbody></mujoco>",
                                "c.xml");
  EXPECT_LE(diff(rot_of(a), rot_of(c)), tol);
  EXPECT_GT(diff(rot_of(a), rot_of(b)), 1e-3);  // fixed axes differ from moving ones
  // Intrinsic xyz = Rx(10°) Ry(20°) Rz(30°), composed here from the matrices.
  auto R = [](int axis, double deg) {
    const bin50 t = bin50(deg) * pi<bin50>() / 180, cs = cos(t), sn = sin(t);
    Mat3<bin50> M = Mat3<bin50>::Identity();
    const int i = (axis + 1) % 3, j = (axis + 2) % 3;
    M(i, i) = cs, M(i, j) = -sn, M(j, i) = sn, M(j, j) = cs;
    return M;
  };
  EXPECT_LE(diff(rot_of(a), Mat3<bin50>(R(0, 10) * R(1, 20) * R(2, 30))), tol);
  EXPECT_LE(diff(rot_of(b), Mat3<bin50>(R(2, 30) * R(1, 20) * R(0, 10))), tol);
}

TEST(MjcfSemantics, TheBodySitsWhereTheFilePutsItAtRef) {
  // A hinge with ref 30° and an off-centre anchor, then a slide with ref 0.2: at q = ref the body's
  // world pose is the file's (pos, euler), which is composed here from the numbers as written.
  const ModelDesc d = mjcf(
      "<body pos='0.1 0.2 0.3' euler='0 0 40'><joint type='hinge' axis='1 1 0' pos='0.05 0 0.01' ref='30'/>"
      "<joint type='slide' axis='0 0 1' ref='0.2' pos='0 0.3 0'/><geom type='box' size='0.1 0.2 0.3'/></body>");
  const Model<bin50> m = build_model<bin50>(d);
  ASSERT_EQ(m.NB, 2);
  VecX<bin50> q(2);
  q << bin50(30) * pi<bin50>() / 180, from_decimal<bin50>("0.2");
  const TreeKinematics<bin50> k = kinematics<bin50>(m, q, VecX<bin50>::Zero(2), kWorldTransforms);
  // The MJCF body frame sits at O = T(-a_n) = T(0, -0.3, 0) in rbdref's last body.
  const Xform<bin50>& X = k.X0[1];
  const Vec3<bin50> origin = X.r + X.E.transpose() * Vec3<bin50>(0, from_decimal<bin50>("-0.3"), 0);
  const bin50 t = bin50(40) * pi<bin50>() / 180;
  Mat3<bin50> Rz;
  Rz << cos(t), -sin(t), 0, sin(t), cos(t), 0, 0, 0, 1;
  EXPECT_LE(max_abs(Vec3<bin50>(origin - Vec3<bin50>(from_decimal<bin50>("0.1"), from_decimal<bin50>("0.2"), from_decimal<bin50>("0.3")))),
            1e-48);
  EXPECT_LE(diff(X.E.transpose(), Rz), 1e-48);
}

TEST(MjcfSemantics, GeomInertiasAreExactAtEveryPrecision) {
  // A sphere of density 1000 on a slide: H = m = 1000 · 4/3 π r³, computed here at 100 digits.
  const ModelDesc d = mjcf("<body><joint type='slide' axis='1 0 0'/><geom type='sphere' size='0.1'/></body>");
  const bin100 exact = bin100(1000) * bin100(4) / bin100(3) * pi<bin100>() * pow(from_decimal<bin100>("0.1"), 3);
  const bin50 m50 = build_model<bin50>(d).I[0].mass();
  EXPECT_LE(static_cast<double>(abs(bin100(m50) - exact) / exact), 1e-49);
  const bin100 m100 = build_model<bin100>(d).I[0].mass();
  EXPECT_LE(static_cast<double>(abs(m100 - exact) / exact), 1e-98);
  // On intervals: an enclosure of the exact mass.
  {
    const ScopedIntervalDigits digits(60);
    const Interval mi = build_model<Interval>(d).I[0].mass();
    EXPECT_TRUE(Interval(mi - Interval::of(exact)).contains_zero()) << to_decimal(exact, 30);
    const Interval dm = mi - Interval::of(exact);  // within 1e-50 of the exact mass: 50 digits proven
    EXPECT_GE(dm.lo_double(), -1e-50);
    EXPECT_LE(dm.hi_double(), 1e-50);
  }
  // A capsule along x (fromto): the axial moment is the cylinder's m r²/2 plus the sphere's 2/5 m r².
  const ModelDesc c = mjcf("<body><joint axis='1 0 0'/><geom type='capsule' fromto='0 0 0 0.4 0 0' size='0.05'/></body>");
  const Model<bin50> mc = build_model<bin50>(c);
  const bin50 r("0.05"), L("0.4"), rho(1000), P = pi<bin50>();
  const bin50 mcyl = rho * P * r * r * L, msph = rho * 4 * P * r * r * r / 3;
  const bin50 Ixx = mcyl * r * r / 2 + msph * 2 * r * r / 5;  // about the x axis through the COM (0.2, 0, 0)
  const bin50 H00 = crba<bin50>(mc, VecX<bin50>::Zero(1))(0, 0);
  EXPECT_LE(static_cast<double>(abs(H00 - Ixx) / Ixx), 1e-48);
}

TEST(MjcfSemantics, FullinertiaIsTakenExactly) {
  const ModelDesc d = mjcf("<body><joint/><inertial pos='0 0 0' mass='1' fullinertia='0.4 0.5 0.6 0.01 -0.02 0.03'/></body>");
  EXPECT_EQ(d.bodies[0].inertial.I[3].str(), "0.01");
  EXPECT_EQ(d.bodies[0].inertial.I[4].str(), "-0.02");
  EXPECT_TRUE(d.bodies[0].inertial.I[0].expr == nullptr);
}


TEST(MjcfSemantics, DeepChainsCarryTheirEqualityAnchorsExactly) {
  // A 60-body chain, each body turned by Euler angles, closed to the world by a connect at the last
  // body: the world-side anchor is body1's anchor at qpos0 composed through 60 frames (shared
  // subexpressions: evaluated once each, else this would not finish). Checked against rbdref's own
  // kinematics of the model at q = 0, which composes Xtree matrices instead.
  const int n = 60;
  std::string x = "<mujoco><worldbody>";
  for (int k = 0; k < n; ++k) x += "<body name='b" + std::to_string(k) + "' pos='0 0.01 0.1' euler='1 2 3'><joint axis='0 1 0'/><geom type='sphere' size='0.01'/>";
  for (int k = 0; k < n; ++k) x += "</body>";
  x += "</worldbody><equality><connect body1='b" + std::to_string(n - 1) + "' anchor='0.1 0.2 0.3'/></equality></mujoco>";
  const ModelDesc d = read_mjcf(x, "chain.xml");
  ASSERT_EQ(d.loop_joints.size(), 1u);
  const Model<bin50> m = build_model<bin50>(d);
  const TreeKinematics<bin50> k = kinematics<bin50>(m, VecX<bin50>::Zero(m.nq), VecX<bin50>::Zero(m.nv), kWorldTransforms);
  const Xform<bin50>& X = k.X0[static_cast<size_t>(n - 1)];
  const Vec3<bin50> anchor(from_decimal<bin50>("0.1"), from_decimal<bin50>("0.2"), from_decimal<bin50>("0.3"));
  const Vec3<bin50> world = X.r + X.E.transpose() * anchor;
  const LoopJointDesc& L = d.loop_joints[0];
  EXPECT_EQ(L.succ.body, -1);
  const Vec3<bin50> got(L.succ.origin.xyz[0].as<bin50>(), L.succ.origin.xyz[1].as<bin50>(), L.succ.origin.xyz[2].as<bin50>());
  EXPECT_LE(max_abs(Vec3<bin50>(got - world)), 1e-47);
  // Frames nested 90 deep around a geom whose inertia the body takes.
  std::string f = "<mujoco><worldbody><body><joint/>";
  for (int j = 0; j < 90; ++j) f += "<frame pos='0.01 0 0' euler='0 0 1'>";
  f += "<geom type='sphere' size='0.1'/>";
  for (int j = 0; j < 90; ++j) f += "</frame>";
  f += "</body></worldbody></mujoco>";
  const ModelDesc df = read_mjcf(f, "frames.xml");
  // The sphere's centre: Σ_j R_z(j°) (0.01, 0, 0), j = 0..89, composed here directly.
  Vec3<bin50> c = Vec3<bin50>::Zero();
  for (int j = 0; j < 90; ++j) {
    const bin50 t = bin50(j) * pi<bin50>() / 180;
    c += Vec3<bin50>(cos(t), sin(t), 0) * from_decimal<bin50>("0.01");
  }
  const Vec3<bin50> com(df.bodies[0].inertial.com[0].as<bin50>(), df.bodies[0].inertial.com[1].as<bin50>(),
                        df.bodies[0].inertial.com[2].as<bin50>());
  EXPECT_LE(max_abs(Vec3<bin50>(com - c)), 1e-47);
}

TEST(MjcfSemantics, NestingBeyondTheParsersDepthIsRefusedWithTheReason) {
  std::string deep = "<mujoco><worldbody>";
  for (int k = 0; k < 120; ++k) deep += "<body><joint/><geom type='sphere' size='0.1'/>";
  for (int k = 0; k < 120; ++k) deep += "</body>";
  deep += "</worldbody></mujoco>";
  try {
    read_mjcf(deep, "deep.xml");
    ADD_FAILURE() << "a 120-deep chain was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("nested at most"), std::string::npos) << e.what();
  }
}

// A computed number as long as a model can make it: Σ_{k=1..n} k as a chain of n − 1 additions (the
// shape of a body's total mass over n geoms). Exactly n(n+1)/2 at every precision; evaluated and
// released without recursion (2·10⁵ nested calls overflow an 8 MiB stack: the reader used to crash
// so on a body of 10⁵ geoms).
TEST(NumExprTest, ALongSumEvaluatesAndIsReleasedWithoutRecursion) {
  const int n = 200000;
  auto leaf = [](double v) {
    auto p = std::make_shared<NumExpr>();
    p->leaf = Num::exact(v);
    return std::shared_ptr<const NumExpr>(std::move(p));
  };
  const size_t before = NumExpr::alive();
  std::shared_ptr<const NumExpr> sum = leaf(1);
  for (int k = 2; k <= n; ++k) {
    auto p = std::make_shared<NumExpr>();
    p->op = NumExpr::Add;
    p->a = sum;
    p->b = leaf(k);
    sum = std::move(p);
  }
  EXPECT_EQ(NumExpr::alive(), before + 2 * static_cast<size_t>(n) - 1);
  const double exact = static_cast<double>(n) * (n + 1) / 2;  // 20000100000, exact in a double
  EXPECT_EQ(sum->eval<double>(), exact);
  EXPECT_TRUE(sum->eval<bin50>() == bin50(exact));
  const auto [value, half] = sum->value_and_half_unit();
  EXPECT_EQ(value, exact);
  // Each leaf k is an exact double carrying half an ulp, k·2⁻⁵³: the sum carries Σ k·2⁻⁵³.
  EXPECT_NEAR(half, exact * 0x1p-53, exact * 0x1p-53 * 1e-12);
  sum.reset();
  EXPECT_EQ(NumExpr::alive(), before);
}

// settotalmass scales every body by S / Σ m_i: one factor in every body's mass. The cost of reading
// and building the model is linear in the bodies (each node of the shared sum evaluated once per
// precision), counted in evaluated operations, not timed (its time: docs/benchmarks.md,
// "Readers"); and the masses then sum to S.
TEST(MjcfSemantics, SettotalmassIsExactAndLinearInTheBodies) {
  auto model = [](int n) {
    std::string x = "<mujoco><compiler settotalmass='10'/><worldbody>";
    for (int k = 0; k < n; ++k)
      x += "<body pos='" + std::to_string(k) + " 0 0'><joint axis='0 1 0'/><geom type='sphere' size='0.0" + std::to_string(100 + k) + "'/></body>";
    return x + "</worldbody></mujoco>";
  };
  auto cost = [&](int n) {
    t_num_expr_operations = 0;
    const ModelDesc d = read_mjcf(model(n), "total.xml");
    const Model<bin50> m = build_model<bin50>(d);
    bin50 total = 0;
    for (const auto& I : m.I) total += I.mass();
    // n roundings of ~S·10⁻⁵⁰ each: within 2·10⁻⁴⁶ for n = 2000.
    EXPECT_LE(static_cast<double>(abs(total - 10)), 1e-44) << n << " bodies";
    return static_cast<double>(t_num_expr_operations);
  };
  const double c500 = cost(500), c1000 = cost(1000), c2000 = cost(2000);
  // Linear: doubling the bodies doubles the operations (quadratic would quadruple them).
  EXPECT_LT(c1000 / c500, 2.5) << c500 << " " << c1000;
  EXPECT_LT(c2000 / c1000, 2.5) << c1000 << " " << c2000;
}

// A body of 10⁵ geoms (MuJoCo loads it): converted, with its mass 10⁵ · ρ · 4/3 π r³ to 50 digits.
TEST(MjcfSemantics, ABodyOfAHundredThousandGeomsConverts) {
  const int n = 100000;
  const fs::path dir = fs::temp_directory_path() / ("rbdref_mjcf_geoms_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  {
    std::ofstream f(dir / "geoms.xml");
    f << "<mujoco><worldbody><body name='b'><joint axis='0 1 0'/>\n";
    for (int k = 0; k < n; ++k) f << "<geom size='0.01' pos='0 0 " << (k % 7) << "'/>\n";
    f << "</body></worldbody></mujoco>\n";
  }
  const CliRun r = run_rbdref({"convert", (dir / "geoms.xml").string(), "--out", (dir / "m.json").string()}, dir.string());
  ASSERT_EQ(r.status, 0) << r.describe() << "\n" << r.err;
  const json m = json::parse(slurp((dir / "m.json").string()));
  const bin50 mass = from_decimal<bin50>(m["bodies"][0]["inertial"]["mass"].get<std::string>());
  const bin50 exact = bin50(n) * 1000 * 4 * pi<bin50>() * pow(from_decimal<bin50>("0.01"), 3) / 3;
  EXPECT_LE(static_cast<double>(abs(mass - exact) / exact), 1e-45) << to_decimal(mass, 50);
  fs::remove_all(dir);
}

// ---- The native adapters' declarations ------------------------------------------------------------

TEST(MjcfAdapters, DeclaredQuantitiesAndLoopJointsAreWhatTheyRun) {
  const fs::path dir = fs::temp_directory_path() / ("rbdref_mjcf_adapters_" + std::to_string(::getpid()));
  fs::create_directories(dir / "capture");
  int adapters = 0;
  for (const char* model : {"quadruped_free", "fourbar_connect"}) {
    const std::string path = kCorpus + "/" + model + ".xml", fx = (dir / (std::string(model) + ".json")).string();
    const CliRun f = run_rbdref({"fixture", path, "--samples", "2", "--out", fx}, (dir / "capture").string());
    ASSERT_EQ(f.status, 0) << f.err;
    const Fixture fix = read_fixture_file(fx);
    for (const auto& a : available_adapters()) {
      const std::string n = a->name();
      if (n.size() < 5 || n.compare(n.size() - 5, 5, "-mjcf") != 0) {
        if (a->imports_source()) EXPECT_NE(a->unsupported(fix), "") << n << " takes an MJCF model as its own";
        continue;
      }
      ++adapters;
      const EngineSupport s = a->support();
      bool expect = true;
      for (const LoopJointDesc& L : fix.model.loop_joints) expect = expect && std::count(s.loop_joints.begin(), s.loop_joints.end(), L.joint.type);
      const std::string why = a->unsupported(fix);
      EXPECT_EQ(why.empty(), expect) << n << " on " << model << ": " << why;
      if (!why.empty()) continue;
      EngineOutput out;
      try {
        out = a->run_source(fix, fx, path);
      } catch (const EngineError& e) {
        // MuJoCo 3 runs from npm, which a machine may lack; MuJoCo 2.2.2 comes from Debian.
        EXPECT_EQ(n, "mujoco-js-mjcf") << e.what();
        continue;
      }
      const std::set<std::string> declared(s.quantities.begin(), s.quantities.end());
      std::set<std::string> produced;
      for (const EngineSample& es : out.samples)
        for (const auto& [q, v] : es.values) produced.insert(q);
      for (const std::string& q : produced) EXPECT_TRUE(declared.count(q)) << n << " outputs undeclared " << q;
      for (const char* q : {"H", "C", "tau", "qdd"}) EXPECT_TRUE(produced.count(q)) << n << " gives no " << q;
      EXPECT_EQ(out.model_echo["status"], "match") << n << " on " << model << ": " << out.model_echo.dump();
      // Its run() needs the file, which only the audit gives.
      EXPECT_THROW(a->run(fix, fx), EngineError);
    }
  }
  EXPECT_GE(adapters, 2);
  fs::remove_all(dir);
}

// ---- Armature --------------------------------------------------------------------------------------

// Random trees with armature on every joint, and the same trees without it.
struct ArmaturePair {
  ModelDesc with, without;
};
ArmaturePair armature_pair(std::uint64_t seed, bool floating) {
  ArmaturePair p;
  p.without = random_tree(tree_spec(7, 1.5, floating), seed);
  p.with = p.without;
  int k = 0;
  for (BodyDesc& b : p.with.bodies) b.joint.armature = Num::decimal(std::to_string(++k) + ".25e-2");
  return p;
}

TEST(Armature, RootJointArmatureIsADiskOnTheAxis) {
  // Armature a on a joint attached to the fixed base, against the same model without armature and
  // with a disk (moments a/2, a/2, a about the joint axis, no mass) welded to the body at the joint
  // frame's origin: H, C, q̈ agree, none of which uses armature.
  int checked = 0;
  for (std::uint64_t seed : {3u, 4u, 5u}) {
    ModelDesc base = random_tree(tree_spec(6, 2.0, false), seed);
    for (BodyDesc& b : base.bodies)  // every root joint revolute, about its own axis (z if it had none)
      if (b.parent == -1 && b.joint.type != JointType::Fixed) b.joint.type = JointType::Revolute;
    ModelDesc with = base, disk = base;
    int n = 0;
    for (size_t b = 0; b < base.bodies.size(); ++b) {
      const BodyDesc& bd = base.bodies[b];
      // A revolute joint: a slider's armature would be a mass moving with it, which gravity pulls.
      if (bd.parent != -1 || bd.joint.type != JointType::Revolute) continue;
      ++n;
      with.bodies[b].joint.armature = Num::decimal("0.37");
      // The disk in the joint frame: I = a/2 (1 + u uᵀ) with u the unit axis.
      const Vec3<bin50> u = Vec3<bin50>(bd.joint.axis[0].as<bin50>(), bd.joint.axis[1].as<bin50>(), bd.joint.axis[2].as<bin50>()).normalized();
      const bin50 a("0.37");
      BodyDesc d;
      d.name = bd.name + "_rotor";
      d.parent = static_cast<int>(b);
      d.joint.type = JointType::Fixed;
      d.joint.name = d.name + "_weld";
      d.where = d.name;
      const Mat3<bin50> I = a / 2 * (Mat3<bin50>::Identity() + u * u.transpose());
      d.inertial.I = {Num::decimal(to_decimal(I(0, 0), 70)), Num::decimal(to_decimal(I(1, 1), 70)), Num::decimal(to_decimal(I(2, 2), 70)),
                      Num::decimal(to_decimal(I(0, 1), 70)), Num::decimal(to_decimal(I(0, 2), 70)), Num::decimal(to_decimal(I(1, 2), 70))};
      disk.bodies.push_back(d);
    }
    if (n == 0) continue;
    ++checked;
    // Welded children after every body: regular numbering holds (parents earlier).
    const RandomCase<bin50> cw = random_case<bin50>(with, 11);
    const Model<bin50> md = build_model<bin50>(disk);
    ASSERT_EQ(md.nv, cw.model.nv);
    const double h = max_abs(crba<bin50>(cw.model, cw.q));
    EXPECT_LE(max_abs(MatX<bin50>(crba<bin50>(cw.model, cw.q) - crba<bin50>(md, cw.q))), 1e-45 * h) << "seed " << seed;
    const VecX<bin50> tw = rnea<bin50>(cw.model, cw.q, cw.qd, cw.qdd), td = rnea<bin50>(md, cw.q, cw.qd, cw.qdd);
    EXPECT_LE(max_abs(VecX<bin50>(tw - td)), 1e-45 * (1 + max_abs(td))) << "seed " << seed;
    const VecX<bin50> aw = aba<bin50>(cw.model, cw.q, cw.qd, cw.tau).qdd, ad = aba<bin50>(md, cw.q, cw.qd, cw.tau).qdd;
    EXPECT_LE(max_abs(VecX<bin50>(aw - ad)), 1e-40 * (1 + max_abs(ad))) << "seed " << seed;
  }
  EXPECT_GE(checked, 2);
}

TEST(Armature, AbaAndTheArticulatedFactorAgreeWithCrbaSolvedDensely) {
  for (bool floating : {false, true})
    for (std::uint64_t seed : {1u, 2u}) {
      const ArmaturePair p = armature_pair(seed, floating);
      const RandomCase<bin50> c = random_case<bin50>(p.with, 21);
      const Model<bin50> m0 = build_model<bin50>(p.without);
      const MatX<bin50> H = crba<bin50>(c.model, c.q), H0 = crba<bin50>(m0, c.q);
      // H gains the armature on its diagonal (one rounding of each sum).
      MatX<bin50> dH = H - H0;
      for (int d = 0; d < c.model.nv; ++d) dH(d, d) -= c.model.armature[static_cast<size_t>(d)];
      EXPECT_LE(max_abs(dH), 1e-49 * max_abs(H));
      // ABA (D_i + armature) against H⁻¹ (τ − C).
      const VecX<bin50> C = bias<bin50>(c.model, c.q, c.qd);
      const VecX<bin50> qdd = Eigen::LLT<MatX<bin50>>(H).solve(VecX<bin50>(c.tau - C));
      EXPECT_LE(max_abs(VecX<bin50>(aba<bin50>(c.model, c.q, c.qd, c.tau).qdd - qdd)), 1e-40 * (1 + max_abs(qdd)));
      // The articulated LᵀDL against H.
      const SparseFactor<bin50> f = ltdl_articulated<bin50>(c.model, c.q);
      ASSERT_TRUE(f.ok);
      const MatX<bin50> L = f.L();
      EXPECT_LE(max_abs(MatX<bin50>(L.transpose() * f.D().asDiagonal() * L - H)), 1e-40 * max_abs(H));
      // RNEA adds a q̈; the kinetic energy ½ q̇ᵀ H q̇.
      const VecX<bin50> tau0 = rnea<bin50>(m0, c.q, c.qd, c.qdd);
      VecX<bin50> arm(c.model.nv);
      for (int d = 0; d < c.model.nv; ++d) arm(d) = c.model.armature[static_cast<size_t>(d)] * c.qdd(d);
      EXPECT_LE(max_abs(VecX<bin50>(rnea<bin50>(c.model, c.q, c.qd, c.qdd) - tau0 - arm)), 1e-45 * (1 + max_abs(tau0)));
      const bin50 T = energy<bin50>(c.model, c.q, c.qd).kinetic, Th = c.qd.dot(H * c.qd) / 2;
      EXPECT_LE(static_cast<double>(abs(T - Th)), 1e-45 * (1 + static_cast<double>(abs(Th))));
    }
}

TEST(Armature, CanonicalJsonCarriesItAndANegativeOneIsRefused) {
  const ArmaturePair p = armature_pair(7, false);
  const json j = model_to_json(p.with);
  const ModelDesc back = read_model_json(j, "m.json");
  for (size_t b = 0; b < back.bodies.size(); ++b) EXPECT_EQ(back.bodies[b].joint.armature.str(), p.with.bodies[b].joint.armature.str());
  EXPECT_FALSE(model_to_json(p.without).dump().find("armature") != std::string::npos) << "no armature field when there is none";
  ModelDesc bad = p.with;
  bad.bodies[0].joint.armature = Num::decimal("-0.1");
  try {
    build_model<double>(bad);
    ADD_FAILURE() << "negative armature accepted";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("negative armature"), std::string::npos) << e.what();
  }
}

TEST(Armature, EnginesWithoutItReportTheModelUnsupported) {
  const ArmaturePair p = armature_pair(8, false);
  Fixture f;
  f.model = p.with;
  f.source_kind = "json";
  for (const auto& a : available_adapters()) {
    if (a->imports_source()) continue;
    const std::string why = a->unsupported(f);
    if (!a->support().armature) EXPECT_NE(why.find("armature"), std::string::npos) << a->name() << ": " << why;
    else EXPECT_EQ(why.find("armature"), std::string::npos) << a->name() << ": " << why;
  }
}

}  // namespace
}  // namespace rbd::test
