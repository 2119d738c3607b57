// High-quality splats' second pass on the GPU (engine/hq_splat.h): after the depth test, the
// points of the frame again, each adding its color to the accumulators of the pixels whose
// nearest depth it lies within range of. The same functions as the CPU renderer's HqEmit
// (engine/src/cpu_renderer.cpp) and integer sums, so the images are identical.
#include "device_common.cuh"
#include "engine/hq_splat.h"
#include "raster.h"

namespace pr::cuda {

namespace {

/// One point of depth bits `dbits` at pixel (ix, iy): into the accumulators of the pixels of its
/// square (one pixel for point size 1) whose nearest point it is within range of. The keys are
/// final (read-only here); the color is read only for a point that blends somewhere.
template <class ColorFn>
__device__ __forceinline__ void hq_point(const ProjParams& p, int ix, int iy, uint32_t dbits,
                                         const unsigned long long* __restrict__ keys,
                                         unsigned long long* __restrict__ acc, ColorFn color) {
  int x0 = ix, y0 = iy, x1 = ix + 1, y1 = iy + 1;
  if (p.point_size > 1) splat_rect(p, ix, iy, x0, y0, x1, y1);
  uint32_t c = 0;
  bool have = false;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      const uint32_t pix = uint32_t(y) * uint32_t(p.width) + uint32_t(x);
      if (!hq_blends(dbits, keys[pix])) continue;
      if (!have) c = color(), have = true;
      atomicAdd(acc + 2 * size_t(pix), static_cast<unsigned long long>(hq_word_a(c)));
      atomicAdd(acc + 2 * size_t(pix) + 1, static_cast<unsigned long long>(hq_word_b(c)));
    }
}

/// A block a batch of kPointBatch stored points (grid-stride over the batches): the batches this
/// frame's raster drew (flags, or every batch without them), each point decoded (compact) or
/// loaded, kept when in the subset (`subset`: by its original index, or its stored index when the
/// cloud is in its own order), projected as the raster did and accumulated.
template <bool kCompact, bool kSubset>
__global__ void __launch_bounds__(kThreads)
    hq_batches(ProjParams p, HqInput in, uint64_t step, const unsigned long long* keys,
               unsigned long long* acc) {
  const uint64_t batches = (in.total + kPointBatch - 1) / kPointBatch;
  for (uint64_t b = blockIdx.x; b < batches; b += gridDim.x) {
    // Drawn this frame: kBatchDrawn or kBatchInside, alone or | kBatchFirst (culling.h).
    if (in.flags && (__ldg(in.flags + b) & 3u) == 0) continue;
    const uint64_t base = b * kPointBatch;
    const uint64_t end = base + kPointBatch < in.total ? base + kPointBatch : in.total;
    for (uint64_t i = base + threadIdx.x; i < end; i += kThreads) {
      if constexpr (kSubset) {
        const uint32_t id = in.orig ? __ldg(in.orig + i) : uint32_t(i);
        if (!in_subset(id, in.count, step)) continue;
      }
      float x, y, z;
      if constexpr (kCompact) {
        if (!compact_decode(in.batches[b], __ldg(in.words + i), x, y, z)) continue;
      } else {
        const Float3 v = in.pos[i];
        x = v.x, y = v.y, z = v.z;
      }
      int ix, iy;
      uint64_t key;
      if (!project_to_pixel(p, x, y, z, 0u, ix, iy, key)) continue;
      hq_point(p, ix, iy, uint32_t(key >> 32), keys, acc,
               [&]() -> uint32_t { return load_rgb(in.colors, i); });
    }
  }
}

/// A subset of a float cloud in its own order: the i-th drawn point is stored at
/// subset_index(i, step); a thread a point, grid-stride.
__global__ void __launch_bounds__(kThreads)
    hq_strided(ProjParams p, HqInput in, uint64_t step, const unsigned long long* keys,
               unsigned long long* acc) {
  for (uint64_t i = uint64_t(blockIdx.x) * kThreads + threadIdx.x; i < in.count;
       i += uint64_t(gridDim.x) * kThreads) {
    const uint64_t s = subset_index(i, step);
    const Float3 v = in.pos[s];
    int ix, iy;
    uint64_t key;
    if (!project_to_pixel(p, v.x, v.y, v.z, 0u, ix, iy, key)) continue;
    hq_point(p, ix, iy, uint32_t(key >> 32), keys, acc,
             [&]() -> uint32_t { return load_rgb(in.colors, s); });
  }
}

}  // namespace

bool launch_hq_accumulate(const ProjParams& p, const HqInput& in, const unsigned long long* keys,
                          unsigned long long* acc, unsigned max_blocks, cudaStream_t stream) {
  if (in.count == 0 || in.total == 0) return true;
  const uint64_t step = subset_step(in.total, in.count);
  const bool subset = step != kFullStep;
  if (subset && in.permuted && !in.orig) return false;
  if (subset && !in.compact && !in.permuted) {
    const uint64_t blocks = (in.count + kThreads - 1) / kThreads;
    hq_strided<<<unsigned(blocks < max_blocks ? blocks : max_blocks), kThreads, 0, stream>>>(
        p, in, step, keys, acc);
    return true;
  }
  const uint64_t batches = (in.total + kPointBatch - 1) / kPointBatch;
  const unsigned blocks = unsigned(batches < max_blocks ? batches : max_blocks);
  if (in.compact) {
    if (subset)
      hq_batches<true, true><<<blocks, kThreads, 0, stream>>>(p, in, step, keys, acc);
    else
      hq_batches<true, false><<<blocks, kThreads, 0, stream>>>(p, in, step, keys, acc);
  } else {
    if (subset)
      hq_batches<false, true><<<blocks, kThreads, 0, stream>>>(p, in, step, keys, acc);
    else
      hq_batches<false, false><<<blocks, kThreads, 0, stream>>>(p, in, step, keys, acc);
  }
  return true;
}

}  // namespace pr::cuda
