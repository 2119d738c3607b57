// --video in headless mode (docs/VIDEO.md): the camera path of --camera-path rendered frame by
// frame and encoded, with a progress line on stderr; Ctrl-C cancels and leaves nothing behind.
#pragma once

#include <string>

#include "options.h"
#include "path_video.h"

namespace pr {

/// Renders o.camera_path to o.video at --width x --height (an MP4's rounded down to even) and
/// --fps with `draw` (headless.cpp's renderer: every frame complete), the poses applied to
/// `base` (the starting camera: its focus, projection and up axis), `settings` the frames' look.
/// Prints what it writes, the progress, the result and a summary line. The exit code: 0; 1 after
/// the one-line message (nothing written); 128 + the signal when Ctrl-C or SIGTERM cancelled it.
int run_video(const Options& o, const std::string& mode, const Camera& base,
              const RenderSettings& settings, const DrawFrame& draw);

}  // namespace pr
