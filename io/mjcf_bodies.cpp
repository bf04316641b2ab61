// The body tree walk (mjcf_bodies.hpp): each MJCF body, in stages, into one canonical body per
// joint (a welded one when it has none), as io/mjcf.cpp's frame rules state.
#include "io/mjcf_bodies.hpp"

#include "io/input_error.hpp"
#include "io/memory_limit.hpp"

#include <cstdlib>

namespace rbd::mjcf_detail {

void expand_frames(Ctx& c, const XMLElement* parent, const Pose& frame, const std::string& cls, std::vector<Placed>& out) {
  for (const XMLElement* k : children(c.doc, parent)) {
    if (std::string(k->Name()) != "frame") {
      out.push_back({k, frame, cls});
      continue;
    }
    std::string fc = cls;
    if (const char* cc = k->Attribute("childclass")) {
      if (!c.defaults.classes.count(cc))
        throw InputError(c.doc.file(k), where_of(k, "<frame>") + " childclass", "unknown default class '" + std::string(cc) + "'");
      fc = cc;
    }
    const El fe{k, nullptr, c.doc.file(k), where_of(k, "<frame>")};
    expand_frames(c, k, compose(frame, Pose{vec<3>(fe, "pos", {0, 0, 0}), orientation(c, fe)}), fc, out);
  }
}

void Reader::check_size(const std::string& file, const std::string& what) const {
  // Peak memory per expression node alive, measured on `convert` of one body of 10⁴ and 10⁵
  // geoms (78 and 489 MB, 0.24 and 2.36 million nodes: ~194 bytes each, the memos and the
  // loader's long-double build included), rounded up.
  constexpr std::uint64_t kBytesPerNode = 256;
  const std::uint64_t nodes = NumExpr::alive();
  if (nodes <= memory_limit / kBytesPerNode) return;
  throw InputError(file, what,
                   "the numbers derived from the model's elements so far (" + std::to_string(nodes) + " expressions, about " +
                       format_bytes(nodes * kBytesPerNode) + ") pass the memory limit of " + format_bytes(memory_limit) + " (" +
                       memory_source + "); raise it with RBDREF_MAX_MEMORY, or give the bodies <inertial> elements instead of "
                       "deriving them from so many geoms");
}

std::string Reader::unique(std::string n, std::set<std::string>& used) {
  while (!used.insert(n).second) n += "_";
  return n;
}

void Reader::body(const XMLElement* e, int parent, const std::string& parent_class, const Pose& frame) {
  const std::string file = c.doc.file(e);
  const std::string cls = body_class(e, parent_class, file);
  const int id = static_cast<int>(bodies.size());
  MjBody b;
  const std::string what = body_name(e, id, file, b);
  const Pose local = body_pose(e, what, file, frame);
  const MjBody& P = bodies[static_cast<size_t>(parent)];
  b.world0 = compose(P.world0, local);
  const BodyElements parts = body_elements(e, id, cls, b, what, file);
  if (const char* nm = e->Attribute("name"); nm && *nm) body_by_name[nm] = id;
  // Mass properties in the MJCF body frame: the <inertial>, or the geoms' (inertiafromgeom).
  std::string inertial_where;
  const MassProps mp =
      body_mass(c, comp, parts.inertial, parts.geoms, file, b.name, what, inertial_where, [&] { check_size(file, what); });
  const std::vector<MjJoint> js = body_joints(parts.joints, parent, file);
  const Pose into = compose(translation(P.offset), local);  // O_parent · (pos, quat)
  if (js.empty()) weld(b, P, into, mp, inertial_where, what);
  else joint_chain(b, P, js, into, mp, inertial_where, file);
  bodies.push_back(b);
  check_size(file, what);
  for (const Placed& pk : parts.kids)
    if (std::string(pk.e->Name()) == "body") body(pk.e, id, pk.cls, pk.frame);
}

// The class the body's elements take: its childclass, else its parent's.
std::string Reader::body_class(const XMLElement* e, const std::string& parent_class, const std::string& file) const {
  if (const char* cc = e->Attribute("childclass")) {
    if (!c.defaults.classes.count(cc))
      throw InputError(file, where_of(e, "<body>") + " childclass", "unknown default class '" + std::string(cc) + "'");
    return cc;
  }
  return parent_class;
}

// The body's name (written, else "body<id>"; a written one unique), set in b; returns how
// messages name the body.
std::string Reader::body_name(const XMLElement* e, int id, const std::string& file, MjBody& b) const {
  const char* nm = e->Attribute("name");
  b.name = nm && *nm ? nm : "body" + std::to_string(id);
  if (nm && *nm && body_by_name.count(nm)) throw InputError(file, where_of(e, "body '" + b.name + "'"), "duplicate body name");
  return where_of(e, "body '" + b.name + "'");
}

// The body's pose in its parent's frame (pos and orientation, inside the <frame>s around it);
// gravcomp and a class attribute noted as ignored.
Pose Reader::body_pose(const XMLElement* e, const std::string& what, const std::string& file, const Pose& frame) {
  El be{e, nullptr, file, what};  // a body takes no class of its own
  if (const char* gc = e->Attribute("gravcomp"); gc && std::strtod(gc, nullptr) != 0)
    c.notes.push_back(what + ": gravcomp ignored (a passive force MuJoCo adds; not part of H, C, τ)");
  if (e->Attribute("class")) c.notes.push_back(what + ": class ignored (MuJoCo's bodies take no default class; childclass applies to their elements)");
  Pose local;
  local.p = vec<3>(be, "pos", {0, 0, 0});
  local.q = orientation(c, be);
  if (!is_identity(frame)) local = compose(frame, local);  // the <frame>s around the body
  return local;
}

// The body's children sorted by kind; sites recorded, elements with no effect counted, procedural
// ones (composite, flexcomp, replicate) and joints or inertials inside a <frame> refused.
BodyElements Reader::body_elements(const XMLElement* e, int id, const std::string& cls, const MjBody& b, const std::string& what,
                                   const std::string& file) {
  BodyElements out;
  expand_frames(c, e, Pose(), cls, out.kids);
  for (const Placed& pk : out.kids) {
    const XMLElement* k = pk.e;
    const std::string tag = k->Name();
    const std::string& cls = pk.cls;
    if (!is_identity(pk.frame) && (tag == "joint" || tag == "freejoint" || tag == "inertial"))
      throw InputError(file, where_of(k, "<" + tag + ">"), "a <" + tag + "> inside a <frame> (MuJoCo places joints and inertials in bodies)");
    if (tag == "joint" || tag == "freejoint") {
      const std::string jn = k->Attribute("name") ? k->Attribute("name") : "";
      out.joints.push_back(
          element(c, k, cls, "joint '" + (jn.empty() ? "joint" + std::to_string(njoint + static_cast<int>(out.joints.size())) : jn) + "'"));
    } else if (tag == "geom") {
      const std::string gn = k->Attribute("name") ? k->Attribute("name") : "";
      out.geoms.push_back({element(c, k, cls, gn.empty() ? "geom of body '" + b.name + "'" : "geom '" + gn + "'"), pk.frame});
    } else if (tag == "inertial") {
      if (out.inertial) throw InputError(file, where_of(k, what + " <inertial>"), "a body has at most one <inertial>");
      out.inertial = k;
    } else if (tag == "site") {
      El se = element(c, k, cls, "site");
      if (const char* sn = k->Attribute("name")) sites[sn] = {id, compose(pk.frame, Pose{vec<3>(se, "pos", {0, 0, 0}), orientation(c, se)})};
    } else if (tag != "body") {
      if (tag == "composite" || tag == "flexcomp" || tag == "replicate")
        throw InputError(file, where_of(k, "<" + tag + ">"),
                         "not supported by rbdref's MJCF reader (write the bodies it stands for, or use MuJoCo to save the compiled model: "
                         "mj_saveLastXML)");
      ++ignored[tag];
    }
  }
  return out;
}

// The body's joints: type and name (unique), passive settings noted; a free joint only alone and
// only on a child of <worldbody>.
std::vector<MjJoint> Reader::body_joints(const std::vector<El>& joints, int parent, const std::string& file) {
  std::vector<MjJoint> js;
  for (const El& je : joints) {
    MjJoint j{je, std::string(je.e->Name()) == "freejoint" ? "free" : word(je, "type", "hinge", {"hinge", "slide", "ball", "free"}), ""};
    const char* jn = je.e->Attribute("name");
    j.name = jn && *jn ? jn : "joint" + std::to_string(njoint);
    if (jn && *jn && joint_names.count(jn)) throw InputError(file, je.what, "duplicate joint name");
    for (const char* a : {"damping", "stiffness", "frictionloss", "range", "limited"})
      if (const char* v = je.get(a); v && std::string(v) != "0" && std::string(v) != "false") passive = true;
    ++njoint;
    js.push_back(j);
  }
  for (const MjJoint& j : js)
    if (j.type == "free") {
      if (js.size() > 1) throw InputError(file, j.el.what, "a free joint must be its body's only joint (as MuJoCo requires)");
      if (parent != 0)
        throw InputError(file, j.el.what,
                         "a free joint on a body that is not a child of <worldbody>: MuJoCo's free joint is a pose in the world, "
                         "rbdref's a pose in the parent; nest the body directly in <worldbody>");
    }
  return js;
}

namespace {

void place_inertial(BodyDesc& bd, const MassProps& mp, const V3& off, const std::string& inertial_where) {
  bd.inertial.mass = mp.m.num();
  const V3 com = add(mp.c, off);
  for (int k = 0; k < 3; ++k) bd.inertial.com[static_cast<size_t>(k)] = com[static_cast<size_t>(k)].num();
  for (int k = 0; k < 6; ++k) bd.inertial.I[static_cast<size_t>(k)] = mp.I[static_cast<size_t>(k)].num();
  bd.inertial_where = inertial_where;
}

void set_origin(BodyDesc& bd, const Pose& o) {
  for (int k = 0; k < 3; ++k) bd.origin.xyz[static_cast<size_t>(k)] = o.p[static_cast<size_t>(k)].num();
  if (!(o.q[1].zero() && o.q[2].zero() && o.q[3].zero()))
    bd.origin.quat = std::array<Num, 4>{o.q[0].num(), o.q[1].num(), o.q[2].num(), o.q[3].num()};
}

}  // namespace

// A body without joints: one canonical body on a fixed joint ("<name>_weld").
void Reader::weld(MjBody& b, const MjBody& P, const Pose& into, const MassProps& mp, const std::string& inertial_where,
                  const std::string& what) {
  BodyDesc bd;
  bd.name = unique(b.name, names);
  bd.parent = P.desc;
  bd.joint.name = unique(b.name + "_weld", joint_names);
  bd.joint.type = JointType::Fixed;
  bd.where = what;
  set_origin(bd, into);
  place_inertial(bd, mp, zero3(), inertial_where);
  b.desc = static_cast<int>(d.bodies.size());
  d.bodies.push_back(bd);
}

// A body with n joints: n canonical bodies, the first n − 1 massless frames ("<name>/<joint>"),
// the last holding the body (its MJCF frame at −a_n: b.offset).
void Reader::joint_chain(MjBody& b, const MjBody& P, const std::vector<MjJoint>& js, const Pose& into, const MassProps& mp,
                         const std::string& inertial_where, const std::string& file) {
  V3 prev_anchor = zero3();
  for (size_t k = 0; k < js.size(); ++k) {
    const MjJoint& j = js[k];
    BodyDesc bd;
    const bool last = k + 1 == js.size();
    bd.name = unique(last ? b.name : b.name + "/" + j.name, names);
    bd.parent = k == 0 ? P.desc : static_cast<int>(d.bodies.size()) - 1;
    bd.joint.name = unique(j.name, joint_names);
    bd.where = j.el.what;
    const X arm = scalar(j.el, "armature", 0);
    if (arm.approx() < 0) throw InputError(file, j.el.what + " armature", "expected a number ≥ 0");
    bd.joint.armature = arm.num();
    V3 anchor = zero3();
    const Pose o = joint_motion(j, k == 0 ? into : translation(sub(zero3(), prev_anchor)), bd.joint, anchor, file);
    set_origin(bd, o);
    if (last) {
      b.offset = sub(zero3(), anchor);
      place_inertial(bd, mp, b.offset, inertial_where);
    } else {
      bd.inertial_where = j.el.what + " (a massless frame between two joints of body '" + b.name + "')";
    }
    prev_anchor = anchor;
    d.bodies.push_back(bd);
  }
  b.desc = static_cast<int>(d.bodies.size()) - 1;
}

// The joint's frame o · T(a) · M(−ref) (anchor a, set in `anchor`), and its type and axis in jd;
// a free joint's frame is the world's (its q is the body's pose).
Pose Reader::joint_motion(const MjJoint& j, Pose o, JointDesc& jd, V3& anchor, const std::string& file) {
  if (j.type == "free") {
    jd.type = JointType::Free;
    c.notes.push_back(j.el.what + ": free joint; the body's pose in the file is its initial configuration (MuJoCo's qpos0), "
                                  "not part of the model: q gives the pose");
    return Pose();
  }
  anchor = vec<3>(j.el, "pos", {0, 0, 0});
  o = compose(o, translation(anchor));
  if (j.type == "ball") {
    jd.type = JointType::Spherical;
    return o;
  }
  V3 axis = vec<3>(j.el, "axis", {0, 0, 1});
  if (all_zero(axis)) throw InputError(file, j.el.what + " axis", "zero axis");
  for (int a = 0; a < 3; ++a) jd.axis[static_cast<size_t>(a)] = axis[static_cast<size_t>(a)].num();
  const X ref = scalar(j.el, "ref", 0);
  const V3 u = normalized(axis);
  if (j.type == "hinge") {
    jd.type = JointType::Revolute;
    if (!ref.zero()) o = compose(o, Pose{zero3(), axis_angle(u, -angle(c, ref))});
  } else {
    jd.type = JointType::Prismatic;
    if (!ref.zero()) o = compose(o, translation(scale(u, -ref)));
  }
  return o;
}

}  // namespace rbd::mjcf_detail
