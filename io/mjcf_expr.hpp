// Private to the MJCF reader (io/mjcf*.cpp): the numbers it derives and the frames it composes.
// X is an expression of the description's numbers (a NumExpr), evaluated later at the working
// precision; V3, Q4 (w x y z) and Pose (position and unit orientation in the parent's frame) are
// built of them. The simplifications applied are exact (0 + x = x, 0 · x = 0, 1 · x = x), so the
// trees stay small and a number as written stays a leaf.
#pragma once

#include "reference/tree/model.hpp"

#include <array>
#include <memory>
#include <vector>

namespace rbd::mjcf_detail {

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
inline X operator+(const X& a, const X& b) {
  if (a.zero()) return b;
  if (b.zero()) return a;
  return X::node(NumExpr::Add, a, b);
}
inline X operator-(const X& a) {
  if (a.zero()) return a;
  return X::node(NumExpr::Neg, a);
}
inline X operator-(const X& a, const X& b) {
  if (b.zero()) return a;
  if (a.zero()) return -b;
  return X::node(NumExpr::Sub, a, b);
}
inline X operator*(const X& a, const X& b) {
  if (a.zero() || b.zero()) return X::of(0);
  if (a.one()) return b;
  if (b.one()) return a;
  return X::node(NumExpr::Mul, a, b);
}
inline X operator/(const X& a, const X& b) {
  if (a.zero() || b.one()) return a;
  return X::node(NumExpr::Div, a, b);
}
inline X xsqrt(const X& a) { return a.zero() || a.one() ? a : X::node(NumExpr::Sqrt, a); }
inline X xsin(const X& a) { return a.zero() ? a : X::node(NumExpr::Sin, a); }
inline X xcos(const X& a) { return a.zero() ? X::of(1) : X::node(NumExpr::Cos, a); }
inline X xpi() {
  static const std::shared_ptr<const NumExpr> pi_node = [] {
    auto p = std::make_shared<NumExpr>();
    p->op = NumExpr::Pi;
    return std::shared_ptr<const NumExpr>(std::move(p));
  }();
  return X(pi_node);
}

using V3 = std::array<X, 3>;
using Q4 = std::array<X, 4>;  // w x y z
inline V3 zero3() { return {X::of(0), X::of(0), X::of(0)}; }
inline Q4 unit_quat() { return {X::of(1), X::of(0), X::of(0), X::of(0)}; }
inline V3 add(const V3& a, const V3& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
inline V3 sub(const V3& a, const V3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
inline V3 scale(const V3& a, const X& s) { return {a[0] * s, a[1] * s, a[2] * s}; }
inline X dot(const V3& a, const V3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
inline V3 cross(const V3& a, const V3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
inline V3 normalized(const V3& a) {
  const X n = xsqrt(dot(a, a));
  return {a[0] / n, a[1] / n, a[2] / n};
}
inline bool all_zero(const V3& a) { return a[0].zero() && a[1].zero() && a[2].zero(); }
inline Q4 qmul(const Q4& a, const Q4& b) {
  return {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3], a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
          a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1], a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
}
inline Q4 qconj(const Q4& q) { return {q[0], -q[1], -q[2], -q[3]}; }
// Rotates v by the unit quaternion q: v + 2w (u × v) + 2 u × (u × v).
inline V3 qrot(const Q4& q, const V3& v) {
  const V3 u{q[1], q[2], q[3]};
  if (all_zero(u)) return v;
  const V3 t = scale(cross(u, v), X::of(2));
  return add(add(v, scale(t, q[0])), cross(u, t));
}
inline Q4 axis_angle(const V3& unit_axis, const X& angle) {
  const X h = angle / X::of(2), s = xsin(h);
  return {xcos(h), unit_axis[0] * s, unit_axis[1] * s, unit_axis[2] * s};
}
// Rotation matrix of a unit quaternion, row-major.
inline std::array<X, 9> qmat(const Q4& q) {
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
inline Pose compose(const Pose& a, const Pose& b) { return {add(a.p, qrot(a.q, b.p)), qmul(a.q, b.q)}; }
inline Pose inverse(const Pose& a) {
  const Q4 c = qconj(a.q);
  const V3 p = qrot(c, a.p);
  return {{-p[0], -p[1], -p[2]}, c};
}
inline Pose translation(const V3& p) { return {p, unit_quat()}; }
inline bool is_identity(const Pose& p) {
  return all_zero(p.p) && p.q[0].leaf_is(1) && p.q[1].zero() && p.q[2].zero() && p.q[3].zero();
}

}  // namespace rbd::mjcf_detail
