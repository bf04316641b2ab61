// What the sections of a proof share (certify/prove.cpp: the tree; prove_contacts.cpp: the
// contacts and the impulsive step; prove_loops.cpp: the loops): the enclosures of one evaluation at
// one interval precision, and ProofSteps, through which each step records an enclosure (emit), a
// reason for none (none) or runs a group of quantities that fail together (attempt). Internal to
// certify/.
#pragma once

#include "certify/prove.hpp"
#include "reference/contact/interval_contact.hpp"
#include "reference/numeric/interval.hpp"
#include "reference/tree/ltdl.hpp"

#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace rbd::prove_detail {

constexpr double kMinusInf = -std::numeric_limits<double>::infinity();

// Why a quantity is not proven that more interval digits cannot change (a redundant constraint,
// a degenerate LCP basis, an unsolved LCP), as opposed to Undecided (an enclosure too wide to
// decide: a wider interval precision may decide it).
struct Decision : std::runtime_error {
  using std::runtime_error::runtime_error;
};


// The proven quantities of one evaluation at one interval precision, each made from its enclosure
// as soon as the enclosure exists (a 2000-DoF chain's interval H is gigabytes at the hundreds of
// digits it needs), with log10 of its relative width (log10_relative_width), or the reason a
// quantity has none.
struct Enclosures {
  bool undecided = false;  // some quantity met an Undecided: a wider precision may prove it
  std::map<std::string, ProvenQuantity> proven;
  std::map<std::string, double> log_width;
  std::map<std::string, std::string> why_not;
  std::set<std::string> decided;  // not proven for a Decision: more digits cannot change that
  // Quantities that a wider attempt need not compute again: proven narrow enough (log_width within
  // the target, prove()) or decided. Filled by prove() between attempts.
  std::set<std::string> settled;
  // The interval digits an undecided quantity is expected to need (0: no estimate; the widening
  // then follows the guard digits): the articulated factor's measured wrapping per body.
  int wanted_digits = 0;
};


using EntryAt = std::function<const Interval&(size_t)>;

inline EntryAt entries(const MatX<Interval>& A) {
  const size_t cols = static_cast<size_t>(A.cols());
  return [&A, cols](size_t k) -> const Interval& {
    return A(static_cast<Eigen::Index>(k / cols), static_cast<Eigen::Index>(k % cols));
  };
}
inline EntryAt entries(const VecX<Interval>& x) {
  return [&x](size_t k) -> const Interval& { return x(static_cast<Eigen::Index>(k)); };
}
// L of a unit LᵀDL factor read from its LD storage as SparseFactor::L() reads it (1 on the
// diagonal, LD(k, i) at k's ancestors i, exact 0 elsewhere), without the dense copy.
inline EntryAt entries_L(const SparseFactor<Interval>& f) {
  const size_t n = static_cast<size_t>(f.LD.rows());
  auto row = std::make_shared<std::vector<char>>(n, 0);
  auto current = std::make_shared<size_t>(n);
  auto one = std::make_shared<Interval>(1), zero = std::make_shared<Interval>(0);
  return [&f, n, row, current, one, zero](size_t k) -> const Interval& {
    const size_t i = k / n, j = k % n;
    if (i != *current) {
      std::fill(row->begin(), row->end(), 0);
      for (int a = f.lambda[i]; a >= 0; a = f.lambda[static_cast<size_t>(a)]) (*row)[static_cast<size_t>(a)] = 1;
      *current = i;
    }
    if (i == j) return *one;
    return (*row)[j] ? f.LD(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) : *zero;
  };
}

// max over entries of log10(width / scale) (prove.cpp), and log10 of a natural scale's text.
double log10_relative_width(size_t n, const EntryAt& at, double lscale);
double log10_scale(const std::string& scale);

// The recording of one attempt's enclosures into `out`, for the evaluation `ev`.
class ProofSteps {
 public:
  ProofSteps(const Evaluation& ev, Enclosures& out) : ev_(ev), out_(out) {}
  // The proof of quantity `name` of ev ("loops." or "contacts." + a section's name) from n
  // entries, if ev reports it.
  void emit(const std::string& name, const char* method, size_t n, const EntryAt& at);
  // `names` have no enclosure, for `why`.
  void none(const std::vector<std::string>& names, const std::string& why);
  // f() computes and emits `names`; a Decision or an Undecided it throws is recorded for each.
  void attempt(const std::vector<std::string>& names, const std::function<void()>& f);
  Enclosures& out() { return out_; }

 private:
  const Evaluation& ev_;
  Enclosures& out_;
};

// The contact section (RBDA ch. 11, frictionless rigid contacts, soft ones as known forces), given
// the point evaluation's contact cases (§11.4: which contacts the LCP covers): T, Ṫᵀq̇, φ, ζ
// evaluated (eqs. 11.25-11.31); the soft contacts' forces evaluated (§11.8, eqs. 11.73-11.79) when
// the intervals take the point evaluation's branches (touching, sticking); H⁻¹T and q̈_free =
// H⁻¹(τ + τ_soft - C) verified (verified_solve), so M = TᵀH⁻¹T and d = Tᵀq̈_free + Ṫᵀq̇ (eqs.
// 11.35, 11.36) are enclosed; the LCP's solution given
// Lemke's final basis B: M_BB λ_B = -d_B verified, λ_N = 0, then λ_B > 0 and ζ̇_N = (Mλ + d)_N > 0
// must be proven (a degenerate basis, an entry whose enclosure reaches 0, is reported not
// proven). Then (λ, ζ̇) solves the true LCP, and q̈ = q̈_free + H⁻¹Tλ, τ_c = Tλ, which are the same
// for every solution (M = TᵀH⁻¹T: Mλ₁ = Mλ₂ forces Tλ₁ = Tλ₂); λ itself only where it is unique.
void enclose_contacts(const Evaluation& ev, const StateDesc& state, const Model<Interval>& model, const VecX<Interval>& q,
                      const VecX<Interval>& qd, const VecX<Interval>& tau, const MatX<Interval>* H, const VecX<Interval>* C,
                      std::optional<ContactKinematics<Interval>>& ck, ProofSteps& steps);

// The impulsive step (RBDA §11.7, eval --impact; contact/impulse.hpp) over the rigid contacts R:
// ζ⁻ = Tᵀq̇⁻ and (ζ_x, ζ_y)⁻ = T_tᵀq̇⁻ from the contact section's kinematics `ck`, and T⁻ = ½ q̇ᵀHq̇,
// evaluated.
//   Frictionless: the impulsive LCP w = Mλ + d ≥ 0, λ ≥ 0, λᵀw = 0, M = T_RᵀH⁻¹T_R (H⁻¹T_R
//     verified), d_i = ζ_i⁻ + e_i min(ζ_i⁻, 0) (its branch decided on intervals), solved given the
//     point evaluation's receiving set B (λ_i > 0): M_BB λ_B = -d_B verified, then λ_B > 0 and w_N
//     > 0 proven (else a degenerate basis, not proven). Then u = T_Rλ is the same for every
//     solution (M symmetric positive semi-definite: two solutions differ by a vector of null(M) =
//     null(T_R)), and so are Δq̇ = H⁻¹u, q̇⁺, ζ⁺, (ζ_x, ζ_y)⁺ and T⁺; λ only where it is unique.
//   Sticking (some contact has μ): λ = -(NᵀH⁻¹N)⁻¹(1 + E)Nᵀq̇⁻ (eq. 11.72), verified; unique.
// Δq̇ = (H⁻¹T_R)λ (or (H⁻¹N)λ) from the verified columns, q̇⁺ = q̇⁻ + Δq̇, T⁺ = ½ q̇⁺ᵀHq̇⁺.
void enclose_impact(const Evaluation& ev, const Model<Interval>& model, const VecX<Interval>& qd,
                    const ContactKinematics<Interval>* ck, const MatX<Interval>* H, ProofSteps& steps);

// The loop section (RBDA ch. 8) of a closed-loop model: K, k, δ and K q̇ evaluated (table 8.1,
// eq. 8.34). The rest takes the point algorithm's rank decision (§8.8: rank r, the pivot rows P
// and the column order Q2, LoopSummary) and proves what follows from it:
//
//   q̈, λ, τ_c  the KKT system of eq. 8.36 restricted to the rows P,
//                  [H     -K_Pᵀ] [q̈ ]   [τ - C + τᵃ        ]
//                  [K_P    0   ] [λ_P] = [(k + k_stab)_P    ],
//              verified (verified_solve: ‖I - R A‖ < 1 proves K_P of full row rank on the whole
//              enclosure). When r = n^c that is the whole system and λ is unique. When r < n^c
//              the decision is proven only if every dropped row of K and of k + k_stab encloses
//              exactly 0 (a planar loop's out-of-plane rows, computed without rounding): then
//              rank K = r, the dropped constraints are 0 = 0, and the minimum-norm λ is λ_P with 0
//              on the dropped rows; otherwise nothing is claimed (the decision cannot be proven:
//              a rank drop is not robust to perturbation).
//   G, g       eq. 8.51 given the pivot sequence: K₁₁ X = K₁₂ and K₁₁ x = (k + k_stab)_P verified,
//              K₁₁ = K(P, dependent columns); G = Q2ᵀ[-X; 1], g = Q2ᵀ[x; 0]. A function of K and
//              the pivots whether or not the dropped rows are dependent (the evaluation's
//              independent_coordinates name the choice).
//   τᵃ         C - (C - τᵃ), evaluated.
//   u          §8.12 (eq. 8.63) G_uᵀ u = Gᵀ τ_ID, τ_ID = H q̈ + C - τᵃ at the state's q̈, when the
//              rank decision is proven (then range G = null K, and u does not depend on the
//              basis): properly actuated, G_uᵀ u = b verified; over-actuated, the minimum-norm
//              u = G_u y, (G_uᵀ G_u) y = b verified; under-actuated (a least-squares choice) not.
void enclose_loops(const Evaluation& ev, const StateDesc& state, const Model<Interval>& model, const VecX<Interval>& q,
                   const VecX<Interval>& qd, const VecX<Interval>& qdd_state, const VecX<Interval>& tau,
                   const MatX<Interval>* H, const VecX<Interval>* C, ProofSteps& steps);

}  // namespace rbd::prove_detail
