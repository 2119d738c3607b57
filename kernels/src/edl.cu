// The resolve with eye-dome lighting (engine/edl.h): a pixel's color from its key and its
// neighbours' keys, the same function as the CPU's resolve_edl() (engine/src/cpu_edl.cpp), so the
// images are identical. Its own pass, since the plain resolve clears each key as it reads it and
// EDL needs the neighbours' keys: the colors first, then the clear of the keys the frame's points
// can have written.
#include "device_common.cuh"
#include "engine/edl.h"
#include "raster.h"

namespace pr::cuda {

namespace {

constexpr int kEdlBlockX = 32, kEdlBlockY = 8;

/// A pixel a thread in 32 x 8 blocks (a block's neighbours share its cache lines). Pixels outside
/// `r` are empty (no point of this frame reaches them) and background without a read; their keys,
/// still empty from the last frame's clear, are read as neighbours.
__global__ void resolve_edl_kernel(const unsigned long long* __restrict__ keys, int width,
                                   int height, PixelRect r, EdlParams e, uint32_t background,
                                   uint32_t* __restrict__ rgba, float* __restrict__ depth) {
  const int x = int(blockIdx.x) * kEdlBlockX + int(threadIdx.x);
  const int y = int(blockIdx.y) * kEdlBlockY + int(threadIdx.y);
  if (x >= width || y >= height) return;
  const size_t at = size_t(y) * size_t(width) + size_t(x);
  const bool in = x >= r.x0 && x < r.x1 && y >= r.y0 && y < r.y1;
  const auto key_at = [keys, width](int kx, int ky) -> uint64_t {
    return keys[size_t(ky) * size_t(width) + size_t(kx)];
  };
  if (!in) {
    __stcs(rgba + at, background);
    if (depth) depth[at] = __int_as_float(0x7f800000);
    return;
  }
  __stcs(rgba + at, edl_pixel(e, x, y, width, height, background, key_at));
  if (depth) {
    const uint64_t k = keys[at];
    depth[at] = k == kEmptyKey ? __int_as_float(0x7f800000) : key_depth(k);
  }
}

}  // namespace

cudaError_t launch_resolve_edl(unsigned long long* keys, int width, int height,
                               const PixelRect& rect, const EdlParams& e, uint32_t background,
                               uint32_t* rgba, float* depth, cudaStream_t stream) {
  if (width <= 0 || height <= 0) return cudaSuccess;
  const dim3 block(kEdlBlockX, kEdlBlockY);
  const dim3 grid(unsigned((width + kEdlBlockX - 1) / kEdlBlockX),
                  unsigned((height + kEdlBlockY - 1) / kEdlBlockY));
  resolve_edl_kernel<<<grid, block, 0, stream>>>(keys, width, height, rect, e, background, rgba,
                                                 depth);
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
