// The CUDA rasterizer's kernels: projection + depth test into a 64-bit visibility buffer, and the
// resolve pass. The math is projection.h, the same header the CPU renderer compiles, built with
// -fmad=false so both compute the same floats; the depth test keeps the smallest
// (depth bits << 32 | point index) key, which is order independent, so the image is identical to
// the CPU's whatever order the threads run in.
#include "raster.h"

#include <cstdlib>
#include <cstring>

namespace pr::cuda {

namespace {

// Each block covers kThreads * kPerThread consecutive points; thread t takes points
// t, t + kThreads, ... so every load instruction of a warp reads one contiguous run of memory, and
// the kPerThread loads are issued before the first is used (more bytes in flight per thread).
constexpr int kThreads = 256;
constexpr int kPerThreadDefault = 4;
constexpr uint64_t kFullStep = uint64_t{1} << 32;

/// Early depth test + atomic: a plain load first. A stale value can only be larger than the
/// current one (keys only decrease during a frame), so skipping the atomic when key >= stale is
/// always right, and most points of a dense cloud lose here without touching the atomic unit.
__device__ __forceinline__ void depth_min(unsigned long long* slot, unsigned long long key) {
  if (key < *slot) atomicMin(slot, key);
}

template <bool kSubset, bool kBatchedTest, bool kL2Load, int kPerThread>
__global__ void __launch_bounds__(kThreads)
    raster_points(ProjParams p, const Float3* __restrict__ pos, uint64_t count, uint64_t step,
                  unsigned long long* keys) {
  const uint64_t base = uint64_t(blockIdx.x) * (kThreads * kPerThread) + threadIdx.x;
  float x[kPerThread], y[kPerThread], z[kPerThread];
  uint32_t src[kPerThread];
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const uint64_t i = base + uint64_t(k) * kThreads;
    const uint64_t s = kSubset ? subset_index(i, step) : i;
    src[k] = uint32_t(s);
    if (i < count) {
      // Streaming loads (evict first): each point is read once a frame, and the L2 is better
      // spent on the visibility buffer, which every atomic touches.
      const float* f = reinterpret_cast<const float*>(pos + s);
      x[k] = __ldcs(f);
      y[k] = __ldcs(f + 1);
      z[k] = __ldcs(f + 2);
    } else {
      x[k] = y[k] = z[k] = __int_as_float(0x7fc00000);  // NaN: projects to nothing
    }
  }
  const size_t width = size_t(p.width);
  if constexpr (!kBatchedTest) {
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      int ix, iy;
      uint64_t key;
      if (!project_to_pixel(p, x[k], y[k], z[k], src[k], ix, iy, key)) continue;
      depth_min(keys + size_t(iy) * width + size_t(ix), key);
    }
  } else {
    // Batched early depth test: all kPerThread pixel loads are issued before the first compare, so
    // a thread has kPerThread random L2 reads in flight instead of one (the atomics in between
    // would otherwise keep the compiler from hoisting the loads). In a dense cloud seen whole, most
    // points fail this test, so the frame is bound by these reads' latency.
    size_t slot[kPerThread];
    unsigned long long key[kPerThread], old[kPerThread];
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      int ix = 0, iy = 0;
      uint64_t kk = kEmptyKey;
      const bool hit = project_to_pixel(p, x[k], y[k], z[k], src[k], ix, iy, kk);
      slot[k] = hit ? size_t(iy) * width + size_t(ix) : 0;
      key[k] = hit ? kk : kEmptyKey;  // kEmptyKey never passes the test below
    }
#pragma unroll
    for (int k = 0; k < kPerThread; ++k)
      old[k] = key[k] != kEmptyKey ? (kL2Load ? __ldcg(keys + slot[k]) : keys[slot[k]]) : 0ull;
#pragma unroll
    for (int k = 0; k < kPerThread; ++k)
      if (key[k] < old[k]) atomicMin(keys + slot[k], key[k]);
  }
}

/// Point size > 1: every pixel of the clipped square gets the point's key (as on the CPU).
template <bool kSubset>
__global__ void __launch_bounds__(kThreads)
    raster_splats(ProjParams p, const Float3* __restrict__ pos, uint64_t count, uint64_t step,
                  unsigned long long* keys) {
  const uint64_t i = uint64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= count) return;
  const uint64_t s = kSubset ? subset_index(i, step) : i;
  const Float3 v = pos[s];
  int ix, iy;
  uint64_t key;
  if (!project_to_pixel(p, v.x, v.y, v.z, uint32_t(s), ix, iy, key)) return;
  int x0, y0, x1, y1;
  splat_rect(p, ix, iy, x0, y0, x1, y1);
  const size_t width = size_t(p.width);
  for (int yy = y0; yy < y1; ++yy)
    for (int xx = x0; xx < x1; ++xx) depth_min(keys + size_t(yy) * width + size_t(xx), key);
}

__global__ void resolve(unsigned long long* __restrict__ keys, size_t pixels,
                        const uint32_t* __restrict__ colors, uint32_t background,
                        uint32_t* __restrict__ rgba, float* __restrict__ depth) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= pixels) return;
  const unsigned long long k = keys[i];
  keys[i] = kEmptyKey;  // the clear of the next frame, fused in
  const bool empty = k == kEmptyKey;
  // Colors are fetched only for visible pixels (a visibility buffer): the raster pass reads
  // 12 bytes a point, never the colors.
  __stcs(rgba + i, empty ? background : __ldg(colors + key_index(k)));
  if (depth) depth[i] = empty ? __int_as_float(0x7f800000) : key_depth(k);
}

}  // namespace

void launch_raster(const ProjParams& p, const Float3* pos, uint64_t count, uint64_t step,
                   unsigned long long* keys, cudaStream_t stream) {
  if (count == 0) return;
  const bool subset = step != kFullStep;
  // PR_CUDA_RASTER=simple|batched|batched_l2 picks the raster variant, for A/B runs in bench/:
  // the one-point-at-a-time early test (default), or the batched test (all 4 loads of a thread
  // before the first atomic) with plain loads or with L2-only (__ldcg) loads. Measured on the H200
  // in one run (docs/GPU.md): both batched forms tie on random overviews and are 15-30% slower
  // elsewhere (1e9 points, camera inside: 3.5 vs 2.7 ms), so the simple form is the default.
  static const int mode = [] {
    const char* v = std::getenv("PR_CUDA_RASTER");
    if (v && std::strcmp(v, "batched") == 0) return 1;
    if (v && std::strcmp(v, "batched_l2") == 0) return 2;
    return 0;
  }();
  if (p.point_size <= 1) {
    const uint64_t per_block = uint64_t(kThreads) * kPerThreadDefault;
    const unsigned blocks = unsigned((count + per_block - 1) / per_block);
    auto go = [&](auto kernel) {
      kernel<<<blocks, kThreads, 0, stream>>>(p, pos, count, step, keys);
    };
    constexpr int kP = kPerThreadDefault;
    if (mode == 0) {
      if (subset)
        go(raster_points<true, false, false, kP>);
      else
        go(raster_points<false, false, false, kP>);
    } else if (mode == 1) {
      if (subset)
        go(raster_points<true, true, false, kP>);
      else
        go(raster_points<false, true, false, kP>);
    } else {
      if (subset)
        go(raster_points<true, true, true, kP>);
      else
        go(raster_points<false, true, true, kP>);
    }
  } else {
    const unsigned blocks = unsigned((count + kThreads - 1) / kThreads);
    if (subset)
      raster_splats<true><<<blocks, kThreads, 0, stream>>>(p, pos, count, step, keys);
    else
      raster_splats<false><<<blocks, kThreads, 0, stream>>>(p, pos, count, step, keys);
  }
}

void launch_resolve(unsigned long long* keys, size_t pixels, const uint32_t* colors,
                    uint32_t background, uint32_t* rgba, float* depth, cudaStream_t stream) {
  if (pixels == 0) return;
  const unsigned blocks = unsigned((pixels + kThreads - 1) / kThreads);
  resolve<<<blocks, kThreads, 0, stream>>>(keys, pixels, colors, background, rgba, depth);
}

}  // namespace pr::cuda
