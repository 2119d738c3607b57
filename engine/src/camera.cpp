#include "engine/camera.h"

#include <algorithm>
#include <cmath>

namespace pr {

namespace {
constexpr double kPitchLimit = 1.5607963267948966;  // pi/2 - 0.01
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
  pitch = std::clamp(pitch + dpitch, -kPitchLimit, kPitchLimit);
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
  // Half-angle of the narrower of the two fields of view.
  const double half = std::atan(std::min(1.0, aspect > 0.0 ? aspect : 1.0) / focus);
  const double dist = radius / std::sin(half);
  position = b.center() - forward() * dist;
}

void Camera::fill_view(const Bounds& b, double aspect, double fill) {
  if (b.empty) return;
  const double a = aspect > 0.0 ? aspect : 1.0;
  const double m = fill > 0.0 && fill <= 1.0 ? fill : 0.9;
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
  return p;
}

}  // namespace pr
