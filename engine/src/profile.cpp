// Profiles (engine/profile.h): the corridor test and the unrolled cloud. docs/PROFILE.md gives
// the math.
#include "engine/profile.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

#include "engine/measure.h"
#include "engine/parallel.h"

namespace pr {

namespace {

bool finite(const glm::dvec3& p) {
  return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z);
}

/// A segment across the ground: its start, unit direction, length and the station of its start.
struct Segment {
  glm::dvec2 a{0.0}, dir{0.0};
  double length = 0.0, start = 0.0;
};

/// One corridor point found by a chunk: its source index, station and offset.
struct Hit {
  uint64_t index;
  double station, offset;
};

std::vector<Segment> segments_of(const Profile& profile, UpAxis up, std::vector<double>* stations) {
  std::vector<Segment> segs;
  double s = 0.0;
  stations->assign(1, 0.0);
  for (size_t k = 0; k + 1 < profile.line.size(); ++k) {
    Segment g;
    g.a = ground_of(profile.line[k], up);
    const glm::dvec2 d = ground_of(profile.line[k + 1], up) - g.a;
    g.length = std::sqrt(d.x * d.x + d.y * d.y);
    g.dir = d / g.length;
    g.start = s;
    s += g.length;
    stations->push_back(s);
    segs.push_back(g);
  }
  return segs;
}

/// Whether ground point `g` lies in a segment's corridor (|offset| <= half), and then the station
/// and offset of the nearest such segment (the first of equals).
bool corridor_hit(const std::vector<Segment>& segs, const glm::dvec2& g, double half,
                  double* station, double* offset) {
  double best = std::numeric_limits<double>::infinity();
  for (const Segment& s : segs) {
    const glm::dvec2 v = g - s.a;
    const double t = v.x * s.dir.x + v.y * s.dir.y;
    if (!(t >= 0.0 && t <= s.length)) continue;
    const double off = s.dir.x * v.y - s.dir.y * v.x;  // the 2D cross product: left positive
    if (std::abs(off) <= half && std::abs(off) < best) {
      best = std::abs(off);
      *station = s.start + t;
      *offset = off;
    }
  }
  return best <= half;
}

/// The corridor's points, in the source's order, found in parallel.
std::vector<Hit> find_hits(const PointCloud& source, const std::vector<Segment>& segs, double half,
                           UpAxis up, unsigned threads) {
  // The line's box across the ground widened by `half`: most points of a large cloud fail this
  // before any segment is tried.
  glm::dvec2 lo(std::numeric_limits<double>::infinity()), hi(-lo);
  for (const Segment& s : segs)
    for (const glm::dvec2& e : {s.a, s.a + s.dir * s.length}) {
      lo = glm::min(lo, e);
      hi = glm::max(hi, e);
    }
  lo -= glm::dvec2(half);
  hi += glm::dvec2(half);
  std::mutex mutex;
  std::vector<std::pair<size_t, std::vector<Hit>>> chunks;
  parallel_for(
      source.size(),
      [&](size_t begin, size_t end) {
        std::vector<Hit> hits;
        for (size_t i = begin; i < end; ++i) {
          const Float3& f = source.positions[i];
          const glm::dvec3 w = source.origin + glm::dvec3(double(f.x), double(f.y), double(f.z));
          if (!finite(w)) continue;
          const glm::dvec2 g = ground_of(w, up);
          if (g.x < lo.x || g.x > hi.x || g.y < lo.y || g.y > hi.y) continue;
          double station = 0.0, offset = 0.0;
          if (corridor_hit(segs, g, half, &station, &offset)) hits.push_back({i, station, offset});
        }
        const std::lock_guard<std::mutex> lock(mutex);
        chunks.emplace_back(begin, std::move(hits));
      },
      threads, 1 << 16);
  std::sort(chunks.begin(), chunks.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Hit> all;
  size_t n = 0;
  for (const auto& c : chunks) n += c.second.size();
  all.reserve(n);
  for (const auto& c : chunks) all.insert(all.end(), c.second.begin(), c.second.end());
  return all;
}

/// dst[k] = src[index[k]] for a non-empty attribute array.
template <class V>
void gather(const V& src, const PodVector<uint64_t>& index, V* dst, unsigned threads) {
  dst->clear();
  if (src.empty()) return;
  dst->resize(index.size());
  parallel_for(
      index.size(),
      [&](size_t b, size_t e) {
        for (size_t k = b; k < e; ++k) (*dst)[k] = src[index[k]];
      },
      threads);
}

/// The attributes of the source points `index` (not the positions).
void gather_attributes(const PointCloud& src, const PodVector<uint64_t>& index, PointCloud* dst,
                       unsigned threads) {
  gather(src.colors, index, &dst->colors, threads);
  gather(src.file_colors, index, &dst->file_colors, threads);
  gather(src.intensity, index, &dst->intensity, threads);
  gather(src.classification, index, &dst->classification, threads);
  gather(src.returns, index, &dst->returns, threads);
  gather(src.point_source, index, &dst->point_source, threads);
  gather(src.gps_time, index, &dst->gps_time, threads);
  dst->fields.clear();
  for (const ScalarField& f : src.fields) {
    ScalarField g;
    g.name = f.name;
    gather(f.values, index, &g.values, threads);
    dst->fields.push_back(std::move(g));
  }
}

}  // namespace

bool validate_profile(const Profile& profile, UpAxis up, std::string* error) {
  auto fail = [error](const std::string& m) {
    if (error) *error = "profile: " + m;
    return false;
  };
  if (profile.line.size() < 2)
    return fail("needs at least 2 points, got " + std::to_string(profile.line.size()));
  for (size_t k = 0; k < profile.line.size(); ++k)
    if (!finite(profile.line[k])) return fail("point " + std::to_string(k + 1) + " is not finite");
  for (size_t k = 0; k + 1 < profile.line.size(); ++k)
    if (ground_of(profile.line[k], up) == ground_of(profile.line[k + 1], up))
      return fail("points " + std::to_string(k + 1) + " and " + std::to_string(k + 2) +
                  " lie at the same place across the ground");
  if (!(std::isfinite(profile.width) && profile.width > 0.0))
    return fail("the width must be a number above 0");
  return true;
}

bool extract_profile(const PointCloud& source, const Profile& profile, UpAxis up, ProfileCloud* out,
                     std::string* error, unsigned threads) {
  if (!validate_profile(profile, up, error)) return false;
  ProfileCloud p;
  const std::vector<Segment> segs = segments_of(profile, up, &p.vertex_station);
  p.length = p.vertex_station.back();
  p.width = profile.width;
  p.up = up;
  const std::vector<Hit> hits = find_hits(source, segs, profile.width * 0.5, up, threads);
  const size_t n = hits.size();
  p.source.resize(n);
  p.station.resize(n);
  p.offset.resize(n);
  p.cloud.resize(n);
  p.cloud.name = source.name + " profile";
  // The local frame centred on the line's middle and its first vertex's height keeps the floats
  // small: a 10 km profile keeps millimetres.
  const double z0 = std::round(up_component(profile.line.front(), up));
  p.cloud.origin = glm::dvec3(std::round(p.length * 0.5), 0.0, z0);
  parallel_for(
      n,
      [&](size_t b, size_t e) {
        for (size_t k = b; k < e; ++k) {
          const Hit& h = hits[k];
          p.source[k] = h.index;
          p.station[k] = h.station;
          p.offset[k] = h.offset;
          const glm::dvec3 w = profile_source_world(source, p, k);
          p.cloud.positions[k] = {float(h.station - p.cloud.origin.x), float(h.offset),
                                  float(up_component(w, up) - z0)};
        }
      },
      threads);
  gather_attributes(source, p.source, &p.cloud, threads);
  if (p.cloud.colors.empty()) p.cloud.colors.assign(n, rgba(255, 255, 255));
  *out = std::move(p);
  return true;
}

glm::dvec3 profile_source_world(const PointCloud& source, const ProfileCloud& p, size_t i) {
  const Float3& f = source.positions[p.source[i]];
  return source.origin + glm::dvec3(double(f.x), double(f.y), double(f.z));
}

void profile_copy_colors(const PointCloud& source, ProfileCloud* p) {
  gather(source.colors, p->source, &p->cloud.colors, 0);
  gather(source.file_colors, p->source, &p->cloud.file_colors, 0);
  if (p->cloud.colors.empty()) p->cloud.colors.assign(p->source.size(), rgba(255, 255, 255));
}

PointCloud profile_export_cloud(const PointCloud& source, const ProfileCloud& p) {
  PointCloud c;
  c.name = p.cloud.name;
  c.origin = source.origin;
  c.resize(p.source.size());
  for (size_t k = 0; k < p.source.size(); ++k) c.positions[k] = source.positions[p.source[k]];
  gather_attributes(source, p.source, &c, 0);
  // The file's colors, not a color mode's, are what a file keeps.
  if (!c.file_colors.empty()) c.colors = std::move(c.file_colors), c.file_colors.clear();
  if (c.colors.empty()) c.colors.assign(c.size(), rgba(255, 255, 255));
  ScalarField d;
  d.name = "distance";
  d.values.resize(p.station.size());
  for (size_t k = 0; k < p.station.size(); ++k) d.values[k] = float(p.station[k]);
  c.fields.push_back(std::move(d));
  return c;
}

Camera profile_camera(const ProfileCloud& p, double aspect) {
  Camera cam;
  cam.up_axis = UpAxis::kZ;
  cam.projection = Projection::kOrthographic;
  Bounds b = p.cloud.world_bounds();
  if (b.empty) {  // no point: the line's extent, a metre high
    b.extend(glm::dvec3(0.0, -p.width * 0.5, p.cloud.origin.z - 0.5));
    b.extend(glm::dvec3(p.length, p.width * 0.5, p.cloud.origin.z + 0.5));
  }
  cam.set_view(StandardView::kFront, b, aspect);
  return cam;
}

ProfileSpan profile_span(double station_a, double z_a, double station_b, double z_b) {
  if (station_b < station_a) std::swap(station_a, station_b), std::swap(z_a, z_b);
  ProfileSpan s;
  s.along = station_b - station_a;
  s.height = z_b - z_a;
  s.distance = std::hypot(s.along, s.height);
  s.slope_degrees = std::atan2(s.height, s.along) * (180.0 / 3.14159265358979323846);
  s.slope_percent = s.along > 0.0   ? 100.0 * s.height / s.along
                    : s.height == 0 ? 0.0
                    : s.height > 0  ? std::numeric_limits<double>::infinity()
                                    : -std::numeric_limits<double>::infinity();
  return s;
}

}  // namespace pr
