// Device code that the plain raster (raster.cu), the compact raster (compact_raster.cu) and the
// batch box tests (batch_flags.cu) share: the packed colors, the early depth test, the splat, the
// walk over a list of batches, and programmatic dependent launches. CUDA translation units only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "engine/culling.h"
#include "engine/projection.h"

namespace pr::cuda {

/// Threads a block of the raster, resolve and flag kernels.
constexpr int kThreads = 256;
/// subset_step() of a frame that draws every stored point (engine/projection.h's 32.32 step).
constexpr uint64_t kFullStep = uint64_t{1} << 32;

/// Point i's color from the packed array `rgb` (rgb_words() words, raster.h): R | G << 8 |
/// B << 16 | kOpaqueAlpha, the RGBA8 word the CPU's keys carry. The word holding its first byte,
/// and the next one when its bytes straddle two (both in the padded array).
__device__ __forceinline__ uint32_t load_rgb(const uint32_t* __restrict__ rgb, uint64_t i) {
  const uint64_t byte = 3 * i;
  const uint32_t shift = uint32_t(byte & 3) * 8;
  const uint32_t* w = rgb + (byte >> 2);
  const uint32_t lo = __ldg(w);
  const uint32_t hi = shift > 8 ? __ldg(w + 1) : 0u;
  return __funnelshift_r(lo, hi, shift) | kOpaqueAlpha;
}

/// Early depth test + atomic for one point at pixel `pix` with depth bits `dbits` (positive floats'
/// bits order like the floats). A plain load first: a stale value can only be larger than the
/// current one (keys only decrease during a frame), so skipping when the point is farther is
/// always right, and most points of a dense cloud lose here without touching the atomic unit.
/// `color()` gives the point's color (the key's low word); it runs only for points that may still
/// win, so the color array is read for those alone. The key (depth bits << 32 | color) orders by
/// depth, then color, so the winner does not depend on the order the points arrive in.
template <class Index, class ColorFn>
__device__ __forceinline__ void depth_test(unsigned long long* keys, Index pix, uint32_t dbits,
                                           ColorFn color) {
  const unsigned long long cur = keys[pix];
  if (dbits > uint32_t(cur >> 32)) return;
  const unsigned long long key = (static_cast<unsigned long long>(dbits) << 32) | color();
  if (key < cur) atomicMin(keys + pix, key);
}

/// Point size > 1: every pixel of the point's clipped square of side `size` (splat_rect_sized(),
/// the CPU's) gets its key, with the same early test. `Index`: the pixel index's type (the images
/// hold fewer than 2^32 pixels, so 32 bits are exact).
template <class Index>
__device__ __forceinline__ void splat(const ProjParams& p, int size, int ix, int iy,
                                      unsigned long long key, unsigned long long* keys) {
  int x0, y0, x1, y1;
  splat_rect_sized(p, size, ix, iy, x0, y0, x1, y1);
  const Index width = Index(p.width);
  for (int yy = y0; yy < y1; ++yy)
    for (int xx = x0; xx < x1; ++xx) {
      unsigned long long* slot = keys + (Index(yy) * width + Index(xx));
      if (key < *slot) atomicMin(slot, key);
    }
}

/// A culled frame's raster block walks the batches the box tests listed (batch_flags.cu):
/// `*list_count` batches in `list`, each cut into `parts` items, a contiguous share of the items
/// a block, so that a grid of a few resident waves covers any number of listed batches. Calls
/// fn(batch, flag, part) for each item, `flag` the batch's BatchFlag (engine/culling.h).
template <class Fn>
__device__ __forceinline__ void for_listed_batches(const uint32_t* list, const uint32_t* list_count,
                                                   const uint8_t* flags, uint32_t parts, Fn fn) {
  const uint64_t items = uint64_t(__ldg(list_count)) * uint64_t(parts);
  const uint64_t per_block = (items + gridDim.x - 1) / gridDim.x;
  const uint64_t w0 = uint64_t(blockIdx.x) * per_block;
  const uint64_t w1 = w0 + per_block < items ? w0 + per_block : items;
  for (uint64_t w = w0; w < w1; ++w) {
    const uint32_t batch = __ldg(list + w / uint64_t(parts));
    fn(batch, __ldg(flags + batch), uint32_t(w % uint64_t(parts)));
  }
}

/// Programmatic dependent launch (compute capability 9.0 and up; nothing on older devices, and
/// nothing when the next kernel was not launched as a dependent): a kernel calls
/// allow_dependents() first, so the dependent launched after it may be scheduled as soon as every
/// one of its blocks has started; the dependent calls wait_for_primary() before it reads what the
/// kernel before it wrote (it returns once that grid has completed and its writes are visible).
__device__ __forceinline__ void allow_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__device__ __forceinline__ void wait_for_primary() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// Launches `kernel` on `blocks` blocks of `threads` on `stream`; `dependent`: as a programmatic
/// dependent of the kernel before it in the stream (which then must call allow_dependents(); the
/// dependent calls wait_for_primary() before it reads that kernel's results). A launch error is
/// left for cudaGetLastError().
template <class... Params, class... Args>
void launch_kernel(void (*kernel)(Params...), unsigned blocks, unsigned threads,
                   cudaStream_t stream, bool dependent, Args... args) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(blocks);
  cfg.blockDim = dim3(threads);
  cfg.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = dependent ? 1 : 0;
  (void)cudaLaunchKernelEx(&cfg, kernel, args...);
}

}  // namespace pr::cuda
