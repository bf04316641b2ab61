// Shared helpers of the test suite: the two precisions every identity is checked at, max-abs
// norms, and a uniform way to print residual and tolerance on failure.
#pragma once

#include "reference/numeric/scalar.hpp"
#include "reference/spatial/spatial.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <type_traits>
#include <vector>
#include <sstream>

namespace rbd::test {

// double and a 50-digit scalar: a property at double shows the algorithm's rounding behaviour,
// at bin50 that no double (literal, constant, conversion) leaks into the templated path.
using Scalars = ::testing::Types<double, bin50>;

// Names of typed tests over double, bin50 and bin100 (TYPED_TEST_SUITE's third argument).
struct ScalarName {
  template <class T>
  static std::string GetName(int) {
    return std::is_same<T, double>::value ? "double" : std::is_same<T, bin50>::value ? "bin50" : "bin100";
  }
};

// Doubles (a random state's q, qd, ...) as a vector of T: exact, every double is a T.
template <class T>
VecX<T> exact_vec(const std::vector<double>& x) {
  VecX<T> y(static_cast<Eigen::Index>(x.size()));
  for (std::size_t k = 0; k < x.size(); ++k) y(static_cast<Eigen::Index>(k)) = T(x[k]);
  return y;
}

template <class Derived>
double max_abs(const Eigen::MatrixBase<Derived>& x) {
  using S = typename Derived::Scalar;
  return x.size() == 0 ? 0.0 : static_cast<double>(S(x.cwiseAbs().maxCoeff()));
}

// k ε(T) as a double.
template <class T>
double tol(double k) {
  return k * static_cast<double>(epsilon<T>());
}

// Residual-vs-tolerance assertion that prints both and the digits achieved.
#define RBD_EXPECT_RESIDUAL(residual, tolerance, what)                                                     \
  do {                                                                                                     \
    const double rbd_r_ = (residual), rbd_t_ = (tolerance);                                                \
    EXPECT_LE(rbd_r_, rbd_t_) << (what) << ": residual " << rbd_r_ << " > tolerance " << rbd_t_ << " (" \
                              << -std::log10(rbd_r_) << " digits)";                                        \
  } while (0)

// Deterministic random numbers for non-property tests.
struct Rand {
  std::mt19937_64 g{12345};
  double operator()(double a = -1, double b = 1) { return std::uniform_real_distribution<double>(a, b)(g); }
  template <class T>
  Vec3<T> vec3(double a = -1, double b = 1) {
    return Vec3<T>(T((*this)(a, b)), T((*this)(a, b)), T((*this)(a, b)));
  }
  template <class T>
  Vec6<T> vec6() {
    Vec6<T> v;
    for (int i = 0; i < 6; ++i) v(i) = T((*this)());
    return v;
  }
  // A rows x cols matrix of draws from [-1, 1), filled row by row.
  template <class T>
  MatX<T> mat(int rows, int cols) {
    MatX<T> A(rows, cols);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) A(i, j) = T((*this)());
    return A;
  }
  // A random rotation E (exactly orthogonal up to rounding in T) from an axis and angle.
  template <class T>
  Mat3<T> rotation() {
    Vec3<T> a = vec3<T>();
    a /= a.norm();
    return axis_angle<T>(a, T((*this)(-3, 3)));
  }
};

}  // namespace rbd::test
