// The model readers at scale (docs/benchmarks.md "Readers"): an MJCF model read and built at bin50,
//   BM_MjcfSettotalmass/N   N sibling bodies, each a sphere geom, under <compiler settotalmass>:
//                           every body's mass shares the factor S / Σ m (each node evaluated once)
//   BM_MjcfGeoms/N          one body of N geoms (its mass properties a sum of N parts)
// Run: build/bench/rbdref_bench_readers [--benchmark_filter=...]
#include "io/model_io.hpp"
#include "reference/numeric/scalar.hpp"
#include "reference/tree/model.hpp"

#include <benchmark/benchmark.h>

#include <string>

namespace {

std::string settotalmass_model(int n) {
  std::string x = "<mujoco><compiler settotalmass='10'/><worldbody>";
  for (int k = 0; k < n; ++k)
    x += "<body pos='" + std::to_string(k) + " 0 0'><joint axis='0 1 0'/><geom type='sphere' size='0.0" + std::to_string(100 + k) +
         "'/></body>";
  return x + "</worldbody></mujoco>";
}

std::string geoms_model(int n) {
  std::string x = "<mujoco><worldbody><body><joint axis='0 1 0'/>";
  for (int k = 0; k < n; ++k) x += "<geom size='0.01' pos='0 0 " + std::to_string(k % 7) + "'/>";
  return x + "</body></worldbody></mujoco>";
}

// read_mjcf of the model `model(N)`, N the benchmark's argument, as the file `name`, then
// build_model at bin50; the complexity is fitted against N.
void read_and_build(benchmark::State& state, std::string (*model)(int), const char* name) {
  const std::string text = model(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    const rbd::ModelDesc d = rbd::read_mjcf(text, name);
    benchmark::DoNotOptimize(rbd::build_model<rbd::bin50>(d));
  }
  state.SetComplexityN(state.range(0));
}

void BM_MjcfSettotalmass(benchmark::State& state) { read_and_build(state, settotalmass_model, "total.xml"); }
BENCHMARK(BM_MjcfSettotalmass)->Arg(1000)->Arg(2000)->Arg(4000)->Unit(benchmark::kMillisecond)->Complexity();

void BM_MjcfGeoms(benchmark::State& state) { read_and_build(state, geoms_model, "geoms.xml"); }
BENCHMARK(BM_MjcfGeoms)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond)->Complexity();

}  // namespace

BENCHMARK_MAIN();
