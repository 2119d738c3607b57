// Images larger than one frame can be (up to 16384 x 16384 and beyond): drawn in tiles, each tile a
// region of the whole image (RenderSettings::region) that a renderer draws with the whole image's
// projection, so that every pixel of the tiled image is the whole image's, bit for bit.
//
// A region draws only the points whose centre pixel lies in it (as a frame draws only those in the
// image). Squares (point size s > 1: a square reaches s / 2 pixels from its centre), high-quality
// splats (their squares) and eye-dome lighting (it reads the depths up to edl_reach() pixels away)
// make a pixel depend on points whose centres lie a few pixels away, so each tile is drawn with a
// margin of tile_margin() pixels on every side (clamped to the image: at the image's own edges
// the whole image has no more points either) and the margin is cut off. The tiles' frames then
// hold, in the tile, the keys the whole image holds, and their resolve gives the same colors.
// Everything else a frame does is a function of the point or of the batch box in the tile's frame:
// the batch culling tests each box against the tile (ProjParams::ox, oy), conservatively, and
// occlusion culling hides a batch only behind the tile's own depths.
//
// The tiles are sized by memory (plan_tiles_for()): one frame of the whole image when it fits
// (no tiles, no margins: the ordinary frame), else bands of full rows, else squares, each frame
// within a budget of host memory (the CPU renderer's buffers) and of the device's free memory
// (the GPU renderer's). The image is handed on band by band (RowSink), top to bottom, so that a
// PNG can be written row by row (engine/png_writer.h) without holding the whole image.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/camera.h"
#include "engine/image.h"
#include "engine/renderer.h"

namespace pr {

/// How an image is cut into tiles: columns x rows tiles of tile_width x tile_height pixels (the
/// last column and row hold what is left), row-major.
struct TilePlan {
  int width = 0, height = 0;            ///< the whole image
  int tile_width = 0, tile_height = 0;  ///< a tile's pixels, without the margin
  int margin = 0;                       ///< pixels drawn around each tile and cut off
  int columns = 0, rows = 0;

  int count() const { return columns * rows; }
  /// One tile of the whole image: drawn as an ordinary frame (no region, no margin).
  bool whole() const { return columns == 1 && rows == 1; }
  /// Tile i's pixels in the whole image.
  ImageRegion tile(int i) const;
  /// The region drawn for tile i: the tile and its margin, within the image.
  ImageRegion drawn(int i) const;
};

/// The margin a tile of an image drawn with `s` needs: half the largest square
/// (frame_point_size()) plus, with eye-dome lighting, its neighbours' reach (edl_reach()).
int tile_margin(const RenderSettings& s);

/// Tiles of at most tile_width x tile_height pixels (each at least 1; larger than the image: the
/// whole image) of the width x height image of `s`, with tile_margin(s).
TilePlan plan_tiles(const RenderSettings& s, int tile_width, int tile_height);

/// What a tile's frame may take.
struct TileBudget {
  /// Host memory of a frame (FrameMemory::host_bytes_per_pixel a pixel); 0: no limit.
  uint64_t host_bytes = uint64_t{512} << 20;
  /// The share of the device's free memory (FrameMemory::device_bytes_free) a frame may take,
  /// less `device_reserve` for what the renderer allocates besides.
  double device_share = 0.8;
  uint64_t device_reserve = uint64_t{256} << 20;
  /// The most pixels a frame may have (0: no limit): a window keeps its tiles small, so that
  /// one tile draws between two of its frames.
  uint64_t max_pixels = 0;
};

/// The most pixels a frame drawn with `s` may have on `renderer` within `budget` (at least 4096).
uint64_t tile_pixel_limit(const Renderer& renderer, const RenderSettings& s,
                          const TileBudget& budget);

/// The tiles of the image of `s` for a frame of at most `limit` pixels (tile_pixel_limit()): the
/// whole image when it fits; else bands of full rows of equal height, when a band of 16 rows and
/// its margins fits; else squares of equal size. Each frame (a tile and its margins) stays within
/// `limit`.
TilePlan plan_tiles_for(const RenderSettings& s, uint64_t limit);

/// Receives the image's rows as the tiles complete them, top to bottom: rows [y, y + rows) of
/// width pixels, contiguous, and their depths (null unless RenderSettings::want_depth). The
/// pointers are valid during the call only. False with a one-line message stops the drawing.
using RowSink = std::function<bool(int y, int rows, const uint32_t* rgba, const float* depth,
                                   std::string* error)>;

/// A tiled image drawn one tile a call, so that a window can draw a tile between its frames (and
/// show progress, and stop). The renderer drawing the tiles must hold the same cloud throughout.
class TiledRender {
 public:
  /// The image of `settings` (its width x height; a region in it is ignored) seen from `camera`,
  /// cut as `plan` says (plan_tiles() or plan_tiles_for() of these settings).
  TiledRender(const Camera& camera, const RenderSettings& settings, const TilePlan& plan);

  /// Draws the next tile with `renderer`; when it completes a band of rows (a row of tiles), hands
  /// the band to `sink`. False with a message when the frame or the sink failed (the drawing is
  /// then over).
  bool step(Renderer& renderer, const RowSink& sink, std::string* error);
  bool done() const { return next_ >= plan_.count() || failed_; }
  int tiles_done() const { return next_; }
  const TilePlan& plan() const { return plan_; }
  /// Tiles drawn / tiles, 0..1.
  double fraction() const;
  /// The renderer's time for the tiles drawn so far (FrameStats::total_ms summed).
  double render_ms() const { return render_ms_; }

 private:
  bool hand_band(int row, const RowSink& sink, std::string* error);

  Camera camera_;
  RenderSettings settings_;
  TilePlan plan_;
  int next_ = 0;
  bool failed_ = false;
  double render_ms_ = 0.0;
  Image frame_;                 // the last tile's frame
  std::vector<uint32_t> band_;  // a row of tiles (when there are several columns)
  std::vector<float> band_depth_;
};

/// The whole image of `settings` drawn tile by tile as `plan` says, into `out` (width x height,
/// with depths when settings.want_depth). False with a message when a frame failed.
bool render_tiled(Renderer& renderer, const Camera& camera, const RenderSettings& settings,
                  const TilePlan& plan, Image& out, std::string* error);

}  // namespace pr
