#!/bin/bash
# The side-by-side benchmark in one command: configures and builds pointraster_bench
# (CUDA on when nvcc is found) in build-bench/, then runs it. Arguments go to the benchmark, e.g.
#   bench/run_bench.sh                                  # all renderers, 1e5 .. 1e9 where memory allows
#   bench/run_bench.sh --points 1e5,1e6,1e7 --json      # a JSON document on stdout
# Environment: BUILD_DIR (default build-bench), CUDA_ARCHS (default: the project's list),
# BUILD_ONLY=1 (build, print the executable's path, do not run).
# The GL_POINTS baseline needs an OpenGL 3.3 context: without a DISPLAY, SDL's offscreen driver
# (EGL) is used, which gives NVIDIA's GL on the GPU machine and Mesa's llvmpipe elsewhere.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-bench}
cfg=(-S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release)
[ -n "${CUDA_ARCHS:-}" ] && cfg+=(-DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCHS")
cmake "${cfg[@]}" > "$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j"${JOBS:-$(nproc)}" --target pointraster_bench > "$build.build.log" 2>&1 ||
  { tail -40 "$build.build.log"; exit 1; }
exe=$build/bin/pointraster_bench
[ "${BUILD_ONLY:-0}" = 1 ] && { echo "$exe"; exit 0; }
if [ -z "${DISPLAY:-}" ] && [ -z "${SDL_VIDEODRIVER:-}" ]; then
  export SDL_VIDEODRIVER=offscreen
fi
exec "$exe" "$@"
