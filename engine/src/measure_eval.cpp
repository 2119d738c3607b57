// A measurement by kind (engine/measure.h): the points checked, the kind's function called and
// its results named, as the command line prints them and the viewer lists them.
#include <cmath>
#include <cstdio>
#include <limits>

#include "engine/measure.h"
#include "engine/pick.h"

namespace pr {

namespace {

constexpr double kDeg = 3.14159265358979323846 / 180.0;

struct KindEntry {
  MeasureKind kind;
  const char* name;
  int min_points, max_points;  // max 0: any number
};

constexpr KindEntry kKinds[] = {
    {MeasureKind::kPoint, "point", 1, 1},   {MeasureKind::kDistance, "distance", 2, 0},
    {MeasureKind::kHeight, "height", 2, 2}, {MeasureKind::kAngle, "angle", 3, 3},
    {MeasureKind::kArea, "area", 3, 0},     {MeasureKind::kCircle, "circle", 3, 3},
    {MeasureKind::kBox, "box", 2, 3},       {MeasureKind::kVolume, "volume", 3, 0},
};

const KindEntry& entry(MeasureKind k) {
  for (const KindEntry& e : kKinds)
    if (e.kind == k) return e;
  return kKinds[0];
}

void put(Measurement& m, const char* name, double v) {
  m.values.push_back({name, {v}});
}
void put(Measurement& m, const char* name, const glm::dvec3& v) {
  m.values.push_back({name, {v.x, v.y, v.z}, true});
}

bool eval_point(const std::vector<glm::dvec3>& pts, const PointCloud* cloud, const MeasureParams& p,
                Measurement& m, std::string* error) {
  uint64_t index = 0;
  double d = 0.0;
  if (!cloud || !nearest_point(*cloud, pts[0], &index, &d, p.threads)) {
    if (error) *error = "point: the cloud has no points";
    return false;
  }
  const Float3& q = cloud->positions[size_t(index)];
  const glm::dvec3 world = cloud->origin + glm::dvec3(double(q.x), double(q.y), double(q.z));
  m.points = {world};
  put(m, "position", world);
  put(m, "index", double(index));
  put(m, "distance", d);  // from the coordinates given to the cloud's point
  m.attributes = point_attributes(*cloud, index, true);
  return true;
}

bool eval_distance(const std::vector<glm::dvec3>& pts, const MeasureParams& p, Measurement& m,
                   std::string* error) {
  PolylineLength r;
  if (!polyline_length(pts, p.up, &r, error)) return false;
  put(m, "3d", r.total);
  put(m, "horizontal", r.horizontal);
  put(m, "height", r.height);
  m.values.push_back({"segments_3d", r.segments});
  m.values.push_back({"segments_horizontal", r.horizontal_segments});
  return true;
}

bool eval_height(const std::vector<glm::dvec3>& pts, const MeasureParams& p, Measurement& m,
                 std::string* error) {
  PolylineLength r;
  if (!polyline_length(pts, p.up, &r, error)) return false;
  put(m, "height", r.height);
  put(m, "3d", r.total);
  put(m, "horizontal", r.horizontal);
  return true;
}

bool eval_area(const std::vector<glm::dvec3>& pts, const MeasureParams& p, Measurement& m,
               std::string* error) {
  PolygonArea r;
  if (!polygon_area(pts, p.up, &r, error)) return false;
  put(m, "3d", r.area);
  put(m, "horizontal", r.horizontal);
  put(m, "perimeter_3d", r.perimeter);
  put(m, "perimeter_horizontal", r.horizontal_perimeter);
  put(m, "normal", r.normal);
  return true;
}

bool eval_circle(const std::vector<glm::dvec3>& pts, Measurement& m, std::string* error) {
  Circle c;
  if (!circle_through(pts[0], pts[1], pts[2], &c, error)) return false;
  put(m, "radius", c.radius);
  put(m, "diameter", 2.0 * c.radius);
  put(m, "center", c.center);
  put(m, "normal", c.normal);
  return true;
}

/// Points: the centre, the size, and yaw, pitch, roll in degrees (optional).
bool eval_box(const std::vector<glm::dvec3>& pts, const PointCloud* cloud, const MeasureParams& p,
              Measurement& m, std::string* error) {
  MeasureBox box;
  box.center = pts[0];
  box.size = pts[1];
  if (pts.size() > 2) {
    box.yaw = pts[2].x * kDeg;
    box.pitch = pts[2].y * kDeg;
    box.roll = pts[2].z * kDeg;
  }
  BoxCount r;
  const PointCloud empty;
  if (!count_in_box(cloud ? *cloud : empty, box, p.up, &r, error, p.threads)) return false;
  put(m, "volume", r.volume);
  put(m, "inside", double(r.inside));
  return true;
}

bool eval_volume(const std::vector<glm::dvec3>& pts, const PointCloud* cloud,
                 const MeasureParams& p, Measurement& m, std::string* error) {
  VolumeOptions o;
  o.up = p.up;
  o.height = p.height;
  o.threads = p.threads;
  o.base = p.base;
  if (p.auto_base) {
    o.base = 0.0;
    for (const glm::dvec3& q : pts) o.base += up_component(q, p.up) / double(pts.size());
  }
  o.cell = p.cell;
  if (o.cell == 0.0) {
    // Auto: the polygon box's longer side over 200 cells.
    glm::dvec2 lo = ground_of(pts[0], p.up), hi = lo;
    for (const glm::dvec3& q : pts) {
      lo = glm::min(lo, ground_of(q, p.up));
      hi = glm::max(hi, ground_of(q, p.up));
    }
    o.cell = std::max(hi.x - lo.x, hi.y - lo.y) / 200.0;
  }
  VolumeResult r;
  const PointCloud empty;
  if (!volume_25d(cloud ? *cloud : empty, pts, o, &r, error)) return false;
  put(m, "cut", r.cut);
  put(m, "fill", r.fill);
  put(m, "net", r.net);
  put(m, "base", o.base);
  put(m, "cell", o.cell);
  put(m, "cells", double(r.cells));
  put(m, "filled", double(r.filled));
  put(m, "interpolated", double(r.interpolated));
  put(m, "area", r.area);
  put(m, "polygon_area", r.polygon_area);
  put(m, "points", double(r.points));
  m.attributes = {{"height", cell_height_name(o.height)}};
  return true;
}

std::string fixed(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.3f", v);
  return b;
}

}  // namespace

const char* measure_kind_name(MeasureKind k) {
  return entry(k).name;
}

bool parse_measure_kind(const std::string& s, MeasureKind* out) {
  for (const KindEntry& e : kKinds)
    if (s == e.name) {
      *out = e.kind;
      return true;
    }
  return false;
}

void measure_point_count(MeasureKind k, int* min, int* max) {
  *min = entry(k).min_points;
  *max = entry(k).max_points;
}

double Measurement::value(const std::string& name) const {
  for (const MeasureValue& v : values)
    if (v.name == name && !v.v.empty()) return v.v[0];
  return std::numeric_limits<double>::quiet_NaN();
}

bool evaluate_measurement(MeasureKind kind, const std::vector<glm::dvec3>& points,
                          const PointCloud* cloud, const MeasureParams& params, Measurement* out,
                          std::string* error) {
  const KindEntry& e = entry(kind);
  const int n = int(points.size());
  if (n < e.min_points || (e.max_points && n > e.max_points)) {
    if (error) {
      const std::string want =
          e.min_points == e.max_points ? std::to_string(e.min_points)
          : e.max_points ? std::to_string(e.min_points) + " to " + std::to_string(e.max_points)
                         : "at least " + std::to_string(e.min_points);
      *error = std::string(e.name) + ": needs " + want + " points, got " + std::to_string(n);
    }
    return false;
  }
  for (int k = 0; k < n; ++k)
    if (!std::isfinite(points[size_t(k)].x) || !std::isfinite(points[size_t(k)].y) ||
        !std::isfinite(points[size_t(k)].z)) {
      if (error)
        *error = std::string(e.name) + ": point " + std::to_string(k + 1) + " is not finite";
      return false;
    }
  Measurement m;
  m.kind = kind;
  m.points = points;
  bool ok = false;
  switch (kind) {
    case MeasureKind::kPoint:
      ok = eval_point(points, cloud, params, m, error);
      break;
    case MeasureKind::kDistance:
      ok = eval_distance(points, params, m, error);
      break;
    case MeasureKind::kHeight:
      ok = eval_height(points, params, m, error);
      break;
    case MeasureKind::kAngle: {
      double deg = 0.0;
      ok = angle_at(points[0], points[1], points[2], &deg, error);
      put(m, "degrees", deg);
      break;
    }
    case MeasureKind::kArea:
      ok = eval_area(points, params, m, error);
      break;
    case MeasureKind::kCircle:
      ok = eval_circle(points, m, error);
      break;
    case MeasureKind::kBox:
      ok = eval_box(points, cloud, params, m, error);
      break;
    case MeasureKind::kVolume:
      ok = eval_volume(points, cloud, params, m, error);
      break;
  }
  if (ok) *out = std::move(m);
  return ok;
}

std::string measurement_summary(const Measurement& m) {
  const auto v = [&](const char* name) { return fixed(m.value(name)); };
  switch (m.kind) {
    case MeasureKind::kPoint: {
      const std::vector<double>& p = m.values[0].v;
      return "point " + fixed(p[0]) + " " + fixed(p[1]) + " " + fixed(p[2]);
    }
    case MeasureKind::kDistance:
      return "distance " + v("3d") + " (horizontal " + v("horizontal") + ")";
    case MeasureKind::kHeight:
      return "height " + v("height") + " (3d " + v("3d") + ")";
    case MeasureKind::kAngle:
      return "angle " + v("degrees") + " deg";
    case MeasureKind::kArea:
      return "area " + v("3d") + " (horizontal " + v("horizontal") + ")";
    case MeasureKind::kCircle:
      return "circle radius " + v("radius");
    case MeasureKind::kBox:
      return "box " + v("volume") + ", " + std::to_string(uint64_t(m.value("inside"))) +
             " points inside";
    case MeasureKind::kVolume:
      return "volume net " + v("net") + " (cut " + v("cut") + ", fill " + v("fill") + ")";
  }
  return "";
}

}  // namespace pr
