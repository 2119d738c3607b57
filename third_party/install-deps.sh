#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages pointraster builds and tests with, only those missing
# (quick and silent when everything is there). Runs apt-get as root (sudo when not root).
#   third_party/install-deps.sh          build + test dependencies
# (FFmpeg's -dev packages for --video's MP4 files; the ffmpeg package for the tests' ffprobe;
# openssl for the certificates of the HTTPS tests; python3-dev's headers for the Python module.)
# The CUDA toolkit is optional and not installed here: with nvcc on PATH (or in /usr/local/cuda)
# the CUDA renderer is built too.
set -euo pipefail
pkgs=(build-essential cmake pkg-config python3 python3-venv python3-pip python3-dev
      libsdl2-dev libglm-dev libimgui-dev libstb-dev libgl-dev libgl1-mesa-dri
      libgtest-dev libgmock-dev libbenchmark-dev xvfb xauth clang libpugixml-dev
      libcli11-dev nlohmann-json3-dev libcurl4-openssl-dev zlib1g-dev libzstd-dev
      libavcodec-dev libavformat-dev libswscale-dev libavutil-dev ffmpeg openssl)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# nginx for the HTTP tests (they run /usr/sbin/nginx): nginx-light where the release still has it,
# else nginx.
if [ ! -x /usr/sbin/nginx ]; then
  if apt-cache show nginx-light >/dev/null 2>&1; then missing+=(nginx-light); else missing+=(nginx); fi
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# libFuzzer's runtime for the fuzz targets: the libclang-rt-N-dev matching the clang installed.
if command -v clang >/dev/null; then
  v=$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1)
  rt="libclang-rt-${v}-dev"
  if apt-cache show "$rt" >/dev/null 2>&1 &&
     ! dpkg-query -W -f='${Status}' "$rt" 2>/dev/null | grep -q "install ok installed"; then
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get install -y -qq --no-install-recommends "$rt" >/dev/null
  fi
fi
# nvcc is often installed without being on PATH.
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "install-deps: note: nvcc found in /usr/local/cuda/bin; add it to PATH for the CUDA renderer"
fi
