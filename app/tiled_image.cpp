#include "tiled_image.h"

#include <cstdio>

#include "engine/frame_stats.h"
#include "engine/png_writer.h"

namespace pr {

TilePlan tiles_for(const Options& o, const Renderer& renderer, const RenderSettings& rs) {
  if (o.tile) return plan_tiles(rs, o.tile->first, o.tile->second);
  TileBudget budget;
  if (o.tile_memory) budget.host_bytes = o.tile_memory;
  return plan_tiles_for(rs, tile_pixel_limit(renderer, rs, budget));
}

std::string tiles_line(const TilePlan& plan, const Renderer& renderer, const RenderSettings& rs) {
  const FrameMemory m = renderer.frame_memory(rs);
  const ImageRegion d = plan.drawn(0);
  const double pixels = double(d.width) * double(d.height);
  char b[256];
  std::snprintf(b, sizeof b, "tiles: %d x %d of %dx%d (margin %d px), %.0f MB a frame%s",
                plan.columns, plan.rows, plan.tile_width, plan.tile_height, plan.margin,
                pixels * double(m.host_bytes_per_pixel + m.device_bytes_per_pixel) / 1e6,
                m.device_bytes_per_pixel ? " (host and device)" : "");
  return b;
}

bool draw_tiled_image(Renderer& renderer, const Camera& camera, const RenderSettings& rs,
                      const TilePlan& plan, const std::string& png, TiledTimes* times,
                      std::string* error) {
  Stopwatch total;
  PngWriter writer;
  if (!png.empty() && !writer.open(png, rs.width, rs.height, error)) return false;
  double png_ms = 0.0;
  const RowSink sink = [&](int, int rows, const uint32_t* rgba, const float*, std::string* why) {
    if (png.empty()) return true;
    Stopwatch sw;
    const bool ok = writer.write_rows(rgba, rows, why);
    png_ms += sw.ms();
    return ok;
  };
  TiledRender tiled(camera, rs, plan);
  while (!tiled.done())
    if (!tiled.step(renderer, sink, error)) return false;  // the writer removes its file
  if (!png.empty()) {
    Stopwatch sw;
    if (!writer.finish(error)) return false;
    png_ms += sw.ms();
  }
  times->total_ms = total.ms();
  times->render_ms = tiled.render_ms();
  times->png_ms = png_ms;
  return true;
}

}  // namespace pr
