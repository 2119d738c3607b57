// The resolve of frames with eye-dome lighting (engine/edl.h) or high-quality splats
// (engine/hq_splat.h): a pixel's color from its key, its neighbours' keys (EDL) and its
// accumulators (HQ), the same functions as the CPU's resolve (engine/src/cpu_renderer.cpp,
// cpu_edl.cpp), so the images are identical. Its own pass, since the plain resolve clears each key
// as it reads it and EDL needs the neighbours' keys: the colors first, then the clear of the keys
// the frame's points can have written.
#include "device_common.cuh"
#include "engine/edl.h"
#include "engine/hq_splat.h"
#include "raster.h"

namespace pr::cuda {

namespace {

constexpr int kBlockX = 32, kBlockY = 8;

/// A pixel a thread in 32 x 8 blocks (a block's neighbours share its cache lines). Pixels outside
/// `r` are empty (no point of this frame reaches them) and background without a read; their keys,
/// still empty from the last frame's clear, are read as neighbours. The accumulators of a drawn
/// pixel are reset here (only drawn pixels have any).
template <bool kEdl, bool kHq>
__global__ void resolve_shaded_kernel(const unsigned long long* __restrict__ keys, int width,
                                      int height, PixelRect r, EdlParams e,
                                      unsigned long long* __restrict__ acc, uint32_t background,
                                      uint32_t* __restrict__ rgba, float* __restrict__ depth) {
  const int x = int(blockIdx.x) * kBlockX + int(threadIdx.x);
  const int y = int(blockIdx.y) * kBlockY + int(threadIdx.y);
  if (x >= width || y >= height) return;
  const size_t at = size_t(y) * size_t(width) + size_t(x);
  const bool in = x >= r.x0 && x < r.x1 && y >= r.y0 && y < r.y1;
  const uint64_t key = in ? keys[at] : kEmptyKey;
  if (key == kEmptyKey) {
    __stcs(rgba + at, background);
    if (depth) depth[at] = __int_as_float(0x7f800000);
    return;
  }
  uint32_t color = key_color(key);
  if constexpr (kHq) {
    const ulonglong2 a = reinterpret_cast<const ulonglong2*>(acc)[at];
    color = hq_color(key, a.x, a.y);
    reinterpret_cast<ulonglong2*>(acc)[at] = make_ulonglong2(0, 0);
  }
  if constexpr (kEdl) {
    const auto key_at = [keys, width](int kx, int ky) -> uint64_t {
      return keys[size_t(ky) * size_t(width) + size_t(kx)];
    };
    color = edl_apply(color, edl_shade(e, x, y, width, height, key, key_at));
  }
  __stcs(rgba + at, color);
  if (depth) depth[at] = key_depth(key);
}

}  // namespace

cudaError_t launch_resolve_shaded(unsigned long long* keys, int width, int height,
                                  const PixelRect& rect, const EdlParams* edl,
                                  unsigned long long* hq_acc, uint32_t background, uint32_t* rgba,
                                  float* depth, cudaStream_t stream) {
  if (width <= 0 || height <= 0) return cudaSuccess;
  if (!edl && !hq_acc) return cudaErrorInvalidValue;  // launch_resolve() is that resolve
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid(unsigned((width + kBlockX - 1) / kBlockX),
                  unsigned((height + kBlockY - 1) / kBlockY));
  const EdlParams e = edl ? *edl : EdlParams{};
  if (edl && hq_acc)
    resolve_shaded_kernel<true, true>
        <<<grid, block, 0, stream>>>(keys, width, height, rect, e, hq_acc, background, rgba, depth);
  else if (edl)
    resolve_shaded_kernel<true, false>
        <<<grid, block, 0, stream>>>(keys, width, height, rect, e, hq_acc, background, rgba, depth);
  else
    resolve_shaded_kernel<false, true>
        <<<grid, block, 0, stream>>>(keys, width, height, rect, e, hq_acc, background, rgba, depth);
  const cudaError_t launched = cudaGetLastError();
  if (launched != cudaSuccess) return launched;
  // The clear of the next frame: the rect's rows (kEmptyKey is all ones).
  const int x0 = rect.x0 < 0 ? 0 : rect.x0, y0 = rect.y0 < 0 ? 0 : rect.y0;
  const int x1 = rect.x1 > width ? width : rect.x1, y1 = rect.y1 > height ? height : rect.y1;
  if (x1 <= x0 || y1 <= y0) return cudaSuccess;
  const size_t pitch = size_t(width) * sizeof(unsigned long long);
  return cudaMemset2DAsync(keys + size_t(y0) * size_t(width) + size_t(x0), pitch, 0xff,
                           size_t(x1 - x0) * sizeof(unsigned long long), size_t(y1 - y0), stream);
}

}  // namespace pr::cuda
