#include "viewer/overlay_label.h"

#include <algorithm>

namespace pr {

ImVec4 draw_overlay_label(ImDrawList* dl, ImVec2 at, const std::string& text, ImU32 tint,
                          const ImageRect& r, float ui, std::vector<ImVec4>& placed) {
  const ImVec2 size = ImGui::CalcTextSize(text.c_str());
  const float pad = 3.0f * ui;
  float x = at.x + 8.0f * ui, y = at.y - size.y - 6.0f * ui;
  x = std::clamp(x, r.ux + pad, std::max(r.ux + pad, r.ux + r.uw - size.x - pad));
  y = std::clamp(y, r.uy + pad, std::max(r.uy + pad, r.uy + r.uh - size.y - pad));
  for (bool moved = true; moved;) {
    moved = false;
    for (const ImVec4& q : placed)
      if (x - pad < q.z && x + size.x + pad > q.x && y - pad < q.w && y + size.y + pad > q.y) {
        y = q.w + pad;
        moved = true;
      }
  }
  const ImVec4 rect(x - pad, y - pad, x + size.x + pad, y + size.y + pad);
  placed.push_back(rect);
  dl->AddRectFilled(ImVec2(rect.x, rect.y), ImVec2(rect.z, rect.w), IM_COL32(0, 0, 0, 170),
                    3.0f * ui);
  dl->AddText(ImVec2(x, y), tint, text.c_str());
  return rect;
}

}  // namespace pr
