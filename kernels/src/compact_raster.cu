// The raster kernel for compact quantized positions (engine/compact.h). In a culled frame the box
// tests (batch_flags.cu, the same kernel as for the plain storage) have flagged and listed the
// batches that draw; each block of the raster kernel covers in.rounds consecutive batches of
// kCompactBatch stored points (or a part of one), or its share of the list. Each thread makes its
// batch's forms with the shared compact_forms() and projects its words through them
// (compact_to_pixel(), engine/compact.h), so the pixels and depths are the CPU's, then runs the
// early depth test of the plain raster (device_common.cuh). Only a clip or adaptive sizes decode
// the positions (compact_decode()).
#include "device_common.cuh"
#include "raster.h"

namespace pr::cuda {

namespace {

constexpr int kFullPerLoad = 4;    // words loaded before the first is used
constexpr int kSubsetPerLoad = 2;  // a subset's: its membership test takes registers too
static_assert(kCompactBatch % (kThreads * kFullPerLoad) == 0);

/// The points of one batch (`cnt` of them, stored from `base`) for one block. kInside: the batch
/// is wholly inside the view (compact_box_surely_inside()), so each valid point's pixel comes from
/// compact_inside(), the same pixel and depth as compact_to_pixel() without its tests. Pixel
/// indices fit 32 bits (the renderer refuses larger images). kAdaptive (with kSplat): each point's
/// own size (adaptive_point_size(), in.size).
template <bool kSubset, bool kOrig, bool kSplat, bool kInside, bool kClip, bool kAdaptive = false>
__device__ __forceinline__ void compact_batch(const ProjParams& p, const CompactInput& in,
                                              uint64_t step, unsigned long long* keys,
                                              const CompactBatch& b, uint64_t base, uint32_t cnt,
                                              uint32_t lo, uint32_t hi) {
  // This thread's words: point k0 + k * kThreads of the thread is at offset k0 + k * kThreads
  // from them (immediate offsets once the loops are unrolled).
  const uint32_t* words = in.words + base + threadIdx.x;
  const uint32_t width = uint32_t(p.width);
  const CompactForms f = compact_forms(p, b);
  const bool full = cnt == kCompactBatch;  // every batch but the last: no bounds tests
  constexpr int kPerLoad = kSubset ? kSubsetPerLoad : kFullPerLoad;
#pragma unroll
  for (uint32_t k0 = 0; k0 < kCompactBatch; k0 += kThreads * kPerLoad) {
    if (k0 < lo || k0 >= hi) continue;  // another block's part of the batch
    uint32_t w[kPerLoad];
    // Streaming loads: read once a frame; the L2 is kept for the visibility buffer.
    if (full) {
#pragma unroll
      for (int k = 0; k < kPerLoad; ++k) w[k] = __ldcs(words + k0 + uint32_t(k * kThreads));
    } else {
#pragma unroll
      for (int k = 0; k < kPerLoad; ++k) {
        const uint32_t off = k0 + uint32_t(k * kThreads);
        w[k] = off + threadIdx.x < cnt ? __ldcs(words + off) : kCompactInvalid;
      }
    }
#pragma unroll
    for (int k = 0; k < kPerLoad; ++k) {
      const uint32_t off = k0 + uint32_t(k * kThreads);
      if constexpr (kSubset) {
        const uint64_t i = base + threadIdx.x + off;
        const uint32_t id = kOrig ? __ldg(in.orig + i) : uint32_t(i);
        if (!in_subset(id, in.count, step)) continue;
      }
      int ix = 0, iy = 0;
      uint32_t dbits = 0;
      if constexpr (kInside) {
        if (w[k] & kCompactInvalid) continue;
        compact_inside(p, f, w[k], ix, iy, dbits);
      } else {
        if (!compact_to_pixel(p, f, w[k], ix, iy, dbits)) continue;
      }
      // The position only where a clip or an adaptive size needs it.
      [[maybe_unused]] float x = 0.0f, y = 0.0f, z = 0.0f;
      if constexpr (kClip || kAdaptive) compact_decode(b, w[k], x, y, z);
      // kClip: the frame's clip (DrawnPoints::clip); frames without one run kernels without it.
      uint32_t ck = kClipShown;
      if constexpr (kClip) {
        ck = clip_point(in.clip, x, y, z);
        if (ck == kClipHidden) continue;
      }
      auto color = [&]() -> uint32_t {
        const uint32_t c = load_rgb(in.colors, base + threadIdx.x + off);
        if constexpr (kClip)
          return clip_color(in.clip, ck, c);
        else
          return c;
      };
      if constexpr (kSplat) {
        const unsigned long long full = (static_cast<unsigned long long>(dbits) << 32) | color();
        int size = p.point_size;
        if constexpr (kAdaptive) size = adaptive_point_size(p, in.size, x, y, z, bits_float(dbits));
        splat<uint32_t>(p, size, ix, iy, full, keys);
      } else {
        // The depth word first, the color only for points that may still win.
        const uint32_t pix = uint32_t(iy) * width + uint32_t(ix);
        depth_test(keys, pix, dbits, color);
      }
    }
  }
}

// kOrig: a subset of a Morton-ordered build (membership by the stored point's original index).
// kCull: the batches' flags of this frame (box_flags() in raster.h) are read first; without them
// in.all_inside says whether every batch is wholly inside the view. kAdaptive: see compact_batch().
template <bool kSubset, bool kOrig, bool kSplat, bool kCull, bool kClip, bool kAdaptive = false>
__global__ void __launch_bounds__(kThreads, kSplat ? 1 : 8)
    compact_points(ProjParams p, CompactInput in, uint64_t step, unsigned long long* keys) {
  allow_dependents();  // the resolve may be scheduled beside the last blocks (launch_resolve())
  if constexpr (kCull) wait_for_primary();  // this frame's box tests (DrawnPoints::pdl)
  const uint64_t batches = (in.total + kCompactBatch - 1) / kCompactBatch;
  // Several blocks a batch (a small cloud), or several batches a block.
  const uint32_t parts = uint32_t(in.parts);
  const uint64_t first =
      parts > 1 ? blockIdx.x / parts : uint64_t(blockIdx.x) * uint64_t(in.rounds);
  const uint32_t span = kCompactBatch / parts;
  // Part [lo, lo + span) of a batch that draws; `inside`: wholly inside the view; `shown`: the
  // clip shows the whole batch untinted (kBatchClipShown), so no point is tested.
  auto draw = [&](uint64_t batch, bool inside, bool shown, uint32_t lo) {
    const CompactBatch b = in.batches[batch];  // the same box for every thread: broadcast loads
    const uint64_t base = batch * kCompactBatch;
    const uint64_t left = in.total - base;
    const uint32_t cnt = left < kCompactBatch ? uint32_t(left) : kCompactBatch;
    if constexpr (kClip && kCull && !kSplat) {
      if (shown) {
        if (inside)
          compact_batch<kSubset, kOrig, false, true, false>(p, in, step, keys, b, base, cnt, lo,
                                                            lo + span);
        else
          compact_batch<kSubset, kOrig, false, false, false>(p, in, step, keys, b, base, cnt, lo,
                                                             lo + span);
        return;
      }
    }
    // Splats clip their squares to the image anyway: one path for them.
    if constexpr (!kSplat) {
      if (inside) {
        compact_batch<kSubset, kOrig, false, true, kClip>(p, in, step, keys, b, base, cnt, lo,
                                                          lo + span);
        return;
      }
    }
    compact_batch<kSubset, kOrig, kSplat, false, kClip, kAdaptive>(p, in, step, keys, b, base, cnt,
                                                                   lo, lo + span);
  };
  if constexpr (kCull) {
    if (in.list) {  // the listed batches (parts of them), a contiguous share a block
      for_listed_batches(in.list, in.list_count, in.flags, parts,
                         [&](uint32_t batch, uint8_t f, uint32_t part) {
                           draw(batch, batch_inside(f), batch_clip_shown(f), part * span);
                         });
      return;
    }
  }
  const uint32_t lo = parts > 1 ? blockIdx.x % parts * span : 0u;
  for (int r = 0; r < in.rounds; ++r) {
    const uint64_t batch = first + uint64_t(r);
    if (batch >= batches) break;
    bool inside = in.all_inside, shown = false;
    if constexpr (kCull) {
      const uint8_t f = __ldg(in.flags + batch);  // the same byte for every thread: a broadcast
      if (!batch_draws(f)) continue;
      inside = batch_inside(f);
      shown = batch_clip_shown(f);
    }
    draw(batch, inside, shown, lo);
  }
}

template <bool kSubset, bool kOrig, bool kSplat, bool kClip, bool kAdaptive = false>
void launch_cull(const ProjParams& p, const CompactInput& in, uint64_t step,
                 unsigned long long* keys, unsigned blocks, cudaStream_t stream) {
  if (in.flags)  // after the box tests: a programmatic dependent of them where allowed
    launch_kernel(compact_points<kSubset, kOrig, kSplat, true, kClip, kAdaptive>, blocks, kThreads,
                  stream, in.pdl, p, in, step, keys);
  else
    launch_kernel(compact_points<kSubset, kOrig, kSplat, false, kClip, kAdaptive>, blocks, kThreads,
                  stream, false, p, in, step, keys);
}

template <bool kSubset, bool kOrig>
void launch(const ProjParams& p, const CompactInput& in, uint64_t step, unsigned long long* keys,
            cudaStream_t stream) {
  const uint64_t batches = (in.total + kCompactBatch - 1) / kCompactBatch;
  if (batches == 0) return;
  const uint64_t rounds = uint64_t(in.rounds < 1 ? 1 : in.rounds);
  unsigned blocks = in.parts > 1 ? unsigned(batches * uint64_t(in.parts))
                                 : unsigned((batches + rounds - 1) / rounds);
  if (in.flags && in.list && blocks > in.list_blocks) blocks = in.list_blocks;
  // A frame with a clip runs the kernels that test it (kClip): those without it stay as they are.
  const bool clip = in.clip.active();
  // Adaptive sizes (p.point_size the largest, > 1): the splat kernels compiled with them.
  if (p.point_size > 1 && in.size.active() && clip)
    launch_cull<kSubset, kOrig, true, true, true>(p, in, step, keys, blocks, stream);
  else if (p.point_size > 1 && in.size.active())
    launch_cull<kSubset, kOrig, true, false, true>(p, in, step, keys, blocks, stream);
  else if (p.point_size > 1 && clip)
    launch_cull<kSubset, kOrig, true, true>(p, in, step, keys, blocks, stream);
  else if (p.point_size > 1)
    launch_cull<kSubset, kOrig, true, false>(p, in, step, keys, blocks, stream);
  else if (clip)
    launch_cull<kSubset, kOrig, false, true>(p, in, step, keys, blocks, stream);
  else
    launch_cull<kSubset, kOrig, false, false>(p, in, step, keys, blocks, stream);
}

}  // namespace

bool launch_compact_raster(const ProjParams& p, const CompactInput& in, unsigned long long* keys,
                           cudaStream_t stream) {
  if (in.count == 0 || in.total == 0) return true;
  const uint64_t step = subset_step(in.total, in.count);
  const bool subset = step != kFullStep;
  if (!subset)
    launch<false, false>(p, in, step, keys, stream);
  else if (!in.permuted)
    launch<true, false>(p, in, step, keys, stream);
  else if (in.orig)
    launch<true, true>(p, in, step, keys, stream);
  else
    return false;
  return true;
}

}  // namespace pr::cuda
