#include "engine/cpu_renderer.h"

#include <atomic>
#include <cmath>
#include <limits>

#include "engine/parallel.h"

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

CpuRenderer::CpuRenderer(unsigned threads) : threads_(threads == 0 ? default_threads() : threads) {}

bool CpuRenderer::set_cloud(const PointCloud& cloud, std::string* error) {
  if (cloud.size() >= size_t(std::numeric_limits<uint32_t>::max())) {
    if (error) *error = "cloud has too many points for a 32-bit point index";
    cloud_ = nullptr;
    return false;
  }
  cloud_ = &cloud;
  return true;
}

bool CpuRenderer::render(const Camera& camera, const RenderSettings& s, Image& out,
                         FrameStats& stats, std::string* error) {
  Stopwatch total;
  stats = FrameStats{};
  if (s.width < 0 || s.height < 0) {
    if (error) *error = "negative image size";
    return false;
  }
  out.resize(s.width, s.height, s.want_depth);
  const size_t npix = out.pixel_count();
  if (npix == 0) {  // a minimized window: nothing to draw, not an error
    stats.total_ms = total.ms();
    return true;
  }
  if (keys_.size() != npix) keys_.assign(npix, kEmptyKey);

  Stopwatch sw;
  uint64_t* keys = keys_.data();
  parallel_for(npix, [&](size_t b, size_t e) { std::fill(keys + b, keys + e, kEmptyKey); },
               threads_, 1 << 16);
  stats.clear_ms = sw.ms();

  const PointCloud* cloud = cloud_;
  const uint64_t total_points = cloud ? cloud->size() : 0;
  const uint64_t count = effective_count(total_points, s.point_count);
  stats.points_drawn = count;
  const ProjParams p = camera.params(s.width, s.height, cloud ? cloud->origin : glm::dvec3(0.0),
                                     s.point_size);
  sw.reset();
  if (count > 0) {
    const Float3* pos = cloud->positions.data();
    const uint64_t step = subset_step(total_points, count);
    const size_t width = size_t(s.width);
    const bool big = p.point_size > 1;
    parallel_for(count, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) {
        const uint64_t src = subset_index(i, step);
        const Float3 v = pos[src];
        int ix, iy;
        uint64_t key;
        if (!project_to_pixel(p, v.x, v.y, v.z, uint32_t(src), ix, iy, key)) continue;
        if (!big) {
          depth_min(keys + size_t(iy) * width + size_t(ix), key);
        } else {
          int x0, y0, x1, y1;
          splat_rect(p, ix, iy, x0, y0, x1, y1);
          for (int y = y0; y < y1; ++y)
            for (int x = x0; x < x1; ++x) depth_min(keys + size_t(y) * width + size_t(x), key);
        }
      }
    }, threads_, 1 << 14);
  }
  stats.raster_ms = sw.ms();

  sw.reset();
  const uint32_t* colors = cloud ? cloud->colors.data() : nullptr;
  uint32_t* rgba = out.rgba.data();
  float* depth = s.want_depth ? out.depth.data() : nullptr;
  const uint32_t bg = s.background;
  parallel_for(npix, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) {
      const uint64_t k = keys[i];
      rgba[i] = resolve_key(k, colors, bg);
      if (depth) depth[i] = k == kEmptyKey ? INFINITY : key_depth(k);
    }
  }, threads_, 1 << 15);
  stats.resolve_ms = sw.ms();
  stats.total_ms = total.ms();
  (void)error;
  return true;
}

}  // namespace pr
