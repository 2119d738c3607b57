// A text label drawn over the image (measurements, annotations): a dark backing, kept inside the
// image's rectangle so that it can be read while flying, and moved down past the labels placed
// before it in the same frame so that none hides another.
#pragma once

#include <imgui.h>

#include <string>
#include <vector>

#include "viewer/layout.h"

namespace pr {

/// Draws `text` with its backing up and right of `at` (window units) into `dl`, inside `area`,
/// below the rectangles of `placed` it would overlap; returns its rectangle (x0, y0, x1, y1),
/// which is appended to `placed`.
ImVec4 draw_overlay_label(ImDrawList* dl, ImVec2 at, const std::string& text, ImU32 tint,
                          const ImageRect& area, float ui_scale, std::vector<ImVec4>& placed);

}  // namespace pr
