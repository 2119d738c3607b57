// The Profile tool (profile_panel.cpp, the window in profile_view.cpp; docs/PROFILE.md): clicked
// points (the pick's, pick_panel.h) are the vertices of a polyline drawn with its corridor over
// the image; "Make profile" extracts the corridor's points on a thread of its own
// (engine/profile.h), and the Profile window shows them unrolled, drawn by a renderer of the
// current kind into a host image shown as a texture: pan (drag), zoom (wheel), a click picks a
// point, two measure the distance, height difference and slope between them; the source's color
// mode applies; Export writes the points in the background.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "engine/colorize.h"
#include "engine/image.h"
#include "engine/io/convert.h"
#include "engine/io/stream_types.h"
#include "engine/pick.h"
#include "engine/profile.h"
#include "engine/renderer.h"
#include "options.h"
#include "viewer/panel_marks.h"
#include "viewer/pick_panel.h"
#include "viewer/status_line.h"

namespace pr {

/// A thread that runs one task and hands over a result once (the extraction, the export).
template <class R>
class OneShot {
 public:
  OneShot() = default;
  ~OneShot() {
    if (thread_.joinable()) thread_.join();
  }
  OneShot(const OneShot&) = delete;
  OneShot& operator=(const OneShot&) = delete;
  template <class F>
  bool start(F&& fn) {
    if (busy()) return false;
    done_ = false;
    thread_ = std::thread([this, f = std::forward<F>(fn)]() mutable {
      result_ = f();
      done_ = true;
    });
    return true;
  }
  bool busy() const { return thread_.joinable(); }
  /// When it has finished: joins and hands over the result.
  bool take(R* out) {
    if (!thread_.joinable() || !done_.load()) return false;
    thread_.join();
    *out = std::move(result_);
    return true;
  }

 private:
  std::thread thread_;
  std::atomic<bool> done_{false};
  R result_{};
};

/// What the extraction hands over: the profile, or the message.
struct ProfileMade {
  std::shared_ptr<ProfileCloud> profile;
  /// Its points in the source's world coordinates with their attributes (no "distance"): what
  /// picks name and Export writes, whatever becomes of the source.
  std::shared_ptr<const PointCloud> world;
  std::string error;
  double ms = 0.0;
};

/// The Profile window: its camera, renderer, image and texture, and its picks.
struct ProfileView {
  bool open = false;
  Camera camera;
  std::unique_ptr<Renderer> renderer;
  bool renderer_gpu = false;
  RenderSettings rs;
  Image image;
  unsigned int texture = 0;  ///< the GL texture the image is shown from
  bool dirty = true;         ///< the image must be drawn again
  double draw_ms = 0.0;      ///< the last frame's time
  /// The image's rectangle in the window (window units), as last drawn.
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool hovered = false;  ///< the pointer was over the image at the last frame
  bool pressed = false, dragging = false;
  float press_x = 0, press_y = 0;
  const PointCloud* held = nullptr;  ///< the cloud the renderer holds
  PickResult picks[2];               ///< points of the profile cloud (index into it)
  int pick_count = 0;
};

struct ProfileState {
  bool active = false;  ///< the tool takes picks as the line's vertices
  std::vector<glm::dvec3> line;
  double width = 10.0;
  uint64_t seen_picks = 0;
  OneShot<ProfileMade> job;
  const PointCloud* job_source = nullptr;   ///< what the job reads
  std::shared_ptr<ProfileCloud> profile;    ///< the profile shown (null: none)
  std::shared_ptr<const PointCloud> world;  ///< ProfileMade::world of it
  const PointCloud* source = nullptr;       ///< the cloud it was made of
  const uint32_t* copied_colors = nullptr;  ///< the source's colors last copied to it
  ProfileView view;
  OneShot<std::string> export_job;  ///< empty: written; else the message
  std::string export_target;
  std::shared_ptr<ConvertProgress> export_progress;
  char export_path[512] = "profile.laz";
  /// A streamed survey on screen: its inputs, point budget and how its URLs are read. Its profile
  /// is not taken from the pool (the view's level of detail) but from the corridor's nodes read
  /// at every level within the budget (engine/io/corridor.h).
  std::vector<std::string> survey;
  uint64_t survey_budget = 0;
  HttpOptions survey_http;
  /// A survey's profile: the color mode last computed for it (its points are not the pool's).
  ColorSettings survey_colors;
  bool survey_colored = false;

  ~ProfileState();
  /// Chooses the tool (`on` false: none); the line under way stays.
  void choose(bool on);
  /// Whether the job reads `cloud` (its positions and colors must not change meanwhile).
  bool reads(const PointCloud* cloud) const { return job.busy() && job_source == cloud; }
  /// Each frame: a pick that landed since is the line's next vertex (while the tool is on); the
  /// job's profile is shown; the source's new colors are copied; the export's end is told.
  /// `now`: the cloud on screen (a profile of another one is dropped). `survey` (null: none)
  /// and `stream`: a streamed survey's inputs and streaming options (its point budget, its
  /// URLs' options); `shown`: the color mode shown (its range fixed), computed for a survey's
  /// profile.
  void update(const PickState& picks, const std::shared_ptr<const PointCloud>& now,
              const std::vector<std::string>* survey, const StreamOptions& stream,
              const ColorSettings& shown, StatusLine& status);
  /// A survey's profile colored in the mode `shown`.
  void color_survey(const ColorSettings& shown);
  /// Starts extracting the line's corridor of `frame.cloud`; false with the one-line reason in
  /// `status` (nothing else changes) for a line or width that cannot be used or no cloud.
  bool make(const PickFrame& frame, StatusLine& status);
  /// Writes the profile's points to `path` (.las, .laz, .csv) on a thread; false with the
  /// reason in `status`.
  bool export_to(const std::string& path, StatusLine& status);
  /// The line and its corridor over the image.
  void draw_marks(const PickFrame& frame, float ui_scale);
  /// The panel's Profile section.
  void draw_section(const PickFrame& frame, PanelMarks& marks, StatusLine& status);
  /// The Profile window (profile_view.cpp): drawn by a renderer of the kind `gpu` says.
  void draw_window(bool gpu, const Options& opt, uint32_t background, float ui_scale,
                   StatusLine& status);
  /// The pointer's events (window units): a press on the view's image starts a drag (the view
  /// pans with the pointer) or a click (at the release: the point drawn there is picked, A then
  /// B, a third starting again); the wheel zooms about the pointer. Each returns whether the
  /// view took the event.
  bool press(float x, float y);
  void motion(float x, float y, float dx, float dy);
  bool release(float x, float y, StatusLine& status);
  bool wheel(double steps);
  bool shown() const { return profile && view.open && view.x1 > view.x0; }
  bool inside(float x, float y) const {
    return x >= view.x0 && x < view.x1 && y >= view.y0 && y < view.y1;
  }
  /// The span between the view's two picks (valid when pick_count is 2).
  ProfileSpan span() const;
  /// The text of a pick in the view: station, elevation, offset and world coordinates.
  std::string pick_text(int i) const;
};

}  // namespace pr
