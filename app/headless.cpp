// Headless rendering: no window, K frames, timings on stdout, the last frame as PNG.
#include "headless.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "engine/frame_stats.h"
#include "engine/image.h"
#include "engine/pick.h"
#include "startup.h"

namespace pr {

namespace {

/// Frame times of the run: whole frames (render() calls) and the renderer's own part of them.
struct FrameTimes {
  std::vector<double> total, render;
};

/// Builds the cloud and camera, colors the cloud, and says so. 0, or the exit code after the
/// one-line message: 1 for a file that cannot be read, 2 for a color mode the cloud lacks.
int prepare_cloud(const Options& o, Startup& s) {
  std::string why;
  Stopwatch load;
  if (!build_startup(o, s, &why)) {
    std::fprintf(stderr, "pointraster: %s\n", why.c_str());
    return 1;
  }
  ColorSettings color;
  Stopwatch coloring;
  if (!apply_color_options(o, s.cloud, up_axis_for(o, s.scene.empty()), &color, nullptr, &why)) {
    std::fprintf(stderr, "pointraster: %s\n", why.c_str());
    return 2;
  }
  const bool ramp = color.mode == ColorMode::kIntensity || color.mode == ColorMode::kElevation ||
                    color.mode == ColorMode::kField;
  std::printf("colors: %s%s%s (%.0f ms)\n",
              color.mode == ColorMode::kField ? color.field.c_str() : color_mode_name(color.mode),
              ramp ? ", colormap " : "", ramp ? colormap_name(color.colormap) : "", coloring.ms());
  std::printf("cloud %s: %zu points, %.1f MB, made in %.0f ms\n", s.cloud.name.c_str(),
              s.cloud.size(), double(s.cloud.memory_bytes()) / 1e6, load.ms());
  return 0;
}

RenderSettings headless_settings(const Options& o) {
  RenderSettings rs;
  rs.width = o.width.value_or(1280);
  rs.height = o.height.value_or(720);
  rs.point_size = o.point_size;
  rs.background = rgba(16, 18, 24);
  if (o.edl) {
    rs.edl = true;
    rs.edl_strength = *o.edl;
  }
  rs.hq = o.hq;
  if (o.points && !o.files.empty()) rs.point_count = *o.points;
  return rs;
}

/// "frame F: ..." with the stages when the renderer timed them.
void print_frame(int f, const FrameStats& st, double render_ms) {
  if (st.stages)
    std::printf(
        "frame %d: %.3f ms (render %.3f: clear %.3f, raster %.3f, resolve %.3f; copy %.3f), "
        "%.2f G points/s\n",
        f, st.total_ms, render_ms, st.clear_ms, st.raster_ms, st.resolve_ms, st.copy_ms,
        st.points_per_second() * 1e-9);
  else
    std::printf("frame %d: %.3f ms (render %.3f: the gpu frame; copy %.3f), %.2f G points/s\n", f,
                st.total_ms, render_ms, st.copy_ms, st.points_per_second() * 1e-9);
}

/// Renders `frames` frames into `img`, printing and collecting their times; false after the
/// one-line message when a frame fails.
bool render_frames(Renderer& renderer, const Camera& camera, const RenderSettings& rs, bool gpu,
                   int frames, Image& img, FrameTimes& times) {
  std::string why;
  for (int f = 0; f < frames; ++f) {
    FrameStats st;
    if (!renderer.render(camera, rs, img, st, &why)) {
      std::fprintf(stderr, "pointraster: frame %d failed: %s\n", f + 1, why.c_str());
      return false;
    }
    // The renderer's own frame: on the GPU the device frame by CUDA events, without the
    // read-back (copy_ms); on the CPU the whole render() call.
    const double render_ms = !gpu        ? st.total_ms
                             : st.stages ? st.clear_ms + st.raster_ms + st.resolve_ms
                                         : st.raster_ms;
    times.total.push_back(st.total_ms);
    times.render.push_back(render_ms);
    print_frame(f + 1, st, render_ms);
  }
  return true;
}

/// --pick: the point drawn at that very pixel of the last frame (engine/pick.h).
bool print_pick(const Options& o, Renderer& renderer, const Startup& s, const RenderSettings& rs) {
  PickResult picked;
  CompactCloud scratch;
  Stopwatch pick_time;
  std::string why;
  if (!pick_in_frame(renderer, s.cloud, s.camera, rs, o.pick->first, o.pick->second, 0, &scratch,
                     &picked, &why)) {
    std::fprintf(stderr, "pointraster: --pick: %s\n", why.c_str());
    return false;
  }
  std::printf("%s\n", pick_line(picked).c_str());
  std::printf("pick_ms=%.1f\n", pick_time.ms());
  return true;
}

/// Draws the frames, then --pick and --screenshot; the exit code.
int render_and_report(const Options& o, const std::string& mode, Renderer& renderer,
                      const Startup& s) {
  const RenderSettings rs = headless_settings(o);
  const int frames = o.frames > 0 ? o.frames : 5;
  Image img;
  FrameTimes times;
  if (!render_frames(renderer, s.camera, rs, mode == "gpu", frames, img, times)) return 1;
  if (o.pick && !print_pick(o, renderer, s, rs)) return 1;
  if (!o.screenshot.empty()) {
    std::string why;
    if (!write_png(o.screenshot, img, &why)) {
      std::fprintf(stderr, "pointraster: %s\n", why.c_str());
      return 1;
    }
    std::printf("wrote %s\n", o.screenshot.c_str());
  }
  const double min_ms =
      times.total.empty() ? 0.0 : *std::min_element(times.total.begin(), times.total.end());
  std::printf(
      "summary mode=%s points=%llu width=%d height=%d frames=%d median_ms=%.4f min_ms=%.4f "
      "render_ms=%.4f\n",
      mode.c_str(), (unsigned long long)effective_count(s.cloud.size(), rs.point_count), rs.width,
      rs.height, frames, median(times.total), min_ms, median(times.render));
  return 0;
}

}  // namespace

int run_headless(const Options& o) {
  const std::string mode = o.mode.value_or("cpu");
  std::string why;
  auto renderer = make_renderer(mode, o, &why);
  if (!renderer) {
    std::fprintf(stderr, "pointraster: --mode %s is not available: %s\n", mode.c_str(),
                 why.c_str());
    return 1;
  }
  Startup s;
  if (const int rc = prepare_cloud(o, s); rc != 0) return rc;
  if (!renderer->set_cloud(s.cloud, &why)) {
    std::fprintf(stderr, "pointraster: %s renderer refused the cloud: %s\n", mode.c_str(),
                 why.c_str());
    return 1;
  }
  std::printf("positions: %s, %s renderer memory %.1f MB\n",
              renderer->compact_active() ? "compact (4 bytes, quantized)" : "float (12 bytes)",
              mode.c_str(), double(renderer->memory_bytes()) / 1e6);
  return render_and_report(o, mode, *renderer, s);
}

}  // namespace pr
