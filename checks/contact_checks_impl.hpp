// Definitions of checks/contact_checks.hpp. Included only by the instantiation units.
#pragma once

#include "checks/contact_checks.hpp"
#include "checks/properties_impl.hpp"
#include "reference/contact_dynamics.hpp"
#include "reference/crba.hpp"
#include "reference/rnea.hpp"

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
std::vector<CheckResult> check_contacts(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau) {
  using detail::max_abs;
  std::vector<CheckResult> out;
  const double k = default_k(model.nv + static_cast<Eigen::Index>(model.contacts.size()));
  const ContactDynamics<T> r = contact_dynamics<T>(model, q, qd, tau);
  out.push_back(make_check("contacts.zeta_is_T_qd",
                           detail::ratio<T>(max_abs(VecX<T>(r.ck.zeta - r.ck.Tn.transpose() * qd)), T(max_abs(r.ck.Tn) * max_abs(qd))),
                           tolerance<T>(k), "max|ζ - Tᵀq̇| / (max|T| max|q̇|): ζ from the contact points' velocities, T from the joints (eq. 11.28)"));
  if (!r.ok) {
    out.push_back(make_check("contacts.lcp", T(1), 0.0, r.message));
    return out;
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
    const VecX<T> res = H * r.qdd + C - tau - r.tau_c;
    const T scale = max_abs(H) * max_abs(r.qdd) + max_abs(C) + max_abs(tau) + max_abs(r.tau_c);
    out.push_back(make_check("contacts.equation_of_motion", detail::ratio<T>(max_abs(res), scale), tolerance<T>(k),
                             "max|H q̈ + C - τ - Tλ| / (max|H| max|q̈| + max|C| + max|τ| + max|Tλ|) (eq. 11.41)"));
    const std::vector<CheckResult> lc = check_lcp_solution<T>(r.M, r.d, r.lcp.lambda, r.lcp.zeta_dot, k);
    out.insert(out.end(), lc.begin(), lc.end());
  } else if (r.lcp.status == LcpResult<T>::NoSolution) {
    out.push_back(check_lcp_certificate<T>(r.M, r.d, r.lcp.certificate, k));
  } else {
    out.push_back(make_check("contacts.lcp", T(1), 0.0, "the LCP solver failed: " + r.lcp.message));
  }
  return out;
}

}  // namespace rbd
