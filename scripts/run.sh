#!/usr/bin/env bash
# The main job. Installs what the build needs, builds the rbdref command and evaluates the bundled
# double pendulum at 50 digits, certified against 100 digits; prints the JSON result.
# Extra arguments replace the defaults: scripts/run.sh MODEL --state STATE.json [--precision P]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
BUILD=${BUILD_DIR:-build}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRBDREF_BUILD_TESTS=OFF -DRBDREF_BUILD_BENCH=OFF >/dev/null
cmake --build "$BUILD" -j "$(nproc)" --target rbdref
if [ $# -eq 0 ]; then
  set -- fixtures/models/double_pendulum.urdf --state fixtures/states/double_pendulum.json --precision bin50
fi
exec "$BUILD/cli/rbdref" eval "$@"
