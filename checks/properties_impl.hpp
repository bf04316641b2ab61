// Definitions of the property checks declared in properties.hpp. Included only by the
// instantiation units checks/instantiate_*.cpp.
#pragma once

#include "checks/contact_checks.hpp"
#include "checks/loop_checks.hpp"
#include "checks/properties.hpp"

#include <Eigen/Eigenvalues>

#include <cstdio>

namespace rbd {

namespace detail {

template <class Derived>
typename Derived::Scalar max_abs(const Eigen::MatrixBase<Derived>& x) {
  using S = typename Derived::Scalar;
  return x.size() == 0 ? S(0) : S(x.cwiseAbs().maxCoeff());
}
// Induced ∞-norm: the largest row sum of |A|.
template <class T>
T inf_norm(const MatX<T>& A) {
  return A.size() == 0 ? T(0) : T(A.cwiseAbs().rowwise().sum().maxCoeff());
}
// a / b, with 0 / 0 = 0 (both sides of an identity exactly zero).
template <class T>
T ratio(const T& a, const T& b) {
  if (a == T(0)) return T(0);
  return a / b;
}
}  // namespace detail

template <class T>
CheckResult check_symmetric(const MatX<T>& H, double k) {
  using detail::max_abs;
  const T r = detail::ratio<T>(max_abs(MatX<T>(H - H.transpose())), max_abs(H));
  return make_check("H.symmetric", r, tolerance<T>(k), "max|H - Hᵀ| / max|H|");
}

template <class T>
CheckResult check_positive_definite(const MatX<T>& H) {
  using std::abs;
  CheckResult r;
  r.name = "H.positive_definite";
  if (H.size() == 0) return make_check(r.name, T(0), 0.0, "empty matrix");
  // Eigenvalues of the symmetric part, computed in T: the raw asymmetry is check_symmetric's.
  const MatX<T> Hs = (H + H.transpose()) / T(2);
  Eigen::SelfAdjointEigenSolver<MatX<T>> es(Hs, Eigen::EigenvaluesOnly);
  const T lmin = es.eigenvalues()(0), lmax = es.eigenvalues()(H.rows() - 1);
  const T scale = abs(lmax) > abs(lmin) ? abs(lmax) : abs(lmin);
  const T res = lmin > T(0) ? T(0) : (scale > T(0) ? T(-lmin / scale) : T(1));
  r = make_check(r.name, res, 0.0,
                 "smallest eigenvalue " + to_decimal(lmin, 6) + ", largest " + to_decimal(lmax, 6) +
                     (lmin > T(0) ? ", condition number " + to_decimal(T(lmax / lmin), 4) : ""));
  r.passed = lmin > T(0);
  return r;
}

template <class T>
T condition_number(const MatX<T>& H) {
  if (H.size() == 0) return T(1);
  Eigen::SelfAdjointEigenSolver<MatX<T>> es(MatX<T>((H + H.transpose()) / T(2)), Eigen::EigenvaluesOnly);
  const T lmin = es.eigenvalues()(0), lmax = es.eigenvalues()(H.rows() - 1);
  if (!(lmin > T(0))) return std::numeric_limits<T>::infinity();
  return lmax / lmin;
}

namespace detail {
// H from inverse dynamics, column by column: H(:, j) = RNEA(q, 0, e_j) - RNEA(q, 0, 0) with g = 0.
template <class T>
MatX<T> inertia_from_rnea(const Model<T>& model, const VecX<T>& q) {
  Model<T> m0 = model;
  m0.gravity.setZero();
  const VecX<T> zero = VecX<T>::Zero(model.nv);
  const VecX<T> C0 = rnea<T>(m0, q, zero, zero);  // exactly 0 without gravity and velocity
  MatX<T> Hr(model.nv, model.nv);
  for (int j = 0; j < model.nv; ++j) Hr.col(j) = rnea<T>(m0, q, zero, VecX<T>(VecX<T>::Unit(model.nv, j))) - C0;
  return Hr;
}
}  // namespace detail

template <class T>
CheckResult check_rnea_H_symmetric(const Model<T>& model, const VecX<T>& q, double k) {
  using detail::max_abs;
  const MatX<T> Hr = detail::inertia_from_rnea<T>(model, q);
  const T r = detail::ratio<T>(max_abs(MatX<T>(Hr - Hr.transpose())), max_abs(Hr));
  return make_check("rnea.H_symmetric", r, tolerance<T>(k),
                    "max|H_r - H_rᵀ| / max|H_r|, H_r(:, j) = RNEA(q, 0, e_j) - RNEA(q, 0, 0) with g = 0");
}

template <class T>
CheckResult check_crba_rnea_columns(const Model<T>& model, const VecX<T>& q, double k) {
  using detail::max_abs;
  const MatX<T> H = crba<T>(model, q);
  const MatX<T> Hr = detail::inertia_from_rnea<T>(model, q);
  const T r = detail::ratio<T>(max_abs(MatX<T>(H - Hr)), max_abs(H));
  return make_check("crba.columns_equal_rnea_differences", r, tolerance<T>(k),
                    "max|H_crba - H_rnea| / max|H|, H_rnea(:, j) = RNEA(q, 0, e_j) - RNEA(q, 0, 0) with g = 0");
}

namespace detail {
// Scale of a joint acceleration error: |qdd| plus the acceleration the bias forces alone cause,
// |H⁻¹ C| (so that qdd = 0 under gravity still has a scale: the error then comes from C).
template <class T>
T qdd_scale(const SparseFactor<T>& f, const VecX<T>& qdd, const VecX<T>& C) {
  return max_abs(qdd) + max_abs(ltdl_solve<T>(f, C));
}
}  // namespace detail

template <class T>
CheckResult check_fd_inverts_id(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& qdd,
                                double k) {
  using detail::max_abs;
  const VecX<T> tau = rnea<T>(model, q, qd, qdd);
  const AbaResult<T> fd = aba<T>(model, q, qd, tau);
  const MatX<T> H = crba<T>(model, q);
  const T kappa = condition_number<T>(H);
  const SparseFactor<T> f = ltdl<T>(H, model.dof_parent);
  if (!fd.ok || !f.ok)
    return make_check("aba.inverts_rnea", T(1), 0.0, "H is not positive-definite (ABA or LᵀDL found a non-positive pivot)");
  const T scale = detail::qdd_scale<T>(f, qdd, bias<T>(model, q, qd));
  const T r = detail::ratio<T>(max_abs(VecX<T>(fd.qdd - qdd)), scale);
  return make_check("aba.inverts_rnea", r, tolerance<T>(k) * static_cast<double>(kappa),
                    "max|ABA(RNEA(qdd)) - qdd| / (max|qdd| + max|H⁻¹C|); tolerance k ε κ(H), κ(H) = " + to_decimal(kappa, 4));
}

template <class T>
CheckResult check_fd_matches_ltdl(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau,
                                  double k) {
  using detail::max_abs;
  const MatX<T> H = crba<T>(model, q);
  const VecX<T> C = bias<T>(model, q, qd);
  const SparseFactor<T> f = ltdl<T>(H, model.dof_parent);
  const AbaResult<T> fd = aba<T>(model, q, qd, tau);
  if (!f.ok || !fd.ok) return make_check("aba.matches_crba_ltdl", T(1), 0.0, "H is not positive-definite");
  const VecX<T> qdd = ltdl_solve<T>(f, VecX<T>(tau - C));
  const T kappa = condition_number<T>(H);
  const T r = detail::ratio<T>(max_abs(VecX<T>(fd.qdd - qdd)), detail::qdd_scale<T>(f, qdd, C));
  return make_check("aba.matches_crba_ltdl", r, tolerance<T>(k) * static_cast<double>(kappa),
                    "max|ABA(tau) - (LᵀDL)⁻¹(tau - C)| / (max|qdd| + max|H⁻¹C|); tolerance k ε κ(H), κ(H) = " +
                        to_decimal(kappa, 4));
}

template <class T>
CheckResult check_ltdl_reconstructs(const MatX<T>& H, const std::vector<int>& lambda, double k) {
  using detail::max_abs;
  const SparseFactor<T> f = ltdl<T>(H, lambda);
  if (!f.ok) return make_check("ltdl.reconstructs_H", T(1), 0.0, "non-positive pivot at DoF " + std::to_string(f.failed_at));
  const MatX<T> L = f.L();
  const MatX<T> R = L.transpose() * f.D().asDiagonal() * L;
  const T r = detail::ratio<T>(max_abs(MatX<T>(R - H)), max_abs(H));
  return make_check("ltdl.reconstructs_H", r, tolerance<T>(k), "max|LᵀDL - H| / max|H|");
}

template <class T>
CheckResult check_ltl_reconstructs(const MatX<T>& H, const std::vector<int>& lambda, double k) {
  using detail::max_abs;
  const SparseFactor<T> f = ltl<T>(H, lambda);
  if (!f.ok) return make_check("ltl.reconstructs_H", T(1), 0.0, "non-positive pivot at DoF " + std::to_string(f.failed_at));
  const MatX<T> L = f.L();
  const T r = detail::ratio<T>(max_abs(MatX<T>(L.transpose() * L - H)), max_abs(H));
  return make_check("ltl.reconstructs_H", r, tolerance<T>(k), "max|LᵀL - H| / max|H|");
}

namespace detail {
template <class T>
T solve_residual(const MatX<T>& H, const VecX<T>& x, const VecX<T>& b) {
  return ratio<T>(max_abs(VecX<T>(H * x - b)), T(inf_norm<T>(H) * max_abs(x) + max_abs(b)));
}
}  // namespace detail

template <class T>
CheckResult check_ltdl_solves(const MatX<T>& H, const std::vector<int>& lambda, const VecX<T>& b, double k) {
  const SparseFactor<T> f = ltdl<T>(H, lambda);
  if (!f.ok) return make_check("ltdl.solves", T(1), 0.0, "non-positive pivot at DoF " + std::to_string(f.failed_at));
  return make_check("ltdl.solves", detail::solve_residual<T>(H, ltdl_solve<T>(f, b), b), tolerance<T>(k),
                    "‖H x - b‖ / (‖H‖ |x| + |b|)");
}

template <class T>
CheckResult check_ltl_solves(const MatX<T>& H, const std::vector<int>& lambda, const VecX<T>& b, double k) {
  const SparseFactor<T> f = ltl<T>(H, lambda);
  if (!f.ok) return make_check("ltl.solves", T(1), 0.0, "non-positive pivot at DoF " + std::to_string(f.failed_at));
  return make_check("ltl.solves", detail::solve_residual<T>(H, ltl_solve<T>(f, b), b), tolerance<T>(k),
                    "‖H x - b‖ / (‖H‖ |x| + |b|)");
}

template <class T>
CheckResult check_factor_products(const MatX<T>& H, const std::vector<int>& lambda, const VecX<T>& x, double k) {
  using detail::max_abs;
  T worst(0);
  for (bool unit : {true, false}) {
    const SparseFactor<T> f = unit ? ltdl<T>(H, lambda) : ltl<T>(H, lambda);
    if (!f.ok) return make_check("factor.products", T(1), 0.0, "H is not positive-definite");
    const MatX<T> L = f.L();
    const VecX<T> y = solve_L<T>(f, x), z = solve_Lt<T>(f, x);
    T xs = max_abs(x);
    if (max_abs(y) > xs) xs = max_abs(y);
    if (max_abs(z) > xs) xs = max_abs(z);
    const T s = max_abs(L) * xs;
    const T e = max_abs(VecX<T>(mul_L<T>(f, x) - L * x)) + max_abs(VecX<T>(mul_Lt<T>(f, x) - L.transpose() * x)) +
                max_abs(VecX<T>(L * y - x)) + max_abs(VecX<T>(L.transpose() * z - x));
    const T r = detail::ratio<T>(e, s);
    if (r > worst) worst = r;
  }
  return make_check("factor.products_and_solves", worst, tolerance<T>(k),
                    "sparse L x, Lᵀ x, L⁻¹ x, L⁻ᵀ x against dense L (LᵀDL and LᵀL), / (max|L| max(|x|, |L⁻¹x|, |L⁻ᵀx|))");
}

template <class T>
CheckResult check_mj_factor_equals_ltdl(const MatX<T>& H, const std::vector<int>& lambda) {
  using std::abs;
  const SparseFactor<T> f = ltdl<T>(H, lambda);
  const MjLayout lay = mj_layout(lambda);
  const MjFactor<T> m = mj_factorI<T>(lay, mj_pack<T>(lay, H));
  // MuJoCo clamps pivots below mjMINVAL (1e-15) and goes on; ltdl stops at a non-positive one.
  // Where either happened the two are different computations by design: reported, not compared.
  if (!m.ok && f.ok)
    return make_check("mj_factorM.equals_ltdl", T(0), 0.0,
                      "not compared: MuJoCo's rule clamped the pivot of DoF " + std::to_string(m.failed_at) +
                          " (below mjMINVAL = 1e-15, still positive for ltdl)");
  if (m.ok && !f.ok) return make_check("mj_factorM.equals_ltdl", T(1), 0.0, "ltdl failed, mj_factorI kept every pivot");
  if (!f.ok) return make_check("mj_factorM.equals_ltdl", T(0), 0.0, "both report a pivot below their threshold (not compared)");
  T worst(0);
  const int nv = static_cast<int>(lambda.size());
  for (int i = 0; i < nv; ++i) {
    int adr = lay.dof_Madr[i];
    for (int j = i; j >= 0; j = lambda[j], ++adr) {
      const T d = abs(T(m.qLD[adr] - f.LD(i, j)));
      if (d > worst) worst = d;
    }
    const T di = abs(T(m.qLDiagInv[i] - T(1) / f.LD(i, i)));
    if (di > worst) worst = di;
  }
  return make_check("mj_factorM.equals_ltdl", worst, 0.0,
                    "max |qLD - LD| over stored entries and |qLDiagInv - 1/D|: identical operations, exact equality");
}

template <class T>
CheckResult check_kinetic_energy(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, double k) {
  using std::abs;
  const MatX<T> H = crba<T>(model, q);
  const T Th = qd.dot(H * qd) / T(2);
  const T Tb = energy<T>(model, q, qd).kinetic;
  const VecX<T> aqd = qd.cwiseAbs();
  const T scale = aqd.dot(H.cwiseAbs() * aqd) / T(2);
  return make_check("energy.kinetic_equals_half_qdT_H_qd", detail::ratio<T>(abs(T(Th - Tb)), scale), tolerance<T>(k),
                    "|½ qdᵀ H qd - Σ ½ vᵢᵀ Iᵢ vᵢ| / (½ |qd|ᵀ |H| |qd|)");
}

template <class T>
CheckResult check_power_balance(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau, double k) {
  using std::abs;
  const AbaResult<T> fd = aba<T>(model, q, qd, tau);
  if (!fd.ok) return make_check("energy.power_balance", T(1), 0.0, "H is not positive-definite");
  const T rate = energy_rate<T>(model, q, qd, fd.qdd);
  const T power = qd.dot(tau);
  const MatX<T> H = crba<T>(model, q);
  const VecX<T> C = bias<T>(model, q, qd);
  const T scale = qd.cwiseAbs().dot(VecX<T>(tau.cwiseAbs() + H.cwiseAbs() * fd.qdd.cwiseAbs() + C.cwiseAbs()));
  return make_check("energy.power_balance", detail::ratio<T>(abs(T(rate - power)), scale), tolerance<T>(k),
                    "|d(T+V)/dt - qdᵀ tau| / (|qd|ᵀ (|tau| + |H| |qdd| + |C|)) at qdd = ABA(tau)");
}

template <class T>
CheckResult check_power_balance_fd(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& tau, double k) {
  using std::abs;
  using std::pow;
  using std::sqrt;
  const char* name = "energy.power_balance_fd";
  const AbaResult<T> fd = aba<T>(model, q, qd, tau);
  if (!fd.ok) return make_check(name, T(1), 0.0, "H is not positive-definite");
  const T s = T(1) + qd.cwiseAbs().sum() + sqrt(T(fd.qdd.cwiseAbs().sum()));
  const T h = T(4) * pow(epsilon<T>(), T(1) / T(9)) / s;
  auto E = [&](int j) {
    const T t = T(j) * h;
    const Energy<T> e = energy<T>(model, integrate_q<T>(model, q, qd, t), VecX<T>(qd + t * fd.qdd));
    return T(e.kinetic + e.potential);
  };
  // f'(0) = Σ_j c_j (f(j h) - f(-j h)) / h + O(h⁸): 4/5, -1/5, 4/105, -1/280.
  const T c[4] = {T(4) / T(5), T(-1) / T(5), T(4) / T(105), T(-1) / T(280)};
  T rate(0);
  for (int j = 1; j <= 4; ++j) rate += c[j - 1] * (E(j) - E(-j));
  rate /= h;
  const T power = qd.dot(tau);
  const Energy<T> e0 = energy<T>(model, q, qd);
  const MatX<T> H = crba<T>(model, q);
  const VecX<T> C = bias<T>(model, q, qd);
  const T scale = qd.cwiseAbs().dot(VecX<T>(tau.cwiseAbs() + H.cwiseAbs() * fd.qdd.cwiseAbs() + C.cwiseAbs())) +
                  s * (abs(e0.kinetic) + abs(e0.potential));
  const double tol = static_cast<double>(T(T(k) * pow(epsilon<T>(), T(8) / T(9))));
  return make_check(name, detail::ratio<T>(abs(T(rate - power)), scale), tol,
                    "|D_h(T+V) - qdᵀ tau| / (|qd|ᵀ(|tau| + |H| |qdd| + |C|) + s (T + |V|)), D_h the 8th-order central "
                    "difference along q ⊕ t qd, qd + t qdd, qdd = ABA(tau); h = 4 ε^(1/9)/s = " +
                        to_decimal(h, 3) + ", s = " + to_decimal(s, 3) + "; tolerance k ε^(8/9)");
}

template <class T>
CheckResult check_equation_of_motion(const MatX<T>& H, const VecX<T>& C, const VecX<T>& qdd, const VecX<T>& tau, double k) {
  using detail::max_abs;
  const T r = detail::ratio<T>(max_abs(VecX<T>(H * qdd + C - tau)),
                               T(detail::inf_norm<T>(H) * max_abs(qdd) + max_abs(C) + max_abs(tau)));
  return make_check("equation_of_motion", r, tolerance<T>(k), "‖H qdd + C - tau‖ / (‖H‖ |qdd| + |C| + |tau|)");
}

template <class T>
std::vector<CheckResult> check_all(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& qdd,
                                   const VecX<T>& tau, const std::vector<VecX<T>>& tau_loops) {
  const double k = default_k(model.nv);
  const MatX<T> H = crba<T>(model, q);
  const VecX<T> C = bias<T>(model, q, qd);
  const AbaResult<T> fd = aba<T>(model, q, qd, tau);
  std::vector<CheckResult> out;
  out.push_back(check_rnea_H_symmetric<T>(model, q, k));
  out.push_back(check_positive_definite<T>(H));
  out.push_back(check_crba_rnea_columns<T>(model, q, k));
  out.push_back(check_fd_inverts_id<T>(model, q, qd, qdd, k));
  out.push_back(check_fd_matches_ltdl<T>(model, q, qd, tau, k));
  out.push_back(check_ltdl_reconstructs<T>(H, model.dof_parent, k));
  out.push_back(check_ltl_reconstructs<T>(H, model.dof_parent, k));
  out.push_back(check_ltdl_solves<T>(H, model.dof_parent, tau, k));
  out.push_back(check_ltl_solves<T>(H, model.dof_parent, tau, k));
  out.push_back(check_factor_products<T>(H, model.dof_parent, tau, k));
  out.push_back(check_mj_factor_equals_ltdl<T>(H, model.dof_parent));
  out.push_back(check_kinetic_energy<T>(model, q, qd, k));
  out.push_back(check_power_balance<T>(model, q, qd, tau, k));
  if (fd.ok) out.push_back(check_equation_of_motion<T>(H, C, fd.qdd, tau, k));
  if (model.nc > 0) {
    const std::vector<CheckResult> lcs = check_loops<T>(model, q, qd, tau, tau_loops);
    out.insert(out.end(), lcs.begin(), lcs.end());
  }
  return out;
}

}  // namespace rbd
