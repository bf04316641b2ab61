// Definitions of checks/contact_checks.hpp. Included only by the instantiation units.
#pragma once

#include "checks/contact_checks.hpp"
#include "checks/properties_impl.hpp"
#include "reference/contact/dynamics.hpp"
#include "reference/contact/impulse.hpp"
#include "reference/tree/aba.hpp"
#include "reference/tree/crba.hpp"
#include "reference/tree/rnea.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>

namespace rbd {

template <class T>
std::vector<CheckResult> check_lcp_solution(const MatX<T>& M, const VecX<T>& d, const VecX<T>& lambda, const VecX<T>& zeta_dot,
                                            double k) {
  using detail::max_abs;
  std::vector<CheckResult> out;
  const T sl = max_abs(lambda) > T(0) ? max_abs(lambda) : T(1);
  T sz = max_abs(M) * sl + max_abs(d);
  if (!(sz > T(0))) sz = T(1);
  T r(0);
  if (lambda.size() > 0) {
    r = std::max(r, T(-lambda.minCoeff() / sl));
    r = std::max(r, T(-zeta_dot.minCoeff() / sz));
    r = std::max(r, T(lambda.cwiseProduct(zeta_dot).cwiseAbs().maxCoeff() / (sl * sz)));
  }
  out.push_back(make_check("contacts.complementarity", r, tolerance<T>(k),
                           "max(-min λ / max|λ|, -min ζ̇ / s, max|λ_i ζ̇_i| / (max|λ| s)), s = max|M| max|λ| + max|d| (eq. 11.42)"));
  out.push_back(make_check("contacts.zeta_dot_equation", detail::ratio<T>(max_abs(VecX<T>(M * lambda + d - zeta_dot)), sz),
                           tolerance<T>(k), "max|Mλ + d - ζ̇| / (max|M| max|λ| + max|d|) (eq. 11.34)"));
  return out;
}

template <class T>
CheckResult check_lcp_certificate(const MatX<T>& M, const VecX<T>& d, const VecX<T>& y, double k) {
  using detail::max_abs;
  T r(0);
  const T ymax = max_abs(y);
  std::string detail = "y ≥ 0, My = 0, dᵀy < 0 (Farkas: no λ ≥ 0 has Mλ + d ≥ 0): max(-min y, max|My| / max|M|) with max y = 1";
  if (!(ymax > T(0))) {
    r = T(1);
    detail += "; y = 0 proves nothing";
  } else {
    const VecX<T> yn = y / ymax;
    r = std::max(r, T(-yn.minCoeff()));
    r = std::max(r, detail::ratio<T>(max_abs(VecX<T>(M * yn)), max_abs(M)));
    const T dy = d.dot(yn);
    detail += "; dᵀy = " + to_decimal(dy, 3);
    if (!(dy < T(0))) r = T(1);
  }
  return make_check("contacts.no_solution_certificate", r, tolerance<T>(k), detail);
}

template <class T>
std::vector<CheckResult> check_contacts(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau,
                                        const std::vector<bool>& given_z, const VecX<T>& z, const VecX<T>& x) {
  using detail::max_abs;
  using std::abs;
  std::vector<CheckResult> out;
  const double k = default_k(model.nv + static_cast<Eigen::Index>(model.contacts.size()));
  // The forward problem eval states (the LCP over the contacts in case 3, dynamics.hpp).
  const ContactDynamics<T> r = contact_dynamics<T>(model, q, qd, tau, given_z, z, x, ContactSet::Current);
  out.push_back(make_check("contacts.zeta_is_T_qd",
                           detail::ratio<T>(max_abs(VecX<T>(r.ck.zeta - r.ck.Tn.transpose() * qd)), T(max_abs(r.ck.Tn) * max_abs(qd))),
                           tolerance<T>(k), "max|ζ - Tᵀq̇| / (max|T| max|q̇|): ζ from the contact points' velocities, T from the joints (eq. 11.28)"));
  if (!r.ok) {
    out.push_back(make_check("contacts.lcp", T(1), 0.0, r.message));
    return out;
  }
  if (!r.posed) return out;  // a colliding or penetrating contact: no forward LCP to check (eval says why)
  if (!r.soft.contacts.empty()) {
    T fmax(0), cone(0), vs(0), follow(0), zs(0), wneg(0), wdiff(0), wscale(0);
    bool rule = true;
    for (const SoftContactState<T>& s : r.soft.contacts) {
      const Contact<T>& c = model.contacts[s.contact];
      fmax = std::max(fmax, s.fn);
      if (c.has_friction) {
        cone = std::max(cone, T(s.ft.norm() - c.mu * s.fn));
        rule = rule && (s.sticking == (s.f_stick.norm() <= c.mu * s.fn));
      }
      vs = std::max(vs, T(s.v.norm() + s.xdot.norm()));
      if (s.sticking) follow = std::max(follow, T((s.xdot - s.v).norm()));
      zs = std::max(zs, T(abs(s.pdot) + abs(s.zdot)));
      const T closed = c.D * s.zdot * s.zdot + c.Dt * s.xdot.squaredNorm() + s.ft.dot(Vec3<T>(s.xdot - s.v));
      wneg = std::max(wneg, T(-s.dissipation));
      wdiff = std::max(wdiff, T(abs(T(s.dissipation - closed))));
      wscale = std::max(wscale, T(abs(s.power) + abs(s.spring_rate) + abs(closed)));
    }
    out.push_back(make_check("soft.friction_cone", detail::ratio<T>(T(cone > T(0) ? cone : T(0)), fmax), tolerance<T>(k),
                             "max(0, |f_t| - μ f_n) / max f_n (eq. 11.79: f_t inside the friction cone)"));
    out.push_back(make_check("soft.stick_slip_rule", rule ? detail::ratio<T>(follow, vs) : T(1), tolerance<T>(k),
                             "sticking iff |f_stick| ≤ μ f_n (eq. 11.79; 1 if violated), and sticking ⇒ |ẋ - v| / (max|v| + max|ẋ|)"));
    T zf(0);
    for (const SoftContactState<T>& s : r.soft.contacts)
      if (s.touching && s.fn > T(0)) zf = std::max(zf, T(abs(T(s.zdot - s.pdot))));
    out.push_back(make_check("soft.surface_follows", detail::ratio<T>(zf, zs), tolerance<T>(k),
                             "touching with f_n > 0 ⇒ |ż - ṗ| / (max|ṗ| + max|ż|) (eqs. 11.73-11.74: the surface moves with the body)"));
    out.push_back(make_check("soft.dissipation", detail::ratio<T>(std::max(wneg, wdiff), wscale), tolerance<T>(k),
                             "W = -(P + Ė) ≥ 0 and W = D ż² + D_t|ẋ|² + f_tᵀ(ẋ - v): max(-min W, |W - that|) / scale"));
  }
  T emin(0);
  if (r.M.size() > 0) {
    Eigen::SelfAdjointEigenSolver<MatX<T>> es(r.M, Eigen::EigenvaluesOnly);
    emin = es.eigenvalues()(0);
  }
  out.push_back(make_check("contacts.M_positive_semidefinite", detail::ratio<T>(T(emin < T(0) ? T(-emin) : T(0)), max_abs(r.M)),
                           tolerance<T>(k), "-min eig(M) / max|M|, M = TᵀH⁻¹T (eq. 11.35; smallest eigenvalue " + to_decimal(emin, 3) + ")"));
  if (r.lcp.status == LcpResult<T>::Solved) {
    const MatX<T> H = crba<T>(model, q);
    const VecX<T> C = bias<T>(model, q, qd);
    const VecX<T> res = H * r.qdd + C - tau - r.tau_c - r.soft.tau_soft;
    const T scale = max_abs(H) * max_abs(r.qdd) + max_abs(C) + max_abs(tau) + max_abs(r.tau_c) + max_abs(r.soft.tau_soft);
    out.push_back(make_check("contacts.equation_of_motion", detail::ratio<T>(max_abs(res), scale), tolerance<T>(k),
                             "max|H q̈ + C - τ - Tλ - τ_soft| / (max|H| max|q̈| + max|C| + max|τ| + max|Tλ| + max|τ_soft|) (eq. 11.41)"));
    // Complementarity on the accelerations the solution produces, ζ̇ = Tᵀq̈ + Ṫᵀq̇ (eq. 11.32), not
    // on Lemke's own ζ̇ (exactly 0 on its basis by assignment).
    const int nr = static_cast<int>(r.rigid.size());
    VecX<T> zeta_dot(nr);
    for (int a = 0; a < nr; ++a) zeta_dot(a) = r.T_rigid.col(a).dot(r.qdd) + r.ck.Tdot_qd(r.rigid[a]);
    const std::vector<CheckResult> lc = check_lcp_solution<T>(r.M, r.d, r.lcp.lambda, zeta_dot, k);
    out.insert(out.end(), lc.begin(), lc.end());
  } else if (r.lcp.status == LcpResult<T>::NoSolution) {
    out.push_back(check_lcp_certificate<T>(r.M, r.d, r.lcp.certificate, k));
  } else {
    out.push_back(make_check("contacts.lcp", T(1), 0.0, "the LCP solver failed: " + r.lcp.message));
  }
  return out;
}

template <class T>
std::vector<CheckResult> check_impact(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd) {
  using detail::max_abs;
  using std::abs;
  std::vector<CheckResult> out;
  const int nc = static_cast<int>(model.contacts.size());
  const double k = default_k(model.nv + static_cast<Eigen::Index>(3 * nc));
  const ContactImpact<T> r = contact_impact<T>(model, q, qd);
  if (!r.ok) {
    out.push_back(make_check("impact.solved", T(1), 0.0, r.message));
    return out;
  }
  const MatX<T> H = crba<T>(model, q);
  // Δq̇ = H⁻¹u by another route than the impulse's (an LᵀDL of CRBA's H): articulated bodies, ABA
  // at q̇ = 0 without gravity and with u as the joint force. A forward error: k ε κ(H).
  {
    Model<T> unloaded = model;
    unloaded.gravity = Vec3<T>::Zero();
    const AbaResult<T> fa = aba<T>(unloaded, q, VecX<T>::Zero(model.nv), r.u);
    const T kH = condition_number<T>(H);
    const double kappa = is_finite(kH) ? static_cast<double>(kH) : 1.0;
    out.push_back(make_check("impact.momentum_balance",
                             fa.ok ? detail::ratio<T>(max_abs(VecX<T>(fa.qdd - r.dqd)), T(max_abs(fa.qdd) + max_abs(r.dqd))) : T(1),
                             tolerance<T>(k) * kappa,
                             "max|Δq̇ - ABA(q, 0, u)| / (max|Δq̇| + max|ABA|): H Δq̇ = u (eqs. 11.57-11.58, u = Tλ) checked "
                             "through articulated bodies at q̇ = 0 without gravity, not the impulse's LᵀDL; tolerance k ε κ(H)"));
  }
  const T zs = std::max(max_abs(r.zeta_minus), max_abs(r.tangential_minus));
  T res(0);
  const int nr = static_cast<int>(r.rigid.size());
  for (int a = 0, j = 0; a < nr; ++a) {
    const int i = r.rigid[a];
    const Contact<T>& c = model.contacts[i];
    const bool sticking = r.frictional && c.has_friction;
    const T ln = r.frictional ? r.lambda(j + (sticking ? 2 : 0)) : r.lambda(a);
    if (r.frictional) j += sticking ? 3 : 1;
    if (!(ln > T(0)) && !sticking) continue;
    // Colliding (ζ⁻ < 0): ζ⁺ = -e ζ⁻; separating or resting and stopped by the others: ζ⁺ = 0.
    const T target = r.zeta_minus(i) < T(0) || sticking ? T(-c.e * r.zeta_minus(i)) : T(0);
    res = std::max(res, T(abs(T(r.zeta_plus(i) - target))));
    if (sticking) {
      res = std::max(res, T(abs(r.tangential_plus(2 * i))));
      res = std::max(res, T(abs(r.tangential_plus(2 * i + 1))));
    }
  }
  out.push_back(make_check("impact.restitution", detail::ratio<T>(res, zs), tolerance<T>(k),
                           "max over contacts receiving an impulse of |ζ⁺ + e ζ⁻| where colliding (ζ⁻ < 0) or sticking, |ζ⁺| "
                           "where separating (and |ζ_x⁺|, |ζ_y⁺| where sticking) / max|ζ⁻| (eqs. 11.64, 11.71, §11.7)"));
  if (!r.frictional) {
    // Complementarity on the velocities the impulse produced, w_i = ζ_i⁺ + e_i min(ζ_i⁻, 0) with
    // ζ⁺ = Tᵀq̇⁺ (not Lemke's own w), M = TᵀH⁻¹T and d formed here from T, H and ζ⁻.
    MatX<T> TR(model.nv, nr);
    for (int a = 0; a < nr; ++a) TR.col(a) = r.ck.Tn.col(r.rigid[a]);
    const MatX<T> M = nr > 0 ? MatX<T>(TR.transpose() * H.ldlt().solve(TR)) : MatX<T>(0, 0);
    VecX<T> d(nr), w(nr);
    for (int a = 0; a < nr; ++a) {
      const int i = r.rigid[a];
      const T rest = r.zeta_minus(i) < T(0) ? T(model.contacts[i].e * r.zeta_minus(i)) : T(0);
      d(a) = r.zeta_minus(i) + rest;
      w(a) = r.zeta_plus(i) + rest;
    }
    std::vector<CheckResult> lc = check_lcp_solution<T>(M, d, r.lambda, w, k);
    for (CheckResult& c : lc) c.name = "impact." + c.name.substr(std::string("contacts.").size());
    out.insert(out.end(), lc.begin(), lc.end());
    // The kinetic energy (ΔT = ½ Σ (1 - e_i) λ_i ζ_i⁻ over colliding contacts + ½ Σ λ_i ζ_i⁻ over
    // separating ones, impulse.hpp) cannot increase, and is kept at e = 1, when no separating contact
    // takes an impulse; one that does adds energy, and neither statement is made.
    bool separating_stopped = false, all_elastic = true;
    for (int a = 0; a < nr; ++a) {
      const int i = r.rigid[a];
      if (!(r.lambda(a) > T(0))) continue;
      separating_stopped = separating_stopped || r.zeta_minus(i) > T(0);
      all_elastic = all_elastic && model.contacts[i].e == T(1);
    }
    const T dT = r.kinetic_plus - r.kinetic_minus;
    const T Ts = r.kinetic_minus > T(0) ? r.kinetic_minus : T(1);
    if (!separating_stopped)
      out.push_back(make_check("impact.kinetic_energy_does_not_increase", T((dT > T(0) ? dT : T(0)) / Ts), tolerance<T>(k),
                               "max(0, T⁺ - T⁻) / T⁻ (e ≤ 1 and no separating contact takes an impulse: ΔT = ½ Σ (1 - e_i) "
                               "λ_i ζ_i⁻ ≤ 0); ΔT = " + to_decimal(dT, 3)));
    if (!separating_stopped && all_elastic)
      out.push_back(make_check("impact.kinetic_energy_conserved", T(abs(dT) / Ts), tolerance<T>(k),
                               "|T⁺ - T⁻| / T⁻ (e = 1 at every contact taking an impulse, none of them separating)"));
  }
  return out;
}

}  // namespace rbd
