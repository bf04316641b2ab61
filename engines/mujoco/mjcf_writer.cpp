// The MJCF rbdref writes for MuJoCo, and the pieces both MuJoCo adapters share (mjcf.hpp).
#include "engines/mujoco/mjcf.hpp"
#include "engines/model_echo.hpp"
#include "engines/values.hpp"
#include "io/xml_escape.hpp"

#include "reference/spatial/spatial.hpp"
#include "reference/tree/kinematics.hpp"

#include <tinyxml2.h>

#include <algorithm>
#include <functional>
#include <set>
#include <cmath>
#include <cstdio>

namespace rbd::mjcf {

std::string dec(const B& x) { return to_decimal(x, 20); }
std::string dec3(const Vec3<B>& v) { return dec(v(0)) + " " + dec(v(1)) + " " + dec(v(2)); }

// Unit quaternion (w, x, y, z) of a rotation matrix (Shepperd's method: pivot on the largest of
// w², x², y², z² for accuracy), w ≥ 0.
Eigen::Matrix<B, 4, 1> quat_of(const Mat3<B>& R) {
  using std::sqrt;
  const B t = R.trace();
  Eigen::Matrix<B, 4, 1> q;
  if (t >= R(0, 0) && t >= R(1, 1) && t >= R(2, 2)) {
    const B s = sqrt(B(B(1) + t));
    q << s / B(2), (R(2, 1) - R(1, 2)) / (B(2) * s), (R(0, 2) - R(2, 0)) / (B(2) * s), (R(1, 0) - R(0, 1)) / (B(2) * s);
  } else if (R(0, 0) >= R(1, 1) && R(0, 0) >= R(2, 2)) {
    const B s = sqrt(B(B(1) + R(0, 0) - R(1, 1) - R(2, 2)));
    q << (R(2, 1) - R(1, 2)) / (B(2) * s), s / B(2), (R(0, 1) + R(1, 0)) / (B(2) * s), (R(0, 2) + R(2, 0)) / (B(2) * s);
  } else if (R(1, 1) >= R(2, 2)) {
    const B s = sqrt(B(B(1) + R(1, 1) - R(0, 0) - R(2, 2)));
    q << (R(0, 2) - R(2, 0)) / (B(2) * s), (R(0, 1) + R(1, 0)) / (B(2) * s), s / B(2), (R(1, 2) + R(2, 1)) / (B(2) * s);
  } else {
    const B s = sqrt(B(B(1) + R(2, 2) - R(0, 0) - R(1, 1)));
    q << (R(1, 0) - R(0, 1)) / (B(2) * s), (R(0, 2) + R(2, 0)) / (B(2) * s), (R(1, 2) + R(2, 1)) / (B(2) * s), s / B(2);
  }
  if (q(0) < B(0)) q = -q;
  return q;
}

// Names of the MuJoCo joints that stand for rbdref joint i, in MuJoCo DoF order.
std::vector<std::string> mj_joint_names(const Model<B>& m, int i) {
  const std::string& n = m.joint_name[i];
  switch (m.joint[i].type) {
    case JointType::Cylindrical: return {n + "__theta", n + "__d"};
    case JointType::Planar: return {n + "__x", n + "__y", n + "__theta"};
    default: return {n};
  }
}

Inertial inertial_of(const Inertia<B>& I) {
  Inertial r;
  r.mass = I.mass();
  r.com = r.mass > B(0) ? I.com() : Vec3<B>(Vec3<B>::Zero());
  const Mat3<B> C = skew<B>(r.com);
  r.Ic = I.M.template block<3, 3>(0, 0) - r.mass * C * C.transpose();
  return r;
}

// The model's contacts MuJoCo runs (header): every contact rigid (no §11.8 stiffness) and
// frictionless; otherwise none (the reason in contact_refusal).
std::string contact_refusal(const Model<B>& m) {
  for (const Contact<B>& c : m.contacts) {
    if (c.has_soft) return "contact '" + c.name + "' is a soft contact (§11.8), not MuJoCo's model";
    if (c.has_friction && c.mu > B(0)) return "contact '" + c.name + "' has friction (the adapter runs condim 1, frictionless)";
  }
  return "";
}
bool runs_contacts(const Model<B>& m) { return !m.contacts.empty() && contact_refusal(m).empty(); }
// Body i's name in the MJCF: rbdref's, except "world", which MuJoCo reserves for its world body (a
// URDF whose root link is `world`, given a floating base, has a moving body of that name).
std::string mj_body(const Model<B>& m, int i) {
  return m.body_name[i] == "world" ? "rbdref_body" + std::to_string(i) + "_world" : m.body_name[i];
}
// The inert geom carrying a contact's bodies (contype = conaffinity = 0: it never collides; the
// adapter writes the contacts itself).
std::string contact_geom_name(const Model<B>& m, int body) { return "rbdref_contact_" + (body < 0 ? std::string("world") : mj_body(m, body)); }
bool has_contact_geom(const Model<B>& m, int body) {
  if (!runs_contacts(m)) return false;
  for (const Contact<B>& c : m.contacts)
    if (c.s == body || c.p == body) return true;
  return false;
}
std::string contact_geom(const Model<B>& m, int body) {
  return "<geom name=\"" + xml_escape(contact_geom_name(m, body)) + "\" type=\"sphere\" size=\"0.001\" contype=\"0\" conaffinity=\"0\"/>";
}

void write_body(std::ostringstream& x, const Model<B>& m, const std::vector<std::vector<int>>& children, int i, int depth) {
  const std::string ind(2 * depth, ' ');
  const Xform<B>& Xt = m.Xtree[i];
  const Mat3<B> R = Xt.E.transpose();  // joint frame's axes in the parent frame
  x << ind << "<body name=\"" << xml_escape(mj_body(m, i)) << "\" pos=\"" << dec3(Xt.r) << "\" quat=\"";
  const auto qt = quat_of(R);
  x << dec(qt(0)) << " " << dec(qt(1)) << " " << dec(qt(2)) << " " << dec(qt(3)) << "\">\n";
  const Joint<B>& jt = m.joint[i];
  const std::vector<std::string> names = mj_joint_names(m, i);
  // The joint's armature (JointDesc::armature), on each MuJoCo joint standing for it.
  const std::string arm = m.has_armature && m.armature[static_cast<size_t>(m.iv[i])] != B(0)
                              ? " armature=\"" + dec(m.armature[static_cast<size_t>(m.iv[i])]) + "\""
                              : "";
  auto axis_joint = [&](const std::string& name, const char* type, const Vec3<B>& a) {
    x << ind << "  <joint name=\"" << xml_escape(name) << "\" type=\"" << type << "\" pos=\"0 0 0\" axis=\"" << dec3(a) << "\"" << arm << "/>\n";
  };
  switch (jt.type) {
    case JointType::Revolute: axis_joint(names[0], "hinge", jt.axis); break;
    case JointType::Prismatic: axis_joint(names[0], "slide", jt.axis); break;
    case JointType::Cylindrical:
      axis_joint(names[0], "hinge", jt.axis);
      axis_joint(names[1], "slide", jt.axis);
      break;
    case JointType::Planar:
      axis_joint(names[0], "slide", jt.u);
      axis_joint(names[1], "slide", Vec3<B>(jt.axis.cross(jt.u)));
      axis_joint(names[2], "hinge", jt.axis);
      break;
    case JointType::Spherical: x << ind << "  <joint name=\"" << xml_escape(names[0]) << "\" type=\"ball\" pos=\"0 0 0\"" << arm << "/>\n"; break;
    case JointType::Free:
      if (arm.empty()) x << ind << "  <freejoint name=\"" << xml_escape(names[0]) << "\"/>\n";
      else x << ind << "  <joint name=\"" << xml_escape(names[0]) << "\" type=\"free\"" << arm << "/>\n";
      break;
    default: break;  // helical and fixed never reach here (unsupported / merged)
  }
  // Principal axes of the rotational inertia, computed at 50 digits, as a proper rotation.
  const Inertial in = inertial_of(m.I[i]);
  Eigen::SelfAdjointEigenSolver<Mat3<B>> es(in.Ic);
  Mat3<B> V = es.eigenvectors();
  if (V.determinant() < B(0)) V.col(2) = -V.col(2);
  const auto qi = quat_of(V);
  const Vec3<B> d = es.eigenvalues();
  x << ind << "  <inertial pos=\"" << dec3(in.com) << "\" quat=\"" << dec(qi(0)) << " " << dec(qi(1)) << " " << dec(qi(2))
    << " " << dec(qi(3)) << "\" mass=\"" << dec(in.mass) << "\" diaginertia=\"" << dec3(d) << "\"/>\n";
  if (has_contact_geom(m, i)) x << ind << "  " << contact_geom(m, i) << "\n";
  for (int c : children[i]) write_body(x, m, children, c, depth + 1);
  x << ind << "</body>\n";
}

Mat3<B> R_of_quat(const double* q) { return quat_to_R<B>(B(q[0]), B(q[1]), B(q[2]), B(q[3])); }

// World pose of a free root body: Xtree (joint frame) composed with the joint's own (quat, p).
void free_world_pose(const Model<B>& m, int i, const double* q, Vec3<B>& p_w, Mat3<B>& R_w) {
  const Mat3<B> Rt = m.Xtree[i].E.transpose();
  R_w = Rt * R_of_quat(q);
  p_w = m.Xtree[i].r + Rt * Vec3<B>(B(q[4]), B(q[5]), B(q[6]));
}

// qpos from canonical q, joint by joint; a free root body gets its world pose (position, then
// the quaternion: the input's own when Xtree has no rotation, so nothing is rounded).
void set_qpos(const Model<B>& m, const std::vector<int>& mj_qpos, const std::vector<double>& q, double* qpos) {
  for (int i = 0; i < m.NB; ++i) {
    const double* qi = q.data() + m.iq[i];
    double* qp = qpos + mj_qpos[i];
    if (m.joint[i].type != JointType::Free) {
      for (int k = 0; k < m.nqi[i]; ++k) qp[k] = qi[k];
      continue;
    }
    Vec3<B> p_w;
    Mat3<B> R_w;
    free_world_pose(m, i, qi, p_w, R_w);
    const auto qw = quat_of(R_w);
    const bool plain = m.Xtree[i].E == Mat3<B>::Identity();
    for (int k = 0; k < 3; ++k) qp[k] = static_cast<double>(p_w(k));
    for (int k = 0; k < 4; ++k) qp[3 + k] = plain ? qi[k] : static_cast<double>(qw(k));
  }
}

// The equality constraints standing for loop joint L: two connects for a revolute joint (points on
// its axis, kLoopAxisSpan apart), one connect for a spherical joint, one weld for a fixed joint.
std::vector<std::string> loop_equality_names(const LoopJoint<B>& L) {
  switch (L.joint.type) {
    case JointType::Revolute: return {L.name + "__axis0", L.name + "__axis1"};
    case JointType::Spherical:
    case JointType::Fixed: return {L.name};
    default: return {};
  }
}

// The MJCF of a built model (see the header for what it sets and why).
std::string mjcf_of(const Model<B>& m, const std::string& name, MjcfDialect dialect) {
  std::vector<std::vector<int>> children(m.NB);
  std::vector<int> roots;
  for (int i = 0; i < m.NB; ++i) (m.parent[i] < 0 ? roots : children[m.parent[i]]).push_back(i);
  std::ostringstream x;
  x << "<mujoco model=\"" << xml_escape(name.empty() ? "rbdref" : name) << "\">\n"
    << "  <!-- written by rbdref from its canonical model: see engines/mujoco/mujoco_adapter.hpp -->\n"
    << "  <compiler angle=\"radian\" inertiafromgeom=\"false\" balanceinertia=\"false\" boundmass=\"0\""
       " boundinertia=\"0\" fusestatic=\"false\"/>\n"
    << "  <option gravity=\"" << dec3(m.gravity) << "\"" << (runs_contacts(m) ? " tolerance=\"0\" iterations=\"1000\"" : "") << ">\n"
    // A tree needs no constraint at all; a loop model needs the equality constraints (there are
    // no joint limits, no frictionloss and no contacts to switch on with them); contacts need the
    // contact constraints, which the adapter writes itself (no geom collides). With contacts the
    // solver runs to convergence (tolerance 0), so that what is measured is MuJoCo's model.
    // MuJoCo 3 split the passive flag into spring and damper.
    << "    <flag " << (runs_contacts(m) ? "" : m.nc > 0 ? "contact=\"disable\" " : "constraint=\"disable\" contact=\"disable\" ")
    << (dialect == MjcfDialect::MuJoCo2 ? "passive=\"disable\"" : "spring=\"disable\" damper=\"disable\"") << "/>\n"
    << "  </option>\n";
  if (runs_contacts(m) && dialect == MjcfDialect::MuJoCo2)
    x << "  <size nconmax=\"" << m.contacts.size() << "\" njmax=\"" << m.contacts.size() + 6 * m.loops.size() + 8 << "\"/>\n";
  x << "  <worldbody>\n";
  if (has_contact_geom(m, -1)) x << "    " << contact_geom(m, -1) << "\n";
  for (int r : roots) write_body(x, m, children, r, 2);
  x << "  </worldbody>\n";
  if (m.nc > 0) {
    // Anchors are placeholders here: the compiler would fill the second body's from qpos0, which is
    // not on the closure manifold; set_loop_anchors writes every anchor after loading.
    x << "  <equality>\n";
    for (const LoopJoint<B>& L : m.loops) {
      const std::string b1 = L.p < 0 ? "world" : xml_escape(mj_body(m, L.p)), b2 = L.s < 0 ? "world" : xml_escape(mj_body(m, L.s));
      auto tag = [&](const char* type, const std::string& name) {
        x << "    <" << type << " name=\"" << xml_escape(name) << "\" body1=\"" << b1 << "\" body2=\"" << b2 << "\""
          << (std::string(type) == "weld" ? " torquescale=\"1\"" : " anchor=\"0 0 0\"") << "/>\n";
      };
      for (const std::string& n : loop_equality_names(L)) tag(L.joint.type == JointType::Fixed ? "weld" : "connect", n);
    }
    x << "  </equality>\n";
  }
  x << "</mujoco>\n";
  return x.str();
}

// The model echo: MuJoCo's model read back and compared with rbdref's at 50 digits.
ojson model_echo(const MjModelView& mm, const Model<B>& m) {
  ojson bodies = ojson::array();
  EchoWorst worst({"mass_rel_err", "com_abs_err_m", "inertia_rel_err", "frame_pos_abs_err_m", "frame_rot_err", "joint_axis_err"});
  for (int i = 0; i < m.NB; ++i) {
    const int b = mm.body_id(mj_body(m, i));
    const Inertial in = inertial_of(m.I[i]);
    const B mass_mj = B(mm.body_mass[b]);
    const Vec3<B> com_mj(B(mm.body_ipos[3 * b]), B(mm.body_ipos[3 * b + 1]), B(mm.body_ipos[3 * b + 2]));
    const Mat3<B> Ri = R_of_quat(mm.body_iquat + 4 * b);
    const Vec3<B> d(B(mm.body_inertia[3 * b]), B(mm.body_inertia[3 * b + 1]), B(mm.body_inertia[3 * b + 2]));
    const Mat3<B> Ic_mj = Ri * d.asDiagonal() * Ri.transpose();
    const Vec3<B> pos_mj(B(mm.body_pos[3 * b]), B(mm.body_pos[3 * b + 1]), B(mm.body_pos[3 * b + 2]));
    const Mat3<B> R_mj = R_of_quat(mm.body_quat + 4 * b);
    const double e_mass = static_cast<double>(B(abs(B(mass_mj - in.mass)) / in.mass));
    const double e_com = max_abs_d(Vec3<B>(com_mj - in.com));  // metres
    const double sI = max_abs_d(in.Ic);
    const double e_I = sI > 0 ? max_abs_d(Mat3<B>(Ic_mj - in.Ic)) / sI : max_abs_d(Ic_mj);
    const double e_pos = max_abs_d(Vec3<B>(pos_mj - m.Xtree[i].r));  // metres
    const double e_rot = max_abs_d(Mat3<B>(R_mj - m.Xtree[i].E.transpose()));
    double e_axis = 0;
    const Joint<B>& jt = m.joint[i];
    const std::vector<std::string> names = mj_joint_names(m, i);
    for (size_t k = 0; k < names.size(); ++k) {
      if (jt.type == JointType::Spherical || jt.type == JointType::Free) break;
      const int j = mm.joint_id(names[k]);
      Vec3<B> a = jt.axis;
      if (jt.type == JointType::Planar && k == 0) a = jt.u;
      if (jt.type == JointType::Planar && k == 1) a = jt.axis.cross(jt.u);
      const Vec3<B> a_mj(B(mm.jnt_axis[3 * j]), B(mm.jnt_axis[3 * j + 1]), B(mm.jnt_axis[3 * j + 2]));
      e_axis = std::max(e_axis, max_abs_d(Vec3<B>(a_mj - a)));
    }
    worst.raise({e_mass, e_com, e_I, e_pos, e_rot, e_axis});
    bodies.push_back({{"body", m.body_name[i]},
                      {"mass", {{"rbdref", to_decimal(in.mass, 20)}, {"engine", mm.body_mass[b]}, {"rel_err", e_mass}}},
                      {"com_abs_err_m", e_com},
                      {"inertia_rel_err", e_I},
                      {"frame_pos_abs_err_m", e_pos},
                      {"frame_rot_err", e_rot},
                      {"joint_axis_err", e_axis}});
  }
  const Vec3<B> g_mj(B(mm.gravity[0]), B(mm.gravity[1]), B(mm.gravity[2]));
  const double e_g = max_abs_d(Vec3<B>(g_mj - m.gravity));
  // Each value crossed to MuJoCo as a correctly rounded double (20 significant digits parsed by
  // MuJoCo) and, for inertias, through a unit quaternion: a few ulps of double is the floor.
  const double tol = kEchoTol;
  const bool match = worst["mass_rel_err"] <= tol && worst["inertia_rel_err"] <= tol && worst["frame_rot_err"] <= tol &&
                     worst["joint_axis_err"] <= tol && worst["com_abs_err_m"] <= tol * std::max(1.0, max_abs_d(Vec3<B>::Ones())) &&
                     e_g <= tol * 10 && worst["frame_pos_abs_err_m"] <= tol * 1e4;
  ojson echo;
  echo["engine_model"] = {{"nbody", mm.nbody - 1}, {"njnt", mm.njnt}, {"nq", mm.nq}, {"nv", mm.nv}, {"neq", mm.neq}};
  echo["gravity_abs_err"] = e_g;
  close_echo(echo, worst, {{"relative", tol}, {"rule", "64 ε(double) relative (positions: × max(1, |p|) m)"}}, match, bodies);
  return echo;
}

std::string strip_mjcf_assets(const std::string& mjcf, int* removed) {
  tinyxml2::XMLDocument doc;
  *removed = 0;
  if (doc.Parse(mjcf.c_str(), mjcf.size()) != tinyxml2::XML_SUCCESS) return mjcf;
  std::set<std::string> gone;  // names of removed assets
  std::function<void(tinyxml2::XMLElement*)> walk = [&](tinyxml2::XMLElement* e) {
    for (tinyxml2::XMLElement* c = e->FirstChildElement(); c;) {
      tinyxml2::XMLElement* next = c->NextSiblingElement();
      const std::string tag = c->Name();
      const bool asset_file = (tag == "mesh" || tag == "hfield" || tag == "texture" || tag == "skin") && c->Attribute("file");
      const bool uses = (tag == "geom" && (c->Attribute("mesh") || c->Attribute("hfield"))) ||
                        (tag == "geom" && c->Attribute("type") && (std::string(c->Attribute("type")) == "mesh" || std::string(c->Attribute("type")) == "hfield"));
      if (asset_file) {
        if (c->Attribute("name")) gone.insert(c->Attribute("name"));
        ++*removed;
        e->DeleteChild(c);
      } else if (uses && std::string(e->Name()) != "default") {
        e->DeleteChild(c);
      } else {
        if (tag == "material") c->DeleteAttribute("texture");
        if (tag == "geom" && std::string(e->Name()) == "default") {
          c->DeleteAttribute("mesh");
          if (c->Attribute("type") && (std::string(c->Attribute("type")) == "mesh" || std::string(c->Attribute("type")) == "hfield"))
            c->DeleteAttribute("type");
        }
        walk(c);
      }
      c = next;
    }
  };
  if (tinyxml2::XMLElement* root = doc.RootElement()) walk(root);
  tinyxml2::XMLPrinter p;
  doc.Print(&p);
  return p.CStr();
}

std::vector<int> mjcf_joint_map(const MjWorldView& v, const Model<B>& m, std::string& why) {
  std::vector<int> moving;
  for (int i = 0; i < m.NB; ++i)
    if (m.nvi[i] > 0) moving.push_back(i);
  if (static_cast<int>(moving.size()) != v.njnt) {
    why = "MuJoCo's model has " + std::to_string(v.njnt) + " joints, rbdref's " + std::to_string(moving.size()) + " moving joints";
    return {};
  }
  std::vector<int> map(static_cast<size_t>(v.njnt));
  for (int j = 0; j < v.njnt; ++j) {
    const int i = moving[static_cast<size_t>(j)];
    const JointType t = m.joint[i].type;
    const int mt = v.jnt_type[static_cast<size_t>(j)];
    const bool same = (mt == 0 && t == JointType::Free) || (mt == 1 && t == JointType::Spherical) ||
                      (mt == 2 && t == JointType::Prismatic) || (mt == 3 && t == JointType::Revolute);
    if (!same) {
      why = "MuJoCo's joint " + std::to_string(j) + " ('" + v.jnt_names[static_cast<size_t>(j)] + "') is not of the type of rbdref's '" +
            m.joint_name[i] + "'";
      return {};
    }
    map[static_cast<size_t>(j)] = i;
  }
  return map;
}

std::vector<double> q_of_qpos(const Model<B>& m, const std::vector<int>& mj_qpos, const std::vector<double>& qpos) {
  std::vector<double> q(static_cast<size_t>(m.nq), 0.0);
  for (int i = 0; i < m.NB; ++i) {
    const double* qp = qpos.data() + mj_qpos[i];
    double* qi = q.data() + m.iq[i];
    if (m.joint[i].type == JointType::Free) {
      for (int k = 0; k < 4; ++k) qi[k] = qp[3 + k];
      for (int k = 0; k < 3; ++k) qi[4 + k] = qp[k];
    } else {
      for (int k = 0; k < m.nqi[i]; ++k) qi[k] = qp[k];
    }
  }
  return q;
}

ojson mjcf_echo(const MjWorldView& v, const Model<B>& m, const std::vector<int>& joint_map) {
  std::vector<int> mj_qpos(m.NB, 0);
  for (int j = 0; j < v.njnt; ++j) mj_qpos[joint_map[static_cast<size_t>(j)]] = v.jnt_qposadr[static_cast<size_t>(j)];
  const std::vector<double> q0 = q_of_qpos(m, mj_qpos, v.qpos0);
  const VecX<B> q = Eigen::Map<const VecX<double>>(q0.data(), m.nq).cast<B>();
  const TreeKinematics<B> k = kinematics<B>(m, q, VecX<B>::Zero(m.nv), kWorldTransforms);
  auto v3 = [](const std::vector<double>& a, int i) { return Vec3<B>(B(a[3 * i]), B(a[3 * i + 1]), B(a[3 * i + 2])); };
  ojson bodies = ojson::array();
  EchoWorst worst({"mass_rel_err", "com_abs_err_m", "inertia_rel_err", "anchor_abs_err_m", "joint_axis_err", "armature_rel_err"});
  double scale = 1;  // positions' scale, for the tolerance
  for (int j = 0; j < v.njnt; ++j) {
    const int i = joint_map[static_cast<size_t>(j)];
    const int b = v.jnt_bodyid[static_cast<size_t>(j)];
    // rbdref's joint frame origin and axis in the world at q0 (the joint frame is the body frame).
    const Xform<B>& X = k.X0[i];
    const Mat3<B> Et = X.E.transpose();
    const Vec3<B> o = X.r;  // the body origin in the world
    double e_anchor = 0, e_axis = 0;
    if (m.joint[i].type != JointType::Free) e_anchor = max_abs_d(Vec3<B>(v3(v.xanchor, j) - o));
    if (m.joint[i].type == JointType::Revolute || m.joint[i].type == JointType::Prismatic)
      e_axis = max_abs_d(Vec3<B>(v3(v.xaxis, j) - Et * m.joint[i].axis));
    scale = std::max(scale, max_abs_d(o));
    const B arm = m.armature.empty() ? B(0) : m.armature[static_cast<size_t>(m.iv[i])];
    const B arm_mj = B(v.dof_armature[static_cast<size_t>(v.jnt_dofadr[static_cast<size_t>(j)])]);
    const double e_arm = arm == 0 ? static_cast<double>(abs(arm_mj)) : static_cast<double>(B(abs(B(arm_mj - arm)) / arm));
    ojson row = {{"joint", m.joint_name[i]}, {"anchor_abs_err_m", e_anchor}, {"joint_axis_err", e_axis}, {"armature_rel_err", e_arm}};
    // The body's mass once, at its last joint: MuJoCo's weld group of b against rbdref's body i.
    bool last = true;
    for (int j2 = j + 1; j2 < v.njnt; ++j2) last = last && v.jnt_bodyid[static_cast<size_t>(j2)] != b;
    double e_mass = 0, e_com = 0, e_I = 0;
    if (last) {
      B M(0);
      Vec3<B> mc = Vec3<B>::Zero();
      std::vector<int> group;
      for (int c = 0; c < v.nbody; ++c)
        if (v.body_weldid[static_cast<size_t>(c)] == b) group.push_back(c);
      for (int c : group) M += B(v.body_mass[static_cast<size_t>(c)]), mc += B(v.body_mass[static_cast<size_t>(c)]) * v3(v.xipos, c);
      const Vec3<B> com_mj = M > 0 ? Vec3<B>(mc / M) : Vec3<B>::Zero();
      Mat3<B> I_mj = Mat3<B>::Zero();
      for (int c : group) {
        Mat3<B> R;
        for (int r = 0; r < 3; ++r)
          for (int s = 0; s < 3; ++s) R(r, s) = B(v.ximat[static_cast<size_t>(9 * c + 3 * r + s)]);
        const Vec3<B> dI = v3(v.body_inertia, c);
        const Vec3<B> d = v3(v.xipos, c) - com_mj;
        const B mcb = B(v.body_mass[static_cast<size_t>(c)]);
        I_mj += R * dI.asDiagonal() * R.transpose() + mcb * (d.dot(d) * Mat3<B>::Identity() - d * d.transpose());
      }
      const Inertial in = inertial_of(m.I[i]);
      const Vec3<B> com = X.r + Et * in.com;
      const Mat3<B> Ic = Et * in.Ic * X.E;
      e_mass = in.mass > 0 ? static_cast<double>(B(abs(B(M - in.mass)) / in.mass)) : static_cast<double>(M);
      e_com = max_abs_d(Vec3<B>(com_mj - com));
      const double sI = max_abs_d(Ic);
      e_I = sI > 0 ? max_abs_d(Mat3<B>(I_mj - Ic)) / sI : max_abs_d(I_mj);
      scale = std::max(scale, max_abs_d(com));
      row["body"] = m.body_name[i];
      row["mass"] = {{"rbdref", to_decimal(in.mass, 20)}, {"engine", static_cast<double>(M)}, {"rel_err", e_mass}};
      row["com_abs_err_m"] = e_com;
      row["inertia_rel_err"] = e_I;
    }
    worst.raise({e_mass, e_com, e_I, e_anchor, e_axis, e_arm});
    bodies.push_back(row);
  }
  const Vec3<B> g_mj(B(v.gravity[0]), B(v.gravity[1]), B(v.gravity[2]));
  const double e_g = max_abs_d(Vec3<B>(g_mj - m.gravity));
  // MuJoCo computes in double: each value a few ulps of double from the exact one, composed
  // through the tree (positions scale with the model's size).
  const double tol = kEchoTol;
  const bool match = worst["mass_rel_err"] <= tol && worst["inertia_rel_err"] <= tol && worst["joint_axis_err"] <= tol &&
                     worst["armature_rel_err"] <= tol && worst["com_abs_err_m"] <= tol * scale &&
                     worst["anchor_abs_err_m"] <= tol * scale && e_g <= tol * 10;
  ojson echo;
  echo["engine_model"] = {{"nbody", v.nbody - 1}, {"njnt", v.njnt}, {"nq", v.nq}, {"nv", v.nv}};
  echo["frame"] = "world coordinates at MuJoCo's qpos0; per MuJoCo joint, and per body (its weld group: body_weldid) at its last joint";
  echo["gravity_abs_err"] = e_g;
  close_echo(echo, worst, {{"relative", tol}, {"rule", "64 ε(double) relative (positions: × max(1, largest |p|) m)"}}, match, bodies);
  return echo;
}

void put_tree_values(const MujocoMap& map, const std::vector<double>& M, const std::vector<double>& bias, const std::vector<double>& finv,
                     const std::vector<double>& qacc, const MatX<B>& L, const VecX<B>& D, EngineSample& es) {
  const Eigen::Index nv = map.J.rows();
  const auto vec = [nv](const std::vector<double>& x) { return VecX<B>(Eigen::Map<const VecX<double>>(x.data(), nv).cast<B>()); };
  const MatX<B> Hp = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(M.data(), nv, nv).cast<B>();
  const MatX<B> Jt = map.J.transpose();
  es.values["H"] = num_mat(MatX<B>(Jt * Hp * map.J));
  es.values["C"] = num_vec(VecX<B>(Jt * (vec(bias) + Hp * map.Jdot_v)));
  es.values["tau"] = num_vec(VecX<B>(Jt * vec(finv)));
  es.values["qdd"] = num_vec(VecX<B>(Jt * (vec(qacc) - map.Jdot_v)));
  if (map.identity) {
    es.values["L"] = num_mat(L);
    es.values["D"] = num_vec(D);
  }
}

std::vector<double> to_doubles(const VecX<B>& x) {
  std::vector<double> out;
  for (Eigen::Index k = 0; k < x.size(); ++k) out.push_back(static_cast<double>(x(k)));
  return out;
}

json tree_conventions(const std::string& qdd, const std::string& factor, const std::vector<int>& mj_dof) {
  json c = {{"name", "mujoco"},
            {"free_joint_qpos", "px py pz qw qx qy qz: world position and orientation of the body"},
            {"free_joint_qvel", "vx vy vz (velocity of the body origin, world coordinates), wx wy wz (body coordinates)"},
            {"ball_joint_qvel", "angular velocity, body coordinates"},
            {"dof_order", "MuJoCo's depth-first body order"},
            {"C", "qfrc_bias"},
            {"H", "mj_fullM(qM)"},
            {"tau", "qfrc_inverse from mj_inverse at qacc"},
            {"qdd", qdd},
            {"factor", factor},
            {"converted_to", "rbdref canonical: H = Jᵀ H' J, C = Jᵀ (C' + H' J̇v), tau = Jᵀ tau', qdd = Jᵀ (qdd' - J̇v)"}};
  c["mujoco_dof_of_joint"] = mj_dof;  // MuJoCo DoF address of each rbdref joint's first DoF
  return c;
}

Refusals refusals(bool urdf_import, const std::string& loop) {
  Refusals w;
  w.loop = loop;
  if (urdf_import) {
    w.joint = "the adapter runs URDF revolute, continuous and prismatic joints ({type})";
    w.free = "MuJoCo's URDF import welds the root link to the world (the fixture has a floating base)";
  } else {
    w.joint = "MuJoCo has no {type} joint";
    w.free_below_root = "MuJoCo allows free joints only on bodies attached to the world";
  }
  return w;
}

const char* const kMjMassless =
    "MuJoCo refuses a moving body without mass and inertia (mjMINVAL); an MJCF body with several joints is audited through "
    "MuJoCo's own import of the file (mujoco-mjcf, mujoco-js-mjcf)";

std::string inertia_refusal(const Model<double>& m) {
  const std::string bad = inertia_triangle_violation(m);
  return bad.empty() ? "" : bad + ": MuJoCo refuses a non-physical inertia (its balanceinertia would change the model)";
}

}  // namespace rbd::mjcf

namespace rbd {

using mjcf::B;
using mjcf::free_world_pose;

MujocoMap mujoco_map(const Model<bin50>& m, const std::vector<int>& mj_dof, const std::vector<double>& q,
                     const std::vector<double>& qd) {
  MujocoMap map;
  map.J = MatX<B>::Zero(m.nv, m.nv);
  map.Jdot_v = VecX<B>::Zero(m.nv);
  for (int i = 0; i < m.NB; ++i) {
    const int c = m.iv[i], r = mj_dof[i];
    if (m.joint[i].type == JointType::Free) {
      // v' = [R v; ω]: rows r..r+2 take R times canonical (c+3..c+5); rows r+3..r+5 take ω (c..c+2).
      Vec3<B> p_w;
      Mat3<B> R_w;
      free_world_pose(m, i, q.data() + m.iq[i], p_w, R_w);
      map.J.block(r, c + 3, 3, 3) = R_w;
      map.J.block(r + 3, c, 3, 3) = Mat3<B>::Identity();
      const Vec3<B> w{B{qd[c]}, B{qd[c + 1]}, B{qd[c + 2]}}, v{B{qd[c + 3]}, B{qd[c + 4]}, B{qd[c + 5]}};
      map.Jdot_v.segment(r, 3) = R_w * w.cross(v);
      map.identity = false;
    } else {
      for (int k = 0; k < m.nvi[i]; ++k) {
        map.J(r + k, c + k) = B(1);
        if (r + k != c + k) map.identity = false;
      }
    }
  }
  return map;
}

}  // namespace rbd
