// Definition of build_model (declared in model.hpp). Included by the instantiation units.
#pragma once

#include "reference/tree/model.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>

namespace rbd {

namespace detail {

template <class T>
Vec3<T> vec3(const Num3& n) {
  return Vec3<T>(n[0].as<T>(), n[1].as<T>(), n[2].as<T>());
}

template <class T>
Xform<T> origin_xform(const OriginDesc& o, const std::string& where) {
  const Vec3<T> p = vec3<T>(o.xyz);
  Mat3<T> R;
  if (o.quat) {
    const auto& qd = *o.quat;
    const T w = qd[0].as<T>(), x = qd[1].as<T>(), y = qd[2].as<T>(), z = qd[3].as<T>();
    if (w * w + x * x + y * y + z * z == T(0)) throw ModelError(where + ".quat", "zero quaternion");
    R = quat_to_R<T>(w, x, y, z);
  } else {
    R = rpy_to_R<T>(o.rpy[0].as<T>(), o.rpy[1].as<T>(), o.rpy[2].as<T>());
  }
  // Frame placed at p, rotated by R (child-to-parent): childXparent = rot(Rᵀ) xlt(p).
  return Xform<T>(Mat3<T>(R.transpose()), p);
}

// Principal moments (ascending) of a rotational inertia about the COM and by how much it breaks
// the physical bounds: neg = max(0, -λ0) (positive semi-definite), tri = max(0, λ2 - λ0 - λ1)
// (triangle inequality; with λ ascending the other two orderings follow).
template <class T>
struct InertiaBounds {
  Vec3<T> l;
  T violation;  // max(neg, tri)
  T score;      // max(neg, tri / 3): compared with the rounding bound ‖δI‖_F (λ0 moves by at most
                // ‖δI‖₂ ≤ ‖δI‖_F; λ0 + λ1 - λ2 by at most three times that)
  bool triangle = false;  // the score is the triangle inequality's (tri / 3 > neg)
};

template <class T>
InertiaBounds<T> inertia_bounds(const Mat3<T>& Ic) {
  Eigen::SelfAdjointEigenSolver<Mat3<T>> es(Ic, Eigen::EigenvaluesOnly);
  InertiaBounds<T> b;
  b.l = es.eigenvalues();
  const T neg = b.l(0) < T(0) ? T(-b.l(0)) : T(0);
  const T tri = b.l(2) - b.l(0) - b.l(1) > T(0) ? T(b.l(2) - b.l(0) - b.l(1)) : T(0);
  b.triangle = tri / T(3) > neg;
  b.violation = b.triangle ? tri : neg;
  b.score = tri / T(3) > neg ? T(tri / T(3)) : neg;
  return b;
}

// The rounding the six written entries of an inertia may carry, as a Frobenius-norm bound on
// the perturbation of the matrix: ‖δI‖_F ≤ sqrt(Σ u_kk² + 2 Σ u_kl²). Eigenvalues move by at
// most ‖δI‖₂ ≤ ‖δI‖_F (Weyl), whatever rotation (rpy) the inertia is given in.
inline double written_rounding(const InertialDesc& in) {
  double s = 0;
  for (int k = 0; k < 6; ++k) {
    const double u = in.I[k].half_unit();
    s += (k < 3 ? 1.0 : 2.0) * u * u;
  }
  return std::sqrt(s);
}

template <class T>
std::string moments_text(const InertiaBounds<T>& b) {
  return to_decimal(b.l(0), 6) + ", " + to_decimal(b.l(1), 6) + ", " + to_decimal(b.l(2), 6);
}

template <class T>
std::string violation_text(const InertiaBounds<T>& b) {
  return b.triangle ? "principal moments " + moments_text(b) + " (about the COM) break the triangle inequality: λ0 + λ1 < λ2 by " +
                          to_decimal(b.violation, 3)
                    : "rotational inertia about the COM is not positive semi-definite: principal moments " + moments_text(b);
}

inline std::string inertial_field(const BodyDesc& bd) {
  return bd.inertial_where.empty() ? bd.where + ".inertial" : bd.inertial_where;
}

inline std::string fixed_joint_text(const BodyDesc& bd) {
  return bd.where.rfind("joint '", 0) == 0 ? "fixed " + bd.where : "fixed joint '" + bd.joint.name + "' (" + bd.where + ")";
}

// "link 'a' <inertial> (line 3)" + mass -> "link 'a' <inertial> (line 3) <mass>";
// "bodies[2].inertial" + mass -> "bodies[2].inertial.mass".
inline std::string sub_field(const std::string& base, const std::string& name) {
  return !base.empty() && base.back() == ')' ? base + " <" + name + ">" : base + "." + name;
}

// The physics findings on inertias (ModelNote), after merging: each body of the model is checked
// as the dynamics sees it: max(neg, tri / 3) against the rounding of the written digits of every
// link merged into it (Σ ‖u‖_F) plus the arithmetic's own (100 ε_T λmax). Links whose own inertial breaks a bound
// are named as such when the body they are merged into is physical (or when they are welded to
// the fixed base, where they have no effect).
template <class T>
struct Part {
  T m;
  Vec3<T> c;   // COM in the host body's frame
  Mat3<T> Ic;  // rotational inertia about c, host axes
};

// Rotational inertia about the merged COM: Σ [Ic_b + m_b (|d_b|² 1 - d_b d_bᵀ)], d_b = c_b - c,
// c = Σ m_b c_b / Σ m_b (c of any part when the total mass is zero: the terms vanish).
template <class T>
Mat3<T> merged_com_inertia(const std::vector<Part<T>>& parts, const std::vector<int>& which) {
  T m(0);
  Vec3<T> h = Vec3<T>::Zero();
  for (int b : which) {
    m += parts[b].m;
    h += parts[b].m * parts[b].c;
  }
  const Vec3<T> c = m > T(0) ? Vec3<T>(h / m) : parts[which.front()].c;
  Mat3<T> Ic = Mat3<T>::Zero();
  for (int b : which) {
    const Vec3<T> d = parts[b].c - c;
    Ic += parts[b].Ic + parts[b].m * (d.squaredNorm() * Mat3<T>::Identity() - d * d.transpose());
  }
  return Ic;
}

template <class T>
void notes_on_inertias(Model<T>& model, const ModelDesc& desc, const std::vector<int>& host,
                       const std::vector<std::string>& via, const std::vector<double>& rounding,
                       const std::vector<T>& link_violation, const std::vector<std::string>& link_text,
                       const std::vector<Part<T>>& part) {
  using std::abs;
  const int nd = static_cast<int>(desc.bodies.size());
  std::vector<std::vector<int>> parts(model.NB);
  for (int b = 0; b < nd; ++b)
    if (host[b] >= 0) parts[host[b]].push_back(b);
  const T noise_k = T(100) * epsilon<T>();
  for (int i = 0; i < model.NB; ++i) {
    const InertiaBounds<T> mb = inertia_bounds<T>(merged_com_inertia<T>(part, parts[i]));
    const T lmax = abs(mb.l(2)) > abs(mb.l(0)) ? T(abs(mb.l(2))) : T(abs(mb.l(0)));
    T tol = noise_k * lmax;
    for (int b : parts[i]) tol += T(rounding[b]);
    // The links that carry inertia (massless frame links merged in add nothing and are not named).
    std::vector<int> named;
    for (int b : parts[i])
      if (part[b].m != T(0) || !part[b].Ic.isZero(0)) named.push_back(b);
    const int own = parts[i].front();  // the body's own link comes first
    std::string field;
    if (named.empty() || (named.size() == 1 && named[0] == own)) {
      field = inertial_field(desc.bodies[own]);
    } else if (named.size() == 1) {
      field = inertial_field(desc.bodies[named[0]]) + " (merged into body '" + model.body_name[i] + "' through " + via[named[0]] + ")";
    } else {
      field = "body '" + model.body_name[i] + "' (";
      for (size_t k = 0; k < named.size(); ++k) {
        const int b = named[k];
        field += (k ? " merged with " : "") + inertial_field(desc.bodies[b]) + (b == own ? "" : " through " + via[b]);
      }
      field += ")";
    }
    // The bound the printed violation is compared with: U for a negative moment, 3U for the
    // triangle inequality (three moments, each moved by at most U).
    const T bound = mb.triangle ? T(T(3) * tol) : tol;
    if (mb.score > tol) {
      model.notes.push_back({ModelNote::NonPhysical, field,
                             violation_text<T>(mb) + ", beyond the rounding of the written digits (" + to_decimal(bound, 2) + ")"});
    } else if (mb.score > noise_k * lmax) {
      model.notes.push_back({ModelNote::RoundingLevel, field,
                             violation_text<T>(mb) + ", within the rounding of the written digits (" + to_decimal(bound, 2) +
                                 "): accepted as rounding"});
    }
    if (parts[i].size() > 1 && !(mb.score > tol))
      for (int b : parts[i]) {
        if (link_violation[b] > T(rounding[b]))
          model.notes.push_back({ModelNote::NonPhysicalLink, inertial_field(desc.bodies[b]),
                                 link_text[b] + "; the body '" + model.body_name[i] +
                                     "' it is merged into (what the dynamics sees) is physical"});
      }
  }
  for (int b = 0; b < nd; ++b)
    if (host[b] < 0 && link_violation[b] > T(rounding[b]))
      model.notes.push_back({ModelNote::NonPhysicalLink, inertial_field(desc.bodies[b]),
                             link_text[b] + "; welded to the fixed base through " + via[b] + ", it has no effect on the dynamics"});
}

// A joint's motion at the precision of T: the axis normalized, the helical pitch, the planar
// in-plane direction u (plane_x projected into the plane, or a fixed choice). Shared by tree and
// loop joints; axis_field and plane_field name the fields in messages.
template <class T>
Joint<T> make_joint(const JointDesc& jd, const std::string& axis_field, const std::string& plane_field) {
  Joint<T> jt;
  jt.type = jd.type;
  if (jt.type != JointType::Spherical && jt.type != JointType::Free && jt.type != JointType::Fixed) {
    // Scaled by the power of two 2^-e just above its largest component first, component by
    // component (2^-e itself overflows for a subnormal axis): exact, so an axis of ordinary size
    // normalizes to the same bits, and |a|² of a tiny (1e-200) or huge axis neither underflows nor
    // overflows at T.
    Vec3<T> a = vec3<T>(jd.axis);
    using std::abs;
    using std::frexp;
    using std::ldexp;
    T amax = abs(a.x());
    for (int k = 1; k < 3; ++k)
      if (prefer_less(amax, T(abs(a(k))))) amax = abs(a(k));
    if (!(amax > T(0))) throw ModelError(axis_field, "zero axis");
    int e = 0;
    (void)frexp(amax, &e);
    for (int k = 0; k < 3; ++k) a(k) = T(ldexp(a(k), -e));
    jt.axis = a / a.norm();
  }
  if (jt.type == JointType::Helical) jt.pitch = jd.pitch.as<T>();
  if (jt.type == JointType::Planar) {
    Vec3<T> u;
    if (jd.plane_x) {
      u = vec3<T>(*jd.plane_x);
      const T un = u.norm();
      u -= jt.axis * jt.axis.dot(u);  // its component in the plane (jt.axis is unit)
      if (!(u.norm() > un * T(1) / T(1000000)))  // relative to |plane_x|: its length is free
        throw ModelError(plane_field, "must not be parallel to the axis");
    } else {
      // Fixed choice: the unit coordinate axis least aligned with n, projected into the plane.
      u = detail::perpendicular<T>(jt.axis);
    }
    jt.u = u / u.norm();
  }
  return jt;
}

}  // namespace detail

namespace detail {
template <class T>
Model<T> build_model_of(const ModelDesc& desc);
}  // namespace detail

// The model of `desc` at the precision of T; a ModelError names desc.file when it is set.
template <class T>
Model<T> build_model(const ModelDesc& desc) {
  try {
    return detail::build_model_of<T>(desc);
  } catch (const ModelError& e) {
    if (desc.file.empty() || !e.file().empty()) throw;
    throw ModelError(e.field(), e.message(), desc.file);
  }
}

template <class T>
Model<T> detail::build_model_of(const ModelDesc& desc) {
  using detail::vec3;
  // The description's computed numbers share operands (an MJCF settotalmass factor is in every
  // body's mass): each node is evaluated once for the whole model.
  NumMemoScope<T> shared_numbers;
  NumMemoScope<std::pair<double, double>> shared_roundings;
  Model<T> model;
  model.name = desc.name;
  try {
    model.gravity = vec3<T>(desc.gravity);
  } catch (const std::invalid_argument& e) {
    throw ModelError("gravity", e.what());
  }

  const int nd = static_cast<int>(desc.bodies.size());
  std::vector<int> host(nd);          // model body carrying each described body (-1 = base)
  std::vector<Xform<T>> Xhost(nd);    // frame of the described body from its host's frame
  std::vector<std::string> via(nd);  // fixed joints a described body was merged through
  std::vector<double> rounding(nd);  // written_rounding of each described body's inertia
  std::vector<T> link_violation(nd);
  std::vector<std::string> link_text(nd);
  std::vector<detail::Part<T>> parts(nd);

  auto build_body = [&](int b) {
    const BodyDesc& bd = desc.bodies[b];
    if (bd.parent < -1 || bd.parent >= b)
      throw ModelError(bd.where + ".parent", "must name an earlier body (regular numbering, λ(i) < i)");

    // Joint frame in the parent body's frame, then expressed from the parent's host frame.
    const Xform<T> Xt = detail::origin_xform<T>(bd.origin, bd.where + ".origin");
    const int p = bd.parent;
    const int ph = p < 0 ? -1 : host[p];
    const Xform<T> XtHost = p < 0 ? Xt : Xt * Xhost[p];

    // Inertia in the body frame: mcI with Ic = R I Rᵀ.
    const InertialDesc& in = bd.inertial;
    const T m = in.mass.as<T>();
    if (m < T(0)) throw ModelError(detail::sub_field(detail::inertial_field(bd), "mass"), "negative mass");
    Mat3<T> Ii;
    const T ixx = in.I[0].as<T>(), iyy = in.I[1].as<T>(), izz = in.I[2].as<T>();
    const T ixy = in.I[3].as<T>(), ixz = in.I[4].as<T>(), iyz = in.I[5].as<T>();
    Ii << ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz;
    const Mat3<T> R = rpy_to_R<T>(in.rpy[0].as<T>(), in.rpy[1].as<T>(), in.rpy[2].as<T>());
    const Mat3<T> Ic = R * Ii * R.transpose();
    rounding[b] = detail::written_rounding(in);
    // The physical checks of the inertia decide (an eigenvalue solver, thresholds): the point
    // builds make them; an interval build (Interval) encloses the model those builds accepted.
    if constexpr (!kIsInterval<T>) {
      using std::abs;
      const detail::InertiaBounds<T> lb = detail::inertia_bounds<T>(Ic);
      // Violations at the level of the arithmetic's own rounding are no finding.
      const T lmax = abs(lb.l(2)) > abs(lb.l(0)) ? T(abs(lb.l(2))) : T(abs(lb.l(0)));
      const bool beyond_noise = lb.score > T(100) * epsilon<T>() * lmax;
      link_violation[b] = beyond_noise ? lb.score : T(0);
      if (beyond_noise) link_text[b] = detail::violation_text<T>(lb);
      if (!is_finite(lb.l(0)) || !is_finite(lb.l(2)))
        throw ModelError(detail::sub_field(detail::inertial_field(bd), "inertia"), "inertia is not finite");
    }
    const Vec3<T> com = vec3<T>(in.com);
    const Inertia<T> Ib = Inertia<T>::mcI(m, com, Ic);
    // For the physics notes: mass, COM and rotational inertia about the COM in the host's frame
    // (a point x of b is r + Eᵀ x in the host; a tensor is Eᵀ I E), so that the merged body's
    // inertia about its COM is summed by the parallel-axis theorem from differences of COMs,
    // never recovered from the spatial inertia (Ī - m c×c×ᵀ cancels catastrophically when m|c|²
    // dwarfs Ic: a heavy body far from its frame origin).
    parts[b] = {m, com, Ic};
    if (bd.joint.type == JointType::Fixed) {
      parts[b].c = XtHost.r + XtHost.E.transpose() * com;
      parts[b].Ic = XtHost.E.transpose() * Ic * XtHost.E;
    }

    if (bd.joint.type == JointType::Fixed) {
      host[b] = ph;
      Xhost[b] = XtHost;
      via[b] = (p >= 0 && !via[p].empty() ? via[p] + ", " : std::string()) + detail::fixed_joint_text(bd);
      if (ph >= 0) {
        model.I[ph].M += transform_inertia_to_parent<T>(XtHost, Ib.M);
        model.merged.push_back({bd.name, ph, XtHost});
      }
      return;
    }

    const bool xml = !bd.where.empty() && bd.where.back() == ')';
    // "joint 'j' (line 3) <axis>" for a URDF joint, "bodies[2].joint.axis" for JSON.
    const Joint<T> jt = detail::make_joint<T>(bd.joint, xml ? bd.where + " <axis>" : bd.where + ".joint.axis",
                                              bd.where + ".joint.plane_x");

    const int i = model.NB++;
    host[b] = i;
    Xhost[b] = Xform<T>::identity();
    model.parent.push_back(ph);
    model.joint.push_back(jt);
    model.Xtree.push_back(XtHost);
    model.I.push_back(Ib);
    model.body_name.push_back(bd.name);
    model.joint_name.push_back(bd.joint.name);
    model.iq.push_back(model.nq);
    model.iv.push_back(model.nv);
    model.nqi.push_back(joint_nq(jt.type));
    model.nvi.push_back(joint_nv(jt.type));
    // DoF parents: within a joint the previous DoF, else the last DoF of the nearest ancestor.
    int last = -1;
    for (int j = ph; j >= 0; j = model.parent[j])
      if (model.nvi[j] > 0) { last = model.iv[j] + model.nvi[j] - 1; break; }
    const T arm = bd.joint.armature.as<T>();
    if (arm < T(0)) throw ModelError(xml ? bd.where + " armature" : bd.where + ".joint.armature", "negative armature");
    if (arm != T(0)) model.has_armature = true;
    for (int k = 0; k < model.nvi[i]; ++k) {
      model.dof_parent.push_back(k == 0 ? last : model.nv + k - 1);
      model.dof_body.push_back(i);
      model.armature.push_back(arm);
    }
    model.nq += model.nqi[i];
    model.nv += model.nvi[i];
  };
  for (int b = 0; b < nd; ++b) {
    const BodyDesc& bd = desc.bodies[b];
    try {
      build_body(b);
    } catch (const std::invalid_argument& e) {  // Num::as: a number T cannot represent
      throw ModelError(bd.where, std::string(e.what()) + " (a number of this body cannot be represented at the working precision)");
    }
  }
  if constexpr (!kIsInterval<T>) detail::notes_on_inertias<T>(model, desc, host, via, rounding, link_violation, link_text, parts);

  // Loop joints (§8.1): each end resolved to the model body its link was merged into, the joint
  // frame carried along: XP = (joint frame from link) (link from host).
  const int nl = static_cast<int>(desc.loop_joints.size());
  for (int l = 0; l < nl; ++l) {
    const LoopJointDesc& ld = desc.loop_joints[l];
    LoopJoint<T> lj;
    lj.name = ld.name;
    lj.active = ld.active;
    try {
      lj.joint = detail::make_joint<T>(ld.joint, ld.where + ".axis", ld.where + ".plane_x");
      auto end = [&](const LoopEndDesc& e, const std::string& field, int& body, Xform<T>& X) {
        if (e.body < -1 || e.body >= nd) throw ModelError(field + ".body", "no such body");
        const Xform<T> Xo = detail::origin_xform<T>(e.origin, field);
        body = e.body < 0 ? -1 : host[e.body];
        X = e.body < 0 ? Xo : Xo * Xhost[e.body];
      };
      end(ld.pred, ld.where + ".predecessor", lj.p, lj.XP);
      end(ld.succ, ld.where + ".successor", lj.s, lj.XS);
    } catch (const std::invalid_argument& e) {
      throw ModelError(ld.where, std::string(e.what()) + " (a number of this loop joint cannot be represented at the working precision)");
    }
    if (lj.p == lj.s) {
      auto name_of = [&](const LoopEndDesc& e) { return e.body < 0 ? std::string("the fixed base") : "'" + desc.bodies[e.body].name + "'"; };
      const bool merged = ld.pred.body != ld.succ.body;
      throw ModelError(ld.where, "predecessor " + name_of(ld.pred) + " and successor " + name_of(ld.succ) +
                                     (merged ? " are rigidly attached (merged into the same " +
                                                   std::string(lj.p < 0 ? "fixed base" : "body '" + model.body_name[lj.p] + "'") +
                                                   " through fixed joints)"
                                             : " are the same body") +
                                     ": a loop joint must connect two bodies that can move relative to each other");
    }
    lj.nc = 6 - joint_nv(lj.joint.type);
    lj.row = model.nc;
    model.nc += lj.nc;
    model.loops.push_back(lj);
  }

  // Contacts (§11.3): each end resolved to the model body its link was merged into. A link's
  // frame is X = linkXhost = (E, r): a point x of the link is r + Eᵀ x in the host, a direction
  // n is Eᵀ n.
  const int ncd = static_cast<int>(desc.contacts.size());
  for (int c = 0; c < ncd; ++c) {
    const ContactDesc& cd = desc.contacts[c];
    Contact<T> ct;
    ct.name = cd.name;
    try {
      auto end = [&](int b, const std::string& field) {
        if (b < -1 || b >= nd) throw ModelError(field, "no such body");
        return b < 0 ? std::make_pair(-1, Xform<T>::identity()) : std::make_pair(host[b], Xhost[b]);
      };
      const auto [p, Xp] = end(cd.pred, cd.where);
      const auto [s, Xs] = end(cd.succ, cd.where);
      ct.p = p;
      ct.s = s;
      ct.point = Vec3<T>(Xs.r + Xs.E.transpose() * vec3<T>(cd.point));
      const Vec3<T> n = vec3<T>(cd.normal);
      const T nn = n.norm();
      if (!(nn > T(0))) throw ModelError(cd.where + ".normal", "zero normal");
      ct.normal = Vec3<T>(Xp.E.transpose() * Vec3<T>(n / nn));
      if (cd.surface) {
        ct.has_surface = true;
        ct.surface = Vec3<T>(Xp.r + Xp.E.transpose() * vec3<T>(*cd.surface));
      }
      if (cd.radius) ct.radius = cd.radius->as<T>();
      if (cd.sphere) {
        ct.on_sphere = true;
        ct.inside = cd.sphere->inside;
        ct.center = Vec3<T>(Xp.r + Xp.E.transpose() * vec3<T>(cd.sphere->center));
        ct.R = cd.sphere->radius.as<T>();
        if (!(ct.R > T(0))) throw ModelError(cd.where + ".surface_sphere.radius", "expected a sphere radius R > 0");
        if (ct.inside && !(ct.R > ct.radius))
          throw ModelError(cd.where + ".surface_sphere.radius", "expected R greater than B's radius: B moves inside A's concave sphere");
      }
      if (cd.friction) { ct.has_friction = true; ct.mu = cd.friction->as<T>(); }
      if (cd.restitution) { ct.has_restitution = true; ct.e = cd.restitution->as<T>(); }
      if (cd.stiffness || cd.damping) {
        ct.has_soft = true;
        if (cd.stiffness) ct.K = cd.stiffness->as<T>();
        if (cd.damping) ct.D = cd.damping->as<T>();
        ct.Kt = cd.tangential_stiffness ? cd.tangential_stiffness->as<T>() : ct.K;
        ct.Dt = cd.tangential_damping ? cd.tangential_damping->as<T>() : ct.D;
        if (!(ct.D > T(0))) throw ModelError(cd.where + ".damping", "a soft contact needs damping D > 0 (the massless surface moves by ż = -(Kz + f)/D, eq. 11.73)");
        if (!(ct.Dt > T(0))) throw ModelError(cd.where + ".tangential_damping", "a soft contact needs D_t > 0 (ẋ = -(K_t x + f_t)/D_t, eq. 11.77)");
      }
    } catch (const std::invalid_argument& e) {
      throw ModelError(cd.where, std::string(e.what()) + " (a number of this contact cannot be represented at the working precision)");
    }
    if (ct.p == ct.s) {
      auto name_of = [&](int b) { return b < 0 ? std::string("the fixed world") : "'" + desc.bodies[b].name + "'"; };
      throw ModelError(cd.where, "its two sides, " + name_of(cd.pred) + " and " + name_of(cd.succ) + ", are " +
                                     (cd.pred != cd.succ ? "rigidly attached (merged through fixed joints into " +
                                                               (ct.p < 0 ? std::string("the fixed world") : "body '" + model.body_name[ct.p] + "'") + ")"
                                                         : "the same") +
                                     ": a contact must be between two bodies that can move relative to each other");
    }
    model.contacts.push_back(ct);
  }
  return model;
}

}  // namespace rbd
