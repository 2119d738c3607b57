#!/usr/bin/env bash
# The whole test suite, from nothing: installs what is missing, builds (with CUDA when nvcc is
# there), runs every test (GPU tests skip without a device), then the readers' and the streaming's
# tests (io_tests: what hostile files and servers reach) again under AddressSanitizer +
# UndefinedBehaviorSanitizer, then the file-reader fuzzers for a bounded time. Idempotent and quick when nothing changed.
#
# Its last line says what the ctest runs did: "N passed, M skipped: no GPU". The test data is in
# the repository (tests/data) and every tool the tests use is installed here, so only the tests
# that need a GPU may skip; any other skip is named in that line with its reason, and fails the
# run under CI (CI=true). tests/ctest_summary.py reads the reasons from ctest's JUnit files.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export PATH="$PATH:/usr/local/cuda/bin"
jobs=$(nproc 2>/dev/null || echo 2)

third_party/install-deps.sh

# The window tests need a display: ctest runs them under xvfb-run (Xvfb and Mesa's software
# OpenGL); the HTTP tests start nginx. Both are installed above. Under CI (CI=true) those tests
# fail rather than skip without them, so a missing one stops the run here with the reason.
if [ "${CI:-}" = true ]; then
  command -v xvfb-run >/dev/null ||
    { echo "run_all.sh: xvfb-run is missing: the window tests need a display under CI" >&2; exit 1; }
  [ -x /usr/sbin/nginx ] ||
    { echo "run_all.sh: /usr/sbin/nginx is missing: the HTTP tests need it under CI" >&2; exit 1; }
fi

# Python tools for the tests (independent readers), in a venv of the build tree.
venv=build/test-venv
stamp=$venv/.requirements
if [ ! -x $venv/bin/python ] || ! cmp -s tests/requirements.txt "$stamp"; then
  python3 -m venv $venv
  $venv/bin/python -m pip install -q --disable-pip-version-check -r tests/requirements.txt
  cp tests/requirements.txt "$stamp"
fi

# One ctest run in build folder $1 (the other arguments go to ctest), its JUnit file kept for the
# summary; a failure prints the summary so far and stops the run. The output of passed tests is
# kept whole: the skips inside viewer_window (one ctest test) are read from it.
junit=()
run_ctest() {
  local dir=$1
  shift
  junit+=("$root/$dir/ctest-junit.xml")
  rm -f "$root/$dir/ctest-junit.xml"
  if ! (cd "$dir" && ctest --output-on-failure --output-junit "$root/$dir/ctest-junit.xml" \
          --test-output-size-passed 4000000 --test-output-size-failed 4000000 "$@"); then
    python3 tests/ctest_summary.py "${junit[@]}" || true
    exit 1
  fi
}

echo "== build (${SECONDS} s in)"
# CUDA_ARCHS (e.g. 90-real) compiles the CUDA files for those architectures only.
cfg=(-DPR_TEST_PYTHON="$root/$venv/bin/python")
[ -n "${CUDA_ARCHS:-}" ] && cfg+=(-DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCHS")
cmake -S . -B build "${cfg[@]}" >/dev/null
cmake --build build -j"$jobs"
echo "== tests (${SECONDS} s in)"
run_ctest build -j"$jobs" --timeout 600

echo "== io tests under AddressSanitizer + UndefinedBehaviorSanitizer (${SECONDS} s in)"
# -O1 and line tables only (-g1): what the sanitizers need for speed and for their stack traces,
# and they compile faster than -O2 -g.
# The Python venv too: the io tests that check our LAZ and COPC output with laspy run here as well.
# With clang (installed for the fuzzers): its sanitizers compile the io code and its tests in 62%
# of g++'s compiler time (283 s against 456 s on 2 cores), and its UndefinedBehaviorSanitizer also
# checks the alignment of references (a packed struct's member bound to a reference), which g++'s
# does not. A build-asan configured with another compiler is configured again from scratch.
if [ -f build-asan/CMakeCache.txt ] && ! grep -q "^CMAKE_CXX_COMPILER:.*clang++" build-asan/CMakeCache.txt; then
  rm -rf build-asan
fi
CC=clang CXX=clang++ cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DPOINTRASTER_SANITIZE=ON \
  -DPOINTRASTER_APP=OFF -DPOINTRASTER_CUDA=OFF -DPOINTRASTER_BENCH=OFF "${cfg[@]}" >/dev/null
cmake --build build-asan -j"$jobs" --target io_tests
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run_ctest build-asan -j"$jobs" -L "^io$"

echo "== fuzzing the file readers (bounded time; ${SECONDS} s in)"
tests/fuzz/run_fuzz.sh 6
echo "== summary of the ctest runs (${SECONDS} s in)"
python3 tests/ctest_summary.py "${junit[@]}"
