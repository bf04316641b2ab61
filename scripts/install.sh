#!/usr/bin/env bash
# Installs rbdref into PREFIX (default /usr/local): the command (bin/rbdref), librbdref.so, the
# headers with the GoogleTest matchers (include/rbdref/), the CMake package (find_package(rbdref
# CONFIG REQUIRED), target rbdref::rbdref) and the Python module for Debian's python3
# (lib/python3.X/dist-packages/rbdref: importable with no PYTHONPATH when PREFIX is /usr/local).
# docs/install.md. Installs what the build needs first (scripts/setup.sh), then builds with g++ in
# build-run/, the folder scripts/run.sh builds the command in, with the same options, so that the
# two commands share one build.
#   bash scripts/install.sh [PREFIX]
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
PREFIX=${1:-/usr/local}
case "$PREFIX" in
  /*) ;;
  *) PREFIX="$PWD/$PREFIX" ;;  # relative to where the script was called from is ambiguous: relative to the checkout
esac
bash scripts/setup.sh
BUILD=${RUN_BUILD_DIR:-build-run}
cmake -S . -B "$BUILD" -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRBDREF_BUILD_TESTS=OFF \
  -DRBDREF_BUILD_BENCH=OFF -DRBDREF_SANITIZE=OFF -DRBDREF_BUILD_FUZZ=OFF -DRBDREF_BUILD_PACKAGE=ON -DRBDREF_BUILD_PYTHON=ON >/dev/null
cmake --build "$BUILD" -j "$(nproc)"
SUDO=""
mkdir -p "$PREFIX" 2>/dev/null || true
if [ ! -w "$PREFIX" ] && [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO cmake --install "$BUILD" --prefix "$PREFIX" >/dev/null
# The runtime linker's cache, for programs that find librbdref.so through the system's folders.
if [ "$(id -u)" -eq 0 ] || [ -n "$SUDO" ]; then $SUDO ldconfig 2>/dev/null || true; fi
pydir=$(sed -n 's/^RBDREF_PYTHON_INSTALL_DIR:STRING=//p' "$BUILD/CMakeCache.txt")
echo "install: rbdref installed in $PREFIX"
echo "  command        $PREFIX/bin/rbdref"
echo "  CMake package  find_package(rbdref CONFIG REQUIRED) with -DCMAKE_PREFIX_PATH=$PREFIX; target rbdref::rbdref"
echo "  GoogleTest     #include <rbdref/testing/gtest_matchers.hpp>"
if [ -n "$pydir" ]; then
  echo "  Python         /usr/bin/python3 -c 'import rbdref'$([ "$PREFIX" = /usr/local ] || echo " (with PYTHONPATH=$PREFIX/$pydir)")"
fi
