// Benchmarks of RNEA, CRBA, LᵀDL and ABA for every scalar on a 7-DoF arm and a 34-DoF
// floating-base humanoid-like tree, a raw-arithmetic kernel per scalar, and LᵀDL scaling on
// bounded-depth trees of 100..800 bodies.
//
// After the runs a summary compares, per scalar and algorithm, the algorithm's cost ratio to
// double with the kernel's (the scalar's raw arithmetic cost ratio): overhead = ratio_alg /
// ratio_kernel, target ≤ 1.3; and LᵀDL time(2n) / time(n), target ≤ 2.2.
// MPFR runs at 50 digits.
#include "checks/random_model.hpp"
#include "reference/aba.hpp"
#include "reference/crba.hpp"
#include "reference/ltdl.hpp"
#include "reference/mj_factor.hpp"
#include "reference/rnea.hpp"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>

namespace rbd {
namespace {

// 7 revolute joints in a chain.
ModelDesc arm7() {
  TreeSpec s;
  s.nb = 7;
  s.branching = 1;
  s.joints = {JointType::Revolute};
  return random_tree(s, 7);
}

// Torso on a free joint; two legs of 6, two arms of 7 and a neck of 2 revolute joints: 34 DoFs.
ModelDesc humanoid() {
  TreeSpec s;
  s.nb = 1 + 6 + 6 + 7 + 7 + 2;
  s.floating_base = true;
  s.joints = {JointType::Revolute};
  ModelDesc d = random_tree(s, 34);
  int i = 1;
  for (int len : {6, 6, 7, 7, 2})
    for (int k = 0; k < len; ++k, ++i) d.bodies[i].parent = k == 0 ? 0 : i - 1;
  return d;
}

template <class T>
struct Problem {
  Model<T> model;
  VecX<T> q, qd, qdd, tau;
  MatX<T> H;
  explicit Problem(const ModelDesc& d) : model(build_model<T>(d)) {
    const RandomState s = random_state(build_model<double>(d), 99);
    auto v = [](const std::vector<double>& x) {
      VecX<T> y(static_cast<Eigen::Index>(x.size()));
      for (size_t k = 0; k < x.size(); ++k) y(static_cast<Eigen::Index>(k)) = T(x[k]);
      return y;
    };
    q = v(s.q);
    qd = v(s.qd);
    qdd = v(s.qdd);
    tau = v(s.tau);
    H = crba<T>(model, q);
  }
};

template <class T>
const Problem<T>& problem(bool big) {
  static const Problem<T> a(arm7()), h(humanoid());
  return big ? h : a;
}

template <class T>
void BM_Rnea(benchmark::State& st) {
  const Problem<T>& p = problem<T>(st.range(0));
  for (auto _ : st) benchmark::DoNotOptimize(rnea<T>(p.model, p.q, p.qd, p.qdd));
}
template <class T>
void BM_Crba(benchmark::State& st) {
  const Problem<T>& p = problem<T>(st.range(0));
  for (auto _ : st) benchmark::DoNotOptimize(crba<T>(p.model, p.q));
}
template <class T>
void BM_Ltdl(benchmark::State& st) {
  const Problem<T>& p = problem<T>(st.range(0));
  for (auto _ : st) benchmark::DoNotOptimize(ltdl<T>(p.H, p.model.dof_parent));
}
template <class T>
void BM_Aba(benchmark::State& st) {
  const Problem<T>& p = problem<T>(st.range(0));
  for (auto _ : st) benchmark::DoNotOptimize(aba<T>(p.model, p.q, p.qd, p.tau));
}

// Raw arithmetic of T: y = A x + y with a 6x6 A, hand-written loops, no allocation (36
// multiply-adds per iteration, the core operation of spatial algebra).
template <class T>
void BM_Kernel(benchmark::State& st) {
  T A[36], x[6], y[6];
  for (int k = 0; k < 36; ++k) A[k] = T(1) / T(k + 3);
  for (int k = 0; k < 6; ++k) x[k] = T(k + 1) / T(7), y[k] = T(0);
  for (auto _ : st) {
    for (int i = 0; i < 6; ++i) {
      T s = y[i];
      for (int j = 0; j < 6; ++j) s += A[6 * i + j] * x[j];
      y[i] = s / T(8);  // keep y bounded
    }
    benchmark::DoNotOptimize(y);
  }
}

// LᵀDL on a bounded-depth tree of n revolute bodies (branching n/16: depth ≤ 3), in MuJoCo's
// sparse layout, whose storage is O(n d): the copy of qM into qLD is part of the timing, and so
// is the factorization, O(n d²).
void BM_LtdlScaling(benchmark::State& st) {
  TreeSpec s;
  s.nb = static_cast<int>(st.range(0));
  s.branching = s.nb / 16.0;
  s.joints = {JointType::Revolute};
  const ModelDesc d = random_tree(s, 5);
  const Model<double> m = build_model<double>(d);
  const RandomState rs = random_state(m, 6);
  const MatX<double> H = crba<double>(m, Eigen::Map<const VecX<double>>(rs.q.data(), m.nq));
  const MjLayout lay = mj_layout(m.dof_parent);
  const std::vector<double> qM = mj_pack<double>(lay, H);
  for (auto _ : st) benchmark::DoNotOptimize(mj_factorI<double>(lay, qM));
  st.counters["nM"] = lay.nM;
}

#define RBD_SCALAR_BENCH(T, name)                                                   \
  BENCHMARK_TEMPLATE(BM_Rnea, T)->Arg(0)->Arg(1)->Name("BM_Rnea<" name ">");       \
  BENCHMARK_TEMPLATE(BM_Crba, T)->Arg(0)->Arg(1)->Name("BM_Crba<" name ">");       \
  BENCHMARK_TEMPLATE(BM_Ltdl, T)->Arg(0)->Arg(1)->Name("BM_Ltdl<" name ">");       \
  BENCHMARK_TEMPLATE(BM_Aba, T)->Arg(0)->Arg(1)->Name("BM_Aba<" name ">");         \
  BENCHMARK_TEMPLATE(BM_Kernel, T)->Name("BM_Kernel<" name ">");

RBD_SCALAR_BENCH(double, "double")
RBD_SCALAR_BENCH(long double, "longdouble")
RBD_SCALAR_BENCH(float128, "float128")
RBD_SCALAR_BENCH(bin50, "bin50")
RBD_SCALAR_BENCH(bin100, "bin100")
RBD_SCALAR_BENCH(mpfr, "mpfr50")
BENCHMARK(BM_LtdlScaling)->Arg(100)->Arg(200)->Arg(400)->Arg(800);

// Collects per-iteration real times by name for the summary.
class Collect : public benchmark::ConsoleReporter {
 public:
  std::map<std::string, double> ns;
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs)
      if (r.run_type == Run::RT_Iteration) ns[r.benchmark_name()] = r.GetAdjustedRealTime();
    ConsoleReporter::ReportRuns(runs);
  }
};

void summary(const std::map<std::string, double>& ns) {
  auto get = [&](const std::string& k) {
    auto it = ns.find(k);
    return it == ns.end() ? 0.0 : it->second;
  };
  std::printf("\nCost ratio to double: algorithm vs raw arithmetic kernel (overhead target <= 1.3)\n");
  std::printf("%-11s %-6s %-9s %10s %10s %9s\n", "scalar", "alg", "model", "ratio_alg", "ratio_kern", "overhead");
  const double kd = get("BM_Kernel<double>");
  for (const char* s : {"longdouble", "float128", "bin50", "bin100", "mpfr50"}) {
    const double kr = get(std::string("BM_Kernel<") + s + ">") / kd;
    for (const char* a : {"Rnea", "Crba", "Ltdl", "Aba"})
      for (const char* m : {"0", "1"}) {
        const std::string suffix = std::string(">/") + m;
        const double ad = get(std::string("BM_") + a + "<double" + suffix);
        const double at = get(std::string("BM_") + a + "<" + s + suffix);
        if (ad <= 0 || at <= 0 || kd <= 0) continue;
        std::printf("%-11s %-6s %-9s %10.1f %10.1f %9.2f\n", s, a, m[0] == '0' ? "arm7" : "humanoid", at / ad, kr,
                    at / ad / kr);
      }
  }
  std::printf("\nLTDL scaling (sparse layout), time(2n)/time(n), target <= 2.2\n");
  for (int n : {100, 200, 400}) {
    const double a = get("BM_LtdlScaling/" + std::to_string(n)), b = get("BM_LtdlScaling/" + std::to_string(2 * n));
    if (a > 0 && b > 0) std::printf("  n = %4d -> %4d: %.2f\n", n, 2 * n, b / a);
  }
}

}  // namespace
}  // namespace rbd

int main(int argc, char** argv) {
  rbd::mpfr::default_precision(50);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  rbd::Collect rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  rbd::summary(rep.ns);
  benchmark::Shutdown();
  return 0;
}
