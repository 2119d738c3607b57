#include "viewer/panel_marks.h"

#include <imgui.h>

namespace pr {

void PanelMarks::mark_panel() {
  if (!on) return;
  const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
  Rect r;
  r.x0 = pos.x;
  r.y0 = pos.y;                                         // the docked panel has no title bar
  r.x1 = pos.x + ImGui::GetWindowContentRegionMax().x;  // left of the scroll bar
  r.y1 = pos.y + size.y;
  r.visible = true;
  items["panel"] = r;
}

void PanelMarks::mark(const char* name) {
  if (!on) return;
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  Rect r{a.x, a.y, b.x, b.y, false};
  if (const auto p = items.find("panel"); p != items.end())
    r.visible = ImGui::IsItemVisible() && r.y0 >= p->second.y0 && r.y1 <= p->second.y1;
  items[name] = r;
}

}  // namespace pr
