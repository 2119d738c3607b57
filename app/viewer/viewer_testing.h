// What the window tests drive and read back of a viewer, beside the product's interface
// (viewer.h): a per-frame hook, the panel's actions called directly, and the state the window
// shows. Not used by the program itself.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/annotation.h"
#include "engine/camera.h"
#include "engine/camera_path.h"
#include "engine/clip_polygon.h"
#include "engine/io/stream.h"
#include "engine/measure.h"
#include "engine/pick.h"
#include "engine/profile.h"
#include "engine/renderer.h"
#include "viewer/layout.h"
#include "viewer/viewer.h"

struct SDL_Window;

namespace pr {

class ViewerTesting;

struct ViewerHooks {
  /// Called at the start of every frame, before events are polled (frame counts from 0). Tests
  /// push SDL events or resize the window here.
  std::function<void(int frame, ViewerTesting& viewer)> on_frame;
};

class ViewerTesting : public Viewer {
 public:
  using Viewer::Viewer;

  /// Viewer::run() with `hooks` (may be null).
  int run(const ViewerHooks* hooks = nullptr);

  SDL_Window* window() const;
  Camera& camera();
  /// "cpu" or "gpu": the renderer drawing now.
  std::string mode() const;
  /// Asks to switch renderer; false (and a message in the panel) when it cannot.
  bool set_mode(const std::string& mode);
  /// The panel's "spatial sort": stores the cloud sorted along a Morton curve (RenderOptions::
  /// sort on), or in its own order (off), re-uploading it to the GPU. Returns whether the GPU
  /// cloud is now sorted.
  bool set_gpu_sort(bool on);
  /// The panel's "compact positions", on both renderers: the cloud re-encoded with positions
  /// quantized to 4 bytes (on the GPU 7 bytes a point instead of 15), or at full precision. When
  /// full precision does not fit on the device, both draw compact positions. Returns whether the
  /// renderer drawing now holds compact positions.
  bool set_compact(bool on);
  /// Batch culling on both renderers (the panel's "skip batches outside the view"; --culling).
  void set_culling(bool on);
  /// Occlusion culling on both renderers (the panel's "occlusion culling"; --occlusion).
  void set_occlusion(Toggle mode);
  /// The options both renderers draw with.
  const RenderOptions& render_options() const;
  /// Batches the CPU renderer skipped in its last frame (0 in GPU mode).
  uint64_t cpu_culled_batches() const;
  /// Batches the CPU renderer's last frame skipped as hidden (0 without occlusion culling).
  uint64_t cpu_occluded_batches() const;
  /// How the image reaches the screen: "CPU render + PBO upload", "CUDA-GL interop", ...
  std::string display_path() const;
  /// Times the display buffers were allocated (once per size change).
  int display_allocations() const;
  /// Size of the image being rendered (the drawable), 0x0 while minimized.
  int image_width() const;
  int image_height() const;
  /// Where the image shows in the window this frame (the window less the docked panel), in
  /// pixels and window units.
  ImageRect image_area() const;
  /// Whether the panel shows (Tab hides it), and its width as the settings keep it.
  bool panel_shown() const;
  int panel_width() const;
  /// The world bounds of the cloud on screen (empty without one).
  Bounds cloud_bounds() const;
  /// The panel's scale (the display's DPI / 96, or --ui-scale; 1 on ordinary screens).
  float ui_scale() const;
  /// True while a file load or scene regeneration runs.
  bool cloud_busy() const;
  /// What the progress bar's Cancel button does: stops the running load or regeneration; the
  /// cloud on screen stays.
  void cancel_cloud_job();
  /// While held (may be set before open()), a file load that shows a subset first waits after
  /// the subset is on screen, before it reads the whole files; releasing lets it go on, and
  /// cancel_cloud_job() ends it.
  void hold_cloud_job(bool on);
  uint64_t cloud_points() const;
  /// What the point-count slider does: a subset of a loaded cloud, or the scene regenerated in
  /// the background (the old one stays on screen meanwhile).
  void set_point_count(uint64_t n);
  /// Points the renderer drew in the last frame.
  uint64_t points_drawn() const;
  /// The last message shown in the panel's status line (errors included).
  std::string status() const;
  /// The image on screen now, read back from the display texture (top row first).
  bool read_image(std::vector<uint32_t>& pixels, int& w, int& h) const;
  /// What the panel's Color section does: asks for color mode `mode` (rgb, intensity, elevation,
  /// classification, return, source or a field's name), computed in the background; false when
  /// the cloud lacks it. color_mode() is the mode shown now; color_busy() while one is computed.
  bool set_color(const std::string& mode);
  std::string color_mode() const;
  bool color_busy() const;
  /// The class table's show box: hides or shows the points of class `code`.
  void set_class_visible(int code, bool visible);
  /// The mode combo's entries: rgb, intensity, ... and the names of the cloud's fields.
  std::vector<std::string> color_modes() const;
  /// The class table's rows (classification mode): each class listed, with its points.
  std::vector<std::pair<int, uint64_t>> class_list() const;
  /// Picked points (a left click on the image picks, a second one measures, X clears): how many
  /// (0 - 2) and each one (engine/pick.h).
  int pick_count() const;
  PickResult pick(int i) const;
  /// Whether a click's pick runs (on its own thread) or waits for the one running.
  bool pick_pending() const;
  /// The last pick's time on its own thread (ms): from its start to its point.
  double last_pick_ms() const;
  /// While held, a pick that starts waits before reading a point (the window keeps drawing);
  /// releasing lets it run.
  void hold_picks(bool on);
  /// The Measurements section: chooses the tool ("distance", "height", "angle", "area",
  /// "circle", "volume"; "" for none); false for another name.
  bool set_measure_tool(const std::string& kind);
  /// The measurements made (in the panel's list), and the vertices of the one under way.
  std::vector<Measurement> measurements() const;
  size_t measure_pending() const;
  /// The section's "Export all" with `path` typed (.geojson or .csv).
  bool export_measurements(const std::string& path);
  /// The Profile section (profile_panel.h): its "take clicked points" box (the Measurements'
  /// tool goes off), the line's vertices, the width field, "Make profile" (false with the reason
  /// in the status line), whether the extraction runs, and the profile made.
  void set_profile_tool(bool on);
  std::vector<glm::dvec3>& profile_line();
  void set_profile_width(double width);
  bool make_profile();
  bool profile_busy() const;
  /// The profile shown (null: none), and its points in world coordinates.
  const ProfileCloud* profile() const;
  /// The Profile window: whether it shows, where its image is (window units; false before it
  /// was drawn), the image it shows (the renderer's host image), its camera, its picks (points of
  /// the profile cloud) and the span between two; what Export does with `path` typed, and whether
  /// it runs.
  bool profile_window_shown() const;
  bool profile_image_rect(float* x0, float* y0, float* x1, float* y1) const;
  const Image& profile_image() const;
  const Camera& profile_camera() const;
  std::vector<PickResult> profile_picks() const;
  ProfileSpan profile_span() const;
  bool export_profile(const std::string& path);
  bool profile_export_busy() const;
  /// Point `index`'s attributes as the pick panel lists them (engine/pick.h).
  std::vector<std::pair<std::string, std::string>> point_attributes(uint64_t index) const;
  /// Starts loading files in the background, as the Open box and drag and drop do (with the Open
  /// box's point budget, --max-points to begin with, and --max-depth).
  bool open_files(const std::vector<std::string>& paths);
  /// What the Points section's "Read more" and "Read everything" do for files read in part (a
  /// COPC file to some depth, any file with a point budget): reads them again one octree level
  /// deeper or with twice the budget (read_more_options() in cloud_job.h), or whole, in the
  /// background, keeping the view. False (with a status line) when every point is read or a job
  /// runs.
  bool read_more(bool everything);
  /// The Open box's Recent files, most recent first (the settings file keeps them).
  const std::vector<std::string>& recent_files() const;
  void request_quit();
  /// The clip the frames draw with (clip_panel.h), as the panel's Clip section edits it; what
  /// its "add box" button does (a box of half the cloud's extent at its centre) and its "around
  /// the view" button (a box around what the view sees).
  Clip& clip();
  void add_clip_box();
  void add_clip_box_around_view();
  /// Where the drag handle `handle` of clip box `box` is on screen (window units): 0 its centre,
  /// 1 + 2a + (0 or 1) the centre of its - or + face of axis a; false when not drawn.
  bool clip_handle(int box, int handle, float* x, float* y) const;
  /// What the Clip section's "draw a box" does: the next left drag on the image draws a box.
  void set_clip_drawing(bool on);
  /// What the Clip section's "through 3 picks" does: the next three picked points set the
  /// section.
  void set_section_through_picks(bool on);
  bool clip_drawing() const;
  /// Where world point `p` is drawn (window units); false behind the camera.
  bool window_point(const glm::dvec3& p, float* x, float* y) const;
  /// Where the panel drew item `name` in the last frame, in window units, and whether it showed
  /// whole (not scrolled out of the panel): "panel" (the panel's area),
  /// "open.header", "open.path", "open.button", "open.recent" (the Recent files node),
  /// "open.recent.N" (its entries), "open.entry:NAME" (the folder list's, a folder's NAME
  /// ending in /), "open.survey" (the folder as one survey), "pick.hint", "clip.header" (the
  /// Clip section's header), "clip.add" (its "add box"), "clip.box.1" (the first box's rows). The
  /// first call starts recording them (from the next frame on); false when the item was not drawn.
  struct PanelItem {
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    bool visible = false;
  };
  bool panel_item(const std::string& name, PanelItem* item);
  /// Whether the cloud on screen is a streamed survey (engine/io/stream.h), or one is opening.
  bool streaming() const;
  bool stream_opening() const;
  /// The streamed survey's figures after the last frame (the Streaming section's).
  StreamStats stream_stats() const;
  /// What the Streaming section's sliders do: budget, target error and cache, from the next
  /// frame.
  void set_stream_options(const StreamOptions& options);
  const StreamOptions& stream_options() const;
  /// The Streaming section's lines for the last frame's figures: its counts, then how far the
  /// view has loaded (stream_figures()).
  std::vector<std::string> stream_lines() const;
  /// What the Save section's button does with `path` typed: writes the cloud on screen in the
  /// background (COPC, LAZ or LAS by the suffix; a streamed survey at full detail, from its files
  /// or, on a server, by nodes), only the points the clip and the polygon keep while there are
  /// any. False, with the reason in the status line, when refused: see save_unavailable(), a
  /// suffix that picks no format.
  bool save_cloud(const std::string& path);
  /// Why the Save section is disabled now (a survey opening, no cloud, a load or a save running);
  /// empty when it is not.
  std::string save_unavailable() const;
  /// The Save section's "Only the points the clip shows" (on unless set off).
  void set_save_selection_only(bool on);
  /// The Clip section's "Polygon" button: left clicks on the image add vertices from then on
  /// (Enter, a double-click or a click on the first vertex closes the polygon, Esc drops it).
  void start_polygon();
  bool polygon_drawing() const;
  size_t polygon_pending() const;  ///< vertices of the polygon under way
  /// The closed polygon (the export selection's), or null; its "clear".
  const ClipPolygon* polygon() const;
  void clear_polygon();
  /// True while a save runs; the Save section's Cancel.
  bool save_busy() const;
  void cancel_save();
  /// The Views section's Save view and Open view with `path` typed (view_file.h): false with the
  /// reason in the status line when refused.
  bool save_view(const std::string& path);
  bool open_view(const std::string& path);
  /// The Annotations section (annotation_panel.h): the list, what Add does with `title` and
  /// `text` typed (at the last pick; false without one or without a title), and whether a flight
  /// to one runs.
  std::vector<Annotation>& annotations();
  bool add_annotation(const std::string& title, const std::string& text);
  bool annotation_flying() const;
  /// The middle of annotation `i`'s label as last drawn (window units); false when not drawn.
  bool annotation_label(size_t i, float* x, float* y) const;
  /// The Camera path section (path_panel.h): its path (--camera-path's keys to begin with), what
  /// "Add the view as a key" and Play / Pause do, whether it plays; what Render video does with
  /// `path` typed, `width` x `height` and `fps` (false with the reason in the status line), whether
  /// a video renders, its frame drawn next, and its Cancel. Items the panel marks: "path.header",
  /// "path.add", "path.play", "path.key.N".
  CameraPath& camera_path();
  void add_path_key();
  void play_path(bool on);
  bool path_playing() const;
  bool render_video(const std::string& path, int width, int height, int fps);
  bool video_busy() const;
  int video_next_frame() const;
  void cancel_video();
  /// The Image section's "Save image at W x H" with `path` typed (image_save.h): the view drawn
  /// at width x height by the renderer in use, in tiles of at most `tile_pixels` pixels (0: as
  /// the window's tiles are), between the frames; false with the reason in the status line.
  bool save_image(const std::string& path, int width, int height, uint64_t tile_pixels = 0);
  /// True while the image is drawn and written; its progress (0..1); its Cancel.
  bool image_save_busy() const;
  double image_save_progress() const;
  void cancel_image_save();
  /// The settings the window's frames draw with (point size, EDL, HQ, background, clip).
  const RenderSettings& render_settings() const;
};

}  // namespace pr
