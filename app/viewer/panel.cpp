// The ImGui panel: the status line and the background job, then one function per section:
// renderer, camera, focus, points, color (color_panel.cpp), timings, cloud, open, save
// (save_panel.cpp), help; the pick section (pick_panel.cpp) is appended to the same window.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "progress_bar.h"
#include "viewer/viewer_impl.h"

namespace pr {

namespace {

constexpr double kPi = 3.14159265358979323846;

void plot(const char* label, const History& h, const char* unit) {
  const auto v = h.values();
  char over[64];
  std::snprintf(over, sizeof over, "avg %.2f %s, max %.2f", double(h.average()), unit,
                double(h.max()));
  ImGui::PlotLines(label, v.data(), int(v.size()), 0, over, 0.0f, std::max(h.max() * 1.1f, 1.0f),
                   ImVec2(0, 50));
}

void tooltip(const char* text) {
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text);
}

/// The status line (errors in red) and the background job's progress bar with its Cancel.
void status_and_job(Viewer::Impl& m) {
  if (!m.status.text.empty()) {
    // Wrapped, errors too: a reader's warning names the file and what it read past.
    if (m.status.error) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
    ImGui::TextWrapped("%s", m.status.text.c_str());
    if (m.status.error) ImGui::PopStyleColor();
  }
  CloudJob& job = m.cloud.job;
  if (!job.busy()) return;
  char ov[128];
  std::snprintf(ov, sizeof ov, "%s %.0f%%", job.label().c_str(), job.progress() * 100.0);
  ImGui::ProgressBar(float(job.progress()), ImVec2(-80 * m.win.ui_scale, 0), ov);
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

void renderer_section(Viewer::Impl& m) {
  if (!ImGui::CollapsingHeader("Renderer", ImGuiTreeNodeFlags_DefaultOpen)) return;
  RenderBackend& be = *m.backend;
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
  if (m.panel_frames++ % 30 == 0) m.occlusion_note = be.batch_note();
  if (!m.occlusion_note.empty()) ImGui::TextUnformatted(m.occlusion_note.c_str());
  if (!gpu) ImGui::Text("CPU threads: %u", be.cpu().threads());
  ImGui::TextWrapped("display: %s", be.display_path().c_str());
  if (ImGui::Checkbox("vsync", &m.win.vsync)) SDL_GL_SetSwapInterval(m.win.vsync ? 1 : 0);
  ImGui::SameLine();
  ImGui::Text("image %dx%d", m.win.display->width(), m.win.display->height());
}

void camera_section(Viewer::Impl& m) {
  if (!ImGui::CollapsingHeader("Camera", ImGuiTreeNodeFlags_DefaultOpen)) return;
  Camera& camera = m.view.camera;
  int up = camera.up_axis == UpAxis::kZ ? 1 : 0;
  ImGui::Text("up axis");
  ImGui::SameLine();
  if (ImGui::RadioButton("Y (scenes)", up == 0)) m.set_up_axis(UpAxis::kY);
  ImGui::SameLine();
  if (ImGui::RadioButton("Z (LAS, scans)", up == 1)) m.set_up_axis(UpAxis::kZ);
  ImGui::InputScalarN("position", ImGuiDataType_Double, &camera.position.x, 3, nullptr, nullptr,
                      "%.2f");
  double yaw_deg = camera.yaw * 180.0 / kPi, pitch_deg = camera.pitch * 180.0 / kPi;
  if (ImGui::DragScalar("yaw", ImGuiDataType_Double, &yaw_deg, 0.5f, nullptr, nullptr, "%.1f deg"))
    camera.turn(yaw_deg * kPi / 180.0 - camera.yaw, 0.0);
  if (ImGui::DragScalar("pitch", ImGuiDataType_Double, &pitch_deg, 0.5f, nullptr, nullptr,
                        "%.1f deg"))
    camera.turn(0.0, pitch_deg * kPi / 180.0 - camera.pitch);
  const double smin = 1e-3, smax = 1e6;
  ImGui::SliderScalar("speed", ImGuiDataType_Double, &m.view.fly.speed, &smin, &smax, "%.3g /s",
                      ImGuiSliderFlags_Logarithmic);
  if (ImGui::Button("Reset (R)")) camera = m.view.home;
  ImGui::SameLine();
  if (ImGui::Button("Frame the cloud (F)")) m.frame_cloud();
}

void focus_section(Camera& camera) {
  if (!ImGui::CollapsingHeader("Focus", ImGuiTreeNodeFlags_DefaultOpen)) return;
  const double fmin = 0.2, fmax = 50.0;
  ImGui::SliderScalar("focus", ImGuiDataType_Double, &camera.focus, &fmin, &fmax, "%.3f",
                      ImGuiSliderFlags_Logarithmic);
  double vfov = camera.vfov() * 180.0 / kPi;
  const double vmin = 2.0, vmax = 157.0;
  if (ImGui::SliderScalar("vertical fov", ImGuiDataType_Double, &vfov, &vmin, &vmax, "%.1f deg"))
    camera.focus = Camera::focus_for_vfov(vfov * kPi / 180.0);
}

/// The point-count slider and what it drew; for files read in part (a COPC file to some depth,
/// a point budget) more on request, the view kept, the cloud on screen staying until the new one
/// is ready.
void point_count(Viewer::Impl& m) {
  CloudState& c = m.cloud;
  if (m.stream.scene) {  // the Streaming section's budget and target error decide
    ImGui::Text("drawn %s (streamed)", human_points(double(m.stream.stats.points_drawn)).c_str());
    return;
  }
  const bool is_scene = c.is_scene();
  const uint64_t total = c.points ? c.points->size() : 0;
  const uint64_t pmin = std::min<uint64_t>(1000, std::max<uint64_t>(total, 1));
  const uint64_t pmax = is_scene ? uint64_t{200'000'000} : std::max<uint64_t>(total, 1);
  ImGui::BeginDisabled(!c.points);
  ImGui::SliderScalar("points", ImGuiDataType_U64, &c.point_target, &pmin, &pmax, "%llu",
                      ImGuiSliderFlags_Logarithmic);
  // A scene regenerates when the slider is let go (not per drag step), in the background; a
  // loaded cloud draws an even, deterministic subset (RenderSettings::point_count) at once.
  if (is_scene ? ImGui::IsItemDeactivatedAfterEdit() : ImGui::IsItemEdited())
    c.set_point_target(c.point_target, m.rs, m.status);
  ImGui::EndDisabled();
  ImGui::Text("drawn %s of %s (%s)", human_points(double(m.times.last_stats.points_drawn)).c_str(),
              human_points(double(total)).c_str(), is_scene ? "scene regenerates" : "subset");
  std::string part;
  LoadOptions next;
  if (!c.points || is_scene || !read_more_options(c.files, c.files_options, false, &next, &part))
    return;
  ImGui::TextWrapped("%s", part.c_str());
  ImGui::BeginDisabled(c.job.busy());
  if (ImGui::Button("Read more")) m.load_more(false);
  tooltip("COPC: one octree level deeper; other files: twice the points.");
  ImGui::SameLine();
  if (ImGui::Button("Read everything")) m.load_more(true);
  ImGui::EndDisabled();
}

/// Point size, batch culling, background, eye-dome lighting and high-quality splats.
void point_look(Viewer::Impl& m) {
  ImGui::SliderInt("point size", &m.win.settings.point_size, 1, 8, "%d px");
  bool on = m.backend->options().culling;
  if (ImGui::Checkbox("skip batches outside the view", &on)) m.backend->set_culling(on);
  tooltip(
      "Batch culling: each run of 4096 stored points has a bounding box, and a frame skips\n"
      "the runs whose box cannot reach the image. Same image; much faster inside a cloud.\n"
      "The GPU culls clouds of 2^20 points and more.");
  ImGui::ColorEdit3("background", m.win.settings.background);
  ImGui::Checkbox("eye-dome lighting", &m.rs.edl);
  tooltip(
      "Shades each point by how far it lies behind its neighbours on screen (log depth),\n"
      "as Potree and CloudCompare do: edges and relief show without colors. Both renderers\n"
      "draw the same image.");
  ImGui::BeginDisabled(!m.rs.edl);
  ImGui::SliderFloat("EDL strength", &m.rs.edl_strength, 0.0f, 5.0f, "%.2f");
  ImGui::SliderFloat("EDL radius", &m.rs.edl_radius, 1.0f, 4.0f, "%.1f px");
  ImGui::EndDisabled();
  ImGui::Checkbox("high-quality splats", &m.rs.hq);
  tooltip(
      "Each pixel shows the average color of its points within 1% of the nearest one's\n"
      "depth, not the nearest point's alone: dense clouds stop shimmering while the camera\n"
      "moves. A second pass over the points drawn; the same image on both renderers.");
}

/// The budget, the target error and the cache of a streamed survey.
void stream_settings(StreamState& st) {
  StreamOptions& o = st.options;
  const uint64_t bmin = 100'000, bmax = 4'000'000'000;
  ImGui::SliderScalar("point budget", ImGuiDataType_U64, &o.point_budget, &bmin, &bmax, "%llu",
                      ImGuiSliderFlags_Logarithmic);
  if (ImGui::IsItemDeactivatedAfterEdit()) st.options_changed = true;
  tooltip(
      "Points the view selects at most: the nodes nearest the camera first. What is drawn\n"
      "is the pool, room for this many points and a little more (16 bytes each on the GPU):\n"
      "nodes of earlier views stay in it until their room is needed.");
  float sse = float(o.sse_px);
  if (ImGui::SliderFloat("target error", &sse, 0.0f, 20.0f, "%.1f px")) {
    o.sse_px = sse;
    st.options_changed = true;
  }
  tooltip(
      "A node is refined while its points lie further apart on screen than this;\n"
      "0 refines every node in view (within the budget).");
  uint64_t mib = o.cache_bytes >> 20;
  const uint64_t cmin = 64, cmax = uint64_t{1} << 20;
  ImGui::SliderScalar("cache", ImGuiDataType_U64, &mib, &cmin, &cmax, "%llu MiB",
                      ImGuiSliderFlags_Logarithmic);
  if (ImGui::IsItemDeactivatedAfterEdit()) {
    o.cache_bytes = mib << 20;
    st.options_changed = true;
  }
  tooltip("Host memory for decoded nodes: turning back to a place seen costs no reading.");
}

/// What streaming is doing: nodes, points, reading rate, cache fill, progress.
void draw_stream_figures(const StreamState& st) {
  const StreamStats& s = st.stats;
  const StreamFigures f = stream_figures(s, st.options);
  for (const std::string& line : f.counts) ImGui::TextWrapped("%s", line.c_str());
  const double fill =
      st.options.cache_bytes ? double(s.cache_bytes) / double(st.options.cache_bytes) : 0.0;
  const std::string cache = "cache " + human_size(double(s.cache_bytes)) + " of " +
                            human_size(double(st.options.cache_bytes));
  ImGui::ProgressBar(float(std::min(fill, 1.0)), ImVec2(-1, 0), cache.c_str());
  if (s.converged)
    ImGui::TextDisabled("%s", f.progress.c_str());
  else
    ImGui::TextUnformatted(f.progress.c_str());
  if (s.nodes_failed)
    ImGui::TextColored(ImVec4(1.0f, 0.6f, 0.3f, 1.0f), "%llu nodes skipped (unreadable)",
                       (unsigned long long)s.nodes_failed);
}

void streaming_section(Viewer::Impl& m) {
  StreamState& st = m.stream;
  if (!st.scene && !st.opening()) return;  // only for streamed surveys
  if (!ImGui::CollapsingHeader("Streaming", ImGuiTreeNodeFlags_DefaultOpen)) return;
  if (!st.scene) {
    ImGui::TextDisabled("opening %s ...", st.label().c_str());
    return;
  }
  stream_settings(st);
  draw_stream_figures(st);
}

void points_section(Viewer::Impl& m) {
  if (!ImGui::CollapsingHeader("Points", ImGuiTreeNodeFlags_DefaultOpen)) return;
  point_count(m);
  point_look(m);
}

void timings_section(Viewer::Impl& m) {
  if (!ImGui::CollapsingHeader("Timings", ImGuiTreeNodeFlags_DefaultOpen)) return;
  const FrameTimes& t = m.times;
  const FrameStats& st = t.last_stats;
  ImGui::Text("frame %.2f ms (%.1f FPS)", t.frame_avg_ms,
              t.frame_avg_ms > 0 ? 1000.0 / t.frame_avg_ms : 0.0);
  ImGui::Text("render %.2f  upload %.2f  UI %.2f ms", t.render_ms, t.upload_ms, t.ui_ms);
  if (st.stages)
    ImGui::Text("  clear %.2f raster %.2f resolve %.2f copy %.2f", st.clear_ms, st.raster_ms,
                st.resolve_ms, st.copy_ms);
  else
    ImGui::Text("  gpu frame %.3f  copy %.2f", st.raster_ms, st.copy_ms);
  if (m.backend->gpu_active()) {
    bool split = m.backend->stage_timing();
    if (ImGui::Checkbox("time the GPU stages apart", &split)) m.backend->set_stage_timing(split);
    tooltip(
        "Clear, raster and resolve timed apart with CUDA events between them.\n"
        "The events cost about 4 microseconds a frame, which matters for small clouds.");
  }
  ImGui::Text("renderer: %s points/s", human_points(st.points_per_second()).c_str());
  plot("frame", t.hist_frame, "ms");
  plot("render", t.hist_render, "ms");
  if (ImGui::TreeNode("upload and UI")) {
    plot("upload", t.hist_upload, "ms");
    plot("UI", t.hist_ui, "ms");
    ImGui::TreePop();
  }
}

void cloud_section(Viewer::Impl& m) {
  if (!ImGui::CollapsingHeader("Cloud")) return;
  const PointCloud* cloud = m.cloud.points.get();
  if (!cloud) {
    ImGui::TextDisabled("no cloud yet");
    return;
  }
  ImGui::Text("name: %s", cloud->name.c_str());
  for (const auto& f : m.cloud.files)
    ImGui::BulletText("%s: %s %s, %s points", f.file.c_str(), f.format.c_str(), f.version.c_str(),
                      human_points(double(f.points)).c_str());
  ImGui::Text("points: %zu%s", cloud->size(), cloud->has_intensity() ? " (+intensity)" : "");
  const Bounds& b = m.cloud.bounds;
  ImGui::Text("min %.3f %.3f %.3f", b.min.x, b.min.y, b.min.z);
  ImGui::Text("max %.3f %.3f %.3f", b.max.x, b.max.y, b.max.z);
  ImGui::Text("origin %.3f %.3f %.3f", cloud->origin.x, cloud->origin.y, cloud->origin.z);
  ImGui::Text("host: cloud %s, CPU renderer %s", human_size(double(cloud->memory_bytes())).c_str(),
              human_size(double(m.backend->cpu().memory_bytes())).c_str());
  const size_t dev = m.backend->device_bytes();
  ImGui::Text("device: %s",
              dev ? human_size(double(dev)).c_str() : "none (GPU renderer not in use)");
}

/// The folder listed: ".." goes up, a folder opens, a file's path goes into the path box; a
/// folder with COPC files opens as one survey of them, as the command line streams a folder.
void folder_listing(Viewer::Impl& m) {
  OpenBox& box = m.open_box;
  ImGui::TextWrapped("%s", box.dir.c_str());
  if (ImGui::Selectable("..")) {
    box.go_up();
    m.refresh_listing();
  }
  ImGui::BeginChild("listing", ImVec2(0, 140 * m.win.ui_scale), true);
  std::string go_dir;
  for (const auto& [name, dir] : box.listing) {
    const std::string label = dir ? name + "/" : name;
    const bool picked = ImGui::Selectable(label.c_str());
    if (m.marks.on) m.marks.mark(("open.entry:" + label).c_str());
    if (picked) {
      const std::string full = (std::filesystem::path(box.dir) / name).string();
      if (dir)
        go_dir = full;
      else
        std::snprintf(box.path, sizeof box.path, "%s", full.c_str());
    }
  }
  ImGui::EndChild();
  if (box.copc_files > 0) {
    const std::string survey = "Open the folder as one survey (" + std::to_string(box.copc_files) +
                               " COPC file" + (box.copc_files > 1 ? "s)" : ")");
    const bool open_all = ImGui::Button(survey.c_str());
    m.marks.mark("open.survey");
    tooltip(
        "Streams the folder's *.copc.laz files as one survey (pointraster FOLDER does the\n"
        "same): only what the view needs is read.");
    if (open_all) m.start_open({box.dir});
  }
  if (!go_dir.empty()) {
    box.dir = go_dir;
    m.win.settings.open_dir = go_dir;
    m.refresh_listing();
  }
}

void open_section(Viewer::Impl& m) {
  const bool shown = ImGui::CollapsingHeader("Open");
  m.marks.mark("open.header");
  if (!shown) return;
  OpenBox& box = m.open_box;
  // Enter in the field opens as the button does. The button's own ID ("##path"): the section's
  // header is "Open" too, and ImGui tells items apart by the ID their label hashes to.
  const bool entered =
      ImGui::InputText("path", box.path, sizeof box.path, ImGuiInputTextFlags_EnterReturnsTrue);
  m.marks.mark("open.path");
  ImGui::SameLine();
  const bool clicked = ImGui::Button("Open##path");
  m.marks.mark("open.button");
  if ((clicked || entered) && box.path[0]) {
    std::error_code ec;
    if (std::filesystem::is_directory(box.path, ec)) {
      box.dir = box.path;
      m.refresh_listing();
    } else {
      m.start_open({box.path});
    }
  }
  ImGui::TextDisabled("or drop files on the window");
  ImGui::InputScalar("point budget", ImGuiDataType_U64, &box.budget);
  tooltip(
      "Points a file opened here keeps (0: all): a COPC file its top octree levels that fit,\n"
      "any other an even subset of its records. Read more / Read everything fetch the rest.");
  const auto& recent = m.win.settings.recent;
  const bool recent_shown = !recent.empty() && ImGui::TreeNode("Recent files");
  if (!recent.empty()) m.marks.mark("open.recent");
  if (recent_shown) {
    for (size_t i = 0; i < recent.size(); ++i) {
      const bool picked = ImGui::Selectable(recent[i].c_str());
      m.marks.mark(("open.recent." + std::to_string(i)).c_str());
      if (picked) {
        m.start_open({recent[i]});
        break;
      }
    }
    ImGui::TreePop();
  }
  if (ImGui::TreeNodeEx("Folder", ImGuiTreeNodeFlags_DefaultOpen)) {
    folder_listing(m);
    ImGui::TreePop();
  }
}

void help_section() {
  if (!ImGui::CollapsingHeader("Help")) return;
  ImGui::TextUnformatted(
      "W/A/S/D      move forward/left/back/right\n"
      "Q/C, E/Space down, up\n"
      "Shift        move faster\n"
      "right mouse  hold and drag to look around\n"
      "wheel        move speed\n"
      "F            frame the cloud\n"
      "R            reset the camera\n"
      "G            toggle CPU/GPU renderer\n"
      "F12 or P     save the image as pointraster-<time>.png\n"
      "Esc          quit\n"
      "Drop files on the window to open them.");
}

}  // namespace

void Viewer::Impl::refresh_listing() {
  std::string err;
  if (!open_box.refresh(&err)) set_status(err, true);
}

void Viewer::Impl::draw_panel() {
  const float s = win.ui_scale;
  ImGui::SetNextWindowPos(ImVec2(10 * s, 10 * s), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(
      ImVec2(370 * s, std::max(200.0f, std::min(640 * s, ImGui::GetIO().DisplaySize.y - 20 * s))),
      ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowBgAlpha(0.92f);
  marks.begin_frame();
  if (ImGui::Begin("pointraster")) {
    marks.mark_panel();
    status_and_job(*this);
    streaming_section(*this);  // a streamed survey's budget and progress come first
    renderer_section(*this);
    camera_section(*this);
    focus_section(view.camera);
    points_section(*this);
    colors.draw_section(cloud.points.get(), s);
    timings_section(*this);
    cloud_section(*this);
    open_section(*this);
    save.draw_section(cloud, streaming(), open_box.dir, s, status);
    help_section();
  }
  ImGui::End();
}

}  // namespace pr
