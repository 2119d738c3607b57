// Annotations in the viewer (annotation_panel.h). The marks are drawn with ImGui's background draw
// list like the measurements', each point projected with the frame's camera; labels stay inside
// the image. A flight eases the camera from where it is to the annotation's view in 0.8 s: the
// position along the straight line, yaw the short way round, pitch straight, all by the same
// smoothstep, so that the move starts and ends at rest, as Potree's does.
#include "viewer/annotation_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "viewer/overlay_label.h"
#include "viewer/screen_map.h"

namespace pr {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kDeg = kPi / 180.0;

/// `a` to `b` the short way round, in (-pi, pi].
double angle_step(double a, double b) {
  double d = std::fmod(b - a, 2.0 * kPi);
  if (d > kPi) d -= 2.0 * kPi;
  if (d <= -kPi) d += 2.0 * kPi;
  return d;
}

}  // namespace

void CameraFlight::start(const Camera& now, const glm::dvec3& position, double yaw, double pitch) {
  active = true;
  from = now;
  to_position = position;
  to_yaw = yaw;
  to_pitch = pitch;
  elapsed = 0.0;
}

bool CameraFlight::step(Camera& cam, double dt) {
  if (!active) return false;
  elapsed += std::max(dt, 0.0);
  const double t = std::min(elapsed / seconds, 1.0);
  const double s = t * t * (3.0 - 2.0 * t);
  if (t >= 1.0) {
    cam.position = to_position;
    cam.yaw = to_yaw;
    cam.pitch = to_pitch;
    active = false;
    return true;
  }
  cam.position = from.position + (to_position - from.position) * s;
  cam.yaw = from.yaw + angle_step(from.yaw, to_yaw) * s;
  cam.pitch = from.pitch + (to_pitch - from.pitch) * s;
  return true;
}

void annotation_view(const Annotation& a, const Camera& now, double reach, glm::dvec3* position,
                     double* yaw, double* pitch) {
  if (a.camera) {
    *position = a.camera->position;
    *yaw = a.camera->yaw_deg * kDeg;
    *pitch = std::clamp(a.camera->pitch_deg, -90.0, 90.0) * kDeg;
    return;
  }
  const glm::dvec3 to = a.position - now.position;
  const double dist = glm::length(to);
  // Along the line from the camera to the point (the camera's own direction when it stands on
  // the point), no farther than `reach`.
  const glm::dvec3 dir = dist > 1e-9 ? to / dist : now.forward();
  const double keep = std::min(dist > 1e-9 ? dist : reach, reach);
  Camera c = now;
  c.position = a.position - dir * keep;
  c.look_at(a.position);
  *position = c.position;
  *yaw = c.yaw;
  *pitch = c.pitch;
}

bool AnnotationState::add(const glm::dvec3& at, StatusLine& status) {
  if (!title[0]) {
    status.set("annotation: type a title first", true);
    return false;
  }
  Annotation a;
  a.title = title;
  a.text = text;
  a.position = at;
  items.push_back(std::move(a));
  title[0] = text[0] = '\0';
  char msg[96];
  std::snprintf(msg, sizeof msg, "annotation added at %.3f, %.3f, %.3f", at.x, at.y, at.z);
  status.set(msg, false);
  return true;
}

void AnnotationState::fly_to(size_t i, const Camera& now, double reach) {
  if (i >= items.size()) return;
  glm::dvec3 p;
  double yaw = 0.0, pitch = 0.0;
  annotation_view(items[i], now, reach, &p, &yaw, &pitch);
  flight.start(now, p, yaw, pitch);
}

int AnnotationState::label_at(float x, float y) const {
  for (const auto& [r, i] : labels)
    if (x >= r.x && x < r.z && y >= r.y && y < r.w) return int(i);
  return -1;
}

void AnnotationState::draw_marks(const PickFrame& f, float ui) {
  labels.clear();
  if (f.settings.width <= 0 || f.area.empty() || items.empty()) return;
  ImDrawList* dl = ImGui::GetBackgroundDrawList();
  const ScreenMap map(f.camera, f.settings, f.area);
  dl->PushClipRect(ImVec2(f.area.ux, f.area.uy),
                   ImVec2(f.area.ux + f.area.uw, f.area.uy + f.area.uh));
  std::vector<ImVec4> placed;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::optional<ImVec2> at = map.point(items[i].position);
    if (!at || !f.area.contains(at->x, at->y)) continue;
    // A marker: a ring on a dark disc, seen on any color.
    dl->AddCircleFilled(*at, 6.0f * ui, IM_COL32(0, 0, 0, 190));
    dl->AddCircle(*at, 4.5f * ui, IM_COL32(90, 200, 255, 255), 0, 2.0f * ui);
    const ImVec4 r = draw_overlay_label(dl, *at, items[i].title, IM_COL32(150, 220, 255, 255),
                                        f.area, ui, placed);
    labels.emplace_back(r, i);
    if (!items[i].text.empty() && mouse.x >= r.x && mouse.x < r.z && mouse.y >= r.y &&
        mouse.y < r.w)
      ImGui::SetTooltip("%s", items[i].text.c_str());
  }
  dl->PopClipRect();
}

namespace {

/// The fields of the item being edited; its camera saved or forgotten.
void edit_fields(AnnotationState& s, Annotation& a, const Camera& camera) {
  if (ImGui::InputText("title##edit", s.edit_title, sizeof s.edit_title) && s.edit_title[0])
    a.title = s.edit_title;
  if (ImGui::InputTextMultiline("text##edit", s.edit_text, sizeof s.edit_text,
                                ImVec2(0, ImGui::GetTextLineHeight() * 3.5f)))
    a.text = s.edit_text;
  if (ImGui::Button("save camera"))
    a.camera = CameraPose{camera.position, camera.yaw / kDeg, camera.pitch / kDeg};
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Clicking the annotation flies to this view from now on.");
  if (a.camera) {
    ImGui::SameLine();
    if (ImGui::Button("forget camera")) a.camera.reset();
  }
}

}  // namespace

int AnnotationState::draw_section(const std::optional<glm::dvec3>& last_pick, const Camera& camera,
                                  PanelMarks& marks, StatusLine& status) {
  const bool open = ImGui::CollapsingHeader("Annotations");
  marks.mark("annotation.header");
  if (!open) return -1;
  int fly = -1, remove = -1;
  for (size_t i = 0; i < items.size(); ++i) {
    Annotation& a = items[i];
    ImGui::PushID(int(i));
    const std::string label = a.title + (a.camera ? "  (camera)" : "");
    // The title as wide as the row leaves beside its two small buttons.
    const ImGuiStyle& st = ImGui::GetStyle();
    const float buttons = ImGui::CalcTextSize("done").x + ImGui::CalcTextSize("x").x +
                          4.0f * st.FramePadding.x + 2.0f * st.ItemSpacing.x;
    if (ImGui::Selectable(label.c_str(), editing == int(i), 0,
                          ImVec2(std::max(ImGui::GetContentRegionAvail().x - buttons, 1.0f), 0)))
      fly = int(i);
    if (marks.on) marks.mark(("annotation.item." + std::to_string(i)).c_str());
    if (ImGui::IsItemHovered() && !a.text.empty()) ImGui::SetTooltip("%s", a.text.c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton(editing == int(i) ? "done" : "edit")) {
      editing = editing == int(i) ? -1 : int(i);
      std::snprintf(edit_title, sizeof edit_title, "%s", a.title.c_str());
      std::snprintf(edit_text, sizeof edit_text, "%s", a.text.c_str());
    }
    ImGui::SameLine();
    if (ImGui::SmallButton("x")) remove = int(i);
    if (editing == int(i)) edit_fields(*this, a, camera);
    ImGui::PopID();
  }
  if (remove >= 0) {
    items.erase(items.begin() + remove);
    editing = -1;
  }
  ImGui::InputText("title", title, sizeof title);
  ImGui::InputText("text", text, sizeof text);
  ImGui::BeginDisabled(!last_pick);
  if (ImGui::Button("Add at the last pick") && last_pick) add(*last_pick, status);
  marks.mark("annotation.add");
  ImGui::EndDisabled();
  if (!last_pick) ImGui::TextDisabled("click a point on the image first");
  return fly;
}

}  // namespace pr
