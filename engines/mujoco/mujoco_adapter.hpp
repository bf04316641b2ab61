// MuJoCo adapter ("mujoco", Debian libmujoco-dev 2.2.2): MJCF that rbdref writes from the fixture's
// built model (engines/mujoco/mjcf.hpp: MuJoCo's bodies are rbdref's, inertias diagonalized at 50
// digits, the compiler told to change nothing), loaded by mj_loadXML. Trees of revolute, prismatic,
// cylindrical, planar, spherical joints and free joints on bodies attached to the world (MuJoCo
// has no helical joint): H, C, tau, qdd, and L, D when the map below is the identity; loop models
// through MuJoCo's soft equality constraints (revolute, spherical, fixed loop joints; tau_c);
// frictionless rigid contacts through MuJoCo's soft contact constraints written by hand into
// mjData.contact (contact_lambda, contact_qdd, contact_tau_c), with MuJoCo's own contact model
// solved exactly beside them (model_values). Values are converted from MuJoCo's coordinates by the
// state-dependent map v' = J v (the free joint's [R v; ω], MuJoCo's depth-first DoF order).
// docs/engines.md, "MuJoCo", has the MJCF settings, the joints, the map, the loop and contact
// models and the findings; "MuJoCo's own URDF import" the mujoco-urdf adapter.
#pragma once

#include "engines/adapter.hpp"
#include "reference/tree/model.hpp"

#include <memory>
#include <string>
#include <vector>

namespace rbd {

std::unique_ptr<EngineAdapter> make_mujoco_adapter();
// MuJoCo's own URDF import path ("mujoco-urdf"): mj_loadXML on the model's URDF, then the same
// samples, conversions and echo (trees of revolute and prismatic joints on a fixed base).
std::unique_ptr<EngineAdapter> make_mujoco_urdf_adapter();
// MuJoCo's own MJCF import ("mujoco-mjcf"): mj_loadXML on the user's MJCF file, the same samples
// and conversions, and an echo at qpos0 in world coordinates (mjcf.hpp, mjcf_echo).
std::unique_ptr<EngineAdapter> make_mujoco_mjcf_adapter();

// The MJCF text the adapter feeds MuJoCo for a model description.
std::string mujoco_mjcf(const ModelDesc& desc);

// The map at one state: v' = J v (J = [[0, R], [1, 0]] on a free joint, R the body's world rotation,
// and MuJoCo's DoF order), and J̇v ([R (ω × v); 0] on a free joint, 0 elsewhere). mj_dof_of_joint[i]
// is MuJoCo's DoF address of rbdref joint i's first DoF. identity: J = 1 (the factor is compared).
struct MujocoMap {
  MatX<bin50> J;
  VecX<bin50> Jdot_v;
  bool identity = true;
};
MujocoMap mujoco_map(const Model<bin50>& m, const std::vector<int>& mj_dof_of_joint,
                     const std::vector<double>& q, const std::vector<double>& qd);

}  // namespace rbd
