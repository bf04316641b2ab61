// Decomposition of a force by a motion subspace and an inertia (RBDA §3.3, example 3.1). For a motion subspace S ⊆ M⁶ (any 6 x m matrix S spanning it,
// full column rank) and a positive-definite spatial inertia I, T_a = I S and T_c = S^⊥ satisfy
// T_a ⊕ T_c = F⁶, so every force f splits uniquely as f = f_a + f_c with
//
//   f_a = I S (Sᵀ I S)⁻¹ Sᵀ f ∈ T_a,   f_c = f - f_a ∈ S^⊥ (Sᵀ f_c = 0)       (eq. 3.28)
//
// independent of the basis (S → S A cancels). A body constrained to move in S, at rest and acted on
// by f alone, accelerates by a = I⁻¹ f_a = Φ f with Φ = S (Sᵀ I S)⁻¹ Sᵀ, the apparent inverse inertia
// of the constrained body (the book's remark after 3.28, cf. eq. 3.54); the constraint force is -f_c.
#pragma once

#include "reference/spatial/spatial.hpp"

#include <Eigen/Cholesky>

namespace rbd {

template <class T>
struct ForceDecomposition {
  Vec6<T> f_a, f_c;  // f = f_a + f_c, f_a ∈ I S, f_c ∈ S^⊥
  Mat6<T> Phi;       // apparent inverse inertia S (SᵀIS)⁻¹ Sᵀ
  Vec6<T> a;         // Φ f
};

template <class T>
ForceDecomposition<T> decompose_force(const Mat6<T>& I, const MatX<T>& S, const Vec6<T>& f) {
  ForceDecomposition<T> r;
  const MatX<T> IS = I * S;
  const Eigen::LDLT<MatX<T>> SIS(MatX<T>(S.transpose() * IS));
  const VecX<T> alpha = SIS.solve(VecX<T>(S.transpose() * f));
  r.f_a = IS * alpha;
  r.f_c = f - r.f_a;
  r.Phi = S * SIS.solve(MatX<T>(S.transpose()));
  r.a = S * alpha;
  return r;
}

}  // namespace rbd
