#!/bin/bash
# Packs pointraster for the video benchmark on the GPU machine: bench/bundle.sh's folder (the
# program and the shared libraries it loads) is 177 MB with FFmpeg's libraries (libavcodec pulls
# in every codec Debian builds it with: 167 libraries), over the 64 MiB a run carries, so it
# travels as one tar.xz (55 MB for a CPU-only build; measured here), unpacked there.
#   (here)  bench/video/pack_video_bench.sh build-cuda/bin/pointraster .device-video
#   (run)   bash .device-video/run_packed.sh        with carry [".device-video"]
set -euo pipefail
bin=${1:?usage: pack_video_bench.sh POINTRASTER OUT_DIR}
out=${2:?usage: pack_video_bench.sh POINTRASTER OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash "$here/../bundle.sh" "$tmp/bundle" "$bin"
mkdir -p "$out"
tar -C "$tmp" -cf - bundle | xz -6 -T0 > "$out/video_bundle.tar.xz"
cp "$here/run_video_bench.sh" "$out/"
cat > "$out/run_packed.sh" <<'RUN'
#!/bin/bash
# On the GPU machine: unpacks the bundle into /tmp and runs the video benchmark with it; the video
# stays in /tmp/video_bench (too large to come back), the log goes to $OUT.
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/video_bench && tar -C /tmp/video_bench -xJf "$here/video_bundle.tar.xz" || exit 1
source /tmp/video_bench/bundle/env.sh
mkdir -p "${OUT:-/tmp/out}"
bash "$here/run_video_bench.sh" "$(command -v pointraster)" /tmp/video_bench 2>&1 |
  tee "${OUT:-/tmp/out}/video_bench.log"
RUN
du -h "$out/video_bundle.tar.xz"
