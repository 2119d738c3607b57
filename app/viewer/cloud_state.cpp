// The cloud on screen and loading the next one: files opened (the command line's, the Open box's,
// dropped ones), read more of, or a scene regenerated, in the background; the panel's point count
// and Cloud section. The viewer hands a new cloud to the renderers, the colors and the camera
// (viewer.cpp).
#include "viewer/cloud_state.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "progress_bar.h"

namespace pr {

std::vector<std::string> CloudState::file_paths() const {
  std::vector<std::string> paths;
  for (const FileInfo& f : files) paths.push_back(f.file);
  return paths;
}

std::string CloudState::warnings() const {
  std::string all;
  for (const FileInfo& f : files)
    for (const std::string& w : f.warnings) all += (all.empty() ? "" : "; ") + w;
  return all;
}

bool CloudState::file_colors() const {
  if (files.empty()) return !scene.empty() || given_colors;
  for (const FileInfo& f : files)
    if (f.has_color) return true;
  return false;
}

bool CloudState::start_files(const std::vector<std::string>& paths, const LoadOptions& options,
                             bool more, StatusLine& status) {
  if (job.busy()) {
    status.set("still making " + job.label() + "; cancel it first", true);
    return false;
  }
  job.start_files(paths, options, !more);  // more of the files on screen: no preview
  loading_options = options;
  loading_more = more;
  status.set((more ? "reading more of " : "loading ") + job.label() + " ...", false);
  return true;
}

bool CloudState::start_cloud(std::unique_ptr<PointCloud> cloud, bool keep_view,
                             StatusLine& status) {
  if (job.busy()) {
    status.set("still making " + job.label() + "; cancel it first", true);
    return false;
  }
  job.start_cloud(std::move(cloud), keep_view);
  loading_more = false;
  status.set("preparing " + job.label() + " ...", false);
  return true;
}

bool CloudState::more_options(bool everything, LoadOptions* next, StatusLine& status) const {
  if (!scene.empty() || files.empty()) {
    status.set("no file on screen to read more of", true);
    return false;
  }
  if (!read_more_options(files, files_options, everything, next, nullptr)) {
    status.set("every point of the files on screen is read", false);
    return false;
  }
  return true;
}

void CloudState::set_point_target(uint64_t n, bool gpu, RenderSettings& rs, StatusLine& status) {
  point_target = n;
  if (!points) return;
  if (scene.empty()) {
    point_target = std::min<uint64_t>(n, points->size());
    rs.point_count = point_target;
  } else if (n != scene_points) {
    if (job.busy())
      status.set("still making " + job.label() + "; try again when it is done", true);
    else
      job.start_scene(scene, n, gpu);
  }
}

void CloudState::show(CloudJob::Result& r) {
  points = std::move(r.cloud);
  bounds = points->world_bounds();
  if (!r.files.empty()) files_options = loading_options;
  files = std::move(r.files);
  scene = r.scene;
  device_points = r.device_points;
  given_colors = r.given_colors;
}

void CloudState::say_ready(const CloudJob::Result& r, const std::string& note, bool refused,
                           StatusLine& status) const {
  char msg[320];
  if (device_points)
    std::snprintf(msg, sizeof msg,
                  "%s: %llu points ready (the host holds an even subset of %zu, made in %.2f s, "
                  "for the CPU renderer, picks and tools)",
                  points->name.c_str(), (unsigned long long)device_points, points->size(),
                  r.seconds);
  else
    std::snprintf(msg, sizeof msg, "%s: %zu points %s in %.2f s%s", points->name.c_str(),
                  points->size(),
                  r.preview ? "(an even subset, shown while the whole file loads) read" : "ready",
                  r.seconds, r.sorted ? " (reordered along a Morton curve)" : "");
  // A file read with a warning (a LAS file cut short, say) says so beside "ready".
  const std::string warned = warnings();
  status.set(msg + note + (warned.empty() ? "" : "; warning: " + warned),
             refused || !warned.empty());
}

void CloudState::say_nothing_to_show(const CloudJob::Result& r, StatusLine& status) const {
  std::string warned;
  for (const FileInfo& f : r.files)
    for (const std::string& w : f.warnings) warned += (warned.empty() ? "" : "; ") + w;
  status.set(r.cloud->name + (r.files.size() == 1 ? " holds" : " hold") +
                 " no points: nothing to show" +
                 (drawable() ? " (the cloud on screen stays)" : "") +
                 (warned.empty() ? "" : "; warning: " + warned),
             !warned.empty());
}

void CloudState::reset_point_target(std::optional<uint64_t> asked, RenderSettings& rs) {
  if (!scene.empty()) {
    scene_points = point_total();
    point_target = scene_points;
    rs.point_count = ~uint64_t{0};
  } else {
    const uint64_t n = points->size();
    point_target = asked && first ? std::min<uint64_t>(*asked, n) : n;
    rs.point_count = point_target;
  }
}

void CloudState::show_survey(const std::shared_ptr<StreamingScene>& survey, RenderSettings& rs) {
  // The pool is the cloud on screen: the pick panel, the Cloud section and the colors see it.
  points = std::shared_ptr<PointCloud>(survey, &survey->pool());
  bounds = survey->info().bounds;
  files = {survey->info()};
  scene.clear();
  device_points = 0;
  given_colors = true;
  point_target = ~uint64_t{0};
  rs.point_count = ~uint64_t{0};
}

void CloudState::draw_section(const RenderBackend& backend) const {
  if (!ImGui::CollapsingHeader("Cloud")) return;
  const PointCloud* cloud = points.get();
  if (!cloud) {
    ImGui::TextDisabled("no cloud yet");
    return;
  }
  ImGui::Text("name: %s", cloud->name.c_str());
  for (const auto& f : files)
    ImGui::BulletText("%s: %s %s, %s points", f.file.c_str(), f.format.c_str(), f.version.c_str(),
                      human_points(double(f.points)).c_str());
  if (device_points)
    ImGui::TextWrapped("points: %llu, made on the GPU; the host holds an even subset of %zu",
                       (unsigned long long)device_points, cloud->size());
  else
    ImGui::Text("points: %zu%s", cloud->size(), cloud->has_intensity() ? " (+intensity)" : "");
  const Bounds& b = bounds;
  ImGui::Text("min %.3f %.3f %.3f", b.min.x, b.min.y, b.min.z);
  ImGui::Text("max %.3f %.3f %.3f", b.max.x, b.max.y, b.max.z);
  ImGui::Text("origin %.3f %.3f %.3f", cloud->origin.x, cloud->origin.y, cloud->origin.z);
  ImGui::Text("host: cloud %s, CPU renderer %s", human_size(double(cloud->memory_bytes())).c_str(),
              human_size(double(backend.cpu().memory_bytes())).c_str());
  const size_t dev = backend.device_bytes();
  ImGui::Text("device: %s",
              dev ? human_size(double(dev)).c_str() : "none (GPU renderer not in use)");
}

}  // namespace pr
