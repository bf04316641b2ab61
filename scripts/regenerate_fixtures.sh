#!/usr/bin/env bash
# Regenerates the golden fixtures (fixtures/golden/<model>.fixture.json) of every bundled model in
# fixtures/models/manifest.json (samples and seed from the manifest, bin50 certified at bin100),
# then audits against them. Commit the regenerated files together with the model change.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
BUILD=${RUN_BUILD_DIR:-build-run}
cmake -S . -B "$BUILD" -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRBDREF_BUILD_TESTS=OFF \
  -DRBDREF_BUILD_BENCH=OFF -DRBDREF_SANITIZE=OFF -DRBDREF_BUILD_FUZZ=OFF >/dev/null
cmake --build "$BUILD" -j "$(nproc)" --target rbdref
"$BUILD/cli/rbdref" audit --update-golden --out "${OUT:-audit-out}" "$@" || [ $? -eq 1 ]
