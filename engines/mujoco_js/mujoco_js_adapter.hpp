// MuJoCo 3 adapter, through MuJoCo's official WebAssembly build (npm package mujoco-js 0.0.7,
// MuJoCo 3.3.8, pinned in engines/mujoco_js/package-lock.json and installed by scripts/setup.sh
// with `npm ci`), run under Node.js by engines/mujoco_js/run_mujoco.mjs. It stands beside the
// MuJoCo 2.2.2 adapter so that the digits of two MuJoCo versions show side by side on the same
// model and states: a regression between versions is a difference between the two rows.
//
// Import path: the same MJCF rbdref writes for MuJoCo 2.2.2 (engines/mujoco/mjcf.hpp), in MuJoCo
// 3's dialect (spring and damper flags instead of passive). Conventions and conversions are those
// of mujoco_adapter.hpp (free-joint map J, DoF order; H = Jᵀ H' J, C = Jᵀ(C' + H' J̇v), ...). The
// factor: MuJoCo 3 keeps qLD in the compressed-row layout of qM (M_rownnz, M_rowadr, M_colind),
// row i holding L(i, j) for its ancestors j in increasing order, then D_i at the diagonal; H =
// Lᵀ D L. Model echo: the compiled model's arrays as the script returns them, read by the same
// echo as 2.2.2's.
//
// What runs: trees (the joint types of MuJoCo 2.2.2's adapter). On a model with contacts the tree
// quantities run and the contacts do not (the contact step needs mjData.contact written by hand,
// which the WebAssembly bindings do not expose); loop models are unsupported (their equality
// anchors go into eq_data after loading, not yet done through the bindings).
//
// Numbers cross as JSON text: JavaScript writes the shortest decimal that reads back as the same
// double, and the adapter parses it exactly. WebAssembly's doubles are IEEE binary64 with round to
// nearest and no fused multiply-add, so MuJoCo 3 here may round differently from a native build.
#pragma once

#include "engines/adapter.hpp"

#include <memory>

namespace rbd {

std::unique_ptr<EngineAdapter> make_mujoco_js_adapter();
// MuJoCo 3's own URDF import ("mujoco-js-urdf"): the URDF's text loaded by the WebAssembly module,
// limits, friction loss, springs and dampers switched off after loading; DoF addresses from a first
// pass that loads the model alone; the rest as above.
std::unique_ptr<EngineAdapter> make_mujoco_js_urdf_adapter();

}  // namespace rbd
