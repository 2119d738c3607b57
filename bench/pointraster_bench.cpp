// pointraster_bench: the renderers side by side. For each point count and order of the
// seed's random cube (the generator's random order, or sorted along a Morton curve) and each
// camera (overview: the whole cloud in view; inside: the seed's camera at (0, 0, 10) inside the
// cube; orbit: the overview turned by kOrbitStep each frame, so the renderers' occlusion culling
// works from the last frame's Hi-Z), it times the CPU renderer, the CUDA renderer and the OpenGL
// GL_POINTS baseline on the same cloud and prints one row each: median and spread of frame times,
// points per second, bytes per point and the fraction of the measured device copy bandwidth.
//
// Before a cloud is timed, the GPU image is compared with the CPU image on a small frame (exact
// pixel equality, or the row says FAIL and the exit code is 1); the GL image is compared too and
// its matching fraction is reported (GL rasterizes with its own float rounding and tie rule).
//
// Timing: CPU = the render() call (host clock); GPU = clear + raster + resolve measured by the
// renderer with CUDA events (no host copy; --stage-timing times the resolve apart too); GL = a
// GL_TIME_ELAPSED query around clear + draw.
// Warm-up frames first, then up to --frames frames or --budget seconds (at least 3 frames).
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
  for (const char* r : {"r1", "r2", "r4", "r8", "r16"})
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
    "         [--gpu-modes default,nosort,compact,nocull,occl,noocc,edl,hq,r1..r16 (tokens joined "
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

bool parse_args(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](std::string& v) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "pointraster_bench: %s needs a value\n", a.c_str());
        return false;
      }
      v = argv[++i];
      return true;
    };
    std::string v, err;
    auto one_count = [&](uint64_t& out) {
      std::vector<uint64_t> c;
      if (!value(v) || !parse_counts(v, c, &err)) return false;
      out = c[0];
      return true;
    };
    if (a == "--json") {
      o.json = true;
    } else if (a == "--stage-timing") {
      o.stage_timing = true;
    } else if (a == "--renderers") {
      if (!value(v)) return false;
      o.renderers = split_list(v);
    } else if (a == "--points") {
      if (!value(v)) return false;
      if (!parse_counts(v, o.points, &err)) {
        std::fprintf(stderr, "pointraster_bench: %s\n", err.c_str());
        return false;
      }
    } else if (a == "--orders") {
      if (!value(v)) return false;
      o.orders = split_list(v);
    } else if (a == "--cameras") {
      if (!value(v)) return false;
      o.cameras = split_list(v);
    } else if (a == "--sizes") {
      if (!value(v)) return false;
      o.sizes.clear();
      for (const std::string& s : split_list(v)) {
        std::pair<int, int> wh;
        if (!parse_size(s, wh)) {
          std::fprintf(stderr, "pointraster_bench: bad size '%s' (want WxH)\n", s.c_str());
          return false;
        }
        o.sizes.push_back(wh);
      }
    } else if (a == "--frames") {
      if (!value(v)) return false;
      o.frames = std::max(1, std::atoi(v.c_str()));
    } else if (a == "--budget") {
      if (!value(v)) return false;
      o.budget_s = std::max(0.0, std::atof(v.c_str()));
    } else if (a == "--threads") {
      if (!value(v)) return false;
      o.threads = unsigned(std::max(0, std::atoi(v.c_str())));
    } else if (a == "--cpu-max") {
      if (!one_count(o.cpu_max)) return false;
    } else if (a == "--gpu-max") {
      if (!one_count(o.gpu_max)) return false;
    } else if (a == "--gl-max") {
      if (!one_count(o.gl_max)) return false;
    } else if (a == "--gpu-modes") {
      if (!value(v)) return false;
      o.gpu_modes = split_list(v);
      o.gpu_modes_given = true;
      for (const std::string& m : o.gpu_modes) {
        bool known = m == "default";
        if (!known) {
          known = true;
          size_t b = 0;
          while (b <= m.size()) {
            const size_t e = std::min(m.find('+', b), m.size());
            const std::string t = m.substr(b, e - b);
            known = known && (t == "nosort" || t == "compact" || t == "nocull" || t == "occl" ||
                              t == "noocc" || t == "edl" || t == "hq" || mode_rounds(t) > 0);
            b = e + 1;
          }
        }
        if (!known) {
          std::fprintf(stderr,
                       "pointraster_bench: unknown GPU mode '%s' (default, or nosort, compact, "
                       "nocull, occl, noocc, edl, hq, r1|r2|r4|r8|r16 joined with '+')\n",
                       m.c_str());
          return false;
        }
      }
    } else if (a == "--json-out") {
      if (!value(v)) return false;
      o.json_out = v;
    } else {
      return false;
    }
  }
  for (const std::string& r : o.renderers)
    if (r != "cpu" && r != "gpu" && r != "gl") {
      std::fprintf(stderr, "pointraster_bench: unknown renderer '%s' (cpu, gpu, gl)\n", r.c_str());
      return false;
    }
  for (const std::string& r : o.orders)
    if (r != "random" && r != "morton") {
      std::fprintf(stderr, "pointraster_bench: unknown order '%s' (random, morton)\n", r.c_str());
      return false;
    }
  for (const std::string& r : o.cameras)
    if (r != "overview" && r != "inside" && r != "orbit") {
      std::fprintf(stderr, "pointraster_bench: unknown camera '%s' (overview, inside)\n",
                   r.c_str());
      return false;
    }
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

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse_args(argc, argv, o)) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  // With --json the table goes to stderr and stdout carries only the JSON document.
  FILE* table = o.json ? stderr : stdout;
  std::vector<Row> rows;
  int failures = 0;
  std::string why;

  CpuRenderer cpu(o.threads);
  std::fprintf(table, "# host: %s, %u threads for the CPU renderer, %.1f GiB available\n",
               cpu_model().c_str(), cpu.threads(), double(host_memory_available()) / 1073741824.0);

  double copy_bw = 0.0;
  std::string gpu_name = "none", gl_name = "none";
#if defined(PR_BENCH_CUDA)
  std::unique_ptr<CudaRenderer> gpu;
  if (wants(o, "gpu")) {
    gpu = make_cuda_renderer(&why);
    if (!gpu) {
      std::fprintf(table, "# gpu: skipped: %s\n", why.c_str());
    } else {
      gpu_name = gpu->device_name();
      CudaTuning tuning;
      tuning.stage_timing = o.stage_timing;
      gpu->set_tuning(tuning);
      if (!measure_copy_bandwidth(copy_bw, &why))
        std::fprintf(table, "# copy bandwidth not measured: %s\n", why.c_str());
      std::fprintf(table, "# gpu: %s; cudaMemcpy device-to-device %.3f TB/s (read + write)\n",
                   gpu_name.c_str(), copy_bw * 1e-12);
    }
  }
  // Device bytes the renderer holds for a frame of each size, without points: measured on a
  // one-point cloud, so that bytes per point counts the cloud alone.
  std::map<std::pair<int, int>, double> gpu_frame_bytes;
  if (gpu) {
    std::string e;
    auto probe = make_cuda_renderer(&e);
    PointCloud one = make_scene("cube", 1);
    if (probe && probe->set_cloud(one, &e)) {
      for (const auto& wh : o.sizes) {
        RenderSettings s;
        s.width = wh.first;
        s.height = wh.second;
        Image img;
        FrameStats st;
        if (probe->render(scene_camera("cube", one), s, img, st, &e))
          gpu_frame_bytes[wh] = double(probe->memory_bytes());
      }
    }
  }
#else
  if (wants(o, "gpu")) std::fprintf(table, "# gpu: skipped: built without CUDA\n");
#endif
  std::unique_ptr<GlPoints> gl;
  if (wants(o, "gl")) {
    gl = GlPoints::create(&why);
    if (!gl)
      std::fprintf(table, "# gl: skipped: %s\n", why.c_str());
    else
      gl_name = gl->renderer_name();
    std::fprintf(table, "# gl: %s\n", gl_name.c_str());
  }
  print_header(table);
  auto document = [&]() {
    std::ostringstream js;
    js << "{\n  \"host\": \"" << json_escape(cpu_model())
       << "\",\n  \"cpu_threads\": " << cpu.threads() << ",\n  \"gpu\": \"" << json_escape(gpu_name)
       << "\",\n  \"gl\": \"" << json_escape(gl_name)
       << "\",\n  \"copy_bw_bytes_per_s\": " << copy_bw << ",\n  \"failures\": " << failures
       << ",\n  \"rows\": [\n";
    for (size_t i = 0; i < rows.size(); ++i)
      js << "    " << row_json(rows[i]) << (i + 1 < rows.size() ? ",\n" : "\n");
    js << "  ]\n}\n";
    return js.str();
  };
  // Rewritten after every row, so a run cut short by a time limit still leaves its rows.
  auto write_json_out = [&]() {
    if (o.json_out.empty()) return;
    std::ofstream f(o.json_out);
    f << document();
    if (!f) std::fprintf(stderr, "pointraster_bench: cannot write %s\n", o.json_out.c_str());
  };

  Bounds cloud_bounds;  // of the cloud being timed, for the cameras
  // Frame k's camera of a row: the orbit camera turns by kOrbitStep each frame and backs off to
  // keep the cloud in view, so no frame sees the last one's view (the renderers' occlusion
  // culling then works from a Hi-Z a frame old); the others stay put.
  auto view = [&](const Camera& cam, const std::string& camname, int k, int w, int h) {
    if (camname != "orbit") return cam;
    Camera c = cam;
    c.yaw += kOrbitStep * double(k);
    c.frame(cloud_bounds, double(w) / double(h));
    return c;
  };
#if defined(PR_BENCH_CUDA)
  // One GPU row: the small frame must equal `ref` pixel for pixel, then the timed frames.
  // `ref` is `ref_renderer`'s image at the small check size; the last timed frame is also compared
  // with its full-size image when the cloud is small enough for the CPU to draw it quickly (the
  // timed frames of small clouds take the sparse path, which the small check does not reach).
  auto gpu_row = [&](Row r, const std::string& label, const std::string& note, const Camera& cam,
                     const RenderSettings& small, const RenderSettings& rs, const Image& ref,
                     Renderer& ref_renderer) {
    r.renderer = label;
    r.note = note;
    Image img;
    FrameStats st;
    size_t diff = 0;
    if (!gpu->render(cam, small, img, st, &why)) {
      r.check = "FAIL(" + why + ")";
    } else {
      for (size_t i = 0; i < img.rgba.size() && i < ref.rgba.size(); ++i)
        diff += img.rgba[i] != ref.rgba[i];
      r.check = diff == 0 ? "ok" : "FAIL(" + std::to_string(diff) + " px differ)";
    }
    if (r.check != "ok") ++failures;
    bool stages = false;  // --stage-timing: the resolve timed on its own
    Camera now = cam;
    int k = 0;
    auto frame = [&](double& t, double& x, std::string* e) {
      FrameStats fs;
      now = view(cam, r.camera, ++k, rs.width, rs.height);
      if (!gpu->render(now, rs, img, fs, e)) return false;
      t = fs.clear_ms + fs.raster_ms + fs.resolve_ms;
      stages = fs.stages;
      x = fs.stages ? fs.resolve_ms : fs.total_ms;
      return true;
    };
    std::vector<double> ms, extra;
    if (!time_frames(o, frame, ms, extra, &why)) {
      std::fprintf(table, "# %s frame failed: %s\n", label.c_str(), why.c_str());
      ++failures;
      return;
    }
    if (r.points <= 10'000'000 && r.check == "ok") {
      Image full;
      FrameStats fs;
      if (!ref_renderer.render(now, rs, full, fs, &why)) {
        r.check = "FAIL(cpu: " + why + ")";
      } else {
        size_t d = 0;
        if (full.rgba.size() != img.rgba.size())
          d = full.rgba.size();
        else
          for (size_t i = 0; i < img.rgba.size(); ++i) d += img.rgba[i] != full.rgba[i];
        if (d) {
          r.check = "FAIL(timed frame: " + std::to_string(d) + " px differ)";
          ++failures;
        }
      }
    }
    CudaRenderer::BatchCounts bc;
    if (gpu->last_batch_counts(&bc, nullptr) && bc.occlusion) {
      char b[160];
      std::snprintf(
          b, sizeof b,
          "%slast frame: %llu + %llu of %llu batches drawn, %llu hidden, %llu out of view",
          r.note.empty() ? "" : ", ", (unsigned long long)bc.first, (unsigned long long)bc.second,
          (unsigned long long)bc.batches, (unsigned long long)bc.occluded,
          (unsigned long long)bc.culled);
      r.note += b;
    }
    r.ms = summarize(ms);
    r.extra_ms = summarize(extra).median;
    r.extra_name = stages ? "resolve_ms" : "render_with_host_copy_ms";
    if (stages) {
      char b[64];
      std::snprintf(b, sizeof b, "%sresolve %.4f ms", r.note.empty() ? "" : ", ", r.extra_ms);
      r.note += b;
    }
    const auto fb = gpu_frame_bytes.find({rs.width, rs.height});
    const double held = double(gpu->memory_bytes());
    r.bytes_per_point =
        (held - (fb != gpu_frame_bytes.end() ? fb->second - 16.0 : 0.0)) / double(r.points);
    if (copy_bw > 0)
      r.copy_fraction = double(r.points) * r.bytes_per_point / (r.ms.median * 1e-3) / copy_bw;
    rows.push_back(r);
    write_json_out();
    print_row(table, r);
  };
#endif

  for (uint64_t n : o.points) {
    const uint64_t avail = host_memory_available();
    const bool want_morton =
        std::find(o.orders.begin(), o.orders.end(), "morton") != o.orders.end();
    // The cloud (16 B a point) and, for the Morton order, the sort's keys and gather (20 B).
    const double need = double(n) * (want_morton ? 36.0 : 17.0);
    if (avail > 0 && need > 0.9 * double(avail)) {
      std::fprintf(table,
                   "# %llu points: skipped: needs about %.1f GiB of host memory, %.1f GiB "
                   "available\n",
                   (unsigned long long)n, need / 1073741824.0, double(avail) / 1073741824.0);
      continue;
    }
    Stopwatch gen;
    PointCloud cloud = make_scene("cube", n, 1);
    std::fprintf(table, "# cube of %llu points generated in %.0f ms\n", (unsigned long long)n,
                 gen.ms());
    bool sorted = false;
    for (const std::string& order : o.orders) {
      if (order == "morton" && !sorted) {
        Stopwatch ms;
        morton_sort(cloud);
        sorted = true;
        std::fprintf(table, "# Morton-sorted in %.0f ms\n", ms.ms());
      } else if (order == "random" && sorted) {
        cloud = make_scene("cube", n, 1);
        sorted = false;
      }
      cloud_bounds = cloud.world_bounds();
      const bool run_cpu = wants(o, "cpu") && n <= o.cpu_max;
      bool run_gl = gl && n <= o.gl_max;
#if defined(PR_BENCH_CUDA)
      bool run_gpu = false;
#endif
      // The CPU renderer is also the reference image for the checks.
      if (!cpu.set_cloud(cloud, &why)) {
        std::fprintf(table, "# cpu: %s\n", why.c_str());
        ++failures;
        continue;
      }
#if defined(PR_BENCH_CUDA)
      const bool want_default =
          std::find(o.gpu_modes.begin(), o.gpu_modes.end(), "default") != o.gpu_modes.end();
      if (gpu && n <= o.gpu_max && want_default) {
        if (o.gpu_modes_given) {  // explicit modes: "default" means the renderer's defaults
          gpu->set_options(RenderOptions{});
          CudaTuning t = gpu->tuning();
          t.rounds = -1;
          gpu->set_tuning(t);
        }
        Stopwatch up;
        run_gpu = gpu->set_cloud(cloud, &why);
        if (!run_gpu)
          std::fprintf(table, "# gpu %llu %s: skipped: %s\n", (unsigned long long)n, order.c_str(),
                       why.c_str());
        else
          std::fprintf(table, "# gpu: uploaded in %.0f ms\n", up.ms());
      }
#endif
      if (run_gl) {
        Stopwatch up;
        run_gl = gl->set_cloud(cloud, &why);
        if (!run_gl)
          std::fprintf(table, "# gl %llu %s: skipped: %s\n", (unsigned long long)n, order.c_str(),
                       why.c_str());
        else
          std::fprintf(table, "# gl: uploaded in %.0f ms\n", up.ms());
      }
      for (const auto& wh : o.sizes) {
        const int W = wh.first, H = wh.second;
        for (const std::string& camname : o.cameras) {
          Camera cam = scene_camera("cube", cloud);  // the seed's camera, inside the cube
          if (camname != "inside") cam.frame(cloud_bounds, double(W) / double(H));
          Row base;
          base.points = n;
          base.order = order;
          base.camera = camname;
          base.width = W;
          base.height = H;
          // Reference image on a small frame.
          RenderSettings small;
          small.width = o.check_size.first;
          small.height = o.check_size.second;
          Image ref;
          FrameStats st;
          if (!cpu.render(cam, small, ref, st, &why)) {
            std::fprintf(table, "# cpu check frame failed: %s\n", why.c_str());
            ++failures;
            continue;
          }
          RenderSettings rs;
          rs.width = W;
          rs.height = H;
          std::vector<double> ms, extra;
#if defined(PR_BENCH_CUDA)
          if (run_gpu) gpu_row(base, "gpu", "", cam, small, rs, ref, cpu);
#endif
          if (run_gl) {
            Row r = base;
            r.renderer = "gl";
            double t = 0, x = 0;
            Image img;
            if (gl->render(cam, small.width, small.height, t, x, &why) &&
                gl->read_image(img, &why)) {
              size_t same = 0;
              for (size_t i = 0; i < img.rgba.size() && i < ref.rgba.size(); ++i)
                same += img.rgba[i] == ref.rgba[i];
              // GL breaks depth ties its own way and rounds with its own floats: a few pixels
              // differ. Far fewer equal pixels means its projection is not the seed's.
              const double share = double(same) / double(ref.rgba.size());
              char b[64];
              std::snprintf(b, sizeof b, "%s%.2f%% px = cpu%s", share < 0.95 ? "FAIL(" : "",
                            100.0 * share, share < 0.95 ? ")" : "");
              r.check = b;
              if (share < 0.95) ++failures;
            } else {
              r.check = "FAIL(" + why + ")";
            }
            // NVIDIA's timer query measures the GPU's clear + draw; a software GL (llvmpipe)
            // draws inside glFinish, so there only the host clock means anything.
            const bool soft = gl_name.find("llvmpipe") != std::string::npos ||
                              gl_name.find("softpipe") != std::string::npos;
            int k = 0;
            auto frame = [&](double& tt, double& xx, std::string* e) {
              double q = 0, w = 0;
              if (!gl->render(view(cam, camname, ++k, W, H), W, H, q, w, e)) return false;
              tt = soft ? w : q;
              xx = soft ? q : w;
              return true;
            };
            if (time_frames(o, frame, ms, extra, &why)) {
              r.ms = summarize(ms);
              r.extra_ms = summarize(extra).median;
              r.extra_name = soft ? "gl_timer_query_ms" : "glfinish_wall_ms";
              r.bytes_per_point = double(gl->memory_bytes()) / double(n);
              if (copy_bw > 0)
                r.copy_fraction = double(n) * r.bytes_per_point / (r.ms.median * 1e-3) / copy_bw;
              r.note = soft ? "glFinish wall time (software GL)" : "GL timer query";
              rows.push_back(r);
              write_json_out();
              print_row(table, r);
            } else {
              std::fprintf(table, "# gl frame failed: %s\n", why.c_str());
            }
          }
          if (run_cpu) {
            Row r = base;
            r.renderer = "cpu";
            r.check = "reference";
            Image img;
            int k = 0;
            auto frame = [&](double& t, double& x, std::string* e) {
              FrameStats fs;
              if (!cpu.render(view(cam, camname, ++k, W, H), rs, img, fs, e)) return false;
              t = fs.total_ms;
              x = fs.raster_ms;
              return true;
            };
            if (time_frames(o, frame, ms, extra, &why)) {
              r.ms = summarize(ms);
              r.extra_ms = summarize(extra).median;
              r.extra_name = "raster_ms";
              // Host bytes a point occupies (float xyz + RGBA8), read from main memory.
              r.bytes_per_point = double(cloud.memory_bytes()) / double(n);
              char b[160];
              std::snprintf(b, sizeof b, "%u threads", cpu.threads());
              r.note = b;
              if (cpu.occlusion_ran()) {
                std::snprintf(b, sizeof b, ", last frame: %llu batches hidden, %llu drawn late",
                              (unsigned long long)cpu.occluded_batches(),
                              (unsigned long long)cpu.second_pass_batches());
                r.note += b;
              }
              rows.push_back(r);
              write_json_out();
              print_row(table, r);
            } else {
              std::fprintf(table, "# cpu frame failed: %s\n", why.c_str());
              ++failures;
            }
          }
        }
      }
#if defined(PR_BENCH_CUDA)
      // The other storage modes, each uploaded once and checked against a CPU renderer set up
      // the same way (compact positions draw the dequantized points, on both sides).
      // One CPU reference per storage form (compact, sorted) and cloud: the host's compact
      // encoding of 1e9 points takes half a minute, and several modes share it.
      std::map<std::pair<bool, bool>, std::unique_ptr<CpuRenderer>> refs;
      for (const std::string& mode : o.gpu_modes) {
        if (mode == "default" || !gpu || n > o.gpu_max) continue;
        // Each token of the mode on top of the defaults; every mode but nosort sorts its cloud.
        RenderOptions ro;
        ro.sort = mode.find("nosort") == std::string::npos ? Toggle::kOn : Toggle::kOff;
        ro.compact = mode.find("compact") != std::string::npos;
        ro.culling = mode.find("nocull") == std::string::npos;
        if (mode.find("noocc") != std::string::npos)
          ro.occlusion = Toggle::kOff;
        else if (mode.find("occl") != std::string::npos)
          ro.occlusion = Toggle::kOn;
        gpu->set_options(ro);
        const bool compact = ro.compact, sort = ro.sort == Toggle::kOn;
        CudaTuning tuning = gpu->tuning();
        tuning.rounds = -1;  // the renderer's choice unless a token rN forces it
        for (size_t b = 0; b <= mode.size();) {
          const size_t e = std::min(mode.find('+', b), mode.size());
          if (const int r = mode_rounds(mode.substr(b, e - b)); r > 0) tuning.rounds = r;
          b = e + 1;
        }
        gpu->set_tuning(tuning);
        Stopwatch up;
        if (!gpu->set_cloud(cloud, &why)) {
          std::fprintf(table, "# gpu+%s %llu %s: skipped: %s\n", mode.c_str(),
                       (unsigned long long)n, order.c_str(), why.c_str());
          continue;
        }
        std::fprintf(table, "# gpu+%s: uploaded in %.0f ms%s\n", mode.c_str(), up.ms(),
                     compact ? " (compact encoding included)" : "");
        std::unique_ptr<CpuRenderer>& ref_slot = refs[{compact, compact && sort}];
        if (!ref_slot) {
          auto made = std::make_unique<CpuRenderer>(o.threads);
          RenderOptions ref_options;  // compact positions in the GPU's order
          ref_options.compact = compact;
          ref_options.sort = ro.sort;
          made->set_options(ref_options);
          if (!made->set_cloud(cloud, &why)) {
            std::fprintf(table, "# cpu reference for %s: %s\n", mode.c_str(), why.c_str());
            ++failures;
            continue;
          }
          ref_slot = std::move(made);
        }
        CpuRenderer& ref_cpu = *ref_slot;
        for (const auto& wh : o.sizes) {
          for (const std::string& camname : o.cameras) {
            Camera cam = scene_camera("cube", cloud);
            if (camname != "inside") cam.frame(cloud_bounds, double(wh.first) / double(wh.second));
            Row base;
            base.points = n;
            base.order = order;
            base.camera = camname;
            base.width = wh.first;
            base.height = wh.second;
            RenderSettings small, rs;
            small.width = o.check_size.first;
            small.height = o.check_size.second;
            rs.width = wh.first;
            rs.height = wh.second;
            small.edl = rs.edl = mode.find("edl") != std::string::npos;
            small.hq = rs.hq = mode.find("hq") != std::string::npos;
            Image ref;
            FrameStats st;
            if (!ref_cpu.render(cam, small, ref, st, &why)) {
              std::fprintf(table, "# cpu check frame failed: %s\n", why.c_str());
              ++failures;
              continue;
            }
            gpu_row(base, "gpu+" + mode, "", cam, small, rs, ref, ref_cpu);
          }
        }
      }
#endif
    }
    // The renderers keep pointers to the cloud: hand them an empty one before it goes.
    static const PointCloud kEmpty;
    cpu.set_cloud(kEmpty, &why);
#if defined(PR_BENCH_CUDA)
    if (gpu) gpu->set_cloud(kEmpty, &why);
#endif
    if (gl) gl->set_cloud(kEmpty, &why);
  }

  if (o.json) std::fputs(document().c_str(), stdout);
  write_json_out();
  if (failures) std::fprintf(table, "# %d check(s) FAILED\n", failures);
  return failures ? 1 : 0;
}
