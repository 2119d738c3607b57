#include "engine/size_grid.h"

#include <algorithm>
#include <cmath>

#include "engine/parallel.h"

namespace pr {

namespace {

/// The shape of the grid over local bounds `b` (not empty): cubic cells of side
/// longest / kSizeGridCells, enough of them along each axis to cover it.
SizeGrid grid_shape(const Bounds& b) {
  SizeGrid g;
  const glm::dvec3 size = b.size();
  const double longest = std::max({size.x, size.y, size.z});
  for (int a = 0; a < 3; ++a) {
    g.lo[a] = float(b.min[a]);
    g.dims[a] = 1;
  }
  if (!(longest > 0.0)) return g;  // one place: one cell, inv_cell 0
  const double cell = longest / kSizeGridCells;
  g.inv_cell = float(1.0 / cell);
  for (int a = 0; a < 3; ++a)
    g.dims[a] = std::clamp(int(std::ceil(size[a] / cell)), 1, kSizeGridCells);
  return g;
}

/// Whether a local position is finite (the points the renderers can draw).
bool finite(const Float3& v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

}  // namespace

void build_size_grid(const PointCloud& cloud, SizeGridTable* out, unsigned threads) {
  out->points = cloud.size();
  const Bounds b = cloud.local_bounds();
  out->shape = b.empty ? SizeGrid{} : grid_shape(b);
  SizeGrid& g = out->shape;
  if (b.empty) g.dims[0] = g.dims[1] = g.dims[2] = 1;
  const size_t cells = size_t(g.dims[0]) * size_t(g.dims[1]) * size_t(g.dims[2]);
  // Counts by slices of the cloud, each into its own array (a few: each array is up to 1 MiB),
  // then summed: integer sums, the same whatever the order.
  const size_t n = cloud.size();
  const size_t slices = std::clamp<size_t>(threads ? threads : default_threads(), 1, 8);
  std::vector<std::vector<uint32_t>> counts(slices);
  if (!b.empty && n > 0) {
    parallel_for(
        slices,
        [&](size_t s0, size_t s1) {
          for (size_t s = s0; s < s1; ++s) {
            std::vector<uint32_t>& c = counts[s];
            c.assign(cells, 0);
            const size_t i1 = n * (s + 1) / slices;
            for (size_t i = n * s / slices; i < i1; ++i) {
              const Float3 v = cloud.positions[i];
              if (finite(v)) ++c[size_t(grid_cell(g, v.x, v.y, v.z))];
            }
          }
        },
        threads, 1);
  }
  // spacing = side / sqrt(count): `count` points on a surface of about side^2 across the cell.
  const double side = g.inv_cell > 0.0f ? 1.0 / double(g.inv_cell) : 0.0;
  out->spacing.assign(cells, 0.0f);
  for (size_t c = 0; c < cells; ++c) {
    uint64_t k = 0;
    for (const std::vector<uint32_t>& v : counts) k += v.empty() ? 0 : v[c];
    if (k > 0) out->spacing[c] = float(side / std::sqrt(double(k)));
  }
}

SizeGrid frame_size_grid(const SizeGridTable& table, const float* spacing, const RenderSettings& s,
                         uint64_t total, uint64_t drawn) {
  SizeGrid g = table.shape;
  g.spacing = spacing;
  g.min_size = std::max(1, s.point_size);
  const double thin = drawn > 0 && drawn < total ? std::sqrt(double(total) / double(drawn)) : 1.0;
  g.factor = float(double(s.adaptive_scale) * thin);
  return g;
}

}  // namespace pr
