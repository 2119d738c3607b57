// World points to window units for what is drawn over the image (pick marks, measurements, clip
// boxes and their handles): the camera of the frame on screen, perspective or orthographic
// (Camera::image_scale), in double precision, placed in the image's rectangle of the window.
#pragma once

#include <imgui.h>

#include <algorithm>
#include <glm/glm.hpp>
#include <optional>

#include "engine/camera.h"
#include "engine/renderer.h"
#include "viewer/layout.h"

namespace pr {

struct ScreenMap {
  const Camera& cam;
  ImageRect area;
  double w, h;  ///< the image in pixels

  ScreenMap(const Camera& camera, const RenderSettings& rs, const ImageRect& image)
      : cam(camera),
        area(image),
        w(double(std::max(rs.width, 1))),
        h(double(std::max(rs.height, 1))) {}

  /// Camera space: right, up, forward (depth).
  glm::dvec3 to_camera(const glm::dvec3& p) const {
    const glm::dvec3 d = p - cam.position;
    return {glm::dot(d, cam.right()), glm::dot(d, cam.up()), glm::dot(d, cam.forward())};
  }
  /// A camera-space point (in front of the near plane) in window units.
  ImVec2 to_window(const glm::dvec3& c) const {
    const double s = cam.image_scale(c.z) * h * 0.5;
    const double px = c.x * s + w * 0.5, py = h * 0.5 - c.y * s;
    return ImVec2(float(area.ux + px * double(area.uw) / w),
                  float(area.uy + py * double(area.uh) / h));
  }
  /// A world point in window units; none behind the near plane.
  std::optional<ImVec2> point(const glm::dvec3& p) const {
    const glm::dvec3 c = to_camera(p);
    if (!(c.z > cam.near_z)) return std::nullopt;
    return to_window(c);
  }
  /// The segment a-b, its part behind the near plane cut off; false when none is in front.
  bool segment(const glm::dvec3& a, const glm::dvec3& b, ImVec2* pa, ImVec2* pb) const {
    glm::dvec3 ca = to_camera(a), cb = to_camera(b);
    const double near = cam.near_z * 1.001;
    if (ca.z < near && cb.z < near) return false;
    if (ca.z < near) ca = ca + (cb - ca) * ((near - ca.z) / (cb.z - ca.z));
    if (cb.z < near) cb = cb + (ca - cb) * ((near - cb.z) / (ca.z - cb.z));
    *pa = to_window(ca);
    *pb = to_window(cb);
    return true;
  }
  /// The ray through window point (x, y): its origin (the camera's position, or in an
  /// orthographic view the point on the camera's plane) and unit direction.
  void ray(float x, float y, glm::dvec3* origin, glm::dvec3* dir) const {
    const double px = (double(x) - area.ux) * w / std::max(double(area.uw), 1.0);
    const double py = (double(y) - area.uy) * h / std::max(double(area.uh), 1.0);
    const double u = (px - w * 0.5) / (h * 0.5), v = (h * 0.5 - py) / (h * 0.5);
    if (cam.ortho()) {
      const double k = cam.image_scale(1.0);
      *origin = cam.position + cam.right() * (u / k) + cam.up() * (v / k);
      *dir = cam.forward();
    } else {
      const double k = cam.focus;
      *origin = cam.position;
      *dir = glm::normalize(cam.right() * (u / k) + cam.up() * (v / k) + cam.forward());
    }
  }
  /// World units a window unit spans at `depth` (across the view's plane there).
  double world_per_unit(double depth) const {
    return 1.0 / (cam.image_scale(depth) * h * 0.5) * h / std::max(double(area.uh), 1.0);
  }
};

}  // namespace pr
