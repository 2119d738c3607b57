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
// orders of the clouds, the views: sizes times cameras, the GPU modes), Bench runs it cloud by
// cloud and row by row, and Report prints each row as it comes and keeps the JSON document.
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
#if defined(PR_BENCH_CUDA)
#include "common/cuda_copy.h"
#include "kernels/cuda_renderer.h"
#endif

namespace {

using namespace pr;

struct Options {
  std::vector<std::string> renderers = {"cpu", "gpu", "gl"};
  std::vector<uint64_t> points = {100'000, 1'000'000, 10'000'000, 100'000'000, 1'000'000'000};
  std::vector<std::string> orders = {"random", "morton"};
  std::vector<std::string> cameras = {"overview", "inside"};
  std::vector<std::pair<int, int>> sizes = {{1920, 1080}};
  int frames = 30;
  double budget_s = 2.0;
  uint64_t cpu_max = ~uint64_t{0}, gl_max = ~uint64_t{0}, gpu_max = ~uint64_t{0};
  unsigned threads = 0;
  bool json = false;
  std::string json_out;
  std::pair<int, int> check_size = {320, 180};
  // The CUDA renderer's modes (docs/GPU.md), each timed as its own renderer row: default (the
  // RenderOptions defaults: the upload-time Morton sort when the cloud's order is incoherent),
  // and, sorted unless told otherwise, nosort (the cloud in its own order), compact (quantized
  // positions), nocull (no batch culling), occl / noocc (occlusion culling on / off), rN (N
  // rounds a raster block, CudaTuning::rounds), edl (eye-dome lighting in the resolve, checked
  // against the CPU's EDL image), hq (high-quality splats: the second pass and the averaging
  // resolve, checked against the CPU's HQ image); joined with '+' (compact+nosort, ...).
  std::vector<std::string> gpu_modes = {"default"};
  bool gpu_modes_given = false;
  bool stage_timing = false;  // CudaTuning::stage_timing: clear, raster, resolve timed apart
};

struct Row {
  std::string renderer, order, camera, check, note;
  uint64_t points = 0;
  int width = 0, height = 0;
  Spread ms;
  double extra_ms = -1;  // a second time for the frame, named by extra_name
  std::string extra_name = "none";
  double bytes_per_point = 0, copy_fraction = -1;
};

/// The rounds a GPU mode's token "rN" forces (CudaTuning::rounds), or 0 for other tokens.
int mode_rounds(const std::string& t) {
  for (const char* r : {"r1", "r2", "r4", "r8"})
    if (t == r) return std::atoi(r + 1);
  return 0;
}

/// The orbit camera's turn a frame (radians): a full turn in 628 frames, 4 s at 144 Hz.
constexpr double kOrbitStep = 0.01;

const char* kUsage =
    "usage: pointraster_bench [--renderers cpu,gpu,gl] [--points 1e5,1e6,...] "
    "[--orders random,morton]\n"
    "         [--cameras overview,inside,orbit] [--sizes 1920x1080,...] [--frames N] [--budget "
    "SECONDS]\n"
    "         [--cpu-max N] [--gpu-max N] [--gl-max N] [--threads T] [--json] [--json-out FILE]\n"
    "         [--gpu-modes default,nosort,compact,nocull,occl,noocc,edl,hq,r1..r8 (tokens joined "
    "with "
    "'+')]\n"
    "         [--stage-timing]\n";

bool parse_size(const std::string& s, std::pair<int, int>& out) {
  int w = 0, h = 0;
  if (std::sscanf(s.c_str(), "%dx%d", &w, &h) != 2 || w < 1 || h < 1 || w > 16384 || h > 16384)
    return false;
  out = {w, h};
  return true;
}

/// One --gpu-modes entry: its tokens on top of the renderer's defaults.
struct GpuMode {
  std::string name;       // as given: "default", or tokens joined with '+'
  RenderOptions options;  // every mode but nosort sorts its cloud
  int rounds = -1;        // CudaTuning::rounds: the renderer's choice unless a token rN forces it
  bool edl = false, hq = false;
};

/// One view of a cloud: a frame size and a camera; the sizes vary slowest, as the rows print.
struct View {
  int width = 0, height = 0;
  std::string camera;
};

/// The command line parsed: the clouds (options.points times options.orders), the views of each
/// and the GPU modes timed beside the default renderer.
struct Plan {
  Options options;
  std::vector<View> views;
  std::vector<GpuMode> gpu_modes;
};

bool known_gpu_mode(const std::string& m) {
  if (m == "default") return true;
  bool known = true;
  size_t b = 0;
  while (b <= m.size()) {
    const size_t e = std::min(m.find('+', b), m.size());
    const std::string t = m.substr(b, e - b);
    known = known && (t == "nosort" || t == "compact" || t == "nocull" || t == "occl" ||
                      t == "noocc" || t == "edl" || t == "hq" || mode_rounds(t) > 0);
    b = e + 1;
  }
  return known;
}

bool parse_sizes(const std::string& v, Options& o) {
  o.sizes.clear();
  for (const std::string& s : split_list(v)) {
    std::pair<int, int> wh;
    if (!parse_size(s, wh)) {
      std::fprintf(stderr, "pointraster_bench: bad size '%s' (want WxH)\n", s.c_str());
      return false;
    }
    o.sizes.push_back(wh);
  }
  return true;
}

bool parse_gpu_modes(const std::string& v, Options& o) {
  o.gpu_modes = split_list(v);
  o.gpu_modes_given = true;
  for (const std::string& m : o.gpu_modes)
    if (!known_gpu_mode(m)) {
      std::fprintf(stderr,
                   "pointraster_bench: unknown GPU mode '%s' (default, or nosort, compact, "
                   "nocull, occl, noocc, edl, hq, r1|r2|r4|r8 joined with '+')\n",
                   m.c_str());
      return false;
    }
  return true;
}

/// The first count of a list (--cpu-max and the like); false without a message when it is bad.
bool parse_one_count(const std::string& v, uint64_t& out) {
  std::vector<uint64_t> c;
  std::string err;
  if (!parse_counts(v, c, &err)) return false;
  out = c[0];
  return true;
}

const char* const kValueOptions[] = {
    "--renderers", "--points",  "--orders",  "--cameras", "--sizes",     "--frames",  "--budget",
    "--threads",   "--cpu-max", "--gpu-max", "--gl-max",  "--gpu-modes", "--json-out"};

bool takes_value(const std::string& a) {
  return std::find(std::begin(kValueOptions), std::end(kValueOptions), a) !=
         std::end(kValueOptions);
}

/// Option `a` (one of kValueOptions) with its value `v`; false after a message when `v` is bad.
bool set_option(const std::string& a, const std::string& v, Options& o) {
  if (a == "--renderers") {
    o.renderers = split_list(v);
  } else if (a == "--points") {
    std::string err;
    if (!parse_counts(v, o.points, &err)) {
      std::fprintf(stderr, "pointraster_bench: %s\n", err.c_str());
      return false;
    }
  } else if (a == "--orders") {
    o.orders = split_list(v);
  } else if (a == "--cameras") {
    o.cameras = split_list(v);
  } else if (a == "--sizes") {
    return parse_sizes(v, o);
  } else if (a == "--frames") {
    o.frames = std::max(1, std::atoi(v.c_str()));
  } else if (a == "--budget") {
    o.budget_s = std::max(0.0, std::atof(v.c_str()));
  } else if (a == "--threads") {
    o.threads = unsigned(std::max(0, std::atoi(v.c_str())));
  } else if (a == "--cpu-max") {
    return parse_one_count(v, o.cpu_max);
  } else if (a == "--gpu-max") {
    return parse_one_count(v, o.gpu_max);
  } else if (a == "--gl-max") {
    return parse_one_count(v, o.gl_max);
  } else if (a == "--gpu-modes") {
    return parse_gpu_modes(v, o);
  } else if (a == "--json-out") {
    o.json_out = v;
  }
  return true;
}

/// False after a message naming the first of `names` that is not one of `known`.
bool all_known(const std::vector<std::string>& names, std::initializer_list<const char*> known,
               const char* what, const char* choices) {
  for (const std::string& n : names)
    if (std::find(known.begin(), known.end(), n) == known.end()) {
      std::fprintf(stderr, "pointraster_bench: unknown %s '%s' (%s)\n", what, n.c_str(), choices);
      return false;
    }
  return true;
}

bool parse_args(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json") {
      o.json = true;
    } else if (a == "--stage-timing") {
      o.stage_timing = true;
    } else if (!takes_value(a)) {
      return false;
    } else if (i + 1 >= argc) {
      std::fprintf(stderr, "pointraster_bench: %s needs a value\n", a.c_str());
      return false;
    } else if (!set_option(a, argv[++i], o)) {
      return false;
    }
  }
  return all_known(o.renderers, {"cpu", "gpu", "gl"}, "renderer", "cpu, gpu, gl") &&
         all_known(o.orders, {"random", "morton"}, "order", "random, morton") &&
         all_known(o.cameras, {"overview", "inside", "orbit"}, "camera", "overview, inside");
}

GpuMode gpu_mode(const std::string& mode) {
  GpuMode m;
  m.name = mode;
  RenderOptions& ro = m.options;
  ro.sort = mode.find("nosort") == std::string::npos ? Toggle::kOn : Toggle::kOff;
  ro.compact = mode.find("compact") != std::string::npos;
  ro.culling = mode.find("nocull") == std::string::npos;
  if (mode.find("noocc") != std::string::npos)
    ro.occlusion = Toggle::kOff;
  else if (mode.find("occl") != std::string::npos)
    ro.occlusion = Toggle::kOn;
  for (size_t b = 0; b <= mode.size();) {
    const size_t e = std::min(mode.find('+', b), mode.size());
    if (const int r = mode_rounds(mode.substr(b, e - b)); r > 0) m.rounds = r;
    b = e + 1;
  }
  m.edl = mode.find("edl") != std::string::npos;
  m.hq = mode.find("hq") != std::string::npos;
  return m;
}

bool make_plan(int argc, char** argv, Plan& plan) {
  if (!parse_args(argc, argv, plan.options)) return false;
  for (const auto& wh : plan.options.sizes)
    for (const std::string& cam : plan.options.cameras)
      plan.views.push_back({wh.first, wh.second, cam});
  for (const std::string& m : plan.options.gpu_modes) plan.gpu_modes.push_back(gpu_mode(m));
  return true;
}

bool wants(const Options& o, const char* r) {
  return std::find(o.renderers.begin(), o.renderers.end(), r) != o.renderers.end();
}

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

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) {
      const size_t c = line.find(':');
      return c == std::string::npos ? line : line.substr(c + 2);
    }
  return "unknown CPU";
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    o += c;
  }
  return o;
}

std::string row_json(const Row& r) {
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "{\"renderer\": \"%s\", \"points\": %llu, \"order\": \"%s\", \"camera\": \"%s\", "
                "\"width\": %d, \"height\": %d, \"frames\": %zu, \"median_ms\": %.5f, "
                "\"min_ms\": %.5f, \"max_ms\": %.5f, \"p25_ms\": %.5f, \"p75_ms\": %.5f, "
                "\"%s\": %.5f, \"points_per_s\": %.6g, \"bytes_per_point\": %.2f, "
                "\"copy_bw_fraction\": %.4f, \"check\": \"%s\", \"note\": \"%s\"}",
                r.renderer.c_str(), (unsigned long long)r.points, r.order.c_str(), r.camera.c_str(),
                r.width, r.height, r.ms.count, r.ms.median, r.ms.min, r.ms.max, r.ms.p25, r.ms.p75,
                r.extra_name.c_str(), r.extra_ms,
                r.ms.median > 0 ? double(r.points) / (r.ms.median * 1e-3) : 0.0, r.bytes_per_point,
                r.copy_fraction, json_escape(r.check).c_str(), json_escape(r.note).c_str());
  return buf;
}

void print_header(FILE* f) {
  std::fprintf(f, "%-8s %11s %-7s %-9s %9s %10s %21s %10s %6s %8s %6s  %s\n", "renderer", "points",
               "order", "camera", "size", "median_ms", "[min .. max] ms", "pts/s", "B/pt",
               "copy_bw", "frames", "check");
}

std::string human_rate(double v) {
  char b[32];
  if (v >= 1e9)
    std::snprintf(b, sizeof b, "%.2f G", v * 1e-9);
  else if (v >= 1e6)
    std::snprintf(b, sizeof b, "%.1f M", v * 1e-6);
  else
    std::snprintf(b, sizeof b, "%.0f", v);
  return b;
}

void print_row(FILE* f, const Row& r) {
  char size[32], spread[64], frac[16];
  std::snprintf(size, sizeof size, "%dx%d", r.width, r.height);
  std::snprintf(spread, sizeof spread, "[%.4f .. %.4f]", r.ms.min, r.ms.max);
  if (r.copy_fraction >= 0)
    std::snprintf(frac, sizeof frac, "%.1f%%", r.copy_fraction * 100.0);
  else
    std::snprintf(frac, sizeof frac, "-");
  const double pps = r.ms.median > 0 ? double(r.points) / (r.ms.median * 1e-3) : 0.0;
  std::fprintf(f, "%-8s %11llu %-7s %-9s %9s %10.4f %21s %10s %6.1f %8s %6zu  %s%s%s\n",
               r.renderer.c_str(), (unsigned long long)r.points, r.order.c_str(), r.camera.c_str(),
               size, r.ms.median, spread, human_rate(pps).c_str(), r.bytes_per_point, frac,
               r.ms.count, r.check.c_str(), r.note.empty() ? "" : "  ", r.note.c_str());
  std::fflush(f);
}

/// The results as they come: each row printed to the table (stdout, or stderr under --json, where
/// stdout carries only the JSON document) and kept for the document.
struct Report {
  explicit Report(const Options& o) : options(o), table(o.json ? stderr : stdout) {}

  const Options& options;
  FILE* const table;
  unsigned cpu_threads = 0;
  std::string gpu_name = "none", gl_name = "none";
  double copy_bw = 0.0;
  int failures = 0;
  std::vector<Row> rows;

  void add(const Row& r) {
    rows.push_back(r);
    write_json_out();
    print_row(table, r);
  }

  std::string document() const {
    std::ostringstream js;
    js << "{\n  \"host\": \"" << json_escape(cpu_model())
       << "\",\n  \"cpu_threads\": " << cpu_threads << ",\n  \"gpu\": \"" << json_escape(gpu_name)
       << "\",\n  \"gl\": \"" << json_escape(gl_name)
       << "\",\n  \"copy_bw_bytes_per_s\": " << copy_bw << ",\n  \"failures\": " << failures
       << ",\n  \"rows\": [\n";
    for (size_t i = 0; i < rows.size(); ++i)
      js << "    " << row_json(rows[i]) << (i + 1 < rows.size() ? ",\n" : "\n");
    js << "  ]\n}\n";
    return js.str();
  }

  // Rewritten after every row, so a run cut short by a time limit still leaves its rows.
  void write_json_out() const {
    if (options.json_out.empty()) return;
    std::ofstream f(options.json_out);
    f << document();
    if (!f) std::fprintf(stderr, "pointraster_bench: cannot write %s\n", options.json_out.c_str());
  }

  /// The document where asked for, the failures counted; the exit code.
  int finish() const {
    if (options.json) std::fputs(document().c_str(), stdout);
    write_json_out();
    if (failures) std::fprintf(table, "# %d check(s) FAILED\n", failures);
    return failures ? 1 : 0;
  }
};

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
