// The desktop viewer: an SDL2 window with an OpenGL 3.3 core context, the renderer's image drawn
// by a fullscreen pass, a Dear ImGui panel, a fly camera, and background loading. main() calls
// run_viewer(); a program embedding the viewer (the Python module) runs it on a thread of its own
// and drives it from others through the requests below. Tests drive a viewer through
// viewer_testing.h.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/measure.h"
#include "engine/pick.h"
#include "engine/point_cloud.h"
#include "options.h"

namespace pr {

class Viewer {
 public:
  explicit Viewer(const Options& options);
  ~Viewer();
  Viewer(const Viewer&) = delete;
  Viewer& operator=(const Viewer&) = delete;

  /// Creates the window, the GL context, ImGui and the display, and starts making the cloud.
  /// False with the reason when no window or no OpenGL 3.3 context can be made.
  bool open(std::string* error);
  /// Runs until the window closes, Esc, or --frames frames; returns the exit code.
  int run() { return run_frames({}); }

  // Requests from any thread, carried out by the frame loop at the start of its next frame (they
  // may be made before open()). The viewer must outlive the calls: the thread that runs it makes
  // them stop before it destroys it.

  /// Shows `cloud` in place of the cloud on screen, as a file read is shown (sorted and colored
  /// in the background; colors white where it has none). The first cloud is framed as the
  /// options say (--camera, --view, ...); a later one is framed too unless `keep_view`. Given
  /// before open(), it is the first cloud, in place of the options' files or scene. It waits
  /// for a load under way; a newer cloud or request_open() meanwhile replaces it.
  void set_cloud(PointCloud cloud, bool keep_view = false);
  /// Reads `paths` in place of the cloud on screen, as the Open box does (a scene file alone
  /// opens as a view); waits and is replaced as set_cloud() is.
  void request_open(std::vector<std::string> paths);
  /// A left click at window pixel (x, y) as a user makes one: the pointer moved there, two
  /// frames later the button pressed, the frame after released. Clicks queue.
  void click(int x, int y);
  /// Called on the viewer's thread when a screenshot is written: "" or the one-line error.
  using ScreenshotDone = std::function<void(const std::string& error)>;
  /// Writes the image on screen (the view drawn, without the panel) to `path` as PNG, at the
  /// first frame that has one, then calls `done`. A window that closes first never calls it.
  void request_screenshot(std::string path, ScreenshotDone done);
  /// Closes the window: run() returns at the end of the next frame.
  void request_close();
  /// What the window shows, copied each frame once its finished jobs are taken in.
  struct Shown {
    uint64_t points = 0;                    ///< of the cloud on screen (0 before the first)
    std::vector<PickResult> picks;          ///< the picked points (0 to 2)
    std::vector<Measurement> measurements;  ///< the panel's list
  };
  Shown shown() const;

  struct Impl;

 protected:
  /// run(), with `on_frame` (may be empty) called at the start of every frame, before events are
  /// polled (frames count from 0).
  int run_frames(const std::function<void(int frame)>& on_frame);

  std::unique_ptr<Impl> impl_;
};

/// `pointraster [FILE...]` without --headless/--info: returns the exit code.
int run_viewer(const Options& options);

}  // namespace pr
