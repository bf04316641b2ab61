// The URDF reader, read_urdf: links and joints into a ModelDesc with every number as written,
// other elements ignored with a note, xacro templates refused.
#include "io/model_io.hpp"

#include "io/model_io_impl.hpp"
#include "io/numbers.hpp"
#include "io/utf8.hpp"
#include "io/xml_escape.hpp"
#include "reference/tree/model.hpp"

#include <tinyxml2.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <set>
#include <sstream>

namespace rbd {

using io_detail::kInertiaKeys;

namespace {

using tinyxml2::XMLElement;

std::string where_of(const XMLElement* e, const std::string& what) {
  return what + " (line " + std::to_string(e->GetLineNum()) + ")";
}

// An attribute still holding xacro syntax: the file is a xacro template, not a URDF.
void reject_xacro(const std::string& v, const std::string& file, const std::string& field) {
  if (v.find("${") != std::string::npos || v.find("$(") != std::string::npos)
    throw InputError(file, field,
                     "expected a number, got the unexpanded xacro expression \"" + v +
                         "\" (this file is a xacro template: expand it first, e.g. `xacro robot.urdf.xacro > robot.urdf`)");
}

std::string trimmed(const std::string& v) {
  const size_t a = v.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  const size_t b = v.find_last_not_of(" \t\r\n");
  return v.substr(a, b - a + 1);
}

// Every number must fit a double, the precision engines read a URDF in: the attribute is named here
// rather than the joint when building fails. A nonzero number that a double rounds to 0 (1e-400)
// is refused too: engines would compute with 0, rbdref's wider precisions with its sign.
void urdf_range(const std::string& tok, const std::string& file, const std::string& field, const char* v) {
  const double x = std::strtod(tok.c_str(), nullptr);
  if (!std::isfinite(x))
    throw InputError(file, field, "expected numbers within the range of a double, got \"" + std::string(v) + "\" (" + tok +
                                      " is beyond it)");
  if (x == 0.0 && decimal_mantissa_nonzero(tok))
    throw InputError(file, field, "expected numbers within the range of a double, got \"" + std::string(v) + "\" (" + tok +
                                      " is nonzero and below it: write 0 if zero is meant)");
}

// "a b c" -> N decimal numbers.
template <size_t N>
std::array<Num, N> urdf_numbers(const XMLElement* e, const char* attr, const std::string& file, const std::string& field,
                                const std::array<Num, N>& dflt) {
  const char* v = e->Attribute(attr);
  if (!v) return dflt;
  reject_xacro(v, file, field + " " + attr);
  std::istringstream ss(v);
  std::array<Num, N> out;
  std::string tok;
  size_t k = 0;
  while (ss >> tok) {
    if (k == N || !is_decimal(tok))
      throw InputError(file, field + " " + attr, "expected " + std::to_string(N) + " decimal numbers, got \"" + v + "\"");
    urdf_range(tok, file, field + " " + attr, v);
    out[k++] = Num::decimal(tok);
  }
  if (k != N) throw InputError(file, field + " " + attr, "expected " + std::to_string(N) + " decimal numbers, got \"" + v + "\"");
  return out;
}

Num urdf_number(const XMLElement* e, const char* attr, const std::string& file, const std::string& field, bool required) {
  const char* v = e->Attribute(attr);
  if (!v) {
    if (required) throw InputError(file, field, std::string("missing attribute ") + attr);
    return Num::exact(0);
  }
  reject_xacro(v, file, field + " " + attr);
  const std::string s = trimmed(v);  // XML attribute values may carry spaces around the number
  if (!is_decimal(s)) throw InputError(file, field + " " + attr, "expected a decimal number, got \"" + std::string(v) + "\"");
  urdf_range(s, file, field + " " + attr, v);
  return Num::decimal(s);
}

const Num3 kZero3{Num::exact(0), Num::exact(0), Num::exact(0)};

OriginDesc urdf_origin(const XMLElement* parent, const std::string& file, const std::string& field) {
  OriginDesc o;
  if (const XMLElement* e = parent->FirstChildElement("origin")) {
    o.xyz = urdf_numbers<3>(e, "xyz", file, field + " <origin>", kZero3);
    o.rpy = urdf_numbers<3>(e, "rpy", file, field + " <origin>", kZero3);
  }
  return o;
}

// Elements URDF allows once per parent: a repeated one is ignored, as urdfdom and KDL ignore it
// (they read the first), and said so.
void note_repeats(const XMLElement* parent, std::initializer_list<const char*> tags, const std::string& owner,
                  std::vector<std::string>& notes) {
  for (const char* tag : tags) {
    const XMLElement* first = parent->FirstChildElement(tag);
    for (const XMLElement* e = first ? first->NextSiblingElement(tag) : nullptr; e; e = e->NextSiblingElement(tag))
      notes.push_back(owner + ": <" + tag + "> (line " + std::to_string(e->GetLineNum()) + ") ignored: only the first <" + tag +
                      "> (line " + std::to_string(first->GetLineNum()) + ") is read, as urdfdom and KDL do");
  }
}

struct UrdfJoint {
  std::string name, type, parent, child;
  const XMLElement* e;
};

// The document's root element, <robot>, parsed from the text: well-formed XML with exactly one
// root (tinyxml2 accepts elements after the root; a second <robot> would be ignored).
const XMLElement* robot_root(tinyxml2::XMLDocument& doc, const std::string& xml_text, const std::string& file) {
  if (doc.Parse(xml_text.c_str(), xml_text.size()) != tinyxml2::XML_SUCCESS)
    throw InputError(file, "line " + std::to_string(doc.ErrorLineNum()), std::string("expected well-formed XML (") + doc.ErrorStr() + ")");
  const XMLElement* robot = doc.RootElement();
  if (!robot || std::string(robot->Name()) != "robot") throw InputError(file, "<robot>", "expected a <robot> root element");
  if (const XMLElement* more = robot->NextSiblingElement())
    throw InputError(file, "line " + std::to_string(more->GetLineNum()),
                     std::string("expected one root element, got <") + more->Name() + "> after </robot>");
  return robot;
}

// The reading of one <robot>, in the stages read_urdf runs: its other elements noted, its links,
// its joints, the root link, then the bodies in depth-first preorder. Errors are InputErrors
// naming the element (where_of: "joint 'elbow' (line 12)") and the attribute.
struct UrdfReader {
  const std::string& file;
  const XMLElement* robot;
  ModelDesc d;
  std::map<std::string, const XMLElement*> links;
  std::vector<std::string> link_order;
  std::vector<UrdfJoint> joints;
  std::map<std::string, int> joint_of_child;
  std::map<std::string, std::vector<int>> children;  // joints by parent link, in document order

  // Names are written into rbdref's JSON outputs, which must be UTF-8. The rest of the file is not
  // read (comments, mesh paths, simulator blocks): a Latin-1 comment is no reason to refuse a robot.
  void utf8(const char* s, const XMLElement* e, const std::string& what) const {
    const size_t bad = s ? first_invalid_utf8(s) : std::string::npos;
    if (bad == std::string::npos) return;
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(s[bad]));
    throw InputError(file, where_of(e, what),
                     std::string("expected a name in UTF-8 (names are written into rbdref's JSON outputs), got the byte ") + byte +
                         " (a Latin-1 file? convert it to UTF-8)");
  }

  // Elements of <robot> other than links and joints: what published descriptions carry for
  // other tools. Materials are visual; transmissions, gazebo and ros2_control blocks describe
  // actuation and simulation, not the rigid-body dynamics: ignored, and said so. xacro
  // leftovers: definitions (property, arg, macro, include) are ignored with a note; a macro
  // *call* would have produced links and joints, so the file is an unexpanded template: error.
  void note_other_elements() {
    std::map<std::string, int> ignored;
    for (const XMLElement* e = robot->FirstChildElement(); e; e = e->NextSiblingElement()) {
      utf8(e->Name(), e, "element name");
      const std::string tag = e->Name();
      if (tag == "link" || tag == "joint" || tag == "material") continue;
      if (tag.rfind("xacro:", 0) == 0) {
        static const std::set<std::string> defs = {"xacro:property", "xacro:arg", "xacro:macro", "xacro:include"};
        if (!defs.count(tag))
          throw InputError(file, where_of(e, "<" + tag + ">"),
                           "expected a URDF, found an unexpanded xacro macro call (this file is a xacro template: expand it first, "
                           "e.g. `xacro robot.urdf.xacro > robot.urdf`)");
      }
      ++ignored[tag];
    }
    for (const auto& [tag, n] : ignored)
      d.import_notes.push_back("ignored " + std::to_string(n) + " <" + tag + "> element" + (n > 1 ? "s" : "") +
                               (tag.rfind("xacro:", 0) == 0 ? " (xacro leftover)"
                                : tag == "transmission" || tag == "gazebo" || tag == "ros2_control"
                                    ? " (actuation and simulator settings: no effect on the rigid-body dynamics)"
                                    : " (not part of URDF's kinematics and dynamics)"));
  }

  // The links by name (unique, at least one), in document order.
  void read_links() {
    for (const XMLElement* l = robot->FirstChildElement("link"); l; l = l->NextSiblingElement("link")) {
      const char* n = l->Attribute("name");
      if (!n || !*n) throw InputError(file, where_of(l, "<link>"), "missing attribute name");
      utf8(n, l, "<link> name");
      if (links.count(n)) throw InputError(file, where_of(l, std::string("link '") + n + "'"), "duplicate link name");
      links[n] = l;
      link_order.push_back(n);
    }
    if (links.empty()) throw InputError(file, "<robot>", "expected at least one <link>");
  }

  // The joints (names unique, type given, parent and child known links, each link the child of
  // at most one joint: a tree), and the joints of each parent link.
  void read_joints() {
    std::set<std::string> joint_names;
    for (const XMLElement* j = robot->FirstChildElement("joint"); j; j = j->NextSiblingElement("joint")) {
      UrdfJoint uj;
      uj.e = j;
      const char* n = j->Attribute("name");
      if (!n || !*n) throw InputError(file, where_of(j, "<joint>"), "missing attribute name");
      utf8(n, j, "<joint> name");
      uj.name = n;
      const std::string field = where_of(j, "joint '" + uj.name + "'");
      if (!joint_names.insert(uj.name).second) throw InputError(file, field, "duplicate joint name");
      const char* t = j->Attribute("type");
      if (!t) throw InputError(file, field, "missing attribute type");
      uj.type = t;
      const XMLElement* p = j->FirstChildElement("parent");
      const XMLElement* c = j->FirstChildElement("child");
      if (!p || !p->Attribute("link")) throw InputError(file, field + " <parent>", "missing link attribute");
      if (!c || !c->Attribute("link")) throw InputError(file, field + " <child>", "missing link attribute");
      uj.parent = p->Attribute("link");
      uj.child = c->Attribute("link");
      if (!links.count(uj.parent)) throw InputError(file, field + " <parent>", "unknown link '" + uj.parent + "'");
      if (!links.count(uj.child)) throw InputError(file, field + " <child>", "unknown link '" + uj.child + "'");
      if (joint_of_child.count(uj.child))
        throw InputError(file, field + " <child>", "link '" + uj.child + "' is already the child of another joint (URDF describes trees)");
      joint_of_child[uj.child] = static_cast<int>(joints.size());
      joints.push_back(uj);
    }
    for (size_t k = 0; k < joints.size(); ++k) children[joints[k].parent].push_back(static_cast<int>(k));
  }

  // The one link that is no joint's child.
  std::string root_link() {
    std::vector<std::string> roots;
    for (const std::string& l : link_order)
      if (!joint_of_child.count(l)) roots.push_back(l);
    if (roots.size() != 1)
      throw InputError(file, "<robot>", "expected exactly one root link (a link that is no joint's child), found " +
                                            std::to_string(roots.size()) + (roots.empty() ? " (the joints form a cycle)" : ""));
    return roots[0];
  }

  std::string inertial_where(const std::string& link) {
    const XMLElement* l = links[link];
    const XMLElement* ie = l->FirstChildElement("inertial");
    return ie ? where_of(ie, "link '" + link + "' <inertial>") : where_of(l, "link '" + link + "' (no <inertial>: massless)");
  }

  // The link's <inertial> (mass, origin, inertia; none: massless), repeated elements noted.
  InertialDesc inertial_of(const std::string& link) {
    InertialDesc in;
    const XMLElement* l = links[link];
    const XMLElement* ie = l->FirstChildElement("inertial");
    if (!ie) return in;  // massless link
    const std::string field = where_of(ie, "link '" + link + "' <inertial>");
    note_repeats(l, {"inertial"}, where_of(l, "link '" + link + "'"), d.import_notes);
    note_repeats(ie, {"mass", "origin", "inertia"}, field, d.import_notes);
    const XMLElement* m = ie->FirstChildElement("mass");
    if (!m) throw InputError(file, field, "missing <mass>");
    in.mass = urdf_number(m, "value", file, field + " <mass>", true);
    if (const XMLElement* o = ie->FirstChildElement("origin")) {
      in.com = urdf_numbers<3>(o, "xyz", file, field + " <origin>", kZero3);
      in.rpy = urdf_numbers<3>(o, "rpy", file, field + " <origin>", kZero3);
    }
    const XMLElement* I = ie->FirstChildElement("inertia");
    if (!I) throw InputError(file, field, "missing <inertia>");
    for (int k = 0; k < 6; ++k) in.I[k] = urdf_number(I, kInertiaKeys[k], file, field + " <inertia>", true);
    return in;
  }

  // The root link: on a free joint (--floating-base), else the fixed base.
  void root_body(const std::string& root, bool floating_base, std::map<std::string, int>& body_of_link) {
    if (!floating_base) {
      body_of_link[root] = -1;
      d.base_name = root;
      return;
    }
    BodyDesc b;
    b.name = root;
    b.parent = -1;
    b.joint.name = root + "_free";
    b.joint.type = JointType::Free;
    b.inertial = inertial_of(root);
    b.inertial_where = inertial_where(root);
    b.where = where_of(links[root], "link '" + root + "'") + " (on the free joint of --floating-base)";
    body_of_link[root] = 0;
    d.bodies.push_back(b);
  }

  // The body a joint makes of its child link: the joint's type, axis and origin, the link's
  // inertial; repeated elements and mimic noted.
  BodyDesc joint_body(const UrdfJoint& uj, int parent) {
    const std::string field = where_of(uj.e, "joint '" + uj.name + "'");
    BodyDesc b;
    b.name = uj.child;
    b.parent = parent;
    b.where = field;
    b.joint.name = uj.name;
    if (uj.type == "revolute" || uj.type == "continuous") b.joint.type = JointType::Revolute;
    else if (uj.type == "prismatic") b.joint.type = JointType::Prismatic;
    else if (uj.type == "fixed") b.joint.type = JointType::Fixed;
    else if (uj.type == "floating") b.joint.type = JointType::Free;
    else if (uj.type == "planar") b.joint.type = JointType::Planar;
    else
      throw InputError(file, field + " type",
                       "expected one of URDF's joint types revolute, continuous, prismatic, fixed, floating, planar; got '" +
                           uj.type + "'");
    note_repeats(uj.e, {"parent", "child", "origin", "axis", "mimic"}, field, d.import_notes);
    if (const XMLElement* mm = uj.e->FirstChildElement("mimic")) utf8(mm->Attribute("joint"), mm, "<mimic> joint");
    if (const XMLElement* mm = uj.e->FirstChildElement("mimic"))
      d.import_notes.push_back(field + " <mimic joint=\"" + std::string(mm->Attribute("joint") ? mm->Attribute("joint") : "?") +
                               "\">: ignored, the joint is an independent degree of freedom (as in MuJoCo's, KDL's and "
                               "urdfdom's import; an engine that enforces mimic constraints computes a different system)");
    const Num3 x_axis{Num::exact(1), Num::exact(0), Num::exact(0)};
    if (const XMLElement* ax = uj.e->FirstChildElement("axis")) b.joint.axis = urdf_numbers<3>(ax, "xyz", file, field + " <axis>", x_axis);
    else b.joint.axis = x_axis;  // URDF default
    b.origin = urdf_origin(uj.e, file, field);
    b.inertial = inertial_of(uj.child);
    b.inertial_where = inertial_where(uj.child);
    return b;
  }

  // Depth-first preorder from the root: parents before children (regular numbering); every link
  // must be reached.
  void bodies(const std::string& root, bool floating_base) {
    std::map<std::string, int> body_of_link;  // -1 for the fixed root
    root_body(root, floating_base, body_of_link);
    std::vector<int> stack;
    for (auto it = children[root].rbegin(); it != children[root].rend(); ++it) stack.push_back(*it);
    while (!stack.empty()) {
      const UrdfJoint& uj = joints[stack.back()];
      stack.pop_back();
      const BodyDesc b = joint_body(uj, body_of_link.at(uj.parent));
      body_of_link[uj.child] = static_cast<int>(d.bodies.size());
      d.bodies.push_back(b);
      const auto& ch = children[uj.child];
      for (auto it = ch.rbegin(); it != ch.rend(); ++it) stack.push_back(*it);
    }
    if (d.bodies.size() + (floating_base ? 0 : 1) != links.size())
      throw InputError(file, "<robot>", "expected every link to be reachable from the root link '" + root + "'");
  }
};

}  // namespace

ModelDesc read_urdf(const std::string& xml_text, const std::string& file, const UrdfOptions& opt) {
  check_xml_characters(xml_text, file);
  tinyxml2::XMLDocument doc;
  UrdfReader r{file, robot_root(doc, xml_text, file), {}, {}, {}, {}, {}, {}};
  r.utf8(r.robot->Attribute("name"), r.robot, "<robot> name");
  r.d.name = r.robot->Attribute("name") ? r.robot->Attribute("name") : "";
  r.note_other_elements();
  r.read_links();
  r.read_joints();
  r.bodies(r.root_link(), opt.floating_base);
  return std::move(r.d);
}

}  // namespace rbd
