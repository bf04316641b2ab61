// Point contacts on a rigid-body system (RBDA §11.3-11.4):
// the contact normals in joint space, the separation velocities and the velocity-product term of
// the separation accelerations.
//
// Contact i is between its predecessor A = pc(i) (a body, or the fixed world) and its successor
// B = sc(i) (Model::contacts, reference/tree/model.hpp): a point of B touching a plane of A. All vectors
// here are in base (world) coordinates:
//   x_i     the contact point C_i' of B                 x = ⁰r_B + ⁰E_B p      (p: Contact::point)
//   n_i     the unit normal of A's plane, from A into B  n = ⁰E_A n_A
//   φ_i     the gap (§11.4, eq. 11.37): n · (x - s), s a point of A's plane (Contact::surface; by
//           default x itself at this configuration, so φ = 0)
//   n̂_i     the unit contact normal as a spatial force on B: the line through x along n,
//           n̂ = [x × n; n] (§11.1)
//   t_i     the contact normal in joint space (eq. 11.25): t_i = (J_Bᵀ - J_Aᵀ) n̂_i, the columns of
//           T (eq. 11.31); entry of DoF k of joint j: t_i(k) = ±n̂_i · ⁰s_k, ⁰s_k = ⁰X_j s_k the
//           joint's motion-subspace column in base coordinates, + when j supports B, - when j
//           supports A (a joint supporting both cancels)
//   ζ_i     the separation velocity (eq. 11.27/11.28): ζ = n̂ · (v_B - v_A) = t_iᵀ q̇ = φ̇ (11.38)
//   Ṫᵀq̇     the velocity-product part of ζ̇ (eq. 11.30): ζ̇ = tᵀ q̈ + ṫᵀ q̇ = φ̈ (11.39)
//
// Eq. 11.30, Ṫᵀq̇ = n̂ · (a_B^vp - a_A^vp) + dn̂/dt · (v_B - v_A), needs dn̂/dt, which depends on the
// contact geometry (how the line of n̂ moves). Here the geometry is a vertex of B on a plane of A:
// the direction n turns with A (ṅ = ω_A × n) and the line passes through B's point x (ẋ_B). Then
// (a derivation in docs/contact.md) eq. 11.30 is, in classical point velocities and accelerations
// (ẋ_Y(y), ẍ_Y(y): of the material point of body Y at y; ẍ^vp at q̈ = 0),
//   Ṫᵀq̇ = n · (ẍ_B^vp(x) - ẍ_A^vp(c)) + 2 (ω_A × n) · (ẋ_B(x) - ẋ_A(c)) - |ω_A × n|² φ
// with c = x - φ n the point of A's plane under x; this is exactly φ̈ - tᵀq̈ for φ(q) = n(q) · (x(q) -
// s(q)), s fixed in A, at any gap φ (the last term vanishes in contact). For a contact with the
// fixed world it is n · ẍ_B^vp(x). The velocity-product accelerations come from the tree
// (a_i^vp = Xup_i a_λ(i)^vp + c_i, reference/tree/jacobian.hpp), nothing is differentiated numerically;
// the tests check t = ∂φ/∂q and Ṫᵀq̇ = d/dt(tᵀq̇) - tᵀq̈ by finite differences along the motion.
//
// Curved geometry (docs/contact.md derives it). B's side may be a sphere of radius ρ centred at
// its point y (Contact::radius): the contact point is x = y - ρ n, and every formula above holds
// with the material point y in place of x and the gap φ_y = φ + ρ of y, since φ = φ_y - ρ with ρ
// constant (the point x is not material: the sphere rolls over it). A's side may be a sphere of
// centre z and radius R instead of a plane (Contact::on_sphere), B outside it (σ = 1: φ = |r| - R
// - ρ) or inside a concave one (σ = -1: φ = R - ρ - |r|), r = y - z, n = σ r / |r|. Then
//   ζ = n · (ẋ_B(y) - ẋ_A(z)),   Ṫᵀq̇ = n · (ẍ_B^vp(y) - ẍ_A^vp(z)) + σ |ṙ_⊥|² / |r|
// with ṙ_⊥ = ṙ - n (n · ṙ): the curvature term (d/dt |r| = r̂ · ṙ, d²/dt² |r| = r̂ · r̈ + |ṙ_⊥|²/|r|).
// It is what makes a disc sliding between two concave walls (RBDA example 11.1) unsolvable.
#pragma once

#include "reference/tree/jcalc.hpp"
#include "reference/tree/kinematics.hpp"

#include <vector>

namespace rbd {

template <class T>
struct ContactKinematics {
  MatX<T> Tn;                  // T (eq. 11.31): n x n_c, column i is t_i (eq. 11.25)
  VecX<T> Tdot_qd;             // Ṫᵀq̇ (eq. 11.30), n_c
  VecX<T> phi;                 // φ_i (§11.4), n_c
  VecX<T> zeta;                // ζ_i = t_iᵀ q̇ (eq. 11.28), n_c
  std::vector<Vec3<T>> x, n;   // contact point and unit normal, base coordinates (n_c)
  std::vector<Force<T>> n_hat; // n̂_i = [x × n; n], base coordinates (n_c)
  // Tangent directions (§11.7's n_x, n_y): e_x = the coordinate axis of A's frame least aligned
  // with n, projected off it (fixed in A), e_y = n × e_x; Tt's columns 2i, 2i+1 are t_x, t_y of
  // contact i, built as t_i from n̂_x = [x × e_x; e_x], n̂_y (n x 2 n_c).
  std::vector<Vec3<T>> ex, ey;
  MatX<T> Tt;
};

template <class T>
ContactKinematics<T> contact_kinematics(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd);

// ---- definition ----

template <class T>
ContactKinematics<T> contact_kinematics(const Model<T>& model, const VecX<T>& q, const VecX<T>& qd) {
  const int nc = static_cast<int>(model.contacts.size());
  const TreeKinematics<T> k = kinematics<T>(model, q, qd);
  // Body velocities and velocity-product accelerations in base coordinates.
  std::vector<Motion<T>> V(model.NB), A(model.NB), avp(model.NB);
  for (int i = 0; i < model.NB; ++i) {
    const int p = model.parent[i];
    avp[i] = (p < 0 ? Motion<T>() : k.Xup[i].apply(avp[p])) + k.c[i];
    V[i] = k.X0[i].apply_inverse(k.v[i]);
    A[i] = k.X0[i].apply_inverse(avp[i]);
  }
  // Motion of body b's material point at y (base coordinates); the world's is zero.
  auto point_velocity = [&](int b, const Vec3<T>& y) -> Vec3<T> {
    if (b < 0) return Vec3<T>::Zero();
    return Vec3<T>(V[b].lin() + V[b].ang().cross(y));
  };
  auto point_vp_acceleration = [&](int b, const Vec3<T>& y) -> Vec3<T> {
    if (b < 0) return Vec3<T>::Zero();
    const Vec3<T> xd = point_velocity(b, y);
    return Vec3<T>(A[b].lin() + A[b].ang().cross(y) + V[b].ang().cross(xd));
  };
  ContactKinematics<T> out;
  out.Tn = MatX<T>::Zero(model.nv, nc);
  out.Tt = MatX<T>::Zero(model.nv, 2 * nc);
  out.Tdot_qd = VecX<T>::Zero(nc);
  out.phi = VecX<T>::Zero(nc);
  out.zeta = VecX<T>::Zero(nc);
  for (int i = 0; i < nc; ++i) {
    const Contact<T>& ct = model.contacts[i];
    const int a = ct.p, b = ct.s;
    // y: B's material point on the normal line (the vertex, or the centre of B's sphere); z: A's
    // (the point of A's plane under y, or the centre of A's sphere); base coordinates.
    const Vec3<T> y = b < 0 ? ct.point : Vec3<T>(k.X0[b].r + k.X0[b].E.transpose() * ct.point);
    auto in_A = [&](const Vec3<T>& v) { return a < 0 ? v : Vec3<T>(k.X0[a].E.transpose() * v); };  // A's axes to base
    Vec3<T> n, z;
    T phi, phi_y(0), d(0), sigma(1);
    if (!ct.on_sphere) {
      n = in_A(ct.normal);
      // φ_y = n · (y - s): the gap of y; by default the plane passes through the contact point.
      phi_y = ct.has_surface ? T(n.dot(Vec3<T>(y - (a < 0 ? ct.surface : Vec3<T>(k.X0[a].r + in_A(ct.surface))))))
                             : ct.radius;
      phi = phi_y - ct.radius;
      z = y - phi_y * n;
    } else {
      z = a < 0 ? ct.center : Vec3<T>(k.X0[a].r + in_A(ct.center));
      const Vec3<T> r = y - z;
      d = r.norm();
      sigma = ct.inside ? T(-1) : T(1);
      // (Concentric spheres have no normal: A's z axis is taken, and the gap is still right.)
      n = d > T(0) ? Vec3<T>(sigma * r / d) : in_A(Vec3<T>(T(0), T(0), T(1)));
      phi = ct.inside ? T(ct.R - ct.radius - d) : T(d - ct.R - ct.radius);
    }
    const Vec3<T> x = y - ct.radius * n;  // the contact point, on B's surface
    const Force<T> nh(Vec3<T>(x.cross(n)), n);
    // n in A's axes: the plane's normal as given (so the tangents are decided on the input, alike
    // at every precision), a sphere's current one.
    const Vec3<T> nA = !ct.on_sphere ? ct.normal : a < 0 ? n : Vec3<T>(k.X0[a].E * n);
    const Vec3<T> ex = in_A(detail::perpendicular<T>(nA));
    const Vec3<T> ey = n.cross(ex);
    const Force<T> nx(Vec3<T>(x.cross(ex)), ex), ny(Vec3<T>(x.cross(ey)), ey);
    // t_i: +n̂ · ⁰s over B's supporting joints, -n̂ · ⁰s over A's (eq. 11.25); t_x, t_y likewise.
    for (int side = 0; side < 2; ++side) {
      const T sign = side == 0 ? T(1) : T(-1);
      for (int j = side == 0 ? b : a; j >= 0; j = model.parent[j])
        for (int col = 0; col < model.nvi[j]; ++col) {
          const Motion<T> s0 = k.X0[j].apply_inverse(Motion<T>(Vec6<T>(k.S[j].col(col))));
          out.Tn(model.iv[j] + col, i) += sign * dot<T>(nh, s0);
          out.Tt(model.iv[j] + col, 2 * i) += sign * dot<T>(nx, s0);
          out.Tt(model.iv[j] + col, 2 * i + 1) += sign * dot<T>(ny, s0);
        }
    }
    out.ex.push_back(ex);
    out.ey.push_back(ey);
    const Vec3<T> dxd = point_velocity(b, y) - point_velocity(a, z);
    const T normal_vp = n.dot(Vec3<T>(point_vp_acceleration(b, y) - point_vp_acceleration(a, z)));
    if (!ct.on_sphere) {  // n turns with A
      const Vec3<T> wA = a < 0 ? Vec3<T>::Zero() : V[a].ang();
      const Vec3<T> ndot = wA.cross(n);
      out.Tdot_qd(i) = normal_vp + T(2) * ndot.dot(dxd) - ndot.squaredNorm() * phi_y;
    } else {  // n = σ r / |r|: φ̈ = n · r̈ + σ |ṙ_⊥|² / |r|
      const Vec3<T> perp = dxd - n * T(n.dot(dxd));
      out.Tdot_qd(i) = normal_vp + (d > T(0) ? T(sigma * perp.squaredNorm() / d) : T(0));
    }
    out.phi(i) = phi;
    out.zeta(i) = n.dot(dxd);
    out.x.push_back(x);
    out.n.push_back(n);
    out.n_hat.push_back(nh);
  }
  return out;
}

#define RBDREF_CONTACT_INSTANTIATE(EXT, T) \
  EXT template ContactKinematics<T> contact_kinematics<T>(const Model<T>&, const VecX<T>&, const VecX<T>&);
RBDREF_EXTERN_FOR_EACH_SCALAR(RBDREF_CONTACT_INSTANTIATE)

}  // namespace rbd
