#!/bin/bash
# Packs executables built here, with the shared libraries they load, into a folder the GPU machine
# runs them from. That machine has the NVIDIA driver and CUDA but none of the project's libraries
# (SDL2, libcurl, ImGui's, X's) and no package registry; its glibc and libstdc++ are newer than
# these, so those stay out and the machine's own are used.
#
#   bench/bundle.sh OUT EXECUTABLE...
#
# OUT gets bin/ (the executables), lib/ (every library `ldd` names but the C runtime, libstdc++,
# libgcc_s and the driver's libcuda / libnvidia-*, plus the GLVND dispatch libraries that pick the
# machine's NVIDIA GL at run time) and env.sh. Keep OUT out of git (.git/info/exclude), carry it to
# the GPU machine and start the command there with `source OUT/env.sh;`. A bundle over the
# device's 64 MiB travels as a tar.xz (`tar cJf OUT.tar.xz OUT`) and is unpacked there first.
set -euo pipefail
out=${1:?usage: bench/bundle.sh OUT EXECUTABLE...}
shift
[ $# -gt 0 ] || { echo "bundle.sh: name at least one executable" >&2; exit 2; }
rm -rf "$out/bin" "$out/lib"
mkdir -p "$out/bin" "$out/lib"
system='/(ld-linux-x86-64|libc|libm|libdl|libpthread|librt|libresolv|libstdc\+\+|libgcc_s|libcuda|libnvidia-[a-z-]*)\.so'
for exe in "$@"; do
  cp -L "$exe" "$out/bin/"
  ldd "$exe" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | { grep -Ev "$system" || true; } |
    while read -r lib; do
      [ -e "$out/lib/$(basename "$lib")" ] || cp -L "$lib" "$out/lib/"
    done
done
# GLVND: libGL / libEGL dispatch to the vendor library at run time (NVIDIA's there).
for lib in libGL.so.1 libGLX.so.0 libGLdispatch.so.0 libEGL.so.1 libOpenGL.so.0; do
  f=/usr/lib/x86_64-linux-gnu/$lib
  [ -e "$f" ] && [ ! -e "$out/lib/$lib" ] && cp -L "$f" "$out/lib/"
done
cat > "$out/env.sh" <<'ENV'
# Sourced on the GPU machine: the bundled executables and libraries first, then the driver's;
# NVIDIA's EGL as the only EGL vendor, and SDL's offscreen video driver, which makes a real OpenGL
# context on the GPU through EGL without an X server (so CUDA-OpenGL interop works as on a
# desktop).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export PATH="$here/bin:$PATH"
export LD_LIBRARY_PATH="$here/lib:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
export SDL_VIDEODRIVER=offscreen
ENV
echo "bundle.sh: $(du -sh "$out" | cut -f1) in $out (64 MiB at most travel to the GPU machine)"
