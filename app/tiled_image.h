// Images larger than one frame, for headless mode and the viewer's "Save image at W x H": how they
// are cut into tiles (engine/tiled_render.h) on the renderer in use, and a tiled image drawn and
// written to a PNG row by row (engine/png_writer.h), so that the whole image is never held.
#pragma once

#include <string>

#include "engine/camera.h"
#include "engine/renderer.h"
#include "engine/tiled_render.h"
#include "options.h"

namespace pr {

/// The tiles of the image of `rs` on `renderer`: --tile's size when given, else as large as
/// --tile-memory (512 MiB by default) and the renderer's free device memory allow (the whole
/// image in one frame when it fits).
TilePlan tiles_for(const Options& o, const Renderer& renderer, const RenderSettings& rs);

/// "tiles: 4 x 1 of 16384x4096 (margin 1 px), 872 MB a frame" for a plan of several tiles.
std::string tiles_line(const TilePlan& plan, const Renderer& renderer, const RenderSettings& rs);

/// What drawing a tiled image took.
struct TiledTimes {
  double total_ms = 0.0;   ///< the whole: tiles and PNG
  double render_ms = 0.0;  ///< the renderer's frames
  double png_ms = 0.0;     ///< filtering and compressing the rows, writing the file
};

/// Draws the image of `rs` from `camera` tile by tile as `plan` says; with a `png` path, writes
/// its rows there as they come (an unfinished file is removed). False with a one-line message.
bool draw_tiled_image(Renderer& renderer, const Camera& camera, const RenderSettings& rs,
                      const TilePlan& plan, const std::string& png, TiledTimes* times,
                      std::string* error);

}  // namespace pr
