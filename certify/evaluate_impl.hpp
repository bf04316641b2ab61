// The evaluation of one state at one scalar T (certify/evaluate.hpp), as templates: instantiated
// once per scalar in units that cmake/Instantiate.cmake generates (certify/instantiate_evaluate.hpp),
// so that no unit compiles the evaluation for every scalar (build time: docs/build.md).
// evaluate.cpp dispatches to evaluate_at<T> and certifies through TypedRaw<T>.
#pragma once

#include "certify/evaluate.hpp"
#include "checks/contact_checks.hpp"
#include "checks/properties.hpp"
#include "reference/tree/aba.hpp"
#include "reference/tree/condition.hpp"
#include "reference/tree/ltdl_articulated.hpp"
#include "reference/contact/dynamics.hpp"
#include "reference/contact/geometry.hpp"
#include "reference/contact/impulse.hpp"
#include "reference/tree/crba.hpp"
#include "reference/tree/energy.hpp"
#include "reference/loops/active.hpp"
#include "reference/loops/clusters.hpp"
#include "reference/loops/constraints.hpp"
#include "reference/loops/fd_kkt.hpp"
#include "reference/loops/fd_lambda.hpp"
#include "reference/loops/fd_projection.hpp"
#include "reference/loops/inverse_dynamics.hpp"
#include "reference/tree/ltdl.hpp"
#include "reference/tree/natural_scale.hpp"
#include "reference/tree/rnea.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

namespace rbd::detail {

// Whether the quantities made on this thread carry decimal text (EvaluationText::Text), and whether
// the evaluation's summary (κ) is computed (not for RawOnly); set by evaluate() for its duration.
// Thread-local: evaluations run on several threads at once. Defined in evaluate.cpp.
extern thread_local bool t_with_text;
extern thread_local bool t_with_summary;

// A quantity's entries in the working scalar T, read entry by entry (row-major index k): what
// certify() compares, in T itself.
template <class T>
class TypedRaw : public RawValues {
 public:
  virtual T at(size_t k) const = 0;
  std::string first_non_finite() const override {
    for (size_t k = 0; k < size(); ++k)
      if (!is_finite(at(k))) return to_decimal(at(k), text_digits_);
    return "";
  }
  // All the digits of the scalar, as to_decimal(x) writes them where x is made: for MPFR, the
  // precision in force then (the text may be asked for later, outside evaluate()'s precision scope).
  std::string text(size_t k) const override { return to_decimal(at(k), text_digits_); }
  std::string text(size_t k, int digits) const override { return to_decimal(at(k), digits); }
  int text_digits() const override {
    // the MPFR precision's, else to_decimal's default for T
    static const int full = [] {
      const std::string one = to_decimal(T(1));
      return static_cast<int>(one.find('e')) - 1;  // "1.000…0e+00": the digits, without the point
    }();
    return text_digits_ > 0 ? text_digits_ : full;
  }
  bool is_zero(size_t k) const override { return at(k) == T(0); }
  bool is_one(size_t k) const override { return at(k) == T(1); }
  bool equal(size_t k, size_t l) const override { return at(k) == at(l); }

 private:
  int text_digits_ = std::is_same<T, mpfr>::value ? static_cast<int>(mpfr::default_precision()) + 4 : 0;
};

// Every entry stored.
template <class T>
class RawValuesOf final : public TypedRaw<T> {
 public:
  std::vector<T> v;
  size_t size() const override { return v.size(); }
  T at(size_t k) const override { return v.at(k); }
};

// An nv x nv matrix with the tree's branch-induced sparsity (RBDA §6.5: entry (i, j) is zero unless
// one of i, j is an ancestor of the other in the DoF tree λ), stored by row i's entries at i's
// ancestors, nearest first: H (symmetric: the diagonal too, the upper triangle its mirror) or L of
// LᵀDL (unit lower triangular: the diagonal implied). Every other entry reads as the exact 0 (1 on
// L's diagonal) that the full matrix holds, so at(k) is the full matrix's entry k. On a 2000-body
// tree this is 10⁵ entries instead of 4·10⁶ (and half of the full matrix on a chain).
template <class T>
class RawTreeMatrixOf final : public TypedRaw<T> {
 public:
  // H (unit_lower = false): nullptr unless A is zero off the pattern and symmetric, exactly. L: the
  // unit lower triangular factor of LD (ltdl's storage), read as SparseFactor::L() reads it.
  static std::shared_ptr<const RawTreeMatrixOf> make(const MatX<T>& A, const std::vector<int>& lambda, bool unit_lower) {
    const size_t n = lambda.size();
    if (static_cast<size_t>(A.rows()) != n || static_cast<size_t>(A.cols()) != n) return nullptr;
    auto m = std::make_shared<RawTreeMatrixOf>();
    m->n_ = n;
    m->unit_ = unit_lower;
    m->depth_.resize(n);
    m->off_.resize(n + 1);
    std::vector<char> listed(unit_lower ? 0 : n * n, 0);
    size_t count = 0;  // stored entries: Σ depth (+ the diagonal for H), reserved at once
    for (size_t i = 0; i < n; ++i) {
      count += unit_lower ? 0 : 1;
      for (int j = lambda[i]; j >= 0; j = lambda[static_cast<size_t>(j)]) ++count;
    }
    m->anc_.reserve(count);
    m->v_.reserve(count);
    for (size_t i = 0; i < n; ++i) {
      m->off_[i] = m->anc_.size();
      if (!unit_lower) {
        m->anc_.push_back(static_cast<int>(i));
        m->v_.push_back(A(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(i)));
        listed[i * n + i] = 1;
      }
      for (int j = lambda[i]; j >= 0; j = lambda[static_cast<size_t>(j)]) {
        m->anc_.push_back(j);
        m->v_.push_back(A(static_cast<Eigen::Index>(i), j));
        ++m->depth_[i];
        if (!unit_lower) {
          // stored once: only when the two triangles are the same numbers
          if (A(static_cast<Eigen::Index>(i), j) != A(j, static_cast<Eigen::Index>(i))) return nullptr;
          listed[i * n + static_cast<size_t>(j)] = listed[static_cast<size_t>(j) * n + i] = 1;
        }
      }
    }
    m->off_[n] = m->anc_.size();
    if (!unit_lower)
      for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j)
          if (!listed[i * n + j] && A(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) != T(0)) return nullptr;
    return m;
  }
  size_t size() const override { return n_ * n_; }
  T at(size_t k) const override {
    size_t i = k / n_, j = k % n_;
    if (!unit_ && j > i) std::swap(i, j);  // H: the mirror of the lower triangle
    if (i == j) return unit_ ? T(1) : v_[off_[i]];
    if (j > i || depth_[j] >= depth_[i]) return T(0);
    // j is an ancestor of i iff it is i's ancestor at j's depth: position depth_i - depth_j in the
    // list of i's ancestors (1 = the parent), after the diagonal for H.
    const size_t pos = off_[i] + (unit_ ? 0 : 1) + (depth_[i] - depth_[j]) - 1;
    return anc_[pos] == static_cast<int>(j) ? v_[pos] : T(0);
  }
  // The stored entries, for certify(), which compares them without reading the n² of at():
  // for_each_stored(f) calls f(i, j, pos) for each (stored(pos) = A(i, j)), row i's diagonal first
  // (H), then its ancestors j nearest first.
  bool unit_lower() const { return unit_; }
  size_t n() const { return n_; }
  template <class U>
  bool same_pattern(const RawTreeMatrixOf<U>& o) const {
    return n_ == o.n_ && unit_ == o.unit_ && off_ == o.off_ && anc_ == o.anc_;
  }
  const T& stored(size_t pos) const { return v_[pos]; }
  size_t stored_count() const { return v_.size(); }
  template <class F>
  void for_each_stored(F&& f) const {
    for (size_t i = 0; i < n_; ++i)
      for (size_t pos = off_[i]; pos < off_[i + 1]; ++pos) f(i, static_cast<size_t>(anc_[pos]), pos);
  }

 private:
  template <class U>
  friend class RawTreeMatrixOf;
  size_t n_ = 0;
  bool unit_ = false;
  std::vector<size_t> depth_, off_;  // depth: number of ancestors
  std::vector<int> anc_;
  std::vector<T> v_;
};

template <class T>
Quantity make_q(const std::string& name, int rows, int cols, std::vector<T> entries) {
  Quantity q;
  q.name = name;
  q.rows = rows;
  q.cols = cols;
  if (t_with_text) {
    q.values.reserve(entries.size());
    for (const T& x : entries) q.values.push_back(to_decimal(x));
  }
  auto raw = std::make_shared<RawValuesOf<T>>();
  raw->v = std::move(entries);
  q.raw = std::move(raw);
  return q;
}
template <class T>
Quantity vec_q(const std::string& name, const VecX<T>& x) {
  return make_q<T>(name, static_cast<int>(x.size()), 0, std::vector<T>(x.data(), x.data() + x.size()));
}
// An nv x nv quantity with the tree's sparsity (RawTreeMatrixOf): H from CRBA (stored by its pattern
// when it is exactly zero off it and symmetric, else in full), or L from LᵀDL's LD storage.
template <class T>
Quantity tree_q(const std::string& name, const MatX<T>& A, const std::vector<int>& lambda, bool unit_lower) {
  std::shared_ptr<const TypedRaw<T>> raw = RawTreeMatrixOf<T>::make(A, lambda, unit_lower);
  if (!raw) {
    auto full = std::make_shared<RawValuesOf<T>>();
    full->v.reserve(static_cast<size_t>(A.size()));
    for (Eigen::Index i = 0; i < A.rows(); ++i)
      for (Eigen::Index j = 0; j < A.cols(); ++j) full->v.push_back(A(i, j));
    raw = std::move(full);
  }
  Quantity q;
  q.name = name;
  q.rows = q.cols = static_cast<int>(A.rows());
  if (t_with_text) {
    q.values.reserve(raw->size());
    for (size_t k = 0; k < raw->size(); ++k) q.values.push_back(to_decimal(raw->at(k)));
  }
  q.raw = std::move(raw);
  return q;
}
template <class T>
Quantity mat_q(const std::string& name, const MatX<T>& A) {
  std::vector<T> e;
  e.reserve(static_cast<size_t>(A.size()));
  for (Eigen::Index i = 0; i < A.rows(); ++i)
    for (Eigen::Index j = 0; j < A.cols(); ++j) e.push_back(A(i, j));
  return make_q<T>(name, static_cast<int>(A.rows()), static_cast<int>(A.cols()), std::move(e));
}
template <class T>
Quantity scalar_q(const std::string& name, const T& x) {
  return make_q<T>(name, 0, 0, std::vector<T>{x});
}

// log10 |x| for a finite x ≠ 0 of any scalar, in double, from its binary mantissa and exponent: exact
// enough for counting digits (|error| ≲ 1e-12 even at MPFR's exponents), and never out of double's
// range as x itself can be.
template <class U>
double log10_abs(const U& x) {
  using std::abs;
  using std::frexp;
  int e = 0;
  const U m = frexp(U(abs(x)), &e);
  return std::log10(static_cast<double>(m)) + e * 0.301029995663981195213738894724493;
}

template <class T>
double agreement_digits(const VecX<T>& a, const VecX<T>& b, int cap, const T& scale_floor = T(0)) {
  using std::abs;
  T scale(scale_floor), err(0);
  for (Eigen::Index i = 0; i < a.size(); ++i) {
    if (abs(b(i)) > scale) scale = abs(b(i));
    if (abs(T(a(i) - b(i))) > err) err = abs(T(a(i) - b(i)));
  }
  if (err == T(0)) return cap;
  if (scale == T(0)) return 0;
  // -log10(err / scale) in double (log10_abs): a digit count needs no more, and Boost 1.74's
  // multiprecision log10 of a cpp_bin_float<100> can stay in eval_log's series loop for minutes.
  const double d = -(log10_abs(err) - log10_abs(scale));
  return std::max(0.0, std::min<double>(d, cap));
}

template <class T>
std::string sci(const T& x) {
  return to_decimal(x, 3);
}

// The loop section (LoopSummary, loop_quantities) at precision T.
template <class T>
void evaluate_loops(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau, const MatX<T>& H,
                    const VecX<T>& C_tree, const std::vector<VecX<T>>& tau_loops, const VecX<T>& qdd_state,
                    const std::vector<int>& actuated, bool double_inputs, Evaluation& out) {
  using std::abs;
  LoopSummary& L = out.loops;
  L.present = true;
  for (const VecX<T>& t : tau_loops) L.active = L.active || t.size() > 0;
  // With active loop joints the equations use C - τᵃ (table 8.3) where a passive system uses C.
  const VecX<T> C = L.active ? bias_minus_active<T>(model, q, qd, tau_loops) : C_tree;
  L.n_constraints = model.nc;
  L.n = model.nv;
  const LoopConstraints<T> lc = loop_constraints<T>(model, q, qd, LoopFrame::Local);
  const VecX<T> tau_prime = tau - C;
  const VecX<T> rhs = lc.k + lc.k_stab;
  const LoopForwardDynamics<T> kkt = loop_fd_kkt<T>(H, tau_prime, lc.K, rhs);
  const LoopForwardDynamics<T> lam = loop_fd_lambda<T>(H, model.dof_parent, tau_prime, lc.K, rhs);
  const LoopProjection<T> proj = loop_fd_projection<T>(H, tau_prime, lc.K, rhs);
  L.rank = proj.ns.rank;
  L.mobility = model.nv - L.rank;
  L.redundant = model.nc - L.rank;
  L.rank_by_method = {kkt.rank, lam.rank, proj.fd.rank};
  L.rank_threshold = sci(proj.ns.threshold);
  L.smallest_pivot = sci(proj.ns.smallest_pivot);
  L.largest_dropped = sci(proj.ns.largest_dropped);
  // DoF names as in eval's `dofs`: the joint's name, name[k] for DoF k of a multi-DoF joint.
  auto dof_name = [&](int c) {
    const int b = model.dof_body[c];
    return model.joint_name[b] + (model.nvi[b] > 1 ? "[" + std::to_string(c - model.iv[b]) + "]" : "");
  };
  for (int c : proj.ns.independent) L.independent.push_back(dof_name(c));
  L.pivot_rows.assign(proj.ns.row_order.begin(), proj.ns.row_order.begin() + proj.ns.rank);
  L.col_order = proj.ns.col_order;
  L.lambda_unique = L.rank == model.nc;
  // Consistency: tolerances from the model's size and the resolution of the inputs: the working
  // precision's ε, or 2⁻⁵² when q and q̇ are written as doubles (every fixture's samples, a state
  // file's JSON numbers), which can close a loop only to their own rounding (|δ| ~ 1e-16 × size).
  T size(1), kmax(0), vmax(0);
  const T eps_in = double_inputs ? std::max(epsilon<T>(), T(T(1) / T(4503599627370496LL))) : epsilon<T>();
  L.consistency_resolution = double_inputs ? "double inputs" : "working precision";
  for (int i = 0; i < model.NB; ++i)
    if (model.Xtree[i].r.norm() > size) size = model.Xtree[i].r.norm();
  for (Eigen::Index i = 0; i < lc.K.size(); ++i)
    if (abs(lc.K.data()[i]) > kmax) kmax = abs(lc.K.data()[i]);
  for (Eigen::Index i = 0; i < qd.size(); ++i)
    if (abs(qd(i)) > vmax) vmax = abs(qd(i));
  const T ptol = T(10000) * eps_in * size, vtol = T(10000) * eps_in * (kmax * vmax + T(1));
  T perr(0), verr(0);
  for (Eigen::Index i = 0; i < lc.delta.size(); ++i) {
    if (abs(lc.delta(i)) > perr) perr = abs(lc.delta(i));
    if (abs(lc.vel_error(i)) > verr) verr = abs(lc.vel_error(i));
  }
  L.position_error = sci(perr);
  L.velocity_error = sci(verr);
  L.position_tolerance = sci(ptol);
  L.velocity_tolerance = sci(vtol);
  L.consistent = perr <= ptol && verr <= vtol;
  // Scales of the quantities that vanish on a consistent state (LoopSummary's comment): k against
  // max|K| (max|q̈| + max|q̇|²) (the size of the terms K q̈ = k balances), δ against the model's
  // size, K q̇ against max|K| max|q̇|, g against max|q̈| (below, once q̈ is known).
  T qdd_scale(0);
  if (proj.fd.ok)
    for (Eigen::Index i = 0; i < proj.fd.qdd.size(); ++i)
      if (abs(proj.fd.qdd(i)) > qdd_scale) qdd_scale = abs(proj.fd.qdd(i));
  out.loop_quantities.push_back(mat_q<T>("K", lc.K));
  out.loop_quantities.push_back(vec_q<T>("k", lc.k));
  out.loop_quantities.back().scale = sci(T(kmax * (qdd_scale + vmax * vmax)));
  out.loop_quantities.push_back(vec_q<T>("delta", lc.delta));
  out.loop_quantities.back().scale = sci(size);
  out.loop_quantities.push_back(vec_q<T>("velocity_error", lc.vel_error));
  out.loop_quantities.back().scale = sci(T(kmax * vmax));
  if (!proj.fd.ok || !lam.ok || !kkt.ok) {
    L.message = !proj.fd.ok ? proj.fd.message : !lam.ok ? lam.message : kkt.message;
    return;
  }
  out.loop_quantities.push_back(vec_q<T>("qdd", proj.fd.qdd));
  out.loop_quantities.push_back(vec_q<T>("lambda", lam.lambda));
  out.loop_quantities.push_back(vec_q<T>("tau_c", VecX<T>(lc.K.transpose() * lam.lambda)));
  if (L.active) out.loop_quantities.push_back(vec_q<T>("tau_a", VecX<T>(C_tree - C)));
  if (!actuated.empty()) {
    // §8.12 at the state's q̈: τ_ID = H q̈ + C - τᵃ (C here is C - τᵃ when loops are active).
    LoopSummary::InverseDynamics& id = L.id;
    id.present = true;
    const VecX<T> tau_ID = H * qdd_state + C;
    const LoopInverseDynamics<T> r = loop_inverse_dynamics<T>(proj.ns.G, tau_ID, actuated);
    for (int c : actuated) id.actuated.push_back(dof_name(c));
    id.actuated_dofs = actuated;
    id.kind = actuation_name(r.kind);
    id.unique = r.unique;
    id.producible = r.producible;
    id.residual = sci(r.residual);
    T qn(0), kn(0), rn(0);
    const VecX<T> res = lc.K * qdd_state - lc.k;
    for (Eigen::Index i = 0; i < qdd_state.size(); ++i)
      if (abs(qdd_state(i)) > qn) qn = abs(qdd_state(i));
    for (Eigen::Index i = 0; i < res.size(); ++i) {
      if (abs(lc.k(i)) > kn) kn = abs(lc.k(i));
      if (abs(res(i)) > rn) rn = abs(res(i));
    }
    const T den = kmax * qn + kn;
    const T rel = den > T(0) ? T(rn / den) : rn;
    id.qdd_residual = sci(rel);
    id.qdd_consistent = rel <= T(10000) * epsilon<T>();
    out.loop_quantities.push_back(vec_q<T>("u", r.u));
  }
  out.loop_quantities.push_back(mat_q<T>("G", proj.ns.G));
  out.loop_quantities.push_back(vec_q<T>("g", proj.ns.g));
  out.loop_quantities.back().scale = sci(qdd_scale);
  const int cap = digits10<T>();
  // q̈ agreement relative to max(max|q̈|, max|τ - C| / max|H|): a structure (mobility 0) or a
  // mechanism in balance has q̈ = 0, and its three q̈ agree to rounding, not to "0 digits".
  T hmax(0);
  for (Eigen::Index i = 0; i < H.size(); ++i)
    if (abs(H.data()[i]) > hmax) hmax = abs(H.data()[i]);
  T tmax(0);
  for (Eigen::Index i = 0; i < tau_prime.size(); ++i)
    if (abs(tau_prime(i)) > tmax) tmax = abs(tau_prime(i));
  const T accel_scale = hmax > T(0) ? T(tmax / hmax) : T(0);
  L.agree_kkt_lambda = agreement_digits<T>(kkt.qdd, lam.qdd, cap, accel_scale);
  L.agree_kkt_projection = agreement_digits<T>(kkt.qdd, proj.fd.qdd, cap, accel_scale);
  L.agree_lambda_projection = agreement_digits<T>(lam.qdd, proj.fd.qdd, cap, accel_scale);
  L.agree_lambda_values = agreement_digits<T>(kkt.lambda, lam.lambda, cap);
  // κ(GᵀHG) by its symmetric eigenvalues; κ(KKT) by |eigenvalues| without the n^c - r zeros.
  // Mobility 0 (a structure: the constraints fix every DoF) leaves GᵀHG 0 x 0, with no condition number.
  if (proj.GtHG.size() > 0) {
    Eigen::SelfAdjointEigenSolver<MatX<T>> es(proj.GtHG, Eigen::EigenvaluesOnly);
    const VecX<T> ev = es.eigenvalues();
    if (ev(0) > T(0)) L.condition_GtHG = sci(T(ev(ev.size() - 1) / ev(0)));
  }
  const T kappa = kkt_condition<T>(H, lc.K, L.rank);
  if (kappa > T(0)) L.condition_KKT = sci(kappa);
  // Clusters (§8.9).
  const ClusteredNullSpace<T> cl = clustered_null_space<T>(model, lc.K, lc.k);
  for (const LoopCluster<T>& c : cl.clusters) {
    LoopSummary::Cluster sc;
    for (int l : c.loops) sc.loops.push_back(model.loops[l].name);
    for (int d : c.dofs) sc.dofs.push_back(dof_name(d));
    sc.rank = c.ns.rank;
    L.clusters.push_back(sc);
  }
}

// The contact section (ContactSummary, contact_quantities) at precision T.
template <class T>
void evaluate_impact(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, Evaluation& out) {
  using std::abs;
  ContactSummary::Impact& I = out.contacts.impact;
  I.present = true;
  const ContactImpact<T> r = contact_impact<T>(model, q, qd);
  I.frictional = r.frictional;
  I.message = r.message;
  out.contact_quantities.push_back(vec_q<T>("impact.zeta_minus", r.zeta_minus));
  out.contact_quantities.push_back(vec_q<T>("impact.tangential_minus", r.tangential_minus));
  out.contact_quantities.push_back(scalar_q<T>("impact.kinetic_minus", r.kinetic_minus));
  if (!r.ok) return;
  I.ok = true;
  I.lambda_unique = r.lambda_unique;
  I.in_cone = r.in_cone;
  const int nr = static_cast<int>(r.rigid.size());
  for (int a = 0, j = 0; a < nr; ++a) {
    const Contact<T>& c = model.contacts[r.rigid[a]];
    if (r.frictional) {
      j += c.has_friction ? 2 : 0;
      if (r.lambda(j) > T(0)) I.receiving.push_back(c.name);
      ++j;
    } else if (r.lambda(a) > T(0)) {
      I.receiving.push_back(c.name);
    }
  }
  T vmax(0);
  for (Eigen::Index i = 0; i < qd.size(); ++i) vmax = std::max(vmax, T(abs(qd(i))));
  if (r.lambda.size() > 0) out.contact_quantities.push_back(vec_q<T>("impact.lambda", r.lambda));
  out.contact_quantities.push_back(vec_q<T>("impact.u", r.u));
  out.contact_quantities.push_back(vec_q<T>("impact.dqd", r.dqd));
  out.contact_quantities.back().scale = sci(vmax);
  out.contact_quantities.push_back(vec_q<T>("impact.qd_plus", r.qd_plus));
  out.contact_quantities.back().scale = sci(vmax);
  T zmax(0);
  for (Eigen::Index i = 0; i < r.zeta_minus.size(); ++i) zmax = std::max(zmax, T(abs(r.zeta_minus(i))));
  for (Eigen::Index i = 0; i < r.tangential_minus.size(); ++i) zmax = std::max(zmax, T(abs(r.tangential_minus(i))));
  out.contact_quantities.push_back(vec_q<T>("impact.zeta_plus", r.zeta_plus));
  out.contact_quantities.back().scale = sci(zmax);
  out.contact_quantities.push_back(vec_q<T>("impact.tangential_plus", r.tangential_plus));
  out.contact_quantities.back().scale = sci(zmax);
  out.contact_quantities.push_back(scalar_q<T>("impact.kinetic_plus", r.kinetic_plus));
  I.energy_change = sci(T(r.kinetic_plus - r.kinetic_minus));
  if (!r.frictional && nr > 0) {
    // ΔT = ½ Σ λ_i (ζ_i⁻ + ζ_i⁺) with ζ_i⁺ as the restitution law sets it where λ_i > 0: -e_i ζ_i⁻
    // for a colliding contact, 0 for a separating one (impulse.hpp).
    T dT(0);
    for (int a = 0; a < nr; ++a) {
      const T zm = r.zeta_minus(r.rigid[a]);
      const T zp = zm < T(0) ? T(-model.contacts[r.rigid[a]].e * zm) : T(0);
      dT += r.lambda(a) * (zm + zp) / T(2);
    }
    I.energy_change_closed_form = sci(dT);
  }
}

template <class T>
void evaluate_contacts(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau, const StateDesc& state,
                       Evaluation& out) {
  using std::abs;
  ContactSummary& S = out.contacts;
  S.present = true;
  std::vector<bool> given_z;
  VecX<T> zs, xs;
  surface_state<T>(state, given_z, zs, xs);
  // The book's forward problem: the LCP over the rigid contacts in case 3 (φ = ζ = 0, §11.4); a
  // separated or separating contact carries no force and gets no λ; with a colliding or
  // penetrating one no LCP is posed (status impact_first, penetrating; dynamics.hpp).
  const ContactDynamics<T> r = contact_dynamics<T>(model, q, qd, tau, given_z, zs, xs, ContactSet::Current);
  for (int a : r.rigid) S.rigid.push_back(model.contacts[a].name);
  for (int a : minimal_contact_set<T>(r.T_rigid)) S.minimal.push_back(model.contacts[r.rigid[a]].name);
  S.n_contacts = static_cast<int>(model.contacts.size());
  const int nc = static_cast<int>(r.rigid.size());  // the LCP's size
  for (const Contact<T>& c : model.contacts) S.names.push_back(c.name);
  S.cases = r.cases;
  // The forward problem is frictionless (§11.3-11.5): a rigid contact's μ is used by the impulsive
  // step (§11.7) only; said, not silently dropped.
  for (const Contact<T>& c : model.contacts)
    if (!c.has_soft && c.has_friction && c.mu > T(0))
      S.notes.push_back("contact '" + c.name + "' has friction μ = " + to_decimal(c.mu, 6) +
                        ": the forward LCP is frictionless (RBDA §11.3-11.5) and does not use it; the impulsive step "
                        "(--impact, §11.7) does");
  S.phi_tolerance = sci(r.phi_tolerance);
  S.zeta_tolerance = sci(r.zeta_tolerance);
  T size(1), vmax(0), tmax(0);
  for (int i = 0; i < model.NB; ++i)
    if (model.Xtree[i].r.norm() > size) size = model.Xtree[i].r.norm();
  for (Eigen::Index i = 0; i < qd.size(); ++i) vmax = std::max(vmax, T(abs(qd(i))));
  for (Eigen::Index i = 0; i < r.ck.Tn.size(); ++i) tmax = std::max(tmax, T(abs(r.ck.Tn.data()[i])));
  out.contact_quantities.push_back(mat_q<T>("T", r.ck.Tn));
  out.contact_quantities.push_back(vec_q<T>("Tdot_qd", r.ck.Tdot_qd));
  out.contact_quantities.push_back(vec_q<T>("phi", r.ck.phi));
  out.contact_quantities.back().scale = sci(size);
  out.contact_quantities.push_back(vec_q<T>("zeta", r.ck.zeta));
  out.contact_quantities.back().scale = sci(T(tmax * vmax));
  if (!r.ok) {
    S.status = "H_not_positive_definite";
    S.message = r.message;
    return;
  }
  if (!r.soft.contacts.empty()) {
    // Soft contacts (§11.8): per soft contact, in model order.
    const int ns = static_cast<int>(r.soft.contacts.size());
    VecX<T> fn(ns), zz(ns), zdot(ns), ft(2 * ns), xdot(2 * ns), fstick(2 * ns), W(ns);
    for (int a = 0; a < ns; ++a) {
      const SoftContactState<T>& s = r.soft.contacts[a];
      S.soft.push_back({model.contacts[s.contact].name, s.touching, s.sticking});
      fn(a) = s.fn;
      zz(a) = s.z;
      zdot(a) = s.zdot;
      W(a) = s.dissipation;
      for (int k = 0; k < 2; ++k) {
        ft(2 * a + k) = s.ft(k);
        xdot(2 * a + k) = s.xdot(k);
        fstick(2 * a + k) = s.f_stick(k);
      }
    }
    out.contact_quantities.push_back(vec_q<T>("soft.z", zz));
    out.contact_quantities.push_back(vec_q<T>("soft.fn", fn));
    out.contact_quantities.push_back(vec_q<T>("soft.ft", ft));
    out.contact_quantities.push_back(vec_q<T>("soft.f_stick", fstick));
    out.contact_quantities.push_back(vec_q<T>("soft.zdot", zdot));
    out.contact_quantities.push_back(vec_q<T>("soft.xdot", xdot));
    out.contact_quantities.push_back(vec_q<T>("soft.dissipation", W));
    out.contact_quantities.push_back(vec_q<T>("soft.tau_soft", r.soft.tau_soft));
  }
  S.rank = r.rank;
  S.lambda_unique = r.lambda_unique;
  S.rank_threshold = sci(r.rank_threshold);
  S.pivot_tolerance = sci(r.lcp.pivot_tolerance);
  S.pivots = r.lcp.pivots;
  S.borderline = r.lcp.borderline;
  if (nc > 0) {  // with every contact soft there is no LCP (an empty quantity has no JSON shape)
    out.contact_quantities.push_back(mat_q<T>("M", r.M));
    out.contact_quantities.push_back(vec_q<T>("d", r.d));
  }
  out.contact_quantities.push_back(vec_q<T>("qdd_free", r.qdd_free));
  if (!r.posed) {
    S.status = r.penetrating ? "penetrating" : "impact_first";
    S.message = r.message;
    return;
  }
  T mmax(0), dmax(0);
  for (Eigen::Index i = 0; i < r.M.size(); ++i) mmax = std::max(mmax, T(abs(r.M.data()[i])));
  for (Eigen::Index i = 0; i < r.d.size(); ++i) dmax = std::max(dmax, T(abs(r.d(i))));
  S.qp_status = r.qp.status == ContactQp<T>::Solved ? "solved" : r.qp.status == ContactQp<T>::NoSolution ? "no_solution" : "failed";
  S.qp_steps = r.qp.steps;
  if (r.lcp.status == LcpResult<T>::Solved && r.qp.status == ContactQp<T>::Solved) {
    const int cap = digits10<T>();
    T fmax(0);
    for (Eigen::Index i = 0; i < r.qdd_free.size(); ++i) fmax = std::max(fmax, T(abs(r.qdd_free(i))));
    S.qp_agree_qdd = agreement_digits<T>(r.qp.qdd, r.qdd, cap, fmax);
    S.qp_agree_tau_c = agreement_digits<T>(VecX<T>(r.T_rigid * r.qp.lambda), r.tau_c, cap);
    const T f1 = T(r.lcp.lambda.dot(r.M * r.lcp.lambda)) / T(2) + r.lcp.lambda.dot(r.d);
    const T f2 = T(r.qp.lambda.dot(r.M * r.qp.lambda)) / T(2) + r.qp.lambda.dot(r.d);
    VecX<T> a(1), b(1);
    a << f2;
    b << f1;
    S.qp_agree_objective = agreement_digits<T>(a, b, cap, T(mmax * (nc ? T(r.lcp.lambda.cwiseAbs().maxCoeff()) : T(0)) * 
                                                          (nc ? T(r.lcp.lambda.cwiseAbs().maxCoeff()) : T(0)) + dmax));
  }
  S.force_qp_status = r.force_qp.status == ForceQp<T>::Solved       ? "solved"
                      : r.force_qp.status == ForceQp<T>::NoSolution ? "no_solution"
                                                                     : "failed";
  S.force_qp_steps = r.force_qp.steps;
  if (r.lcp.status == LcpResult<T>::Solved && r.force_qp.status == ForceQp<T>::Solved) {
    const int cap = digits10<T>();
    const T lmax = nc ? T(r.lcp.lambda.cwiseAbs().maxCoeff()) : T(0);
    S.force_qp_agree_zeta_dot = agreement_digits<T>(r.force_qp.zeta_dot, r.lcp.zeta_dot, cap, T(mmax * lmax + dmax));
    S.force_qp_agree_tau_c = agreement_digits<T>(VecX<T>(r.T_rigid * r.force_qp.lambda), r.tau_c, cap);
    const T f1 = T(r.lcp.lambda.dot(r.M * r.lcp.lambda)) / T(2) + r.lcp.lambda.dot(r.d);
    VecX<T> a(1), b(1);
    a << r.force_qp.objective;
    b << f1;
    S.force_qp_agree_objective = agreement_digits<T>(a, b, cap, T(mmax * lmax * lmax + dmax * lmax));
  }
  if (r.lcp.status == LcpResult<T>::Solved) {
    S.status = "solved";
    for (int a : r.lcp.active) S.active.push_back(model.contacts[r.rigid[a]].name);
    const T lmax = nc ? T(r.lcp.lambda.cwiseAbs().maxCoeff()) : T(0);
    const T zscale = mmax * lmax + dmax;
    const T den = zscale > T(0) ? zscale : T(1);
    S.min_lambda = sci(nc ? T(r.lcp.lambda.minCoeff()) : T(0));
    S.min_zeta_dot = sci(nc ? T(r.lcp.zeta_dot.minCoeff() / den) : T(0));
    S.complementarity = sci(nc ? T(r.lcp.lambda.cwiseProduct(r.lcp.zeta_dot).cwiseAbs().maxCoeff() / (den * (lmax > T(0) ? lmax : T(1)))) : T(0));
    S.equation_residual = sci(nc ? T(VecX<T>(r.M * r.lcp.lambda + r.d - r.lcp.zeta_dot).cwiseAbs().maxCoeff() / den) : T(0));
    if (nc > 0) {
      out.contact_quantities.push_back(vec_q<T>("lambda", r.lcp.lambda));
      out.contact_quantities.push_back(vec_q<T>("zeta_dot", r.lcp.zeta_dot));
      out.contact_quantities.back().scale = sci(zscale);
    }
    out.contact_quantities.push_back(vec_q<T>("qdd", r.qdd));
    T fmax(0);  // q̈'s scale: the free acceleration the contact forces change (a body held at rest has q̈ = 0)
    for (Eigen::Index i = 0; i < r.qdd_free.size(); ++i) fmax = std::max(fmax, T(abs(r.qdd_free(i))));
    out.contact_quantities.back().scale = sci(fmax);
    out.contact_quantities.push_back(vec_q<T>("tau_c", r.tau_c));
    S.enumerated = r.enumerated;
    S.n_basic_solutions = static_cast<int>(r.basic_solutions.size());
    for (size_t k = 0; k < r.basic_solutions.size(); ++k)
      out.contact_quantities.push_back(vec_q<T>("basic_solutions[" + std::to_string(k) + "]", r.basic_solutions[k]));
  } else if (r.lcp.status == LcpResult<T>::NoSolution) {
    S.status = "no_solution";
    const VecX<T>& y = r.lcp.certificate;
    S.certificate_dTy = sci(T(r.d.dot(y)));
    S.certificate_My = sci(T((r.M * y).cwiseAbs().maxCoeff()));
    S.message = "the LCP has no solution: y ≥ 0 with My = 0 and dᵀy < 0 (Farkas: yᵀζ̇ = dᵀy < 0 for every λ ≥ 0), "
                "no λ ≥ 0 keeps every ζ̇ ≥ 0 (RBDA example 11.1)";
    out.contact_quantities.push_back(vec_q<T>("certificate", y));
  } else {
    S.status = "failed";
    S.message = r.lcp.message;
  }
}

// The quantities of evaluate.hpp for (desc, state) at scalar T, into `out` (evaluate() sets the
// precision, for MPFR the default precision, and the text mode around it).
template <class T>
void evaluate_at(const ModelDesc& desc, const StateDesc& state, const std::vector<int>& actuated, bool impact, Evaluation& out,
                 std::vector<CheckResult>* checks) {
  const Model<T> model = build_model<T>(desc);
  const VecX<T> q = to_vec<T>(state.q), qd = to_vec<T>(state.qd), qdd = to_vec<T>(state.qdd),
                tau = to_vec<T>(state.tau);
  // H (CRBA), C, ABA, the LᵀDL factor (table 6.3 while its O(n d²) updates stay within
  // kFactorBudget, every bundled model; beyond, deep chains, the same factor from articulated-body
  // inertias in O(n d): ltdl_articulated.hpp, tested against table 6.3) and κ(H), shared with the
  // checks (checks/properties.hpp, TreeTerms).
  TreeTerms<T> terms = tree_terms<T>(model, q, qd, tau, t_with_summary || checks);
  // The dense H and LD are needed after their quantities are made only by the checks and the loop
  // quantities; otherwise each is freed once copied (a 2000-DoF chain: 160 MB at bin50, 224 MB at
  // bin100 each, while the other precision's evaluation runs beside this one).
  const bool keep_dense = checks != nullptr || model.nc > 0;
  const MatX<T>& H = terms.H;
  const VecX<T>& C = terms.C;
  const AbaResult<T>& fd = terms.fd;
  const SparseFactor<T>& f = terms.f;
  const VecX<T> tau_id = rnea<T>(model, q, qd, qdd);
  const Energy<T> e = energy<T>(model, q, qd);
  // C, tau and qdd are certified against their natural scales (reference/tree/natural_scale.hpp):
  // an exactly cancelled entry is judged against the terms that cancel.
  const TreeScales<T> scales = tree_natural_scales<T>(model, q, qd, qdd, tau, C, fd.ok ? fd.qdd : VecX<T>(), f);
  out.quantities.push_back(tree_q<T>("H", H, model.dof_parent, false));
  if (!keep_dense) terms.H = MatX<T>();
  out.quantities.push_back(vec_q<T>("C", C));
  out.quantities.back().scale = sci(scales.C);
  out.quantities.push_back(vec_q<T>("tau", tau_id));
  out.quantities.back().scale = sci(scales.tau);
  out.positive_definite = fd.ok && f.ok;
  if (t_with_summary) {
    out.condition_number = "inf";
    if (out.positive_definite) {
      // Lanczos on H and on H⁻¹ through the factor (condition.hpp): no n³ eigendecomposition.
      const double kappa = terms.kappa;
      if (std::isfinite(kappa)) out.condition_number = to_decimal(kappa, 6);
    }
  }
  if (fd.ok) {
    out.quantities.push_back(vec_q<T>("qdd", fd.qdd));
    if (scales.has_qdd) out.quantities.back().scale = sci(scales.qdd);
  } else {
    out.degeneracy = "ABA: articulated-body pivot D of body '" + model.body_name[fd.failed_at] +
                     "' is not positive-definite (H is singular or indefinite); qdd is undefined";
  }
  if (f.ok) {
    out.quantities.push_back(f.unit ? tree_q<T>("L", f.LD, f.lambda, true) : mat_q<T>("L", f.L()));
    out.quantities.push_back(vec_q<T>("D", f.D()));
    if (!keep_dense) terms.f.LD = MatX<T>();
  } else if (out.degeneracy.empty()) {
    out.degeneracy = "LTDL: pivot D of DoF " + std::to_string(f.failed_at) + " is not positive";
  }
  out.quantities.push_back(scalar_q<T>("kinetic_energy", e.kinetic));
  out.quantities.push_back(scalar_q<T>("potential_energy", e.potential));
  out.quantities.push_back(vec_q<T>("momentum", VecX<T>(e.momentum.c)));
  if (model.nc > 0) {
    const std::vector<VecX<T>> tau_loops = to_vecs<T>(state.tau_loops);
    // On a closed-loop model the mechanism's acceleration is the constrained one: the top-level
    // qdd is the loop solution (the same numbers as loops.qdd), and ABA's acceleration of the
    // open spanning tree, which no loop-closing engine reports, is kept as qdd_open_tree.
    bool double_inputs = true;  // every q and q̇ entry a binary double (not decimal text)
    for (const std::vector<Num>* v : {&state.q, &state.qd})
      for (const Num& x : *v) double_inputs = double_inputs && x.is_double;
    evaluate_loops<T>(model, q, qd, tau, H, C, tau_loops, qdd, actuated, double_inputs, out);
    for (Quantity& qn : out.quantities)
      if (qn.name == "qdd") qn.name = "qdd_open_tree";
    if (const Quantity* lq = out.find_loop("qdd")) {
      auto at = std::find_if(out.quantities.begin(), out.quantities.end(), [](const Quantity& x) { return x.name == "tau"; });
      Quantity copy = *lq;
      out.quantities.insert(at + 1, copy);
    }
  }
  if (!model.contacts.empty()) {
    evaluate_contacts<T>(model, q, qd, tau, state, out);
    if (impact) evaluate_impact<T>(model, q, qd, out);
  }
  // A quantity with a non-finite entry (overflow on an extreme model at a narrow precision) is
  // degeneracy data: named in `degeneracy` and omitted, so every document that carries the
  // evaluation stays readable (docs/formats.md).
  // (Checked on the raw values: a check evaluation has no text.)
  auto keep_finite = [&ev = out](std::vector<Quantity>& qs, const std::string& prefix) {
    std::vector<Quantity> kept;
    for (Quantity& qn : qs) {
      const std::string bad = qn.raw ? qn.raw->first_non_finite() : std::string();
      if (bad.empty()) kept.push_back(std::move(qn));
      else ev.degeneracy += (ev.degeneracy.empty() ? "" : "; ") + non_finite_note(prefix + qn.name) + " (an entry is " + bad + ")";
    }
    qs = std::move(kept);
  };
  keep_finite(out.quantities, "");
  keep_finite(out.loop_quantities, "loops.");
  keep_finite(out.contact_quantities, "contacts.");
  if (checks) {
    *checks = check_all<T>(model, q, qd, qdd, tau, to_vecs<T>(state.tau_loops), terms);
    if (!model.contacts.empty() && model.nc == 0) {
      std::vector<bool> given_z;
      VecX<T> z, x;
      surface_state<T>(state, given_z, z, x);
      const std::vector<CheckResult> cc = check_contacts<T>(model, q, qd, tau, given_z, z, x);
      checks->insert(checks->end(), cc.begin(), cc.end());
    }
    if (impact) {
      const std::vector<CheckResult> ic = check_impact<T>(model, q, qd);
      checks->insert(checks->end(), ic.begin(), ic.end());
    }
  }
}

#define RBDREF_EVALUATE_INSTANTIATE(EXT, T) \
  EXT template void evaluate_at<T>(const ModelDesc&, const StateDesc&, const std::vector<int>&, bool, Evaluation&, \
                                   std::vector<CheckResult>*);
RBDREF_EXTERN_FOR_EACH_SCALAR(RBDREF_EVALUATE_INSTANTIATE)

}  // namespace rbd::detail
