#include "fuzz/harness.hpp"

#include "certify/precision.hpp"
#include "fixtures/fixture.hpp"
#include "io/engine_output.hpp"
#include "io/model_io.hpp"
#include "io/state_io.hpp"
#include "reference/tree/crba.hpp"
#include "reference/loops/assembly.hpp"
#include "reference/loops/clusters.hpp"
#include "reference/loops/fd_kkt.hpp"
#include "reference/loops/fd_lambda.hpp"
#include "reference/loops/fd_projection.hpp"
#include "reference/tree/rnea.hpp"

#include <cxxabi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <typeinfo>

namespace rbd::fuzz {

namespace fs = std::filesystem;

namespace {

// The bytes as a file: one scratch file per process (in /dev/shm when there is one), rewritten for
// every input and removed at exit, so that each target goes through the command's own file
// readers (read_json_file, load_model, read_fixture_file, read_engine_output_file).
class ScratchFile {
 public:
  ScratchFile() {
    const fs::path dir = fs::is_directory("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
    path_ = (dir / ("rbdref_fuzz_" + std::to_string(::getpid()) + ".input")).string();
  }
  ~ScratchFile() { std::remove(path_.c_str()); }
  const std::string& write(const std::string& bytes) {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) throw std::runtime_error("fuzz harness: cannot write the scratch file " + path_);
    return path_;
  }

 private:
  std::string path_;
};

const std::string& as_file(const std::string& bytes) {
  static ScratchFile f;
  return f.write(bytes);
}

// What the commands do with a model that load_model accepted: convert writes its canonical JSON,
// which must read back as the same model; eval and fixture build it at the working precision
// (bin50 by default). load_model has checked the model, so any exception here is a finding.
void use_model(const ModelDesc& desc) {
  const json canonical = model_to_json(desc);
  ModelDesc back;
  try {
    back = read_model_json(canonical, "canonical");
  } catch (const InputError& e) {
    throw std::logic_error(std::string("the canonical JSON of an accepted model does not read back: ") + e.what());
  }
  if (model_to_json(back) != canonical)
    throw std::logic_error("the canonical JSON of an accepted model reads back as another model");
  // load_model checked the model in long double; bin50 must agree (the command would still exit 2,
  // naming the file, but with a verdict that depends on the precision).
  try {
    (void)build_model<bin50>(desc);
  } catch (const ModelError& e) {
    throw std::logic_error(std::string("a model accepted by load_model fails at bin50: ") + e.what());
  }
  // A loop model: what eval and assemble run on it, at double, from the zero configuration (unit
  // quaternions). Degeneracy (a singular H, a loop that cannot close) is data; an exception or a
  // crash is a finding. Small models only, so a fuzzing step stays fast.
  if (!desc.loop_joints.empty()) {
    const Model<double> m = build_model<double>(desc);
    if (m.nv > 40 || m.nc > 60) return;
    VecX<double> q = VecX<double>::Zero(m.nq), qd = VecX<double>::Ones(m.nv);
    for (int i = 0; i < m.NB; ++i)
      if (m.joint[i].type == JointType::Spherical || m.joint[i].type == JointType::Free) q(m.iq[i]) = 1;
    const Assembly<double> a = assemble<double>(m, q, qd, 5);
    const MatX<double> H = crba<double>(m, a.q);
    const VecX<double> C = bias<double>(m, a.q, a.qd);
    const LoopConstraints<double> lc = loop_constraints<double>(m, a.q, a.qd);
    (void)loop_fd_kkt<double>(H, VecX<double>(-C), lc.K, lc.k);
    (void)loop_fd_lambda<double>(H, m.dof_parent, VecX<double>(-C), lc.K, lc.k);
    (void)loop_fd_projection<double>(H, VecX<double>(-C), lc.K, lc.k);
    (void)clustered_null_space<double>(m, lc.K, lc.k);
  }
}

void run_urdf(const std::string& bytes) {
  const std::string& file = as_file(bytes);
  // Both readings of the same file, without and with --floating-base; each may reject it.
  for (const bool floating : {false, true}) {
    UrdfOptions opt;
    opt.floating_base = floating;
    try {
      use_model(load_model(file, opt).desc);
    } catch (const InputError&) {
    }
  }
}

void run_model_json(const std::string& bytes) { use_model(load_model(as_file(bytes)).desc); }

void run_mjcf(const std::string& bytes) { use_model(load_model(as_file(bytes)).desc); }

const Model<double>& state_model() {
  static const Model<double> m = build_model<double>(read_model_json(json::parse(state_model_json()), "state_model"));
  return m;
}

void run_state(const std::string& bytes) {
  const std::string& file = as_file(bytes);
  const StateDesc s = read_state(read_json_file(file), file, state_model());
  // eval: the state at the working precision (double for the layout checks, bin50 by default).
  for (const std::vector<Num>* v : {&s.q, &s.qd, &s.qdd, &s.tau}) {
    (void)to_vec<double>(*v);
    (void)to_vec<bin50>(*v);
  }
}

void run_fixture(const std::string& bytes) {
  const Fixture f = read_fixture_file(as_file(bytes));
  // compare: every reference value read in MPFR.
  ScopedMpfrDigits digits(60);
  for (const Sample& s : f.samples)
    for (const Quantity& q : s.ref.quantities)
      for (const std::string& v : q.values) (void)from_decimal<mpfr>(v);
}

void run_engine_output(const std::string& bytes) {
  const std::string& file = as_file(bytes);
  const EngineOutput e = read_engine_output_file(file);
  (void)e.epsilon(file);
  // compare and audit: the model echo's verdict.
  if (e.model_echo.is_object()) (void)e.model_echo.value("status", "");
  // compare and check: inputs as doubles, values as doubles and in MPFR.
  ScopedMpfrDigits digits(60);
  for (const EngineSample& s : e.samples) {
    for (const std::vector<Num>* v : {&s.q, &s.qd, &s.qdd, &s.tau})
      for (const Num& n : *v) (void)n.as<double>();
    for (const auto& [name, m] : s.values)
      for (const Num& n : m.v) {
        (void)n.as<double>();
        (void)n.as<mpfr>();
      }
  }
}

std::string type_name(const std::type_info& t) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(t.name(), nullptr, nullptr, &status), std::free);
  return status == 0 && d ? d.get() : t.name();
}

}  // namespace

const char* state_model_json() {
  return R"({"format": "rbdref.model", "version": 1, "name": "every_joint",
  "bodies": [
    {"name": "base", "parent": null, "joint": {"name": "root", "type": "free"},
     "inertial": {"mass": "2", "com": ["0", "0", "0.1"], "I": {"ixx": "0.2", "iyy": "0.3", "izz": "0.4", "ixy": "0", "ixz": "0", "iyz": "0"}}},
    {"name": "b1", "parent": "base", "joint": {"name": "ball", "type": "spherical"}, "origin": {"xyz": ["0", "0", "0.5"]},
     "inertial": {"mass": "1", "com": ["0", "0", "0.2"], "I": {"ixx": "0.1", "iyy": "0.1", "izz": "0.05", "ixy": "0", "ixz": "0", "iyz": "0"}}},
    {"name": "b2", "parent": "b1", "joint": {"name": "hinge", "type": "revolute", "axis": ["0", "1", "0"]}, "origin": {"xyz": ["0", "0", "0.4"]},
     "inertial": {"mass": "1", "com": ["0.1", "0", "0"], "I": {"ixx": "0.1", "iyy": "0.1", "izz": "0.05", "ixy": "0", "ixz": "0", "iyz": "0"}}},
    {"name": "b3", "parent": "b2", "joint": {"name": "slide", "type": "prismatic", "axis": ["1", "0", "0"]},
     "inertial": {"mass": "1", "com": ["0", "0", "0"], "I": {"ixx": "0.1", "iyy": "0.1", "izz": "0.05", "ixy": "0", "ixz": "0", "iyz": "0"}}},
    {"name": "b4", "parent": "b3", "joint": {"name": "screw", "type": "helical", "axis": ["0", "0", "1"], "pitch": "0.01"},
     "inertial": {"mass": "1", "com": ["0", "0", "0"], "I": {"ixx": "0.1", "iyy": "0.1", "izz": "0.05", "ixy": "0", "ixz": "0", "iyz": "0"}}},
    {"name": "b5", "parent": "b4", "joint": {"name": "cyl", "type": "cylindrical", "axis": ["0", "0", "1"]},
     "inertial": {"mass": "1", "com": ["0", "0", "0"], "I": {"ixx": "0.1", "iyy": "0.1", "izz": "0.05", "ixy": "0", "ixz": "0", "iyz": "0"}}},
    {"name": "b6", "parent": "b5", "joint": {"name": "plane", "type": "planar", "axis": ["0", "0", "1"]},
     "inertial": {"mass": "1", "com": ["0", "0", "0"], "I": {"ixx": "0.1", "iyy": "0.1", "izz": "0.05", "ixy": "0", "ixz": "0", "iyz": "0"}}},
    {"name": "tip", "parent": "b6", "joint": {"name": "weld", "type": "fixed"}, "origin": {"xyz": ["0.1", "0", "0"]},
     "inertial": {"mass": "0.5", "com": ["0", "0", "0"], "I": {"ixx": "0.01", "iyy": "0.01", "izz": "0.01", "ixy": "0", "ixz": "0", "iyz": "0"}}}
  ]})";
}

const std::vector<Target>& targets() {
  static const std::vector<Target> t{{"urdf", run_urdf},
                                     {"model_json", run_model_json},
                                     {"mjcf", run_mjcf},
                                     {"state", run_state},
                                     {"fixture", run_fixture},
                                     {"engine_output", run_engine_output}};
  return t;
}

const Target* find_target(const std::string& name) {
  for (const Target& t : targets())
    if (name == t.name) return &t;
  return nullptr;
}

std::string finding(const Target& t, const std::string& bytes) {
  try {
    t.run(bytes);
  } catch (const InputError&) {
    return "";
  } catch (const std::exception& e) {
    return type_name(typeid(e)) + ": " + e.what();
  } catch (...) {
    return "an exception not derived from std::exception";
  }
  return "";
}

}  // namespace rbd::fuzz
