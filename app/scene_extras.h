// What a scene file (docs/SCENE.md, app/scene_file.h) holds beyond the command line's options:
// the viewer's state when the scene was saved, which no option sets. Options::scene_extras carries
// it to headless mode and the viewer, which both draw the same image from it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "engine/camera.h"
#include "engine/measure.h"

namespace pr {

/// A measurement as the viewer's Measurements section lists it: shown or hidden.
struct SavedMeasurement {
  Measurement m;
  bool visible = true;
};

struct SceneExtras {
  /// The camera exactly as saved (position, yaw and pitch in radians, focus, projection, the
  /// orthographic height): placed instead of the cloud's framing; --camera, --focus,
  /// --projection and --view given beside the scene file apply to it. Its up axis is the
  /// options' (--up, or the scene's "up").
  std::optional<Camera> camera;
  /// The image the view was drawn at (0: not saved): headless mode's size unless --width or
  /// --height is given; the viewer opened on the scene sizes its window so that the image beside
  /// the panel has this size.
  int image_width = 0, image_height = 0;
  /// The viewer's background (RGB, 0 - 1); unset: the default (16, 18, 24).
  std::optional<std::array<float, 3>> background;
  /// Eye-dome lighting's radius in pixels (RenderSettings::edl_radius); unset: the default.
  std::optional<float> edl_radius;
  /// The Color section's details of a continuous mode: intensity's gamma, and a range set by hand
  /// (unset: the automatic range).
  double gamma = 1.0;
  std::optional<std::pair<double, double>> color_range;
  /// Classes the Color section's class table hides (their points are not drawn).
  std::vector<uint8_t> hidden_classes;
  /// The Measurements section's list, with the values as they were measured.
  std::vector<SavedMeasurement> measurements;
};

/// The background of `extras` as RGBA8 (the default's (16, 18, 24) when unset).
uint32_t scene_background(const SceneExtras& extras);

}  // namespace pr
