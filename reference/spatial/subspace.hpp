// Decomposition of a force by a motion subspace and an inertia (RBDA §3.3, example 3.1). For a
// motion subspace S ⊆ M⁶ (any 6 x m matrix whose columns span it) and a positive-definite
// spatial inertia I, T_a = I S and T_c = S^⊥ satisfy T_a ⊕ T_c = F⁶, so every force f splits uniquely as f = f_a + f_c with
//
//   f_a = I S (Sᵀ I S)⁻¹ Sᵀ f ∈ T_a,   f_c = f - f_a ∈ S^⊥ (Sᵀ f_c = 0)       (eq. 3.28)
//
// independent of the basis (S → S A cancels). A body constrained to move in S, at rest and acted on
// by f alone, accelerates by a = I⁻¹ f_a = Φ f with Φ = S (Sᵀ I S)⁻¹ Sᵀ, the apparent inverse inertia
// of the constrained body (the book's remark after 3.28, cf. eq. 3.54); the constraint force is -f_c.
#pragma once

#include "reference/spatial/spatial.hpp"

#include <Eigen/Cholesky>
#include <Eigen/QR>

namespace rbd {

template <class T>
struct ForceDecomposition {
  Vec6<T> f_a, f_c;  // f = f_a + f_c, f_a ∈ I S, f_c ∈ S^⊥
  Mat6<T> Phi;       // apparent inverse inertia S (SᵀIS)⁻¹ Sᵀ
  Vec6<T> a;         // Φ f
  int rank = 0;      // dim range(S), decided at 1000 · 6 · ε_T of S's largest column pivot
  bool ok = true;    // false when I is not positive-definite on range(S) (then nothing is set)
};

// S's columns need not be independent: the decomposition depends on the subspace only, and is
// computed with an orthonormal basis Q of range(S) (column-pivoted Householder QR, rank by the
// relative threshold above); a repeated or dependent column, or S = 0 (f_a = 0, f_c = f), are
// handled, not inverted as a singular SᵀIS.
template <class T>
ForceDecomposition<T> decompose_force(const Mat6<T>& I, const MatX<T>& S, const Vec6<T>& f) {
  ForceDecomposition<T> r;
  Eigen::ColPivHouseholderQR<MatX<T>> qr(S);
  qr.setThreshold(T(6000) * epsilon<T>());
  r.rank = static_cast<int>(qr.rank());
  const MatX<T> Q = MatX<T>(qr.householderQ() * MatX<T>::Identity(6, 6)).leftCols(r.rank);
  const MatX<T> IQ = I * Q;
  const Eigen::LDLT<MatX<T>> QIQ(MatX<T>(Q.transpose() * IQ));
  if (r.rank > 0 && (QIQ.info() != Eigen::Success || !QIQ.isPositive() || !(QIQ.vectorD().minCoeff() > T(0)))) {
    r.ok = false;
    return r;
  }
  const VecX<T> alpha = r.rank > 0 ? VecX<T>(QIQ.solve(VecX<T>(Q.transpose() * f))) : VecX<T>();
  r.f_a = r.rank > 0 ? Vec6<T>(IQ * alpha) : Vec6<T>::Zero();
  r.f_c = f - r.f_a;
  r.Phi = r.rank > 0 ? Mat6<T>(Q * QIQ.solve(MatX<T>(Q.transpose()))) : Mat6<T>::Zero();
  r.a = r.rank > 0 ? Vec6<T>(Q * alpha) : Vec6<T>::Zero();
  return r;
}

}  // namespace rbd
