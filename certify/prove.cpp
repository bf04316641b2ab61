#include "certify/prove.hpp"
#include "certify/prove_steps.hpp"

#include "checks/properties.hpp"  // kFactorBudget: the point evaluation's choice of LᵀDL route
#include "io/model_io.hpp"  // model_layout: the DoF parents, for the factor route
#include "io/quantities.hpp"
#include "io/state_io.hpp"
#include "certify/verified_solve.hpp"
#include "reference/contact/impulse.hpp"  // impact_offset: the impulsive LCP's d
#include "reference/contact/interval_contact.hpp"
#include "reference/loops/interval_loops.hpp"
#include "reference/tree/interval_tree.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

namespace rbd {

using detail::Fr;

const ProvenQuantity* Proof::find(const std::string& name) const {
  for (const ProvenQuantity& q : quantities)
    if (q.name == name) return &q;
  return nullptr;
}

namespace prove_detail {

void ProofSteps::emit(const std::string& name, const char* method, size_t n, const EntryAt& at) {
  const bool loop = name.rfind("loops.", 0) == 0, contact = name.rfind("contacts.", 0) == 0;
  const Quantity* q = loop ? ev_.find_loop(name.substr(6)) : contact ? ev_.find_contact(name.substr(9)) : ev_.find(name);
  if (!q) return;
  out_.log_width[name] = log10_relative_width(n, at, log10_scale(q->scale));
  out_.proven[name] = proven_quantity(*q, n, at, ev_.cap);
  out_.proven[name].method = method;
}

void ProofSteps::none(const std::vector<std::string>& names, const std::string& why) {
  for (const std::string& n : names) out_.why_not[n] = why;
}

void ProofSteps::attempt(const std::vector<std::string>& names, const std::function<void()>& f) {
  try {
    f();
  } catch (const Decision& d) {
    none(names, d.what());
    out_.decided.insert(names.begin(), names.end());
  } catch (const Undecided& u) {
    none(names, u.what());
    out_.undecided = true;
  }
}

namespace {

// log10 |x| in double (x may lie beyond double's exponent range), rounded up when `up`, else down;
// kMinusInf for 0.
double log10_abs(mpfr_srcptr x, bool up) {
  if (mpfr_zero_p(x)) return kMinusInf;
  long e = 0;
  const double m = std::abs(mpfr_get_d_2exp(&e, x, up ? MPFR_RNDA : MPFR_RNDZ));
  const double l = std::log10(m) + static_cast<double>(e) * 0.30102999566398120;
  return up ? std::nextafter(l, std::numeric_limits<double>::infinity()) : std::nextafter(l, kMinusInf);
}

}  // namespace

// max over entries of log10(width / scale), scale = max(max|value|, the quantity's natural scale
// `lscale`, as log10): how far the enclosures are from the points. A quantity with no natural
// scale whose every enclosure reaches 0 (exact zeros, computed through cancellation: a planar
// loop's out-of-plane k) has no relative width to reach: -inf, no reason to widen.
double log10_relative_width(size_t n, const EntryAt& at, double lscale) {
  double lw = kMinusInf, lv = kMinusInf;
  Fr w(64);
  for (size_t k = 0; k < n; ++k) {
    const Interval& x = at(k);
    if (!x.bounded()) return std::numeric_limits<double>::infinity();
    mpfr_sub(w.v, x.hi(), x.lo(), MPFR_RNDU);
    lw = std::max(lw, log10_abs(w.v, true));
    lv = std::max({lv, log10_abs(x.lo(), false), log10_abs(x.hi(), false)});
  }
  if (lw == kMinusInf) return kMinusInf;
  lv = std::max(lv, lscale);
  if (lscale == kMinusInf && lv <= lw) return kMinusInf;
  return lw - lv;
}

// log10 of a quantity's natural scale (Quantity::scale, decimal text), -inf when it has none.
double log10_scale(const std::string& scale) {
  if (scale.empty() || !is_decimal(scale)) return kMinusInf;
  Fr s(64);
  mpfr_set_str(s.v, scale.c_str(), 10, MPFR_RNDZ);
  return log10_abs(s.v, false);
}

}  // namespace prove_detail

namespace {

using namespace prove_detail;

// x as decimal text with 3 significant digits, rounded up (x >= 0).
std::string up_text(mpfr_srcptr x) {
  if (mpfr_zero_p(x)) return "0";
  mpfr_exp_t e = 0;
  char* s = mpfr_get_str(nullptr, &e, 10, 3, x, MPFR_RNDU);
  const std::string m(s);
  mpfr_free_str(s);
  return m.substr(0, 1) + "." + m.substr(1) + "e" + (e - 1 < 0 ? "-" : "+") + std::to_string(std::labs(static_cast<long>(e - 1)));
}

// q̈ = H⁻¹(τ - C) by residual correction from x̃ (prove.hpp): the enclosure x̃ + e, e ∋ H⁻¹ r,
// r = τ - RNEA(q, q̇, x̃) = H (q̈ - x̃), H⁻¹ through the interval LᵀDL factor f (whose pivots were
// proven positive, so every H of the enclosure is positive-definite); once more from the first
// enclosure's midpoint unless that enclosure is already 10^-target narrow (log10_relative_width,
// against q̈'s natural scale `lscale`: a narrow factor makes the second pass, as costly as the
// first, useless).
VecX<Interval> verified_qdd(const Model<Interval>& model, const SparseFactor<Interval>& f, const VecX<Interval>& q,
                            const VecX<Interval>& qd, const VecX<Interval>& tau, VecX<Interval> x, double lscale,
                            double target) {
  VecX<Interval> enclosure;
  for (int pass = 0; pass < 2; ++pass) {
    const VecX<Interval> r = tau - rnea<Interval>(model, q, qd, x);
    enclosure = x + ltdl_solve<Interval>(f, r);
    if (pass == 0) {
      const double w = log10_relative_width(static_cast<size_t>(enclosure.size()), entries(enclosure), lscale);
      if (w > kMinusInf && w <= -target) break;
      for (Eigen::Index i = 0; i < x.size(); ++i) x(i) = midpoint(enclosure(i));
    }
  }
  return enclosure;
}

// The number of bodies on the longest path from the base.
int tree_depth(const ModelDesc& desc) {
  int depth = 0;
  std::vector<int> d(desc.bodies.size(), 0);
  for (size_t b = 0; b < desc.bodies.size(); ++b) {
    const int p = desc.bodies[b].parent;
    d[b] = p < 0 ? 1 : d[static_cast<size_t>(p)] + 1;
    depth = std::max(depth, d[b]);
  }
  return depth;
}

// The enclosures of ev at the current interval precision. `prev`, the previous (narrower) attempt:
// the tree's quantities it settled are taken from it instead of computed again (a deep chain's H
// is proven long before its articulated factor is); the loop and contact sections, whose
// steps share their enclosures, are computed whole.
Enclosures enclose(const Evaluation& ev, const ModelDesc& desc, const StateDesc& state, const Enclosures* prev) {
  Enclosures out;
  ProofSteps steps(ev, out);
  auto emit = [&steps](const std::string& name, const char* method, size_t n, const EntryAt& at) { steps.emit(name, method, n, at); };
  auto none = [&steps](const std::vector<std::string>& names, const std::string& why) { steps.none(names, why); };
  std::optional<Model<Interval>> built;
  try {
    built.emplace(build_model<Interval>(desc));
  } catch (const Undecided& u) {
    std::vector<std::string> tree;
    for (const QuantityInfo* row : fixture_section(QuantitySection::kTree)) tree.push_back(row->fixture_key);
    none(tree, std::string("the model's construction: ") + u.what());
    return out;
  }
  const Model<Interval>& model = *built;
  const VecX<Interval> q = to_vec<Interval>(state.q), qd = to_vec<Interval>(state.qd), qdd = to_vec<Interval>(state.qdd),
                       tau = to_vec<Interval>(state.tau);
  const bool table63 = ltdl_updates(model.dof_parent) <= kFactorBudget;
  auto attempt = [&steps](const std::vector<std::string>& names, const std::function<void()>& f) { steps.attempt(names, f); };
  auto settled = [prev](const std::vector<std::string>& names) {
    if (!prev) return false;
    for (const std::string& n : names)
      if (!prev->settled.count(n)) return false;
    return true;
  };
  // A tree group: taken from prev when it settled them, else attempted.
  auto attempt_or_reuse = [&](const std::vector<std::string>& names, auto&& f) {
    if (!settled(names)) return attempt(names, f);
    for (const std::string& n : names) {
      if (auto it = prev->proven.find(n); it != prev->proven.end()) out.proven[n] = it->second;
      if (auto it = prev->log_width.find(n); it != prev->log_width.end()) out.log_width[n] = it->second;
      if (auto it = prev->why_not.find(n); it != prev->why_not.end()) out.why_not[n] = it->second;
      if (prev->decided.count(n)) out.decided.insert(n);
    }
  };
  const bool sections = !model.contacts.empty() || model.nc > 0;
  // ABA's acceleration of the tree: "qdd" on a tree, "qdd_open_tree" on a closed-loop model.
  const std::string aba_name = model.nc > 0 ? "qdd_open_tree" : "qdd";
  const std::vector<std::string> factor = {"L", "D", aba_name};
  std::optional<MatX<Interval>> H;
  const auto crba_H = [&] {
    H = table63 ? crba<Interval>(model, q) : crba_base<Interval>(model, q);
    emit("H", "evaluated", static_cast<size_t>(H->size()), entries(*H));
  };
  if (sections || (table63 && !settled(factor)))
    attempt({"H"}, crba_H);  // the sections and table 6.3 need H itself
  else
    attempt_or_reuse({"H"}, crba_H);
  std::optional<VecX<Interval>> C;
  const auto bias_C = [&] {
    C = bias<Interval>(model, q, qd);
    emit("C", "evaluated", static_cast<size_t>(C->size()), entries(*C));
  };
  if (sections)
    attempt({"C"}, bias_C);
  else
    attempt_or_reuse({"C"}, bias_C);
  attempt_or_reuse({"tau"}, [&] {
    const VecX<Interval> t = rnea<Interval>(model, q, qd, qdd);
    emit("tau", "evaluated", static_cast<size_t>(t.size()), entries(t));
  });
  if (!model.contacts.empty() && model.nc == 0)
  {
    std::optional<ContactKinematics<Interval>> ck;
    enclose_contacts(ev, state, model, q, qd, tau, H ? &*H : nullptr, C ? &*C : nullptr, ck, steps);
    if (ev.contacts.impact.present)
      enclose_impact(ev, model, qd, ck ? &*ck : nullptr, H ? &*H : nullptr, steps);
  }
  if (model.nc > 0)
    enclose_loops(ev, state, model, q, qd, qdd, tau, H ? &*H : nullptr, C ? &*C : nullptr, steps);
  attempt_or_reuse(factor, [&] {
    if (table63 && !H) throw Decision("H has no enclosure");
    // The articulated factor's L and D lose ~0.9 digits per body to the wrapping on chains
    // (docs/benchmarks.md): where it cannot succeed, go to that at once rather than by the guard
    // digits, attempt after attempt (a shortfall left is then measured, and met by the next).
    const int articulated_digits = ev.cap + 12 + tree_depth(desc);
    if (!table63 && static_cast<int>(ScopedIntervalDigits::digits10()) < articulated_digits - articulated_digits / 8) {
      // far below what the wrapping needs: the factor would fail, after costing as much as H
      out.wanted_digits = articulated_digits;
      throw Undecided("the articulated factor of a tree this deep needs about " + std::to_string(articulated_digits) +
                      " interval digits (its wrapping, ~0.9 digits per body)");
    }
    std::optional<SparseFactor<Interval>> factored;
    try {
      factored.emplace(table63 ? ltdl<Interval>(*H, model.dof_parent) : ltdl_articulated<Interval>(model, q));
    } catch (const Undecided&) {
      if (!table63) out.wanted_digits = articulated_digits;
      throw;
    }
    SparseFactor<Interval>& f = *factored;
    H.reset();
    if (!f.ok) {
      if (!table63) out.wanted_digits = articulated_digits;
      throw Undecided("the pivot D of DoF " + std::to_string(f.failed_at) + " is not proven positive");
    }
    const size_t n = static_cast<size_t>(f.LD.rows());
    emit("L", "evaluated", n * n, entries_L(f));
    const VecX<Interval> D = f.D();
    emit("D", "evaluated", n, entries(D));
    if (const Quantity* x = ev.find(aba_name)) {
      VecX<Interval> xt(x->size());
      for (size_t k = 0; k < x->size(); ++k) xt(static_cast<Eigen::Index>(k)) = midpoint(from_decimal<Interval>(x->text(k)));
      const VecX<Interval> e = verified_qdd(model, f, q, qd, tau, xt, log10_scale(x->scale), ev.cap + 4);
      emit(aba_name, "verified", static_cast<size_t>(e.size()), entries(e));
    }
  });
  H.reset();
  attempt_or_reuse({"kinetic_energy", "potential_energy", "momentum"}, [&] {
    const Energy<Interval> e = energy<Interval>(model, q, qd);
    const VecX<Interval> T(VecX<Interval>::Constant(1, e.kinetic)), V(VecX<Interval>::Constant(1, e.potential));
    const VecX<Interval> h(e.momentum.c);
    emit("kinetic_energy", "evaluated", 1, entries(T));
    emit("potential_energy", "evaluated", 1, entries(V));
    emit("momentum", "evaluated", 6, entries(h));
  });
  return out;
}

// The first attempt's interval digits: the working digits + 12 + depth/4 (τ's wrapping, ~0.2 digits
// per body, the widest of the tree's evaluated quantities). Beyond table 6.3's budget, where the
// articulated factor forces a second attempt anyway (~0.9 digits per body), the first serves H
// alone: depth · 0.15 (H's wrapping, ~0.13); C and τ, O(n), follow in the second.
int start_digits(const Evaluation& ev, const ModelDesc& desc, bool articulated) {
  const int depth = tree_depth(desc);
  return ev.cap + 12 + (articulated ? (3 * depth + 19) / 20 : (depth + 3) / 4);
}

}  // namespace

ProvenQuantity proven_quantity(const Quantity& q, const std::vector<Interval>& enclosure, int cap) {
  return proven_quantity(q, enclosure.size(), [&enclosure](size_t k) -> const Interval& { return enclosure[k]; }, cap);
}

ProvenQuantity proven_quantity(const Quantity& q, size_t count, const std::function<const Interval&(size_t)>& at, int cap) {
  ProvenQuantity p;
  p.name = q.name;
  p.rows = q.rows;
  p.cols = q.cols;
  const size_t n = q.size();
  if (count != n) {
    p.not_proven = "the enclosure has " + std::to_string(count) + " entries, the quantity " + std::to_string(n);
    return p;
  }
  // The bounds below are each one MPFR operation, correctly rounded in the safe direction, so 64
  // bits keep them rigorous (a radius is reported to 3 digits).
  const mpfr_prec_t bits = std::max<mpfr_prec_t>(64, ScopedIntervalDigits::bits());
  Fr r(64), t(64), big(64), rmax(64), vmax(64);
  mpfr_set_zero(rmax.v, 1);
  mpfr_set_zero(vmax.v, 1);
  std::vector<double> lrad(n), lval(n);
  p.radius.resize(n);
  for (size_t k = 0; k < n; ++k) {
    const Interval& e = at(k);
    if (!e.bounded() || isnan(e)) {
      p.not_proven = "entry " + std::to_string(k) + " has no bounded enclosure";
      p.radius.clear();
      return p;
    }
    // The reported decimal, enclosed: exact when it is a binary number of few bits (0, 1, 0.5),
    // else 40 digits narrower than the text's own last digit, far below any radius it can have.
    Interval v;
    {
      const std::string& text = q.text(k);
      ScopedIntervalDigits wide(static_cast<unsigned>(std::min<double>(bits * 0.30103 + 10, static_cast<double>(text.size()) + 40)));
      v = from_decimal<Interval>(text);
    }
    // radius = max(hi(e) - lo(v), hi(v) - lo(e)), rounded up: |true - value| for every pair.
    mpfr_sub(r.v, e.hi(), v.lo(), MPFR_RNDU);
    mpfr_sub(t.v, v.hi(), e.lo(), MPFR_RNDU);
    mpfr_max(r.v, r.v, t.v, MPFR_RNDU);
    if (mpfr_sgn(r.v) < 0) mpfr_set_zero(r.v, 1);
    p.radius[k] = up_text(r.v);
    lrad[k] = log10_abs(r.v, true);
    // |true| >= |value| - radius (lower bound, rounded down)
    mpfr_abs(t.v, v.lo(), MPFR_RNDD);
    mpfr_abs(big.v, v.hi(), MPFR_RNDD);
    mpfr_min(t.v, t.v, big.v, MPFR_RNDD);
    if (v.contains_zero()) mpfr_set_zero(t.v, 1);
    mpfr_max(vmax.v, vmax.v, t.v, MPFR_RNDD);
    mpfr_sub(t.v, t.v, r.v, MPFR_RNDD);
    lval[k] = mpfr_sgn(t.v) > 0 ? log10_abs(t.v, false) : kMinusInf;
    mpfr_max(rmax.v, rmax.v, r.v, MPFR_RNDU);
  }
  // The quantity's scale: max |true| >= max |value| - max radius, or its natural scale.
  mpfr_sub(vmax.v, vmax.v, rmax.v, MPFR_RNDD);
  double lscale = mpfr_sgn(vmax.v) > 0 ? log10_abs(vmax.v, false) : kMinusInf;
  if (!q.scale.empty() && is_decimal(q.scale)) {
    Fr s(bits);
    mpfr_set_str(s.v, q.scale.c_str(), 10, MPFR_RNDZ);
    if (!mpfr_zero_p(s.v)) lscale = std::max(lscale, log10_abs(s.v, false));
  }
  auto clamp = [cap](double d) { return static_cast<int>(std::max(0.0, std::min<double>(std::floor(d), cap))); };
  const double worst = log10_abs(rmax.v, true);
  p.digits = worst == kMinusInf ? cap : lscale > kMinusInf ? clamp(lscale - worst) : 0;
  p.entry_digits.assign(n, 0);
  const double lfloor = lscale - cap;
  for (size_t k = 0; k < n; ++k) {
    if (lrad[k] == kMinusInf) {
      p.entry_digits[k] = cap;
      continue;
    }
    const double lden = std::max(lval[k], lfloor);
    if (lden > kMinusInf) p.entry_digits[k] = clamp(lden - lrad[k]);
  }
  return p;
}

void apply_proven_digits(Evaluation& ev, const Proof& proof) {
  auto apply = [](std::vector<Quantity>& qs, const std::vector<ProvenQuantity>& ps) {
    for (const ProvenQuantity& p : ps)
      if (p.not_proven.empty())
        for (Quantity& q : qs)
          if (q.name == p.name) q.proven_digits = p.digits;
  };
  apply(ev.quantities, proof.quantities);
  apply(ev.loop_quantities, proof.loop_quantities);
  apply(ev.contact_quantities, proof.contact_quantities);
}

Proof prove(const Evaluation& ev, const ModelDesc& desc, const StateDesc& state) {
  // MPFR keeps constants (π, log 2) and sine tables in caches local to each thread, which a thread
  // that ends (fixture --prove's workers) would leave behind: freed when the proof returns.
  struct FreeThreadCaches {
    ~FreeThreadCaches() { mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE); }
  } free_caches;
  const auto t0 = std::chrono::steady_clock::now();
  Proof proof;
  proof.present = true;
  int digits = start_digits(ev, desc, ltdl_updates(model_layout(desc).dof_parent) > kFactorBudget);
  Enclosures enc;
  std::optional<Enclosures> prev;
  for (;;) {
    ++proof.attempts;
    {
      ScopedIntervalDigits g(static_cast<unsigned>(digits));
      enc = enclose(ev, desc, state, prev ? &*prev : nullptr);
    }
    proof.interval_digits = digits;
    // Every enclosure 100 times narrower than a unit of the working precision, or widen.
    double shortfall = 0;
    for (const auto& [name, w] : enc.log_width) {
      shortfall = std::max(shortfall, w + ev.cap + 2);
      if (w + ev.cap + 2 <= 0) enc.settled.insert(name);
    }
    enc.settled.insert(enc.decided.begin(), enc.decided.end());
    // An undecided branch widens too: by the guard digits again (the wrapping grows with the
    // depth, and the interval ABA's more than CRBA's or RNEA's), or to the digits it is expected
    // to need.
    if (enc.undecided)
      shortfall = std::max({shortfall, static_cast<double>(digits - ev.cap), static_cast<double>(enc.wanted_digits - digits - 10)});
    if (shortfall <= 0 || proof.attempts >= 4 || digits >= kMaxIntervalDigits) break;
    digits = std::min(kMaxIntervalDigits, digits + static_cast<int>(std::ceil(std::min(shortfall, 1e6))) + 10);
    prev = std::move(enc);
  }
  for (const Quantity& q : ev.quantities) {
    auto it = enc.proven.find(q.name);
    if (it != enc.proven.end()) {
      proof.quantities.push_back(std::move(it->second));
    } else {
      ProvenQuantity p;
      p.name = q.name;
      p.rows = q.rows;
      p.cols = q.cols;
      auto why = enc.why_not.find(q.name);
      p.not_proven = why != enc.why_not.end() ? why->second : "no enclosure of this quantity yet";
      proof.quantities.push_back(std::move(p));
    }
  }
  // A section's quantities (prefix "loops." or "contacts." in the enclosures' names): the proof of
  // each, or why there is none.
  auto section = [&enc](const std::vector<Quantity>& qs, const std::string& prefix, std::vector<ProvenQuantity>& out) {
    for (const Quantity& q : qs) {
      auto it = enc.proven.find(prefix + q.name);
      if (it != enc.proven.end()) {
        out.push_back(std::move(it->second));
        out.back().name = q.name;
        continue;
      }
      ProvenQuantity p;
      p.name = q.name;
      p.rows = q.rows;
      p.cols = q.cols;
      auto why = enc.why_not.find(prefix + q.name);
      p.not_proven = why != enc.why_not.end() ? why->second : "no enclosure of this quantity yet";
      out.push_back(std::move(p));
    }
  };
  section(ev.loop_quantities, "loops.", proof.loop_quantities);
  section(ev.contact_quantities, "contacts.", proof.contact_quantities);
  proof.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return proof;
}

}  // namespace rbd
