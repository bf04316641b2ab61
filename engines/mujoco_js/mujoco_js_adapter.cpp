// MuJoCo 3 (WebAssembly, under Node.js) adapter: see mujoco_js_adapter.hpp.
#include "engines/mujoco_js/mujoco_js_adapter.hpp"

#include "engines/mujoco/mjcf.hpp"
#include "engines/support.hpp"
#include "engines/values.hpp"
#include "io/cleanup.hpp"
#include "io/model_io.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <algorithm>

#ifndef RBDREF_MUJOCO_JS_DIR
#define RBDREF_MUJOCO_JS_DIR "engines/mujoco_js"
#endif
#ifndef RBDREF_NODE
#define RBDREF_NODE "node"
#endif

extern char** environ;

namespace rbd {

namespace {

using namespace mjcf;

// A temporary file that is removed when it goes out of scope.
struct TempFile {
  std::string path;
  explicit TempFile(const char* suffix) {
    std::string t = std::string(std::getenv("TMPDIR") && *std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
                    "/rbdref-mujoco-js-XXXXXX" + suffix;
    const int fd = ::mkstemps(t.data(), static_cast<int>(std::string(suffix).size()));
    if (fd < 0) throw EngineError("mujoco-js: cannot create a temporary file in " + t);
    ::close(fd);
    path = t;
    register_temporary(path);  // removed if rbdref is interrupted meanwhile
  }
  ~TempFile() {
    std::remove(path.c_str());
    forget_temporary(path);
  }
};

// node run_mujoco.mjs IN OUT, its stdout and stderr into a file; the OUT document, or EngineError
// with what the script said.
json run_script(const json& input) {
  const std::string dir = RBDREF_MUJOCO_JS_DIR, script = dir + "/run_mujoco.mjs";
  struct stat st;
  if (::stat((dir + "/node_modules/mujoco-js/package.json").c_str(), &st) != 0)
    throw EngineError("mujoco-js is not installed in " + dir + "/node_modules (run scripts/setup.sh, which runs npm ci there)");
  TempFile in(".json"), out(".json"), log(".log");
  {
    std::ofstream f(in.path, std::ios::binary);
    f << input.dump();
    if (!f) throw EngineError("mujoco-js: cannot write " + in.path);
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.path.c_str(), O_WRONLY | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  std::string node = RBDREF_NODE;
  std::vector<char*> argv{node.data(), const_cast<char*>(script.c_str()), in.path.data(), out.path.data(), nullptr};
  pid_t pid = 0;
  // Node gets the ordinary signal mask: rbdref blocks SIGINT and SIGTERM in its own threads to
  // handle them in one (io/cleanup.hpp), and a blocked mask would be inherited.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  const sigset_t mask = unblocked_signal_mask();
  posix_spawnattr_setsigmask(&attr, &mask);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
  const int rc = ::posix_spawnp(&pid, node.c_str(), &fa, &attr, argv.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw EngineError("mujoco-js: cannot start " + node + " (" + std::strerror(rc) + "); Node.js is needed");
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const std::string text = file_text(out.path);
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception&) {
    throw EngineError("mujoco-js: " + script + " wrote no result (" +
                      (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status)) : std::string("killed")) +
                      "): " + file_text(log.path));
  }
  if (doc.is_object() && doc.contains("error")) throw EngineError(doc["error"].is_string() ? doc["error"].get<std::string>() : doc["error"].dump());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw EngineError("mujoco-js: the script failed: " + file_text(log.path));
  return doc;
}

// An array field of the script's output, as doubles; EngineError when absent or not numbers.
std::vector<double> doubles(const json& j, const char* key, size_t n) {
  if (!j.contains(key) || !j[key].is_array() || j[key].size() != n)
    throw EngineError(std::string("mujoco-js: the script's output lacks ") + key + " of " + std::to_string(n) + " numbers");
  std::vector<double> v;
  for (const json& x : j[key]) {
    if (!x.is_number()) throw EngineError(std::string("mujoco-js: the script's output has a non-number in ") + key);
    v.push_back(x.get<double>());
  }
  return v;
}
int count(const json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number_integer() || j[key].get<int>() < 0)
    throw EngineError(std::string("mujoco-js: the script's output lacks the count ") + key);
  return j[key];
}
VecX<B> vec_of(const std::vector<double>& x) {
  VecX<B> v(static_cast<Eigen::Index>(x.size()));
  for (size_t k = 0; k < x.size(); ++k) v(static_cast<Eigen::Index>(k)) = B(x[k]);
  return v;
}

// The script's input: the model, as the MJCF rbdref writes (source empty), or the user's MJCF
// (`mjcf`) and the files it includes, or the user's URDF; MuJoCo's own import of the user's file
// loads it with the constraints disabled.
json script_input(const Model<B>& m, const std::string& name, const std::string& source, bool mjcf) {
  json input;
  if (source.empty()) {
    input["mjcf"] = mjcf_of(m, name, MjcfDialect::MuJoCo3);
  } else if (mjcf) {
    input["mjcf"] = file_text(source);
    input["files"] = json::object();
    const std::string dir = source.substr(0, source.find_last_of('/') + 1);  // includes are relative to the model's folder
    for (const std::string& inc : mjcf_includes(source)) input["files"][inc] = file_text(dir + inc);
    input["disable_constraints"] = true;
    input["qpos0_view"] = true;
  } else {
    if (!std::ifstream(source, std::ios::binary)) throw EngineError("cannot read the URDF " + source);
    input["urdf"] = file_text(source);
    input["disable_constraints"] = true;
  }
  return input;
}

// MuJoCo's DoF and qpos address of each rbdref body's joint.
struct MjAddresses {
  std::vector<int> dof, qpos;
};

// The addresses in the MJCF rbdref writes: MuJoCo orders DoFs by body, depth first, in the order
// the MJCF lists them, and mjcf_of writes the bodies depth first from rbdref's body order; the
// script's jnt_dofadr is checked against them (read_script_model).
MjAddresses depth_first_addresses(const Model<B>& m) {
  std::vector<std::vector<int>> children(m.NB);
  std::vector<int> roots;
  for (int i = 0; i < m.NB; ++i) (m.parent[i] < 0 ? roots : children[m.parent[i]]).push_back(i);
  MjAddresses a{std::vector<int>(m.NB), std::vector<int>(m.NB)};
  int dof = 0, qp = 0;
  std::vector<int> stack(roots.rbegin(), roots.rend());
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    a.dof[i] = dof, a.qpos[i] = qp;
    dof += m.nvi[i], qp += m.nqi[i];
    for (auto it = children[i].rbegin(); it != children[i].rend(); ++it) stack.push_back(*it);
  }
  return a;
}

// The first pass: the model loaded alone (no sample). When the script fails, retry(what it said)
// may change `input` and return true to load it once more; false rethrows the script's error.
template <class Retry>
json first_pass(json& input, Retry&& retry) {
  const auto alone = [&] {
    json probe = input;
    probe["samples"] = json::array();
    return run_script(probe);
  };
  try {
    return alone();
  } catch (const EngineError& e) {
    if (!retry(std::string(e.what()))) throw;
  }
  return alone();
}

// MuJoCo's own MJCF import at qpos0, as the first pass returns it (the echo's view).
MjWorldView world_view_of(const json& o0) {
  MjWorldView wv;
  wv.nbody = count(o0, "nbody"), wv.njnt = count(o0, "njnt"), wv.nq = count(o0, "nq"), wv.nv = count(o0, "nv");
  auto ints = [&](const char* key, size_t n) {
    std::vector<int> out;
    for (double x : doubles(o0, key, n)) out.push_back(static_cast<int>(x));
    return out;
  };
  const size_t nb = static_cast<size_t>(wv.nbody), nj = static_cast<size_t>(wv.njnt);
  for (const json& n : o0.value("jnt_names", json::array())) wv.jnt_names.push_back(n.is_string() ? n.get<std::string>() : "");
  wv.jnt_names.resize(nj);
  wv.body_weldid = ints("body_weldid", nb), wv.jnt_type = ints("jnt_type", nj), wv.jnt_bodyid = ints("jnt_bodyid", nj);
  wv.jnt_qposadr = ints("jnt_qposadr", nj), wv.jnt_dofadr = ints("jnt_dofadr", nj);
  wv.body_mass = doubles(o0, "body_mass", nb), wv.body_inertia = doubles(o0, "body_inertia", 3 * nb);
  wv.xipos = doubles(o0, "xipos", 3 * nb), wv.ximat = doubles(o0, "ximat", 9 * nb);
  wv.xanchor = doubles(o0, "xanchor", 3 * nj), wv.xaxis = doubles(o0, "xaxis", 3 * nj);
  wv.dof_armature = doubles(o0, "dof_armature", static_cast<size_t>(wv.nv)), wv.qpos0 = doubles(o0, "qpos0", static_cast<size_t>(wv.nq));
  const std::vector<double> g = doubles(o0, "gravity", 3);
  for (int k = 0; k < 3; ++k) wv.gravity[k] = g[static_cast<size_t>(k)];
  return wv;
}

// What the first pass of an import path tells: the note on what was removed for MuJoCo to load the
// model, and for MJCF the echo's view and rbdref's joint of each MuJoCo joint.
struct FirstPass {
  std::string note;
  MjWorldView wv;
  std::vector<int> jmap;
};

// MuJoCo 3's MJCF import: the asset files are not in the module's file system, so a model that
// names them is loaded again without them; the addresses are MuJoCo's joints' mapped in order.
FirstPass probe_mjcf(json& input, const Model<B>& m, MjAddresses& a) {
  FirstPass p;
  const json o0 = first_pass(input, [&](const std::string& first) {
    if (first.find("file") == std::string::npos && first.find("resource") == std::string::npos) return false;
    int removed = 0, more = 0;
    input["mjcf"] = strip_mjcf_assets(input["mjcf"].get<std::string>(), &removed);
    for (auto& [path, text] : input["files"].items()) text = strip_mjcf_assets(text.get<std::string>(), &more), removed += more;
    if (removed == 0) return false;
    p.note = "MuJoCo could not load the MJCF as written (" + first + "); it was loaded with its " + std::to_string(removed) +
             " asset files and the geoms using them removed: those files are not in the module's file system";
    return true;
  });
  p.wv = world_view_of(o0);
  std::string bad;
  p.jmap = mjcf_joint_map(p.wv, m, bad);
  if (p.jmap.empty()) throw EngineError("MuJoCo's joints are not rbdref's: " + bad);
  for (size_t j = 0; j < p.jmap.size(); ++j) {
    a.dof[static_cast<size_t>(p.jmap[j])] = p.wv.jnt_dofadr[j];
    a.qpos[static_cast<size_t>(p.jmap[j])] = p.wv.jnt_qposadr[j];
  }
  return p;
}

// MuJoCo 3's URDF import orders the bodies its own way: the addresses of each rbdref joint come by
// name from the first pass. A URDF whose meshes are not at hand is loaded again without them; an
// inertia MuJoCo refuses is a refusal (EngineRefusal).
FirstPass probe_urdf(json& input, const Model<B>& m, MjAddresses& a) {
  FirstPass p;
  const json o0 = first_pass(input, [&](const std::string& first) {
    int removed = 0;
    const std::string stripped = strip_urdf_geometry(input["urdf"].get<std::string>(), &removed);
    const bool files = first.find("file") != std::string::npos || first.find("resource") != std::string::npos ||
                       first.find("mesh") != std::string::npos;
    if (first.find("inertia") != std::string::npos || first.find("mass") != std::string::npos)
      throw EngineRefusal(first + " (MuJoCo checks each link's own inertia before it fuses fixed links; rbdref checks the fused body)");
    if (!files || removed == 0) return false;
    // The meshes a URDF names are not in the module's file system: the URDF without its <visual>
    // and <collision> elements (no dynamics in them), and a note saying so.
    input["urdf"] = stripped;
    p.note = "MuJoCo could not load the URDF as written (" + first + "); it was loaded with its " + std::to_string(removed) +
             " <visual> and <collision> elements removed: their mesh files are not at hand, and the dynamics is the <inertial>s'";
    return true;
  });
  std::vector<std::string> names;
  if (!o0.contains("jnt_names") || !o0["jnt_names"].is_array()) throw EngineError("mujoco-js: the script's output lacks jnt_names");
  for (const json& n : o0["jnt_names"]) names.push_back(n.is_string() ? n.get<std::string>() : "");
  const std::vector<double> dofadr = doubles(o0, "jnt_dofadr", names.size()), qposadr = doubles(o0, "jnt_qposadr", names.size());
  for (int i = 0; i < m.NB; ++i) {
    const auto it = std::find(names.begin(), names.end(), mj_joint_names(m, i)[0]);
    if (it == names.end()) throw EngineError("MuJoCo's URDF import has no joint '" + mj_joint_names(m, i)[0] + "'");
    a.dof[i] = static_cast<int>(dofadr[static_cast<size_t>(it - names.begin())]);
    a.qpos[i] = static_cast<int>(qposadr[static_cast<size_t>(it - names.begin())]);
  }
  return p;
}

// Every sample's inputs in MuJoCo's coordinates (qpos, qvel = J q̇, qfrc_applied = J τ, qacc =
// J q̈ + J̇v) into input["samples"]; the maps, per sample, for the way back.
std::vector<MujocoMap> put_samples(json& input, const Model<B>& m, const Fixture& f, const MjAddresses& a) {
  std::vector<MujocoMap> maps;
  json samples = json::array();
  for (const Sample& s : f.samples) {
    maps.push_back(mujoco_map(m, a.dof, s.q, s.qd));
    const MujocoMap& map = maps.back();
    std::vector<double> qpos(static_cast<size_t>(m.nq));
    set_qpos(m, a.qpos, s.q, qpos.data());
    const VecX<B> qd = vec_of(s.qd), qdd = vec_of(s.qdd), tau = vec_of(s.tau);
    samples.push_back({{"qpos", qpos}, {"qvel", to_doubles(VecX<B>(map.J * qd))}, {"qfrc_applied", to_doubles(VecX<B>(map.J * tau))},
                       {"qacc", to_doubles(VecX<B>(map.J * qdd + map.Jdot_v))}});
  }
  input["samples"] = samples;
  return maps;
}

// The model the script ran, as its output gives it: sizes checked against rbdref's, the arrays
// the echo reads (MjModelView points into them: not copied), and qLD's compressed row layout.
struct ScriptModel {
  int nbody = 0, njnt = 0, neq = 0;
  std::vector<std::string> body_names, jnt_names;
  std::vector<double> body_mass, body_ipos, body_iquat, body_inertia, body_pos, body_quat, jnt_axis, jnt_dofadr, gravity;
  std::vector<double> rownnz, rowadr, colind;
  ScriptModel() = default;
  ScriptModel(const ScriptModel&) = delete;
  ScriptModel& operator=(const ScriptModel&) = delete;
};

// The echo's view of a ScriptModel (rbdref's nq and nv: checked equal to MuJoCo's).
MjModelView view_of(const ScriptModel& sm, const Model<B>& m) {
  auto id_in = [](const std::vector<std::string>& names) {
    return [names](const std::string& n) {
      for (size_t k = 0; k < names.size(); ++k)
        if (names[k] == n) return static_cast<int>(k);
      return -1;
    };
  };
  MjModelView view;
  view.body_id = id_in(sm.body_names);
  view.joint_id = id_in(sm.jnt_names);
  view.body_mass = sm.body_mass.data(), view.body_ipos = sm.body_ipos.data(), view.body_iquat = sm.body_iquat.data();
  view.body_inertia = sm.body_inertia.data(), view.body_pos = sm.body_pos.data(), view.body_quat = sm.body_quat.data();
  view.jnt_axis = sm.jnt_axis.data();
  for (int k = 0; k < 3; ++k) view.gravity[k] = sm.gravity[static_cast<size_t>(k)];
  view.nbody = sm.nbody, view.njnt = sm.njnt, view.nq = m.nq, view.nv = m.nv, view.neq = sm.neq;
  return view;
}

// Reads the script's model from its output o into sm; check_order: MuJoCo's DoF address of each
// rbdref joint must be a.dof (not for MuJoCo's MJCF import, whose joints are mapped in order).
void read_script_model(const json& o, const Model<B>& m, const MjAddresses& a, bool check_order, ScriptModel& sm) {
  const int nv = m.nv;
  if (count(o, "nv") != nv || count(o, "nq") != m.nq)
    throw EngineError("MuJoCo's model has nq " + std::to_string(count(o, "nq")) + ", nv " + std::to_string(count(o, "nv")) +
                      "; rbdref's has nq " + std::to_string(m.nq) + ", nv " + std::to_string(nv));
  sm.nbody = count(o, "nbody"), sm.njnt = count(o, "njnt");
  // Names → ids, and the echo's view of the arrays.
  for (const char* key : {"body_names", "jnt_names"}) {
    if (!o.contains(key) || !o[key].is_array()) throw EngineError(std::string("mujoco-js: the script's output lacks ") + key);
    for (const json& n : o[key]) (std::string(key) == "body_names" ? sm.body_names : sm.jnt_names).push_back(n.is_string() ? n.get<std::string>() : "");
  }
  const int nbody = sm.nbody, njnt = sm.njnt;
  sm.body_mass = doubles(o, "body_mass", nbody), sm.body_ipos = doubles(o, "body_ipos", 3 * nbody);
  sm.body_iquat = doubles(o, "body_iquat", 4 * nbody), sm.body_inertia = doubles(o, "body_inertia", 3 * nbody);
  sm.body_pos = doubles(o, "body_pos", 3 * nbody), sm.body_quat = doubles(o, "body_quat", 4 * nbody);
  sm.jnt_axis = doubles(o, "jnt_axis", 3 * njnt), sm.jnt_dofadr = doubles(o, "jnt_dofadr", njnt);
  sm.gravity = doubles(o, "gravity", 3);
  sm.neq = count(o, "neq");
  for (int i = 0; i < m.NB && check_order; ++i) {
    const auto it = std::find(sm.jnt_names.begin(), sm.jnt_names.end(), mj_joint_names(m, i)[0]);
    if (it == sm.jnt_names.end()) throw EngineError("MuJoCo's model lacks joint '" + mj_joint_names(m, i)[0] + "'");
    const int dofadr = static_cast<int>(sm.jnt_dofadr[static_cast<size_t>(it - sm.jnt_names.begin())]);
    if (dofadr != a.dof[i])
      throw EngineError("MuJoCo ordered the DoFs otherwise than the MJCF's depth-first body order: joint '" + m.joint_name[i] +
                        "' at DoF " + std::to_string(dofadr) + ", expected " + std::to_string(a.dof[i]));
  }
  sm.rownnz = doubles(o, "M_rownnz", nv), sm.rowadr = doubles(o, "M_rowadr", nv);
  if (o.contains("M_colind") && o["M_colind"].is_array()) sm.colind = doubles(o, "M_colind", o["M_colind"].size());
}

// One sample's values: the script's result r for the inputs `sent`, converted with its map.
EngineSample sample_of(const json& r, const json& sent, const Sample& s, const MujocoMap& map, const ScriptModel& sm, int nv) {
  EngineSample es = engine_sample_of(s);
  const std::vector<double> M = doubles(r, "H", static_cast<size_t>(nv) * nv), bias = doubles(r, "qfrc_bias", nv),
                            qacc = doubles(r, "qacc", nv), finv = doubles(r, "qfrc_inverse", nv),
                            qLD = doubles(r, "qLD", sm.colind.size());
  MatX<B> L = MatX<B>::Identity(nv, nv);
  VecX<B> D(nv);
  for (int i = 0; i < nv; ++i) {
    const int a = static_cast<int>(sm.rowadr[i]), n = static_cast<int>(sm.rownnz[i]);
    if (n < 1 || a < 0 || a + n > static_cast<int>(sm.colind.size()) || static_cast<int>(sm.colind[a + n - 1]) != i)
      throw EngineError("mujoco-js: qLD row " + std::to_string(i) + " is not in the compressed layout this adapter reads");
    for (int k = 0; k < n - 1; ++k) L(i, static_cast<int>(sm.colind[a + k])) = B(qLD[a + k]);
    D(i) = B(qLD[a + n - 1]);
  }
  es.raw["note"] = "values in MuJoCo's conventions and DoF order, before conversion";
  es.raw["qpos"] = sent["qpos"];
  es.raw["qvel"] = sent["qvel"];
  es.raw["qfrc_applied"] = sent["qfrc_applied"];
  es.raw["qacc_in"] = sent["qacc"];
  es.raw["H"] = r["H"];
  es.raw["qfrc_bias"] = bias;
  es.raw["qacc"] = qacc;
  es.raw["qLD"] = qLD;
  es.raw["qfrc_inverse"] = finv;
  put_tree_values(map, M, bias, finv, qacc, L, D, es);
  return es;
}

class MujocoJsAdapter : public EngineAdapter {
 public:
  // What MuJoCo 3 loads: the MJCF rbdref writes ("mujoco-js"), or its own import of the user's
  // URDF ("mujoco-js-urdf") or MJCF ("mujoco-js-mjcf").
  enum class Source { Written, Urdf, Mjcf };
  explicit MujocoJsAdapter(Source src) : urdf_(src == Source::Urdf), mjcf_(src == Source::Mjcf) {}
  std::string name() const override { return urdf_ ? "mujoco-js-urdf" : mjcf_ ? "mujoco-js-mjcf" : "mujoco-js"; }
  bool imports_source() const override { return urdf_ || mjcf_; }
  // MuJoCo's own version string, asked of the WebAssembly module once.
  std::string version() const override {
    static const std::string v = [] {
      try {
        const json d = run_script({{"version_only", true}});
        return d.value("version", std::string("unknown")) + " (WebAssembly, npm mujoco-js 0.0.7)";
      } catch (const EngineError& e) {
        return std::string("unavailable: ") + e.what();
      }
    }();
    return v;
  }
  EngineSupport support() const override {
    EngineSupport s;
    s.joints = {JointType::Revolute, JointType::Prismatic, JointType::Cylindrical, JointType::Planar, JointType::Spherical, JointType::Free};
    s.quantities = {"H", "C", "tau", "qdd", "L", "D"};
    s.armature = true;
    s.import_path = "MJCF written by rbdref (principal inertias at 50 digits), MuJoCo 3 dialect";
    if (urdf_) {
      s.joints = {JointType::Revolute, JointType::Prismatic};
      s.armature = false;
      s.import_path = "MuJoCo 3's own URDF import (the URDF's text loaded by the WebAssembly module)";
    }
    if (mjcf_) {
      s.joints = {JointType::Revolute, JointType::Prismatic, JointType::Spherical, JointType::Free};
      s.import_path = "MuJoCo 3's own MJCF import (the user's MJCF and its included files loaded by the WebAssembly module)";
    }
    return s;
  }
  std::string unsupported(const Fixture& f) const override {
    const std::string loop = "the mujoco-js adapter runs trees (loop equality anchors are not written through the WebAssembly bindings)";
    Refusals w = refusals(urdf_, loop);
    if (!urdf_ && !mjcf_) w.massless = kMjMassless;
    const EngineSupport s = support();
    const Model<double> m = build_model<double>(f.model);
    if (mjcf_ && f.source_kind != "mjcf") return "the model was not read from MJCF (this adapter audits MuJoCo 3's own MJCF import)";
    if (urdf_) {  // the source, then the URDF's joints before its loop joints
      if (std::string why = not_from_urdf(f, "MuJoCo 3's URDF import"); !why.empty()) return why;
      for (int i = 0; i < m.NB; ++i)
        if (std::string why = unsupported_joint(s, w, m, i); !why.empty()) return why;
    }
    if (std::string why = unsupported_by(s, w, m); !why.empty()) return why;
    return inertia_refusal(m);
  }
  EngineOutput run(const Fixture& f, const std::string& fixture_file) const override {
    if (urdf_) throw_needs_source(*this, f);
    if (mjcf_) throw EngineError(name() + " reads the model's MJCF itself: run it through the audit, which gives it the file (" + f.source_file + ")");
    return guarded_run(*this, f, "MuJoCo (WebAssembly)", [&] { return run_checked(f, fixture_file, ""); });
  }
  EngineOutput run_source(const Fixture& f, const std::string& fixture_file, const std::string& source) const override {
    if (!urdf_ && !mjcf_) return run(f, fixture_file);
    return guarded_run(*this, f, "MuJoCo (WebAssembly)", [&] { return run_checked(f, fixture_file, source); });
  }

 private:
  bool urdf_, mjcf_;

  // The run's stages: the script's input and the samples in MuJoCo's coordinates, one Node start
  // for them all, then the script's model checked and each sample converted back. source: the
  // user's URDF or MJCF (MuJoCo 3's own import), or empty for the MJCF rbdref writes. The
  // addresses of an import path come from a first pass that loads the model alone; those of the
  // written MJCF are rbdref's depth-first body order, which its DoF order is checked against.
  EngineOutput run_checked(const Fixture& f, const std::string& fixture_file, const std::string& source) const {
    Model<B> m = build_model<B>(f.model);
    const bool had_contacts = !m.contacts.empty();
    m.contacts.clear();  // trees only: the MJCF gets no contact geoms and the solver stays off
    json input = script_input(m, f.model.name, source, mjcf_);
    MjAddresses a = depth_first_addresses(m);
    FirstPass first;
    if (mjcf_) first = probe_mjcf(input, m, a);
    else if (!source.empty()) first = probe_urdf(input, m, a);
    const std::vector<MujocoMap> maps = put_samples(input, m, f, a);
    const json o = run_script(input);
    ScriptModel sm;
    read_script_model(o, m, a, /*check_order=*/!mjcf_, sm);

    EngineOutput out = output_header(*this, f, fixture_file,
                                     source.empty() ? "MJCF written by rbdref from the fixture's model (principal inertias at 50 digits), MuJoCo 3 dialect"
                                     : mjcf_        ? "MuJoCo 3's own MJCF import of " + source
                                                    : "MuJoCo 3's own URDF import of " + source);
    out.conventions =
        tree_conventions("qacc from mj_forward with qfrc_applied = tau, constraints, contacts, springs and dampers disabled",
                         "qLD = Lᵀ D L in MuJoCo 3's compressed rows (M_rownnz, M_rowadr, M_colind; D_i at the diagonal), compared when J = 1",
                         a.dof);
    out.conventions["runtime"] = "WebAssembly under Node.js: IEEE binary64, round to nearest, no fused multiply-add";
    if (!first.note.empty()) out.conventions["import_note"] = first.note;
    if (had_contacts) out.conventions["contacts"] = "not run: the WebAssembly bindings do not expose mjData.contact for the adapter to write";
    put_model_echo(out, f, mjcf_ ? mjcf_echo(first.wv, m, first.jmap) : model_echo(view_of(sm, m), m));

    if (!o.contains("samples") || !o["samples"].is_array() || o["samples"].size() != f.samples.size())
      throw EngineError("mujoco-js: the script returned another number of samples");
    for (size_t si = 0; si < f.samples.size(); ++si)
      out.samples.push_back(sample_of(o["samples"][si], input["samples"][si], f.samples[si], maps[si], sm, m.nv));
    return out;
  }
};

}  // namespace

std::unique_ptr<EngineAdapter> make_mujoco_js_adapter() { return std::make_unique<MujocoJsAdapter>(MujocoJsAdapter::Source::Written); }
std::unique_ptr<EngineAdapter> make_mujoco_js_urdf_adapter() { return std::make_unique<MujocoJsAdapter>(MujocoJsAdapter::Source::Urdf); }
std::unique_ptr<EngineAdapter> make_mujoco_js_mjcf_adapter() { return std::make_unique<MujocoJsAdapter>(MujocoJsAdapter::Source::Mjcf); }

}  // namespace rbd
