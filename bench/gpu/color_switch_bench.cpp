// What a color-mode switch costs: colorize() on the host (all cores) and
// Renderer::update_colors() on the GPU (3 bytes a point packed and uploaded in stored order), for
// the cube scene with made-up intensities and classes, stored in its own order or sorted, float
// or compact positions. Each mode twice: on this thread alone (`sync`: what the window would wait
// for), then as the viewer does it (`staged`): colorize() and Renderer::stage_colors() on another
// thread while this one keeps drawing 1920x1080 frames, then update_colors() swapping the staged
// colors in; the longest frame meanwhile says whether the window stalls. Optionally checks that
// the GPU then draws the CPU's image.
//   color_switch_bench [--points N] [--sort on|off] [--compact] [--check]
// Exit 77 without a CUDA device.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "engine/colorize.h"
#include "engine/cpu_renderer.h"
#include "engine/parallel.h"
#include "engine/scenes.h"
#include "kernels/cuda_renderer.h"

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t points = 100'000'000;
  pr::RenderOptions options;
  options.sort = pr::Toggle::kOff;
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--points" && i + 1 < argc) {
      points = uint64_t(std::atof(argv[++i]));
    } else if (a == "--sort" && i + 1 < argc) {
      options.sort = std::strcmp(argv[++i], "on") == 0 ? pr::Toggle::kOn : pr::Toggle::kOff;
    } else if (a == "--compact") {
      options.compact = true;
    } else if (a == "--check") {
      check = true;
    } else {
      std::fprintf(
          stderr, "usage: color_switch_bench [--points N] [--sort on|off] [--compact] [--check]\n");
      return 2;
    }
  }
  std::string why;
  if (!pr::cuda_available(&why)) {
    std::printf("skipped: no CUDA device: %s\n", why.c_str());
    return 77;
  }
  auto gpu = pr::make_cuda_renderer(&why);
  if (!gpu) {
    std::fprintf(stderr, "%s\n", why.c_str());
    return 1;
  }
  auto t0 = std::chrono::steady_clock::now();
  pr::PointCloud cloud = pr::make_scene("cube", points);
  const size_t n = cloud.size();
  cloud.intensity.resize(n);
  cloud.classification.resize(n);
  pr::parallel_for(n, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) {
      const pr::Float3 p = cloud.positions[i];
      cloud.intensity[i] = p.y * 10.0f + 500.0f;
      cloud.classification[i] = uint8_t(int(p.x + 50.0f) / 10 % 12);
    }
  });
  std::printf("cloud: %zu points, %.0f ms; %u threads\n", n, ms_since(t0), pr::default_threads());
  gpu->set_options(options);
  t0 = std::chrono::steady_clock::now();
  if (!gpu->set_cloud(cloud, &why)) {
    std::fprintf(stderr, "set_cloud: %s\n", why.c_str());
    return 1;
  }
  std::printf("upload: %.0f ms, sorted %d, compact %d\n", ms_since(t0), int(gpu->cloud_sorted()),
              int(gpu->compact_active()));
  // The viewer keeps the cloud's bounds (elevation's automatic range needs no pass over the
  // points).
  const pr::Bounds bounds = cloud.world_bounds();
  int fails = 0;
  for (const char* mode : {"classification", "intensity", "elevation", "rgb", "classification"}) {
    pr::ColorSettings s;
    pr::parse_color_mode(mode, &s.mode, &s.field);
    pr::PodVector<uint32_t> colors;
    t0 = std::chrono::steady_clock::now();
    if (s.mode != pr::ColorMode::kRgb && !pr::colorize(cloud, s, colors, nullptr, &why, &bounds)) {
      std::fprintf(stderr, "colorize: %s\n", why.c_str());
      return 1;
    }
    const double host_ms = ms_since(t0);
    pr::set_display_colors(cloud, s.mode, std::move(colors));
    t0 = std::chrono::steady_clock::now();
    if (!gpu->update_colors(cloud, &why)) {
      std::fprintf(stderr, "update_colors: %s\n", why.c_str());
      return 1;
    }
    const double gpu_ms = ms_since(t0);
    std::printf(
        "mode=%s points=%zu sort=%d compact=%d colorize_ms=%.1f update_colors_ms=%.1f "
        "total_ms=%.1f\n",
        mode, n, int(gpu->cloud_sorted()), int(options.compact), host_ms, gpu_ms, host_ms + gpu_ms);
    // The viewer's way: colorize and stage on another thread while this one draws frames.
    pr::Camera cam;
    cam.frame(cloud.world_bounds(), 16.0 / 9.0);
    pr::RenderSettings rs;
    rs.width = 1920;
    rs.height = 1080;
    pr::Image img;
    pr::FrameStats st;
    if (!gpu->render(cam, rs, img, st, &why)) return 1;  // warm
    std::atomic<bool> done{false};
    double colorize_ms = 0.0, stage_ms = 0.0;
    bool staged = false;
    std::string stage_why;
    pr::PodVector<uint32_t> next;
    const auto switch0 = std::chrono::steady_clock::now();
    std::thread worker([&] {
      auto w0 = std::chrono::steady_clock::now();
      if (s.mode != pr::ColorMode::kRgb) pr::colorize(cloud, s, next, nullptr, &stage_why, &bounds);
      colorize_ms = ms_since(w0);
      w0 = std::chrono::steady_clock::now();
      const uint32_t* drawn =
          s.mode == pr::ColorMode::kRgb ? cloud.source_colors().data() : next.data();
      staged = gpu->stage_colors(cloud, drawn, &stage_why);
      stage_ms = ms_since(w0);
      done = true;
    });
    int frames = 0;
    double longest = 0.0;
    while (!done) {
      const auto f0 = std::chrono::steady_clock::now();
      if (!gpu->render(cam, rs, img, st, &why)) {
        std::fprintf(stderr, "render: %s\n", why.c_str());
        worker.join();
        return 1;
      }
      longest = std::max(longest, ms_since(f0));
      ++frames;
    }
    worker.join();
    pr::set_display_colors(cloud, s.mode, std::move(next));
    t0 = std::chrono::steady_clock::now();
    if (!gpu->update_colors(cloud, &why)) {
      std::fprintf(stderr, "update_colors: %s\n", why.c_str());
      return 1;
    }
    const double adopt_ms = ms_since(t0);
    std::printf(
        "  staged: colorize_ms=%.1f stage_ms=%.1f (%s) update_colors_ms=%.1f switch_ms=%.1f "
        "frames_meanwhile=%d longest_frame_ms=%.2f\n",
        colorize_ms, stage_ms, staged ? "staged" : stage_why.c_str(), adopt_ms, ms_since(switch0),
        frames, longest);
    if (check) {
      pr::CpuRenderer cpu;
      cpu.set_options(options);
      if (!cpu.set_cloud(cloud, &why)) return 1;
      rs.width = 640;
      rs.height = 360;
      pr::Image a, b;
      if (!cpu.render(cam, rs, a, st, &why) || !gpu->render(cam, rs, b, st, &why)) return 1;
      const bool same = a.rgba == b.rgba;
      fails += !same;
      std::printf("  check %s: GPU image %s the CPU image\n", mode,
                  same ? "equals" : "DIFFERS from");
    }
  }
  return fails ? 1 : 0;
}
