// What the headless renderer and the viewer share: building the cloud and camera from the
// options, and making a renderer by mode.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/camera.h"
#include "engine/io.h"
#include "engine/point_cloud.h"
#include "engine/renderer.h"
#include "options.h"

namespace pr {

/// Default number of points of a procedural scene.
constexpr uint64_t kDefaultScenePoints = 4'000'000;

struct Session {
  PointCloud cloud;
  Camera camera;
  std::string scene;               ///< scene name, or empty when files were loaded
  std::vector<FileInfo> files;     ///< what was loaded
};

/// Loads the FILEs (merged into one cloud) or generates the scene; sets a starting camera, then
/// applies --camera and --focus. False with a message when a file cannot be read.
bool build_session(const Options& o, Session& s, std::string* error);

/// Applies --camera and --focus to a camera.
void apply_camera_options(const Options& o, Camera& cam);

/// Whether this build and machine can render on the GPU; the reason when not.
bool gpu_mode_available(std::string* why);

/// A renderer for "cpu" or "gpu"; null with the reason when the GPU cannot be used.
std::unique_ptr<Renderer> make_renderer(const std::string& mode, unsigned threads,
                                        std::string* why);

}  // namespace pr
