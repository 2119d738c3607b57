// pointraster_bench: the renderers side by side. For each point count and order of the
// random cube scene (the generator's random order, or sorted along a Morton curve) and each
// camera (overview: the whole cloud in view; inside: the cube scene's own camera at (0, 0, 10)
// inside the cube; orbit: the overview turned by kOrbitStep each frame, so the renderers' occlusion
// culling works from the last frame's Hi-Z), it times the CPU renderer, the CUDA renderer and the
// OpenGL GL_POINTS baseline on the same cloud and prints one row each: median and spread of frame
// times, points per second, bytes per point and the fraction of the measured device copy bandwidth.
//
// Before a cloud is timed, the GPU image is compared with the CPU image on a small frame (exact
// pixel equality, or the row says FAIL and the exit code is 1); the GL image is compared too and
// its matching fraction is reported (GL rasterizes with its own float rounding and tie rule).
//
// Timing: CPU = the render() call (host clock); GPU = clear + raster + resolve measured by the
// renderer with CUDA events (no host copy; --stage-timing times the resolve apart too); GL = a
// GL_TIME_ELAPSED query around clear + draw.
// Warm-up frames first, then up to --frames frames or --budget seconds (at least 3 frames).
//
// The program is a plan, a run and a report: the command line becomes a Plan (the counts and
// orders of the clouds, the views: sizes times cameras, the GPU modes; pointraster_bench_plan.h),
// Bench runs it cloud by cloud and row by row, and Report prints each row as it comes and keeps
// the JSON document (pointraster_bench_report.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/bench_util.h"
#include "engine/cpu_renderer.h"
#include "engine/frame_stats.h"
#include "engine/parallel.h"
#include "engine/scenes.h"
#include "gl_points/gl_points.h"
#include "pointraster_bench_plan.h"
#include "pointraster_bench_report.h"
#if defined(PR_BENCH_CUDA)
#include "common/cuda_copy.h"
#include "kernels/cuda_renderer.h"
#endif

namespace {

using namespace pr;
using namespace pr::bench;

/// The orbit camera's turn a frame (radians): a full turn in 628 frames, 4 s at 144 Hz.
constexpr double kOrbitStep = 0.01;

/// Warm-up, then frames until `frames` are timed or the budget is spent (at least 3).
template <class Frame>
bool time_frames(const Options& o, Frame frame, std::vector<double>& ms, std::vector<double>& extra,
                 std::string* error) {
  ms.clear();
  extra.clear();
  double t = 0, x = 0;
  Stopwatch warm;
  if (!frame(t, x, error)) return false;
  // A second warm-up frame unless frames are slow (then the first one did the warming).
  if (warm.ms() < 200.0 && !frame(t, x, error)) return false;
  Stopwatch sw;
  while (int(ms.size()) < o.frames) {
    if (!frame(t, x, error)) return false;
    ms.push_back(t);
    extra.push_back(x);
    if (ms.size() >= 3 && sw.ms() > o.budget_s * 1e3) break;
  }
  return true;
}

/// The cloud being timed: its count and order, and its bounds for the cameras.
struct CloudCase {
  const PointCloud& cloud;
  uint64_t n;
  std::string order;
  Bounds bounds;
};

RenderSettings frame_settings(int width, int height) {
  RenderSettings s;
  s.width = width;
  s.height = height;
  return s;
}

/// A view's camera before its first frame: the cube scene's own camera inside the cube for
/// "inside", the whole cloud framed for the others.
Camera start_camera(const CloudCase& c, const View& v) {
  Camera cam = scene_camera("cube", c.cloud);
  if (v.camera != "inside") cam.frame(c.bounds, double(v.width) / double(v.height));
  return cam;
}

// Frame k's camera of a row: the orbit camera turns by kOrbitStep each frame and backs off to
// keep the cloud in view, so no frame sees the last one's view (the renderers' occlusion
// culling then works from a Hi-Z a frame old); the others stay put.
Camera frame_camera(const Camera& cam, const CloudCase& c, const View& v, int k) {
  if (v.camera != "orbit") return cam;
  Camera moved = cam;
  moved.yaw += kOrbitStep * double(k);
  moved.frame(c.bounds, double(v.width) / double(v.height));
  return moved;
}

Row base_row(const CloudCase& c, const View& v) {
  Row r;
  r.points = c.n;
  r.order = c.order;
  r.camera = v.camera;
  r.width = v.width;
  r.height = v.height;
  return r;
}

/// Runs a plan: the renderers opened once, then for each count the cloud generated and for each
/// order its rows (the default renderers view by view, then each GPU mode view by view).
class Bench {
 public:
  Bench(const Plan& plan, Report& report)
      : plan_(plan), o_(plan.options), report_(report), table_(report.table), cpu_(o_.threads) {}

  /// The host, GPU and GL lines, then the table's header.
  void open();
  void run() {
    for (uint64_t n : o_.points) run_count(n);
  }

 private:
  void open_gpu();
  void open_gl();
  bool fits_in_memory(uint64_t n);
  void run_count(uint64_t n);
  void run_order(const CloudCase& c);
  bool upload_gpu_default(const CloudCase& c);
  bool upload_gl(const CloudCase& c);
  void run_view(const CloudCase& c, const View& v, bool run_cpu, bool run_gpu, bool run_gl);
  void cpu_row(const CloudCase& c, const View& v, const Camera& cam);
  std::string gl_check(const Camera& cam, const RenderSettings& small, const Image& ref);
  void gl_row(const CloudCase& c, const View& v, const Camera& cam, const RenderSettings& small,
              const Image& ref);
#if defined(PR_BENCH_CUDA)
  void measure_gpu_frame_bytes();
  std::string gpu_check(const Camera& cam, const RenderSettings& small, const Image& ref,
                        Image& img);
  void check_timed_frame(Row& r, const Camera& now, const RenderSettings& rs, const Image& img,
                         Renderer& ref_renderer);
  void add_gpu_notes(Row& r, bool stages);
  void gpu_row(const CloudCase& c, const View& v, const std::string& label, const Camera& cam,
               const RenderSettings& small, const RenderSettings& rs, const Image& ref,
               Renderer& ref_renderer);
  using References = std::map<std::pair<bool, bool>, std::unique_ptr<CpuRenderer>>;
  bool upload_gpu_mode(const CloudCase& c, const GpuMode& m);
  CpuRenderer* mode_reference(References& refs, const CloudCase& c, const GpuMode& m);
  void gpu_mode_view(const CloudCase& c, const View& v, const GpuMode& m, CpuRenderer& ref);
  void run_gpu_modes(const CloudCase& c);
#endif

  const Plan& plan_;
  const Options& o_;
  Report& report_;
  FILE* const table_;
  std::string why_;
  CpuRenderer cpu_;
  std::unique_ptr<GlPoints> gl_;
#if defined(PR_BENCH_CUDA)
  std::unique_ptr<CudaRenderer> gpu_;
  // Device bytes the renderer holds for a frame of each size, without points: measured on a
  // one-point cloud, so that bytes per point counts the cloud alone.
  std::map<std::pair<int, int>, double> gpu_frame_bytes_;
#endif
};

void Bench::open() {
  report_.cpu_threads = cpu_.threads();
  std::fprintf(table_, "# host: %s, %u threads for the CPU renderer, %.1f GiB available\n",
               cpu_model().c_str(), cpu_.threads(), double(host_memory_available()) / 1073741824.0);
  open_gpu();
  open_gl();
  print_header(table_);
}

void Bench::open_gpu() {
#if defined(PR_BENCH_CUDA)
  if (!wants(o_, "gpu")) return;
  gpu_ = make_cuda_renderer(&why_);
  if (!gpu_) {
    std::fprintf(table_, "# gpu: skipped: %s\n", why_.c_str());
    return;
  }
  report_.gpu_name = gpu_->device_name();
  CudaTuning tuning;
  tuning.stage_timing = o_.stage_timing;
  gpu_->set_tuning(tuning);
  if (!measure_copy_bandwidth(report_.copy_bw, &why_))
    std::fprintf(table_, "# copy bandwidth not measured: %s\n", why_.c_str());
  std::fprintf(table_, "# gpu: %s; cudaMemcpy device-to-device %.3f TB/s (read + write)\n",
               report_.gpu_name.c_str(), report_.copy_bw * 1e-12);
  measure_gpu_frame_bytes();
#else
  if (wants(o_, "gpu")) std::fprintf(table_, "# gpu: skipped: built without CUDA\n");
#endif
}

void Bench::open_gl() {
  if (!wants(o_, "gl")) return;
  gl_ = GlPoints::create(&why_);
  if (!gl_)
    std::fprintf(table_, "# gl: skipped: %s\n", why_.c_str());
  else
    report_.gl_name = gl_->renderer_name();
  std::fprintf(table_, "# gl: %s\n", report_.gl_name.c_str());
}

bool Bench::fits_in_memory(uint64_t n) {
  const uint64_t avail = host_memory_available();
  const bool want_morton =
      std::find(o_.orders.begin(), o_.orders.end(), "morton") != o_.orders.end();
  // The cloud (16 B a point) and, for the Morton order, the sort's keys and gather (20 B).
  const double need = double(n) * (want_morton ? 36.0 : 17.0);
  if (avail > 0 && need > 0.9 * double(avail)) {
    std::fprintf(table_,
                 "# %llu points: skipped: needs about %.1f GiB of host memory, %.1f GiB "
                 "available\n",
                 (unsigned long long)n, need / 1073741824.0, double(avail) / 1073741824.0);
    return false;
  }
  return true;
}

void Bench::run_count(uint64_t n) {
  if (!fits_in_memory(n)) return;
  Stopwatch gen;
  PointCloud cloud = make_scene("cube", n, 1);
  std::fprintf(table_, "# cube of %llu points generated in %.0f ms\n", (unsigned long long)n,
               gen.ms());
  bool sorted = false;
  for (const std::string& order : o_.orders) {
    if (order == "morton" && !sorted) {
      Stopwatch ms;
      morton_sort(cloud);
      sorted = true;
      std::fprintf(table_, "# Morton-sorted in %.0f ms\n", ms.ms());
    } else if (order == "random" && sorted) {
      cloud = make_scene("cube", n, 1);
      sorted = false;
    }
    run_order(CloudCase{cloud, n, order, cloud.world_bounds()});
  }
  // The renderers keep pointers to the cloud: hand them an empty one before it goes.
  static const PointCloud kEmpty;
  cpu_.set_cloud(kEmpty, &why_);
#if defined(PR_BENCH_CUDA)
  if (gpu_) gpu_->set_cloud(kEmpty, &why_);
#endif
  if (gl_) gl_->set_cloud(kEmpty, &why_);
}

void Bench::run_order(const CloudCase& c) {
  const bool run_cpu = wants(o_, "cpu") && c.n <= o_.cpu_max;
  // The CPU renderer is also the reference image for the checks.
  if (!cpu_.set_cloud(c.cloud, &why_)) {
    std::fprintf(table_, "# cpu: %s\n", why_.c_str());
    ++report_.failures;
    return;
  }
  const bool run_gpu = upload_gpu_default(c);
  const bool run_gl = upload_gl(c);
  for (const View& v : plan_.views) run_view(c, v, run_cpu, run_gpu, run_gl);
#if defined(PR_BENCH_CUDA)
  run_gpu_modes(c);
#endif
}

bool Bench::upload_gpu_default(const CloudCase& c) {
#if defined(PR_BENCH_CUDA)
  const bool want_default =
      std::find(o_.gpu_modes.begin(), o_.gpu_modes.end(), "default") != o_.gpu_modes.end();
  if (!gpu_ || c.n > o_.gpu_max || !want_default) return false;
  if (o_.gpu_modes_given) {  // explicit modes: "default" means the renderer's defaults
    gpu_->set_options(RenderOptions{});
    CudaTuning t = gpu_->tuning();
    t.rounds = -1;
    gpu_->set_tuning(t);
  }
  Stopwatch up;
  const bool ok = gpu_->set_cloud(c.cloud, &why_);
  if (!ok)
    std::fprintf(table_, "# gpu %llu %s: skipped: %s\n", (unsigned long long)c.n, c.order.c_str(),
                 why_.c_str());
  else
    std::fprintf(table_, "# gpu: uploaded in %.0f ms\n", up.ms());
  return ok;
#else
  (void)c;
  return false;
#endif
}

bool Bench::upload_gl(const CloudCase& c) {
  if (!gl_ || c.n > o_.gl_max) return false;
  Stopwatch up;
  const bool ok = gl_->set_cloud(c.cloud, &why_);
  if (!ok)
    std::fprintf(table_, "# gl %llu %s: skipped: %s\n", (unsigned long long)c.n, c.order.c_str(),
                 why_.c_str());
  else
    std::fprintf(table_, "# gl: uploaded in %.0f ms\n", up.ms());
  return ok;
}

/// One view's rows: GPU, GL and CPU, after the CPU's reference image on a small frame.
void Bench::run_view(const CloudCase& c, const View& v, bool run_cpu, bool run_gpu, bool run_gl) {
  const Camera cam = start_camera(c, v);
  const RenderSettings small = frame_settings(o_.check_size.first, o_.check_size.second);
  Image ref;
  FrameStats st;
  if (!cpu_.render(cam, small, ref, st, &why_)) {
    std::fprintf(table_, "# cpu check frame failed: %s\n", why_.c_str());
    ++report_.failures;
    return;
  }
#if defined(PR_BENCH_CUDA)
  if (run_gpu) gpu_row(c, v, "gpu", cam, small, frame_settings(v.width, v.height), ref, cpu_);
#else
  (void)run_gpu;
#endif
  if (run_gl) gl_row(c, v, cam, small, ref);
  if (run_cpu) cpu_row(c, v, cam);
}

void Bench::cpu_row(const CloudCase& c, const View& v, const Camera& cam) {
  Row r = base_row(c, v);
  r.renderer = "cpu";
  r.check = "reference";
  const RenderSettings rs = frame_settings(v.width, v.height);
  Image img;
  int k = 0;
  auto frame = [&](double& t, double& x, std::string* e) {
    FrameStats fs;
    if (!cpu_.render(frame_camera(cam, c, v, ++k), rs, img, fs, e)) return false;
    t = fs.total_ms;
    x = fs.raster_ms;
    return true;
  };
  std::vector<double> ms, extra;
  if (!time_frames(o_, frame, ms, extra, &why_)) {
    std::fprintf(table_, "# cpu frame failed: %s\n", why_.c_str());
    ++report_.failures;
    return;
  }
  r.ms = summarize(ms);
  r.extra_ms = summarize(extra).median;
  r.extra_name = "raster_ms";
  // Host bytes a point occupies (float xyz + RGBA8), read from main memory.
  r.bytes_per_point = double(c.cloud.memory_bytes()) / double(c.n);
  char b[160];
  std::snprintf(b, sizeof b, "%u threads", cpu_.threads());
  r.note = b;
  if (cpu_.occlusion_ran()) {
    std::snprintf(b, sizeof b, ", last frame: %llu batches hidden, %llu drawn late",
                  (unsigned long long)cpu_.occluded_batches(),
                  (unsigned long long)cpu_.second_pass_batches());
    r.note += b;
  }
  report_.add(r);
}

/// The share of the GL check frame's pixels that equal the CPU's, or FAIL with the reason.
std::string Bench::gl_check(const Camera& cam, const RenderSettings& small, const Image& ref) {
  double t = 0, x = 0;
  Image img;
  if (!gl_->render(cam, small.width, small.height, t, x, &why_) || !gl_->read_image(img, &why_))
    return "FAIL(" + why_ + ")";
  size_t same = 0;
  for (size_t i = 0; i < img.rgba.size() && i < ref.rgba.size(); ++i)
    same += img.rgba[i] == ref.rgba[i];
  // GL breaks depth ties its own way and rounds with its own floats: a few pixels differ. Far
  // fewer equal pixels means its projection is not the one projection.h computes.
  const double share = double(same) / double(ref.rgba.size());
  char b[64];
  std::snprintf(b, sizeof b, "%s%.2f%% px = cpu%s", share < 0.95 ? "FAIL(" : "", 100.0 * share,
                share < 0.95 ? ")" : "");
  if (share < 0.95) ++report_.failures;
  return b;
}

void Bench::gl_row(const CloudCase& c, const View& v, const Camera& cam,
                   const RenderSettings& small, const Image& ref) {
  Row r = base_row(c, v);
  r.renderer = "gl";
  r.check = gl_check(cam, small, ref);
  // NVIDIA's timer query measures the GPU's clear + draw; a software GL (llvmpipe) draws inside
  // glFinish, so there only the host clock means anything.
  const std::string& gl_name = report_.gl_name;
  const bool soft = gl_name.find("llvmpipe") != std::string::npos ||
                    gl_name.find("softpipe") != std::string::npos;
  int k = 0;
  auto frame = [&](double& tt, double& xx, std::string* e) {
    double q = 0, w = 0;
    if (!gl_->render(frame_camera(cam, c, v, ++k), v.width, v.height, q, w, e)) return false;
    tt = soft ? w : q;
    xx = soft ? q : w;
    return true;
  };
  std::vector<double> ms, extra;
  if (!time_frames(o_, frame, ms, extra, &why_)) {
    std::fprintf(table_, "# gl frame failed: %s\n", why_.c_str());
    return;
  }
  r.ms = summarize(ms);
  r.extra_ms = summarize(extra).median;
  r.extra_name = soft ? "gl_timer_query_ms" : "glfinish_wall_ms";
  r.bytes_per_point = double(gl_->memory_bytes()) / double(c.n);
  if (report_.copy_bw > 0)
    r.copy_fraction = double(c.n) * r.bytes_per_point / (r.ms.median * 1e-3) / report_.copy_bw;
  r.note = soft ? "glFinish wall time (software GL)" : "GL timer query";
  report_.add(r);
}

#if defined(PR_BENCH_CUDA)
void Bench::measure_gpu_frame_bytes() {
  std::string e;
  auto probe = make_cuda_renderer(&e);
  PointCloud one = make_scene("cube", 1);
  if (!probe || !probe->set_cloud(one, &e)) return;
  for (const auto& wh : o_.sizes) {
    const RenderSettings s = frame_settings(wh.first, wh.second);
    Image img;
    FrameStats st;
    if (probe->render(scene_camera("cube", one), s, img, st, &e))
      gpu_frame_bytes_[wh] = double(probe->memory_bytes());
  }
}

/// "ok" when the GPU's small frame equals `ref` pixel for pixel, else FAIL with the count.
std::string Bench::gpu_check(const Camera& cam, const RenderSettings& small, const Image& ref,
                             Image& img) {
  FrameStats st;
  if (!gpu_->render(cam, small, img, st, &why_)) return "FAIL(" + why_ + ")";
  size_t diff = 0;
  for (size_t i = 0; i < img.rgba.size() && i < ref.rgba.size(); ++i)
    diff += img.rgba[i] != ref.rgba[i];
  return diff == 0 ? "ok" : "FAIL(" + std::to_string(diff) + " px differ)";
}

// The last timed frame compared with `ref_renderer`'s full-size image when the cloud is small
// enough for the CPU to draw it quickly (the timed frames of small clouds take the sparse path,
// which the small check does not reach).
void Bench::check_timed_frame(Row& r, const Camera& now, const RenderSettings& rs, const Image& img,
                              Renderer& ref_renderer) {
  if (r.points > 10'000'000 || r.check != "ok") return;
  Image full;
  FrameStats fs;
  if (!ref_renderer.render(now, rs, full, fs, &why_)) {
    r.check = "FAIL(cpu: " + why_ + ")";
    return;
  }
  size_t d = 0;
  if (full.rgba.size() != img.rgba.size())
    d = full.rgba.size();
  else
    for (size_t i = 0; i < img.rgba.size(); ++i) d += img.rgba[i] != full.rgba[i];
  if (d) {
    r.check = "FAIL(timed frame: " + std::to_string(d) + " px differ)";
    ++report_.failures;
  }
}

/// The last frame's batch counts (where occlusion culling ran) and the resolve's own time
/// (--stage-timing) appended to the row's note.
void Bench::add_gpu_notes(Row& r, bool stages) {
  CudaRenderer::BatchCounts bc;
  if (gpu_->last_batch_counts(&bc, nullptr) && bc.occlusion) {
    char b[160];
    std::snprintf(b, sizeof b,
                  "%slast frame: %llu + %llu of %llu batches drawn, %llu hidden, %llu out of view",
                  r.note.empty() ? "" : ", ", (unsigned long long)bc.first,
                  (unsigned long long)bc.second, (unsigned long long)bc.batches,
                  (unsigned long long)bc.occluded, (unsigned long long)bc.culled);
    r.note += b;
  }
  if (stages) {
    char b[64];
    std::snprintf(b, sizeof b, "%sresolve %.4f ms", r.note.empty() ? "" : ", ", r.extra_ms);
    r.note += b;
  }
}

// One GPU row: the small frame must equal `ref` (`ref_renderer`'s image at the small check size)
// pixel for pixel, then the timed frames.
void Bench::gpu_row(const CloudCase& c, const View& v, const std::string& label, const Camera& cam,
                    const RenderSettings& small, const RenderSettings& rs, const Image& ref,
                    Renderer& ref_renderer) {
  Row r = base_row(c, v);
  r.renderer = label;
  Image img;
  r.check = gpu_check(cam, small, ref, img);
  if (r.check != "ok") ++report_.failures;
  bool stages = false;  // --stage-timing: the resolve timed on its own
  Camera now = cam;
  int k = 0;
  auto frame = [&](double& t, double& x, std::string* e) {
    FrameStats fs;
    now = frame_camera(cam, c, v, ++k);
    if (!gpu_->render(now, rs, img, fs, e)) return false;
    t = fs.clear_ms + fs.raster_ms + fs.resolve_ms;
    stages = fs.stages;
    x = fs.stages ? fs.resolve_ms : fs.total_ms;
    return true;
  };
  std::vector<double> ms, extra;
  if (!time_frames(o_, frame, ms, extra, &why_)) {
    std::fprintf(table_, "# %s frame failed: %s\n", label.c_str(), why_.c_str());
    ++report_.failures;
    return;
  }
  check_timed_frame(r, now, rs, img, ref_renderer);
  r.ms = summarize(ms);
  r.extra_ms = summarize(extra).median;
  r.extra_name = stages ? "resolve_ms" : "render_with_host_copy_ms";
  add_gpu_notes(r, stages);
  const auto fb = gpu_frame_bytes_.find({rs.width, rs.height});
  const double held = double(gpu_->memory_bytes());
  r.bytes_per_point =
      (held - (fb != gpu_frame_bytes_.end() ? fb->second - 16.0 : 0.0)) / double(r.points);
  if (report_.copy_bw > 0)
    r.copy_fraction = double(r.points) * r.bytes_per_point / (r.ms.median * 1e-3) / report_.copy_bw;
  report_.add(r);
}

bool Bench::upload_gpu_mode(const CloudCase& c, const GpuMode& m) {
  gpu_->set_options(m.options);
  CudaTuning tuning = gpu_->tuning();
  tuning.rounds = m.rounds;
  gpu_->set_tuning(tuning);
  Stopwatch up;
  if (!gpu_->set_cloud(c.cloud, &why_)) {
    std::fprintf(table_, "# gpu+%s %llu %s: skipped: %s\n", m.name.c_str(), (unsigned long long)c.n,
                 c.order.c_str(), why_.c_str());
    return false;
  }
  std::fprintf(table_, "# gpu+%s: uploaded in %.0f ms%s\n", m.name.c_str(), up.ms(),
               m.options.compact ? " (compact encoding included)" : "");
  return true;
}

// One CPU reference per storage form (compact, sorted) and cloud: the host's compact encoding of
// 1e9 points takes half a minute, and several modes share it. Null after a message when the
// reference cannot take the cloud.
CpuRenderer* Bench::mode_reference(References& refs, const CloudCase& c, const GpuMode& m) {
  const bool compact = m.options.compact, sort = m.options.sort == Toggle::kOn;
  std::unique_ptr<CpuRenderer>& slot = refs[{compact, compact && sort}];
  if (slot) return slot.get();
  auto made = std::make_unique<CpuRenderer>(o_.threads);
  RenderOptions ref_options;  // compact positions in the GPU's order
  ref_options.compact = compact;
  ref_options.sort = m.options.sort;
  made->set_options(ref_options);
  if (!made->set_cloud(c.cloud, &why_)) {
    std::fprintf(table_, "# cpu reference for %s: %s\n", m.name.c_str(), why_.c_str());
    ++report_.failures;
    return nullptr;
  }
  slot = std::move(made);
  return slot.get();
}

void Bench::gpu_mode_view(const CloudCase& c, const View& v, const GpuMode& m, CpuRenderer& ref) {
  const Camera cam = start_camera(c, v);
  RenderSettings small = frame_settings(o_.check_size.first, o_.check_size.second);
  RenderSettings rs = frame_settings(v.width, v.height);
  small.edl = rs.edl = m.edl;
  small.hq = rs.hq = m.hq;
  small.adaptive_size = rs.adaptive_size = m.adaptive;
  small.max_point_size = rs.max_point_size = 8;
  if (m.clip) {
    // A box at the cloud's centre of 0.1^(1/3) of its extent on each axis (a tenth of a uniform
    // cloud's points), or a little more than the whole cloud.
    const glm::dvec3 e = c.bounds.max - c.bounds.min;
    ClipBox box;
    box.centre = c.bounds.center();
    box.size = m.clip == 2 ? e * 1.01 + 1e-6 : e * std::cbrt(0.1);
    small.clip.boxes = rs.clip.boxes = {box};
  }
  Image ref_image;
  FrameStats st;
  if (!ref.render(cam, small, ref_image, st, &why_)) {
    std::fprintf(table_, "# cpu check frame failed: %s\n", why_.c_str());
    ++report_.failures;
    return;
  }
  gpu_row(c, v, "gpu+" + m.name, cam, small, rs, ref_image, ref);
}

// The other storage modes, each uploaded once and checked against a CPU renderer set up the same
// way (compact positions draw the dequantized points, on both sides).
void Bench::run_gpu_modes(const CloudCase& c) {
  References refs;
  for (const GpuMode& m : plan_.gpu_modes) {
    if (m.name == "default" || !gpu_ || c.n > o_.gpu_max) continue;
    if (!upload_gpu_mode(c, m)) continue;
    CpuRenderer* ref = mode_reference(refs, c, m);
    if (!ref) continue;
    for (const View& v : plan_.views) gpu_mode_view(c, v, m, *ref);
  }
}
#endif

}  // namespace

int main(int argc, char** argv) {
  Plan plan;
  if (!make_plan(argc, argv, plan)) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  Report report(plan.options);
  Bench bench(plan, report);
  bench.open();
  bench.run();
  return report.finish();
}
