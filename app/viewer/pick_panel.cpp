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

#include "engine/cpu_renderer.h"
#include "engine/culling.h"
#include "viewer/viewer_impl.h"

namespace pr {

namespace {

/// Pixels around the pointer within which a click finds a point.
constexpr int kPickRadius = 6;

const char* const kPickNames[2] = {"A", "B"};

}  // namespace

void Viewer::Impl::pick_at(int window_x, int window_y) {
  if (!cloud.drawable() || !have_image || rs.width <= 0 || rs.height <= 0) return;
  int ww = 0, wh = 0;
  SDL_GetWindowSize(win.window, &ww, &wh);
  // Window units to image pixels (the image is the drawable: HiDPI-aware).
  PickState::Click c;
  c.x = int(double(window_x) * double(rs.width) / double(std::max(ww, 1)));
  c.y = int(double(window_y) * double(rs.height) / double(std::max(wh, 1)));
  c.cloud = cloud.points.get();
  c.camera = view.camera;
  c.settings = rs;
  picks.waiting = c;
  start_waiting_pick();
}

void Viewer::Impl::start_waiting_pick() {
  if (!picks.waiting || picks.job.busy()) return;
  const PickState::Click c = *picks.waiting;
  picks.waiting.reset();
  if (c.cloud != cloud.points.get() || !cloud.drawable()) return;  // the cloud changed
  PickJob::Request q;
  q.cloud = cloud.points;
  q.camera = c.camera;
  q.settings = c.settings;
  q.x = c.x;
  q.y = c.y;
  q.radius = kPickRadius;
  // Where the renderer on screen holds the positions it draws: the GPU picks there; the CPU's are
  // its compact form, or floats with its batch boxes when it has them.
  const CpuRenderer& cpu = backend->cpu();
  if (backend->gpu_active()) {
    q.device = [this](const PointCloud& pc, const Camera& cam, const RenderSettings& s,
                      PickWindow* w,
                      std::string* why) { return backend->pick_window(pc, cam, s, w, why); };
  } else if (backend->compact_active()) {
    q.cpu_compact = cpu.shared_compact();
  } else if (cpu.boxes().size() == (cloud.points->size() + kPointBatch - 1) / kPointBatch) {
    q.boxes = cpu.boxes();
  }
  picks.job.start(std::move(q));
}

void Viewer::Impl::update_picks() {
  PickJob::Result r;
  if (picks.job.take(r)) {
    picks.last_ms = r.ms;
    if (r.cloud != cloud.points.get()) {
      // Picked in a cloud no longer on screen: dropped.
    } else if (!r.ok) {
      if (!r.error.empty()) set_status("pick: " + r.error, true);
    } else if (!r.pick.hit) {
      set_status("pick: no point within " + std::to_string(kPickRadius) + " pixels", false);
    } else {
      picks.follow(r.cloud);
      picks.add(r.pick);
    }
  }
  start_waiting_pick();
}

namespace {

/// Marks on the image: each pick projected with the camera of this frame (double precision), a
/// ring and its name, and the line between two.
void draw_pick_marks(const PickState& picks, const Camera& camera, const RenderSettings& rs,
                     SDL_Window* window, float ui) {
  int ww = 0, wh = 0;
  SDL_GetWindowSize(window, &ww, &wh);
  ImDrawList* fg = ImGui::GetForegroundDrawList();
  const double w = double(std::max(rs.width, 1)), h = double(std::max(rs.height, 1));
  const double to_window = double(ww) / w;
  ImVec2 at[2];
  bool seen[2] = {false, false};
  for (int i = 0; i < picks.count; ++i) {
    const glm::dvec3 d = picks.points[i].world - camera.position;
    const double cz = glm::dot(d, camera.forward());
    if (!(cz > camera.near_z)) continue;
    const double s = camera.focus / cz * h * 0.5;
    const double px = glm::dot(d, camera.right()) * s + w * 0.5;
    const double py = h * 0.5 - glm::dot(d, camera.up()) * s;
    at[i] = ImVec2(float(px * to_window), float(py * double(wh) / h));
    seen[i] = true;
    const ImU32 tint = i == 0 ? IM_COL32(255, 220, 40, 255) : IM_COL32(40, 220, 255, 255);
    fg->AddCircle(at[i], 7.0f * ui, IM_COL32(0, 0, 0, 200), 0, 4.0f * ui);
    fg->AddCircle(at[i], 7.0f * ui, tint, 0, 2.0f * ui);
    fg->AddText(ImVec2(at[i].x + 9.0f * ui, at[i].y - 16.0f * ui), tint, kPickNames[i]);
  }
  if (picks.count == 2 && seen[0] && seen[1])
    fg->AddLine(at[0], at[1], IM_COL32(255, 255, 255, 200), 1.5f * ui);
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

void Viewer::Impl::draw_pick_panel() {
  if (picks.cloud != cloud.points.get()) picks.clear();  // the picks belong to another cloud
  draw_pick_marks(picks, view.camera, rs, win.window, win.ui_scale);
  // The panel's section, appended to its window.
  if (ImGui::Begin("pointraster") &&
      ImGui::CollapsingHeader("Pick and measure", ImGuiTreeNodeFlags_DefaultOpen))
    pick_section(picks, cloud.points.get(), cloud.file_colors(), view.camera.up_axis, marks);
  ImGui::End();
}

}  // namespace pr
