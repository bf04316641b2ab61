// Private to the MJCF reader (io/mjcf*.cpp): an element's attributes as MuJoCo resolves them.
// Default classes (<default>, nested and named by class) give, per element tag, the attributes a
// class sets, inherited from the enclosing class and then overridden; an element reads an
// attribute as written, else as its active class sets it (El). Numbers are decimal text kept
// exactly (within a double's range, as MuJoCo reads them); orientations are every specifier
// MuJoCo's compiler accepts (quat, axisangle, euler, xyaxes, zaxis), in <compiler>'s angle unit
// and Euler sequence (Ctx).
#pragma once

#include "io/mjcf_document.hpp"
#include "io/mjcf_expr.hpp"

#include <array>
#include <cstddef>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

namespace rbd::mjcf_detail {

using AttrMap = std::map<std::string, std::string>;
using ClassDefaults = std::map<std::string, AttrMap>;  // tag -> attributes

struct Defaults {
  std::map<std::string, ClassDefaults> classes;  // "main" is the top level
  std::map<std::string, const XMLElement*> where;
};

// The <default> element e as class `cls` and its nested classes, into `out`; a duplicate class or
// a nested <default> without a class is an InputError.
void read_defaults(Doc& doc, const XMLElement* e, const std::string& cls, const ClassDefaults& inherited, Defaults& out);

// What every element's reading shares: the document, the classes, <compiler>'s angle unit and
// Euler sequence, and the notes the reader gathers.
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

// e under its own class attribute, else `active_class`; an unknown class is an InputError.
El element(Ctx& c, const XMLElement* e, const std::string& active_class, const std::string& what);

// The attribute's decimal numbers, min_n to max_n of them (none when it is absent).
std::vector<Num> numbers(const El& el, const char* attr, size_t min_n, size_t max_n);
template <size_t N>
std::array<X, N> vec(const El& el, const char* attr, const std::array<double, N>& dflt) {
  const std::vector<Num> v = numbers(el, attr, N, N);
  std::array<X, N> out;
  for (size_t k = 0; k < N; ++k) out[k] = v.empty() ? X::of(dflt[k]) : X(v[k]);
  return out;
}
X scalar(const El& el, const char* attr, double dflt);
// The attribute's value, one of `allowed`; `dflt` when it is absent.
std::string word(const El& el, const char* attr, const std::string& dflt, std::initializer_list<const char*> allowed);

// An angle as written, in radians.
inline X angle(const Ctx& c, const X& a) { return c.degrees ? a * xpi() / X::of(180) : a; }
// The shortest rotation taking (0, 0, 1) to the direction of z (MuJoCo's z2quat).
Q4 z_to_quat(const V3& zraw);
// The orientation an element states (at most one specifier); the identity when none.
Q4 orientation(const Ctx& c, const El& el);

}  // namespace rbd::mjcf_detail
