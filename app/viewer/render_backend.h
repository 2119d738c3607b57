// The viewer's renderers: the CPU renderer, always there, and the GPU renderer, made on first use
// and kept; which one draws; one RenderOptions applied to both through the Renderer interface;
// handing them the cloud (with compact positions on the GPU when full precision does not fit);
// and the GPU's CUDA-GL interop into the display's pixel buffer. Whether there can be a GPU
// renderer (the build, the machine) the GPU renderer's factory says at run time
// (kernels/gpu_renderer.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/camera.h"
#include "engine/cpu_renderer.h"
#include "engine/frame_stats.h"
#include "engine/image.h"
#include "engine/io/stream.h"
#include "engine/point_cloud.h"
#include "engine/renderer.h"
#include "options.h"
#include "viewer/display.h"

namespace pr {

class RenderBackend {
 public:
  /// What the backend tells the user: one line for the status line, and whether it is an error.
  using StatusFn = std::function<void(const std::string& message, bool error)>;

  /// The CPU renderer with --threads; the options from the command line (render_options()).
  RenderBackend(const Options& o, StatusFn status);
  ~RenderBackend();
  RenderBackend(const RenderBackend&) = delete;
  RenderBackend& operator=(const RenderBackend&) = delete;

  /// The display whose pixel buffer the GPU renders into through interop. Set once, before the
  /// first frame; it must outlive the backend's GPU renderer.
  void attach(Display* display) { display_ = display; }

  /// Hands a new cloud to both renderers (before the old one is freed: they keep a pointer).
  /// False with `error` when the CPU renderer refuses it (then nothing changed). When the GPU
  /// renderer refuses it in every form, the CPU draws it: `note` says why and `gpu_refused` is
  /// set; a compact fallback is said in `note` too.
  bool set_cloud(const PointCloud& cloud, std::string* error, std::string* note, bool* gpu_refused);

  /// A scene made on the GPU (GpuRenderer::generate_scene(): one the host cannot hold): the CPU
  /// renderer takes `subset`, the host's even subset of it (make_scene_subset()), and the GPU
  /// renderer makes all `points` points of scene `name` (compact ones when full precision does
  /// not fit, said in `note` with the time it took). Needs GPU mode. False with `error` when
  /// either refuses: the cloud on screen stays. The GPU draws the scene in its own colors: it
  /// takes no host colors or picks for it (update_colors() refuses, pick_window() is false).
  bool set_device_scene(const PointCloud& subset, const std::string& name, uint64_t points,
                        std::string* error, std::string* note);
  /// The cloud on screen is a scene the GPU made: its points (0 otherwise).
  uint64_t device_scene_points() const { return device_scene_.points; }

  /// New colors of the cloud on screen (the same points and positions): both renderers take them
  /// (Renderer::update_colors(): nothing to do on the CPU, 3 bytes a point uploaded to the GPU).
  /// `gpu_current`: the GPU shows these colors already (show_staged_recipe()), only the CPU takes
  /// them. False with the reason when the GPU failed (it then has the whole cloud again).
  bool update_colors(std::string* error, bool gpu_current = false);
  /// update_colors()'s upload done ahead (Renderer::stage_colors()), from the thread that
  /// computed `colors` for `cloud` (the cloud on screen), while this one keeps drawing: the GPU
  /// renderer, when there is one, packs and uploads them; update_colors() then swaps them in.
  /// False with the reason when nothing was staged (update_colors() then uploads them).
  bool stage_colors(const PointCloud& cloud, const uint32_t* colors, std::string* error);
  /// The GPU renderer computes the colors of `recipe` for `cloud` (the cloud on screen) itself
  /// (Renderer::stage_recipe()), from the color job's thread, before the host has them; false
  /// with the reason when it cannot or there is none.
  bool stage_recipe(const PointCloud& cloud, const ColorRecipe& recipe, std::string* error);
  /// The GPU renderer draws the colors stage_recipe() staged from the next frame on; false when
  /// none are staged for the cloud on screen.
  bool show_staged_recipe();
  /// A pick's pass on the GPU (Renderer::pick_window()) for `cloud` (the cloud on screen), from
  /// the pick job's thread while this one draws; a new upload or a release of the GPU renderer
  /// waits for it. False with an empty `error` when there is no GPU renderer or it holds another
  /// cloud (the click's cloud has gone), with a message when the pass failed.
  bool pick_window(const PointCloud& cloud, const Camera& camera, const RenderSettings& settings,
                   PickWindow* window, std::string* error);

  /// Streaming (engine/io/stream.h): while on, the cloud handed over is a pool that both
  /// renderers draw as stored (no Morton order, no compact positions, whatever the panel says),
  /// since update_points() rewrites it in place. Takes effect at the next set_cloud().
  void set_streaming(bool on);
  bool streaming() const { return streaming_; }
  /// The pool's changed ranges to both renderers (Renderer::update_points()). False with the
  /// reason when the GPU refused them (it then has the whole pool again, or the CPU draws).
  bool update_points(const std::vector<PoolRange>& ranges, std::string* error);

  /// Draws on the GPU (making its renderer and uploading the cloud on first use) or the CPU.
  /// False, with the reason on the status line, when the GPU cannot be used.
  bool switch_mode(bool gpu);
  bool gpu_active() const { return use_gpu_; }

  const RenderOptions& options() const { return options_; }
  /// Batch culling, occlusion culling and binning: both renderers, from the next frame.
  void set_culling(bool on);
  void set_occlusion(Toggle mode);
  /// Compact positions on both renderers: re-encodes the cloud (re-uploads it to the GPU). When
  /// the GPU has no room for the form asked for, it keeps the form it had (or the CPU draws).
  void set_compact(bool on);
  /// The stored order (RenderOptions::sort) on: Morton order for every cloud; off: its own
  /// order. Re-uploads the cloud to the GPU; the CPU encodes compact positions in that order.
  void set_sort(bool on);

  /// Renders a frame with the renderer in use into the display's texture; `render_ms` and
  /// `upload_ms` by the host clock. False with the reason in `error` when nothing was drawn (a
  /// failed GPU frame also switches to the CPU).
  bool draw(const Camera& camera, const RenderSettings& rs, Image& scratch, FrameStats& stats,
            double& render_ms, double& upload_ms, std::string* error);

  /// Renders a frame with the renderer in use into `image` (host memory) at the size of `rs`,
  /// not the display: Render video's frames. False with the reason.
  bool render_image(const Camera& camera, const RenderSettings& rs, Image& image,
                    std::string* error);

  /// The renderer drawing now, for frames of other sizes than the window's (the Image section's
  /// tiles, image_save.h) drawn with Renderer::render() into a host image; null with the reason
  /// when the CPU renderer must take the cloud again and cannot.
  Renderer* renderer(std::string* error);

  /// CUDA lets go of the display's pixel buffer: call before the display reallocates it.
  void release_interop();
  /// Registers the display's pixel buffer for interop in GPU mode (again after a resize).
  void update_interop(bool size_changed);

  /// How the image reaches the screen: "CPU render, PBO upload", interop, or the host copy.
  std::string display_path() const;
  /// Why GPU mode is unavailable; empty while it may be available (checked once).
  const std::string& gpu_unavailable();
  /// "NVIDIA H200 (sm_90, 139 GiB)" in GPU mode, else empty.
  std::string device_name() const;
  /// Whether the renderer drawing now holds compact positions.
  bool compact_active() const;
  /// Whether the GPU's cloud is stored in Morton order (false without a GPU renderer).
  bool gpu_sorted() const;
  /// The GPU's clear, raster and resolve timed apart (GpuRenderer::set_stage_timing()).
  bool stage_timing() const;
  void set_stage_timing(bool on);
  /// The last frame's batches (drawn, hidden, out of view); empty when not known.
  std::string batch_note() const;
  /// Device bytes the GPU renderer holds (0 without one).
  size_t device_bytes() const;
  CpuRenderer& cpu() { return *cpu_; }
  const CpuRenderer& cpu() const { return *cpu_; }

 private:
  struct Gpu;  // the GPU renderer and its interop state
  void apply_options();
  RenderOptions effective_options() const;  // options_, less sort and compact while streaming
  bool refresh_cpu(std::string* error);     // hands the CPU its cloud again in the current options
  void reupload(const char* what);          // set_compact() and set_sort() on both renderers
  void reupload_gpu(const char* what);
  // Hands the GPU the cloud; `compact_fallback`: compact positions when full precision is refused.
  bool upload_gpu(std::string* why, std::string* note, bool compact_fallback);
  // The GPU renderer takes cloud_, or makes device_scene_; under gpu_mutex_.
  bool gpu_take_cloud(std::string* why);
  void drop_gpu(const std::string& why);  // refused: on to the CPU, with a status line
  void release_gpu();

  StatusFn status_;
  Options opt_;
  RenderOptions options_;
  std::unique_ptr<CpuRenderer> cpu_;
  std::unique_ptr<Gpu> gpu_;
  // Held by stage_colors() (another thread) while it uses the GPU renderer, and by this thread
  // while it makes, drops or hands a cloud to the GPU renderer.
  std::mutex gpu_mutex_;
  Display* display_ = nullptr;
  const PointCloud* cloud_ = nullptr;
  struct DeviceScene {
    std::string name;
    uint64_t points = 0;  // 0: cloud_ is the whole cloud
  };
  DeviceScene device_scene_;  // the GPU makes this scene; cloud_ is its subset on the host
  bool cpu_stale_ = false;    // the CPU holds the cloud in other options (compact, sort)
  bool use_gpu_ = false;
  bool streaming_ = false;
  bool gpu_checked_ = false;
  std::string gpu_why_;
};

}  // namespace pr
