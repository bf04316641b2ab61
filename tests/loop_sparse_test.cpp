// The sparse-matrix method of RBDA §8.13 (reference/loops/fd_sparse.hpp) against the spanning-tree
// methods: the same q̈ on every bundled mechanism, on ladders built in code and with an active loop
// joint, at double and bin50.
#include "checks/ladder_model.hpp"
#include "io/model_io.hpp"
#include "io/state_io.hpp"
#include "reference/tree/crba.hpp"
#include "reference/tree/integrate.hpp"
#include "reference/loops/active.hpp"
#include "reference/loops/constraints.hpp"
#include "reference/loops/fd_kkt.hpp"
#include "reference/loops/fd_projection.hpp"
#include "reference/loops/fd_sparse.hpp"
#include "reference/tree/rnea.hpp"
#include "tests/loop_bundled.hpp"
#include "tests/test_util.hpp"

#include <cstdio>
#include <string>
#include <vector>

namespace rbd::test {
namespace {

// ---- 4e. the sparse-matrix method (§8.13) ------------------------------------------------------
//
// Eq. 8.64 (body accelerations and every joint's constraint forces, one sparse system) against the
// spanning-tree projection method on every bundled mechanism, ladders of 4 and 12 rungs (built in
// code, states on the manifold by construction) and fig83_arm with its pin active: the same q̈.
template <class T>
class LoopSparse : public ::testing::Test {};
TYPED_TEST_SUITE(LoopSparse, Scalars, ScalarName);

TYPED_TEST(LoopSparse, SameAccelerationsAsTheSpanningTreeMethods) {
  using T = TypeParam;
  struct Case {
    std::string name;
    ModelDesc desc;
    VecX<T> q, qd, tau;
    std::vector<VecX<T>> tau_loops;
  };
  std::vector<Case> cases;
  for (const BundledLoop& b : kBundledLoops) {
    const LoadedModel lm = load_bundled(b);
    const StateDesc st = bundled_state(b, lm.desc);
    cases.push_back({b.name, lm.desc, to_vec<T>(st.q), to_vec<T>(st.qd), to_vec<T>(st.tau), {}});
  }
  {
    LoadedModel lm = load_bundled(kBundledLoops[2]);
    lm.desc.loop_joints[0].active = true;
    const StateDesc st = bundled_state(kBundledLoops[2], lm.desc);
    cases.push_back({"fig83_arm, pin active", lm.desc, to_vec<T>(st.q), to_vec<T>(st.qd), to_vec<T>(st.tau),
                     {(VecX<T>(1) << from_decimal<T>("-3.25")).finished()}});
  }
  for (int n : {4, 12}) {
    Case c{"ladder" + std::to_string(n), ladder_desc(n), {}, {}, {}, {}};
    ladder_state<T>(n, from_decimal<T>("0.3"), from_decimal<T>("-1.1"), c.q, c.qd);
    c.tau = VecX<T>::Zero(3 * n);
    c.tau(0) = from_decimal<T>("2");
    c.tau(3 * n - 1) = from_decimal<T>("-0.5");
    cases.push_back(c);
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Model<T> m = build_model<T>(c.desc);
    const MatX<T> H = crba<T>(m, c.q);
    const VecX<T> C = c.tau_loops.empty() ? bias<T>(m, c.q, c.qd) : bias_minus_active<T>(m, c.q, c.qd, c.tau_loops);
    const LoopConstraints<T> lc = loop_constraints<T>(m, c.q, c.qd);
    const LoopProjection<T> proj = loop_fd_projection<T>(H, VecX<T>(c.tau - C), lc.K, lc.k);
    ASSERT_TRUE(proj.fd.ok);
    const LoopSparseResult<T> sp = loop_fd_sparse<T>(m, c.q, c.qd, c.tau, c.tau_loops);
    // Order 6 N_B + Σ n^c; rank = order minus the redundant constraints of the loops.
    EXPECT_EQ(sp.size - sp.rank, m.nc - proj.ns.rank) << "size " << sp.size;
    EXPECT_LE(max_abs(VecX<T>(sp.qdd - proj.fd.qdd)), tol<T>(1e5) * (max_abs(proj.fd.qdd) + 1))
        << sp.qdd.transpose() << "\n vs " << proj.fd.qdd.transpose();
    EXPECT_TRUE(sp.converged) << "residual " << sp.residual << " after " << sp.refinement_steps << " steps";
    EXPECT_EQ(sp.lambda_unique, proj.fd.lambda_unique);
    if (proj.fd.lambda_unique) {
      // Unique loop forces: the same numbers as the KKT method's λ (same T_k bases, same sign).
      const LoopForwardDynamics<T> kkt = loop_fd_kkt<T>(H, VecX<T>(c.tau - C), lc.K, lc.k);
      EXPECT_LE(max_abs(VecX<T>(sp.lambda_loop - kkt.lambda)), tol<T>(1e5) * (max_abs(kkt.lambda) + 1))
          << sp.lambda_loop.transpose() << "\n vs " << kkt.lambda.transpose();
    }
  }
}

// Baumgarte in the sparse method: from each mechanism's state displaced off the closure (0.03-0.09 along every joint), with
// α = β = 5, k_stab enters the loop rows. Where K q̈ = k + k_stab is consistent (judged by the
// projection method's pivot rows: Gauss's `consistency`), the sparse q̈ must be the projection
// method's; where it is not (the planar mechanisms with their closure shifted out of plane), the
// sparse refinement must say it did not converge. Planted: k_stab
// ignored (the argument dropped) fails the consistent ones; added with the wrong sign too.
TYPED_TEST(LoopSparse, BaumgarteTermEntersTheLoopRows) {
  using T = TypeParam;
  int consistent = 0, inconsistent = 0;
  for_each_off_closure<T>([&](const Model<T>& m, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau,
                              const LoopConstraints<T>& lc) {
    ASSERT_GT(max_abs(lc.k_stab), 1e-3);
    const MatX<T> H = crba<T>(m, q);
    const VecX<T> C = bias<T>(m, q, qd);
    const LoopProjection<T> proj = loop_fd_projection<T>(H, VecX<T>(tau - C), lc.K, VecX<T>(lc.k + lc.k_stab));
    ASSERT_TRUE(proj.fd.ok);
    const LoopSparseResult<T> sp = loop_fd_sparse<T>(m, q, qd, tau, {}, lc.k_stab);
    if (proj.ns.consistency <= tol<T>(1e6)) {
      ++consistent;
      EXPECT_TRUE(sp.converged) << "residual " << sp.residual;
      EXPECT_LE(max_abs(VecX<T>(sp.qdd - proj.fd.qdd)), tol<T>(1e6) * (max_abs(proj.fd.qdd) + 1))
          << sp.qdd.transpose() << "\n vs " << proj.fd.qdd.transpose();
    } else {
      ++inconsistent;
      EXPECT_FALSE(sp.converged) << "an inconsistent K q̈ = k + k_stab (" << proj.ns.consistency << ") solved to " << sp.residual;
    }
  });
  EXPECT_GE(consistent, 3);
  std::printf("  consistent %d, inconsistent %d\n", consistent, inconsistent);
}

}  // namespace
}  // namespace rbd::test
