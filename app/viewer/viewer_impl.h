// The viewer's state: one part per feature, each owned by its own file with the functions that
// act on it (window.h, cloud_state.h, camera_control.h, color_panel.h, pick_panel.h,
// frame_times.h, open_box.h, save_panel.h, status_line.h), and the functions that join them: the
// frame (viewer.cpp), input (input.cpp), loading (cloud_state.cpp), the panel (panel.cpp, with the
// Color and Pick sections in color_panel.cpp and pick_panel.cpp). Internal to app/viewer: SDL
// types appear here, GL types do not.
#pragma once

#include <SDL.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/image.h"
#include "engine/renderer.h"
#include "options.h"
#include "viewer/camera_control.h"
#include "viewer/cloud_state.h"
#include "viewer/color_panel.h"
#include "viewer/frame_times.h"
#include "viewer/open_box.h"
#include "viewer/panel_marks.h"
#include "viewer/pick_panel.h"
#include "viewer/render_backend.h"
#include "viewer/save_panel.h"
#include "viewer/status_line.h"
#include "viewer/stream_state.h"
#include "viewer/viewer.h"
#include "viewer/window.h"

namespace pr {

struct Viewer::Impl {
  Options opt;
  ViewerWindow win;
  StatusLine status;
  CloudState cloud;    // the cloud on screen and the job making the next one
  StreamState stream;  // a streamed survey on screen (its pool is cloud.points)
  CameraControl view;
  ColorState colors;
  PickState picks;
  FrameTimes times;
  OpenBox open_box;
  SaveState save;    // the Save section and the save running
  PanelMarks marks;  // where the panel drew what tests click (viewer_testing.h)

  std::unique_ptr<RenderBackend> backend;  // the CPU and GPU renderers
  RenderSettings rs;
  Image image;  // the CPU renderer's frame
  bool have_image = false;
  std::string occlusion_note;  // the last frame's batch counts, refreshed every 30 frames
  uint64_t panel_frames = 0;
  bool quit = false;
  int frame = 0;

  void set_status(const std::string& s, bool error) { status.set(s, error); }
  /// A streamed survey is on screen or opening.
  bool streaming() const { return stream.scene != nullptr || stream.opening(); }

  // The frame (viewer.cpp).
  void start_first_cloud();
  void choose_first_mode();
  void poll_events();
  void advance(double frame_ms);     // the fly camera, the finished jobs
  bool fit_display(int* w, int* h);  // false while minimized
  void render_frame();
  void draw_window(int w, int h);       // the image, the panel and the pick marks
  bool count_frame(int* counted);       // scripted runs: whether this is the last frame
  bool write_screenshot(int w, int h);  // --screenshot
  bool save_screenshot_key();
  void frame_cloud();
  void set_up_axis(UpAxis up);   // re-frames the cloud seen with that axis up
  PickFrame pick_frame() const;  // the frame on screen, as a click and the pick marks see it

  // Input (input.cpp): to the app only what ImGui does not want.
  void handle_event(const SDL_Event& e);
  void window_event(const SDL_WindowEvent& e);
  void drop_event(const SDL_Event& e);
  void key_event(const SDL_KeyboardEvent& e, bool imgui_wants_keys);
  void key_pressed(SDL_Keycode k);
  void mouse_event(const SDL_Event& e, bool imgui_wants_mouse);

  // Loading (cloud_state.cpp).
  void install_cloud(CloudJob::Result& r);
  bool take_cloud(CloudJob::Result& r);  // false when the backend refused it
  void place_camera(bool same_view);
  void start_open(const std::vector<std::string>& paths);
  void start_files(const std::vector<std::string>& paths, const LoadOptions& options, bool more);
  bool load_more(bool everything);  // the Points section's "Read more" / "Read everything"
  void apply_point_target(uint64_t n);

  // Streaming (stream_state.cpp).
  void start_stream(const std::vector<std::string>& paths);
  void install_stream(std::shared_ptr<StreamingScene> scene);
  void update_stream();  // each frame: selection, arrivals, the renderers' ranges
  bool pool_shows_file_colors() const;
  void recolor_ranges(const std::vector<PoolRange>& ranges);  // a color mode's colors for them

  // The panel (panel.cpp, color_panel.cpp).
  void draw_panel();
  void refresh_listing();
  void color_request_for_jobs();  // the cloud job's ColorRequest
  void update_colors();           // hands over and starts color jobs
  void take_colors(ColorJob::Result& r);
  void apply_class_filter_now();
  void take_cloud_colors(const CloudJob::Result& r);  // a new cloud's colors
  void draw_color_section();
};

}  // namespace pr
