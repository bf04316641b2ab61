#!/usr/bin/env bash
# Fuzzing (docs/fuzzing.md): installs what the build needs (scripts/setup.sh), builds the libFuzzer
# targets of fuzz/ with clang++, ASan and UBSan in build-asan/ (configured exactly as
# `scripts/test.sh --sanitize` configures it, so the two share one build), and runs each for
# SECONDS (default 60) from its committed seeds (fuzz/corpus/<target>/) and reproducers
# (fuzz/regressions/<target>/).
# Fails on any finding: an exception other than rbd::InputError, a crash, a sanitizer report, an
# input that takes more than 10 s (a hang), a leak, or more than 4 GB of memory.
#
#   bash scripts/fuzz.sh [SECONDS]
#
# Inputs that reach new code are kept in build-asan/corpus/<target>/ (not committed; later runs
# start from them too); a finding's input is written to build-asan/artifacts/<target>/ and its log
# to build-asan/fuzz_<target>.log. FUZZ_TARGETS="urdf state" runs a subset; FUZZ_ARGS adds libFuzzer
# options (FUZZ_ARGS=-runs=1000000 stops each target after a million inputs instead).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-60}
case "$SECONDS_EACH" in
  ''|*[!0-9]*) echo "usage: bash scripts/fuzz.sh [SECONDS]" >&2; exit 2 ;;
esac
bash scripts/setup.sh
BUILD=${FUZZ_BUILD_DIR:-build-asan}
cmake -S . -B "$BUILD" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRBDREF_BUILD_TESTS=ON \
  -DRBDREF_BUILD_BENCH=OFF -DRBDREF_SANITIZE=ON -DRBDREF_BUILD_FUZZ=ON >/dev/null
cmake --build "$BUILD" -j "$(nproc)" --target fuzzers
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
failed=()
for t in ${FUZZ_TARGETS:-urdf model_json mjcf state fixture engine_output}; do
  dict=fuzz/json.dict
  [ "$t" = urdf ] && dict=fuzz/urdf.dict
  [ "$t" = mjcf ] && dict=fuzz/mjcf.dict
  mkdir -p "$BUILD/corpus/$t" "$BUILD/artifacts/$t"
  dirs=("$BUILD/corpus/$t" "fuzz/corpus/$t")  # new inputs go to the first folder
  [ -d "fuzz/regressions/$t" ] && dirs+=("fuzz/regressions/$t")
  log="$BUILD/fuzz_$t.log"
  start=$SECONDS
  set +e
  # shellcheck disable=SC2086
  "$BUILD/fuzz/fuzz_$t" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=4096 -dict="$dict" \
    -artifact_prefix="$BUILD/artifacts/$t/" -print_final_stats=1 ${FUZZ_ARGS:-} "${dirs[@]}" >"$log" 2>&1
  status=$?
  set -e
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  if [ "$status" -eq 0 ]; then
    echo "fuzz.sh: $t: ${execs:-?} inputs in $((SECONDS - start)) s, no finding"
  else
    echo "fuzz.sh: $t: FINDING (exit $status) after ${execs:-?} inputs; log $log, input in $BUILD/artifacts/$t/:" >&2
    grep -E 'rbdref fuzz finding|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|^ *#[0-9]+ ' "$log" | head -30 >&2
    failed+=("$t")
  fi
done
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz.sh: findings in ${failed[*]}" >&2
  exit 1
fi
echo "fuzz.sh: no finding"
