// High-quality splats' second pass on the GPU (engine/hq_splat.h): after the depth test, the
// points of the frame again, each adding its color to the accumulators of the pixels whose
// nearest depth it lies within range of. The same functions as the CPU renderer's HqEmit
// (engine/src/cpu_renderer.cpp) and integer sums, so the images are identical. With points of
// one pixel, a warp sums the words of its lanes that share a pixel before the atomics.
#include "device_common.cuh"
#include "engine/hq_splat.h"
#include "raster.h"

namespace pr::cuda {

namespace {

/// Point size > 1: one point of depth bits `dbits` at pixel (ix, iy) into the accumulators of
/// the pixels of its square (of side `size`) whose nearest point it is within range of. The keys
/// are final (read-only here); the color is read only for a point that blends somewhere.
template <class ColorFn>
__device__ __forceinline__ void hq_splat_point(const ProjParams& p, int size, int ix, int iy,
                                               uint32_t dbits,
                                               const unsigned long long* __restrict__ keys,
                                               unsigned long long* __restrict__ acc,
                                               ColorFn color) {
  int x0, y0, x1, y1;
  splat_rect_sized(p, size, ix, iy, x0, y0, x1, y1);
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

/// What one point of color `c` adds, in a word that up to 32 such words sum into without
/// carries: R | G << 16 | B << 32 | 1 << 48 (a sum of 32 channels is at most 8160 < 2^16).
__device__ __forceinline__ uint64_t hq_lane_word(uint32_t c) {
  return uint64_t(c & 0xffu) | (uint64_t((c >> 8) & 0xffu) << 16) |
         (uint64_t((c >> 16) & 0xffu) << 32) | (uint64_t{1} << 48);
}

/// Point size 1, called by every lane of the warp together: this lane's point blends at pixel
/// `pix` with word `w` (hq_lane_word()), or pix is ~0u (nothing to add). Consecutive points of a
/// coherent cloud (its own order, or Morton's) land in the same pixel, and almost every point of
/// a surface blends, so one atomic pair a point would pile hundreds of atomics on each pixel. A
/// run of consecutive lanes with the same pixel sums its words instead (a segmented scan of
/// shuffles), and the run's first lane makes the run's two atomics: hq_word_a() and hq_word_b()
/// of the sum. Integer sums in any grouping give the same totals as the CPU's point by point.
__device__ __forceinline__ void hq_warp_add(uint32_t pix, uint64_t w,
                                            unsigned long long* __restrict__ acc) {
  constexpr unsigned kWarp = 0xffffffffu;
  const unsigned lane = threadIdx.x & 31u;
  const uint32_t before = __shfl_up_sync(kWarp, pix, 1);
  // A lane that adds nothing heads a run of its own. When every lane heads one (no two share a
  // pixel, as seen from inside a cloud), there is nothing to sum and the scan is skipped.
  const unsigned heads = __ballot_sync(kWarp, lane == 0 || before != pix || pix == ~0u);
  if (heads != kWarp) {
    const unsigned later = heads & ~((2u << lane) - 1u);  // the run heads after this lane
    const unsigned end = later ? unsigned(__ffs(int(later))) - 1u : 32u;  // past this lane's run
    // Hillis-Steele: after the step of distance d a lane holds the sum of its own word and those
    // of the next 2d - 1 lanes, as far as they are in its run; the run's head ends with the run's.
#pragma unroll
    for (unsigned d = 1; d < 32; d *= 2) {
      const uint64_t o = __shfl_down_sync(kWarp, w, d);
      if (lane + d < end) w += o;
    }
  }
  if (pix == ~0u || ((heads >> lane) & 1u) == 0) return;
  const uint64_t a = (w & 0xffffu) | (((w >> 16) & 0xffffu) << 32);
  const uint64_t b = ((w >> 32) & 0xffffu) | ((w >> 48) << 32);
  atomicAdd(acc + 2 * size_t(pix), static_cast<unsigned long long>(a));
  atomicAdd(acc + 2 * size_t(pix) + 1, static_cast<unsigned long long>(b));
}

/// A drawn point's share of the accumulators (hq_point() below) from its pixel (ix, iy) and
/// depth bits (a compact point's come from its batch's forms); x, y, z its position where a clip
/// or adaptive sizes need it.
template <bool kSplat, bool kClip, bool kAdaptive>
__device__ __forceinline__ void hq_pixel(const ProjParams& p, int ix, int iy, uint32_t dbits,
                                         float x, float y, float z, const HqInput& in, uint64_t s,
                                         const unsigned long long* __restrict__ keys,
                                         unsigned long long* __restrict__ acc, uint32_t& pix,
                                         uint64_t& w) {
  const ClipParams& clip = in.clip;
  const uint32_t* colors = in.colors;
  // The clip as the raster drew it: hidden points blend nowhere, tinted ones with the tint. A
  // frame without a clip compiles none of it (kClip false), as the raster does.
  uint32_t ck = kClipShown;
  if constexpr (kClip) {
    ck = clip_point(clip, x, y, z);
    if (ck == kClipHidden) return;
  }
  if constexpr (kSplat) {
    int size = p.point_size;
    if constexpr (kAdaptive) size = adaptive_point_size(p, in.size, x, y, z, bits_float(dbits));
    hq_splat_point(p, size, ix, iy, dbits, keys, acc,
                   [&]() -> uint32_t { return clip_color(clip, ck, load_rgb(colors, s)); });
  } else {
    const uint32_t at = uint32_t(iy) * uint32_t(p.width) + uint32_t(ix);
    if (!hq_blends(dbits, keys[at])) return;
    pix = at;
    w = hq_lane_word(clip_color(clip, ck, load_rgb(colors, s)));
  }
}

/// One stored point `s` at (x, y, z) (`ok`: loaded, drawn this frame), projected as the raster
/// did. kSplat (point size > 1): into the accumulators at once. Point size 1: returns its pixel
/// and word for hq_warp_add() in `pix` and `w` (left at ~0u and 0 when it blends nowhere).
/// kAdaptive (with kSplat): the point's own size (in.size), as the raster drew it.
template <bool kSplat, bool kClip, bool kAdaptive>
__device__ __forceinline__ void hq_point(const ProjParams& p, bool ok, float x, float y, float z,
                                         const HqInput& in, uint64_t s,
                                         const unsigned long long* __restrict__ keys,
                                         unsigned long long* __restrict__ acc, uint32_t& pix,
                                         uint64_t& w) {
  int ix, iy;
  uint64_t key;
  if (!ok || !project_to_pixel(p, x, y, z, 0u, ix, iy, key)) return;
  hq_pixel<kSplat, kClip, kAdaptive>(p, ix, iy, uint32_t(key >> 32), x, y, z, in, s, keys, acc, pix,
                                     w);
}

/// A block a batch of kPointBatch stored points (grid-stride over the batches): the batches this
/// frame's raster drew (flags, or every batch without them), each point decoded (compact) or
/// loaded, kept when in the subset (`subset`: by its original index, or its stored index when the
/// cloud is in its own order), projected as the raster did and accumulated. Every lane of a warp
/// runs the same iterations (hq_warp_add() needs them all).
template <bool kCompact, bool kSubset, bool kSplat, bool kClip, bool kAdaptive>
__global__ void __launch_bounds__(kThreads)
    hq_batches(ProjParams p, HqInput in, uint64_t step, const unsigned long long* keys,
               unsigned long long* acc) {
  const uint64_t batches = (in.total + kPointBatch - 1) / kPointBatch;
  for (uint64_t b = blockIdx.x; b < batches; b += gridDim.x) {
    // Drawn this frame: kBatchDrawn or kBatchInside, alone or | kBatchFirst (culling.h).
    if (in.flags && (__ldg(in.flags + b) & 3u) == 0) continue;
    const uint64_t base = b * kPointBatch;
    CompactForms forms;
    if constexpr (kCompact) forms = compact_forms(p, in.batches[b]);  // as the raster made them
    for (uint32_t k = threadIdx.x; k < kPointBatch; k += kThreads) {
      const uint64_t i = base + k;
      bool ok = i < in.total;
      if constexpr (kSubset) {
        if (ok) ok = in_subset(in.orig ? __ldg(in.orig + i) : uint32_t(i), in.count, step);
      }
      uint32_t pix = ~0u;
      uint64_t w = 0;
      if constexpr (kCompact) {
        // The raster's pixel and depth: through the batch's forms.
        const uint32_t word = ok ? __ldg(in.words + i) : kCompactInvalid;
        int ix = 0, iy = 0;
        uint32_t dbits = 0;
        if (compact_to_pixel(p, forms, word, ix, iy, dbits)) {
          [[maybe_unused]] float x = 0.0f, y = 0.0f, z = 0.0f;
          if constexpr (kClip || kAdaptive) compact_decode(in.batches[b], word, x, y, z);
          hq_pixel<kSplat, kClip, kAdaptive>(p, ix, iy, dbits, x, y, z, in, i, keys, acc, pix, w);
        }
      } else {
        float x = 0.0f, y = 0.0f, z = 0.0f;
        if (ok) {
          const Float3 v = in.pos[i];
          x = v.x, y = v.y, z = v.z;
        }
        hq_point<kSplat, kClip, kAdaptive>(p, ok, x, y, z, in, i, keys, acc, pix, w);
      }
      if constexpr (!kSplat) hq_warp_add(pix, w, acc);
    }
  }
}

/// A subset of a float cloud in its own order: the i-th drawn point is stored at
/// subset_index(i, step); a thread a point, grid-stride (the same iterations for a whole warp).
template <bool kSplat, bool kClip, bool kAdaptive>
__global__ void __launch_bounds__(kThreads)
    hq_strided(ProjParams p, HqInput in, uint64_t step, const unsigned long long* keys,
               unsigned long long* acc) {
  for (uint64_t i0 = uint64_t(blockIdx.x) * kThreads; i0 < in.count;
       i0 += uint64_t(gridDim.x) * kThreads) {
    const uint64_t i = i0 + threadIdx.x;
    const bool ok = i < in.count;
    const uint64_t s = ok ? subset_index(i, step) : 0;
    float x = 0.0f, y = 0.0f, z = 0.0f;
    if (ok) {
      const Float3 v = in.pos[s];
      x = v.x, y = v.y, z = v.z;
    }
    uint32_t pix = ~0u;
    uint64_t w = 0;
    hq_point<kSplat, kClip, kAdaptive>(p, ok, x, y, z, in, s, keys, acc, pix, w);
    if constexpr (!kSplat) hq_warp_add(pix, w, acc);
  }
}

template <bool kSplat, bool kClip, bool kAdaptive>
void launch_hq(const ProjParams& p, const HqInput& in, uint64_t step, bool subset,
               const unsigned long long* keys, unsigned long long* acc, unsigned max_blocks,
               cudaStream_t stream) {
  if (subset && !in.compact && !in.permuted) {
    const uint64_t blocks = (in.count + kThreads - 1) / kThreads;
    hq_strided<kSplat, kClip, kAdaptive>
        <<<unsigned(blocks < max_blocks ? blocks : max_blocks), kThreads, 0, stream>>>(p, in, step,
                                                                                       keys, acc);
    return;
  }
  const uint64_t batches = (in.total + kPointBatch - 1) / kPointBatch;
  const unsigned blocks = unsigned(batches < max_blocks ? batches : max_blocks);
  if (in.compact) {
    if (subset)
      hq_batches<true, true, kSplat, kClip, kAdaptive>
          <<<blocks, kThreads, 0, stream>>>(p, in, step, keys, acc);
    else
      hq_batches<true, false, kSplat, kClip, kAdaptive>
          <<<blocks, kThreads, 0, stream>>>(p, in, step, keys, acc);
  } else {
    if (subset)
      hq_batches<false, true, kSplat, kClip, kAdaptive>
          <<<blocks, kThreads, 0, stream>>>(p, in, step, keys, acc);
    else
      hq_batches<false, false, kSplat, kClip, kAdaptive>
          <<<blocks, kThreads, 0, stream>>>(p, in, step, keys, acc);
  }
}

}  // namespace

bool launch_hq_accumulate(const ProjParams& p, const HqInput& in, const unsigned long long* keys,
                          unsigned long long* acc, unsigned max_blocks, cudaStream_t stream) {
  if (in.count == 0 || in.total == 0) return true;
  const uint64_t step = subset_step(in.total, in.count);
  const bool subset = step != kFullStep;
  if (subset && in.permuted && !in.orig) return false;
  const bool clip = in.clip.active();
  // Adaptive sizes (p.point_size the largest, > 1): the kernels compiled with them.
  const bool adaptive = in.size.active();
  if (p.point_size > 1 && adaptive) {
    if (clip)
      launch_hq<true, true, true>(p, in, step, subset, keys, acc, max_blocks, stream);
    else
      launch_hq<true, false, true>(p, in, step, subset, keys, acc, max_blocks, stream);
  } else if (p.point_size > 1) {
    if (clip)
      launch_hq<true, true, false>(p, in, step, subset, keys, acc, max_blocks, stream);
    else
      launch_hq<true, false, false>(p, in, step, subset, keys, acc, max_blocks, stream);
  } else {
    if (clip)
      launch_hq<false, true, false>(p, in, step, subset, keys, acc, max_blocks, stream);
    else
      launch_hq<false, false, false>(p, in, step, subset, keys, acc, max_blocks, stream);
  }
  return true;
}

}  // namespace pr::cuda
