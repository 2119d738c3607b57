// The viewer's state: one part per feature, each owning its functions in its own file
// (window.h, cloud_state.h, stream_state.h, camera_control.h, color_panel.h, pick_panel.h,
// frame_times.h, open_box.h, save_panel.h, status_line.h), handed what it needs of the others as
// arguments; and the code that joins them: the frame and what arrives in it (viewer.cpp), input
// (input.cpp), the panel's layout (panel.cpp, layout.h, panel_groups.h), the requests of other
// threads (viewer_requests.cpp). Internal to app/viewer:
// SDL types appear here, GL types do not.
#pragma once

#include <SDL.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/image.h"
#include "engine/renderer.h"
#include "options.h"
#include "viewer/annotation_panel.h"
#include "viewer/camera_control.h"
#include "viewer/clip_panel.h"
#include "viewer/cloud_state.h"
#include "viewer/color_panel.h"
#include "viewer/frame_times.h"
#include "viewer/image_save.h"
#include "viewer/layout.h"
#include "viewer/measure_panel.h"
#include "viewer/open_box.h"
#include "viewer/panel_groups.h"
#include "viewer/panel_marks.h"
#include "viewer/path_panel.h"
#include "viewer/pick_panel.h"
#include "viewer/polygon_tool.h"
#include "viewer/profile_panel.h"
#include "viewer/render_backend.h"
#include "viewer/save_panel.h"
#include "viewer/status_line.h"
#include "viewer/stream_state.h"
#include "viewer/view_file.h"
#include "viewer/viewer.h"
#include "viewer/viewer_requests.h"
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
  MeasureState measures;        // the measure tools and the measurements made
  ClipState clips;              // clip boxes and the section (clip_panel.h)
  PolygonTool polygon;          // the polygon selection an export writes within (polygon_tool.h)
  ProfileState profile;         // the profile tool and its window (profile_panel.h)
  AnnotationState annotations;  // titles and texts at points, and the flights to them
  ViewFileState views;          // the Views section: scene files saved and opened (view_file.h)
  PathState path;               // the camera path and Render video (path_panel.h)
  // The video frame whose view a streamed survey's last update read (-1: none).
  int video_stream_frame = -1;

  FrameTimes times;
  OpenBox open_box;
  SaveState save;             // the Save section and the save running
  ImageSaveState image_save;  // the Image section and the image being saved (image_save.h)
  PanelMarks marks;           // where the panel drew what tests click (viewer_testing.h)
  PanelLayout panel;          // the docked panel: its width, shown or hidden (Tab)
  ViewerRequests requests;    // what other threads ask (viewer.h), and what they read back
  ImageRect area;             // where the image is drawn this frame: the window less the panel

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
  bool fit_display(int* w, int* h);  // the drawable's size; false while minimized
  void render_frame();
  void draw_window(int w, int h);       // the image in `area`, the panel and the pick marks
  bool count_frame(int* counted);       // scripted runs: whether this is the last frame
  bool write_screenshot(int w, int h);  // --screenshot
  bool save_screenshot_key();
  void frame_cloud();
  PickFrame pick_frame() const;  // the frame on screen, as a click and the pick marks see it

  // What arrives in a frame and what opens next, joining the features (viewer.cpp).
  void install_cloud(CloudJob::Result& r);
  bool take_cloud(CloudJob::Result& r);  // false when the backend refused it
  void show_start_measures();            // --measure-show
  void place_camera(bool same_view);
  void install_stream(std::shared_ptr<StreamingScene> scene);
  void update_colors();  // the color job's request, then ColorState::update()
  void update_stream();  // a survey opened, then StreamState::update()
  void update_video();   // Render video's frames for this window frame (path_panel.h)
  void start_open(const std::vector<std::string>& paths);
  void start_inputs();  // the options' files or scene, with the colors they ask for
  void start_files(const std::vector<std::string>& paths, const LoadOptions& options, bool more);
  bool load_more(bool everything);  // the Points section's "Read more" / "Read everything"
  // The Image section's save (image_save.cpp): started by its button; each frame, its tiles.
  bool start_image_save();
  void update_image_save();

  // Scene files (view_file.cpp): the live view as the options of a scene, written; a scene read
  // and applied over the viewer (its inputs loaded unless they are those on screen).
  Options live_scene() const;
  bool save_view(const std::string& file);
  bool open_view(const std::string& file);
  void apply_view();               // the options' settings, clip and lists to the viewer's state
  void apply_view_renderer();      // their renderer, its options and the streaming options
  void hide_view_classes();        // the scene's hidden classes to the class filter
  bool view_inputs_shown() const;  // the options' inputs are the cloud on screen
  UpAxis up_axis_shown() const;    // the cloud on screen's: the panel's for files, --up's else
  void fly_to_annotation(size_t i);
  /// A scene file's image size (unless --width or --height is given): the window sized so that
  /// the image beside the panel has it; before the window exists the size it is made with.
  void size_window_for_view();
  bool fit_view_image = false;

  // The requests of other threads (viewer_requests.cpp): taken at a frame's start (the input to
  // show next once no load runs, a click's next step, the close), what the window shows copied
  // back after the frame's jobs, the screenshots written once the frame is drawn.
  void take_requests();
  void start_input(ViewerRequests::Input& input);
  void step_click(int x, int y);
  void publish_shown();
  void write_requested_screenshots();

  // Input (input.cpp): to the app only what ImGui does not want.
  void handle_event(const SDL_Event& e);
  void window_event(const SDL_WindowEvent& e);
  void drop_event(const SDL_Event& e);
  void key_event(const SDL_KeyboardEvent& e, bool imgui_wants_keys);
  void key_pressed(SDL_Keycode k);
  void mouse_event(const SDL_Event& e, bool imgui_wants_mouse);

  // The panel's layout (panel.cpp): each feature draws its own section, in its group.
  void draw_panel();
  std::vector<PanelSection> panel_sections();
  void points_section();  // the point count's actions reach the cloud and the loading
};

}  // namespace pr
