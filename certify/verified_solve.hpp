// A verified solve of a dense linear system on intervals (Krawczyk's operator in Rump's residual
// form; S. M. Rump, "Verification methods: rigorous results using floating-point arithmetic",
// Acta Numerica 19, 2010, §10): for every A in [A] and b in [b], the solution of A x = b lies in
// the returned enclosure, or the solve says why it could not show that.
//
//   R        an approximate inverse of mid(A), in bin100 (Eigen's full-pivoting LU): only its
//            quality matters, never its correctness;
//   x̃        the caller's approximation, refined twice by x̃ += mid(R (b - A x̃));
//   r        = b - A x̃ on intervals, z = R r, C = I - R A on intervals;
//   ‖C‖∞ < 1 proves every A in [A] nonsingular and ‖x - x̃‖∞ ≤ ‖z‖∞ / (1 - ‖C‖∞) =: β (since
//            x - x̃ = (RA)⁻¹ R r); then x - x̃ ∈ X, X = [-β, β]ⁿ, and e = z + C e tightens X entry
//            by entry: X ← (z + C X) ∩ X, a few times.
// Used where a point algorithm decides (pivots, ranks) and the decision-free formulation is a
// nonsingular linear system: the closed-loop KKT system (eq. 8.36) when K has full row rank.
#pragma once

#include "reference/numeric/interval.hpp"
#include "reference/spatial/spatial.hpp"

#include <string>

namespace rbd {

struct VerifiedSolve {
  bool ok = false;
  std::string why;   // when not ok
  VecX<Interval> x;  // the enclosure, when ok
};

VerifiedSolve verified_solve(const MatX<Interval>& A, const VecX<Interval>& b, const VecX<Interval>& x_approx);

}  // namespace rbd
