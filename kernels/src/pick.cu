// A pick on the device (Renderer::pick_window(), engine/pick.h). The drawn points whose splat
// reaches the click's window are projected with the frames' own math (project_to_pixel(),
// splat_rect_sized() of the frame's or the point's adaptive size, the same colors in the key). One
// pass over the stored points leaves each window pixel's smallest key (the key the frame's depth
// test kept there) and lists the points that may hold it; a pass over that short list leaves the
// smallest original index among the points with the pixel's key (when the list overflows, a second
// pass over the points does). These are the (key, index) pairs pick_point() finds on the host, so
// both name the same point. First a thread a batch of kPointBatch stored points lists the batches
// whose box can put a pixel in the window (the host pick's test); the passes then walk those alone,
// a block a batch, instead of a block for every batch of the cloud (a quarter of a million blocks
// at 1e9 points, twice, most of them ending at the box test). The window's few pixels take all the
// atomics.
#include <algorithm>

#include "device_common.cuh"
#include "raster.h"

namespace pr::cuda {

namespace {

constexpr unsigned kPickBlocks = 1024;  ///< a walk's grid

__device__ __forceinline__ bool reaches(const PickInput& in, const PixelRect& r) {
  return !r.empty() && r.x0 < in.x1 && r.x1 > in.x0 && r.y0 < in.y1 && r.y1 > in.y0;
}

/// The batches whose box can put a pixel in the window (every batch when the float positions
/// have no boxes) into in.list, a thread a batch; a warp appends its batches with one atomic.
__global__ void __launch_bounds__(kThreads) pick_list(PickInput in, uint64_t batches) {
  const uint64_t b = uint64_t(blockIdx.x) * kThreads + threadIdx.x;
  bool reach = b < batches;
  if (reach && in.words)
    reach = reaches(in, compact_box_footprint(in.p, in.batches[b]).rect);
  else if (reach && in.boxes)
    reach = reaches(in, box_footprint(in.p, in.boxes[b]).rect);
  const unsigned lanes = __ballot_sync(0xffffffffu, reach);
  if (!reach) return;
  const unsigned lane = threadIdx.x & 31u;
  const int leader = __ffs(int(lanes)) - 1;
  unsigned long long first = 0;
  if (int(lane) == leader)
    first = atomicAdd(in.list_count, static_cast<unsigned long long>(__popc(lanes)));
  first = __shfl_sync(lanes, first, leader);
  in.list[first + unsigned(__popc(lanes & ((1u << lane) - 1u)))] = uint32_t(b);
}

/// Calls fn(x, y, id, key) for each window pixel (x, y) that a drawn point of `batch` covers, with
/// the point's original index and key there.
template <class Fn>
__device__ __forceinline__ void for_batch_hits(const PickInput& in, uint64_t batch, Fn fn) {
  const ProjParams& p = in.p;
  // Compact points are projected through their batch's forms, as the raster drew them.
  const CompactForms forms = in.words ? compact_forms(p, in.batches[batch]) : CompactForms{};
  for (uint32_t k = threadIdx.x; k < kPointBatch; k += kThreads) {
    const uint64_t s = batch * kPointBatch + k;
    if (s >= in.total) return;
    const uint64_t id = in.orig ? uint64_t(in.orig[s]) : s;
    if (in.subset && !in_subset(uint32_t(id), in.count, in.step)) continue;
    float x, y, z;
    int ix, iy;
    uint64_t key;
    if (in.words) {
      const uint32_t word = in.words[s];
      uint32_t dbits;
      if (!compact_to_pixel(p, forms, word, ix, iy, dbits)) continue;
      compact_decode(in.batches[batch], word, x, y, z);
      key = pack_key(bits_float(dbits), 0u);
    } else {
      const Float3 v = in.pos[s];
      x = v.x, y = v.y, z = v.z;
      if (!project_to_pixel(p, x, y, z, 0u, ix, iy, key)) continue;
    }
    // The frame's clip: a point it hides is not drawn, so not picked; a tinted one's key carries
    // the tint, as the raster's.
    const uint32_t ck = in.clip.active() ? clip_point(in.clip, x, y, z) : kClipShown;
    if (ck == kClipHidden) continue;
    // The point's square as the frame drew it: its adaptive size (in.size) or p.point_size.
    const int size =
        in.size.active() ? adaptive_point_size(p, in.size, x, y, z, key_depth(key)) : p.point_size;
    int x0, y0, x1, y1;
    splat_rect_sized(p, size, ix, iy, x0, y0, x1, y1);
    x0 = max(x0, in.x0), y0 = max(y0, in.y0), x1 = min(x1, in.x1), y1 = min(y1, in.y1);
    if (x0 >= x1 || y0 >= y1) continue;
    key |= clip_color(
        in.clip, ck,
        load_rgb(in.colors, s));  // the color only for the window's points: pack_key()'s key
    for (int yy = y0; yy < y1; ++yy)
      for (int xx = x0; xx < x1; ++xx) fn(xx, yy, id, static_cast<unsigned long long>(key));
  }
}

/// Calls fn(x, y, id, key) for each window pixel (x, y) that a drawn point of the listed batches
/// [first, end) covers, with the point's original index and key there; a block a batch,
/// grid-stride.
template <class Fn>
__device__ __forceinline__ void for_window_hits(const PickInput& in, uint64_t first, uint64_t end,
                                                Fn fn) {
  for (uint64_t w = first + blockIdx.x; w < end; w += gridDim.x) for_batch_hits(in, in.list[w], fn);
}

/// The keys' pass over the listed batches: each covered pixel's smallest key, and a candidate for
/// each point whose key was not larger than the pixel's when it came (a larger one can never be the
/// smallest: keys only decrease).
__global__ void __launch_bounds__(kThreads)
    pick_keys(PickInput in, uint64_t first, uint64_t end, unsigned long long* keys) {
  const int width = in.x1 - in.x0;
  for_window_hits(in, first, end, [&](int x, int y, uint64_t id, unsigned long long key) {
    const int at = (y - in.y0) * width + (x - in.x0);
    if (key > keys[at]) return;
    atomicMin(keys + at, key);
    const unsigned long long slot = atomicAdd(in.candidate_count, 1ull);
    if (slot < in.capacity) in.candidates[slot] = PickCandidate{key, uint32_t(at), uint32_t(id)};
  });
}

/// The index from the candidates: those whose key is their pixel's smallest (grid-stride).
__global__ void __launch_bounds__(kThreads)
    pick_index_of_candidates(PickInput in, const unsigned long long* keys,
                             unsigned long long* index) {
  const unsigned long long listed = *in.candidate_count;
  if (listed > in.capacity) return;  // they did not fit: pick_index_of_points() instead
  for (uint64_t i = uint64_t(blockIdx.x) * kThreads + threadIdx.x; i < listed;
       i += uint64_t(gridDim.x) * kThreads) {
    const PickCandidate c = in.candidates[i];
    if (keys[c.pixel] == c.key) atomicMin(index + c.pixel, static_cast<unsigned long long>(c.id));
  }
}

/// The index from a second pass over the points, when the candidates did not fit.
__global__ void __launch_bounds__(kThreads)
    pick_index_of_points(PickInput in, uint64_t first, uint64_t end, const unsigned long long* keys,
                         unsigned long long* index) {
  const int width = in.x1 - in.x0;
  for_window_hits(in, first, end, [&](int x, int y, uint64_t id, unsigned long long key) {
    const int at = (y - in.y0) * width + (x - in.x0);
    if (keys[at] == key) atomicMin(index + at, static_cast<unsigned long long>(id));
  });
}

}  // namespace

cudaError_t launch_pick(const PickInput& in, unsigned long long* keys, unsigned long long* index,
                        cudaStream_t stream) {
  const size_t pixels = size_t(in.x1 - in.x0) * size_t(in.y1 - in.y0);
  // kEmptyKey and ~0: every byte 0xff.
  cudaError_t e = cudaMemsetAsync(keys, 0xff, pixels * sizeof(unsigned long long), stream);
  if (e == cudaSuccess)
    e = cudaMemsetAsync(index, 0xff, pixels * sizeof(unsigned long long), stream);
  if (e == cudaSuccess)
    e = cudaMemsetAsync(in.candidate_count, 0, sizeof(unsigned long long), stream);
  if (e == cudaSuccess) e = cudaMemsetAsync(in.list_count, 0, sizeof(unsigned long long), stream);
  if (e != cudaSuccess || in.total == 0 || pixels == 0) return e;
  const uint64_t batches = (in.total + kPointBatch - 1) / kPointBatch;
  pick_list<<<unsigned((batches + kThreads - 1) / kThreads), kThreads, 0, stream>>>(in, batches);
  unsigned long long listed = 0;
  e = cudaMemcpyAsync(&listed, in.list_count, sizeof(listed), cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  if (e != cudaSuccess) return e;
  // The listed batches' walks, in.launch_batches a launch (16384 by default: about 6.7e7 points;
  // a few blocks an SM, grid-stride), each waited for before the next: the frames' work is never
  // queued behind more than one launch of the pick's (an interop frame waits for the context's
  // work in flight).
  const uint64_t chunk = std::max<uint64_t>(in.launch_batches, 1);
  auto walk = [&](auto launch) {
    for (uint64_t first = 0; first < listed && e == cudaSuccess; first += chunk) {
      const uint64_t end = std::min<uint64_t>(listed, first + chunk);
      launch(unsigned(std::min<uint64_t>(kPickBlocks, end - first)), first, end);
      e = cudaGetLastError();
      if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    }
  };
  walk([&](unsigned blocks, uint64_t first, uint64_t end) {
    pick_keys<<<blocks, kThreads, 0, stream>>>(in, first, end, keys);
  });
  if (e != cudaSuccess) return e;
  pick_index_of_candidates<<<64, kThreads, 0, stream>>>(in, keys, index);
  unsigned long long candidates = 0;
  e = cudaMemcpyAsync(&candidates, in.candidate_count, sizeof(candidates), cudaMemcpyDeviceToHost,
                      stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  if (e != cudaSuccess || candidates <= in.capacity) return e;
  walk([&](unsigned blocks, uint64_t first, uint64_t end) {
    pick_index_of_points<<<blocks, kThreads, 0, stream>>>(in, first, end, keys, index);
  });
  return e;
}

}  // namespace pr::cuda
