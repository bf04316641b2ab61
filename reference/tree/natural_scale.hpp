// Natural scales of the tree's outputs: the size of the terms their algorithms sum, against which
// an error is measured (an exactly cancelled C is judged against the forces that cancel, not
// against its own rounding noise). docs/reports.md (Scores) states them.
//
//   s = rnea_term_scale(model, q, qd, qdd)      s_i ≥ |τ_i|, τ = RNEA (RBDA table 5.1), nv
//   S = tree_natural_scales(model, q, qd, qdd, tau, C, qdd_fd, factor)   one number each for C, τ, q̈
//
// rnea_term_scale follows table 5.1 with each spatial vector replaced by the sizes of its two
// halves (Euclidean norms of the angular and linear parts, so that no rotation inflates them) and
// every sum by the sum of its terms' sizes:
//   a motion m = (ω, u) from the parent: BXA m = (E ω, E (u - r × ω)):   (Ω, U) -> (Ω, U + |r| Ω)
//   a force  f = (n, f) to the parent:   BXAᵀ f = (Eᵀn + r × Eᵀf, Eᵀf):  (N, F) -> (N + |r| F, F)
//   I m, I = [Ī_o, m c×; m c×ᵀ, m 1]:                                  (‖Ī_o‖ Ω + m|c| U, m U + m|c| Ω)
//   m × m' (ω × ω', ω × u' + u × ω') and m ×* f (ω × n + u × f, ω × f): products of the sizes
//   τ_i = S_iᵀ f_i:                                                    |s_ω| N + |s_u| F per column
// with ‖Ī_o‖ the Frobenius norm (≥ the spectral one). Each size bounds the norm of the vector it
// stands for, so s_i ≥ |τ_i| in exact arithmetic; a backward-stable RNEA at precision ε has errors
// of about ε s_i. Gravity enters as a_0 = -a_g, as in RNEA.
//
// q̈ = H⁻¹(τ - C) = H⁻¹τ - H⁻¹C: its natural scale is max(max|q̈|, max|H⁻¹τ|, max|H⁻¹C|), the
// accelerations its two terms would produce alone (a robot held still by τ = C has q̈ = 0, and is
// judged against the fall it stops). Entrywise bounds through |H⁻¹| would be far larger on a
// floating base, where C's large gravity entries cancel in H⁻¹ into a free fall of size g.
#pragma once

#include "reference/tree/jcalc.hpp"
#include "reference/tree/ltdl.hpp"
#include "reference/tree/model.hpp"

namespace rbd {

template <class T>
VecX<T> rnea_term_scale(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& qdd);

// The natural scale (one number) of each tree quantity at a state: C (RNEA at q̈ = 0), tau (RNEA
// at the state's q̈), qdd (ABA at the state's τ; valid when `factor` is the LᵀDL or LᵀL factor of
// a positive-definite H, else qdd = 0 and has_qdd = false).
template <class T>
struct TreeScales {
  T C, tau, qdd;
  bool has_qdd = false;
};
template <class T>
TreeScales<T> tree_natural_scales(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& qdd,
                                  const VecX<T>& tau, const VecX<T>& C, const VecX<T>& qdd_fd, const SparseFactor<T>& factor);

namespace detail {

// The sizes (|angular half|, |linear half|) of a spatial vector.
template <class T>
struct Sizes {
  T a, l;
};

template <class T>
Sizes<T> sizes_of(const Vec6<T>& x) {
  return {T(x.template head<3>().norm()), T(x.template tail<3>().norm())};
}

}  // namespace detail

template <class T>
VecX<T> rnea_term_scale(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& qdd) {
  using detail::Sizes;
  using detail::sizes_of;
  const int NB = model.NB;
  std::vector<Sizes<T>> V(NB), A(NB), F(NB);
  const Sizes<T> a0{T(0), T(model.gravity.norm())};
  JointKinematics<T> J;
  std::vector<T> rup(NB);
  std::vector<Mat6K<T>> S(NB);
  for (int i = 0; i < NB; ++i) {
    jcalc_into<T>(model.joint[i], q.data() + model.iq[i], qd.data() + model.iv[i], J);
    const Xform<T> X = J.XJ * model.Xtree[i];
    rup[i] = X.r.norm();
    S[i] = J.S;
    const int p = model.parent[i];
    const Sizes<T> vJ = sizes_of<T>(J.vJ.c), cJ = sizes_of<T>(J.cJ.c);
    // v_i = Xup v_λ + vJ
    const Sizes<T> vp = p < 0 ? Sizes<T>{T(0), T(0)} : V[p];
    V[i] = {vp.a + vJ.a, vp.l + rup[i] * vp.a + vJ.l};
    // a_i = Xup a_λ + S q̈ + cJ + v_i × vJ
    const Sizes<T> ap = p < 0 ? a0 : A[p];
    VecX<T> qddi = qdd.segment(model.iv[i], model.nvi[i]);
    const Sizes<T> Sq = sizes_of<T>(Vec6<T>(J.S * qddi));
    A[i] = {ap.a + Sq.a + cJ.a + V[i].a * vJ.a,
            ap.l + rup[i] * ap.a + Sq.l + cJ.l + V[i].a * vJ.l + V[i].l * vJ.a};
    // f_i = I a_i + v_i ×* I v_i, I = [Ī_o, m c×; m c×ᵀ, m 1]
    const Mat6<T>& I = model.I[i].M;
    const T m = I(3, 3);
    const T mc = Vec3<T>(I(2, 4), I(0, 5), I(1, 3)).norm();  // |m c| from the block m c×
    const T Io = I.template block<3, 3>(0, 0).norm();
    auto times_I = [&](const Sizes<T>& x) { return Sizes<T>{Io * x.a + mc * x.l, m * x.l + mc * x.a}; };
    const Sizes<T> Ia = times_I(A[i]), h = times_I(V[i]);
    F[i] = {Ia.a + V[i].a * h.a + V[i].l * h.l, Ia.l + V[i].a * h.l};
  }
  VecX<T> s(model.nv);
  for (int i = NB - 1; i >= 0; --i) {
    for (int j = 0; j < model.nvi[i]; ++j) {
      const Sizes<T> sj = sizes_of<T>(Vec6<T>(S[i].col(j)));
      s(model.iv[i] + j) = sj.a * F[i].a + sj.l * F[i].l;
    }
    const int p = model.parent[i];
    if (p >= 0) {
      F[p].a += F[i].a + rup[i] * F[i].l;
      F[p].l += F[i].l;
    }
  }
  return s;
}

template <class T>
TreeScales<T> tree_natural_scales(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd, const VecX<T>& qdd,
                                  const VecX<T>& tau, const VecX<T>& C, const VecX<T>& qdd_fd, const SparseFactor<T>& factor) {
  using std::abs;
  TreeScales<T> s;
  const VecX<T> sC = rnea_term_scale<T>(model, q, qd, VecX<T>::Zero(model.nv));
  s.C = sC.size() ? sC.maxCoeff() : T(0);
  const VecX<T> st = rnea_term_scale<T>(model, q, qd, qdd);
  s.tau = st.size() ? st.maxCoeff() : T(0);
  s.qdd = T(0);
  s.has_qdd = factor.ok && qdd_fd.size() == model.nv;
  if (!s.has_qdd) return s;
  auto solve = [&factor](const VecX<T>& x) { return factor.unit ? ltdl_solve<T>(factor, x) : ltl_solve<T>(factor, x); };
  const VecX<T> from_tau = solve(tau), from_C = solve(C);
  for (int i = 0; i < model.nv; ++i)
    s.qdd = std::max(s.qdd, std::max(T(abs(from_tau(i))), T(abs(from_C(i)))));
  for (int i = 0; i < model.nv; ++i) s.qdd = std::max(s.qdd, T(abs(qdd_fd(i))));
  return s;
}

#define RBDREF_NATURAL_SCALE_INSTANTIATE(EXT, T)                                                              \
  EXT template VecX<T> rnea_term_scale<T>(const Model<T>&, const VecX<T>&, const VecX<T>&, const VecX<T>&);  \
  EXT template TreeScales<T> tree_natural_scales<T>(const Model<T>&, const VecX<T>&, const VecX<T>&,           \
                                                    const VecX<T>&, const VecX<T>&, const VecX<T>&,            \
                                                    const VecX<T>&, const SparseFactor<T>&);
RBDREF_EXTERN_FOR_EACH_TREE_SCALAR(RBDREF_NATURAL_SCALE_INSTANTIATE)

}  // namespace rbd
