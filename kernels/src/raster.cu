// The CUDA rasterizer's kernels: projection + depth test into a 64-bit visibility buffer, and the
// resolve pass. The math is projection.h, the same header the CPU renderer compiles, built with
// -fmad=false so both compute the same floats; the depth test keeps the smallest
// (depth bits << 32 | original point index) key, which is order independent, so the image is
// identical to the CPU's whatever order the threads run in, whatever order the points are stored
// in (a spatially sorted upload keeps each point's original index), and whichever early-test
// variant runs (they only skip points that cannot win).
#include "raster.h"

namespace pr::cuda {

bool parse_variant(const std::string& name, Variant* v) {
  if (name == "simple")
    *v = Variant::kSimple;
  else if (name == "prefilter32")
    *v = Variant::kPrefilter32;
  else if (name == "merge")
    *v = Variant::kMerge;
  else if (name == "merge_prefilter32")
    *v = Variant::kMergePrefilter32;
  else if (name == "simple_v1")
    *v = Variant::kSimpleV1;
  else
    return false;
  return true;
}

const char* variant_name(Variant v) {
  switch (v) {
    case Variant::kPrefilter32:
      return "prefilter32";
    case Variant::kMerge:
      return "merge";
    case Variant::kMergePrefilter32:
      return "merge_prefilter32";
    case Variant::kSimpleV1:
      return "simple_v1";
    default:
      return "simple";
  }
}

namespace {

// Each block covers kThreads * kPerThread consecutive points; thread t takes points
// t, t + kThreads, ... so every load instruction of a warp reads one contiguous run of memory, and
// the kPerThread loads are issued before the first is used (more bytes in flight per thread).
constexpr int kThreads = 256;
constexpr int kPerThread = 4;
constexpr uint64_t kFullStep = uint64_t{1} << 32;
constexpr unsigned kFullMask = 0xffffffffu;

/// Whether original index j is in the drawn subset {subset_index(i, step) : i < count}. step >=
/// 2^32, so i -> subset_index(i, step) is strictly increasing, and the i that maps to j (if any)
/// lies in [j 2^32 / step, j 2^32 / step + 1): it is i0 = floor(j 2^32 / step) or i0 + 1. No
/// product overflows: i0 * step <= j << 32, and i1 < count keeps i1 * step < total << 32.
__device__ __forceinline__ bool subset_contains(uint32_t j, uint64_t count, uint64_t step) {
  const uint64_t i0 = (uint64_t(j) << 32) / step;
  if (i0 < count && subset_index(i0, step) == j) return true;
  const uint64_t i1 = i0 + 1;
  return i1 < count && subset_index(i1, step) == j;
}

/// Early depth test + atomic for one point at pixel `pix` with depth bits `dbits` (positive floats'
/// bits order like the floats). A plain load first: a stale value can only be larger than the
/// current one (keys only decrease during a frame), so skipping when the point is farther is
/// always right, and most points of a dense cloud lose here without touching the atomic unit.
/// `index()` gives the point's original index; it runs only for points that may still win, so a
/// sorted upload reads its index array for those alone.
/// With kPrefilter the first read is the 32-bit depth buffer (half the bytes of the 64-bit one,
/// so more of it stays in the L2): it holds the minimum depth of the points that got past it, each
/// of which (or a nearer one) then reaches the 64-bit atomic, so a point strictly farther than it
/// cannot win; equal depths go on to the 64-bit key, whose index word breaks the tie.
template <bool kPrefilter, class IndexFn>
__device__ __forceinline__ void depth_test(unsigned long long* keys, uint32_t* depth32, size_t pix,
                                           uint32_t dbits, IndexFn index) {
  if constexpr (kPrefilter) {
    const uint32_t d = depth32[pix];
    if (dbits > d) return;
    if (dbits < d && atomicMin(depth32 + pix, dbits) < dbits) return;
  }
  const unsigned long long cur = keys[pix];
  if (dbits > uint32_t(cur >> 32)) return;
  const unsigned long long key = (static_cast<unsigned long long>(dbits) << 32) | index();
  if (key < cur) atomicMin(keys + pix, key);
}

template <bool kSubset, bool kSorted, bool kPrefilter, bool kMerge, bool kV1 = false>
__global__ void __launch_bounds__(kThreads)
    raster_points(ProjParams p, RasterInput in, uint64_t step, unsigned long long* keys,
                  uint32_t* depth32) {
  // A sorted upload walks every stored point (the subset is a set of original indices, spread
  // over the storage order); a plain one only the drawn ones.
  const uint64_t n = kSorted ? in.total : in.count;
  const uint64_t base = uint64_t(blockIdx.x) * (kThreads * kPerThread) + threadIdx.x;
  float x[kPerThread], y[kPerThread], z[kPerThread];
  uint64_t src[kPerThread];  // storage position
  uint32_t id[kPerThread];   // original index, where known before the depth test
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const uint64_t i = base + uint64_t(k) * kThreads;
    bool ok = i < n;
    const uint64_t s = (!kSorted && kSubset) ? subset_index(i, step) : i;
    src[k] = s;
    id[k] = uint32_t(s);
    if constexpr (kSorted && kSubset) {
      if (ok) {
        id[k] = __ldcs(in.orig + i);
        ok = subset_contains(id[k], in.count, step);
      }
    }
    if (ok) {
      // Streaming loads (evict first): each point is read once a frame, and the L2 is better
      // spent on the visibility buffer, which every atomic touches.
      const float* f = reinterpret_cast<const float*>(in.pos + s);
      x[k] = __ldcs(f);
      y[k] = __ldcs(f + 1);
      z[k] = __ldcs(f + 2);
    } else {
      x[k] = y[k] = z[k] = __int_as_float(0x7fc00000);  // NaN: projects to nothing
    }
  }
  const size_t width = size_t(p.width);
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    int ix = 0, iy = 0;
    uint64_t key = 0;
    const bool hit = project_to_pixel(p, x[k], y[k], z[k], 0u, ix, iy, key);
    const size_t pix = hit ? size_t(iy) * width + size_t(ix) : ~size_t(0);
    const uint32_t dbits = uint32_t(key >> 32);
    const uint64_t s = src[k];
    const uint32_t known = id[k];
    auto index = [&]() -> uint32_t {
      if constexpr (kSorted && !kSubset) return __ldg(in.orig + s);
      return known;
    };
    if constexpr (kV1) {
      if (hit) {
        const unsigned long long full = (static_cast<unsigned long long>(dbits) << 32) | index();
        if (full < keys[pix]) atomicMin(keys + pix, full);
      }
    } else if constexpr (kMerge) {
      // Runs of consecutive lanes whose points land on the same pixel agree on the nearest of
      // them first (depth, then lowest original index), so the run's first lane tests and writes
      // for all: in coherent order a warp's 32 points cover a few pixels. Shuffles only (the
      // first version used __match_any_sync, which measured 2-4x slower). When every lane is its
      // own run (random order) the warp takes the plain path after one shuffle and one ballot.
      // The 32-bit pixel id is exact: the launcher uses this only for images under 2^32 pixels.
      const unsigned lane = threadIdx.x & 31u;
      const uint32_t pid = hit ? uint32_t(pix) : 0xffffffffu;
      const uint32_t prev = __shfl_up_sync(kFullMask, pid, 1);
      const unsigned heads = __ballot_sync(kFullMask, lane == 0 || prev != pid);
      if (heads == kFullMask) {  // the same for the whole warp: no divergence below
        if (hit) depth_test<kPrefilter>(keys, depth32, pix, dbits, index);
        continue;
      }
      // Lane's run is [head, end): head the last run start <= lane, end the next run start.
      const unsigned above = heads & ~((2u << lane) - 1u);  // lane 31: 2u << 31 == 0, none
      const unsigned end = above ? unsigned(__ffs(int(above)) - 1) : 32u;
      const unsigned head = 31u - unsigned(__clz(int(heads & ((2u << lane) - 1u))));
      // Segmented minimum towards the run's head: after offset o, lane holds the minimum over
      // [lane, lane + 2o) within its run.
      uint32_t d = hit ? dbits : 0xffffffffu;  // a hit's depth bits are < 0x7f800000
#pragma unroll
      for (unsigned o = 1; o < 32; o <<= 1) {
        const uint32_t v = __shfl_down_sync(kFullMask, d, o);
        if (lane + o < end) d = min(d, v);
      }
      const uint32_t dmin = __shfl_sync(kFullMask, d, int(head));
      uint32_t my = (hit && dbits == dmin) ? index() : 0xffffffffu;  // never a real index
#pragma unroll
      for (unsigned o = 1; o < 32; o <<= 1) {
        const uint32_t v = __shfl_down_sync(kFullMask, my, o);
        if (lane + o < end) my = min(my, v);
      }
      if (lane == head && dmin != 0xffffffffu)
        depth_test<kPrefilter>(keys, depth32, pix, dmin, [my]() { return my; });
    } else {
      if (hit) depth_test<kPrefilter>(keys, depth32, pix, dbits, index);
    }
  }
}

/// Point size > 1: every pixel of the clipped square gets the point's key (as on the CPU).
template <bool kSubset, bool kSorted>
__global__ void __launch_bounds__(kThreads)
    raster_splats(ProjParams p, RasterInput in, uint64_t step, unsigned long long* keys) {
  const uint64_t i = uint64_t(blockIdx.x) * kThreads + threadIdx.x;
  const uint64_t n = kSorted ? in.total : in.count;
  if (i >= n) return;
  uint64_t s = i;
  uint32_t id = uint32_t(i);
  if constexpr (kSorted) {
    id = in.orig[i];
    if (kSubset && !subset_contains(id, in.count, step)) return;
  } else {
    s = kSubset ? subset_index(i, step) : i;
    id = uint32_t(s);
  }
  const Float3 v = in.pos[s];
  int ix, iy;
  uint64_t key;
  if (!project_to_pixel(p, v.x, v.y, v.z, id, ix, iy, key)) return;
  int x0, y0, x1, y1;
  splat_rect(p, ix, iy, x0, y0, x1, y1);
  const size_t width = size_t(p.width);
  for (int yy = y0; yy < y1; ++yy)
    for (int xx = x0; xx < x1; ++xx) {
      unsigned long long* slot = keys + size_t(yy) * width + size_t(xx);
      if (key < *slot) atomicMin(slot, static_cast<unsigned long long>(key));
    }
}

__global__ void resolve(unsigned long long* __restrict__ keys, uint32_t* __restrict__ depth32,
                        size_t pixels, const uint32_t* __restrict__ colors, uint32_t background,
                        uint32_t* __restrict__ rgba, float* __restrict__ depth) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= pixels) return;
  const unsigned long long k = keys[i];
  const bool empty = k == kEmptyKey;
  // The clear of the next frame, fused in, and only where a point landed: most pixels of a
  // sparse frame are empty already, and skipping their write halves the resolve's traffic.
  if (!empty) {
    keys[i] = kEmptyKey;
    if (depth32) depth32[i] = 0xffffffffu;
  }
  // Colors are fetched only for visible pixels (a visibility buffer): the raster pass never
  // reads them. They stay in original order, indexed by the key's original index.
  __stcs(rgba + i, empty ? background : __ldg(colors + key_index(k)));
  if (depth) depth[i] = empty ? __int_as_float(0x7f800000) : key_depth(k);
}

template <bool kSubset, bool kSorted>
void launch_points(const ProjParams& p, const RasterInput& in, Variant v, uint64_t step,
                   unsigned long long* keys, uint32_t* depth32, cudaStream_t stream) {
  const uint64_t n = kSorted ? in.total : in.count;
  const uint64_t per_block = uint64_t(kThreads) * kPerThread;
  const unsigned blocks = unsigned((n + per_block - 1) / per_block);
  if (blocks == 0) return;
  switch (v) {
    case Variant::kPrefilter32:
      raster_points<kSubset, kSorted, true, false>
          <<<blocks, kThreads, 0, stream>>>(p, in, step, keys, depth32);
      break;
    case Variant::kMerge:
      raster_points<kSubset, kSorted, false, true>
          <<<blocks, kThreads, 0, stream>>>(p, in, step, keys, depth32);
      break;
    case Variant::kMergePrefilter32:
      raster_points<kSubset, kSorted, true, true>
          <<<blocks, kThreads, 0, stream>>>(p, in, step, keys, depth32);
      break;
    case Variant::kSimpleV1:
      raster_points<kSubset, kSorted, false, false, true>
          <<<blocks, kThreads, 0, stream>>>(p, in, step, keys, depth32);
      break;
    default:
      raster_points<kSubset, kSorted, false, false>
          <<<blocks, kThreads, 0, stream>>>(p, in, step, keys, depth32);
  }
}

template <bool kSubset, bool kSorted>
void launch_splats(const ProjParams& p, const RasterInput& in, uint64_t step,
                   unsigned long long* keys, cudaStream_t stream) {
  const uint64_t n = kSorted ? in.total : in.count;
  const unsigned blocks = unsigned((n + kThreads - 1) / kThreads);
  if (blocks == 0) return;
  raster_splats<kSubset, kSorted><<<blocks, kThreads, 0, stream>>>(p, in, step, keys);
}

}  // namespace

void launch_raster(const ProjParams& p, const RasterInput& in, Variant v, unsigned long long* keys,
                   uint32_t* depth32, cudaStream_t stream) {
  if (in.count == 0 || in.total == 0) return;
  const uint64_t step = subset_step(in.total, in.count);
  const bool subset = step != kFullStep;
  const bool sorted = in.orig != nullptr;
  if (uses_depth32(v) && !depth32) v = Variant::kSimple;
  // The merge variants name pixels with 32 bits.
  if (uint64_t(p.width) * uint64_t(p.height) >= 0xffffffffull) {
    if (v == Variant::kMerge) v = Variant::kSimple;
    if (v == Variant::kMergePrefilter32) v = Variant::kPrefilter32;
  }
  if (p.point_size <= 1) {
    if (sorted) {
      if (subset)
        launch_points<true, true>(p, in, v, step, keys, depth32, stream);
      else
        launch_points<false, true>(p, in, v, step, keys, depth32, stream);
    } else {
      if (subset)
        launch_points<true, false>(p, in, v, step, keys, depth32, stream);
      else
        launch_points<false, false>(p, in, v, step, keys, depth32, stream);
    }
  } else {
    if (sorted) {
      if (subset)
        launch_splats<true, true>(p, in, step, keys, stream);
      else
        launch_splats<false, true>(p, in, step, keys, stream);
    } else {
      if (subset)
        launch_splats<true, false>(p, in, step, keys, stream);
      else
        launch_splats<false, false>(p, in, step, keys, stream);
    }
  }
}

void launch_resolve(unsigned long long* keys, uint32_t* depth32, size_t pixels,
                    const uint32_t* colors, uint32_t background, uint32_t* rgba, float* depth,
                    cudaStream_t stream) {
  if (pixels == 0) return;
  const unsigned blocks = unsigned((pixels + kThreads - 1) / kThreads);
  resolve<<<blocks, kThreads, 0, stream>>>(keys, depth32, pixels, colors, background, rgba, depth);
}

}  // namespace pr::cuda
