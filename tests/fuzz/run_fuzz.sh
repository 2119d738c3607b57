#!/usr/bin/env bash
# Builds one libFuzzer target per reader with clang (-fsanitize=fuzzer,address,undefined) and runs
# each for a bounded time, seeded with ../shared/testdata (required under CI, CI=true) and the kept
# regressions.
#   tests/fuzz/run_fuzz.sh [seconds per target (15)] [build dir (build-fuzz)]
# Exits non-zero if any target crashes; the crashing input is copied to
# tests/fuzz/regressions/<target>/ (replayed by engine_tests IoFuzzRegressions).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
secs="${1:-15}"
out="${2:-$root/build-fuzz}"
data="$root/../shared/testdata"
cxx="${CXX_FUZZ:-clang++}"
if [[ ! -d "$data" && "${CI:-}" == "true" ]]; then
  echo "run_fuzz.sh: test data $data absent under CI (CI=true)" >&2
  exit 1
fi
mkdir -p "$out"
srcs=("$root"/engine/io/src/*.cpp "$root/engine/src/point_cloud.cpp" "$root/engine/src/parallel.cpp")
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -I"$root/engine/include" -I"$root/engine/io/include" -I"$root/engine/io/src" -pthread)
# target name : FileFormat enumerator : file name given to the reader : seed folders
#   [: at most this many seconds whatever the argument says (fuzz_laz: 12, so that with its link
#   it adds about 15 s to the test command)]
targets=("ply:kPly:fuzz.ply:ply" "las:kLas:fuzz.las:las laz" "pcd:kPcd:fuzz.pcd:pcd"
         "pts:kPts:fuzz.pts:pts" "xyz:kXyz:fuzz.xyz:text" "e57:kE57:fuzz.e57:e57"
         "laz:kLaz:fuzz.laz:laz:12" "detect:kUnknown:fuzz.bin:ply las pcd pts text e57 laz")
# The engine's sources are compiled once into objects shared by all targets; a changed header
# rebuilds them all (objects of different struct layouts would fail as false crashes).
newest_h=$(ls -t "$root"/engine/include/engine/*.h "$root"/engine/io/include/engine/io/*.h "$root"/engine/io/src/*.h | head -1)
objs=()
for s in "${srcs[@]}"; do
  o="$out/$(basename "${s%.cpp}").o"
  if [[ ! -f "$o" || "$s" -nt "$o" || "$newest_h" -nt "$o" ]]; then
    "$cxx" "${flags[@]/-fsanitize=fuzzer,/-fsanitize=fuzzer-no-link,}" -c "$s" -o "$o"
  fi
  objs+=("$o")
done
failed=0
for t in "${targets[@]}"; do
  IFS=: read -r name fmt fname seeds cap <<<"$t"
  t_secs=$secs
  [[ -n "$cap" && "$cap" -lt "$secs" ]] && t_secs=$cap
  bin="$out/fuzz_$name"
  "$cxx" "${flags[@]}" -DPR_FUZZ_FORMAT="$fmt" -DPR_FUZZ_NAME="\"$fname\"" \
    "$here/fuzz_reader.cpp" "${objs[@]}" -lpugixml -o "$bin"
  corpus="$out/corpus_$name"
  mkdir -p "$corpus" "$out/crash_$name"
  for d in $seeds; do
    [[ -d "$data/$d" ]] && cp -f "$data/$d"/* "$corpus/" 2>/dev/null || true
  done
  [[ -d "$here/regressions/$name" ]] && cp -f "$here/regressions/$name"/* "$corpus/" 2>/dev/null || true
  echo "== fuzz_$name: ${t_secs}s"
  if ! "$bin" "$corpus" -max_total_time="$t_secs" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
        -artifact_prefix="$out/crash_$name/" -print_final_stats=0 >"$out/log_$name.txt" 2>&1; then
    echo "fuzz_$name FAILED (log: $out/log_$name.txt)"
    tail -30 "$out/log_$name.txt"
    mkdir -p "$here/regressions/$name"
    cp -f "$out/crash_$name"/* "$here/regressions/$name/" 2>/dev/null || true
    failed=1
  else
    grep -E "^Done|#[0-9]+.*DONE" "$out/log_$name.txt" | tail -1 || true
  fi
done
exit $failed
