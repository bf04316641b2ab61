// The MJCF reader, read_mjcf: MuJoCo's model format into a ModelDesc with MuJoCo's semantics
// (docs/mjcf.md). Every number the model derives (a quaternion of Euler angles, a geom's inertia,
// a composed frame) is a NumExpr of the numbers as written, evaluated at the working precision:
// nothing is rounded to double on the way in, unlike MuJoCo's own compiler.
//
// Frames. An MJCF body B sits at (pos, quat) in its parent's frame; its joints j = 1..n (anchor
// a_j, axis, ref) move it, in order, as MuJoCo's kinematics does:
//   F_B(q) = F_parent · (pos, quat) · Π_j T(a_j) M_j(q_j − ref_j) T(−a_j)
// (M_j the rotation about the axis, or the translation along it). The canonical model has one
// joint per body, and its body frame is the joint frame after the joint's motion; so B becomes n
// bodies, the first n − 1 massless (named "B/joint"), with
//   Xtree_1 = O_parent · (pos, quat) · T(a_1) · M_1(−ref_1),   Xtree_j = T(−a_(j−1)) · T(a_j) · M_j(−ref_j),
// and B's own frame sits at O_B = T(−a_n) in the last one's: its inertia, geoms, children and
// equality anchors are moved by O_B. A free joint's body is at the world pose its q gives (the file
// pose is its initial configuration only); a body without joints is welded (a fixed joint).
// Then q is MuJoCo's qpos (hinge, slide, ball; the free joint's 7 are reordered: docs/conventions.md)
// and the DoFs are in MuJoCo's order.
//
// The reader's files, one job each (io/mjcf_*.hpp are private to them):
//   mjcf.cpp             read_mjcf: the stages below, in order
//   mjcf_document        the files and their <include>s; mjcf_includes
//   mjcf_attributes      default classes, attribute values, orientations
//   mjcf_expr.hpp        the derived numbers (expressions) and frames
//   mjcf_bodies          the body tree walk; mjcf_equality: equalities as loop joints
//   mjcf_inertia         mass properties: <inertial>, geom solids, the compiler's bounds
#include "io/model_io.hpp"

#include "io/memory_limit.hpp"
#include "io/mjcf_bodies.hpp"
#include "io/utf8.hpp"
#include "reference/numeric/scalar.hpp"
#include "reference/tree/model.hpp"

#include <cstdlib>
#include <map>

namespace rbd {

namespace {

using namespace mjcf_detail;

// The main file parsed as the document's first; its single root element, <mujoco>.
const XMLElement* main_root(Doc& doc, const std::string& xml_text, const std::string& file) {
  doc.main_file = file;
  doc.included.emplace(canonical_file(file), nullptr);
  doc.total_bytes = xml_text.size();
  XMLDocument* main = parse_xml(doc, xml_text, file);
  const XMLElement* root = main->RootElement();
  if (!root || std::string(root->Name()) != "mujoco") throw InputError(file, "<mujoco>", "expected a <mujoco> root element");
  if (const XMLElement* more = root->NextSiblingElement())
    throw InputError(file, "line " + std::to_string(more->GetLineNum()), std::string("expected one root element, got <") + more->Name() + "> after </mujoco>");
  return root;
}

// <compiler>: the angle unit and Euler sequence (into c), the mass settings (into comp); global
// coordinates refused, balanceinertia noted as not applied.
void read_compiler(Ctx& c, Compiler& comp, const XMLElement* e) {
  El el{e, nullptr, c.doc.file(e), where_of(e, "<compiler>")};
  c.degrees = word(el, "angle", c.degrees ? "degree" : "radian", {"degree", "radian"}) == "degree";
  if (const char* s = e->Attribute("eulerseq")) {
    const std::string q = s;
    bool ok = q.size() == 3;
    for (char ch : q) ok = ok && std::string("xyzXYZ").find(ch) != std::string::npos;
    if (!ok) throw InputError(el.file, el.what + " eulerseq", "expected 3 characters from x, y, z, X, Y, Z, got \"" + q + "\"");
    c.eulerseq = q;
  }
  comp.inertiafromgeom = word(el, "inertiafromgeom", comp.inertiafromgeom, {"false", "true", "auto"});
  if (const std::vector<Num> g = numbers(el, "inertiagrouprange", 2, 2); !g.empty()) {
    comp.group_lo = std::strtod(g[0].text.c_str(), nullptr);
    comp.group_hi = std::strtod(g[1].text.c_str(), nullptr);
  }
  if (const std::vector<Num> v = numbers(el, "boundmass", 1, 1); !v.empty()) comp.boundmass = v[0];
  if (const std::vector<Num> v = numbers(el, "boundinertia", 1, 1); !v.empty()) comp.boundinertia = v[0];
  if (const std::vector<Num> v = numbers(el, "settotalmass", 1, 1); !v.empty()) comp.settotalmass = v[0];
  if (word(el, "coordinate", "local", {"local", "global"}) == "global")
    throw InputError(el.file, el.what + " coordinate",
                     "coordinate=\"global\" is not supported (MuJoCo removed it in 2.3.3): save the model from MuJoCo with local "
                     "coordinates (mj_saveLastXML)");
  if (const char* bi = e->Attribute("balanceinertia"); bi && std::string(bi) == "true")
    c.notes.push_back(el.what + " balanceinertia=\"true\": not applied; an inertia that breaks the triangle inequality is reported "
                                "as non-physical instead of being changed");
}

// The settings every element's reading depends on, wherever they are in the file: <compiler>s and
// <default>s, in document order (the "main" class always exists).
void read_settings(Ctx& c, Compiler& comp, Defaults& defaults, const std::vector<const XMLElement*>& top) {
  for (const XMLElement* e : top) {
    const std::string tag = e->Name();
    if (tag == "compiler") read_compiler(c, comp, e);
    else if (tag == "default")
      read_defaults(c.doc, e, e->Attribute("class") ? e->Attribute("class") : "main", ClassDefaults(), defaults);
  }
  if (!defaults.classes.count("main")) defaults.classes["main"] = ClassDefaults();
}

// <option>: gravity, and <flag gravity="disable">.
void read_option(Ctx& c, ModelDesc& d, const XMLElement* e) {
  El el{e, nullptr, c.doc.file(e), where_of(e, "<option>")};
  if (const std::vector<Num> g = numbers(el, "gravity", 3, 3); !g.empty()) d.gravity = {g[0], g[1], g[2]};
  for (const XMLElement* f : children(c.doc, e))
    if (std::string(f->Name()) == "flag")
      if (const char* gv = f->Attribute("gravity"); gv && std::string(gv) == "disable") {
        d.gravity = {Num::exact(0), Num::exact(0), Num::exact(0)};
        c.notes.push_back(where_of(f, "<option><flag gravity=\"disable\">") + ": gravity 0");
      }
}

// <worldbody>: its bodies walked (Reader::body), its sites recorded; joints, inertials and
// procedural elements refused, the rest counted as ignored.
void read_worldbody(Reader& r, const XMLElement* e) {
  Ctx& c = r.c;
  std::vector<Placed> kids;
  expand_frames(c, e, Pose(), "main", kids);
  for (const Placed& pk : kids) {
    const XMLElement* k = pk.e;
    const std::string kt = k->Name();
    if (kt == "body") r.body(k, 0, pk.cls, pk.frame);
    else if (kt == "joint" || kt == "freejoint" || kt == "inertial")
      throw InputError(c.doc.file(k), where_of(k, "<worldbody><" + kt + ">"), "the world body has no joints and no inertia");
    else if (kt == "replicate" || kt == "composite" || kt == "flexcomp")
      throw InputError(c.doc.file(k), where_of(k, "<" + kt + ">"),
                       "not supported by rbdref's MJCF reader (write the bodies it stands for, or save the compiled model from "
                       "MuJoCo: mj_saveLastXML)");
    else if (kt == "site") {
      El se = element(c, k, pk.cls, "site");
      if (const char* sn = k->Attribute("name"))
        r.sites[sn] = {0, compose(pk.frame, Pose{vec<3>(se, "pos", {0, 0, 0}), orientation(c, se)})};
    } else ++r.ignored["worldbody " + kt];
  }
}

// The top-level elements after the settings: <option>, <worldbody> (required), and the
// <equality>s, returned to be read once every body is known; the others counted in `ignored`.
std::vector<const XMLElement*> read_model(Reader& r, const std::vector<const XMLElement*>& top, const std::string& file,
                                          std::map<std::string, int>& ignored) {
  bool have_world = false;
  std::vector<const XMLElement*> equalities;
  for (const XMLElement* e : top) {
    const std::string tag = e->Name();
    if (tag == "compiler" || tag == "default") continue;
    if (tag == "option") {
      read_option(r.c, r.d, e);
    } else if (tag == "worldbody") {
      have_world = true;
      read_worldbody(r, e);
    } else if (tag == "equality") {
      equalities.push_back(e);
    } else {
      ++ignored[tag];
    }
  }
  if (!have_world) throw InputError(file, "<mujoco>", "expected a <worldbody>");
  return equalities;
}

// What the model leaves out, one note each: the top-level and body elements not read, and the
// joints' passive settings.
void note_left_out(const std::map<std::string, int>& ignored, const Reader& r, std::vector<std::string>& notes) {
  for (const auto& [tag, n] : ignored)
    notes.push_back("ignored " + std::to_string(n) + " <" + tag + "> element" + (n > 1 ? "s" : "") +
                    (tag == "actuator" || tag == "tendon" || tag == "sensor" || tag == "contact" || tag == "keyframe"
                         ? " (actuation, tendons, sensors, contact settings and keyframes are not part of the rigid-body model)"
                         : " (no effect on the rigid-body model)"));
  for (const auto& [key, n] : r.ignored) {
    const bool world = key.rfind("worldbody ", 0) == 0;
    const std::string tag = world ? key.substr(10) : key;
    notes.push_back("ignored " + std::to_string(n) + " <" + tag + "> element" + (n > 1 ? "s" : "") +
                    (world ? " of <worldbody> (the world has no dynamics)" : " in bodies (no effect on the rigid-body model)"));
  }
  if (r.passive)
    notes.push_back("joint damping, stiffness, frictionloss and limits are not modelled (passive forces and constraints: "
                    "rbdref's H, C and τ are MuJoCo's M, qfrc_bias and qfrc_inverse without them)");
}

}  // namespace

ModelDesc read_mjcf(const std::string& xml_text, const std::string& file) {
  // Computed numbers share operands (a body's composed frame, settotalmass's factor): each node's
  // double value, rounding and 100-bit text are computed once for the whole read.
  NumMemoScope<std::pair<double, double>> approximations;
  NumMemoScope<bin100> texts;
  Doc doc;
  const XMLElement* root = main_root(doc, xml_text, file);
  ModelDesc d;
  d.name = root->Attribute("model") ? root->Attribute("model") : "";
  if (first_invalid_utf8(d.name) != std::string::npos) throw InputError(file, "<mujoco> model", "expected a name in UTF-8");
  d.gravity = {Num::exact(0), Num::exact(0), Num::decimal("-9.81")};
  const std::vector<const XMLElement*> top = children(doc, root);

  Compiler comp;
  Defaults defaults;
  std::vector<std::string> notes;
  Ctx c{doc, defaults, true, "xyz", notes};
  read_settings(c, comp, defaults, top);

  Reader r{c, comp, d, {}, {}, {}, {}, {}, 0, {}};
  r.memory_limit = memory_limit_and_source("", r.memory_source);
  r.bodies.push_back(MjBody{"world", -1, zero3(), Pose()});
  std::map<std::string, int> ignored;
  for (const XMLElement* e : read_model(r, top, file, ignored)) read_equality(r, e);
  apply_compiler_bounds(d, comp, file, notes);
  note_left_out(ignored, r, notes);
  d.import_notes = notes;
  return d;
}

}  // namespace rbd
