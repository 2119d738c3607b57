// A camera path rendered to a video (docs/VIDEO.md), a frame at a time, shared by headless mode
// (video_run.h) and the viewer's Camera path section: the frames' times along the path, each
// frame's camera, the drawing through a callback (the caller's renderer; a streamed survey waits
// until its view converges), and the frames handed to a VideoWriter.
#pragma once

#include <functional>
#include <string>

#include "engine/camera.h"
#include "engine/camera_path.h"
#include "engine/image.h"
#include "engine/renderer.h"
#include "video_writer.h"

namespace pr {

/// The frames of a video of a path lasting `duration` seconds at `fps`: round(duration * fps),
/// at least 2 (the path's two ends).
int video_frame_count(double duration, int fps);

/// The time on the path's clock of frame `k` of `frames`: an open path's frames run from its
/// first key to its last, both included (each step duration / (frames - 1)); a loop's frames
/// divide one round evenly, the last one step before the first, so that the video loops without
/// a repeated frame.
double video_frame_time(const CameraPathPlayer& player, int k, int frames);

/// What a frame's drawing came to.
enum class FrameDraw {
  kDrawn,   ///< the frame is in the image
  kWait,    ///< not yet (a streamed survey still reading the nodes of this view): call again
  kFailed,  ///< failed; the message says why
};

/// Draws one frame: `camera` seen with `settings` (the video's size) into `image`.
using DrawFrame = std::function<FrameDraw(const Camera& camera, const RenderSettings& settings,
                                          Image& image, std::string* error)>;

/// What to render.
struct VideoRequest {
  std::string out;  ///< .mp4, or PNG frames (video_writer.h)
  int width = 1920, height = 1080;
  int fps = 30;
  CameraPath path;
  /// The camera the path's poses are applied to: its focus, projection and up axis stay.
  Camera base;
  /// The look of the frames (point size, EDL, clip ...); the size is the video's.
  RenderSettings settings;
};

class PathVideo {
 public:
  /// Checks the path (at least two keys, validate_path()) and the fps (1 to 120), and opens the
  /// output at the video's size (video_size()). False with one line.
  bool start(const VideoRequest& request, std::string* error);
  /// Draws the next frame with `draw` and hands it to the writer. True when the frame was
  /// written or must wait (FrameDraw::kWait: call again); false with the message when drawing
  /// or writing failed (then cancel()).
  bool step(const DrawFrame& draw, std::string* error);
  /// Every frame is written.
  bool done() const { return next_ >= frames_; }
  /// Whether step() would hand its frame to the encoder without waiting for it.
  bool ready() { return writer_.ready(); }
  /// Writes what waits and moves the video into place; false with the message (nothing left).
  bool finish(std::string* error);
  /// Stops; what was written is removed.
  void cancel() { writer_.cancel(); }

  int frames() const { return frames_; }
  int next() const { return next_; }
  /// The camera of frame `k`.
  Camera camera(int k) const;
  /// The settings the frames are drawn with (at the video's size).
  const RenderSettings& settings() const { return settings_; }
  const VideoWriter& writer() const { return writer_; }
  /// Milliseconds spent in `draw` (the renderer, and a survey's waiting), in all.
  double draw_ms() const { return draw_ms_; }

 private:
  CameraPathPlayer player_;
  Camera base_;
  RenderSettings settings_;
  VideoWriter writer_;
  Image image_;
  int frames_ = 0, next_ = 0;
  double draw_ms_ = 0.0;
};

}  // namespace pr
