// What a color-mode switch costs: colorize() on the host (all cores, into the array the cloud
// showed before, as the viewer does) and Renderer::update_colors() on the GPU (3 bytes a point
// packed and uploaded in stored order), for the cube scene with made-up intensities and classes,
// stored in its own order or sorted, float or compact positions. Each mode three times: on this
// thread alone (`sync`: what the window would wait for); with colorize() and
// Renderer::stage_colors() on another thread while this one keeps drawing 1920x1080 frames, then
// update_colors() swapping the staged colors in (`staged`); and as the viewer does it (`recipe`):
// the GPU computes the colors from their recipe (Renderer::stage_recipe()) and shows them at
// once while colorize() makes the host's copy. `shown_ms` is what the window waits for, the
// longest frame meanwhile says whether it stalls. Optionally checks that the GPU then draws the
// CPU's image. `--recipe-only`: the viewer's way alone, so that each switch finds what the one
// before left on the device (the file's colors kept at the first switch away from RGB).
//   color_switch_bench [--points N] [--sort on|off] [--compact] [--check] [--recipe-only]
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

struct Args {
  uint64_t points = 100'000'000;
  pr::RenderOptions options;
  bool check = false;
  bool recipe_only = false;  ///< the viewer's way alone: each switch sees what the last one left
};

bool parse_args(int argc, char** argv, Args& o) {
  o.options.sort = pr::Toggle::kOff;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--points" && i + 1 < argc) {
      o.points = uint64_t(std::atof(argv[++i]));
    } else if (a == "--sort" && i + 1 < argc) {
      o.options.sort = std::strcmp(argv[++i], "on") == 0 ? pr::Toggle::kOn : pr::Toggle::kOff;
    } else if (a == "--compact") {
      o.options.compact = true;
    } else if (a == "--check") {
      o.check = true;
    } else if (a == "--recipe-only") {
      o.recipe_only = true;
    } else {
      std::fprintf(stderr,
                   "usage: color_switch_bench [--points N] [--sort on|off] [--compact] [--check] "
                   "[--recipe-only]\n");
      return false;
    }
  }
  return true;
}

/// The cube scene with made-up intensities (from y) and classes (from x).
pr::PointCloud make_cloud(uint64_t points) {
  const auto t0 = std::chrono::steady_clock::now();
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
  return cloud;
}

/// One color mode's switches, sync then staged, and the optional image check.
class Switch {
 public:
  Switch(const Args& o, pr::CudaRenderer& gpu, pr::PointCloud& cloud)
      : o_(o), gpu_(gpu), cloud_(cloud), bounds_(cloud.world_bounds()) {
    cam_.frame(cloud.world_bounds(), 16.0 / 9.0);
  }
  /// False after a message on a failure (the exit code is 1); `fails` counts differing images.
  bool run(const char* mode, int& fails);

 private:
  bool sync(const char* mode, const pr::ColorSettings& s);
  bool staged(const char* mode, const pr::ColorSettings& s, bool recipe);
  bool check(const char* mode, int& fails);

  const Args& o_;
  pr::CudaRenderer& gpu_;
  pr::PointCloud& cloud_;
  // The viewer keeps the cloud's bounds (elevation's automatic range needs no pass over the
  // points).
  const pr::Bounds bounds_;
  pr::Camera cam_;
  std::string why_;
  // The array the cloud showed before the last switch, which the next one fills (the viewer's
  // ColorState::spare): its pages are mapped already.
  pr::PodVector<uint32_t> spare_;
};

// On this thread alone: what the window would wait for.
bool Switch::sync(const char* mode, const pr::ColorSettings& s) {
  pr::PodVector<uint32_t> colors = std::move(spare_);
  auto t0 = std::chrono::steady_clock::now();
  if (s.mode != pr::ColorMode::kRgb && !pr::colorize(cloud_, s, colors, nullptr, &why_, &bounds_)) {
    std::fprintf(stderr, "colorize: %s\n", why_.c_str());
    return false;
  }
  const double host_ms = ms_since(t0);
  spare_ = pr::set_display_colors(cloud_, s.mode, std::move(colors));
  t0 = std::chrono::steady_clock::now();
  if (!gpu_.update_colors(cloud_, &why_)) {
    std::fprintf(stderr, "update_colors: %s\n", why_.c_str());
    return false;
  }
  const double gpu_ms = ms_since(t0);
  std::printf(
      "mode=%s points=%zu sort=%d compact=%d colorize_ms=%.1f update_colors_ms=%.1f "
      "total_ms=%.1f\n",
      mode, cloud_.size(), int(gpu_.cloud_sorted()), int(o_.options.compact), host_ms, gpu_ms,
      host_ms + gpu_ms);
  return true;
}

// The viewer's way, on another thread while this one draws frames: with `recipe`, the GPU
// computes the colors from their recipe first (Renderer::stage_recipe()) and this thread shows
// them as soon as they are staged (`shown_ms`, what the window waits for), while colorize() makes
// the host's copy; without, colorize() and Renderer::stage_colors() (pack and upload), then
// update_colors() swaps them in.
bool Switch::staged(const char* mode, const pr::ColorSettings& s, bool recipe) {
  pr::RenderSettings rs;
  rs.width = 1920;
  rs.height = 1080;
  pr::Image img;
  pr::FrameStats st;
  if (!gpu_.render(cam_, rs, img, st, &why_)) return false;  // warm
  std::atomic<bool> done{false}, recipe_ready{false};
  double recipe_ms = 0.0, colorize_ms = 0.0, stage_ms = 0.0;
  bool staged = false;
  std::string stage_why = "not tried";
  pr::PodVector<uint32_t> next = std::move(spare_);
  const auto switch0 = std::chrono::steady_clock::now();
  std::thread worker([&] {
    auto w0 = std::chrono::steady_clock::now();
    pr::ColorRecipe r;
    if (recipe && pr::color_recipe(cloud_, s, &r, &bounds_) &&
        gpu_.stage_recipe(cloud_, r, &stage_why)) {
      recipe_ms = ms_since(w0);
      recipe_ready = true;
    }
    w0 = std::chrono::steady_clock::now();
    if (s.mode != pr::ColorMode::kRgb) pr::colorize(cloud_, s, next, nullptr, &stage_why, &bounds_);
    colorize_ms = ms_since(w0);
    w0 = std::chrono::steady_clock::now();
    const uint32_t* drawn =
        s.mode == pr::ColorMode::kRgb ? cloud_.source_colors().data() : next.data();
    if (!recipe_ready) staged = gpu_.stage_colors(cloud_, drawn, &stage_why);
    stage_ms = ms_since(w0);
    done = true;
  });
  int frames = 0;
  double longest = 0.0, shown_ms = -1.0;
  while (!done) {
    if (shown_ms < 0.0 && recipe_ready && gpu_.show_staged_recipe(cloud_))
      shown_ms = ms_since(switch0);
    const auto f0 = std::chrono::steady_clock::now();
    if (!gpu_.render(cam_, rs, img, st, &why_)) {
      std::fprintf(stderr, "render: %s\n", why_.c_str());
      worker.join();
      return false;
    }
    longest = std::max(longest, ms_since(f0));
    ++frames;
  }
  worker.join();
  if (shown_ms < 0.0 && recipe_ready && gpu_.show_staged_recipe(cloud_))
    shown_ms = ms_since(switch0);
  spare_ = pr::set_display_colors(cloud_, s.mode, std::move(next));
  const auto t0 = std::chrono::steady_clock::now();
  if (shown_ms < 0.0 && !gpu_.update_colors(cloud_, &why_)) {
    std::fprintf(stderr, "update_colors: %s\n", why_.c_str());
    return false;
  }
  const double adopt_ms = ms_since(t0);
  const double done_ms = ms_since(switch0);
  std::printf(
      "  %s %s: recipe_ms=%.1f colorize_ms=%.1f stage_ms=%.1f (%s) update_colors_ms=%.1f "
      "shown_ms=%.1f all_done_ms=%.1f frames_meanwhile=%d longest_frame_ms=%.2f\n",
      mode, recipe ? "recipe" : "staged", recipe_ms, colorize_ms, stage_ms,
      shown_ms >= 0.0 ? "recipe"
      : staged        ? "staged"
                      : stage_why.c_str(),
      adopt_ms, shown_ms >= 0.0 ? shown_ms : done_ms, done_ms, frames, longest);
  return true;
}

// The GPU draws the CPU's image after the switch.
bool Switch::check(const char* mode, int& fails) {
  pr::CpuRenderer cpu;
  cpu.set_options(o_.options);
  if (!cpu.set_cloud(cloud_, &why_)) return false;
  pr::RenderSettings rs;
  rs.width = 640;
  rs.height = 360;
  pr::Image a, b;
  pr::FrameStats st;
  if (!cpu.render(cam_, rs, a, st, &why_) || !gpu_.render(cam_, rs, b, st, &why_)) return false;
  const bool same = a.rgba == b.rgba;
  fails += !same;
  std::printf("  check %s: GPU image %s the CPU image\n", mode, same ? "equals" : "DIFFERS from");
  return true;
}

bool Switch::run(const char* mode, int& fails) {
  pr::ColorSettings s;
  pr::parse_color_mode(mode, &s.mode, &s.field);
  if (!o_.recipe_only && (!sync(mode, s) || !staged(mode, s, false))) return false;
  if (!staged(mode, s, true)) return false;
  return !o_.check || check(mode, fails);
}

}  // namespace

int main(int argc, char** argv) {
  Args o;
  if (!parse_args(argc, argv, o)) return 2;
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
  pr::PointCloud cloud = make_cloud(o.points);
  gpu->set_options(o.options);
  const auto t0 = std::chrono::steady_clock::now();
  if (!gpu->set_cloud(cloud, &why)) {
    std::fprintf(stderr, "set_cloud: %s\n", why.c_str());
    return 1;
  }
  std::printf("upload: %.0f ms, sorted %d, compact %d\n", ms_since(t0), int(gpu->cloud_sorted()),
              int(gpu->compact_active()));
  Switch sw(o, *gpu, cloud);
  int fails = 0;
  for (const char* mode :
       {"classification", "intensity", "elevation", "rgb", "classification", "rgb"})
    if (!sw.run(mode, fails)) return 1;
  return fails ? 1 : 0;
}
