// Flying through a streamed survey: frame times while the camera moves and nodes stream in, at
// several point budgets, side by side in one run, and the time to converge after a jump.
//   stream_fly_bench [--mode gpu|cpu] [--budgets 1e7,1e8,3e8] [--sse PX] [--width W]
//                    [--height H] [--frames N] [--fps F] [--cache MB] [--per-update N]
//                    [--threads N] INPUT...
// INPUT: COPC files or URLs, folders, .vpc surveys (engine/io/stream.h). For each budget: the
// survey framed from above until it converges (the time printed), then N frames flying low over
// it from one corner to the other (each frame: StreamingScene::update(), the pool's changed
// ranges to the renderer, render()), then a jump back to the first corner and the frames until
// the view converges again. --fps paces the flight's frames at a display's rate (the time left
// over is the streaming workers'). --per-update: StreamOptions::pool_points_per_update (the CPU
// renderer's kCpuPoolPointsPerUpdate by default with --mode cpu); --threads: its workers. A frame's
// time is the whole of it (selection, copying nodes into the pool, the upload of the changed
// ranges, the render and the image's read-back); render_ms is the renderer's own frame (the GPU's
// device frame by CUDA events).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "engine/frame_stats.h"
#include "engine/io/stream.h"
#include "startup.h"
#include "streaming.h"

namespace {

struct Args {
  std::string mode = "gpu";
  std::vector<double> budgets = {1e7, 1e8, 3e8};
  double sse = 1.0;
  int width = 1920, height = 1080, frames = 600;
  uint64_t cache = uint64_t{16} << 30;
  uint64_t per_update = 0;  // 0: StreamOptions' default
  unsigned threads = 0;     // 0: StreamOptions' default
  double fps = 0.0;         // frames paced at this rate (a display's refresh); 0: back to back
  std::vector<std::string> inputs;
};

bool parse(int argc, char** argv, Args& a) {
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (k == "--mode") {
      a.mode = next();
    } else if (k == "--budgets") {
      a.budgets.clear();
      for (const std::string& s : {next()}) {
        size_t p = 0;
        while (p < s.size()) {
          const size_t c = s.find(',', p);
          a.budgets.push_back(std::atof(s.substr(p, c - p).c_str()));
          p = c == std::string::npos ? s.size() : c + 1;
        }
      }
    } else if (k == "--sse") {
      a.sse = std::atof(next().c_str());
    } else if (k == "--width") {
      a.width = std::atoi(next().c_str());
    } else if (k == "--height") {
      a.height = std::atoi(next().c_str());
    } else if (k == "--frames") {
      a.frames = std::atoi(next().c_str());
    } else if (k == "--fps") {
      a.fps = std::atof(next().c_str());
    } else if (k == "--per-update") {
      a.per_update = uint64_t(std::atof(next().c_str()));
    } else if (k == "--threads") {
      a.threads = unsigned(std::atoi(next().c_str()));
    } else if (k == "--cache") {
      a.cache = uint64_t(std::atof(next().c_str()) * 1048576.0);
    } else if (k.rfind("--", 0) == 0) {
      return false;
    } else {
      a.inputs.push_back(k);
    }
  }
  return !a.inputs.empty() && !a.budgets.empty();
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(q * double(v.size() - 1) + 0.5))];
}

/// One streamed frame: update, upload, render. Its wall time (ms); false on a failure.
struct Flight {
  pr::StreamingScene& scene;
  pr::Renderer& renderer;
  pr::RenderSettings rs;
  pr::Image image;
  double render_ms = 0.0;
  /// The last frame's parts (wall ms): StreamingScene::update(), the ranges to the renderer
  /// (or the whole pool after a reallocation), render() with the read-back; points handed over.
  double update_ms = 0.0, upload_ms = 0.0, draw_ms = 0.0;
  /// The image's read-back into `image` within render() (FrameStats::copy_ms: on the GPU the
  /// device-to-host copy and the copy out of pinned memory); render_ms is the frame itself.
  double read_back_ms = 0.0;
  uint64_t uploaded = 0;
  bool reallocated = false;

  bool frame(const pr::Camera& cam, double* ms) {
    pr::Stopwatch sw;
    std::string why;
    const std::vector<pr::PoolRange> ranges = scene.update(pr::lod_view(cam, rs.width, rs.height));
    update_ms = sw.ms();
    bool ok = true;
    uploaded = 0;
    reallocated = scene.pool_reallocated();
    if (reallocated)
      ok = renderer.set_cloud(scene.pool(), &why);
    else
      for (const pr::PoolRange& r : ranges) {
        if (ok && r.count) ok = renderer.update_points(scene.pool(), r.first, r.count, &why);
        uploaded += r.count;
      }
    upload_ms = sw.ms() - update_ms;
    pr::FrameStats st;
    if (ok) ok = renderer.render(cam, rs, image, st, &why);
    draw_ms = sw.ms() - update_ms - upload_ms;
    if (!ok) std::fprintf(stderr, "stream_fly_bench: %s\n", why.c_str());
    render_ms = st.stages ? st.clear_ms + st.raster_ms + st.resolve_ms : st.raster_ms;
    if (renderer.name() == "cpu") render_ms = st.total_ms;
    read_back_ms = st.copy_ms;
    *ms = sw.ms();
    return ok;
  }
};

/// The camera at fraction t of the flight: low over the survey, from its min corner towards its
/// max corner, looking ahead and down.
pr::Camera flight_camera(const pr::Bounds& b, double t) {
  const glm::dvec3 size = b.size();
  const double span = std::max(size.x, size.y);
  pr::Camera cam;
  cam.up_axis = pr::UpAxis::kZ;
  cam.focus = 1.5;
  const glm::dvec3 from = b.min + glm::dvec3(0.05 * size.x, 0.05 * size.y, 0.0);
  const glm::dvec3 to = b.min + glm::dvec3(0.95 * size.x, 0.95 * size.y, 0.0);
  cam.position = from + (to - from) * t;
  cam.position.z = b.max.z + 0.02 * span;
  const glm::dvec3 dir = glm::normalize(to - from);
  cam.look_at(cam.position + glm::dvec3(dir.x, dir.y, -0.35) * (0.05 * span));
  return cam;
}

/// A frame's time and its parts (Flight's; the update's own parts from StreamStats).
struct Parts {
  double ms, update, upload, draw;
  uint64_t uploaded;
  bool reallocated;
  double results, select, copy;
  double render, read_back;
};

Parts parts_of(const Flight& f, double ms) {
  const pr::StreamStats st = f.scene.stats();
  return {ms,         f.update_ms,   f.upload_ms,   f.draw_ms,
          f.uploaded, f.reallocated, st.results_ms, st.select_ms,
          st.copy_ms, f.render_ms,   f.read_back_ms};
}

/// Frames until the view converges; the time, the longest frame meanwhile and every frame's
/// parts.
bool converge(Flight& f, const pr::Camera& cam, double* total_ms, double* longest_ms,
              std::vector<Parts>* parts = nullptr) {
  pr::Stopwatch sw;
  *longest_ms = 0.0;
  for (int i = 0; i < 100000; ++i) {
    double ms = 0.0;
    if (!f.frame(cam, &ms)) return false;
    *longest_ms = std::max(*longest_ms, ms);
    if (parts) parts->push_back(parts_of(f, ms));
    if (f.scene.stats().converged) break;
  }
  *total_ms = sw.ms();
  return true;
}

/// Where the `count` longest frames go.
void print_longest(std::vector<Parts> parts, const char* what, size_t count = 5) {
  std::sort(parts.begin(), parts.end(), [](const Parts& x, const Parts& y) { return x.ms > y.ms; });
  for (size_t i = 0; i < std::min(parts.size(), count); ++i)
    std::printf(
        "  %s frame %.2f ms: update %.2f (results %.2f, select %.2f, copy %.2f), upload %.2f "
        "(%llu points%s), render+read-back %.2f (render %.2f, read-back %.2f)\n",
        what, parts[i].ms, parts[i].update, parts[i].results, parts[i].select, parts[i].copy,
        parts[i].upload, (unsigned long long)parts[i].uploaded,
        parts[i].reallocated ? ", whole pool" : "", parts[i].draw, parts[i].render,
        parts[i].read_back);
}

int run_budget(const Args& a, double budget) {
  pr::Options o;
  o.mode = a.mode;
  std::string why;
  auto renderer = pr::make_renderer(a.mode, o, &why);
  if (!renderer) {
    std::fprintf(stderr, "stream_fly_bench: %s\n", why.c_str());
    return 1;
  }
  pr::RenderOptions ro = renderer->options();
  ro.sort = pr::Toggle::kOff;
  ro.compact = false;
  renderer->set_options(ro);
  pr::StreamOptions so;
  so.point_budget = uint64_t(budget);
  so.sse_px = a.sse;
  so.cache_bytes = a.cache;
  if (a.per_update)
    so.pool_points_per_update = a.per_update;
  else if (a.mode == "cpu")  // as the program streams for the CPU renderer (app/streaming.cpp)
    so.pool_points_per_update = pr::kCpuPoolPointsPerUpdate;
  so.threads = a.threads;
  pr::StreamingScene scene(so);
  if (!scene.open(a.inputs, &why)) {
    std::fprintf(stderr, "stream_fly_bench: %s\n", why.c_str());
    return 1;
  }
  if (!renderer->set_cloud(scene.pool(), &why)) {
    std::fprintf(stderr, "stream_fly_bench: %s\n", why.c_str());
    return 1;
  }
  scene.pool_reallocated();
  Flight f{scene, *renderer, {}, {}};
  f.rs.width = a.width;
  f.rs.height = a.height;
  const pr::Bounds b = scene.info().bounds;
  double first_ms = 0.0, first_longest = 0.0;
  const pr::Camera overview = pr::stream_camera(o, b, double(a.width) / a.height);
  if (!converge(f, overview, &first_ms, &first_longest)) return 1;
  std::vector<double> frame_ms, render_ms;
  std::vector<Parts> parts;
  uint64_t points = 0;
  const uint64_t read_before = scene.stats().bytes_read;
  pr::Stopwatch flight;
  for (int i = 0; i < a.frames; ++i) {
    double ms = 0.0;
    // Paced: each frame starts at its slot, as a window's frames do at the display's rate.
    if (a.fps > 0.0)
      while (flight.ms() < i * 1000.0 / a.fps)
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    if (!f.frame(flight_camera(b, double(i) / a.frames), &ms)) return 1;
    frame_ms.push_back(ms);
    render_ms.push_back(f.render_ms);
    parts.push_back(parts_of(f, ms));
    points = std::max(points, scene.stats().points_drawn);
  }
  const double flight_s = flight.ms() * 1e-3;
  const uint64_t read = scene.stats().bytes_read - read_before;
  double jump_ms = 0.0, jump_longest = 0.0;
  std::vector<Parts> jump;
  if (!converge(f, flight_camera(b, 0.0), &jump_ms, &jump_longest, &jump)) return 1;
  const double median = percentile(frame_ms, 0.5);
  const double longest = *std::max_element(frame_ms.begin(), frame_ms.end());
  std::printf(
      "%-6s budget %.0e, %.0e a frame, %.0f fps: overview converged %.0f ms | flight %d frames: "
      "median %.2f ms, p99 %.2f, "
      "longest %.2f (%.2fx median), render median %.3f ms, points up to %llu, read %.0f MB/s | "
      "jump converged %.0f ms, longest frame %.2f ms\n",
      renderer->name().c_str(), budget, double(so.pool_points_per_update), a.fps, first_ms,
      a.frames, median, percentile(frame_ms, 0.99), longest, longest / median,
      percentile(render_ms, 0.5), (unsigned long long)points, double(read) / flight_s * 1e-6,
      jump_ms, jump_longest);
  print_longest(parts, "flight");
  print_longest(jump, "jump", 3);
  for (const std::string& m : scene.take_messages()) std::fprintf(stderr, "  %s\n", m.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!parse(argc, argv, a)) {
    std::fprintf(stderr,
                 "usage: stream_fly_bench [--mode gpu|cpu] [--budgets 1e7,1e8,3e8] [--sse PX] "
                 "[--width W] [--height H] [--frames N] [--fps F] [--cache MB] [--per-update N] "
                 "[--threads N] "
                 "INPUT...\n");
    return 2;
  }
  int rc = 0;
  for (double budget : a.budgets) rc |= run_budget(a, budget);
  return rc;
}
