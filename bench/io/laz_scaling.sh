#!/bin/bash
# How LAZ loading scales with cores on one machine: ours (`pointraster --info`'s load time, which
# decodes a plain LAZ file whole; a COPC file it describes from its header alone) and
# laspy + lazrs' parallel decoder, each pinned with taskset to the first 1, 2, 4, ... cores,
# best of 3 runs, on each FILE. PYTHON needs numpy, laspy and lazrs.
#   laz_scaling.sh POINTRASTER PYTHON FILE...
# Prints a Markdown row a file and core count: cores, ours and lazrs-parallel in M points/s.
set -euo pipefail
pr=$1 py=$2
shift 2
cores=$(nproc)
echo "| file | cores | ours M points/s | laspy+lazrs parallel | ours / lazrs |"
echo "|---|---|---|---|---|"
for f in "$@"; do
  n=1
  while [ "$n" -le "$cores" ]; do
    set_=0-$((n - 1))
    ours=$(for _ in 1 2 3; do taskset -c "$set_" "$pr" --info "$f" | awk '$1 == "points" {p = $2} /load time/ {print p / $3 / 1e6}'; done | sort -g | tail -1)
    lazrs=$(taskset -c "$set_" "$py" -c '
import sys, time, laspy
best = 1e30
for _ in range(3):
    t = time.perf_counter()
    n = len(laspy.read(sys.argv[1], laz_backend=laspy.LazBackend.LazrsParallel).points)
    best = min(best, time.perf_counter() - t)
print(n / best / 1e6)' "$f")
    awk -v f="$(basename "$f")" -v n="$n" -v a="$ours" -v b="$lazrs" \
      'BEGIN {printf "| %s | %d | %.1f | %.1f | %.2f |\n", f, n, a, b, a / b}'
    n=$((n * 2))
  done
done
