// The Camera path section's Render video (docs/VIDEO.md): the path rendered offscreen at a size
// of its own with the renderer in use (path_video.h), a few frames in each of the window's frames
// within a time budget, none while the encoder (on its own thread) still holds a full queue, so
// that the window keeps responding; the encoder's last frames (its look-ahead: dozens) and the
// move into place on a thread of their own too; a progress bar, Cancel, and a status line at the
// end.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "engine/frame_stats.h"
#include "path_video.h"
#include "viewer/status_line.h"

namespace pr {

struct VideoJob {
  VideoJob() = default;
  ~VideoJob();  ///< a video still rendering is cancelled; one finishing is waited for
  VideoJob(const VideoJob&) = delete;
  VideoJob& operator=(const VideoJob&) = delete;

  char path[512] = "path.mp4";  ///< .mp4 or PNG frames (a folder DIR/, NAME_%05d.png, NAME.png)
  int width = 1920, height = 1080, fps = 30;
  /// Milliseconds of a window's frame the video may take for its frames (at least one a frame).
  double budget_ms = 30.0;
  std::unique_ptr<PathVideo> video;  ///< the video being rendered (null: none)
  std::string out;                   ///< its file name
  Stopwatch clock;                   ///< since it started

  bool busy() const { return video != nullptr; }
  /// Every frame is drawn: the encoder writes its last ones and the file is moved into place.
  bool finishing() const { return closer_.joinable(); }
  /// Frames are being drawn (busy, not yet finishing): the renderer and a survey's view are the
  /// video's.
  bool rendering() const { return busy() && !finishing(); }
  /// Starts rendering `path` from `base` (the view's camera: focus, projection, up axis) with the
  /// look of `look`; false with the reason in the status line.
  bool start(const CameraPath& path, const Camera& base, const RenderSettings& look,
             StatusLine& status);
  /// Each window frame while busy: frames drawn with `draw` until budget_ms passed or one must
  /// wait; at the end the video is moved into place and the status line says so (or why not).
  void update(const DrawFrame& draw, StatusLine& status);
  /// Stops; what was written is removed (a video finishing is waited for, and kept).
  void cancel(StatusLine& status);
  /// The frame drawn next (0 when none runs), and its camera (the renderer's view for a
  /// streamed survey, which reads it until it converges).
  int next_frame() const { return video ? video->next() : 0; }
  Camera next_camera() const { return video->camera(video->next()); }
  /// The settings the frames are drawn with (the video's size).
  const RenderSettings& settings() const { return video->settings(); }
  /// The Render video rows: name, size, frame rate, the button (true when pressed), or while
  /// busy the progress bar and Cancel.
  bool draw_rows(bool can_render, float ui_scale, StatusLine& status);

 private:
  void start_finish();                  // the encoder's last frames on closer_
  void end_finish(StatusLine& status);  // joins closer_ and says what came of it
  std::thread closer_;
  std::atomic<bool> closed_{false};
  bool finish_ok_ = false;
  std::string finish_error_;
};

}  // namespace pr
