#include "engine/tiled_render.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "engine/edl.h"
#include "engine/size_grid.h"

namespace pr {

namespace {

int ceil_div(int a, int b) {
  return (a + b - 1) / b;
}

/// `n` pixels cut into parts of at most `most`, as equal as they come: the part's size.
int even_part(int n, int most) {
  const int parts = ceil_div(n, std::max(1, most));
  return ceil_div(n, parts);
}

}  // namespace

ImageRegion TilePlan::tile(int i) const {
  const int c = i % columns, r = i / columns;
  ImageRegion t;
  t.x = c * tile_width;
  t.y = r * tile_height;
  t.width = std::min(tile_width, width - t.x);
  t.height = std::min(tile_height, height - t.y);
  return t;
}

ImageRegion TilePlan::drawn(int i) const {
  const ImageRegion t = tile(i);
  ImageRegion d;
  d.x = std::max(0, t.x - margin);
  d.y = std::max(0, t.y - margin);
  d.width = std::min(width, t.x + t.width + margin) - d.x;
  d.height = std::min(height, t.y + t.height + margin) - d.y;
  return d;
}

int tile_margin(const RenderSettings& s) {
  // A square of side k covers [c - k/2, c - k/2 + k) around its centre c: k/2 pixels at most on
  // either side. Eye-dome lighting reads the keys up to edl_reach() away, which themselves hold
  // squares whose centres lie k/2 further.
  int m = frame_point_size(s) / 2;
  if (s.edl) m += edl_reach(edl_params(s.edl_strength, s.edl_radius));
  return m;
}

TilePlan plan_tiles(const RenderSettings& s, int tile_width, int tile_height) {
  TilePlan p;
  p.width = std::max(0, s.width);
  p.height = std::max(0, s.height);
  p.tile_width = std::clamp(tile_width, 1, std::max(1, p.width));
  p.tile_height = std::clamp(tile_height, 1, std::max(1, p.height));
  p.columns = p.width > 0 ? ceil_div(p.width, p.tile_width) : 0;
  p.rows = p.height > 0 ? ceil_div(p.height, p.tile_height) : 0;
  p.margin = p.whole() ? 0 : tile_margin(s);
  return p;
}

uint64_t tile_pixel_limit(const Renderer& renderer, const RenderSettings& s,
                          const TileBudget& budget) {
  const FrameMemory m = renderer.frame_memory(s);
  uint64_t limit = m.max_pixels ? m.max_pixels : std::numeric_limits<uint64_t>::max();
  if (budget.host_bytes && m.host_bytes_per_pixel)
    limit = std::min(limit, budget.host_bytes / m.host_bytes_per_pixel);
  if (m.device_bytes_per_pixel && m.device_bytes_free) {
    const double room =
        double(m.device_bytes_free) * budget.device_share - double(budget.device_reserve);
    limit = std::min(limit, room > 0.0 ? uint64_t(room) / m.device_bytes_per_pixel : 0);
  }
  if (budget.max_pixels) limit = std::min(limit, budget.max_pixels);
  return std::max<uint64_t>(limit, 4096);
}

TilePlan plan_tiles_for(const RenderSettings& s, uint64_t limit) {
  const int W = std::max(1, s.width), H = std::max(1, s.height);
  if (uint64_t(W) * uint64_t(H) <= limit) return plan_tiles(s, W, H);
  const int m = tile_margin(s);
  // Bands of full rows: no margin at the sides, and each band is rows of the image as they are.
  const uint64_t band_rows = limit / uint64_t(W);
  if (band_rows >= uint64_t(16 + 2 * m)) {
    const int most = int(std::min<uint64_t>(band_rows - uint64_t(2 * m), uint64_t(H)));
    return plan_tiles(s, W, even_part(H, most));
  }
  // Squares: a side whose frame, with the margin on both sides, stays within the limit.
  const int side = std::max(1, int(std::sqrt(double(limit))) - 2 * m);
  return plan_tiles(s, even_part(W, side), even_part(H, side));
}

TiledRender::TiledRender(const Camera& camera, const RenderSettings& settings, const TilePlan& plan)
    : camera_(camera), settings_(settings), plan_(plan) {
  settings_.region = ImageRegion{};
}

double TiledRender::fraction() const {
  const int n = plan_.count();
  return n > 0 ? double(std::min(next_, n)) / double(n) : 1.0;
}

bool TiledRender::step(Renderer& renderer, const RowSink& sink, std::string* error) {
  if (done()) return !failed_;
  const int i = next_;
  const ImageRegion tile = plan_.tile(i), drawn = plan_.drawn(i);
  RenderSettings s = settings_;
  if (!plan_.whole()) s.region = drawn;
  FrameStats stats;
  std::string why;
  if (!renderer.render(camera_, s, frame_, stats, &why)) {
    failed_ = true;
    if (error)
      *error =
          "tile " + std::to_string(i + 1) + " of " + std::to_string(plan_.count()) + ": " + why;
    return false;
  }
  render_ms_ += stats.total_ms;
  ++next_;
  const bool depth = settings_.want_depth;
  const size_t fw = size_t(drawn.width);
  const size_t dx = size_t(tile.x - drawn.x), dy = size_t(tile.y - drawn.y);
  if (plan_.columns == 1) {  // the tile's rows are the image's rows, contiguous in the frame
    const size_t at = dy * fw;
    if (!sink(tile.y, tile.height, frame_.rgba.data() + at,
              depth ? frame_.depth.data() + at : nullptr, &why)) {
      failed_ = true;
      if (error) *error = why;
      return false;
    }
    return true;
  }
  // Several columns: the tile's part of the band of rows, handed on when the band is complete.
  const size_t W = size_t(plan_.width), band_pixels = W * size_t(plan_.tile_height);
  if (band_.size() != band_pixels) band_.assign(band_pixels, 0);
  if (depth && band_depth_.size() != band_pixels) band_depth_.assign(band_pixels, 0.0f);
  for (int y = 0; y < tile.height; ++y) {
    const size_t src = (dy + size_t(y)) * fw + dx, dst = size_t(y) * W + size_t(tile.x);
    std::memcpy(band_.data() + dst, frame_.rgba.data() + src, size_t(tile.width) * 4);
    if (depth)
      std::memcpy(band_depth_.data() + dst, frame_.depth.data() + src, size_t(tile.width) * 4);
  }
  if (i % plan_.columns != plan_.columns - 1) return true;
  if (!sink(tile.y, tile.height, band_.data(), depth ? band_depth_.data() : nullptr, &why)) {
    failed_ = true;
    if (error) *error = why;
    return false;
  }
  return true;
}

bool render_tiled(Renderer& renderer, const Camera& camera, const RenderSettings& settings,
                  const TilePlan& plan, Image& out, std::string* error) {
  out.resize(settings.width, settings.height, settings.want_depth);
  const size_t W = size_t(out.width);
  const RowSink sink = [&](int y, int rows, const uint32_t* rgba, const float* depth,
                           std::string*) {
    const size_t at = size_t(y) * W, n = size_t(rows) * W;
    std::memcpy(out.rgba.data() + at, rgba, n * 4);
    if (depth) std::memcpy(out.depth.data() + at, depth, n * 4);
    return true;
  };
  TiledRender tiled(camera, settings, plan);
  while (!tiled.done())
    if (!tiled.step(renderer, sink, error)) return false;
  return true;
}

}  // namespace pr
