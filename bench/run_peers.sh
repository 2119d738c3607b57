#!/bin/bash
# The comparison with the peers in one go: the NumPy, CuPy and Numba CUDA scripts of the
# perspective projection the project grew from (bench/peers/seed_*.py) and pointraster_bench
# (CPU, GPU, GL_POINTS) on the same machine in the same run, then the ratios.
#
#   bench/run_peers.sh                 here: builds with bench/run_bench.sh's build dir if needed
#   (GPU machine) source .device-bench/env.sh; bash bench/run_peers.sh
#
# Environment: OUT (logs and JSON, default build-bench/peers-out), PEERS (the peer scripts,
# default bench/peers), PYTHON (default python3), BENCH_EXE,
# POINTS (default 1e5,1e6,1e7,1e8), BILLION=1 adds 1e9, QUICK=1 runs fewer peer loops,
# NOSORT_POINTS (e.g. 1e8,1e9: GPU rows without the renderer's upload-time sort),
# MODES_POINTS (e.g. 1e8,1e9: GPU rows for each storage mode, GPU_MODES, MODES_ORDERS),
# PEER_LOGS (folder for the peers' own output, default OUT; the device tool returns 8 files at most).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/build-bench/peers-out}
mkdir -p "$out" "${PEER_LOGS:-$out}"
peers=${PEERS:-$root/bench/peers}
[ -f "$peers/seed_numpy.py" ] || { echo "run_peers.sh: the peer scripts (seed_*.py) are not in $peers"; exit 1; }
py=${PYTHON:-python3}
exe=${BENCH_EXE:-$(command -v pointraster_bench || echo "$root/build-bench/bin/pointraster_bench")}
if [ ! -x "$exe" ]; then  # not packed for the GPU machine: build it here
  BUILD_ONLY=1 "$root/bench/run_bench.sh" > /dev/null || exit 1
  exe=$root/build-bench/bin/pointraster_bench
fi
[ -z "${DISPLAY:-}" ] && export SDL_VIDEODRIVER=${SDL_VIDEODRIVER:-offscreen}
export PYTHONUNBUFFERED=1
peers_txt=$out/peers.txt
: > "$peers_txt"
echo "== machine"
nproc; grep -m1 'model name' /proc/cpuinfo
command -v nvidia-smi > /dev/null &&
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader

# One peer run: N points, LOOPS calls; the script prints the total seconds of its timed loop.
peer() {
  local name=$1 script=$2 n=$3 loops=$4 log secs
  log=${PEER_LOGS:-$out}/peer_${name}_$n.log
  if ! N=$n LOOPS=$loops timeout "${PEER_TIMEOUT:-120}" "$py" "$peers/$script" > "$log" 2>&1; then
    echo "peer $name N=$n: failed: $(tail -1 "$log")"
    return
  fi
  secs=$(sed -n 's/^--- \([0-9.e-]*\) seconds ---$/\1/p' "$log" | tail -1)
  awk -v s="$secs" -v l="$loops" -v n="$n" -v name="$name" \
    'BEGIN { printf "peer %-6s %11d points: %10.4f ms a call (%d calls)\n", name, n, s * 1000 / l, l }'
  echo "$name $n $loops $secs" >> "$peers_txt"
}
q=${QUICK:-0}
echo "== the peers ($peers, $("$py" --version 2>&1))"
peer numpy seed_numpy.py 100000 $([ "$q" = 1 ] && echo 100 || echo 1000)
peer numpy seed_numpy.py 1000000 $([ "$q" = 1 ] && echo 10 || echo 50)
peer numpy seed_numpy.py 10000000 $([ "$q" = 1 ] && echo 2 || echo 5)
if "$py" -c "import cupy; cupy.cuda.runtime.getDeviceCount()" > /dev/null 2>&1; then
  # The script as a user first runs it (its default 1000 calls): the timed loop includes CuPy's
  # kernel compilation (cold cache) and cuBLAS start-up. Then, warmed up, 5000 calls at its own
  # size: the steady cost of a call.
  peer cupy_cold seed_cupy.py 100000 1000
  N=1000 LOOPS=10 timeout 120 "$py" "$peers/seed_cupy.py" > /dev/null 2>&1
  peer cupy seed_cupy.py 100000 5000
  peer cupy seed_cupy.py 1000000 1000
  peer cupy seed_cupy.py 10000000 300
else
  echo "peer cupy: skipped (no CuPy or no GPU here)"
fi
if "$py" -c "from numba import cuda; assert cuda.is_available()" > /dev/null 2>&1; then
  peer numba seed_numba.py 100000 200
  peer numba seed_numba.py 10000000 5
else
  echo "peer numba: skipped (no numba-cuda or no GPU here)"
fi

echo "== pointraster_bench"
rc=0
t=${BENCH_TIMEOUT:-0}
timeout "$t" "$exe" --points "${POINTS:-1e5,1e6,1e7,1e8}" --frames "${FRAMES:-30}" --budget "${BUDGET:-1.5}" \
  --json-out "$out/bench.json" ${BENCH_ARGS:-} || rc=$?
if [ "${BILLION:-0}" = 1 ]; then
  echo "== pointraster_bench, one billion points"
  timeout "$t" "$exe" --points 1e9 --frames 10 --budget 2 --json-out "$out/bench_1e9.json" ${BENCH_ARGS:-} || rc=$?
fi
if [ -n "${NOSORT_POINTS:-}" ]; then
  echo "== GPU without the renderer's upload-time Morton sort (gpu+nosort), random order"
  timeout "$t" "$exe" --renderers gpu --points "$NOSORT_POINTS" --orders random \
    --gpu-modes nosort --frames 20 --budget 1 --json-out "$out/bench_nosort.json" || rc=$?
fi
if [ -n "${MODES_POINTS:-}" ]; then
  echo "== GPU storage modes (default, nosort, compact, compact+nosort), each checked against the CPU"
  timeout "$t" "$exe" --renderers gpu --points "$MODES_POINTS" --orders "${MODES_ORDERS:-random}" \
    --gpu-modes "${GPU_MODES:-default,nosort,compact,compact+nosort}" --frames 20 --budget 1 \
    --json-out "$out/bench_modes.json" || rc=$?
fi
if [ "${RESOLUTIONS:-1}" = 1 ]; then
  echo "== cost against resolution (GPU and CPU, ${RES_POINTS:-1e7} points, random order)"
  timeout "$t" "$exe" --renderers gpu,cpu --points "${RES_POINTS:-1e7}" --orders random \
    --cameras overview,inside --sizes 640x360,1280x720,1920x1080,3840x2160 --frames 20 --budget 1 \
    --json-out "$out/bench_res.json" || rc=$?
fi
echo "== ratios"
"$py" "$root/bench/compare.py" "$peers_txt" "$out"/bench*.json | tee "$out/ratios.txt"
exit $rc
