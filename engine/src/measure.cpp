// Measurements in world coordinates (engine/measure.h); the 2.5D volume is in
// measure_volume.cpp. docs/MEASURE.md gives the math.
#include "engine/measure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <mutex>

#include "engine/parallel.h"
#include "engine/pick.h"

namespace pr {

namespace {

constexpr double kPi = 3.14159265358979323846;

bool finite(const glm::dvec3& p) {
  return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z);
}

/// False with "<what>: point K is not finite" for the first point that is not.
bool check_finite(const std::vector<glm::dvec3>& points, const char* what, std::string* error) {
  for (size_t k = 0; k < points.size(); ++k)
    if (!finite(points[k])) {
      if (error) *error = std::string(what) + ": point " + std::to_string(k + 1) + " is not finite";
      return false;
    }
  return true;
}

/// The rotation by `angle` radians about the unit axis `e` (Rodrigues: cI + s[e]x + (1-c)ee^T).
glm::dmat3 rotation(const glm::dvec3& e, double angle) {
  const double c = std::cos(angle), s = std::sin(angle);
  glm::dmat3 r(c);
  const glm::dmat3 cross(glm::dvec3(0.0, e.z, -e.y), glm::dvec3(-e.z, 0.0, e.x),
                         glm::dvec3(e.y, -e.x, 0.0));  // columns of [e]x
  r += s * cross + (1.0 - c) * glm::outerProduct(e, e);
  return r;
}

/// The world position of point i: the origin plus the float position, in double.
glm::dvec3 world_of(const PointCloud& cloud, size_t i) {
  const Float3& p = cloud.positions[i];
  return cloud.origin + glm::dvec3(double(p.x), double(p.y), double(p.z));
}

}  // namespace

double up_component(const glm::dvec3& p, UpAxis up) {
  return up == UpAxis::kZ ? p.z : p.y;
}

glm::dvec2 ground_of(const glm::dvec3& p, UpAxis up) {
  // With y up, (z, x, y) is right-handed as (x, y, z) is: z then x, seen from above (+y).
  return up == UpAxis::kZ ? glm::dvec2(p.x, p.y) : glm::dvec2(p.z, p.x);
}

bool polyline_length(const std::vector<glm::dvec3>& points, UpAxis up, PolylineLength* out,
                     std::string* error) {
  if (points.size() < 2) {
    if (error) *error = "distance: needs at least 2 points, got " + std::to_string(points.size());
    return false;
  }
  if (!check_finite(points, "distance", error)) return false;
  PolylineLength r;
  for (size_t k = 1; k < points.size(); ++k) {
    const glm::dvec3 d = points[k] - points[k - 1];
    const glm::dvec2 g = ground_of(d, up);
    r.segments.push_back(glm::length(d));
    r.horizontal_segments.push_back(glm::length(g));
    r.total += r.segments.back();
    r.horizontal += r.horizontal_segments.back();
  }
  r.height = up_component(points.back() - points.front(), up);
  *out = r;
  return true;
}

bool angle_at(const glm::dvec3& a, const glm::dvec3& vertex, const glm::dvec3& c, double* degrees,
              std::string* error) {
  if (!check_finite({a, vertex, c}, "angle", error)) return false;
  const glm::dvec3 u = a - vertex, w = c - vertex;
  if (glm::length(u) == 0.0 || glm::length(w) == 0.0) {
    if (error)
      *error = std::string("angle: point ") + (glm::length(u) == 0.0 ? "1" : "3") +
               " coincides with the vertex (point 2)";
    return false;
  }
  // atan2 of |u x w| and u.w: accurate near 0 and 180 degrees, where acos of the cosine is not.
  *degrees = std::atan2(glm::length(glm::cross(u, w)), glm::dot(u, w)) * 180.0 / kPi;
  return true;
}

bool polygon_area(const std::vector<glm::dvec3>& points, UpAxis up, PolygonArea* out,
                  std::string* error) {
  if (points.size() < 3) {
    if (error)
      *error = "area: the polygon needs at least 3 points, got " + std::to_string(points.size());
    return false;
  }
  if (!check_finite(points, "area", error)) return false;
  // Relative to the first point, so that UTM-size coordinates do not cancel in the products.
  const glm::dvec3 o = points[0];
  const glm::dvec2 og = ground_of(o, up);
  glm::dvec3 newell(0.0);
  double shoelace = 0.0;
  PolygonArea r;
  const size_t n = points.size();
  for (size_t k = 0; k < n; ++k) {
    const glm::dvec3 p = points[k] - o, q = points[(k + 1) % n] - o;
    newell += glm::cross(p, q);
    const glm::dvec2 pg = ground_of(points[k], up) - og,
                     qg = ground_of(points[(k + 1) % n], up) - og;
    shoelace += pg.x * qg.y - qg.x * pg.y;
    r.perimeter += glm::length(q - p);
    r.horizontal_perimeter += glm::length(qg - pg);
  }
  r.area = 0.5 * glm::length(newell);
  if (r.area > 0.0) r.normal = glm::normalize(newell);
  r.horizontal = 0.5 * std::fabs(shoelace);
  *out = r;
  return true;
}

bool circle_through(const glm::dvec3& a, const glm::dvec3& b, const glm::dvec3& c, Circle* out,
                    std::string* error) {
  if (!check_finite({a, b, c}, "circle", error)) return false;
  const glm::dvec3 pts[3] = {a, b, c};
  for (int i = 0; i < 3; ++i)
    for (int j = i + 1; j < 3; ++j)
      if (pts[i] == pts[j]) {
        if (error)
          *error = "circle: points " + std::to_string(i + 1) + " and " + std::to_string(j + 1) +
                   " coincide";
        return false;
      }
  // Relative to c: u = a - c, w = b - c; the centre is c + ((|u|^2 w - |w|^2 u) x (u x w)) /
  // (2 |u x w|^2), the radius |u| |w| |u - w| / (2 |u x w|).
  const glm::dvec3 u = a - c, w = b - c, n = glm::cross(u, w);
  const double nn = glm::dot(n, n);
  const double lu = glm::length(u), lw = glm::length(w), luw = glm::length(u - w);
  // Collinear: the sine of the angle at c is |u x w| / (|u| |w|); below 1e-12 the centre is lost.
  if (!(std::sqrt(nn) > 1e-12 * lu * lw)) {
    if (error) *error = "circle: the three points lie on a line";
    return false;
  }
  Circle r;
  r.center = c + glm::cross(glm::dot(u, u) * w - glm::dot(w, w) * u, n) / (2.0 * nn);
  r.radius = lu * lw * luw / (2.0 * std::sqrt(nn));
  r.normal = n / std::sqrt(nn);
  *out = r;
  return true;
}

glm::dmat3 box_rotation(const MeasureBox& box, UpAxis up) {
  const glm::dvec3 x(1, 0, 0), y(0, 1, 0), z(0, 0, 1);
  const glm::dvec3 up_axis = up == UpAxis::kZ ? z : y, third = up == UpAxis::kZ ? y : z;
  return rotation(up_axis, box.yaw) * rotation(x, box.pitch) * rotation(third, box.roll);
}

bool inside_box(const MeasureBox& box, UpAxis up, const glm::dvec3& p) {
  const glm::dvec3 local = glm::transpose(box_rotation(box, up)) * (p - box.center);
  const glm::dvec3 h = box.size * 0.5;
  return std::fabs(local.x) <= h.x && std::fabs(local.y) <= h.y && std::fabs(local.z) <= h.z;
}

bool count_in_box(const PointCloud& cloud, const MeasureBox& box, UpAxis up, BoxCount* out,
                  std::string* error, unsigned threads) {
  if (!finite(box.center) || !finite(box.size) || !std::isfinite(box.yaw) ||
      !std::isfinite(box.pitch) || !std::isfinite(box.roll)) {
    if (error) *error = "box: a value is not finite";
    return false;
  }
  if (!(box.size.x > 0.0 && box.size.y > 0.0 && box.size.z > 0.0)) {
    if (error) *error = "box: the size must be above 0 along each axis";
    return false;
  }
  // In the cloud's local frame: the box's centre relative to the origin, rows of R^T.
  const glm::dmat3 rt = glm::transpose(box_rotation(box, up));
  const glm::dvec3 c = box.center - cloud.origin, h = box.size * 0.5;
  std::mutex m;
  uint64_t inside = 0;
  parallel_for(
      cloud.size(),
      [&](size_t b, size_t e) {
        uint64_t k = 0;
        for (size_t i = b; i < e; ++i) {
          const Float3& p = cloud.positions[i];
          const glm::dvec3 l = rt * (glm::dvec3(double(p.x), double(p.y), double(p.z)) - c);
          k += std::fabs(l.x) <= h.x && std::fabs(l.y) <= h.y && std::fabs(l.z) <= h.z;
        }
        std::lock_guard<std::mutex> lock(m);
        inside += k;
      },
      threads, 1 << 16);
  out->volume = box.size.x * box.size.y * box.size.z;
  out->inside = inside;
  return true;
}

bool nearest_point(const PointCloud& cloud, const glm::dvec3& p, uint64_t* index, double* distance,
                   unsigned threads) {
  if (cloud.empty() || !finite(p)) return false;
  const glm::dvec3 local = p - cloud.origin;
  std::mutex m;
  double best = std::numeric_limits<double>::infinity();
  uint64_t best_i = 0;
  parallel_for(
      cloud.size(),
      [&](size_t b, size_t e) {
        double d2 = std::numeric_limits<double>::infinity();
        size_t at = b;
        for (size_t i = b; i < e; ++i) {
          const Float3& q = cloud.positions[i];
          const glm::dvec3 d = glm::dvec3(double(q.x), double(q.y), double(q.z)) - local;
          const double k = glm::dot(d, d);
          if (k < d2) {
            d2 = k;
            at = i;
          }
        }
        std::lock_guard<std::mutex> lock(m);
        // Ties: the lowest index, whatever the chunks' order.
        if (d2 < best || (d2 == best && at < best_i)) {
          best = d2;
          best_i = at;
        }
      },
      threads, 1 << 16);
  if (!std::isfinite(best)) return false;
  *index = best_i;
  *distance = glm::length(world_of(cloud, size_t(best_i)) - p);
  return true;
}

const char* cell_height_name(CellHeight h) {
  return h == CellHeight::kMin ? "min" : h == CellHeight::kMax ? "max" : "mean";
}

bool parse_cell_height(const std::string& s, CellHeight* out) {
  if (s == "min")
    *out = CellHeight::kMin;
  else if (s == "mean")
    *out = CellHeight::kMean;
  else if (s == "max")
    *out = CellHeight::kMax;
  else
    return false;
  return true;
}

}  // namespace pr
