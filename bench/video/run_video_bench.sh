#!/bin/bash
# The time a video of the 1e9-point terrain takes (docs/VIDEO.md): 10 s at 1920x1080 and 60 fps
# (600 frames) along a flight over the scene, on the GPU, every frame drawn whole and encoded to
# H.264. Prints the program's lines (the encoder chosen, the summary: wall time, frames a second,
# mean draw time, mean wait for the encoder), then ffprobe's view of the file when ffprobe is
# there. Not a test: run it where the GPU is.
#   bench/video/run_video_bench.sh [POINTRASTER] [OUT_DIR]
# Environment: MODE (gpu), POINTS (1e9), WIDTH (1920), HEIGHT (1080), FPS (60), DURATION (10).
set -uo pipefail
bin=${1:-build/bin/pointraster}
out=${2:-${OUT:-/tmp}}
mkdir -p "$out"
path="-450,180,-650,20,-15;-100,120,-350,5,-20;200,90,-100,-30,-25;420,160,250,-80,-20"
video="$out/terrain_${POINTS:-1e9}.mp4"
start=$(date +%s.%N)
"$bin" --headless --mode "${MODE:-gpu}" --scene terrain --points "${POINTS:-1e9}" \
  --width "${WIDTH:-1920}" --height "${HEIGHT:-1080}" --fps "${FPS:-60}" \
  --duration "${DURATION:-10}" --camera-path "$path" --video "$video"
rc=$?
end=$(date +%s.%N)
echo "video_bench rc=$rc total_s=$(awk "BEGIN { printf \"%.1f\", $end - $start }") (scene generation and upload included)"
if [ $rc -eq 0 ] && command -v ffprobe > /dev/null; then
  ffprobe -v error -select_streams v:0 -show_entries \
    stream=codec_name,width,height,pix_fmt,r_frame_rate,nb_frames:format=duration,size \
    -of default=noprint_wrappers=1 "$video"
fi
exit $rc
