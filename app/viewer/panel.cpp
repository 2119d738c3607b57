// The ImGui panel (Viewer::Impl::draw_panel()): docked at the window's left edge, full height, its
// width the user's (layout.h); at its top a button that hides it and the status line with the
// background job, then the sections by group (panel_groups.h): streaming (stream_state.cpp);
// View: camera and focus (camera_control.cpp), points, the camera path (path_panel.cpp); Tools:
// pick and measure (pick_panel.cpp); Colour (color_panel.cpp); Data: open (open_panel.cpp), save
// (save_panel.cpp), cloud (cloud_state.cpp); Performance: renderer, timings (frame_times.cpp);
// help. The sections of no one feature are here.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "progress_bar.h"
#include "viewer/panel_widgets.h"
#include "viewer/viewer_impl.h"

namespace pr {

namespace {

/// The status line (errors in red) and the background job's progress bar with its Cancel.
void status_and_job(const StatusLine& status, CloudJob& job, float ui_scale) {
  if (!status.text.empty()) {
    // Wrapped, errors too: a reader's warning names the file and what it read past.
    if (status.error) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
    ImGui::TextWrapped("%s", status.text.c_str());
    if (status.error) ImGui::PopStyleColor();
  }
  if (!job.busy()) return;
  char ov[128];
  std::snprintf(ov, sizeof ov, "%s %.0f%%", job.label().c_str(), job.progress() * 100.0);
  ImGui::ProgressBar(float(job.progress()), ImVec2(-80 * ui_scale, 0), ov);
  ImGui::SameLine();
  if (ImGui::Button("Cancel")) job.cancel();
}

/// The GPU's own options: its device, and the Morton order of its upload (auto: clouds in no
/// spatial order): the same image, faster for clouds stored in no spatial order (2x at 1e9
/// random points); switching it re-uploads the cloud.
void gpu_options(RenderBackend& be) {
  ImGui::Text("device: %s", be.device_name().c_str());
  bool sorted = be.gpu_sorted();
  if (ImGui::Checkbox("spatial sort on upload", &sorted)) be.set_sort(sorted);
  tooltip(
      "Reorders the points on the GPU along a Morton curve once, so that unordered clouds\n"
      "draw as fast as spatially ordered ones. The image does not change.");
}

/// Compact positions (off unless --compact, or taken when full precision does not fit on the
/// GPU): 7 bytes a point on the GPU instead of 15; switching re-encodes the cloud. Occlusion
/// culling (auto by default, both renderers): the same image; dense clouds seen whole draw
/// several times faster.
void storage_and_culling(RenderBackend& be) {
  bool compact = be.compact_active();
  if (ImGui::Checkbox("compact positions (7 bytes a point)", &compact)) be.set_compact(compact);
  tooltip(
      "Stores each position in 4 bytes instead of 12, quantized to 1/1023 of its batch's\n"
      "box (4096 points): twice the points fit on the GPU, and a billion points draw about\n"
      "20% faster. Points move by up to half a step; the CPU and the GPU draw the same image.");
  int mode = int(be.options().occlusion);
  const char* kOcclusion[] = {"off", "auto", "on"};
  if (ImGui::Combo("occlusion culling", &mode, kOcclusion, 3)) be.set_occlusion(Toggle(mode));
  tooltip(
      "Skips the batches of 4096 points that would land behind what the image already\n"
      "holds (a depth pyramid of the last frame, checked again in each frame). The image\n"
      "does not change. auto: clouds of 17 M points and more (CPU: 34 M), while it hides\n"
      "enough.");
}

/// The renderer's section; `note`: the last frame's batch counts, refreshed every 30 frames
/// (`frames` counts the panel's frames).
void renderer_section(RenderBackend& be, ViewerWindow& win, std::string& note, uint64_t& frames) {
  if (!ImGui::CollapsingHeader("Renderer", ImGuiTreeNodeFlags_DefaultOpen)) return;
  const bool gpu = be.gpu_active();
  const std::string& gpu_why = be.gpu_unavailable();
  if (ImGui::RadioButton("CPU", !gpu) && gpu) be.switch_mode(false);
  ImGui::SameLine();
  ImGui::BeginDisabled(!gpu_why.empty() && !gpu);
  if (ImGui::RadioButton("GPU (CUDA)", gpu) && !gpu) be.switch_mode(true);
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::TextDisabled("(G)");
  if (!gpu_why.empty() && !gpu) ImGui::TextWrapped("GPU unavailable: %s", gpu_why.c_str());
  if (gpu) gpu_options(be);
  storage_and_culling(be);
  // The last frame's batches, refreshed now and then (on the GPU a copy of a flag a batch).
  if (frames++ % 30 == 0) note = be.batch_note();
  if (!note.empty()) ImGui::TextUnformatted(note.c_str());
  if (!gpu) ImGui::Text("CPU threads: %u", be.cpu().threads());
  ImGui::TextWrapped("display: %s", be.display_path().c_str());
  if (ImGui::Checkbox("vsync", &win.vsync)) SDL_GL_SetSwapInterval(win.vsync ? 1 : 0);
  ImGui::SameLine();
  ImGui::Text("image %dx%d", win.display->width(), win.display->height());
}

/// What the Points section asks for.
enum class PointsAction { kNone, kTarget, kReadMore, kReadEverything };

/// The point-count slider and what it drew (`drawn`: the last frame's points); for files read in
/// part (a COPC file to some depth, a point budget) more on request, the view kept, the cloud on
/// screen staying until the new one is ready.
PointsAction point_count(CloudState& c, const StreamState& stream, uint64_t drawn) {
  if (stream.scene) {  // the Streaming section's budget and target error decide
    ImGui::Text("drawn %s (streamed)", human_points(double(stream.stats.points_drawn)).c_str());
    return PointsAction::kNone;
  }
  PointsAction action = PointsAction::kNone;
  const bool is_scene = c.is_scene();
  const uint64_t total = c.point_total();
  const uint64_t pmin = std::min<uint64_t>(1000, std::max<uint64_t>(total, 1));
  const uint64_t pmax =
      is_scene ? std::max<uint64_t>(200'000'000, total) : std::max<uint64_t>(total, 1);
  ImGui::BeginDisabled(!c.points);
  ImGui::SliderScalar("points", ImGuiDataType_U64, &c.point_target, &pmin, &pmax, "%llu",
                      ImGuiSliderFlags_Logarithmic);
  // A scene regenerates when the slider is let go (not per drag step), in the background; a
  // loaded cloud draws an even, deterministic subset (RenderSettings::point_count) at once.
  if (is_scene ? ImGui::IsItemDeactivatedAfterEdit() : ImGui::IsItemEdited())
    action = PointsAction::kTarget;
  ImGui::EndDisabled();
  ImGui::Text("drawn %s of %s (%s)", human_points(double(drawn)).c_str(),
              human_points(double(total)).c_str(), is_scene ? "scene regenerates" : "subset");
  std::string part;
  LoadOptions next;
  if (!c.points || is_scene || !read_more_options(c.files, c.files_options, false, &next, &part))
    return action;
  ImGui::TextWrapped("%s", part.c_str());
  ImGui::BeginDisabled(c.job.busy());
  if (ImGui::Button("Read more")) action = PointsAction::kReadMore;
  tooltip("COPC: one octree level deeper; other files: twice the points.");
  ImGui::SameLine();
  if (ImGui::Button("Read everything")) action = PointsAction::kReadEverything;
  ImGui::EndDisabled();
  return action;
}

/// Point size (and adaptive size), batch culling, background, eye-dome lighting and high-quality
/// splats.
void point_look(ViewerSettings& settings, RenderBackend& backend, RenderSettings& rs) {
  ImGui::SliderInt("point size", &settings.point_size, 1, 8, "%d px");
  ImGui::Checkbox("adaptive size", &settings.adaptive_size);
  tooltip(
      "Points larger where the cloud is sparse on screen, as Potree draws them: each point's\n"
      "square as wide as the spacing of the cloud around it seen at its depth, from the point\n"
      "size up to the max size. Close-ups show surfaces instead of scattered pixels; the same\n"
      "image on both renderers.");
  ImGui::BeginDisabled(!settings.adaptive_size);
  ImGui::SliderInt("max size", &settings.max_point_size, 1, 32, "%d px");
  ImGui::EndDisabled();
  bool on = backend.options().culling;
  if (ImGui::Checkbox("skip batches outside the view", &on)) backend.set_culling(on);
  tooltip(
      "Batch culling: each run of 4096 stored points has a bounding box, and a frame skips\n"
      "the runs whose box cannot reach the image. Same image; much faster inside a cloud.\n"
      "The GPU culls clouds of 2^20 points and more.");
  ImGui::ColorEdit3("background", settings.background);
  ImGui::Checkbox("eye-dome lighting", &rs.edl);
  tooltip(
      "Shades each point by how far it lies behind its neighbours on screen (log depth),\n"
      "as Potree and CloudCompare do: edges and relief show without colors. Both renderers\n"
      "draw the same image.");
  ImGui::BeginDisabled(!rs.edl);
  ImGui::SliderFloat("EDL strength", &rs.edl_strength, 0.0f, 5.0f, "%.2f");
  ImGui::SliderFloat("EDL radius", &rs.edl_radius, 1.0f, 4.0f, "%.1f px");
  ImGui::EndDisabled();
  ImGui::Checkbox("high-quality splats", &rs.hq);
  tooltip(
      "Each pixel shows the average color of its points within 1% of the nearest one's\n"
      "depth, not the nearest point's alone: dense clouds stop shimmering while the camera\n"
      "moves. A second pass over the points drawn; the same image on both renderers.");
}

/// The top of the panel, above the groups: a button that hides it (Tab) and the status line with
/// the background job.
void panel_top(const StatusLine& status, CloudJob& job, float ui_scale, PanelLayout& panel) {
  if (ImGui::SmallButton("Hide panel (Tab)")) panel.toggle(SDL_GetTicks());
  status_and_job(status, job, ui_scale);
}

void help_section() {
  if (!ImGui::CollapsingHeader("Help")) return;
  ImGui::TextUnformatted(
      "W/A/S/D      move forward/left/back/right\n"
      "             (ortho: W/S zoom)\n"
      "Q/C, E/Space down, up\n"
      "Shift        move faster\n"
      "right mouse  hold and drag to look around\n"
      "wheel        move speed (ortho: zoom)\n"
      "5            perspective/orthographic\n"
      "7, 1, 3      top, front, right view\n"
      "Ctrl+7/1/3   bottom, back, left view\n"
      "0            iso view\n"
      "F            frame the cloud\n"
      "Tab          hide or show this panel\n"
      "R            reset the camera\n"
      "G            toggle CPU/GPU renderer\n"
      "F12 or P     save the image as pointraster-<time>.png\n"
      "PgUp/PgDn    step the section forward/back (Clip)\n"
      "Esc          quit\n"
      "Drop files on the window to open them.");
}

}  // namespace

void Viewer::Impl::points_section() {
  if (!ImGui::CollapsingHeader("Points", ImGuiTreeNodeFlags_DefaultOpen)) return;
  switch (point_count(cloud, stream, times.last_stats.points_drawn)) {
    case PointsAction::kTarget:
      cloud.set_point_target(cloud.point_target, backend->gpu_active(), rs, status);
      break;
    case PointsAction::kReadMore:
      load_more(false);
      break;
    case PointsAction::kReadEverything:
      load_more(true);
      break;
    case PointsAction::kNone:
      break;
  }
  point_look(win.settings, *backend, rs);
}

void Viewer::Impl::draw_panel() {
  const float s = win.ui_scale;
  const ImVec2 window = ImGui::GetIO().DisplaySize;
  marks.begin_frame();
  if (panel.drawn_width(window.x, s) <= 0.0f) return;  // hidden (Tab), or no room for it
  panel.before_begin(window.x, window.y, s);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus;
  if (ImGui::Begin("pointraster", nullptr, flags)) {
    panel.after_begin(window.x, s);
    marks.mark_panel();
    panel_top(status, cloud.job, s, panel);
    draw_panel_sections(panel_sections(), s);
  }
  ImGui::End();
}

std::vector<PanelSection> Viewer::Impl::panel_sections() {
  // Each section in its group (panel_groups.h); the groups' order is the panel's, the list's
  // order that of the sections within a group.
  const float s = win.ui_scale;
  const Bounds* bounds = cloud.drawable() ? &cloud.bounds : nullptr;
  std::vector<PanelSection> v;
  v.push_back({PanelGroup::kStreaming, [this] { stream.draw_section(); }});
  v.push_back({PanelGroup::kView,
               [this, bounds] { view.draw_section(bounds, cloud.scene.empty(), win.aspect()); }});
  v.push_back({PanelGroup::kView, [this] { view.draw_focus_section(); }});
  v.push_back({PanelGroup::kView, [this] { points_section(); }});
  v.push_back({PanelGroup::kView, [this, s] {
                 if (path.draw_section(view.camera, cloud.drawable(), s, marks, status)) {
                   path.playing = false;
                   path.render.start(path.path, view.camera, rs, status);
                 }
               }});
  v.push_back({PanelGroup::kTools,
               [this] { picks.draw_section(pick_frame(), cloud.file_colors(), marks); }});
  v.push_back({PanelGroup::kTools, [this] {
                 const bool was = measures.active;
                 measures.draw_section(pick_frame(), marks, status);
                 if (!was && measures.active) profile.choose(false);  // one tool takes the picks
               }});
  v.push_back({PanelGroup::kTools, [this] {
                 const bool was = profile.active;
                 profile.draw_section(pick_frame(), marks, status);
                 if (!was && profile.active) measures.choose(false, measures.tool);
               }});
  v.push_back({PanelGroup::kTools, [this, bounds] {
                 if (clips.draw_section(bounds, view.camera, picks.points, picks.count, marks))
                   polygon.draw_rows(pick_frame(), marks, status);
               }});
  v.push_back({PanelGroup::kTools, [this] {
                 std::optional<glm::dvec3> last;
                 if (picks.count > 0) last = picks.points[picks.count - 1].world;
                 const int fly = annotations.draw_section(last, view.camera, marks, status);
                 if (fly >= 0) fly_to_annotation(size_t(fly));
               }});
  v.push_back({PanelGroup::kColour, [this, s] { colors.draw_section(cloud.points.get(), s); }});
  v.push_back({PanelGroup::kData, [this, s] {
                 const std::vector<std::string> open =
                     open_box.draw_section(win.settings, s, marks, status);
                 if (!open.empty()) start_open(open);
               }});
  v.push_back({PanelGroup::kData, [this, s] {
                 const ExportSelection sel{&clips.clip, polygon.selection()};
                 save.draw_section(cloud, stream, sel, open_box.dir, s, status);
               }});
  v.push_back({PanelGroup::kData, [this] {
                 switch (views.draw_section(open_box.dir, opt.scene_file, marks)) {
                   case ViewFileState::Action::kSave:
                     save_view(views.path);
                     break;
                   case ViewFileState::Action::kOpen:
                     open_view(views.path);
                     break;
                   case ViewFileState::Action::kNone:
                     break;
                 }
               }});
  v.push_back({PanelGroup::kData, [this, s] {
                 if (image_save.draw_section(cloud.drawable(), win.aspect(), s)) start_image_save();
               }});
  v.push_back({PanelGroup::kData, [this] { cloud.draw_section(*backend); }});
  v.push_back({PanelGroup::kPerformance,
               [this] { renderer_section(*backend, win, occlusion_note, panel_frames); }});
  v.push_back({PanelGroup::kPerformance, [this] { times.draw_section(*backend); }});
  v.push_back({PanelGroup::kHelp, [] { help_section(); }});
  return v;
}

}  // namespace pr
