// Engine values converted at 50 digits, written into an engine output as decimal text with 25
// significant digits (enough for any double and for the conversion's own rounding): shared by the
// adapters (engines/mujoco, engines/simbody).
#pragma once

#include "io/engine_output.hpp"
#include "reference/scalar.hpp"
#include "reference/spatial.hpp"

namespace rbd {

inline NumMatrix num_vec(const VecX<bin50>& x) {
  NumMatrix n;
  n.rows = static_cast<int>(x.size());
  for (Eigen::Index k = 0; k < x.size(); ++k) n.v.push_back(Num::decimal(to_decimal(x(k), 25)));
  return n;
}
inline NumMatrix num_mat(const MatX<bin50>& A) {
  NumMatrix n;
  n.rows = static_cast<int>(A.rows());
  n.cols = static_cast<int>(A.cols());
  for (Eigen::Index i = 0; i < A.rows(); ++i)
    for (Eigen::Index j = 0; j < A.cols(); ++j) n.v.push_back(Num::decimal(to_decimal(A(i, j), 25)));
  return n;
}

}  // namespace rbd
