// Definitions of checks/loop_checks.hpp. Included only by the instantiation units.
#pragma once

#include "checks/loop_checks.hpp"
#include "checks/properties_impl.hpp"
#include "reference/tree/crba.hpp"
#include "reference/tree/integrate.hpp"
#include "reference/loops/active.hpp"
#include "reference/loops/constraints.hpp"
#include "reference/loops/fd_kkt.hpp"
#include "reference/loops/fd_lambda.hpp"
#include "reference/loops/fd_projection.hpp"
#include "reference/tree/rnea.hpp"

#include <Eigen/Eigenvalues>

namespace rbd {

template <class T>
std::vector<CheckResult> check_loops(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau,
                                     const std::vector<VecX<T>>& tau_loops) {
  using detail::max_abs;
  using detail::ratio;
  using std::abs;
  std::vector<CheckResult> out;
  const double k = default_k(model.nv);
  const LoopConstraints<T> lc = loop_constraints<T>(model, q, qd, LoopFrame::Local);
  const MatX<T> H = crba<T>(model, q);
  bool active = false;
  for (const VecX<T>& t : tau_loops) active = active || t.size() > 0;
  // C - τᵃ (table 8.3) when loop joints are active; the tree's C otherwise.
  const VecX<T> C = active ? bias_minus_active<T>(model, q, qd, tau_loops) : bias<T>(model, q, qd);
  const VecX<T> tp = tau - C;
  const VecX<T> rhs = lc.k + lc.k_stab;
  const LoopForwardDynamics<T> m1 = loop_fd_kkt<T>(H, tp, lc.K, rhs);
  const LoopForwardDynamics<T> m2 = loop_fd_lambda<T>(H, model.dof_parent, tp, lc.K, rhs);
  const LoopProjection<T> m3 = loop_fd_projection<T>(H, tp, lc.K, rhs);
  const MatX<T>& G = m3.ns.G;
  const T kmax = max_abs(lc.K);
  out.push_back(make_check("loops.K_G_zero", ratio<T>(max_abs(MatX<T>(lc.K * G)), T(kmax * max_abs(G))), tolerance<T>(k),
                           "max|K G| / (max|K| max|G|), G from Gaussian elimination with complete pivoting (§8.8)"));
  // k is a sum of velocity products (eq. 8.47), of size max|K| max|q̇|², and can be 0 exactly (a
  // parallelogram, a redundant spherical pair): its terms, not its value, set the scale.
  const T qdmax = max_abs(qd);
  out.push_back(make_check("loops.K_g_equals_k",
                           ratio<T>(max_abs(VecX<T>(lc.K * m3.ns.g - rhs)),
                                    T(kmax * max_abs(m3.ns.g) + max_abs(rhs) + kmax * qdmax * qdmax)),
                           tolerance<T>(k), "max|K g - k| / (max|K| max|g| + max|k| + max|K| max|q̇|²)"));
  // GᵀHG's eigenvalues, ascending: its definiteness here, its condition for methods_agree below.
  // (Eigen's solver refuses an empty matrix: mobility 0 leaves GᵀHG 0 x 0.)
  const VecX<T> ev = m3.GtHG.size() == 0 ? VecX<T>()
                                         : VecX<T>(Eigen::SelfAdjointEigenSolver<MatX<T>>(m3.GtHG, Eigen::EigenvaluesOnly).eigenvalues());
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
  // Each method's q̈ is a sum whose terms can be larger than q̈ itself, and K q̈ - k is then
  // rounding of the terms' size: method 1 solves for q̈ directly (scale max|q̈|); method 2 adds
  // q̈₀ = H⁻¹τ' and H⁻¹Kᵀλ (scale the larger of the two); method 3 adds G ÿ and g (scale
  // max|G| max|ÿ| + max|g|, ÿ = (q̈ - g) at the independent coordinates, bounded by max|q̈ - g|).
  // Method 2 also solves A λ = K q̈₀ - k with A = K H⁻¹ Kᵀ: its residual is rounding of A λ's
  // terms, max|A| max|λ| n^c, which can exceed max|K| max|H⁻¹Kᵀλ| when that product cancels.
  const auto Hf = H.ldlt();
  const VecX<T> qdd0 = Hf.solve(tp);
  const MatX<T> A = lc.K * Hf.solve(MatX<T>(lc.K.transpose()));
  // Method 1's COD is normwise backward stable on M = [H Kᵀ; K 0]: its residual is rounding of
  // ‖M‖ ‖(q̈, λ)‖, so s1 = max(|H|, |K|) max(|q̈|, |λ|) / |K|.
  const T hmax = max_abs(H) > kmax ? max_abs(H) : kmax;
  const T x1 = max_abs(m1.qdd) > max_abs(m1.lambda) ? max_abs(m1.qdd) : max_abs(m1.lambda);
  const T s1 = kmax > T(0) ? T(hmax * x1 / kmax) : x1;
  const T s2a = max_abs(qdd0) > max_abs(VecX<T>(m2.qdd - qdd0)) ? max_abs(qdd0) : max_abs(VecX<T>(m2.qdd - qdd0));
  const T s2 = kmax > T(0) ? T(s2a + max_abs(A) * max_abs(m2.lambda) * T(model.nc) / kmax) : s2a;
  const T s3 = max_abs(G) * max_abs(VecX<T>(m3.fd.qdd - m3.ns.g)) + max_abs(m3.ns.g);
  // Each method's q̈ against the constraints formed by the other route of table 8.4, in base
  // coordinates (the solves used the loop-local K, k): a q̈ that only satisfies its own solve's
  // equations, or a K of one route that is wrong, fails here. (K and k agree between the routes in
  // exact arithmetic; their rounding is of the terms' size, as the residuals' scales are.)
  const LoopConstraints<T> lb = loop_constraints<T>(model, q, qd, LoopFrame::Base);
  const VecX<T> rhs_b = lb.k + lb.k_stab;
  const T kmax_b = max_abs(lb.K);
  // The base route carries every motion to base coordinates, where a moment's terms grow with the
  // distance from the base origin and cancel: its rounding is that much larger (far_fourbar).
  T reach(1);
  {
    const TreeKinematics<T> kin0 = kinematics<T>(model, q, qd);
    for (int i = 0; i < model.NB; ++i) reach = std::max(reach, T(T(1) + kin0.X0[i].r.norm()));
  }
  T worst(0);
  std::string each;
  const std::pair<const VecX<T>*, T> methods[3] = {{&m1.qdd, s1}, {&m2.qdd, s2}, {&m3.fd.qdd, s3}};
  for (const auto& [qdd, sc] : methods) {
    const T r = ratio<T>(max_abs(VecX<T>(lb.K * *qdd - rhs_b)),
                         T(kmax_b * (sc > max_abs(*qdd) ? sc : max_abs(*qdd)) + max_abs(rhs_b) + max_abs(rhs)));
    each += (each.empty() ? "" : ", ") + to_decimal(r, 3);
    if (r > worst) worst = r;
  }
  out.push_back(make_check("loops.K_qdd_equals_k", worst, tolerance<T>(k) * static_cast<double>(reach),
                           "max over the three methods of max|K_b q̈ - k_b| / (max|K_b| s + max|k|), K_b, k_b by the base-coordinate "
                           "route of table 8.4 (the methods solved with the loop-local one), s the size of the terms the method "
                           "sums to q̈ (KKT: max(|H|, |K|) max(|q̈|, |λ|) / |K|; λ-first: max(|H⁻¹τ'|, |H⁻¹Kᵀλ|) + |A||λ| n^c / |K|, A = K H⁻¹ Kᵀ; projection: "
                           "|G||ÿ| + |g|); tolerance k ε (1 + the largest distance of a body from the base origin, model units, " +
                               to_decimal(reach, 3) + "); by method: " + each));
  // κ of the KKT matrix (below, loops.methods_agree): what separates two methods' answers.
  const T kkt_kappa = kkt_condition<T>(H, lc.K, m3.fd.rank);
  const double kappa_kkt = kkt_kappa > T(1) ? static_cast<double>(kkt_kappa) : 1.0;
  // The equation of motion with one method's q̈ and another's λ (KKT's q̈, λ-first's λ): each
  // method satisfies its own equations to its rounding, so only the pairing can fail.
  const VecX<T> tau_c = lc.K.transpose() * m2.lambda;
  const VecX<T> eom = H * m1.qdd + C - tau - tau_c;
  out.push_back(make_check("loops.equation_of_motion",
                           ratio<T>(max_abs(eom), T(max_abs(H) * std::max(max_abs(m1.qdd), max_abs(m2.qdd)) + max_abs(C) + max_abs(tau) +
                                                    max_abs(tau_c))),
                           tolerance<T>(k) * kappa_kkt,
                           "max|H q̈_KKT + C - τ - Kᵀλ_λ-first| / scale (eq. 8.34: the KKT method's q̈ with the λ-first method's "
                           "λ); tolerance k ε κ(KKT)"));
  // The constraint forces do no work on the motions the loops allow (eq. 8.35): τ_c taken from the
  // equation of motion with the λ-first method's q̈, τ - C - H q̈ (no λ), against G of the
  // projection method: Gᵀτ_c = 0. (Gᵀ Kᵀλ would be (KG)ᵀλ, the K G = 0 check again.)
  const VecX<T> tau_c_eom = tau - C - H * m2.qdd;
  out.push_back(make_check("loops.constraint_forces_no_work",
                           ratio<T>(max_abs(VecX<T>(G.transpose() * tau_c_eom)),
                                    T(max_abs(G) * (max_abs(tau) + max_abs(C) + max_abs(H) * max_abs(m2.qdd)) * T(model.nv))),
                           tolerance<T>(k) * kappa_kkt,
                           "max|Gᵀ (τ - C - H q̈)| / (max|G| (max|τ| + max|C| + max|H| max|q̈|) n), q̈ of the λ-first method, G of "
                           "the projection method (eq. 8.35); tolerance k ε κ(KKT)"));
  {
    // The three methods solve one system, the KKT matrix M = [H Kᵀ; K 0] of eq. 8.36, by three
    // backward-stable routes; their q̈ can differ by ~ε κ(M), κ(M) = max|μ| / min|μ| over M's
    // eigenvalues μ without the n^c - r that are zero for a rank-deficient K (M is symmetric, so
    // these are its nonzero singular values). κ(GᵀHG) alone is not a bound: method 2 goes through
    // H⁻¹ and K H⁻¹ Kᵀ, whose conditioning κ(M) includes.
    const T kappa = kkt_kappa > T(0) ? kkt_kappa : T(1);
    // Differences are relative to the accelerations of the problem: max|q̈|, or, when the
    // constraints hold q̈ at (or near) zero (a structure of mobility 0, a mechanism at rest in
    // balance), the acceleration scale the forces set, max|τ - C| / max|H|.
    T d(0);
    const VecX<T>* all[3] = {&m1.qdd, &m2.qdd, &m3.fd.qdd};
    const T force_scale = max_abs(tp) / max_abs(H);
    for (int a = 0; a < 3; ++a)
      for (int b = a + 1; b < 3; ++b) {
        const T r = ratio<T>(max_abs(VecX<T>(*all[a] - *all[b])), std::max(max_abs(*all[b]), force_scale));
        if (r > d) d = r;
      }
    out.push_back(make_check("loops.methods_agree", d, tolerance<T>(k) * static_cast<double>(kappa),
                             "max pairwise |q̈_a - q̈_b| / max(max|q̈|, max|τ - C| / max|H|) over KKT, λ-first and projection (§8.5); tolerance k ε κ(KKT), "
                             "κ = " + to_decimal(kappa, 4) + " (κ(GᵀHG) = " +
                                 to_decimal(T(ev.size() > 0 && ev(0) > T(0) ? T(ev(ev.size() - 1) / ev(0)) : T(1)), 4) + ")"));
  }
  const int disagreements = (m1.rank != m3.fd.rank) + (m2.rank != m3.fd.rank);
  out.push_back(make_check("loops.kkt_rank", T(disagreements), 0.0,
                           "rank(KKT) - n = " + std::to_string(m1.rank) + ", rank(K H⁻¹ Kᵀ) = " + std::to_string(m2.rank) +
                               ", rank K (§8.8) = " + std::to_string(m3.fd.rank) + " (must be equal)"));
  // Constraint forces do no work on the state's own velocity when it is consistent (K q̇ = 0):
  // q̇ᵀτ_c = (K q̇)ᵀλ, so |q̇ᵀτ_c| ≤ n^c max|K q̇| max|λ|. The scale is that of the sum's terms
  // before cancellation, n max|q̇| max|K| max|λ| (τ_c = Kᵀλ can itself be a cancelled sum); the
  // tolerance adds to k ε what the state's own velocity error explains, n^c max|K q̇| / (n max|q̇| max|K|).
  const T qn = max_abs(qd), ln = max_abs(m2.lambda), verr = max_abs(lc.vel_error);
  const bool consistent = verr <= T(10000) * epsilon<T>() * (kmax * qn + T(1));
  if (consistent) {
    const T scale = T(model.nv) * qn * kmax * ln;
    const double explained = static_cast<double>(ratio<T>(T(T(model.nc) * verr), T(T(model.nv) * qn * kmax)));
    out.push_back(make_check("loops.power_of_constraint_forces", ratio<T>(abs(T(qd.dot(tau_c))), scale),
                             tolerance<T>(k) + explained,
                             "|q̇ᵀ τ_c| / (n max|q̇| max|K| max|λ|): τ_c does no work on a consistent velocity; tolerance k ε + "
                             "n^c max|K q̇| / (n max|q̇| max|K|) (q̇ᵀτ_c = (K q̇)ᵀλ)"));
  }
  if (active) {
    // Power of the active forces through an independent route: the bodies' velocities give each
    // loop joint's v_J = X_S (v_s - ˢX_p v_p), and q̇_J = (SᵀS)⁻¹ Sᵀ v_J its joint rates.
    const TreeKinematics<T> kin = kinematics<T>(model, q, qd);
    const VecX<T> tau_a = bias<T>(model, q, qd) - C;
    T expected(0), scale(0);
    for (size_t l = 0; l < model.loops.size() && l < tau_loops.size(); ++l) {
      if (tau_loops[l].size() == 0) continue;
      const LoopJoint<T>& lj = model.loops[l];
      const Xform<T> X0s = lj.s < 0 ? Xform<T>() : kin.X0[lj.s], X0p = lj.p < 0 ? Xform<T>() : kin.X0[lj.p];
      const Motion<T> vs = lj.s < 0 ? Motion<T>() : kin.v[lj.s], vp = lj.p < 0 ? Motion<T>() : kin.v[lj.p];
      const Xform<T> sXp = X0s * X0p.inverse();
      const Motion<T> vJ = lj.XS.apply(Motion<T>(vs - sXp.apply(vp)));
      const VecX<T> qJ = loop_joint_coordinates<T>(lj.joint, Xform<T>(lj.XS * sXp * lj.XP.inverse()));
      std::vector<T> z(static_cast<size_t>(joint_nv(lj.joint.type)), T(0));
      const Mat6K<T> S = jcalc<T>(lj.joint, qJ.data(), z.data()).S;
      const VecX<T> qdJ = MatX<T>(S.transpose() * S).ldlt().solve(VecX<T>(S.transpose() * vJ.c));
      expected += tau_loops[l].dot(qdJ);
      scale += tau_loops[l].cwiseAbs().dot(qdJ.cwiseAbs());
    }
    const T power = qd.dot(tau_a);
    scale += qd.cwiseAbs().dot(tau_a.cwiseAbs());
    out.push_back(make_check("loops.active_power", ratio<T>(abs(T(power - expected)), scale), tolerance<T>(k),
                             "|q̇ᵀτᵃ - Σ τ_kᵀ q̇_J,k| / (|q̇|ᵀ|τᵃ| + Σ |τ_k|ᵀ|q̇_J,k|): τᵃ by table 8.3, q̇_J from the bodies' velocities"));
  }
  return out;
}

template <class T>
CheckResult check_baumgarte_decay(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau,
                                  const T& T_stab, const T& perturbation) {
  using detail::max_abs;
  using std::exp;
  using std::sin;
  const T alpha = T(1) / T_stab, beta = alpha;
  // q̈ of the stabilized system (K q̈ = k + k_stab, KKT method) at (q, v).
  auto qdd = [&](const VecX<T>& qq, const VecX<T>& v) {
    const LoopConstraints<T> lc = loop_constraints<T>(model, qq, v, LoopFrame::Local, alpha, beta);
    return loop_fd_kkt<T>(crba<T>(model, qq), VecX<T>(tau - bias<T>(model, qq, v)), lc.K, VecX<T>(lc.k + lc.k_stab)).qdd;
  };
  auto delta_of = [&](const VecX<T>& qq, const VecX<T>& v, VecX<T>* ddot) {
    const LoopConstraints<T> lc = loop_constraints<T>(model, qq, v, LoopFrame::Local);
    if (ddot) *ddot = lc.vel_error;
    return lc.delta;
  };
  VecX<T> w(model.nv);
  for (int j = 0; j < model.nv; ++j) w(j) = sin(T(j + 1));  // a fixed direction, no zero entries
  w /= w.norm();
  VecX<T> x = integrate_q<T>(model, q, w, perturbation), v = qd;
  const T motion = max_abs(VecX<T>(qdd(x, v))) * T(9) * T_stab * T_stab + T(3) * T_stab * max_abs(qd);
  VecX<T> d0dot;
  const VecX<T> d0 = delta_of(x, v, &d0dot);
  const T scale = max_abs(d0) + T_stab * max_abs(d0dot);
  // RK4's error over 3 T_stab at h = T_stab/20 is ~1e-7 of δ₀ on this e^{-αt} (local (αh)⁵/120 per
  // step), four orders below the tolerance; a smaller h costs time for nothing (docs/build.md,
  // "Log").
  const int steps_per_T = 20;
  const T h = T_stab / T(steps_per_T);
  T worst(0);
  VecX<T> last = d0;
  for (int n = 1; n <= 3 * steps_per_T; ++n) {
    // RK4 on (q, v): stage positions by the joint flow from the step's start.
    const VecX<T> a1 = qdd(x, v);
    const VecX<T> v2 = v + h / T(2) * a1;
    const VecX<T> a2 = qdd(integrate_q<T>(model, x, v, h / T(2)), v2);
    const VecX<T> v3 = v + h / T(2) * a2;
    const VecX<T> a3 = qdd(integrate_q<T>(model, x, v2, h / T(2)), v3);
    const VecX<T> v4 = v + h * a3;
    const VecX<T> a4 = qdd(integrate_q<T>(model, x, v3, h), v4);
    x = integrate_q<T>(model, x, VecX<T>((v + T(2) * v2 + T(2) * v3 + v4) / T(6)), h);
    v = v + h / T(6) * (a1 + T(2) * a2 + T(2) * a3 + a4);
    if (n % steps_per_T == 0) {
      const T t = h * T(n);
      const VecX<T> pred = (d0 + (d0dot + alpha * d0) * t) * exp(-alpha * t);
      last = delta_of(x, v, nullptr);
      const T e = max_abs(VecX<T>(last - pred)) / scale;
      if (e > worst) worst = e;
    }
  }
  return make_check("loops.baumgarte_decay", worst, 1e-3 + static_cast<double>(motion),
                    "max|δ(t) - (δ₀ + (δ̇₀ + α δ₀) t) e^{-αt}| / (max|δ₀| + T_stab max|δ̇₀|) at t = 1, 2, 3 T_stab; tolerance 1e-3 + motion "
                    "(T_stab = " + to_decimal(T_stab, 3) + " s, α = β = 1/T_stab, RK4 h = T_stab/20); the mechanism's own motion in "
                    "3 T_stab, max|q̇₀| 3T_stab + max|q̈₀| (3T_stab)², is " + to_decimal(motion, 3) + "; |δ₀| = " +
                        to_decimal(max_abs(d0), 3) + ", |δ(3 T_stab)| = " + to_decimal(max_abs(last), 3));
}

}  // namespace rbd
