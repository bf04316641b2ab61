// The result of one property check, and the tolerance model shared by all of them.
//
// A check measures a dimensionless residual (an error divided by the natural scale of the
// quantity, stated by each check) and compares it with a tolerance k · ε(T), where ε(T) is the
// machine epsilon of the scalar the check ran in and k a small constant that grows with the
// problem size (number of DoFs). The residual is always reported, pass or fail, so that a run at
// 50 digits shows how many digits the identity actually holds to (digits = -log10(residual)).
#pragma once

#include "reference/numeric/scalar.hpp"

#include <cmath>
#include <string>

namespace rbd {

struct CheckResult {
  std::string name;        // e.g. "H.symmetric", "crba.columns_equal_rnea_differences"
  bool passed = false;
  double residual = 0;     // dimensionless, as described by `detail`
  double tolerance = 0;    // passed = residual <= tolerance (NaN residual never passes)
  std::string detail;      // what the residual measures, and any extra data (e.g. min eigenvalue)

  // Digits to which the identity holds: -log10(residual), capped at 400 for a zero residual.
  double digits() const { return residual > 0 ? -std::log10(residual) : 400.0; }
  // "name: residual 3.1e-17 <= tolerance 2.2e-14 (16.5 digits) [detail]"
  std::string message() const;
};

// printf-style formatting of one number ("%.3g", x), for messages and tables.
std::string format_number(const char* format, double x);

// k · ε(T) as a double (ε(bin50) ≈ 1e-50 is well inside the range of a double).
template <class T>
double tolerance(double k) {
  return k * static_cast<double>(epsilon<T>());
}

// Builds a CheckResult from a residual computed in T.
template <class T>
CheckResult make_check(std::string name, const T& residual, double tol, std::string detail) {
  CheckResult r;
  r.name = std::move(name);
  // The conversion rounds to the nearest double: a residual below the smallest subnormal double
  // (possible at 100+ digits) becomes 0, reported as 400 digits; one above the largest double
  // becomes inf and fails. A NaN (of either sign) is stored as the plain quiet NaN, which never
  // passes (NaN <= tolerance is false).
  r.residual = static_cast<double>(residual);
  if (!(r.residual == r.residual)) r.residual = std::nan("");
  r.tolerance = tol;
  r.passed = r.residual <= tol;
  r.detail = std::move(detail);
  // A relative residual of 1 means no digit agrees: a tolerance that large (k ε κ with κ ≥ 1/(kε))
  // passes any finite residual, so the pass says nothing; say so where the reader looks.
  if (tol >= 1) r.detail += " [inconclusive: the tolerance is at least 1, no error of finite size can fail this check]";
  return r;
}

}  // namespace rbd
