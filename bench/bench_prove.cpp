// The proof (certify/prove.hpp) measured: its time on the humanoid and on chains of 100..2000
// bodies, and the wrapping effect it pays for, against tree size and against κ(H).
//
//   build-run/bench/rbdref_bench_prove                                   # everything
//   build-run/bench/rbdref_bench_prove --benchmark_filter=Humanoid
// Its figures, with date and build: docs/benchmarks.md, "Proof".
//
// Names and counters:
//   BM_ProveHumanoid          prove() of one bin50 evaluation of fixtures/models/humanoid.urdf
//                             (floating base, nv 36): seconds per call; counters interval_digits,
//                             attempts, and the proven norm-wise digits of H, C, tau, qdd.
//   BM_ProveChain/<n>         the same on a random revolute chain of n bodies (checks/random_model.hpp,
//                             seed 7, state seed 3).
//   BM_WrappingChain/<n>      no proof: H (CRBA) and τ (RNEA) of that chain on intervals at a fixed
//                             60 digits; counters log10_width_H, log10_width_tau: log10 of the widest
//                             enclosure over the largest entry (0.3 = nothing left).
//   BM_WrappingKappa/<k>      a 30-body chain whose bodies' masses fall by 10^-k/29 per body (κ(H)
//                             grows with k): counters kappa (of the point evaluation), the proven
//                             digits of qdd and its verified enclosure's log10 width at 60 digits.
#include "certify/evaluate.hpp"
#include "certify/prove.hpp"
#include "checks/random_model.hpp"
#include "io/model_io.hpp"
#include "io/numbers.hpp"
#include "reference/tree/interval_tree.hpp"

#include <benchmark/benchmark.h>

#include <cmath>
#include <limits>
#include <string>

namespace {

using namespace rbd;

StateDesc exact_state(const ModelDesc& d, std::uint64_t seed) {
  const RandomState r = random_state(build_model<double>(d), seed);
  return StateDesc{exact_nums(r.q), exact_nums(r.qd), exact_nums(r.qdd), exact_nums(r.tau), {}, {}, {}};
}

ModelDesc chain(int n, double mass_decades = 0) {
  TreeSpec spec;
  spec.nb = n;
  spec.joints = {JointType::Revolute};
  ModelDesc d = random_tree(spec, 7);
  if (mass_decades > 0)
    for (size_t b = 0; b < d.bodies.size(); ++b) {
      const double f = std::pow(10.0, -mass_decades * static_cast<double>(b) / static_cast<double>(d.bodies.size() - 1));
      InertialDesc& in = d.bodies[b].inertial;
      in.mass = Num::exact(in.mass.value * f);
      for (Num& x : in.I) x = Num::exact(x.value * f);
    }
  return d;
}

void prove_counters(benchmark::State& st, const ModelDesc& d, const StateDesc& s) {
  const Precision p = *Precision::parse("bin50");
  const Evaluation ev = evaluate_certified(p, d, s);
  Proof proof;
  for (auto _ : st) proof = prove(ev, d, s);
  st.counters["interval_digits"] = proof.interval_digits;
  st.counters["attempts"] = proof.attempts;
  std::string why;  // the first quantity not proven, and why (the benchmark's label)
  for (const ProvenQuantity& q : proof.quantities)
    if (why.empty() && !q.not_proven.empty()) why = q.name + ": " + q.not_proven.substr(0, 160);
  st.SetLabel(why);
  for (const char* n : {"H", "C", "tau", "qdd"}) {
    const ProvenQuantity* q = proof.find(n);
    st.counters[std::string("proven_") + n] = q && q->not_proven.empty() ? q->digits : -1;
    st.counters[std::string("estimated_") + n] = ev.find(n) ? ev.find(n)->normwise_digits : -1;
  }
}

void BM_ProveHumanoid(benchmark::State& st) {
  LoadOptions lo;
  lo.floating_base = true;
  const LoadedModel lm = load_model(std::string(RBDREF_SOURCE_DIR) + "/fixtures/models/humanoid.urdf", lo);
  prove_counters(st, lm.desc, exact_state(lm.desc, 3));
}
BENCHMARK(BM_ProveHumanoid)->Unit(benchmark::kMillisecond)->Iterations(5);

void BM_ProveChain(benchmark::State& st) {
  const ModelDesc d = chain(static_cast<int>(st.range(0)));
  prove_counters(st, d, exact_state(d, 3));
}
BENCHMARK(BM_ProveChain)->Arg(100)->Arg(300)->Arg(1000)->Arg(2000)->Unit(benchmark::kSecond)->Iterations(1);

double log10_width(const Interval& x) {
  mpfr_t w;
  mpfr_init2(w, 64);
  mpfr_sub(w, x.hi(), x.lo(), MPFR_RNDU);
  long e = 0;
  const double m = mpfr_get_d_2exp(&e, w, MPFR_RNDU);
  mpfr_clear(w);
  return m == 0 ? -std::numeric_limits<double>::infinity() : std::log10(m) + static_cast<double>(e) * std::log10(2.0);
}
template <class M>
double log10_relative_width(const M& A) {
  double w = -std::numeric_limits<double>::infinity(), v = 0;
  for (Eigen::Index k = 0; k < A.size(); ++k) {
    w = std::max(w, log10_width(A.data()[k]));
    v = std::max({v, std::abs(A.data()[k].lo_double()), std::abs(A.data()[k].hi_double())});
  }
  return w - std::log10(v);
}

void BM_WrappingChain(benchmark::State& st) {
  const ModelDesc d = chain(static_cast<int>(st.range(0)));
  const StateDesc s = exact_state(d, 3);
  ScopedIntervalDigits g(60);
  const Model<Interval> m = build_model<Interval>(d);
  const VecX<Interval> q = to_vec<Interval>(s.q), qd = to_vec<Interval>(s.qd), qdd = to_vec<Interval>(s.qdd);
  MatX<Interval> H;
  VecX<Interval> tau;
  for (auto _ : st) {
    H = crba<Interval>(m, q);
    tau = rnea<Interval>(m, q, qd, qdd);
  }
  st.counters["log10_width_H"] = log10_relative_width(H);
  st.counters["log10_width_tau"] = log10_relative_width(tau);
}
BENCHMARK(BM_WrappingChain)->Arg(10)->Arg(30)->Arg(100)->Arg(300)->Arg(1000)->Unit(benchmark::kSecond)->Iterations(1);

void BM_WrappingKappa(benchmark::State& st) {
  const ModelDesc d = chain(30, static_cast<double>(st.range(0)));
  const StateDesc s = exact_state(d, 3);
  const Evaluation ev = evaluate_certified(*Precision::parse("bin50"), d, s);
  Proof proof;
  for (auto _ : st) proof = prove(ev, d, s);
  st.counters["kappa"] = std::strtod(ev.condition_number.c_str(), nullptr);
  const ProvenQuantity* q = proof.find("qdd");
  st.counters["proven_qdd"] = q && q->not_proven.empty() ? q->digits : -1;
  st.counters["estimated_qdd"] = ev.find("qdd") ? ev.find("qdd")->normwise_digits : -1;
  st.counters["interval_digits"] = proof.interval_digits;
}
BENCHMARK(BM_WrappingKappa)->Arg(0)->Arg(4)->Arg(8)->Arg(16)->Arg(24)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
