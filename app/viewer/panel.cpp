// The ImGui panel: renderer, camera, focus, points, appearance, timings, cloud, files, help.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "engine/scenes.h"
#include "startup.h"
#include "viewer/viewer_impl.h"

namespace pr {

namespace {

constexpr double kPi = 3.14159265358979323846;

std::string human_bytes(double b) {
  char s[32];
  if (b >= 1e9)
    std::snprintf(s, sizeof s, "%.2f GB", b / 1e9);
  else if (b >= 1e6)
    std::snprintf(s, sizeof s, "%.1f MB", b / 1e6);
  else
    std::snprintf(s, sizeof s, "%.0f kB", b / 1e3);
  return s;
}

std::string human_count(double n) {
  char s[32];
  if (n >= 1e9)
    std::snprintf(s, sizeof s, "%.2f G", n / 1e9);
  else if (n >= 1e6)
    std::snprintf(s, sizeof s, "%.2f M", n / 1e6);
  else if (n >= 1e3)
    std::snprintf(s, sizeof s, "%.1f k", n / 1e3);
  else
    std::snprintf(s, sizeof s, "%.0f", n);
  return s;
}

bool is_cloud_file(const std::filesystem::path& p) {
  std::string e = p.extension().string();
  std::transform(e.begin(), e.end(), e.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return e == ".ply" || e == ".las" || e == ".laz" || e == ".pcd" || e == ".pts" || e == ".xyz" ||
         e == ".txt" || e == ".csv" || e == ".e57";
}

void plot(const char* label, const History& h, const char* unit) {
  const auto v = h.values();
  char over[64];
  std::snprintf(over, sizeof over, "avg %.2f %s, max %.2f", double(h.average()), unit,
                double(h.max()));
  ImGui::PlotLines(label, v.data(), int(v.size()), 0, over, 0.0f, std::max(h.max() * 1.1f, 1.0f),
                   ImVec2(0, 50));
}

}  // namespace

void Viewer::Impl::refresh_listing() {
  listing.clear();
  std::error_code ec;
  for (const auto& de : std::filesystem::directory_iterator(listing_dir, ec)) {
    const auto name = de.path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code e2;
    const bool dir = de.is_directory(e2);
    if (dir || is_cloud_file(de.path())) listing.emplace_back(name, dir);
  }
  std::sort(listing.begin(), listing.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second : a.first < b.first;
  });
  if (ec) set_status("folder " + listing_dir + ": " + ec.message(), true);
}

void Viewer::Impl::apply_point_target(uint64_t n) {
  point_target = n;
  if (!cloud) return;
  if (scene.empty()) {
    point_target = std::min<uint64_t>(n, cloud->size());
    rs.point_count = point_target;
  } else if (n != scene_points) {
    if (job.busy())
      set_status("still making " + job.label() + "; try again when it is done", true);
    else
      job.start_scene(scene, n);
  }
}

void Viewer::Impl::draw_panel() {
  const float s = ui_scale;
  ImGui::SetNextWindowPos(ImVec2(10 * s, 10 * s), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(
      ImVec2(370 * s, std::max(200.0f, std::min(640 * s, ImGui::GetIO().DisplaySize.y - 20 * s))),
      ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowBgAlpha(0.92f);
  if (!ImGui::Begin("pointraster")) {
    ImGui::End();
    return;
  }
  // Status line and the background job.
  if (!status.empty()) {
    if (status_is_error)
      ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "%s", status.c_str());
    else
      ImGui::TextWrapped("%s", status.c_str());
  }
  if (job.busy()) {
    char ov[128];
    std::snprintf(ov, sizeof ov, "%s %.0f%%", job.label().c_str(), job.progress() * 100.0);
    ImGui::ProgressBar(float(job.progress()), ImVec2(-80 * s, 0), ov);
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) job.cancel();
  }

  if (ImGui::CollapsingHeader("Renderer", ImGuiTreeNodeFlags_DefaultOpen)) {
    RenderBackend& be = *backend;
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
    if (gpu) {
      ImGui::Text("device: %s", be.device_name().c_str());
      // The Morton order of the GPU's upload (auto: clouds in no spatial order): same image,
      // faster for clouds stored in no spatial order (2x at 1e9 random points); switching it
      // re-uploads the cloud.
      bool sorted = be.gpu_sorted();
      if (ImGui::Checkbox("spatial sort on upload", &sorted)) be.set_sort(sorted);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "Reorders the points on the GPU along a Morton curve once, so that unordered clouds\n"
            "draw as fast as spatially ordered ones. The image does not change.");
    }
    // Compact positions (off unless --compact, or taken when full precision does not fit on the
    // GPU): 7 bytes a point on the GPU instead of 15; switching re-encodes the cloud.
    bool compact = be.compact_active();
    if (ImGui::Checkbox("compact positions (7 bytes a point)", &compact)) be.set_compact(compact);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "Stores each position in 4 bytes instead of 12, quantized to 1/1023 of its batch's\n"
          "box (4096 points): twice the points fit on the GPU, and a billion points draw about\n"
          "20%% faster. Points move by up to half a step; the CPU and the GPU draw the same "
          "image.");
    // Occlusion culling (auto by default, both renderers): the same image; dense clouds seen
    // whole draw several times faster.
    int mode = int(be.options().occlusion);
    const char* kOcclusion[] = {"off", "auto", "on"};
    if (ImGui::Combo("occlusion culling", &mode, kOcclusion, 3)) be.set_occlusion(Toggle(mode));
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "Skips the batches of 4096 points that would land behind what the image already\n"
          "holds (a depth pyramid of the last frame, checked again in each frame). The image\n"
          "does not change. auto: clouds of 17 M points and more (CPU: 34 M), while it hides\n"
          "enough.");
    // The last frame's batches, refreshed now and then (on the GPU a copy of a flag a batch).
    if (panel_frames++ % 30 == 0) occlusion_note = be.batch_note();
    if (!occlusion_note.empty()) ImGui::TextUnformatted(occlusion_note.c_str());
    if (!gpu) ImGui::Text("CPU threads: %u", be.cpu().threads());
    ImGui::TextWrapped("display: %s", be.display_path().c_str());
    if (ImGui::Checkbox("vsync", &vsync)) SDL_GL_SetSwapInterval(vsync ? 1 : 0);
    ImGui::SameLine();
    ImGui::Text("image %dx%d", display->width(), display->height());
  }

  if (ImGui::CollapsingHeader("Camera", ImGuiTreeNodeFlags_DefaultOpen)) {
    int up = camera.up_axis == UpAxis::kZ ? 1 : 0;
    ImGui::Text("up axis");
    ImGui::SameLine();
    if (ImGui::RadioButton("Y (scenes)", up == 0)) set_up_axis(UpAxis::kY);
    ImGui::SameLine();
    if (ImGui::RadioButton("Z (LAS, scans)", up == 1)) set_up_axis(UpAxis::kZ);
    ImGui::InputScalarN("position", ImGuiDataType_Double, &camera.position.x, 3, nullptr, nullptr,
                        "%.2f");
    double yaw_deg = camera.yaw * 180.0 / kPi, pitch_deg = camera.pitch * 180.0 / kPi;
    if (ImGui::DragScalar("yaw", ImGuiDataType_Double, &yaw_deg, 0.5f, nullptr, nullptr,
                          "%.1f deg"))
      camera.turn(yaw_deg * kPi / 180.0 - camera.yaw, 0.0);
    if (ImGui::DragScalar("pitch", ImGuiDataType_Double, &pitch_deg, 0.5f, nullptr, nullptr,
                          "%.1f deg"))
      camera.turn(0.0, pitch_deg * kPi / 180.0 - camera.pitch);
    const double smin = 1e-3, smax = 1e6;
    ImGui::SliderScalar("speed", ImGuiDataType_Double, &fly.speed, &smin, &smax, "%.3g /s",
                        ImGuiSliderFlags_Logarithmic);
    if (ImGui::Button("Reset (R)")) camera = home_camera;
    ImGui::SameLine();
    if (ImGui::Button("Frame the cloud (F)")) frame_cloud();
  }

  if (ImGui::CollapsingHeader("Focus", ImGuiTreeNodeFlags_DefaultOpen)) {
    const double fmin = 0.2, fmax = 50.0;
    ImGui::SliderScalar("focus", ImGuiDataType_Double, &camera.focus, &fmin, &fmax, "%.3f",
                        ImGuiSliderFlags_Logarithmic);
    double vfov = camera.vfov() * 180.0 / kPi;
    const double vmin = 2.0, vmax = 157.0;
    if (ImGui::SliderScalar("vertical fov", ImGuiDataType_Double, &vfov, &vmin, &vmax, "%.1f deg"))
      camera.focus = Camera::focus_for_vfov(vfov * kPi / 180.0);
  }

  if (ImGui::CollapsingHeader("Points", ImGuiTreeNodeFlags_DefaultOpen)) {
    const bool is_scene = cloud && !scene.empty();
    const uint64_t total = cloud ? cloud->size() : 0;
    const uint64_t pmin = std::min<uint64_t>(1000, std::max<uint64_t>(total, 1));
    const uint64_t pmax = is_scene ? uint64_t{200'000'000} : std::max<uint64_t>(total, 1);
    ImGui::BeginDisabled(!cloud);
    ImGui::SliderScalar("points", ImGuiDataType_U64, &point_target, &pmin, &pmax, "%llu",
                        ImGuiSliderFlags_Logarithmic);
    // A scene regenerates when the slider is let go (not per drag step), in the background; a
    // loaded cloud draws an even, deterministic subset (RenderSettings::point_count) at once.
    if (is_scene ? ImGui::IsItemDeactivatedAfterEdit() : ImGui::IsItemEdited())
      apply_point_target(point_target);
    ImGui::EndDisabled();
    ImGui::Text("drawn %s of %s (%s)", human_count(double(last_stats.points_drawn)).c_str(),
                human_count(double(total)).c_str(), is_scene ? "scene regenerates" : "subset");
    // Files read in part (a COPC file to some depth, a point budget): more on request, the view
    // kept; the cloud on screen stays until the new one is ready.
    std::string part;
    LoadOptions next;
    if (cloud && !is_scene && read_more_options(files, files_options, false, &next, &part)) {
      ImGui::TextWrapped("%s", part.c_str());
      ImGui::BeginDisabled(job.busy());
      if (ImGui::Button("Read more")) load_more(false);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("COPC: one octree level deeper; other files: twice the points.");
      ImGui::SameLine();
      if (ImGui::Button("Read everything")) load_more(true);
      ImGui::EndDisabled();
    }
    ImGui::SliderInt("point size", &settings.point_size, 1, 8, "%d px");
    bool on = backend->options().culling;
    if (ImGui::Checkbox("skip batches outside the view", &on)) backend->set_culling(on);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "Batch culling: each run of 4096 stored points has a bounding box, and a frame skips\n"
          "the runs whose box cannot reach the image. Same image; much faster inside a cloud.\n"
          "The GPU culls clouds of 2^20 points and more.");
    ImGui::ColorEdit3("background", settings.background);
    ImGui::Checkbox("eye-dome lighting", &rs.edl);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "Shades each point by how far it lies behind its neighbours on screen (log depth),\n"
          "as Potree and CloudCompare do: edges and relief show without colors. Both renderers\n"
          "draw the same image.");
    ImGui::BeginDisabled(!rs.edl);
    ImGui::SliderFloat("EDL strength", &rs.edl_strength, 0.0f, 5.0f, "%.2f");
    ImGui::SliderFloat("EDL radius", &rs.edl_radius, 1.0f, 4.0f, "%.1f px");
    ImGui::EndDisabled();
    ImGui::Checkbox("high-quality splats", &rs.hq);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "Each pixel shows the average color of its points within 1%% of the nearest one's\n"
          "depth, not the nearest point's alone: dense clouds stop shimmering while the camera\n"
          "moves. A second pass over the points drawn; the same image on both renderers.");
  }

  draw_color_section();
  if (ImGui::CollapsingHeader("Timings", ImGuiTreeNodeFlags_DefaultOpen)) {
    ImGui::Text("frame %.2f ms (%.1f FPS)", frame_avg_ms,
                frame_avg_ms > 0 ? 1000.0 / frame_avg_ms : 0.0);
    ImGui::Text("render %.2f  upload %.2f  UI %.2f ms", render_ms, upload_ms, ui_ms);
    if (last_stats.stages)
      ImGui::Text("  clear %.2f raster %.2f resolve %.2f copy %.2f", last_stats.clear_ms,
                  last_stats.raster_ms, last_stats.resolve_ms, last_stats.copy_ms);
    else
      ImGui::Text("  gpu frame %.3f  copy %.2f", last_stats.raster_ms, last_stats.copy_ms);
    if (backend->gpu_active()) {
      bool split = backend->stage_timing();
      if (ImGui::Checkbox("time the GPU stages apart", &split)) backend->set_stage_timing(split);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "Clear, raster and resolve timed apart with CUDA events between them.\n"
            "The events cost about 4 microseconds a frame, which matters for small clouds.");
    }
    ImGui::Text("renderer: %s points/s", human_count(last_stats.points_per_second()).c_str());
    plot("frame", hist_frame, "ms");
    plot("render", hist_render, "ms");
    if (ImGui::TreeNode("upload and UI")) {
      plot("upload", hist_upload, "ms");
      plot("UI", hist_ui, "ms");
      ImGui::TreePop();
    }
  }

  if (ImGui::CollapsingHeader("Cloud")) {
    if (!cloud) {
      ImGui::TextDisabled("no cloud yet");
    } else {
      ImGui::Text("name: %s", cloud->name.c_str());
      for (const auto& f : files)
        ImGui::BulletText("%s: %s %s, %s points", f.file.c_str(), f.format.c_str(),
                          f.version.c_str(), human_count(double(f.points)).c_str());
      ImGui::Text("points: %zu%s", cloud->size(), cloud->has_intensity() ? " (+intensity)" : "");
      const Bounds& b = cloud_bounds;
      ImGui::Text("min %.3f %.3f %.3f", b.min.x, b.min.y, b.min.z);
      ImGui::Text("max %.3f %.3f %.3f", b.max.x, b.max.y, b.max.z);
      ImGui::Text("origin %.3f %.3f %.3f", cloud->origin.x, cloud->origin.y, cloud->origin.z);
      ImGui::Text("host: cloud %s, CPU renderer %s",
                  human_bytes(double(cloud->memory_bytes())).c_str(),
                  human_bytes(double(backend->cpu().memory_bytes())).c_str());
      const size_t dev = backend->device_bytes();
      ImGui::Text("device: %s",
                  dev ? human_bytes(double(dev)).c_str() : "none (GPU renderer not in use)");
    }
  }

  if (ImGui::CollapsingHeader("Open")) {
    ImGui::InputText("path", path_buf, sizeof path_buf);
    ImGui::SameLine();
    if (ImGui::Button("Open") && path_buf[0]) {
      std::error_code ec;
      if (std::filesystem::is_directory(path_buf, ec)) {
        listing_dir = path_buf;
        refresh_listing();
      } else {
        start_open({path_buf});
      }
    }
    ImGui::TextDisabled("or drop files on the window");
    ImGui::InputScalar("point budget", ImGuiDataType_U64, &open_budget);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "Points a file opened here keeps (0: all): a COPC file its top octree levels that fit,\n"
          "any other an even subset of its records. Read more / Read everything fetch the rest.");
    if (!settings.recent.empty() && ImGui::TreeNode("Recent files")) {
      for (const auto& r : settings.recent)
        if (ImGui::Selectable(r.c_str())) {
          start_open({r});
          break;
        }
      ImGui::TreePop();
    }
    if (ImGui::TreeNodeEx("Folder", ImGuiTreeNodeFlags_DefaultOpen)) {
      ImGui::TextWrapped("%s", listing_dir.c_str());
      if (ImGui::Selectable("..")) {
        listing_dir = std::filesystem::path(listing_dir).parent_path().string();
        // assign(): GCC 12 warns falsely (-Wrestrict) about assigning the literal here.
        if (listing_dir.empty()) listing_dir.assign(1, '/');
        refresh_listing();
      }
      ImGui::BeginChild("listing", ImVec2(0, 140 * s), true);
      std::string go_dir;
      for (const auto& [name, dir] : listing) {
        const std::string label = dir ? name + "/" : name;
        if (ImGui::Selectable(label.c_str())) {
          const std::string full = (std::filesystem::path(listing_dir) / name).string();
          if (dir)
            go_dir = full;
          else
            std::snprintf(path_buf, sizeof path_buf, "%s", full.c_str());
        }
      }
      ImGui::EndChild();
      if (!go_dir.empty()) {
        listing_dir = go_dir;
        settings.open_dir = go_dir;
        refresh_listing();
      }
      ImGui::TreePop();
    }
  }

  if (ImGui::CollapsingHeader("Help")) {
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
  ImGui::End();
}

}  // namespace pr
