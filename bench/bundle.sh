#!/usr/bin/env bash
# Packs executables built here, with the shared libraries they load, into a folder the GPU
# machine runs them from. That machine has the NVIDIA driver, CUDA, a newer glibc and libstdc++,
# but no SDL2, libcurl, pugixml or X libraries and no package registry (docs/DEVELOPING.md).
#
#   bench/bundle.sh OUT EXECUTABLE...
#
# OUT/bin gets the executables, OUT/lib every library `ldd` names for them except the ones the GPU
# machine must supply itself: glibc's (libc, libm, the loader...), libstdc++ and libgcc_s (its
# newer ones still run what older ones built), and the driver's (libcuda, libnvidia-*), which must
# match its kernel module. The GLVND dispatch libraries (libGL, libGLX, libGLdispatch, libEGL,
# libOpenGL) go too: SDL opens them with dlopen, so ldd does not name them, and through them NVIDIA's
# EGL gives the OpenGL context. OUT/env.sh, sourced there, puts OUT/bin first on PATH, OUT/lib and
# then the driver's /usr/local/nvidia/lib64 first on LD_LIBRARY_PATH, names NVIDIA's EGL vendor file
# as the only one, and selects SDL's offscreen video driver (an OpenGL context without an X server).
#
# Put OUT in .git/info/exclude, carry it to the GPU machine, and start the command there with
# `source OUT/env.sh;`. At most 64 MiB travels in all: the size is printed at the end.
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: bench/bundle.sh OUT EXECUTABLE..." >&2
  exit 2
fi
out=$1
shift

# Whether the GPU machine supplies the library at path $1 itself.
supplied_there() {
  case "$(basename "$1")" in
    libc.so.* | libm.so.* | libmvec.so.* | libdl.so.* | libpthread.so.* | librt.so.* | \
      libresolv.so.* | libutil.so.* | libanl.so.* | ld-linux*.so.* | \
      libstdc++.so.* | libgcc_s.so.* | libcuda.so.* | libnvidia-*.so*)
      return 0 ;;
  esac
  return 1
}

rm -rf "$out/bin" "$out/lib"
mkdir -p "$out/bin" "$out/lib"
for exe in "$@"; do
  [ -f "$exe" ] && [ -x "$exe" ] || { echo "bundle.sh: $exe is not an executable file" >&2; exit 1; }
  cp -L "$exe" "$out/bin/"
  # "name => /path (address)" for each library found; "name => not found" for a missing one.
  if ! deps=$(ldd "$exe" 2>/dev/null); then
    continue  # a script or a static executable: nothing to add
  fi
  if missing=$(grep "=> not found" <<<"$deps"); then
    echo "bundle.sh: $exe needs libraries this machine lacks: $(awk '{print $1}' <<<"$missing" | xargs)" >&2
    exit 1
  fi
  while read -r lib; do
    supplied_there "$lib" || [ -e "$out/lib/$(basename "$lib")" ] || cp -L "$lib" "$out/lib/"
  done < <(awk '$2 == "=>" && $3 ~ /^\// {print $3}' <<<"$deps")
done

glvnd_dir=/usr/lib/x86_64-linux-gnu
for lib in libGL.so.1 libGLX.so.0 libGLdispatch.so.0 libEGL.so.1 libOpenGL.so.0; do
  if [ -e "$glvnd_dir/$lib" ]; then
    [ -e "$out/lib/$lib" ] || cp -L "$glvnd_dir/$lib" "$out/lib/"
  else
    echo "bundle.sh: note: $glvnd_dir/$lib is not installed here (libglvnd0, libopengl0)" >&2
  fi
done

cat >"$out/env.sh" <<'EOF'
# Sourced on the GPU machine (written by bench/bundle.sh): the packed executables and libraries
# first, then the driver's libraries; NVIDIA's EGL as the only EGL vendor, so that GLVND does not
# try Mesa's; SDL's offscreen video driver, which makes a real OpenGL context on the GPU through
# EGL without an X server (CUDA-OpenGL interop works in it).
bundle_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export PATH="$bundle_dir/bin:$PATH"
export LD_LIBRARY_PATH="$bundle_dir/lib:/usr/local/nvidia/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
export SDL_VIDEODRIVER=offscreen
unset bundle_dir
EOF
echo "bundle.sh: $(du -sh "$out" | cut -f1) in $out ($(ls "$out/bin" | wc -l) executables," \
  "$(ls "$out/lib" | wc -l) libraries; at most 64 MiB travels to the GPU machine)"
