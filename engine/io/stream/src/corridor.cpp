// A corridor of a survey read at full depth (engine/io/corridor.h): each tile (a COPC file or an
// EPT dataset, through the streaming's TileReader) has its hierarchy pages walked only where their
// cubes meet the corridor, the nodes that do sorted by level and taken while the budget holds,
// read in parallel, and merged into one cloud.
#include "engine/io/corridor.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <unordered_set>

#include "engine/io/copc.h"
#include "engine/io/survey.h"
#include "engine/parallel.h"
#include "stream_pool.h"
#include "tile_reader.h"

namespace pr {

namespace {

double point_box_distance(const glm::dvec2& p, const glm::dvec2& lo, const glm::dvec2& hi) {
  const glm::dvec2 d = glm::max(glm::max(lo - p, p - hi), glm::dvec2(0.0));
  return std::sqrt(d.x * d.x + d.y * d.y);
}

double point_segment_distance(const glm::dvec2& p, const glm::dvec2& a, const glm::dvec2& b) {
  const glm::dvec2 ab = b - a;
  const double len2 = ab.x * ab.x + ab.y * ab.y;
  const double t =
      len2 > 0.0 ? std::clamp(((p - a).x * ab.x + (p - a).y * ab.y) / len2, 0.0, 1.0) : 0.0;
  const glm::dvec2 d = p - (a + ab * t);
  return std::sqrt(d.x * d.x + d.y * d.y);
}

/// Whether the segment crosses the rectangle (Liang-Barsky: the parameter range inside every
/// slab is not empty).
bool segment_crosses_box(const glm::dvec2& a, const glm::dvec2& b, const glm::dvec2& lo,
                         const glm::dvec2& hi) {
  double t0 = 0.0, t1 = 1.0;
  const glm::dvec2 d = b - a;
  for (int k = 0; k < 2; ++k) {
    if (d[k] == 0.0) {
      if (a[k] < lo[k] || a[k] > hi[k]) return false;
      continue;
    }
    double u = (lo[k] - a[k]) / d[k], v = (hi[k] - a[k]) / d[k];
    if (u > v) std::swap(u, v);
    t0 = std::max(t0, u);
    t1 = std::min(t1, v);
    if (t0 > t1) return false;
  }
  return true;
}

/// A node's (or a tile's) box across the ground meets the corridor.
bool box_meets(const CorridorRequest& r, const Bounds& b) {
  const glm::dvec2 lo(b.min.x, b.min.y), hi(b.max.x, b.max.y);
  for (size_t k = 0; k + 1 < r.line.size(); ++k)
    if (segment_near_box(r.line[k], r.line[k + 1], lo, hi, r.half_width)) return true;
  return false;
}

/// A box the region may hold points of (an unknown box is read).
bool region_meets(const RegionRequest& r, const Bounds& b) {
  return b.empty || !r.meets || r.meets(b);
}

/// The deepest level of `file` a region at `resolution` reads: the first whose spacing is at most
/// the resolution (the last level a COPC key can name when none is).
int deepest_level(const CopcInfo& c, double resolution) {
  if (!(resolution > 0.0)) return std::numeric_limits<int>::max();
  int level = 0;
  while (level < 30 && !(std::ldexp(c.spacing, -level) <= resolution)) ++level;
  return level;
}

struct Candidate {
  size_t tile;
  CopcEntry entry;
};

/// The nodes of one tile that meet the corridor: its pages walked where their cubes do (a page
/// listed twice is read once: an EPT file that names itself, a COPC cycle).
bool tile_candidates(const TileReader& file, size_t tile, const RegionRequest& r,
                     std::vector<Candidate>* out, std::string* error,
                     const std::atomic<bool>* cancel) {
  std::vector<CopcEntry> pages{file.root_page()};
  std::unordered_set<uint64_t> seen{pages.front().offset};
  const CopcInfo& cube = file.info().copc;
  const int deepest = deepest_level(cube, r.resolution);
  while (!pages.empty()) {
    const CopcEntry page = pages.back();
    pages.pop_back();
    std::vector<CopcEntry> entries;
    if (!file.read_page(page, entries, nullptr, error, cancel)) return false;
    for (const CopcEntry& e : entries) {
      // A page's key is the root of its subtree: one deeper than `deepest` holds no node read.
      if (e.key.level > deepest || !region_meets(r, copc_node_bounds(cube, e.key))) continue;
      if (e.is_page()) {
        if (seen.insert(e.offset).second) pages.push_back(e);
      } else if (e.point_count > 0) {
        out->push_back({tile, e});
      }
    }
  }
  return true;
}

/// The candidates the budget takes: whole levels from the root down.
size_t within_budget(std::vector<Candidate>& c, uint64_t budget, CorridorStats* st) {
  std::stable_sort(c.begin(), c.end(), [](const Candidate& a, const Candidate& b) {
    return a.entry.key.level < b.entry.key.level;
  });
  uint64_t points = 0;
  size_t taken = 0;
  st->complete = true;
  while (taken < c.size()) {
    const int level = c[taken].entry.key.level;
    size_t end = taken;
    uint64_t level_points = 0;
    while (end < c.size() && c[end].entry.key.level == level)
      level_points += uint64_t(c[end++].entry.point_count);
    if (budget && points + level_points > budget && taken > 0) {
      st->complete = false;
      break;
    }
    points += level_points;
    st->depth = level;
    taken = end;
  }
  return taken;
}

template <class V, class T>
void copy_or_fill(V* dst, size_t at, const V& src, size_t n, T fill) {
  if (dst->empty()) return;
  if (src.empty())
    std::fill(dst->begin() + ptrdiff_t(at), dst->begin() + ptrdiff_t(at + n), fill);
  else
    std::copy(src.begin(), src.end(), dst->begin() + ptrdiff_t(at));
}

/// The parts (read with one origin) in one cloud: an attribute any part has is kept, with its
/// default where a part lacks it (a named field: its no-data value among `fields`, the tiles'
/// fields, as the streamed pool holds it).
void merge(std::vector<PointCloud>& parts, const glm::dvec3& origin,
           const std::vector<FieldInfo>& fields, PointCloud* out, unsigned threads) {
  std::vector<size_t> at(parts.size() + 1, 0);
  bool intensity = false, cls = false, ret = false, src = false, gps = false;
  std::vector<std::string> names;
  for (size_t k = 0; k < parts.size(); ++k) {
    const PointCloud& p = parts[k];
    at[k + 1] = at[k] + p.size();
    intensity |= !p.intensity.empty(), cls |= !p.classification.empty();
    ret |= !p.returns.empty(), src |= !p.point_source.empty(), gps |= !p.gps_time.empty();
    for (const ScalarField& f : p.fields)
      if (std::find(names.begin(), names.end(), f.name) == names.end()) names.push_back(f.name);
  }
  PointCloud& c = *out;
  c = PointCloud();
  c.origin = origin;
  const size_t n = at.back();
  c.resize(n);
  if (intensity) c.intensity.resize(n);
  if (cls) c.classification.resize(n);
  if (ret) c.returns.resize(n);
  if (src) c.point_source.resize(n);
  if (gps) c.gps_time.resize(n);
  std::vector<float> no_data;
  for (const std::string& name : names) {
    c.fields.push_back({name, PodVector<float>(n)});
    const auto f = std::find_if(fields.begin(), fields.end(),
                                [&](const FieldInfo& fi) { return fi.name == name; });
    no_data.push_back(f == fields.end() ? field_no_data(FieldInfo{name}) : field_no_data(*f));
  }
  parallel_for(
      parts.size(),
      [&](size_t b, size_t e) {
        for (size_t k = b; k < e; ++k) {
          const PointCloud& p = parts[k];
          const size_t m = p.size();
          std::copy(p.positions.begin(), p.positions.end(), c.positions.begin() + ptrdiff_t(at[k]));
          std::copy(p.source_colors().begin(), p.source_colors().end(),
                    c.colors.begin() + ptrdiff_t(at[k]));
          copy_or_fill(&c.intensity, at[k], p.intensity, m, 0.0f);
          copy_or_fill(&c.classification, at[k], p.classification, m, uint8_t{0});
          copy_or_fill(&c.returns, at[k], p.returns, m, pack_returns(1, 1));
          copy_or_fill(&c.point_source, at[k], p.point_source, m, uint16_t{0});
          copy_or_fill(&c.gps_time, at[k], p.gps_time, m, 0.0);
          for (size_t j = 0; j < c.fields.size(); ++j) {
            const ScalarField* pf = p.field(c.fields[j].name);
            copy_or_fill(&c.fields[j].values, at[k], pf ? pf->values : PodVector<float>(), m,
                         no_data[j]);
          }
        }
      },
      threads, 1);
}

}  // namespace

bool segment_near_box(const glm::dvec2& a, const glm::dvec2& b, const glm::dvec2& lo,
                      const glm::dvec2& hi, double distance) {
  if (segment_crosses_box(a, b, lo, hi)) return true;
  double d = std::min(point_box_distance(a, lo, hi), point_box_distance(b, lo, hi));
  for (const glm::dvec2& corner : {lo, hi, glm::dvec2(lo.x, hi.y), glm::dvec2(hi.x, lo.y)})
    d = std::min(d, point_segment_distance(corner, a, b));
  return d <= distance;
}

bool read_corridor(const std::vector<std::string>& inputs, const CorridorRequest& r,
                   PointCloud* out, CorridorStats* stats, std::string* error,
                   const std::atomic<bool>* cancel) {
  if (r.line.size() < 2 || !(r.half_width > 0.0)) {
    if (error) *error = "corridor: needs a line of 2 points or more and a width above 0";
    return false;
  }
  RegionRequest region;
  region.meets = [&r](const Bounds& b) { return box_meets(r, b); };
  region.point_budget = r.point_budget;
  region.threads = r.threads;
  region.http = r.http;
  return read_region(inputs, region, out, stats, error, cancel);
}

bool read_region(const std::vector<std::string>& inputs, const RegionRequest& r, PointCloud* out,
                 CorridorStats* stats, std::string* error, const std::atomic<bool>* cancel) {
  std::vector<SurveyTile> tiles;
  if (!list_survey(inputs, tiles, error, &r.http)) return false;
  CorridorStats st;
  std::vector<std::unique_ptr<TileReader>> files;
  std::vector<Candidate> candidates;
  for (const SurveyTile& t : tiles) {
    if (!region_meets(r, t.bounds)) continue;
    std::unique_ptr<TileReader> file = open_tile(t.href, r.http, error);
    if (!file) return false;
    if (!region_meets(r, file->info().bounds)) continue;
    ++st.tiles;
    if (!tile_candidates(*file, files.size(), r, &candidates, error, cancel)) return false;
    files.push_back(std::move(file));
  }
  const size_t taken = within_budget(candidates, r.point_budget, &st);
  const glm::dvec3 origin = files.empty() ? glm::dvec3(0.0) : files.front()->origin();
  std::vector<PointCloud> parts(taken);
  std::vector<std::string> errors(taken);
  std::atomic<bool> failed{false};
  parallel_for(
      taken,
      [&](size_t b, size_t e) {
        for (size_t k = b; k < e && !failed.load(); ++k) {
          const Candidate& c = candidates[k];
          if (!files[c.tile]->read_node(c.entry, origin, parts[k], &errors[k], cancel))
            failed = true;
        }
      },
      r.threads, 1);
  if (failed.load()) {
    for (const std::string& e : errors)
      if (!e.empty()) {
        if (error) *error = e;
        break;
      }
    return false;
  }
  st.nodes = taken;
  std::vector<FieldInfo> fields;
  for (const auto& file : files)
    for (const FieldInfo& f : file->info().fields)
      if (std::none_of(fields.begin(), fields.end(),
                       [&](const FieldInfo& g) { return g.name == f.name; }))
        fields.push_back(f);
  merge(parts, origin, fields, out, r.threads);
  out->name = tiles.size() == 1 ? tiles.front().href : std::to_string(tiles.size()) + " tiles";
  st.points = out->size();
  if (stats) *stats = st;
  return true;
}

}  // namespace pr
