// The viewer's state, shared by viewer.cpp (window, loop, input) and panel.cpp (the ImGui panel).
// Internal to app/viewer: SDL types appear here, GL types do not.
#pragma once

#include <SDL.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/cpu_renderer.h"
#include "engine/frame_stats.h"
#include "engine/image.h"
#include "engine/io.h"
#include "engine/point_cloud.h"
#include "engine/renderer.h"
#include "options.h"
#include "viewer/cloud_job.h"
#include "viewer/display.h"
#include "viewer/fly_camera.h"
#include "viewer/settings.h"
#include "viewer/viewer.h"

#if PR_HAVE_CUDA
#include "kernels/cuda_renderer.h"
#endif

namespace pr {

struct Viewer::Impl {
  Options opt;
  ViewerSettings settings;
  std::string settings_path, imgui_ini_path;
  bool persist = true;  // interactive runs save settings; scripted runs (--frames) do not

  SDL_Window* window = nullptr;
  SDL_GLContext gl = nullptr;
  bool imgui_ready = false;
  float ui_scale = 1.0f;
  std::unique_ptr<Display> display;

  // The cloud on screen; the job makes the next one while this one stays visible.
  std::unique_ptr<PointCloud> cloud;
  std::vector<FileInfo> files;
  std::string scene;
  uint64_t scene_points = 0;  // points generated for the scene
  CloudJob job;
  bool first_cloud = true;
  bool initial_load_failed = false;
  Camera home_camera;            // what R returns to
  UpAxis files_up = UpAxis::kZ;  // up axis for loaded files (--up, or the panel's choice)

  // Renderers: the CPU one always exists; the GPU one is made on first use and kept.
  std::unique_ptr<CpuRenderer> cpu;
  bool cull = true;  // batch culling on both renderers (engine/culling.h; the panel's switch)
  // Occlusion culling as the panel set it (else each renderer's default, from the environment).
  std::optional<OcclusionMode> occlusion;
#if PR_HAVE_CUDA
  std::unique_ptr<CudaRenderer> gpu;
#endif
  bool use_gpu = false;
  bool gpu_compact = false;    // compact positions on the GPU (--compact, the panel, the fallback)
  bool interop = false;        // GPU renders straight into the PBO
  std::string interop_why;     // why interop is off in GPU mode
  std::string gpu_why;         // why GPU mode is unavailable (empty: available)
  std::string occlusion_note;  // the GPU's last batch counts, refreshed every 30 frames
  uint64_t panel_frames = 0;
  bool gpu_checked = false;

  Camera camera;
  FlyCamera fly;
  bool looking = false;  // right button held, started outside ImGui
  RenderSettings rs;
  uint64_t point_target = 0;  // the panel's point-count value
  Image image;
  bool have_image = false;

  // Timings, ms.
  FrameStats last_stats;
  double render_ms = 0, upload_ms = 0, ui_ms = 0, frame_ms = 0;
  double frame_avg_ms = 0;  // exponential average over about 20 frames, for the FPS readout
  History hist_frame{300}, hist_render{300}, hist_upload{300}, hist_ui{300};

  std::string status;  // last message
  bool status_is_error = false;
  bool quit = false;
  bool vsync = true;
  int frame = 0;

  // Open box.
  char path_buf[1024] = {0};
  std::string listing_dir;
  std::vector<std::pair<std::string, bool>> listing;  // name, is_dir
  std::vector<std::string> dropped;

  void set_status(const std::string& s, bool error);
  void install_cloud(CloudJob::Result& r);
  bool switch_mode(bool gpu);
  void set_gpu_sort(bool on);     // re-uploads the cloud to the GPU, sorted or not
  void set_gpu_compact(bool on);  // re-uploads the cloud to the GPU, compact or full precision
#if PR_HAVE_CUDA
  // `compact_fallback`: when full precision is refused, try compact positions.
  bool upload_gpu(const PointCloud& c, std::string* why, std::string* note,
                  bool compact_fallback = true);
  void drop_gpu(const std::string& why);  // the GPU renderer refused the cloud: on to the CPU
  void release_gpu();                     // drop_gpu() without its status line
#endif
  void set_culling(bool on);               // batch culling on both renderers
  void set_occlusion(OcclusionMode mode);  // occlusion culling on both renderers
  void update_interop_registration(bool size_changed);
  void render_frame();
  void handle_event(const SDL_Event& e);
  void frame_cloud();
  void set_up_axis(UpAxis up);  // re-frames the cloud seen with that axis up
  bool save_screenshot_key();
  void start_open(const std::vector<std::string>& paths);
  void refresh_listing();
  void apply_point_target(uint64_t n);  // panel.cpp
  void draw_panel();                    // panel.cpp
  size_t device_bytes() const;
};

}  // namespace pr
