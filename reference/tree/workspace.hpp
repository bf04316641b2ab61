// The caller-owned storage of the tree algorithms' workspace forms, for an engine's test loop that
// calls them millions of times: outputs and scratch are made once, and a call allocates nothing at
// double, long double, float128 and the Boost scalars (cpp_bin_float keeps its digits inline; an
// MPFR value owns a heap block, which the workspace keeps too, but the arithmetic's temporaries
// still allocate there). bench/bench_dynamics.cpp counts the allocations per call.
//
//   TreeWorkspace<double> ws(model);            // once
//   VecX<double> tau(model.nv), qdd(model.nv);  // outputs, once
//   MatX<double> H(model.nv, model.nv);
//   rnea(model, q, qd, qdd_in, ws, tau);        // RBDA table 5.1 (rnea.hpp)
//   bias(model, q, qd, ws, C);                  // C = RNEA with q̈ = 0
//   crba(model, q, ws, H);                      // table 6.2 (crba.hpp)
//   aba(model, q, qd, tau, ws, qdd);            // table 7.1 (aba.hpp): false when some D_i is not PD
//   ltdl(H, model.dof_parent, factor);          // table 6.3 into a SparseFactor (ltdl.hpp), and
//   ltdl_solve_in_place(factor, x);             // its solves in place
// The allocating forms (rnea(model, q, qd, qdd), ...) are these with a workspace of their own: one
// code path, the same numbers bit for bit. A workspace is for one model (its sizes) and one thread.
#pragma once

#include "reference/tree/kinematics.hpp"

#include <vector>

namespace rbd {

template <class T>
struct TreeWorkspace {
  TreeWorkspace() = default;  // sized by the first call of each algorithm
  explicit TreeWorkspace(const Model<T>& m) { reserve(m); }
  // Sizes every member for m, so that no call allocates (the constructor does it).
  void reserve(const Model<T>& m) {
    const auto n = static_cast<size_t>(m.NB);
    k.Xup.resize(n), k.S.resize(n), k.S_axis.resize(n), k.v.resize(n), k.c.resize(n);
    a.resize(n), f.resize(n), Ic.resize(n), U.resize(n), Dinv.resize(n), u.resize(n);
    zero = VecX<T>::Zero(m.nv);
    F.resize(6, m.nv), subtree_end.resize(n), subtree_count.resize(n);
  }
  TreeKinematics<T> k;           // Xup, S, v, c of the current call (kinematics.hpp)
  std::vector<Motion<T>> a;      // body accelerations (RNEA, ABA's third pass)
  std::vector<Force<T>> f;       // body forces (RNEA), bias forces pA (ABA)
  std::vector<Mat6<T>> Ic;       // composite inertias (CRBA), articulated inertias IA (ABA)
  std::vector<Mat6K<T>> U;       // ABA: U_i = IA_i S_i
  std::vector<MatK<T>> Dinv;     // ABA: D_i⁻¹
  std::vector<VecK<T>> u;        // ABA: u_i = τ_i - S_iᵀ pA_i
  Eigen::Matrix<T, 6, Eigen::Dynamic> F;  // CRBA: IC_j S_j of the subtree's DoFs, in the current body's coordinates (6 x nv)
  std::vector<int> subtree_end, subtree_count;  // CRBA: one past the last DoF of body i's subtree, its DoFs (NB)
  int failed_at = -1;            // ABA: the body whose D_i was not positive-definite, else -1
  VecX<T> zero;                  // nv zeros: q̈ of bias(), q̇ of crba()'s kinematics
};

}  // namespace rbd
