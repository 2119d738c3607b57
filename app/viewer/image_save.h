// The panel's "Save image at W x H" (the Data group's Image section): the view on screen drawn at
// any size up to 16384 x 16384 by the renderer in use, in tiles (engine/tiled_render.h) between
// the window's frames, and written to a PNG row by row (engine/png_writer.h) on a thread of its
// own, with a progress bar and Cancel. The tiles are drawn by the renderer that draws the window,
// so the cloud is not copied (on the GPU it stays once in device memory); the view pauses while
// the image is drawn, and the cloud, its colors and a survey's points stay as they are.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/camera.h"
#include "engine/png_writer.h"
#include "engine/renderer.h"
#include "engine/tiled_render.h"
#include "viewer/status_line.h"

namespace pr {

class ImageSaveJob {
 public:
  struct Result {
    bool ok = false;
    bool cancelled = false;
    std::string path;
    std::string error;  ///< one line when !ok and not cancelled
    int width = 0, height = 0, tiles = 0;
    double seconds = 0.0;
  };

  ImageSaveJob() = default;
  ~ImageSaveJob();  ///< cancels and joins (an unfinished file is removed)
  ImageSaveJob(const ImageSaveJob&) = delete;
  ImageSaveJob& operator=(const ImageSaveJob&) = delete;

  /// Starts the image of `settings` (its width x height) seen from `camera`, cut as `plan` says,
  /// into the PNG `path`, for the cloud `cloud` that the renderer holds. False with the reason
  /// (the file cannot be made, a save runs).
  bool start(const Camera& camera, const RenderSettings& settings, const TilePlan& plan,
             const std::string& path, const void* cloud, std::string* error);
  /// Each frame: draws tiles with `renderer` for about `budget_ms` (at least one, unless the
  /// writer is two bands behind).
  void step(Renderer& renderer, double budget_ms);
  bool busy() const { return tiled_ != nullptr; }
  /// Whether a running save draws `cloud`.
  bool draws(const void* cloud) const { return busy() && cloud == cloud_; }
  /// Tiles drawn and rows written, 0..1.
  double fraction() const;
  /// "tile 3 of 16" for the progress bar.
  std::string label() const;
  void cancel();
  /// When the save has ended: joins the writer and returns its result (once); otherwise false.
  bool take(Result& out);

 private:
  struct Band {
    std::vector<uint32_t> rgba;
    int rows = 0;
  };
  void write_bands();  // the writer's thread
  void stop_writer();

  std::unique_ptr<TiledRender> tiled_;
  const void* cloud_ = nullptr;
  PngWriter png_;
  std::thread writer_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Band> queue_;  // bands drawn, not yet written
  bool last_band_ = false;  // every band is queued: finish the file after them
  std::atomic<bool> cancel_{false};
  std::atomic<bool> written_{false};  // the writer has ended (finished, failed or cancelled)
  std::atomic<int> rows_written_{0};
  std::string draw_error_;   // a tile that failed
  std::string write_error_;  // the writer's failure (set before written_)
  bool write_ok_ = false;
  Result result_;
  double started_ms_ = 0.0;
};

/// What the Image section holds: the size and path typed, and the job.
struct ImageSaveState {
  int width = 4096, height = 2304;
  bool view_shape = true;  ///< the height follows the width at the view's aspect
  char path[1024] = "pointraster-image.png";
  /// The most pixels a tile may have (0: as much as memory allows, up to 16 M pixels so that a
  /// tile draws between two frames); the window tests make tiles small.
  uint64_t tile_pixels = 0;
  RenderOptions started_options;  // the renderer's options when the save started
  std::string stop_reason;        // why update() cancelled the running save
  ImageSaveJob job;

  /// Why the section's button is disabled now; empty when it is not.
  std::string unavailable(bool drawable) const;
  /// Starts the image of the view (`camera` and `settings`, the window's, at the size typed) on
  /// `renderer`, for `cloud` on screen; false with a status line when refused.
  bool start(const std::string& out, Renderer& renderer, const RenderOptions& options,
             const Camera& camera, const RenderSettings& settings, const void* cloud, bool drawable,
             StatusLine& status);
  /// Each frame: tiles drawn with `renderer` for about 40 ms; a save is cancelled when no
  /// renderer can draw (null), the cloud on screen is another (or none: null) or its positions
  /// changed to or from compact ones; a finished save's status line.
  void update(Renderer* renderer, const RenderOptions& options, const void* cloud,
              StatusLine& status);
  /// The Data group's Image section (`view_aspect`: the image on screen's width / height);
  /// true when its Save button was pressed (Viewer::Impl::start_image_save() starts the save).
  bool draw_section(bool drawable, double view_aspect, float ui_scale);
};

/// One line for a finished image save: "saved image PATH (W x H, N tiles) in T s", or why not.
std::string image_save_message(const ImageSaveJob::Result& r);

}  // namespace pr
