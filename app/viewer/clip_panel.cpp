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

constexpr int kHandles = 8;
constexpr int kYawHandle = 7;

/// The handles of a box: its centre, the centres of its faces (-x, +x, -y, +y, -z, +z), and the
/// yaw handle beyond the +x face (a quarter of the box's larger horizontal side out).
std::array<glm::dvec3, kHandles> handles_of(const ClipBox& b) {
  const glm::dmat3 r = clip_box_rotation(b);
  std::array<glm::dvec3, kHandles> out;
  out[0] = b.centre;
  for (int a = 0; a < 3; ++a)
    for (int side = 0; side < 2; ++side)
      out[size_t(1 + 2 * a + side)] = b.centre + r[a] * ((side ? 0.5 : -0.5) * b.size[a]);
  out[kYawHandle] = b.centre + r[0] * (0.5 * b.size.x + 0.25 * std::max(b.size.x, b.size.y));
  return out;
}

/// Degrees of the turn from (x0, y0) to (x1, y1) around (cx, cy), window units (y down),
/// counterclockwise on the screen positive, in (-180, 180].
double screen_turn(double cx, double cy, double x0, double y0, double x1, double y1) {
  const double a0 = std::atan2(-(y0 - cy), x0 - cx), a1 = std::atan2(-(y1 - cy), x1 - cx);
  double d = glm::degrees(a1 - a0);
  while (d > 180.0) d -= 360.0;
  while (d <= -180.0) d += 360.0;
  return d;
}

}  // namespace

bool box_from_rectangle(const Camera& camera, const RenderSettings& rs, const ImageRect& area,
                        float x0, float y0, float x1, float y1, const Bounds& bounds,
                        ClipBox* out) {
  const ScreenMap map(camera, rs, area);
  const bool z_up = camera.up_axis == UpAxis::kZ;
  const glm::dvec3 n = z_up ? glm::dvec3(0, 0, 1) : glm::dvec3(0, 1, 0);
  const glm::dvec3 mid = bounds.center();
  const double level = glm::dot(mid, n);
  // The box's horizontal axes: along the camera's right (z up), or x and z (y up).
  const glm::dvec3 r = camera.right();
  const double yaw = z_up ? std::atan2(r.y, r.x) : 0.0;
  const glm::dvec3 e1 = z_up ? glm::dvec3(std::cos(yaw), std::sin(yaw), 0) : glm::dvec3(1, 0, 0);
  const glm::dvec3 e2 = z_up ? glm::dvec3(-std::sin(yaw), std::cos(yaw), 0) : glm::dvec3(0, 0, 1);
  double lo1 = 1e300, hi1 = -1e300, lo2 = 1e300, hi2 = -1e300;
  const float xs[4] = {x0, x1, x1, x0}, ys[4] = {y0, y0, y1, y1};
  for (int k = 0; k < 4; ++k) {
    glm::dvec3 o, d;
    map.ray(xs[k], ys[k], &o, &d);
    const double dn = glm::dot(d, n);
    if (!(std::abs(dn) > 1e-9)) return false;
    const double t = (level - glm::dot(o, n)) / dn;
    if (!camera.ortho() && !(t > 0.0)) return false;
    const glm::dvec3 p = o + d * t;
    const double a = glm::dot(p - mid, e1), b = glm::dot(p - mid, e2);
    lo1 = std::min(lo1, a), hi1 = std::max(hi1, a);
    lo2 = std::min(lo2, b), hi2 = std::max(hi2, b);
  }
  const double height = std::max(glm::dot(bounds.max - bounds.min, n), 1e-3) * 1.02;
  if (!std::isfinite(lo1 + hi1 + lo2 + hi2) || !(hi1 > lo1) || !(hi2 > lo2)) return false;
  ClipBox b;
  b.centre = mid + e1 * (0.5 * (lo1 + hi1)) + e2 * (0.5 * (lo2 + hi2));
  b.size =
      z_up ? glm::dvec3(hi1 - lo1, hi2 - lo2, height) : glm::dvec3(hi1 - lo1, height, hi2 - lo2);
  b.yaw = glm::degrees(yaw);
  *out = b;
  return true;
}

bool ClipState::handle_at(int box, int handle, const Camera& camera, const RenderSettings& rs,
                          const ImageRect& area, float* x, float* y) const {
  if (box < 0 || size_t(box) >= clip.boxes.size() || handle < 0 || handle >= kHandles) return false;
  ImVec2 at;
  if (!to_window(camera, rs, area, handles_of(clip.boxes[size_t(box)])[size_t(handle)], &at))
    return false;
  *x = at.x;
  *y = at.y;
  return true;
}

bool ClipState::press(int x, int y, const Camera& camera, const RenderSettings& rs,
                      const ImageRect& area, const Bounds* bounds) {
  drag_.box = -1;
  if (drawing && bounds && clip.boxes.size() < size_t(kMaxClipBoxes)) {
    sketch_.on = true;
    sketch_.x0 = sketch_.x1 = float(x);
    sketch_.y0 = sketch_.y1 = float(y);
    sketch_.camera = camera;
    sketch_.rs = rs;
    sketch_.area = area;
    sketch_.bounds = *bounds;
    return true;
  }
  double best = 8.0 * 8.0;
  for (size_t i = 0; i < clip.boxes.size(); ++i) {
    const auto h = handles_of(clip.boxes[i]);
    for (int k = 0; k < kHandles; ++k) {
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

void ClipState::release() {
  drag_.box = -1;
  if (!sketch_.on) return;
  sketch_.on = false;
  const Sketch& k = sketch_;
  ClipBox b;
  if (std::abs(k.x1 - k.x0) < 4.0f || std::abs(k.y1 - k.y0) < 4.0f ||
      !box_from_rectangle(k.camera, k.rs, k.area, k.x0, k.y0, k.x1, k.y1, k.bounds, &b))
    return;  // too small, or a view along the ground: drawing goes on
  clip.boxes.push_back(b);
  drawing = false;
}

void ClipState::drag(int x, int y) {
  if (sketch_.on) {
    sketch_.x1 = float(x);
    sketch_.y1 = float(y);
    return;
  }
  if (drag_.box < 0 || size_t(drag_.box) >= clip.boxes.size()) return release();
  const Drag& d = drag_;
  const ClipBox& s = d.start;
  ClipBox& b = clip.boxes[size_t(d.box)];
  const double dx = x - d.x, dy = y - d.y;
  if (d.handle == kYawHandle) {
    // The yaw follows the pointer's turn around the centre's image: a turn counterclockwise on
    // the screen turns the box counterclockwise about z seen from where the camera looks.
    ImVec2 c;
    if (!to_window(d.camera, d.rs, d.area, s.centre, &c)) return;
    const double turn = screen_turn(c.x, c.y, d.x, d.y, x, y);
    const double facing = d.camera.forward().z <= 0.0 ? 1.0 : -1.0;  // from above or below
    b.yaw = std::remainder(s.yaw + facing * turn, 360.0);
    return;
  }
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

void ClipState::update(const PickState& picks, bool measuring, const Bounds& bounds,
                       StatusLine& status) {
  const std::optional<glm::dvec3> p = picks.newest_since(&seen_picks_);
  if (!p || !three_points || measuring || !take_vertex(section_picks, *p)) return;
  if (section_picks.size() < 3) {
    status.set("section: point " + std::to_string(section_picks.size()) + " of 3", false);
    return;
  }
  const double t = clip.section.enabled ? clip.section.thickness : extent_of(bounds) / 50.0;
  ClipSection s;
  std::string why;
  const bool ok =
      section_through_points(section_picks[0], section_picks[1], section_picks[2], t, &s, &why);
  section_picks.clear();
  if (!ok) {
    status.set("section: " + why + "; pick three points again", true);
    return;
  }
  clip.section = s;
  three_points = false;
  status.set("section through the three picked points", false);
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
  ImGui::SameLine();
  if (ImGui::Checkbox("through 3 picks", &three_points)) section_picks.clear();
  tooltip("The next three points you click set the section's plane.");
  if (three_points) ImGui::TextDisabled("click point %zu of 3", section_picks.size() + 1);
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
  // Open at first when the viewer starts with a clip (--clip-box, --section).
  if (clip.active()) ImGui::SetNextItemOpen(true, ImGuiCond_Once);
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
  ImGui::BeginDisabled(!bounds || (!room && !drawing));
  ImGui::Checkbox("draw a box", &drawing);
  marks.mark("clip.draw");
  ImGui::EndDisabled();
  tooltip("Drag a rectangle on the image: a box over it, the cloud's whole height.");
  if (drawing) {
    ImGui::SameLine();
    ImGui::TextDisabled("drag on the image");
  }
  box_rows(marks);
  section_rows(bounds, camera);
  sanitize();
  return true;
}

void ClipState::draw_edges(const Camera& camera, const RenderSettings& rs, const ImageRect& area,
                           float ui_scale) const {
  if (clip.boxes.empty() && !sketch_.on) return;
  ImDrawList* dl = ImGui::GetBackgroundDrawList();
  dl->PushClipRect(ImVec2(area.ux, area.uy), ImVec2(area.ux + area.uw, area.uy + area.uh));
  if (sketch_.on)
    dl->AddRect(ImVec2(std::min(sketch_.x0, sketch_.x1), std::min(sketch_.y0, sketch_.y1)),
                ImVec2(std::max(sketch_.x0, sketch_.x1), std::max(sketch_.y0, sketch_.y1)),
                IM_COL32(80, 230, 120, 220), 0.0f, 0, 1.5f * ui_scale);
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
    const auto h = handles_of(b);
    ImVec2 p[kHandles];
    bool shown[kHandles];
    for (int j = 0; j < kHandles; ++j) shown[j] = to_window(camera, rs, area, h[size_t(j)], &p[j]);
    for (int j = 0; j < kYawHandle; ++j)  // the drag handles
      if (shown[j]) dl->AddCircleFilled(p[j], 3.5f * ui_scale, color);
    if (shown[kYawHandle]) {  // the yaw handle: a ring on a stalk from the +x face
      if (shown[2]) dl->AddLine(p[2], p[kYawHandle], color, 1.0f * ui_scale);
      dl->AddCircle(p[kYawHandle], 5.0f * ui_scale, color, 0, 2.0f * ui_scale);
    }
  }
  dl->PopClipRect();
}

}  // namespace pr
