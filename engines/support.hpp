// An adapter's refusals derived from what it declares it runs (EngineSupport, engines/adapter.hpp):
// the loop joints, tree joints and contacts of a model that the declaration leaves out, each named
// and refused in the adapter's own words (Refusals). An adapter's `unsupported` is unsupported_by
// followed by its engine's own conditions (an inertia the engine refuses, an import path's source).
#pragma once

#include "engines/adapter.hpp"
#include "reference/tree/model.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace rbd {

// How an adapter words its refusals: each reason follows "loop joint 'NAME': ", "joint 'NAME': ",
// "body 'NAME': " or "contact 'NAME': ". In `joint`, "{type}" stands for the joint type's name.
struct Refusals {
  std::string loop;               // a loop joint it does not close
  bool loop_names_type = false;   // "loop joint 'NAME' (TYPE): " instead
  std::string joint;              // a tree joint of a type it does not declare
  std::string free;               // instead of `joint` for an undeclared free joint (empty: `joint`)
  std::string free_below_root;    // a free joint whose parent is a body, where free_below_root is not declared
  std::string massless;           // a body without positive mass (empty: not refused)
  std::string soft_contact;       // a soft contact (§11.8), where contacts are declared (empty: not refused)
  std::string friction;           // a contact with friction μ > 0, likewise
};

// The refusals of an adapter that builds trees in code and runs frictionless rigid point contacts
// (Bullet, DART, ODE), `engine` naming its engine as they do ("ODE"): a loop joint, a soft contact
// (§11.8), and a contact with friction, whose counterpart in the engine `friction` describes
// ("ODE's friction is ..."). The joints and bodies it refuses are its own.
inline Refusals contact_tree_refusals(const std::string& engine, const std::string& friction) {
  Refusals w;
  w.loop = "the " + engine + " adapter builds trees only";
  w.soft_contact = "soft contact (§11.8) has no " + engine + " counterpart in this adapter";
  w.friction = "friction μ > 0: " + friction + " (not the reference's problem); the adapter runs frictionless contacts only";
  return w;
}

namespace detail {
inline bool declares(const std::vector<JointType>& types, JointType t) { return std::find(types.begin(), types.end(), t) != types.end(); }
}  // namespace detail

// Body i's joint, when s does not declare it: of a type s lacks, or a free joint below the root
// where s runs free joints at the root only; empty otherwise.
template <class T>
std::string unsupported_joint(const EngineSupport& s, const Refusals& w, const Model<T>& m, int i) {
  const JointType t = m.joint[i].type;
  if (!detail::declares(s.joints, t)) {
    std::string why = t == JointType::Free && !w.free.empty() ? w.free : w.joint;
    if (const size_t at = why.find("{type}"); at != std::string::npos) why.replace(at, 6, joint_type_name(t));
    return "joint '" + m.joint_name[i] + "': " + why;
  }
  if (t == JointType::Free && m.parent[i] >= 0 && !s.free_below_root) return "joint '" + m.joint_name[i] + "': " + w.free_below_root;
  return "";
}

// The first of m's loop joints, bodies and contacts that s does not declare, in w's words; empty
// when s declares all of them. Loop joints: every one when s declares none (trees only), else each
// that imposes constraints (n_k^c > 0) and is of a type s does not declare. Bodies, in order: the
// joint (unsupported_joint), a body without positive mass (where w words it), then body_check(i),
// the adapter's own condition on body i (empty: it passes); armature, where s does not declare it,
// before the bodies. Contacts, where s declares them: a
// soft one, then one with friction (where w words them).
template <class T, class BodyCheck>
std::string unsupported_by(const EngineSupport& s, const Refusals& w, const Model<T>& m, BodyCheck&& body_check) {
  for (const LoopJoint<T>& L : m.loops)
    if (s.loop_joints.empty() || (L.nc > 0 && !detail::declares(s.loop_joints, L.joint.type)))
      return "loop joint '" + L.name + "'" + (w.loop_names_type ? std::string(" (") + joint_type_name(L.joint.type) + ")" : "") +
             ": " + w.loop;
  if (m.has_armature && !s.armature)
    for (int i = 0; i < m.NB; ++i)
      if (m.nvi[i] > 0 && m.armature[static_cast<size_t>(m.iv[i])] != T(0))
        return "joint '" + m.joint_name[i] + "': armature (a rotor inertia on H's diagonal), which this engine does not model";
  for (int i = 0; i < m.NB; ++i) {
    if (std::string why = unsupported_joint(s, w, m, i); !why.empty()) return why;
    if (!w.massless.empty() && !(m.I[i].mass() > T(0))) return "body '" + m.body_name[i] + "': " + w.massless;
    if (std::string why = body_check(i); !why.empty()) return why;
  }
  if (s.contacts)
    for (const Contact<T>& c : m.contacts) {
      // Every adapter passes a contact as a point on a plane; a sphere's contact point moves over
      // its surface, which none of them models through that interface.
      if (c.radius != T(0) || c.on_sphere)
        return "contact '" + c.name + "': a sphere (radius or surface_sphere): the adapter passes point contacts on planes only";
      if (c.has_soft && !w.soft_contact.empty()) return "contact '" + c.name + "': " + w.soft_contact;
      if (c.has_friction && c.mu > T(0) && !w.friction.empty()) return "contact '" + c.name + "': " + w.friction;
    }
  return "";
}
template <class T>
std::string unsupported_by(const EngineSupport& s, const Refusals& w, const Model<T>& m) {
  return unsupported_by(s, w, m, [](int) { return std::string(); });
}

// An adapter that audits an engine's own URDF import (imports_source) refuses a model that was not
// read from a URDF; `importer` names what it audits ("MuJoCo's URDF import").
inline std::string not_from_urdf(const Fixture& f, const std::string& importer) {
  return f.source_kind == "urdf" ? "" : "the model was not read from a URDF (this adapter audits " + importer + ")";
}

// run() of such an adapter: the model's URDF is needed, and only the audit gives it.
[[noreturn]] inline void throw_needs_source(const EngineAdapter& a, const Fixture& f) {
  throw EngineError(a.name() + " reads the model's URDF itself: run it through the audit, which gives it the file (" + f.source_file + ")");
}

}  // namespace rbd
