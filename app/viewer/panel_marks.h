// Where the panel drew the items a window test clicks or measures (ViewerTesting::panel_item()):
// each named item's rectangle in window units as last drawn, and whether it showed whole inside
// the panel. Recorded only while a test asks for them: the program itself records nothing.
#pragma once

#include <map>
#include <string>

namespace pr {

struct PanelMarks {
  struct Rect {
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    bool visible = false;  ///< whole inside the panel's area
  };
  bool on = false;
  std::map<std::string, Rect> items;  ///< "panel": the panel's area

  /// A new frame: items not drawn in it are forgotten.
  void begin_frame() {
    if (on) items.clear();
  }
  /// The panel window being drawn (between ImGui::Begin() and End()), as "panel".
  void mark_panel();
  /// ImGui's last item, as `name`.
  void mark(const char* name);
};

}  // namespace pr
