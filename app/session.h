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
  std::string scene;            ///< scene name, or empty when files were loaded
  std::vector<FileInfo> files;  ///< what was loaded
};

/// Loads the FILEs (merged into one cloud) or generates the scene; sets a starting camera, then
/// applies --camera and --focus. False with a message when a file cannot be read.
bool build_session(const Options& o, Session& s, std::string* error);

/// Applies --camera and --focus to a camera.
void apply_camera_options(const Options& o, Camera& cam);

/// The up axis for a cloud: --up when given, else z for files (LAS and scanner formats are z-up)
/// and y for the procedural scenes (built in the seed's y-up frame).
UpAxis up_axis_for(const Options& o, bool from_files);

/// The starting view of loaded files: looking down at about 29 degrees, the whole cloud framed.
void frame_files_camera(Camera& cam, const Bounds& world_bounds, double aspect, UpAxis up);

/// Whether this build and machine can render on the GPU; the reason when not.
bool gpu_mode_available(std::string* why);

/// A renderer for "cpu" or "gpu", drawing compact positions (engine/compact.h) when `compact`;
/// null with the reason when the GPU cannot be used.
std::unique_ptr<Renderer> make_renderer(const std::string& mode, unsigned threads, bool compact,
                                        std::string* why);

}  // namespace pr
