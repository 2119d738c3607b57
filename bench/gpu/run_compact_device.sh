#!/bin/bash
# Compact quantized positions (docs/GPU.md, "Compact positions"): parity on the GPU machine, then
# 1e8 and 1e9 frame times with compact off/on x upload-time sort off/on, in one device call of
# under 4 minutes on an H200.
#   (here)  cmake -S . -B build-compact -DCMAKE_CUDA_ARCHITECTURES=90 &&
#           cmake --build build-compact -j2 --target kernel_tests gpu_render_bench
#           bench/bundle.sh .device-compact build-compact/bin/{kernel_tests,gpu_render_bench}
#           cp bench/gpu/run_compact_device.sh .device-compact/
#           echo /.device-compact/ >> .git/info/exclude
#   (run)   bash .device-compact/run_compact_device.sh          carry [".device-compact"]
# Logs go to $OUT; every step has a time limit (T_TESTS, T_SMALL, T_BIG seconds).
cd "$(dirname "$0")/.." || exit 1
source .device-compact/env.sh
out=${OUT:-/tmp/out}; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
echo "== kernel_tests: compact (GPU == CPU compact), default paths unchanged"
timeout "${T_TESTS:-60}" kernel_tests --gtest_brief=1 \
  --gtest_filter='Kernels/CompactPositions.*:CudaRenderer.*' \
  > "$out/kernel_tests.log" 2>&1
echo "rc=$?"; grep -E "PASSED|FAILED|SKIPPED|tests ran|Failure" "$out/kernel_tests.log" | tail -12
echo "== 1e8 (every row checked against the CPU image at 320x180)"
timeout "${T_SMALL:-40}" gpu_render_bench --scene cube --points 1e8 --orders random,morton \
  --sorts off,morton --compact off,on --cameras overview,inside --frames 20 > "$out/bench_1e8.log" 2>&1
echo "rc=$?"
echo "== 1e9"
timeout "${T_BIG:-140}" gpu_render_bench --scene cube --points 1e9 --orders random,morton \
  --sorts off,morton --compact off,on --cameras overview,inside --frames 10 > "$out/bench_1e9.log" 2>&1
echo "rc=$?"
echo "== table (frame = clear + raster + resolve device ms, median)"
printf "%-11s %-24s %-9s %9s %8s %6s %s\n" points order camera frame_ms Gpts/s B/pt check
grep -h "^gpu" "$out"/bench_1e8.log "$out"/bench_1e9.log |
  awk '{for(i=1;i<=NF;i++){if($i=="frame")f=$(i+1); if($i=="G")g=$(i-1); if($i=="B/pt")b=$(i-1);
        if($i=="check")c=$(i+1)} printf "%-11s %-24s %-9s %9s %8s %6s %s\n",$3,$4,$5,f,g,b,c}'
grep -h "^#\|gpu_render_bench:" "$out"/bench_1e8.log "$out"/bench_1e9.log | cut -c1-160
