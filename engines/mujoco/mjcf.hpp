// The MJCF rbdref writes for MuJoCo, and what both MuJoCo adapters share: MuJoCo 2.2.2 through
// its C library (engines/mujoco/mujoco_adapter.hpp) and MuJoCo 3.x through its official WebAssembly
// build (engines/mujoco_js/mujoco_js_adapter.hpp). Nothing here calls MuJoCo: the MJCF text, the
// joint names, qpos of a canonical q, the canonical ↔ MuJoCo map, the model echo over MuJoCo's
// model arrays (MjModelView, filled from an mjModel or from the arrays the Node script returns),
// the conventions of the tree quantities and the adapters' refusals.
// The import path and the conventions are described in docs/engines.md ("MuJoCo").
#pragma once

#include "engines/mujoco/mujoco_adapter.hpp"
#include "engines/support.hpp"
#include "io/engine_output.hpp"
#include "reference/tree/model.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace rbd::mjcf {

using B = bin50;
using ojson = nlohmann::ordered_json;

// MuJoCo 2 (Debian's 2.2.2) and MuJoCo 3 differ in the MJCF rbdref writes: 3 has no passive flag
// (spring and damper instead) and no <size nconmax njmax>.
enum class MjcfDialect { MuJoCo2, MuJoCo3 };

std::string dec(const B& x);
std::string dec3(const Vec3<B>& v);
Eigen::Matrix<B, 4, 1> quat_of(const Mat3<B>& R);
Mat3<B> R_of_quat(const double* q);
std::vector<std::string> mj_joint_names(const Model<B>& m, int i);
struct Inertial {
  B mass;
  Vec3<B> com;
  Mat3<B> Ic;  // about the COM, body axes
};
Inertial inertial_of(const Inertia<B>& I);
std::string contact_refusal(const Model<B>& m);
bool runs_contacts(const Model<B>& m);
std::string mj_body(const Model<B>& m, int i);
std::string contact_geom_name(const Model<B>& m, int body);
void free_world_pose(const Model<B>& m, int i, const double* q, Vec3<B>& p_w, Mat3<B>& R_w);
void set_qpos(const Model<B>& m, const std::vector<int>& mj_qpos, const std::vector<double>& q, double* qpos);
std::vector<double> to_doubles(const VecX<B>& x);  // x rounded to doubles: MuJoCo's qvel, qacc, qfrc_applied
std::vector<std::string> loop_equality_names(const LoopJoint<B>& L);
std::string mjcf_of(const Model<B>& m, const std::string& name, MjcfDialect dialect);

// MuJoCo's compiled model as the echo reads it: its arrays (mjModel's names and layouts; body 0 is
// the world) and its name lookups (-1 when absent).
struct MjModelView {
  std::function<int(const std::string&)> body_id, joint_id;
  const double *body_mass = nullptr, *body_ipos = nullptr, *body_iquat = nullptr, *body_inertia = nullptr, *body_pos = nullptr,
               *body_quat = nullptr, *jnt_axis = nullptr;
  double gravity[3] = {0, 0, 0};
  int nbody = 0, njnt = 0, nq = 0, nv = 0, neq = 0;
};
// MuJoCo's tree values at one sample (its DoF order and coordinates; M = mj_fullM row-major, bias =
// qfrc_bias, finv = qfrc_inverse, qacc) into es.values in rbdref's canonical conventions
// (docs/engines.md): H = Jᵀ H' J, C = Jᵀ (C' + H' J̇v), tau = Jᵀ tau', qdd = Jᵀ (qdd' − J̇v); the
// factor L, D (already in canonical order) only when J is the identity. Both MuJoCo adapters.
void put_tree_values(const MujocoMap& map, const std::vector<double>& M, const std::vector<double>& bias, const std::vector<double>& finv,
                     const std::vector<double>& qacc, const MatX<B>& L, const VecX<B>& D, EngineSample& es);

// The model echo: MuJoCo's model read back and compared with rbdref's at 50 digits.
ojson model_echo(const MjModelView& mm, const Model<B>& m);

// The MJCF without what names files (asset elements with a file attribute: meshes, height fields,
// textures, skins) and without the geoms and attributes that use them; *removed counts the assets.
// Where the files are not at hand, MuJoCo loads this; the dynamics is unchanged where the bodies
// have <inertial>s (which rbdref requires of a body with a mesh geom).
std::string strip_mjcf_assets(const std::string& mjcf, int* removed);

// MuJoCo's own MJCF import, at qpos0 (mj_kinematics, mj_comPos after mj_resetData): what the echo of
// the MJCF paths compares, in world coordinates, since MuJoCo's bodies are not rbdref's (rbdref
// splits a body with n joints into n, and welds a jointless body into its parent, as MuJoCo's
// body_weldid groups them).
struct MjWorldView {
  int nbody = 0, njnt = 0, nq = 0, nv = 0;
  std::vector<std::string> jnt_names;
  std::vector<int> body_weldid, jnt_type, jnt_bodyid, jnt_qposadr, jnt_dofadr;  // jnt_type: 0 free, 1 ball, 2 slide, 3 hinge
  std::vector<double> body_mass, body_inertia, xipos, ximat, xanchor, xaxis, dof_armature, qpos0;
  double gravity[3] = {0, 0, 0};
};
// rbdref's joint of each MuJoCo joint, in order: rbdref's moving bodies are MuJoCo's joints one
// for one (the MJCF reader's frames, io/mjcf.cpp); empty with `why` set when they are not.
std::vector<int> mjcf_joint_map(const MjWorldView& v, const Model<B>& m, std::string& why);
// rbdref's q at MuJoCo's qpos0 (the free joint's 7 reordered).
std::vector<double> q_of_qpos(const Model<B>& m, const std::vector<int>& mj_qpos, const std::vector<double>& qpos);
// The echo: per MuJoCo weld group with DoFs, mass, COM and inertia about it, and per joint its
// anchor, axis and armature, at qpos0 in the world, against rbdref's model at the same q.
ojson mjcf_echo(const MjWorldView& v, const Model<B>& m, const std::vector<int>& joint_map);

// The conventions both MuJoCo adapters declare for the tree quantities (docs/engines.md), in
// their own words for qdd (what is disabled) and the factor (its layout); mj_dof: MuJoCo's DoF
// address of each rbdref joint's first DoF.
json tree_conventions(const std::string& qdd, const std::string& factor, const std::vector<int>& mj_dof);

// How the MuJoCo adapters word their refusals (engines/support.hpp), each with its own reason for a
// loop joint: of the MJCF rbdref writes, or of MuJoCo's own URDF import (urdf_import: it welds a
// free root to the world).
Refusals refusals(bool urdf_import, const std::string& loop);
// The written paths' refusal of a massless moving body: MuJoCo's compiler requires mass and inertia
// (mjMINVAL) of every body with joints, and rbdref's model of an MJCF body with several joints has
// massless frames between them (docs/mjcf.md), which MuJoCo's own import audits instead.
extern const char* const kMjMassless;
// The body whose inertia MuJoCo's compiler refuses ("inertia must satisfy A + B >= C": the
// triangle inequality, engines/values.hpp), or empty; balanceinertia would load another model.
std::string inertia_refusal(const Model<double>& m);

}  // namespace rbd::mjcf
