#include "viewer/cloud_job.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <new>

#include "engine/frame_stats.h"
#include "engine/scenes.h"
#include "scene_home.h"

namespace pr {

bool read_more_options(const std::vector<FileInfo>& files, const LoadOptions& now, bool everything,
                       LoadOptions* next, std::string* what) {
  int deepest = -1, levels = 0;  // over the COPC files read in part
  bool cut = false;              // another file filled the point budget: it may hold more
  for (const FileInfo& f : files) {
    if (f.copc.present) {
      int read = -1;
      for (size_t l = 0; l < f.copc.levels.size(); ++l)
        if (f.copc.levels[l].read) read = int(l);
      if (read + 1 < int(f.copc.levels.size())) {
        deepest = std::max(deepest, read);
        levels = std::max(levels, int(f.copc.levels.size()));
      }
    } else if (now.max_points && f.points >= now.max_points) {
      cut = true;
    }
  }
  if (deepest < 0 && !cut) return false;
  if (what) {
    char b[160];
    if (deepest >= 0)
      std::snprintf(b, sizeof b, "COPC: %d of %d octree levels read", deepest + 1, levels);
    else
      std::snprintf(b, sizeof b, "an even subset of at most %llu points a file read",
                    (unsigned long long)now.max_points);
    *what = b;
  }
  *next = now;
  if (everything) {
    next->max_points = 0;
    next->max_depth = -1;
    return true;
  }
  if (deepest >= 0) next->max_depth = deepest + 1;
  // The budget doubles for the files it cut (a COPC file then stops where the depth or the
  // budget says, whichever comes first); without such files it no longer holds.
  next->max_points = cut ? now.max_points * 2 : 0;
  return true;
}

CloudJob::~CloudJob() {
  cancel();
  join();
}

void CloudJob::join() {
  if (thread_.joinable()) thread_.join();
}

double CloudJob::progress() const {
  const double f = progress_.fraction.load();
  return (double(file_index_.load()) + (f < 0 ? 0 : f > 1 ? 1 : f)) / double(file_count_);
}

namespace {

/// A LAS or LAZ file's point count from its header, and whether it is LAZ; 0 for anything else
/// (another format, a COPC file, unreadable). LAS 1.4 keeps a 64-bit count at byte 247; earlier
/// versions the 32-bit legacy count at byte 107. A COPC file's first VLR (at byte 375) is its
/// info VLR, user id "copc": it streams, or reads its top levels for a budget, never a preview.
uint64_t las_points(const std::string& path, bool* laz) {
  uint8_t h[375 + 8] = {};
  std::ifstream f(path, std::ios::binary);
  if (!f.read(reinterpret_cast<char*>(h), 227)) return 0;
  f.read(reinterpret_cast<char*>(h + 227), sizeof h - 227);
  const FileFormat format = detect_format(h, sizeof h, path);
  if (format != FileFormat::kLas && format != FileFormat::kLaz) return 0;
  *laz = format == FileFormat::kLaz;
  const uint16_t header_size = uint16_t(h[94] | h[95] << 8);
  if (h[24] == 1 && h[25] >= 4 && header_size >= 255) {
    if (std::memcmp(h + 377, "copc", 4) == 0) return 0;
    uint64_t n = 0;
    std::memcpy(&n, h + 247, sizeof n);
    return n;
  }
  uint32_t n = 0;
  std::memcpy(&n, h + 107, sizeof n);
  return n;
}

}  // namespace

std::vector<LoadOptions> preview_options(const std::vector<std::string>& paths,
                                         const LoadOptions& options) {
  std::vector<uint64_t> read(paths.size());
  std::vector<bool> laz(paths.size());
  uint64_t total = 0;
  for (size_t i = 0; i < paths.size(); ++i) {
    bool compressed = false;
    const uint64_t n = las_points(paths[i], &compressed);
    if (n == 0) return {};
    laz[i] = compressed;
    read[i] = options.max_points ? std::min(n, options.max_points) : n;
    total += read[i];
  }
  if (total <= CloudJob::kPreviewMinPoints) return {};
  std::vector<LoadOptions> preview(paths.size(), options);
  for (size_t i = 0; i < paths.size(); ++i) {
    // File i's share of the preview, by the points the whole load reads of it (at least one).
    const double share = double(read[i]) / double(total);
    preview[i].max_points =
        std::max<uint64_t>(1, uint64_t(double(CloudJob::kPreviewPoints) * share));
    // A stride through a LAZ file decodes every chunk: whole chunks spread through it instead.
    preview[i].whole_chunks = laz[i];
  }
  return preview;
}

void CloudJob::load_files(const std::vector<std::string>& paths,
                          const std::vector<LoadOptions>& options, const ColorRequest& request,
                          Result& r) {
  auto merged = std::make_unique<PointCloud>();
  for (size_t i = 0; i < paths.size(); ++i) {
    file_index_ = int(i);
    progress_.fraction = 0.0;
    PointCloud c;
    FileInfo info;
    std::string err;
    if (!load_point_cloud(paths[i], c, &info, &err, &progress_, &options[i])) {
      r.error = err.empty() ? paths[i] + ": could not be read" : err;
      return;
    }
    if (info.file.empty()) info.file = paths[i];
    r.files.push_back(info);
    if (progress_.cancel) {
      r.error = "loading cancelled";
      return;
    }
    append_cloud(*merged, c);
  }
  r.sorted = sort_if_incoherent(*merged);
  color_new_cloud(*merged, request, true, &r.color, &r.legend, &r.color_note);
  if (paths.size() > 1 || merged->name.empty()) merged->name = label_;
  r.cloud = std::move(merged);
  r.ok = true;
}

bool CloudJob::start_files(std::vector<std::string> paths, LoadOptions options, bool preview) {
  if (busy() || paths.empty()) return false;
  done_ = false;
  progress_.fraction = 0.0;
  progress_.cancel = false;
  file_index_ = 0;
  file_count_ = int(paths.size());
  label_ = paths.size() == 1 ? std::filesystem::path(paths[0]).filename().string()
                             : std::to_string(paths.size()) + " files";
  result_ = Result{};
  preview_ready_ = false;
  preview_taken_ = false;
  thread_ = std::thread([this, paths = std::move(paths), options = std::move(options),
                         request = color_request_, preview] {
    Stopwatch sw;
    Result r;
    try {
      const std::vector<LoadOptions> subset =
          preview ? preview_options(paths, options) : std::vector<LoadOptions>{};
      if (!subset.empty()) {
        Result p;
        load_files(paths, subset, request, p);
        if (!p.ok) {  // cancelled, or a file that cannot be read: the whole load says so
          r = std::move(p);
        } else {
          p.preview = true;
          p.seconds = sw.ms() * 1e-3;
          std::lock_guard<std::mutex> lock(preview_mutex_);
          preview_ = std::move(p);
          preview_ready_ = true;
        }
      }
      if (r.error.empty()) {
        if (!subset.empty() && !wait_while_held())
          r.error = "loading cancelled";
        else
          load_files(paths, std::vector<LoadOptions>(paths.size(), options), request, r);
      }
    } catch (const std::bad_alloc&) {
      r = Result{};
      r.error = "out of memory while loading " + label_;
    } catch (const std::exception& e) {
      r = Result{};
      r.error = label_ + ": " + e.what();
    }
    r.seconds = sw.ms() * 1e-3;
    result_ = std::move(r);
    done_ = true;
  });
  return true;
}

bool CloudJob::start_cloud(std::unique_ptr<PointCloud> cloud, bool keep_view) {
  if (busy() || !cloud) return false;
  done_ = false;
  progress_.fraction = 0.0;
  progress_.cancel = false;
  file_index_ = 0;
  file_count_ = 1;
  if (cloud->name.empty()) cloud->name = "points";
  label_ = cloud->name + ", " + std::to_string(cloud->size()) + " points";
  result_ = Result{};
  preview_ready_ = false;
  preview_taken_ = false;
  thread_ =
      std::thread([this, cloud = std::move(cloud), keep_view, request = color_request_]() mutable {
        Stopwatch sw;
        Result r;
        r.keep_view = keep_view;
        try {
          if (!cloud->colors.empty() && cloud->colors.size() != cloud->size()) {
            r.error = label_ + ": " + std::to_string(cloud->colors.size()) + " colors for " +
                      std::to_string(cloud->size()) + " points";
          } else {
            // No colors are white points, as a file without colors reads.
            r.given_colors = !cloud->colors.empty();
            if (cloud->colors.empty()) cloud->colors.assign(cloud->size(), rgba(255, 255, 255));
            r.sorted = sort_if_incoherent(*cloud);
            color_new_cloud(*cloud, request, true, &r.color, &r.legend, &r.color_note);
            r.cloud = std::move(cloud);
            r.ok = true;
          }
        } catch (const std::bad_alloc&) {
          r.error = "out of memory preparing " + label_;
        }
        r.seconds = sw.ms() * 1e-3;
        progress_.fraction = 1.0;
        result_ = std::move(r);
        done_ = true;
      });
  return true;
}

bool CloudJob::start_scene(std::string name, uint64_t points, bool gpu) {
  if (busy()) return false;
  done_ = false;
  progress_.fraction = 0.0;
  progress_.cancel = false;
  file_index_ = 0;
  file_count_ = 1;
  label_ = name + " scene, " + std::to_string(points) + " points";
  result_ = Result{};
  thread_ = std::thread([this, name = std::move(name), points, gpu, request = color_request_] {
    Stopwatch sw;
    Result r;
    try {
      std::string why;
      std::unique_ptr<PointCloud> cloud;
      switch (scene_home(name, points, gpu ? "gpu" : "cpu", host_memory_available(), &why)) {
        case SceneHome::kHost:
          cloud = std::make_unique<PointCloud>(make_scene(name, points, 1, &progress_));
          break;
        case SceneHome::kDevice:
          cloud = std::make_unique<PointCloud>(
              make_scene_subset(name, points, kDeviceSceneHostPoints, 1, &progress_));
          r.device_points = points;
          break;
        case SceneHome::kNone:
          break;
      }
      if (!cloud) {
        r.error = why;
      } else if (progress_.cancel) {
        r.error = "loading cancelled";
      } else {
        r.sorted = sort_if_incoherent(*cloud);
        // The GPU's scene is drawn in its own colors: its subset on the host is too.
        ColorRequest own = request;
        own.use_default = own.use_default || r.device_points != 0;
        color_new_cloud(*cloud, own, false, &r.color, &r.legend, &r.color_note);
        if (r.device_points && !request.use_default && request.settings.mode != ColorMode::kRgb)
          r.color_note = std::string("color mode ") + color_mode_name(request.settings.mode) +
                         ": a scene made on the GPU keeps its own colors";
        r.cloud = std::move(cloud);
        r.scene = name;
        r.ok = true;
      }
    } catch (const std::bad_alloc&) {
      r.error = "out of memory generating " + std::to_string(points) + " points of " + name;
    } catch (const std::exception& e) {
      r.error = "scene " + name + ": " + e.what();
    }
    r.seconds = sw.ms() * 1e-3;
    progress_.fraction = 1.0;
    result_ = std::move(r);
    done_ = true;
  });
  return true;
}

void CloudJob::cancel() {
  {
    std::lock_guard<std::mutex> lock(hold_mutex_);
    progress_.cancel = true;
  }
  hold_cv_.notify_all();
}

void CloudJob::hold(bool on) {
  {
    std::lock_guard<std::mutex> lock(hold_mutex_);
    held_ = on;
  }
  hold_cv_.notify_all();
}

bool CloudJob::wait_while_held() {
  std::unique_lock<std::mutex> lock(hold_mutex_);
  hold_cv_.wait(lock, [this] { return !held_ || progress_.cancel.load(); });
  return !progress_.cancel.load();
}

bool CloudJob::take(Result& out) {
  if (!thread_.joinable() || !done_.load()) return false;
  join();
  out = std::move(result_);
  out.after_preview = preview_taken_;
  result_ = Result{};
  preview_ready_ = false;
  preview_ = Result{};  // a preview the frames never took: the whole cloud replaces it
  preview_taken_ = false;
  return true;
}

bool CloudJob::take_preview(Result& out) {
  if (!preview_ready_.exchange(false)) return false;
  std::lock_guard<std::mutex> lock(preview_mutex_);
  out = std::move(preview_);
  preview_ = Result{};
  preview_taken_ = true;
  return true;
}

}  // namespace pr
