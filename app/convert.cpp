#include "convert.h"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <exception>
#include <new>
#include <thread>

#include "cancel_signals.h"
#include "engine/frame_stats.h"
#include "engine/scenes.h"
#include "progress_bar.h"
#include "startup.h"

namespace pr {

namespace {

std::string vec_text(const glm::dvec3& v) {
  char s[96];
  std::snprintf(s, sizeof s, "%.9g %.9g %.9g", v.x, v.y, v.z);
  return s;
}

/// A procedural scene (y up, x right, z forward) as survey files hold points: x east, y north,
/// z up; (x, y, z) -> (x, z, y) shows the same image from the same view, not mirrored.
void scene_to_z_up(PointCloud& cloud) {
  for (Float3& p : cloud.positions) std::swap(p.y, p.z);
  std::swap(cloud.origin.y, cloud.origin.z);
}

/// The conversion on a thread of its own, SIGINT and SIGTERM blocked there (the threads it starts
/// inherit that), so that the signals reach the main thread and no reader or writer of the
/// conversion sees an interrupted system call.
struct Worker {
  bool ok = false;
  std::string error;
  std::atomic<bool> finished{false};
  std::thread thread;

  void start(const Options& o, ConvertProgress* progress, ConvertResult* result) {
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    thread = std::thread([this, &o, progress, result] {
      ok = convert_from_options(o, progress, result, &error);
      finished = true;
    });
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
  }
};

}  // namespace

bool convert_from_options(const Options& o, ConvertProgress* progress, ConvertResult* result,
                          std::string* error) {
  ConvertOptions co;
  co.temp_dir = o.temp_dir;
  co.memory_bytes = o.memory;
  co.threads = o.threads;
  // The clip and the polygon: the records they keep, and the COPC nodes they hide passed by.
  if (o.clip.active() || o.clip_polygon) {
    const ClipPolygon* polygon = o.clip_polygon ? &*o.clip_polygon : nullptr;
    co.keep = export_keep(o.clip, polygon);
    co.keep_box = export_keep_box(o.clip, polygon);
  }
  try {
    if (o.files.empty()) {  // --scene: the procedural scene, written z up
      PointCloud cloud = make_scene(o.scene, o.points.value_or(kDefaultScenePoints));
      scene_to_z_up(cloud);
      return save_point_cloud(cloud, o.convert, co, progress, result, error);
    }
    return convert_point_clouds(o.files, o.convert, co, progress, result, error);
  } catch (const std::bad_alloc&) {
    *error = o.convert + ": out of memory while converting";
  } catch (const std::exception& e) {
    *error = o.convert + ": " + e.what();
  }
  return false;
}

std::string convert_report(const std::string& output, const ConvertResult& r, double seconds) {
  std::string s = "pointraster: wrote " + output + "\n";
  char b[256];
  const std::string format = convert_format(output);
  std::snprintf(b, sizeof b, "  format      %s, LAS point format %d", format.c_str(),
                r.point_format);
  s += b;
  if (r.extra_bytes) s += " + " + std::to_string(r.extra_bytes) + " extra bytes a point";
  std::snprintf(b, sizeof b, "\n  points      %llu\n", (unsigned long long)r.points);
  s += b;
  s += "  scale       " + vec_text(r.scale) +
       (r.scale_from_input ? "  (kept from the input)\n" : "  (chosen from the bounds)\n");
  s += "  offset      " + vec_text(r.offset) + "\n";
  if (format == "COPC") {
    std::snprintf(b, sizeof b, "  octree      %d level%s, %u node%s\n", r.levels,
                  r.levels == 1 ? "" : "s", r.nodes, r.nodes == 1 ? "" : "s");
    s += b;
  }
  s += "  size        " + human_size(double(r.bytes));
  if (r.points) {
    std::snprintf(b, sizeof b, " (%.1f bytes a point)", double(r.bytes) / double(r.points));
    s += b;
  }
  const double rate = seconds > 0.0 ? double(r.points) / seconds : 0.0;
  std::snprintf(b, sizeof b, "\n  time        %.2f s, %s points/s\n", seconds,
                human_points(rate).c_str());
  s += b;
  for (const std::string& m : r.messages) s += "  note        " + m + "\n";
  return s;
}

std::string stage_report(const std::vector<std::pair<int, double>>& stages, double seconds) {
  std::string s = "  stages     ";
  char b[96];
  for (size_t i = 0; i < stages.size(); ++i) {
    const double end = i + 1 < stages.size() ? stages[i + 1].second : seconds;
    std::snprintf(b, sizeof b, "%s %s %.2f s", i ? "," : "", convert_stage_name(stages[i].first),
                  end - stages[i].second);
    s += b;
  }
  return s + "\n";
}

int run_convert(const Options& o) {
  ConvertProgress progress;
  ConvertResult result;
  CancelOnSignals on_signals(&progress.cancel);
  Stopwatch clock;
  Worker worker;
  // --timings: each stage the polling sees and when it began (to the poll's 2 ms). Every
  // conversion begins by scanning its inputs, at once: a scan shorter than the wait for the first
  // poll (a loaded machine) is not missed.
  std::vector<std::pair<int, double>> stages;
  if (o.timings) stages.emplace_back(ConvertProgress::kScan, 0.0);
  worker.start(o, &progress, &result);
  const bool terminal = isatty(STDERR_FILENO) == 1;
  ProgressBar bar(stderr, terminal);
  bool noted = false;  // a terminal has been told that the conversion is stopping
  while (!worker.finished.load()) {
    if (o.timings) {
      const int stage = progress.stage.load();
      if (stages.empty() || stages.back().first != stage)
        stages.emplace_back(stage, clock.ms() * 1e-3);
    }
    if (CancelOnSignals::signal() != 0 && terminal && !noted) {
      // Stopping takes a moment (the threads finish what they hold, the files are removed).
      bar.finish();
      std::fputs("pointraster: cancelling (Ctrl-C again ends it at once, files left behind)\n",
                 stderr);
      noted = true;
    }
    if (!noted) bar.update(progress, clock.ms() * 1e-3);
    std::this_thread::sleep_for(std::chrono::milliseconds(o.timings ? 2 : 20));
  }
  worker.thread.join();
  const double seconds = clock.ms() * 1e-3;
  bar.finish();
  const int sig = CancelOnSignals::signal();
  if (!worker.ok && sig != 0) {
    std::fprintf(stderr, "pointraster: cancelled (%s): %s not written\n", signal_word(sig),
                 o.convert.c_str());
    return 128 + sig;
  }
  if (!worker.ok) {
    std::fprintf(stderr, "pointraster: %s\n", worker.error.c_str());
    return 1;
  }
  std::fputs(convert_report(o.convert, result, seconds).c_str(), stdout);
  if (o.timings) std::fputs(stage_report(stages, seconds).c_str(), stdout);
  return 0;
}

}  // namespace pr
