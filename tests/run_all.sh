#!/usr/bin/env bash
# The whole test suite, from nothing: installs what is missing, builds (with CUDA when nvcc is
# there), runs every test (GPU tests skip without a device), then the engine's tests again under
# AddressSanitizer + UndefinedBehaviorSanitizer, then the file-reader fuzzers for a bounded time.
# Idempotent and quick when nothing changed. The last line counts the tests that passed and those
# that skipped because there is no GPU; a skip for any other reason is named there, and fails the
# run under CI (CI=true).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export PATH="$PATH:/usr/local/cuda/bin"
jobs=$(nproc 2>/dev/null || echo 2)

third_party/install-deps.sh

# The window tests need a display: ctest runs them under xvfb-run (Xvfb and Mesa's software
# OpenGL, installed above). Under CI (CI=true) they fail rather than skip without one, so a
# missing xvfb-run stops the run here with the reason.
if [ "${CI:-}" = true ] && ! command -v xvfb-run >/dev/null; then
  echo "run_all.sh: xvfb-run is missing: the window tests need a display under CI" >&2
  exit 1
fi

# Python tools for the tests (independent readers), in a venv of the build tree.
venv=build/test-venv
stamp=$venv/.requirements
if [ ! -x $venv/bin/python ] || ! cmp -s tests/requirements.txt "$stamp"; then
  python3 -m venv $venv
  $venv/bin/python -m pip install -q --disable-pip-version-check -r tests/requirements.txt
  cp tests/requirements.txt "$stamp"
fi

echo "== build (${SECONDS} s in)"
# CUDA_ARCHS (e.g. 90-real) compiles the CUDA files for those architectures only.
cfg=(-DPR_TEST_PYTHON="$root/$venv/bin/python")
[ -n "${CUDA_ARCHS:-}" ] && cfg+=(-DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCHS")
cmake -S . -B build "${cfg[@]}" >/dev/null
cmake --build build -j"$jobs"
echo "== tests (${SECONDS} s in)"
# JUnit files keep each test's output (the window tests' too, one ctest entry for many gtests) for
# the last line's counts (tests/ctest_summary.py).
junit=(--test-output-size-passed 4000000 --test-output-size-failed 4000000)
(cd build && ctest --output-on-failure -j"$jobs" --timeout 600 --output-junit "$root/build/ctest.xml" \
   "${junit[@]}")

echo "== engine and io tests under AddressSanitizer + UndefinedBehaviorSanitizer (${SECONDS} s in)"
# -O1 and line tables only (-g1): what the sanitizers need for speed and for their stack traces,
# and they compile faster than -O2 -g.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DPOINTRASTER_SANITIZE=ON \
  -DPOINTRASTER_APP=OFF -DPOINTRASTER_CUDA=OFF -DPOINTRASTER_BENCH=OFF >/dev/null
cmake --build build-asan -j"$jobs" --target engine_tests io_tests
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j"$jobs" -L "^(engine|io)$" \
   --output-junit "$root/build-asan/ctest.xml" "${junit[@]}")

if [ -x tests/fuzz/run_fuzz.sh ]; then
  echo "== fuzzing the file readers (bounded time; ${SECONDS} s in)"
  tests/fuzz/run_fuzz.sh
fi
echo "== all tests passed (${SECONDS} s in)"
python3 tests/ctest_summary.py build/ctest.xml build-asan/ctest.xml
