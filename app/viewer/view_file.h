// The panel's Views section (view_file.cpp): a scene file's path (docs/SCENE.md), Save view
// (the live view: the camera on screen, the renderer's settings, colors, clip, measurements,
// annotations, camera path) and Open view (a scene opened over the viewer: its inputs loaded
// when they are not those on screen, its camera, settings and lists applied). The Open section
// opens a .json path or a dropped one the same way.
#pragma once

#include <string>

#include "viewer/panel_marks.h"

namespace pr {

struct ViewFileState {
  char path[1024] = {0};
  bool suggested = false;  ///< a path was put in the field (the first time the section shows)

  enum class Action { kNone, kSave, kOpen };
  /// The section: the path (suggested in `dir` first, or `scene_file`, the scene the viewer
  /// opened) and the two buttons; returns the one clicked.
  Action draw_section(const std::string& dir, const std::string& scene_file, PanelMarks& marks);
};

}  // namespace pr
