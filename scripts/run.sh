#!/usr/bin/env bash
# The main job: installs what the build needs (scripts/setup.sh), builds the rbdref command and
# runs the audit: every bundled model (fixtures/models/manifest.json) × every engine adapter of
# this build (MuJoCo from Debian's libmujoco-dev), against the golden fixtures (fixtures/golden/).
# Prints the summary table; reports go to audit-out/ (audit.json, junit.xml, per engine × model
# engine outputs and reports). Exit status: 0 all within tolerance, 1 discrepancies, 2 bad input.
# Extra arguments go to `rbdref audit` (e.g. --engines mujoco --models panda,humanoid --out DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Its own build folder (build-run/): the test command's build/ keeps tests and benchmarks on, and
# neither command inherits the other's cache. Every option is set explicitly, as scripts/install.sh
# sets them: the two share this folder.
BUILD=${RUN_BUILD_DIR:-build-run}
cmake -S . -B "$BUILD" -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRBDREF_BUILD_TESTS=OFF \
  -DRBDREF_BUILD_BENCH=OFF -DRBDREF_SANITIZE=OFF -DRBDREF_BUILD_FUZZ=OFF -DRBDREF_BUILD_PACKAGE=ON -DRBDREF_BUILD_PYTHON=ON >/dev/null
cmake --build "$BUILD" -j "$(nproc)" --target rbdref
exec "$BUILD/cli/rbdref" audit "$@"
