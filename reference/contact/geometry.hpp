// Contact geometry (RBDA §11.6): the minimal contact set.
//
// A contact whose normal (in joint space, t_i, or as a spatial force, n̂_i) is a positive
// combination of other contacts' normals, t_i = Σ_j c_j t_j with every c_j ≥ 0, imposes nothing
// the others do not: if t_jᵀq̈ + ... ≥ 0 holds for every j, the combination holds for i (at the
// velocity and acceleration level, for ζ and for the part of ζ̇ linear in q̈), and any contact
// force on i can be carried by them. Such contacts can be dropped; the remaining set is minimal
// when no normal is a positive combination of the others (the book's example: a line contact
// between two polyhedra is its two end points, a face contact its vertices; a point inside the
// edge or face adds nothing; a curved surface needs every point, fig. 11.7 (b), (d)).
//
// The positive-dependence test of t against the columns of A is the non-negative least-squares
// problem min ‖A c - t‖² over c ≥ 0, whose optimality conditions are the LCP
//   w = (AᵀA) c - Aᵀt ≥ 0, c ≥ 0, cᵀw = 0
// (solved by Lemke, lcp.hpp); t is positively dependent iff the residual ‖A c - t‖ is zero, judged
// against 1000 ε max(|A|, |t|) (`tolerance`).
//
// minimal_contact_set drops, in turn from the last contact to the first, each contact whose
// normal is a positive combination of the normals still kept. The result is minimal: a kept
// contact was not a positive combination of a superset of the final others, so it is not one of
// them. It is not unique (as with duplicated normals: of two identical contacts the later is
// dropped).
#pragma once

#include "reference/contact/lcp.hpp"

#include <vector>

namespace rbd {

template <class T>
struct PositiveDependence {
  bool dependent = false;
  VecX<T> c;       // the coefficients (≥ 0)
  T residual;      // ‖A c - t‖ (max norm)
  T tolerance;
};

template <class T>
PositiveDependence<T> positive_dependence(const MatX<T>& A, const VecX<T>& t) {
  using std::abs;
  PositiveDependence<T> r;
  T scale(0);
  for (Eigen::Index i = 0; i < A.size(); ++i) scale = std::max(scale, T(abs(A.data()[i])));
  for (Eigen::Index i = 0; i < t.size(); ++i) scale = std::max(scale, T(abs(t(i))));
  r.tolerance = T(1000) * epsilon<T>() * (scale > T(0) ? scale : T(1));
  if (A.cols() == 0) {
    r.c = VecX<T>(0);
    r.residual = t.size() ? T(t.cwiseAbs().maxCoeff()) : T(0);
    r.dependent = r.residual <= r.tolerance;
    return r;
  }
  const MatX<T> M = A.transpose() * A;
  const VecX<T> d = -(A.transpose() * t);
  const LcpResult<T> lcp = solve_lcp<T>(M, d);
  if (lcp.status != LcpResult<T>::Solved) {  // cannot happen for a PSD M with d ∈ range(Aᵀ)
    r.residual = T(1);
    return r;
  }
  r.c = lcp.lambda;
  const VecX<T> res = A * r.c - t;
  r.residual = res.size() ? T(res.cwiseAbs().maxCoeff()) : T(0);
  r.dependent = r.residual <= r.tolerance;
  return r;
}

// Indices (ascending) of a minimal subset of the columns of Tn: see above.
template <class T>
std::vector<int> minimal_contact_set(const MatX<T>& Tn) {
  const int nc = static_cast<int>(Tn.cols());
  std::vector<int> kept;
  for (int i = 0; i < nc; ++i) kept.push_back(i);
  auto others = [&](int skip) {
    MatX<T> A(Tn.rows(), static_cast<Eigen::Index>(kept.size()) - 1);
    int col = 0;
    for (int j : kept)
      if (j != skip) A.col(col++) = Tn.col(j);
    return A;
  };
  for (int i = nc - 1; i >= 0; --i) {
    if (kept.size() <= 1) break;
    if (positive_dependence<T>(others(i), VecX<T>(Tn.col(i))).dependent)
      kept.erase(std::find(kept.begin(), kept.end(), i));
  }
  return kept;
}

}  // namespace rbd
