#include "viewer/cloud_job.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <new>

#include "engine/frame_stats.h"
#include "engine/scenes.h"

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

bool CloudJob::start_files(std::vector<std::string> paths, LoadOptions options) {
  if (busy() || paths.empty()) return false;
  done_ = false;
  progress_.fraction = 0.0;
  progress_.cancel = false;
  file_index_ = 0;
  file_count_ = int(paths.size());
  label_ = paths.size() == 1 ? std::filesystem::path(paths[0]).filename().string()
                             : std::to_string(paths.size()) + " files";
  result_ = Result{};
  thread_ = std::thread(
      [this, paths = std::move(paths), options = std::move(options), request = color_request_] {
        Stopwatch sw;
        Result r;
        try {
          auto merged = std::make_unique<PointCloud>();
          for (size_t i = 0; i < paths.size(); ++i) {
            file_index_ = int(i);
            progress_.fraction = 0.0;
            PointCloud c;
            FileInfo info;
            std::string err;
            if (!load_point_cloud(paths[i], c, &info, &err, &progress_, &options)) {
              r.error = err.empty() ? paths[i] + ": could not be read" : err;
              break;
            }
            if (info.file.empty()) info.file = paths[i];
            r.files.push_back(info);
            if (progress_.cancel) {
              r.error = "loading cancelled";
              break;
            }
            append_cloud(*merged, c);
          }
          if (r.error.empty()) {
            r.sorted = sort_if_incoherent(*merged);
            color_new_cloud(*merged, request, true, &r.color, &r.legend, &r.color_note);
            if (paths.size() > 1 || merged->name.empty())
              merged->name = paths.size() == 1 ? label_ : label_;
            r.cloud = std::move(merged);
            r.ok = true;
          }
        } catch (const std::bad_alloc&) {
          r.error = "out of memory while loading " + label_;
        } catch (const std::exception& e) {
          r.error = label_ + ": " + e.what();
        }
        r.seconds = sw.ms() * 1e-3;
        result_ = std::move(r);
        done_ = true;
      });
  return true;
}

bool CloudJob::start_scene(std::string name, uint64_t points) {
  if (busy()) return false;
  done_ = false;
  progress_.fraction = 0.0;
  progress_.cancel = false;
  file_index_ = 0;
  file_count_ = 1;
  label_ = name + " scene, " + std::to_string(points) + " points";
  result_ = Result{};
  thread_ = std::thread([this, name = std::move(name), points, request = color_request_] {
    Stopwatch sw;
    Result r;
    try {
      auto cloud = std::make_unique<PointCloud>(make_scene(name, points, 1, &progress_));
      if (progress_.cancel) {
        r.error = "loading cancelled";
      } else {
        r.sorted = sort_if_incoherent(*cloud);
        color_new_cloud(*cloud, request, false, &r.color, &r.legend, &r.color_note);
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

bool CloudJob::take(Result& out) {
  if (!thread_.joinable() || !done_.load()) return false;
  join();
  out = std::move(result_);
  result_ = Result{};
  return true;
}

}  // namespace pr
