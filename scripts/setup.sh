#!/usr/bin/env bash
# Installs the Debian packages rbdref needs to build, test and run. Idempotent: packages already
# present are skipped by apt-get. Run as root (or with sudo available) on Debian 12.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config git
  ccache                   # compiler cache: every build folder compiles through it (CMakeLists.txt)
  libeigen3-dev            # dense linear algebra, templated on the scalar
  libboost-dev             # Boost.Multiprecision (cpp_bin_float, float128, mpfr_float)
  libmpfr-dev libgmp-dev   # backend of the run-time-precision scalar
  libmpfi-dev              # MPFI: the interval scalar of the proofs (reference/numeric/interval.hpp)
  libgtest-dev libgmock-dev googletest
  librapidcheck-dev        # property tests (rapidcheck, rapidcheck_gtest targets)
  nlohmann-json3-dev       # JSON formats
  libcli11-dev             # the command line
  libtinyxml2-dev          # URDF reader
  libbenchmark-dev         # bench/
  libssl-dev               # SHA-256 of model files (provenance)
  zlib1g-dev               # gzip fixtures (fixture --out F.json.gz; every reader reads gzip)
  liborocos-kdl-dev libkdl-parser-dev liburdfdom-dev  # KDL: an independent URDF import and dynamics for cross-checks
  libmujoco-dev            # MuJoCo 2.2.2: the first audited engine (engines/mujoco)
  libsimbody-dev           # Simbody 3.7: exact loop constraints (engines/simbody), trees too
  libode-dev               # ODE 0.16: a velocity-level time stepper with contacts (engines/ode)
  libdart-dev              # DART 6.12: trees and contacts through its own constraint solver (engines/dart)
  libdart-utils-urdf-dev   # DART's own URDF loader: the dart-urdf import path
  libbullet-dev            # Bullet 3.24 (double-precision libraries): btMultiBody with contacts (engines/bullet)
  chromium                 # the HTML report is checked in a real browser, headless (tests/html_report_test.cpp)
  libqhull-dev             # mujoco::mujoco names /usr/include/libqhull_r in its CMake package
  python3-dev pybind11-dev # the Python module (python/): built for Debian's /usr/bin/python3
  python3-numpy python3-pytest  # its arrays and its test suite (tests/python, run by ctest)
  strace                   # kills a run at its Nth rename (tests/outputs_test.cpp: an output folder replaced whole)
  clang libclang-rt-14-dev # clang++ 14: the test build (scripts/test.sh; faster than g++'s, docs/build.md) and
                           # scripts/fuzz.sh with its runtimes (libFuzzer, ASan, UBSan: -fsanitize=fuzzer
                           # links libclang_rt.fuzzer from libclang-rt-14-dev, which clang only recommends;
                           # libfuzzer-14-dev, a standalone libFuzzer.a, is not needed)
)

# Node.js and npm run MuJoCo 3's WebAssembly build (engines/mujoco_js); the image ships them, a
# bare Debian gets Debian's.
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || PACKAGES+=(nodejs npm)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
else
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "setup: done"
fi

# MuJoCo 3 from the npm registry: the official WebAssembly build (npm mujoco-js), pinned with its
# integrity hash by engines/mujoco_js/package-lock.json, into engines/mujoco_js/node_modules.
cd "$(dirname "$0")/.."
if [ ! -f engines/mujoco_js/node_modules/mujoco-js/package.json ]; then
  echo "setup: npm ci in engines/mujoco_js (mujoco-js, MuJoCo 3)"
  # npm trusts its own CA list unless told otherwise; the system's bundle also holds a site's own
  # CA (a TLS-inspecting proxy), which apt and curl already trust.
  ca=()
  [ -f /etc/ssl/certs/ca-certificates.crt ] && ca=(--cafile /etc/ssl/certs/ca-certificates.crt)
  # Not fatal: without the registry the mujoco-js adapter is not built (rbdref engines lists it as
  # not built), and everything else still installs, builds and tests.
  if ! (cd engines/mujoco_js && npm ci --no-audit --no-fund --loglevel=error "${ca[@]}"); then
    echo "setup: WARNING: npm ci failed in engines/mujoco_js: the mujoco-js adapter (MuJoCo 3) will not be built" >&2
  fi
fi
