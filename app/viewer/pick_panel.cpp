// Picking and measuring in the viewer: a left click on the image (where ImGui does not want the
// mouse, so it never fights the fly camera's right button) picks the point drawn nearest the
// pointer (engine/pick.h), on a job's thread while the window keeps drawing (pick_job.h); a
// second click picks another and the panel measures between them; a third starts again; X
// clears. The picked points are marked on the image with ImGui's foreground draw list (the
// display pass and the rendered image stay untouched).
#include "viewer/pick_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "engine/cpu_renderer.h"
#include "engine/culling.h"
#include "viewer/screen_map.h"

namespace pr {

namespace {

/// Pixels around the pointer within which a click finds a point.
constexpr int kPickRadius = 6;

const char* const kPickNames[2] = {"A", "B"};

}  // namespace

void PickState::click(int window_x, int window_y, const PickFrame& f, RenderBackend& backend) {
  if (!f.drawn || f.settings.width <= 0 || f.settings.height <= 0) return;
  if (!f.area.contains(float(window_x), float(window_y))) return;  // not on the image
  // Window units to the image's pixels (the drawable's: HiDPI-aware), from the image's corner.
  Click c;
  c.x = int((double(window_x) - f.area.ux) * double(f.settings.width) /
            std::max(double(f.area.uw), 1.0));
  c.y = int((double(window_y) - f.area.uy) * double(f.settings.height) /
            std::max(double(f.area.uh), 1.0));
  c.cloud = f.cloud.get();
  c.camera = f.camera;
  c.settings = f.settings;
  waiting = c;
  start_waiting(f.cloud, backend);
}

void PickState::start_waiting(const std::shared_ptr<const PointCloud>& now,
                              RenderBackend& backend) {
  if (!waiting || job.busy()) return;
  const Click c = *waiting;
  waiting.reset();
  if (c.cloud != now.get() || !now || now->empty()) return;  // the cloud changed
  PickJob::Request q;
  q.cloud = now;
  q.camera = c.camera;
  q.settings = c.settings;
  q.x = c.x;
  q.y = c.y;
  q.radius = kPickRadius;
  // Where the renderer on screen holds the positions it draws: the GPU picks there; the CPU's are
  // its compact form, or floats with its batch boxes when it has them.
  // A scene the GPU made is picked in its even subset, which the CPU holds.
  const CpuRenderer& cpu = backend.cpu();
  const bool device_scene = backend.device_scene_points() != 0;
  if (backend.gpu_active() && !device_scene) {
    RenderBackend* be = &backend;
    q.device = [be](const PointCloud& pc, const Camera& cam, const RenderSettings& s, PickWindow* w,
                    std::string* why) { return be->pick_window(pc, cam, s, w, why); };
  } else if (device_scene ? cpu.compact_active() : backend.compact_active()) {
    q.cpu_compact = cpu.shared_compact();
  } else if (cpu.boxes().size() == (now->size() + kPointBatch - 1) / kPointBatch) {
    q.boxes = cpu.boxes();
  }
  if (!backend.gpu_active()) q.cpu_sizes = cpu.shared_size_table();
  job.start(std::move(q));
}

void PickState::update(const std::shared_ptr<const PointCloud>& now, RenderBackend& backend,
                       StatusLine& status) {
  PickJob::Result r;
  if (job.take(r)) {
    last_ms = r.ms;
    if (r.cloud != now.get()) {
      // Picked in a cloud no longer on screen: dropped.
    } else if (!r.ok) {
      if (!r.error.empty()) status.set("pick: " + r.error, true);
    } else if (!r.pick.hit) {
      status.set("pick: no point within " + std::to_string(kPickRadius) + " pixels", false);
    } else {
      follow(r.cloud);
      add(r.pick);
    }
  }
  start_waiting(now, backend);
}

namespace {

/// Marks on the image: each pick projected with the camera of this frame (double precision), a
/// ring and its name, and the line between two.
void draw_pick_marks(const PickState& picks, const Camera& camera, const RenderSettings& rs,
                     const ImageRect& area, float ui) {
  ImDrawList* fg = ImGui::GetForegroundDrawList();
  const ScreenMap map(camera, rs, area);
  // Over the image only: a pick beside the view leaves no mark over the panel.
  fg->PushClipRect(ImVec2(area.ux, area.uy), ImVec2(area.ux + area.uw, area.uy + area.uh));
  ImVec2 at[2];
  bool seen[2] = {false, false};
  for (int i = 0; i < picks.count; ++i) {
    const std::optional<ImVec2> p = map.point(picks.points[i].world);
    if (!p) continue;
    at[i] = *p;
    seen[i] = true;
    const ImU32 tint = i == 0 ? IM_COL32(255, 220, 40, 255) : IM_COL32(40, 220, 255, 255);
    fg->AddCircle(at[i], 7.0f * ui, IM_COL32(0, 0, 0, 200), 0, 4.0f * ui);
    fg->AddCircle(at[i], 7.0f * ui, tint, 0, 2.0f * ui);
    fg->AddText(ImVec2(at[i].x + 9.0f * ui, at[i].y - 16.0f * ui), tint, kPickNames[i]);
  }
  if (picks.count == 2 && seen[0] && seen[1])
    fg->AddLine(at[0], at[1], IM_COL32(255, 255, 255, 200), 1.5f * ui);
  fg->PopClipRect();
}

/// The panel's section: each pick's position and attributes, the measure between two.
void pick_section(PickState& picks, const PointCloud* cloud, bool file_colors, UpAxis up,
                  PanelMarks& marks) {
  // Wrapped: the panel's default width holds about 50 characters of text.
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
  ImGui::TextWrapped("left click: pick a point, a second: measure; X clears");
  ImGui::PopStyleColor();
  marks.mark("pick.hint");
  if (picks.pending()) ImGui::TextDisabled("finding the point clicked...");
  for (int i = 0; i < picks.count; ++i) {
    const PickResult& p = picks.points[i];
    ImGui::Text("%s  x %.3f  y %.3f  z %.3f", kPickNames[i], p.world.x, p.world.y, p.world.z);
    ImGui::TextDisabled("   point %llu", (unsigned long long)p.index);
    if (cloud) {
      for (const auto& [name, value] : point_attributes(*cloud, p.index, file_colors))
        ImGui::Text("   %s  %s", name.c_str(), value.c_str());
    }
  }
  if (picks.count == 2) {
    const Measure m = measure(picks.points[0].world, picks.points[1].world, up);
    ImGui::Text("distance %.3f", m.distance);
    ImGui::Text("horizontal %.3f  height %+.3f (%s up)", m.horizontal, m.height,
                up == UpAxis::kZ ? "z" : "y");
  }
  ImGui::BeginDisabled(picks.count == 0);
  if (ImGui::Button("Clear picks")) picks.clear();
  ImGui::EndDisabled();
}

}  // namespace

void PickState::draw_marks(const PickFrame& f, float ui_scale) {
  if (cloud != f.cloud.get()) clear();  // the picks belong to another cloud
  if (!f.area.empty()) draw_pick_marks(*this, f.camera, f.settings, f.area, ui_scale);
}

void PickState::draw_section(const PickFrame& f, bool file_colors, PanelMarks& marks) {
  if (cloud != f.cloud.get()) clear();  // the picks belong to another cloud
  if (ImGui::CollapsingHeader("Pick and measure", ImGuiTreeNodeFlags_DefaultOpen))
    pick_section(*this, f.cloud.get(), file_colors, f.camera.up_axis, marks);
}

}  // namespace pr
