// The viewer's clip (clip_panel.h).
#include "viewer/clip_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "viewer/panel_widgets.h"

namespace pr {

namespace {

double extent_of(const Bounds& b) {
  const double e = glm::length(b.max - b.min);
  return e > 0.0 ? e : 1.0;
}

/// Three doubles in one row; true when edited.
bool input3(const char* label, glm::dvec3& v, const char* format = "%.3f") {
  double d[3] = {v.x, v.y, v.z};
  if (!ImGui::InputScalarN(label, ImGuiDataType_Double, d, 3, nullptr, nullptr, format))
    return false;
  if (!std::isfinite(d[0]) || !std::isfinite(d[1]) || !std::isfinite(d[2])) return false;
  v = glm::dvec3(d[0], d[1], d[2]);
  return true;
}

}  // namespace

void ClipState::sanitize() {
  for (ClipBox& b : clip.boxes) b.size = glm::max(b.size, glm::dvec3(1e-6));
  ClipSection& s = clip.section;
  s.thickness = std::max(s.thickness, 1e-6);
  if (!(glm::dot(s.normal, s.normal) > 0.0)) s.normal = glm::dvec3(0.0, 0.0, 1.0);
}

void ClipState::add_box(const Bounds& bounds) {
  if (clip.boxes.size() >= size_t(kMaxClipBoxes)) return;
  const glm::dvec3 e = glm::max(bounds.max - bounds.min, glm::dvec3(1e-3));
  ClipBox b;
  b.centre = bounds.center();
  b.size = e * 0.5;
  clip.boxes.push_back(b);
}

void ClipState::add_box_around_view(const Camera& camera, const Bounds& bounds) {
  if (clip.boxes.size() >= size_t(kMaxClipBoxes)) return;
  const glm::dvec3 f = camera.forward();
  double d = glm::dot(bounds.center() - camera.position, f);
  if (!(d > camera.near_z)) d = extent_of(bounds) * 0.5;
  ClipBox b;
  b.centre = camera.position + f * d;
  const double side = 2.0 * d / camera.focus;  // tan(vfov / 2) = 1 / focus
  b.size = glm::dvec3(side);
  clip.boxes.push_back(b);
}

void ClipState::add_box_around_picks(const PickResult* picks, int count, const Bounds& bounds) {
  if (count <= 0 || clip.boxes.size() >= size_t(kMaxClipBoxes)) return;
  glm::dvec3 lo = picks[0].world, hi = picks[0].world;
  for (int i = 1; i < count; ++i) {
    lo = glm::min(lo, picks[i].world);
    hi = glm::max(hi, picks[i].world);
  }
  const double pad = std::max(0.05 * glm::length(hi - lo), 0.01 * extent_of(bounds));
  clip.boxes.push_back(clip_box_around(lo - pad, hi + pad));
}

void ClipState::section_across_view(const Camera& camera, const Bounds& bounds) {
  clip.section = section_facing(camera, bounds.center(), extent_of(bounds) / 50.0);
}

bool ClipState::key(SDL_Keycode k) {
  if (!clip.section.enabled || (k != SDLK_PAGEUP && k != SDLK_PAGEDOWN)) return false;
  step_section(&clip.section, k == SDLK_PAGEUP ? 1.0 : -1.0);
  return true;
}

void ClipState::box_rows(PanelMarks& marks) {
  const char* kModes[] = {"show inside", "show outside", "highlight"};
  for (size_t i = 0; i < clip.boxes.size(); ++i) {
    ClipBox& b = clip.boxes[i];
    ImGui::PushID(int(i));
    ImGui::Separator();
    ImGui::Text("box %zu", i + 1);
    ImGui::SameLine();
    int mode = int(b.mode);
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.5f);
    if (ImGui::Combo("##mode", &mode, kModes, 3)) b.mode = ClipMode(mode);
    ImGui::SameLine();
    const bool remove = ImGui::SmallButton("remove");
    input3("centre", b.centre);
    input3("size", b.size);
    glm::dvec3 angles(b.yaw, b.pitch, b.roll);
    if (input3("yaw pitch roll", angles, "%.1f"))
      b.yaw = angles.x, b.pitch = angles.y, b.roll = angles.z;
    tooltip("Degrees: yaw about z, then pitch about the turned y, then roll about the turned x.");
    if (i == 0) marks.mark("clip.box.1");
    ImGui::PopID();
    if (remove) {
      clip.boxes.erase(clip.boxes.begin() + ptrdiff_t(i));
      break;
    }
  }
}

void ClipState::section_rows(const Bounds* bounds, const Camera& camera) {
  ClipSection& s = clip.section;
  ImGui::Separator();
  ImGui::Checkbox("section", &s.enabled);
  tooltip("Shows only the points within half the thickness of a plane.");
  if (bounds) {
    ImGui::SameLine();
    if (ImGui::SmallButton("across the view")) section_across_view(camera, *bounds);
    for (int a = 0; a < 3; ++a) {
      ImGui::SameLine();
      const char* names[] = {"x", "y", "z"};
      if (ImGui::SmallButton(names[a])) {
        const double t = s.enabled ? s.thickness : extent_of(*bounds) / 50.0;
        s = section_along_axis(a, bounds->center()[a], t);
      }
    }
  }
  if (!s.enabled) return;
  input3("point", s.point);
  input3("normal", s.normal);
  ImGui::InputDouble("thickness", &s.thickness, 0.0, 0.0, "%.3f");
  if (ImGui::Button("step back")) step_section(&s, -1.0);
  ImGui::SameLine();
  if (ImGui::Button("step forward")) step_section(&s, 1.0);
  ImGui::SameLine();
  ImGui::TextDisabled("PageDown / PageUp");
}

void ClipState::draw_section(const Bounds* bounds, const Camera& camera, const PickResult* picks,
                             int pick_count, PanelMarks& marks) {
  const bool open = ImGui::CollapsingHeader("Clip");
  marks.mark("clip.header");
  if (!open) return;
  const bool room = clip.boxes.size() < size_t(kMaxClipBoxes);
  ImGui::BeginDisabled(!bounds || !room);
  if (ImGui::Button("add box") && bounds) add_box(*bounds);
  marks.mark("clip.add");
  ImGui::SameLine();
  if (ImGui::Button("around the view") && bounds) add_box_around_view(camera, *bounds);
  tooltip("A box around what the view sees at the depth of the cloud's centre.");
  ImGui::SameLine();
  ImGui::BeginDisabled(pick_count == 0);
  if (ImGui::Button("around the picks") && bounds) add_box_around_picks(picks, pick_count, *bounds);
  ImGui::EndDisabled();
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::TextDisabled("%zu/%d", clip.boxes.size(), kMaxClipBoxes);
  box_rows(marks);
  section_rows(bounds, camera);
  sanitize();
}

void ClipState::draw_edges(const Camera& camera, const RenderSettings& rs, int ww, int wh,
                           float ui_scale) const {
  if (clip.boxes.empty()) return;
  ImDrawList* dl = ImGui::GetBackgroundDrawList();
  const double w = double(std::max(rs.width, 1)), h = double(std::max(rs.height, 1));
  const glm::dvec3 right = camera.right(), up = camera.up(), fwd = camera.forward();
  // A corner in window units, or false behind the near plane (its edges are then left out).
  auto to_window = [&](const glm::dvec3& p, ImVec2* out) {
    const glm::dvec3 d = p - camera.position;
    const double cz = glm::dot(d, fwd);
    if (!(cz > camera.near_z)) return false;
    const double s = camera.focus / cz * h * 0.5;
    const double px = glm::dot(d, right) * s + w * 0.5, py = h * 0.5 - glm::dot(d, up) * s;
    *out = ImVec2(float(px * double(ww) / w), float(py * double(wh) / h));
    return std::abs(px) < 1e7 && std::abs(py) < 1e7;
  };
  for (const ClipBox& b : clip.boxes) {
    const auto k = clip_box_corners(b);
    ImVec2 at[8];
    bool in[8];
    for (int i = 0; i < 8; ++i) in[i] = to_window(k[size_t(i)], &at[i]);
    const ImU32 color = b.mode == ClipMode::kInside    ? IM_COL32(80, 230, 120, 220)
                        : b.mode == ClipMode::kOutside ? IM_COL32(240, 90, 80, 220)
                                                       : IM_COL32(255, 200, 0, 220);
    // The 12 edges join corners that differ in one bit.
    for (int i = 0; i < 8; ++i)
      for (int bit = 1; bit < 8; bit <<= 1)
        if (!(i & bit) && in[i] && in[i | bit])
          dl->AddLine(at[i], at[i | bit], color, 1.5f * ui_scale);
  }
}

}  // namespace pr
