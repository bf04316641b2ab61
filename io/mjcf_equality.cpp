// <equality> into loop joints (mjcf_bodies.hpp, read_equality): connect as a spherical loop joint,
// weld as a fixed one, each end a frame in its canonical body, taken from sites or from bodies
// with MuJoCo's conventions at qpos0; the other kinds, and inactive ones, noted as ignored.
#include "io/mjcf_bodies.hpp"

#include "io/input_error.hpp"

namespace rbd::mjcf_detail {

namespace {

// An equality's end: the MJCF body's frame point `p` (its frame: `q`) in the canonical body.
LoopEndDesc loop_end(const MjBody& b, const Pose& in_mjcf_frame) {
  LoopEndDesc e;
  e.body = b.desc;
  const Pose o = compose(translation(b.offset), in_mjcf_frame);
  for (int k = 0; k < 3; ++k) e.origin.xyz[static_cast<size_t>(k)] = o.p[static_cast<size_t>(k)].num();
  if (!(o.q[1].zero() && o.q[2].zero() && o.q[3].zero()))
    e.origin.quat = std::array<Num, 4>{o.q[0].num(), o.q[1].num(), o.q[2].num(), o.q[3].num()};
  return e;
}

// The two ends of an equality: the MuJoCo bodies b1, b2 and each end's point and frame p1, p2 in
// its MJCF body's frame. From site1 and site2 when either is given; else from body1 (required)
// and body2 (default the world): a connect's anchor on body1, and on body2 where that anchor is
// at qpos0; a weld's relpose, else body2's frame in body1's at qpos0 (MuJoCo's conventions).
void equality_ends(const Reader& r, const El& el, const std::string& tag, int& b1, int& b2, Pose& p1, Pose& p2) {
  auto body_of = [&](const char* attr, bool required) -> int {
    const char* v = el.get(attr);
    if (!v || !*v) {
      if (required) throw InputError(el.file, el.what, std::string("missing attribute ") + attr);
      return 0;
    }
    if (std::string(v) == "world") return 0;
    auto it = r.body_by_name.find(v);
    if (it == r.body_by_name.end()) throw InputError(el.file, el.what + " " + attr, "unknown body '" + std::string(v) + "'");
    return it->second;
  };
  if (el.get("site1") || el.get("site2")) {
    for (int s = 1; s <= 2; ++s) {
      const std::string attr = "site" + std::to_string(s);
      const char* v = el.get(attr.c_str());
      if (!v) throw InputError(el.file, el.what, "missing attribute " + attr + " (sites name both ends or neither)");
      auto it = r.sites.find(v);
      if (it == r.sites.end()) throw InputError(el.file, el.what + " " + attr, "unknown site '" + std::string(v) + "'");
      (s == 1 ? b1 : b2) = it->second.body;
      (s == 1 ? p1 : p2) = it->second.pose;
    }
    if (tag == "connect") p1.q = p2.q = unit_quat();
    return;
  }
  b1 = body_of("body1", true);
  b2 = body_of("body2", false);
  const MjBody &B1 = r.bodies[static_cast<size_t>(b1)], &B2 = r.bodies[static_cast<size_t>(b2)];
  if (tag == "connect") {
    p1.p = vec<3>(el, "anchor", {0, 0, 0});
    // The anchor on body2: where body1's anchor is at qpos0 (MuJoCo's convention).
    p2.p = qrot(qconj(B2.world0.q), sub(add(B1.world0.p, qrot(B1.world0.q, p1.p)), B2.world0.p));
    return;
  }
  const std::vector<Num> rel = numbers(el, "relpose", 7, 7);
  const bool given = !rel.empty() && !(rel[3].is_zero() && rel[4].is_zero() && rel[5].is_zero() && rel[6].is_zero());
  if (given) {
    const X n = xsqrt(X(rel[3]) * X(rel[3]) + X(rel[4]) * X(rel[4]) + X(rel[5]) * X(rel[5]) + X(rel[6]) * X(rel[6]));
    p1 = Pose{{X(rel[0]), X(rel[1]), X(rel[2])}, {X(rel[3]) / n, X(rel[4]) / n, X(rel[5]) / n, X(rel[6]) / n}};
  } else {
    p1 = compose(inverse(B1.world0), B2.world0);  // body2's frame in body1's at qpos0
  }
}

}  // namespace

void read_equality(Reader& r, const XMLElement* eq) {
  Ctx& c = r.c;
  int k = 0;
  for (const XMLElement* e : children(c.doc, eq)) {
    const std::string tag = e->Name();
    const std::string nm = e->Attribute("name") ? e->Attribute("name") : "";
    const std::string name = nm.empty() ? "equality" + std::to_string(k) : nm;
    ++k;
    const El el = element(c, e, "main", "equality " + tag + " '" + name + "'");
    if (tag != "connect" && tag != "weld") {
      c.notes.push_back(el.what + ": ignored (rbdref models connect and weld as loop joints; a " + tag +
                        " equality is not modelled: the tree quantities H, C, τ are unaffected, the constrained ones would differ "
                        "from MuJoCo's)");
      continue;
    }
    if (const char* a = el.get("active"); a && std::string(a) == "false") {
      c.notes.push_back(el.what + ": ignored (active=\"false\")");
      continue;
    }
    int b1 = 0, b2 = 0;
    Pose p1, p2;  // each end's point and frame, in its MJCF body's frame
    equality_ends(r, el, tag, b1, b2, p1, p2);
    if (b1 == b2) throw InputError(el.file, el.what, "both ends are on the same body");
    LoopJointDesc lj;
    lj.name = name;
    lj.joint.type = tag == "connect" ? JointType::Spherical : JointType::Fixed;
    lj.pred = loop_end(r.bodies[static_cast<size_t>(b1)], p1);
    lj.succ = loop_end(r.bodies[static_cast<size_t>(b2)], p2);
    lj.where = el.what;
    r.d.loop_joints.push_back(lj);
    c.notes.push_back(el.what + ": a " + (tag == "connect" ? "spherical" : "fixed") +
                      " loop joint, holding exactly (MuJoCo's equality constraints are soft: solref, solimp)");
  }
}

}  // namespace rbd::mjcf_detail
