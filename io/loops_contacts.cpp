// Loop joints and point contacts from JSON: as the canonical model carries them (version 2) and as
// --loops and --contacts files give them, resolved against the model's bodies.
#include "io/model_io.hpp"

#include "io/model_io_impl.hpp"
#include "reference/tree/model.hpp"

#include <cstdlib>
#include <optional>
#include <set>

namespace rbd {

using io_detail::member;
using io_detail::num_array;
using io_detail::read_joint_motion;
using io_detail::read_origin;

std::vector<LoopJointDesc> read_loop_joints(const json& arr, const ModelDesc& d, const std::string& file,
                                            const std::string& path, LoopSyntax syntax) {
  const bool canonical = syntax == LoopSyntax::Canonical;
  if (!arr.is_array()) throw InputError(file, path, "expected an array of loop joints");
  std::vector<LoopJointDesc> out;
  std::set<std::string> names;
  for (const BodyDesc& b : d.bodies) names.insert(b.joint.name);
  for (const LoopJointDesc& l : d.loop_joints) names.insert(l.name);
  for (size_t i = 0; i < arr.size(); ++i) {
    const std::string lp = path + "[" + std::to_string(i) + "]";
    const json& jl = arr[i];
    if (!jl.is_object()) throw InputError(file, lp, "expected an object (a loop joint)");
    known_fields(jl, {"name", "type", "predecessor", "successor", "axis", "pitch", "plane_x", "active"}, file, lp);
    LoopJointDesc ld;
    ld.where = lp;
    const json& name = member(jl, "name", file, lp);
    if (!name.is_string() || name.get<std::string>().empty()) throw InputError(file, lp + ".name", "expected a non-empty string");
    ld.name = name.get<std::string>();
    if (!names.insert(ld.name).second)
      throw InputError(file, lp + ".name", "duplicate joint name '" + ld.name + "' (tree and loop joints share one namespace)");
    ld.joint.name = ld.name;
    // In a loops file, a loop joint without an axis turns about z of its frames (RBDA's
    // convention); the canonical model states every axis, as it does for tree joints.
    JointDesc& jd = ld.joint;
    if (!canonical) {
      // A loops file speaks URDF's and MuJoCo's words too: continuous, ball and weld name jcalc's
      // revolute, spherical and fixed. A universal joint is not one jcalc type (RBDA table 4.1 has
      // none): close the loop at another joint, or split the universal into two tree revolutes.
      json withz = jl;
      if (!jl.contains("axis")) withz["axis"] = json::array({0, 0, 1});
      if (jl.contains("type") && jl["type"].is_string()) {
        const std::string t = jl["type"].get<std::string>();
        if (t == "continuous") withz["type"] = "revolute";
        if (t == "ball") withz["type"] = "spherical";
        if (t == "weld") withz["type"] = "fixed";
        if (t == "universal")
          throw InputError(file, lp + ".type",
                           "a universal loop joint is not supported (it is not one jcalc joint type): close the loop at a "
                           "spherical or revolute joint of the same chain, or model the universal as two revolute tree joints");
      }
      read_joint_motion(withz, file, lp, jd);
    } else {
      read_joint_motion(jl, file, lp, jd);
    }
    if (jl.contains("active")) {
      if (!jl["active"].is_boolean()) throw InputError(file, lp + ".active", "expected true or false");
      ld.active = jl["active"].get<bool>();
      if (ld.active && (jd.type == JointType::Fixed))
        throw InputError(file, lp + ".active", "a fixed (weld) loop joint has no DoF to carry an active force");
    }
    auto end = [&](const char* key, LoopEndDesc& e) {
      const std::string ep = lp + "." + key;
      const json& je = member(jl, key, file, lp);
      if (!je.is_object()) throw InputError(file, ep, "expected an object with body (or link), xyz and rpy or quat");
      const char* bkey = canonical ? "body" : (je.contains("link") ? "link" : "body");
      if (!canonical && je.contains("link") && je.contains("body")) throw InputError(file, ep, "give link or body, not both");
      e.origin = read_origin(je, file, ep, {bkey});
      const json& jb = member(je, bkey, file, ep);
      const std::string bp = ep + "." + bkey;
      if (jb.is_null()) {
        e.body = -1;
        return;
      }
      if (!jb.is_string()) throw InputError(file, bp, "expected a body name (or null for the fixed base)");
      const std::string n = jb.get<std::string>();
      if (!d.base_name.empty() && n == d.base_name) {
        e.body = -1;
        return;
      }
      for (size_t b = 0; b < d.bodies.size(); ++b)
        if (d.bodies[b].name == n) {
          e.body = static_cast<int>(b);
          return;
        }
      std::string known = d.base_name.empty() ? "null (the fixed base)" : "'" + d.base_name + "' (the fixed base)";
      for (size_t b = 0; b < d.bodies.size() && b < 12; ++b) known += ", '" + d.bodies[b].name + "'";
      if (d.bodies.size() > 12) known += ", ...";
      throw InputError(file, bp, "unknown " + std::string(canonical ? "body" : "link") + " '" + n + "' (expected one of " + known + ")");
    };
    end("predecessor", ld.pred);
    end("successor", ld.succ);
    if (ld.pred.body == ld.succ.body)
      throw InputError(file, lp, "predecessor and successor are the same " + std::string(ld.pred.body < 0 ? "fixed base" : "body") +
                                     ": a loop joint must connect two different bodies");
    out.push_back(std::move(ld));
  }
  return out;
}

namespace {

// A loops or contacts file: an array of entries, or an object whose one field `key` holds it.
// The array and where its entries are (key, or "" at the top level).
std::pair<const json*, std::string> file_entries(const json& doc, const std::string& path, const char* key,
                                                 const std::string& what) {
  if (doc.is_object()) {
    known_fields(doc, {key}, path, "");
    return {&member(doc, key, path, ""), key};
  }
  if (!doc.is_array())
    throw InputError(path, "", "expected a JSON array of " + what + " (or an object with \"" + std::string(key) + "\")");
  return {&doc, ""};
}

// The entries of a loops or contacts file, read by `read`, each remembering the file.
template <class Desc, class Read>
std::vector<Desc> read_entries_file(const std::string& path, const ModelDesc& d, const char* key, const std::string& what,
                                    Read read) {
  const json doc = read_json_file(path, kSmallInput);
  const auto [arr, where] = file_entries(doc, path, key, what);
  std::vector<Desc> out = read(*arr, d, path, where, LoopSyntax::LoopsFile);
  for (Desc& x : out) x.file = path;
  return out;
}

}  // namespace

std::vector<LoopJointDesc> read_loops_file(const std::string& path, const ModelDesc& d) {
  return read_entries_file<LoopJointDesc>(path, d, "loops", "loop joints", read_loop_joints);
}

std::vector<ContactDesc> read_contacts(const json& arr, const ModelDesc& d, const std::string& file, const std::string& path,
                                       LoopSyntax syntax) {
  const bool canonical = syntax == LoopSyntax::Canonical;
  if (!arr.is_array()) throw InputError(file, path, "expected an array of contacts");
  std::vector<ContactDesc> out;
  std::set<std::string> names;
  for (const ContactDesc& c : d.contacts) names.insert(c.name);
  // A body name: a body (or link) of the model, its fixed base's name, or null for the world.
  auto body_index = [&](const json& jb, const std::string& bp, const char* what) {
    if (jb.is_null()) return -1;
    if (!jb.is_string()) throw InputError(file, bp, std::string("expected a ") + what + " name (or null for the fixed world)");
    const std::string n = jb.get<std::string>();
    if (!d.base_name.empty() && n == d.base_name) return -1;
    for (size_t b = 0; b < d.bodies.size(); ++b)
      if (d.bodies[b].name == n) return static_cast<int>(b);
    std::string known = d.base_name.empty() ? "null (the fixed world)" : "'" + d.base_name + "' (the fixed base)";
    for (size_t b = 0; b < d.bodies.size() && b < 12; ++b) known += ", '" + d.bodies[b].name + "'";
    if (d.bodies.size() > 12) known += ", ...";
    throw InputError(file, bp, "unknown " + std::string(what) + " '" + n + "' (expected one of " + known + ")");
  };
  auto nonneg = [&](const json& jc, const char* key, const std::string& cp, const std::string& meaning) -> std::optional<Num> {
    if (!jc.contains(key)) return std::nullopt;
    const std::string fp = cp + "." + key;
    const Num n = json_num(jc[key], file, fp, true);
    const double v = n.is_double ? n.value : std::strtod(n.text.c_str(), nullptr);
    if (!(v >= 0)) throw InputError(file, fp, "expected " + meaning + " ≥ 0, got " + n.str());
    return n;
  };
  for (size_t i = 0; i < arr.size(); ++i) {
    const std::string cp = path + "[" + std::to_string(i) + "]";
    const json& jc = arr[i];
    if (!jc.is_object()) throw InputError(file, cp, "expected an object (a contact)");
    const char* one = canonical ? "body" : (jc.contains("link") ? "link" : "body");
    known_fields(jc, {"name", one, "bodies", "point", "points", "normal", "surface", "radius", "surface_sphere", "friction", "restitution",
                      "stiffness", "damping", "tangential_stiffness", "tangential_damping"}, file, cp);
    if (!canonical && jc.contains("link") && jc.contains("body")) throw InputError(file, cp, "give link or body, not both");
    ContactDesc cd;
    cd.where = cp;
    if (jc.contains("name")) {
      if (!jc["name"].is_string() || jc["name"].get<std::string>().empty()) throw InputError(file, cp + ".name", "expected a non-empty string");
      cd.name = jc["name"].get<std::string>();
    } else {
      cd.name = "contact" + std::to_string(d.contacts.size() + i);
    }
    if (!names.insert(cd.name).second) throw InputError(file, cp + ".name", "duplicate contact name '" + cd.name + "'");
    const std::string what = canonical ? "body" : "link";
    if (jc.contains(one) && jc.contains("bodies"))
      throw InputError(file, cp, "give " + std::string(one) + " (a contact with the world) or bodies ([A, B], between two bodies), not both");
    if (jc.contains(one)) {
      const json& jb = jc[one];
      if (jb.is_null()) throw InputError(file, cp + "." + one, "expected the " + what + " in contact with the world, got null (the world itself)");
      cd.pred = -1;
      cd.succ = body_index(jb, cp + "." + one, what.c_str());
      if (cd.succ < 0) throw InputError(file, cp + "." + one, "names the fixed base: a contact with the world needs a moving " + what);
    } else if (jc.contains("bodies")) {
      const json& jb = jc["bodies"];
      if (!jb.is_array() || jb.size() != 2)
        throw InputError(file, cp + ".bodies", "expected [A, B]: the predecessor A (whose surface carries the normal; null = the world) and the successor B (whose point touches it)");
      cd.pred = body_index(jb[0], cp + ".bodies[0]", what.c_str());
      cd.succ = body_index(jb[1], cp + ".bodies[1]", what.c_str());
      if (cd.succ < 0)
        throw InputError(file, cp + ".bodies[1]", "the successor B (the body whose point is in contact) must be a moving " + what + ", not the world");
      if (cd.pred == cd.succ) throw InputError(file, cp + ".bodies", "A and B are the same " + what + ": a contact is between two bodies");
    } else {
      throw InputError(file, cp, "missing field: " + std::string(one) + " (a contact with the world) or bodies ([A, B])");
    }
    // A line or face contact (§11.6) is given by its vertices: "points" expands into one point
    // contact per vertex, named name[k], with the same normal and parameters.
    std::vector<Num3> points;
    if (jc.contains("points")) {
      if (jc.contains("point")) throw InputError(file, cp, "give point (a point contact) or points (a line or face contact by its vertices), not both");
      const json& jp = jc["points"];
      if (!jp.is_array() || jp.empty()) throw InputError(file, cp + ".points", "expected a non-empty array of points [x, y, z] (the vertices of a line or face contact)");
      for (size_t k = 0; k < jp.size(); ++k) points.push_back(num_array<3>(jp[k], file, cp + ".points[" + std::to_string(k) + "]"));
    } else {
      points.push_back(num_array<3>(member(jc, "point", file, cp), file, cp + ".point"));
    }
    cd.point = points[0];
    cd.radius = nonneg(jc, "radius", cp, "a sphere radius ρ (B's side a sphere centred at point)");
    if (jc.contains("surface_sphere")) {
      const std::string sp = cp + ".surface_sphere";
      if (jc.contains("normal") || jc.contains("surface"))
        throw InputError(file, cp, "give normal (and surface: a plane of A) or surface_sphere (a sphere of A), not both");
      const json& js = jc["surface_sphere"];
      if (!js.is_object())
        throw InputError(file, sp, "expected {\"center\": [x, y, z], \"radius\": R, \"side\": \"outside\" or \"inside\"}");
      known_fields(js, {"center", "radius", "side"}, file, sp);
      ContactDesc::Sphere sph;
      sph.center = num_array<3>(member(js, "center", file, sp), file, sp + ".center");
      const std::optional<Num> R = nonneg(js, "radius", sp, "a sphere radius R");
      if (!R) throw InputError(file, sp + ".radius", "missing field: the sphere's radius R > 0");
      sph.radius = *R;
      if (js.contains("side")) {
        if (!js["side"].is_string() || (js["side"] != "outside" && js["side"] != "inside"))
          throw InputError(file, sp + ".side", "expected \"outside\" (B touches the sphere from outside) or \"inside\" (B moves inside a concave sphere)");
        sph.inside = js["side"] == "inside";
      }
      cd.sphere = sph;
    } else {
      cd.normal = num_array<3>(member(jc, "normal", file, cp), file, cp + ".normal");
    }
    double n2 = 0;
    for (const Num& x : cd.normal) {
      const double v = x.is_double ? x.value : std::strtod(x.text.c_str(), nullptr);
      n2 += v * v;
    }
    if (!(n2 > 0))
      throw InputError(file, cp + ".normal", "expected a non-zero vector (the contact normal, " +
                                                 std::string(cd.pred < 0 ? "world coordinates" : "in A's frame") +
                                                 ", pointing from " + (cd.pred < 0 ? "the world" : "A") + " into B; normalized when built)");
    if (jc.contains("surface")) cd.surface = num_array<3>(jc["surface"], file, cp + ".surface");
    cd.friction = nonneg(jc, "friction", cp, "a friction coefficient μ");
    cd.restitution = nonneg(jc, "restitution", cp, "a coefficient of restitution e");
    if (cd.restitution) {
      const double v = cd.restitution->is_double ? cd.restitution->value : std::strtod(cd.restitution->text.c_str(), nullptr);
      if (v > 1) throw InputError(file, cp + ".restitution", "expected a coefficient of restitution e in [0, 1], got " + cd.restitution->str());
    }
    cd.stiffness = nonneg(jc, "stiffness", cp, "a contact stiffness K");
    cd.damping = nonneg(jc, "damping", cp, "a contact damping D");
    cd.tangential_stiffness = nonneg(jc, "tangential_stiffness", cp, "a tangential stiffness K_t");
    cd.tangential_damping = nonneg(jc, "tangential_damping", cp, "a tangential damping D_t");
    if ((cd.tangential_stiffness || cd.tangential_damping) && !cd.stiffness && !cd.damping)
      throw InputError(file, cp, "tangential_stiffness and tangential_damping belong to a soft contact: give its stiffness and damping too");
    if ((cd.stiffness || cd.damping) && !cd.damping)
      throw InputError(file, cp + ".damping", "missing field: a soft contact needs damping D > 0 (the massless surface moves by ż = -(Kz + f)/D, RBDA eq. 11.73)");
    if (jc.contains("points")) {
      const std::string base = cd.name;
      for (size_t k = 0; k < points.size(); ++k) {
        ContactDesc v = cd;
        v.name = base + "[" + std::to_string(k) + "]";
        v.point = points[k];
        v.where = cp + ".points[" + std::to_string(k) + "]";
        if (!names.insert(v.name).second) throw InputError(file, cp + ".name", "duplicate contact name '" + v.name + "'");
        out.push_back(std::move(v));
      }
      continue;
    }
    out.push_back(std::move(cd));
  }
  return out;
}

std::vector<ContactDesc> read_contacts_file(const std::string& path, const ModelDesc& d) {
  return read_entries_file<ContactDesc>(path, d, "contacts", "contacts", read_contacts);
}

}  // namespace rbd
