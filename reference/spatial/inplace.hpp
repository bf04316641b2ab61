// The in-place forms of spatial algebra's hot products, beside the Eigen expressions they stand for
// (spatial.hpp, `*_expr`), against which tests/spatial_test.cpp compares them bit for bit.
#pragma once

#include "reference/numeric/scalar.hpp"

#include <Eigen/Dense>

#include <type_traits>

namespace rbd {

// The small products of the per-body recursions (Xform::apply, crm, crf, I v, ...) are inlined
// where they are used: at double, a call per product costs as much as its arithmetic, and GCC's
// -O2 heuristics stop inlining them once they are written as block expressions.
#define RBDREF_HOT inline __attribute__((always_inline))
// Their loops over 3 or 6 entries carry `#pragma GCC unroll` (GCC and clang): GCC 12 at -O2 does
// not unroll them by itself, and then computes the indices mod 3 and the entry selections at run
// time (humanoid RNEA, g++, inlined: 63 300 instructions a call with the loops, 34 600 unrolled;
// clang unrolls them either way).

// The in-place forms of the hot products: written entry by entry with mul_to / add_to / sub_to
// (scalar.hpp) into their result and a few scratch values, with no temporary per operation, where
// the Eigen expression makes one per product and sum (at MPFR's run-time precision a heap block,
// mpfr_init2 and mpfr_clear each).
//   The 6-vector products of the per-body recursions (spatial.hpp: Xform apply / apply_into /
//   transpose_into, crm, crf, I v) take this form for every scalar. At double, too, it is the
//   faster one: Eigen's SSE2 packets of two doubles fit 3-vectors badly (a cross product is
//   mostly shuffles), and the scalar statements leave the compiler free to schedule (RNEA on the
//   humanoid: docs/benchmarks.md, "Workspace forms, and Pinocchio in one process", item 1).
//   The 6x6 and 3x3 products (the inertia transforms, joint rotations, the articulated-inertia
//   updates) take it for the scalars that are not built-in only (kInPlace<T>: float128, bin50,
//   bin100, mpfr, mpfr50); at double and long double their Eigen expressions are faster (CRBA's
//   composite update there has a scalar form of its own: add_rigid_inertia_to_parent).
// Every in-place form does the same operations, on the same operands, in the same association as
// the Eigen expression it stands for evaluated entry by entry, so at the multiprecision scalars
// the two are equal bit for bit, not only up to rounding (tests/spatial_test.cpp compares each
// pair at bin50, mpfr and mpfr50). At double Eigen vectorizes some of the expressions, in
// packets with sums of their own order, so there the two can differ in the last bit (X v does,
// against apply_expr); double's results are not pinned. The orders of Eigen 3.4 relied on:
//   a fixed-size sum of 3 terms (a dot product, an entry of a 3x3 matrix product) is split in
//   halves by Redux.h's unroller: c0 + (c1 + c2); one of 6 terms (6x6 times a 6-vector) twice:
//   (c0 + (c1 + c2)) + (c3 + (c4 + c5)); a sum whose length is known at run time only (a
//   product of depth nvi) runs left to right;
//   a.cross(b) = (a1 b2 - a2 b1, a2 b0 - a0 b2, a0 b1 - a1 b0) (OrthoMethods.h);
//   a + b, a - b, s a entry by entry.
// (a + b = b + a and a b = b a exactly in IEEE and MPFR arithmetic, so only the association
// matters.)
template <class T>
constexpr bool kInPlace = !std::is_floating_point<T>::value;

namespace inplace {
// r = a0 b0 + (a1 b1 + a2 b2); s is scratch; r is none of the inputs.
template <class T>
RBDREF_HOT void dot3(T& r, T& s, const T& a0, const T& b0, const T& a1, const T& b1, const T& a2, const T& b2) {
  mul_to(r, a1, b1);
  mul_to(s, a2, b2);
  add_to(r, r, s);
  mul_to(s, a0, b0);
  add_to(r, s, r);
}
// r = a b - c d; s is scratch; r is none of the inputs.
template <class T>
RBDREF_HOT void ab_minus_cd(T& r, T& s, const T& a, const T& b, const T& c, const T& d) {
  mul_to(r, a, b);
  mul_to(s, c, d);
  sub_to(r, r, s);
}
// r = (a × b)_i = a_{i+1} b_{i+2} - a_{i+2} b_{i+1} (indices mod 3); r is no entry of a or b.
template <class T, class A, class B>
RBDREF_HOT void cross_entry(T& r, T& s, const A& a, const B& b, int i) {
  const int j = (i + 1) % 3, k = (i + 2) % 3;
  ab_minus_cd<T>(r, s, a(j), b(k), a(k), b(j));
}
// out = a × b (3-vectors or 3-entry blocks); out shares no entry with a or b.
template <class T, class O, class A, class B>
RBDREF_HOT void cross(O&& out, T& s, const A& a, const B& b) {
#pragma GCC unroll 3
  for (int i = 0; i < 3; ++i) cross_entry<T>(out(i), s, a, b, i);
}
// out += a × b entry by entry (out_i + (a × b)_i, as Eigen's x + a.cross(b)); s, t scratch.
template <class T, class O, class A, class B>
RBDREF_HOT void add_cross(O&& out, T& s, T& t, const A& a, const B& b) {
#pragma GCC unroll 3
  for (int i = 0; i < 3; ++i) {
    cross_entry<T>(t, s, a, b, i);
    add_to(out(i), out(i), t);
  }
}
// out = M v, M 3x3; out shares no entry with M or v.
template <class T, class O, class M, class V>
RBDREF_HOT void mat3_vec(O&& out, T& s, const M& m, const V& v) {
#pragma GCC unroll 3
  for (int i = 0; i < 3; ++i) dot3<T>(out(i), s, m(i, 0), v(0), m(i, 1), v(1), m(i, 2), v(2));
}
// out = Mᵀ v, M 3x3; out shares no entry with M or v.
template <class T, class O, class M, class V>
RBDREF_HOT void mat3t_vec(O&& out, T& s, const M& m, const V& v) {
#pragma GCC unroll 3
  for (int i = 0; i < 3; ++i) dot3<T>(out(i), s, m(0, i), v(0), m(1, i), v(1), m(2, i), v(2));
}
// Three consecutive entries of a vector, read by reference. (A block of a const Eigen vector
// returns its entries by value: a copy per read, a heap value at MPFR's run-time precision.)
template <class T>
struct Seg3 {
  const T* p;
  const T& operator()(int i) const { return p[i]; }
};
template <class T>
RBDREF_HOT Seg3<T> head3(const Eigen::Matrix<T, 6, 1>& x) {
  return {x.data()};
}
template <class T>
RBDREF_HOT Seg3<T> tail3(const Eigen::Matrix<T, 6, 1>& x) {
  return {x.data() + 3};
}
// out += M v for a 6x6 M: each entry's 6-term sum in Eigen's order for a fixed size of 6 (Redux.h
// halves it twice): (c0 + (c1 + c2)) + (c3 + (c4 + c5)). s, t, u are scratch; out shares no entry
// with M or v.
template <class T, class O, class M, class V>
RBDREF_HOT void add_mat6_vec(O&& out, T& s, T& t, T& u, const M& m, const V& v) {
#pragma GCC unroll 6
  for (int i = 0; i < 6; ++i) {
    dot3<T>(s, u, m(i, 0), v(0), m(i, 1), v(1), m(i, 2), v(2));
    dot3<T>(t, u, m(i, 3), v(3), m(i, 4), v(4), m(i, 5), v(5));
    add_to(s, s, t);
    add_to(out(i), out(i), s);
  }
}
// out -= A B for A 6 x k and B k x 6 with k known at run time only (k <= 6): Eigen sums a product
// of run-time depth left to right, ((c0 + c1) + c2) + ...; k = 0 leaves out as it is. s, t are
// scratch; out shares no entry with A or B.
template <class T, class A, class B>
RBDREF_HOT void sub_product_6k_k6(Eigen::Matrix<T, 6, 6>& out, T& s, T& t, const A& a, const B& b) {
  const Eigen::Index k = a.cols();
  if (k == 0) return;
  for (int j = 0; j < 6; ++j)
    for (int i = 0; i < 6; ++i) {
      mul_to(s, a(i, 0), b(0, j));
      for (Eigen::Index l = 1; l < k; ++l) {
        mul_to(t, a(i, l), b(l, j));
        add_to(s, s, t);
      }
      sub_to(out(i, j), out(i, j), s);
    }
}
// x = 0 entry by entry (no temporary: Eigen's Zero() makes a T(0) per entry).
template <class Derived>
RBDREF_HOT void set_zero(Eigen::MatrixBase<Derived>& x) {
  if constexpr (kInPlace<typename Derived::Scalar>) {
    for (Eigen::Index j = 0; j < x.cols(); ++j)
      for (Eigen::Index i = 0; i < x.rows(); ++i) x.coeffRef(i, j) = 0;
  } else {
    x.setZero();
  }
}
template <class Derived>
RBDREF_HOT void set_identity(Eigen::MatrixBase<Derived>& x) {
  if constexpr (kInPlace<typename Derived::Scalar>) {
    for (Eigen::Index j = 0; j < x.cols(); ++j)
      for (Eigen::Index i = 0; i < x.rows(); ++i) x.coeffRef(i, j) = i == j ? 1 : 0;
  } else {
    x.setIdentity();
  }
}
}  // namespace inplace

}  // namespace rbd
