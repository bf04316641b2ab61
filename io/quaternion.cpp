// quaternion_norm: |q| of a quaternion as written, scaled by its largest component.
#include "io/quaternion.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace rbd {

double quaternion_norm(const Num* q) {
  double c[4], big = 0;
  for (int k = 0; k < 4; ++k) {
    c[k] = q[k].is_double ? q[k].value : std::strtod(q[k].text.c_str(), nullptr);
    if (!std::isfinite(c[k])) return std::numeric_limits<double>::quiet_NaN();
    big = std::max(big, std::fabs(c[k]));
  }
  if (big == 0) return 0;
  double s = 0;
  for (int k = 0; k < 4; ++k) s += (c[k] / big) * (c[k] / big);
  return big * std::sqrt(s);
}

}  // namespace rbd
