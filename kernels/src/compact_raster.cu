// The raster kernel for compact quantized positions (engine/compact.h): one block per batch of
// kCompactBatch stored points. Thread 0 tests the batch's box against the view with the shared
// (double precision, conservative) compact_box_visible(); a culled batch costs one 24-byte read.
// Otherwise each thread decodes its words with the shared compact_decode(), so the floats are the
// CPU's, and runs the same projection and early depth test as the default "simple" variant.
#include "raster.h"

namespace pr::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kPerLoad = 4;  // words loaded before the first is used
static_assert(kCompactBatch % (kThreads * kPerLoad) == 0);
constexpr uint64_t kFullStep = uint64_t{1} << 32;

// kOrig: a subset of a Morton-ordered build (membership by the stored point's original index).
template <bool kSubset, bool kOrig, bool kSplat>
__global__ void __launch_bounds__(kThreads)
    compact_points(ProjParams p, CompactInput in, uint64_t step, unsigned long long* keys) {
  __shared__ CompactBatch box;
  __shared__ int visible;
  const uint64_t batch = blockIdx.x;
  if (threadIdx.x == 0) {
    box = in.batches[batch];
    visible = compact_box_visible(p, box) ? 1 : 0;
  }
  __syncthreads();
  if (!visible) return;
  const CompactBatch b = box;
  const uint64_t base = batch * kCompactBatch;
  const uint64_t end = base + kCompactBatch < in.total ? base + kCompactBatch : in.total;
  const size_t width = size_t(p.width);
  for (uint32_t k0 = 0; k0 < kCompactBatch; k0 += kThreads * kPerLoad) {
    uint32_t w[kPerLoad];
#pragma unroll
    for (int k = 0; k < kPerLoad; ++k) {
      const uint64_t i = base + k0 + uint32_t(k * kThreads) + threadIdx.x;
      // Streaming loads: read once a frame; the L2 is kept for the visibility buffer.
      w[k] = i < end ? __ldcs(in.words + i) : kCompactInvalid;
    }
#pragma unroll
    for (int k = 0; k < kPerLoad; ++k) {
      const uint64_t i = base + k0 + uint32_t(k * kThreads) + threadIdx.x;
      float x, y, z;
      if (!compact_decode(b, w[k], x, y, z)) continue;
      if constexpr (kSubset) {
        const uint32_t id = kOrig ? __ldg(in.orig + i) : uint32_t(i);
        if (!in_subset(id, in.count, step)) continue;
      }
      int ix = 0, iy = 0;
      uint64_t key = 0;
      if (!project_to_pixel(p, x, y, z, 0u, ix, iy, key)) continue;
      const uint32_t dbits = uint32_t(key >> 32);
      if constexpr (kSplat) {
        const unsigned long long full =
            (static_cast<unsigned long long>(dbits) << 32) | __ldg(in.colors + i);
        int x0, y0, x1, y1;
        splat_rect(p, ix, iy, x0, y0, x1, y1);
        for (int yy = y0; yy < y1; ++yy)
          for (int xx = x0; xx < x1; ++xx) {
            unsigned long long* slot = keys + size_t(yy) * width + size_t(xx);
            if (full < *slot) atomicMin(slot, full);
          }
      } else {
        // The simple variant's early test: the depth word first, the color only for points that
        // may still win.
        const size_t pix = size_t(iy) * width + size_t(ix);
        const unsigned long long cur = keys[pix];
        if (dbits > uint32_t(cur >> 32)) continue;
        const unsigned long long full =
            (static_cast<unsigned long long>(dbits) << 32) | __ldg(in.colors + i);
        if (full < cur) atomicMin(keys + pix, full);
      }
    }
  }
}

template <bool kSubset, bool kOrig>
void launch(const ProjParams& p, const CompactInput& in, uint64_t step, unsigned long long* keys,
            cudaStream_t stream) {
  const uint64_t batches = (in.total + kCompactBatch - 1) / kCompactBatch;
  if (batches == 0) return;
  if (p.point_size > 1)
    compact_points<kSubset, kOrig, true>
        <<<unsigned(batches), kThreads, 0, stream>>>(p, in, step, keys);
  else
    compact_points<kSubset, kOrig, false>
        <<<unsigned(batches), kThreads, 0, stream>>>(p, in, step, keys);
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
