// The viewer's state, shared by viewer.cpp (window, loop, input) and panel.cpp (the ImGui panel).
// Internal to app/viewer: SDL types appear here, GL types do not.
#pragma once

#include <SDL.h>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/frame_stats.h"
#include "engine/image.h"
#include "engine/io/io.h"
#include "engine/pick.h"
#include "engine/point_cloud.h"
#include "engine/renderer.h"
#include "options.h"
#include "viewer/cloud_job.h"
#include "viewer/color_job.h"
#include "viewer/display.h"
#include "viewer/fly_camera.h"
#include "viewer/render_backend.h"
#include "viewer/settings.h"
#include "viewer/viewer.h"

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
  /// The cloud's world bounds, computed once when it arrives (a pass over a billion positions
  /// costs a third of a second): the camera's framing and speed, the Cloud section, elevation's
  /// automatic range.
  Bounds cloud_bounds;
  std::vector<FileInfo> files;
  LoadOptions files_options;    // what the files on screen were read with
  LoadOptions loading_options;  // what the running file job reads with
  bool loading_more = false;    // the running job reads more of the files on screen (same view)
  std::string scene;
  uint64_t scene_points = 0;  // points generated for the scene
  CloudJob job;
  bool first_cloud = true;
  bool initial_load_failed = false;
  Camera home_camera;            // what R returns to
  UpAxis files_up = UpAxis::kZ;  // up axis for loaded files (--up, or the panel's choice)

  // Color modes (color_panel.cpp): what the cloud shows, what the panel asks for next, the job
  // computing it, and the class filter.
  ColorSettings color;
  ColorSettings color_wanted;
  Legend legend;
  ColorJob color_job;
  std::array<bool, 256> hidden_classes{};
  bool filter_dirty = false;
  bool color_chosen = false;  // --color or the panel chose a mode (else each cloud's default)
  HiddenPoints hidden_points;

  std::unique_ptr<RenderBackend> backend;  // the CPU and GPU renderers
  std::string occlusion_note;  // the last frame's batch counts, refreshed every 30 frames
  uint64_t panel_frames = 0;

  Camera camera;
  FlyCamera fly;
  bool looking = false;  // right button held, started outside ImGui
  RenderSettings rs;
  uint64_t point_target = 0;  // the panel's point-count value
  Image image;
  bool have_image = false;

  // Picking and measuring (pick_panel.cpp): up to two picked points, the cloud they belong to,
  // and the GPU's compact form rebuilt on the host for picking (made on the first pick that needs
  // it, for this cloud and stored order).
  PickResult picks[2];
  int pick_count = 0;
  const PointCloud* pick_cloud = nullptr;
  CompactCloud pick_compact;
  PodVector<PointBox> pick_boxes;  // the float positions' batch boxes, made by the first pick
  Toggle pick_compact_sort = Toggle::kAuto;

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
  uint64_t open_budget = 0;  // points a file opened from the panel or dropped keeps (0: all)
  std::string listing_dir;
  std::vector<std::pair<std::string, bool>> listing;  // name, is_dir
  std::vector<std::string> dropped;

  void set_status(const std::string& s, bool error);
  void install_cloud(CloudJob::Result& r);
  void render_frame();
  void handle_event(const SDL_Event& e);
  void frame_cloud();
  void set_up_axis(UpAxis up);  // re-frames the cloud seen with that axis up
  bool save_screenshot_key();
  void start_open(const std::vector<std::string>& paths);
  void start_files(const std::vector<std::string>& paths, const LoadOptions& options, bool more);
  bool load_more(bool everything);  // the Points section's "Read more" / "Read everything"
  void refresh_listing();
  void apply_point_target(uint64_t n);       // panel.cpp
  void draw_panel();                         // panel.cpp
  void pick_at(int window_x, int window_y);  // pick_panel.cpp: a left click on the image
  void draw_pick_panel();                    // its panel section and its marks on the image
  void color_request_for_jobs();             // color_panel.cpp: the cloud job's ColorRequest
  void update_colors();                      // color_panel.cpp: hands over and starts color jobs
  void take_cloud_colors(const CloudJob::Result& r);  // color_panel.cpp: a new cloud's colors
  void draw_color_section();                          // color_panel.cpp
};

}  // namespace pr
