// The viewer's clip (clip_panel.h).
#include "viewer/clip_panel.h"

#include <imgui.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>

#include "viewer/panel_widgets.h"
#include "viewer/screen_map.h"

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

/// A world point in window units for the frame of `camera` and `rs` in the window's `area`;
/// false behind the near plane or absurdly far out.
bool to_window(const Camera& camera, const RenderSettings& rs, const ImageRect& area,
               const glm::dvec3& p, ImVec2* out) {
  const std::optional<ImVec2> at = ScreenMap(camera, rs, area).point(p);
  if (!at) return false;
  *out = *at;
  return std::abs(at->x) < 1e7f && std::abs(at->y) < 1e7f;
}

/// The 7 handles of a box: its centre, then the centres of its faces (-x, +x, -y, +y, -z, +z).
std::array<glm::dvec3, 7> handles_of(const ClipBox& b) {
  const glm::dmat3 r = clip_box_rotation(b);
  std::array<glm::dvec3, 7> out;
  out[0] = b.centre;
  for (int a = 0; a < 3; ++a)
    for (int side = 0; side < 2; ++side)
      out[size_t(1 + 2 * a + side)] = b.centre + r[a] * ((side ? 0.5 : -0.5) * b.size[a]);
  return out;
}

}  // namespace

bool ClipState::handle_at(int box, int handle, const Camera& camera, const RenderSettings& rs,
                          const ImageRect& area, float* x, float* y) const {
  if (box < 0 || size_t(box) >= clip.boxes.size() || handle < 0 || handle > 6) return false;
  ImVec2 at;
  if (!to_window(camera, rs, area, handles_of(clip.boxes[size_t(box)])[size_t(handle)], &at))
    return false;
  *x = at.x;
  *y = at.y;
  return true;
}

bool ClipState::press(int x, int y, const Camera& camera, const RenderSettings& rs,
                      const ImageRect& area) {
  drag_.box = -1;
  double best = 8.0 * 8.0;
  for (size_t i = 0; i < clip.boxes.size(); ++i) {
    const auto h = handles_of(clip.boxes[i]);
    for (int k = 0; k < 7; ++k) {
      ImVec2 at;
      if (!to_window(camera, rs, area, h[size_t(k)], &at)) continue;
      const double dx = double(at.x) - x, dy = double(at.y) - y, d2 = dx * dx + dy * dy;
      if (d2 > best) continue;
      best = d2;
      drag_.box = int(i);
      drag_.handle = k;
    }
  }
  if (drag_.box < 0) return false;
  drag_.camera = camera;
  drag_.rs = rs;
  drag_.area = area;
  drag_.x = x;
  drag_.y = y;
  drag_.start = clip.boxes[size_t(drag_.box)];
  return true;
}

void ClipState::drag(int x, int y) {
  if (drag_.box < 0 || size_t(drag_.box) >= clip.boxes.size()) return release();
  const Drag& d = drag_;
  const ClipBox& s = d.start;
  ClipBox& b = clip.boxes[size_t(d.box)];
  const double dx = x - d.x, dy = y - d.y;
  if (d.handle == 0) {
    // The centre moves in the view's plane at its depth, a window unit the world units it spans
    // there.
    const double depth = glm::dot(s.centre - d.camera.position, d.camera.forward());
    if (!(depth > 0.0)) return;
    const double unit = ScreenMap(d.camera, d.rs, d.area).world_per_unit(depth);
    b.centre = s.centre + (d.camera.right() * dx - d.camera.up() * dy) * unit;
    return;
  }
  // A face moves along its axis by the pointer's motion along the axis's image.
  const int a = (d.handle - 1) / 2;
  const double sign = (d.handle - 1) % 2 ? 1.0 : -1.0;
  const glm::dvec3 axis = clip_box_rotation(s)[a] * sign;
  const glm::dvec3 face = handles_of(s)[size_t(d.handle)];
  const double eps = std::max(s.size[a], 1e-6) * 0.1;
  ImVec2 p0, p1;
  if (!to_window(d.camera, d.rs, d.area, face, &p0) ||
      !to_window(d.camera, d.rs, d.area, face + axis * eps, &p1))
    return;
  const double vx = (double(p1.x) - p0.x) / eps, vy = (double(p1.y) - p0.y) / eps;
  const double v2 = vx * vx + vy * vy;
  if (!(v2 > 1e-12)) return;  // the axis points at the eye: no motion along it on screen
  const double t = std::max((dx * vx + dy * vy) / v2, 1e-6 - s.size[a]);
  b.size[a] = s.size[a] + t;
  b.centre = s.centre + axis * (0.5 * t);
}

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
  const double side = 2.0 / camera.image_scale(d);  // the height the view spans at depth d
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

bool ClipState::draw_section(const Bounds* bounds, const Camera& camera, const PickResult* picks,
                             int pick_count, PanelMarks& marks) {
  const bool open = ImGui::CollapsingHeader("Clip");
  marks.mark("clip.header");
  if (!open) return false;
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
  return true;
}

void ClipState::draw_edges(const Camera& camera, const RenderSettings& rs, const ImageRect& area,
                           float ui_scale) const {
  if (clip.boxes.empty()) return;
  ImDrawList* dl = ImGui::GetBackgroundDrawList();
  dl->PushClipRect(ImVec2(area.ux, area.uy), ImVec2(area.ux + area.uw, area.uy + area.uh));
  for (const ClipBox& b : clip.boxes) {
    // A corner behind the near plane leaves its edges out.
    const auto k = clip_box_corners(b);
    ImVec2 at[8];
    bool in[8];
    for (int i = 0; i < 8; ++i) in[i] = to_window(camera, rs, area, k[size_t(i)], &at[i]);
    const ImU32 color = b.mode == ClipMode::kInside    ? IM_COL32(80, 230, 120, 220)
                        : b.mode == ClipMode::kOutside ? IM_COL32(240, 90, 80, 220)
                                                       : IM_COL32(255, 200, 0, 220);
    // The 12 edges join corners that differ in one bit.
    for (int i = 0; i < 8; ++i)
      for (int bit = 1; bit < 8; bit <<= 1)
        if (!(i & bit) && in[i] && in[i | bit])
          dl->AddLine(at[i], at[i | bit], color, 1.5f * ui_scale);
    for (const glm::dvec3& hp : handles_of(b)) {  // the drag handles
      ImVec2 p;
      if (to_window(camera, rs, area, hp, &p)) dl->AddCircleFilled(p, 3.5f * ui_scale, color);
    }
  }
  dl->PopClipRect();
}

}  // namespace pr
