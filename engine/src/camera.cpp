#include "engine/camera.h"

#include <algorithm>
#include <cmath>

namespace pr {

namespace {
constexpr double kPitchLimit = 1.5607963267948966;  // pi/2 - 0.01
constexpr double kHalfPi = 1.5707963267948966;
constexpr double kPi = 3.14159265358979323846;

struct ViewName {
  StandardView view;
  const char* name;
};
constexpr ViewName kViewNames[] = {
    {StandardView::kTop, "top"},     {StandardView::kBottom, "bottom"},
    {StandardView::kFront, "front"}, {StandardView::kBack, "back"},
    {StandardView::kLeft, "left"},   {StandardView::kRight, "right"},
    {StandardView::kIso, "iso"},
};

/// The box's corners, each a point in world coordinates.
void box_corners(const Bounds& b, glm::dvec3 out[8]) {
  for (int k = 0; k < 8; ++k)
    out[k] = {(k & 1) ? b.max.x : b.min.x, (k & 2) ? b.max.y : b.min.y,
              (k & 4) ? b.max.z : b.min.z};
}

/// How far in front of an orthographic camera the box's nearest point lies: enough for the
/// float camera transform's rounding to keep it beyond the near plane.
double ortho_clearance(const Bounds& b, double near_z) {
  return std::max(2.0 * near_z, 0.05 * glm::length(b.size()));
}
}  // namespace

const char* standard_view_name(StandardView v) {
  for (const ViewName& n : kViewNames)
    if (n.view == v) return n.name;
  return "?";
}

bool parse_standard_view(const std::string& name, StandardView* out) {
  for (const ViewName& n : kViewNames)
    if (name == n.name) {
      *out = n.view;
      return true;
    }
  return false;
}

glm::dvec3 Camera::to_world(const glm::dvec3& v) const {
  return up_axis == UpAxis::kZ ? glm::dvec3(v.x, v.z, v.y) : v;
}

// The axes in the yaw/pitch frame (x right, y up, z forward at yaw = pitch = 0), then to world.
glm::dvec3 Camera::forward() const {
  return to_world(
      {std::sin(yaw) * std::cos(pitch), std::sin(pitch), std::cos(yaw) * std::cos(pitch)});
}

glm::dvec3 Camera::right() const {
  return to_world({std::cos(yaw), 0.0, -std::sin(yaw)});
}

// In the yaw/pitch frame right x up = forward, as in the identity camera.
glm::dvec3 Camera::up() const {
  const glm::dvec3 f{std::sin(yaw) * std::cos(pitch), std::sin(pitch),
                     std::cos(yaw) * std::cos(pitch)};
  const glm::dvec3 r{std::cos(yaw), 0.0, -std::sin(yaw)};
  return to_world(glm::cross(f, r));
}

glm::dmat3 Camera::rows() const {
  // glm is column-major: build the transpose of the column matrix so that row i is axis i.
  return glm::transpose(glm::dmat3(right(), up(), forward()));
}

double Camera::vfov() const {
  return 2.0 * std::atan(1.0 / focus);
}

double Camera::focus_for_vfov(double vfov_radians) {
  return 1.0 / std::tan(vfov_radians * 0.5);
}

void Camera::move_local(const glm::dvec3& d) {
  position += right() * d.x + up() * d.y + forward() * d.z;
}

void Camera::turn(double dyaw, double dpitch) {
  yaw = std::remainder(yaw + dyaw, 2.0 * 3.14159265358979323846);
  // A pitch beyond the limit (a standard view's +-pi/2) may stay where it is or come back.
  const double limit = std::max(kPitchLimit, std::min(std::abs(pitch), kHalfPi));
  pitch = std::clamp(pitch + dpitch, -limit, limit);
}

double Camera::image_scale(double depth) const {
  return ortho() ? 2.0 / ortho_height : focus / depth;
}

void Camera::set_projection(Projection p, const Bounds& b) {
  if (p == projection) return;
  const glm::dvec3 f = forward();
  // The depth of the centre on the camera's axis; without a box, or behind the camera, the
  // depth at which both projections already agree.
  double depth = b.empty ? -1.0 : glm::dot(b.center() - position, f);
  if (p == Projection::kOrthographic) {
    if (!(depth > near_z)) depth = b.empty ? 10.0 : std::max(0.5 * glm::length(b.size()), 1e-6);
    ortho_height = 2.0 * depth / focus;
    projection = p;
    if (b.empty) return;
    glm::dvec3 corners[8];
    box_corners(b, corners);
    double zmin = 1e300;
    for (const glm::dvec3& c : corners) zmin = std::min(zmin, glm::dot(c - position, f));
    const double need = ortho_clearance(b, near_z);
    if (zmin < need) position -= f * (need - zmin);
    return;
  }
  const double same = focus * ortho_height * 0.5;  // perspective depth of the ortho scale
  if (b.empty) depth = same;
  position += f * (depth - same);
  projection = p;
}

void Camera::zoom(double factor) {
  if (!ortho() || !(factor > 0.0) || !std::isfinite(factor)) return;
  ortho_height = std::clamp(ortho_height / factor, 1e-9, 1e12);
}

void Camera::set_view(StandardView v, const Bounds& b, double aspect) {
  switch (v) {
    case StandardView::kTop:
      yaw = 0.0, pitch = -kHalfPi;
      break;
    case StandardView::kBottom:
      yaw = 0.0, pitch = kHalfPi;
      break;
    case StandardView::kFront:
      yaw = 0.0, pitch = 0.0;
      break;
    case StandardView::kBack:
      yaw = kPi, pitch = 0.0;
      break;
    case StandardView::kLeft:
      yaw = kHalfPi, pitch = 0.0;
      break;
    case StandardView::kRight:
      yaw = -kHalfPi, pitch = 0.0;
      break;
    case StandardView::kIso:
      yaw = -0.25 * kPi, pitch = -std::atan(1.0 / std::sqrt(2.0));
      break;
  }
  fill_view(b, aspect);
}

void Camera::look_at(const glm::dvec3& target) {
  const glm::dvec3 d = to_world(target - position);  // to_world is its own inverse
  const double len = glm::length(d);
  if (!(len > 0.0) || !std::isfinite(len)) return;
  yaw = std::atan2(d.x, d.z);
  pitch = std::clamp(std::asin(std::clamp(d.y / len, -1.0, 1.0)), -kPitchLimit, kPitchLimit);
}

void Camera::frame(const Bounds& b, double aspect) {
  if (b.empty) return;
  const double radius = std::max(0.5 * glm::length(b.size()), 1e-6);
  if (ortho()) {
    // The sphere's diameter across the narrower side of the image, the camera outside it.
    ortho_height = 2.0 * radius / std::min(1.0, aspect > 0.0 ? aspect : 1.0);
    position = b.center() - forward() * (radius + ortho_clearance(b, near_z));
    return;
  }
  // Half-angle of the narrower of the two fields of view.
  const double half = std::atan(std::min(1.0, aspect > 0.0 ? aspect : 1.0) / focus);
  const double dist = radius / std::sin(half);
  position = b.center() - forward() * dist;
}

void Camera::fill_ortho(const Bounds& b, double a, double m) {
  // Orthographic: a corner's image is its (x, y) in the camera's axes times 2 / ortho_height,
  // whatever its depth, so the corners' extents give the height directly: the image's middle m
  // holds m ortho_height vertically and m aspect ortho_height across.
  const glm::dvec3 ax_r = right(), ax_u = up(), ax_f = forward();
  glm::dvec3 corners[8];
  box_corners(b, corners);
  const glm::dvec3 c = b.center();
  double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300, z0 = 1e300;
  for (const glm::dvec3& k : corners) {
    const glm::dvec3 v = k - c;
    const double x = glm::dot(v, ax_r), y = glm::dot(v, ax_u), z = glm::dot(v, ax_f);
    x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
    z0 = std::min(z0, z);
  }
  // A box seen end-on (a vertical line from above) still gets a view of some size.
  ortho_height = std::max({(x1 - x0) / (m * a), (y1 - y0) / m, 1e-3 * glm::length(b.size()), 1e-6});
  const double d = ortho_clearance(b, near_z) - z0;  // the nearest corner that far in front
  position = c + ax_r * (0.5 * (x0 + x1)) + ax_u * (0.5 * (y0 + y1)) - ax_f * d;
}

void Camera::fill_view(const Bounds& b, double aspect, double fill) {
  if (b.empty) return;
  const double a = aspect > 0.0 ? aspect : 1.0;
  const double m = fill > 0.0 && fill <= 1.0 ? fill : 0.9;
  if (ortho()) {
    fill_ortho(b, a, m);
    return;
  }
  const glm::dvec3 c = b.center(), ax_r = right(), ax_u = up(), ax_f = forward();
  const glm::dvec3 h = b.size() * 0.5;
  glm::dvec3 cam[8];  // the corners from the centre in the camera's axes
  for (int k = 0; k < 8; ++k) {
    const glm::dvec3 v((k & 1) ? h.x : -h.x, (k & 2) ? h.y : -h.y, (k & 4) ? h.z : -h.z);
    cam[k] = {glm::dot(v, ax_r), glm::dot(v, ax_u), glm::dot(v, ax_f)};
  }
  // The camera sits at c + sr right + su up - d forward. A corner (x, y, z) then has camera
  // coordinates (x - sr, y - su, z + d) and lies in the middle m of the image when
  // |x - sr| <= tx (z + d) and |y - su| <= ty (z + d), tx = m aspect / focus, ty = m / focus:
  // linear in (sr, su, d). An sr meeting the x conditions of every corner exists when, for every
  // pair of corners j, k, x_j - tx (z_j + d) <= x_k + tx (z_k + d), that is
  // d >= (x_j - x_k) / (2 tx) - (z_j + z_k) / 2 (j = k keeps the corner in front); likewise for
  // y. The least d meeting all of them (and the near plane) is the distance; sr and su are then
  // the middles of their intervals, so that the corners' image is centred and touches the middle
  // m's edges on one axis at least.
  const double tx = m * a / focus, ty = m / focus;
  double d = 1e-6;
  for (const glm::dvec3& j : cam) {
    d = std::max(d, 2.0 * near_z - j.z);
    for (const glm::dvec3& k : cam)
      d = std::max({d, (j.x - k.x) / (2.0 * tx) - (j.z + k.z) * 0.5,
                    (j.y - k.y) / (2.0 * ty) - (j.z + k.z) * 0.5});
  }
  double x0 = -1e300, x1 = 1e300, y0 = -1e300, y1 = 1e300;
  for (const glm::dvec3& k : cam) {
    x0 = std::max(x0, k.x - tx * (k.z + d)), x1 = std::min(x1, k.x + tx * (k.z + d));
    y0 = std::max(y0, k.y - ty * (k.z + d)), y1 = std::min(y1, k.y + ty * (k.z + d));
  }
  position = c + ax_r * (0.5 * (x0 + x1)) + ax_u * (0.5 * (y0 + y1)) - ax_f * d;
}

ProjParams Camera::params(int width, int height, const glm::dvec3& origin, int point_size) const {
  ProjParams p{};
  const glm::dvec3 ax[3] = {right(), up(), forward()};
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) p.r[r * 3 + c] = float(ax[r][c]);
  const glm::dvec3 s = position - origin;
  p.shift[0] = float(s.x);
  p.shift[1] = float(s.y);
  p.shift[2] = float(s.z);
  p.focus = float(focus);
  p.near_z = float(near_z);
  p.scale = float(height) * 0.5f;
  p.cx = float(width) * 0.5f;
  p.cy = float(height) * 0.5f;
  p.width = width;
  p.height = height;
  p.point_size = point_size < 1 ? 1 : point_size;
  p.ortho = ortho() ? float(2.0 / ortho_height) : 0.0f;
  return p;
}

}  // namespace pr
