// The bundled closed-loop mechanisms (fixtures/models/loops/README.md) as the tests load them:
// one table for every loop test file, with each mechanism's n, n^c, rank and mobility from its
// construction.
#pragma once

#include "io/model_io.hpp"
#include "tests/test_paths.hpp"
#include "io/state_io.hpp"
#include "reference/loops/constraints.hpp"
#include "reference/tree/integrate.hpp"

#include <gtest/gtest.h>

#include <string>

namespace rbd::test {

struct BundledLoop {
  const char* name;
  bool floating;  // the URDF's root gets a free joint (--floating-base)
  int n, nc, rank, mobility;
};

inline const BundledLoop kBundledLoops[] = {
    {"parallelogram", false, 3, 5, 2, 1},  {"slider_crank", false, 3, 5, 2, 1},   {"fig83_arm", false, 4, 5, 2, 2},
    {"delta3", false, 15, 9, 9, 6},         {"stewart_gough", false, 24, 18, 18, 6}, {"six_bar", false, 5, 10, 4, 1},
    {"ladder4", false, 12, 20, 8, 4},       {"far_fourbar", false, 3, 5, 2, 1},    {"far_fourbar_floating", true, 9, 5, 2, 7},
    {"bennett", false, 3, 5, 2, 1},
};

inline std::string loops_dir() { return std::string(::rbd::test::kSourceDir) + "/fixtures/models/loops/"; }

// The URDF with its loops file, or (canonical) the version-2 JSON that embeds the loops.
inline LoadedModel load_bundled(const BundledLoop& b, bool canonical = false) {
  LoadOptions lo;
  lo.floating_base = b.floating && !canonical;
  if (!canonical) lo.loops_file = loops_dir() + b.name + ".loops.json";
  return load_model(loops_dir() + b.name + (canonical ? ".json" : ".urdf"), lo);
}

// The mechanism's state file NAME.WHICH.json ("state": assembled, on the closure manifold;
// "start": the sketch assembly starts from), read for the model `desc`.
inline StateDesc bundled_state(const BundledLoop& b, const ModelDesc& desc, const std::string& which = "state") {
  return read_state(read_json_file(loops_dir() + b.name + "." + which + ".json"), b.name, model_layout(desc));
}

// The mechanism with its first loop joint's predecessor frame moved by 0.01 along each of its
// body's axes: a planar loop then cannot close out of its plane, so K q̈ = k + k_stab is
// inconsistent in the rows K leaves empty (a loop that is not planar keeps a consistent one).
// The model's q moved off its closure manifold by a fixed displacement along the joints' flow:
// 0.03, -0.06, 0.09, -0.03, … (integrate_q, so quaternions stay unit).
template <class T>
VecX<T> displaced_off_closure(const Model<T>& m, const VecX<T>& q) {
  VecX<T> push(m.nv);
  for (int i = 0; i < m.nv; ++i) push(i) = T(3 * (1 + i % 3) * (i % 2 ? -1 : 1)) / T(100);
  return integrate_q<T>(m, q, push, T(1));
}

inline LoadedModel with_shifted_closure(LoadedModel lm) {
  for (Num& x : lm.desc.loop_joints.at(0).pred.origin.xyz)
    x = Num::decimal(to_decimal(bin100(x.as<bin100>() + from_decimal<bin100>("0.01")), 40));
  return lm;
}

// Every bundled mechanism off its closure manifold (displaced_off_closure), as it is and with its
// closure shifted (with_shifted_closure), and its loop constraints there in loop-local frames with
// Baumgarte's α = β = 5: f(model, q, q̇, τ, constraints), under a trace naming the case. Stops at
// the first fatal failure, as the loop of one test would.
template <class T, class F>
void for_each_off_closure(F&& f) {
  for (const BundledLoop& b : kBundledLoops)
    for (const bool shifted : {false, true}) {
      SCOPED_TRACE(std::string(b.name) + (shifted ? ", closure shifted 0.01" : ""));
      const LoadedModel lm = shifted ? with_shifted_closure(load_bundled(b)) : load_bundled(b);
      const Model<T> m = build_model<T>(lm.desc);
      const StateDesc st = bundled_state(b, lm.desc);
      const VecX<T> qd = to_vec<T>(st.qd), tau = to_vec<T>(st.tau);
      const VecX<T> q = displaced_off_closure<T>(m, to_vec<T>(st.q));
      f(m, q, qd, tau, loop_constraints<T>(m, q, qd, LoopFrame::Local, T(5), T(5)));
      if (::testing::Test::HasFatalFailure()) return;
    }
}

}  // namespace rbd::test
