// What the headless renderer and the viewer share: building the cloud and its starting camera
// from the options, and making renderers with the options' RenderOptions.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/camera.h"
#include "engine/colorize.h"
#include "engine/cpu_renderer.h"
#include "engine/io/io.h"
#include "engine/point_cloud.h"
#include "engine/renderer.h"
#include "kernels/gpu_renderer.h"
#include "options.h"

namespace pr {

/// Default number of points of a procedural scene.
constexpr uint64_t kDefaultScenePoints = 4'000'000;
/// The focal length loaded files start with (a wider view than the scenes' cameras).
constexpr double kFilesFocus = 1.5;

struct Startup {
  PointCloud cloud;
  Camera camera;
  std::string scene;            ///< scene name, or empty when files were loaded
  std::vector<FileInfo> files;  ///< what was loaded
};

/// Loads the FILEs (merged into one cloud) or generates the scene, and sets starting_camera().
/// False with a message when a file cannot be read.
bool build_startup(const Options& o, Startup& s, std::string* error);

/// The view a new cloud starts with, before --camera and --focus: a scene's own camera
/// (scene_camera(); with `up` z, the same view in the z-up frame's angles), or for files
/// (`scene` empty) the whole cloud framed from above at about 29 degrees with focal length
/// `focus`. `aspect`: the image's width / height.
Camera cloud_camera(const PointCloud& cloud, const std::string& scene, UpAxis up, double aspect,
                    double focus = kFilesFocus);

/// A scene file's camera (SceneExtras::camera) with up_axis_for() as its up axis into `cam`;
/// false when the options hold none.
bool scene_file_camera(const Options& o, bool from_files, Camera* cam);

/// The starting camera, for headless mode and the viewer's first cloud: a scene file's camera,
/// else cloud_camera() with up_axis_for(); then --camera, --focus, --projection and --view.
Camera starting_camera(const Options& o, const PointCloud& cloud, const std::string& scene,
                       double aspect);
/// starting_camera() of a scene made without a host cloud (on the GPU), from its world bounds.
Camera scene_starting_camera(const Options& o, const std::string& scene, const Bounds& world_bounds,
                             double aspect);

/// Applies --camera and --focus to a camera, then --projection (Camera::set_projection(), which
/// keeps what is seen at the centre of `world_bounds`) and --view (the standard view framing
/// `world_bounds` for an image of aspect W/H).
void apply_camera_options(const Options& o, Camera& cam, const Bounds& world_bounds, double aspect);

/// The up axis for a cloud: --up when given, else z for files (LAS and scanner formats are z-up)
/// and y for the procedural scenes (built y-up, as the NumPy/CuPy perspective projection the
/// project grew from drew them).
UpAxis up_axis_for(const Options& o, bool from_files);

/// Frames the whole cloud from above at about 29 degrees, `up` being up.
void frame_files_camera(Camera& cam, const Bounds& world_bounds, double aspect, UpAxis up);

/// The color settings of the command line: --color (else default_color_mode() of `cloud`),
/// --colormap, a scene file's gamma and range, and `up` as elevation's axis.
ColorSettings color_settings(const Options& o, const PointCloud& cloud, UpAxis up);

/// The color mode of the command line (--color, else default_color_mode()) with --colormap, a
/// scene file's gamma and range, and `up` as elevation's axis, computed and handed to `cloud`
/// (set_display_colors()); `used` and `legend` (either may be null) receive what was applied. False
/// with a message naming the option when the cloud lacks what the mode needs (the program then
/// exits 2).
bool apply_color_options(const Options& o, PointCloud& cloud, UpAxis up, ColorSettings* used,
                         Legend* legend, std::string* error);

/// The renderer options of the command line: --compact, --culling, --occlusion, --sort,
/// --binning.
RenderOptions render_options(const Options& o);

/// What to read of the FILEs: --scan, --max-points, --max-depth.
LoadOptions load_options(const Options& o);

/// The CPU renderer with --threads and render_options().
std::unique_ptr<CpuRenderer> make_cpu_renderer(const Options& o);
/// The GPU renderer with render_options() and --gpu-memory-limit; null with the reason.
std::unique_ptr<GpuRenderer> make_gpu_renderer(const Options& o, std::string* why);

/// A renderer for "cpu" or "gpu" as above; null with the reason when the GPU cannot be used.
std::unique_ptr<Renderer> make_renderer(const std::string& mode, const Options& o,
                                        std::string* why);
/// The renderer of --mode (headless runs: the CPU unless told); null after printing
/// "--mode M is not available: why".
std::unique_ptr<Renderer> make_headless_renderer(const Options& o);

}  // namespace pr
