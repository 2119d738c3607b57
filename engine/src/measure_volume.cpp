// The 2.5D volume (engine/measure.h): a grid of square cells over the polygon's box seen from
// above; the cells whose centre lies inside the polygon (even-odd rule, row by row); each cell's
// height from the points that fall in it (min, mean or max), binned in parallel into one grid per
// slab of points and then merged; the empty cells filled from the nearest filled ones, ring by
// ring (each takes the mean of its 8 neighbours valued in the rings before); cut and fill summed
// over the inside cells against the base height.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "engine/measure.h"
#include "engine/parallel.h"

namespace pr {

namespace {

/// The most cells a grid may have, and the most bytes the slabs' grids may take together.
constexpr uint64_t kMaxCells = uint64_t(1) << 26;
constexpr uint64_t kMaxSlabBytes = uint64_t(1) << 31;

struct Grid {
  glm::dvec2 lo{0.0};
  double cell = 1.0;
  int nx = 0, ny = 0;
  std::vector<uint8_t> inside;  // 1 where the cell's centre lies inside the polygon
  size_t size() const { return size_t(nx) * size_t(ny); }
};

/// The cells whose centre lies inside the polygon: each row's centre line crosses the polygon's
/// edges at sorted x, and the cells between the 1st and 2nd crossing, the 3rd and 4th, ... lie
/// inside (even-odd rule; an edge counts when one end lies above the line and the other not).
void mark_inside(const std::vector<glm::dvec2>& poly, Grid& g) {
  g.inside.assign(g.size(), 0);
  std::vector<double> xs;
  for (int j = 0; j < g.ny; ++j) {
    const double yc = g.lo.y + (double(j) + 0.5) * g.cell;
    xs.clear();
    for (size_t k = 0; k < poly.size(); ++k) {
      const glm::dvec2 a = poly[k], b = poly[(k + 1) % poly.size()];
      if ((a.y > yc) == (b.y > yc)) continue;
      xs.push_back(a.x + (yc - a.y) * (b.x - a.x) / (b.y - a.y));
    }
    std::sort(xs.begin(), xs.end());
    for (size_t k = 0; k + 1 < xs.size(); k += 2) {
      // Cell i's centre lo.x + (i + 0.5) cell in [x0, x1).
      const double i0 = std::ceil((xs[k] - g.lo.x) / g.cell - 0.5);
      const double i1 = std::ceil((xs[k + 1] - g.lo.x) / g.cell - 0.5);
      const int a = int(std::clamp(i0, 0.0, double(g.nx)));
      const int b = int(std::clamp(i1, 0.0, double(g.nx)));
      std::fill(g.inside.begin() + ptrdiff_t(size_t(j) * size_t(g.nx) + size_t(a)),
                g.inside.begin() + ptrdiff_t(size_t(j) * size_t(g.nx) + size_t(b)), uint8_t(1));
    }
  }
}

/// One slab's grid: points per cell and their min, sum or max.
struct SlabGrid {
  std::vector<uint32_t> count;
  std::vector<double> acc;
};

double initial_acc(CellHeight h) {
  if (h == CellHeight::kMin) return std::numeric_limits<double>::infinity();
  if (h == CellHeight::kMax) return -std::numeric_limits<double>::infinity();
  return 0.0;
}

/// Bins points [begin, end) into `s`: A and B the horizontal axes, H the up axis (template
/// arguments, so the loop reads fixed members). `off`: the origin less the grid's corner.
template <int A, int B, int H>
void bin_points(const PointCloud& cloud, size_t begin, size_t end, const Grid& g,
                const glm::dvec3& off, CellHeight how, SlabGrid& s) {
  const Float3* p = cloud.positions.data();
  const double inv = 1.0 / g.cell;
  const double nx = double(g.nx), ny = double(g.ny);
  for (size_t i = begin; i < end; ++i) {
    const float* f = &p[i].x;
    const double fx = (double(f[A]) + off[A]) * inv;
    const double fy = (double(f[B]) + off[B]) * inv;
    if (!(fx >= 0.0 && fx < nx && fy >= 0.0 && fy < ny)) continue;  // NaN fails too
    const size_t c = size_t(fy) * size_t(g.nx) + size_t(fx);
    if (!g.inside[c]) continue;
    const double h = double(f[H]) + off[H];
    if (!std::isfinite(h)) continue;
    ++s.count[c];
    if (how == CellHeight::kMean)
      s.acc[c] += h;
    else if (how == CellHeight::kMin)
      s.acc[c] = std::min(s.acc[c], h);
    else
      s.acc[c] = std::max(s.acc[c], h);
  }
}

/// Each cell's height from the cloud's points (NaN where none fell); the points counted.
uint64_t cell_heights(const PointCloud& cloud, const Grid& g, const VolumeOptions& o,
                      std::vector<double>& height) {
  const size_t cells = g.size();
  unsigned slabs = o.threads ? o.threads : default_threads();
  slabs = unsigned(std::min<uint64_t>(slabs, std::max<uint64_t>(1, kMaxSlabBytes / (cells * 12))));
  slabs = unsigned(std::min<size_t>(slabs, std::max<size_t>(1, cloud.size() / 65536)));
  // The grid's corner in the cloud's local frame, in the up axis' order: world = origin + local.
  const int a = o.up == UpAxis::kZ ? 0 : 2, b = o.up == UpAxis::kZ ? 1 : 0;
  glm::dvec3 off = cloud.origin;
  off[a] -= g.lo.x;
  off[b] -= g.lo.y;
  std::vector<SlabGrid> grids(slabs);
  const size_t n = cloud.size();
  parallel_for(
      slabs,
      [&](size_t s0, size_t s1) {
        for (size_t s = s0; s < s1; ++s) {
          SlabGrid& sg = grids[s];
          sg.count.assign(cells, 0);
          sg.acc.assign(cells, initial_acc(o.height));
          const size_t begin = n * s / slabs, end = n * (s + 1) / slabs;
          if (o.up == UpAxis::kZ)
            bin_points<0, 1, 2>(cloud, begin, end, g, off, o.height, sg);
          else
            bin_points<2, 0, 1>(cloud, begin, end, g, off, o.height, sg);
        }
      },
      slabs, 1);
  height.assign(cells, std::numeric_limits<double>::quiet_NaN());
  std::vector<uint64_t> counted(slabs, 0);
  parallel_for(
      cells,
      [&](size_t c0, size_t c1) {
        for (size_t c = c0; c < c1; ++c) {
          uint64_t k = 0;
          double acc = initial_acc(o.height);
          for (const SlabGrid& sg : grids) {
            k += sg.count[c];
            if (o.height == CellHeight::kMean)
              acc += sg.acc[c];
            else if (o.height == CellHeight::kMin)
              acc = std::min(acc, sg.acc[c]);
            else
              acc = std::max(acc, sg.acc[c]);
          }
          if (k) height[c] = o.height == CellHeight::kMean ? acc / double(k) : acc;
        }
      },
      o.threads, 1 << 16);
  uint64_t points = 0;
  for (const SlabGrid& sg : grids)
    for (const uint32_t k : sg.count) points += k;
  return points;
}

/// Fills the NaN cells from the nearest valued ones, ring by ring over the whole grid (so that
/// parts of the polygon joined only through outside cells are reached too): a cell of the next
/// ring takes the mean of its 8 neighbours valued in the rings before.
void fill_empty(const Grid& g, std::vector<double>& height) {
  const int nx = g.nx, ny = g.ny;
  std::vector<uint8_t> state(g.size(), 0);  // 0 empty, 1 valued, 2 in the next ring
  std::vector<uint32_t> ring, next;
  for (size_t c = 0; c < g.size(); ++c)
    if (!std::isnan(height[c])) {
      state[c] = 1;
      ring.push_back(uint32_t(c));
    }
  auto neighbours = [&](uint32_t c, auto&& fn) {
    const int x = int(c % uint32_t(nx)), y = int(c / uint32_t(nx));
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const int u = x + dx, v = y + dy;
        if ((dx || dy) && u >= 0 && u < nx && v >= 0 && v < ny) fn(uint32_t(v * nx + u));
      }
  };
  while (!ring.empty()) {
    next.clear();
    for (const uint32_t c : ring)
      neighbours(c, [&](uint32_t m) {
        if (state[m] == 0) {
          state[m] = 2;
          next.push_back(m);
        }
      });
    for (const uint32_t c : next) {
      double sum = 0.0;
      int k = 0;
      neighbours(c, [&](uint32_t m) {
        if (state[m] == 1) {
          sum += height[m];
          ++k;
        }
      });
      height[c] = sum / double(k);
    }
    for (const uint32_t c : next) state[c] = 1;
    ring.swap(next);
  }
}

bool finite(const glm::dvec3& p) {
  return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z);
}

/// The grid over the polygon's box seen from above; false with a message when it is too large.
bool make_grid(const std::vector<glm::dvec2>& poly, double cell, Grid& g, std::string* error) {
  glm::dvec2 lo = poly[0], hi = poly[0];
  for (const glm::dvec2& q : poly) {
    lo = glm::min(lo, q);
    hi = glm::max(hi, q);
  }
  const double nx = std::max(1.0, std::ceil((hi.x - lo.x) / cell));
  const double ny = std::max(1.0, std::ceil((hi.y - lo.y) / cell));
  if (nx * ny > double(kMaxCells)) {
    if (error)
      *error = "volume: a grid of " + std::to_string(uint64_t(nx)) + " x " +
               std::to_string(uint64_t(ny)) + " cells is too large: choose a larger cell size";
    return false;
  }
  g.lo = lo;
  g.cell = cell;
  g.nx = int(nx);
  g.ny = int(ny);
  mark_inside(poly, g);
  return true;
}

}  // namespace

bool volume_25d(const PointCloud& cloud, const std::vector<glm::dvec3>& polygon,
                const VolumeOptions& o, VolumeResult* out, std::string* error) {
  auto fail = [&](const std::string& m) {
    if (error) *error = "volume: " + m;
    return false;
  };
  if (polygon.size() < 3)
    return fail("the polygon needs at least 3 points, got " + std::to_string(polygon.size()));
  for (size_t k = 0; k < polygon.size(); ++k)
    if (!finite(polygon[k])) return fail("point " + std::to_string(k + 1) + " is not finite");
  if (!std::isfinite(o.base)) return fail("the base height is not finite");
  if (!(o.cell > 0.0) || !std::isfinite(o.cell)) return fail("the cell size must be above 0");
  std::vector<glm::dvec2> poly;
  for (const glm::dvec3& p : polygon) poly.push_back(ground_of(p, o.up));
  Grid g;
  if (!make_grid(poly, o.cell, g, error)) return false;
  VolumeResult r;
  r.columns = g.nx;
  r.rows = g.ny;
  for (const uint8_t in : g.inside) r.cells += in;
  if (r.cells == 0) return fail("no cell's centre lies inside the polygon: choose a smaller cell");
  std::vector<double> height;
  r.points = cell_heights(cloud, g, o, height);
  for (size_t c = 0; c < g.size(); ++c) r.filled += g.inside[c] && !std::isnan(height[c]);
  if (r.filled == 0) return fail("no point of the cloud lies inside the polygon");
  r.interpolated = r.cells - r.filled;
  fill_empty(g, height);
  const double a = o.cell * o.cell;
  for (size_t c = 0; c < g.size(); ++c) {
    if (!g.inside[c]) continue;
    const double d = height[c] - o.base;
    if (d > 0.0) r.cut += d * a;
    if (d < 0.0) r.fill -= d * a;
  }
  r.net = r.cut - r.fill;
  r.area = double(r.cells) * a;
  PolygonArea pa;
  if (polygon_area(polygon, o.up, &pa, nullptr)) r.polygon_area = pa.horizontal;
  *out = r;
  return true;
}

}  // namespace pr
