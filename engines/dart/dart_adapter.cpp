// DART adapter: see dart_adapter.hpp and docs/engines.md ("DART") for the import path, the
// conventions and DART's contact model.
// Only DART's specific headers are included (the umbrella dart/dart.hpp pulls in optional parts).
#include "engines/dart/dart_adapter.hpp"
#include "engines/contact_problem.hpp"
#include "engines/model_echo.hpp"
#include "engines/support.hpp"
#include "engines/values.hpp"

#include "reference/contact/kinematics.hpp"
#include "reference/tree/jcalc.hpp"
#include "reference/contact/lcp.hpp"
#include "reference/tree/model.hpp"

#include <dart/collision/CollisionObject.hpp>
#include <dart/collision/Contact.hpp>
#include <dart/config.hpp>
#include <dart/constraint/BoxedLcpConstraintSolver.hpp>
#include <dart/constraint/ConstraintSolver.hpp>
#include <dart/constraint/ContactConstraint.hpp>
#include <dart/dynamics/BallJoint.hpp>
#include <dart/dynamics/BodyNode.hpp>
#include <dart/dynamics/FreeJoint.hpp>
#include <dart/dynamics/PlanarJoint.hpp>
#include <dart/dynamics/PrismaticJoint.hpp>
#include <dart/dynamics/RevoluteJoint.hpp>
#include <dart/dynamics/ScrewJoint.hpp>
#include <dart/dynamics/ShapeNode.hpp>
#include <dart/dynamics/Skeleton.hpp>
#include <dart/dynamics/SphereShape.hpp>
#include <dart/dynamics/WeldJoint.hpp>
#include <dart/math/Geometry.hpp>
#include <dart/simulation/World.hpp>
#ifdef RBDREF_HAVE_DART_URDF
#include <dart/utils/urdf/DartLoader.hpp>
#endif

#include <climits>
#include <cstdlib>

#include <Eigen/Cholesky>

#include <algorithm>
#include <string>
#include <vector>

namespace rbd {

namespace {

using B = bin50;
using ojson = nlohmann::ordered_json;
namespace dd = dart::dynamics;

constexpr double kTimeStep = 0.001;  // DART's default World time step
const char* const kMassless = "DART needs a positive mass on every body";
const B kTwoPi = B(2) * boost::math::constants::pi<B>();

double d(const B& x) { return static_cast<double>(x); }
Eigen::Vector3d dv3(const Vec3<B>& v) { return Eigen::Vector3d(d(v(0)), d(v(1)), d(v(2))); }
Vec3<B> bv3(const Eigen::Vector3d& v) { return Vec3<B>(B(v(0)), B(v(1)), B(v(2))); }
Eigen::Matrix3d dm3(const Mat3<B>& A) {
  Eigen::Matrix3d r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r(i, j) = d(A(i, j));
  return r;
}
// The frame an Xform places (X = BXA: B's axes are the columns of Eᵀ in A, its origin r) as DART's
// pose of B in A.
Eigen::Isometry3d iso(const Xform<B>& X) {
  Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
  T.linear() = dm3(Mat3<B>(X.E.transpose()));
  T.translation() = dv3(X.r);
  return T;
}

// A collision object with no collision geometry: DART's ContactConstraint reads only the ShapeNode
// of each side from its Contact's objects, and this is how a contact the adapter places (not one
// DART's collision detection found) carries them. CollisionObject's constructor is protected for
// exactly such subclasses.
class PlacedObject : public dart::collision::CollisionObject {
 public:
  PlacedObject(dart::collision::CollisionDetector* det, const dd::ShapeFrame* frame) : CollisionObject(det, frame) {}

 protected:
  void updateEngineData() override {}
};

// One DART world with the model's skeleton (and an immobile ground for contacts with the world).
struct DartWorld {
  dart::simulation::WorldPtr world;
  dd::SkeletonPtr skel, ground;
  std::vector<dd::BodyNode*> body;   // by rbdref body
  std::vector<dd::Joint*> joint;     // by rbdref body
  std::vector<int> dof;              // DART's index of each rbdref DoF
  // Contacts: the Contact records (DART's constraints keep references to them), their objects.
  std::vector<dart::collision::Contact> contact;
  std::vector<std::unique_ptr<PlacedObject>> objects;
  std::vector<std::shared_ptr<dart::constraint::ContactConstraint>> constraint;
};

dd::BodyNode* add_body(DartWorld& w, const Model<B>& m, int i) {
  dd::BodyNode* parent = m.parent[i] >= 0 ? w.body[m.parent[i]] : nullptr;
  dd::BodyNode::Properties bp;
  bp.mName = m.body_name[i];
  const Joint<B>& jt = m.joint[i];
  dd::Joint* j = nullptr;
  dd::BodyNode* bn = nullptr;
  switch (jt.type) {
    case JointType::Revolute: {
      auto pr = w.skel->createJointAndBodyNodePair<dd::RevoluteJoint>(parent, dd::RevoluteJoint::Properties(), bp);
      pr.first->setAxis(dv3(jt.axis));
      j = pr.first, bn = pr.second;
      break;
    }
    case JointType::Prismatic: {
      auto pr = w.skel->createJointAndBodyNodePair<dd::PrismaticJoint>(parent, dd::PrismaticJoint::Properties(), bp);
      pr.first->setAxis(dv3(jt.axis));
      j = pr.first, bn = pr.second;
      break;
    }
    case JointType::Helical: {
      auto pr = w.skel->createJointAndBodyNodePair<dd::ScrewJoint>(parent, dd::ScrewJoint::Properties(), bp);
      pr.first->setAxis(dv3(jt.axis));
      pr.first->setPitch(d(B(jt.pitch * kTwoPi)));  // DART: translation per turn
      j = pr.first, bn = pr.second;
      break;
    }
    case JointType::Planar: {
      auto pr = w.skel->createJointAndBodyNodePair<dd::PlanarJoint>(parent, dd::PlanarJoint::Properties(), bp);
      pr.first->setArbitraryPlane(dv3(jt.u), dv3(Vec3<B>(jt.axis.cross(jt.u))));
      j = pr.first, bn = pr.second;
      break;
    }
    case JointType::Spherical: {
      auto pr = w.skel->createJointAndBodyNodePair<dd::BallJoint>(parent, dd::BallJoint::Properties(), bp);
      j = pr.first, bn = pr.second;
      break;
    }
    case JointType::Free: {
      auto pr = w.skel->createJointAndBodyNodePair<dd::FreeJoint>(parent, dd::FreeJoint::Properties(), bp);
      j = pr.first, bn = pr.second;
      break;
    }
    default: throw EngineError("joint '" + m.joint_name[i] + "': not supported by the DART adapter");
  }
  j->setName(m.joint_name[i]);
  j->setTransformFromParentBodyNode(iso(m.Xtree[i]));
  j->setTransformFromChildBodyNode(Eigen::Isometry3d::Identity());
  const B mass = m.I[i].mass();
  const Vec3<B> c = m.I[i].com();
  const Mat3<B> S = skew<B>(c);
  const Mat3<B> Ic = m.I[i].M.template block<3, 3>(0, 0) - mass * S * S.transpose();
  bn->setInertia(dd::Inertia(d(mass), dv3(c), dm3(Ic)));
  return bn;
}

// The skeleton of model m (h = kTimeStep, the model's gravity).
void build_skeleton(DartWorld& w, const Model<B>& m) {
  w.world = dart::simulation::World::create("rbdref");
  w.world->setTimeStep(kTimeStep);
  w.world->setGravity(dv3(m.gravity));
  w.skel = dd::Skeleton::create(m.name.empty() ? "model" : m.name);
  for (int i = 0; i < m.NB; ++i) {
    w.body.push_back(add_body(w, m, i));
    w.joint.push_back(w.body.back()->getParentJoint());
  }
  w.world->addSkeleton(w.skel);
  for (int i = 0; i < m.NB; ++i)
    for (int k = 0; k < m.nvi[i]; ++k) w.dof.push_back(static_cast<int>(w.joint[i]->getIndexInSkeleton(static_cast<std::size_t>(k))));
}

// rbdref's q as DART's positions (exponential coordinates for ball and free joints).
Eigen::VectorXd dart_positions(const DartWorld& w, const Model<B>& m, const VecX<B>& q) {
  Eigen::VectorXd p(m.nv);
  const VecX<B> zero = VecX<B>::Zero(m.nv);
  for (int i = 0; i < m.NB; ++i) {
    const int a = w.dof[m.iv[i]];
    const JointType t = m.joint[i].type;
    if (t == JointType::Spherical || t == JointType::Free) {
      const JointKinematics<B> jk = jcalc<B>(m.joint[i], q.data() + m.iq[i], zero.data() + m.iv[i]);
      if (t == JointType::Spherical) {
        p.segment<3>(a) = dd::BallJoint::convertToPositions(Eigen::Matrix3d(dm3(Mat3<B>(jk.XJ.E.transpose()))));
      } else {
        p.segment<6>(a) = dd::FreeJoint::convertToPositions(iso(jk.XJ));
      }
    } else {
      for (int k = 0; k < m.nqi[i]; ++k) p(w.dof[m.iv[i] + k]) = d(q(m.iq[i] + k));
    }
  }
  return p;
}
// A joint-space vector between rbdref's DoF order and DART's.
Eigen::VectorXd to_dart(const DartWorld& w, const VecX<B>& x) {
  Eigen::VectorXd r(x.size());
  for (Eigen::Index k = 0; k < x.size(); ++k) r(w.dof[static_cast<size_t>(k)]) = d(x(k));
  return r;
}
VecX<B> from_dart(const DartWorld& w, const Eigen::VectorXd& x) {
  VecX<B> r(x.size());
  for (Eigen::Index k = 0; k < x.size(); ++k) r(k) = B(x(w.dof[static_cast<size_t>(k)]));
  return r;
}
MatX<B> from_dart(const DartWorld& w, const Eigen::MatrixXd& A) {
  MatX<B> r(A.rows(), A.cols());
  for (Eigen::Index i = 0; i < A.rows(); ++i)
    for (Eigen::Index j = 0; j < A.cols(); ++j) r(i, j) = B(A(w.dof[static_cast<size_t>(i)], w.dof[static_cast<size_t>(j)]));
  return r;
}

void set_state(DartWorld& w, const Model<B>& m, const VecX<B>& q, const VecX<B>& qd, const VecX<B>& tau) {
  w.skel->setPositions(dart_positions(w, m, q));
  w.skel->setVelocities(to_dart(w, qd));
  w.skel->setForces(to_dart(w, tau));
}

// The model's contacts as DART ContactConstraints in the world's constraint solver, at the state
// set (docs/engines.md): a ShapeNode per side per contact (dynamics aspect only: no collision).
void add_contacts(DartWorld& w, const Model<B>& m, const ContactKinematics<B>& ck) {
  if (!w.ground) {
    w.ground = dd::Skeleton::create("rbdref_ground");
    dd::BodyNode::Properties bp;
    bp.mName = "world";
    w.ground->createJointAndBodyNodePair<dd::WeldJoint>(nullptr, dd::WeldJoint::Properties(), bp);
    w.ground->setMobile(false);
    w.world->addSkeleton(w.ground);
  }
  dd::BodyNode* world_body = w.ground->getBodyNode(0);
  auto* det = w.world->getConstraintSolver()->getCollisionDetector().get();
  const size_t nc = m.contacts.size();
  w.contact.resize(nc);  // never resized again: the constraints hold references into it
  for (size_t ci = 0; ci < nc; ++ci) {
    const Contact<B>& cn = m.contacts[ci];
    auto shape = std::make_shared<dd::SphereShape>(1e-3);
    dd::ShapeNode* sb = w.body[cn.s]->createShapeNodeWith<dd::DynamicsAspect>(shape);
    dd::ShapeNode* sa = (cn.p >= 0 ? w.body[cn.p] : world_body)->createShapeNodeWith<dd::DynamicsAspect>(shape);
    sb->getDynamicsAspect()->setFrictionCoeff(0);
    sa->getDynamicsAspect()->setFrictionCoeff(0);
    sb->getDynamicsAspect()->setRestitutionCoeff(d(cn.e));
    sa->getDynamicsAspect()->setRestitutionCoeff(1);
    w.objects.push_back(std::make_unique<PlacedObject>(det, sb));
    PlacedObject* ob = w.objects.back().get();
    w.objects.push_back(std::make_unique<PlacedObject>(det, sa));
    PlacedObject* oa = w.objects.back().get();
    dart::collision::Contact& c = w.contact[ci];
    c.point = dv3(ck.x[ci]);
    c.normal = dv3(ck.n[ci]);
    c.force.setZero();
    c.collisionObject1 = ob;  // bodyNode1 = B: the normal points from bodyNode2 (A) into it
    c.collisionObject2 = oa;
    c.penetrationDepth = 0;
    w.constraint.push_back(std::make_shared<dart::constraint::ContactConstraint>(c, kTimeStep));
    w.world->getConstraintSolver()->addConstraint(w.constraint.back());
  }
}

// What one contact step of DART leaves, in DART's terms (raw) and converted.
struct StepOut {
  Eigen::VectorXd acc, fc, fc_after, dv, a_free, dv_free;
  VecX<B> lambda, qdd, tau_c;
  std::vector<double> forces;
};

// The contact step and the impulsive step of one sample (docs/engines.md), with DART's own model
// solved exactly beside them: what the two steps share, the sample's rigid problem, DART's A
// (M with the diagonal scaled by 1 + CFM) and DART 6.12's free step. That free step is
// v_f = q̇ + h (q̈_free + g), g = ω × v on each FreeJoint's linear DoFs (its integrateVelocities;
// docs/engines.md), 0 elsewhere: the velocity change per unit h is then q̈ + g, and contact_qdd is
// that change less g, the acceleration the forces make.
struct DartSteps {
  const Model<B>& m;
  const VecX<B>&q, &qd, &tau;
  const ContactProblem p;
  MatX<B> Mp;
  const B h = B(kTimeStep);
  VecX<B> g;

  DartSteps(const Model<B>& m_, const VecX<B>& q_, const VecX<B>& qd_, const VecX<B>& tau_, double cfm)
      : m(m_), q(q_), qd(qd_), tau(tau_), p(m_, q_, qd_, tau_), Mp(p.M), g(VecX<B>::Zero(m_.nv)) {
    for (Eigen::Index i = 0; i < nc(); ++i) Mp(i, i) = p.M(i, i) * (B(1) + B(cfm));
    for (int i = 0; i < m.NB; ++i)
      if (m.joint[i].type == JointType::Free) {
        const Vec3<B> w = qd.segment(m.iv[i], 3), v = qd.segment(m.iv[i] + 3, 3);
        g.segment(m.iv[i] + 3, 3) = w.cross(v);
      }
  }
  Eigen::Index nc() const { return static_cast<Eigen::Index>(m.contacts.size()); }

  // DART's bounce velocity c_i for a separation velocity z_i (docs/engines.md).
  VecX<B> bounce(const VecX<B>& z) const {
    VecX<B> c = VecX<B>::Zero(nc());
    for (Eigen::Index i = 0; i < nc(); ++i) {
      const B e = B(d(m.contacts[static_cast<size_t>(i)].e));  // DART's restitution product e × 1, a double
      const B r = -e * z(i);
      if (e > B(1e-3) && r > B(0.1)) c(i) = r > B(100) ? B(100) : r;
    }
    return c;
  }
  VecX<B> lambda_of(const DartWorld& w, const B& scale) const {
    VecX<B> l(nc());
    for (Eigen::Index i = 0; i < nc(); ++i) l(i) = p.ck.n[static_cast<size_t>(i)].dot(bv3(w.contact[static_cast<size_t>(i)].force)) * scale;
    return l;
  }
  // The world at the sample with its contacts; `dantzig_only`: DART's secondary boxed-LCP solver
  // (PGS, which takes over silently where Dantzig fails) switched off, to tell whether the
  // fallback answered.
  void at_state(DartWorld& w, const VecX<B>& forces, bool dantzig_only) const {
    build_skeleton(w, m);
    set_state(w, m, q, qd, forces);
    add_contacts(w, m, p.ck);
    if (dantzig_only) {
      auto* bs = dynamic_cast<dart::constraint::BoxedLcpConstraintSolver*>(w.world->getConstraintSolver());
      if (!bs) throw EngineError("DART's World has no boxed-LCP constraint solver");
      bs->setSecondaryBoxedLcpSolver(nullptr);
    }
  }

  // One step as World::step takes it (DART 6.12: forward dynamics, integrateVelocities, the
  // constraint solver, computeImpulseForwardDynamics), read before integratePositions: DART's
  // getConstraintForces is evaluated lazily at the skeleton's current positions, so after a whole
  // World::step it is Jᵀ at q + h q̇⁺, not at the step's q (recorded in raw for the record).
  StepOut contact_run(bool dantzig_only) const {
    DartWorld w;
    at_state(w, tau, dantzig_only);
    const Eigen::VectorXd v0 = w.skel->getVelocities();
    w.skel->computeForwardDynamics();
    const Eigen::VectorXd a_free = w.skel->getAccelerations();
    w.skel->integrateVelocities(kTimeStep);
    const Eigen::VectorXd v_free = w.skel->getVelocities();
    w.world->getConstraintSolver()->solve();
    if (w.skel->isImpulseApplied()) {
      w.skel->computeImpulseForwardDynamics();
      w.skel->setImpulseApplied(false);
    }
    StepOut o;
    o.acc = w.skel->getAccelerations();
    o.dv = (w.skel->getVelocities() - v0) / kTimeStep;
    o.a_free = a_free;
    o.dv_free = (v_free - v0) / kTimeStep;
    o.fc = w.skel->getConstraintForces();
    o.lambda = lambda_of(w, B(1));
    o.qdd = from_dart(w, o.dv) - g;
    o.tau_c = from_dart(w, o.fc);
    for (const auto& c : w.contact) o.forces.insert(o.forces.end(), c.force.data(), c.force.data() + 3);
    w.skel->integratePositions(kTimeStep);
    o.fc_after = w.skel->getConstraintForces();
    return o;
  }

  // The contact step (and again with Dantzig alone, in raw), and DART's model, exactly.
  void contact_step(EngineSample& es) const {
    const StepOut o = contact_run(false);
    const StepOut dz = contact_run(true);
    es.values["contact_lambda"] = num_vec(o.lambda);
    es.values["contact_qdd"] = num_vec(o.qdd);
    es.values["contact_tau_c"] = num_vec(o.tau_c);
    const auto vec = [](const Eigen::VectorXd& v) { return std::vector<double>(v.data(), v.data() + v.size()); };
    const bool fallback = o.forces != dz.forces;
    es.raw["contact_step"] = {{"contact_force", o.forces},
                              {"accelerations", vec(o.acc)},
                              {"constraint_forces", vec(o.fc)},
                              {"constraint_forces_after_integratePositions", vec(o.fc_after)},
                              {"dantzig_only_contact_force", dz.forces},
                              {"dv_over_h", vec(o.dv)}, {"a_free", vec(o.a_free)}, {"dv_free_over_h", vec(o.dv_free)},
                              {"pgs_fallback_answered", fallback}};
    if (fallback)
      es.raw["engine_messages"].push_back(
          "contact step: DART's Dantzig solver failed on this contact set and its PGS fallback answered (the impulses "
          "differ from Dantzig's alone)");
    // DART's model, exactly, per unit h: w/h = M'λ + Tᵀ(q̇ + h q̈_free)/h − c/h.
    const VecX<B> zf = p.ck.Tn.transpose() * VecX<B>(qd + h * VecX<B>(p.qdd_free + g));
    const LcpResult<B> lcp = solve_lcp<B>(Mp, VecX<B>((zf - bounce(zf)) / h));
    if (lcp.status == LcpResult<B>::Solved) {
      const VecX<B> Tl = p.ck.Tn * lcp.lambda;
      es.model_values["contact_lambda"] = num_vec(lcp.lambda);
      es.model_values["contact_tau_c"] = num_vec(Tl);
      es.model_values["contact_qdd"] = num_vec(VecX<B>(p.qdd_free + p.llt.solve(Tl)));
    }
    es.raw["model"] = {{"contact_lcp", lcp_status_name(lcp)}};
  }

  // One impulsive step: the constraint solver alone at q̇; the impulses and q̇⁺ converted, DART's
  // contact forces into `forces`.
  std::pair<VecX<B>, VecX<B>> impulse_run(bool dantzig_only, std::vector<double>& forces) const {
    DartWorld w;
    build_skeleton(w, m);
    set_state(w, m, q, qd, VecX<B>(VecX<B>::Zero(m.nv)));
    add_contacts(w, m, p.ck);
    if (dantzig_only) dynamic_cast<dart::constraint::BoxedLcpConstraintSolver&>(*w.world->getConstraintSolver()).setSecondaryBoxedLcpSolver(nullptr);
    w.world->getConstraintSolver()->solve();
    if (w.skel->isImpulseApplied()) {
      w.skel->computeImpulseForwardDynamics();
      w.skel->setImpulseApplied(false);
    }
    for (const auto& c : w.contact) forces.insert(forces.end(), c.force.data(), c.force.data() + 3);
    return std::make_pair(lambda_of(w, h), from_dart(w, w.skel->getVelocities()));
  }

  // The impulsive step (and again with Dantzig alone, in raw), and DART's model, exactly.
  void impulsive_step(EngineSample& es) const {
    std::vector<double> forces, dz_forces;
    const auto [impulse, qd_plus] = impulse_run(false, forces);
    impulse_run(true, dz_forces);
    es.values["impact_lambda"] = num_vec(impulse);
    es.values["impact_qd_plus"] = num_vec(qd_plus);
    const bool fallback = forces != dz_forces;
    es.raw["impact_step"] = {{"contact_force", forces}, {"dantzig_only_contact_force", dz_forces}, {"pgs_fallback_answered", fallback}};
    if (fallback)
      es.raw["engine_messages"].push_back(
          "impulsive step: DART's Dantzig solver failed on this contact set and its PGS fallback answered");
    const LcpResult<B> lcp = solve_lcp<B>(Mp, VecX<B>(p.ck.zeta - bounce(p.ck.zeta)));
    if (lcp.status == LcpResult<B>::Solved) {
      es.model_values["impact_lambda"] = num_vec(lcp.lambda);
      es.model_values["impact_qd_plus"] = num_vec(VecX<B>(qd + p.HiT * lcp.lambda));
    }
    es.raw["model"]["impact_lcp"] = lcp_status_name(lcp);
  }
};

// The contact step and the impulsive step of one sample (DartSteps).
void contact_steps(const Model<B>& m, const VecX<B>& q, const VecX<B>& qd, const VecX<B>& tau, double cfm, EngineSample& es) {
  const DartSteps steps(m, q, qd, tau, cfm);
  steps.contact_step(es);
  steps.impulsive_step(es);
}

class DartAdapter : public EngineAdapter {
 public:
  std::string name() const override { return "dart"; }
  std::string version() const override { return DART_VERSION; }
  EngineSupport support() const override {
    EngineSupport s;
    s.joints = {JointType::Revolute, JointType::Prismatic, JointType::Helical, JointType::Planar, JointType::Spherical, JointType::Free};
    s.free_below_root = true;
    s.contacts = true;
    s.impact = true;
    s.quantities = {"H", "C", "tau", "qdd", "contact_lambda", "contact_qdd", "contact_tau_c", "impact_lambda", "impact_qd_plus"};
    s.import_path = "DART Skeleton built in code by rbdref (body frames = joint frames)";
    s.contact_model = "velocity-level boxed LCP (Dantzig, PGS fallback; h = 1 ms, CFM 1e-5, bounce above 0.1 m/s)";
    return s;
  }

  std::string unsupported(const Fixture& f) const override {
    Refusals w = contact_tree_refusals("DART", "DART's friction is a boxed LCP on a two-direction pyramid");
    w.joint = "DART 6.12 has no {type} joint";
    w.massless = kMassless;
    return unsupported_by(support(), w, build_model<double>(f.model));
  }

  EngineOutput run(const Fixture& f, const std::string& fixture_file) const override {
    return guarded_run(*this, f, "DART adapter", [&] { return run_checked(f, fixture_file); });
  }

 private:
  EngineOutput run_checked(const Fixture& f, const std::string& fixture_file) const;
};

// What DART holds of the model (masses, COMs, inertias, axes, and the body frames at the first
// sample's configuration) against rbdref's.
// A body's inertia as rbdref's model holds it: with composite, the BodyNode and every node welded to
// it below (DART's URDF loader keeps a fixed joint's child as its own node, where rbdref merges it),
// summed in the node's frame; else the node's own.
dd::Inertia node_inertia(const dd::BodyNode* bn, bool composite) {
  if (!composite) return bn->getInertia();
  Eigen::Matrix6d I = Eigen::Matrix6d::Zero();
  std::vector<const dd::BodyNode*> stack{bn};
  while (!stack.empty()) {
    const dd::BodyNode* n = stack.back();
    stack.pop_back();
    const Eigen::Isometry3d T = n->getTransform(bn);  // n's frame in bn's
    const Eigen::Matrix6d Ad = dart::math::getAdTMatrix(T.inverse());
    I += Ad.transpose() * n->getInertia().getSpatialTensor() * Ad;
    for (std::size_t k = 0; k < n->getNumChildBodyNodes(); ++k) {
      const dd::BodyNode* c = n->getChildBodyNode(k);
      if (dynamic_cast<const dd::WeldJoint*>(c->getParentJoint())) stack.push_back(c);
    }
  }
  dd::Inertia r;
  r.setSpatialTensor(I);
  return r;
}

ojson model_echo(const Model<B>& m, const DartWorld& w, const VecX<B>& q, bool composite = false) {
  const TreeKinematics<B> k = kinematics<B>(m, q, VecX<B>(VecX<B>::Zero(m.nv)));
  ojson bodies = ojson::array();
  EchoWorst worst({"mass_rel_err", "com_abs_err_m", "inertia_about_com_rel_err", "joint_axis_err", "world_frame_err"});
  double pscale = 1;
  for (int i = 0; i < m.NB; ++i) {
    const dd::BodyNode* bn = w.body[i];
    const B mass = m.I[i].mass();
    const Vec3<B> c = m.I[i].com();
    const Mat3<B> S = skew<B>(c);
    const Mat3<B> Ic = m.I[i].M.template block<3, 3>(0, 0) - mass * S * S.transpose();
    const dd::Inertia inertia = node_inertia(bn, composite);
    const double e_mass = d(B(abs(B(B(inertia.getMass()) - mass)) / mass));
    const double e_com = max_abs_d(Vec3<B>(bv3(inertia.getLocalCOM()) - c));
    Mat3<B> I;
    const Eigen::Matrix3d Id = inertia.getMoment();
    for (int r = 0; r < 3; ++r)
      for (int s = 0; s < 3; ++s) I(r, s) = B(Id(r, s));
    const double sI = max_abs_d(Ic);
    const double e_I = sI > 0 ? max_abs_d(Mat3<B>(I - Ic)) / sI : max_abs_d(I);
    double e_axis = 0;
    const Joint<B>& jt = m.joint[i];
    if (const auto* rj = dynamic_cast<const dd::RevoluteJoint*>(w.joint[i])) e_axis = max_abs_d(Vec3<B>(bv3(rj->getAxis()) - jt.axis));
    if (const auto* pj = dynamic_cast<const dd::PrismaticJoint*>(w.joint[i])) e_axis = max_abs_d(Vec3<B>(bv3(pj->getAxis()) - jt.axis));
    if (const auto* sj = dynamic_cast<const dd::ScrewJoint*>(w.joint[i]))
      e_axis = std::max(max_abs_d(Vec3<B>(bv3(sj->getAxis()) - jt.axis)), d(B(abs(B(B(sj->getPitch()) / kTwoPi - jt.pitch)))));
    // Body frame in the world: DART's transform against rbdref's X0⁻¹.
    const Eigen::Isometry3d T = bn->getWorldTransform();
    const Mat3<B> R0 = k.X0[i].E.transpose();
    Mat3<B> Rd;
    for (int r = 0; r < 3; ++r)
      for (int s = 0; s < 3; ++s) Rd(r, s) = B(T.linear()(r, s));
    const double e_frame = std::max(max_abs_d(Mat3<B>(Rd - R0)), max_abs_d(Vec3<B>(bv3(T.translation()) - k.X0[i].r)));
    pscale = std::max(pscale, max_abs_d(k.X0[i].r));
    worst.raise({e_mass, e_com, e_I, e_axis, e_frame});
    bodies.push_back({{"body", m.body_name[i]},
                      {"joint", w.joint[i]->getType()},
                      {"mass", {{"rbdref", to_decimal(mass, 20)}, {"engine", inertia.getMass()}, {"rel_err", e_mass}}},
                      {"com_abs_err_m", e_com},
                      {"inertia_about_com_rel_err", e_I},
                      {"joint_axis_err", e_axis},
                      {"world_frame_err", e_frame}});
  }
  // Frames go through DART's own kinematics (exponential coordinates, products of doubles): a few
  // hundred ε per joint of depth, relative to the model's size.
  const double tol = kEchoTol, frame_tol = 1e3 * kEchoEps * std::max(1, m.NB) * pscale;
  const int nbodies = static_cast<int>(w.skel->getNumBodyNodes());
  // Composite: the inertias went through DART's spatial products in double (a few ε relative to the
  // body's size, not to its COM inertia): 1e3 ε.
  const double itol = composite ? 1e3 * kEchoEps : tol;
  const bool match = worst["mass_rel_err"] <= itol && worst["com_abs_err_m"] <= itol * pscale && worst["inertia_about_com_rel_err"] <= itol &&
                     worst["joint_axis_err"] <= tol && worst["world_frame_err"] <= frame_tol && (composite || nbodies == m.NB) &&
                     static_cast<int>(w.skel->getNumDofs()) == m.nv;
  ojson echo;
  echo["engine_model"] = {{"bodies", nbodies}, {"dofs", static_cast<int>(w.skel->getNumDofs())}, {"trees", static_cast<int>(w.skel->getNumTrees())}};
  echo["rbdref_model"] = {{"nbody", m.NB}, {"nv", m.nv}, {"contacts", static_cast<int>(m.contacts.size())}};
  echo["configuration"] = "the first sample's q";
  close_echo(echo, worst,
             {{"relative", itol}, {"world_frame", frame_tol},
              {"rule", "64 ε(double) relative for the inertial data and axes; body frames 1000 ε × bodies × max(1, model size in m)"}},
             match, bodies);
  return echo;
}

// H, C, τ and q̈ of a sample whose state is set (set_state), into es (values in rbdref's DoF order,
// DART's own in raw).
void tree_quantities(DartWorld& w, const Model<B>& m, const VecX<B>& qdd, const VecX<B>& tau, EngineSample& es) {
  const int nv = m.nv;
  const Eigen::MatrixXd H = w.skel->getMassMatrix();
  const Eigen::VectorXd C = w.skel->getCoriolisAndGravityForces();
  w.skel->setAccelerations(to_dart(w, qdd));
  w.skel->computeInverseDynamics();
  const Eigen::VectorXd tau_id = w.skel->getForces();
  w.skel->setForces(to_dart(w, tau));
  w.skel->computeForwardDynamics();
  const Eigen::VectorXd acc = w.skel->getAccelerations();
  es.values["H"] = num_mat(from_dart(w, H));
  es.values["C"] = num_vec(from_dart(w, C));
  es.values["tau"] = num_vec(from_dart(w, tau_id));
  es.values["qdd"] = num_vec(from_dart(w, acc));
  es.raw["note"] = "DART's values in its DoF order and coordinates, before the order is mapped";
  const Eigen::VectorXd pos = w.skel->getPositions();
  es.raw["positions"] = std::vector<double>(pos.data(), pos.data() + pos.size());
  es.raw["dof_of_rbdref_dof"] = w.dof;
  es.raw["qfrc_bias"] = std::vector<double>(C.data(), C.data() + nv);
  es.raw["forces_inverse"] = std::vector<double>(tau_id.data(), tau_id.data() + nv);
  es.raw["accelerations"] = std::vector<double>(acc.data(), acc.data() + nv);
}

// The conventions of DART's values, and of its contact steps on a model with contacts (cfm: its
// constraint force mixing).
json conventions_of(bool has_contacts, double cfm) {
  json c = {
      {"name", "dart"},
      {"joints", "RevoluteJoint, PrismaticJoint, ScrewJoint (pitch per turn = 2π × rbdref's), PlanarJoint (arbitrary "
                 "plane u, n × u), BallJoint, FreeJoint"},
      {"positions", "ball and free joints in DART's exponential coordinates (convertToPositions); others as rbdref's"},
      {"velocities", "as rbdref's: ball ω and free (ω, v of the origin) in child coordinates; DART's DoF order mapped"},
      {"H", "Skeleton::getMassMatrix"},
      {"C", "Skeleton::getCoriolisAndGravityForces"},
      {"tau", "computeInverseDynamics at the sample's qdd (getForces)"},
      {"qdd", "computeForwardDynamics at the sample's tau (getAccelerations)"}};
  if (has_contacts) {
    char buf[400];
    std::snprintf(buf, sizeof buf,
                  "DART's velocity-level time step (World::step, h = %g s, CFM = %g, Dantzig boxed LCP): impulses x = hλ "
                  "with Tᵀ(q̇ + h q̈_free) + M' x ≥ c, M' = M + CFM diag(M), c_i = e_i (−t_iᵀ(q̇ + h q̈_free)) above the "
                  "bounce threshold 0.1 m/s; no Ṫᵀq̇ term; equal to the rigid LCP (up to CFM) where q̇ = 0",
                  kTimeStep, cfm);
    c["contact_model"] = buf;
    c["contacts"] =
        "dart::constraint::ContactConstraint per contact, added to the World's constraint solver by hand: point x, normal "
        "n (from A into B: DART's bodyNode2 → bodyNode1), depth 0, friction 0, restitution e (B's ShapeNode) × 1 (A's)";
    c["contact_lambda"] = "n · Contact::force (DART stores n x / h, the force on B)";
    c["contact_qdd"] =
        "(v⁺ − v)/h over World::step's sequence (without integratePositions), less the FreeJoints' ω × v that DART's "
        "integrateVelocities adds: q̈_free + H⁻¹ T x / h";
    c["contact_tau_c"] = "Skeleton::getConstraintForces at the step's positions (before integratePositions)";
    c["impact"] = "the constraint solver alone at q̇ (no free step), then computeImpulseForwardDynamics: "
                  "impact_lambda = n · force · h, impact_qd_plus = getVelocities";
  }
  return c;
}

EngineOutput DartAdapter::run_checked(const Fixture& f, const std::string& fixture_file) const {
  const Model<B> m = build_model<B>(f.model);
  const bool has_contacts = !m.contacts.empty();
  const double cfm = dart::constraint::ContactConstraint::getConstraintForceMixing();
  EngineOutput out = output_header(*this, f, fixture_file,
                                   "DART Skeleton built in code by rbdref (body frames = joint frames, T_ChildBodyToJoint = identity)");
  out.conventions = conventions_of(has_contacts, cfm);

  add_samples(out, f, [&](size_t si, const SampleInputs& in, EngineSample& es) {
    const auto& [q, qd, qdd, tau] = in;
    {
      DartWorld w;
      build_skeleton(w, m);
      set_state(w, m, q, qd, tau);
      if (si == 0) put_model_echo(out, f, model_echo(m, w, q));
      tree_quantities(w, m, qdd, tau, es);
    }
    if (has_contacts) contact_steps(m, q, qd, tau, cfm, es);
  });
  return out;
}

#ifdef RBDREF_HAVE_DART_URDF
// DART's own URDF loader (dart::utils::DartLoader, Debian libdart-utils-urdf-dev): the import path
// of every user who loads a URDF into DART. The root joint is FIXED unless the fixture's model has
// a free root (FLOATING); the URDF's path is made absolute (the loader resolves URIs). DART keeps a
// fixed joint's child link as its own BodyNode on a WeldJoint: rbdref's body i is DART's node of
// the same name with the nodes welded below it, and the echo compares that composite. Limits,
// damping and friction of the URDF are not applied by DART's dynamics calls used here (the
// constraint solver is not stepped). The tree quantities are those of the in-code path. The same
// DART, another import path: all but the version is its own.
class DartUrdfAdapter : public DartAdapter {
 public:
  std::string name() const override { return "dart-urdf"; }
  EngineSupport support() const override {
    EngineSupport s;
    s.joints = {JointType::Revolute, JointType::Prismatic, JointType::Free};
    s.quantities = {"H", "C", "tau", "qdd"};
    s.import_path = "DART's own URDF loader (dart::utils::DartLoader)";
    return s;
  }
  bool imports_source() const override { return true; }
  std::string unsupported(const Fixture& f) const override {
    if (std::string why = not_from_urdf(f, "DART's URDF loader"); !why.empty()) return why;
    Refusals w;
    w.loop = "loop joints come from a loops file, which DART's URDF loader does not read";
    w.joint = "the adapter runs URDF revolute, continuous and prismatic joints and a floating root ({type})";
    w.free_below_root = "a URDF floating joint below the root";
    w.massless = kMassless;
    return unsupported_by(support(), w, build_model<double>(f.model));
  }
  EngineOutput run(const Fixture& f, const std::string&) const override { throw_needs_source(*this, f); }
  EngineOutput run_source(const Fixture& f, const std::string& fixture_file, const std::string& source) const override {
    return guarded_run(*this, f, "DART", [&] { return run_urdf(f, fixture_file, source); });
  }

 private:
  EngineOutput run_urdf(const Fixture& f, const std::string& fixture_file, const std::string& source) const {
    Model<B> m = build_model<B>(f.model);
    m.contacts.clear();  // contacts come from a contacts file: the tree quantities run
    char abs_path[PATH_MAX];
    if (!::realpath(source.c_str(), abs_path)) throw EngineError("cannot resolve the URDF path " + source);
    bool floating = false;
    for (int i = 0; i < m.NB; ++i) floating = floating || m.joint[i].type == JointType::Free;
    dart::utils::DartLoader::Options opt;
    opt.mDefaultRootJointType = floating ? dart::utils::DartLoader::RootJointType::FLOATING : dart::utils::DartLoader::RootJointType::FIXED;
    dart::utils::DartLoader loader(opt);
    dd::SkeletonPtr skel = loader.parseSkeleton(dart::common::Uri::createFromPath(abs_path));
    std::string note;
    if (!skel) {
      // DART resolves every mesh URI a URDF names (package://... needs the package's folder): the
      // URDF again without its <visual> and <collision> elements (no dynamics in them).
      int removed = 0;
      const std::string stripped = strip_urdf_geometry(file_text(abs_path), &removed);
      if (removed > 0) {
        skel = loader.parseSkeletonString(stripped, dart::common::Uri::createFromPath(abs_path));
        note = "DART's URDF loader could not read the URDF as written (a mesh URI it cannot resolve); it was read with its " +
               std::to_string(removed) + " <visual> and <collision> elements removed (no dynamics in them)";
      }
    }
    if (!skel) throw EngineError("DART's URDF loader could not read " + std::string(abs_path));
    EngineOutput out = output_header(*this, f, fixture_file, std::string("DART's own URDF loader: DartLoader::parseSkeleton(") + abs_path + ")");
    out.conventions = {{"name", "dart"},
                       {"root_joint", floating ? "FLOATING (FreeJoint)" : "FIXED (WeldJoint)"},
                       {"fixed_joints", "DART keeps each fixed joint's child link as a BodyNode on a WeldJoint"},
                       {"H", "Skeleton::getMassMatrix"},
                       {"C", "Skeleton::getCoriolisAndGravityForces"},
                       {"tau", "computeInverseDynamics at the sample's qdd (getForces)"},
                       {"qdd", "computeForwardDynamics at the sample's tau (getAccelerations)"},
                       {"gravity", "set to the model's (URDF has none)"}};
    if (!note.empty()) out.conventions["import_note"] = note;
    for (size_t si = 0; si < f.samples.size(); ++si) {
      EngineSample es = engine_sample_of(f.samples[si]);
      const auto [q, qd, qdd, tau] = inputs_of(f.samples[si]);
      DartWorld w;
      w.world = dart::simulation::World::create("rbdref");
      w.world->setGravity(dv3(m.gravity));
      w.skel = skel;
      for (int i = 0; i < m.NB; ++i) {
        dd::BodyNode* bn = skel->getBodyNode(m.body_name[i]);
        if (!bn) throw EngineError("DART's URDF loader made no body named '" + m.body_name[i] + "'");
        if (static_cast<int>(bn->getParentJoint()->getNumDofs()) != m.nvi[i])
          throw EngineError("DART's joint above '" + m.body_name[i] + "' has " + std::to_string(bn->getParentJoint()->getNumDofs()) +
                            " DoFs, rbdref's " + std::to_string(m.nvi[i]));
        w.body.push_back(bn);
        w.joint.push_back(bn->getParentJoint());
      }
      if (static_cast<int>(skel->getNumDofs()) != m.nv)
        throw EngineError("DART's skeleton has " + std::to_string(skel->getNumDofs()) + " DoFs, rbdref's model " + std::to_string(m.nv));
      w.world->addSkeleton(skel);
      for (int i = 0; i < m.NB; ++i)
        for (int k = 0; k < m.nvi[i]; ++k) w.dof.push_back(static_cast<int>(w.joint[i]->getIndexInSkeleton(static_cast<std::size_t>(k))));
      set_state(w, m, q, qd, tau);
      if (si == 0) {
        put_model_echo(out, f, model_echo(m, w, q, true));
      }
      tree_quantities(w, m, qdd, tau, es);
      w.world->removeSkeleton(skel);
      out.samples.push_back(std::move(es));
    }
    return out;
  }
};
#endif

}  // namespace

std::unique_ptr<EngineAdapter> make_dart_adapter() { return std::make_unique<DartAdapter>(); }
#ifdef RBDREF_HAVE_DART_URDF
std::unique_ptr<EngineAdapter> make_dart_urdf_adapter() { return std::make_unique<DartUrdfAdapter>(); }
#endif

}  // namespace rbd
