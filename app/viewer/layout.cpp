#include "viewer/layout.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>

namespace pr {

namespace {

constexpr float kMinPanel = 160.0f;   // settings units: the narrowest panel a drag makes
constexpr float kNoPanel = 48.0f;     // window units: a panel narrower than this is not drawn
constexpr float kImageShare = 0.25f;  // the image keeps at least this share of the window
constexpr uint32_t kHintMs = 4000;    // how long the hidden panel's hint shows

}  // namespace

float panel_width_units(int wanted, float window_w, float ui_scale) {
  if (!(window_w > 0.0f)) return 0.0f;
  const float s = ui_scale > 0.0f ? ui_scale : 1.0f;
  const float most = window_w * (1.0f - kImageShare);
  if (most < kNoPanel) return 0.0f;
  const float least = std::min(kMinPanel * s, most);
  return std::clamp(float(wanted) * s, least, most);
}

ImageRect image_rect(float panel_w, int ww, int wh, int dw, int dh) {
  ImageRect r;
  if (ww <= 0 || wh <= 0 || dw <= 0 || dh <= 0) return r;
  const float pw = std::clamp(panel_w, 0.0f, float(ww));
  // The drawable may be larger than the window (HiDPI): the panel's edge in pixels, rounded.
  const int px = std::clamp(int(std::lround(double(pw) * double(dw) / double(ww))), 0, dw);
  r.x = px;
  r.y = 0;
  r.w = dw - px;
  r.h = dh;
  r.ux = pw;
  r.uy = 0.0f;
  r.uw = float(ww) - pw;
  r.uh = float(wh);
  return r;
}

void PanelLayout::toggle(uint32_t now_ms) {
  shown = !shown;
  if (!shown) hidden_at_ = now_ms == 0 ? 1 : now_ms;
}

float PanelLayout::drawn_width(float window_w, float ui_scale) const {
  return shown ? panel_width_units(width, window_w, ui_scale) : 0.0f;
}

void PanelLayout::before_begin(float window_w, float window_h, float ui_scale) {
  asked_ = drawn_width(window_w, ui_scale);
  const float most = window_w * (1.0f - kImageShare);
  const float least = std::min(kMinPanel * ui_scale, most);
  ImGui::SetNextWindowPos(ImVec2(0, 0), ImGuiCond_Always);
  // Always: the width and height are ours every frame; a drag on the right edge changes the
  // width later in Begin(), within the constraints, and after_begin() takes it as the setting.
  ImGui::SetNextWindowSize(ImVec2(asked_, window_h), ImGuiCond_Always);
  ImGui::SetNextWindowSizeConstraints(ImVec2(least, window_h), ImVec2(most, window_h));
}

void PanelLayout::after_begin(float window_w, float ui_scale) {
  const float now = ImGui::GetWindowWidth();
  // Only a drag changes the setting: a narrow window's clamp (or ImGui's own minimum size)
  // leaves the width the user chose for when the window is wide again.
  if (std::fabs(now - asked_) < 0.5f || !ImGui::IsMouseDown(ImGuiMouseButton_Left)) return;
  if (now > window_w * (1.0f - kImageShare) + 0.5f) return;
  width = std::max(int(std::lround(now / (ui_scale > 0.0f ? ui_scale : 1.0f))), int(kMinPanel));
}

void PanelLayout::draw_hint(uint32_t now_ms, float ui_scale) const {
  if (shown || hidden_at_ == 0 || now_ms - hidden_at_ > kHintMs) return;
  ImDrawList* fg = ImGui::GetForegroundDrawList();
  const ImVec2 at(8.0f * ui_scale, 8.0f * ui_scale);
  const char* text = "Tab: show the panel";
  const ImVec2 size = ImGui::CalcTextSize(text);
  fg->AddRectFilled(ImVec2(at.x - 4 * ui_scale, at.y - 2 * ui_scale),
                    ImVec2(at.x + size.x + 4 * ui_scale, at.y + size.y + 2 * ui_scale),
                    IM_COL32(0, 0, 0, 160), 3.0f * ui_scale);
  fg->AddText(at, IM_COL32(230, 230, 230, 255), text);
}

}  // namespace pr
