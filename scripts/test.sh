#!/usr/bin/env bash
# The test command: installs what the build needs (scripts/setup.sh), builds everything (library,
# command, tests, benchmarks) in build/ and runs the test suite. Every option the build needs is
# set explicitly on each run, so whatever an earlier configure left in the cache (scripts/run.sh
# builds the command alone, in build-run/) cannot switch the tests off. ctest fails when it finds
# no test (--no-tests=error), and this script fails unless at least kMinTests tests ran.
# RC_PARAMS scales the property tests (e.g. RC_PARAMS="max_success=1000").
#
# --sanitize: the same suite built with ASan + UBSan (RBDREF_SANITIZE, clang++) in build-asan/,
# without the benchmarks; any sanitizer report fails the test that triggered it (docs/fuzzing.md).
# The libFuzzer targets are built there too (RBDREF_BUILD_FUZZ): scripts/fuzz.sh configures the
# same folder with the same options, so after this it only runs them (CI: .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
SANITIZE=0
case "${1:-}" in
  "") ;;
  --sanitize) SANITIZE=1 ;;
  *) echo "usage: bash scripts/test.sh [--sanitize]" >&2; exit 2 ;;
esac
bash scripts/setup.sh
if [ "$SANITIZE" -eq 1 ]; then
  BUILD=${BUILD_DIR:-build-asan}
  cmake -S . -B "$BUILD" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRBDREF_BUILD_TESTS=ON \
    -DRBDREF_BUILD_BENCH=OFF -DRBDREF_SANITIZE=ON -DRBDREF_BUILD_FUZZ=ON -DRBDREF_BUILD_PACKAGE=OFF -DRBDREF_BUILD_PYTHON=OFF \
    -DRBDREF_TEST_SHARDS=8 >/dev/null
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1}
  # ODE reports a step it refuses through its error handler, which the adapter makes throw
  # (engines/ode/ode_adapter.cpp); dWorldStep's per-step job records are then never freed inside
  # libode. That leak is ODE's, not rbdref's: suppressed by library name, nothing else.
  export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/scripts/lsan.supp}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
else
  # clang++ (installed by setup.sh for the fuzzers): it builds this tree faster than g++
  # (docs/build.md, "clang++ for the test build, g++ for the command and the benchmarks"). The
  # shipped command (scripts/run.sh) and the benchmarks' figures (scripts/bench.sh) are g++'s.
  BUILD=${BUILD_DIR:-build}
  cmake -S . -B "$BUILD" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRBDREF_BUILD_TESTS=ON \
    -DRBDREF_BUILD_BENCH=ON -DRBDREF_SANITIZE=OFF -DRBDREF_BUILD_FUZZ=OFF -DRBDREF_BUILD_PACKAGE=ON -DRBDREF_BUILD_PYTHON=ON \
    -DRBDREF_TEST_SHARDS=8 >/dev/null
fi
cmake --build "$BUILD" -j "$(nproc)"
cd "$BUILD"
# The suite runs as a few GoogleTest shards (tests/CMakeLists.txt, RBDREF_TEST_SHARDS); each writes
# tests/results/shardI.xml, and the tests that ran are counted there.
rm -rf tests/results
set +e
ctest --output-on-failure --no-tests=error -j "$(nproc)" --timeout 900
status=$?
set -e
[ "$status" -eq 0 ] || exit "$status"
# A suite that shrank (a lost shard, a filtered-out binary, a test file left out) must not pass.
ran=$(cat tests/results/shard*.xml 2>/dev/null | grep -c 'result="completed"' || true)
kMinTests=600
if [ -z "$ran" ] || [ "$ran" -lt "$kMinTests" ]; then
  echo "test.sh: only ${ran:-0} tests ran (expected at least $kMinTests): the suite did not build or was not run" >&2
  exit 1
fi
echo "test.sh: $ran tests passed"
