// The cloud on screen and loading the next one: files opened (the command line's, the Open box's,
// dropped ones), read more of, or a scene regenerated, in the background; the new cloud handed to
// the renderers, the colors and the camera when it is ready.
#include "viewer/cloud_state.h"

#include <algorithm>
#include <cstdio>

#include "startup.h"
#include "streaming.h"
#include "viewer/viewer_impl.h"

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

void Viewer::Impl::install_cloud(CloudJob::Result& r) {
  // More of the same files keeps the view, as a regenerated scene does; so does the whole cloud
  // after its preview (CloudJob::take_preview), which leaves the cloud "first" until it arrives.
  const bool more = (cloud.loading_more || r.after_preview) && !r.files.empty();
  if (!r.preview) cloud.loading_more = false;
  if (!r.ok) {
    if (cloud.first) cloud.initial_load_failed = true;
    if (r.after_preview) cloud.first = false;  // its preview stays on screen
    set_status(r.error, r.error != "loading cancelled");
    return;
  }
  const bool same_view = (!r.scene.empty() && r.scene == cloud.scene && cloud.points) || more;
  if (!take_cloud(r)) return;
  if (!cloud.scene.empty()) {
    cloud.scene_points = cloud.points->size();
    cloud.point_target = cloud.scene_points;
    rs.point_count = ~uint64_t{0};
  } else {
    const uint64_t n = cloud.points->size();
    cloud.point_target = opt.points && cloud.first ? std::min<uint64_t>(*opt.points, n) : n;
    rs.point_count = cloud.point_target;
  }
  if (!r.after_preview) place_camera(same_view);
  if ((cloud.first || cloud.scene.empty()) && !more)
    for (const auto& f : cloud.files) win.settings.add_recent(f.file);
  if (!r.preview) cloud.first = false;
}

bool Viewer::Impl::take_cloud(CloudJob::Result& r) {
  std::string err, note;  // note: what the GPU's upload adds to the status line
  bool refused = false;
  const bool was_streaming = stream.scene != nullptr;
  if (was_streaming) backend->set_streaming(false);  // the new cloud is drawn in the options
  if (!backend->set_cloud(*r.cloud, &err, &note, &refused)) {
    if (was_streaming) backend->set_streaming(true);
    set_status(err, true);
    return false;
  }
  stream.scene.reset();  // the streamed survey's workers stop; its pool goes with cloud.points
  take_cloud_colors(r);
  cloud.points = std::move(r.cloud);
  cloud.bounds = cloud.points->world_bounds();
  if (!r.files.empty()) cloud.files_options = cloud.loading_options;
  cloud.files = std::move(r.files);
  cloud.scene = r.scene;
  char msg[256];
  std::snprintf(msg, sizeof msg, "%s: %zu points %s in %.2f s%s", cloud.points->name.c_str(),
                cloud.points->size(),
                r.preview ? "(an even subset, shown while the whole file loads) read" : "ready",
                r.seconds, r.sorted ? " (reordered along a Morton curve)" : "");
  // A file read with a warning (a LAS file cut short, say) says so beside "ready".
  const std::string warned = cloud.warnings();
  set_status(msg + note + (warned.empty() ? "" : "; warning: " + warned),
             refused || !warned.empty());
  return true;
}

void Viewer::Impl::place_camera(bool same_view) {
  const double aspect = win.aspect();
  if (cloud.first) {
    view.camera = starting_camera(opt, *cloud.points, cloud.scene, aspect);
  } else if (!same_view) {  // a regenerated scene keeps the view: only the density changed
    const UpAxis up = cloud.scene.empty() ? view.files_up : up_axis_for(opt, false);
    view.camera = cloud_camera(*cloud.points, cloud.scene, up, aspect, view.camera.focus);
  }
  if (!same_view) {
    view.fly.speed = FlyCamera::speed_for(cloud.bounds);
    view.home = view.camera;
  }
}

void Viewer::Impl::start_files(const std::vector<std::string>& paths, const LoadOptions& options,
                               bool more) {
  if (paths.empty()) return;
  std::string why;
  if (streams(paths, opt.stream, &why)) {
    start_stream(paths);
    return;
  }
  if (!why.empty()) {
    set_status(why, true);
    return;
  }
  if (cloud.job.busy()) {
    set_status("still making " + cloud.job.label() + "; cancel it first", true);
    return;
  }
  cloud.job.start_files(paths, options, !more);  // more of the files on screen: no preview
  cloud.loading_options = options;
  cloud.loading_more = more;
  set_status((more ? "reading more of " : "loading ") + cloud.job.label() + " ...", false);
}

void Viewer::Impl::start_open(const std::vector<std::string>& paths) {
  // The Open box's point budget (the command line's --max-points to begin with) and --max-depth
  // hold for every file opened (--scan names the scans of the command line's own files).
  LoadOptions o;
  o.max_points = open_box.budget;
  o.max_depth = opt.max_depth;
  start_files(paths, o, false);
}

bool Viewer::Impl::load_more(bool everything) {
  LoadOptions next;
  if (stream.scene) {
    set_status("a streamed survey reads what the view needs: raise the point budget or lower "
               "the target error (Streaming)",
               false);
    return false;
  }
  if (!cloud.scene.empty() || cloud.files.empty()) {
    set_status("no file on screen to read more of", true);
    return false;
  }
  if (!read_more_options(cloud.files, cloud.files_options, everything, &next, nullptr)) {
    set_status("every point of the files on screen is read", false);
    return false;
  }
  start_files(cloud.file_paths(), next, true);
  return cloud.job.busy();
}

void Viewer::Impl::apply_point_target(uint64_t n) {
  cloud.point_target = n;
  if (!cloud.points) return;
  if (cloud.scene.empty()) {
    cloud.point_target = std::min<uint64_t>(n, cloud.points->size());
    rs.point_count = cloud.point_target;
  } else if (n != cloud.scene_points) {
    if (cloud.job.busy())
      set_status("still making " + cloud.job.label() + "; try again when it is done", true);
    else
      cloud.job.start_scene(cloud.scene, n);
  }
}

bool CloudState::file_colors() const {
  if (files.empty()) return true;
  for (const FileInfo& f : files)
    if (f.has_color) return true;
  return false;
}

}  // namespace pr
