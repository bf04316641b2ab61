#!/usr/bin/env bash
# The benchmarks (bench/, Google Benchmark; docs/benchmarks.md), built with g++ -O2 -DNDEBUG as the
# shipped command is (scripts/run.sh), in the same folder build-run/ (the libraries are shared:
# switching the benchmarks on or off changes no compile flag). The test build (build/, clang++)
# compiles them too, but its figures are not the ones docs/benchmarks.md states.
#   bash scripts/bench.sh                                        # rbdref_bench, everything
#   bash scripts/bench.sh --benchmark_filter='BM_(Rnea|Crba|Aba)<.*>/urdf_humanoid|Kernel'
#   BENCH=rbdref_scale bash scripts/bench.sh MODEL STATE         # the scale timings
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
BUILD=${RUN_BUILD_DIR:-build-run}
PROGRAM=${BENCH:-rbdref_bench}
cmake -S . -B "$BUILD" -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRBDREF_BUILD_TESTS=OFF \
  -DRBDREF_BUILD_BENCH=ON -DRBDREF_SANITIZE=OFF -DRBDREF_BUILD_FUZZ=OFF >/dev/null
cmake --build "$BUILD" -j "$(nproc)" --target "$PROGRAM"
exec "$BUILD/bench/$PROGRAM" "$@"
