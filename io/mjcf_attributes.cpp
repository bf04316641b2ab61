// Default classes and an element's attributes as they resolve (mjcf_attributes.hpp): numbers,
// words, and orientations by MuJoCo's compiler's rules.
#include "io/mjcf_attributes.hpp"

#include "io/input_error.hpp"
#include "io/numbers.hpp"
#include "reference/numeric/scalar.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace rbd::mjcf_detail {

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

namespace {

// The quaternion of the rotation whose columns are the orthonormal x, y, z: Shepperd's method, the
// branch chosen by the largest of the four candidates (a decision on approximate values that only
// picks among exact formulas).
Q4 quat_of_axes(const V3& x, const V3& y, const V3& z) {
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

}  // namespace

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
    return quat_of_axes(x, y, cross(x, y));
  }
  // zaxis: the shortest rotation taking (0, 0, 1) to z (MuJoCo's z2quat); a z opposite to it is
  // the half turn about x.
  V3 z = vec<3>(src, "zaxis", {0, 0, 1});
  if (all_zero(z)) throw InputError(el.file, el.what + " zaxis", "zero axis");
  return z_to_quat(z);
}

}  // namespace rbd::mjcf_detail
