#!/usr/bin/env bash
# Command-line contract of `pointraster` (the real binary): options, exit codes, the summary line,
# the PNG, and --mode gpu without a usable GPU.
#   cli_test.sh PATH/TO/pointraster
# (the PNG is checked by its signature and the size in its IHDR chunk, read with od)
set -uo pipefail
bin=${1:?usage: cli_test.sh POINTRASTER}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() {  # check NAME CONDITION-EXIT-CODE
  if [ "$2" -ne 0 ]; then echo "FAIL: $1"; fail=1; else echo "ok: $1"; fi
}

"$bin" --help >"$tmp/help" 2>&1; rc=$?
check "--help exits 0" $((rc != 0))
for opt in --headless --mode --width --height --scene --points --camera --focus --projection --view \
  --frames --screenshot --compact --culling --occlusion --sort --binning --gpu-memory-limit \
  --tile --tile-memory; do
  grep -q -- "$opt" "$tmp/help"; check "--help lists $opt" $?
done

expect_usage_error() {  # args... : exit code 2 and a one-line message naming the problem
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  check "bad: $* -> exit 2 (got $rc)" $((rc != 2))
  check "bad: $* -> one line on stderr" $(( $(wc -l <"$tmp/err") != 1 ))
}
expect_usage_error --bogus
expect_usage_error --headless --width abc
expect_usage_error --headless --width 0
expect_usage_error --headless --mode tpu
expect_usage_error --headless --scene nowhere
expect_usage_error --headless --camera 1,2,3
expect_usage_error --headless --camera 1,2,3,4,x
expect_usage_error --headless --points -5
expect_usage_error --headless --focus 0
expect_usage_error --headless --frames
expect_usage_error --json
expect_usage_error --headless --up x
expect_usage_error --headless --projection fisheye
expect_usage_error --headless --view sideways
expect_usage_error --ui-scale 9
expect_usage_error --ui-scale abc
expect_usage_error --headless --compact=1
expect_usage_error --headless --occlusion maybe
expect_usage_error --headless --occlusion
expect_usage_error --headless --culling auto
expect_usage_error --headless --culling yes
expect_usage_error --headless --sort sideways
expect_usage_error --headless --binning 2
expect_usage_error --headless --gpu-memory-limit 10X
expect_usage_error --headless --gpu-memory-limit 0
expect_usage_error --headless --gpu-memory-limit -1G
expect_usage_error --headless --gpu-memory-limit
# The message names the option and the value.
"$bin" --headless --occlusion maybe >/dev/null 2>"$tmp/err"
grep -q -- "--occlusion.*maybe" "$tmp/err"; check "bad --occlusion named: $(cat "$tmp/err")" $?
"$bin" --headless --gpu-memory-limit 10X >/dev/null 2>"$tmp/err"
grep -q -- "--gpu-memory-limit.*10X" "$tmp/err"; check "bad --gpu-memory-limit named: $(cat "$tmp/err")" $?

# Headless CPU render: frame times, summary as the last line, a PNG of the requested size.
"$bin" --headless --mode cpu --width 320 --height 200 --scene cube --points 20000 --frames 3 \
  --screenshot "$tmp/cube.png" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "headless cpu exits 0" $rc
last=$(tail -n 1 "$tmp/out")
[[ "$last" =~ ^summary\ mode=cpu\ points=20000\ width=320\ height=200\ frames=3\ median_ms=[0-9.]+\ min_ms=[0-9.]+\ render_ms=[0-9.]+$ ]]
check "summary line: $last" $?
check "frame lines name the render time" $(( $(grep -c '^frame [0-9]*: [0-9.]* ms (render [0-9.]*' "$tmp/out") != 3 ))
check "three frame lines" $(( $(grep -c '^frame ' "$tmp/out") != 3 ))
# PNG signature and IHDR size (bytes 16..23: width, height big-endian).
sig=$(head -c 8 "$tmp/cube.png" | od -An -tx1 | tr -d ' \n')
check "PNG signature" $([ "$sig" = "89504e470d0a1a0a" ]; echo $?)
dims=$(od -An -tu1 -j16 -N8 "$tmp/cube.png" | tr -s ' ' | sed 's/^ //')
check "PNG is 320x200 ($dims)" $([ "$dims" = "0 0 1 64 0 0 0 200" ]; echo $?)

# --compact: the same frame from positions quantized to 4 bytes (the CPU renderer's compact mode):
# said in the output, and an image that differs from the full-precision one (points move by up to
# half a step of their batch's box, about a pixel here).
"$bin" --headless --mode cpu --compact --width 320 --height 200 --scene cube --points 20000 \
  --frames 1 --screenshot "$tmp/compact.png" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "headless --compact exits 0" $rc
grep -q '^positions: compact' "$tmp/out"; check "--compact named in the output" $?
grep -q '^summary mode=cpu points=20000 width=320 height=200 frames=1 ' "$tmp/out"
check "summary with --compact" $?
cmp -s "$tmp/cube.png" "$tmp/compact.png"; same=$?
check "the compact image differs from the full-precision one" $((same == 0))

# The renderer options change the speed, never the image: the same PNG with every one of them.
"$bin" --headless --mode cpu --width 320 --height 200 --scene cube --points 20000 --frames 3 \
  --culling off --occlusion on --sort on --binning on --gpu-memory-limit 64M \
  --screenshot "$tmp/options.png" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "headless with --culling/--occlusion/--sort/--binning/--gpu-memory-limit exits 0" $rc
cmp -s "$tmp/cube.png" "$tmp/options.png"; check "the same image with the renderer options" $?
for v in auto on off 1 0; do
  "$bin" --headless --width 64 --height 48 --points 5k --frames 1 --occlusion $v --sort $v \
    --binning $v >"$tmp/out" 2>&1; check "--occlusion/--sort/--binning $v accepted" $?
done
"$bin" --headless --width 64 --height 48 --points 5k --frames 1 --occlusion=off --culling=on \
  --gpu-memory-limit=2G >"$tmp/out" 2>&1; check "--option=value forms of the new options" $?

# Default scene with a camera and focus override.
"$bin" --headless --width 64 --height 48 --points 10k --camera 0,100,-600,10,-10 --focus 2 \
  --frames 1 >"$tmp/out" 2>&1; rc=$?
check "headless default scene with --camera/--focus" $rc
grep -q '^summary mode=cpu points=10000 width=64 height=48 frames=1 ' "$tmp/out"
check "summary for the default scene" $?

# --mode gpu: renders where a GPU is usable, else exits non-zero with a one-line reason.
"$bin" --headless --mode gpu --width 64 --height 48 --points 10k --frames 1 >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 0 ]; then
  grep -q '^summary mode=gpu ' "$tmp/out"; check "gpu available: summary mode=gpu" $?
  grep -q '^summary mode=gpu .* render_ms=[0-9.]*$' "$tmp/out"; check "gpu summary has render_ms" $?
  # The GPU draws the CPU's images pixel for pixel: the same PNG files, full precision and compact.
  for c in "" --compact; do
    "$bin" --headless --mode gpu $c --width 320 --height 200 --scene cube --points 20000 \
      --frames 1 --screenshot "$tmp/gpu$c.png" >"$tmp/out" 2>&1; check "gpu $c exits 0" $?
    cmp -s "$tmp/gpu$c.png" "$tmp/$([ -n "$c" ] && echo compact || echo cube).png"
    check "gpu $c image equals the cpu's" $?
  done
  # A cloud over --gpu-memory-limit is refused with the limit named (exit 1, one line).
  "$bin" --headless --mode gpu --width 64 --height 48 --scene cube --points 1M --frames 1 \
    --gpu-memory-limit 1M >"$tmp/out" 2>"$tmp/err"; rc=$?
  check "gpu over --gpu-memory-limit -> exit 1 (got $rc)" $((rc != 1))
  grep -q "over the limit" "$tmp/err"; check "the limit named: $(cat "$tmp/err")" $?
else
  check "no gpu: one-line reason ($(cat "$tmp/err"))" $(( $(wc -l <"$tmp/err") != 1 ))
  grep -q 'gpu' "$tmp/err"; check "no gpu: the reason names the mode" $?
fi

# Color modes: --color and --colormap, their bad values, the line saying what was applied.
for opt in --color --colormap; do
  grep -q -- "$opt" "$tmp/help"; check "--help lists $opt" $?
done
expect_usage_error --headless --colormap jet
expect_usage_error --headless --colormap
expect_usage_error --headless --color ""
expect_usage_error --headless --scene cube --points 1000 --frames 1 --color nosuch
expect_usage_error --headless --scene cube --points 1000 --frames 1 --color classification
"$bin" --headless --colormap jet >/dev/null 2>"$tmp/err"
grep -q -- "--colormap.*jet" "$tmp/err"; check "bad --colormap named: $(cat "$tmp/err")" $?
"$bin" --headless --scene cube --points 1000 --frames 1 --color nosuch >/dev/null 2>"$tmp/err"
grep -q -- "--color nosuch.*no field 'nosuch'" "$tmp/err"; check "unknown field named: $(cat "$tmp/err")" $?
"$bin" --headless --scene cube --points 20000 --frames 1 >"$tmp/out" 2>&1
grep -q "^colors: rgb " "$tmp/out"; check "a colored scene defaults to rgb" $?
"$bin" --headless --scene cube --points 20000 --frames 1 --color elevation --colormap turbo \
  --screenshot "$tmp/elev.png" >"$tmp/out" 2>&1; rc=$?
check "--color elevation --colormap turbo exits 0" $rc
grep -q "^colors: elevation, colormap turbo " "$tmp/out"; check "elevation with turbo applied" $?
las="$(cd "$(dirname "$0")/.." && pwd)/data/las/autzen_trim.las"
if [ -f "$las" ]; then
  for mode in classification intensity return source elevation; do
    "$bin" --headless --width 160 --height 120 --frames 1 --color $mode "$las" >"$tmp/out" 2>&1
    rc=$?
    check "autzen --color $mode exits 0 (got $rc)" $rc
    grep -q "^colors: $mode" "$tmp/out"; check "autzen shows $mode" $?
  done
  "$bin" --headless --frames 1 --color gray "$las" >/dev/null 2>"$tmp/err"; rc=$?
  check "autzen --color gray (no such field) -> exit 2 (got $rc)" $((rc != 2))
  # --info --json: one JSON object a line, read back by Python's json module.
  "$bin" --info --json "$las" "$tmp/missing.las" >"$tmp/out" 2>"$tmp/err"; rc=$?
  check "--info --json with a missing file -> exit 1 (got $rc)" $((rc != 1))
  python3 -c 'import json, sys
a, b = [json.loads(l) for l in open(sys.argv[1])]
assert a["points"] == 110000 and a["format"] == "LAS" and a["origin"] == [636594, 849215, 460], a
assert "error" in b and b["file"].endswith("missing.las"), b' "$tmp/out"
  check "--info --json lines parse: $(head -c 200 "$tmp/out")" $?
else
  check "test data $las is absent: tests/data belongs to the checkout" 1
fi

# Eye-dome lighting and picking.
expect_usage_error --headless --edl -1
expect_usage_error --headless --edl=abc
expect_usage_error --headless --pick 3
expect_usage_error --headless --pick -1,2
cube=(--headless --frames 1 --scene cube --points 100k --width 320 --height 200)
"$bin" "${cube[@]}" --screenshot "$tmp/plain.png" >/dev/null 2>&1
"$bin" "${cube[@]}" --edl --screenshot "$tmp/edl.png" >"$tmp/out" 2>&1; rc=$?
check "--edl without a strength runs (got $rc)" $rc
"$bin" "${cube[@]}" --edl 2.5 --screenshot "$tmp/edl25.png" >"$tmp/out" 2>&1; rc=$?
check "--edl 2.5 runs (got $rc)" $rc
! cmp -s "$tmp/plain.png" "$tmp/edl.png"; check "--edl changes the image" $?
! cmp -s "$tmp/edl.png" "$tmp/edl25.png"; check "--edl strength changes the image" $?
expect_usage_error --headless --hq=1
expect_usage_error --headless --hq=true
terrain=(--headless --frames 1 --scene terrain --points 100k --width 320 --height 200)
"$bin" "${terrain[@]}" --point-size 2 --screenshot "$tmp/plain2.png" >/dev/null 2>&1
"$bin" "${terrain[@]}" --point-size 2 --hq --screenshot "$tmp/hq.png" >"$tmp/out" 2>&1; rc=$?
check "--hq runs (got $rc)" $rc
! cmp -s "$tmp/plain2.png" "$tmp/hq.png"; check "--hq changes the image" $?
printf '1.5 2.5 3.5\n1.5 2.5 9\n' >"$tmp/two.xyz"
"$bin" --headless --frames 1 --width 320 --height 200 --up y --camera 1.5,2.5,0,0,0 --focus 2 \
  --pick 160,100 "$tmp/two.xyz" >"$tmp/out" 2>&1; rc=$?
check "--pick runs (got $rc)" $rc
grep -qx "pick x=1.500000 y=2.500000 z=3.500000 intensity=none class=none index=0" "$tmp/out"
check "--pick names the nearer of two points on the pixel" $?
"$bin" --headless --frames 1 --width 320 --height 200 --up y --camera 1.5,2.5,0,0,0 --focus 2 \
  --pick 10,10 "$tmp/two.xyz" >"$tmp/out" 2>&1
grep -qx "pick none" "$tmp/out"; check "--pick on an empty pixel: pick none" $?

# An orthographic top view: the two points of two.xyz on one vertical line (z up) land on the
# centre pixel, and the pick there names the upper one; an orthographic front view sees them
# one above the other, at the edges of the image's middle 90% (pixel rows 10 and 190; points of
# size 3, so that rounding at those edges does not matter).
ortho=(--headless --frames 1 --width 320 --height 200 --point-size 3 --projection ortho)
"$bin" "${ortho[@]}" --view top --pick 160,100 "$tmp/two.xyz" >"$tmp/out" 2>&1; rc=$?
check "--projection ortho --view top runs (got $rc)" $rc
grep -qx "pick x=1.500000 y=2.500000 z=9.000000 intensity=none class=none index=1" "$tmp/out"
check "ortho top view: the pick names the upper point" $?
"$bin" "${ortho[@]}" --view front --pick 160,10 "$tmp/two.xyz" >"$tmp/out" 2>&1
grep -qx "pick x=1.500000 y=2.500000 z=9.000000 intensity=none class=none index=1" "$tmp/out"
check "ortho front view: the upper point at the top" $?
"$bin" "${ortho[@]}" --view front --pick 160,190 "$tmp/two.xyz" >"$tmp/out" 2>&1
grep -qx "pick x=1.500000 y=2.500000 z=3.500000 intensity=none class=none index=0" "$tmp/out"
check "ortho front view: the lower point at the bottom" $?

# A file without points: --info describes it with 0 points (exit 0), --convert writes a valid
# file of 0 points. A file cut short: the points before the cut and one warning naming it.
printf 'ply\nformat binary_little_endian 1.0\nelement vertex 0\nproperty float x\nproperty float y\nproperty float z\nend_header\n' >"$tmp/empty.ply"
printf 'x,y,z\n' >"$tmp/header.csv"
"$bin" --info "$tmp/empty.ply" "$tmp/header.csv" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "--info of files without points -> exit 0 (got $rc): $(cat "$tmp/err")" $rc
check "--info says points 0 for each" $(( $(grep -c '^  points      0$' "$tmp/out") != 2 ))
"$bin" --info --json "$tmp/empty.ply" >"$tmp/out" 2>&1; rc=$?
python3 -c 'import json, sys
j = json.loads(open(sys.argv[1]).read())
assert j["points"] == 0 and j["format"] == "PLY" and "warnings" not in j, j' "$tmp/out"
check "--info --json of an empty PLY: points 0 (exit $rc): $(head -c 200 "$tmp/out")" $(( $? || rc ))
for out in empty.copc.laz empty.laz empty.las; do
  "$bin" --convert "$tmp/$out" "$tmp/empty.ply" >"$tmp/out" 2>"$tmp/err"; rc=$?
  check "--convert $out of an empty PLY -> exit 0 (got $rc): $(cat "$tmp/err")" $rc
  grep -q '^  points      0$' "$tmp/out"; check "--convert $out reports 0 points" $?
  "$bin" --info "$tmp/$out" >"$tmp/out" 2>&1; rc=$?
  check "--info of the converted $out -> exit 0, points 0 (got $rc)" \
    $(( rc || $(grep -c '^  points      0$' "$tmp/out") != 1 ))
done
printf '1 2 3\n4 5 6\n7 8' >"$tmp/cut.xyz"
"$bin" --info "$tmp/cut.xyz" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "--info of a cut file -> exit 0 (got $rc)" $rc
grep -qx "  warning     $tmp/cut.xyz: cut short: 2 points decoded (the last line ends mid-line)" \
  "$tmp/out"
check "--info of a cut file gives its warning" $?
"$bin" --convert "$tmp/cut.las" "$tmp/cut.xyz" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "--convert of a cut file -> exit 0 (got $rc)" $rc
grep -q "^  note        $tmp/cut.xyz: cut short: 2 points decoded" "$tmp/out"
check "--convert of a cut file notes its warning" $?

# Clip boxes and sections (docs/CLIP.md): listed, bad values are usage errors, a clipped headless
# frame draws fewer pixels, and --convert writes only the points a box keeps.
for opt in --clip-box --clip-mode --section --clip-polygon; do
  grep -q -- "$opt" "$tmp/help"; check "--help lists $opt" $?
done
expect_usage_error --headless --clip-box 0,0,0,1,0,1
expect_usage_error --headless --clip-box 0,0,0,1,1
expect_usage_error --headless --clip-box 0,0,nan,1,1,1
expect_usage_error --headless --clip-mode around
expect_usage_error --headless --section z=1,0
expect_usage_error --headless --section 1,2,3
printf '0 0 0\n1 0 0\n2 0 0\n3 0 0\n0.5 0.4 0\n' >"$tmp/row.xyz"
"$bin" --convert "$tmp/row.las" --clip-box 1,0,0,2.2,1,1 "$tmp/row.xyz" >"$tmp/out" 2>&1; rc=$?
check "--convert with --clip-box -> exit 0 (got $rc)" $rc
"$bin" --info "$tmp/row.las" >"$tmp/out" 2>&1
check "--convert with --clip-box keeps the 4 points inside" $(( $(grep -c '^  points      4$' "$tmp/out") != 1 ))
"$bin" --convert "$tmp/row2.las" --clip-box 1,0,0,2.2,1,1,outside "$tmp/row.xyz" >"$tmp/out" 2>&1
"$bin" --info "$tmp/row2.las" >"$tmp/out" 2>&1
check "--convert with an outside box keeps the 1 point outside" $(( $(grep -c '^  points      1$' "$tmp/out") != 1 ))
expect_usage_error --convert "$tmp/row3.las" --clip-polygon "0,0;1,1" "$tmp/row.xyz"
expect_usage_error --headless --clip-polygon "0,0;1,0;0,1"
"$bin" --convert "$tmp/row3.las" --clip-polygon "-0.5,-1;1.5,-1;1.5,1;-0.5,1" "$tmp/row.xyz" \
  >"$tmp/out" 2>&1
"$bin" --info "$tmp/row3.las" >"$tmp/out" 2>&1
check "--convert with --clip-polygon keeps the 3 points inside" $(( $(grep -c '^  points      3$' "$tmp/out") != 1 ))

# A streamed COPC file: a box at a corner of its 15 nodes' cube selects, so loads, fewer nodes.
copc="$(cd "$(dirname "$0")/.." && pwd)/data/laz/lone-star.copc.laz"
nodes_of() {  # the summary line's lod_nodes of a headless run with the given options
  "$bin" --headless --frames 1 --width 320 --height 200 --sse 0 "$@" "$copc" 2>/dev/null |
    sed -n 's/.* lod_nodes=\([0-9]*\).*/\1/p'
}
all_nodes=$(nodes_of)
clipped_nodes=$(nodes_of --clip-box 515372,4918345,2330,6,6,30)
check "a clip box streams fewer nodes ($clipped_nodes of $all_nodes)" \
  $(( ${clipped_nodes:-99} >= ${all_nodes:-0} || ${clipped_nodes:-0} < 1 ))

# Images larger than one frame, drawn in tiles (engine/tiled_render.h): the same PNG as drawn whole,
# with squares, eye-dome lighting, adaptive sizes and high-quality splats (each tile drawn with a
# margin); and a 16384 x 16384 image, in bands as memory allows and in tiles of an odd size.
expect_usage_error --headless --tile 100
expect_usage_error --headless --tile 0x100
expect_usage_error --headless --tile 100x20000
expect_usage_error --headless --tile-memory 0
big=(--headless --frames 1 --scene terrain --points 300k --width 3000 --height 2000)
for look in "--point-size 3 --edl" "--adaptive-size --max-point-size 9 --hq --edl 2"; do
  # shellcheck disable=SC2086  # the look's options split into words
  "$bin" "${big[@]}" $look --screenshot "$tmp/whole.png" >"$tmp/out" 2>&1; rc=$?
  check "3000x2000 $look drawn whole (got $rc)" $rc
  ! grep -q "^tiles:" "$tmp/out"; check "3000x2000 fits one frame: no tiles" $?
  # shellcheck disable=SC2086
  "$bin" "${big[@]}" $look --tile 777x555 --screenshot "$tmp/tiled.png" >"$tmp/out" 2>&1; rc=$?
  check "3000x2000 $look in tiles of 777x555 (got $rc)" $rc
  grep -q "^tiles: 4 x 4 of 777x555" "$tmp/out"; check "16 tiles of 777x555: $(grep "^tiles:" "$tmp/out")" $?
  cmp -s "$tmp/whole.png" "$tmp/tiled.png"; check "3000x2000 $look: the tiled PNG is the whole one" $?
done
huge=(--headless --scene terrain --points 500k --width 16384 --height 16384 --point-size 2)
"$bin" "${huge[@]}" --screenshot "$tmp/huge.png" >"$tmp/out" 2>&1; rc=$?
check "16384x16384 on the CPU (got $rc)" $rc
grep -q "^tiles: 1 x " "$tmp/out"; check "16384x16384 in bands of full rows: $(grep "^tiles:" "$tmp/out")" $?
grep -q "frames=1 " "$tmp/out"; check "a tiled image draws one frame by default" $?
dims=$(od -An -tu1 -j16 -N8 "$tmp/huge.png" | tr -s ' ' | sed 's/^ //')
check "PNG is 16384x16384 ($dims)" $([ "$dims" = "0 0 64 0 0 0 64 0" ]; echo $?)
"$bin" "${huge[@]}" --tile 5000x3001 --screenshot "$tmp/huge2.png" >"$tmp/out" 2>&1; rc=$?
check "16384x16384 in tiles of 5000x3001 (got $rc)" $rc
cmp -s "$tmp/huge.png" "$tmp/huge2.png"; check "16384x16384: bands and tiles give the same PNG" $?
rm -f "$tmp/huge.png" "$tmp/huge2.png"

# A file that does not exist: exit 1, one line naming it.
"$bin" --headless --frames 1 "$tmp/missing.ply" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "missing file -> exit 1 (got $rc)" $((rc != 1))
grep -q "missing.ply" "$tmp/err"; check "missing file named in the message" $?
exit $fail
