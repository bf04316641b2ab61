// Definitions of checks/loop_checks.hpp. Included only by the instantiation units.
#pragma once

#include "checks/loop_checks.hpp"
#include "checks/properties_impl.hpp"
#include "reference/crba.hpp"
#include "reference/loop_constraints.hpp"
#include "reference/loop_fd_kkt.hpp"
#include "reference/loop_fd_lambda.hpp"
#include "reference/loop_fd_projection.hpp"
#include "reference/rnea.hpp"

#include <Eigen/Eigenvalues>

namespace rbd {

template <class T>
std::vector<CheckResult> check_loops(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau) {
  using detail::max_abs;
  using detail::ratio;
  using std::abs;
  std::vector<CheckResult> out;
  const double k = default_k(model.nv);
  const LoopConstraints<T> lc = loop_constraints<T>(model, q, qd, LoopFrame::Local);
  const MatX<T> H = crba<T>(model, q);
  const VecX<T> C = bias<T>(model, q, qd);
  const VecX<T> tp = tau - C;
  const VecX<T> rhs = lc.k + lc.k_stab;
  const LoopForwardDynamics<T> m1 = loop_fd_kkt<T>(H, tp, lc.K, rhs);
  const LoopForwardDynamics<T> m2 = loop_fd_lambda<T>(H, model.dof_parent, tp, lc.K, rhs);
  const LoopProjection<T> m3 = loop_fd_projection<T>(H, tp, lc.K, rhs);
  const MatX<T>& G = m3.ns.G;
  const T kmax = max_abs(lc.K);
  out.push_back(make_check("loops.K_G_zero", ratio<T>(max_abs(MatX<T>(lc.K * G)), T(kmax * max_abs(G))), tolerance<T>(k),
                           "max|K G| / (max|K| max|G|), G from Gaussian elimination with complete pivoting (§8.8)"));
  out.push_back(make_check("loops.K_g_equals_k",
                           ratio<T>(max_abs(VecX<T>(lc.K * m3.ns.g - rhs)), T(kmax * max_abs(m3.ns.g) + max_abs(rhs))),
                           tolerance<T>(k), "max|K g - k| / (max|K| max|g| + max|k|)"));
  // GᵀHG's eigenvalues, ascending: its definiteness here, its condition for methods_agree below.
  const VecX<T> ev = Eigen::SelfAdjointEigenSolver<MatX<T>>(m3.GtHG, Eigen::EigenvaluesOnly).eigenvalues();
  const bool pd = ev.size() == 0 || ev(0) > T(0);
  out.push_back(make_check("loops.GtHG_positive_definite", pd ? T(0) : T(1), 0.0,
                           ev.size() == 0 ? std::string("GᵀHG is empty (mobility 0)")
                                          : "smallest eigenvalue " + to_decimal(T(ev(0)), 6) + ", largest " +
                                                to_decimal(T(ev(ev.size() - 1)), 6)));
  if (!m1.ok || !m2.ok || !m3.fd.ok) {
    out.push_back(make_check("loops.forward_dynamics", T(1), 0.0,
                             "a method failed: " + (!m1.ok ? m1.message : !m2.ok ? m2.message : m3.fd.message)));
    return out;
  }
  T worst(0);
  for (const VecX<T>* qdd : {&m1.qdd, &m2.qdd, &m3.fd.qdd}) {
    const T r = ratio<T>(max_abs(VecX<T>(lc.K * *qdd - rhs)), T(kmax * max_abs(*qdd) + max_abs(rhs)));
    if (r > worst) worst = r;
  }
  out.push_back(make_check("loops.K_qdd_equals_k", worst, tolerance<T>(k),
                           "max over the three methods of max|K q̈ - k| / (max|K| max|q̈| + max|k|)"));
  const VecX<T> tau_c = lc.K.transpose() * m2.lambda;
  const VecX<T> eom = H * m2.qdd + C - tau - tau_c;
  out.push_back(make_check("loops.equation_of_motion",
                           ratio<T>(max_abs(eom), T(max_abs(H) * max_abs(m2.qdd) + max_abs(C) + max_abs(tau) + max_abs(tau_c))),
                           tolerance<T>(k), "max|H q̈ + C - τ - Kᵀλ| / scale (eq. 8.34, λ-first method)"));
  out.push_back(make_check("loops.constraint_forces_no_work",
                           ratio<T>(max_abs(VecX<T>(G.transpose() * tau_c)), T(max_abs(G) * max_abs(tau_c) * T(model.nv))),
                           tolerance<T>(k), "max|Gᵀ τ_c| / (max|G| max|τ_c| n), τ_c = Kᵀλ"));
  {
    const T kappa = ev.size() > 0 && ev(0) > T(0) ? T(ev(ev.size() - 1) / ev(0)) : T(1);
    T d(0);
    const VecX<T>* all[3] = {&m1.qdd, &m2.qdd, &m3.fd.qdd};
    for (int a = 0; a < 3; ++a)
      for (int b = a + 1; b < 3; ++b) {
        const T r = ratio<T>(max_abs(VecX<T>(*all[a] - *all[b])), max_abs(*all[b]));
        if (r > d) d = r;
      }
    out.push_back(make_check("loops.methods_agree", d, tolerance<T>(k) * static_cast<double>(kappa),
                             "max pairwise |q̈_a - q̈_b| / max|q̈| over KKT, λ-first and projection (§8.5); tolerance k ε κ(GᵀHG), "
                             "κ = " + to_decimal(kappa, 4)));
  }
  const int disagreements = (m1.rank != m3.fd.rank) + (m2.rank != m3.fd.rank);
  out.push_back(make_check("loops.kkt_rank", T(disagreements), 0.0,
                           "rank(KKT) - n = " + std::to_string(m1.rank) + ", rank(K H⁻¹ Kᵀ) = " + std::to_string(m2.rank) +
                               ", rank K (§8.8) = " + std::to_string(m3.fd.rank) + " (must be equal)"));
  // Constraint forces do no work on the state's own velocity when it is consistent (K q̇ = 0).
  const T qn = max_abs(qd), tn = max_abs(tau_c);
  const bool consistent = max_abs(lc.vel_error) <= T(10000) * epsilon<T>() * (kmax * qn + T(1));
  if (consistent) {
    out.push_back(make_check("loops.power_of_constraint_forces", ratio<T>(abs(T(qd.dot(tau_c))), T(qn * tn * T(model.nv))),
                             tolerance<T>(k), "|q̇ᵀ τ_c| / (max|q̇| max|τ_c| n): τ_c does no work on a consistent velocity"));
  }
  return out;
}

}  // namespace rbd
