#!/usr/bin/env bash
# Builds one libFuzzer target per reader (and one for the COPC hierarchy and VLR parser, one for
# EPT datasets) with clang (-fsanitize=fuzzer,address,undefined) and runs each for a bounded time,
# seeded with tests/data and the kept regressions.
#   tests/fuzz/run_fuzz.sh [seconds per target (15)] [build dir (build-fuzz)] [targets (all), e.g. copc,laz]
# Exits non-zero if any target crashes; the crashing input is copied to
# tests/fuzz/regressions/<target>/ (replayed by io_tests IoFuzzRegressions); compiles and runs go as many at a time as there are cores.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
secs="${1:-15}"
out="${2:-$root/build-fuzz}"
only="${3:-}"
data="$root/tests/data"
cxx="${CXX_FUZZ:-clang++}"
for d in ply las pcd pts text e57 laz ept; do
  if [[ ! -d "$data/$d" ]]; then
    echo "run_fuzz.sh: test data $data/$d is absent: tests/data belongs to the checkout" >&2
    exit 1
  fi
done
mkdir -p "$out"
# Every room of io (engine/io/<room>/src) with its public and private headers; the private
# headers' names differ from room to room, so one include path holds them all.
srcs=("$root"/engine/io/*/src/*.cpp "$root/engine/src/point_cloud.cpp" "$root/engine/src/parallel.cpp")
incs=(-I"$root/engine/include" -I"$root/engine/io/include")
for room in "$root"/engine/io/*/; do incs+=(-I"${room}include" -I"${room}src"); done
flags=(-std=c++20 -O1 -g1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       "${incs[@]}" -pthread)
# target name : FileFormat enumerator : file name given to the reader : seed folders
#   [: at most this many seconds whatever the argument says (fuzz_laz: 12, so that with its link
#   it adds about 15 s to the test command)]
# A target whose enumerator is "-" has a source of its own, fuzz_<name>.cpp (copc: CopcFile and
# parse_copc_page; its seeds are the COPC files among laz/, the small ones whole under -max_len;
# laz_encode: the input as point records through the LAZ chunk encoders and back; ept: an EPT
# dataset in memory, its seeds the test data's ept.json files).
targets=("ply:kPly:fuzz.ply:ply" "las:kLas:fuzz.las:las laz" "pcd:kPcd:fuzz.pcd:pcd"
         "pts:kPts:fuzz.pts:pts" "xyz:kXyz:fuzz.xyz:text" "e57:kE57:fuzz.e57:e57"
         "laz:kLaz:fuzz.laz:laz:12" "detect:kUnknown:fuzz.bin:ply las pcd pts text e57 laz"
         "copc:-:fuzz.copc.laz:laz" "laz_encode:-:-:las" "ept:-:-:ept")
# The engine's sources are compiled once into objects shared by all targets; a changed header
# rebuilds them all (objects of different struct layouts would fail as false crashes).
newest_h=$(find "$root/engine/include" "$root/engine/io" -name "*.h" -printf "%T@ %p\n" | sort -n | tail -1 | cut -d" " -f2-)
# Compiles and fuzzing run as many at a time as there are cores (libFuzzer uses one core a run).
jobs=$(nproc 2>/dev/null || echo 2)
throttle() { while [[ $(jobs -rp | wc -l) -ge $jobs ]]; do wait -n || true; done; }
objs=()
for s in "${srcs[@]}"; do
  o="$out/$(basename "${s%.cpp}").o"
  if [[ ! -f "$o" || "$s" -nt "$o" || "$newest_h" -nt "$o" ]]; then
    throttle
    rm -f "$o"
    "$cxx" "${flags[@]/-fsanitize=fuzzer,/-fsanitize=fuzzer-no-link,}" -c "$s" -o "$o" &
  fi
  objs+=("$o")
done
wait
for o in "${objs[@]}"; do
  [[ -f "$o" ]] || { echo "run_fuzz.sh: compiling $(basename "${o%.o}").cpp failed" >&2; exit 1; }
done

# One target: link, seed its corpus, fuzz for its seconds; the outcome goes to $out/result_<name>.
fuzz_one() {
  local name=$1 fmt=$2 fname=$3 seeds=$4 t_secs=$5
  local bin="$out/fuzz_$name" corpus="$out/corpus_$name" log="$out/log_$name.txt"
  local main=("$here/fuzz_reader.cpp" -DPR_FUZZ_FORMAT="$fmt" -DPR_FUZZ_NAME="\"$fname\"")
  [[ "$fmt" == "-" ]] && main=("$here/fuzz_$name.cpp")
  # libcurl: the io sources include the http(s) byte source; libzstd: EPT's zstandard nodes.
  if ! "$cxx" "${flags[@]}" "${main[@]}" "${objs[@]}" -lpugixml -lcurl -lzstd -o "$bin" >"$log" 2>&1; then
    echo link >"$out/result_$name"
    return
  fi
  mkdir -p "$corpus" "$out/crash_$name"
  for d in $seeds; do
    if [[ "$d" == ept ]]; then
      # The descriptions of the EPT datasets (each dataset's files share their names).
      for j in $(find "$data/ept" -name ept.json); do cp -f "$j" "$corpus/$(echo "${j#$data/}" | tr / _)"; done
    else
      cp -f "$data/$d"/* "$corpus/"
    fi
  done
  [[ -d "$here/regressions/$name" ]] && cp -f "$here/regressions/$name"/* "$corpus/" 2>/dev/null || true
  if "$bin" "$corpus" -max_total_time="$t_secs" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
       -artifact_prefix="$out/crash_$name/" -print_final_stats=0 >"$log" 2>&1; then
    echo ok >"$out/result_$name"
  else
    echo crash >"$out/result_$name"
  fi
}

names=()
for t in "${targets[@]}"; do
  IFS=: read -r name fmt fname seeds cap <<<"$t"
  [[ -n "$only" && ",$only," != *",$name,"* ]] && continue
  t_secs=$secs
  [[ -n "$cap" && "$cap" -lt "$secs" ]] && t_secs=$cap
  rm -f "$out/result_$name"
  throttle
  fuzz_one "$name" "$fmt" "$fname" "$seeds" "$t_secs" &
  names+=("$name:$t_secs")
done
wait

failed=0
for nt in "${names[@]}"; do
  IFS=: read -r name t_secs <<<"$nt"
  log="$out/log_$name.txt"
  echo "== fuzz_$name: ${t_secs}s"
  case "$(cat "$out/result_$name" 2>/dev/null)" in
    ok) grep -E "^Done|#[0-9]+.*DONE" "$log" | tail -1 || true ;;
    link)
      echo "fuzz_$name: link FAILED"
      tail -30 "$log"
      failed=1
      ;;
    *)
      echo "fuzz_$name FAILED (log: $log)"
      tail -30 "$log"
      mkdir -p "$here/regressions/$name"
      cp -f "$out/crash_$name"/* "$here/regressions/$name/" 2>/dev/null || true
      failed=1
      ;;
  esac
done
exit $failed
