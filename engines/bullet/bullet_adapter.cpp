// Bullet adapter: see bullet_adapter.hpp and docs/engines.md ("Bullet") for the import path, the
// coordinates and Bullet's contact model. Compiled with BT_USE_DOUBLE_PRECISION against Debian's
// "-float64" libraries.
#include "engines/bullet/bullet_adapter.hpp"
#include "engines/contact_problem.hpp"
#include "engines/model_echo.hpp"
#include "engines/support.hpp"
#include "engines/values.hpp"

#include "reference/contact/kinematics.hpp"
#include "reference/tree/jcalc.hpp"
#include "reference/tree/kinematics.hpp"
#include "reference/contact/lcp.hpp"
#include "reference/tree/model.hpp"

#include <BulletCollision/CollisionDispatch/btCollisionObject.h>
#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>
#include <BulletDynamics/ConstraintSolver/btContactSolverInfo.h>
#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <BulletDynamics/Featherstone/btMultiBodyConstraintSolver.h>
#include <BulletDynamics/Featherstone/btMultiBodyLinkCollider.h>
#include <BulletDynamics/Featherstone/btMultiBodyMLCPConstraintSolver.h>
#include <BulletDynamics/MLCPSolvers/btDantzigSolver.h>
#include <LinearMath/btScalar.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/LU>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

static_assert(sizeof(btScalar) == sizeof(double), "the Bullet adapter needs Bullet's double-precision build");

namespace rbd {

namespace {

using B = bin50;
using ojson = nlohmann::ordered_json;

const B kTimeStep = B(1) / B(60);  // btContactSolverInfo's default m_timeStep
constexpr int kManySweeps = 2000;  // Gauss-Seidel run to convergence, for the diagnosis in raw

double d(const B& x) { return static_cast<double>(x); }
btVector3 btv(const Vec3<B>& v) { return btVector3(d(v(0)), d(v(1)), d(v(2))); }
Vec3<B> bv(const btVector3& v) { return Vec3<B>(B(v.x()), B(v.y()), B(v.z())); }
// The unit quaternion of a rotation matrix at 50 digits (Shepperd), as Bullet's (x, y, z, w).
btQuaternion btq(const Mat3<B>& R) {
  using std::sqrt;
  const B t = R.trace();
  B w, x, y, z;
  if (t >= R(0, 0) && t >= R(1, 1) && t >= R(2, 2)) {
    const B s = sqrt(B(B(1) + t));
    w = s / 2, x = (R(2, 1) - R(1, 2)) / (2 * s), y = (R(0, 2) - R(2, 0)) / (2 * s), z = (R(1, 0) - R(0, 1)) / (2 * s);
  } else if (R(0, 0) >= R(1, 1) && R(0, 0) >= R(2, 2)) {
    const B s = sqrt(B(B(1) + R(0, 0) - R(1, 1) - R(2, 2)));
    w = (R(2, 1) - R(1, 2)) / (2 * s), x = s / 2, y = (R(0, 1) + R(1, 0)) / (2 * s), z = (R(0, 2) + R(2, 0)) / (2 * s);
  } else if (R(1, 1) >= R(2, 2)) {
    const B s = sqrt(B(B(1) + R(1, 1) - R(0, 0) - R(2, 2)));
    w = (R(0, 2) - R(2, 0)) / (2 * s), x = (R(0, 1) + R(1, 0)) / (2 * s), y = s / 2, z = (R(1, 2) + R(2, 1)) / (2 * s);
  } else {
    const B s = sqrt(B(B(1) + R(2, 2) - R(0, 0) - R(1, 1)));
    w = (R(1, 0) - R(0, 1)) / (2 * s), x = (R(0, 2) + R(2, 0)) / (2 * s), y = (R(1, 2) + R(2, 1)) / (2 * s), z = s / 2;
  }
  return btQuaternion(d(x), d(y), d(z), d(w));
}

// Link frame of body i: COM c, principal axes V (columns, body coordinates, det +1), moments.
struct LinkFrame {
  B mass;
  Vec3<B> c, moments;
  Mat3<B> V;
};
LinkFrame link_frame(const Inertia<B>& I) {
  LinkFrame f;
  f.mass = I.mass();
  f.c = I.com();
  const Mat3<B> S = skew<B>(f.c);
  const Mat3<B> Ic = I.M.template block<3, 3>(0, 0) - f.mass * S * S.transpose();
  Eigen::SelfAdjointEigenSolver<Mat3<B>> es(Ic);
  f.V = es.eigenvectors();
  if (f.V.determinant() < B(0)) f.V.col(2) = -f.V.col(2);
  f.moments = es.eigenvalues();
  return f;
}

bool floating_root(const Model<B>& m) { return m.NB > 0 && m.parent[0] < 0 && m.joint[0].type == JointType::Free; }

// The btMultiBody of a model, its colliders and the map to rbdref's coordinates at one state.
struct BulletBody {
  std::unique_ptr<btMultiBody> mb;
  bool floating = false;
  std::vector<LinkFrame> frame;   // by rbdref body
  std::vector<int> link;          // Bullet link of each rbdref body (-1: the base)
  std::vector<int> g_index;       // index in g (Bullet's generalized velocity, base first when floating) of each rbdref DoF's first entry
  int ng = 0;                     // size of g (= nv)
  int off = 0;                    // g's offset in Bullet's velocity vector (6 for a fixed base)
  std::vector<std::unique_ptr<btMultiBodyLinkCollider>> colliders;  // by Bullet link + 1 (the base first)
  btCollisionObject ground;       // static: the world side of a contact
  MatX<B> J;                      // g = J q̇
  VecX<B> Jdot_qd;                // J̇ q̇
};

void build(BulletBody& bb, const Model<B>& m) {
  bb.floating = floating_root(m);
  for (int i = 0; i < m.NB; ++i) bb.frame.push_back(link_frame(m.I[i]));
  const int nlinks = bb.floating ? m.NB - 1 : m.NB;
  const LinkFrame& f0 = bb.frame[0];
  if (bb.floating)
    bb.mb = std::make_unique<btMultiBody>(nlinks, d(f0.mass), btv(f0.moments), false, false);
  else
    bb.mb = std::make_unique<btMultiBody>(nlinks, 1.0, btVector3(1, 1, 1), true, false);
  for (int i = 0; i < m.NB; ++i) bb.link.push_back(bb.floating ? i - 1 : i);
  for (int i = bb.floating ? 1 : 0; i < m.NB; ++i) {
    const int p = m.parent[i];
    const LinkFrame& fc = bb.frame[i];
    // The parent link's frame in the parent body's coordinates (the fixed base: the world's).
    const Mat3<B> Vp = p >= 0 ? bb.frame[p].V : Mat3<B>(Mat3<B>::Identity());
    const Vec3<B> cp = p >= 0 ? bb.frame[p].c : Vec3<B>(Vec3<B>::Zero());
    const Mat3<B> RJ = m.Xtree[i].E.transpose();
    const Vec3<B>& oJ = m.Xtree[i].r;
    const Mat3<B> Rpc = Vp.transpose() * RJ * fc.V;
    const btQuaternion rot = btq(Mat3<B>(Rpc.transpose()));  // rotParentToThis: parent link → child link
    const btVector3 pivot = btv(Vec3<B>(Vp.transpose() * (oJ - cp)));
    const btVector3 com = btv(Vec3<B>(fc.V.transpose() * fc.c));
    const btVector3 axis = btv(Vec3<B>(fc.V.transpose() * m.joint[i].axis));
    const int pl = p >= 0 ? bb.link[p] : -1;
    switch (m.joint[i].type) {
      case JointType::Revolute: bb.mb->setupRevolute(bb.link[i], d(fc.mass), btv(fc.moments), pl, rot, axis, pivot, com, true); break;
      case JointType::Prismatic: bb.mb->setupPrismatic(bb.link[i], d(fc.mass), btv(fc.moments), pl, rot, axis, pivot, com, true); break;
      case JointType::Spherical: bb.mb->setupSpherical(bb.link[i], d(fc.mass), btv(fc.moments), pl, rot, pivot, com, true); break;
      default: throw EngineError("joint '" + m.joint_name[i] + "': not supported by the Bullet adapter");
    }
  }
  bb.mb->finalizeMultiDof();
  bb.mb->setLinearDamping(0);
  bb.mb->setAngularDamping(0);
  bb.mb->setMaxCoordinateVelocity(1e30);
  bb.mb->setUseGyroTerm(true);
  bb.off = bb.floating ? 0 : 6;
  bb.ng = bb.floating ? 6 + bb.mb->getNumDofs() : bb.mb->getNumDofs();
  if (bb.ng != m.nv) throw EngineError("Bullet's multibody has " + std::to_string(bb.ng) + " DoFs, rbdref's model " + std::to_string(m.nv));
  bb.g_index.assign(m.nv, -1);
  for (int i = 0; i < m.NB; ++i) {
    const int g0 = bb.link[i] < 0 ? 0 : 6 + bb.mb->getLink(bb.link[i]).m_dofOffset - bb.off;
    for (int k = 0; k < m.nvi[i]; ++k) bb.g_index[m.iv[i] + k] = g0 + k;
  }
  bb.colliders.push_back(std::make_unique<btMultiBodyLinkCollider>(bb.mb.get(), -1));
  bb.mb->setBaseCollider(bb.colliders.back().get());
  for (int l = 0; l < nlinks; ++l) {
    bb.colliders.push_back(std::make_unique<btMultiBodyLinkCollider>(bb.mb.get(), l));
    bb.mb->getLink(l).m_collider = bb.colliders.back().get();
  }
}

// Puts the state (q, q̇) into the multibody and fills J, J̇q̇ (bullet_adapter.hpp).
void set_state(BulletBody& bb, const Model<B>& m, const VecX<B>& q, const VecX<B>& qd) {
  const TreeKinematics<B> k = kinematics<B>(m, q, qd);
  bb.J = MatX<B>::Zero(m.nv, m.nv);
  bb.Jdot_qd = VecX<B>::Zero(m.nv);
  const VecX<B> zero = VecX<B>::Zero(m.nv);
  for (int i = 0; i < m.NB; ++i) {
    const LinkFrame& f = bb.frame[i];
    const int a = m.iv[i], g = bb.g_index[a];
    switch (m.joint[i].type) {
      case JointType::Free: {  // the floating base (body 0)
        const Mat3<B> Rb = k.X0[i].E.transpose();
        const Vec3<B> w = k.v[i].ang(), v = k.v[i].lin();
        bb.mb->setBasePos(btv(Vec3<B>(k.X0[i].r + Rb * f.c)));
        bb.mb->setWorldToBaseRot(btq(Mat3<B>(Mat3<B>(Rb * f.V).transpose())));
        bb.mb->setBaseOmega(btv(Vec3<B>(Rb * w)));
        bb.mb->setBaseVel(btv(Vec3<B>(Rb * Vec3<B>(v + w.cross(f.c)))));
        bb.J.block(g, a, 3, 3) = Rb;
        bb.J.block(g + 3, a + 3, 3, 3) = Rb;
        bb.J.block(g + 3, a, 3, 3) = -Rb * skew<B>(f.c);
        bb.Jdot_qd.segment(g + 3, 3) = Rb * Vec3<B>(w.cross(Vec3<B>(v + w.cross(f.c))));
        break;
      }
      case JointType::Spherical: {
        const JointKinematics<B> jk = jcalc<B>(m.joint[i], q.data() + m.iq[i], zero.data() + a);
        const Mat3<B> Rrb = jk.XJ.E.transpose();
        const btQuaternion qb = btq(Mat3<B>(f.V.transpose() * Rrb * f.V));
        const double qq[4] = {qb.x(), qb.y(), qb.z(), qb.w()};
        bb.mb->setJointPosMultiDof(bb.link[i], qq);
        const Vec3<B> wl = f.V.transpose() * Vec3<B>(qd.segment(a, 3));
        const double ww[3] = {d(wl(0)), d(wl(1)), d(wl(2))};
        bb.mb->setJointVelMultiDof(bb.link[i], ww);
        bb.J.block(g, a, 3, 3) = f.V.transpose();
        break;
      }
      default:
        bb.mb->setJointPos(bb.link[i], d(q(m.iq[i])));
        bb.mb->setJointVel(bb.link[i], d(qd(a)));
        bb.J(g, a) = B(1);
        break;
    }
  }
}

// Bullet's generalized velocity g (without a fixed base's six zeros).
VecX<B> g_velocity(const BulletBody& bb) {
  VecX<B> g(bb.ng);
  const btScalar* v = bb.mb->getVelocityVector();
  for (int k = 0; k < bb.ng; ++k) g(k) = B(v[bb.off + k]);
  return g;
}

// Joint forces τ (rbdref) and gravity applied to the multibody: τ' = J⁻ᵀ τ.
void apply_forces(BulletBody& bb, const Model<B>& m, const VecX<B>& tau, bool gravity) {
  bb.mb->clearForcesAndTorques();
  const VecX<B> tg = bb.J.transpose().partialPivLu().solve(tau);
  for (int i = 0; i < m.NB; ++i) {
    const int g = bb.g_index[m.iv[i]];
    if (bb.link[i] < 0) {
      bb.mb->addBaseTorque(btv(Vec3<B>(tg.segment(g, 3))));
      bb.mb->addBaseForce(btv(Vec3<B>(tg.segment(g + 3, 3))));
    } else {
      for (int k = 0; k < m.nvi[i]; ++k) bb.mb->addJointTorqueMultiDof(bb.link[i], k, d(tg(g + k)));
    }
    if (gravity) {
      const btVector3 w = btv(Vec3<B>(bb.frame[i].mass * m.gravity));
      if (bb.link[i] < 0)
        bb.mb->addBaseForce(w);
      else
        bb.mb->addLinkForce(bb.link[i], w);
    }
  }
}

struct Scratch {
  btAlignedObjectArray<btScalar> r;
  btAlignedObjectArray<btVector3> v;
  btAlignedObjectArray<btMatrix3x3> m;
};
// Bullet's forward dynamics (dt = 0: nothing integrated), q̈' in g.
VecX<B> forward(BulletBody& bb, Scratch& s) {
  bb.mb->computeAccelerationsArticulatedBodyAlgorithmMultiDof(0, s.r, s.v, s.m, false, false, false);
  const int n = bb.mb->getNumDofs();
  VecX<B> a(bb.ng);
  for (int k = 0; k < bb.ng; ++k) a(k) = B(s.r[n + bb.off + k]);
  return a;
}
// M⁻¹ in g, column by column (after a forward() at the state: its caches).
MatX<B> inverse_mass(BulletBody& bb, Scratch& s, std::vector<double>& raw) {
  const int N = 6 + bb.mb->getNumDofs();
  std::vector<btScalar> e(N, 0.0), out(N, 0.0);
  MatX<B> Mi(bb.ng, bb.ng);
  for (int c = 0; c < bb.ng; ++c) {
    std::fill(e.begin(), e.end(), 0.0);
    e[bb.off + c] = 1;
    bb.mb->calcAccelerationDeltasMultiDof(e.data(), out.data(), s.r, s.v);
    for (int r = 0; r < bb.ng; ++r) {
      Mi(r, c) = B(out[bb.off + r]);
      raw.push_back(out[bb.off + r]);
    }
  }
  return Mi;
}

// Link frame origin and axes in the world as Bullet holds them, for the echo.
void link_pose(const BulletBody& bb, int link, Vec3<B>& o, Mat3<B>& R) {
  const btVector3 p = bb.mb->localPosToWorld(link, btVector3(0, 0, 0));
  const btMatrix3x3 F = bb.mb->localFrameToWorld(link, btMatrix3x3::getIdentity());
  o = bv(p);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) R(r, c) = B(F[r][c]);
}

ojson model_echo(const Model<B>& m, const BulletBody& bb, const VecX<B>& q) {
  const TreeKinematics<B> k = kinematics<B>(m, q, VecX<B>(VecX<B>::Zero(m.nv)));
  ojson bodies = ojson::array();
  EchoWorst worst({"mass_rel_err", "principal_moments_rel_err", "link_frame_world_err"});
  double pscale = 1;
  for (int i = 0; i < m.NB; ++i) {
    const LinkFrame& f = bb.frame[i];
    const int l = bb.link[i];
    const double mass = l < 0 ? bb.mb->getBaseMass() : bb.mb->getLinkMass(l);
    const btVector3 I = l < 0 ? bb.mb->getBaseInertia() : bb.mb->getLinkInertia(l);
    const double e_mass = d(B(abs(B(B(mass) - f.mass)) / f.mass));
    const double e_I = max_abs_d(Vec3<B>(bv(I) - f.moments)) / max_abs_d(f.moments);
    // The link frame in the world: rbdref's body frame moved to the COM and turned by V.
    const Mat3<B> R0 = k.X0[i].E.transpose();
    const Vec3<B> o_ref = k.X0[i].r + R0 * f.c;
    const Mat3<B> R_ref = R0 * f.V;
    Vec3<B> o;
    Mat3<B> R;
    link_pose(bb, l, o, R);
    const double e_frame = std::max(max_abs_d(Mat3<B>(R - R_ref)), max_abs_d(Vec3<B>(o - o_ref)));
    pscale = std::max(pscale, max_abs_d(o_ref));
    worst.raise({e_mass, e_I, e_frame});
    bodies.push_back({{"body", m.body_name[i]},
                      {"bullet_link", l},
                      {"mass", {{"rbdref", to_decimal(f.mass, 20)}, {"engine", mass}, {"rel_err", e_mass}}},
                      {"principal_moments_rel_err", e_I},
                      {"link_frame_world_err", e_frame}});
  }
  const double tol = kEchoTol, frame_tol = 1e3 * kEchoEps * std::max(1, m.NB) * pscale;
  const bool match = worst["mass_rel_err"] <= tol && worst["principal_moments_rel_err"] <= tol && worst["link_frame_world_err"] <= frame_tol;
  ojson echo;
  echo["engine_model"] = {{"links", bb.mb->getNumLinks()}, {"dofs", bb.mb->getNumDofs()}, {"floating_base", !bb.mb->hasFixedBase()}};
  echo["rbdref_model"] = {{"nbody", m.NB}, {"nv", m.nv}, {"contacts", static_cast<int>(m.contacts.size())}};
  echo["configuration"] = "the first sample's q";
  close_echo(echo, worst,
             {{"relative", tol}, {"link_frame", frame_tol},
              {"rule", "64 ε(double) relative for masses and principal moments; link frames (COM, principal axes) in the "
                       "world 1000 ε × bodies × max(1, model size in m)"}},
             match, bodies);
  return echo;
}

class BulletAdapter : public EngineAdapter {
 public:
  std::string name() const override { return "bullet"; }
  std::string version() const override {
    const int v = btGetVersion();
    return std::to_string(v / 100) + "." + std::to_string(v % 100);
  }
  EngineSupport support() const override {
    EngineSupport s;
    s.joints = {JointType::Revolute, JointType::Prismatic, JointType::Spherical, JointType::Free};
    s.contacts = true;
    s.impact = true;
    s.quantities = {"H", "C", "qdd", "contact_lambda", "contact_qdd", "impact_lambda", "impact_qd_plus"};
    s.import_path = "btMultiBody built in code by rbdref (links at the COMs on the principal axes)";
    s.contact_model = "velocity-level sequential impulses (10 Gauss-Seidel sweeps, h = 1/60 s, restitution above 0.2 m/s)";
    return s;
  }

  std::string unsupported(const Fixture& f) const override {
    Refusals w = contact_tree_refusals(
        "Bullet", "Bullet's friction is two decoupled directions bounded by μ times the normal impulse of the previous sweep");
    w.joint = "the Bullet adapter runs revolute, prismatic, spherical and a free root only ({type}: Bullet has no helical or "
              "cylindrical joint, and its planar joint turns about the link's COM on axes of its own choosing)";
    w.free_below_root = "a free joint below the root (Bullet's multibody has one floating base)";
    const Model<B> m = build_model<B>(f.model);
    const bool floating = floating_root(m);
    return unsupported_by(support(), w, m, [&](int i) -> std::string {
      if (i > 0 && m.parent[i] < 0) {  // a second root: Bullet's multibody is one tree, on one base
        if (m.joint[i].type == JointType::Free) return "joint '" + m.joint_name[i] + "': " + w.free_below_root;
        if (floating) return "body '" + m.body_name[i] + "': a second root beside the free-floating one (Bullet's multibody is one tree)";
      }
      const LinkFrame lf = link_frame(m.I[i]);
      if (!(lf.mass > B(0)) || !(lf.moments.minCoeff() > B(0)))
        return "body '" + m.body_name[i] + "': Bullet needs a positive mass and positive principal moments on every body";
      return "";
    });
  }

  EngineOutput run(const Fixture& f, const std::string& fixture_file) const override {
    return guarded_run(*this, f, "Bullet adapter", [&] { return run_checked(f, fixture_file); });
  }

 private:
  EngineOutput run_checked(const Fixture& f, const std::string& fixture_file) const;
};


// One solver call on the multibody as it stands (its velocities are the ones the rows see): the
// impulses, as doubles in raw, and how often the MLCP solver fell back to Gauss-Seidel.
struct Solved {
  VecX<B> impulse;
  std::vector<double> raw;
  int fallbacks = 0;
};

// The contact step and the impulsive step of one sample with Bullet's default multibody solver
// (docs/engines.md), Bullet's own model solved exactly beside them: what the two steps share, the
// sample's rigid problem, Bullet's solver settings (its defaults, h = 1/60 s) and J⁻¹J̇q̇ of the map
// g = J q̇ (bullet_adapter.hpp), what Bullet's free step adds in rbdref's terms.
struct BulletSteps {
  const Model<B>& m;
  const VecX<B>&q, &qd, &tau;
  const ContactProblem p;
  const B h = kTimeStep;
  btContactSolverInfo info;  // Bullet's defaults
  VecX<B> Jinv_Jdot_qd;

  BulletSteps(const Model<B>& m_, const VecX<B>& q_, const VecX<B>& qd_, const VecX<B>& tau_)
      : m(m_), q(q_), qd(qd_), tau(tau_), p(m_, q_, qd_, tau_) {
    info.m_timeStep = d(h);
    BulletBody bb;
    at_state(bb);
    Jinv_Jdot_qd = bb.J.partialPivLu().solve(bb.Jdot_qd);
  }
  Eigen::Index nc() const { return static_cast<Eigen::Index>(m.contacts.size()); }
  void at_state(BulletBody& bb) const {
    build(bb, m);
    set_state(bb, m, q, qd);
  }

  // Bullet's restitution target r_i for a normal velocity z_i (docs/engines.md).
  VecX<B> restitution(const VecX<B>& z) const {
    const B threshold = B(info.m_restitutionVelocityThreshold);
    VecX<B> r = VecX<B>::Zero(nc());
    for (Eigen::Index i = 0; i < nc(); ++i)
      if (abs(z(i)) >= threshold) r(i) = std::max<B>(B(0), B(-B(d(m.contacts[static_cast<size_t>(i)].e)) * z(i)));
    return r;
  }

  // Bullet's own model solved exactly, LCP(M, rhs), as model_values `step`_lambda and `step`_`v` =
  // v0 + H⁻¹T λ; beside each of Bullet's runs in raw (a JSON pointer, its v) the digits of its v
  // against the model's, relative to max(max|v0|, max|v_model|).
  void exact_model(EngineSample& es, const std::string& step, const std::string& v, const VecX<B>& rhs, const VecX<B>& v0,
                   const std::vector<std::pair<std::string, const VecX<B>*>>& runs) const {
    const LcpResult<B> lcp = solve_lcp<B>(p.M, rhs);
    if (lcp.status == LcpResult<B>::Solved) {
      const VecX<B> v_model = v0 + p.HiT * lcp.lambda;
      es.model_values[step + "_lambda"] = num_vec(lcp.lambda);
      es.model_values[step + "_" + v] = num_vec(v_model);
      const B floor = v0.cwiseAbs().maxCoeff();
      for (const auto& [where, run] : runs) es.raw[json::json_pointer(where)][v + "_digits_vs_model"] = agreement_digits(*run, v_model, floor);
    }
    es.raw["model"][step + "_lcp"] = lcp_status_name(lcp);
  }

  // One solver call with the contacts as manifold points. `exact`: Bullet's
  // btMultiBodyMLCPConstraintSolver with its Dantzig solver instead of the default Gauss-Seidel
  // sweeps (the same rows, solved to the end; it falls back to Gauss-Seidel itself where Dantzig
  // fails, which getNumFallbacks counts).
  Solved solve(BulletBody& bb, bool exact, int sweeps) const {
    const ContactKinematics<B>& ck = p.ck;
    std::vector<std::unique_ptr<btPersistentManifold>> man;
    std::vector<btPersistentManifold*> mp;
    std::vector<btCollisionObject*> bodies;
    for (auto& c : bb.colliders) {
      c->setWorldTransform(btTransform::getIdentity());
      bodies.push_back(c.get());
    }
    bodies.push_back(&bb.ground);
    const auto collider = [&](int body) -> btCollisionObject* {
      return body < 0 ? static_cast<btCollisionObject*>(&bb.ground) : bb.colliders[static_cast<size_t>(bb.link[body] + 1)].get();
    };
    for (Eigen::Index i = 0; i < nc(); ++i) {
      const Contact<B>& cn = m.contacts[static_cast<size_t>(i)];
      man.push_back(std::make_unique<btPersistentManifold>(collider(cn.s), collider(cn.p), 0, BT_LARGE_FLOAT, BT_LARGE_FLOAT));
      const btVector3 x = btv(ck.x[static_cast<size_t>(i)]), n = btv(ck.n[static_cast<size_t>(i)]);
      btManifoldPoint cp(btVector3(0, 0, 0), btVector3(0, 0, 0), n, 0);
      cp.m_positionWorldOnA = x;
      cp.m_positionWorldOnB = x;
      cp.m_combinedFriction = 0;
      cp.m_combinedRestitution = d(cn.e);
      man.back()->addManifoldPoint(cp);
      mp.push_back(man.back().get());
    }
    btDantzigSolver dantzig;
    btMultiBodyMLCPConstraintSolver mlcp(&dantzig);
    btMultiBodyConstraintSolver pgs;
    btMultiBodyConstraintSolver& solver = exact ? mlcp : pgs;
    btContactSolverInfo run_info = info;
    run_info.m_numIterations = sweeps;
    solver.solveMultiBodyGroup(bodies.data(), static_cast<int>(bodies.size()), mp.data(), static_cast<int>(mp.size()), nullptr, 0,
                               nullptr, 0, run_info, nullptr, nullptr);
    bb.mb->processDeltaVeeMultiDof2();
    Solved s;
    s.fallbacks = exact ? mlcp.getNumFallbacks() : 0;
    s.impulse.resize(nc());
    for (Eigen::Index i = 0; i < nc(); ++i) {
      s.impulse(i) = B(mp[static_cast<size_t>(i)]->getContactPoint(0).m_appliedImpulse);
      s.raw.push_back(mp[static_cast<size_t>(i)]->getContactPoint(0).m_appliedImpulse);
    }
    return s;
  }

  // One contact step (the free step, then the solver): λ = impulse / h and q̈ = J⁻¹(ġ − J̇q̇).
  void contact_run(bool exact, int sweeps, VecX<B>& lambda, VecX<B>& qdd, Solved& s) const {
    BulletBody bb;
    at_state(bb);
    const VecX<B> g0 = g_velocity(bb);
    apply_forces(bb, m, tau, true);
    Scratch sc;
    bb.mb->computeAccelerationsArticulatedBodyAlgorithmMultiDof(d(h), sc.r, sc.v, sc.m, false, false, false);
    s = solve(bb, exact, sweeps);
    const VecX<B> gdd = (g_velocity(bb) - g0) / h;
    lambda = s.impulse / h;
    qdd = bb.J.partialPivLu().solve(VecX<B>(gdd - bb.Jdot_qd));
  }

  // The contact step, with Bullet's default solver (the audited values) and, in raw, with its
  // exact MLCP solver and with Gauss-Seidel run to convergence (they tell the model from the
  // sweeps' convergence).
  void contact_step(EngineSample& es) const {
    VecX<B> lambda, qdd, lambda_x, qdd_x, lambda_c, qdd_c;
    Solved s, sx, sc;
    contact_run(false, info.m_numIterations, lambda, qdd, s);
    contact_run(true, info.m_numIterations, lambda_x, qdd_x, sx);
    contact_run(false, kManySweeps, lambda_c, qdd_c, sc);
    es.values["contact_lambda"] = num_vec(lambda);
    es.values["contact_qdd"] = num_vec(qdd);
    std::vector<double> lx, qx;
    for (Eigen::Index k = 0; k < lambda_x.size(); ++k) lx.push_back(d(lambda_x(k)));
    for (Eigen::Index k = 0; k < qdd_x.size(); ++k) qx.push_back(d(qdd_x(k)));
    es.raw["contact_step"] = {{"applied_impulse", s.raw}, {"time_step", d(h)}, {"iterations", info.m_numIterations},
                              {"mlcp_dantzig", {{"applied_impulse", sx.raw}, {"lambda", lx}, {"qdd", qx}, {"fallbacks", sx.fallbacks}}},
                              {"gauss_seidel_converged", {{"sweeps", kManySweeps}, {"applied_impulse", sc.raw}}}};
    // Bullet's free step in rbdref's coordinates: g_f = g + h (J q̈_free + J̇q̇), so
    // q̇_f = q̇ + h (q̈_free + J⁻¹J̇q̇) (the floating base integrates its world-frame velocities).
    const VecX<B> qd_f = qd + h * VecX<B>(p.qdd_free + Jinv_Jdot_qd);
    const VecX<B> zf = p.ck.Tn.transpose() * qd_f;
    exact_model(es, "contact", "qdd", VecX<B>((zf - restitution(zf)) / h), p.qdd_free,
                {{"/contact_step", &qdd}, {"/contact_step/mlcp_dantzig", &qdd_x}, {"/contact_step/gauss_seidel_converged", &qdd_c}});
  }

  // One impulsive step: the solver alone at q̇ (forward dynamics with dt = 0 for its caches).
  void impulse_run(int sweeps, VecX<B>& impulse, VecX<B>& qd_plus, std::vector<double>& raw) const {
    BulletBody bb;
    at_state(bb);
    apply_forces(bb, m, VecX<B>(VecX<B>::Zero(m.nv)), false);
    Scratch sc;
    forward(bb, sc);
    const Solved s = solve(bb, false, sweeps);
    impulse = s.impulse;
    raw = s.raw;
    qd_plus = bb.J.partialPivLu().solve(g_velocity(bb));
  }

  // The impulsive step with Bullet's default sweeps (the audited values) and run to convergence
  // (raw, the diagnosis).
  void impulsive_step(EngineSample& es) const {
    VecX<B> impulse, qd_plus, impulse_c, qd_plus_c;
    std::vector<double> raw, raw_c;
    impulse_run(info.m_numIterations, impulse, qd_plus, raw);
    impulse_run(kManySweeps, impulse_c, qd_plus_c, raw_c);
    es.values["impact_lambda"] = num_vec(impulse);
    es.values["impact_qd_plus"] = num_vec(qd_plus);
    es.raw["impact_step"] = {{"applied_impulse", raw}, {"gauss_seidel_converged", {{"sweeps", kManySweeps}, {"applied_impulse", raw_c}}}};
    exact_model(es, "impact", "qd_plus", VecX<B>(p.ck.zeta - restitution(p.ck.zeta)), qd,
                {{"/impact_step", &qd_plus}, {"/impact_step/gauss_seidel_converged", &qd_plus_c}});
  }
};

// The contact step and the impulsive step of one sample (BulletSteps).
void contact_steps(const Model<B>& m, const VecX<B>& q, const VecX<B>& qd, const VecX<B>& tau, EngineSample& es) {
  const BulletSteps steps(m, q, qd, tau);
  steps.contact_step(es);
  steps.impulsive_step(es);
}

// The conventions of Bullet's values, and of its contact steps on a model with contacts.
json conventions_of(bool has_contacts) {
  json c = {
      {"name", "bullet"},
      {"links", "btMultiBody links at the COM on the principal axes; a free root is the floating base, otherwise a fixed base"},
      {"velocities", "[ω (world), v_COM (world)] for a floating base, spherical joints' ω in the child link frame; converted by g = J q̇"},
      {"damping", "linear and angular damping 0 (Bullet's default 0.04), coordinate-velocity clamp 1e30 (default 100), gyroscopic term on"},
      {"gravity", "m g at each COM (addBaseForce/addLinkForce), as btMultiBodyDynamicsWorld applies it"},
      {"H", "the inverse (50 digits, LDLᵀ) of the symmetric part of Bullet's M⁻¹ from calcAccelerationDeltasMultiDof "
            "(unit generalized forces), converted: Jᵀ H' J; raw.Minv_asymmetry measures the part dropped"},
      {"C", "C' solving M⁻¹ C' = −q̈'₀ with q̈'₀ Bullet's forward dynamics at τ = 0, converted: Jᵀ (C' + H' J̇q̇)"},
      {"qdd", "computeAccelerationsArticulatedBodyAlgorithmMultiDof at τ' = J⁻ᵀ τ (dt = 0), converted: J⁻¹ (q̈' − J̇q̇)"},
      {"tau", "not reported: Bullet 3.24 as packaged has no inverse dynamics"}};
  if (has_contacts) {
    c["contact_model"] =
        "Bullet's velocity-level step (btMultiBodyConstraintSolver, h = 1/60 s): impulses x = hλ ≥ 0 with "
        "M x + Tᵀq̇_f − r ≥ 0, q̇_f = q̇ + h (q̈_free + J⁻¹J̇q̇) (the floating base's world-frame velocity step), "
        "r_i = max(0, −e_i t_iᵀq̇_f) where |t_iᵀq̇_f| ≥ 0.2 m/s; no Ṫᵀq̇ term; the rigid LCP where q̇ = 0; solved by "
        "projected Gauss-Seidel, 10 sweeps (Bullet's defaults), whose shortfall is Bullet's numbers";
    c["contacts"] =
        "one btManifoldPoint per contact in a manifold of its own, written by hand: position x, normal n (Bullet's "
        "normalWorldOnB, from rbdref's A into B), distance 0, friction 0, restitution e";
    c["contact_lambda"] = "m_appliedImpulse / h";
    c["contact_qdd"] = "(v⁺ − v)/h after solveMultiBodyGroup and processDeltaVeeMultiDof2, converted";
    c["impact"] = "the solver alone at q̇: impact_lambda = m_appliedImpulse, impact_qd_plus = J⁻¹ v⁺";
    c["diagnosis"] =
        "raw.contact_step / raw.impact_step: the same steps by Gauss-Seidel run to convergence (2000 sweeps) and by "
        "Bullet's MLCP solver (btMultiBodyMLCPConstraintSolver with btDantzigSolver), each with its digits against the "
        "model's exact solution";
  }
  return c;
}

EngineOutput BulletAdapter::run_checked(const Fixture& f, const std::string& fixture_file) const {
  const Model<B> m = build_model<B>(f.model);
  const int nv = m.nv;
  const bool has_contacts = !m.contacts.empty();
  EngineOutput out = output_header(*this, f, fixture_file,
                                   "btMultiBody built in code by rbdref (link frames at the COMs on the principal axes)");
  out.conventions = conventions_of(has_contacts);

  add_samples(out, f, [&](size_t si, const SampleInputs& in, EngineSample& es) {
    const auto& [q, qd, qdd_unused, tau] = in;
    BulletBody bb;
    build(bb, m);
    set_state(bb, m, q, qd);
    if (si == 0) put_model_echo(out, f, model_echo(m, bb, q));
    Scratch sc;
    apply_forces(bb, m, VecX<B>(VecX<B>::Zero(nv)), true);
    const VecX<B> a0 = forward(bb, sc);
    std::vector<double> raw_minv;
    const MatX<B> Mi = inverse_mass(bb, sc, raw_minv);
    // H' and C' from Bullet's M⁻¹: its symmetric part (the asymmetry, Bullet's column-by-column
    // rounding, is kept in raw), factored once at 50 digits; C' by a solve, not by H' q̈'₀, so
    // that M⁻¹'s rounding reaches C' amplified by κ once, not twice.
    const MatX<B> Ms = (Mi + Mi.transpose()) / B(2);
    const Eigen::LDLT<MatX<B>> ldlt(Ms);
    if (ldlt.info() != Eigen::Success || !(ldlt.vectorD().minCoeff() > B(0)))
      throw EngineError("Bullet's M⁻¹ is not positive-definite at this sample");
    const MatX<B> Hp = ldlt.solve(MatX<B>(MatX<B>::Identity(bb.ng, bb.ng)));
    const VecX<B> Cp = -ldlt.solve(a0);
    es.raw["Minv_asymmetry"] = d(B((Mi - Mi.transpose()).cwiseAbs().maxCoeff() / Mi.cwiseAbs().maxCoeff()));
    apply_forces(bb, m, tau, true);
    const VecX<B> a = forward(bb, sc);
    const MatX<B> Jt = bb.J.transpose();
    es.values["H"] = num_mat(MatX<B>(Jt * Hp * bb.J));
    es.values["C"] = num_vec(VecX<B>(Jt * VecX<B>(Cp + Hp * bb.Jdot_qd)));
    es.values["qdd"] = num_vec(VecX<B>(bb.J.partialPivLu().solve(VecX<B>(a - bb.Jdot_qd))));
    std::vector<double> ra0, ra;
    for (Eigen::Index k = 0; k < a.size(); ++k) ra0.push_back(d(a0(k))), ra.push_back(d(a(k)));
    es.raw["note"] = "Bullet's values in its generalized velocity g (base [ω; v_COM] world first when floating), before conversion";
    es.raw["Minv"] = raw_minv;  // column-major, ng × ng
    es.raw["qdd_at_zero_tau"] = ra0;
    es.raw["qdd"] = ra;
    if (has_contacts) contact_steps(m, q, qd, tau, es);
  });
  return out;
}

}  // namespace

std::unique_ptr<EngineAdapter> make_bullet_adapter() { return std::make_unique<BulletAdapter>(); }

}  // namespace rbd
