// Closed-loop inverse dynamics (RBDA §8.12, eqs. 8.61-8.63) with actuator selection.
//
// On a consistent state (K q̇ = 0, K q̈ = k) the spanning tree's equation of motion is
//   τ = H q̈ + C - τᵃ - Kᵀλ                                                  (eq. 8.61)
// with λ unknown. Premultiplying by Gᵀ (K G = 0) removes it:
//   Gᵀ τ = Gᵀ τ_ID,   τ_ID = ID(q, q̇, q̈) = H q̈ + C - τᵃ                     (eq. 8.62)
// n - r equations for n unknowns: ∞^r forces τ give the same motion. With only p of the n tree
// DoFs actuated, τ = Q [u; 0] and Gᵀ τ = G_uᵀ u, G_u the rows of G of the actuated DoFs:
//   G_uᵀ u = Gᵀ τ_ID                                                          (eq. 8.63)
// Three cases (the first two can hold together):
//   under-actuated   rank G_u < n - r: a solution exists only for motions with Gᵀτ_ID in
//                    range(G_uᵀ); otherwise the motion cannot be produced (`producible` false,
//                    `residual` = max|G_uᵀ u - Gᵀ τ_ID| of the least-squares u, relative to
//                    the larger of max|Gᵀ τ_ID| and max|G| max|τ_ID|, the size of its terms)
//   over-actuated    p > rank G_u: redundant actuation, ∞^(p - rank) solutions; the minimum-norm
//                    u is returned (the book's suggested optimality criterion)
//   properly actuated  p = rank G_u = n - r: u = G_u⁻ᵀ Gᵀ τ_ID, unique
// One solver serves all three: the minimum-norm least-squares solution of eq. 8.63 by a complete
// orthogonal decomposition, rank threshold 1000 · max(p, n - r) · ε relative to its largest pivot.
//
// Inputs: G (n x (n - r), from §8.8 or §8.11), tau_ID (n: RNEA at q̈, with τᵃ subtracted when
// loop joints are active), actuated: the DoF indices that carry a force (any order, no repeats).
// Output τ is the full n-vector (zeros at unactuated DoFs), u its actuated entries in the
// order given.
#pragma once

#include "reference/spatial/spatial.hpp"

#include <Eigen/QR>

#include <string>
#include <vector>

namespace rbd {

enum class Actuation { Proper, Under, Over, UnderAndOver };

template <class T>
struct LoopInverseDynamics {
  VecX<T> u;            // p: actuator forces, in the order of `actuated`
  VecX<T> tau;          // n: Q [u; 0]
  int p = 0;            // actuated DoFs
  int rank_Gu = 0;      // rank G_u
  int mobility = 0;     // n - r (columns of G)
  Actuation kind = Actuation::Proper;
  bool unique = true;       // rank G_u = p
  bool producible = true;   // G_uᵀ u = Gᵀ τ_ID holds (to 1e4 ε relative)
  T residual;               // max|G_uᵀ u - Gᵀ τ_ID| / max(max|Gᵀ τ_ID|, max|G| max|τ_ID|)
};

template <class T>
LoopInverseDynamics<T> loop_inverse_dynamics(const MatX<T>& G, const VecX<T>& tau_ID, const std::vector<int>& actuated);

const char* actuation_name(Actuation a);

// ---- definition ----

inline const char* actuation_name(Actuation a) {
  switch (a) {
    case Actuation::Proper: return "properly actuated";
    case Actuation::Under: return "under-actuated";
    case Actuation::Over: return "over-actuated";
    case Actuation::UnderAndOver: return "under- and over-actuated";
  }
  return "?";
}

template <class T>
LoopInverseDynamics<T> loop_inverse_dynamics(const MatX<T>& G, const VecX<T>& tau_ID, const std::vector<int>& actuated) {
  using std::abs;
  const Eigen::Index n = G.rows(), m = G.cols();
  const Eigen::Index p = static_cast<Eigen::Index>(actuated.size());
  MatX<T> GuT(m, p);  // G_uᵀ
  // (No row views of an n x 0 G, mobility 0: a block of an empty matrix offsets its null data
  // pointer, which is undefined; UBSan reports it.)
  if (m > 0)
    for (Eigen::Index j = 0; j < p; ++j) GuT.col(j) = G.row(actuated[static_cast<size_t>(j)]).transpose();
  const VecX<T> b = G.transpose() * tau_ID;
  LoopInverseDynamics<T> out;
  out.p = static_cast<int>(p);
  out.mobility = static_cast<int>(m);
  out.u = VecX<T>::Zero(p);
  if (p > 0 && m > 0) {
    Eigen::CompleteOrthogonalDecomposition<MatX<T>> cod;
    cod.setThreshold(T(1000) * T(static_cast<int>(p > m ? p : m)) * epsilon<T>());
    cod.compute(GuT);
    out.u = cod.solve(b);
    out.rank_Gu = static_cast<int>(cod.rank());
  }
  out.tau = VecX<T>::Zero(n);
  for (Eigen::Index j = 0; j < p; ++j) out.tau(actuated[static_cast<size_t>(j)]) = out.u(j);
  const bool under = out.rank_Gu < m, over = out.rank_Gu < p;
  out.kind = under && over ? Actuation::UnderAndOver : under ? Actuation::Under : over ? Actuation::Over : Actuation::Proper;
  out.unique = !over;
  T bmax(0), gmax(0), tmax(0), rmax(0);
  const VecX<T> r = GuT * out.u - b;
  for (Eigen::Index i = 0; i < b.size(); ++i) {
    if (abs(b(i)) > bmax) bmax = abs(b(i));
    if (abs(r(i)) > rmax) rmax = abs(r(i));
  }
  for (Eigen::Index i = 0; i < G.size(); ++i)
    if (abs(G.data()[i]) > gmax) gmax = abs(G.data()[i]);
  for (Eigen::Index i = 0; i < tau_ID.size(); ++i)
    if (abs(tau_ID(i)) > tmax) tmax = abs(tau_ID(i));
  const T scale = bmax > gmax * tmax ? bmax : T(gmax * tmax);
  out.residual = scale > T(0) ? T(rmax / scale) : T(0);
  out.producible = out.residual <= T(10000) * epsilon<T>();
  return out;
}

#define RBDREF_LOOP_INVERSE_DYNAMICS_INSTANTIATE(EXT, T) \
  EXT template LoopInverseDynamics<T> loop_inverse_dynamics<T>(const MatX<T>&, const VecX<T>&, const std::vector<int>&);
RBDREF_EXTERN_FOR_EACH_SCALAR(RBDREF_LOOP_INVERSE_DYNAMICS_INSTANTIATE)

}  // namespace rbd
