// The reference-free checks of an engine's own numbers (reports/compare.hpp,
// check_engine_output). Residuals are computed in an extended precision T (bin50, or MPFR wider
// than the engine), so that they measure the engine's values, not the checker's rounding; the
// tolerances are k ε(engine), since the question is whether the engine's values are consistent to
// the engine's precision.
#include "checks/properties.hpp"
#include "certify/precision.hpp"
#include "io/state_io.hpp"
#include "reference/build_model.hpp"
#include "reference/crba.hpp"
#include "reference/loop_constraints.hpp"
#include "reference/loop_gauss.hpp"
#include "reference/rnea.hpp"
#include "reports/compare.hpp"

#include <cmath>
#include <functional>
#include <cstdio>
#include <limits>

namespace rbd {

namespace {

// max_k |x_k| of a matrix or vector (0 when empty).
template <class T>
T max_abs(const MatX<T>& x) {
  return x.size() == 0 ? T(0) : T(x.cwiseAbs().maxCoeff());
}

template <class T>
MatX<T> to_mat(const NumMatrix& m) {
  MatX<T> A(m.rows, m.cols);
  for (int i = 0; i < m.rows; ++i)
    for (int j = 0; j < m.cols; ++j) A(i, j) = m.v[i * m.cols + j].template as<T>();
  return A;
}

// The engine's raw H (sample.raw.H) when it is a square array of rows of numbers (JSON numbers or
// decimal strings); false when absent or of another form (then the converted H is used).
template <class T>
bool raw_H(const json& raw, size_t nv, MatX<T>& H, std::string& why_not) {
  if (!raw.is_object() || !raw.contains("H")) {
    why_not = "the output keeps no raw.H";
    return false;
  }
  const json& j = raw["H"];
  const size_t n = j.is_array() ? j.size() : 0;
  if (n == 0) {
    why_not = "raw.H is not an array of rows";
    return false;
  }
  if (n != nv) {  // a raw H of another size says nothing about this model's H
    why_not = "raw.H has " + std::to_string(n) + " rows, the model has " + std::to_string(nv) + " DoFs: not used";
    return false;
  }
  H.resize(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(n));
  for (size_t i = 0; i < n; ++i) {
    if (!j[i].is_array() || j[i].size() != n) {
      why_not = "raw.H is not a square array of rows";
      return false;
    }
    for (size_t k = 0; k < n; ++k) {
      try {
        H(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k)) = json_num(j[i][k], "", "").as<T>();
      } catch (const InputError&) {
        why_not = "raw.H holds an entry that is not a finite number";
        return false;
      }
    }
  }
  return true;
}

// Re-judges a residual computed in T against the engine's tolerance.
CheckResult retolerate(CheckResult r, std::string name, double tol, std::string detail) {
  r.name = std::move(name);
  r.tolerance = tol;
  r.passed = r.residual <= tol;  // a NaN residual never passes
  r.detail = std::move(detail);
  return r;
}

// The loop checks of one sample (a closed-loop model, RBDA ch. 8): the engine's constrained q̈ and
// constraint forces τ_c against K, k, G, H, C computed by rbdref in T at the sample's inputs.
template <class T>
void loop_checks(const Model<T>& m, const EngineSample& s, const NumMatrix* qddn, const NumMatrix* taucn, double eps,
                 const std::function<void(CheckResult)>& add) {
  const VecX<T> q = to_vec<T>(s.q), qd = to_vec<T>(s.qd), tau = to_vec<T>(s.tau);
  const LoopConstraints<T> lc = loop_constraints<T>(m, q, qd);
  const NullSpaceSolution<T> ns = null_space_solution<T>(lc.K, lc.k);
  const MatX<T> H = crba<T>(m, q);
  const VecX<T> C = bias<T>(m, q, qd);
  const T mK = max_abs(lc.K), mk = max_abs(MatX<T>(lc.k)), mG = max_abs(ns.G), mH = max_abs(H), mC = max_abs(MatX<T>(C)),
          mt = max_abs(MatX<T>(tau));
  auto ratio = [](const T& num, const T& den) { return num == T(0) ? T(0) : num / den; };
  if (qddn) {
    const VecX<T> qdd = to_vec<T>(qddn->v);
    const T mq = max_abs(MatX<T>(qdd));
    add(make_check("loops.K_qdd_equals_k", ratio(max_abs(MatX<T>(lc.K * qdd - lc.k)), T(mK * mq + mk)), 1e3 * eps,
                   "max|K q̈_engine - k| / (max|K| max|q̈| + max|k|): the engine's acceleration closes the loops "
                   "(K, k of RBDA eqs. 8.9-8.16 at the input state); tolerance 1e3 ε"));
    if (ns.G.cols() > 0) {
      const VecX<T> r = ns.G.transpose() * (H * qdd + C - tau);
      add(make_check("loops.equation_of_motion_projected", ratio(max_abs(MatX<T>(r)), T(mG * (mH * mq + mC + mt))), 1e3 * eps,
                     "max|Gᵀ(H q̈_engine + C - τ)| / (max|G| (max|H| max|q̈| + max|C| + max|τ|)): the equation of motion "
                     "along the mechanism's free motions (§8.8: τ_c does no work on them); tolerance 1e3 ε"));
    }
    if (taucn) {
      const VecX<T> tc = to_vec<T>(taucn->v);
      add(make_check("loops.equation_of_motion", ratio(max_abs(MatX<T>(H * qdd + C - tau - tc)), T(mH * mq + mC + mt + max_abs(MatX<T>(tc)))),
                     1e3 * eps, "max|H q̈_engine + C - τ - τ_c,engine| / (max|H| max|q̈| + max|C| + max|τ| + max|τ_c|); tolerance 1e3 ε"));
    }
  }
  if (taucn && ns.G.cols() > 0) {
    const VecX<T> tc = to_vec<T>(taucn->v);
    add(make_check("loops.constraint_forces_do_no_work", ratio(max_abs(MatX<T>(ns.G.transpose() * tc)), T(mG * max_abs(MatX<T>(tc)))),
                   1e3 * eps, "max|Gᵀ τ_c,engine| / (max|G| max|τ_c|): constraint forces do no work on the free motions "
                   "(eq. 8.35, Gᵀτ_c = 0); tolerance 1e3 ε"));
  }
}

struct RunChecks {
  const EngineOutput& e;
  double eps;  // of the engine's scalar
  const ModelDesc* model;  // the fixture's model (loop checks), or null
  std::vector<SampleCheck>& out;

  template <class T>
  void operator()() const {
    const bool loops = model && !model->loop_joints.empty();
    Model<T> m;
    if (loops) m = build_model<T>(*model);
    for (const EngineSample& s : e.samples) {
      if (!s.error.empty()) continue;  // the engine produced nothing to check
      auto add = [&](CheckResult r) { out.push_back({s.id, std::move(r)}); };
      const auto get = [&](const char* name) -> const NumMatrix* {
        auto it = s.values.find(name);
        return it == s.values.end() ? nullptr : &it->second;
      };
      const NumMatrix *Hn = get("H"), *Cn = get("C"), *taun = get("tau"), *qddn = get("qdd"), *Ln = get("L"), *Dn = get("D");
      if (loops) loop_checks<T>(m, s, qddn, get("tau_c"), eps, add);

      // H.symmetric_raw: max|H - Hᵀ| / max|H| of what the engine computed, before any conversion
      // could symmetrize it (k = 10: a symmetric algorithm writes both triangles from one value).
      MatX<T> Hraw;
      std::string why_not;
      if (raw_H<T>(s.raw, e.dofs.size(), Hraw, why_not)) {
        add(retolerate(check_symmetric<T>(Hraw, 1), "H.symmetric_raw", 10 * eps,
                       "max|H - Hᵀ| / max|H| of the raw H (raw.H, as the engine produced it); tolerance 10 ε"));
      } else if (Hn) {
        add(retolerate(check_symmetric<T>(to_mat<T>(*Hn), 1), "H.symmetric_raw", 10 * eps,
                       "max|H - Hᵀ| / max|H| of the converted H (" + why_not + "); tolerance 10 ε"));
      }
      if (!Hn) continue;  // every other check needs H
      const MatX<T> H = to_mat<T>(*Hn);

      // H.positive_definite: λmin of (H + Hᵀ)/2 > 0, eigenvalues in T.
      add(check_positive_definite<T>(H));

      // κ(H) = λmax / λmin in T; infinite when H is not positive-definite.
      const double kappa = static_cast<double>(condition_number<T>(H));
      const bool finite_kappa = std::isfinite(kappa);
      const VecX<T> tau_in = to_vec<T>(s.tau), qdd_in = to_vec<T>(s.qdd);

      // equation_of_motion.fd: the engine's forward dynamics satisfies H qdd + C = tau at the
      // input tau. The residual is a backward error; its tolerance carries κ(H) as the header states.
      // (On a closed-loop model the engine's q̈ is the constrained one: H q̈ + C = τ + τ_c, checked
      // by the loop checks above.)
      if (Cn && qddn && !loops) {
        const CheckResult r = check_equation_of_motion<T>(H, to_vec<T>(Cn->v), to_vec<T>(qddn->v), tau_in, 1);
        add(retolerate(r, "equation_of_motion.fd", 1e3 * eps * (finite_kappa ? kappa : 1.0),
                       "‖H qdd_engine + C - tau_input‖ / (‖H‖ |qdd| + |C| + |tau|); tolerance 1e3 ε κ(H), " +
                           (finite_kappa ? "κ(H) = " + format_number("%.4g", kappa)
                                         : std::string("κ(H) infinite (H not positive-definite): 1e3 ε"))));
      }
      // equation_of_motion.id: the engine's inverse dynamics at the input qdd.
      if (Cn && taun) {
        const CheckResult r = check_equation_of_motion<T>(H, to_vec<T>(Cn->v), qdd_in, to_vec<T>(taun->v), 1);
        add(retolerate(r, "equation_of_motion.id", 1e3 * eps,
                       "‖H qdd_input + C - tau_engine‖ / (‖H‖ |qdd| + |C| + |tau|); tolerance 1e3 ε"));
      }
      // ltdl.reconstructs: max|Lᵀ D L - H| / max|H| of the engine's own factors.
      if (Ln && Dn) {
        const MatX<T> L = to_mat<T>(*Ln);
        const VecX<T> D = to_vec<T>(Dn->v);
        const MatX<T> R = L.transpose() * D.asDiagonal() * L;
        const T mh = max_abs(H);
        const T num = max_abs(MatX<T>(R - H));
        const T res = num == T(0) ? T(0) : num / mh;
        add(make_check("ltdl.reconstructs", res, 1e3 * eps, "max|LᵀDL - H| / max|H| of the engine's L, D and H; tolerance 1e3 ε"));
      }
    }
  }
};

}  // namespace

std::vector<SampleCheck> check_engine_output(const EngineOutput& e, const std::string& file, const ModelDesc* model) {
  const double eps = e.epsilon(file);
  // bin50 carries 50 digits: 17 more than float128, the widest fixed scalar an engine reports.
  // An MPFR engine gets MPFR 20 digits wider than itself.
  const int d = static_cast<int>(std::ceil(-std::log10(eps)));
  const Precision p = d <= 34 ? *Precision::parse("bin50") : *Precision::parse("mpfr:" + std::to_string(d + 20));
  std::vector<SampleCheck> out;
  bool loop_values = false;
  for (const EngineSample& s : e.samples) loop_values = loop_values || s.values.count("tau_c") || s.values.count("lambda");
  if (loop_values && (!model || model->loop_joints.empty()))
    throw InputError(file, "samples", "the output carries loop quantities (tau_c, lambda), whose checks need the closed-loop "
                                      "model: give the fixture (`rbdref check OUTPUT --fixture F`)");
  with_precision(p, RunChecks{e, eps, model, out});
  return out;
}

std::vector<SampleCheck> check_engine_output(const EngineOutput& e) { return check_engine_output(e, "engine output", nullptr); }

}  // namespace rbd
