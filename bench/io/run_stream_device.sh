#!/bin/bash
# The streaming tables of docs/STREAMING.md on the GPU machine: a 4e8-point terrain survey
# written as COPC by the program itself, then, for each point budget, the time to the first
# image and to converge (headless, 1920x1080, GPU) and a flight at 60 fps (stream_fly_bench),
# each binary directory given run side by side (interleaved), so that two builds compare in one
# run. Not a test: run it where the GPU is.
#   bench/io/run_stream_device.sh DIR=LABEL... (each DIR holds pointraster and stream_fly_bench)
# Environment: POINTS (4e8), BUDGETS ("1e7 1e8 3e8"), FLY_BUDGETS (1e7,1e8), RUNS (3),
# FRAMES (600), WORK (/tmp/stream-bench: the survey is kept there between runs).
set -uo pipefail
work=${WORK:-/tmp/stream-bench}
mkdir -p "$work"
survey="$work/terrain-${POINTS:-4e8}.copc.laz"
first=${1%%=*}
if [ ! -s "$survey" ]; then
  start=$(date +%s.%N)
  "$first/pointraster" --convert "$survey" --scene terrain --points "${POINTS:-4e8}" \
    --threads "$(nproc)" > "$work/convert.log" 2>&1 || { cat "$work/convert.log"; exit 1; }
  echo "survey: $(du -h "$survey" | cut -f1) written in $(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }") s"
fi
"$first/pointraster" --info "$survey" | head -12
for budget in ${BUDGETS:-1e7 1e8 3e8}; do
  for run in $(seq "${RUNS:-3}"); do
    for arg in "$@"; do
      dir=${arg%%=*}
      label=${arg#*=}
      line=$("$dir/pointraster" --headless --mode gpu --width 1920 --height 1080 --frames 1 \
        --point-budget "$budget" "$survey" 2>&1 | grep '^summary')
      echo "first-image budget=$budget run=$run build=$label $(echo "$line" |
        grep -oE '(first_image_ms|converged_ms|lod_nodes|lod_points)=[0-9.]*' | tr '\n' ' ')"
    done
  done
done
for arg in "$@"; do
  dir=${arg%%=*}
  label=${arg#*=}
  echo "flight build=$label"
  "$dir/stream_fly_bench" --mode gpu --budgets "${FLY_BUDGETS:-1e7,1e8}" --fps 60 \
    --frames "${FRAMES:-600}" "$survey"
done
