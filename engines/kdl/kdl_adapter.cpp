// Orocos KDL adapter: see kdl_adapter.hpp.
#include "engines/kdl/kdl_adapter.hpp"

#include "engines/model_echo.hpp"
#include "engines/support.hpp"
#include "engines/values.hpp"
#include "reference/tree/model.hpp"

#include <kdl/chain.hpp>
#include <kdl/chaindynparam.hpp>
#include <kdl/chainfdsolver_recursive_newton_euler.hpp>
#include <kdl/config.h>
#include <kdl/tree.hpp>
#include <kdl/treeidsolver_recursive_newton_euler.hpp>

#include <algorithm>
#include <cmath>

namespace rbd {

namespace {

using B = bin50;
using ojson = nlohmann::ordered_json;

const char* kRoot = "rbdref_kdl_root";

double d(const B& x) { return static_cast<double>(x); }
KDL::Vector vec(const Vec3<B>& v) { return KDL::Vector(d(v(0)), d(v(1)), d(v(2))); }
KDL::Rotation rot(const Mat3<B>& R) {
  return KDL::Rotation(d(R(0, 0)), d(R(0, 1)), d(R(0, 2)), d(R(1, 0)), d(R(1, 1)), d(R(1, 2)), d(R(2, 0)), d(R(2, 1)), d(R(2, 2)));
}

struct Built {
  KDL::Tree tree{kRoot};
  bool unbranched = false;
  KDL::Chain chain;  // root to the last body, when unbranched
};

Built build(const Model<B>& m) {
  Built b;
  for (int i = 0; i < m.NB; ++i) {
    const Mat3<B> R = m.Xtree[i].E.transpose();  // the joint frame's axes in the parent
    const KDL::Frame F(rot(R), vec(m.Xtree[i].r));
    const KDL::Vector axis = F.M * vec(m.joint[i].axis);
    // KDL's joint inertia is the armature: its solvers add it to H's diagonal and a q̈ to τ.
    const double arm = m.has_armature ? d(m.armature[static_cast<size_t>(m.iv[i])]) : 0.0;
    const KDL::Joint j(m.joint_name[i], F.p, axis, m.joint[i].type == JointType::Revolute ? KDL::Joint::RotAxis : KDL::Joint::TransAxis,
                       1, 0, arm);
    const Inertia<B>& I = m.I[i];
    const B mass = I.mass();
    const Vec3<B> c = mass > B(0) ? I.com() : Vec3<B>(Vec3<B>::Zero());
    const Mat3<B> C = skew<B>(c);
    const Mat3<B> Ic = I.M.template block<3, 3>(0, 0) - mass * C * C.transpose();
    const KDL::RigidBodyInertia kI(d(mass), vec(c),
                                   KDL::RotationalInertia(d(Ic(0, 0)), d(Ic(1, 1)), d(Ic(2, 2)), d(Ic(0, 1)), d(Ic(0, 2)), d(Ic(1, 2))));
    const std::string hook = m.parent[i] < 0 ? std::string(kRoot) : m.body_name[m.parent[i]];
    if (!b.tree.addSegment(KDL::Segment(m.body_name[i], j, F, kI), hook))
      throw EngineError("KDL refused segment '" + m.body_name[i] + "' on '" + hook + "'");
  }
  int roots = 0;
  std::vector<int> children(m.NB, 0);
  for (int i = 0; i < m.NB; ++i) (m.parent[i] < 0 ? roots : children[m.parent[i]]) += 1;
  b.unbranched = roots == 1 && std::all_of(children.begin(), children.end(), [](int c) { return c <= 1; });
  if (b.unbranched && !b.tree.getChain(kRoot, m.body_name[m.NB - 1], b.chain)) throw EngineError("KDL: no chain from the root to the last body");
  return b;
}

ojson model_echo(const Model<B>& m, const KDL::Tree& tree) {
  EchoWorst worst(
      {"mass_rel_err", "com_err_m_per_max_1m_c", "inertia_about_origin_rel_err", "frame_pos_abs_err_m", "frame_rot_err", "joint_axis_err"});
  ojson bodies = ojson::array();
  const auto& segs = tree.getSegments();
  for (int i = 0; i < m.NB; ++i) {
    const auto it = segs.find(m.body_name[i]);
    if (it == segs.end()) throw EngineError("KDL's tree lacks segment '" + m.body_name[i] + "'");
    const KDL::Segment& s = GetTreeElementSegment(it->second);
    const KDL::RigidBodyInertia& kI = s.getInertia();
    const Inertia<B>& I = m.I[i];
    const B mass = I.mass();
    const Vec3<B> c = mass > B(0) ? I.com() : Vec3<B>(Vec3<B>::Zero());
    // KDL keeps the rotational inertia about the segment origin, I_o = I_c + m (c·c 1 − c cᵀ): that is
    // what is compared, relative to its size (recovering I_c from it in double would lose the digits
    // that m|c|² carries over |I_c| on a small link far from its joint).
    const KDL::Vector kc = kI.getCOG();
    const KDL::RotationalInertia Io = kI.getRotationalInertia();
    Mat3<B> kIo;
    for (int r = 0; r < 3; ++r)
      for (int col = 0; col < 3; ++col) kIo(r, col) = B(Io.data[3 * r + col]);
    const Vec3<B> kcv(B(kc.x()), B(kc.y()), B(kc.z()));
    const Mat3<B> Io_ref = I.M.template block<3, 3>(0, 0);
    const double e_mass = mass > B(0) ? d(B(abs(B(B(kI.getMass()) - mass)) / mass)) : std::fabs(kI.getMass());
    // The COM of a body that merged a far fixed child lies far from its origin: its error relative
    // to max(1 m, |c|).
    const double e_com = max_abs_d(Vec3<B>(kcv - c)) / std::max(1.0, max_abs_d(c));
    const double sI = max_abs_d(Io_ref);
    const double e_I = sI > 0 ? max_abs_d(Mat3<B>(kIo - Io_ref)) / sI : max_abs_d(kIo);
    const KDL::Frame F = s.getFrameToTip();
    Mat3<B> kR;
    for (int r = 0; r < 3; ++r)
      for (int col = 0; col < 3; ++col) kR(r, col) = B(F.M(r, col));
    const double e_pos = max_abs_d(Vec3<B>(Vec3<B>(B(F.p.x()), B(F.p.y()), B(F.p.z())) - m.Xtree[i].r));
    const double e_rot = max_abs_d(Mat3<B>(kR - m.Xtree[i].E.transpose()));
    const KDL::Vector ka = s.getJoint().JointAxis();
    const Vec3<B> a_parent = m.Xtree[i].E.transpose() * m.joint[i].axis;
    const double e_axis = max_abs_d(Vec3<B>(Vec3<B>(B(ka.x()), B(ka.y()), B(ka.z())) - a_parent));
    worst.raise({e_mass, e_com, e_I, e_pos, e_rot, e_axis});
    bodies.push_back({{"body", m.body_name[i]}, {"mass_rel_err", e_mass}, {"com_err_m_per_max_1m_c", e_com}, {"inertia_about_origin_rel_err", e_I},
                      {"frame_pos_abs_err_m", e_pos}, {"frame_rot_err", e_rot}, {"joint_axis_err", e_axis}});
  }
  B size(1);
  for (int i = 0; i < m.NB; ++i) size = std::max(size, B(m.Xtree[i].r.cwiseAbs().maxCoeff()));
  const double tol = kEchoTol;
  const bool match = worst["mass_rel_err"] <= tol && worst["inertia_about_origin_rel_err"] <= tol && worst["frame_rot_err"] <= tol &&
                     worst["joint_axis_err"] <= tol && worst["com_err_m_per_max_1m_c"] <= tol && worst["frame_pos_abs_err_m"] <= tol * d(size);
  ojson echo;
  echo["engine_model"] = {{"segments", static_cast<int>(tree.getNrOfSegments()) }, {"joints", static_cast<int>(tree.getNrOfJoints())}};
  echo["rbdref_model"] = {{"nbody", m.NB}, {"nv", m.nv}};
  close_echo(echo, worst,
             {{"relative", tol},
              {"rule", "64 ε(double) relative; the COM relative to max(1 m, |c|); frame positions × max(1, largest joint offset in m)"}},
             match, bodies);
  return echo;
}

NumMatrix num_of(const KDL::JntArray& a) {
  VecX<B> v(a.rows());
  for (unsigned k = 0; k < a.rows(); ++k) v(k) = B(a(k));
  return num_vec(v);
}

class KdlAdapter : public EngineAdapter {
 public:
  std::string name() const override { return "kdl"; }
  std::string version() const override { return KDL_VERSION_STRING; }
  EngineSupport support() const override {
    EngineSupport s;
    s.joints = {JointType::Revolute, JointType::Prismatic};
    s.quantities = {"H", "C", "tau", "qdd"};
    s.armature = true;
    s.import_path = "KDL::Tree built in code by rbdref, as kdl_parser builds one from a URDF";
    return s;
  }
  std::string unsupported(const Fixture& f) const override {
    Refusals w;
    w.loop = "KDL has no loop joints";
    w.joint = "KDL has revolute and prismatic joints only ({type})";
    w.free = "KDL has revolute and prismatic joints only (free; no floating base)";
    return unsupported_by(support(), w, build_model<double>(f.model));
  }
  EngineOutput run(const Fixture& f, const std::string& fixture_file) const override {
    return guarded_run(*this, f, "KDL", [&] { return run_checked(f, fixture_file); });
  }

 private:
  EngineOutput run_checked(const Fixture& f, const std::string& fixture_file) const {
    const Model<B> m = build_model<B>(f.model);
    Built b = build(m);
    const unsigned nv = static_cast<unsigned>(m.nv);
    if (b.tree.getNrOfJoints() != nv) throw EngineError("KDL's tree has " + std::to_string(b.tree.getNrOfJoints()) + " joints, rbdref's model " + std::to_string(nv));
    const KDL::Vector g = vec(m.gravity);
    KDL::TreeIdSolver_RNE id(b.tree, g), id0(b.tree, KDL::Vector::Zero());
    EngineOutput out = output_header(*this, f, fixture_file, "KDL::Tree built in code by rbdref (kdl_parser's construction)");
    out.conventions = {{"name", "kdl"},
                       {"dof_order", "the order segments were added: rbdref's"},
                       {"tau", "TreeIdSolver_RNE(q, qd, qdd, gravity)"},
                       {"C", "TreeIdSolver_RNE(q, qd, 0, gravity)"},
                       {"H", b.unbranched ? "ChainDynParam::JntToMass" : "columns of TreeIdSolver_RNE(q, 0, e_j, no gravity): KDL has no tree mass matrix"},
                       {"qdd", b.unbranched ? "ChainFdSolver_RNE(q, qd, tau)" : "not computed: KDL has no forward dynamics on a tree"},
                       {"converted_to", "rbdref canonical: no conversion (KDL's joint coordinates are rbdref's)"}};
    if (!m.contacts.empty()) out.conventions["contacts"] = "not run: KDL has no contacts";
    put_model_echo(out, f, model_echo(m, b.tree));
    KDL::WrenchMap f_ext;
    for (const auto& [name, el] : b.tree.getSegments())
      if (name != kRoot) f_ext[name] = KDL::Wrench::Zero();
    for (const Sample& s : f.samples) {
      EngineSample es = engine_sample_of(s);
      KDL::JntArray q(nv), qd(nv), qdd(nv), tau(nv), zero(nv), C(nv), col(nv);
      for (unsigned k = 0; k < nv; ++k) q(k) = s.q[k], qd(k) = s.qd[k], qdd(k) = s.qdd[k], tau(k) = s.tau[k];
      KDL::JntArray out_tau(nv);
      if (id.CartToJnt(q, qd, qdd, f_ext, out_tau) < 0) throw EngineError("KDL's TreeIdSolver_RNE failed at sample " + s.id);
      if (id.CartToJnt(q, qd, zero, f_ext, C) < 0) throw EngineError("KDL's TreeIdSolver_RNE failed at sample " + s.id);
      MatX<B> H(nv, nv);
      if (b.unbranched) {
        KDL::ChainDynParam dyn(b.chain, g);
        KDL::JntSpaceInertiaMatrix Hk(nv);
        if (dyn.JntToMass(q, Hk) < 0) throw EngineError("KDL's ChainDynParam failed at sample " + s.id);
        for (unsigned r = 0; r < nv; ++r)
          for (unsigned c = 0; c < nv; ++c) H(r, c) = B(Hk(r, c));
        KDL::ChainFdSolver_RNE fd(b.chain, g);
        KDL::JntArray a(nv);
        KDL::Wrenches fw(b.chain.getNrOfSegments(), KDL::Wrench::Zero());
        if (fd.CartToJnt(q, qd, tau, fw, a) < 0) throw EngineError("KDL's ChainFdSolver_RNE failed at sample " + s.id);
        es.values["qdd"] = num_of(a);
        es.raw["qdd"] = std::vector<double>(a.data.data(), a.data.data() + nv);
      } else {
        for (unsigned j = 0; j < nv; ++j) {
          KDL::JntArray e(nv);
          e(j) = 1;
          if (id0.CartToJnt(q, zero, e, f_ext, col) < 0) throw EngineError("KDL's TreeIdSolver_RNE failed at sample " + s.id);
          for (unsigned r = 0; r < nv; ++r) H(r, j) = B(col(r));
        }
      }
      es.values["H"] = num_mat(H);
      es.values["C"] = num_of(C);
      es.values["tau"] = num_of(out_tau);
      es.raw["tau"] = std::vector<double>(out_tau.data.data(), out_tau.data.data() + nv);
      es.raw["C"] = std::vector<double>(C.data.data(), C.data.data() + nv);
      out.samples.push_back(std::move(es));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<EngineAdapter> make_kdl_adapter() { return std::make_unique<KdlAdapter>(); }

}  // namespace rbd
