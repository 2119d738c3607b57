// A random camera for tests that compare frames over many views (engine and kernel tests).
#pragma once

#include <random>

#include "engine/camera.h"
#include "engine/point_cloud.h"

namespace pr::test {

/// A camera at a random place (inside, outside or far from the bounds) looking in a random
/// direction with a random focal length: many boxes end up straddling the image edges and the
/// near plane. `ortho`: the same camera made orthographic, its view 5% to 3 times the bounds'
/// diagonal high (one draw more), so that points behind it are culled by the near plane and
/// boxes straddle the parallel image edges.
inline Camera random_camera(std::mt19937& rng, const Bounds& b, bool ortho = false) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Camera cam;
  const glm::dvec3 size = b.size();
  const double k = u(rng) < 0.5 ? 1.0 : 3.0;  // inside the box or around it
  cam.position = b.center() + (glm::dvec3(u(rng), u(rng), u(rng)) - 0.5) * size * k;
  cam.yaw = u(rng) * 6.283185307;
  cam.pitch = (u(rng) - 0.5) * 3.0;
  cam.focus = 0.5 + u(rng) * 8.0;
  if (u(rng) < 0.2) cam.near_z = u(rng) * glm::length(size) * 0.3;  // a deep near plane
  if (ortho) {
    cam.projection = Projection::kOrthographic;
    cam.ortho_height = glm::length(size) * (0.05 + u(rng) * 3.0);
  }
  return cam;
}

}  // namespace pr::test
