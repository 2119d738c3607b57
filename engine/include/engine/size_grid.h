// The host side of adaptive point size (engine/point_size.h): the density grid of a cloud, made
// once per cloud (again after its points change), and a frame's SizeGrid from it and the
// settings. Both renderers make the grid with build_size_grid() from the host cloud (the GPU
// renderer uploads its table), so both hold the same floats.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/point_cloud.h"
#include "engine/point_size.h"
#include "engine/renderer.h"

namespace pr {

/// Cells along the longest axis of the cloud's bounds (cubic cells; at most 64^3 = 262144, a
/// table of 1 MiB).
constexpr int kSizeGridCells = 64;

/// A cloud's density grid: its shape (SizeGrid without a table, factor or minimum) and table.
struct SizeGridTable {
  SizeGrid shape;
  std::vector<float> spacing;  ///< cell side / sqrt(points in the cell); 0 for empty cells
  uint64_t points = 0;         ///< the cloud's size when made
  bool empty() const { return spacing.empty(); }
};

/// The grid of `cloud`'s finite local positions (a parallel pass over them, `threads`: 0 all
/// cores): kSizeGridCells cubic cells along the longest side of their bounds, at least one along
/// every axis. A cloud with no finite point, or all of them at one place, gets one cell of
/// spacing 0 (every point at RenderSettings::point_size). The counts are integers, so the table
/// does not depend on the order of the points or the threads.
void build_size_grid(const PointCloud& cloud, SizeGridTable* out, unsigned threads = 0);

/// When a renderer makes its grid: at the first adaptive frame after set_cloud(), and again once
/// the points update_points() changed since it was made add up to an eighth of the cloud. A
/// streamed cloud (a pool rewritten node by node) so pays for a pass over its points now and then,
/// not at every frame after an update; meanwhile its points keep the sizes of the grid before.
/// Both renderers follow this rule, so the same calls give them the same grid.
struct SizeGridAge {
  bool made = false;
  uint64_t changed = 0;  ///< points update_points() rewrote since the grid was made
  void new_cloud() { made = false, changed = 0; }
  void points_changed(uint64_t count) { changed += count; }
  bool stale(uint64_t points) const { return !made || (changed > 0 && changed >= points / 8); }
  void remade() { made = true, changed = 0; }
};

/// Whether `s` asks for adaptive sizes: adaptive_size on and max_point_size above point_size.
inline bool adaptive_size_on(const RenderSettings& s) {
  return s.adaptive_size && s.max_point_size > s.point_size;
}

/// ProjParams::point_size of a frame drawn with `s`: the largest square any point takes
/// (max_point_size with adaptive sizes, else point_size).
inline int frame_point_size(const RenderSettings& s) {
  return adaptive_size_on(s) ? s.max_point_size : s.point_size;
}

/// The SizeGrid of a frame of `drawn` of `total` stored points drawn with `s` from `table`'s grid,
/// its spacings read from `spacing` (the table's own, or its copy on the device).
SizeGrid frame_size_grid(const SizeGridTable& table, const float* spacing, const RenderSettings& s,
                         uint64_t total, uint64_t drawn);

}  // namespace pr
