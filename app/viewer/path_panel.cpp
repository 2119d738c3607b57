// The panel's Camera path section (path_panel.h). The path's motion is engine/camera_path.h's;
// here only its keys are edited, its clock runs while it plays, and its spline is drawn over the
// image with the measurements' projection (screen_map.h).
#include "viewer/path_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "viewer/panel_widgets.h"
#include "viewer/screen_map.h"

namespace pr {

namespace {

/// Keys' times stay this far apart (seconds) when one is edited.
constexpr double kMinGap = 0.01;
/// Points of the drawn spline a segment.
constexpr int kDrawSteps = 24;

/// The keys' extent (world): the scale of the direction ticks drawn at each key.
double key_extent(const CameraPath& p) {
  glm::dvec3 lo(1e300), hi(-1e300);
  for (const CameraKey& k : p.keys) {
    lo = glm::min(lo, k.pose.position);
    hi = glm::max(hi, k.pose.position);
  }
  return p.keys.empty() ? 0.0 : glm::length(hi - lo);
}

}  // namespace

void PathState::load(const Options& o) {
  path = o.camera_path;
  if (!o.video.empty()) std::snprintf(render.path, sizeof render.path, "%s", o.video.c_str());
  if (o.fps) render.fps = *o.fps;
}

void PathState::add_key(const Camera& camera) {
  const double t = path.keys.empty() ? 0.0 : path.keys.back().time + std::max(key_step, kMinGap);
  path.keys.push_back({camera_pose(camera), t});
}

void PathState::move_key(int i, int dir) {
  const int j = i + dir;
  if (i < 0 || j < 0 || i >= int(path.keys.size()) || j >= int(path.keys.size())) return;
  std::swap(path.keys[size_t(i)].pose, path.keys[size_t(j)].pose);
}

void PathState::delete_key(int i) {
  if (i < 0 || i >= int(path.keys.size())) return;
  path.keys.erase(path.keys.begin() + i);
  if (path.keys.size() < 2) playing = false;
}

void PathState::set_time(int i, double t) {
  const int n = int(path.keys.size());
  if (i < 0 || i >= n || !std::isfinite(t)) return;
  const double lo = i > 0 ? path.keys[size_t(i - 1)].time + kMinGap : 0.0;
  const double hi = i + 1 < n ? path.keys[size_t(i + 1)].time - kMinGap : 1e9;
  path.keys[size_t(i)].time = std::clamp(t, lo, std::max(lo, hi));
}

void PathState::play(bool on) {
  playing = on && path.keys.size() >= 2;
  if (playing && !path.loop && play_time >= path_duration(path)) play_time = 0.0;
}

bool PathState::advance(double seconds, Camera& camera) {
  if (!playing) return false;
  if (path.keys.size() < 2 || !validate_path(path, nullptr)) {
    playing = false;
    return false;
  }
  const CameraPathPlayer player(path);
  play_time += std::max(seconds, 0.0);
  if (path.loop) {
    play_time = std::fmod(play_time, player.duration());
  } else if (play_time >= player.duration()) {
    play_time = player.duration();
    playing = false;  // the end: the view stays at the last key
  }
  apply_pose(player.at(player.start() + play_time), camera);
  return true;
}

void PathState::draw_marks(const PickFrame& f, float ui) const {
  if (path.keys.size() < 2 || !show_path || playing || f.settings.width <= 0 || f.area.empty())
    return;
  if (!validate_path(path, nullptr)) return;
  const CameraPathPlayer player(path);
  const ScreenMap map(f.camera, f.settings, f.area);
  ImDrawList* dl = ImGui::GetBackgroundDrawList();
  dl->PushClipRect(ImVec2(f.area.ux, f.area.uy),
                   ImVec2(f.area.ux + f.area.uw, f.area.uy + f.area.uh));
  const ImU32 tint = IM_COL32(120, 255, 160, 255), shadow = IM_COL32(0, 0, 0, 160);
  const int steps = player.segments() * kDrawSteps;
  glm::dvec3 last = player.position_at(0.0);
  for (int k = 1; k <= steps; ++k) {
    const glm::dvec3 p = player.position_at(double(k) / kDrawSteps);
    ImVec2 a, b;
    if (map.segment(last, p, &a, &b)) {
      dl->AddLine(a, b, shadow, 3.5f * ui);
      dl->AddLine(a, b, tint, 1.5f * ui);
    }
    last = p;
  }
  // Each key: a dot, its number, and where it looks (a tick a tenth of the keys' extent long).
  const double tick = std::max(0.1 * key_extent(path), 1e-6);
  for (size_t i = 0; i < path.keys.size(); ++i) {
    Camera c = f.camera;
    apply_pose(path.keys[i].pose, c);
    ImVec2 a, b;
    if (map.segment(c.position, c.position + c.forward() * tick, &a, &b))
      dl->AddLine(a, b, IM_COL32(255, 255, 255, 220), 1.5f * ui);
    if (const auto q = map.point(c.position)) {
      dl->AddCircleFilled(*q, 4.0f * ui, tint);
      const std::string label = std::to_string(i + 1);
      dl->AddText(ImVec2(q->x + 6.0f * ui, q->y - 16.0f * ui), IM_COL32(255, 255, 255, 255),
                  label.c_str());
    }
  }
  dl->PopClipRect();
}

void PathState::key_rows(Camera& camera, PanelMarks& marks) {
  int remove = -1, up = -1, down = -1;
  for (size_t i = 0; i < path.keys.size(); ++i) {
    CameraKey& k = path.keys[i];
    ImGui::PushID(int(i));
    ImGui::Text("%zu", i + 1);
    ImGui::SameLine();
    double t = k.time;
    ImGui::SetNextItemWidth(70.0f * ImGui::GetFontSize() / 13.0f);
    if (ImGui::InputDouble("##time", &t, 0.0, 0.0, "%.2f s")) set_time(int(i), t);
    marks.mark(("path.key." + std::to_string(i + 1)).c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton("go")) apply_pose(k.pose, camera);
    tooltip("Moves the view to this key.");
    ImGui::SameLine();
    if (ImGui::SmallButton("^")) up = int(i);
    ImGui::SameLine();
    if (ImGui::SmallButton("v")) down = int(i);
    ImGui::SameLine();
    if (ImGui::SmallButton("x")) remove = int(i);
    ImGui::TextDisabled("    %.1f %.1f %.1f, yaw %.1f, pitch %.1f", k.pose.position.x,
                        k.pose.position.y, k.pose.position.z, k.pose.yaw_deg, k.pose.pitch_deg);
    ImGui::PopID();
  }
  if (up >= 0) move_key(up, -1);
  if (down >= 0) move_key(down, +1);
  if (remove >= 0) delete_key(remove);
}

void PathState::play_rows(Camera& camera, PanelMarks& marks) {
  const bool can_play = path.keys.size() >= 2;
  ImGui::BeginDisabled(!can_play);
  if (ImGui::Button(playing ? "Pause" : "Play")) play(!playing);
  marks.mark("path.play");
  ImGui::SameLine();
  if (ImGui::Button("Stop")) {
    playing = false;
    play_time = 0.0;
    apply_pose(path.keys.front().pose, camera);
  }
  ImGui::SameLine();
  ImGui::Checkbox("loop", &path.loop);
  ImGui::SameLine();
  ImGui::Checkbox("constant speed", &path.constant_speed);
  tooltip(
      "Along the path at one speed, taking the whole path's time; off: each key is\n"
      "passed at its own time.");
  const double duration = path_duration(path);
  float t = float(std::min(play_time, duration));
  if (ImGui::SliderFloat("time", &t, 0.0f, float(duration), "%.2f s") && can_play) {
    play_time = t;  // scrubbing moves the view along the path
    apply_pose(CameraPathPlayer(path).at(path.keys.front().time + play_time), camera);
  }
  ImGui::EndDisabled();
  ImGui::Checkbox("show the path", &show_path);
}

bool PathState::draw_section(Camera& camera, bool can_render, float ui_scale, PanelMarks& marks,
                             StatusLine& status) {
  if (!path.keys.empty()) ImGui::SetNextItemOpen(true, ImGuiCond_Once);
  const bool open = ImGui::CollapsingHeader("Camera path");
  marks.mark("path.header");
  if (!open) return false;
  if (ImGui::Button("Add the view as a key")) add_key(camera);
  marks.mark("path.add");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(60.0f * ImGui::GetFontSize() / 13.0f);
  ImGui::InputDouble("s after the last", &key_step, 0.0, 0.0, "%.1f");
  key_step = std::clamp(key_step, kMinGap, 3600.0);
  key_rows(camera, marks);
  std::string why;
  if (path.keys.size() >= 2 && !validate_path(path, &why)) ImGui::TextWrapped("%s", why.c_str());
  play_rows(camera, marks);
  ImGui::Separator();
  return render.draw_rows(can_render && path.keys.size() >= 2, ui_scale, status);
}

}  // namespace pr
