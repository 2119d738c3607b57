// Annotations: a title and a text at a world point, optionally with a saved camera that clicking
// the annotation flies to.
#pragma once

#include <optional>
#include <string>

#include <glm/glm.hpp>

#include "engine/camera_path.h"  // CameraPose

namespace pr {

struct Annotation {
  std::string title;
  std::string text;
  glm::dvec3 position{0.0};
  std::optional<CameraPose> camera;
};

}  // namespace pr
