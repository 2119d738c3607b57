// The desktop viewer: an SDL2 window with an OpenGL 3.3 core context, the renderer's image drawn
// by a fullscreen pass, a Dear ImGui panel, a fly camera, and background loading. main() calls
// run_viewer(). Tests drive a viewer through viewer_testing.h.
#pragma once

#include <functional>
#include <memory>
#include <string>

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
