#pragma once
#include "engine/renderer.h"
#include "options.h"
namespace pr {
/// `pointraster --headless ...`: returns the process exit code. With --save-view the scene is
/// written first; --save-view without --headless writes it (the inputs opened for the camera's
/// framing) and returns without rendering.
int run_headless(const Options& o);

/// The frame settings of the options (--width, --height, --point-size, --edl, --hq, the clip, a
/// scene file's image size and background): what headless frames and the Python module's frames
/// are drawn with.
RenderSettings headless_settings(const Options& o);
}  // namespace pr
