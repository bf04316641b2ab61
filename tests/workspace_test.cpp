// The workspace forms of the tree algorithms (reference/tree/workspace.hpp): one workspace reused
// across states, models' sizes and a failed ABA gives, call after call, exactly (bit for bit) what
// the allocating forms give for that state; outputs of the wrong size are resized. That nothing is
// allocated per call is tests/alloc_test.cpp's (its own binary: it replaces malloc).
#include "checks/random_model.hpp"
#include "io/model_io.hpp"
#include "reference/tree/aba.hpp"
#include "reference/tree/crba.hpp"
#include "reference/tree/ltdl.hpp"
#include "reference/tree/rnea.hpp"
#include "tests/test_paths.hpp"

#include <gtest/gtest.h>

namespace rbd::test {
namespace {

template <class T>
VecX<T> vec(const std::vector<double>& x) {
  VecX<T> v(static_cast<Eigen::Index>(x.size()));
  for (size_t k = 0; k < x.size(); ++k) v(static_cast<Eigen::Index>(k)) = T(x[k]);
  return v;
}

template <class T>
void expect_same(const MatX<T>& a, const MatX<T>& b, const std::string& what) {
  ASSERT_EQ(a.rows(), b.rows()) << what;
  ASSERT_EQ(a.cols(), b.cols()) << what;
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < a.cols(); ++j) ASSERT_TRUE(a(i, j) == b(i, j)) << what << " (" << i << ", " << j << ")";
}

template <class T>
void reuse_matches_allocating_forms() {
  TreeWorkspace<T> ws;  // sized by the first call, then reused across models and states
  VecX<T> tau, C, qdd;
  MatX<T> H;
  SparseFactor<T> factor;
  for (const char* file : {"humanoid.json", "panda.json", "all_joints.json", "double_pendulum.json"}) {
    const ModelDesc d = load_model(std::string(kSourceDir) + "/fixtures/models/" + file).desc;
    const Model<T> m = build_model<T>(d);
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      const RandomState s = random_state(build_model<double>(d), seed);
      const VecX<T> q = vec<T>(s.q), qd = vec<T>(s.qd), qa = vec<T>(s.qdd), ta = vec<T>(s.tau);
      const std::string at = std::string(file) + " seed " + std::to_string(seed);
      rnea<T>(m, q, qd, qa, ws, tau);
      expect_same<T>(tau, rnea<T>(m, q, qd, qa), "rnea " + at);
      bias<T>(m, q, qd, ws, C);
      expect_same<T>(C, bias<T>(m, q, qd), "bias " + at);
      crba<T>(m, q, ws, H);
      expect_same<T>(H, crba<T>(m, q), "crba " + at);
      ASSERT_TRUE(aba<T>(m, q, qd, ta, ws, qdd)) << at;
      expect_same<T>(qdd, aba<T>(m, q, qd, ta).qdd, "aba " + at);
      ltdl<T>(H, m.dof_parent, factor);
      const SparseFactor<T> fresh = ltdl<T>(H, m.dof_parent);
      expect_same<T>(factor.LD, fresh.LD, "ltdl " + at);
      VecX<T> x = ta - C;
      ltdl_solve_in_place<T>(factor, x);
      expect_same<T>(x, ltdl_solve<T>(fresh, VecX<T>(ta - C)), "ltdl_solve " + at);
      // H q̈ = τ - C: the workspace factor's solve and the workspace ABA are two routes to one q̈
      // (to 1e3 ε: the rounding κ(H) amplifies stays below it on these models and states).
      const T err = (qdd - x).cwiseAbs().maxCoeff(), scale = x.cwiseAbs().maxCoeff();
      EXPECT_LE(static_cast<double>(err / scale), 1e3 * static_cast<double>(std::numeric_limits<T>::epsilon())) << at;
    }
  }
}

TEST(Workspace, ReuseMatchesAllocatingFormsDouble) { reuse_matches_allocating_forms<double>(); }
TEST(Workspace, ReuseMatchesAllocatingFormsBin50) { reuse_matches_allocating_forms<bin50>(); }

// A failed ABA (a massless subtree: D_i = 0) says where, and the workspace serves the next call.
TEST(Workspace, FailedAbaLeavesTheWorkspaceUsable) {
  ModelDesc d = load_model(std::string(kSourceDir) + "/fixtures/models/double_pendulum.urdf").desc;
  const Model<double> good = build_model<double>(d);
  d.bodies[1].inertial.mass = Num::exact(0);
  for (Num& x : d.bodies[1].inertial.I) x = Num::exact(0);
  const Model<double> bad = build_model<double>(d);
  TreeWorkspace<double> ws(good);
  VecX<double> qdd;
  const VecX<double> q = VecX<double>::Constant(2, 0.3), z = VecX<double>::Zero(2);
  EXPECT_FALSE(aba<double>(bad, q, z, z, ws, qdd));
  EXPECT_EQ(ws.failed_at, 1);
  ASSERT_TRUE(aba<double>(good, q, z, z, ws, qdd));
  EXPECT_EQ(ws.failed_at, -1);
  expect_same<double>(qdd, aba<double>(good, q, z, z).qdd, "aba after a failure");
}

}  // namespace
}  // namespace rbd::test
