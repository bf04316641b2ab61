#include "checks/random_model.hpp"

#include <cmath>

namespace rbd {

namespace {

struct Rng {
  std::mt19937_64 g;
  explicit Rng(std::uint64_t seed) : g(seed) {}
  double uni(double a, double b) { return std::uniform_real_distribution<double>(a, b)(g); }
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(g); }
  // A random direction with some exactly-zero and some negative components, never zero.
  Num3 axis() {
    double v[3];
    do {
      for (double& c : v) c = pick(4) == 0 ? 0.0 : uni(-1, 1);
    } while (std::abs(v[0]) + std::abs(v[1]) + std::abs(v[2]) < 0.3);
    return {Num::exact(v[0]), Num::exact(v[1]), Num::exact(v[2])};
  }
};

}  // namespace

ModelDesc random_tree(const TreeSpec& spec, std::uint64_t seed) {
  Rng r(seed);
  ModelDesc d;
  d.name = "random_tree";
  d.gravity = {Num::exact(0), Num::exact(0), Num::exact(-9.81)};
  std::vector<int> depth(spec.nb, 0);
  for (int i = 0; i < spec.nb; ++i) {
    BodyDesc b;
    b.name = "b" + std::to_string(i);
    b.where = "bodies[" + std::to_string(i) + "]";
    b.parent = i == 0 ? -1 : static_cast<int>(std::floor((i - 1) / spec.branching));
    if (b.parent >= i) b.parent = i - 1;
    depth[i] = b.parent < 0 ? 0 : depth[b.parent] + 1;
    const double s = std::pow(spec.taper, depth[i]);  // length and mass scale of this body
    b.joint.name = "j" + std::to_string(i);
    if (i == 0 && spec.floating_base) {
      b.joint.type = JointType::Free;
    } else {
      b.joint.type = spec.joints[r.pick(static_cast<int>(spec.joints.size()))];
      if (i == 0 && b.joint.type == JointType::Fixed) b.joint.type = JointType::Revolute;
    }
    b.joint.axis = r.axis();
    b.joint.pitch = Num::exact(r.uni(-0.2, 0.2));
    if (b.joint.type == JointType::Planar && r.pick(2) == 0) b.joint.plane_x = r.axis();
    if (b.joint.type == JointType::Planar && b.joint.plane_x) {
      // Keep plane_x well away from the normal (build_model rejects a parallel one).
      const auto& a = b.joint.axis;
      const auto& u = *b.joint.plane_x;
      const double ax = a[0].value, ay = a[1].value, az = a[2].value;
      const double ux = u[0].value, uy = u[1].value, uz = u[2].value;
      const double cx = ay * uz - az * uy, cy = az * ux - ax * uz, cz = ax * uy - ay * ux;
      const double c2 = cx * cx + cy * cy + cz * cz, a2 = ax * ax + ay * ay + az * az, u2 = ux * ux + uy * uy + uz * uz;
      if (c2 < 0.04 * a2 * u2) b.joint.plane_x.reset();
    }
    if (i > 0)
      b.origin.xyz = {Num::exact(s * r.uni(-0.5, 0.5)), Num::exact(s * r.uni(-0.5, 0.5)), Num::exact(s * r.uni(0.1, 0.8))};
    b.origin.rpy = {Num::exact(r.uni(-3, 3)), Num::exact(r.uni(-1.5, 1.5)), Num::exact(r.uni(-3, 3))};
    // Mass, COM and a rotated, physically valid rotational inertia.
    const double m = s * s * s * r.uni(0.2, 5.0);
    b.inertial.mass = Num::exact(m);
    b.inertial.com = {Num::exact(s * r.uni(-0.2, 0.2)), Num::exact(s * r.uni(-0.2, 0.2)), Num::exact(s * r.uni(-0.1, 0.4))};
    const double L2 = s * s * m;
    const double a = L2 * r.uni(0.02, 0.2), bb = L2 * r.uni(0.02, 0.2), c = L2 * r.uni(0.02, 0.2);
    const double P[3] = {bb + c, a + c, a + bb};
    // Random rotation from a random unit quaternion.
    double qw = r.uni(-1, 1), qx = r.uni(-1, 1), qy = r.uni(-1, 1), qz = r.uni(-1, 1);
    const double n = std::sqrt(qw * qw + qx * qx + qy * qy + qz * qz);
    qw /= n; qx /= n; qy /= n; qz /= n;
    const double R[3][3] = {{1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qw * qz), 2 * (qx * qz + qw * qy)},
                            {2 * (qx * qy + qw * qz), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qw * qx)},
                            {2 * (qx * qz - qw * qy), 2 * (qy * qz + qw * qx), 1 - 2 * (qx * qx + qy * qy)}};
    double I[3][3];
    for (int p = 0; p < 3; ++p)
      for (int q = 0; q < 3; ++q) {
        I[p][q] = 0;
        for (int k = 0; k < 3; ++k) I[p][q] += R[p][k] * P[k] * R[q][k];
      }
    b.inertial.I = {Num::exact(I[0][0]), Num::exact(I[1][1]), Num::exact(I[2][2]),
                    Num::exact(I[0][1]), Num::exact(I[0][2]), Num::exact(I[1][2])};
    d.bodies.push_back(b);
  }
  return d;
}

RandomState random_state(const Model<double>& model, std::uint64_t seed, double scale) {
  Rng r(seed);
  RandomState s;
  s.q.resize(model.nq);
  for (int i = 0; i < model.NB; ++i) {
    double* q = s.q.data() + model.iq[i];
    switch (model.joint[i].type) {
      case JointType::Spherical:
      case JointType::Free: {
        double n = 0;
        while (n < 0.25) {  // a well-defined direction before normalizing
          n = 0;
          for (int k = 0; k < 4; ++k) {
            q[k] = r.uni(-1, 1);
            n += q[k] * q[k];
          }
        }
        n = std::sqrt(n);
        for (int k = 0; k < 4; ++k) q[k] /= n;
        for (int k = 4; k < model.nqi[i]; ++k) q[k] = r.uni(-1, 1);
        break;
      }
      case JointType::Revolute:
      case JointType::Helical: q[0] = r.uni(-M_PI, M_PI); break;
      case JointType::Cylindrical: q[0] = r.uni(-M_PI, M_PI); q[1] = r.uni(-1, 1); break;
      case JointType::Planar: q[0] = r.uni(-1, 1); q[1] = r.uni(-1, 1); q[2] = r.uni(-M_PI, M_PI); break;
      default:
        for (int k = 0; k < model.nqi[i]; ++k) q[k] = r.uni(-1, 1);
    }
  }
  auto vec = [&](std::vector<double>& v) {
    v.resize(model.nv);
    for (double& x : v) x = r.uni(-scale, scale);
  };
  vec(s.qd);
  vec(s.qdd);
  vec(s.tau);
  return s;
}

}  // namespace rbd
