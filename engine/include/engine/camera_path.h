// Camera paths: camera poses (keyframes) at times, and the smooth motion through them.
#pragma once

#include <vector>

#include <glm/glm.hpp>

namespace pr {

/// A camera pose as the command line gives it: a world position and yaw and pitch in degrees
/// (the frame of engine/camera.h).
struct CameraPose {
  glm::dvec3 position{0.0};
  double yaw_deg = 0.0;
  double pitch_deg = 0.0;
};

/// A keyframe: a pose at a time (seconds from the path's start).
struct CameraKey {
  CameraPose pose;
  double time = 0.0;
};

/// Keyframes in time order; played once or looped, at the keys' times or at constant speed.
struct CameraPath {
  std::vector<CameraKey> keys;
  bool loop = false;
  bool constant_speed = false;
};

}  // namespace pr
