// The loop section of a proof (certify/prove_steps.hpp; its contract there).
#include "certify/prove_steps.hpp"
#include "certify/verified_solve.hpp"
#include "reference/loops/interval_loops.hpp"
#include "reference/tree/interval_tree.hpp"

#include <algorithm>

namespace rbd::prove_detail {

namespace {

bool exact_zero(const Interval& x) { return mpfr_zero_p(x.lo()) && mpfr_zero_p(x.hi()); }

// G = Q2ᵀ[-X; 1] and g = Q2ᵀ[x; 0] of eq. 8.51 given the evaluation's pivot sequence (K₁₁ X = K₁₂,
// K₁₁ x = (k + k_stab)_P verified; enclose_loops' contract), into G for u.
void enclose_G(const Evaluation& ev, const LoopConstraints<Interval>* lc, const VecX<Interval>& rhs, bool pivots, Eigen::Index n,
               std::optional<MatX<Interval>>& G, ProofSteps& steps) {
  const LoopSummary& L = ev.loops;
  const Eigen::Index r = L.rank;
  steps.attempt({"loops.G", "loops.g"}, [&] {
    if (!lc) throw Decision("K has no enclosure");
    if (!pivots) throw Decision("the evaluation carries no pivot sequence (§8.8)");
    const Quantity* pG = ev.find_loop("G");
    const Quantity* pg = ev.find_loop("g");
    const Eigen::Index f = n - r;
    MatX<Interval> K11(r, r), K12(r, f), X0(r, f);
    VecX<Interval> k1(r), x0(r);
    for (Eigen::Index a = 0; a < r; ++a) {
      const Eigen::Index i = L.pivot_rows[static_cast<size_t>(a)];
      for (Eigen::Index t = 0; t < n; ++t) {
        const Eigen::Index j = L.col_order[static_cast<size_t>(t)];
        if (t < r)
          K11(a, t) = lc->K(i, j);
        else
          K12(a, t - r) = lc->K(i, j);
      }
      k1(a) = rhs(i);
      const Eigen::Index c = L.col_order[static_cast<size_t>(a)];
      for (Eigen::Index t = 0; t < f; ++t)
        X0(a, t) = pG ? Interval(-from_decimal<Interval>(pG->text(static_cast<size_t>(c * f + t)))) : Interval(0);
      x0(a) = pg ? from_decimal<Interval>(pg->text(static_cast<size_t>(c))) : Interval(0);
    }
    G.emplace(MatX<Interval>::Zero(n, f));
    VecX<Interval> g = VecX<Interval>::Zero(n);
    if (r > 0) {
      for (Eigen::Index t = 0; t < f; ++t) {
        const VerifiedSolve v = verified_solve(K11, K12.col(t), X0.col(t));
        if (!v.ok) throw Undecided("K₁₁ X = K₁₂ (eq. 8.51) at the pivots: " + v.why);
        for (Eigen::Index a = 0; a < r; ++a) (*G)(L.col_order[static_cast<size_t>(a)], t) = -v.x(a);
      }
      const VerifiedSolve v = verified_solve(K11, k1, x0);
      if (!v.ok) throw Undecided("K₁₁ x = k₁ (eq. 8.51) at the pivots: " + v.why);
      for (Eigen::Index a = 0; a < r; ++a) g(L.col_order[static_cast<size_t>(a)]) = v.x(a);
    }
    for (Eigen::Index t = 0; t < f; ++t) (*G)(L.col_order[static_cast<size_t>(r + t)], t) = Interval(1);
    steps.emit("loops.G", "verified", static_cast<size_t>(G->size()), entries(*G));
    steps.emit("loops.g", "verified", static_cast<size_t>(n), entries(g));
  });
}

// u of §8.12 (eq. 8.63) given G, H and C - τᵃ, when the rank decision is proven (enclose_loops'
// contract).
void enclose_u(const Evaluation& ev, const MatX<Interval>* G, const MatX<Interval>* H, const VecX<Interval>* Cc,
               const VecX<Interval>& qdd_state, const std::string& unproven_rank, ProofSteps& steps) {
  const LoopSummary& L = ev.loops;
  steps.attempt({"loops.u"}, [&] {
    if (!G || !H || !Cc) throw Decision("G, H or C - τᵃ has no enclosure");
    if (!unproven_rank.empty()) throw Decision(unproven_rank + " (u needs range G = null K)");
    if (!L.id.producible || L.id.kind.rfind("under", 0) == 0)
      throw Decision("under-actuated (§8.12): u is the least-squares choice of eq. 8.63, a rank decision of its own");
    const Eigen::Index f = G->cols(), p = static_cast<Eigen::Index>(L.id.actuated_dofs.size());
    const Quantity* pu = ev.find_loop("u");
    const VecX<Interval> b = G->transpose() * VecX<Interval>(*H * qdd_state + *Cc);
    MatX<Interval> Gu(p, f);
    VecX<Interval> u0(p);
    for (Eigen::Index j = 0; j < p; ++j) {
      if (f > 0) Gu.row(j) = G->row(L.id.actuated_dofs[static_cast<size_t>(j)]);  // (no row views of an n x 0 G)
      u0(j) = pu ? from_decimal<Interval>(pu->text(static_cast<size_t>(j))) : Interval(0);
    }
    VecX<Interval> u = VecX<Interval>::Zero(p);  // mobility 0: no equations, u = 0 is the minimum norm
    if (f == 0) {
    } else if (p == f) {
      const VerifiedSolve v = verified_solve(Gu.transpose(), b, u0);
      if (!v.ok) throw Undecided("G_uᵀ u = Gᵀ τ_ID (eq. 8.63): " + v.why);
      u = v.x;
    } else {
      const VerifiedSolve v = verified_solve(Gu.transpose() * Gu, b, VecX<Interval>::Zero(f));
      if (!v.ok) throw Undecided("the minimum-norm u of eq. 8.63, (G_uᵀ G_u) y = Gᵀ τ_ID: " + v.why);
      u = Gu * v.x;
    }
    steps.emit("loops.u", "verified", static_cast<size_t>(p), entries(u));
  });
}

}  // namespace

void enclose_loops(const Evaluation& ev, const StateDesc& state, const Model<Interval>& model, const VecX<Interval>& q,
                   const VecX<Interval>& qd, const VecX<Interval>& qdd_state, const VecX<Interval>& tau,
                   const MatX<Interval>* H, const VecX<Interval>* C, ProofSteps& steps) {
  const LoopSummary& L = ev.loops;
  std::optional<LoopConstraints<Interval>> lc;
  steps.attempt({"loops.K", "loops.k", "loops.delta", "loops.velocity_error"}, [&] {
    lc.emplace(loop_constraints<Interval>(model, q, qd, LoopFrame::Local));
    steps.emit("loops.K", "evaluated", static_cast<size_t>(lc->K.size()), entries(lc->K));
    steps.emit("loops.k", "evaluated", static_cast<size_t>(lc->k.size()), entries(lc->k));
    steps.emit("loops.delta", "evaluated", static_cast<size_t>(lc->delta.size()), entries(lc->delta));
    steps.emit("loops.velocity_error", "evaluated", static_cast<size_t>(lc->vel_error.size()), entries(lc->vel_error));
  });
  const Eigen::Index n = model.nv, m = model.nc, r = L.rank;
  const bool pivots = static_cast<Eigen::Index>(L.pivot_rows.size()) == r && static_cast<Eigen::Index>(L.col_order.size()) == n;
  std::vector<Eigen::Index> kept(L.pivot_rows.begin(), L.pivot_rows.end());
  std::sort(kept.begin(), kept.end());
  VecX<Interval> rhs;
  // Why the rank decision is not proven ("" when it is: r = n^c, or every dropped row is exactly 0).
  std::string unproven_rank;
  if (lc) {
    rhs = lc->k + lc->k_stab;
    for (Eigen::Index i = 0; i < m && unproven_rank.empty(); ++i) {
      if (std::binary_search(kept.begin(), kept.end(), i)) continue;
      bool zero = exact_zero(rhs(i));
      for (Eigen::Index j = 0; j < n; ++j) zero = zero && exact_zero(lc->K(i, j));
      if (!zero)
        unproven_rank = "the constraints are redundant (rank K = " + std::to_string(r) + " < n^c = " + std::to_string(m) +
                        " by §8.8's rank decision) and row " + std::to_string(i) +
                        " of K or k + k_stab, which the decision drops, is not exactly 0 on intervals: the decision "
                        "cannot be proven, and q̈, τ_c and λ (the minimum-norm choice) depend on it";
    }
  }
  bool active = false;
  for (const std::vector<Num>& t : state.tau_loops) active = active || !t.empty();
  std::optional<VecX<Interval>> Cc;  // C - τᵃ
  steps.attempt({"loops.qdd", "loops.lambda", "loops.tau_c", "loops.tau_a", "qdd"}, [&] {
    if (!lc || !H || !C) throw Decision("K, H or C has no enclosure");
    if (!pivots) throw Decision("the evaluation carries no pivot sequence (§8.8)");
    Cc = active ? bias_minus_active<Interval>(model, q, qd, to_vecs<Interval>(state.tau_loops)) : *C;
    if (active) {
      const VecX<Interval> tau_a = *C - *Cc;
      steps.emit("loops.tau_a", "evaluated", static_cast<size_t>(n), entries(tau_a));
    }
    if (!unproven_rank.empty()) throw Decision(unproven_rank);
    const Quantity* xq = ev.find_loop("qdd");
    const Quantity* xl = ev.find_loop("lambda");
    if (!xq || !xl) throw Decision("the evaluation reports no loop solution");
    MatX<Interval> A = MatX<Interval>::Zero(n + r, n + r);
    VecX<Interval> b(n + r), x0(n + r);
    A.topLeftCorner(n, n) = *H;
    b.head(n) = tau - *Cc;
    for (Eigen::Index i = 0; i < n; ++i) x0(i) = from_decimal<Interval>(xq->text(static_cast<size_t>(i)));
    for (Eigen::Index a = 0; a < r; ++a) {
      const Eigen::Index i = kept[static_cast<size_t>(a)];
      A.block(n + a, 0, 1, n) = lc->K.row(i);
      A.block(0, n + a, n, 1) = -lc->K.row(i).transpose();
      b(n + a) = rhs(i);
      x0(n + a) = from_decimal<Interval>(xl->text(static_cast<size_t>(i)));
    }
    const VerifiedSolve v = verified_solve(A, b, x0);
    if (!v.ok) throw Undecided("the KKT system (eq. 8.36) of the pivot rows: " + v.why);
    const VecX<Interval> qdd = v.x.head(n);
    VecX<Interval> lambda = VecX<Interval>::Zero(m);
    for (Eigen::Index a = 0; a < r; ++a) lambda(kept[static_cast<size_t>(a)]) = v.x(n + a);
    const VecX<Interval> tau_c = lc->K.transpose() * lambda;
    steps.emit("loops.qdd", "verified", static_cast<size_t>(n), entries(qdd));
    steps.emit("qdd", "verified", static_cast<size_t>(n), entries(qdd));
    steps.emit("loops.lambda", "verified", static_cast<size_t>(m), entries(lambda));
    steps.emit("loops.tau_c", "verified", static_cast<size_t>(n), entries(tau_c));
  });
  std::optional<MatX<Interval>> G;
  enclose_G(ev, lc ? &*lc : nullptr, rhs, pivots, n, G, steps);
  if (L.id.present) enclose_u(ev, G ? &*G : nullptr, H, Cc ? &*Cc : nullptr, qdd_state, unproven_rank, steps);
}

}  // namespace rbd::prove_detail
