#!/usr/bin/env bash
# Installs what the build needs, builds everything (library, command, tests, benchmarks) and runs
# the test suite. RC_PARAMS scales the property tests (e.g. RC_PARAMS="max_success=1000").
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
BUILD=${BUILD_DIR:-build}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD" -j "$(nproc)"
cd "$BUILD"
ctest --output-on-failure -j "$(nproc)" --timeout 900
