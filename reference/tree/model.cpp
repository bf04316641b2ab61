#include "reference/tree/mj_factor.hpp"
#include "reference/tree/model.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

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
  if (is_double) return std::fabs(value) * 0x1p-53;
  return decimal_half_unit(text);
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
