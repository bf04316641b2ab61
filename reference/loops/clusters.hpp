// Loop clusters (RBDA §8.9): G and g block by block.
//
// Two loops belong to the same cluster when they share a tree joint (ε_lj ≠ 0 for a common j,
// eq. 8.18), transitively. Numbering the clusters' rows of K and the tree DoFs they involve
// together makes K block diagonal, one block K_c (rows of the cluster's loops x its DoFs) per
// cluster, plus zero columns for DoFs in no loop. Each block is reduced on its own by §8.8's
// Gaussian elimination with complete pivoting (null_space_solution), and
//   G = blockdiag(G_1, ..., G_c, 1),   g = (g_1, ..., g_c, 0)
// in the tree's DoF order: a DoF in no loop is its own independent coordinate. The cost is the sum
// of the blocks' costs instead of that of the whole K (§8.9's point), and the rank decision of
// each cluster is its own (recorded per cluster).
//
// The G of §8.8 is fixed by the choice of independent coordinates (G = ∂q/∂y, with identity rows
// for y): given the independent coordinates chosen here, null_space_solution on the whole K with
// the same `chosen` gives the same G and g (tests/loop_models_test.cpp).
#pragma once

#include "reference/loops/gauss.hpp"
#include "reference/tree/model.hpp"

#include <algorithm>
#include <vector>

namespace rbd {

template <class T>
struct LoopCluster {
  std::vector<int> loops;  // indices into model.loops
  std::vector<int> rows;   // rows of K (the loops' constraints, in order)
  std::vector<int> dofs;   // tree DoFs with a nonzero ε in any of the loops (ascending)
  NullSpaceSolution<T> ns; // §8.8 on K(rows, dofs), k(rows); ns.independent indexes `dofs`
};

template <class T>
struct ClusteredNullSpace {
  std::vector<LoopCluster<T>> clusters;
  std::vector<int> free_dofs;     // DoFs in no loop
  MatX<T> G;                      // n x (n - r)
  VecX<T> g;                      // n
  std::vector<int> independent;   // the DoFs of y, in G's column order
  int rank = 0;                   // Σ cluster ranks
};

// Clusters of the model's loops from the loop paths (tree joints between each loop's root and its
// two ends); K, k as loop_constraints returns them.
template <class T>
ClusteredNullSpace<T> clustered_null_space(const Model<T>& model, const MatX<T>& K, const VecX<T>& k);

// ---- definition ----

template <class T>
ClusteredNullSpace<T> clustered_null_space(const Model<T>& model, const MatX<T>& K, const VecX<T>& k) {
  const int nl = static_cast<int>(model.loops.size());
  // The DoFs of each loop: the joints on the paths from p(k) and s(k) up to their deepest common
  // ancestor (ε_lj = ∓1 there, 0 elsewhere).
  std::vector<std::vector<char>> uses(static_cast<size_t>(nl), std::vector<char>(static_cast<size_t>(model.NB), 0));
  for (int l = 0; l < nl; ++l) {
    std::vector<char> onp(static_cast<size_t>(model.NB), 0);
    for (int i = model.loops[l].p; i >= 0; i = model.parent[i]) onp[static_cast<size_t>(i)] = 1;
    int root = model.loops[l].s;
    while (root >= 0 && !onp[static_cast<size_t>(root)]) {
      uses[static_cast<size_t>(l)][static_cast<size_t>(root)] = 1;
      root = model.parent[root];
    }
    for (int i = model.loops[l].p; i != root; i = model.parent[i]) uses[static_cast<size_t>(l)][static_cast<size_t>(i)] = 1;
  }
  // Union-find over loops sharing a body's joint.
  std::vector<int> up(static_cast<size_t>(nl));
  for (int l = 0; l < nl; ++l) up[static_cast<size_t>(l)] = l;
  auto find = [&](int x) {
    while (up[static_cast<size_t>(x)] != x) x = up[static_cast<size_t>(x)] = up[static_cast<size_t>(up[static_cast<size_t>(x)])];
    return x;
  };
  for (int i = 0; i < model.NB; ++i) {
    int first = -1;
    for (int l = 0; l < nl; ++l)
      if (uses[static_cast<size_t>(l)][static_cast<size_t>(i)]) {
        if (first < 0) first = l;
        else up[static_cast<size_t>(find(l))] = find(first);
      }
  }
  ClusteredNullSpace<T> out;
  std::vector<int> cluster_of(static_cast<size_t>(nl), -1);
  for (int l = 0; l < nl; ++l) {
    const int r = find(l);
    if (cluster_of[static_cast<size_t>(r)] < 0) {
      cluster_of[static_cast<size_t>(r)] = static_cast<int>(out.clusters.size());
      out.clusters.emplace_back();
    }
    out.clusters[static_cast<size_t>(cluster_of[static_cast<size_t>(r)])].loops.push_back(l);
  }
  std::vector<char> in_loop(static_cast<size_t>(model.nv), 0);
  for (LoopCluster<T>& c : out.clusters) {
    std::vector<char> body(static_cast<size_t>(model.NB), 0);
    for (int l : c.loops) {
      for (int i = 0; i < model.NB; ++i) body[static_cast<size_t>(i)] |= uses[static_cast<size_t>(l)][static_cast<size_t>(i)];
      for (int r = 0; r < model.loops[l].nc; ++r) c.rows.push_back(model.loops[l].row + r);
    }
    for (int i = 0; i < model.NB; ++i)
      if (body[static_cast<size_t>(i)])
        for (int d = 0; d < model.nvi[i]; ++d) c.dofs.push_back(model.iv[i] + d);
    std::sort(c.dofs.begin(), c.dofs.end());
    MatX<T> Kc(static_cast<Eigen::Index>(c.rows.size()), static_cast<Eigen::Index>(c.dofs.size()));
    VecX<T> kc(static_cast<Eigen::Index>(c.rows.size()));
    for (size_t a = 0; a < c.rows.size(); ++a) {
      kc(static_cast<Eigen::Index>(a)) = k(c.rows[a]);
      for (size_t b = 0; b < c.dofs.size(); ++b) Kc(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b)) = K(c.rows[a], c.dofs[b]);
    }
    c.ns = null_space_solution<T>(Kc, kc);
    out.rank += c.ns.rank;
    for (int d : c.dofs) in_loop[static_cast<size_t>(d)] = 1;
  }
  for (int d = 0; d < model.nv; ++d)
    if (!in_loop[static_cast<size_t>(d)]) out.free_dofs.push_back(d);
  const int m = model.nv - out.rank;
  out.G = MatX<T>::Zero(model.nv, m);
  out.g = VecX<T>::Zero(model.nv);
  int col = 0;
  for (const LoopCluster<T>& c : out.clusters) {
    for (Eigen::Index j = 0; j < c.ns.G.cols(); ++j, ++col) {
      for (size_t b = 0; b < c.dofs.size(); ++b) out.G(c.dofs[b], col) = c.ns.G(static_cast<Eigen::Index>(b), j);
      out.independent.push_back(c.dofs[static_cast<size_t>(c.ns.independent[static_cast<size_t>(j)])]);
    }
    for (size_t b = 0; b < c.dofs.size(); ++b) out.g(c.dofs[b]) = c.ns.g(static_cast<Eigen::Index>(b));
  }
  for (int d : out.free_dofs) {
    out.G(d, col++) = T(1);
    out.independent.push_back(d);
  }
  return out;
}

#define RBDREF_LOOP_CLUSTERS_INSTANTIATE(EXT, T) \
  EXT template ClusteredNullSpace<T> clustered_null_space<T>(const Model<T>&, const MatX<T>&, const VecX<T>&);
RBDREF_EXTERN_FOR_EACH_SCALAR(RBDREF_LOOP_CLUSTERS_INSTANTIATE)

}  // namespace rbd
