#!/bin/bash
# Two or more builds measured against each other on the GPU machine in one call, interleaved so
# that the machine's drift falls on every build alike: for each round, each build in turn runs
# pointraster_bench's GPU rows (the cube at 1e6 - 1e8 in Morton and random order, overview and
# inside, default / compact / EDL / HQ; 1e9 in Morton order, default / compact / HQ) and the
# headless terrain of 1e9 points at 1920x1080 (plain, EDL, HQ, compact; `render_ms`, the median of
# 30 frames). docs/PERFORMANCE.md's tables come from these commands.
#   (here)  bench/bundle.sh K build/bin/pointraster build/bin/pointraster_bench
#           mkdir K/bin-base; cp <the other build's>/bin/{pointraster,pointraster_bench} K/bin-base/
#           cp bench/gpu/run_ab_device.sh K/
#   (run)   source K/env.sh; bash K/run_ab_device.sh           carry ["K"]
#   (here)  bench/gpu/ab_compare.py ab.log...                  the table of both builds, as ratios
# Environment: ROUNDS (2), PARTS ("small big terrain": any of them), L (seconds the whole run
# may take, 560: a step that would start later is skipped and says so). Logs go to $OUT.
D=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/out}
mkdir -p "$out"
exec > >(tee -a "$out/ab.log") 2>&1
limit=${L:-560}
builds=("$D/bin")
for b in "$D"/bin-*; do [ -d "$b" ] && builds+=("$b"); done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

# Runs "$@" when `need` seconds are left of the limit, else says it is skipped.
step() {
  local need=$1
  shift
  if [ $((SECONDS + need)) -gt "$limit" ]; then
    echo "skipped (time): $*"
    return
  fi
  "$@"
}

small() {
  timeout 200 "$1/pointraster_bench" --renderers gpu --points 1e6,1e7,1e8 --orders morton,random \
    --cameras overview,inside --gpu-modes default,compact,edl,hq --frames 30 --budget 0.3 \
    --cpu-max 1e8 2>&1 | grep -E "^gpu|FAIL|error"
}

big() {
  timeout 200 "$1/pointraster_bench" --renderers gpu --points 1e9 --orders morton \
    --cameras overview,inside --gpu-modes default,compact,hq --frames 20 --budget 0.5 \
    --cpu-max 1e7 2>&1 | grep -E "^gpu|FAIL|error"
}

terrain() {
  local bin=$1 c
  for c in plain edl hq compact; do
    local args=(--frames 30)
    case $c in
      edl) args+=(--edl 1) ;;
      hq) args+=(--hq) ;;
      compact) args+=(--compact) ;;
    esac
    echo "-- terrain 1e9 $c"
    timeout 120 "$bin/pointraster" --headless --mode gpu --scene terrain --points 1e9 \
      --width 1920 --height 1080 "${args[@]}" 2>&1 | grep -E "^summary|error"
  done
}

for round in $(seq "${ROUNDS:-2}"); do
  for bin in "${builds[@]}"; do
    for part in ${PARTS:-small big terrain}; do
      echo "== $(basename "$bin"), round $round, $part ($SECONDS s in)"
      case $part in
        small) step 150 small "$bin" ;;
        big) step 120 big "$bin" ;;
        terrain) step 100 terrain "$bin" ;;
      esac
    done
  done
done
echo "== done ($SECONDS s)"
