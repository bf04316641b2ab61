#include "reference/tree/mj_factor.hpp"
#include "reference/tree/model.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>

namespace rbd {

int joint_nq(JointType t) {
  switch (t) {
    case JointType::Revolute:
    case JointType::Prismatic:
    case JointType::Helical: return 1;
    case JointType::Cylindrical: return 2;
    case JointType::Planar: return 3;
    case JointType::Spherical: return 4;
    case JointType::Free: return 7;
    case JointType::Fixed: return 0;
  }
  return 0;
}

int joint_nv(JointType t) {
  switch (t) {
    case JointType::Spherical: return 3;
    case JointType::Free: return 6;
    default: return joint_nq(t);
  }
}

const char* joint_type_name(JointType t) {
  switch (t) {
    case JointType::Revolute: return "revolute";
    case JointType::Prismatic: return "prismatic";
    case JointType::Helical: return "helical";
    case JointType::Cylindrical: return "cylindrical";
    case JointType::Planar: return "planar";
    case JointType::Spherical: return "spherical";
    case JointType::Free: return "free";
    case JointType::Fixed: return "fixed";
  }
  return "?";
}

bool joint_type_from_name(const std::string& name, JointType& out) {
  for (JointType t : {JointType::Revolute, JointType::Prismatic, JointType::Helical, JointType::Cylindrical,
                      JointType::Planar, JointType::Spherical, JointType::Free, JointType::Fixed})
    if (name == joint_type_name(t)) {
      out = t;
      return true;
    }
  return false;
}

std::string Num::str() const {
  if (!is_double) return text;
  // Shortest round-trip decimal of the double.
  char buf[40];
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, value);
    if (std::strtod(buf, nullptr) == value) break;
  }
  return buf;
}

double Num::half_unit() const {
  if (expr) return expr->value_and_half_unit().second;
  if (is_double) return std::fabs(value) * 0x1p-53;
  return decimal_half_unit(text);
}

bool Num::is_zero() const {
  if (expr) return false;
  if (is_double) return value == 0;
  for (char c : text) {
    if (c == 'e' || c == 'E') break;
    if (c >= '1' && c <= '9') return false;
  }
  return !text.empty();
}

Num Num::computed(std::shared_ptr<const NumExpr> e) {
  Num n;
  n.text = to_decimal(e->eval<bin100>(), 60);
  n.expr = std::move(e);
  return n;
}

// First-order propagation: |δ(a∘b)| ≤ |∂a| δa + |∂b| δb; each shared node once.
namespace {
using ValueHalf = std::pair<double, double>;
ValueHalf value_half(const NumExpr& e, std::unordered_map<const NumExpr*, ValueHalf>& memo) {
  if (auto it = memo.find(&e); it != memo.end()) return it->second;
  const ValueHalf x = e.a ? value_half(*e.a, memo) : ValueHalf{0, 0}, y = e.b ? value_half(*e.b, memo) : ValueHalf{0, 0};
  ValueHalf r{0, 0};
  switch (e.op) {
    case NumExpr::Leaf: r = {e.leaf.is_double ? e.leaf.value : std::strtod(e.leaf.text.c_str(), nullptr), e.leaf.half_unit()}; break;
    case NumExpr::Add: r = {x.first + y.first, x.second + y.second}; break;
    case NumExpr::Sub: r = {x.first - y.first, x.second + y.second}; break;
    case NumExpr::Mul: r = {x.first * y.first, std::fabs(x.first) * y.second + std::fabs(y.first) * x.second}; break;
    case NumExpr::Div: r = {x.first / y.first, (x.second + std::fabs(x.first / y.first) * y.second) / std::fabs(y.first)}; break;
    case NumExpr::Neg: r = {-x.first, x.second}; break;
    case NumExpr::Sqrt: r = {std::sqrt(x.first), x.first > 0 ? x.second / (2 * std::sqrt(x.first)) : std::sqrt(x.second)}; break;
    case NumExpr::Sin: r = {std::sin(x.first), std::fabs(std::cos(x.first)) * x.second}; break;
    case NumExpr::Cos: r = {std::cos(x.first), std::fabs(std::sin(x.first)) * x.second}; break;
    case NumExpr::Pi: r = {3.141592653589793, 0}; break;
  }
  memo.emplace(&e, r);
  return r;
}
}  // namespace

std::pair<double, double> NumExpr::value_and_half_unit() const {
  std::unordered_map<const NumExpr*, ValueHalf> memo;
  return value_half(*this, memo);
}

const char* note_kind_name(ModelNote::Kind k) {
  switch (k) {
    case ModelNote::RoundingLevel: return "rounding_level";
    case ModelNote::NonPhysicalLink: return "non_physical_link";
    case ModelNote::NonPhysical: return "non_physical";
  }
  return "?";
}

MjLayout mj_layout(const std::vector<int>& dof_parentid) {
  MjLayout m;
  m.dof_parentid = dof_parentid;
  const int nv = static_cast<int>(dof_parentid.size());
  m.dof_Madr.resize(nv);
  m.rownnz.resize(nv);
  for (int i = 0; i < nv; ++i) {
    int n = 0;
    for (int j = i; j >= 0; j = dof_parentid[j]) ++n;
    m.rownnz[i] = n;
    m.dof_Madr[i] = m.nM;
    m.nM += n;
  }
  return m;
}

}  // namespace rbd
