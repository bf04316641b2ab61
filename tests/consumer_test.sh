#!/usr/bin/env bash
# The installed package as an engine developer uses it (ctest entry `consumer`): rbdref installed
# from this build into an empty prefix (cmake --install), then examples/consumer, an out-of-tree
# CMake project, configured against it with find_package(rbdref), built, and its ctest run (the
# matchers pass on the engine, fail on the planted error and name the worst entry); and the
# installed Python package imported by Debian's python3 from that prefix.
# usage: consumer_test.sh BUILD_DIR SOURCE_DIR CXX_COMPILER PYTHON PYTHON_INSTALL_DIR
set -euo pipefail
BUILD=$1 SRC=$2 CXX=$3 PY=$4 PYDIR=$5
WORK=$BUILD/tests/consumer
rm -rf "$WORK"
mkdir -p "$WORK"
cmake --install "$BUILD" --prefix "$WORK/prefix" >"$WORK/install.log"
for f in bin/rbdref lib/librbdref.so lib/cmake/rbdref/rbdrefConfig.cmake include/rbdref/testing/gtest_matchers.hpp \
         include/rbdref/fixtures/fixture.hpp "$PYDIR/rbdref/__init__.py"; do
  [ -e "$WORK/prefix/$f" ] || { echo "consumer_test: the install lacks $f" >&2; exit 1; }
done
cmake -S "$SRC/examples/consumer" -B "$WORK/build" -DCMAKE_PREFIX_PATH="$WORK/prefix" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$WORK/configure.log"
cmake --build "$WORK/build" -j 2
(cd "$WORK/build" && ctest --output-on-failure --no-tests=error)
# The installed Python package, from the prefix alone (not the build tree's).
env -u PYTHONPATH PYTHONPATH="$WORK/prefix/$PYDIR" "$PY" - "$WORK/prefix" "$WORK/build/double_pendulum.fixture.json" \
  "$SRC/examples/consumer/double_pendulum.urdf" <<'PYEOF'
import os, sys
import rbdref
prefix, fixture, model = sys.argv[1:4]
assert os.path.realpath(rbdref.__file__).startswith(os.path.realpath(prefix)), rbdref.__file__
fx = rbdref.Fixture(fixture)
s = fx.samples[0]
ev = rbdref.Model(model).eval(q=s.q, qd=s.qd, qdd=s.qdd, tau=s.tau)
import decimal
decimal.getcontext().prec = 80
diff = max(abs(a - b) for a, b in zip(ev["H"].decimal().ravel(), s.ref["H"].decimal().ravel()))
assert diff < decimal.Decimal("1e-45"), diff  # the same reference, eval's digits and the fixture's
print("consumer_test: rbdref", rbdref.__version__, "from", os.path.dirname(rbdref.__file__), "reads the consumer's fixture")
PYEOF
echo "consumer_test: passed"
