// rbdref_scale MODEL.urdf STATE.json: wall time of the pieces of `rbdref eval` that grow with the
// model at bin50 (docs/benchmarks.md, "Scale"): CRBA, table 6.3's LᵀDL on CRBA's
// H, ltdl_articulated, condition_estimate, and check_all. Plain timings (one run each), not a test.
//   build/bench/rbdref_scale /tmp/scale/chain2000.urdf /tmp/scale/state2000.json [--no-table63] [--no-checks]
#include "checks/properties.hpp"
#include "io/io_util.hpp"
#include "io/model_io.hpp"
#include "io/state_io.hpp"
#include "reference/numeric/mpfr_block_cache.hpp"

#include <chrono>
#include <cstdio>
#include <cstring>

using namespace rbd;

namespace {
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
template <class F>
auto timed(const char* what, F&& f) {
  const double t0 = now();
  auto r = f();
  std::printf("%-28s %9.2f s\n", what, now() - t0);
  std::fflush(stdout);
  return r;
}
}  // namespace

int main(int argc, char** argv) {
  rbd::install_mpfr_block_cache();  // as the command line does
  if (argc < 3) {
    std::fprintf(stderr, "usage: rbdref_scale MODEL STATE [--no-table63] [--no-checks]\n");
    return 2;
  }
  bool table63 = true, checks = true;
  for (int a = 3; a < argc; ++a) {
    if (!std::strcmp(argv[a], "--no-table63")) table63 = false;
    if (!std::strcmp(argv[a], "--no-checks")) checks = false;
  }
  using T = bin50;
  const LoadedModel lm = load_model(argv[1]);
  const Model<T> m = build_model<T>(lm.desc);
  const StateDesc st = read_state(read_json_file(argv[2]), argv[2], build_model<double>(lm.desc));
  const VecX<T> q = to_vec<T>(st.q), qd = to_vec<T>(st.qd), qdd = to_vec<T>(st.qdd), tau = to_vec<T>(st.tau);
  std::printf("%s: nv %d, bin50\n", argv[1], m.nv);
  const MatX<T> H = timed("crba", [&] { return crba<T>(m, q); });
  const SparseFactor<T> fa = timed("ltdl_articulated", [&] { return ltdl_articulated<T>(m, q); });
  ConditionInfo ci;
  const double kappa = timed("condition_estimate", [&] { return condition_estimate<T>(H, fa, &ci); });
  std::printf("  κ(H) ≈ %.6g (λmax %.6g in %d Lanczos steps, λmin %.6g in %d, solves in %d bits)\n", kappa,
              ci.lambda_max, ci.steps_max, ci.lambda_min, ci.steps_min, ci.solve_bits);
  if (table63) {
    const SparseFactor<T> f = timed("ltdl (table 6.3 on H)", [&] { return ltdl<T>(H, m.dof_parent); });
    T e(0);
    for (int i = 0; i < m.nv; ++i)
      for (int j = i; j >= 0; j = m.dof_parent[j]) {
        const T d = abs(T(f.LD(i, j) - fa.LD(i, j)));
        if (d > e) e = d;
      }
    std::printf("  max |LD_articulated - LD_table63| = %.3g\n", static_cast<double>(e));
  }
  if (checks) {
    const std::vector<CheckResult> rs = timed("check_all", [&] { return check_all<T>(m, q, qd, qdd, tau); });
    for (const CheckResult& r : rs) std::printf("  %s\n", r.message().c_str());
  }
  return 0;
}
