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
#include "io/model_io.hpp"

#include "io/files.hpp"
#include "io/memory_limit.hpp"
#include "io/model_io_impl.hpp"
#include "io/numbers.hpp"
#include "io/utf8.hpp"
#include "io/xml_escape.hpp"
#include "reference/numeric/scalar.hpp"
#include "reference/tree/model.hpp"

#include <tinyxml2.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

namespace rbd {

namespace {

using tinyxml2::XMLDocument;
using tinyxml2::XMLElement;

// ---- Computed numbers --------------------------------------------------------------------------

// An expression of the description's numbers (NumExpr), with the simplifications that keep the
// trees small and are exact: 0 + x = x, 0 · x = 0, 1 · x = x.
struct X {
  std::shared_ptr<const NumExpr> e;
  X() : e(small_integer(0)) {}
  X(const Num& n) : e(n.expr ? n.expr : leaf_node(n)) {}  // NOLINT: a written number is an expression
  explicit X(std::shared_ptr<const NumExpr> p) : e(std::move(p)) {}
  // An exact double; the small integers the formulas use are shared nodes, made once.
  static X of(double v) {
    if (v >= 0 && v <= kSmall && v == static_cast<double>(static_cast<int>(v))) return X(small_integer(static_cast<int>(v)));
    return X(leaf_node(Num::exact(v)));
  }
  static X node(NumExpr::Op op, const X& a, const X& b = X()) {
    auto p = std::make_shared<NumExpr>();
    p->op = op;
    p->a = a.e;
    if (op == NumExpr::Add || op == NumExpr::Sub || op == NumExpr::Mul || op == NumExpr::Div) p->b = b.e;
    return X(std::shared_ptr<const NumExpr>(std::move(p)));
  }
  bool leaf_is(double v) const { return e->op == NumExpr::Leaf && e->leaf.is_double && e->leaf.value == v; }
  bool zero() const { return e->op == NumExpr::Leaf && e->leaf.is_zero(); }
  bool one() const { return leaf_is(1); }
  Num num() const { return e->op == NumExpr::Leaf ? e->leaf : Num::computed(e); }
  double approx() const { return e->value_and_half_unit().first; }

 private:
  static constexpr int kSmall = 180;
  static std::shared_ptr<const NumExpr> leaf_node(const Num& n) {
    auto p = std::make_shared<NumExpr>();
    p->op = NumExpr::Leaf;
    p->leaf = n;
    return p;
  }
  static const std::shared_ptr<const NumExpr>& small_integer(int k) {
    static const std::vector<std::shared_ptr<const NumExpr>> table = [] {
      std::vector<std::shared_ptr<const NumExpr>> t;
      for (int i = 0; i <= kSmall; ++i) t.push_back(leaf_node(Num::exact(i)));
      return t;
    }();
    return table[static_cast<size_t>(k)];
  }
};
X operator+(const X& a, const X& b) {
  if (a.zero()) return b;
  if (b.zero()) return a;
  return X::node(NumExpr::Add, a, b);
}
X operator-(const X& a) {
  if (a.zero()) return a;
  return X::node(NumExpr::Neg, a);
}
X operator-(const X& a, const X& b) {
  if (b.zero()) return a;
  if (a.zero()) return -b;
  return X::node(NumExpr::Sub, a, b);
}
X operator*(const X& a, const X& b) {
  if (a.zero() || b.zero()) return X::of(0);
  if (a.one()) return b;
  if (b.one()) return a;
  return X::node(NumExpr::Mul, a, b);
}
X operator/(const X& a, const X& b) {
  if (a.zero() || b.one()) return a;
  return X::node(NumExpr::Div, a, b);
}
X xsqrt(const X& a) { return a.zero() || a.one() ? a : X::node(NumExpr::Sqrt, a); }
X xsin(const X& a) { return a.zero() ? a : X::node(NumExpr::Sin, a); }
X xcos(const X& a) { return a.zero() ? X::of(1) : X::node(NumExpr::Cos, a); }
X xpi() {
  static const std::shared_ptr<const NumExpr> pi_node = [] {
    auto p = std::make_shared<NumExpr>();
    p->op = NumExpr::Pi;
    return std::shared_ptr<const NumExpr>(std::move(p));
  }();
  return X(pi_node);
}

using V3 = std::array<X, 3>;
using Q4 = std::array<X, 4>;  // w x y z
V3 zero3() { return {X::of(0), X::of(0), X::of(0)}; }
Q4 unit_quat() { return {X::of(1), X::of(0), X::of(0), X::of(0)}; }
V3 add(const V3& a, const V3& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
V3 sub(const V3& a, const V3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
V3 scale(const V3& a, const X& s) { return {a[0] * s, a[1] * s, a[2] * s}; }
X dot(const V3& a, const V3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
V3 cross(const V3& a, const V3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
V3 normalized(const V3& a) {
  const X n = xsqrt(dot(a, a));
  return {a[0] / n, a[1] / n, a[2] / n};
}
bool all_zero(const V3& a) { return a[0].zero() && a[1].zero() && a[2].zero(); }
Q4 qmul(const Q4& a, const Q4& b) {
  return {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3], a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
          a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1], a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
}
Q4 qconj(const Q4& q) { return {q[0], -q[1], -q[2], -q[3]}; }
// Rotates v by the unit quaternion q: v + 2w (u × v) + 2 u × (u × v).
V3 qrot(const Q4& q, const V3& v) {
  const V3 u{q[1], q[2], q[3]};
  if (all_zero(u)) return v;
  const V3 t = scale(cross(u, v), X::of(2));
  return add(add(v, scale(t, q[0])), cross(u, t));
}
Q4 axis_angle(const V3& unit_axis, const X& angle) {
  const X h = angle / X::of(2), s = xsin(h);
  return {xcos(h), unit_axis[0] * s, unit_axis[1] * s, unit_axis[2] * s};
}
// Rotation matrix of a unit quaternion, row-major.
std::array<X, 9> qmat(const Q4& q) {
  const X w = q[0], x = q[1], y = q[2], z = q[3], two = X::of(2), one = X::of(1);
  return {one - two * (y * y + z * z), two * (x * y - w * z), two * (x * z + w * y),
          two * (x * y + w * z),       one - two * (x * x + z * z), two * (y * z - w * x),
          two * (x * z - w * y),       two * (y * z + w * x),       one - two * (x * x + y * y)};
}

// A frame: position and unit orientation in its parent's frame.
struct Pose {
  V3 p = zero3();
  Q4 q = unit_quat();
};
Pose compose(const Pose& a, const Pose& b) { return {add(a.p, qrot(a.q, b.p)), qmul(a.q, b.q)}; }
Pose inverse(const Pose& a) {
  const Q4 c = qconj(a.q);
  const V3 p = qrot(c, a.p);
  return {{-p[0], -p[1], -p[2]}, c};
}
Pose translation(const V3& p) { return {p, unit_quat()}; }

// ---- The document: files, includes, defaults ---------------------------------------------------

struct Doc {
  std::vector<std::unique_ptr<XMLDocument>> docs;
  std::map<const XMLDocument*, std::string> file_of;
  std::string main_file;
  // Every file read, by its canonical path: the <include> that brought it in (null: the main file).
  // MuJoCo includes a file at most once, so a cycle (through the top level, a <default>, a body or
  // a frame) and a fan-out (a file included twice by two files) are both refused at the second
  // inclusion; the bytes of all files together are bounded like one model file.
  std::map<std::string, const XMLElement*> included;
  std::size_t total_bytes = 0;
  std::map<const XMLElement*, std::vector<const XMLElement*>> expanded;  // children(), once per element
  std::string file(const XMLElement* e) const {
    auto it = file_of.find(e->GetDocument());
    return it == file_of.end() ? main_file : it->second;
  }
};

std::string canonical_file(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path c = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : c.string();
}

std::string where_of(const XMLElement* e, const std::string& what) {
  return what + " (line " + std::to_string(e->GetLineNum()) + ")";
}

std::string folder(const std::string& path) {
  const size_t s = path.find_last_of('/');
  return s == std::string::npos ? "" : path.substr(0, s + 1);
}

XMLDocument* parse_xml(Doc& doc, const std::string& text, const std::string& file) {
  check_xml_characters(text, file);
  auto d = std::make_unique<XMLDocument>();
  if (d->Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS) {
    if (d->ErrorID() == tinyxml2::XML_ELEMENT_DEPTH_EXCEEDED)
      throw InputError(file, "line " + std::to_string(d->ErrorLineNum()),
                       "expected elements nested at most " + std::to_string(TINYXML2_MAX_ELEMENT_DEPTH) +
                           " deep (the XML parser's limit, which MuJoCo's own loader shares: a chain of more than about " +
                           std::to_string(TINYXML2_MAX_ELEMENT_DEPTH - 3) + " nested bodies loads in neither)");
    throw InputError(file, "line " + std::to_string(d->ErrorLineNum()), std::string("expected well-formed XML (") + d->ErrorStr() + ")");
  }
  XMLDocument* raw = d.get();
  doc.file_of[raw] = file;
  doc.docs.push_back(std::move(d));
  return raw;
}

// The children of e with every <include file="..."/> replaced by the children of the included
// file's <mujoco> root, as MuJoCo's parser does (paths relative to the main model's folder; each
// file at most once: Doc::included).
std::vector<const XMLElement*> children(Doc& doc, const XMLElement* e) {
  if (auto it = doc.expanded.find(e); it != doc.expanded.end()) return it->second;
  std::vector<const XMLElement*> out;
  for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
    if (std::string(c->Name()) != "include") {
      out.push_back(c);
      continue;
    }
    const std::string file = doc.file(c);
    const char* f = c->Attribute("file");
    if (!f || !*f) throw InputError(file, where_of(c, "<include>"), "missing attribute file");
    const std::string where = where_of(c, "<include file=\"" + std::string(f) + "\">");
    const std::string path = std::string(f).front() == '/' ? std::string(f) : folder(doc.main_file) + f;
    const std::string key = canonical_file(path);
    if (auto it = doc.included.find(key); it != doc.included.end())
      throw InputError(file, where,
                       "the file is already part of the model (" +
                           (it->second ? "included by " + doc.file(it->second) + " line " + std::to_string(it->second->GetLineNum())
                                       : std::string("it is the main file")) +
                           "); MuJoCo includes a file at most once, so an include cycle or a file included twice is refused");
    doc.included.emplace(key, c);
    std::string text;
    try {
      text = read_text_file(path, kModelInput);
    } catch (const InputError& err) {
      throw InputError(file, where, std::string("cannot read the included file: ") + err.what());
    }
    doc.total_bytes += text.size();
    if (doc.total_bytes > max_input_bytes(kModelInput))
      throw InputError(file, where,
                       "the model's files together pass the input limit of " + std::to_string(max_input_bytes(kModelInput)) +
                           " bytes for a model (RBDREF_MAX_INPUT_BYTES raises it; docs/formats.md)");
    const XMLDocument* inc = parse_xml(doc, text, path);
    const XMLElement* root = inc->RootElement();
    if (!root || std::string(root->Name()) != "mujoco")
      throw InputError(path, "<mujoco>", "expected an included MJCF file with a <mujoco> root element");
    for (const XMLElement* k : children(doc, root)) out.push_back(k);
  }
  doc.expanded.emplace(e, out);
  return out;
}

// Default classes: per class, per element tag, the attributes it sets (inherited from the
// enclosing class, then overridden).
using AttrMap = std::map<std::string, std::string>;
using ClassDefaults = std::map<std::string, AttrMap>;  // tag -> attributes

struct Defaults {
  std::map<std::string, ClassDefaults> classes;  // "main" is the top level
  std::map<std::string, const XMLElement*> where;
};

void read_defaults(Doc& doc, const XMLElement* e, const std::string& cls, const ClassDefaults& inherited, Defaults& out) {
  ClassDefaults mine = inherited;
  if (out.classes.count(cls) && cls == "main") mine = out.classes[cls];
  std::vector<const XMLElement*> sub;
  for (const XMLElement* c : children(doc, e)) {
    const std::string tag = c->Name();
    if (tag == "default") {
      sub.push_back(c);
      continue;
    }
    AttrMap& m = mine[tag];
    for (const tinyxml2::XMLAttribute* a = c->FirstAttribute(); a; a = a->Next()) m[a->Name()] = a->Value();
  }
  if (cls != "main" && out.classes.count(cls))
    throw InputError(doc.file(e), where_of(e, "<default class=\"" + cls + "\">"),
                     "duplicate default class (first at line " + std::to_string(out.where[cls]->GetLineNum()) + ")");
  out.classes[cls] = mine;
  out.where[cls] = e;
  for (const XMLElement* c : sub) {
    const char* name = c->Attribute("class");
    if (!name || !*name) throw InputError(doc.file(c), where_of(c, "<default>"), "a nested <default> needs a class attribute");
    read_defaults(doc, c, name, mine, out);
  }
}

// ---- Reading attributes ------------------------------------------------------------------------

struct Ctx {
  Doc& doc;
  const Defaults& defaults;
  bool degrees = true;
  std::string eulerseq = "xyz";
  std::vector<std::string>& notes;
};

// An element with its active default class: the attribute as written, else as its class sets it.
struct El {
  const XMLElement* e;
  const AttrMap* dflt;  // may be null
  std::string file;
  std::string what;     // "body 'forearm' (line 12)"
  const char* get(const char* attr) const {
    if (const char* v = e->Attribute(attr)) return v;
    if (dflt) {
      auto it = dflt->find(attr);
      if (it != dflt->end()) return it->second.c_str();
    }
    return nullptr;
  }
  bool own(const char* attr) const { return e->Attribute(attr) != nullptr; }
};

El element(Ctx& c, const XMLElement* e, const std::string& active_class, const std::string& what) {
  std::string cls = active_class;
  if (const char* k = e->Attribute("class")) cls = k;
  auto it = c.defaults.classes.find(cls);
  if (it == c.defaults.classes.end() && cls != "main")
    throw InputError(c.doc.file(e), where_of(e, what) + " class", "unknown default class '" + cls + "'");
  const AttrMap* d = nullptr;
  if (it != c.defaults.classes.end()) {
    auto t = it->second.find(e->Name());
    if (t != it->second.end()) d = &t->second;
  }
  return El{e, d, c.doc.file(e), where_of(e, what)};
}

std::vector<Num> numbers(const El& el, const char* attr, size_t min_n, size_t max_n) {
  const char* v = el.get(attr);
  std::vector<Num> out;
  if (!v) return out;
  std::istringstream ss(v);
  std::string tok;
  while (ss >> tok) {
    if (!is_decimal(tok))
      throw InputError(el.file, el.what + " " + attr, "expected decimal numbers, got \"" + std::string(v) + "\"");
    const double x = std::strtod(tok.c_str(), nullptr);
    if (!std::isfinite(x) || (x == 0.0 && decimal_mantissa_nonzero(tok)))
      throw InputError(el.file, el.what + " " + attr,
                       "expected numbers within the range of a double (MuJoCo reads MJCF in double), got " + tok);
    out.push_back(Num::decimal(tok));
  }
  if (out.size() < min_n || out.size() > max_n) {
    const std::string n = min_n == max_n ? std::to_string(min_n) : std::to_string(min_n) + " to " + std::to_string(max_n);
    throw InputError(el.file, el.what + " " + attr, "expected " + n + " numbers, got \"" + std::string(v) + "\"");
  }
  return out;
}
template <size_t N>
std::array<X, N> vec(const El& el, const char* attr, const std::array<double, N>& dflt) {
  const std::vector<Num> v = numbers(el, attr, N, N);
  std::array<X, N> out;
  for (size_t k = 0; k < N; ++k) out[k] = v.empty() ? X::of(dflt[k]) : X(v[k]);
  return out;
}
X scalar(const El& el, const char* attr, double dflt) {
  const std::vector<Num> v = numbers(el, attr, 1, 1);
  return v.empty() ? X::of(dflt) : X(v[0]);
}
std::string word(const El& el, const char* attr, const std::string& dflt, std::initializer_list<const char*> allowed) {
  const char* v = el.get(attr);
  if (!v) return dflt;
  std::string s = v;
  std::string list;
  for (const char* a : allowed) {
    if (s == a) return s;
    list += std::string(list.empty() ? "" : ", ") + a;
  }
  throw InputError(el.file, el.what + " " + attr, "expected one of " + list + ", got \"" + s + "\"");
}

X angle(const Ctx& c, const X& a) { return c.degrees ? a * xpi() / X::of(180) : a; }


// The shortest rotation taking (0, 0, 1) to the direction of z (MuJoCo's z2quat):
// normalize(1 + z_z, (0, 0, 1) × z); a z opposite to (0, 0, 1) is the half turn about x.
Q4 z_to_quat(const V3& zraw) {
  const V3 z = normalized(zraw);
  if (z[0].zero() && z[1].zero() && z[2].approx() < 0) return {X::of(0), X::of(1), X::of(0), X::of(0)};
  if (z[0].zero() && z[1].zero()) return unit_quat();
  const Q4 q{X::of(1) + z[2], -z[1], z[0], X::of(0)};
  const X n = xsqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
  return {q[0] / n, q[1] / n, q[2] / n, X::of(0)};
}

// The orientation an element states (quat, axisangle, euler, xyaxes, zaxis: at most one), as
// MuJoCo's compiler resolves it; the identity when none.
Q4 orientation(const Ctx& c, const El& el) {
  static const char* const kinds[] = {"quat", "axisangle", "euler", "xyaxes", "zaxis"};
  // Written on the element itself, the element's specifiers replace its class's.
  bool own = false;
  for (const char* k : kinds) own = own || el.own(k);
  int n = 0;
  const char* which = nullptr;
  for (const char* k : kinds)
    if (own ? el.own(k) : el.get(k) != nullptr) ++n, which = k;
  if (n > 1)
    throw InputError(el.file, el.what, "expected at most one orientation (quat, axisangle, euler, xyaxes, zaxis), as MuJoCo requires");
  if (!which) return unit_quat();
  const std::string w = which;
  El src = el;
  if (own) src.dflt = nullptr;
  if (w == "quat") {
    const Q4 q = vec<4>(src, "quat", {1, 0, 0, 0});
    if (q[0].zero() && q[1].zero() && q[2].zero() && q[3].zero()) throw InputError(el.file, el.what + " quat", "zero quaternion");
    if (q[0].leaf_is(1) && q[1].zero() && q[2].zero() && q[3].zero()) return unit_quat();
    const X n = xsqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    return {q[0] / n, q[1] / n, q[2] / n, q[3] / n};
  }
  if (w == "axisangle") {
    const std::array<X, 4> a = vec<4>(src, "axisangle", {0, 0, 1, 0});
    const V3 ax{a[0], a[1], a[2]};
    if (all_zero(ax)) throw InputError(el.file, el.what + " axisangle", "zero rotation axis");
    return axis_angle(normalized(ax), angle(c, a[3]));
  }
  if (w == "euler") {
    const V3 e = vec<3>(src, "euler", {0, 0, 0});
    Q4 q = unit_quat();
    for (int k = 0; k < 3; ++k) {
      const char s = c.eulerseq[static_cast<size_t>(k)];
      V3 ax = zero3();
      ax[static_cast<size_t>(std::tolower(s) - 'x')] = X::of(1);
      const Q4 r = axis_angle(ax, angle(c, e[static_cast<size_t>(k)]));
      q = std::islower(s) ? qmul(q, r) : qmul(r, q);  // lower case: moving axes; upper case: fixed
    }
    return q;
  }
  if (w == "xyaxes") {
    const std::array<X, 6> a = vec<6>(src, "xyaxes", {1, 0, 0, 0, 1, 0});
    V3 x{a[0], a[1], a[2]}, y{a[3], a[4], a[5]};
    if (all_zero(x) || all_zero(y)) throw InputError(el.file, el.what + " xyaxes", "zero axis");
    x = normalized(x);
    const V3 yo = sub(y, scale(x, dot(x, y)));  // Gram-Schmidt, as MuJoCo
    if (!(dot(yo, yo).approx() > 0)) throw InputError(el.file, el.what + " xyaxes", "the y axis is parallel to the x axis");
    y = normalized(yo);
    const V3 z = cross(x, y);
    // The quaternion of the rotation whose columns are x, y, z: Shepperd's method, the branch
    // chosen by the largest of the four candidates (a decision on approximate values that only
    // picks among exact formulas).
    const X one = X::of(1), four = X::of(4);
    const X tr = x[0] + y[1] + z[2];
    const double c0 = tr.approx(), c1 = x[0].approx(), c2 = y[1].approx(), c3 = z[2].approx();
    if (c0 >= c1 && c0 >= c2 && c0 >= c3) {
      const X s = xsqrt(one + tr) * X::of(2);  // 4w
      return {s / four, (y[2] - z[1]) / s, (z[0] - x[2]) / s, (x[1] - y[0]) / s};
    }
    if (c1 >= c2 && c1 >= c3) {
      const X s = xsqrt(one + x[0] - y[1] - z[2]) * X::of(2);  // 4x
      return {(y[2] - z[1]) / s, s / four, (y[0] + x[1]) / s, (z[0] + x[2]) / s};
    }
    if (c2 >= c3) {
      const X s = xsqrt(one + y[1] - x[0] - z[2]) * X::of(2);  // 4y
      return {(z[0] - x[2]) / s, (y[0] + x[1]) / s, s / four, (z[1] + y[2]) / s};
    }
    const X s = xsqrt(one + z[2] - x[0] - y[1]) * X::of(2);  // 4z
    return {(x[1] - y[0]) / s, (z[0] + x[2]) / s, (z[1] + y[2]) / s, s / four};
  }
  // zaxis: the shortest rotation taking (0, 0, 1) to z (MuJoCo's z2quat); a z opposite to it is
  // the half turn about x.
  V3 z = vec<3>(src, "zaxis", {0, 0, 1});
  if (all_zero(z)) throw InputError(el.file, el.what + " zaxis", "zero axis");
  return z_to_quat(z);
}


// ---- Inertias ----------------------------------------------------------------------------------

// Mass, COM and rotational inertia about the COM (body axes, six entries ixx iyy izz ixy ixz iyz).
struct MassProps {
  X m = X::of(0);
  V3 c = zero3();
  std::array<X, 6> I{X::of(0), X::of(0), X::of(0), X::of(0), X::of(0), X::of(0)};
};

// R diag(d) Rᵀ for the unit quaternion q, as the six entries.
std::array<X, 6> rotated_diag(const Q4& q, const V3& d) {
  if (q[1].zero() && q[2].zero() && q[3].zero()) return {d[0], d[1], d[2], X::of(0), X::of(0), X::of(0)};
  const std::array<X, 9> R = qmat(q);
  auto e = [&](int i, int j) { return R[3 * i] * R[3 * j] * d[0] + R[3 * i + 1] * R[3 * j + 1] * d[1] + R[3 * i + 2] * R[3 * j + 2] * d[2]; };
  return {e(0, 0), e(1, 1), e(2, 2), e(0, 1), e(0, 2), e(1, 2)};
}

// Σ parts about their common COM (the parallel-axis theorem): parts given as mass, COM and
// inertia about their own COM, all in the same axes.
MassProps combine(const std::vector<MassProps>& parts) {
  if (parts.size() == 1) return parts[0];
  MassProps out;
  for (const MassProps& p : parts) out.m = out.m + p.m;
  V3 mc = zero3();
  for (const MassProps& p : parts) mc = add(mc, scale(p.c, p.m));
  out.c = scale(mc, X::of(1) / out.m);
  for (const MassProps& p : parts) {
    // I += I_p + m_p (|d|² 1 − d dᵀ), d = c_p − c: each diagonal entry as m_p's two other squares
    // (a sum of positives), the products m_p d_k d_l shared between the entries.
    const V3 d = sub(p.c, out.c), md = scale(d, p.m);
    const V3 sq{md[0] * d[0], md[1] * d[1], md[2] * d[2]};
    out.I[0] = out.I[0] + (p.I[0] + (sq[1] + sq[2]));
    out.I[1] = out.I[1] + (p.I[1] + (sq[0] + sq[2]));
    out.I[2] = out.I[2] + (p.I[2] + (sq[0] + sq[1]));
    out.I[3] = out.I[3] + (p.I[3] - md[0] * d[1]);
    out.I[4] = out.I[4] + (p.I[4] - md[0] * d[2]);
    out.I[5] = out.I[5] + (p.I[5] - md[1] * d[2]);
  }
  return out;
}

struct Compiler {
  std::string inertiafromgeom = "auto";
  double group_lo = 0, group_hi = 5;
  std::optional<Num> boundmass, boundinertia, settotalmass;
};

// A geom's mass properties in its body's frame by MuJoCo's formulas (mjCGeom: volume, then the
// solid's principal inertia; a capsule is a cylinder and two hemispheres); nullopt when it has no
// mass (density or mass 0, or outside inertiagrouprange). A mesh, plane, height field or SDF geom
// with mass: `refusal` says why its inertia cannot be computed here.
std::optional<MassProps> geom_mass(Ctx& c, const Compiler& comp, const El& g, const Pose& frame, std::string& refusal) {
  const std::string type = word(g, "type", "sphere", {"plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh", "sdf"});
  const std::vector<Num> grp = numbers(g, "group", 1, 1);
  const double group = grp.empty() ? 0 : std::strtod(grp[0].text.c_str(), nullptr);
  if (group < comp.group_lo || group > comp.group_hi) return std::nullopt;
  const std::vector<Num> mass_w = numbers(g, "mass", 1, 1);
  const X density = scalar(g, "density", 1000);
  if (mass_w.empty() ? density.zero() : mass_w[0].is_zero()) return std::nullopt;
  if (type == "mesh" || type == "plane" || type == "hfield" || type == "sdf") {
    refusal = g.what + " (type " + type + ")";
    return std::nullopt;
  }
  if (const char* sh = g.get("shellinertia"); sh && std::string(sh) == "true") {
    refusal = g.what + " (shellinertia=\"true\")";
    return std::nullopt;
  }
  std::vector<Num> size = numbers(g, "size", 0, 3);
  std::vector<X> sz;
  for (const Num& n : size) sz.push_back(X(n));
  Pose pose;
  const std::vector<Num> ft = numbers(g, "fromto", 6, 6);
  const bool long_axis = type == "capsule" || type == "cylinder";
  if (!ft.empty()) {
    if (type == "sphere") throw InputError(g.file, g.what + " fromto", "fromto applies to capsule, cylinder, box and ellipsoid geoms");
    const V3 a{X(ft[0]), X(ft[1]), X(ft[2])}, b{X(ft[3]), X(ft[4]), X(ft[5])};
    const V3 d = sub(b, a);
    if (!(dot(d, d).approx() > 0)) throw InputError(g.file, g.what + " fromto", "the two points coincide (a zero-length geom)");
    pose.p = scale(add(a, b), X::of(1) / X::of(2));
    pose.q = z_to_quat(d);
    const X half = xsqrt(dot(d, d)) / X::of(2);
    const size_t need = long_axis ? 1 : 2;
    if (sz.size() < need)
      throw InputError(g.file, g.what + " size", "expected at least " + std::to_string(need) + " size numbers for a " + type + " with fromto");
    sz.resize(need);
    sz.push_back(half);  // size[1] of a capsule or cylinder, size[2] of a box or ellipsoid
  } else {
    pose.p = vec<3>(g, "pos", {0, 0, 0});
    pose.q = orientation(c, g);
  }
  const size_t need = type == "sphere" ? 1 : long_axis ? 2 : 3;
  if (sz.size() < need)
    throw InputError(g.file, g.what + " size", "expected " + std::to_string(need) + " size numbers for a " + type + " geom");
  for (size_t k = 0; k < need; ++k)
    if (!(sz[k].approx() > 0)) throw InputError(g.file, g.what + " size", "expected positive sizes for a " + type + " geom's inertia");
  const X pi = xpi(), two = X::of(2), three = X::of(3), four = X::of(4), five = X::of(5), eight = X::of(8),
          twelve = X::of(12);
  X V;
  if (type == "sphere") V = four / three * pi * sz[0] * sz[0] * sz[0];
  else if (type == "capsule") V = pi * sz[0] * sz[0] * two * sz[1] + four / three * pi * sz[0] * sz[0] * sz[0];
  else if (type == "cylinder") V = pi * sz[0] * sz[0] * two * sz[1];
  else if (type == "ellipsoid") V = four / three * pi * sz[0] * sz[1] * sz[2];
  else V = eight * sz[0] * sz[1] * sz[2];
  const X rho = mass_w.empty() ? density : X(mass_w[0]) / V;
  MassProps mp;
  mp.m = mass_w.empty() ? density * V : X(mass_w[0]);
  V3 d;
  if (type == "sphere") {
    const X i = two / five * mp.m * sz[0] * sz[0];
    d = {i, i, i};
  } else if (type == "capsule") {
    const X r = sz[0], h = two * sz[1];
    const X mc = rho * pi * r * r * h, ms = rho * four / three * pi * r * r * r;
    const X perp = mc * (three * r * r + h * h) / twelve + ms * (two * r * r / five + h * h / four + three * h * r / eight);
    d = {perp, perp, mc * r * r / two + ms * two * r * r / five};
  } else if (type == "cylinder") {
    const X r = sz[0], h = two * sz[1];
    const X perp = mp.m * (three * r * r + h * h) / twelve;
    d = {perp, perp, mp.m * r * r / two};
  } else if (type == "ellipsoid") {
    d = {mp.m * (sz[1] * sz[1] + sz[2] * sz[2]) / five, mp.m * (sz[0] * sz[0] + sz[2] * sz[2]) / five,
         mp.m * (sz[0] * sz[0] + sz[1] * sz[1]) / five};
  } else {
    d = {mp.m * (sz[1] * sz[1] + sz[2] * sz[2]) / three, mp.m * (sz[0] * sz[0] + sz[2] * sz[2]) / three,
         mp.m * (sz[0] * sz[0] + sz[1] * sz[1]) / three};
  }
  pose = compose(frame, pose);  // a <frame> around the geom
  mp.c = pose.p;
  mp.I = rotated_diag(pose.q, d);
  return mp;
}

// ---- Bodies ------------------------------------------------------------------------------------

// An element of a body (or of the world) with the <frame>s around it resolved (MuJoCo 3): the
// frames' poses composed, and the class its frames' childclass makes active.
struct Placed {
  const XMLElement* e;
  Pose frame;
  std::string cls;
};
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
bool is_identity(const Pose& p) {
  return all_zero(p.p) && p.q[0].leaf_is(1) && p.q[1].zero() && p.q[2].zero() && p.q[3].zero();
}

struct MjBody {
  std::string name;
  int desc = -1;        // the ModelDesc body holding its frame (the last of its joints'), -1 = world
  V3 offset = zero3();  // its MJCF frame's origin in that body's frame: −a_n (O_B)
  Pose world0;          // its pose in the world at qpos0 (the file's poses composed)
};

struct Reader {
  Ctx& c;
  const Compiler& comp;
  ModelDesc& d;
  std::vector<MjBody> bodies;  // MuJoCo's bodies: 0 = world
  std::map<std::string, int> body_by_name;
  struct Site { int body; Pose pose; };
  std::map<std::string, Site> sites;
  std::set<std::string> names, joint_names;
  int njoint = 0;
  std::map<std::string, int> ignored;  // body children not read
  bool passive = false;  // some joint has damping, stiffness, friction loss or limits
  std::uint64_t memory_limit = UINT64_MAX;
  std::string memory_source;

  // The expressions derived so far against the memory limit (io/memory_limit.hpp): a body of
  // millions of geoms in a 64 MiB file would otherwise take gigabytes before anything is computed.
  void check_size(const std::string& file, const std::string& what) const {
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

  std::string unique(std::string n, std::set<std::string>& used) {
    while (!used.insert(n).second) n += "_";
    return n;
  }

  void body(const XMLElement* e, int parent, const std::string& parent_class, const Pose& frame);
};

void Reader::body(const XMLElement* e, int parent, const std::string& parent_class, const Pose& frame) {
  const std::string file = c.doc.file(e);
  std::string cls = parent_class;
  if (const char* cc = e->Attribute("childclass")) {
    if (!c.defaults.classes.count(cc))
      throw InputError(file, where_of(e, "<body>") + " childclass", "unknown default class '" + std::string(cc) + "'");
    cls = cc;
  }
  const int id = static_cast<int>(bodies.size());
  const char* nm = e->Attribute("name");
  MjBody b;
  b.name = nm && *nm ? nm : "body" + std::to_string(id);
  if (nm && *nm && body_by_name.count(nm)) throw InputError(file, where_of(e, "body '" + b.name + "'"), "duplicate body name");
  const std::string what = where_of(e, "body '" + b.name + "'");
  El be{e, nullptr, file, what};  // a body takes no class of its own
  if (const char* gc = e->Attribute("gravcomp"); gc && std::strtod(gc, nullptr) != 0)
    c.notes.push_back(what + ": gravcomp ignored (a passive force MuJoCo adds; not part of H, C, τ)");
  if (e->Attribute("class")) c.notes.push_back(what + ": class ignored (MuJoCo's bodies take no default class; childclass applies to their elements)");
  Pose local;
  local.p = vec<3>(be, "pos", {0, 0, 0});
  local.q = orientation(c, be);
  if (!is_identity(frame)) local = compose(frame, local);  // the <frame>s around the body
  const MjBody& P = bodies[static_cast<size_t>(parent)];
  b.world0 = compose(P.world0, local);

  std::vector<Placed> kids;
  expand_frames(c, e, Pose(), cls, kids);
  std::vector<El> joints;
  std::vector<std::pair<El, Pose>> geoms;
  const XMLElement* inertial = nullptr;
  for (const Placed& pk : kids) {
    const XMLElement* k = pk.e;
    const std::string tag = k->Name();
    const std::string& cls = pk.cls;
    if (!is_identity(pk.frame) && (tag == "joint" || tag == "freejoint" || tag == "inertial"))
      throw InputError(file, where_of(k, "<" + tag + ">"), "a <" + tag + "> inside a <frame> (MuJoCo places joints and inertials in bodies)");
    if (tag == "joint" || tag == "freejoint") {
      const std::string jn = k->Attribute("name") ? k->Attribute("name") : "";
      joints.push_back(element(c, k, cls, "joint '" + (jn.empty() ? "joint" + std::to_string(njoint + static_cast<int>(joints.size())) : jn) + "'"));
    } else if (tag == "geom") {
      const std::string gn = k->Attribute("name") ? k->Attribute("name") : "";
      geoms.push_back({element(c, k, cls, gn.empty() ? "geom of body '" + b.name + "'" : "geom '" + gn + "'"), pk.frame});
    } else if (tag == "inertial") {
      if (inertial) throw InputError(file, where_of(k, what + " <inertial>"), "a body has at most one <inertial>");
      inertial = k;
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
  if (nm && *nm) body_by_name[nm] = id;

  // Mass properties in the MJCF body frame: the <inertial>, or the geoms' (inertiafromgeom).
  MassProps mp;
  std::string inertial_where;
  const bool from_geoms = comp.inertiafromgeom == "true" || (comp.inertiafromgeom == "auto" && !inertial);
  if (!from_geoms && inertial) {
    El ie{inertial, nullptr, file, where_of(inertial, "body '" + b.name + "' <inertial>")};
    inertial_where = ie.what;
    if (!inertial->Attribute("pos")) throw InputError(file, ie.what, "missing attribute pos");
    if (!inertial->Attribute("mass")) throw InputError(file, ie.what, "missing attribute mass");
    mp.m = scalar(ie, "mass", 0);
    mp.c = vec<3>(ie, "pos", {0, 0, 0});
    const Q4 q = orientation(c, ie);
    const bool diag = inertial->Attribute("diaginertia"), full = inertial->Attribute("fullinertia");
    if (diag == full) throw InputError(file, ie.what, "expected exactly one of diaginertia and fullinertia");
    if (diag) {
      mp.I = rotated_diag(q, vec<3>(ie, "diaginertia", {0, 0, 0}));
    } else {
      // Taken exactly, in the inertial frame (pos, and the orientation if one is given).
      const std::array<X, 6> f = vec<6>(ie, "fullinertia", {0, 0, 0, 0, 0, 0});
      if (q[1].zero() && q[2].zero() && q[3].zero()) {
        mp.I = f;
      } else {
        const std::array<X, 9> R = qmat(q);
        const std::array<X, 9> F{f[0], f[3], f[4], f[3], f[1], f[5], f[4], f[5], f[2]};
        auto e2 = [&](int i, int j) {
          X s = X::of(0);
          for (int a = 0; a < 3; ++a)
            for (int k2 = 0; k2 < 3; ++k2) s = s + R[3 * i + a] * F[3 * a + k2] * R[3 * j + k2];
          return s;
        };
        mp.I = {e2(0, 0), e2(1, 1), e2(2, 2), e2(0, 1), e2(0, 2), e2(1, 2)};
      }
    }
  } else if (from_geoms) {
    inertial_where = what + " (inertia from its geoms)";
    std::vector<MassProps> parts;
    for (const auto& [g, gframe] : geoms) {
      if (parts.size() % 1024 == 1023) check_size(file, what);
      std::string refusal;
      std::optional<MassProps> gm = geom_mass(c, comp, g, gframe, refusal);
      if (!refusal.empty())
        throw InputError(file, what,
                         "its inertia would come from " + refusal + ", whose inertia rbdref does not compute; give the body an <inertial> "
                         "(MuJoCo's compiled value: load the model in MuJoCo and read body_mass, body_ipos, body_iquat, "
                         "body_inertia), or put the geom outside inertiagrouprange or at density 0 if it is visual");
      if (gm) parts.push_back(*gm);
    }
    if (!parts.empty()) mp = combine(parts);
  } else {
    inertial_where = what + " (no <inertial>, inertiafromgeom=\"false\": massless)";
  }

  // Joints.
  struct J {
    El el;
    std::string type, name;
  };
  std::vector<J> js;
  for (const El& je : joints) {
    J j{je, std::string(je.e->Name()) == "freejoint" ? "free" : word(je, "type", "hinge", {"hinge", "slide", "ball", "free"}), ""};
    const char* jn = je.e->Attribute("name");
    j.name = jn && *jn ? jn : "joint" + std::to_string(njoint);
    if (jn && *jn && joint_names.count(jn)) throw InputError(file, je.what, "duplicate joint name");
    for (const char* a : {"damping", "stiffness", "frictionloss", "range", "limited"})
      if (const char* v = je.get(a); v && std::string(v) != "0" && std::string(v) != "false") passive = true;
    ++njoint;
    js.push_back(j);
  }
  for (const J& j : js)
    if (j.type == "free") {
      if (js.size() > 1) throw InputError(file, j.el.what, "a free joint must be its body's only joint (as MuJoCo requires)");
      if (parent != 0)
        throw InputError(file, j.el.what,
                         "a free joint on a body that is not a child of <worldbody>: MuJoCo's free joint is a pose in the world, "
                         "rbdref's a pose in the parent; nest the body directly in <worldbody>");
    }

  auto place_inertial = [&](BodyDesc& bd, const V3& off) {
    bd.inertial.mass = mp.m.num();
    const V3 com = add(mp.c, off);
    for (int k = 0; k < 3; ++k) bd.inertial.com[static_cast<size_t>(k)] = com[static_cast<size_t>(k)].num();
    for (int k = 0; k < 6; ++k) bd.inertial.I[static_cast<size_t>(k)] = mp.I[static_cast<size_t>(k)].num();
    bd.inertial_where = inertial_where;
  };
  auto set_origin = [](BodyDesc& bd, const Pose& o) {
    for (int k = 0; k < 3; ++k) bd.origin.xyz[static_cast<size_t>(k)] = o.p[static_cast<size_t>(k)].num();
    if (!(o.q[1].zero() && o.q[2].zero() && o.q[3].zero()))
      bd.origin.quat = std::array<Num, 4>{o.q[0].num(), o.q[1].num(), o.q[2].num(), o.q[3].num()};
  };
  const Pose into = compose(translation(P.offset), local);  // O_parent · (pos, quat)
  if (js.empty()) {
    BodyDesc bd;
    bd.name = unique(b.name, names);
    bd.parent = P.desc;
    bd.joint.name = unique(b.name + "_weld", joint_names);
    bd.joint.type = JointType::Fixed;
    bd.where = what;
    set_origin(bd, into);
    place_inertial(bd, zero3());
    b.desc = static_cast<int>(d.bodies.size());
    d.bodies.push_back(bd);
  } else {
    V3 prev_anchor = zero3();
    for (size_t k = 0; k < js.size(); ++k) {
      const J& j = js[k];
      BodyDesc bd;
      const bool last = k + 1 == js.size();
      bd.name = unique(last ? b.name : b.name + "/" + j.name, names);
      bd.parent = k == 0 ? P.desc : static_cast<int>(d.bodies.size()) - 1;
      bd.joint.name = unique(j.name, joint_names);
      bd.where = j.el.what;
      const X arm = scalar(j.el, "armature", 0);
      if (arm.approx() < 0) throw InputError(file, j.el.what + " armature", "expected a number ≥ 0");
      bd.joint.armature = arm.num();
      Pose o = k == 0 ? into : translation(sub(zero3(), prev_anchor));
      V3 anchor = zero3();
      if (j.type == "free") {
        bd.joint.type = JointType::Free;
        o = Pose();  // the free joint's q is the body's pose in the world
        c.notes.push_back(j.el.what + ": free joint; the body's pose in the file is its initial configuration (MuJoCo's qpos0), "
                                      "not part of the model: q gives the pose");
      } else {
        anchor = vec<3>(j.el, "pos", {0, 0, 0});
        o = compose(o, translation(anchor));
        if (j.type == "ball") {
          bd.joint.type = JointType::Spherical;
        } else {
          V3 axis = vec<3>(j.el, "axis", {0, 0, 1});
          if (all_zero(axis)) throw InputError(file, j.el.what + " axis", "zero axis");
          for (int a = 0; a < 3; ++a) bd.joint.axis[static_cast<size_t>(a)] = axis[static_cast<size_t>(a)].num();
          const X ref = scalar(j.el, "ref", 0);
          const V3 u = normalized(axis);
          if (j.type == "hinge") {
            bd.joint.type = JointType::Revolute;
            if (!ref.zero()) o = compose(o, Pose{zero3(), axis_angle(u, -angle(c, ref))});
          } else {
            bd.joint.type = JointType::Prismatic;
            if (!ref.zero()) o = compose(o, translation(scale(u, -ref)));
          }
        }
      }
      set_origin(bd, o);
      if (last) {
        b.offset = sub(zero3(), anchor);
        place_inertial(bd, b.offset);
      } else {
        bd.inertial_where = j.el.what + " (a massless frame between two joints of body '" + b.name + "')";
      }
      prev_anchor = anchor;
      d.bodies.push_back(bd);
    }
    b.desc = static_cast<int>(d.bodies.size()) - 1;
  }
  bodies.push_back(b);
  check_size(file, what);
  for (const Placed& pk : kids)
    if (std::string(pk.e->Name()) == "body") body(pk.e, id, pk.cls, pk.frame);
}


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

// <equality>: connect and weld as loop joints (RBDA §8.1: spherical and fixed), the others noted.
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
    int b1 = 0, b2 = 0;
    Pose p1, p2;  // each end's point and frame, in its MJCF body's frame
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
    } else {
      b1 = body_of("body1", true);
      b2 = body_of("body2", false);
      const MjBody &B1 = r.bodies[static_cast<size_t>(b1)], &B2 = r.bodies[static_cast<size_t>(b2)];
      if (tag == "connect") {
        p1.p = vec<3>(el, "anchor", {0, 0, 0});
        // The anchor on body2: where body1's anchor is at qpos0 (MuJoCo's convention).
        p2.p = qrot(qconj(B2.world0.q), sub(add(B1.world0.p, qrot(B1.world0.q, p1.p)), B2.world0.p));
      } else {
        const std::vector<Num> rel = numbers(el, "relpose", 7, 7);
        const bool given = !rel.empty() && !(rel[3].is_zero() && rel[4].is_zero() && rel[5].is_zero() && rel[6].is_zero());
        if (given) {
          const X n = xsqrt(X(rel[3]) * X(rel[3]) + X(rel[4]) * X(rel[4]) + X(rel[5]) * X(rel[5]) + X(rel[6]) * X(rel[6]));
          p1 = Pose{{X(rel[0]), X(rel[1]), X(rel[2])}, {X(rel[3]) / n, X(rel[4]) / n, X(rel[5]) / n, X(rel[6]) / n}};
        } else {
          p1 = compose(inverse(B1.world0), B2.world0);  // body2's frame in body1's at qpos0
        }
      }
    }
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

}  // namespace

std::vector<std::string> mjcf_includes(const std::string& path) {
  std::vector<std::string> out;
  std::function<void(const std::string&, int)> visit = [&](const std::string& file, int depth) {
    if (depth > 20) return;
    XMLDocument doc;
    std::string text;
    try {
      text = read_text_file(file, kModelInput);
    } catch (const InputError&) {
      return;
    }
    if (doc.Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS) return;
    std::function<void(const XMLElement*)> walk = [&](const XMLElement* e) {
      for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
        if (std::string(c->Name()) == "include" && c->Attribute("file")) {
          const std::string f = c->Attribute("file");
          if (f.empty() || f.front() == '/' || std::find(out.begin(), out.end(), f) != out.end()) continue;
          out.push_back(f);
          visit(folder(path) + f, depth + 1);
        } else {
          walk(c);
        }
      }
    };
    if (doc.RootElement()) walk(doc.RootElement());
  };
  visit(path, 0);
  return out;
}

ModelDesc read_mjcf(const std::string& xml_text, const std::string& file) {
  // Computed numbers share operands (a body's composed frame, settotalmass's factor): each node's
  // double value, rounding and 100-bit text are computed once for the whole read.
  NumMemoScope<std::pair<double, double>> approximations;
  NumMemoScope<bin100> texts;
  Doc doc;
  doc.main_file = file;
  doc.included.emplace(canonical_file(file), nullptr);
  doc.total_bytes = xml_text.size();
  XMLDocument* main = parse_xml(doc, xml_text, file);
  const XMLElement* root = main->RootElement();
  if (!root || std::string(root->Name()) != "mujoco") throw InputError(file, "<mujoco>", "expected a <mujoco> root element");
  if (const XMLElement* more = root->NextSiblingElement())
    throw InputError(file, "line " + std::to_string(more->GetLineNum()), std::string("expected one root element, got <") + more->Name() + "> after </mujoco>");
  ModelDesc d;
  d.name = root->Attribute("model") ? root->Attribute("model") : "";
  if (first_invalid_utf8(d.name) != std::string::npos) throw InputError(file, "<mujoco> model", "expected a name in UTF-8");
  d.gravity = {Num::exact(0), Num::exact(0), Num::decimal("-9.81")};
  const std::vector<const XMLElement*> top = children(doc, root);

  Compiler comp;
  Defaults defaults;
  std::vector<std::string> notes;
  Ctx c{doc, defaults, true, "xyz", notes};
  std::map<std::string, int> ignored;
  for (const XMLElement* e : top) {
    const std::string tag = e->Name();
    if (tag == "compiler") {
      El el{e, nullptr, doc.file(e), where_of(e, "<compiler>")};
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
        notes.push_back(el.what + " balanceinertia=\"true\": not applied; an inertia that breaks the triangle inequality is reported "
                                  "as non-physical instead of being changed");
    } else if (tag == "default") {
      read_defaults(doc, e, e->Attribute("class") ? e->Attribute("class") : "main", ClassDefaults(), defaults);
    }
  }
  if (!defaults.classes.count("main")) defaults.classes["main"] = ClassDefaults();

  Reader r{c, comp, d, {}, {}, {}, {}, {}, 0, {}};
  r.memory_limit = memory_limit_and_source("", r.memory_source);
  r.bodies.push_back(MjBody{"world", -1, zero3(), Pose()});
  bool have_world = false;
  std::vector<const XMLElement*> equalities;
  for (const XMLElement* e : top) {
    const std::string tag = e->Name();
    if (tag == "compiler" || tag == "default") continue;
    if (tag == "option") {
      El el{e, nullptr, doc.file(e), where_of(e, "<option>")};
      if (const std::vector<Num> g = numbers(el, "gravity", 3, 3); !g.empty()) d.gravity = {g[0], g[1], g[2]};
      for (const XMLElement* f : children(doc, e))
        if (std::string(f->Name()) == "flag")
          if (const char* gv = f->Attribute("gravity"); gv && std::string(gv) == "disable") {
            d.gravity = {Num::exact(0), Num::exact(0), Num::exact(0)};
            notes.push_back(where_of(f, "<option><flag gravity=\"disable\">") + ": gravity 0");
          }
      continue;
    }
    if (tag == "worldbody") {
      have_world = true;
      std::vector<Placed> kids;
      expand_frames(c, e, Pose(), "main", kids);
      for (const Placed& pk : kids) {
        const XMLElement* k = pk.e;
        const std::string kt = k->Name();
        if (kt == "body") r.body(k, 0, pk.cls, pk.frame);
        else if (kt == "joint" || kt == "freejoint" || kt == "inertial")
          throw InputError(doc.file(k), where_of(k, "<worldbody><" + kt + ">"), "the world body has no joints and no inertia");
        else if (kt == "replicate" || kt == "composite" || kt == "flexcomp")
          throw InputError(doc.file(k), where_of(k, "<" + kt + ">"),
                           "not supported by rbdref's MJCF reader (write the bodies it stands for, or save the compiled model from "
                           "MuJoCo: mj_saveLastXML)");
        else if (kt == "site") {
          El se = element(c, k, pk.cls, "site");
          if (const char* sn = k->Attribute("name"))
            r.sites[sn] = {0, compose(pk.frame, Pose{vec<3>(se, "pos", {0, 0, 0}), orientation(c, se)})};
        } else ++r.ignored["worldbody " + kt];
      }
      continue;
    }
    if (tag == "equality") {
      equalities.push_back(e);
      continue;
    }
    ++ignored[tag];
  }
  if (!have_world) throw InputError(file, "<mujoco>", "expected a <worldbody>");
  for (const XMLElement* e : equalities) read_equality(r, e);

  // boundmass, boundinertia (on each body's own mass properties), then settotalmass, as MuJoCo's
  // compiler applies them.
  if (comp.boundmass || comp.boundinertia || comp.settotalmass) {
    X total = X::of(0);
    for (BodyDesc& b : d.bodies) {
      if (comp.boundmass && X(b.inertial.mass).approx() < X(*comp.boundmass).approx()) {
        b.inertial.mass = *comp.boundmass;
        notes.push_back(b.where + ": mass raised to boundmass " + comp.boundmass->str());
      }
      if (comp.boundinertia && !b.inertial_where.empty() && b.inertial_where.find("massless frame") == std::string::npos) {
        const bool diagonal = b.inertial.I[3].is_zero() && b.inertial.I[4].is_zero() && b.inertial.I[5].is_zero();
        const double bi = X(*comp.boundinertia).approx();
        for (int k = 0; k < 3; ++k)
          if (X(b.inertial.I[static_cast<size_t>(k)]).approx() < bi) {
            if (!diagonal)
              throw InputError(file, b.inertial_where,
                               "boundinertia would raise a principal moment of a non-diagonal inertia, which rbdref does not do "
                               "exactly; give the inertia in its principal frame (diaginertia + quat)");
            b.inertial.I[static_cast<size_t>(k)] = *comp.boundinertia;
            notes.push_back(b.inertial_where + ": a principal moment raised to boundinertia " + comp.boundinertia->str());
          }
      }
      total = total + X(b.inertial.mass);
    }
    if (comp.settotalmass && comp.settotalmass->str() != "-1" && X(*comp.settotalmass).approx() > 0) {
      if (!(total.approx() > 0)) throw InputError(file, "<compiler> settotalmass", "the model has no mass to scale");
      const X f = X(*comp.settotalmass) / total;
      for (BodyDesc& b : d.bodies) {
        b.inertial.mass = (X(b.inertial.mass) * f).num();
        for (Num& n : b.inertial.I) n = (X(n) * f).num();
      }
      notes.push_back("<compiler settotalmass=\"" + comp.settotalmass->str() + "\">: every mass and inertia scaled so the total is " +
                      comp.settotalmass->str());
    }
  }

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
  d.import_notes = notes;
  return d;
}

}  // namespace rbd
