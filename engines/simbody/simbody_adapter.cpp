// Simbody adapter: see simbody_adapter.hpp and docs/engines.md ("Simbody") for the import path, the
// loop constraints, the model echo and the conventions. Compiled with -UNDEBUG
// (engines/CMakeLists.txt).
#include "engines/simbody/simbody_adapter.hpp"
#include "engines/model_echo.hpp"
#include "engines/support.hpp"
#include "engines/values.hpp"

#include "reference/tree/model.hpp"

#include <Simbody.h>

#include <algorithm>
#include <string>
#include <vector>

namespace rbd {

namespace {

using B = bin50;
using ojson = nlohmann::ordered_json;

double d(const B& x) { return static_cast<double>(x); }
SimTK::Vec3 sv(const Vec3<B>& v) { return SimTK::Vec3(d(v(0)), d(v(1)), d(v(2))); }
SimTK::UnitVec3 su(const Vec3<B>& v) { return SimTK::UnitVec3(d(v(0)), d(v(1)), d(v(2))); }
// A rotation whose columns are the given frame's axes; rounded once, not re-orthogonalized
// (Simbody's Rotation(Mat33) would), so the echo sees the rounding and nothing else.
SimTK::Rotation srot(const Mat3<B>& R) {
  SimTK::Mat33 m;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) m(i, j) = d(R(i, j));
  return SimTK::Rotation(m, true);
}
Vec3<B> bv(const SimTK::Vec3& v) { return Vec3<B>(B(v[0]), B(v[1]), B(v[2])); }
Mat3<B> bm(const SimTK::Mat33& m) {
  Mat3<B> R;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) R(i, j) = B(m(i, j));
  return R;
}

// b: the unit vector perpendicular to a nearest the coordinate axis least aligned with a (as in
// rbdref's loop-joint basis T_k, reference/tree/jcalc.hpp); c = a × b.
void perpendiculars(const Vec3<B>& a, Vec3<B>& b, Vec3<B>& c) {
  b = detail::perpendicular<B>(a);
  c = a.cross(b);
}

// R_a: the rotation (columns = Simbody mobilizer axes in rbdref joint-frame coordinates) that
// puts the mobilizer's own axis on the joint's: z for Pin, Cylinder, Screw; x for Slider;
// [u, n × u, n] for Planar; 1 for Ball and Free.
Mat3<B> mobilizer_axes(const Joint<B>& jt) {
  Mat3<B> R = Mat3<B>::Identity();
  Vec3<B> b, c;
  switch (jt.type) {
    case JointType::Revolute:
    case JointType::Cylindrical:
    case JointType::Helical:
      perpendiculars(jt.axis, b, c);
      R.col(0) = b, R.col(1) = c, R.col(2) = jt.axis;
      break;
    case JointType::Prismatic:
      perpendiculars(jt.axis, b, c);
      R.col(0) = jt.axis, R.col(1) = b, R.col(2) = jt.axis.cross(b);
      break;
    case JointType::Planar:
      R.col(0) = jt.u, R.col(1) = jt.axis.cross(jt.u), R.col(2) = jt.axis;
      break;
    default: break;
  }
  return R;
}

// The rotational inertia about the body origin, in body axes: Simbody's MassProperties convention.
Mat3<B> inertia_about_origin(const Inertia<B>& I) { return I.M.template block<3, 3>(0, 0); }

// The Simbody system of a model: matter, forces, one mobilized body per rbdref body, the loop
// constraints grouped by loop joint.
struct SimbodyModel {
  SimTK::MultibodySystem system;
  SimTK::SimbodyMatterSubsystem matter{system};
  SimTK::GeneralForceSubsystem forces{system};
  SimTK::Force::DiscreteForces applied{forces, matter};
  std::vector<SimTK::MobilizedBody> mob;              // by rbdref body
  std::vector<std::vector<SimTK::Constraint>> loop;   // by loop joint
  std::vector<Mat3<B>> Ra;                            // mobilizer axes of each body (see above)
  SimTK::MobilizedBody& body(int i) { return i < 0 ? matter.updGround() : mob[i]; }
};

void add_body(SimbodyModel& s, const Model<B>& m, int i) {
  const Joint<B>& jt = m.joint[i];
  const Mat3<B> Ra = mobilizer_axes(jt);
  s.Ra.push_back(Ra);
  const SimTK::Transform X_PF(srot(Mat3<B>(m.Xtree[i].E.transpose() * Ra)), sv(m.Xtree[i].r));
  const SimTK::Transform X_BM(srot(Ra), SimTK::Vec3(0));
  const Mat3<B> Io = inertia_about_origin(m.I[i]);
  const B mass = m.I[i].mass();
  const Vec3<B> com = mass > B(0) ? m.I[i].com() : Vec3<B>(Vec3<B>::Zero());
  const SimTK::Inertia inertia(d(Io(0, 0)), d(Io(1, 1)), d(Io(2, 2)), d(Io(0, 1)), d(Io(0, 2)), d(Io(1, 2)));
  const SimTK::Body::Rigid body(SimTK::MassProperties(d(mass), sv(com), inertia));
  SimTK::MobilizedBody& P = s.body(m.parent[i]);
  switch (jt.type) {
    case JointType::Revolute: s.mob.push_back(SimTK::MobilizedBody::Pin(P, X_PF, body, X_BM)); break;
    case JointType::Prismatic: s.mob.push_back(SimTK::MobilizedBody::Slider(P, X_PF, body, X_BM)); break;
    case JointType::Helical: s.mob.push_back(SimTK::MobilizedBody::Screw(P, X_PF, body, X_BM, d(jt.pitch))); break;
    case JointType::Cylindrical: s.mob.push_back(SimTK::MobilizedBody::Cylinder(P, X_PF, body, X_BM)); break;
    case JointType::Planar: s.mob.push_back(SimTK::MobilizedBody::Planar(P, X_PF, body, X_BM)); break;
    case JointType::Spherical: s.mob.push_back(SimTK::MobilizedBody::Ball(P, X_PF, body, X_BM)); break;
    case JointType::Free: s.mob.push_back(SimTK::MobilizedBody::Free(P, X_PF, body, X_BM)); break;
    case JointType::Fixed: throw EngineError("joint '" + m.joint_name[i] + "': a fixed joint survived merging");
  }
}

// The constraints of loop joint k (the table in docs/engines.md), between its joint frames P and S.
void add_loop(SimbodyModel& s, const Model<B>& m, int k) {
  const LoopJoint<B>& L = m.loops[k];
  SimTK::MobilizedBody& bp = s.body(L.p);
  SimTK::MobilizedBody& bs = s.body(L.s);
  const Mat3<B> RP = L.XP.E.transpose(), RS = L.XS.E.transpose();  // joint-frame axes in the bodies
  const Vec3<B> oP = L.XP.r, oS = L.XS.r;                           // joint-frame origins in the bodies
  const Joint<B>& jt = L.joint;
  Vec3<B> b, c;
  perpendiculars(jt.axis, b, c);
  std::vector<SimTK::Constraint>& out = s.loop[k];
  auto ball = [&] { out.push_back(SimTK::Constraint::Ball(bp, sv(oP), bs, sv(oS))); };
  // The successor's copy of `axis` stays perpendicular to the predecessor's copies of p1 and p2.
  auto keep_axis = [&](const Vec3<B>& axis, const Vec3<B>& p1, const Vec3<B>& p2) {
    out.push_back(SimTK::Constraint::ConstantAngle(bp, su(Vec3<B>(RP * p1)), bs, su(Vec3<B>(RS * axis))));
    out.push_back(SimTK::Constraint::ConstantAngle(bp, su(Vec3<B>(RP * p2)), bs, su(Vec3<B>(RS * axis))));
  };
  auto on_line = [&] {
    out.push_back(SimTK::Constraint::PointOnLine(bp, su(Vec3<B>(RP * jt.axis)), sv(oP), bs, sv(oS)));
  };
  switch (jt.type) {
    case JointType::Revolute:
      ball();
      keep_axis(jt.axis, b, c);
      break;
    case JointType::Prismatic:
      out.push_back(SimTK::Constraint::ConstantOrientation(bp, srot(RP), bs, srot(RS)));
      on_line();
      break;
    case JointType::Cylindrical:
      on_line();
      keep_axis(jt.axis, b, c);
      break;
    case JointType::Planar: {
      const Vec3<B> nP = RP * jt.axis;
      out.push_back(SimTK::Constraint::PointInPlane(bp, su(nP), d(nP.dot(oP)), bs, sv(oS)));
      keep_axis(jt.axis, jt.u, Vec3<B>(jt.axis.cross(jt.u)));
      break;
    }
    case JointType::Spherical: ball(); break;
    case JointType::Fixed:
      out.push_back(SimTK::Constraint::Weld(bp, SimTK::Transform(srot(RP), sv(oP)), bs, SimTK::Transform(srot(RS), sv(oS))));
      break;
    case JointType::Free: break;
    case JointType::Helical: throw EngineError("loop joint '" + L.name + "': Simbody has no helical constraint");
  }
}

// State-dependent map v' = J v (docs/engines.md): J and J̇v at (q, qd).
struct SimbodyMap {
  MatX<B> J;
  VecX<B> Jdot_v;
};
SimbodyMap simbody_map(const Model<B>& m, const std::vector<double>& q, const std::vector<double>& qd) {
  SimbodyMap map{MatX<B>::Zero(m.nv, m.nv), VecX<B>::Zero(m.nv)};
  for (int i = 0; i < m.NB; ++i) {
    const int c = m.iv[i];
    const double* qi = q.data() + m.iq[i];
    switch (m.joint[i].type) {
      case JointType::Spherical:
      case JointType::Free: {
        const Mat3<B> R = quat_to_R<B>(B(qi[0]), B(qi[1]), B(qi[2]), B(qi[3]));
        map.J.block(c, c, 3, 3) = R;
        if (m.joint[i].type == JointType::Free) {
          map.J.block(c + 3, c + 3, 3, 3) = R;
          const Vec3<B> w{B{qd[c]}, B{qd[c + 1]}, B{qd[c + 2]}}, v{B{qd[c + 3]}, B{qd[c + 4]}, B{qd[c + 5]}};
          map.Jdot_v.segment(c + 3, 3) = R * w.cross(v);
        }
        break;
      }
      case JointType::Planar:  // Simbody (θ, x, y) from rbdref (x, y, θ)
        map.J(c, c + 2) = B(1);
        map.J(c + 1, c) = B(1);
        map.J(c + 2, c + 1) = B(1);
        break;
      default:
        for (int k = 0; k < m.nvi[i]; ++k) map.J(c + k, c + k) = B(1);
    }
  }
  return map;
}

// Simbody's q from rbdref's: the same numbers except the planar permutation (θ, x, y).
std::vector<double> simbody_q(const Model<B>& m, const std::vector<double>& q) {
  std::vector<double> out(q);
  for (int i = 0; i < m.NB; ++i)
    if (m.joint[i].type == JointType::Planar) {
      const int a = m.iq[i];
      out[a] = q[a + 2], out[a + 1] = q[a], out[a + 2] = q[a + 1];
    }
  return out;
}

// The model echo: Simbody's model read back (default mass properties, mobilizer frames, the
// number of constraint equations) and compared with rbdref's at 50 digits.
ojson model_echo(SimbodyModel& s, const Model<B>& m, const SimTK::State& st) {
  ojson bodies = ojson::array();
  EchoWorst worst(
      {"mass_rel_err", "com_abs_err_m", "inertia_about_origin_rel_err", "frame_pos_abs_err_m", "frame_rot_err", "joint_axis_err"});
  for (int i = 0; i < m.NB; ++i) {
    const SimTK::MobilizedBody& mb = s.mob[i];
    const SimTK::MassProperties& mp = mb.getBodyMassProperties(st);
    const B mass = m.I[i].mass();
    const Vec3<B> com = mass > B(0) ? m.I[i].com() : Vec3<B>(Vec3<B>::Zero());
    const Mat3<B> Io = inertia_about_origin(m.I[i]);
    const double e_mass = mass > B(0) ? d(B(abs(B(B(mp.getMass()) - mass)) / mass)) : std::abs(mp.getMass());
    const double e_com = max_abs_d(Vec3<B>(bv(mp.getMassCenter()) - com));
    const Mat3<B> Io_sb = bm(mp.getInertia().toMat33());
    const double sI = max_abs_d(Io);
    const double e_I = sI > 0 ? max_abs_d(Mat3<B>(Io_sb - Io)) / sI : max_abs_d(Io_sb);
    // Mobilizer frames back to rbdref's joint frame: F R_aᵀ is the joint frame in the parent, M
    // R_aᵀ is the body frame itself (identity), and the mobilizer axis in joint coordinates.
    const SimTK::Transform& X_PF = mb.getDefaultInboardFrame();
    const SimTK::Transform& X_BM = mb.getDefaultOutboardFrame();
    const Mat3<B> R_PF = bm(X_PF.R().asMat33()), R_BM = bm(X_BM.R().asMat33());
    const double e_pos = std::max(max_abs_d(Vec3<B>(bv(X_PF.p()) - m.Xtree[i].r)), max_abs_d(bv(X_BM.p())));
    const double e_rot = std::max(max_abs_d(Mat3<B>(R_PF * s.Ra[i].transpose() - m.Xtree[i].E.transpose())),
                                  max_abs_d(Mat3<B>(R_BM * s.Ra[i].transpose() - Mat3<B>::Identity())));
    double e_axis = 0;
    const Joint<B>& jt = m.joint[i];
    const Mat3<B> Ra_sb = m.Xtree[i].E * R_PF;  // the mobilizer axes as Simbody holds them, joint coordinates
    switch (jt.type) {
      case JointType::Revolute:
      case JointType::Cylindrical:
      case JointType::Helical: e_axis = max_abs_d(Vec3<B>(Ra_sb.col(2) - jt.axis)); break;
      case JointType::Prismatic: e_axis = max_abs_d(Vec3<B>(Ra_sb.col(0) - jt.axis)); break;
      case JointType::Planar:
        e_axis = std::max(max_abs_d(Vec3<B>(Ra_sb.col(2) - jt.axis)), max_abs_d(Vec3<B>(Ra_sb.col(0) - jt.u)));
        break;
      default: break;
    }
    worst.raise({e_mass, e_com, e_I, e_pos, e_rot, e_axis});
    bodies.push_back({{"body", m.body_name[i]},
                      {"mass", {{"rbdref", to_decimal(mass, 20)}, {"engine", mp.getMass()}, {"rel_err", e_mass}}},
                      {"com_abs_err_m", e_com},
                      {"inertia_about_origin_rel_err", e_I},
                      {"frame_pos_abs_err_m", e_pos},
                      {"frame_rot_err", e_rot},
                      {"joint_axis_err", e_axis}});
  }
  const int n_eq = st.getNMultipliers();
  const double tol = kEchoTol;
  double pscale = 1;
  for (int i = 0; i < m.NB; ++i) pscale = std::max(pscale, max_abs_d(m.Xtree[i].r));
  const bool match = worst["mass_rel_err"] <= tol && worst["inertia_about_origin_rel_err"] <= tol && worst["frame_rot_err"] <= tol &&
                     worst["joint_axis_err"] <= tol && worst["com_abs_err_m"] <= tol && worst["frame_pos_abs_err_m"] <= tol * pscale &&
                     n_eq == m.nc;
  ojson echo;
  echo["engine_model"] = {{"nbody", s.matter.getNumBodies() - 1},
                          {"nq", st.getNQ()},
                          {"nu", st.getNU()},
                          {"constraints", s.matter.getNumConstraints()},
                          {"constraint_equations", n_eq}};
  echo["rbdref_model"] = {{"nbody", m.NB}, {"nq", m.nq}, {"nv", m.nv}, {"loop_joints", m.loops.size()}, {"n_constraints", m.nc}};
  close_echo(echo, worst,
             {{"relative", tol},
              {"rule", "64 ε(double) relative; positions × max(1, largest joint offset in m); Simbody's constraint equations = rbdref's n^c"}},
             match, bodies);
  return echo;
}

VecX<B> bvec(const SimTK::Vector& x) {
  VecX<B> v(x.size());
  for (int k = 0; k < x.size(); ++k) v(k) = B(x[k]);
  return v;
}
SimTK::Vector svec(const VecX<B>& x) {
  SimTK::Vector v(static_cast<int>(x.size()));
  for (int k = 0; k < v.size(); ++k) v[k] = d(x(k));
  return v;
}
std::vector<double> dvec(const SimTK::Vector& x) { return std::vector<double>(&x[0], &x[0] + x.size()); }

// λ in rbdref's bases (docs/loops.md): for each loop joint k, the spatial force its constraints
// exert on the successor s(k), as a moment about the successor joint frame's origin and a force,
// in that frame's axes, projected on T_k (orthonormal: λ_k = T_kᵀ f_k). Simbody reports each
// constraint's forces on its constrained bodies at the body origins, in Ground, with the sign of
// a constraint force (M u̇ + Gᵀλ = f_applied): the force acting on the body is the negative.
// When s(k) is the base, the force on s is minus the force on p(k) (action and reaction).
VecX<B> loop_lambda(SimbodyModel& s, const Model<B>& m, const SimTK::State& st) {
  VecX<B> lambda = VecX<B>::Zero(m.nc);
  for (size_t k = 0; k < m.loops.size(); ++k) {
    const LoopJoint<B>& L = m.loops[k];
    if (L.nc == 0) continue;
    const bool use_s = L.s >= 0;
    const SimTK::MobilizedBodyIndex target = s.body(use_s ? L.s : L.p).getMobilizedBodyIndex();
    Vec3<B> n_G = Vec3<B>::Zero(), f_G = Vec3<B>::Zero();  // on `target`, about its origin, Ground axes
    for (const SimTK::Constraint& c : s.loop[k]) {
      const SimTK::Vector_<SimTK::SpatialVec> F = c.getConstrainedBodyForcesAsVector(st);
      for (SimTK::ConstrainedBodyIndex ix(0); ix < c.getNumConstrainedBodies(); ++ix)
        if (c.getMobilizedBodyFromConstrainedBody(ix).getMobilizedBodyIndex() == target) {
          n_G -= bv(F[ix][0]);
          f_G -= bv(F[ix][1]);
        }
    }
    const SimTK::Transform& X_GT = s.body(use_s ? L.s : L.p).getBodyTransform(st);
    const Vec3<B> o = bv(X_GT.p());
    if (!use_s) n_G = -n_G, f_G = -f_G;  // the reaction, on the base, still about o
    // The successor joint frame in Ground.
    const SimTK::Transform& X_GS_body = L.s >= 0 ? s.body(L.s).getBodyTransform(st) : SimTK::Transform();
    const Mat3<B> R_GB = bm(X_GS_body.R().asMat33());
    const Vec3<B> x = bv(X_GS_body.p()) + R_GB * L.XS.r;
    const Mat3<B> R_GS = R_GB * L.XS.E.transpose();
    const Vec3<B> n_x = n_G + (o - x).cross(f_G);
    VecX<B> f(6);
    f << R_GS.transpose() * n_x, R_GS.transpose() * f_G;
    lambda.segment(L.row, L.nc) = loop_constraint_basis<B>(L.joint).transpose() * f;
  }
  return lambda;
}

class SimbodyAdapter : public EngineAdapter {
 public:
  std::string name() const override { return "simbody"; }
  std::string version() const override {
    int major = 0, minor = 0, build = 0;
    SimTK_version_simbody(&major, &minor, &build);
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(build);
  }
  EngineSupport support() const override {
    EngineSupport s;
    s.joints = {JointType::Revolute, JointType::Prismatic, JointType::Helical, JointType::Cylindrical, JointType::Planar,
                JointType::Spherical, JointType::Free};
    s.free_below_root = true;
    s.loop_joints = {JointType::Revolute, JointType::Prismatic, JointType::Cylindrical, JointType::Planar, JointType::Spherical,
                     JointType::Fixed};
    s.quantities = {"H", "C", "tau", "qdd", "tau_c", "lambda"};
    s.import_path = "SimbodyMatterSubsystem built in code by rbdref (mobilizers turned onto the joint axes)";
    return s;
  }

  std::string unsupported(const Fixture& f) const override {
    Refusals w;
    w.loop = "Simbody has no built-in constraint for a helical (screw) loop joint";  // the one type it lacks
    const Model<double> m = build_model<double>(f.model);
    if (std::string why = unsupported_by(support(), w, m); !why.empty()) return why;
    if (const std::string bad = inertia_triangle_violation(m); !bad.empty()) return bad + ": Simbody's Inertia refuses a non-physical inertia";
    return "";
  }

  EngineOutput run(const Fixture& f, const std::string& fixture_file) const override {
    return guarded_run(*this, f, "Simbody", [&] { return run_checked(f, fixture_file); });
  }

 private:
  EngineOutput run_checked(const Fixture& f, const std::string& fixture_file) const;
};

EngineOutput SimbodyAdapter::run_checked(const Fixture& f, const std::string& fixture_file) const {
  const Model<B> m = build_model<B>(f.model);
  SimbodyModel s;
  SimTK::Force::UniformGravity(s.forces, s.matter, sv(m.gravity));
  s.mob.reserve(m.NB);  // add_body holds a reference to the parent's handle while it appends
  for (int i = 0; i < m.NB; ++i) add_body(s, m, i);
  s.loop.resize(m.loops.size());
  for (size_t k = 0; k < m.loops.size(); ++k) add_loop(s, m, static_cast<int>(k));
  SimTK::State st = s.system.realizeTopology();
  s.system.realizeModel(st);
  if (st.getNQ() != m.nq || st.getNU() != m.nv)
    throw EngineError("Simbody's system has nq " + std::to_string(st.getNQ()) + ", nu " + std::to_string(st.getNU()) +
                      "; rbdref's model has nq " + std::to_string(m.nq) + ", nv " + std::to_string(m.nv));
  const int nv = m.nv;

  EngineOutput out = output_header(*this, f, fixture_file,
                                   "Simbody system built in code by rbdref from the fixture's model (mobilizers, constraints)");
  out.conventions = {
      {"name", "simbody"},
      {"inertia", "MassProperties(mass, COM, inertia about the body origin), body frame"},
      {"mobilizers", "Pin/Cylinder/Screw about z, Slider along x, Planar (θ about z, x, y) of frames F, M turned onto the joint axis"},
      {"ball_u", "w_FM expressed in F (rbdref: ω in body coordinates)"},
      {"free_q", "quaternion (w x y z), then translation of M in F, F coordinates"},
      {"free_u", "w_FM, v_FM, both in F (rbdref: ω, v in body coordinates)"},
      {"planar_q", "θ, x, y (rbdref: x, y, θ)"},
      {"loop_joints", "Constraint::Ball, ConstantAngle, PointOnLine, PointInPlane, ConstantOrientation, Weld (simbody_adapter.hpp)"},
      {"H", "calcM"},
      {"C", "calcResidualForceIgnoringConstraints(udot = 0) with the gravity body forces"},
      {"tau", "calcResidualForceIgnoringConstraints(udot = J qdd + J̇v): the tree's inverse dynamics"},
      {"qdd", "getUDot after realize(Acceleration) with τ as DiscreteForces: constrained on a loop model"},
      {"tau_c", "-(Gᵀλ) from calcConstraintForcesFromMultipliers and the system Jacobian transpose"},
      {"lambda", "each loop joint's constraint force on its successor, in the successor joint frame, on rbdref's T_k"},
      {"converted_to", "rbdref canonical: H = Jᵀ H' J, C = Jᵀ (C' + H' J̇v), tau = Jᵀ tau', qdd = Jᵀ (u̇ - J̇v), tau_c = Jᵀ tau_c'"}};
  s.system.realize(st, SimTK::Stage::Instance);
  put_model_echo(out, f, model_echo(s, m, st));

  for (const Sample& smp : f.samples) {
    EngineSample es = engine_sample_of(smp);
    const SimbodyMap map = simbody_map(m, smp.q, smp.qd);
    const VecX<B> qd = Eigen::Map<const VecX<double>>(smp.qd.data(), nv).cast<B>();
    const VecX<B> qdd = Eigen::Map<const VecX<double>>(smp.qdd.data(), nv).cast<B>();
    const VecX<B> tau = Eigen::Map<const VecX<double>>(smp.tau.data(), nv).cast<B>();
    const std::vector<double> q_sb = simbody_q(m, smp.q);

    SimTK::Vector q(m.nq);
    for (int k = 0; k < m.nq; ++k) q[k] = q_sb[k];
    st.updQ() = q;
    st.updU() = svec(VecX<B>(map.J * qd));
    s.applied.clearAllMobilityForces(st);
    s.system.realize(st, SimTK::Stage::Dynamics);
    // Gravity (the only force element left on) as Simbody applies it.
    const SimTK::Vector_<SimTK::SpatialVec> Fg = s.system.getRigidBodyForces(st, SimTK::Stage::Dynamics);
    const SimTK::Vector Fm = s.system.getMobilityForces(st, SimTK::Stage::Dynamics);
    SimTK::Matrix M;
    s.matter.calcM(st, M);
    SimTK::Vector bias, finv;
    s.matter.calcResidualForceIgnoringConstraints(st, Fm, Fg, SimTK::Vector(nv, 0.0), bias);
    const SimTK::Vector udot_in = svec(VecX<B>(map.J * qdd + map.Jdot_v));
    s.matter.calcResidualForceIgnoringConstraints(st, Fm, Fg, udot_in, finv);

    // Forward dynamics with τ' = J τ applied (J orthogonal: generalized forces map by J too).
    const SimTK::Vector tau_sb = svec(VecX<B>(map.J * tau));
    s.applied.setAllMobilityForces(st, tau_sb);
    s.system.realize(st, SimTK::Stage::Acceleration);
    const SimTK::Vector udot = st.getUDot();

    MatX<B> Hp(nv, nv);
    for (int i = 0; i < nv; ++i)
      for (int j = 0; j < nv; ++j) Hp(i, j) = B(M(i, j));
    const MatX<B> Jt = map.J.transpose();
    es.values["H"] = num_mat(MatX<B>(Jt * Hp * map.J));
    es.values["C"] = num_vec(VecX<B>(Jt * (bvec(bias) + Hp * map.Jdot_v)));
    es.values["tau"] = num_vec(VecX<B>(Jt * bvec(finv)));
    es.values["qdd"] = num_vec(VecX<B>(Jt * (bvec(udot) - map.Jdot_v)));

    es.raw["note"] = "values in Simbody's conventions (q, u of its mobilizers), before conversion";
    es.raw["q"] = dvec(st.getQ());
    es.raw["u"] = dvec(st.getU());
    es.raw["udot_in"] = dvec(udot_in);
    es.raw["applied_mobility_forces"] = dvec(tau_sb);
    es.raw["C"] = dvec(bias);
    es.raw["tau"] = dvec(finv);
    es.raw["udot"] = dvec(udot);

    if (m.nc > 0) {
      // τ_c' = −Gᵀλ: Simbody's constraint forces from its multipliers (body forces in G at the
      // body origins, mobility forces), body forces mapped to mobility forces by Jᵀ.
      const SimTK::Vector lambda_sb = st.getMultipliers();
      SimTK::Vector_<SimTK::SpatialVec> Fc;
      SimTK::Vector fc_mob, fc_body;
      s.matter.calcConstraintForcesFromMultipliers(st, lambda_sb, Fc, fc_mob);
      s.matter.multiplyBySystemJacobianTranspose(st, Fc, fc_body);
      const VecX<B> tau_c_sb = -(bvec(fc_body) + bvec(fc_mob));
      es.values["tau_c"] = num_vec(VecX<B>(Jt * tau_c_sb));
      es.raw["multipliers"] = dvec(lambda_sb);
      es.raw["tau_c"] = dvec(svec(tau_c_sb));
      es.values["lambda"] = num_vec(loop_lambda(s, m, st));
    }
    out.samples.push_back(std::move(es));
  }
  return out;
}

}  // namespace

std::unique_ptr<EngineAdapter> make_simbody_adapter() { return std::make_unique<SimbodyAdapter>(); }

}  // namespace rbd
