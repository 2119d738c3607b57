#include "engine/cpu_renderer.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "engine/parallel.h"
#include "project_batch.h"

namespace pr {

namespace {

/// Depth test: keep the smaller key. The plain load first is the "early depth test": most points
/// lose to a nearer one already drawn, and a load is much cheaper than a compare-exchange.
inline void depth_min(uint64_t* slot, uint64_t key) {
  std::atomic_ref<uint64_t> ref(*slot);
  uint64_t old = ref.load(std::memory_order_relaxed);
  while (key < old && !ref.compare_exchange_weak(old, key, std::memory_order_relaxed)) {
  }
}

}  // namespace

std::unique_ptr<Renderer> make_cpu_renderer(unsigned threads) {
  return std::make_unique<CpuRenderer>(threads);
}

CpuRenderer::CpuRenderer(unsigned threads) : threads_(threads == 0 ? default_threads() : threads) {
  // A/B switch for benchmarks, like the CUDA renderer's PR_CUDA_CULL.
  if (const char* v = std::getenv("PR_CPU_CULL"))
    cull_ = !(std::strcmp(v, "0") == 0 || std::strcmp(v, "off") == 0);
  if (const char* v = std::getenv("PR_CPU_OCCLUSION"); v && !parse_occlusion_mode(v, &occlusion_))
    std::fprintf(stderr, "pointraster: PR_CPU_OCCLUSION=%s ignored (auto, on or off)\n", v);
}

bool CpuRenderer::occlusion_wanted(size_t stored_points) {
  if (occlusion_ == OcclusionMode::kOff || !cull_) return false;
  if (occlusion_ == OcclusionMode::kOn) return true;
  // Smaller clouds gain nothing on 2 cores: 1e7 points seen whole hide 46% of their batches, yet
  // draw in 27.7 instead of 26.2 ms (the hidden points were cheap: vectorized projection, then
  // an early depth test that fails); 1e8 points draw in 60 instead of 213 ms.
  if (stored_points < (size_t{1} << 25)) return false;
  // Worth it while the last run found an eighth of the batches in view hidden (or before any).
  if (hidden_ == ~uint64_t{0} || (hidden_ > 0 && hidden_ * 8 >= in_view_)) {
    plain_frames_ = 0;
    return true;
  }
  return ++plain_frames_ % 16 == 0;
}

void CpuRenderer::build_hiz_from_keys(int width, int height) {
  HizView v;
  v.width = width;
  v.height = height;
  hiz_.resize(v.total_words());
  hiz_w_ = width;
  hiz_h_ = height;
  uint32_t* l0 = hiz_.data();
  uint32_t* l1 = l0 + v.level_words(0);
  const int tx0 = v.tiles_x(0), ty0 = v.tiles_y(0), tx1 = v.tiles_x(1);
  const uint64_t* keys = keys_.data();
  const uint8_t* dirty = tile_dirty_.data();
  constexpr int kPer = kHizTile / kTile;  // occupancy tiles a side of a Hi-Z tile
  static_assert(kHizTile % kTile == 0 && kHizTile1 % kHizTile == 0);
  // A row of level-1 tiles at a time: its level-0 tiles, then their maxima.
  parallel_for(
      size_t(v.tiles_y(1)),
      [&](size_t r0, size_t r1) {
        for (size_t r = r0; r < r1; ++r) {
          const int ty_begin = int(r) * (kHizTile1 / kHizTile);
          const int ty_end = std::min(ty0, ty_begin + kHizTile1 / kHizTile);
          for (int i = 0; i < tx1; ++i) l1[r * size_t(tx1) + size_t(i)] = 0;
          for (int ty = ty_begin; ty < ty_end; ++ty)
            for (int tx = 0; tx < tx0; ++tx) {
              // No point landed in the tile's occupancy tiles: its keys are all empty.
              bool any = false;
              for (int j = 0; j < kPer; ++j)
                for (int i = 0; i < kPer; ++i) {
                  const int cx = tx * kPer + i, cy = ty * kPer + j;
                  if (cx < tiles_x_ && cy < tiles_y_)
                    any = any || dirty[size_t(cy) * size_t(tiles_x_) + size_t(cx)];
                }
              uint32_t m = 0xffffffffu;
              if (any) {
                m = 0;
                const int x0 = tx * kHizTile, x1 = std::min(width, x0 + kHizTile);
                const int y0 = ty * kHizTile, y1 = std::min(height, y0 + kHizTile);
                for (int y = y0; y < y1; ++y)
                  for (int x = x0; x < x1; ++x)
                    m = std::max(m, uint32_t(keys[size_t(y) * size_t(width) + size_t(x)] >> 32));
              }
              l0[size_t(ty) * size_t(tx0) + size_t(tx)] = m;
              uint32_t& w1 = l1[r * size_t(tx1) + size_t(tx * kHizTile / kHizTile1)];
              w1 = std::max(w1, m);
            }
        }
      },
      threads_, 1);
}

template <class VisibleFn, class FootprintFn, class DrawFn>
void CpuRenderer::draw_batches(const ProjParams& p, size_t batches, size_t stored_points,
                               VisibleFn visible, FootprintFn footprint, DrawFn draw) {
  const bool occl = occlusion_wanted(stored_points);
  occlusion_ran_ = occl;
  HizView last;  // the last run's Hi-Z, when it is of this image size
  if (occl && hiz_w_ == p.width && hiz_h_ == p.height) {
    last.words = hiz_.data();
    last.width = hiz_w_;
    last.height = hiz_h_;
  }
  if (occl) pass_.assign(batches, 0);
  // The first pass (the only one without occlusion culling).
  std::atomic<uint64_t> culled{0};
  parallel_for(
      batches,
      [&](size_t b0, size_t b1) {
        uint64_t my_culled = 0;
        for (size_t bi = b0; bi < b1; ++bi) {
          if (!visible(bi)) {
            ++my_culled;
            continue;
          }
          if (occl) {
            if (last.words && footprint_occluded(footprint(bi), last)) {
              pass_[bi] = 2;  // deferred
              continue;
            }
            pass_[bi] = 1;
          }
          draw(bi);
        }
        culled.fetch_add(my_culled, std::memory_order_relaxed);
      },
      threads_, 4);
  culled_batches_ = culled.load();
  if (!occl) return;
  // The Hi-Z of the first pass's keys, then the second pass: the deferred batches it does not
  // hide. Every batch in view is tested, for the count that decides the next frames.
  build_hiz_from_keys(p.width, p.height);
  HizView now;
  now.words = hiz_.data();
  now.width = hiz_w_;
  now.height = hiz_h_;
  std::atomic<uint64_t> hidden{0}, occluded{0}, second{0};
  parallel_for(
      batches,
      [&](size_t b0, size_t b1) {
        uint64_t my_hidden = 0, my_occluded = 0, my_second = 0;
        for (size_t bi = b0; bi < b1; ++bi) {
          if (pass_[bi] == 0) continue;
          const bool hid = footprint_occluded(footprint(bi), now);
          my_hidden += hid;
          if (pass_[bi] != 2) continue;
          if (hid) {
            ++my_occluded;
          } else {
            ++my_second;
            draw(bi);
          }
        }
        hidden.fetch_add(my_hidden, std::memory_order_relaxed);
        second.fetch_add(my_second, std::memory_order_relaxed);
        occluded.fetch_add(my_occluded, std::memory_order_relaxed);
      },
      threads_, 4);
  hidden_ = hidden.load();
  in_view_ = batches - culled_batches_;
  occluded_batches_ = occluded.load();
  second_pass_batches_ = second.load();
}

bool CpuRenderer::set_cloud(const PointCloud& cloud, std::string* error) {
  if (cloud.size() >= size_t(std::numeric_limits<uint32_t>::max())) {
    if (error) *error = "cloud has too many points for a 32-bit point index";
    cloud_ = nullptr;
    return false;
  }
  cloud_ = &cloud;
  compact_active_ = false;
  compact_ = CompactCloud{};
  boxes_ = PodVector<PointBox>();  // made by the first frame that culls (not in GPU mode)
  hiz_w_ = hiz_h_ = 0;             // another cloud's depths
  hidden_ = ~uint64_t{0};
  plain_frames_ = 0;
  if (compact_on_) {
    if (!build_compact(cloud, compact_morton_, &compact_, error)) {
      cloud_ = nullptr;
      return false;
    }
    compact_active_ = true;
  }
  return true;
}

FrameStart begin_frame(const RenderSettings& s, Image& out, FrameStats& stats, std::string* error) {
  stats = FrameStats{};
  if (s.width < 0 || s.height < 0) {
    if (error) *error = "negative image size";
    return FrameStart::kError;
  }
  out.resize(s.width, s.height, s.want_depth);
  return out.pixel_count() > 0 ? FrameStart::kDraw : FrameStart::kEmpty;
}

bool CpuRenderer::render(const Camera& camera, const RenderSettings& s, Image& out,
                         FrameStats& stats, std::string* error) {
  Stopwatch total;
  const FrameStart start = begin_frame(s, out, stats, error);
  if (start != FrameStart::kDraw) return start == FrameStart::kEmpty;
  const size_t npix = out.pixel_count();
  Stopwatch sw;
  if (keys_w_ != s.width || keys_h_ != s.height) {  // once per size change
    keys_.assign(npix, kEmptyKey);
    keys_w_ = s.width;
    keys_h_ = s.height;
    tiles_x_ = (s.width + kTile - 1) / kTile;
    tiles_y_ = (s.height + kTile - 1) / kTile;
    tile_dirty_.assign(size_t(tiles_x_) * size_t(tiles_y_), 0);
  }
  stats.clear_ms = sw.ms();

  uint64_t* keys = keys_.data();
  uint8_t* dirty = tile_dirty_.data();
  const size_t tiles_x = size_t(tiles_x_);
  const PointCloud* cloud = cloud_;
  const uint64_t total_points = cloud ? cloud->size() : 0;
  const uint64_t count = effective_count(total_points, s.point_count);
  stats.points_drawn = count;
  const ProjParams p =
      camera.params(s.width, s.height, cloud ? cloud->origin : glm::dvec3(0.0), s.point_size);
  sw.reset();
  culled_batches_ = 0;
  occlusion_ran_ = false;
  occluded_batches_ = second_pass_batches_ = 0;
  if (count > 0) {
    const Float3* pos = cloud->positions.data();
    const uint32_t* colors = cloud->colors.data();
    const uint64_t step = subset_step(total_points, count);
    const size_t width = size_t(s.width);
    const bool big = p.point_size > 1;
    // A point marks its tile(s) dirty; a relaxed atomic store of the same value from several
    // threads is race-free.
    auto mark = [&](int x, int y) {
      std::atomic_ref<uint8_t>(dirty[size_t(y / kTile) * tiles_x + size_t(x / kTile)])
          .store(1, std::memory_order_relaxed);
    };
    // Depth-tests one projected point: its pixel, or its point_size square, and marks the tiles.
    auto plot = [&](int ix, int iy, uint64_t key) {
      if (!big) {
        uint64_t* slot = keys + size_t(iy) * width + size_t(ix);
        if (key < *slot) {  // early depth test: skip the atomic for hidden points
          mark(ix, iy);
          depth_min(slot, key);
        }
        return;
      }
      int x0, y0, x1, y1;
      splat_rect(p, ix, iy, x0, y0, x1, y1);
      mark(x0, y0);
      mark(x1 - 1, y0);
      mark(x0, y1 - 1);
      mark(x1 - 1, y1 - 1);
      for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) depth_min(keys + size_t(y) * width + size_t(x), key);
    };
    if (compact_active_) {
      // Compact positions: batch by batch (the box test first), every stored point decoded with
      // the shared decoder; a subset keeps the stored points whose original index is in it. The
      // key carries the point's color, read through the original index.
      const CompactCloud& cc = compact_;
      const bool subset = step != (uint64_t{1} << 32);
      const bool cull = cull_;
      draw_batches(
          p, cc.batches.size(), total_points,
          [&](size_t bi) { return !cull || compact_box_visible(p, cc.batches[bi]); },
          [&](size_t bi) { return compact_box_footprint(p, cc.batches[bi]); },
          [&](size_t bi) {
            const CompactBatch box = cc.batches[bi];
            const size_t s0 = bi * kCompactBatch,
                         s1 = std::min(size_t(total_points), s0 + kCompactBatch);
            for (size_t si = s0; si < s1; ++si) {
              const uint32_t id = cc.orig.empty() ? uint32_t(si) : cc.orig[si];
              if (subset && !in_subset(id, count, step)) continue;
              float x, y, z;
              if (!compact_decode(box, cc.words[si], x, y, z)) continue;
              int ix, iy;
              uint64_t key;
              if (project_to_pixel(p, x, y, z, colors[id], ix, iy, key)) plot(ix, iy, key);
            }
          });
    } else {
      // All points, 1-pixel splats: project a run into small arrays first, in a loop with no
      // branches or atomics that the compiler vectorizes (project_batch), then depth-test the
      // run's survivors.
      auto draw_run = [&](size_t b, size_t e) {
        constexpr size_t kRun = 512;
        alignas(64) uint32_t pix[kRun];
        alignas(64) float dep[kRun];
        for (size_t b0 = b; b0 < e; b0 += kRun) {
          const size_t n = std::min(kRun, e - b0);
          project_batch(p, reinterpret_cast<const float*>(pos + b0), n, pix, dep);
          // The depth test reads one random pixel a point: prefetch a few points ahead so that
          // several cache misses are in flight instead of one.
          constexpr size_t kAhead = 16;
          for (size_t j = 0; j < std::min(n, kAhead); ++j)
            if (pix[j] != ~0u) __builtin_prefetch(keys + pix[j], 1);
          for (size_t j = 0; j < n; ++j) {
            if (j + kAhead < n && pix[j + kAhead] != ~0u)
              __builtin_prefetch(keys + pix[j + kAhead], 1);
            if (pix[j] == ~0u) continue;
            const uint64_t key = pack_key(dep[j], colors[b0 + j]);
            uint64_t* slot = keys + pix[j];
            if (key < *slot) {
              mark(int(pix[j] % uint32_t(p.width)), int(pix[j] / uint32_t(p.width)));
              depth_min(slot, key);
            }
          }
        }
      };
      // One stored point, any point size.
      auto draw_one = [&](size_t i) {
        const Float3 v = pos[i];
        int ix, iy;
        uint64_t key;
        if (project_to_pixel(p, v.x, v.y, v.z, colors[i], ix, iy, key)) plot(ix, iy, key);
      };
      // Any point size, points [b, e) of the stored order.
      auto draw_points = [&](size_t b, size_t e) {
        if (!big) return draw_run(b, e);
        for (size_t i = b; i < e; ++i) draw_one(i);
      };
      const bool all = step == (uint64_t{1} << 32);
      const size_t batches = (total_points + kPointBatch - 1) / kPointBatch;
      if (all && cull_ && boxes_.size() != batches)  // once per cloud: a pass over the positions
        compute_point_boxes(pos, total_points, &boxes_);
      if (all && cull_) {
        // Batch by batch, the box test first (engine/culling.h), then occlusion culling's.
        const PointBox* boxes = boxes_.data();
        draw_batches(
            p, boxes_.size(), total_points,
            [&](size_t bi) { return point_box_visible(p, boxes[bi]); },
            [&](size_t bi) { return box_footprint(p, boxes[bi]); },
            [&](size_t bi) {
              draw_points(bi * kPointBatch,
                          std::min(size_t(total_points), (bi + 1) * size_t(kPointBatch)));
            });
      } else {
        parallel_for(
            count,
            [&](size_t b, size_t e) {
              if (all) return draw_points(b, e);
              for (size_t i = b; i < e; ++i) draw_one(size_t(subset_index(i, step)));
            },
            threads_, 1 << 14);
      }
    }
  }
  stats.raster_ms = sw.ms();

  // Resolve by tiles: touched tiles turn keys into colors and reset the keys; untouched tiles
  // are background.
  sw.reset();
  uint32_t* rgba = out.rgba.data();
  float* depth = s.want_depth ? out.depth.data() : nullptr;
  const uint32_t bg = s.background;
  const int W = s.width, H = s.height;
  parallel_for(
      size_t(tiles_y_),
      [&](size_t ty0, size_t ty1) {
        for (size_t ty = ty0; ty < ty1; ++ty) {
          const int y0 = int(ty) * kTile, y1 = std::min(H, y0 + kTile);
          for (size_t tx = 0; tx < tiles_x; ++tx) {
            const int x0 = int(tx) * kTile, x1 = std::min(W, x0 + kTile);
            uint8_t& flag = dirty[ty * tiles_x + tx];
            for (int y = y0; y < y1; ++y) {
              const size_t row = size_t(y) * size_t(W);
              if (!flag) {
                std::fill(rgba + row + size_t(x0), rgba + row + size_t(x1), bg);
                if (depth) std::fill(depth + row + size_t(x0), depth + row + size_t(x1), INFINITY);
                continue;
              }
              for (size_t i = row + size_t(x0); i < row + size_t(x1); ++i) {
                const uint64_t k = keys[i];
                rgba[i] = resolve_key(k, bg);
                if (depth) depth[i] = k == kEmptyKey ? INFINITY : key_depth(k);
                keys[i] = kEmptyKey;
              }
            }
            flag = 0;
          }
        }
      },
      threads_, 1);
  stats.resolve_ms = sw.ms();
  stats.total_ms = total.ms();
  (void)error;
  return true;
}

}  // namespace pr
