#!/bin/bash
# Everything the CUDA renderer needs checked and measured on the GPU machine, in one call:
#   (here)  bench/bundle.sh .device build-cuda/bin/{kernel_tests,kernel_gl_tests,\
#           gpu_render_bench,gpu_interop_bench}; cp bench/gpu/run_device.sh .device/
#   (run)   source .device/env.sh; bash .device/run_device.sh        with carry [".device"]
# Logs go to $OUT (they come back); the summary lines are printed last.
cd "$(dirname "$0")/.." || exit 1
source .device/env.sh
out=${OUT:-/tmp/out}; mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
echo "== kernel_tests"; kernel_tests --gtest_brief=1 > "$out/kernel_tests.log" 2>&1; echo "rc=$?"
grep -E "PASSED|FAILED|tests ran" "$out/kernel_tests.log" | tail -5
echo "== kernel_gl_tests"; kernel_gl_tests > "$out/kernel_gl_tests.log" 2>&1; echo "rc=$?"
grep -E "GL_RENDERER|PASSED|FAILED|interop" "$out/kernel_gl_tests.log" | tail -5
echo "== compute-sanitizer memcheck (a few frames: plain, splats, NaN points, depth; the out-of-memory test is left out: memcheck reports its intended cudaMalloc failure)"
compute-sanitizer --tool memcheck --error-exitcode 9 kernel_tests --gtest_brief=1 \
  --gtest_filter='CudaRenderer.StageTimes*:CudaRenderer.Depth*:CudaRenderer.NanAndInf*:Scenes/Parity.GpuImageEqualsCpuImage/galaxy_scene_333x177_ps2' \
  > "$out/memcheck.log" 2>&1; echo "memcheck rc=$?"; tail -3 "$out/memcheck.log"
echo "== interop loop, default scene"
gpu_interop_bench --scene terrain --points 10e6 --width 1920 --height 1080 --frames 200 2>&1 | tee "$out/interop.log"
if command -v pointraster > /dev/null; then
  echo "== pointraster --headless, default scene, 1920x1080, 10M points: gpu, then cpu; same PNG?"
  pointraster --headless --mode gpu --width 1920 --height 1080 --points 10M --frames 50 \
    --screenshot "$out/gpu.png" 2>&1 | tail -2
  pointraster --headless --mode cpu --width 1920 --height 1080 --points 10M --frames 3 \
    --screenshot "$out/cpu.png" 2>&1 | tail -1
  cmp "$out/gpu.png" "$out/cpu.png" && echo "gpu.png == cpu.png (byte for byte)"
fi
echo "== render bench"
gpu_render_bench --scene cube --points 1e5,1e6,1e7,1e8 --orders random,morton --cameras overview,inside --frames 50 2>&1 | tee "$out/bench_cube.log"
gpu_render_bench --scene terrain --points 10e6 --cameras inside,overview --frames 50 2>&1 | tee "$out/bench_terrain.log"
echo "== upload-time sort and compact positions, cube 1e8 (every row checked against the CPU)"
gpu_render_bench --scene cube --points 1e8 --orders random,morton --sorts off,morton --compact off,on \
  --cameras overview,inside --frames 30 2>&1 | grep "^gpu" | tee "$out/bench_modes.log"
if [ "${BILLION:-1}" = 1 ]; then
  echo "== 1e9"
  gpu_render_bench --scene cube --points 1e9 --orders random,morton --cameras overview,inside \
    --frames 20 2>&1 | grep -v "^device" | tee "$out/bench_1e9.log"
fi
