#!/bin/bash
# The billion-point interactivity table on the GPU machine in one call: the terrain of 1e9 points
# at 1920x1080 drawn plain, with eye-dome lighting and with high-quality splats (`render_ms`, the
# median of 30 frames), a pick (`pick_ms`) and the color-mode switches (color_switch_bench), for
# one build (K/bin) or more (K/bin, then each K/bin-*) in turn, twice, so that a change is
# measured against the build before it in the same run (docs/PERFORMANCE.md):
#   (here)  bench/bundle.sh K build/bin/pointraster build/bin/color_switch_bench
#           [mkdir K/bin-b; cp another build's pointraster (and color_switch_bench) into K/bin-b]
#           cp bench/gpu/run_interactive_device.sh K/
#   (run)   source K/env.sh; bash K/run_interactive_device.sh        carry ["K"]
# About 8 minutes for two builds (ROUNDS=1: half; CASES="hq pick": those rows alone); each step
# has a time limit. Logs go to $OUT.
D=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/out}
mkdir -p "$out"
exec > >(tee -a "$out/interactive.log") 2>&1
builds=("$D/bin")
for b in "$D"/bin-*; do [ -d "$b" ] && builds+=("$b"); done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

# One headless run of `pointraster` from build $1 with the arguments after it.
frames() {
  local bin=$1
  shift
  timeout 120 "$bin/pointraster" --headless --mode gpu --scene terrain --points 1e9 \
    --width 1920 --height 1080 "$@" 2>&1 | grep -E "^summary|^pick|error"
}

for round in $(seq "${ROUNDS:-2}"); do
  for bin in "${builds[@]}"; do
    echo "== $(basename "$bin"), round $round"
    for c in ${CASES:-plain edl hq pick}; do
      echo "-- terrain 1e9 $c"
      case $c in
        plain) frames "$bin" --frames 30 ;;
        edl) frames "$bin" --frames 30 --edl 1 ;;
        hq) frames "$bin" --frames 30 --hq ;;
        pick) frames "$bin" --frames 2 --pick 960,540 ;;
      esac
    done
  done
done
for bin in "${builds[@]}"; do
  [ -x "$bin/color_switch_bench" ] || continue  # a build packed without it
  echo "== $(basename "$bin"): color switches at 1e9"
  timeout 200 "$bin/color_switch_bench" --points 1e9 2>&1 | grep -vE "^\s*$" | tail -20
done
