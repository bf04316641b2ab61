// Proven digits: a rigorous bound on the error of every reported value (docs/certified-digits.md).
//
// prove() takes an evaluation (evaluate.hpp) and, for each quantity it can enclose, states
//     |true - value| <= radius        entry by entry, proven
// where `value` is the reported decimal text (unchanged) and `true` the exact value of the
// quantity for the model and state as written (decimal text read as the exact decimal, doubles as
// the exact binary). The enclosure of `true` comes from the interval scalar
// (reference/numeric/interval.hpp), in two ways:
//   evaluated    the algorithm itself on intervals (the same template as every scalar): H by
//                CRBA (table 6.2; the base-coordinate form where the point evaluation uses it),
//                C and τ by RNEA (table 5.1), L and D by LᵀDL (table 6.3, or the articulated
//                route beyond its budget; each pivot proven positive), the energies and the
//                momentum; the loop constraints K, k, δ, K q̇ (table 8.1, eq. 8.34); the contact
//                kinematics T, Ṫᵀq̇, φ, ζ (eqs. 11.25-11.31). An algorithm whose branch the
//                intervals cannot decide proves nothing (Undecided: the reason is reported).
//   verified     q̈ = H⁻¹(τ - C) by a residual correction: with x̃ the reported q̈, the residual
//                r = τ - RNEA(q, q̇, x̃) = H (q̈ - x̃) is enclosed on intervals, and q̈ - x̃ = H⁻¹ r
//                through the interval LᵀDL factor (its pivots proven positive: every H of the
//                enclosure is positive-definite); then once more from the midpoint of that
//                enclosure, so that the factor's wrapping multiplies only a correction ~10^-(interval
//                digits), not the value's own error. Interval ABA would do the same solve, but its
//                articulated inertias wrap ~1.2 digits per body on chains (measured), 5 times CRBA's.
//                By verified_solve.hpp (Krawczyk/Rump), given the point algorithm's decisions: the
//                loops' KKT system (eq. 8.36) at §8.8's pivot rows, when the rank decision is
//                proven (full row rank, or the dropped rows exactly 0), giving q̈, λ, τ_c, and u
//                (§8.12); G and g (eq. 8.51) given the pivot sequence; H⁻¹T and q̈_free (with the
//                soft contacts' forces, evaluated), giving the contacts' M and d (eqs. 11.35,
//                11.36); the LCP's solution given Lemke's final basis B (M_BB λ_B =
//                -d_B, then λ_B > 0 and ζ̇_N > 0 proven, else the basis is degenerate: not proven);
//                the impulsive step (§11.7) likewise, or by eq. 11.72 when sticking.
// The interval precision starts at the working digits + 12 + depth/4 (the measured loss to the
// wrapping effect is ~0.13 digit per body for H and ~0.2 for τ on chains: docs/benchmarks.md) and
// grows by the measured shortfall until every enclosure is 100 times narrower than the working
// precision's unit, or by the guard digits again where a branch was undecided (to the working
// digits + 12 + depth at once for the articulated factor, which loses ~0.9 digits per body); at
// most 4 attempts, at most kMaxIntervalDigits. A wider attempt computes only the tree quantities
// the previous one did not settle.
//
// Per quantity: radius (the value's shape, decimal rounded up), entry digits and norm-wise digits
// (the formulas of certified digits, evaluate.hpp, with |x - x*| replaced by the radius and |x*|
// by the lower bound |value| - radius of |true|), or `not_proven` saying why, with no claim.
#pragma once

#include "certify/evaluate.hpp"

#include <functional>
#include <string>
#include <vector>

namespace rbd {

struct ProvenQuantity {
  std::string name;
  int rows = 0, cols = 0;            // as the quantity's
  std::string not_proven;            // why no claim is made; empty when proven
  std::vector<std::string> radius;   // row-major, decimal (3 significant digits, rounded up)
  std::vector<int> entry_digits;     // same layout
  int digits = 0;                    // norm-wise
  std::string method;                // "evaluated" or "verified"
};

struct Proof {
  bool present = false;
  int interval_digits = 0;  // the interval precision of the last attempt (the widest)
  int attempts = 0;         // interval evaluations made (each at a wider precision)
  double seconds = 0;
  std::vector<ProvenQuantity> quantities, loop_quantities, contact_quantities;
  const ProvenQuantity* find(const std::string& name) const;
};

constexpr int kMaxIntervalDigits = 4000;

// The proof of `ev`'s reported values (its decimal text, Quantity::text). Quantities it does not
// enclose (loop solutions whose rank decision is unproven, an under-actuated u, a degenerate LCP
// basis, the no-solution certificate, the enumerated basic solutions) are listed with not_proven
// and the reason.
Proof prove(const Evaluation& ev, const ModelDesc& desc, const StateDesc& state);

// Sets Quantity::proven_digits of ev's quantities from the proof (those it proves).
void apply_proven_digits(Evaluation& ev, const Proof& proof);

// The part of a proof that makes no claim of its own: radius and digits of one quantity from an
// enclosure (lo, hi per entry, as MPFR numbers in an Interval) of its true values. Exposed for the
// tests, which check it on planted enclosures.
class Interval;
ProvenQuantity proven_quantity(const Quantity& q, const std::vector<Interval>& enclosure, int cap);
// The same from `count` entries read in order by at(0), at(1), …
ProvenQuantity proven_quantity(const Quantity& q, size_t count, const std::function<const Interval&(size_t)>& at, int cap);

}  // namespace rbd
