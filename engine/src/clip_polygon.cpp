// Polygon selections (engine/clip_polygon.h).
#include "engine/clip_polygon.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>

namespace pr {

namespace {

bool fail(std::string* error, const std::string& message) {
  if (error) *error = message;
  return false;
}

/// Twice the signed area (the shoelace sum).
double twice_area(const std::vector<glm::dvec2>& v) {
  double s = 0.0;
  for (size_t i = 0, j = v.size() - 1; i < v.size(); j = i++)
    s += v[j].x * v[i].y - v[i].x * v[j].y;
  return s;
}

void bounds_of(const std::vector<glm::dvec2>& v, glm::dvec2* lo, glm::dvec2* hi) {
  *lo = glm::dvec2(std::numeric_limits<double>::infinity());
  *hi = -*lo;
  for (const glm::dvec2& p : v) {
    *lo = glm::min(*lo, p);
    *hi = glm::max(*hi, p);
  }
}

/// A finite number, the whole text.
bool number(std::string_view f, double* out) {
  double x = 0.0;
  const auto r = std::from_chars(f.data(), f.data() + f.size(), x);
  if (f.empty() || r.ec != std::errc() || r.ptr != f.data() + f.size() || !std::isfinite(x))
    return false;
  *out = x;
  return true;
}

/// Whether the rectangles [alo, ahi] and [blo, bhi] share no point.
bool disjoint(const glm::dvec2& alo, const glm::dvec2& ahi, const glm::dvec2& blo,
              const glm::dvec2& bhi) {
  return ahi.x < blo.x || bhi.x < alo.x || ahi.y < blo.y || bhi.y < alo.y;
}

}  // namespace

bool validate_clip_polygon(const ClipPolygon& polygon, std::string* error) {
  const std::vector<glm::dvec2>& v = polygon.vertices;
  if (v.size() < 3)
    return fail(error, "polygon: " + std::to_string(v.size()) +
                           (v.size() == 1 ? " vertex" : " vertices") + ", at least 3 needed");
  for (const glm::dvec2& p : v)
    if (!std::isfinite(p.x) || !std::isfinite(p.y))
      return fail(error, "polygon: a vertex is not finite");
  glm::dvec2 lo, hi;
  bounds_of(v, &lo, &hi);
  const double box = (hi.x - lo.x) * (hi.y - lo.y);
  // A polygon whose vertices lie on one line (or coincide) encloses nothing.
  if (!(std::abs(0.5 * twice_area(v)) > 1e-9 * box) || !(box > 0.0))
    return fail(error, "polygon: its vertices lie on one line: it encloses nothing");
  if (polygon.on_image && (polygon.width <= 0 || polygon.height <= 0))
    return fail(error, "polygon: the image it was drawn on has no size");
  return true;
}

bool parse_clip_polygon(std::string_view text, ClipPolygon* out, std::string* error) {
  ClipPolygon p;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t semi = std::min(text.find(';', start), text.size());
    const std::string_view pair = text.substr(start, semi - start);
    const size_t comma = pair.find(',');
    glm::dvec2 v;
    if (comma == std::string_view::npos || !number(pair.substr(0, comma), &v.x) ||
        !number(pair.substr(comma + 1), &v.y))
      return fail(error, "polygon: expected X,Y;X,Y;... (finite numbers), got '" +
                             std::string(pair) + "' in '" + std::string(text) + "'");
    p.vertices.push_back(v);
    start = semi + 1;
  }
  if (!validate_clip_polygon(p, error)) return false;
  *out = std::move(p);
  return true;
}

bool polygon_contains(const std::vector<glm::dvec2>& poly, const glm::dvec2& p) {
  // Even-odd: count the edges a ray from p towards +x crosses (an edge holds its lower end, not
  // its upper one, so a ray through a vertex counts it once).
  bool in = false;
  for (size_t i = 0, j = poly.size() - 1; i < poly.size(); j = i++) {
    const glm::dvec2 &a = poly[i], &b = poly[j];
    if ((a.y > p.y) == (b.y > p.y)) continue;
    const double x = a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x);
    if (p.x < x) in = !in;
  }
  return in;
}

bool clip_polygon_pixel(const ClipPolygon& polygon, const glm::dvec3& p, glm::dvec2* pixel) {
  const Camera& cam = polygon.camera;
  const glm::dvec3 d = p - cam.position;
  const double cx = glm::dot(d, cam.right()), cy = glm::dot(d, cam.up());
  const double cz = glm::dot(d, cam.forward());
  if (!(cz > cam.near_z)) return false;
  const double w = double(polygon.width), h = double(polygon.height);
  const double s = cam.image_scale(cz) * h * 0.5;
  *pixel = glm::dvec2(cx * s + w * 0.5, h * 0.5 - cy * s);
  return true;
}

bool clip_polygon_contains(const ClipPolygon& polygon, const glm::dvec3& p) {
  if (!polygon.on_image) return polygon_contains(polygon.vertices, glm::dvec2(p.x, p.y));
  glm::dvec2 px;
  return clip_polygon_pixel(polygon, p, &px) && polygon_contains(polygon.vertices, px);
}

bool clip_polygon_hides_box(const ClipPolygon& polygon, const glm::dvec3& lo,
                            const glm::dvec3& hi) {
  glm::dvec2 plo, phi;
  bounds_of(polygon.vertices, &plo, &phi);
  if (!polygon.on_image) return disjoint(glm::dvec2(lo), glm::dvec2(hi), plo, phi);
  // In front of the camera, the box's image is the convex hull of its corners' images (a
  // projection maps segments to segments there); a box reaching behind the camera is kept.
  glm::dvec2 blo(std::numeric_limits<double>::infinity()), bhi(-blo);
  int behind = 0;
  for (int k = 0; k < 8; ++k) {
    const glm::dvec3 c(k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z);
    glm::dvec2 px;
    if (!clip_polygon_pixel(polygon, c, &px)) {
      ++behind;
      continue;
    }
    blo = glm::min(blo, px);
    bhi = glm::max(bhi, px);
  }
  if (behind == 8) return true;
  return behind == 0 && disjoint(blo, bhi, plo - 1.0, phi + 1.0);
}

std::function<bool(const glm::dvec3&)> export_keep(const Clip& clip, const ClipPolygon* polygon) {
  if (polygon && !validate_clip_polygon(*polygon, nullptr))
    return [](const glm::dvec3&) { return false; };
  std::function<bool(const glm::dvec3&)> in_clip;
  if (clip.active()) in_clip = clip_keep(clip);
  if (!polygon) return in_clip ? in_clip : [](const glm::dvec3&) { return true; };
  const ClipPolygon poly = *polygon;
  return [in_clip, poly](const glm::dvec3& p) {
    return (!in_clip || in_clip(p)) && clip_polygon_contains(poly, p);
  };
}

std::function<bool(const glm::dvec3&, const glm::dvec3&)> export_keep_box(
    const Clip& clip, const ClipPolygon* polygon) {
  if (polygon && !validate_clip_polygon(*polygon, nullptr))
    return [](const glm::dvec3&, const glm::dvec3&) { return false; };
  ClipParams params;
  const glm::dvec3 anchor = !clip.boxes.empty() ? clip.boxes.front().centre : clip.section.point;
  const bool clipped = clip.active() && make_clip_params(clip, anchor, &params, nullptr);
  if (clip.active() && !clipped) return [](const glm::dvec3&, const glm::dvec3&) { return false; };
  std::optional<ClipPolygon> poly;
  if (polygon) poly = *polygon;
  return [clipped, params, anchor, poly](const glm::dvec3& lo, const glm::dvec3& hi) {
    if (clipped && clip_hides_box(params, anchor, lo, hi)) return false;
    return !poly || !clip_polygon_hides_box(*poly, lo, hi);
  };
}

}  // namespace pr
