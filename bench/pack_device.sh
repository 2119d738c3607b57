#!/bin/bash
# Packs pointraster_bench for the GPU machine (run from anywhere); the peer scripts
# (bench/peers/seed_*.py: the NumPy, CuPy and Numba perspective projection the project grew from)
# travel there with the working tree:
#   bench/pack_device.sh            -> .device-bench/{bin,lib,env.sh}
# then, with the device tool: carry [".device-bench"], command
#   set -o pipefail; source .device-bench/env.sh; BILLION=1 bash bench/run_peers.sh 2>&1 | tee $OUT/log
# HEAD=1 builds the last commit (git archive into /tmp/bench-head) instead of the working tree,
# so that files other people are editing right now do not end up in the measured binary.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
grep -qx '/.device-bench/' .git/info/exclude 2>/dev/null || echo /.device-bench/ >> .git/info/exclude
src=$root
build=$root/build-bench
if [ "${HEAD:-0}" = 1 ]; then
  src=/tmp/bench-head/src
  build=/tmp/bench-head/build
  # Unpack next to the last copy and sync by content, so unchanged files keep their times and
  # the build stays incremental.
  rm -rf /tmp/bench-head/new; mkdir -p /tmp/bench-head/new "$src"
  git archive HEAD | tar -x -C /tmp/bench-head/new
  python3 - /tmp/bench-head/new "$src" <<'PY'
import filecmp, os, shutil, sys
new, dst = sys.argv[1], sys.argv[2]
for d, _, files in os.walk(new):
    for f in files:
        a = os.path.join(d, f)
        b = os.path.join(dst, os.path.relpath(a, new))
        if not (os.path.exists(b) and filecmp.cmp(a, b, shallow=False)):
            os.makedirs(os.path.dirname(b), exist_ok=True)
            shutil.copy2(a, b)
PY
  echo "pack_device.sh: building commit $(git rev-parse --short HEAD)"
fi
cmake -S "$src" -B "$build" -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" > /dev/null
cmake --build "$build" -j2 --target pointraster_bench
bench/bundle.sh .device-bench "$build/bin/pointraster_bench"
{ git rev-parse HEAD; [ "${HEAD:-0}" = 1 ] && echo "(clean HEAD)" || git status --short -- engine kernels bench; } \
  > .device-bench/commit
du -sh .device-bench
