// ODE adapter: see ode_adapter.hpp and docs/engines.md ("ODE") for the import path, the step, the
// conversion and ODE's contact model.
#include "engines/ode/ode_adapter.hpp"
#include "engines/model_echo.hpp"
#include "engines/support.hpp"
#include "engines/values.hpp"

#include "reference/contact/kinematics.hpp"
#include "reference/tree/crba.hpp"
#include "reference/contact/lcp.hpp"
#include "reference/tree/model.hpp"
#include "reference/tree/rnea.hpp"

#include <ode/ode.h>

#include <Eigen/Cholesky>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace rbd {

namespace {

using B = bin50;
using ojson = nlohmann::ordered_json;

double d(const B& x) { return static_cast<double>(x); }
Vec3<B> bv(const dReal* v) { return Vec3<B>(B(v[0]), B(v[1]), B(v[2])); }

// ODE reports errors through handlers; the default ones print and abort. Ours throw, so a model or
// a step ODE refuses becomes an EngineError with ODE's message (ODE is C++, built with unwinding).
[[noreturn]] void ode_fail(int num, const char* msg, va_list ap) {
  char buf[512];
  std::vsnprintf(buf, sizeof buf, msg, ap);
  throw EngineError("ODE error " + std::to_string(num) + ": " + buf);
}
std::vector<std::string>* g_messages = nullptr;  // ODE's warnings during one step (single-threaded)
void ode_message(int num, const char* msg, va_list ap) {
  char buf[512];
  std::vsnprintf(buf, sizeof buf, msg, ap);
  if (g_messages) g_messages->push_back("ODE message " + std::to_string(num) + ": " + buf);
}
struct OdeLibrary {
  OdeLibrary() {
    dInitODE2(0);
    dSetErrorHandler(ode_fail);
    dSetDebugHandler(ode_fail);
    dSetMessageHandler(ode_message);
  }
};
void init_ode() { static OdeLibrary lib; }

// The tree at one sample, at bin50: poses, COMs, velocities, H, C (the references the conversion
// and the model values need; docs/engines.md).
struct TreeAt {
  const Model<B>& m;
  VecX<B> q, qd, tau;
  TreeKinematics<B> k;
  std::vector<Mat3<B>> R, Ic;  // world-from-body rotation; rotational inertia about the COM, body axes
  std::vector<Vec3<B>> c, p;   // COM in body coordinates; COM in world
  MatX<B> H;
  Eigen::LLT<MatX<B>> llt;
  VecX<B> C, G, C_ode;         // C(q, q̇); gravity (q̇ = 0); G + J_ωᵀ(ω × I ω)
  TreeAt(const Model<B>& m_, const VecX<B>& q_, const VecX<B>& qd_, const VecX<B>& tau_)
      : m(m_), q(q_), qd(qd_), tau(tau_), k(kinematics<B>(m_, q_, qd_)) {
    std::vector<Force<B>> gyro(m.NB);
    for (int i = 0; i < m.NB; ++i) {
      R.push_back(k.X0[i].E.transpose());
      const B mass = m.I[i].mass();
      c.push_back(m.I[i].com());
      const Mat3<B> S = skew<B>(c[i]);
      Ic.push_back(Mat3<B>(m.I[i].M.template block<3, 3>(0, 0) - mass * S * S.transpose()));
      p.push_back(Vec3<B>(k.X0[i].r + R[i] * c[i]));
      const Vec3<B> w = k.v[i].ang();
      gyro[i] = Force<B>(Vec3<B>(-w.cross(Vec3<B>(Ic[i] * w))), Vec3<B>::Zero());  // f_ext: -(ω × I ω)
    }
    H = crba<B>(m, q);
    llt.compute(H);
    C = bias<B>(m, q, qd);
    const VecX<B> zero = VecX<B>::Zero(m.nv);
    G = bias<B>(m, q, zero);
    C_ode = bias<B>(m, q, zero, &gyro);
  }
  Vec3<B> omega_w(int i) const { return R[i] * k.v[i].ang(); }
  Vec3<B> vcom_w(int i) const { return R[i] * Vec3<B>(k.v[i].lin() + k.v[i].ang().cross(c[i])); }
  // Jᵀ W for body wrenches W_i (body coordinates, about the body origin): G - bias(q, 0, W).
  VecX<B> joint_force(const std::vector<Force<B>>& W) const {
    return G - bias<B>(m, q, VecX<B>(VecX<B>::Zero(m.nv)), &W);
  }
  // The wrench of a force F (world, at the COM) and a torque N (world) on body i, body coordinates.
  Force<B> wrench(int i, const Vec3<B>& F, const Vec3<B>& N) const {
    const Vec3<B> f = R[i].transpose() * F;
    return Force<B>(Vec3<B>(R[i].transpose() * N + c[i].cross(f)), f);
  }
  // M_i V̇_i as a wrench: (I_c ω̇, m a_c) at the COM, from world ω̇, a_c.
  Force<B> inertial_wrench(int i, const Vec3<B>& dw, const Vec3<B>& dv) const {
    return wrench(i, Vec3<B>(m.I[i].mass() * dv), Vec3<B>(R[i] * (Ic[i] * (R[i].transpose() * dw))));
  }
};

// One ODE world at a sample's configuration (a new one per step: joints take their reference
// configuration when attached).
struct OdeWorld {
  dWorldID world = nullptr;
  dJointGroupID contacts = nullptr;
  std::vector<dBodyID> body;
  std::vector<dJointID> joint;                 // by rbdref body; null for free joints
  std::vector<dJointID> contact;               // by contact
  std::vector<dJointFeedback> feedback;        // by contact
  OdeWorld() = default;
  OdeWorld(const OdeWorld&) = delete;
  OdeWorld& operator=(const OdeWorld&) = delete;
  ~OdeWorld() {
    if (contacts) dJointGroupDestroy(contacts);
    if (world) dWorldDestroy(world);  // destroys its bodies and joints
  }
};

void set3(void (*fn)(dBodyID, dReal, dReal, dReal), dBodyID b, const Vec3<B>& v) { fn(b, d(v(0)), d(v(1)), d(v(2))); }

// Builds the world of tree state `t`; `dynamics`: gravity, explicit gyroscopic torques and τ
// (else the impulsive step: none of them).
void build_world(OdeWorld& w, const TreeAt& t, bool dynamics, const ContactKinematics<B>* ck) {
  const Model<B>& m = t.m;
  w.world = dWorldCreate();
  const Vec3<B> g = dynamics ? m.gravity : Vec3<B>(Vec3<B>::Zero());
  dWorldSetGravity(w.world, d(g(0)), d(g(1)), d(g(2)));
  dWorldSetERP(w.world, 0);
  dWorldSetCFM(w.world, 0);
  dWorldSetAutoDisableFlag(w.world, 0);
  dWorldSetDamping(w.world, 0, 0);
  std::vector<Vec3<B>> F(m.NB, Vec3<B>::Zero()), N(m.NB, Vec3<B>::Zero());
  for (int i = 0; i < m.NB; ++i) {
    dBodyID b = dBodyCreate(w.world);
    dMass mass;
    const Mat3<B>& I = t.Ic[i];
    dMassSetParameters(&mass, d(m.I[i].mass()), 0, 0, 0, d(I(0, 0)), d(I(1, 1)), d(I(2, 2)), d(I(0, 1)), d(I(0, 2)), d(I(1, 2)));
    dBodySetMass(b, &mass);
    set3(dBodySetPosition, b, t.p[i]);
    dMatrix3 R;
    for (int r = 0; r < 3; ++r) {
      for (int col = 0; col < 3; ++col) R[4 * r + col] = d(t.R[i](r, col));
      R[4 * r + 3] = 0;
    }
    dBodySetRotation(b, R);
    set3(dBodySetAngularVel, b, t.omega_w(i));
    set3(dBodySetLinearVel, b, t.vcom_w(i));
    dBodySetGyroscopicMode(b, 0);
    // The rotation after a step of 1 s is of no use here, but ODE's default (linearized) update
    // can fail to normalize the quaternion when |ω| h is large: the exact one cannot.
    dBodySetFiniteRotationMode(b, 1);
    w.body.push_back(b);
    if (dynamics) {
      const Vec3<B> wv = t.omega_w(i);
      N[i] -= wv.cross(Vec3<B>(t.R[i] * (I * (t.R[i].transpose() * wv))));
    }
  }
  for (int i = 0; i < m.NB; ++i) {
    const int par = m.parent[i];
    dBodyID parent = par >= 0 ? w.body[par] : nullptr;
    const Vec3<B> origin = t.k.X0[i].r;
    dJointID j = nullptr;
    switch (m.joint[i].type) {
      case JointType::Revolute: {
        const Vec3<B> a = t.R[i] * Vec3<B>(t.k.S[i].col(0).head(3));
        j = dJointCreateHinge(w.world, nullptr);
        dJointAttach(j, w.body[i], parent);
        dJointSetHingeAnchor(j, d(origin(0)), d(origin(1)), d(origin(2)));
        dJointSetHingeAxis(j, d(a(0)), d(a(1)), d(a(2)));
        break;
      }
      case JointType::Prismatic: {
        const Vec3<B> a = t.R[i] * Vec3<B>(t.k.S[i].col(0).tail(3));
        j = dJointCreateSlider(w.world, nullptr);
        dJointAttach(j, w.body[i], parent);
        dJointSetSliderAxis(j, d(a(0)), d(a(1)), d(a(2)));
        break;
      }
      case JointType::Spherical:
        j = dJointCreateBall(w.world, nullptr);
        dJointAttach(j, w.body[i], parent);
        dJointSetBallAnchor(j, d(origin(0)), d(origin(1)), d(origin(2)));
        break;
      case JointType::Free: break;
      default: throw EngineError("joint '" + m.joint_name[i] + "': not supported by the ODE adapter");
    }
    w.joint.push_back(j);
    if (dynamics) {
      // τ_i as the wrench S_i τ_i on body i and its reaction on the parent.
      const Force<B> f(Vec6<B>(t.k.S[i] * t.tau.segment(m.iv[i], m.nvi[i])));
      F[i] += t.R[i] * f.lin();
      N[i] += t.R[i] * Vec3<B>(f.ang() - t.c[i].cross(f.lin()));
      if (par >= 0) {
        const Force<B> fp = t.k.Xup[i].apply_transpose(f);
        F[par] -= t.R[par] * fp.lin();
        N[par] -= t.R[par] * Vec3<B>(fp.ang() - t.c[par].cross(fp.lin()));
      }
    }
  }
  for (int i = 0; i < m.NB; ++i) {
    set3(dBodyAddForce, w.body[i], F[i]);
    set3(dBodyAddTorque, w.body[i], N[i]);
  }
  if (!ck) return;
  w.contacts = dJointGroupCreate(0);
  w.feedback.resize(m.contacts.size());
  for (size_t ci = 0; ci < m.contacts.size(); ++ci) {
    const Contact<B>& cn = m.contacts[ci];
    dContact con;
    std::memset(&con, 0, sizeof con);
    con.surface.mode = cn.e > B(0) ? dContactBounce : 0;
    con.surface.mu = 0;
    con.surface.bounce = d(cn.e);
    con.surface.bounce_vel = 0;
    for (int r = 0; r < 3; ++r) {
      con.geom.pos[r] = d(ck->x[ci](r));
      con.geom.normal[r] = d(ck->n[ci](r));
    }
    con.geom.depth = 0;
    dJointID j = dJointCreateContact(w.world, w.contacts, &con);
    dJointAttach(j, w.body[cn.s], cn.p >= 0 ? w.body[cn.p] : nullptr);
    dJointSetFeedback(j, &w.feedback[ci]);
    w.contact.push_back(j);
  }
}

// One step of h = 1 s; ODE's velocity change per body (world) and its messages.
struct StepResult {
  std::vector<Vec3<B>> dw, dv;
  std::vector<double> w_before, v_before, w_after, v_after;  // raw, 3 per body
  std::vector<std::string> messages;
};
StepResult step(OdeWorld& w) {
  StepResult r;
  g_messages = &r.messages;
  struct Reset { ~Reset() { g_messages = nullptr; } } reset;
  for (dBodyID b : w.body) {
    const dReal* a = dBodyGetAngularVel(b);
    const dReal* l = dBodyGetLinearVel(b);
    r.w_before.insert(r.w_before.end(), a, a + 3);
    r.v_before.insert(r.v_before.end(), l, l + 3);
  }
  if (!dWorldStep(w.world, 1.0)) throw EngineError("ODE: dWorldStep failed (out of memory)");
  for (size_t i = 0; i < w.body.size(); ++i) {
    const dReal* a = dBodyGetAngularVel(w.body[i]);
    const dReal* l = dBodyGetLinearVel(w.body[i]);
    r.w_after.insert(r.w_after.end(), a, a + 3);
    r.v_after.insert(r.v_after.end(), l, l + 3);
    r.dw.push_back(Vec3<B>(bv(a) - bv(&r.w_before[3 * i])));
    r.dv.push_back(Vec3<B>(bv(l) - bv(&r.v_before[3 * i])));
  }
  return r;
}

// Jᵀ M_b ΔV: the joint-space force of the bodies' velocity changes (docs/engines.md).
VecX<B> momentum_change(const TreeAt& t, const StepResult& s) {
  std::vector<Force<B>> W(t.m.NB);
  for (int i = 0; i < t.m.NB; ++i) W[i] = t.inertial_wrench(i, s.dw[i], s.dv[i]);
  return t.joint_force(W);
}

// λ_i = n_i · f1_i, and Jᵀ of the contacts' feedback wrenches (ODE's own forces).
void contact_forces(const TreeAt& t, const OdeWorld& w, const ContactKinematics<B>& ck, VecX<B>& lambda, VecX<B>& tau_c) {
  const Model<B>& m = t.m;
  lambda.resize(static_cast<Eigen::Index>(m.contacts.size()));
  std::vector<Force<B>> W(m.NB, Force<B>());
  for (size_t ci = 0; ci < m.contacts.size(); ++ci) {
    const dJointFeedback& fb = w.feedback[ci];
    const Contact<B>& cn = m.contacts[ci];
    lambda(static_cast<Eigen::Index>(ci)) = ck.n[ci].dot(bv(fb.f1));
    W[cn.s] += t.wrench(cn.s, bv(fb.f1), bv(fb.t1));
    if (cn.p >= 0) W[cn.p] += t.wrench(cn.p, bv(fb.f2), bv(fb.t2));
  }
  tau_c = t.joint_force(W);
}

// A step with the contacts (`dynamics`: the contact step, else the impulsive step), its messages
// added to `messages`: ODE's velocity change, and λ and Jᵀ of the feedback wrenches (contact_forces).
struct ContactStep {
  StepResult s;
  VecX<B> lambda, tau_c;
};
ContactStep contact_step(const TreeAt& t, const ContactKinematics<B>& ck, bool dynamics, std::vector<std::string>& messages) {
  OdeWorld w;
  build_world(w, t, dynamics, &ck);
  ContactStep c{step(w), VecX<B>(), VecX<B>()};
  messages.insert(messages.end(), c.s.messages.begin(), c.s.messages.end());
  contact_forces(t, w, ck, c.lambda, c.tau_c);
  return c;
}

// Runs body, one of a sample's contact steps (`step`: "contact step", its quantities `prefix`*).
// ODE may fail on it where the rigid LCP has no solution (Dantzig without CFM diverges; ODE then
// asserts on the body's quaternion): the failure is kept as a message and the step's values are
// dropped; the sample's other quantities stand.
template <class Body>
void keep_step_failure(const std::string& step, const std::string& prefix, EngineSample& es, std::vector<std::string>& messages,
                       Body&& body) {
  try {
    body();
  } catch (const EngineError& err) {
    for (std::map<std::string, NumMatrix>* values : {&es.values, &es.model_values})
      for (auto it = values->begin(); it != values->end();) it = it->first.compare(0, prefix.size(), prefix) == 0 ? values->erase(it) : std::next(it);
    messages.push_back(step + ": " + err.what() + " (no " + prefix + "* values at this sample)");
  }
}

class OdeAdapter : public EngineAdapter {
 public:
  std::string name() const override { return "ode"; }
  std::string version() const override {
    return dODE_VERSION;
  }
  EngineSupport support() const override {
    EngineSupport s;
    s.joints = {JointType::Revolute, JointType::Prismatic, JointType::Spherical, JointType::Free};
    s.free_below_root = true;
    s.contacts = true;
    s.impact = true;
    s.quantities = {"qdd", "contact_lambda", "contact_qdd", "contact_tau_c", "impact_lambda", "impact_qd_plus"};
    s.import_path = "ODE world built in code by rbdref at each sample (bodies at their COMs)";
    s.contact_model = "velocity-level time step (Dantzig LCP, h = 1 s, ERP = CFM = 0): no Ṫᵀq̇, ζ/h";
    return s;
  }

  std::string unsupported(const Fixture& f) const override {
    Refusals w = contact_tree_refusals("ODE", "ODE's friction is a pyramid or box approximation of the Coulomb cone");
    w.joint = "ODE has no {type} joint in this adapter (revolute, prismatic, spherical, free only)";
    w.massless = "ODE needs a positive mass on every body";
    return unsupported_by(support(), w, build_model<double>(f.model));
  }

  EngineOutput run(const Fixture& f, const std::string& fixture_file) const override {
    return guarded_run(*this, f, "ODE adapter", [&] {
      init_ode();
      return run_checked(f, fixture_file);
    });
  }

 private:
  EngineOutput run_checked(const Fixture& f, const std::string& fixture_file) const;
};

ojson model_echo(const Model<B>& m, const TreeAt& t, const OdeWorld& w) {
  ojson bodies = ojson::array();
  EchoWorst worst({"mass_rel_err", "inertia_about_com_rel_err", "com_position_abs_err_m", "joint_axis_err"});
  for (int i = 0; i < m.NB; ++i) {
    dMass ms;
    dBodyGetMass(w.body[i], &ms);
    const B mass = m.I[i].mass();
    const double e_mass = d(B(abs(B(B(ms.mass) - mass)) / mass));
    Mat3<B> I;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) I(r, c) = B(ms.I[4 * r + c]);
    const double sI = max_abs_d(t.Ic[i]);
    const double e_I = sI > 0 ? max_abs_d(Mat3<B>(I - t.Ic[i])) / sI : max_abs_d(I);
    const double e_pos = max_abs_d(Vec3<B>(bv(dBodyGetPosition(w.body[i])) - t.p[i]));
    double e_axis = 0;
    dVector3 a;
    if (m.joint[i].type == JointType::Revolute) {
      dJointGetHingeAxis(w.joint[i], a);
      e_axis = max_abs_d(Vec3<B>(bv(a) - t.R[i] * Vec3<B>(t.k.S[i].col(0).head(3))));
    } else if (m.joint[i].type == JointType::Prismatic) {
      dJointGetSliderAxis(w.joint[i], a);
      e_axis = max_abs_d(Vec3<B>(bv(a) - t.R[i] * Vec3<B>(t.k.S[i].col(0).tail(3))));
    }
    worst.raise({e_mass, e_I, e_pos, e_axis});
    bodies.push_back({{"body", m.body_name[i]},
                      {"mass", {{"rbdref", to_decimal(mass, 20)}, {"engine", ms.mass}, {"rel_err", e_mass}}},
                      {"inertia_about_com_rel_err", e_I},
                      {"com_position_abs_err_m", e_pos},
                      {"joint_axis_err", e_axis}});
  }
  const double tol = kEchoTol;
  double pscale = 1;
  for (int i = 0; i < m.NB; ++i) pscale = std::max(pscale, max_abs_d(t.p[i]));
  int joints = 0;
  for (dJointID j : w.joint) joints += j != nullptr;
  const int nbodies = static_cast<int>(w.body.size());
  const bool match = worst["mass_rel_err"] <= tol && worst["inertia_about_com_rel_err"] <= tol && worst["joint_axis_err"] <= tol &&
                     worst["com_position_abs_err_m"] <= tol * pscale && nbodies == m.NB;
  ojson echo;
  echo["engine_model"] = {{"bodies", nbodies}, {"joints", joints}, {"contacts", static_cast<int>(w.contact.size())}};
  echo["rbdref_model"] = {{"nbody", m.NB}, {"nv", m.nv}, {"contacts", static_cast<int>(m.contacts.size())}};
  echo["configuration"] = "the first sample's q (ODE's world is built at each sample's configuration)";
  close_echo(echo, worst, {{"relative", tol}, {"rule", "64 ε(double) relative; positions × max(1, largest COM position in m)"}}, match,
             bodies);
  return echo;
}

EngineOutput OdeAdapter::run_checked(const Fixture& f, const std::string& fixture_file) const {
  const Model<B> m = build_model<B>(f.model);
  const bool has_contacts = !m.contacts.empty();
  EngineOutput out = output_header(*this, f, fixture_file,
                                   "ODE world built in code by rbdref at each sample's configuration (bodies at their COMs, "
                                   "hinge/slider/ball joints, contact joints)");
  out.conventions = {
      {"name", "ode"},
      {"bodies", "dBody at the COM, body-frame axes, mass and inertia about the COM (dMassSetParameters)"},
      {"velocities", "per body (ω, v_COM), world coordinates"},
      {"joints", "revolute: dJointCreateHinge, prismatic: dJointCreateSlider, spherical: dJointCreateBall, free: none"},
      {"step", "one dWorldStep (Dantzig LCP) of h = 1 s, ERP = 0, CFM = 0, gyroscopic mode off and -ω × I ω added "
               "explicitly; τ as equal and opposite body wrenches"},
      {"qdd", "H⁻¹ (Jᵀ M_b (V⁺ - V) - C + C_ODE): the kinetic least squares of J q̈ + J̇ q̇ = V̇ (ode_adapter.hpp)"},
      {"contacts", "dContact joints, mu = 0, bounce = e (bounce_vel 0) when e > 0, depth 0, attached (B, A)"},
      {"contact_lambda", "n · f1 of each contact joint's dJointFeedback"},
      {"contact_tau_c", "Jᵀ of the contact joints' feedback wrenches"},
      {"impact", "one step with gravity, τ and gyroscopic torque off: impact_lambda = n · f1 (h = 1), impact_qd_plus = "
                 "q̇ + H⁻¹ Jᵀ M_b (V⁺ - V)"}};
  if (has_contacts)
    out.conventions["contact_model"] =
        "ODE's velocity-level time step: contact rows J_c V⁺ ≥ c on the velocity after the step, without the "
        "rigid model's Ṫᵀq̇ term and with the separation velocity ζ/h; equal to the rigid LCP where q̇ = 0";

  add_samples(out, f, [&](size_t si, const SampleInputs& in, EngineSample& es) {
    const VecX<B>&q = in.q, &qd = in.qd, &tau = in.tau;  // not bindings: the steps' lambdas capture them
    const TreeAt t(m, q, qd, tau);
    if (t.llt.info() != Eigen::Success) throw EngineError("H is not positive-definite at this sample");
    std::vector<std::string> messages;
    // Forward dynamics without contacts.
    {
      OdeWorld w;
      build_world(w, t, true, nullptr);
      if (si == 0) put_model_echo(out, f, model_echo(m, t, w));
      const StepResult s = step(w);
      messages.insert(messages.end(), s.messages.begin(), s.messages.end());
      es.values["qdd"] = num_vec(VecX<B>(t.llt.solve(VecX<B>(momentum_change(t, s) - t.C + t.C_ode))));
      es.raw["note"] = "ODE's body velocities (world, ω then v of the COM) before and after one step of h = 1 s";
      es.raw["free"] = {{"omega_before", s.w_before}, {"v_before", s.v_before}, {"omega_after", s.w_after}, {"v_after", s.v_after}};
    }
    if (has_contacts) {
      const ContactKinematics<B> ck = contact_kinematics<B>(m, q, qd);
      const Eigen::Index nc = static_cast<Eigen::Index>(m.contacts.size());
      const MatX<B>& T = ck.Tn;
      const MatX<B> HiT = t.llt.solve(T);
      const MatX<B> M = T.transpose() * HiT;
      // ODE's rhs c of each contact row (bounce on approach; docs/engines.md), per unit h.
      VecX<B> c = VecX<B>::Zero(nc);
      for (Eigen::Index i = 0; i < nc; ++i)
        if (m.contacts[static_cast<size_t>(i)].e > B(0) && ck.zeta(i) < B(0)) c(i) = -m.contacts[static_cast<size_t>(i)].e * ck.zeta(i);
      keep_step_failure("contact step", "contact_", es, messages, [&] {
        const ContactStep cs = contact_step(t, ck, true, messages);
        es.values["contact_lambda"] = num_vec(cs.lambda);
        es.values["contact_tau_c"] = num_vec(cs.tau_c);
        es.values["contact_qdd"] = num_vec(VecX<B>(t.llt.solve(VecX<B>(momentum_change(t, cs.s) - t.C + t.C_ode))));
        es.raw["contact_step"] = {{"omega_after", cs.s.w_after}, {"v_after", cs.s.v_after}};
        // ODE's model, exactly: w = Mλ + Tᵀ H⁻¹(τ - C_ODE) + ζ - c (h = 1).
        const VecX<B> dmodel = T.transpose() * t.llt.solve(VecX<B>(tau - t.C_ode)) + ck.zeta - c;
        const LcpResult<B> lcp = solve_lcp<B>(M, dmodel);
        if (lcp.status == LcpResult<B>::Solved) {
          es.model_values["contact_lambda"] = num_vec(lcp.lambda);
          const VecX<B> Tl = T * lcp.lambda;
          es.model_values["contact_tau_c"] = num_vec(Tl);
          es.model_values["contact_qdd"] = num_vec(VecX<B>(t.llt.solve(VecX<B>(tau - t.C + Tl))));
        }
        es.raw["model"] = {{"contact_lcp", lcp_status_name(lcp)}};
      });
      keep_step_failure("impulsive step", "impact_", es, messages, [&] {
        const ContactStep cs = contact_step(t, ck, false, messages);
        es.values["impact_lambda"] = num_vec(cs.lambda);
        es.values["impact_qd_plus"] = num_vec(VecX<B>(qd + t.llt.solve(momentum_change(t, cs.s))));
        es.raw["impact_step"] = {{"omega_after", cs.s.w_after}, {"v_after", cs.s.v_after}};
        const LcpResult<B> lcp = solve_lcp<B>(M, VecX<B>(ck.zeta - c));
        if (lcp.status == LcpResult<B>::Solved) {
          es.model_values["impact_lambda"] = num_vec(lcp.lambda);
          es.model_values["impact_qd_plus"] = num_vec(VecX<B>(qd + HiT * lcp.lambda));
        }
      });
    }
    if (!messages.empty()) es.raw["engine_messages"] = messages;
  });
  return out;
}

}  // namespace

std::unique_ptr<EngineAdapter> make_ode_adapter() { return std::make_unique<OdeAdapter>(); }

}  // namespace rbd
