#include "engine/cpu_renderer.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cpu_edl.h"
#include "cpu_frame.h"
#include "engine/hq_splat.h"
#include "engine/parallel.h"
#include "project_batch.h"

namespace pr {

namespace {

using cpu_detail::BinEntry;
using cpu_detail::FrameTarget;

/// Resolves one visibility-buffer key to a pixel color: the winning point's color (the key's low
/// word), or the background.
inline uint32_t resolve_key(uint64_t key, uint32_t background) {
  return key == kEmptyKey ? background : key_color(key);
}

/// Depth test: keep the smaller key. The plain load first is the "early depth test": most points
/// lose to a nearer one already drawn, and a load is much cheaper than a compare-exchange.
inline void depth_min(uint64_t* slot, uint64_t key) {
  std::atomic_ref<uint64_t> ref(*slot);
  uint64_t old = ref.load(std::memory_order_relaxed);
  while (key < old && !ref.compare_exchange_weak(old, key, std::memory_order_relaxed)) {
  }
}

// The resolve writes the whole image every frame and does not read it back: on x86-64 its
// colors go out as non-temporal stores, which skip reading each line before it is written (the
// frame's largest memory traffic after the keys).
/// `n` pixels of `bg` from `dst`.
inline void stream_fill(uint32_t* dst, size_t n, uint32_t bg) {
#if defined(__SSE2__)
  size_t i = 0;
  for (; i < n && (reinterpret_cast<uintptr_t>(dst + i) & 15) != 0; ++i) dst[i] = bg;
  const __m128i v = _mm_set1_epi32(int(bg));
  for (; i + 4 <= n; i += 4) _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), v);
  for (; i < n; ++i) dst[i] = bg;
#else
  std::fill(dst, dst + n, bg);
#endif
}

/// `n` keys into colors (and depths, when `depth` is not null), the keys reset to empty. `acc`
/// (or null): the high-quality splats' accumulators of these pixels (engine/hq_splat.h), which
/// give the colors and are reset to zero.
inline void resolve_span(uint64_t* __restrict keys, size_t n, uint32_t bg,
                         uint32_t* __restrict rgba, float* __restrict depth,
                         uint64_t* __restrict acc) {
  if (acc) {
    for (size_t i = 0; i < n; ++i) {
      const uint64_t k = keys[i];
      rgba[i] = k == kEmptyKey ? bg : hq_color(k, acc[2 * i], acc[2 * i + 1]);
    }
    std::fill(acc, acc + 2 * n, uint64_t{0});
  } else {
#if defined(__SSE2__)
    if (n % 4 == 0 && (reinterpret_cast<uintptr_t>(rgba) & 15) == 0) {
      for (size_t i = 0; i < n; i += 4) {
        uint32_t c[4];
        for (size_t j = 0; j < 4; ++j) c[j] = resolve_key(keys[i + j], bg);
        _mm_stream_si128(reinterpret_cast<__m128i*>(rgba + i),
                         _mm_setr_epi32(int(c[0]), int(c[1]), int(c[2]), int(c[3])));
      }
    } else {
      for (size_t i = 0; i < n; ++i) rgba[i] = resolve_key(keys[i], bg);
    }
#else
    for (size_t i = 0; i < n; ++i) rgba[i] = resolve_key(keys[i], bg);
#endif
  }
  if (depth)
    for (size_t i = 0; i < n; ++i) depth[i] = keys[i] == kEmptyKey ? INFINITY : key_depth(keys[i]);
  std::fill(keys, keys + n, kEmptyKey);
}

/// Orders this thread's non-temporal stores before what follows the resolve.
inline void stream_done() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

/// The pixels of the sort-middle bands (CpuRenderer::run_units()): 2^15 consecutive pixels, whose
/// keys (256 KB) stay in a core's L2 while one thread depth-tests the band. (2^14 measured 5 - 10%
/// slower in Morton order and 1.9x slower in random order on 2 cores: more bins to write to;
/// 2^16 faster in random order but slower in Morton order, and fewer bands than threads share.)
constexpr int kBandShift = 15;

/// A square of side `size` centred on pixel (ix, iy): depth-tests each pixel and marks every tile
/// it touches.
inline void splat_keys(const FrameTarget& t, int size, int ix, int iy, uint64_t key) {
  int x0, y0, x1, y1;
  splat_rect_sized(*t.p, size, ix, iy, x0, y0, x1, y1);
  for (int ty = y0 / kTile; ty <= (y1 - 1) / kTile; ++ty)
    for (int tx = x0 / kTile; tx <= (x1 - 1) / kTile; ++tx)
      t.mark(uint32_t(tx * kTile), uint32_t(ty * kTile));
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) depth_min(t.keys + size_t(y) * t.width + size_t(x), key);
}

/// Points straight to the visibility buffer (splats, and frames with binning off): the early
/// test, then the atomic compare-exchange.
struct DirectEmit {
  const FrameTarget& t;
  mutable uint64_t drawn = 0;  // points handed over (added to t.drawn at the end)
  void operator()(uint32_t pix, uint64_t key) const {
    ++drawn;
    uint64_t* slot = t.keys + pix;
    // Early depth test: skip the compare-exchange for hidden points. A relaxed atomic load (a
    // plain load on x86-64), since other threads write the key meanwhile.
    if (key < std::atomic_ref<uint64_t>(*slot).load(std::memory_order_relaxed)) {
      t.mark(pix);
      depth_min(slot, key);
    }
  }
  void prefetch(uint32_t pix) const { __builtin_prefetch(t.keys + pix, 1); }
  void splat(int size, int ix, int iy, uint64_t key) const {
    ++drawn;  // a point drawn as a square, for the count
    splat_keys(t, size, ix, iy, key);
  }
};

/// Points into one thread's bins, a bin a band. No early depth test: reading a random key costs
/// the cache miss that the binning is there to avoid (measured: slower at 1e6 points, and at 1e7
/// no faster than the atomics). Squares are not binned (bin_frame() bins 1-pixel points only).
struct BinEmit {
  const FrameTarget& t;
  std::vector<BinEntry>* bins;
  void operator()(uint32_t pix, uint64_t key) const {
    bins[pix >> kBandShift].push_back({key, pix});
  }
  void prefetch(uint32_t) const {}
  void splat(int size, int ix, int iy, uint64_t key) const { splat_keys(t, size, ix, iy, key); }
};

/// High-quality splats' second pass (engine/hq_splat.h): the points of the depth test again,
/// each adding its color to the accumulator of the pixels whose nearest depth it is within range
/// of. The keys are final here (read with plain loads); the sums take atomic adds.
struct HqEmit {
  const FrameTarget& t;
  uint64_t* acc;  // two words a pixel
  void operator()(uint32_t pix, uint64_t key) const {
    if (!hq_blends(uint32_t(key >> 32), t.keys[pix])) return;
    const uint32_t color = key_color(key);
    std::atomic_ref<uint64_t>(acc[2 * size_t(pix)])
        .fetch_add(hq_word_a(color), std::memory_order_relaxed);
    std::atomic_ref<uint64_t>(acc[2 * size_t(pix) + 1])
        .fetch_add(hq_word_b(color), std::memory_order_relaxed);
  }
  void prefetch(uint32_t pix) const { __builtin_prefetch(t.keys + pix); }
  void splat(int size, int ix, int iy, uint64_t key) const {
    int x0, y0, x1, y1;
    splat_rect_sized(*t.p, size, ix, iy, x0, y0, x1, y1);
    for (int y = y0; y < y1; ++y)
      for (int x = x0; x < x1; ++x) (*this)(uint32_t(y) * t.width + uint32_t(x), key);
  }
};

/// Stored points a binning group: the bins of a group (12 bytes a point) stay within the caches.
constexpr size_t kBinGroup = size_t{1} << 18;

}  // namespace

std::unique_ptr<Renderer> make_cpu_renderer(unsigned threads) {
  return std::make_unique<CpuRenderer>(threads);
}

CpuRenderer::CpuRenderer(unsigned threads) : threads_(threads == 0 ? default_threads() : threads) {}

CpuRenderer::~CpuRenderer() = default;

FrameMemory CpuRenderer::frame_memory(const RenderSettings& s) const {
  FrameMemory m;
  // A key (8 bytes) and the image's color (4) a pixel, the depth image (4) and the high-quality
  // splats' accumulators (16) when asked for, and a byte for the occupancy tiles and the Hi-Z.
  m.host_bytes_per_pixel = 8 + 4 + 1 + (s.want_depth ? 4 : 0) + (s.hq ? 16 : 0);
  // Pixels are indexed with 32 bits, ~0 marking a point that draws nothing.
  m.max_pixels = std::numeric_limits<uint32_t>::max() - 1;
  return m;
}

size_t CpuRenderer::memory_bytes() const {
  size_t bins = bins_.capacity() * sizeof(bins_[0]);
  for (const auto& v : bins_) bins += v.capacity() * sizeof(BinEntry);
  return keys_.capacity() * sizeof(uint64_t) + hq_acc_.capacity() * sizeof(uint64_t) +
         tile_dirty_.capacity() + compact_->memory_bytes() + boxes_.size() * sizeof(PointBox) +
         hiz_.capacity() * sizeof(uint32_t) + pass_.capacity() +
         list_.capacity() * sizeof(uint32_t) + bins;
}

template <class UnitFn>
void CpuRenderer::run_units(size_t units, const uint32_t* list, const FrameTarget& t, Pass pass,
                            UnitFn unit) {
  if (units == 0) return;
  if (pass == Pass::kHq) {
    parallel_for(
        units,
        [&](size_t b, size_t e) {
          const HqEmit emit{t, hq_acc_.data()};
          for (size_t k = b; k < e; ++k) unit(list ? size_t(list[k]) : k, emit);
        },
        threads_, 1);
    return;
  }
  if (pass == Pass::kDepth) {
    parallel_for(
        units,
        [&](size_t b, size_t e) {
          const DirectEmit emit{t};
          for (size_t k = b; k < e; ++k) unit(list ? size_t(list[k]) : k, emit);
          t.drawn.fetch_add(emit.drawn, std::memory_order_relaxed);
        },
        threads_, 1);
    return;
  }
  // Sort-middle binning. Phase 1: each thread projects units and appends every point that draws
  // to its own bin of the point's band (2^kBandShift consecutive pixels). Phase 2: each band is
  // depth-tested by one thread, from every thread's bin, with plain loads and stores in a band of
  // keys that stays in its cache. In groups of kBinGroup points, so that the bins stay small.
  const size_t slots = threads_;
  const size_t bands = (t.pixels + (size_t{1} << kBandShift) - 1) >> kBandShift;
  if (bins_.size() != slots * bands) bins_.assign(slots * bands, {});
  constexpr size_t per_group = kBinGroup / kPointBatch;
  for (size_t g0 = 0; g0 < units; g0 += per_group) {
    const size_t g1 = std::min(units, g0 + per_group);
    std::atomic<size_t> next{g0};
    parallel_for(
        slots,
        [&](size_t s0, size_t s1) {
          for (size_t slot = s0; slot < s1; ++slot) {
            const BinEmit emit{t, bins_.data() + slot * bands};
            for (size_t k; (k = next.fetch_add(1, std::memory_order_relaxed)) < g1;)
              unit(list ? size_t(list[k]) : k, emit);
          }
        },
        threads_, 1);
    std::atomic<size_t> band{0};
    parallel_for(
        slots,
        [&](size_t, size_t) {
          uint64_t drawn = 0;
          for (size_t b; (b = band.fetch_add(1, std::memory_order_relaxed)) < bands;)
            for (size_t slot = 0; slot < slots; ++slot) {
              std::vector<BinEntry>& bin = bins_[slot * bands + b];
              drawn += bin.size();
              // Branch-free: in an incoherent order a point wins about as often as it loses,
              // and a mispredicted branch costs more than the store. Every binned point marks
              // its tile (a loser's tile is marked by the point it lost to anyway).
              uint64_t* const keys = t.keys;
              const BinEntry* const data = bin.data();
              const size_t size = bin.size();
              for (size_t i = 0; i < size; ++i) {
                // The bins were written by every thread: fetch them ahead (6 - 7% of the frame
                // at 1e6 points on 2 cores).
                __builtin_prefetch(data + i + 32);
                // By value: the entry is packed, so its key may lie off an 8-byte boundary.
                const uint64_t key = data[i].key;
                const uint32_t pix = data[i].pix;
                uint64_t& k = keys[pix];
                k = std::min(k, key);
                t.mark(pix);
              }
              bin.clear();
            }
          t.drawn.fetch_add(drawn, std::memory_order_relaxed);
        },
        threads_, 1);
  }
}

template <class VisibleFn, class FootprintFn, class UnitFn>
void CpuRenderer::draw_batches(const ProjParams& p, size_t batches, size_t stored_points,
                               const FrameTarget& t, bool binned, bool hq, VisibleFn visible,
                               FootprintFn footprint, UnitFn unit) {
  const bool occl =
      options_.culling && occlusion_.choose_for_frame(options_.occlusion, stored_points);
  occlusion_ran_ = occl;
  // High-quality splats: a batch is hidden only beyond kHqDepthRange of the depths in front of
  // it (HizView::depth_scale), as its points would otherwise join the averages.
  const float depth_scale = hq ? kHqDepthRange : 1.0f;
  HizView last;  // the last run's Hi-Z, when it is of this image size
  last.depth_scale = depth_scale;
  if (occl && hiz_w_ == p.width && hiz_h_ == p.height) {
    last.words = hiz_.data();
    last.width = hiz_w_;
    last.height = hiz_h_;
  }
  // Each batch's pass: 0 culled, 1 drawn by the first pass, 2 deferred by occlusion culling, 3
  // drawn by its second pass, 4 hidden by this frame's Hi-Z.
  pass_.assign(batches, 0);
  std::atomic<uint64_t> culled{0};
  parallel_for(
      batches,
      [&](size_t b0, size_t b1) {
        uint64_t my_culled = 0;
        for (size_t bi = b0; bi < b1; ++bi) {
          if (!visible(bi))
            ++my_culled;
          else
            pass_[bi] = last.words && footprint_occluded(footprint(bi), last) ? 2 : 1;
        }
        culled.fetch_add(my_culled, std::memory_order_relaxed);
      },
      threads_, 256);
  culled_batches_ = culled.load();
  auto draw_pass = [&](uint8_t which) {
    list_.clear();
    for (size_t bi = 0; bi < batches; ++bi)
      if (pass_[bi] == which) list_.push_back(uint32_t(bi));
    run_units(list_.size(), list_.data(), t, binned ? Pass::kBinned : Pass::kDepth, unit);
  };
  draw_pass(1);
  if (!occl) return;
  // The Hi-Z of the first pass's keys, then the second pass: the deferred batches it does not
  // hide. Every batch in view is tested, for the count that decides the next frames.
  HizView now;
  now.depth_scale = depth_scale;
  now.width = p.width;
  now.height = p.height;
  hiz_.resize(now.total_words());
  hiz_w_ = p.width;
  hiz_h_ = p.height;
  build_hiz(keys_.data(), p.width, p.height, hiz_.data(),
            HizOccupancy{tile_dirty_.data(), kTile, tiles_x_, tiles_y_}, threads_);
  now.words = hiz_.data();
  std::atomic<uint64_t> hidden{0}, occluded{0};
  parallel_for(
      batches,
      [&](size_t b0, size_t b1) {
        uint64_t my_hidden = 0, my_occluded = 0;
        for (size_t bi = b0; bi < b1; ++bi) {
          if (pass_[bi] == 0) continue;
          const bool hid = footprint_occluded(footprint(bi), now);
          my_hidden += hid;
          if (pass_[bi] != 2) continue;
          my_occluded += hid;
          pass_[bi] = hid ? 4 : 3;
        }
        hidden.fetch_add(my_hidden, std::memory_order_relaxed);
        occluded.fetch_add(my_occluded, std::memory_order_relaxed);
      },
      threads_, 256);
  occlusion_.report(hidden.load(), batches - culled_batches_);
  occluded_batches_ = occluded.load();
  draw_pass(3);
  second_pass_batches_ = list_.size();
}

template <class UnitFn>
void CpuRenderer::hq_batches(const FrameTarget& t, UnitFn unit) {
  list_.clear();
  for (size_t bi = 0; bi < pass_.size(); ++bi)
    if (pass_[bi] == 1 || pass_[bi] == 3) list_.push_back(uint32_t(bi));
  run_units(list_.size(), list_.data(), t, Pass::kHq, unit);
}

bool CpuRenderer::set_cloud(const PointCloud& cloud, std::string* error) {
  if (cloud.size() >= size_t(std::numeric_limits<uint32_t>::max())) {
    if (error) *error = "cloud has too many points for a 32-bit point index";
    cloud_ = nullptr;
    return false;
  }
  cloud_ = &cloud;
  size_age_.new_cloud();
  compact_active_ = false;
  compact_ = std::make_shared<const CompactCloud>();
  boxes_ = PodVector<PointBox>();  // made by the first frame that culls (not in GPU mode)
  hiz_w_ = hiz_h_ = 0;             // another cloud's depths
  occlusion_.reset();
  if (options_.compact) {
    const bool sort = wants_spatial_sort(options_.sort, cloud, cloud.local_bounds());
    auto built = std::make_shared<CompactCloud>();
    if (!build_compact(cloud, sort, built.get(), error)) {
      cloud_ = nullptr;
      return false;
    }
    compact_ = std::move(built);
    compact_active_ = true;
  }
  return true;
}

bool CpuRenderer::update_points(const PointCloud& cloud, uint64_t first, uint64_t count,
                                std::string* error) {
  const uint64_t n = cloud.size();
  const char* why = &cloud != cloud_ || cloud.colors.size() != n
                        ? "not the cloud being drawn, or a color array of another size"
                    : compact_active_                ? "the cloud is stored in compact form"
                    : first > n || count > n - first ? "the range lies outside the cloud"
                                                     : nullptr;
  if (why) {
    if (error)
      *error = "update_points [" + std::to_string(first) + ", +" + std::to_string(count) + ") of " +
               std::to_string(n) + " points: " + why;
    return false;
  }
  size_age_.points_changed(count);  // the grid is made again once enough points changed
  // Boxes exist only once a culled frame made them; then the touched batches' boxes are made
  // again by the same function, from the batch's first point (the batches are aligned to
  // kPointBatch stored points, so a range's batches are boxed whole). The Hi-Z and the occlusion
  // policy stay: the last frame's Hi-Z only defers batches to the second pass, which tests them
  // against the frame's own Hi-Z, so a changed batch is never skipped for stale depths.
  const size_t batches = size_t((n + kPointBatch - 1) / kPointBatch);
  if (!boxes_.empty() && boxes_.size() < batches) {
    // The cloud grew (a streaming pool): the new batches' boxes, and the old last one's, which
    // may have been partial.
    const size_t from = boxes_.size() - 1;
    PodVector<PointBox> grown;
    compute_point_boxes(cloud.positions.data() + from * kPointBatch, n - from * kPointBatch,
                        &grown);
    boxes_.resize(from);
    boxes_.insert(boxes_.end(), grown.begin(), grown.end());
  }
  if (count == 0 || boxes_.size() != batches) return true;
  const size_t b0 = size_t(first / kPointBatch);
  const size_t b1 = size_t((first + count - 1) / kPointBatch) + 1;
  const size_t s0 = b0 * kPointBatch, s1 = std::min(size_t(n), b1 * size_t(kPointBatch));
  PodVector<PointBox> touched;
  compute_point_boxes(cloud.positions.data() + s0, s1 - s0, &touched);
  std::copy(touched.begin(), touched.end(), boxes_.begin() + ptrdiff_t(b0));
  return true;
}

namespace {

/// One projected point at local (x, y, z): its pixel to `emit`, or (`big`: point_size > 1) its
/// square, of the frame's size or (`size`, adaptive) its own (engine/point_size.h).
template <class Emit>
inline void plot(const ProjParams& p, bool big, const SizeGrid* size, float x, float y, float z,
                 int ix, int iy, uint64_t key, const Emit& emit) {
  if (big)
    emit.splat(point_size_of(p, size, x, y, z, key_depth(key)), ix, iy, key);
  else
    emit(uint32_t(iy) * uint32_t(p.width) + uint32_t(ix), key);
}

/// The stored points of a plain (float) cloud, drawn into an emit (DirectEmit, BinEmit, HqEmit).
struct PlainPoints {
  const ProjParams& p;
  const Float3* pos;
  const uint32_t* colors;
  bool big;                          // point_size > 1: squares
  const ClipParams* clip = nullptr;  // the frame's clip (engine/clip_math.h), or null: none
  const SizeGrid* size = nullptr;    // the frame's adaptive sizes, or null: point_size

  /// 1-pixel points [b, e): a run is projected into small arrays first, in a loop with no
  /// branches or atomics that the compiler vectorizes (project_batch), then the run's points
  /// that draw go to `emit`.
  template <class Emit>
  void run(size_t b, size_t e, const Emit& emit) const {
    constexpr size_t kRun = 512;
    alignas(64) uint32_t pix[kRun];
    alignas(64) float dep[kRun];
    for (size_t b0 = b; b0 < e; b0 += kRun) {
      const size_t n = std::min(kRun, e - b0);
      project_batch(p, reinterpret_cast<const float*>(pos + b0), n, pix, dep);
      // A depth test reads one random pixel a point: prefetch a few points ahead so that
      // several cache misses are in flight instead of one.
      constexpr size_t kAhead = 16;
      for (size_t j = 0; j < std::min(n, kAhead); ++j)
        if (pix[j] != ~0u) emit.prefetch(pix[j]);
      for (size_t j = 0; j < n; ++j) {
        if (j + kAhead < n && pix[j + kAhead] != ~0u) emit.prefetch(pix[j + kAhead]);
        if (pix[j] != ~0u) emit(pix[j], pack_key(dep[j], colors[b0 + j]));
      }
    }
  }
  /// run() with the clip's test of each point that draws: hidden points are dropped, tinted ones
  /// take the tint into their key.
  template <class Emit>
  void run_clipped(size_t b, size_t e, const Emit& emit) const {
    constexpr size_t kRun = 512;
    alignas(64) uint32_t pix[kRun];
    alignas(64) float dep[kRun];
    for (size_t b0 = b; b0 < e; b0 += kRun) {
      const size_t n = std::min(kRun, e - b0);
      project_batch(p, reinterpret_cast<const float*>(pos + b0), n, pix, dep);
      for (size_t j = 0; j < n; ++j) {
        if (pix[j] == ~0u) continue;
        const Float3 v = pos[b0 + j];
        const uint32_t k = clip_point(*clip, v.x, v.y, v.z);
        if (k != kClipHidden) emit(pix[j], pack_key(dep[j], clip_color(*clip, k, colors[b0 + j])));
      }
    }
  }
  /// Stored point i, any point size; `test`: with the clip's test.
  template <class Emit>
  void one(size_t i, const Emit& emit, bool test = false) const {
    const Float3 v = pos[i];
    int ix, iy;
    uint64_t key;
    if (test ? clip_project_to_pixel(p, *clip, v.x, v.y, v.z, colors[i], ix, iy, key)
             : project_to_pixel(p, v.x, v.y, v.z, colors[i], ix, iy, key))
      plot(p, big, size, v.x, v.y, v.z, ix, iy, key, emit);
  }
  /// Stored points [b, e), any point size; `test`: with the clip's test.
  template <class Emit>
  void points(size_t b, size_t e, const Emit& emit, bool test = false) const {
    if (!big) return test ? run_clipped(b, e, emit) : run(b, e, emit);
    for (size_t i = b; i < e; ++i) one(i, emit, test);
  }
};

/// The resolve of a frame without EDL, by tiles: touched tiles turn keys into colors (from the
/// high-quality splats' accumulators `acc` when not null) and reset the keys (and `acc`);
/// untouched tiles are background. Row by row across the tiles, so that the image is written in
/// order; the tile flags are cleared for the next frame.
void resolve_tiles(uint64_t* keys, uint8_t* dirty, int W, int H, int tiles_x_, int tiles_y,
                   uint32_t bg, uint64_t* acc, uint32_t* rgba, float* depth, unsigned threads) {
  const size_t tiles_x = size_t(tiles_x_);
  parallel_for(
      size_t(tiles_y),
      [&](size_t ty0, size_t ty1) {
        for (size_t ty = ty0; ty < ty1; ++ty) {
          const int y0 = int(ty) * kTile, y1 = std::min(H, y0 + kTile);
          uint8_t* flags = dirty + ty * tiles_x;
          for (int y = y0; y < y1; ++y) {
            const size_t row = size_t(y) * size_t(W);
            for (size_t tx = 0; tx < tiles_x; ++tx) {
              if (!flags[tx]) {  // a run of untouched tiles: background in one fill
                size_t end = tx + 1;
                while (end < tiles_x && !flags[end]) ++end;
                const size_t x0 = row + tx * kTile, x1 = row + std::min(size_t(W), end * kTile);
                stream_fill(rgba + x0, x1 - x0, bg);
                if (depth) std::fill(depth + x0, depth + x1, INFINITY);
                tx = end - 1;
                continue;
              }
              const size_t x0 = row + tx * kTile, x1 = row + std::min(size_t(W), (tx + 1) * kTile);
              resolve_span(keys + x0, x1 - x0, bg, rgba + x0, depth ? depth + x0 : nullptr,
                           acc ? acc + 2 * x0 : nullptr);
            }
          }
          std::fill(flags, flags + tiles_x, uint8_t{0});
        }
        stream_done();
      },
      threads, 1);
}

}  // namespace

void CpuRenderer::size_buffers(int width, int height) {
  if (keys_w_ == width && keys_h_ == height) return;  // once per size change
  keys_.assign(size_t(width) * size_t(height), kEmptyKey);
  keys_w_ = width;
  keys_h_ = height;
  tiles_x_ = (width + kTile - 1) / kTile;
  tiles_y_ = (height + kTile - 1) / kTile;
  tile_dirty_.assign(size_t(tiles_x_) * size_t(tiles_y_), 0);
}

void CpuRenderer::raster_compact(const ProjParams& p, const FrameTarget& t, uint64_t count,
                                 bool binned, bool hq) {
  // Compact positions: batch by batch (the box test first), every stored point projected through
  // its batch's forms (compact_forms(), engine/compact.h), decoded only for a clip or adaptive
  // sizes; a subset keeps the stored points whose original index is in it. The key carries the
  // point's color, read through the original index.
  const CompactCloud& cc = *compact_;
  const uint32_t* colors = cloud_->colors.data();
  const uint64_t total_points = cloud_->size();
  const uint64_t step = subset_step(total_points, count);
  const bool subset = step != (uint64_t{1} << 32);
  const bool cull = options_.culling;
  const bool big = p.point_size > 1;
  const ClipParams* clip = clip_.active() ? &clip_ : nullptr;
  const SizeGrid* size = size_.active() ? &size_ : nullptr;
  auto unit = [&](size_t bi, const auto& emit) {
    const CompactBatch box = cc.batches[bi];
    const CompactForms forms = compact_forms(p, box);
    // A batch the clip shows whole skips the per-point test.
    const bool test = clip && clip_box_class(*clip, box) != kClipShown;
    const bool decode = test || (big && size);  // the point's position is needed
    const size_t s0 = bi * kCompactBatch, s1 = std::min(size_t(total_points), s0 + kCompactBatch);
    if (!big) {
      // 1-pixel points: a run of words projected in a vectorized loop first (PlainPoints::run()).
      constexpr size_t kRun = 512, kAhead = 16;
      alignas(64) uint32_t pix[kRun];
      alignas(64) float dep[kRun];
      for (size_t b0 = s0; b0 < s1; b0 += kRun) {
        const size_t n = std::min(kRun, s1 - b0);
        compact_project_batch(p, forms, cc.words.data() + b0, n, pix, dep);
        for (size_t j = 0; j < std::min(n, kAhead); ++j)
          if (pix[j] != ~0u) emit.prefetch(pix[j]);
        for (size_t j = 0; j < n; ++j) {
          if (j + kAhead < n && pix[j + kAhead] != ~0u) emit.prefetch(pix[j + kAhead]);
          if (pix[j] == ~0u) continue;
          const size_t si = b0 + j;
          const uint32_t id = cc.orig.empty() ? uint32_t(si) : cc.orig[si];
          if (subset && !in_subset(id, count, step)) continue;
          uint32_t color = colors[id];
          if (test) {
            float x, y, z;
            compact_decode(box, cc.words[si], x, y, z);
            const uint32_t k = clip_point(*clip, x, y, z);
            if (k == kClipHidden) continue;
            color = clip_color(*clip, k, color);
          }
          emit(pix[j], pack_key(dep[j], color));
        }
      }
      return;
    }
    for (size_t si = s0; si < s1; ++si) {
      const uint32_t id = cc.orig.empty() ? uint32_t(si) : cc.orig[si];
      if (subset && !in_subset(id, count, step)) continue;
      const uint32_t w = cc.words[si];
      int ix, iy;
      uint32_t dbits;
      if (!compact_to_pixel(p, forms, w, ix, iy, dbits)) continue;
      float x = 0.0f, y = 0.0f, z = 0.0f;
      if (decode) compact_decode(box, w, x, y, z);
      uint32_t color = colors[id];
      if (test) {
        const uint32_t k = clip_point(*clip, x, y, z);
        if (k == kClipHidden) continue;
        color = clip_color(*clip, k, color);
      }
      plot(p, big, size, x, y, z, ix, iy, pack_key(bits_float(dbits), color), emit);
    }
  };
  draw_batches(
      p, cc.batches.size(), total_points, t, binned, hq,
      [&](size_t bi) {
        return (!cull || compact_box_may_draw(p, cc.batches[bi])) &&
               (!clip || clip_box_class(*clip, cc.batches[bi]) != kClipHidden);
      },
      [&](size_t bi) { return compact_box_footprint(p, cc.batches[bi]); }, unit);
  if (hq) hq_batches(t, unit);
}

void CpuRenderer::raster_plain(const ProjParams& p, const FrameTarget& t, uint64_t count,
                               bool binned, bool hq) {
  const uint64_t total_points = cloud_->size();
  const Float3* pos = cloud_->positions.data();
  const ClipParams* clip = clip_.active() ? &clip_ : nullptr;
  const PlainPoints draw{
      p, pos, cloud_->colors.data(), p.point_size > 1, clip, size_.active() ? &size_ : nullptr};
  const uint64_t step = subset_step(total_points, count);
  const bool all = step == (uint64_t{1} << 32);
  const bool cull = options_.culling;
  // A clip tests the batches too (those it hides are skipped), culling or not.
  const bool batched = all && (cull || clip);
  const size_t batches = (total_points + kPointBatch - 1) / kPointBatch;
  if (batched && boxes_.size() != batches)  // once per cloud: a pass over the positions
    compute_point_boxes(pos, total_points, &boxes_);
  if (batched) {
    // Batch by batch, the box test first (engine/culling.h), then occlusion culling's.
    const PointBox* boxes = boxes_.data();
    auto unit = [&](size_t bi, const auto& emit) {
      // A batch the clip shows whole skips the per-point test.
      const bool test = clip && clip_box_class(*clip, boxes[bi]) != kClipShown;
      draw.points(bi * kPointBatch, std::min(size_t(total_points), (bi + 1) * size_t(kPointBatch)),
                  emit, test);
    };
    draw_batches(
        p, boxes_.size(), total_points, t, binned, hq,
        [&](size_t bi) {
          return (!cull || box_may_draw(p, boxes[bi])) &&
                 (!clip || clip_box_class(*clip, boxes[bi]) != kClipHidden);
        },
        [&](size_t bi) { return box_footprint(p, boxes[bi]); }, unit);
    if (hq) hq_batches(t, unit);
    return;
  }
  // Units of kPointBatch drawn points: stored points, or a subset's every k-th.
  const size_t units = size_t((count + kPointBatch - 1) / kPointBatch);
  auto unit = [&](size_t u, const auto& emit) {
    const size_t b = u * kPointBatch, e = std::min(size_t(count), b + kPointBatch);
    if (all) return draw.points(b, e, emit, clip != nullptr);
    for (size_t i = b; i < e; ++i) draw.one(size_t(subset_index(i, step)), emit, clip != nullptr);
  };
  run_units(units, nullptr, t, binned ? Pass::kBinned : Pass::kDepth, unit);
  if (hq) run_units(units, nullptr, t, Pass::kHq, unit);
}

void CpuRenderer::prepare_sizes(const RenderSettings& s, uint64_t count) {
  size_ = SizeGrid{};
  if (!cloud_ || !adaptive_size_on(s)) return;
  if (size_age_.stale(cloud_->size())) {  // a pass over the points, once per cloud or so
    auto made = std::make_shared<SizeGridTable>();
    build_size_grid(*cloud_, made.get(), threads_);
    size_table_ = std::move(made);
    size_age_.remade();
  }
  size_ = frame_size_grid(*size_table_, size_table_->spacing.data(), s, cloud_->size(), count);
}

void CpuRenderer::resolve(const RenderSettings& s, Image& out, bool hq) {
  uint32_t* rgba = out.rgba.data();
  float* depth = s.want_depth ? out.depth.data() : nullptr;
  uint64_t* acc = hq ? hq_acc_.data() : nullptr;
  if (s.edl) {  // engine/edl.h: colors from the keys and their neighbours, then the clear
    resolve_edl(keys_.data(), tile_dirty_.data(), keys_w_, keys_h_, kTile, tiles_x_, tiles_y_,
                edl_params(s.edl_strength, s.edl_radius), s.background, acc, rgba, depth, threads_);
    return;
  }
  resolve_tiles(keys_.data(), tile_dirty_.data(), keys_w_, keys_h_, tiles_x_, tiles_y_,
                s.background, acc, rgba, depth, threads_);
}

bool CpuRenderer::render(const Camera& camera, const RenderSettings& s, Image& out,
                         FrameStats& stats, std::string* error) {
  Stopwatch total;
  const FrameStart start = begin_frame(s, out, stats, error);
  if (start != FrameStart::kDraw) return start == FrameStart::kEmpty;
  if (!make_clip_params(s.clip, cloud_ ? cloud_->origin : glm::dvec3(0.0), &clip_, error))
    return false;
  Stopwatch sw;
  size_buffers(out.width, out.height);  // the region's size when there is one
  stats.clear_ms = sw.ms();

  const PointCloud* cloud = cloud_;
  const uint64_t count = effective_count(cloud ? cloud->size() : 0, s.point_count);
  stats.points_drawn = count;
  const ProjParams p =
      frame_params(camera, s, cloud ? cloud->origin : glm::dvec3(0.0), frame_point_size(s));
  prepare_sizes(s, count);
  sw.reset();
  culled_batches_ = 0;
  occlusion_ran_ = false;
  occluded_batches_ = second_pass_batches_ = 0;
  binned_ = false;
  if (count > 0) {
    const size_t npix = out.pixel_count();
    const FrameTarget target(&p, keys_.data(), tile_dirty_.data(), p.width, p.height,
                             size_t(tiles_x_));
    // 1-pixel points are binned (run_units()) where that pays (bin_frame()); splats take the
    // atomics.
    binned_ = bin_frame(options_.binning, p.point_size > 1, count, npix, last_drawn_);
    if (s.hq && hq_acc_.size() != 2 * npix) hq_acc_.assign(2 * npix, 0);
    if (compact_active_)
      raster_compact(p, target, count, binned_, s.hq);
    else
      raster_plain(p, target, count, binned_, s.hq);
    last_drawn_ = target.drawn.load();
  }
  stats.raster_ms = sw.ms();

  sw.reset();
  resolve(s, out, s.hq && count > 0);
  stats.resolve_ms = sw.ms();
  stats.total_ms = total.ms();
  return true;
}

}  // namespace pr
