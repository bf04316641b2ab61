#include "reference/tree/mj_factor.hpp"
#include "reference/tree/model.hpp"

#include <atomic>
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

namespace {
std::atomic<std::size_t> g_alive_nodes{0};
}  // namespace

NumExpr::NumExpr() { g_alive_nodes.fetch_add(1, std::memory_order_relaxed); }

// The operands this node owns alone are taken over and released one by one from a list, so that
// no destructor runs inside another: a chain's length never reaches the call stack.
NumExpr::~NumExpr() {
  g_alive_nodes.fetch_sub(1, std::memory_order_relaxed);
  std::vector<std::shared_ptr<const NumExpr>> orphans;
  auto adopt = [&orphans](std::shared_ptr<const NumExpr>& p) {
    if (p && p.use_count() == 1) orphans.push_back(std::move(p));
    p.reset();
  };
  adopt(a);
  adopt(b);
  adopt(leaf.expr);
  while (!orphans.empty()) {
    std::shared_ptr<const NumExpr> p = std::move(orphans.back());
    orphans.pop_back();
    // Sole owner: the node was made non-const (make_shared<NumExpr>) and nothing else sees it.
    NumExpr& n = const_cast<NumExpr&>(*p);
    adopt(n.a);
    adopt(n.b);
    adopt(n.leaf.expr);
  }  // p's node is destroyed here, with no operands left to release
}

std::size_t NumExpr::alive() { return g_alive_nodes.load(std::memory_order_relaxed); }

// First-order propagation: |δ(a∘b)| ≤ |∂a| δa + |∂b| δb; each shared node once.
std::pair<double, double> NumExpr::value_and_half_unit() const {
  using ValueHalf = std::pair<double, double>;
  auto leaf_value = [](const NumExpr& e) -> ValueHalf {
    if (e.op == Pi) return {3.141592653589793, 0};
    return {e.leaf.is_double ? e.leaf.value : std::strtod(e.leaf.text.c_str(), nullptr), e.leaf.half_unit()};
  };
  auto apply = [](const NumExpr& e, const ValueHalf& x, const ValueHalf& y) -> ValueHalf {
    switch (e.op) {
      case Add: return {x.first + y.first, x.second + y.second};
      case Sub: return {x.first - y.first, x.second + y.second};
      case Mul: return {x.first * y.first, std::fabs(x.first) * y.second + std::fabs(y.first) * x.second};
      case Div: return {x.first / y.first, (x.second + std::fabs(x.first / y.first) * y.second) / std::fabs(y.first)};
      case Neg: return {-x.first, x.second};
      case Sqrt: return {std::sqrt(x.first), x.first > 0 ? x.second / (2 * std::sqrt(x.first)) : std::sqrt(x.second)};
      case Sin: return {std::sin(x.first), std::fabs(std::cos(x.first)) * x.second};
      case Cos: return {std::cos(x.first), std::fabs(std::sin(x.first)) * x.second};
      default: return {0, 0};
    }
  };
  if (NumMemoScope<ValueHalf>* s = NumMemoScope<ValueHalf>::active()) return fold_num_expr<ValueHalf>(*this, s->memo, leaf_value, apply);
  NumMemoScope<ValueHalf>::Memo memo;
  return fold_num_expr<ValueHalf>(*this, memo, leaf_value, apply);
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
