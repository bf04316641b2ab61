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
#include <sstream>
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

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

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
  const std::string text = slurp(out.path);
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception&) {
    throw EngineError("mujoco-js: " + script + " wrote no result (" +
                      (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status)) : std::string("killed")) +
                      "): " + slurp(log.path));
  }
  if (doc.is_object() && doc.contains("error")) throw EngineError(doc["error"].is_string() ? doc["error"].get<std::string>() : doc["error"].dump());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw EngineError("mujoco-js: the script failed: " + slurp(log.path));
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

  // source: the URDF (MuJoCo 3's URDF import), or empty for the MJCF rbdref writes.
  EngineOutput run_checked(const Fixture& f, const std::string& fixture_file, const std::string& source) const {
    Model<B> m = build_model<B>(f.model);
    const bool had_contacts = !m.contacts.empty();
    m.contacts.clear();  // trees only: the MJCF gets no contact geoms and the solver stays off
    const int nv = m.nv;
    // The map needs MuJoCo's DoF addresses, which come back with the model: a first pass with no
    // sample would cost a second Node start, so every sample's inputs are sent in canonical order
    // mapped by the DoF order of rbdref's depth-first bodies, which is the MJCF's body order.
    json input;
    if (source.empty()) {
      input["mjcf"] = mjcf_of(m, f.model.name, MjcfDialect::MuJoCo3);
    } else if (mjcf_) {
      input["mjcf"] = slurp(source);
      input["files"] = json::object();
      const std::string dir = source.substr(0, source.find_last_of('/') + 1);  // includes are relative to the model's folder
      for (const std::string& inc : mjcf_includes(source)) input["files"][inc] = slurp(dir + inc);
      input["disable_constraints"] = true;
      input["qpos0_view"] = true;
    } else {
      std::ifstream in(source, std::ios::binary);
      if (!in) throw EngineError("cannot read the URDF " + source);
      std::stringstream text;
      text << in.rdbuf();
      input["urdf"] = text.str();
      input["disable_constraints"] = true;
    }
    // MuJoCo orders DoFs by body, depth first, in the order the MJCF lists them; mjcf_of writes the
    // bodies depth first from rbdref's body order, so MuJoCo's DoF address of joint i is computed
    // here and checked against the script's jnt_dofadr below.
    std::vector<std::vector<int>> children(m.NB);
    std::vector<int> roots;
    for (int i = 0; i < m.NB; ++i) (m.parent[i] < 0 ? roots : children[m.parent[i]]).push_back(i);
    std::vector<int> mj_dof(m.NB), mj_qpos(m.NB);
    int dof = 0, qp = 0;
    std::vector<int> stack(roots.rbegin(), roots.rend());
    while (!stack.empty()) {
      const int i = stack.back();
      stack.pop_back();
      mj_dof[i] = dof, mj_qpos[i] = qp;
      dof += m.nvi[i], qp += m.nqi[i];
      for (auto it = children[i].rbegin(); it != children[i].rend(); ++it) stack.push_back(*it);
    }
    // MuJoCo's URDF import orders the bodies its own way: the DoF and qpos addresses come from a first
    // pass that loads the model alone.
    std::string note;
    MjWorldView wv;
    std::vector<int> jmap;
    if (mjcf_) {
      json probe = input;
      probe["samples"] = json::array();
      json o0;
      try {
        o0 = run_script(probe);
      } catch (const EngineError& e) {
        const std::string first = e.what();
        if (first.find("file") == std::string::npos && first.find("resource") == std::string::npos) throw;
        int removed = 0, more = 0;
        input["mjcf"] = strip_mjcf_assets(input["mjcf"].get<std::string>(), &removed);
        for (auto& [path, text] : input["files"].items()) text = strip_mjcf_assets(text.get<std::string>(), &more), removed += more;
        if (removed == 0) throw;
        note = "MuJoCo could not load the MJCF as written (" + first + "); it was loaded with its " + std::to_string(removed) +
               " asset files and the geoms using them removed: those files are not in the module's file system";
        probe["mjcf"] = input["mjcf"];
        probe["files"] = input["files"];
        o0 = run_script(probe);
      }
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
      std::string bad;
      jmap = mjcf_joint_map(wv, m, bad);
      if (jmap.empty()) throw EngineError("MuJoCo's joints are not rbdref's: " + bad);
      for (size_t j = 0; j < jmap.size(); ++j) {
        mj_dof[static_cast<size_t>(jmap[j])] = wv.jnt_dofadr[j];
        mj_qpos[static_cast<size_t>(jmap[j])] = wv.jnt_qposadr[j];
      }
    } else if (!source.empty()) {
      json probe = input;
      probe["samples"] = json::array();
      json o0;
      try {
        o0 = run_script(probe);
      } catch (const EngineError& e) {
        const std::string first = e.what();
        int removed = 0;
        const std::string stripped = strip_urdf_geometry(input["urdf"].get<std::string>(), &removed);
        const bool files = first.find("file") != std::string::npos || first.find("resource") != std::string::npos ||
                           first.find("mesh") != std::string::npos;
        if (first.find("inertia") != std::string::npos || first.find("mass") != std::string::npos) {
          throw EngineRefusal(first + " (MuJoCo checks each link's own inertia before it fuses fixed links; rbdref checks the fused body)");
        } else if (files && removed > 0) {
          // The meshes a URDF names are not in the module's file system: the URDF without its
          // <visual> and <collision> elements (no dynamics in them), and a note saying so.
          input["urdf"] = stripped;
          probe["urdf"] = stripped;
          note = "MuJoCo could not load the URDF as written (" + first + "); it was loaded with its " + std::to_string(removed) +
                 " <visual> and <collision> elements removed: their mesh files are not at hand, and the dynamics is the <inertial>s'";
          o0 = run_script(probe);
        } else {
          throw;
        }
      }
      std::vector<std::string> names;
      if (!o0.contains("jnt_names") || !o0["jnt_names"].is_array()) throw EngineError("mujoco-js: the script's output lacks jnt_names");
      for (const json& n : o0["jnt_names"]) names.push_back(n.is_string() ? n.get<std::string>() : "");
      const std::vector<double> dofadr = doubles(o0, "jnt_dofadr", names.size()), qposadr = doubles(o0, "jnt_qposadr", names.size());
      for (int i = 0; i < m.NB; ++i) {
        const auto it = std::find(names.begin(), names.end(), mj_joint_names(m, i)[0]);
        if (it == names.end()) throw EngineError("MuJoCo's URDF import has no joint '" + mj_joint_names(m, i)[0] + "'");
        mj_dof[i] = static_cast<int>(dofadr[static_cast<size_t>(it - names.begin())]);
        mj_qpos[i] = static_cast<int>(qposadr[static_cast<size_t>(it - names.begin())]);
      }
    }
    std::vector<MujocoMap> maps;
    json samples = json::array();
    for (const Sample& s : f.samples) {
      maps.push_back(mujoco_map(m, mj_dof, s.q, s.qd));
      const MujocoMap& map = maps.back();
      std::vector<double> qpos(static_cast<size_t>(m.nq));
      set_qpos(m, mj_qpos, s.q, qpos.data());
      const VecX<B> qd = vec_of(s.qd), qdd = vec_of(s.qdd), tau = vec_of(s.tau);
      samples.push_back({{"qpos", qpos}, {"qvel", to_doubles(VecX<B>(map.J * qd))}, {"qfrc_applied", to_doubles(VecX<B>(map.J * tau))},
                         {"qacc", to_doubles(VecX<B>(map.J * qdd + map.Jdot_v))}});
    }
    input["samples"] = samples;
    const json o = run_script(input);

    if (count(o, "nv") != nv || count(o, "nq") != m.nq)
      throw EngineError("MuJoCo's model has nq " + std::to_string(count(o, "nq")) + ", nv " + std::to_string(count(o, "nv")) +
                        "; rbdref's has nq " + std::to_string(m.nq) + ", nv " + std::to_string(nv));
    const int nbody = count(o, "nbody"), njnt = count(o, "njnt");
    // Names → ids, and the echo's view of the arrays.
    std::vector<std::string> body_names, jnt_names;
    for (const char* key : {"body_names", "jnt_names"}) {
      if (!o.contains(key) || !o[key].is_array()) throw EngineError(std::string("mujoco-js: the script's output lacks ") + key);
      for (const json& n : o[key]) (std::string(key) == "body_names" ? body_names : jnt_names).push_back(n.is_string() ? n.get<std::string>() : "");
    }
    const std::vector<double> body_mass = doubles(o, "body_mass", nbody), body_ipos = doubles(o, "body_ipos", 3 * nbody),
                              body_iquat = doubles(o, "body_iquat", 4 * nbody), body_inertia = doubles(o, "body_inertia", 3 * nbody),
                              body_pos = doubles(o, "body_pos", 3 * nbody), body_quat = doubles(o, "body_quat", 4 * nbody),
                              jnt_axis = doubles(o, "jnt_axis", 3 * njnt), jnt_dofadr = doubles(o, "jnt_dofadr", njnt),
                              gravity = doubles(o, "gravity", 3);
    auto id_in = [](const std::vector<std::string>& names) {
      return [names](const std::string& n) {
        for (size_t k = 0; k < names.size(); ++k)
          if (names[k] == n) return static_cast<int>(k);
        return -1;
      };
    };
    MjModelView view;
    view.body_id = id_in(body_names);
    view.joint_id = id_in(jnt_names);
    view.body_mass = body_mass.data(), view.body_ipos = body_ipos.data(), view.body_iquat = body_iquat.data();
    view.body_inertia = body_inertia.data(), view.body_pos = body_pos.data(), view.body_quat = body_quat.data();
    view.jnt_axis = jnt_axis.data();
    for (int k = 0; k < 3; ++k) view.gravity[k] = gravity[static_cast<size_t>(k)];
    view.nbody = nbody, view.njnt = njnt, view.nq = m.nq, view.nv = nv, view.neq = count(o, "neq");
    for (int i = 0; i < m.NB && !mjcf_; ++i) {
      const int j = view.joint_id(mj_joint_names(m, i)[0]);
      if (j < 0) throw EngineError("MuJoCo's model lacks joint '" + mj_joint_names(m, i)[0] + "'");
      if (static_cast<int>(jnt_dofadr[static_cast<size_t>(j)]) != mj_dof[i])
        throw EngineError("MuJoCo ordered the DoFs otherwise than the MJCF's depth-first body order: joint '" + m.joint_name[i] +
                          "' at DoF " + std::to_string(static_cast<int>(jnt_dofadr[static_cast<size_t>(j)])) + ", expected " +
                          std::to_string(mj_dof[i]));
    }
    const std::vector<double> rownnz = doubles(o, "M_rownnz", nv), rowadr = doubles(o, "M_rowadr", nv);
    std::vector<double> colind;
    if (o.contains("M_colind") && o["M_colind"].is_array()) colind = doubles(o, "M_colind", o["M_colind"].size());

    EngineOutput out = output_header(*this, f, fixture_file,
                                     source.empty() ? "MJCF written by rbdref from the fixture's model (principal inertias at 50 digits), MuJoCo 3 dialect"
                                     : mjcf_        ? "MuJoCo 3's own MJCF import of " + source
                                                    : "MuJoCo 3's own URDF import of " + source);
    out.conventions =
        tree_conventions("qacc from mj_forward with qfrc_applied = tau, constraints, contacts, springs and dampers disabled",
                         "qLD = Lᵀ D L in MuJoCo 3's compressed rows (M_rownnz, M_rowadr, M_colind; D_i at the diagonal), compared when J = 1",
                         mj_dof);
    out.conventions["runtime"] = "WebAssembly under Node.js: IEEE binary64, round to nearest, no fused multiply-add";
    if (!note.empty()) out.conventions["import_note"] = note;
    if (had_contacts) out.conventions["contacts"] = "not run: the WebAssembly bindings do not expose mjData.contact for the adapter to write";
    out.model_echo = json::parse((mjcf_ ? mjcf_echo(wv, m, jmap) : model_echo(view, m)).dump());
    out.model_echo["model_warnings"] = f.model_warnings;

    if (!o.contains("samples") || !o["samples"].is_array() || o["samples"].size() != f.samples.size())
      throw EngineError("mujoco-js: the script returned another number of samples");
    for (size_t si = 0; si < f.samples.size(); ++si) {
      const Sample& s = f.samples[si];
      const json& r = o["samples"][si];
      const MujocoMap& map = maps[si];
      EngineSample es = engine_sample_of(s);
      const std::vector<double> M = doubles(r, "H", static_cast<size_t>(nv) * nv), bias = doubles(r, "qfrc_bias", nv),
                                qacc = doubles(r, "qacc", nv), finv = doubles(r, "qfrc_inverse", nv),
                                qLD = doubles(r, "qLD", colind.size());
      MatX<B> L = MatX<B>::Identity(nv, nv);
      VecX<B> D(nv);
      for (int i = 0; i < nv; ++i) {
        const int a = static_cast<int>(rowadr[i]), n = static_cast<int>(rownnz[i]);
        if (n < 1 || a < 0 || a + n > static_cast<int>(colind.size()) || static_cast<int>(colind[a + n - 1]) != i)
          throw EngineError("mujoco-js: qLD row " + std::to_string(i) + " is not in the compressed layout this adapter reads");
        for (int k = 0; k < n - 1; ++k) L(i, static_cast<int>(colind[a + k])) = B(qLD[a + k]);
        D(i) = B(qLD[a + n - 1]);
      }
      es.raw["note"] = "values in MuJoCo's conventions and DoF order, before conversion";
      es.raw["qpos"] = samples[si]["qpos"];
      es.raw["qvel"] = samples[si]["qvel"];
      es.raw["qfrc_applied"] = samples[si]["qfrc_applied"];
      es.raw["qacc_in"] = samples[si]["qacc"];
      es.raw["H"] = r["H"];
      es.raw["qfrc_bias"] = bias;
      es.raw["qacc"] = qacc;
      es.raw["qLD"] = qLD;
      es.raw["qfrc_inverse"] = finv;
      put_tree_values(map, M, bias, finv, qacc, L, D, es);
      out.samples.push_back(std::move(es));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<EngineAdapter> make_mujoco_js_adapter() { return std::make_unique<MujocoJsAdapter>(MujocoJsAdapter::Source::Written); }
std::unique_ptr<EngineAdapter> make_mujoco_js_urdf_adapter() { return std::make_unique<MujocoJsAdapter>(MujocoJsAdapter::Source::Urdf); }
std::unique_ptr<EngineAdapter> make_mujoco_js_mjcf_adapter() { return std::make_unique<MujocoJsAdapter>(MujocoJsAdapter::Source::Mjcf); }

}  // namespace rbd
