// Definition of build_model (declared in model.hpp). Included by the instantiation units.
#pragma once

#include "reference/model.hpp"

#include <Eigen/Eigenvalues>

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

// Checks a rotational inertia about the COM: principal moments non-negative (positive
// semi-definite; zero for a point mass) and meeting the triangle inequality.
template <class T>
void check_inertia(const T& m, const Mat3<T>& Ic, const std::string& where) {
  using std::abs;
  Eigen::SelfAdjointEigenSolver<Mat3<T>> es(Ic, Eigen::EigenvaluesOnly);
  const Vec3<T> l = es.eigenvalues();  // ascending
  const T scale = abs(l(0)) + abs(l(1)) + abs(l(2));
  const T tol = scale * T(1) / T(1000000000000LL);  // 1e-12 relative, for moments typed to 12+ digits
  // Principal moments must be non-negative. Zero moments are accepted: a point mass (all zero)
  // and a thin rod (one zero) are the limits of real bodies, and whether H stays
  // positive-definite is a property of the whole model, reported as data by the algorithms.
  if (l(0) < -tol || !is_finite(l(0)))
    throw ModelError(where + ".inertial.I", std::string("rotational inertia is not positive-definite") +
                                                (m > T(0) ? "" : " (massless body)") + ": smallest principal moment " +
                                                to_decimal(l(0), 6));
  if (l(0) + l(1) < l(2) - tol)
    throw ModelError(where + ".inertial.I", "principal moments " + to_decimal(l(0), 6) + ", " + to_decimal(l(1), 6) +
                                                ", " + to_decimal(l(2), 6) + " break the triangle inequality");
}

}  // namespace detail

template <class T>
Model<T> build_model(const ModelDesc& desc) {
  using detail::vec3;
  Model<T> model;
  model.name = desc.name;
  model.gravity = vec3<T>(desc.gravity);

  const int nd = static_cast<int>(desc.bodies.size());
  std::vector<int> host(nd);          // model body carrying each described body (-1 = base)
  std::vector<Xform<T>> Xhost(nd);    // frame of the described body from its host's frame

  for (int b = 0; b < nd; ++b) {
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
    if (m < T(0)) throw ModelError(bd.where + ".inertial.mass", "negative mass");
    Mat3<T> Ii;
    const T ixx = in.I[0].as<T>(), iyy = in.I[1].as<T>(), izz = in.I[2].as<T>();
    const T ixy = in.I[3].as<T>(), ixz = in.I[4].as<T>(), iyz = in.I[5].as<T>();
    Ii << ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz;
    const Mat3<T> R = rpy_to_R<T>(in.rpy[0].as<T>(), in.rpy[1].as<T>(), in.rpy[2].as<T>());
    const Mat3<T> Ic = R * Ii * R.transpose();
    detail::check_inertia<T>(m, Ic, bd.where);
    const Inertia<T> Ib = Inertia<T>::mcI(m, vec3<T>(in.com), Ic);

    if (bd.joint.type == JointType::Fixed) {
      host[b] = ph;
      Xhost[b] = XtHost;
      if (ph >= 0) {
        model.I[ph].M += transform_inertia_to_parent<T>(XtHost, Ib.M);
        model.merged.push_back({bd.name, ph, XtHost});
      }
      continue;
    }

    Joint<T> jt;
    jt.type = bd.joint.type;
    const Vec3<T> a = vec3<T>(bd.joint.axis);
    const T an = a.norm();
    if (jt.type != JointType::Spherical && jt.type != JointType::Free) {
      if (!(an > T(0))) throw ModelError(bd.where + ".joint.axis", "zero axis");
      jt.axis = a / an;
    }
    if (jt.type == JointType::Helical) jt.pitch = bd.joint.pitch.as<T>();
    if (jt.type == JointType::Planar) {
      Vec3<T> u;
      if (bd.joint.plane_x) {
        u = vec3<T>(*bd.joint.plane_x);
        u -= jt.axis * jt.axis.dot(u);  // its component in the plane
        if (!(u.norm() > an * T(1) / T(1000000)))
          throw ModelError(bd.where + ".joint.plane_x", "must not be parallel to the axis");
      } else {
        // Fixed choice: the unit coordinate axis least aligned with n, projected into the plane.
        int kmin = 0;
        using std::abs;
        for (int k = 1; k < 3; ++k)
          if (abs(jt.axis(k)) < abs(jt.axis(kmin))) kmin = k;
        u = Vec3<T>::Unit(kmin) - jt.axis * jt.axis(kmin);
      }
      jt.u = u / u.norm();
    }

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
    for (int k = 0; k < model.nvi[i]; ++k) {
      model.dof_parent.push_back(k == 0 ? last : model.nv + k - 1);
      model.dof_body.push_back(i);
    }
    model.nq += model.nqi[i];
    model.nv += model.nvi[i];
  }
  return model;
}

}  // namespace rbd
