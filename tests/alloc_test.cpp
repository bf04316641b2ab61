// Nothing allocated per call by the workspace forms (reference/tree/workspace.hpp) at double, long
// double, float128, bin50 and bin100, on the bundled humanoid (free joint + 30 revolute), the Panda
// and the model of every joint type: malloc, calloc and realloc are replaced here, as in
// bench/bench_dynamics.cpp, and counted around the calls. Its own binary (ctest `allocations`):
// a replaced malloc in the main test binary would count its threads' allocations too. Planted: a
// workspace form that makes a VecX of its own fails it.
#include "checks/random_model.hpp"
#include "io/model_io.hpp"
#include "reference/tree/aba.hpp"
#include "reference/tree/crba.hpp"
#include "reference/tree/ltdl.hpp"
#include "reference/tree/rnea.hpp"
#include "tests/test_util.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>

extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
}

namespace {
std::atomic<std::size_t> g_allocations{0};
}

extern "C" {
void* malloc(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(n);
}
void* calloc(std::size_t n, std::size_t m) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(n, m);
}
void* realloc(void* p, std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(p, n);
}
}

namespace rbd {
namespace {

std::string source_dir() { return RBDREF_SOURCE_DIR; }

using ::rbd::test::exact_vec;

template <class F>
std::size_t allocations(F&& f) {
  const std::size_t before = g_allocations.load();
  f();
  return g_allocations.load() - before;
}

template <class T>
void no_allocation_per_call() {
  for (const char* file : {"humanoid.json", "panda.json", "all_joints.json"}) {
    const ModelDesc d = load_model(source_dir() + "/fixtures/models/" + file).desc;
    const Model<T> m = build_model<T>(d);
    const RandomState s = random_state(build_model<double>(d), 5);
    const VecX<T> q = exact_vec<T>(s.q), qd = exact_vec<T>(s.qd), qa = exact_vec<T>(s.qdd), ta = exact_vec<T>(s.tau);
    TreeWorkspace<T> ws(m);
    VecX<T> tau(m.nv), C(m.nv), qdd(m.nv), x(m.nv);
    MatX<T> H(m.nv, m.nv);
    SparseFactor<T> factor = ltdl<T>(crba<T>(m, q), m.dof_parent);
    // A first call may size what the constructor left (none should); the second is the steady state.
    for (int round = 0; round < 2; ++round) {
      const std::string at = std::string(file) + " round " + std::to_string(round);
      EXPECT_EQ(allocations([&] { rnea<T>(m, q, qd, qa, ws, tau); }), 0u) << "rnea " << at;
      EXPECT_EQ(allocations([&] { bias<T>(m, q, qd, ws, C); }), 0u) << "bias " << at;
      EXPECT_EQ(allocations([&] { crba<T>(m, q, ws, H); }), 0u) << "crba " << at;
      EXPECT_EQ(allocations([&] { ASSERT_TRUE(aba<T>(m, q, qd, ta, ws, qdd)); }), 0u) << "aba " << at;
      EXPECT_EQ(allocations([&] { ltdl<T>(H, m.dof_parent, factor); }), 0u) << "ltdl " << at;
      x = ta;
      EXPECT_EQ(allocations([&] { ltdl_solve_in_place<T>(factor, x); }), 0u) << "ltdl_solve_in_place " << at;
    }
    // The allocating forms do allocate (the counter counts): their results are fresh vectors.
    EXPECT_GT(allocations([&] { (void)rnea<T>(m, q, qd, qa); }), 0u) << file;
  }
}

TEST(Allocations, NoneInTheWorkspaceFormsDouble) { no_allocation_per_call<double>(); }
TEST(Allocations, NoneInTheWorkspaceFormsLongDouble) { no_allocation_per_call<long double>(); }
TEST(Allocations, NoneInTheWorkspaceFormsFloat128) { no_allocation_per_call<float128>(); }
TEST(Allocations, NoneInTheWorkspaceFormsBin50) { no_allocation_per_call<bin50>(); }
TEST(Allocations, NoneInTheWorkspaceFormsBin100) { no_allocation_per_call<bin100>(); }

}  // namespace
}  // namespace rbd
