// Clip descriptions in world coordinates and their local float form (engine/clip.h).
#include "engine/clip.h"

#include <cmath>
#include <cstring>

namespace pr {

bool parse_clip_mode(std::string_view text, ClipMode* out) {
  if (text == "inside") {
    *out = ClipMode::kInside;
  } else if (text == "outside") {
    *out = ClipMode::kOutside;
  } else if (text == "highlight") {
    *out = ClipMode::kHighlight;
  } else {
    return false;
  }
  return true;
}

const char* clip_mode_name(ClipMode m) {
  switch (m) {
    case ClipMode::kInside:
      return "inside";
    case ClipMode::kOutside:
      return "outside";
    case ClipMode::kHighlight:
      return "highlight";
  }
  return "inside";
}

glm::dmat3 clip_box_rotation(const ClipBox& b) {
  const double d = M_PI / 180.0;
  const double cy = std::cos(b.yaw * d), sy = std::sin(b.yaw * d);
  const double cp = std::cos(b.pitch * d), sp = std::sin(b.pitch * d);
  const double cr = std::cos(b.roll * d), sr = std::sin(b.roll * d);
  // glm is column-major: m[col][row].
  const glm::dmat3 rz(cy, sy, 0.0, -sy, cy, 0.0, 0.0, 0.0, 1.0);
  const glm::dmat3 ry(cp, 0.0, -sp, 0.0, 1.0, 0.0, sp, 0.0, cp);
  const glm::dmat3 rx(1.0, 0.0, 0.0, 0.0, cr, sr, 0.0, -sr, cr);
  return rz * ry * rx;
}

std::array<glm::dvec3, 8> clip_box_corners(const ClipBox& b) {
  const glm::dmat3 r = clip_box_rotation(b);
  std::array<glm::dvec3, 8> out;
  for (int k = 0; k < 8; ++k) {
    const glm::dvec3 l((k & 1 ? 0.5 : -0.5) * b.size.x, (k & 2 ? 0.5 : -0.5) * b.size.y,
                       (k & 4 ? 0.5 : -0.5) * b.size.z);
    out[size_t(k)] = b.centre + r * l;
  }
  return out;
}

namespace {

bool finite3(const glm::dvec3& v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

bool fail(std::string* error, const std::string& message) {
  if (error) *error = message;
  return false;
}

}  // namespace

bool validate_clip(const Clip& clip, std::string* error) {
  if (clip.boxes.size() > size_t(kMaxClipBoxes))
    return fail(error, std::to_string(clip.boxes.size()) + " clip boxes, at most " +
                           std::to_string(kMaxClipBoxes));
  for (size_t i = 0; i < clip.boxes.size(); ++i) {
    const ClipBox& b = clip.boxes[i];
    const std::string name = "clip box " + std::to_string(i + 1);
    if (!finite3(b.centre) || !finite3(b.size) || !std::isfinite(b.yaw) ||
        !std::isfinite(b.pitch) || !std::isfinite(b.roll))
      return fail(error, name + ": a number is not finite");
    if (!(b.size.x > 0.0 && b.size.y > 0.0 && b.size.z > 0.0))
      return fail(error, name + ": every size must be above zero");
  }
  const ClipSection& s = clip.section;
  if (s.enabled) {
    if (!finite3(s.point) || !finite3(s.normal) || !std::isfinite(s.thickness))
      return fail(error, "section: a number is not finite");
    if (!(s.thickness > 0.0)) return fail(error, "section: the thickness must be above zero");
    if (!(glm::dot(s.normal, s.normal) > 0.0)) return fail(error, "section: the normal is zero");
  }
  return true;
}

bool make_clip_params(const Clip& clip, const glm::dvec3& origin, ClipParams* out,
                      std::string* error) {
  if (!validate_clip(clip, error)) return false;
  ClipParams c;
  c.tint = clip.tint | kOpaqueAlpha;
  for (const ClipBox& b : clip.boxes) {
    ClipBoxParams& p = c.box[c.box_count++];
    const glm::dmat3 r = clip_box_rotation(b);
    const glm::dvec3 centre = b.centre - origin;
    for (int i = 0; i < 3; ++i) {
      p.c[i] = float(centre[i]);
      p.h[i] = float(0.5 * b.size[i]);
      // Row i of R^T is column i of R: the box's axis i.
      for (int a = 0; a < 3; ++a) p.r[3 * i + a] = float(r[i][a]);
    }
    p.mode = b.mode == ClipMode::kInside    ? kClipShowInside
             : b.mode == ClipMode::kOutside ? kClipShowOutside
                                            : kClipHighlight;
    if (b.mode == ClipMode::kInside) ++c.inside_count;
  }
  if (clip.section.enabled) {
    const ClipSection& s = clip.section;
    const glm::dvec3 n = glm::normalize(s.normal);
    const glm::dvec3 p = s.point - origin;
    c.section = 1;
    for (int a = 0; a < 3; ++a) {
      c.sn[a] = float(n[a]);
      c.sp[a] = float(p[a]);
    }
    c.shalf = float(0.5 * s.thickness);
  }
  *out = c;
  return true;
}

bool clip_shows(const ClipParams& params, const glm::dvec3& origin, const glm::dvec3& p) {
  const glm::dvec3 l = p - origin;
  return clip_point(params, float(l.x), float(l.y), float(l.z)) != kClipHidden;
}

std::function<bool(const glm::dvec3&)> clip_keep(const Clip& clip) {
  const glm::dvec3 anchor = !clip.boxes.empty() ? clip.boxes.front().centre : clip.section.point;
  ClipParams params;
  if (!make_clip_params(clip, anchor, &params, nullptr))
    return [](const glm::dvec3&) { return false; };
  return [params, anchor](const glm::dvec3& p) { return clip_shows(params, anchor, p); };
}

uint64_t clip_key(const Clip& clip) {
  uint64_t h = 1469598103934665603ull;
  auto add = [&h](double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    for (int i = 0; i < 8; ++i) h = (h ^ ((bits >> (8 * i)) & 255u)) * 1099511628211ull;
  };
  for (const ClipBox& b : clip.boxes) {
    for (int a = 0; a < 3; ++a) add(b.centre[a]), add(b.size[a]);
    add(b.yaw), add(b.pitch), add(b.roll), add(double(b.mode));
  }
  const ClipSection& s = clip.section;
  add(s.enabled ? 1.0 : 0.0);
  for (int a = 0; a < 3; ++a) add(s.point[a]), add(s.normal[a]);
  add(s.thickness);
  return h;
}

bool clip_hides_box(const ClipParams& params, const glm::dvec3& origin, const glm::dvec3& lo,
                    const glm::dvec3& hi) {
  if (!params.active()) return false;
  const double l[3] = {lo.x - origin.x, lo.y - origin.y, lo.z - origin.z};
  const double h[3] = {hi.x - origin.x, hi.y - origin.y, hi.z - origin.z};
  return clip_box_class(params, l, h) == kClipHidden;
}

ClipSection section_along_axis(int axis, double at, double thickness) {
  ClipSection s;
  s.enabled = true;
  s.normal = glm::dvec3(0.0);
  s.normal[axis < 0 ? 0 : axis > 2 ? 2 : axis] = 1.0;
  s.point = s.normal * at;
  s.thickness = thickness;
  return s;
}

ClipSection section_facing(const Camera& camera, const glm::dvec3& point, double thickness) {
  ClipSection s;
  s.enabled = true;
  s.point = point;
  s.normal = camera.forward();
  s.thickness = thickness;
  return s;
}

bool section_through_points(const glm::dvec3& a, const glm::dvec3& b, const glm::dvec3& c,
                            double thickness, ClipSection* out, std::string* error) {
  const glm::dvec3 n = glm::cross(b - a, c - a);
  const double len = glm::length(n);
  const double scale = glm::length(b - a) * glm::length(c - a);
  if (!(len > 1e-12 * scale) || !finite3(n))
    return fail(error, "section: the three points lie on one line");
  ClipSection s;
  s.enabled = true;
  s.point = (a + b + c) / 3.0;
  s.normal = n / len;
  s.thickness = thickness;
  *out = s;
  return true;
}

void step_section(ClipSection* s, double steps) {
  const double len = glm::length(s->normal);
  if (!(len > 0.0)) return;
  s->point += s->normal / len * (steps * s->thickness);
}

ClipBox clip_box_around(const glm::dvec3& lo, const glm::dvec3& hi, ClipMode mode) {
  ClipBox b;
  b.centre = 0.5 * (lo + hi);
  b.size = glm::max(hi - lo, glm::dvec3(1e-9));
  b.mode = mode;
  return b;
}

}  // namespace pr
