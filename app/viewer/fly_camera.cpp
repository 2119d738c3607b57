#include "viewer/fly_camera.h"

#include <algorithm>
#include <cmath>

namespace pr {

void FlyCamera::release_all() {
  for (bool& k : keys_) k = false;
}

bool FlyCamera::moving() const {
  for (int k = 0; k < kFast; ++k)
    if (keys_[k]) return true;
  return false;
}

void FlyCamera::look(Camera& cam, double dx, double dy) const {
  // d(forward)/d(yaw) = (cos yaw, 0, -sin yaw) = right(): positive yaw turns right, so mouse
  // motion to the right (+dx) adds yaw. Screen y grows downward, so moving up (-dy) pitches up.
  cam.turn(dx * look_sensitivity, -dy * look_sensitivity);
}

void FlyCamera::wheel(double notches) {
  speed = std::clamp(speed * std::pow(1.2, notches), 1e-4, 1e7);
}

void FlyCamera::update(Camera& cam, double seconds) const {
  if (!(seconds > 0.0)) return;
  seconds = std::min(seconds, 0.25);  // a stalled frame (load, drag) must not teleport the camera
  glm::dvec3 d(0.0);
  if (keys_[kRight]) d.x += 1.0;
  if (keys_[kLeft]) d.x -= 1.0;
  if (keys_[kUp]) d.y += 1.0;
  if (keys_[kDown]) d.y -= 1.0;
  if (keys_[kForward]) d.z += 1.0;
  if (keys_[kBack]) d.z -= 1.0;
  const double len = glm::length(d);
  if (len == 0.0) return;
  const double v = speed * (keys_[kFast] ? fast_factor : 1.0);
  const glm::dvec3 step = d / len * (v * seconds);
  if (cam.ortho()) {
    // Moving along the axis changes nothing in an orthographic image: forward and back zoom
    // instead, as a perspective camera approaching the depth D = focus * ortho_height / 2 (where
    // both scales agree) would, by exp(step / D) a frame (never through zero).
    cam.zoom(std::exp(step.z / (cam.focus * cam.ortho_height * 0.5)));
    cam.move_local({step.x, step.y, 0.0});
    return;
  }
  cam.move_local(step);
}

double FlyCamera::speed_for(const Bounds& b) {
  if (b.empty) return 10.0;
  const double diag = glm::length(b.size());
  return std::clamp(diag / 8.0, 1e-3, 1e6);
}

}  // namespace pr
