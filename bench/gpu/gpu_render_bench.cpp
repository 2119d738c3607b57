// gpu_render_bench: times the CUDA renderer at 1080p (by default) over point counts, point order
// (the generator's random order, or sorted along a Morton curve) and cameras (overview: the whole
// cloud in view; inside: the scene's own camera, for the cube its camera inside it).
// Before timing each cloud, the GPU image is checked against the CPU renderer's on a small frame.
//
//   gpu_render_bench [--scene cube] [--points 1e5,1e6,1e7,1e8,1e9] [--width 1920 --height 1080]
//                    [--frames 50] [--orders random,morton] [--cameras overview,inside] [--json]
//                    [--sorts off,morton] [--compact off,on] [--stage-timing]
//
// --compact on uploads compact quantized positions (engine/compact.h: 4 B a point in batches of
// 4096 with culled boxes; with --sorts morton the Morton order is computed on the host by the
// encoder and the upload time includes it); the check then compares with the CPU renderer's
// compact positions in the same order. --sorts uploads the cloud in its own order (off:
// RenderOptions::sort kOff) and/or sorted along a Morton curve on the GPU at upload (morton: kOn;
// the upload time then includes the sort). Sorting an already Morton-ordered cloud again is
// skipped. --stage-timing times clear, raster and resolve apart (CudaTuning::stage_timing).
//
// Columns: the device time of a frame as the interop path runs it (clear + raster + resolve,
// CUDA events; median and the spread p10..p90 over --frames after warm-up), the render() time
// with its device-to-host copy (the fallback/headless path), points/s, device bytes per point,
// and the fraction of the measured device copy bandwidth the raster's 12-byte point reads reach.
// The storage column says "plain" (float positions) or "compact".
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "engine/cpu_renderer.h"
#include "engine/parallel.h"
#include "engine/scenes.h"
#include "kernels/cuda_renderer.h"

namespace {

using namespace pr;

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream ss(s);
  std::string t;
  while (std::getline(ss, t, ',')) v.push_back(t);
  return v;
}

uint64_t parse_count(const std::string& s) {
  return uint64_t(std::strtod(s.c_str(), nullptr));
}

double pct(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[size_t(q * double(v.size() - 1) + 0.5)];
}

/// Device-to-device copy bandwidth (bytes read + written per second) on 2 GiB buffers.
double copy_bandwidth() {
  const size_t bytes = size_t(1) << 31;
  void *a = nullptr, *b = nullptr;
  if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) {
    (void)cudaGetLastError();
    cudaFree(a);
    return 0.0;
  }
  cudaMemset(a, 1, bytes);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<double> t;
  for (int i = 0; i < 12; ++i) {
    cudaEventRecord(e0);
    cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    if (i >= 2) t.push_back(ms);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaFree(a);
  cudaFree(b);
  return 2.0 * double(bytes) / (pct(t, 0.5) * 1e-3);
}

/// Sorts the cloud along a Morton (Z-order) curve of its bounding box, 10 bits per axis: spatially
/// coherent order, as a file from a scanner or an octree would have.
void morton_sort(PointCloud& c) {
  const Bounds b = c.local_bounds();
  const glm::dvec3 lo = b.min, ext = glm::max(b.size(), glm::dvec3(1e-9));
  auto spread = [](uint32_t v) {
    v &= 0x3ff;
    v = (v | (v << 16)) & 0x030000ff;
    v = (v | (v << 8)) & 0x0300f00f;
    v = (v | (v << 4)) & 0x030c30c3;
    v = (v | (v << 2)) & 0x09249249;
    return v;
  };
  const size_t n = c.size();
  std::vector<uint64_t> keyed(n);  // morton << 32 | index
  parallel_for(n, [&](size_t s, size_t e) {
    for (size_t i = s; i < e; ++i) {
      const Float3 p = c.positions[i];
      auto q = [&](float v, int a) {
        const double t = (double(v) - lo[a]) / ext[a];
        return uint32_t(std::clamp(t, 0.0, 1.0) * 1023.0);
      };
      const uint32_t m = spread(q(p.x, 0)) | (spread(q(p.y, 1)) << 1) | (spread(q(p.z, 2)) << 2);
      keyed[i] = (uint64_t(m) << 32) | i;
    }
  });
  // Parallel sort: sort chunks, then merge pairwise.
  const unsigned t = default_threads();
  const size_t chunk = (n + t - 1) / t;
  parallel_for(
      t,
      [&](size_t s, size_t e) {
        for (size_t k = s; k < e; ++k) {
          const size_t a = std::min(n, k * chunk), z = std::min(n, (k + 1) * chunk);
          std::sort(keyed.begin() + long(a), keyed.begin() + long(z));
        }
      },
      t, 1);
  for (size_t w = chunk; w < n; w *= 2)
    parallel_for((n + 2 * w - 1) / (2 * w),
                 [&](size_t s, size_t e) {
                   for (size_t k = s; k < e; ++k) {
                     const size_t a = k * 2 * w, m = std::min(n, a + w), z = std::min(n, a + 2 * w);
                     std::inplace_merge(keyed.begin() + long(a), keyed.begin() + long(m),
                                        keyed.begin() + long(z));
                   }
                 },
                 t, 1);
  PodVector<Float3> pos(n);
  PodVector<uint32_t> col(n);
  parallel_for(n, [&](size_t s, size_t e) {
    for (size_t i = s; i < e; ++i) {
      const size_t j = size_t(keyed[i] & 0xffffffffu);
      pos[i] = c.positions[j];
      col[i] = c.colors[j];
    }
  });
  c.positions.swap(pos);
  c.colors.swap(col);
}

struct Args {
  std::string scene = "cube";
  std::vector<std::string> counts = {"1e5", "1e6", "1e7", "1e8"};
  std::vector<std::string> orders = {"random"}, cameras = {"overview", "inside"};
  std::vector<std::string> sorts = {"off"}, compacts = {"off"};
  int width = 1920, height = 1080, frames = 50, check_max = 0;  // --check-max: accepted, unused
  bool json = false, stage_timing = false;
};

/// False after the usage line on an unknown option; exits with 2 when an option lacks its value.
bool parse_args(int argc, char** argv, Args& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "gpu_render_bench: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--scene")
      o.scene = next();
    else if (a == "--points")
      o.counts = split(next());
    else if (a == "--orders")
      o.orders = split(next());
    else if (a == "--cameras")
      o.cameras = split(next());
    else if (a == "--sorts")
      o.sorts = split(next());
    else if (a == "--compact")
      o.compacts = split(next());
    else if (a == "--width")
      o.width = std::atoi(next().c_str());
    else if (a == "--height")
      o.height = std::atoi(next().c_str());
    else if (a == "--frames")
      o.frames = std::atoi(next().c_str());
    else if (a == "--check-max")
      o.check_max = std::atoi(next().c_str());
    else if (a == "--json")
      o.json = true;
    else if (a == "--stage-timing")
      o.stage_timing = true;
    else {
      std::fprintf(stderr,
                   "usage: gpu_render_bench [--scene S] [--points 1e5,1e6,...] "
                   "[--orders random,morton] [--cameras overview,inside] [--width W] "
                   "[--height H] [--frames N] [--sorts off,morton] [--compact off,on] "
                   "[--stage-timing] [--json]\n");
      return false;
    }
  }
  return true;
}

/// One uploaded cloud: its count, name in the rows ("random+gpusort+compact", ...), storage and
/// upload time.
struct Variant {
  const PointCloud& cloud;
  uint64_t n;
  std::string order_name;
  RenderOptions options;
  double upload_ms;
};

/// One camera's timed frames of an uploaded cloud.
struct Timing {
  std::vector<double> dev, host, raster;
};

class Bench {
 public:
  Bench(const Args& o, CudaRenderer& gpu, double bw) : o_(o), gpu_(gpu), bw_(bw) {}
  /// Every count, order, sort and storage; false on a render failure (the exit code is 1).
  bool run();
  int failures() const { return failures_; }

 private:
  bool run_order(const PointCloud& cloud, uint64_t n, const std::string& cs,
                 const std::string& order, double gen_ms);
  bool run_camera(const Variant& v, const std::string& camname);
  bool check_image(const Variant& v, const Camera& cam, std::string& check);
  bool time_frames(const Variant& v, const Camera& cam, Timing& t);
  void print_row(const Variant& v, const std::string& camname, const std::string& check,
                 const Timing& t);

  const Args& o_;
  CudaRenderer& gpu_;
  const double bw_;
  std::string why_;
  bool first_row_ = true;
  int failures_ = 0;
};

bool Bench::run() {
  for (const std::string& cs : o_.counts) {
    const uint64_t n = parse_count(cs);
    Stopwatch gen;
    PointCloud cloud = make_scene(o_.scene, n);
    const double gen_ms = gen.ms();
    for (const std::string& order : o_.orders) {
      if (order == "morton") {
        Stopwatch ms;
        morton_sort(cloud);
        if (!o_.json) std::printf("# morton order on the host in %.0f ms\n", ms.ms());
      }
      if (!run_order(cloud, n, cs, order, gen_ms)) return false;
    }
  }
  return true;
}

/// The cloud in one order uploaded with each sort and storage, and each camera's row.
bool Bench::run_order(const PointCloud& cloud, uint64_t n, const std::string& cs,
                      const std::string& order, double gen_ms) {
  for (const std::string& sort : o_.sorts)
    for (const std::string& compact_s : o_.compacts) {
      const bool sorted = sort == "morton";
      const bool compact = compact_s == "on";
      if (sorted && order == "morton") continue;  // already in Morton order
      RenderOptions options;
      options.sort = sorted ? Toggle::kOn : Toggle::kOff;
      options.compact = compact;
      gpu_.set_options(options);
      Stopwatch up;
      if (!gpu_.set_cloud(cloud, &why_)) {
        std::fprintf(stderr, "gpu_render_bench: %s %s: %s\n", cs.c_str(), order.c_str(),
                     why_.c_str());
        ++failures_;
        continue;
      }
      const Variant v{cloud, n,
                      order + (gpu_.cloud_sorted() ? "+gpusort" : "") +
                          (gpu_.compact_active() ? "+compact" : ""),
                      options, up.ms()};
      if (!o_.json)
        std::printf(
            "# %s %llu points (%s): generated in %.0f ms, uploaded in %.0f ms%s\n",
            o_.scene.c_str(), (unsigned long long)n, v.order_name.c_str(), gen_ms, v.upload_ms,
            gpu_.cloud_sorted() ? (compact ? " (Morton order on the host + encoding included)"
                                           : " (Morton sort on the GPU included)")
                                : (compact ? " (encoding on the host included)" : ""));
      for (const std::string& camname : o_.cameras)
        if (!run_camera(v, camname)) return false;
    }
  return true;
}

// Correctness first: the GPU image equals the CPU's on a small frame ("skipped" above 2e8 points,
// where the CPU reference takes too long).
bool Bench::check_image(const Variant& v, const Camera& cam, std::string& check) {
  check = "skipped";
  if (v.n > 200'000'000ull) return true;
  RenderSettings small;
  small.width = 320;
  small.height = 180;
  Image cpu_small;
  {
    auto cpu = std::make_unique<CpuRenderer>();
    cpu->set_options(v.options);  // compact positions in the GPU's order
    FrameStats s1;
    cpu->set_cloud(v.cloud, &why_);
    if (!cpu->render(cam, small, cpu_small, s1, &why_)) {
      std::fprintf(stderr, "gpu_render_bench: check render failed: %s\n", why_.c_str());
      return false;
    }
  }
  if (cpu_small.rgba.empty()) return true;
  Image b;
  FrameStats s2;
  if (!gpu_.render(cam, small, b, s2, &why_)) {
    std::fprintf(stderr, "gpu_render_bench: check render failed: %s\n", why_.c_str());
    return false;
  }
  size_t diff = 0;
  for (size_t i = 0; i < cpu_small.rgba.size(); ++i) diff += cpu_small.rgba[i] != b.rgba[i];
  check = diff == 0 ? "ok" : "FAIL(" + std::to_string(diff) + " px)";
  if (diff) ++failures_;
  return true;
}

bool Bench::time_frames(const Variant& v, const Camera& cam, Timing& t) {
  RenderSettings rs;
  rs.width = o_.width;
  rs.height = o_.height;
  Image img;
  const int warm = v.n >= 500'000'000ull ? 3 : 5;
  for (int f = 0; f < o_.frames + warm; ++f) {
    FrameStats st;
    if (!gpu_.render(cam, rs, img, st, &why_)) {
      std::fprintf(stderr, "gpu_render_bench: frame failed: %s\n", why_.c_str());
      return false;
    }
    if (f < warm) continue;
    t.dev.push_back(st.clear_ms + st.raster_ms + st.resolve_ms);
    t.raster.push_back(st.raster_ms);
    t.host.push_back(st.total_ms);
  }
  return true;
}

void Bench::print_row(const Variant& v, const std::string& camname, const std::string& check,
                      const Timing& t) {
  const bool compact = v.options.compact;
  const uint64_t n = v.n;
  const double med = pct(t.dev, 0.5);
  const double gpts = double(n) / (med * 1e-3) * 1e-9;
  const std::string vname = compact ? "compact" : "plain";
  // Per point: everything the renderer holds minus the per-pixel buffers (64-bit key + RGBA8).
  const double pix_bytes = double(size_t(o_.width) * o_.height) * 12.0;
  const double bpp = (double(gpu_.memory_bytes()) - pix_bytes) / double(n);
  // The raster's compulsory reads: 12 bytes of position a point (4 with compact positions).
  const double frac =
      bw_ > 0 ? (double(n) * (compact ? 4.0 : 12.0) / (pct(t.raster, 0.5) * 1e-3)) / bw_ : 0.0;
  if (o_.json) {
    std::printf(
        "%s  {\"renderer\": \"gpu\", \"scene\": \"%s\", \"points\": %llu, "
        "\"order\": \"%s\", \"camera\": \"%s\", \"variant\": \"%s\", "
        "\"width\": %d, \"height\": %d, "
        "\"frame_ms_median\": %.4f, \"frame_ms_p10\": %.4f, \"frame_ms_p90\": %.4f, "
        "\"raster_ms_median\": %.4f, \"render_with_copy_ms_median\": %.4f, "
        "\"upload_ms\": %.1f, \"gpoints_per_s\": %.2f, \"bytes_per_point\": %.1f, "
        "\"copy_bw_fraction\": %.3f, \"check\": \"%s\"}",
        first_row_ ? "" : ",\n", o_.scene.c_str(), (unsigned long long)n, v.order_name.c_str(),
        camname.c_str(), vname.c_str(), o_.width, o_.height, med, pct(t.dev, 0.1), pct(t.dev, 0.9),
        pct(t.raster, 0.5), pct(t.host, 0.5), v.upload_ms, gpts, bpp, frac, check.c_str());
    first_row_ = false;
  } else {
    std::printf(
        "gpu %-6s %11llu %-14s %-8s %-17s frame %8.4f ms [p10 %.4f p90 %.4f] raster "
        "%8.4f render+copy %8.4f ms  %7.2f G pts/s  %4.1f B/pt  %4.0f%% of copy bw  "
        "check %s\n",
        o_.scene.c_str(), (unsigned long long)n, v.order_name.c_str(), camname.c_str(),
        vname.c_str(), med, pct(t.dev, 0.1), pct(t.dev, 0.9), pct(t.raster, 0.5), pct(t.host, 0.5),
        gpts, bpp, frac * 100.0, check.c_str());
  }
  std::fflush(stdout);
}

bool Bench::run_camera(const Variant& v, const std::string& camname) {
  Camera cam = scene_camera(o_.scene, v.cloud);
  if (camname == "overview") cam.frame(v.cloud.world_bounds(), double(o_.width) / o_.height);
  std::string check;
  Timing t;
  if (!check_image(v, cam, check) || !time_frames(v, cam, t)) return false;
  print_row(v, camname, check, t);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Args o;
  if (!parse_args(argc, argv, o)) return 2;
  std::string why;
  auto gpu = make_cuda_renderer(&why);
  if (!gpu) {
    std::fprintf(stderr, "gpu_render_bench: no CUDA renderer: %s\n", why.c_str());
    return 1;
  }
  CudaTuning tuning;
  tuning.stage_timing = o.stage_timing;
  gpu->set_tuning(tuning);
  const double bw = copy_bandwidth();
  if (!o.json)
    std::printf("device %s, device-to-device copy %.2f TB/s (read+write), %dx%d, %d frames\n",
                gpu->device_name().c_str(), bw * 1e-12, o.width, o.height, o.frames);
  if (o.json) std::printf("[\n");
  Bench bench(o, *gpu, bw);
  if (!bench.run()) return 1;
  if (o.json) std::printf("\n]\n");
  return bench.failures() ? 1 : 0;
}
