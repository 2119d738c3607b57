#pragma once
#include "options.h"
namespace pr {
/// `pointraster --headless ...`: returns the process exit code. With --save-view the scene is
/// written first; --save-view without --headless writes it (the inputs opened for the camera's
/// framing) and returns without rendering.
int run_headless(const Options& o);
}  // namespace pr
