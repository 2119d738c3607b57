#!/bin/bash
# The upload-time Morton sort, checked and timed on the GPU machine in one call (docs/GPU.md,
# "Techniques tried"):
#   (here)  cmake -S . -B build-perf -DCMAKE_CUDA_ARCHITECTURES=90 &&
#           cmake --build build-perf -j2 --target kernel_tests gpu_render_bench
#           bench/bundle.sh .device-perf build-perf/bin/{kernel_tests,gpu_render_bench}
#           cp bench/gpu/run_perf_device.sh .device-perf/
#   (run)   source .device-perf/env.sh; bash .device-perf/run_perf_device.sh   carry [".device-perf"]
# Logs go to $OUT; each step has a time limit so the call ends inside the device's 10 minutes.
cd "$(dirname "$0")/.." || exit 1
source .device-perf/env.sh
out=${OUT:-/tmp/out}; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
echo "== kernel_tests (parity with the CPU, file order and GPU-sorted)"
timeout "${T_TESTS:-150}" kernel_tests --gtest_brief=1 > "$out/kernel_tests.log" 2>&1
echo "rc=$?"; grep -E "PASSED|FAILED|tests ran" "$out/kernel_tests.log" | tail -12
echo "== 1e7, 1e8"
timeout "${T_SMALL:-110}" gpu_render_bench --scene cube --points 1e7,1e8 --orders random,morton \
  --sorts off,morton --cameras overview,inside --frames 20 2>&1 |
  tee "$out/bench_small.log"
echo "== 1e9"
timeout "${T_BIG:-200}" gpu_render_bench --scene cube --points 1e9 --orders random,morton \
  --sorts off,morton --cameras overview,inside --frames 10 2>&1 |
  tee "$out/bench_1e9.log"
echo "== summary"; grep -h "^gpu\|^#" "$out"/bench_*.log | cut -c1-150
