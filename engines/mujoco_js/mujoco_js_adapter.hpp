// MuJoCo 3 adapter ("mujoco-js"): MuJoCo's official WebAssembly build (npm mujoco-js 0.0.7, MuJoCo
// 3.3.8, pinned in engines/mujoco_js/package-lock.json, installed by scripts/setup.sh with `npm ci`)
// run under Node.js by engines/mujoco_js/run_mujoco.mjs, beside the MuJoCo 2.2.2 adapter so that a
// regression between the versions shows as a difference between their rows. The same MJCF in
// MuJoCo 3's dialect (engines/mujoco/mjcf.hpp), the same conversions and echo; numbers cross as
// JSON text, exactly. Trees (the 2.2.2 adapter's joint types): H, C, tau, qdd, L, D; a model's
// contacts are not run (the bindings do not expose mjData.contact) and loop models are unsupported
// (their eq_data anchors are not written through the bindings). docs/engines.md, "MuJoCo 3", has
// what differs from 2.2.2 (the factor's compressed rows, the errors, the arithmetic) and the
// measurements; "MuJoCo 3's own URDF import" the mujoco-js-urdf adapter.
#pragma once

#include "engines/adapter.hpp"

#include <memory>

namespace rbd {

std::unique_ptr<EngineAdapter> make_mujoco_js_adapter();
// MuJoCo 3's own URDF import ("mujoco-js-urdf"): the URDF's text loaded by the WebAssembly module,
// limits, friction loss, springs and dampers switched off after loading; DoF addresses from a first
// pass that loads the model alone; the rest as above.
std::unique_ptr<EngineAdapter> make_mujoco_js_urdf_adapter();
// MuJoCo 3's own MJCF import ("mujoco-js-mjcf"): the user's MJCF and the files it includes loaded
// by the WebAssembly module, as for the URDF; joints mapped in order and the echo at qpos0
// (engines/mujoco/mjcf.hpp, mjcf_echo).
std::unique_ptr<EngineAdapter> make_mujoco_js_mjcf_adapter();

}  // namespace rbd
