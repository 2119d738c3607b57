#include "engine/cpu_renderer.h"

#include <algorithm>
#include <atomic>
#include <cmath>
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
      std::atomic<uint64_t> culled{0};
      parallel_for(
          cc.batches.size(),
          [&](size_t b0, size_t b1) {
            uint64_t my_culled = 0;
            for (size_t bi = b0; bi < b1; ++bi) {
              const CompactBatch box = cc.batches[bi];
              if (cull && !compact_box_visible(p, box)) {
                ++my_culled;
                continue;
              }
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
            }
            culled.fetch_add(my_culled, std::memory_order_relaxed);
          },
          threads_, 4);
      culled_batches_ = culled.load();
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
        // Batch by batch, the box test first (engine/culling.h).
        const PointBox* boxes = boxes_.data();
        std::atomic<uint64_t> culled{0};
        parallel_for(
            boxes_.size(),
            [&](size_t b0, size_t b1) {
              uint64_t my_culled = 0;
              for (size_t bi = b0; bi < b1; ++bi) {
                if (!point_box_visible(p, boxes[bi])) {
                  ++my_culled;
                  continue;
                }
                draw_points(bi * kPointBatch,
                            std::min(size_t(total_points), (bi + 1) * size_t(kPointBatch)));
              }
              culled.fetch_add(my_culled, std::memory_order_relaxed);
            },
            threads_, 4);
        culled_batches_ = culled.load();
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
