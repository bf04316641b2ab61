# Precompiled headers (docs/build.md).
#
# Nearly every unit of rbdref includes reference/numeric/scalar.hpp, i.e. Boost.Multiprecision
# (cpp_bin_float, cpp_int, mpfr, float128) and Eigen, whose parse was most of a small unit's compile
# time (docs/build.md, "Precompiled headers, two reference units per scalar, one sanitized build").
# Each target compiles that parse once,
# into a precompiled header of the headers below, and every unit of the target starts from it
# (CMake's target_precompile_headers: a `-include` of the generated cmake_pch.hxx). Per target,
# not shared (REUSE_FROM), because targets differ in optimization level (tests: -O0) and
# definitions, which a precompiled header must match.
#
# Only third-party headers and reference/numeric/scalar.hpp, the header at the bottom of everything, are
# precompiled: a unit that forgets to include a project header it uses still fails to compile, as
# without precompiled headers. RBDREF_PCH=OFF builds without them (the same code, slower).
#
# rbdref_precompile(TARGET [HEADER ...]): the common headers, and HEADERs (<...> names) for
# this target only.
option(RBDREF_PCH "Precompile the common headers (Boost.Multiprecision, Eigen) per target" ON)

set(RBDREF_PCH_COMMON
  <algorithm> <array> <cmath> <functional> <map> <memory> <optional> <sstream> <string> <vector>
  <Eigen/Dense>
  <reference/numeric/scalar.hpp>)

function(rbdref_precompile target)
  if(RBDREF_PCH)
    target_precompile_headers(${target} PRIVATE ${RBDREF_PCH_COMMON} ${ARGN})
  endif()
endfunction()
