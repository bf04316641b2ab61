// Closed-loop forward dynamics on §8.9's block structure: methods 2 and 3 of §8.5 with the loop
// clusters of loops/clusters.hpp.
//
// Number the clusters c = 1..C, D_c the tree DoFs of cluster c (the joints on its loops' paths)
// and F the DoFs in no loop. Then K's rows of cluster c are nonzero only in the columns D_c, and
//   G = blockdiag(G_1, ..., G_C, 1_F)      (G_c: |D_c| x m_c, §8.8 on K_c = K(rows_c, D_c))
// so every product with K or G is a sum over blocks:
//   (GᵀHG)_{ab} = G_aᵀ H(D_a, D_b) G_b     (a, b clusters or single free DoFs; G_f = 1)
//   (Gᵀv)_a     = G_aᵀ v(D_a)
//   (K H⁻¹ Kᵀ)_{cd} = K_c H⁻¹(D_c, D_d) K_dᵀ
// H itself couples the blocks (GᵀHG and K H⁻¹ Kᵀ are full in general); what the clusters save
// is the work with K and G, whose zero blocks are never touched, and H⁻¹ is needed only on the
// columns of DoFs in loops (∪ D_c), not on F.
//
//   method 3 (eqs. 8.42-8.46):  GᵀHG ÿ = Gᵀ(τ' - H x),  q̈ = G ÿ + x
//     x: each cluster's g_c, corrected to least squares on its own rows as fd_projection does
//     for the whole K (the clusters' rows are disjoint and K is block diagonal, so the
//     per-cluster projections make up P onto range(K));
//   method 2 (eqs. 8.37-8.41):  A λ = b,  A = K H⁻¹ Kᵀ,  b = k + k_stab - K H⁻¹ τ',
//     λ = A⁺ b (minimum norm, complete orthogonal decomposition, rank threshold 1000 n^c ε of
//     the largest pivot as fd_lambda), q̈ = H⁻¹(τ' + Kᵀ λ).
//
// Inputs as the other methods: H (n x n, positive definite), tau_prime = τ - C + τᵃ, K, rhs =
// k + k_stab, and the model (for the clusters). The two q̈ equal the dense methods' to rounding;
// they share §8.8's elimination (per block) but not its whole-K pivot sequence.
#pragma once

#include "reference/loops/clusters.hpp"
#include "reference/loops/constraints.hpp"

#include <Eigen/Cholesky>
#include <Eigen/QR>

#include <vector>

namespace rbd {

template <class T>
struct LoopClusteredDynamics {
  ClusteredNullSpace<T> cn;     // the clusters, G and g (block by block)
  LoopForwardDynamics<T> projection;  // method 3: qdd (lambda empty)
  LoopForwardDynamics<T> lambda_first;  // method 2: qdd and the minimum-norm λ
  MatX<T> GtHG;                 // assembled from its blocks
  MatX<T> A;                    // K H⁻¹ Kᵀ, assembled from its blocks
};

template <class T>
LoopClusteredDynamics<T> loop_fd_clustered(const Model<T>& model, const MatX<T>& H, const VecX<T>& tau_prime,
                                           const MatX<T>& K, const VecX<T>& rhs);

// ---- definition ----

template <class T>
LoopClusteredDynamics<T> loop_fd_clustered(const Model<T>& model, const MatX<T>& H, const VecX<T>& tau_prime,
                                           const MatX<T>& K, const VecX<T>& rhs) {
  LoopClusteredDynamics<T> out;
  out.cn = clustered_null_space<T>(model, K, rhs);
  const ClusteredNullSpace<T>& cn = out.cn;
  const Eigen::Index n = H.rows();
  // Blocks of G: (DoFs, the dense block, its first column of G).
  struct Block {
    std::vector<int> dofs;
    MatX<T> G;
    Eigen::Index col;
  };
  std::vector<Block> blocks;
  Eigen::Index col = 0;
  for (const LoopCluster<T>& c : cn.clusters) {
    blocks.push_back({c.dofs, c.ns.G, col});
    col += c.ns.G.cols();
  }
  for (int f : cn.free_dofs) blocks.push_back({{f}, MatX<T>::Identity(1, 1), col++});
  const Eigen::Index m = col;
  auto sub = [&](const MatX<T>& X, const std::vector<int>& r, const std::vector<int>& c) {
    MatX<T> S(static_cast<Eigen::Index>(r.size()), static_cast<Eigen::Index>(c.size()));
    for (size_t i = 0; i < r.size(); ++i)
      for (size_t j = 0; j < c.size(); ++j) S(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = X(r[i], c[j]);
    return S;
  };
  auto gather = [&](const VecX<T>& v, const std::vector<int>& r) {
    VecX<T> s(static_cast<Eigen::Index>(r.size()));
    for (size_t i = 0; i < r.size(); ++i) s(static_cast<Eigen::Index>(i)) = v(r[i]);
    return s;
  };

  // Method 3. x: g_c per cluster, corrected to least squares on the cluster's rows.
  VecX<T> x = VecX<T>::Zero(n);
  for (const LoopCluster<T>& c : cn.clusters) {
    const VecX<T> xc = least_squares_particular<T>(sub(K, c.rows, c.dofs), gather(rhs, c.rows), c.ns);
    for (size_t b = 0; b < c.dofs.size(); ++b) x(c.dofs[b]) = xc(static_cast<Eigen::Index>(b));
  }
  out.GtHG = MatX<T>::Zero(m, m);
  const VecX<T> v = tau_prime - H * x;
  VecX<T> Gtv(m);
  for (const Block& a : blocks) {
    Gtv.segment(a.col, a.G.cols()) = a.G.transpose() * gather(v, a.dofs);
    for (const Block& b : blocks)
      out.GtHG.block(a.col, b.col, a.G.cols(), b.G.cols()) = a.G.transpose() * sub(H, a.dofs, b.dofs) * b.G;
  }
  out.projection.rank = cn.rank;
  out.projection.lambda_unique = cn.rank == K.rows();
  const Eigen::LDLT<MatX<T>> f(out.GtHG);
  if (m > 0 && (f.info() != Eigen::Success || !(f.vectorD().minCoeff() > T(0)))) {
    out.projection.ok = false;
    out.projection.message = "GᵀHG is not positive-definite";
  } else {
    const VecX<T> ydd = m > 0 ? VecX<T>(f.solve(Gtv)) : VecX<T>();
    out.projection.qdd = x;
    for (const Block& a : blocks) {
      const VecX<T> add = a.G * ydd.segment(a.col, a.G.cols());
      for (size_t i = 0; i < a.dofs.size(); ++i) out.projection.qdd(a.dofs[i]) += add(static_cast<Eigen::Index>(i));
    }
  }

  // Method 2. H⁻¹ on the loop DoFs' columns only.
  const Eigen::LDLT<MatX<T>> Hf(H);
  LoopForwardDynamics<T>& m2 = out.lambda_first;
  if (Hf.info() != Eigen::Success || !(Hf.vectorD().minCoeff() > T(0))) {
    m2.ok = false;
    m2.message = "H is not positive-definite";
    return out;
  }
  std::vector<int> loop_dofs;
  std::vector<int> slot(static_cast<size_t>(n), -1);
  for (const LoopCluster<T>& c : cn.clusters)
    for (int d : c.dofs)
      if (slot[static_cast<size_t>(d)] < 0) {
        slot[static_cast<size_t>(d)] = static_cast<int>(loop_dofs.size());
        loop_dofs.push_back(d);
      }
  MatX<T> E = MatX<T>::Zero(n, static_cast<Eigen::Index>(loop_dofs.size()));
  for (size_t j = 0; j < loop_dofs.size(); ++j) E(loop_dofs[j], static_cast<Eigen::Index>(j)) = T(1);
  const MatX<T> Hinv_cols = Hf.solve(E);  // H⁻¹(:, loop DoFs)
  const VecX<T> Hinv_tau = Hf.solve(tau_prime);
  const Eigen::Index nc = K.rows();
  out.A = MatX<T>::Zero(nc, nc);
  VecX<T> b = rhs;
  for (const LoopCluster<T>& c : cn.clusters) {
    const MatX<T> Kc = sub(K, c.rows, c.dofs);
    const VecX<T> Kc_Hinv_tau = Kc * gather(Hinv_tau, c.dofs);
    for (size_t i = 0; i < c.rows.size(); ++i) b(c.rows[i]) -= Kc_Hinv_tau(static_cast<Eigen::Index>(i));
    for (const LoopCluster<T>& d : cn.clusters) {
      MatX<T> Hcd(static_cast<Eigen::Index>(c.dofs.size()), static_cast<Eigen::Index>(d.dofs.size()));
      for (size_t i = 0; i < c.dofs.size(); ++i)
        for (size_t j = 0; j < d.dofs.size(); ++j)
          Hcd(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = Hinv_cols(c.dofs[i], slot[static_cast<size_t>(d.dofs[j])]);
      const MatX<T> Acd = Kc * Hcd * sub(K, d.rows, d.dofs).transpose();
      for (size_t i = 0; i < c.rows.size(); ++i)
        for (size_t j = 0; j < d.rows.size(); ++j) out.A(c.rows[i], d.rows[j]) = Acd(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j));
    }
  }
  Eigen::CompleteOrthogonalDecomposition<MatX<T>> cod;
  cod.setThreshold(T(1000) * T(static_cast<int>(nc > 0 ? nc : 1)) * epsilon<T>());
  cod.compute(out.A);
  m2.lambda = nc > 0 ? VecX<T>(cod.solve(b)) : VecX<T>();
  m2.rank = nc > 0 ? static_cast<int>(cod.rank()) : 0;
  m2.lambda_unique = m2.rank == nc;
  m2.threshold = cod.threshold();
  // q̈ = H⁻¹ τ' + H⁻¹ Kᵀ λ, Kᵀλ nonzero only on the loop DoFs.
  m2.qdd = Hinv_tau;
  for (const LoopCluster<T>& c : cn.clusters) {
    const VecX<T> f_c = sub(K, c.rows, c.dofs).transpose() * gather(m2.lambda, c.rows);
    for (size_t i = 0; i < c.dofs.size(); ++i) m2.qdd += Hinv_cols.col(slot[static_cast<size_t>(c.dofs[i])]) * f_c(static_cast<Eigen::Index>(i));
  }
  return out;
}

#define RBDREF_LOOP_FD_CLUSTERED_INSTANTIATE(EXT, T)                                                           \
  EXT template LoopClusteredDynamics<T> loop_fd_clustered<T>(const Model<T>&, const MatX<T>&, const VecX<T>&, \
                                                             const MatX<T>&, const VecX<T>&);
RBDREF_EXTERN_FOR_EACH_SCALAR(RBDREF_LOOP_FD_CLUSTERED_INSTANTIATE)

}  // namespace rbd
