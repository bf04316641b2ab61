// The canonical model JSON, format "rbdref.model": read_model_json and model_to_json, and the
// field helpers of the format that the loop-joint and contact readers share (model_io_impl.hpp).
#include "io/model_io.hpp"

#include "io/model_io_impl.hpp"
#include "io/quaternion.hpp"
#include "reference/tree/model.hpp"

#include <cmath>
#include <initializer_list>
#include <map>
#include <set>

namespace rbd {

namespace io_detail {

const json& member(const json& obj, const char* key, const std::string& file, const std::string& path) {
  if (!obj.is_object()) throw InputError(file, path, "expected an object");
  auto it = obj.find(key);
  if (it == obj.end()) throw InputError(file, path.empty() ? key : path + "." + key, "missing field");
  return *it;
}


OriginDesc read_origin(const json& o, const std::string& file, const std::string& op, std::initializer_list<const char*> extra) {
  OriginDesc out;
  if (!o.is_object()) throw InputError(file, op, "expected an object with xyz and rpy or quat");
  std::vector<const char*> keys = {"xyz", "rpy", "quat"};
  keys.insert(keys.end(), extra.begin(), extra.end());
  known_fields(o, keys, file, op);
  if (o.contains("xyz")) out.xyz = num_array<3>(o["xyz"], file, op + ".xyz");
  if (o.contains("rpy") && o.contains("quat")) throw InputError(file, op, "give rpy or quat, not both");
  if (o.contains("rpy")) out.rpy = num_array<3>(o["rpy"], file, op + ".rpy");
  if (o.contains("quat")) {
    out.quat = num_array<4>(o["quat"], file, op + ".quat");
    const double n = quaternion_norm(out.quat->data());
    if (!(std::fabs(n - 1) <= kQuaternionTolerance))
      throw InputError(file, op + ".quat",
                       "expected a unit quaternion (w x y z) with |q| = 1 within 1e-6 (it is normalized when built), got |q| = " +
                           to_decimal(n, 17));
  }
  return out;
}

void read_joint_motion(const json& jj, const std::string& file, const std::string& jp, JointDesc& jd) {
  const json& jtype = member(jj, "type", file, jp);
  if (!jtype.is_string() || !joint_type_from_name(jtype.get<std::string>(), jd.type))
    throw InputError(file, jp + ".type", "expected one of revolute, prismatic, helical, cylindrical, planar, spherical, free, fixed");
  const bool needs_axis = jd.type == JointType::Revolute || jd.type == JointType::Prismatic || jd.type == JointType::Helical ||
                          jd.type == JointType::Cylindrical || jd.type == JointType::Planar;
  if (needs_axis) jd.axis = num_array<3>(member(jj, "axis", file, jp), file, jp + ".axis");
  if (jd.type == JointType::Helical) jd.pitch = json_num(member(jj, "pitch", file, jp), file, jp + ".pitch", true);
  if (jd.type == JointType::Planar && jj.contains("plane_x")) jd.plane_x = num_array<3>(jj["plane_x"], file, jp + ".plane_x");
}

}  // namespace io_detail

using io_detail::kInertiaKeys;
using io_detail::member;
using io_detail::num_array;
using io_detail::read_joint_motion;
using io_detail::read_origin;

namespace {

json num_json(const Num& n) { return n.is_double ? json(n.value) : json(n.text); }
template <size_t N>
json num_array_json(const std::array<Num, N>& a) {
  json j = json::array();
  for (const Num& n : a) j.push_back(num_json(n));
  return j;
}

}  // namespace

ModelDesc read_model_json(const json& doc, const std::string& file) {
  if (!doc.is_object()) throw InputError(file, "", "expected a JSON object (an rbdref.model document)");
  const json& fmt = member(doc, "format", file, "");
  if (fmt != "rbdref.model") throw InputError(file, "format", "expected \"rbdref.model\"");
  const json& ver = member(doc, "version", file, "");
  if (ver != 1 && ver != 2)
    throw InputError(file, "version", "expected 1 (a tree) or 2 (with loop_joints), the versions this build reads; got " + ver.dump());
  if (ver == 1) known_fields(doc, {"format", "version", "name", "gravity", "bodies", "import_notes"}, file, "");
  else known_fields(doc, {"format", "version", "name", "gravity", "bodies", "loop_joints", "contacts", "import_notes"}, file, "");
  ModelDesc d;
  if (doc.contains("name")) {
    if (!doc["name"].is_string()) throw InputError(file, "name", "expected a string");
    d.name = doc["name"].get<std::string>();
  }
  if (doc.contains("gravity")) d.gravity = num_array<3>(doc["gravity"], file, "gravity");
  const json& bodies = member(doc, "bodies", file, "");
  if (!bodies.is_array() || bodies.empty()) throw InputError(file, "bodies", "expected a non-empty array of bodies");
  std::map<std::string, int> index;
  std::set<std::string> joint_names;
  for (size_t b = 0; b < bodies.size(); ++b) {
    const std::string path = "bodies[" + std::to_string(b) + "]";
    const json& jb = bodies[b];
    BodyDesc bd;
    bd.where = path;
    const json& name = member(jb, "name", file, path);
    known_fields(jb, {"name", "parent", "joint", "origin", "inertial"}, file, path);
    if (!name.is_string() || name.get<std::string>().empty()) throw InputError(file, path + ".name", "expected a non-empty string");
    bd.name = name.get<std::string>();
    if (index.count(bd.name)) throw InputError(file, path + ".name", "duplicate body name '" + bd.name + "'");
    const json& parent = member(jb, "parent", file, path);
    if (parent.is_null()) {
      bd.parent = -1;
    } else if (parent.is_string()) {
      auto it = index.find(parent.get<std::string>());
      if (it == index.end())
        throw InputError(file, path + ".parent",
                         "expected the name of an earlier body or null (regular numbering, λ(i) < i), got '" +
                             parent.get<std::string>() + "'");
      bd.parent = it->second;
    } else {
      throw InputError(file, path + ".parent", "expected a body name or null");
    }
    const json& jj = member(jb, "joint", file, path);
    const std::string jp = path + ".joint";
    member(jj, "type", file, jp);
    known_fields(jj, {"name", "type", "axis", "pitch", "plane_x", "armature"}, file, jp);
    read_joint_motion(jj, file, jp, bd.joint);
    if (jj.contains("armature")) bd.joint.armature = json_num(jj["armature"], file, jp + ".armature", true);  // ≥ 0: build_model
    if (jj.contains("name") && (!jj["name"].is_string() || jj["name"].get<std::string>().empty()))
      throw InputError(file, jp + ".name", "expected a non-empty string");
    bd.joint.name = jj.value("name", bd.name);
    if (!joint_names.insert(bd.joint.name).second)
      throw InputError(file, jp + ".name",
                       "duplicate joint name '" + bd.joint.name + "' (states and engine outputs key values by joint name)");
    if (jb.contains("origin")) bd.origin = read_origin(jb["origin"], file, path + ".origin", {});
    const json& in = member(jb, "inertial", file, path);
    const std::string ip = path + ".inertial";
    bd.inertial_where = ip;
    bd.inertial.mass = json_num(member(in, "mass", file, ip), file, ip + ".mass", true);
    known_fields(in, {"mass", "com", "I", "rpy"}, file, ip);
    bd.inertial.com = num_array<3>(member(in, "com", file, ip), file, ip + ".com");
    const json& I = member(in, "I", file, ip);
    known_fields(I, {"ixx", "iyy", "izz", "ixy", "ixz", "iyz"}, file, ip + ".I");
    for (int k = 0; k < 6; ++k)
      bd.inertial.I[k] = json_num(member(I, kInertiaKeys[k], file, ip + ".I"), file, ip + ".I." + kInertiaKeys[k], true);
    if (in.contains("rpy")) bd.inertial.rpy = num_array<3>(in["rpy"], file, ip + ".rpy");
    index[bd.name] = static_cast<int>(b);
    d.bodies.push_back(std::move(bd));
  }
  if (ver == 2) {
    // Version 2: loop joints and/or contacts (either may be absent or empty).
    if (!doc.contains("loop_joints") && !doc.contains("contacts"))
      throw InputError(file, "loop_joints", "missing field (version 2 carries loop_joints, contacts or both)");
    if (doc.contains("loop_joints"))
      d.loop_joints = read_loop_joints(doc["loop_joints"], d, file, "loop_joints", LoopSyntax::Canonical);
    if (doc.contains("contacts")) d.contacts = read_contacts(doc["contacts"], d, file, "contacts", LoopSyntax::Canonical);
  }
  return d;
}

namespace {

// A joint's type and what its type needs (axis, pitch, plane_x), into j.
void joint_motion_json(const JointDesc& joint, json& j) {
  const JointType t = joint.type;
  j["type"] = joint_type_name(t);
  if (t != JointType::Spherical && t != JointType::Free && t != JointType::Fixed) j["axis"] = num_array_json(joint.axis);
  if (t == JointType::Helical) j["pitch"] = num_json(joint.pitch);
  if (t == JointType::Planar && joint.plane_x) j["plane_x"] = num_array_json(*joint.plane_x);
}

// A frame: xyz, and quat or rpy as written.
json origin_json(const OriginDesc& o) {
  json j;
  j["xyz"] = num_array_json(o.xyz);
  if (o.quat) j["quat"] = num_array_json(*o.quat);
  else j["rpy"] = num_array_json(o.rpy);
  return j;
}

}  // namespace

json model_to_json(const ModelDesc& d) {
  json doc;
  doc["format"] = "rbdref.model";
  doc["version"] = 1;
  doc["name"] = d.name;
  doc["gravity"] = num_array_json(d.gravity);
  json bodies = json::array();
  for (const BodyDesc& b : d.bodies) {
    json jb;
    jb["name"] = b.name;
    jb["parent"] = b.parent < 0 ? json(nullptr) : json(d.bodies[b.parent].name);
    json jj;
    jj["name"] = b.joint.name;
    joint_motion_json(b.joint, jj);
    if (!b.joint.armature.is_zero()) jj["armature"] = num_json(b.joint.armature);
    jb["joint"] = jj;
    jb["origin"] = origin_json(b.origin);
    json in;
    in["mass"] = num_json(b.inertial.mass);
    in["com"] = num_array_json(b.inertial.com);
    json I;
    for (int k = 0; k < 6; ++k) I[kInertiaKeys[k]] = num_json(b.inertial.I[k]);
    in["I"] = I;
    in["rpy"] = num_array_json(b.inertial.rpy);
    jb["inertial"] = in;
    bodies.push_back(jb);
  }
  doc["bodies"] = bodies;
  // Version 2 only when there are loops: a tree's canonical JSON (and its hash) is unchanged.
  if (!d.loop_joints.empty()) {
    doc["version"] = 2;
    json loops = json::array();
    for (const LoopJointDesc& l : d.loop_joints) {
      json jl;
      jl["name"] = l.name;
      joint_motion_json(l.joint, jl);
      auto end = [&](const LoopEndDesc& e) {
        json je = origin_json(e.origin);
        je["body"] = e.body < 0 ? json(nullptr) : json(d.bodies[e.body].name);
        return je;
      };
      jl["predecessor"] = end(l.pred);
      jl["successor"] = end(l.succ);
      if (l.active) jl["active"] = true;
      loops.push_back(jl);
    }
    doc["loop_joints"] = loops;
  }
  if (!d.contacts.empty()) {
    doc["version"] = 2;
    json cs = json::array();
    for (const ContactDesc& c : d.contacts) {
      json jc;
      jc["name"] = c.name;
      auto name = [&](int b) { return b < 0 ? json(nullptr) : json(d.bodies[b].name); };
      if (c.pred < 0) jc["body"] = name(c.succ);
      else jc["bodies"] = json::array({name(c.pred), name(c.succ)});
      jc["point"] = num_array_json(c.point);
      if (c.radius) jc["radius"] = num_json(*c.radius);
      if (c.sphere)
        jc["surface_sphere"] = {{"center", num_array_json(c.sphere->center)},
                                {"radius", num_json(c.sphere->radius)},
                                {"side", c.sphere->inside ? "inside" : "outside"}};
      else
        jc["normal"] = num_array_json(c.normal);
      if (c.surface) jc["surface"] = num_array_json(*c.surface);
      if (c.friction) jc["friction"] = num_json(*c.friction);
      if (c.restitution) jc["restitution"] = num_json(*c.restitution);
      if (c.stiffness) jc["stiffness"] = num_json(*c.stiffness);
      if (c.damping) jc["damping"] = num_json(*c.damping);
      if (c.tangential_stiffness) jc["tangential_stiffness"] = num_json(*c.tangential_stiffness);
      if (c.tangential_damping) jc["tangential_damping"] = num_json(*c.tangential_damping);
      cs.push_back(jc);
    }
    doc["contacts"] = cs;
  }
  return doc;
}

}  // namespace rbd
