// Closed-loop systems, the book's further sections (RBDA ch. 8) on the bundled loop models:
// 4b. closed-loop inverse dynamics (§8.12), 4c. clusters (§8.9), 4d. active loop joints (§8.6).
// (Sections 1-4 and 5: tests/loop_models_test.cpp.)
#include "certify/evaluate.hpp"
#include "checks/loop_checks.hpp"
#include "checks/properties.hpp"
#include "checks/random_model.hpp"
#include "io/model_io.hpp"
#include "io/state_io.hpp"
#include "reference/loops/active.hpp"
#include "reference/loops/assembly.hpp"
#include "reference/loops/clusters.hpp"
#include "reference/loops/fd_clustered.hpp"
#include "tests/loop_closure_fig83.hpp"
#include "reference/loops/fd_kkt.hpp"
#include "reference/loops/fd_lambda.hpp"
#include "reference/loops/fd_projection.hpp"
#include "reference/loops/inverse_dynamics.hpp"
#include "reference/tree/rnea.hpp"
#include "reference/tree/crba.hpp"
#include "reference/tree/integrate.hpp"
#include "reference/loops/constraints.hpp"
#include "reference/loops/gauss.hpp"
#include "tests/loop_bundled.hpp"
#include "tests/test_util.hpp"
#include "tests/tree_cases.hpp"

#include <rapidcheck/gtest.h>

#include <Eigen/SVD>

#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace rbd::test {
namespace {

// ---- 4b. closed-loop inverse dynamics (§8.12) -------------------------------------------------
//
// On fig83_arm (n = 4, mobility 2): a motion q̈ produced by forward dynamics (method 3) from a
// force τ0 on some DoFs; inverse dynamics must recover actuator forces that reproduce q̈ (forward
// dynamics again, an independent route through H, C, K, k), in each of the book's three cases.
template <class T>
class LoopID : public ::testing::Test {};
TYPED_TEST_SUITE(LoopID, Scalars, ScalarName);

TYPED_TEST(LoopID, ProperOverAndUnderActuation) {
  using T = TypeParam;
  const LoadedModel lm = load_bundled(kBundledLoops[2], false);
  const Model<T> m = build_model<T>(lm.desc);
  const StateDesc st = bundled_state(kBundledLoops[2], lm.desc);
  const VecX<T> q = to_vec<T>(st.q), qd = to_vec<T>(st.qd);
  const std::array<int, 4> idx = fig83_dofs<T>(m);
  const MatX<T> H = crba<T>(m, q);
  const VecX<T> C = bias<T>(m, q, qd);
  const LoopConstraints<T> lc = loop_constraints<T>(m, q, qd);
  auto fd = [&](const VecX<T>& tau) { return loop_fd_projection<T>(H, VecX<T>(tau - C), lc.K, lc.k).fd.qdd; };
  auto check_reproduces = [&](const VecX<T>& qdd, const LoopInverseDynamics<T>& id) {
    const VecX<T> back = fd(id.tau);
    EXPECT_LE(max_abs(VecX<T>(back - qdd)), tol<T>(1e4) * max_abs(qdd)) << actuation_name(id.kind);
  };
  // A motion driven by the piston (q3) and the elbow (q4): properly actuated by them.
  VecX<T> tau0 = VecX<T>::Zero(4);
  tau0(idx[2]) = from_decimal<T>("25");
  tau0(idx[3]) = from_decimal<T>("-2");
  const VecX<T> qdd = fd(tau0);
  const VecX<T> tau_ID = rnea<T>(m, q, qd, qdd);
  const NullSpaceSolution<T> ns = null_space_solution<T>(lc.K, lc.k);
  const LoopInverseDynamics<T> proper = loop_inverse_dynamics<T>(ns.G, tau_ID, {idx[2], idx[3]});
  EXPECT_EQ(proper.kind, Actuation::Proper);
  EXPECT_TRUE(proper.unique && proper.producible);
  EXPECT_LE(max_abs(VecX<T>(proper.tau - tau0)), tol<T>(1e4) * 25);  // the unique forces are τ0's
  check_reproduces(qdd, proper);
  // Gᵀτ = Gᵀτ_ID (eq. 8.62).
  EXPECT_LE(max_abs(VecX<T>(ns.G.transpose() * (proper.tau - tau_ID))), tol<T>(1e4) * max_abs(tau_ID) * max_abs(ns.G));
  // Add the shoulder (q1): over-actuated, minimum-norm u, orthogonal to null(G_uᵀ).
  const LoopInverseDynamics<T> over = loop_inverse_dynamics<T>(ns.G, tau_ID, {idx[0], idx[2], idx[3]});
  EXPECT_EQ(over.kind, Actuation::Over);
  EXPECT_FALSE(over.unique);
  EXPECT_TRUE(over.producible);
  check_reproduces(qdd, over);
  EXPECT_LT(static_cast<double>(over.u.norm()), static_cast<double>(proper.u.norm()));
  MatX<T> GuT(2, 3);
  for (int j = 0; j < 3; ++j) GuT.col(j) = ns.G.row(std::vector<int>{idx[0], idx[2], idx[3]}[j]).transpose();
  const Eigen::FullPivLU<MatX<T>> lu(GuT);
  const MatX<T> Z = lu.kernel();
  ASSERT_EQ(Z.cols(), 1);
  EXPECT_LE(std::fabs(static_cast<double>(T(Z.col(0).dot(over.u)))), tol<T>(1e4) * static_cast<double>(over.u.norm() * Z.col(0).norm()));
  // The cylinder pivot (q2) alone: under-actuated; this motion is not producible by it.
  const LoopInverseDynamics<T> under = loop_inverse_dynamics<T>(ns.G, tau_ID, {idx[1]});
  EXPECT_EQ(under.kind, Actuation::Under);
  EXPECT_FALSE(under.producible);
  EXPECT_GT(static_cast<double>(under.residual), 1e-3);
  // ... but a motion it drives itself is, and the force is recovered.
  VecX<T> tau1 = VecX<T>::Zero(4);
  tau1(idx[1]) = from_decimal<T>("3.5");
  const VecX<T> qdd1 = fd(tau1);
  const LoopInverseDynamics<T> under1 = loop_inverse_dynamics<T>(ns.G, rnea<T>(m, q, qd, qdd1), {idx[1]});
  EXPECT_TRUE(under1.producible) << static_cast<double>(under1.residual);
  EXPECT_LE(std::fabs(static_cast<double>(T(under1.u(0) - tau1(idx[1])))), tol<T>(1e4) * 3.5);
}

// ---- 4c. clusters (§8.9) ------------------------------------------------------------------------
//
// six_bar: its two loops share the crank and the coupler (one cluster); ladder4: rung i's loop
// shares rail joints with every rung below it (one cluster); delta3: all three loops pass through
// the platform's free joint (one cluster); a model with two separate slider-cranks has two. Block by
// block G equals §8.8's whole-K G with the same independent coordinates.
template <class T>
class LoopClusters : public ::testing::Test {};
TYPED_TEST_SUITE(LoopClusters, Scalars, ScalarName);

TYPED_TEST(LoopClusters, BlockByBlockEqualsWholeK) {
  using T = TypeParam;
  // Two slider-cranks side by side: the slider-crank's tree twice, each closed on its own.
  LoadedModel two = load_bundled(kBundledLoops[1], false);
  {
    ModelDesc& d = two.desc;
    const int nb = static_cast<int>(d.bodies.size());
    for (int b = 0; b < nb; ++b) {
      BodyDesc c = d.bodies[static_cast<size_t>(b)];
      c.name += "_2";
      c.joint.name += "_2";
      if (c.parent >= 0) c.parent += nb;
      d.bodies.push_back(c);
    }
    LoopJointDesc l = d.loop_joints[0];
    l.name += "_2";
    l.pred.body += nb;
    l.succ.body += nb;
    d.loop_joints.push_back(l);
  }
  const StateDesc st1 = bundled_state(kBundledLoops[1], load_bundled(kBundledLoops[1], false).desc);
  struct Case {
    std::string name;
    ModelDesc desc;
    VecX<T> q, qd;
    size_t clusters;
  };
  std::vector<Case> cases;
  for (int i : {5, 6, 3}) {  // six_bar, ladder4, delta3
    const LoadedModel lm = load_bundled(kBundledLoops[i], false);
    const StateDesc st = bundled_state(kBundledLoops[i], lm.desc);
    cases.push_back({kBundledLoops[i].name, lm.desc, to_vec<T>(st.q), to_vec<T>(st.qd), 1});
  }
  VecX<T> q2(6), qd2(6);
  q2 << to_vec<T>(st1.q), to_vec<T>(st1.q);
  qd2 << to_vec<T>(st1.qd), to_vec<T>(st1.qd);
  cases.push_back({"two slider-cranks", two.desc, q2, qd2, 2});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Model<T> m = build_model<T>(c.desc);
    const LoopConstraints<T> lc = loop_constraints<T>(m, c.q, c.qd);
    const ClusteredNullSpace<T> cl = clustered_null_space<T>(m, lc.K, lc.k);
    EXPECT_EQ(cl.clusters.size(), c.clusters);
    const NullSpaceSolution<T> whole = null_space_solution<T>(lc.K, lc.k, cl.independent);
    ASSERT_TRUE(whole.chosen_ok) << whole.message;
    EXPECT_EQ(cl.rank, null_space_solution<T>(lc.K, lc.k).rank);
    // whole.G's columns follow whole.independent; match them to cl.independent.
    for (size_t j = 0; j < cl.independent.size(); ++j) {
      size_t w = 0;
      while (w < whole.independent.size() && whole.independent[w] != cl.independent[j]) ++w;
      ASSERT_LT(w, whole.independent.size());
      EXPECT_LE(max_abs(VecX<T>(cl.G.col(static_cast<Eigen::Index>(j)) - whole.G.col(static_cast<Eigen::Index>(w)))),
                tol<T>(1e4) * (max_abs(whole.G) + 1));
    }
    EXPECT_LE(max_abs(VecX<T>(cl.g - whole.g)), tol<T>(1e4) * (max_abs(whole.g) + 1));
    EXPECT_LE(max_abs(MatX<T>(lc.K * cl.G)), tol<T>(1e3) * max_abs(lc.K) * max_abs(cl.G));
  }
}

// Forward dynamics on the clusters' blocks (reference/loops/fd_clustered.hpp) against the dense
// methods: q̈ of both clustered methods equal the KKT method's, and the clustered λ-first λ the
// dense λ-first one (both minimum-norm), on every bundled mechanism, with its closure shifted
// (inconsistent k on the planar ones), and on two slider-cranks coupled through the inertia: the
// first on a carriage (a prismatic DoF in no loop), the second riding on the first's crank, so
// GᵀHG and K H⁻¹ Kᵀ have blocks between the clusters and between a cluster and a free DoF.
// Planted: the blocks between different clusters or DoFs left out of GᵀHG, or out of K H⁻¹ Kᵀ,
// each fail on the coupled pair.
template <class T>
ModelDesc coupled_slider_cranks(const ModelDesc& sc) {
  ModelDesc d = sc;
  d.name = "coupled_slider_cranks";
  d.bodies.clear();
  BodyDesc carriage;
  carriage.name = "carriage";
  carriage.parent = -1;
  carriage.joint.name = "carriage";
  carriage.joint.type = JointType::Prismatic;
  carriage.joint.axis = {Num::exact(1), Num::exact(0), Num::exact(0)};
  carriage.inertial.mass = Num::decimal("3.5");
  carriage.inertial.I = {Num::decimal("0.1"), Num::decimal("0.1"), Num::decimal("0.1"), Num::exact(0), Num::exact(0), Num::exact(0)};
  d.bodies.push_back(carriage);
  const int nb = static_cast<int>(sc.bodies.size());
  int crank = -1;
  for (int b = 0; b < nb; ++b)
    if (sc.bodies[static_cast<size_t>(b)].name == "crank") crank = b;
  for (int copy = 0; copy < 2; ++copy)
    for (int b = 0; b < nb; ++b) {
      BodyDesc c = sc.bodies[static_cast<size_t>(b)];
      c.name += "_" + std::to_string(copy);
      c.joint.name += "_" + std::to_string(copy);
      const int root = copy == 0 ? 0 : 1 + crank;  // the carriage, or copy 0's crank
      c.parent = c.parent < 0 ? root : c.parent + 1 + copy * nb;
      d.bodies.push_back(c);
    }
  d.loop_joints.clear();
  for (int copy = 0; copy < 2; ++copy) {
    LoopJointDesc l = sc.loop_joints[0];
    l.name += "_" + std::to_string(copy);
    l.pred.body = l.pred.body < 0 ? (copy == 0 ? 0 : 1 + crank) : l.pred.body + 1 + copy * nb;
    l.succ.body = l.succ.body < 0 ? (copy == 0 ? 0 : 1 + crank) : l.succ.body + 1 + copy * nb;
    d.loop_joints.push_back(l);
  }
  return d;
}

TYPED_TEST(LoopClusters, ForwardDynamicsOnTheBlocksEqualsTheDenseMethods) {
  using T = TypeParam;
  struct Case {
    std::string name;
    ModelDesc desc;
    VecX<T> q, qd, tau;
  };
  std::vector<Case> cases;
  for (const BundledLoop& b : kBundledLoops)
    for (const bool shifted : {false, true}) {
      const LoadedModel lm = shifted ? with_shifted_closure(load_bundled(b)) : load_bundled(b);
      const StateDesc st = bundled_state(b, lm.desc);
      cases.push_back({std::string(b.name) + (shifted ? ", shifted" : ""), lm.desc, to_vec<T>(st.q), to_vec<T>(st.qd), to_vec<T>(st.tau)});
    }
  {
    const LoadedModel sc = load_bundled(kBundledLoops[1]);
    const StateDesc st = bundled_state(kBundledLoops[1], sc.desc);
    const int n1 = static_cast<int>(st.q.size());
    VecX<T> q(1 + 2 * n1), qd(1 + 2 * n1), tau(1 + 2 * n1);
    q << from_decimal<T>("0.25"), to_vec<T>(st.q), to_vec<T>(st.q);
    qd << from_decimal<T>("-0.6"), to_vec<T>(st.qd), to_vec<T>(st.qd);
    tau << from_decimal<T>("1.5"), to_vec<T>(st.tau), to_vec<T>(st.tau);
    cases.push_back({"coupled slider-cranks", coupled_slider_cranks<T>(sc.desc), q, qd, tau});
  }
  int coupled_clusters = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Model<T> m = build_model<T>(c.desc);
    const LoopConstraints<T> lc = loop_constraints<T>(m, c.q, c.qd);
    const MatX<T> H = crba<T>(m, c.q);
    const VecX<T> tp = c.tau - bias<T>(m, c.q, c.qd);
    const LoopClusteredDynamics<T> cl = loop_fd_clustered<T>(m, H, tp, lc.K, lc.k);
    const LoopForwardDynamics<T> kkt = loop_fd_kkt<T>(H, tp, lc.K, lc.k);
    const LoopForwardDynamics<T> lam = loop_fd_lambda<T>(H, m.dof_parent, tp, lc.K, lc.k);
    ASSERT_TRUE(cl.projection.ok && cl.lambda_first.ok && kkt.ok && lam.ok);
    if (c.name == "coupled slider-cranks") {
      EXPECT_EQ(cl.cn.clusters.size(), 2u);
      EXPECT_EQ(cl.cn.free_dofs, std::vector<int>({0}));
      coupled_clusters = static_cast<int>(cl.cn.clusters.size());
    }
    const double qs = max_abs(kkt.qdd) + 1;
    EXPECT_LE(max_abs(VecX<T>(cl.projection.qdd - kkt.qdd)), tol<T>(1e6) * qs) << cl.projection.qdd.transpose() << "\n vs " << kkt.qdd.transpose();
    EXPECT_LE(max_abs(VecX<T>(cl.lambda_first.qdd - kkt.qdd)), tol<T>(1e6) * qs) << cl.lambda_first.qdd.transpose() << "\n vs " << kkt.qdd.transpose();
    EXPECT_EQ(cl.lambda_first.rank, lam.rank);
    EXPECT_LE(max_abs(VecX<T>(cl.lambda_first.lambda - lam.lambda)), tol<T>(1e6) * (max_abs(lam.lambda) + 1));
  }
  EXPECT_EQ(coupled_clusters, 2);
}

// ---- 4d. active loop joints (§8.6) -----------------------------------------------------------------
//
// fig83_arm's loop joint q5 (the piston's pin on link 1) made active with a torque τ_k: C - τᵃ by
// table 8.3 equals C minus the pin torque's generalized force J_Lᵀ T^a τ_k, which for a revolute
// pin is τᵃ_j = τ_k ∂θ_J/∂q_j: the torque times the relative angular rate about the pin's axis
// for q̇ = e_j, computed here from the bodies' velocities. Both ends of this pin turn (link 1 and
// the piston with its cylinder), so a wrong sign or frame on either side shows. (On the
// slider-crank the successor, the slider, never turns, and a wrong successor side went unseen:
// planted once, not caught, hence this model.)
template <class T>
class ActiveLoops : public ::testing::Test {};
TYPED_TEST_SUITE(ActiveLoops, Scalars, ScalarName);

TYPED_TEST(ActiveLoops, TauAIsThePinTorqueThroughTheLoopJacobian) {
  using T = TypeParam;
  LoadedModel lm = load_bundled(kBundledLoops[2], false);
  lm.desc.loop_joints[0].active = true;
  const Model<T> m = build_model<T>(lm.desc);
  const StateDesc st = bundled_state(kBundledLoops[2], lm.desc);
  const VecX<T> q = to_vec<T>(st.q), qd = to_vec<T>(st.qd), tau = to_vec<T>(st.tau);
  const T tk = from_decimal<T>("1.75");
  const std::vector<VecX<T>> tl{(VecX<T>(1) << tk).finished()};
  const VecX<T> tau_a = bias<T>(m, q, qd) - bias_minus_active<T>(m, q, qd, tl);
  // Independent: the pin's relative angular rate about its axis (y) for each unit q̇.
  const LoopJoint<T>& lj = m.loops[0];
  for (int j = 0; j < m.nv; ++j) {
    VecX<T> e = VecX<T>::Zero(m.nv);
    e(j) = T(1);
    const TreeKinematics<T> kin = kinematics<T>(m, q, e);
    const Xform<T> sXp = kin.X0[lj.s] * kin.X0[lj.p].inverse();
    const Motion<T> vJ = lj.XS.apply(Motion<T>(kin.v[lj.s] - sXp.apply(kin.v[lj.p])));
    const T rate = lj.joint.axis.dot(vJ.c.template head<3>());
    EXPECT_LE(std::fabs(static_cast<double>(T(tau_a(j) - tk * rate))), tol<T>(100) * 2) << j;
  }
  // The checks (with loops.active_power) pass with the pin active, and the forward dynamics
  // responds: the same τ with and without the pin torque gives different q̈.
  const std::vector<CheckResult> r = check_loops<T>(m, q, qd, tau, tl);
  bool saw_power = false;
  for (const CheckResult& c : r) {
    EXPECT_TRUE(c.passed) << c.name << ": " << c.residual << " > " << c.tolerance << " " << c.detail;
    saw_power = saw_power || c.name == "loops.active_power";
  }
  EXPECT_TRUE(saw_power);
}

}  // namespace
}  // namespace rbd::test
