#!/bin/bash
# Packs pointraster_bench and the seed's peer scripts for the GPU machine (run from anywhere):
#   bench/pack_device.sh            -> .device-bench/{bin,lib,env.sh,peers/}
# then, with the device tool: carry [".device-bench"], command
#   set -o pipefail; source .device-bench/env.sh; BILLION=1 bash bench/run_peers.sh 2>&1 | tee $OUT/log
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
grep -qx '/.device-bench/' .git/info/exclude 2>/dev/null || echo /.device-bench/ >> .git/info/exclude
cmake -S . -B build-bench -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" > /dev/null
cmake --build build-bench -j2 --target pointraster_bench
../shared/device/bundle.sh .device-bench build-bench/bin/pointraster_bench
mkdir -p .device-bench/peers
cp ../shared/peers/*.py .device-bench/peers/
du -sh .device-bench
