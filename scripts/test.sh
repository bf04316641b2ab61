#!/usr/bin/env bash
# The test command: installs what the build needs (scripts/setup.sh), builds everything (library,
# command, tests, benchmarks) in build/ and runs the test suite. Every option the build needs is
# set explicitly on each run, so whatever an earlier configure left in the cache (scripts/run.sh
# builds the command alone, in build-run/) cannot switch the tests off. ctest fails when it finds
# no test (--no-tests=error), and this script fails unless at least kMinTests tests ran.
# RC_PARAMS scales the property tests (e.g. RC_PARAMS="max_success=1000").
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
BUILD=${BUILD_DIR:-build}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRBDREF_BUILD_TESTS=ON -DRBDREF_BUILD_BENCH=ON >/dev/null
cmake --build "$BUILD" -j "$(nproc)"
cd "$BUILD"
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
set +e
ctest --output-on-failure --no-tests=error -j "$(nproc)" --timeout 900 2>&1 | tee "$LOG"
status=${PIPESTATUS[0]}
set -e
[ "$status" -eq 0 ] || exit "$status"
# A suite that shrank to nothing (a lost gtest_discover_tests, a filtered-out binary) must not pass.
ran=$(sed -n 's/.*tests passed, [0-9]* tests failed out of \([0-9]*\).*/\1/p' "$LOG" | tail -1)
kMinTests=350
if [ -z "$ran" ] || [ "$ran" -lt "$kMinTests" ]; then
  echo "test.sh: only ${ran:-0} tests ran (expected at least $kMinTests): the suite did not build or was not discovered" >&2
  exit 1
fi
echo "test.sh: $ran tests passed"
