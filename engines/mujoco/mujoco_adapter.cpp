// MuJoCo adapter: see mujoco_adapter.hpp and docs/engines.md ("MuJoCo") for the import path, the model
// echo and the conventions.
#include "engines/mujoco/mujoco_adapter.hpp"
#include "engines/mujoco/mjcf.hpp"
#include "engines/support.hpp"
#include "engines/values.hpp"

#include "reference/tree/model.hpp"

#include "reference/contact/kinematics.hpp"
#include "reference/tree/crba.hpp"
#include "reference/contact/lcp.hpp"
#include "reference/tree/rnea.hpp"

#include <mujoco/mujoco.h>

#include <Eigen/Cholesky>
#include <cstring>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <unistd.h>

namespace rbd {

namespace {

using namespace mjcf;

using B = bin50;
using ojson = nlohmann::ordered_json;

const B kLoopAxisSpan = B(1) / B(10);  // metres between a revolute loop joint's two connect points

// Writes the anchors of every loop equality into m->eq_data (MuJoCo 2.2.2 layout, mjNEQDATA = 11):
//   connect  [0..2] the point in body1's frame (predecessor joint frame origin, + span · axis for
//            the second connect), [3..5] the same point in body2's frame (successor side);
//   weld     [0..2] the point in body2's frame (successor joint frame origin), [3..5] the same point
//            in body1's frame, [6..9] relpose: body2's orientation in body1's when the joint frames
//            coincide, quat(R_P R_Sᵀ) (w first); [10] torquescale, left as written (1).
void set_loop_anchors(mjModel* mm, const Model<B>& m) {
  for (const LoopJoint<B>& L : m.loops) {
    const std::vector<std::string> names = loop_equality_names(L);
    const Mat3<B> RP = L.XP.E.transpose(), RS = L.XS.E.transpose();  // joint-frame axes in the bodies
    for (size_t k = 0; k < names.size(); ++k) {
      const int e = mj_name2id(mm, mjOBJ_EQUALITY, names[k].c_str());
      if (e < 0) throw EngineError("MuJoCo's model lacks equality '" + names[k] + "'");
      mjtNum* data = mm->eq_data + mjNEQDATA * e;
      const B along = B(static_cast<int>(k)) * kLoopAxisSpan;
      const Vec3<B> a1 = L.XP.r + RP * L.joint.axis * along, a2 = L.XS.r + RS * L.joint.axis * along;
      const bool weld = L.joint.type == JointType::Fixed;
      for (int c = 0; c < 3; ++c) {
        data[c] = static_cast<double>(weld ? a2(c) : a1(c));
        data[3 + c] = static_cast<double>(weld ? a1(c) : a2(c));
      }
      if (weld) {
        const auto qrel = quat_of(Mat3<B>(RP * RS.transpose()));
        for (int c = 0; c < 4; ++c) data[6 + c] = static_cast<double>(qrel(c));
      }
    }
  }
}

// The echo's view of a compiled mjModel.
MjModelView view_of(const mjModel* mm) {
  MjModelView v;
  v.body_id = [mm](const std::string& n) { return mj_name2id(mm, mjOBJ_BODY, n.c_str()); };
  v.joint_id = [mm](const std::string& n) { return mj_name2id(mm, mjOBJ_JOINT, n.c_str()); };
  v.body_mass = mm->body_mass, v.body_ipos = mm->body_ipos, v.body_iquat = mm->body_iquat, v.body_inertia = mm->body_inertia;
  v.body_pos = mm->body_pos, v.body_quat = mm->body_quat, v.jnt_axis = mm->jnt_axis;
  for (int k = 0; k < 3; ++k) v.gravity[k] = mm->opt.gravity[k];
  v.nbody = mm->nbody, v.njnt = mm->njnt, v.nq = mm->nq, v.nv = mm->nv, v.neq = mm->neq;
  return v;
}

// What run_loaded needs of an MJCF MuJoCo loaded itself: MuJoCo's joint of each rbdref body (the
// names of an MJCF may be absent), and the echo (mjcf_echo).
struct MjcfImport {
  std::vector<int> joint_of_body;
  ojson echo;
};
EngineOutput run_loaded(const EngineAdapter& self, const Fixture& f, const std::string& fixture_file, const Model<B>& m, mjModel* mm,
                        const std::string& import_path, const MjcfImport* mjcf = nullptr);
mjModel* load_mjcf(const std::string& xml);

// mj_loadXML of a file: MuJoCo's model, or null with `err` set to MuJoCo's message.
mjModel* load_xml(const std::string& path, std::string& err) {
  char buf[1000] = "";
  mjModel* mm = mj_loadXML(path.c_str(), nullptr, buf, sizeof buf);
  err = buf;
  return mm;
}

// The start of MuJoCo's own import of the user's file (mujoco-urdf, mujoco-mjcf): an unsupported
// model refused, and rbdref's model without its contacts (they come from a contacts file, not the
// user's file: the tree quantities run).
Model<B> import_model(const EngineAdapter& a, const Fixture& f) {
  const std::string why = a.unsupported(f);
  if (!why.empty()) throw EngineError("unsupported model: " + why);
  Model<B> m = build_model<B>(f.model);
  m.contacts.clear();
  return m;
}

// MuJoCo's URDF import once more when its first error `err` was a file it could not open, not an
// inertia it refuses: the meshes a URDF names (package://...) are not at hand, so the URDF goes
// again without its <visual> and <collision> elements (no dynamics in them), through a temporary
// file, and `note` says so. Null when it was not tried or failed again (err: the last error).
mjModel* load_urdf_without_meshes(const std::string& source, std::string& err, std::string& note) {
  const std::string first = err;
  const bool refused = first.find("inertia") != std::string::npos || first.find("mass") != std::string::npos;
  if (refused || (first.find("file") == std::string::npos && first.find("resource") == std::string::npos && first.find("mesh") == std::string::npos))
    return nullptr;
  int removed = 0;
  const std::string stripped = strip_urdf_geometry(file_text(source), &removed);
  if (removed == 0) return nullptr;
  char path[] = "/tmp/rbdref-urdf-XXXXXX.urdf";
  const int fd = ::mkstemps(path, 5);
  if (fd < 0) throw EngineError("cannot create a temporary file for the URDF");
  ::close(fd);
  std::ofstream(path, std::ios::binary) << stripped;
  mjModel* mm = load_xml(path, err);
  std::remove(path);
  note = "MuJoCo could not load the URDF as written (" + first + "); it was loaded with its " + std::to_string(removed) +
         " <visual> and <collision> elements removed: their mesh files are not at hand, and the dynamics is the <inertial>s'";
  return mm;
}

// MuJoCo's MJCF import once more when its first error `err` was a file it could not open: mesh,
// texture or height-field files not at hand, so the MJCF goes again without them (no dynamics in
// them where the body has an <inertial>, which rbdref requires of a mesh body), and `note` says
// so. Null when there was nothing to remove; EngineError when it fails again.
mjModel* load_mjcf_without_assets(const std::string& source, std::string& err, std::string& note) {
  if (err.find("file") == std::string::npos && err.find("resource") == std::string::npos) return nullptr;
  int removed = 0;
  const std::string stripped = strip_mjcf_assets(file_text(source), &removed);
  if (removed == 0) return nullptr;
  mjModel* mm = nullptr;
  try {
    mm = load_mjcf(stripped);
  } catch (const EngineError& e) {
    throw EngineError("MuJoCo's MJCF import rejected " + source + ": " + err + "; without its asset files: " + e.what());
  }
  note = "MuJoCo could not load the MJCF as written (" + err + "); it was loaded with its " + std::to_string(removed) +
         " asset files and the geoms using them removed: those files are not at hand";
  return mm;
}

// The user's MJCF as the reference reads it: of its equality constraints the active connect and
// weld stay on (rbdref's loop joints, one each; EngineError, mm deleted, when the counts differ),
// the others off; contacts, passive forces, limits, friction loss and actuation off, and the
// equality constraints altogether on a tree.
void keep_loop_equalities(mjModel* mm, const Model<B>& m) {
  int loops = 0;
  for (int e = 0; e < mm->neq; ++e) {
    const bool loop = mm->eq_type[e] == mjEQ_CONNECT || mm->eq_type[e] == mjEQ_WELD;
    if (!mm->eq_active[e]) continue;
    if (loop) ++loops;
    else mm->eq_active[e] = 0;
  }
  if (loops != static_cast<int>(m.loops.size())) {
    mj_deleteModel(mm);
    throw EngineError("MuJoCo's model has " + std::to_string(loops) + " active connect and weld equalities, rbdref's " +
                      std::to_string(m.loops.size()) + " loop joints (loop joints from a --loops file are not in the MJCF)");
  }
  mm->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_PASSIVE | mjDSBL_LIMIT | mjDSBL_FRICTIONLOSS | mjDSBL_ACTUATION;
  if (m.loops.empty()) mm->opt.disableflags |= mjDSBL_EQUALITY;
}

// MuJoCo's own import of the user's file: mj_loadXML, and where that fails, once more by `again`
// (load_urdf_without_meshes, load_mjcf_without_assets). Null with `err` set when it did not load;
// `note` says what was removed for it to load.
using LoadAgain = mjModel* (*)(const std::string& source, std::string& err, std::string& note);
mjModel* load_source(const std::string& source, LoadAgain again, std::string& err, std::string& note) {
  mjModel* mm = load_xml(source, err);
  return mm ? mm : again(source, err, note);
}

// MuJoCo's model at qpos0 in the world, as the MJCF echo reads it (mjcf_echo).
MjWorldView world_view_of(const mjModel* mm) {
  MjWorldView v;
  mjData* d = mj_makeData(mm);
  mj_resetData(mm, d);
  mj_kinematics(mm, d);
  v.nbody = mm->nbody, v.njnt = mm->njnt, v.nq = mm->nq, v.nv = mm->nv;
  for (int j = 0; j < mm->njnt; ++j) {
    const char* n = mj_id2name(mm, mjOBJ_JOINT, j);
    v.jnt_names.push_back(n ? n : "");
  }
  v.body_weldid.assign(mm->body_weldid, mm->body_weldid + mm->nbody);
  v.jnt_type.assign(mm->jnt_type, mm->jnt_type + mm->njnt);
  v.jnt_bodyid.assign(mm->jnt_bodyid, mm->jnt_bodyid + mm->njnt);
  v.jnt_qposadr.assign(mm->jnt_qposadr, mm->jnt_qposadr + mm->njnt);
  v.jnt_dofadr.assign(mm->jnt_dofadr, mm->jnt_dofadr + mm->njnt);
  v.body_mass.assign(mm->body_mass, mm->body_mass + mm->nbody);
  v.body_inertia.assign(mm->body_inertia, mm->body_inertia + 3 * mm->nbody);
  v.xipos.assign(d->xipos, d->xipos + 3 * mm->nbody);
  v.ximat.assign(d->ximat, d->ximat + 9 * mm->nbody);
  v.xanchor.assign(d->xanchor, d->xanchor + 3 * mm->njnt);
  v.xaxis.assign(d->xaxis, d->xaxis + 3 * mm->njnt);
  v.dof_armature.assign(mm->dof_armature, mm->dof_armature + mm->nv);
  v.qpos0.assign(mm->qpos0, mm->qpos0 + mm->nq);
  // The gravity MuJoCo applies: 0 when the model's <flag gravity="disable"> switches it off.
  for (int k = 0; k < 3; ++k) v.gravity[k] = (mm->opt.disableflags & mjDSBL_GRAVITY) ? 0.0 : mm->opt.gravity[k];
  mj_deleteData(d);
  return v;
}

class MujocoAdapter : public EngineAdapter {
 public:
  std::string name() const override { return "mujoco"; }
  std::string version() const override { return mj_versionString(); }
  EngineSupport support() const override {
    EngineSupport s;
    s.joints = {JointType::Revolute, JointType::Prismatic, JointType::Cylindrical, JointType::Planar, JointType::Spherical, JointType::Free};
    s.loop_joints = {JointType::Revolute, JointType::Spherical, JointType::Fixed};
    s.contacts = true;
    s.armature = true;
    s.quantities = {"H", "C", "tau", "qdd", "L", "D", "tau_c", "contact_lambda", "contact_qdd", "contact_tau_c"};
    s.import_path = "MJCF written by rbdref (principal inertias at 50 digits)";
    s.contact_model = "soft contacts: LCP(A + R, J a0 - aref) from solref/solimp; equality constraints soft likewise";
    return s;
  }

  std::string unsupported(const Fixture& f) const override {
    const Model<double> m = build_model<double>(f.model);
    // Loop joints become equality constraints (connect, weld: docs/engines.md); those express a
    // point held to a point and a frame held to a frame, so revolute (two connects on the axis),
    // spherical and fixed loop joints, and nothing that slides.
    Refusals w = refusals(/*urdf_import=*/false,
                          "MuJoCo's equality constraints (connect, weld) express revolute, spherical and fixed loop joints only");
    w.loop_names_type = true;
    w.massless = kMjMassless;
    if (std::string why = unsupported_by(support(), w, m); !why.empty()) return why;
    return inertia_refusal(m);
  }

  EngineOutput run(const Fixture& f, const std::string& fixture_file) const override;
};

// MuJoCo's own URDF import (mj_loadXML on the user's URDF; its compiler's URDF defaults: fusestatic,
// discardvisual, the inertia diagonalized by MuJoCo in double): the import path of every user who
// loads a URDF into MuJoCo. The echo compares what MuJoCo made of the file with what rbdref made of
// it, body by body (mass, COM, inertia, frame, axis): an import difference shows there, not as
// digits lost. After loading, the adapter switches off what the URDF may have switched on and the
// reference does not model (joint limits and friction: constraints; damping: passive forces). The
// same MuJoCo, another import path: all but the version is its own.
class MujocoUrdfAdapter : public MujocoAdapter {
 public:
  std::string name() const override { return "mujoco-urdf"; }
  EngineSupport support() const override {
    EngineSupport s;
    s.joints = {JointType::Revolute, JointType::Prismatic};
    s.quantities = {"H", "C", "tau", "qdd", "L", "D"};
    s.import_path = "MuJoCo's own URDF import (mj_loadXML on the URDF)";
    return s;
  }
  bool imports_source() const override { return true; }
  std::string unsupported(const Fixture& f) const override {
    if (std::string why = not_from_urdf(f, "MuJoCo's URDF import"); !why.empty()) return why;
    const Model<double> m = build_model<double>(f.model);
    const Refusals w = refusals(/*urdf_import=*/true, "loop joints come from a loops file, which MuJoCo's URDF import does not read");
    if (std::string why = unsupported_by(support(), w, m); !why.empty()) return why;
    return inertia_refusal(m);
  }
  EngineOutput run(const Fixture& f, const std::string&) const override { throw_needs_source(*this, f); }
  EngineOutput run_source(const Fixture& f, const std::string& fixture_file, const std::string& source) const override {
    const Model<B> m = import_model(*this, f);
    std::string err, note;
    mjModel* mm = load_source(source, load_urdf_without_meshes, err, note);
    if (!mm) {
      if (err.find("inertia") != std::string::npos || err.find("mass") != std::string::npos)
        throw EngineRefusal("MuJoCo's URDF import refuses " + source + ": " + err +
                            " (MuJoCo checks each link's own inertia before it fuses fixed links; rbdref checks the fused body)");
      throw EngineError("MuJoCo's URDF import rejected " + source + ": " + err);
    }
    mm->opt.disableflags |= mjDSBL_CONSTRAINT | mjDSBL_CONTACT | mjDSBL_PASSIVE;
    EngineOutput out = run_loaded(*this, f, fixture_file, m, mm, "MuJoCo's own URDF import: mj_loadXML(" + source + ")");
    if (!note.empty()) out.conventions["import_note"] = note;
    return out;
  }
};

// MuJoCo's own MJCF import ("mujoco-mjcf"): mj_loadXML on the user's file, which MuJoCo defines,
// against rbdref's reading of the same file (io/mjcf.cpp). The echo (mjcf_echo) compares, at
// qpos0 in the world, each weld group's mass, COM and inertia and each joint's anchor, axis and
// armature: MuJoCo's compiler works in double (a fullinertia diagonalized keeps ~7 digits), rbdref
// takes the file exactly. After loading, the adapter switches off what the reference does not model
// (contacts, passive forces, limits, friction loss, actuation, and the equality constraints rbdref
// does not read); connect and weld stay on, as MuJoCo's soft loop constraints.
class MujocoMjcfAdapter : public MujocoAdapter {
 public:
  std::string name() const override { return "mujoco-mjcf"; }
  EngineSupport support() const override {
    EngineSupport s;
    s.joints = {JointType::Revolute, JointType::Prismatic, JointType::Spherical, JointType::Free};
    s.loop_joints = {JointType::Spherical, JointType::Fixed};
    s.armature = true;
    s.quantities = {"H", "C", "tau", "qdd", "L", "D", "tau_c"};
    s.import_path = "MuJoCo's own MJCF import (mj_loadXML on the user's file)";
    return s;
  }
  bool imports_source() const override { return true; }
  std::string unsupported(const Fixture& f) const override {
    if (f.source_kind != "mjcf") return "the model was not read from MJCF (this adapter audits MuJoCo's own MJCF import)";
    const Model<double> m = build_model<double>(f.model);
    Refusals w = refusals(/*urdf_import=*/false, "MuJoCo's equality constraints (connect, weld) express spherical and fixed loop joints only");
    w.loop_names_type = true;
    return unsupported_by(support(), w, m);
  }
  EngineOutput run(const Fixture& f, const std::string&) const override {
    throw EngineError(name() + " reads the model's MJCF itself: run it through the audit, which gives it the file (" + f.source_file + ")");
  }
  EngineOutput run_source(const Fixture& f, const std::string& fixture_file, const std::string& source) const override {
    const Model<B> m = import_model(*this, f);
    std::string err, note;
    mjModel* mm = load_source(source, load_mjcf_without_assets, err, note);
    if (!mm) {
      // A file written for a later MuJoCo (new elements, attributes or keywords): 2.2.2's schema
      // refuses it, which is no defect of either side.
      if (err.find("Schema violation") != std::string::npos || err.find("invalid keyword") != std::string::npos ||
          err.find("unrecognized") != std::string::npos)
        throw EngineRefusal("MuJoCo " + std::string(mj_versionString()) + " does not read " + source +
                            ", written for a later MuJoCo: " + err);
      throw EngineError("MuJoCo's MJCF import rejected " + source + ": " + err);
    }
    keep_loop_equalities(mm, m);
    // The echo at qpos0, and MuJoCo's joint of each rbdref body.
    const MjWorldView v = world_view_of(mm);
    std::string bad;
    const std::vector<int> jmap = mjcf_joint_map(v, m, bad);
    if (jmap.empty()) {
      mj_deleteModel(mm);
      throw EngineError("MuJoCo's joints are not rbdref's: " + bad);
    }
    MjcfImport imp;
    imp.joint_of_body.assign(static_cast<size_t>(m.NB), -1);
    for (size_t j = 0; j < jmap.size(); ++j) imp.joint_of_body[static_cast<size_t>(jmap[j])] = static_cast<int>(j);
    imp.echo = mjcf_echo(v, m, jmap);
    EngineOutput out = run_loaded(*this, f, fixture_file, m, mm, "MuJoCo's own MJCF import: mj_loadXML(" + source + ")", &imp);
    if (!note.empty()) out.conventions["import_note"] = note;
    return out;
  }
};

// Loads MJCF text through a temporary file (mj_loadXML reads files); EngineError on failure.
mjModel* load_mjcf(const std::string& xml) {
  char path[] = "/tmp/rbdref-mjcf-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) throw EngineError("mujoco: cannot create a temporary MJCF file");
  FILE* fp = fdopen(fd, "w");
  std::fputs(xml.c_str(), fp);
  std::fclose(fp);
  std::string err;
  mjModel* m = load_xml(path, err);
  std::remove(path);
  if (!m) throw EngineError("MuJoCo rejected the model: " + err);
  return m;
}


VecX<B> vec_of(const mjtNum* x, int n) {
  VecX<B> v(n);
  for (int k = 0; k < n; ++k) v(k) = B(x[k]);
  return v;
}
ojson json_rows(const std::vector<double>& flat, int n) {
  ojson rows = ojson::array();
  for (int i = 0; i < n; ++i) rows.push_back(std::vector<double>(flat.begin() + i * n, flat.begin() + (i + 1) * n));
  return rows;
}

// MuJoCo's contact step at one sample with given solref/solimp (docs/engines.md): MuJoCo's
// position stage run piece by piece with the adapter's contacts put where collision detection would
// put them, then the rest of mj_forward. λ = efc_force, q̈ = Jᵀ(qacc − J̇v), τ_c = Jᵀ qfrc_constraint; the model:
// MuJoCo's own problem solved exactly, LCP(M + R, Tᵀq̈_free + TᵀJᵀJ̇v − aref), with R = efc_R and
// aref = efc_aref; the rigid LCP (M, d) of the reference beside it.
struct MjContactRun {
  VecX<B> lambda, qdd, tau_c;            // MuJoCo's, converted
  bool model_solved = false, rigid_solved = false;
  VecX<B> model_lambda, model_qdd, model_tau_c;
  VecX<B> rigid_qdd;                     // the rigid LCP's q̈ (unique where a solution exists)
  ojson raw;
};
MjContactRun contact_run(const mjModel* mm, mjData* d, const Model<B>& m, const std::vector<int>& mj_qpos, const MujocoMap& map,
                         const Sample& s, const mjtNum* solref, const mjtNum* solimp) {
  MjContactRun run;
  const int nv = m.nv;
  const Eigen::Index nc = static_cast<Eigen::Index>(m.contacts.size());
  const VecX<B> q = Eigen::Map<const VecX<double>>(s.q.data(), m.nq).cast<B>();
  const VecX<B> qd = Eigen::Map<const VecX<double>>(s.qd.data(), nv).cast<B>();
  const VecX<B> tau = Eigen::Map<const VecX<double>>(s.tau.data(), nv).cast<B>();
  const ContactKinematics<B> ck = contact_kinematics<B>(m, q, qd);
  mj_resetData(mm, d);
  set_qpos(m, mj_qpos, s.q, d->qpos);
  const std::vector<double> qvel = to_doubles(VecX<B>(map.J * qd)), qfrc = to_doubles(VecX<B>(map.J * tau));
  for (int k = 0; k < nv; ++k) d->qvel[k] = qvel[k], d->qfrc_applied[k] = qfrc[k];
  mj_kinematics(mm, d);
  mj_comPos(mm, d);
  mj_camlight(mm, d);
  mj_tendon(mm, d);
  mj_crb(mm, d);
  mj_factorM(mm, d);
  mj_collision(mm, d);  // finds nothing: no geom collides
  for (Eigen::Index i = 0; i < nc; ++i) {
    const Contact<B>& c = m.contacts[static_cast<size_t>(i)];
    mjContact& con = d->contact[i];
    std::memset(&con, 0, sizeof con);
    con.dist = 0;
    const Vec3<B>& n = ck.n[static_cast<size_t>(i)];
    const Vec3<B> t1 = detail::perpendicular<B>(n), t2 = n.cross(t1);  // the tangents
    for (int r = 0; r < 3; ++r) {
      con.pos[r] = static_cast<double>(ck.x[static_cast<size_t>(i)](r));
      con.frame[r] = static_cast<double>(n(r));
      con.frame[3 + r] = static_cast<double>(t1(r));
      con.frame[6 + r] = static_cast<double>(t2(r));
    }
    con.includemargin = 0;
    for (int r = 0; r < mjNREF; ++r) con.solref[r] = solref[r];
    for (int r = 0; r < mjNIMP; ++r) con.solimp[r] = solimp[r];
    con.dim = 1;
    // geom1 on A, geom2 on B: MuJoCo's normal points from geom1 to geom2, as n from A into B.
    con.geom1 = mj_name2id(mm, mjOBJ_GEOM, contact_geom_name(m, c.p).c_str());
    con.geom2 = mj_name2id(mm, mjOBJ_GEOM, contact_geom_name(m, c.s).c_str());
    con.efc_address = -1;
  }
  d->ncon = static_cast<int>(nc);
  mj_makeConstraint(mm, d);
  mj_transmission(mm, d);
  mj_projectConstraint(mm, d);
  mj_fwdVelocity(mm, d);
  mj_fwdActuation(mm, d);
  mj_fwdAcceleration(mm, d);
  mj_fwdConstraint(mm, d);

  VecX<B> R(nc), aref(nc);
  run.lambda.resize(nc);
  std::vector<double> efc_R, efc_aref;
  for (Eigen::Index i = 0; i < nc; ++i) {
    const int a = d->contact[i].efc_address;
    if (a < 0) throw EngineError("MuJoCo excluded contact '" + m.contacts[static_cast<size_t>(i)].name + "'");
    run.lambda(i) = B(d->efc_force[a]);
    R(i) = B(d->efc_R[a]);
    aref(i) = B(d->efc_aref[a]);
    efc_R.push_back(d->efc_R[a]);
    efc_aref.push_back(d->efc_aref[a]);
  }
  const MatX<B> Jt = map.J.transpose();
  run.qdd = Jt * (vec_of(d->qacc, nv) - map.Jdot_v);
  run.tau_c = Jt * vec_of(d->qfrc_constraint, nv);
  run.raw = {{"efc_force", std::vector<double>(d->efc_force, d->efc_force + d->nefc)},
             {"efc_R", efc_R},
             {"efc_aref", efc_aref},
             {"qacc", std::vector<double>(d->qacc, d->qacc + nv)},
             {"qfrc_constraint", std::vector<double>(d->qfrc_constraint, d->qfrc_constraint + nv)},
             {"solver_iterations", d->solver_iter}};
  // MuJoCo's own problem, and the rigid one, exactly (bin50).
  const MatX<B> H = crba<B>(m, q);
  const Eigen::LLT<MatX<B>> llt(H);
  if (llt.info() != Eigen::Success) return run;
  const VecX<B> qdd_free = llt.solve(VecX<B>(tau - bias<B>(m, q, qd)));
  const MatX<B>& T = ck.Tn;
  const MatX<B> M = T.transpose() * llt.solve(T);
  const VecX<B> dm = T.transpose() * VecX<B>(qdd_free + Jt * map.Jdot_v) - aref;
  const LcpResult<B> lcp = solve_lcp<B>(MatX<B>(M + MatX<B>(R.asDiagonal())), dm);
  if (lcp.status == LcpResult<B>::Solved) {
    run.model_solved = true;
    run.model_lambda = lcp.lambda;
    run.model_tau_c = T * lcp.lambda;
    run.model_qdd = qdd_free + llt.solve(run.model_tau_c);
  }
  const LcpResult<B> rigid = solve_lcp<B>(M, VecX<B>(T.transpose() * qdd_free + ck.Tdot_qd));
  if (rigid.status == LcpResult<B>::Solved) {
    run.rigid_solved = true;
    run.rigid_qdd = qdd_free + llt.solve(VecX<B>(T * rigid.lambda));
  }
  return run;
}

// The solref/solimp settings of the sweep (docs/engines.md): MuJoCo's defaults first, then stiffer and softer
// contacts, a narrower impedance, and direct stiffness/damping (negative solref).
struct SolSetting {
  const char* name;
  mjtNum solref[mjNREF];
  mjtNum solimp[mjNIMP];
};
const std::vector<SolSetting>& sol_sweep() {
  static const std::vector<SolSetting> s = {
      {"default", {0.02, 1}, {0.9, 0.95, 0.001, 0.5, 2}},
      {"timeconst 0.1 (softer)", {0.1, 1}, {0.9, 0.95, 0.001, 0.5, 2}},
      {"timeconst 0.004 (2 × timestep)", {0.004, 1}, {0.9, 0.95, 0.001, 0.5, 2}},
      {"dmin 0.99, dmax 0.999", {0.02, 1}, {0.99, 0.999, 0.001, 0.5, 2}},
      {"dmin 0.999, dmax 0.9999, timeconst 0.004", {0.004, 1}, {0.999, 0.9999, 0.001, 0.5, 2}},
      {"dmin = dmax = 0.5", {0.02, 1}, {0.5, 0.5, 0.001, 0.5, 2}},
      {"dampratio 0.5", {0.02, 0.5}, {0.9, 0.95, 0.001, 0.5, 2}},
      {"direct: stiffness 1e4, damping 100", {-1e4, -100}, {0.9, 0.95, 0.001, 0.5, 2}},
  };
  return s;
}

// The contact step of one sample at MuJoCo's defaults (the audited values and model_values), and
// the sweep over sol_sweep(): per setting, the digits of MuJoCo's q̈ against the rigid LCP's (its
// model's departure) and against its own model's exact q̈ (its numbers), in raw.contact_model_sweep.
void contact_step(const mjModel* mm, mjData* d, const Model<B>& m, const std::vector<int>& mj_qpos, const MujocoMap& map,
                  const Sample& s, EngineSample& e) {
  mjtNum solref[mjNREF], solimp[mjNIMP];
  mj_defaultSolRefImp(solref, solimp);  // what a user's contact gets by default
  const MjContactRun run = contact_run(mm, d, m, mj_qpos, map, s, solref, solimp);
  e.values["contact_lambda"] = num_vec(run.lambda);
  e.values["contact_qdd"] = num_vec(run.qdd);
  e.values["contact_tau_c"] = num_vec(run.tau_c);
  e.raw["contact_step"] = run.raw;
  if (run.model_solved) {
    e.model_values["contact_lambda"] = num_vec(run.model_lambda);
    e.model_values["contact_tau_c"] = num_vec(run.model_tau_c);
    e.model_values["contact_qdd"] = num_vec(run.model_qdd);
  }
  ojson sweep = ojson::array();
  for (const SolSetting& st : sol_sweep()) {
    const MjContactRun r = contact_run(mm, d, m, mj_qpos, map, s, st.solref, st.solimp);
    ojson row = {{"setting", st.name},
                 {"solref", std::vector<double>(st.solref, st.solref + mjNREF)},
                 {"solimp", std::vector<double>(st.solimp, st.solimp + mjNIMP)},
                 {"efc_R", r.raw["efc_R"]}};
    row["qdd_digits_vs_rigid"] = r.rigid_solved ? ojson(agreement_digits(r.qdd, r.rigid_qdd)) : ojson(nullptr);
    row["qdd_digits_vs_own_model"] = r.model_solved ? ojson(agreement_digits(r.qdd, r.model_qdd)) : ojson(nullptr);
    sweep.push_back(row);
  }
  e.raw["contact_model_sweep"] = sweep;
}

EngineOutput MujocoAdapter::run(const Fixture& f, const std::string& fixture_file) const {
  const std::string why = unsupported(f);
  if (!why.empty()) throw EngineError("unsupported model: " + why);
  const Model<B> m = build_model<B>(f.model);
  const std::string xml = mjcf_of(m, f.model.name, MjcfDialect::MuJoCo2);
  mjModel* mm = load_mjcf(xml);
  if (m.nc > 0) set_loop_anchors(mm, m);
  return run_loaded(*this, f, fixture_file, m, mm, "MJCF written by rbdref from the fixture's model (principal inertias at 50 digits)");
}

// The conventions of a run on m: the tree quantities', then what MuJoCo solves on a loop model and
// on contacts, with the parameters it used (the MJCF defaults a user's model gets): compare reports
// the consequences as these conventions, with the violation measured.
json conventions_of(const Model<B>& m, const mjModel* mm, const std::vector<int>& mj_dof) {
  json c = tree_conventions("qacc from mj_forward with qfrc_applied = tau, constraints and passive forces disabled",
                            "qLD = Lᵀ D L in MuJoCo's sparse layout (dof_Madr, dof_parentid), compared when J = 1", mj_dof);
  if (m.nc > 0) {
    char sol[200];
    std::snprintf(sol, sizeof sol, "solref (%g, %g), solimp (%g, %g, %g, %g, %g)", mm->eq_solref[0], mm->eq_solref[1],
                  mm->eq_solimp[0], mm->eq_solimp[1], mm->eq_solimp[2], mm->eq_solimp[3], mm->eq_solimp[4]);
    c["soft_loop_constraints"] =
        std::string("MuJoCo equality constraints are soft: ") + sol +
        "; the constraint acceleration is regularized toward a reference -b J q̇ - k r that omits J̇ q̇, so K q̈ = k holds "
        "only approximately; revolute loop joints are two connects on the axis 0.1 m apart, spherical one connect, "
        "fixed one weld";
    c["tau_c"] = "qfrc_constraint from mj_forward (M qacc + qfrc_bias = qfrc_applied + qfrc_constraint)";
    c["tau"] = "qfrc_inverse from mj_inverse at qacc with the constraint solver disabled: the tree's inverse dynamics";
    c["qdd"] = "qacc from mj_forward with qfrc_applied = tau and the equality constraints on (soft)";
  }
  if (runs_contacts(m)) {
    mjtNum solref[mjNREF], solimp[mjNIMP];
    mj_defaultSolRefImp(solref, solimp);
    char sol[200];
    std::snprintf(sol, sizeof sol, "solref (%g, %g), solimp (%g, %g, %g, %g, %g)", solref[0], solref[1], solimp[0], solimp[1],
                  solimp[2], solimp[3], solimp[4]);
    c["contact_model"] = std::string("MuJoCo's soft contacts (frictionless, condim 1, MuJoCo's defaults ") + sol +
                         "): the contact force f solves LCP(A + R, J a0 - aref), regularized by R = (1 - d)/d · diagApprox(A) and "
                         "pulled toward aref = -b ζ - k d r, with no J̇q̇ term; R and aref as MuJoCo derives them (efc_R, efc_aref)";
    c["contacts"] = "written into mjData.contact by the adapter after mj_collision (dist 0, pos x, frame n from A into B, geom1 on "
                    "A, geom2 on B), then mj_makeConstraint .. mj_fwdConstraint; solver tolerance 0 (converged); no impulsive step";
    c["contact_lambda"] = "efc_force of each contact's row";
    c["contact_model_sweep"] =
        "raw.contact_model_sweep: the same contact step at other solref/solimp (stiffer, softer, narrower impedance, "
        "direct stiffness/damping), per setting the digits of MuJoCo's q̈ against the rigid LCP's (the model's departure) "
        "and against its own model solved exactly (its numbers)";
  } else if (!m.contacts.empty()) {
    c["contacts"] = "not run: " + contact_refusal(m);
  }
  return c;
}

// One sample's tree quantities on MuJoCo's model (mj_dof, mj_qpos: the addresses of rbdref's
// joints), its raw values in MuJoCo's conventions and its converted values, into es.
void tree_sample(mjModel* mm, mjData* d, const Model<B>& m, const std::vector<int>& mj_dof, const std::vector<int>& mj_qpos,
                 const Sample& s, const MujocoMap& map, EngineSample& es) {
  const int nv = m.nv;
  mj_resetData(mm, d);
  set_qpos(m, mj_qpos, s.q, d->qpos);
  const VecX<B> qd = VecX<B>(Eigen::Map<const VecX<double>>(s.qd.data(), nv).cast<B>());
  const VecX<B> qdd = VecX<B>(Eigen::Map<const VecX<double>>(s.qdd.data(), nv).cast<B>());
  const VecX<B> tau = VecX<B>(Eigen::Map<const VecX<double>>(s.tau.data(), nv).cast<B>());
  const std::vector<double> qvel = to_doubles(VecX<B>(map.J * qd));
  const std::vector<double> qfrc = to_doubles(VecX<B>(map.J * tau));
  const std::vector<double> qacc_in = to_doubles(VecX<B>(map.J * qdd + map.Jdot_v));

  // Forward dynamics: qacc at qfrc_applied = J tau; M, bias and the factor come with it.
  for (int k = 0; k < nv; ++k) {
    d->qvel[k] = qvel[k];
    d->qfrc_applied[k] = qfrc[k];
  }
  mj_forward(mm, d);
  const std::vector<double> fc(d->qfrc_constraint, d->qfrc_constraint + nv);
  const std::vector<double> efc(d->efc_force, d->efc_force + d->nefc);
  std::vector<double> M(static_cast<size_t>(nv) * nv);
  mj_fullM(mm, M.data(), d->qM);
  const std::vector<double> bias(d->qfrc_bias, d->qfrc_bias + nv), qacc(d->qacc, d->qacc + nv);
  // qLD: row i at dof_Madr[i], D_i first, then L(i, j) for the ancestors j = dof_parentid chain.
  MatX<B> L = MatX<B>::Identity(nv, nv);
  VecX<B> D(nv);
  std::vector<double> qLD_L(static_cast<size_t>(nv) * nv, 0.0), qLD_D(nv);
  for (int i = 0; i < nv; ++i) {
    int adr = mm->dof_Madr[i];
    D(i) = B(d->qLD[adr]);
    qLD_D[i] = d->qLD[adr];
    qLD_L[i * nv + i] = 1;
    for (int j = mm->dof_parentid[i]; j >= 0; j = mm->dof_parentid[j]) {
      ++adr;
      L(i, j) = B(d->qLD[adr]);
      qLD_L[i * nv + j] = d->qLD[adr];
    }
  }

  // Inverse dynamics at qacc = J qdd + J̇v, same qpos and qvel (mj_inverse does not read
  // qfrc_applied; it is cleared anyway so that nothing of the forward pass carries over).
  for (int k = 0; k < nv; ++k) {
    d->qacc[k] = qacc_in[k];
    d->qfrc_applied[k] = 0;
  }
  // The tree's inverse dynamics: on a loop model mj_inverse would also subtract the soft
  // constraint forces it infers from qacc, so the constraint solver is off for this call.
  const int flags = mm->opt.disableflags;
  mm->opt.disableflags |= mjDSBL_CONSTRAINT;
  mj_inverse(mm, d);
  mm->opt.disableflags = flags;
  const std::vector<double> finv(d->qfrc_inverse, d->qfrc_inverse + nv);

  es.raw["note"] = "values in MuJoCo's conventions and DoF order, before conversion";
  es.raw["qpos"] = std::vector<double>(d->qpos, d->qpos + mm->nq);
  es.raw["qvel"] = qvel;
  es.raw["qfrc_applied"] = qfrc;
  es.raw["qacc_in"] = qacc_in;
  es.raw["H"] = json_rows(M, nv);
  es.raw["qfrc_bias"] = bias;
  es.raw["qacc"] = qacc;
  es.raw["qLD_L"] = json_rows(qLD_L, nv);
  es.raw["qLD_D"] = qLD_D;
  es.raw["qfrc_inverse"] = finv;
  if (m.nc > 0) {
    es.raw["qfrc_constraint"] = fc;
    es.raw["efc_force"] = efc;  // MuJoCo's constraint forces in its own constraint basis (not rbdref's λ)
  }

  // Converted values (bin50): H = Jᵀ H' J, C = Jᵀ (C' + H' J̇v), tau = Jᵀ tau', qdd = Jᵀ (qdd' − J̇v).
  put_tree_values(map, M, bias, finv, qacc, L, D, es);
  if (m.nc > 0) es.values["tau_c"] = num_vec(VecX<B>(map.J.transpose() * vec_of(fc.data(), nv)));
}

// Every sample on a loaded MuJoCo model (owned from here on): the rest of the adapter, for either
// import path. m is rbdref's model; MuJoCo's must name its joints and bodies as mj_joint_names and
// mj_body do (the MJCF rbdref writes does; MuJoCo's URDF import keeps the URDF's names).
EngineOutput run_loaded(const EngineAdapter& self, const Fixture& f, const std::string& fixture_file, const Model<B>& m, mjModel* mm,
                        const std::string& import_path, const MjcfImport* mjcf) {
  mjData* d = mj_makeData(mm);
  struct Guard {
    mjModel* m;
    mjData* d;
    ~Guard() { mj_deleteData(d); mj_deleteModel(m); }
  } guard{mm, d};
  if (mm->nv != m.nv || mm->nq != m.nq)
    throw EngineError("MuJoCo's model has nq " + std::to_string(mm->nq) + ", nv " + std::to_string(mm->nv) +
                      "; rbdref's has nq " + std::to_string(m.nq) + ", nv " + std::to_string(m.nv));

  // DoF and qpos addresses of each rbdref joint's first MuJoCo joint.
  std::vector<int> mj_dof(m.NB), mj_qpos(m.NB);
  for (int i = 0; i < m.NB; ++i) {
    const int j = mjcf ? mjcf->joint_of_body[static_cast<size_t>(i)] : mj_name2id(mm, mjOBJ_JOINT, mj_joint_names(m, i)[0].c_str());
    if (j < 0) throw EngineError("MuJoCo's model lacks joint '" + mj_joint_names(m, i)[0] + "'");
    mj_dof[i] = mm->jnt_dofadr[j];
    mj_qpos[i] = mm->jnt_qposadr[j];
  }

  EngineOutput out = output_header(self, f, fixture_file, import_path);
  out.conventions = conventions_of(m, mm, mj_dof);
  put_model_echo(out, f, mjcf ? mjcf->echo : model_echo(view_of(mm), m));
  for (const Sample& s : f.samples) {
    out.samples.push_back(engine_sample_of(s));
    EngineSample& e = out.samples.back();
    const MujocoMap map = mujoco_map(m, mj_dof, s.q, s.qd);
    tree_sample(mm, d, m, mj_dof, mj_qpos, s, map, e);
    if (runs_contacts(m)) contact_step(mm, d, m, mj_qpos, map, s, e);
  }
  return out;
}

}  // namespace

std::string mujoco_mjcf(const ModelDesc& desc) { return mjcf::mjcf_of(build_model<B>(desc), desc.name, mjcf::MjcfDialect::MuJoCo2); }



std::unique_ptr<EngineAdapter> make_mujoco_adapter() { return std::make_unique<MujocoAdapter>(); }
std::unique_ptr<EngineAdapter> make_mujoco_urdf_adapter() { return std::make_unique<MujocoUrdfAdapter>(); }
std::unique_ptr<EngineAdapter> make_mujoco_mjcf_adapter() { return std::make_unique<MujocoMjcfAdapter>(); }

}  // namespace rbd
