// A pick on the device (Renderer::pick_window(), engine/pick.h). The drawn points whose splat
// reaches the click's window are projected with the frames' own math (project_to_pixel(),
// splat_rect(), the same colors in the key), in two passes over the stored points: the first
// leaves each window pixel's smallest key (the key the frame's depth test kept there), the second
// the smallest original index among the points with that key. These are the (key, index) pairs
// pick_point() finds on the host, so both name the same point. A block takes a batch of
// kPointBatch stored points and skips it when its box cannot put a pixel in the window (the host
// pick's test); the window's few pixels take all the atomics.
#include "device_common.cuh"
#include "raster.h"

namespace pr::cuda {

namespace {

__device__ __forceinline__ bool reaches(const PickInput& in, const PixelRect& r) {
  return !r.empty() && r.x0 < in.x1 && r.x1 > in.x0 && r.y0 < in.y1 && r.y1 > in.y0;
}

/// kIndex false: the keys' pass; true: the index pass (after the keys' pass has ended).
template <bool kIndex>
__global__ void __launch_bounds__(kThreads)
    pick_pass(PickInput in, unsigned long long* keys, unsigned long long* index) {
  const uint64_t batch = blockIdx.x;
  const ProjParams& p = in.p;
  if (in.words) {
    if (!reaches(in, compact_box_footprint(p, in.batches[batch]).rect)) return;
  } else if (in.boxes) {
    if (!reaches(in, box_footprint(p, in.boxes[batch]).rect)) return;
  }
  const int width = in.x1 - in.x0;
  for (uint32_t k = threadIdx.x; k < kPointBatch; k += kThreads) {
    const uint64_t s = batch * kPointBatch + k;
    if (s >= in.total) return;
    const uint64_t id = in.orig ? uint64_t(in.orig[s]) : s;
    if (in.subset && !in_subset(uint32_t(id), in.count, in.step)) continue;
    float x, y, z;
    if (in.words) {
      if (!compact_decode(in.batches[batch], in.words[s], x, y, z)) continue;
    } else {
      const Float3 v = in.pos[s];
      x = v.x, y = v.y, z = v.z;
    }
    int ix, iy;
    uint64_t key;
    if (!project_to_pixel(p, x, y, z, load_rgb(in.colors, s), ix, iy, key)) continue;
    int x0, y0, x1, y1;
    splat_rect(p, ix, iy, x0, y0, x1, y1);
    x0 = max(x0, in.x0), y0 = max(y0, in.y0), x1 = min(x1, in.x1), y1 = min(y1, in.y1);
    for (int yy = y0; yy < y1; ++yy)
      for (int xx = x0; xx < x1; ++xx) {
        const int at = (yy - in.y0) * width + (xx - in.x0);
        const auto k64 = static_cast<unsigned long long>(key);
        if constexpr (!kIndex) {
          if (k64 < keys[at]) atomicMin(keys + at, k64);
        } else if (keys[at] == k64) {
          atomicMin(index + at, static_cast<unsigned long long>(id));
        }
      }
  }
}

}  // namespace

cudaError_t launch_pick(const PickInput& in, unsigned long long* keys, unsigned long long* index,
                        cudaStream_t stream) {
  const size_t pixels = size_t(in.x1 - in.x0) * size_t(in.y1 - in.y0);
  // kEmptyKey and ~0: every byte 0xff.
  cudaError_t e = cudaMemsetAsync(keys, 0xff, pixels * sizeof(unsigned long long), stream);
  if (e == cudaSuccess)
    e = cudaMemsetAsync(index, 0xff, pixels * sizeof(unsigned long long), stream);
  if (e != cudaSuccess || in.total == 0 || pixels == 0) return e;
  const uint64_t batches = (in.total + kPointBatch - 1) / kPointBatch;
  pick_pass<false><<<unsigned(batches), kThreads, 0, stream>>>(in, keys, index);
  pick_pass<true><<<unsigned(batches), kThreads, 0, stream>>>(in, keys, index);
  return cudaGetLastError();
}

}  // namespace pr::cuda
