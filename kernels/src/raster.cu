// The CUDA rasterizer's kernels: projection + depth test into a 64-bit visibility buffer, and the
// resolve pass. The math is projection.h, the same header the CPU renderer compiles, built with
// -fmad=false so both compute the same floats; the depth test keeps the smallest
// (depth bits << 32 | RGBA8 color) key, which is order independent, so the image is identical to
// the CPU's whatever order the threads run in and whatever order the points are stored in (the
// Morton-sorted upload).
#include "device_common.cuh"
#include "raster.h"

namespace pr::cuda {

namespace {

// Each block covers kThreads * kPerThread consecutive points; thread t takes points
// t, t + kThreads, ... so every load instruction of a warp reads one contiguous run of memory, and
// the kPerThread loads are issued before the first is used (more bytes in flight per thread).
constexpr int kPerThread = 4;

/// A point's color as a frame with a clip draws it (kClip: tinted when its class `k` says so).
template <bool kClip>
__device__ __forceinline__ uint32_t clipped_color(const ClipParams& c, uint32_t k, uint32_t color) {
  if constexpr (kClip)
    return clip_color(c, k, color);
  else
    return color;
}

/// Which stored points a launch walks: all of them; a subset of a cloud stored in its own order
/// (the i-th drawn point is stored at subset_index(i, step)); or a subset of a permuted (sorted)
/// cloud (every stored point, kept when its original index is in the subset).
enum Walk : int { kAll = 0, kStrided = 1, kPermutedSubset = 2 };

/// kChunk consecutive points of a block: thread t takes points base, base + kThreads, ...
/// kInside: the points' batch is wholly inside the view (box_surely_inside()), so a point with
/// finite coordinates (every point its box holds) passes project_to_pixel()'s image tests and needs
/// none, and its clamp does nothing; a point with a NaN or infinite coordinate has a NaN or
/// infinite depth, which project()'s `visible` still rejects.
template <int kWalk, bool kInside = false, bool kClip = false>
__device__ __forceinline__ void raster_chunk(const ProjParams& p, const RasterInput& in,
                                             uint64_t step, unsigned long long* keys, uint64_t n,
                                             uint64_t base) {
  float x[kPerThread], y[kPerThread], z[kPerThread];
  uint64_t src[kPerThread];  // storage position
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const uint64_t i = base + uint64_t(k) * kThreads;
    bool ok = i < n;
    const uint64_t s = kWalk == kStrided ? subset_index(i, step) : i;
    src[k] = s;
    if constexpr (kWalk == kPermutedSubset) {
      if (ok) ok = in_subset(__ldcs(in.orig + i), in.count, step);
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
    if constexpr (kInside) {
      const Projected q = project(p, x[k], y[k], z[k]);
      if (!q.visible) continue;
      uint32_t ck = kClipShown;
      if constexpr (kClip) {  // the frame's clip (DrawnPoints::clip)
        ck = clip_point(in.clip, x[k], y[k], z[k]);
        if (ck == kClipHidden) continue;
      }
      float px, py;
      pixel_coords(p, q, px, py);
      const uint32_t pix = uint32_t(int(py)) * uint32_t(p.width) + uint32_t(int(px));
      const uint64_t s = src[k];
      depth_test(keys, pix, float_bits(q.depth), [&]() -> uint32_t {
        return clipped_color<kClip>(in.clip, ck, load_rgb(in.colors, s));
      });
      continue;
    }
    int ix = 0, iy = 0;
    uint64_t key = 0;
    bool hit = project_to_pixel(p, x[k], y[k], z[k], 0u, ix, iy, key);
    uint32_t ck = kClipShown;
    if constexpr (kClip) {
      if (hit) {
        ck = clip_point(in.clip, x[k], y[k], z[k]);
        hit = ck != kClipHidden;
      }
    }
    const size_t pix = hit ? size_t(iy) * width + size_t(ix) : ~size_t(0);
    const uint32_t dbits = uint32_t(key >> 32);
    const uint64_t s = src[k];
    // The color is read only for points that may still win (after the early test).
    if (hit)
      depth_test(keys, pix, dbits, [&]() -> uint32_t {
        return clipped_color<kClip>(in.clip, ck, load_rgb(in.colors, s));
      });
  }
}

constexpr int kChunk = kThreads * kPerThread;  // points a block covers in one round
static_assert(kPointBatch % kChunk == 0);

/// Each block covers in.rounds rounds of kChunk consecutive stored points. kCull (kAll and
/// kPermutedSubset walks): the flag of each batch of kPointBatch the block enters (this frame's
/// box test, box_flags() in raster.h) is read first, and a culled batch's rounds are skipped.
/// Several rounds a block measured faster with every point in view too (1e9 points unculled: 3.73
/// -> 3.16 ms with 4 rounds; docs/GPU.md); likely reasons, not profiled: in a coherent order a
/// block's rounds hit the same pixels, whose keys its SM's L1 may still hold for the early depth
/// test, and a quarter of the blocks are launched. One round keeps a small cloud's parallelism.
// kCull: at most 32 registers (8 blocks an SM); without the bound the flag test took the kernel
// to 40 registers (6 blocks an SM).
// kAllInside (no flags): every batch is wholly inside the view.
template <int kWalk, bool kCull = false, bool kAllInside = false, bool kClip = false>
__global__ void __launch_bounds__(kThreads, kCull ? 8 : 1)
    raster_points(ProjParams p, RasterInput in, uint64_t step, unsigned long long* keys) {
  static_assert(!kCull || kWalk != kStrided);
  allow_dependents();  // the resolve may be scheduled beside the last blocks (launch_resolve())
  if constexpr (kCull) wait_for_primary();  // this frame's box tests (DrawnPoints::pdl)
  const uint64_t n = kWalk == kStrided ? in.count : in.total;
  const int rounds = in.rounds;
  const uint64_t first = uint64_t(blockIdx.x) * uint64_t(rounds) * kChunk;
  static_assert(!kAllInside || (!kCull && kWalk != kStrided));
  // The kChunk points from `at` on; `inside`: their batch lies wholly inside the view;
  // `shown`: the clip shows the whole batch untinted (kBatchClipShown), so no point is tested.
  auto chunk = [&](uint64_t at, bool inside, bool shown) {
    if constexpr (kClip && kCull) {
      if (shown) {
        if (inside)
          raster_chunk<kWalk, true, false>(p, in, step, keys, n, at + threadIdx.x);
        else
          raster_chunk<kWalk, false, false>(p, in, step, keys, n, at + threadIdx.x);
        return;
      }
    }
    if constexpr (kWalk != kStrided && (kCull || kAllInside)) {
      if (inside) {
        raster_chunk<kWalk, true, kClip>(p, in, step, keys, n, at + threadIdx.x);
        return;
      }
    }
    raster_chunk<kWalk, false, kClip>(p, in, step, keys, n, at + threadIdx.x);
  };
  if constexpr (kCull) {
    if (in.list) {  // the listed batches, a contiguous share of them a block
      constexpr int kRoundsABatch = int(kPointBatch / kChunk);
      const int parts = rounds < kRoundsABatch ? kRoundsABatch / rounds : 1;  // items a batch
      const int per_item = kRoundsABatch / parts;
      // for_listed_batches()'s walk written out: called with a lambda here, the kernel measured
      // 8% slower alone (ncu) and frames of 1e8 - 1e9 points 2.5 - 4.5% slower on the H200.
      const uint64_t items = uint64_t(__ldg(in.list_count)) * uint64_t(parts);
      const uint64_t per_block = (items + gridDim.x - 1) / gridDim.x;
      const uint64_t w0 = uint64_t(blockIdx.x) * per_block;
      const uint64_t w1 = w0 + per_block < items ? w0 + per_block : items;
      for (uint64_t w = w0; w < w1; ++w) {
        const uint32_t batch = __ldg(in.list + w / uint64_t(parts));
        const uint8_t f = __ldg(in.flags + batch);
        const bool inside = batch_inside(f), shown = batch_clip_shown(f);
        const uint64_t at0 =
            uint64_t(batch) * kPointBatch + (w % uint64_t(parts)) * uint64_t(per_item) * kChunk;
        for (int r = 0; r < per_item; ++r) {
          const uint64_t at = at0 + uint64_t(r) * kChunk;
          if (at >= n) break;
          chunk(at, inside, shown);
        }
      }
      return;
    }
  }
  bool inside = kAllInside, shown = false;
  for (int round = 0; round < rounds; ++round) {
    const uint64_t at = first + uint64_t(round) * kChunk;
    if (at >= n) break;
    if constexpr (kCull) {
      if (round == 0 || at % kPointBatch == 0) {
        // The same byte for every thread of the block: one broadcast load.
        const uint8_t f = __ldg(in.flags + at / kPointBatch);
        if (!batch_draws(f)) {
          // On to the next batch: the round that starts it.
          round += int((kPointBatch - at % kPointBatch) / kChunk) - 1;
          continue;
        }
        inside = batch_inside(f);
        shown = batch_clip_shown(f);
      }
    }
    chunk(at, inside, shown);
  }
}

/// Point size > 1: every pixel of the clipped square gets the point's key (as on the CPU). One
/// point a thread; kCull as in raster_points (kPointBatch / kThreads rounds a batch). kAdaptive:
/// each point's own size (adaptive_point_size(), in.size), else p.point_size.
template <int kWalk, bool kClip, bool kAdaptive>
__device__ __forceinline__ void splat_point(const ProjParams& p, const RasterInput& in,
                                            uint64_t step, unsigned long long* keys, uint64_t n,
                                            uint64_t i) {
  if (i >= n) return;
  const uint64_t s = kWalk == kStrided ? subset_index(i, step) : i;
  if constexpr (kWalk == kPermutedSubset) {
    if (!in_subset(in.orig[i], in.count, step)) return;
  }
  const Float3 v = in.pos[s];
  int ix, iy;
  uint64_t key;
  if constexpr (kClip) {
    if (!clip_project_to_pixel(p, in.clip, v.x, v.y, v.z, load_rgb(in.colors, s), ix, iy, key))
      return;
  } else {
    if (!project_to_pixel(p, v.x, v.y, v.z, load_rgb(in.colors, s), ix, iy, key)) return;
  }
  int size = p.point_size;
  if constexpr (kAdaptive) size = adaptive_point_size(p, in.size, v.x, v.y, v.z, key_depth(key));
  splat<size_t>(p, size, ix, iy, static_cast<unsigned long long>(key), keys);
}

template <int kWalk, bool kCull = false, bool kClip = false, bool kAdaptive = false>
__global__ void __launch_bounds__(kThreads)
    raster_splats(ProjParams p, RasterInput in, uint64_t step, unsigned long long* keys) {
  static_assert(!kCull || kWalk != kStrided);
  allow_dependents();
  if constexpr (kCull) wait_for_primary();  // this frame's box tests
  const uint64_t n = kWalk == kStrided ? in.count : in.total;
  if constexpr (kCull) {
    auto batch = [&](uint64_t b) {
      const uint64_t first = b * kPointBatch + threadIdx.x;
      for (uint32_t k = 0; k < kPointBatch; k += kThreads)
        splat_point<kWalk, kClip, kAdaptive>(p, in, step, keys, n, first + k);
    };
    if (in.list) {  // the listed batches, in turn
      const uint32_t listed = __ldg(in.list_count);
      for (uint32_t w = blockIdx.x; w < listed; w += gridDim.x) batch(__ldg(in.list + w));
      return;
    }
    if (batch_draws(__ldg(in.flags + blockIdx.x))) batch(blockIdx.x);
  } else {
    splat_point<kWalk, kClip, kAdaptive>(p, in, step, keys, n,
                                         uint64_t(blockIdx.x) * kThreads + threadIdx.x);
  }
}

/// Whether pixel (x, y) is in `r`.
__device__ __forceinline__ bool in_rect(uint32_t x, uint32_t y, const PixelRect& r) {
  return x >= uint32_t(r.x0) && x < uint32_t(r.x1) && y >= uint32_t(r.y0) && y < uint32_t(r.y1);
}

/// One pixel a thread; pixel `first + i` of the image for the rect test.
__global__ void resolve(unsigned long long* __restrict__ keys, size_t pixels, uint32_t first,
                        uint32_t width, PixelRect r, uint32_t background,
                        uint32_t* __restrict__ rgba, float* __restrict__ depth) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= pixels) return;
  const uint32_t at = first + uint32_t(i);
  const uint32_t y = at / width;
  // Outside the rect no point wrote: the key is empty (the last resolve cleared what was written).
  const unsigned long long k = in_rect(at - y * width, y, r) ? keys[i] : kEmptyKey;
  const bool empty = k == kEmptyKey;
  // The clear of the next frame, fused in, and only where a point landed: most pixels of a
  // sparse frame are empty already, and skipping their write halves the resolve's traffic.
  if (!empty) keys[i] = kEmptyKey;
  // The winner's color is the key's low word: no gather from the point colors.
  __stcs(rgba + i, empty ? background : key_color(k));
  if (depth) depth[i] = empty ? __int_as_float(0x7f800000) : key_depth(k);
}

/// Four pixels a thread, as two 16-byte key loads and one 16-byte color store (a quarter of the
/// threads and blocks of resolve()); the caller checks the alignment and runs the tail of fewer
/// than four pixels with resolve(). A quad with no pixel in `r` is background without a read.
__global__ void resolve4(unsigned long long* __restrict__ keys, size_t quads, uint32_t width,
                         PixelRect r, bool whole, uint32_t background, uint32_t* __restrict__ rgba,
                         float* __restrict__ depth) {
  const size_t q = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= quads) return;
  // The quad's pixels 4q .. 4q + 3, which may wrap to the next row when width % 4 != 0. `whole`
  // (the rect is the image, the same for every thread): no division.
  bool any_in = whole;
  if (!whole) {
    uint32_t y = uint32_t(4 * q) / width, x = uint32_t(4 * q) - y * width;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      any_in |= in_rect(x, y, r);
      if (++x == width) x = 0, ++y;
    }
  }
  if (!any_in) {
    // No key read: written while the raster may still run (a programmatic dependent launch).
    __stcs(reinterpret_cast<uint4*>(rgba) + q,
           make_uint4(background, background, background, background));
    if (depth) {
      const float inf = __int_as_float(0x7f800000);
      reinterpret_cast<float4*>(depth)[q] = make_float4(inf, inf, inf, inf);
    }
    wait_for_primary();  // the resolve ends after the raster, for the work after it
    return;
  }
  wait_for_primary();  // the raster's keys, complete and visible
  ulonglong2* kp = reinterpret_cast<ulonglong2*>(keys) + 2 * q;
  const ulonglong2 a = kp[0], b = kp[1];
  const unsigned long long k[4] = {a.x, a.y, b.x, b.y};
  uint32_t c[4];
  float d[4];
  bool any = false;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const bool empty = k[j] == kEmptyKey;
    any |= !empty;
    c[j] = empty ? background : key_color(k[j]);
    d[j] = empty ? __int_as_float(0x7f800000) : key_depth(k[j]);
  }
  if (any) {  // the fused clear, only where a point landed
    const ulonglong2 e = make_ulonglong2(kEmptyKey, kEmptyKey);
    if (a.x != kEmptyKey || a.y != kEmptyKey) kp[0] = e;
    if (b.x != kEmptyKey || b.y != kEmptyKey) kp[1] = e;
  }
  __stcs(reinterpret_cast<uint4*>(rgba) + q, make_uint4(c[0], c[1], c[2], c[3]));
  if (depth) reinterpret_cast<float4*>(depth)[q] = make_float4(d[0], d[1], d[2], d[3]);
}

/// The Hi-Z (engine/culling.h's HizView layout): a block a level-1 tile (64 x 64 pixels, 4 x 4
/// level-0 tiles); thread t takes 16 pixels of row t / 4 of the block, in level-0 tile column t %
/// 4, so a warp reads 8 rows of 512 contiguous bytes. The maxima of a tile's 16 rows meet by
/// shuffles (the 8 rows of a warp) and through shared memory (its two warps).
__global__ void __launch_bounds__(256)
    build_hiz_tiles(const unsigned long long* __restrict__ keys, HizView hiz, PixelRect rect,
                    uint32_t* __restrict__ words) {
  static_assert(kHizTile1 == 4 * kHizTile && kHizTile == 16);
  allow_dependents();  // the second pass's flags
  wait_for_primary();  // the first raster pass's keys; nothing is written before
  const int tx1 = hiz.tiles_x(1);
  const int bx = int(blockIdx.x) % tx1, by = int(blockIdx.x) / tx1;
  const int t = int(threadIdx.x), row = t / 4, quarter = t % 4;
  const int tile_x = bx * 4 + quarter, tile_y = by * 4 + row / kHizTile;
  const int x0 = tile_x * kHizTile, y = by * kHizTile1 + row;
  // The tile meets the rect: its keys are read; otherwise no point wrote there (empty).
  const bool meets = x0 < rect.x1 && x0 + kHizTile > rect.x0 && tile_y * kHizTile < rect.y1 &&
                     tile_y * kHizTile + kHizTile > rect.y0;
  uint32_t m = 0;  // pixels outside the image count for nothing
  if (y < hiz.height) {
    if (!meets) {
      m = x0 < hiz.width ? 0xffffffffu : 0u;
    } else {
      const unsigned long long* k = keys + size_t(y) * size_t(hiz.width);
#pragma unroll
      for (int i = 0; i < kHizTile; ++i)
        if (x0 + i < hiz.width) m = max(m, uint32_t(k[x0 + i] >> 32));
    }
  }
  // Lanes 4 apart share a tile column: the maximum of a warp's 8 rows.
  m = max(m, __shfl_xor_sync(0xffffffffu, m, 4));
  m = max(m, __shfl_xor_sync(0xffffffffu, m, 8));
  m = max(m, __shfl_xor_sync(0xffffffffu, m, 16));
  __shared__ uint32_t part[8][4];
  if ((t & 31) < 4) part[t / 32][quarter] = m;
  __syncthreads();
  if (t < 16) {
    const int q = t % 4, r = t / 4;  // level-0 tile (q, r) of the block
    const uint32_t v = max(part[2 * r][q], part[2 * r + 1][q]);
    const int ox = bx * 4 + q, oy = by * 4 + r;
    if (ox < hiz.tiles_x(0) && oy < hiz.tiles_y(0)) words[oy * hiz.tiles_x(0) + ox] = v;
  }
  if (t == 0) {
    uint32_t v = 0;
    for (int w = 0; w < 8; ++w)
      for (int q = 0; q < 4; ++q) v = max(v, part[w][q]);
    words[hiz.level_words(0) + size_t(by) * size_t(tx1) + size_t(bx)] = v;
  }
}

template <int kWalk, bool kCull = false>
void launch_points(const ProjParams& p, const RasterInput& in, uint64_t step,
                   unsigned long long* keys, cudaStream_t stream) {
  const uint64_t n = kWalk == kStrided ? in.count : in.total;
  const uint64_t per_block = uint64_t(in.rounds) * kChunk;
  unsigned blocks = unsigned((n + per_block - 1) / per_block);
  if (blocks == 0) return;
  if (kCull && in.list && blocks > in.list_blocks) blocks = in.list_blocks;
  const bool dep = kCull && in.pdl;  // after the box tests (box_flags())
  // A frame with a clip runs the kernels that test it (kClip): those without it stay as they are.
  const bool clip = in.clip.active();
  if constexpr (!kCull && kWalk != kStrided) {
    if (in.all_inside) {
      if (clip)
        launch_kernel(raster_points<kWalk, false, true, true>, blocks, kThreads, stream, dep, p, in,
                      step, keys);
      else
        launch_kernel(raster_points<kWalk, false, true>, blocks, kThreads, stream, dep, p, in, step,
                      keys);
      return;
    }
  }
  if (clip)
    launch_kernel(raster_points<kWalk, kCull, false, true>, blocks, kThreads, stream, dep, p, in,
                  step, keys);
  else
    launch_kernel(raster_points<kWalk, kCull>, blocks, kThreads, stream, dep, p, in, step, keys);
}

template <int kWalk, bool kCull = false>
void launch_splats(const ProjParams& p, const RasterInput& in, uint64_t step,
                   unsigned long long* keys, cudaStream_t stream) {
  const uint64_t n = kWalk == kStrided ? in.count : in.total;
  const uint64_t per_block = kCull ? uint64_t(kPointBatch) : uint64_t(kThreads);
  unsigned blocks = unsigned((n + per_block - 1) / per_block);
  if (blocks == 0) return;
  if (kCull && in.list && blocks > in.list_blocks) blocks = in.list_blocks;
  const bool dep = kCull && in.pdl;
  // Frames with a clip or adaptive sizes run the kernels compiled with them; the others as they
  // are.
  const bool clip = in.clip.active();
  if (in.size.active() && clip)
    launch_kernel(raster_splats<kWalk, kCull, true, true>, blocks, kThreads, stream, dep, p, in,
                  step, keys);
  else if (in.size.active())
    launch_kernel(raster_splats<kWalk, kCull, false, true>, blocks, kThreads, stream, dep, p, in,
                  step, keys);
  else if (clip)
    launch_kernel(raster_splats<kWalk, kCull, true>, blocks, kThreads, stream, dep, p, in, step,
                  keys);
  else
    launch_kernel(raster_splats<kWalk, kCull>, blocks, kThreads, stream, dep, p, in, step, keys);
}

}  // namespace

bool launch_raster(const ProjParams& p, const RasterInput& in, unsigned long long* keys,
                   cudaStream_t stream) {
  if (in.count == 0 || in.total == 0) return true;
  const uint64_t step = subset_step(in.total, in.count);
  const bool subset = step != kFullStep;
  if (subset && in.permuted && !in.orig) return false;
  const int walk = !subset ? kAll : in.permuted ? kPermutedSubset : kStrided;
  // The batches cover the stored order, so they serve the walks over every stored point.
  const bool cull = walk != kStrided && in.flags != nullptr;
  if (p.point_size <= 1) {
    if (walk == kAll && cull)
      launch_points<kAll, true>(p, in, step, keys, stream);
    else if (walk == kAll)
      launch_points<kAll>(p, in, step, keys, stream);
    else if (walk == kStrided)
      launch_points<kStrided>(p, in, step, keys, stream);
    else if (cull)
      launch_points<kPermutedSubset, true>(p, in, step, keys, stream);
    else
      launch_points<kPermutedSubset>(p, in, step, keys, stream);
  } else {
    if (walk == kAll && cull)
      launch_splats<kAll, true>(p, in, step, keys, stream);
    else if (walk == kAll)
      launch_splats<kAll>(p, in, step, keys, stream);
    else if (walk == kStrided)
      launch_splats<kStrided>(p, in, step, keys, stream);
    else if (cull)
      launch_splats<kPermutedSubset, true>(p, in, step, keys, stream);
    else
      launch_splats<kPermutedSubset>(p, in, step, keys, stream);
  }
  return true;
}

void launch_hiz(const unsigned long long* keys, int width, int height, const PixelRect& rect,
                uint32_t* hiz, cudaStream_t stream, bool pdl) {
  if (width <= 0 || height <= 0) return;
  HizView v;
  v.width = width;
  v.height = height;
  launch_kernel(build_hiz_tiles, unsigned(v.level_words(1)), 256u, stream, pdl, keys, v, rect, hiz);
}

void launch_resolve(unsigned long long* keys, int width, int height, const PixelRect& rect,
                    uint32_t background, uint32_t* rgba, float* depth, cudaStream_t stream,
                    bool pdl) {
  if (width <= 0 || height <= 0) return;
  const size_t pixels = size_t(width) * size_t(height);
  const uint32_t w = uint32_t(width);
  auto aligned = [](const void* ptr) { return reinterpret_cast<uintptr_t>(ptr) % 16 == 0; };
  size_t done = 0;
  if (aligned(keys) && aligned(rgba) && (!depth || aligned(depth))) {
    const size_t quads = pixels / 4;
    if (quads > 0) {
      const unsigned blocks = unsigned((quads + kThreads - 1) / kThreads);
      const bool whole = rect.x0 <= 0 && rect.y0 <= 0 && rect.x1 >= width && rect.y1 >= height;
      launch_kernel(resolve4, blocks, kThreads, stream, pdl, keys, quads, w, rect, whole,
                    background, rgba, depth);
    }
    done = quads * 4;
  }
  if (done == pixels) return;
  const size_t rest = pixels - done;
  const unsigned blocks = unsigned((rest + kThreads - 1) / kThreads);
  resolve<<<blocks, kThreads, 0, stream>>>(keys + done, rest, uint32_t(done), w, rect, background,
                                           rgba + done, depth ? depth + done : nullptr);
}

}  // namespace pr::cuda
