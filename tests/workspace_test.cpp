// The workspace forms of the tree algorithms (reference/tree/workspace.hpp): one workspace reused
// across states, models' sizes and a failed ABA gives, call after call, exactly (bit for bit) what
// the allocating forms give for that state; outputs of the wrong size are resized. That nothing is
// allocated per call is tests/alloc_test.cpp's (its own binary: it replaces malloc). And the
// kinematics' short route for revolute joints about +e_k, which the workspace forms run on,
// against the book's route.
#include "checks/random_model.hpp"
#include "fixtures/fixture.hpp"
#include "io/model_io.hpp"
#include "reference/tree/aba.hpp"
#include "reference/tree/crba.hpp"
#include "reference/tree/ltdl.hpp"
#include "reference/tree/rnea.hpp"
#include "tests/test_paths.hpp"
#include "tests/test_util.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace rbd::test {
namespace {

template <class T>
void expect_same(const MatX<T>& a, const MatX<T>& b, const std::string& what) {
  ASSERT_EQ(a.rows(), b.rows()) << what;
  ASSERT_EQ(a.cols(), b.cols()) << what;
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < a.cols(); ++j) ASSERT_TRUE(a(i, j) == b(i, j)) << what << " (" << i << ", " << j << ")";
}

// kinematics_into's short route for revolute joints about +e_k (kinematics.hpp) against the
// book's route for every body: jcalc, Xup = XJ Xtree, v = Xup v_λ + vJ, c = cJ + v × vJ (crm),
// bit for bit, on models with such joints (humanoid, Panda), others (all_joints) and a free base.
template <class T>
void kinematics_short_route_is_the_books() {
  for (const char* file : {"humanoid.json", "panda.json", "all_joints.json"}) {
    const ModelDesc d = load_model(std::string(kSourceDir) + "/fixtures/models/" + file).desc;
    const Model<T> m = build_model<T>(d);
    int short_route = 0;
    for (int i = 0; i < m.NB; ++i) short_route += coordinate_revolute_axis<T>(m.joint[i]) >= 0;
    if (std::string(file) != "all_joints.json") EXPECT_GT(short_route, 0) << file;
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      const RandomState s = random_state(build_model<double>(d), seed);
      const VecX<T> q = exact_vec<T>(s.q), qd = exact_vec<T>(s.qd);
      const TreeKinematics<T> k = kinematics<T>(m, q, qd);
      for (int i = 0; i < m.NB; ++i) {
        const std::string at = std::string(file) + " seed " + std::to_string(seed) + " body " + m.body_name[i];
        const JointKinematics<T> J = jcalc<T>(m.joint[i], q.data() + m.iq[i], qd.data() + m.iv[i]);
        const int p = m.parent[i];
        const Xform<T> Xup = J.XJ * m.Xtree[i];
        const Motion<T> v = p < 0 ? J.vJ : Motion<T>(Xup.apply(k.v[p]) + J.vJ);
        const Motion<T> c = J.cJ + crm<T>(v, J.vJ);
        EXPECT_TRUE(max_abs(Mat3<T>(k.Xup[i].E - Xup.E)) == 0 && max_abs(Vec3<T>(k.Xup[i].r - Xup.r)) == 0) << "Xup, " << at;
        const Xform<T> X0 = p < 0 ? Xup : Xform<T>(Xup * k.X0[p]);
        EXPECT_TRUE(max_abs(Mat3<T>(k.X0[i].E - X0.E)) == 0 && max_abs(Vec3<T>(k.X0[i].r - X0.r)) == 0) << "X0, " << at;
        EXPECT_TRUE(max_abs(Vec6<T>(k.v[i].c - v.c)) == 0) << "v, " << at;
        EXPECT_TRUE(max_abs(Vec6<T>(k.c[i].c - c.c)) == 0) << "c, " << at;
        ASSERT_EQ(k.S[i].cols(), J.S.cols()) << at;
        EXPECT_TRUE(max_abs(Mat6K<T>(k.S[i] - J.S)) == 0) << "S, " << at;
        EXPECT_EQ(k.S_axis[i], J.S_axis) << at;
      }
    }
  }
}
TEST(Workspace, KinematicsShortRouteIsTheBooksDouble) { kinematics_short_route_is_the_books<double>(); }
TEST(Workspace, KinematicsShortRouteIsTheBooksBin50) { kinematics_short_route_is_the_books<bin50>(); }

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
      const VecX<T> q = exact_vec<T>(s.q), qd = exact_vec<T>(s.qd), qa = exact_vec<T>(s.qdd), ta = exact_vec<T>(s.tau);
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

// CRBA's two loop orders (crba.hpp): the humanoid numbered depth-first (subtrees contiguous: the
// subtree blocks) and breadth-first (not: table 6.2's walk) give the same H, entry for entry and bit
// for bit, at double and bin50. (Planted, a block taken to the parent before its row of H is read:
// the CRBA property tests and the ABA-against-the-factor check above fail.)
// Whether every body's subtree holds a contiguous range of DoFs (crba.hpp's condition for its
// subtree blocks), by sets: independent of crba.hpp's own test.
bool subtrees_contiguous(const Model<double>& m) {
  for (int i = 0; i < m.NB; ++i) {
    std::vector<int> dofs;
    for (int b = 0; b < m.NB; ++b) {
      int a = b;
      while (a >= 0 && a != i) a = m.parent[a];
      if (a == i)
        for (int c = 0; c < m.nvi[b]; ++c) dofs.push_back(m.iv[b] + c);
    }
    std::sort(dofs.begin(), dofs.end());
    if (!dofs.empty() && dofs.back() - dofs.front() + 1 != static_cast<int>(dofs.size())) return false;
  }
  return true;
}

template <class T>
void crba_loop_orders_agree() {
  const ModelDesc dfs = load_model(std::string(kSourceDir) + "/fixtures/models/humanoid.json").desc;
  ModelDesc bfs = dfs;
  std::vector<int> order;  // bfs position -> dfs index
  for (int i = 0; i < static_cast<int>(dfs.bodies.size()); ++i)
    if (dfs.bodies[i].parent < 0) order.push_back(i);
  for (size_t k = 0; k < order.size(); ++k)
    for (int i = 0; i < static_cast<int>(dfs.bodies.size()); ++i)
      if (dfs.bodies[i].parent == order[k]) order.push_back(i);
  ASSERT_EQ(order.size(), dfs.bodies.size());
  std::vector<int> pos(order.size());
  for (size_t k = 0; k < order.size(); ++k) pos[static_cast<size_t>(order[k])] = static_cast<int>(k);
  for (size_t k = 0; k < order.size(); ++k) {
    bfs.bodies[k] = dfs.bodies[static_cast<size_t>(order[k])];
    if (bfs.bodies[k].parent >= 0) bfs.bodies[k].parent = pos[static_cast<size_t>(bfs.bodies[k].parent)];
  }
  const Model<T> md = build_model<T>(dfs), mb = build_model<T>(bfs);
  const Model<double> ld = build_model<double>(dfs), lb = build_model<double>(bfs);
  ASSERT_TRUE(subtrees_contiguous(ld));   // the subtree blocks
  ASSERT_FALSE(subtrees_contiguous(lb));  // the walk
  const RandomState s = random_state(ld, 11);
  // q of the bfs model: each joint's coordinates moved with its body
  VecX<T> qd = exact_vec<T>(s.q), qb(qd.size());
  for (int i = 0; i < ld.NB; ++i) {
    int j = -1;
    for (int b = 0; b < lb.NB; ++b)
      if (lb.body_name[b] == ld.body_name[i]) j = b;
    ASSERT_GE(j, 0);
    for (int c = 0; c < ld.nqi[i]; ++c) qb(lb.iq[j] + c) = qd(ld.iq[i] + c);
  }
  const MatX<T> Hd = crba<T>(md, qd), Hb = crba<T>(mb, qb);
  const std::vector<std::string> nd = dof_names(ld), nb = dof_names(lb);
  bool walk_differs = false;
  for (int r = 0; r < ld.nv; ++r)
    for (int c = 0; c < ld.nv; ++c) {
      const auto rb = std::find(nb.begin(), nb.end(), nd[r]) - nb.begin(), cb = std::find(nb.begin(), nb.end(), nd[c]) - nb.begin();
      ASSERT_TRUE(Hd(r, c) == Hb(rb, cb)) << nd[r] << ", " << nd[c];
      walk_differs = walk_differs || rb != r;
    }
  EXPECT_TRUE(walk_differs) << "the breadth-first numbering should differ from the depth-first one";
}

TEST(Workspace, CrbaLoopOrdersAgreeBitForBitDouble) { crba_loop_orders_agree<double>(); }
TEST(Workspace, CrbaLoopOrdersAgreeBitForBitBin50) { crba_loop_orders_agree<bin50>(); }

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
