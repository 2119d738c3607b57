// Adaptive point size, the math shared by the CPU renderer (engine/) and the CUDA renderer
// (kernels/): a point is drawn larger where the cloud is sparse on screen, as Potree does, so that
// a close-up shows surfaces instead of scattered pixels.
//
// The size of a point depends on the point alone (never on where it is stored: the GPU renderer
// sorts its points, the renderers batch them differently):
//
//   spacing   the world distance between neighbouring points of the cloud around the point: a
//             coarse grid over the cloud's local bounds (engine/size_grid.h, made on the host once
//             per cloud) holds each cell's spacing = cell side / sqrt(points in the cell), the
//             spacing of a surface crossing the cell (the estimate that suits scans: their points
//             lie on surfaces, not in volumes)
//   pixels    spacing * image_factor(p, c.z) * scale: that distance projected at the point's depth
//             (pixels per world unit, perspective or orthographic), times SizeGrid::factor
//   size      clamp(int(pixels + 0.5), min_size, p.point_size): the side of the point's square
//
// ProjParams::point_size is the largest size of the frame (RenderSettings::max_point_size), so the
// culling margins, the footprints and the splat paths that read it serve adaptive frames as they
// are. The same float operations in the same order on both sides (no FMA contraction), so both
// renderers give each point the same square.
#pragma once

#include "engine/projection.h"

namespace pr {

/// A frame's adaptive sizes, by value into a kernel: the grid's shape and table (host or device
/// memory), the frame's factor and the smallest size. `spacing` null: no adaptive size.
struct SizeGrid {
  float lo[3] = {0.0f, 0.0f, 0.0f};  ///< the grid's corner in the cloud's local frame
  float inv_cell = 0.0f;             ///< cells per world unit (cubic cells)
  int dims[3] = {0, 0, 0};           ///< cells along x, y, z (each >= 1 when made)
  const float* spacing = nullptr;    ///< dims[0] * dims[1] * dims[2] spacings, x fastest
  /// Pixels of projected spacing to a pixel of size: RenderSettings::adaptive_scale times
  /// sqrt(stored points / drawn points) (a subset's points lie that much farther apart).
  float factor = 1.0f;
  int min_size = 1;  ///< RenderSettings::point_size: no point is drawn smaller
  PR_HD bool active() const { return spacing != nullptr; }
};

/// The cell of a coordinate along one axis: floor((v - lo) * inv_cell), clamped to [0, n - 1]
/// (a coordinate outside the grid, or NaN, takes the nearest cell; NaN the first).
PR_HD int grid_axis(float v, float lo, float inv_cell, int n) {
  const float t = (v - lo) * inv_cell;
  if (!(t >= 1.0f)) return 0;
  if (!(t < float(n))) return n - 1;
  const int i = int(t);
  return i < n ? i : n - 1;
}

/// The index of the cell holding local position (x, y, z), x fastest.
PR_HD int grid_cell(const SizeGrid& g, float x, float y, float z) {
  const int i = grid_axis(x, g.lo[0], g.inv_cell, g.dims[0]);
  const int j = grid_axis(y, g.lo[1], g.inv_cell, g.dims[1]);
  const int k = grid_axis(z, g.lo[2], g.inv_cell, g.dims[2]);
  return (k * g.dims[1] + j) * g.dims[0] + i;
}

/// The square side of a point at local position (x, y, z) and camera-space depth `depth` (its
/// key's depth) seen with `p`: the spacing of its cell projected at its depth, rounded, between
/// g.min_size and p.point_size.
PR_HD int adaptive_point_size(const ProjParams& p, const SizeGrid& g, float x, float y, float z,
                              float depth) {
  const float spacing = g.spacing[grid_cell(g, x, y, z)];
  const float pixels = spacing * image_factor(p, depth) * p.scale * g.factor + 0.5f;
  // Written so that NaN and infinities take the largest size; int() only of a value in range.
  if (!(pixels < float(p.point_size))) return p.point_size;
  const int s = int(pixels);
  return s < g.min_size ? g.min_size : s;
}

/// The square side of a point of a frame: adaptive_point_size() with `g`, else p.point_size.
PR_HD int point_size_of(const ProjParams& p, const SizeGrid* g, float x, float y, float z,
                        float depth) {
  return g ? adaptive_point_size(p, *g, x, y, z, depth) : p.point_size;
}

}  // namespace pr
