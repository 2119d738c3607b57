// Headless rendering: no window, K frames, timings on stdout, the last frame as PNG.
#include "headless.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "cancel_signals.h"
#include "engine/frame_stats.h"
#include "engine/image.h"
#include "engine/pick.h"
#include "engine/scenes.h"
#include "kernels/gpu_renderer.h"
#include "scene_file.h"
#include "scene_home.h"
#include "startup.h"
#include "streaming.h"
#include "tiled_image.h"
#include "video_run.h"

namespace pr {

RenderSettings headless_settings(const Options& o) {
  const SceneExtras& x = o.scene_extras;  // a scene file's image, background and EDL radius
  RenderSettings rs;
  rs.width = o.width.value_or(x.image_width > 0 ? x.image_width : 1280);
  rs.height = o.height.value_or(x.image_height > 0 ? x.image_height : 720);
  rs.point_size = o.point_size;
  rs.adaptive_size = o.adaptive_size;
  if (o.max_point_size) rs.max_point_size = *o.max_point_size;
  rs.background = scene_background(x);
  if (o.edl) {
    rs.edl = true;
    rs.edl_strength = *o.edl;
  }
  if (x.edl_radius) rs.edl_radius = *x.edl_radius;
  rs.hq = o.hq;
  rs.clip = o.clip;  // --clip-box, --section (docs/CLIP.md)
  if (o.points && !o.files.empty()) rs.point_count = *o.points;
  return rs;
}

namespace {

/// Frame times of the run: whole frames (render() calls) and the renderer's own part of them.
struct FrameTimes {
  std::vector<double> total, render;
};

/// --save-view: the scene of the options with the camera, image size and colors the frames are
/// drawn with. False after the message.
bool save_view(const Options& o, const Camera& camera, const ColorSettings& color) {
  const RenderSettings rs = headless_settings(o);
  Options scene = o;
  SceneExtras& x = scene.scene_extras;
  x.camera = camera;
  x.image_width = rs.width;
  x.image_height = rs.height;
  scene.color = color.mode == ColorMode::kField ? color.field : color_mode_name(color.mode);
  scene.colormap = color.colormap;
  std::string why;
  if (!write_scene_file(o.save_view, scene, &why)) {
    std::fprintf(stderr, "pointraster: --save-view %s\n", why.c_str());
    return false;
  }
  std::printf("wrote %s\n", o.save_view.c_str());
  return true;
}

/// A scene file's hidden classes, as the class filter takes them.
std::array<bool, 256> hidden_class_mask(const Options& o) {
  std::array<bool, 256> hidden{};
  for (const uint8_t c : o.scene_extras.hidden_classes) hidden[c] = true;
  return hidden;
}

/// A scene file's hidden classes taken out of the cloud (as the viewer's class table does).
void hide_classes(const Options& o, PointCloud& cloud) {
  if (o.scene_extras.hidden_classes.empty()) return;
  HiddenPoints stash;
  apply_class_filter(cloud, hidden_class_mask(o), stash);
}

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
  hide_classes(o, s.cloud);
  if (!o.save_view.empty() && !save_view(o, s.camera, color)) return 1;
  return 0;
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
bool print_pick(const Options& o, Renderer& renderer, const PointCloud& cloud, const Camera& camera,
                const RenderSettings& rs) {
  PickResult picked;
  Stopwatch pick_time;
  std::string why;
  if (!pick_in_frame(renderer, cloud, camera, rs, o.pick->first, o.pick->second, 0, &picked,
                     &why)) {
    std::fprintf(stderr, "pointraster: --pick: %s\n", why.c_str());
    return false;
  }
  std::printf("%s\n", pick_line(picked).c_str());
  std::printf("pick_ms=%.1f\n", pick_time.ms());
  return true;
}

/// --screenshot: the last frame as PNG; false after the message.
bool write_screenshot(const Options& o, const Image& img) {
  if (o.screenshot.empty()) return true;
  std::string why;
  if (!write_png(o.screenshot, img, &why)) {
    std::fprintf(stderr, "pointraster: %s\n", why.c_str());
    return false;
  }
  std::printf("wrote %s\n", o.screenshot.c_str());
  return true;
}

double min_of(const std::vector<double>& v) {
  return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end());
}

/// Frame `f` of an image larger than one frame (app/tiled_image.h), drawn tile by tile, its rows
/// written to `png` (when not empty) as they come. False after the one-line message.
bool tiled_frame(Renderer& renderer, const Camera& camera, const RenderSettings& rs,
                 const TilePlan& plan, int f, const std::string& png, FrameTimes& times) {
  std::string why;
  TiledTimes t;
  if (!draw_tiled_image(renderer, camera, rs, plan, png, &t, &why)) {
    std::fprintf(stderr, "pointraster: frame %d failed: %s\n", f + 1, why.c_str());
    return false;
  }
  times.total.push_back(t.total_ms);
  times.render.push_back(t.render_ms);
  std::printf("frame %d: %.1f ms in %d tiles (render %.1f, png %.1f)\n", f + 1, t.total_ms,
              plan.count(), t.render_ms, t.png_ms);
  if (!png.empty()) std::printf("wrote %s\n", png.c_str());
  return true;
}

/// The frames: whole (--frames, 5 by default), or tiled when one frame of the image does not fit
/// or --tile says so (--frames, 1 by default), the last one written to --screenshot. False after
/// the message.
bool draw_and_write(const Options& o, Renderer& renderer, const Camera& camera,
                    const RenderSettings& rs, bool gpu, FrameTimes& times) {
  const TilePlan plan = tiles_for(o, renderer, rs);
  if (plan.whole()) {
    Image img;
    return render_frames(renderer, camera, rs, gpu, o.frames > 0 ? o.frames : 5, img, times) &&
           write_screenshot(o, img);
  }
  std::printf("%s\n", tiles_line(plan, renderer, rs).c_str());
  const int frames = o.frames > 0 ? o.frames : 1;
  for (int f = 0; f < frames; ++f)
    if (!tiled_frame(renderer, camera, rs, plan, f, f + 1 == frames ? o.screenshot : "", times))
      return false;
  return true;
}

/// Draws the frames, then --pick and --screenshot; the exit code.
int render_and_report(const Options& o, const std::string& mode, Renderer& renderer,
                      const Startup& s, uint64_t points) {
  const RenderSettings rs = headless_settings(o);
  FrameTimes times;
  if (!draw_and_write(o, renderer, s.camera, rs, mode == "gpu", times)) return 1;
  if (o.pick && !print_pick(o, renderer, s.cloud, s.camera, rs)) return 1;
  std::printf(
      "summary mode=%s points=%llu width=%d height=%d frames=%d median_ms=%.4f min_ms=%.4f "
      "render_ms=%.4f\n",
      mode.c_str(), (unsigned long long)effective_count(points, rs.point_count), rs.width,
      rs.height, int(times.total.size()), median(times.total), min_of(times.total),
      median(times.render));
  return 0;
}

/// A streamed survey's frames: what headless mode draws and reports for streamed inputs.
struct StreamRun {
  StreamingScene scene;
  Renderer& renderer;
  Camera camera;
  LodView view;
  ColorSettings color;
  bool recolor = false;       // a color mode other than the file's colors: the pool is colorized
  bool colors_stale = false;  // nodes arrived or left since the pool was last colorized
  explicit StreamRun(const StreamOptions& so, Renderer& r) : scene(so), renderer(r) {}

  void print_messages() {
    for (const std::string& m : scene.take_messages())
      std::fprintf(stderr, "pointraster: %s\n", m.c_str());
  }
  /// One update(): the renderer takes the pool's changed ranges (the whole pool when it was
  /// reallocated). False after the message.
  bool step() {
    std::string why;
    const std::vector<PoolRange> ranges = scene.update(view);
    PointCloud& pool = scene.pool();
    bool ok = true;
    if (scene.pool_reallocated())
      ok = renderer.set_cloud(pool, &why);
    else
      for (const PoolRange& r : ranges)
        if (ok && r.count) ok = renderer.update_points(pool, r.first, r.count, &why);
    colors_stale = colors_stale || !ranges.empty();
    print_messages();
    if (!ok) std::fprintf(stderr, "pointraster: the renderer refused the pool: %s\n", why.c_str());
    return ok;
  }
  /// For a color mode, the pool's colors made again before a frame that needs them (its range,
  /// automatic or not, over the points drawn then). False after the message.
  bool color_pool() {
    if (!recolor || !colors_stale) return true;
    colors_stale = false;
    std::string why;
    PointCloud& pool = scene.pool();
    PodVector<uint32_t> colors;
    bool ok = colorize(pool, color, colors, nullptr, &why);
    if (ok) {
      set_display_colors(pool, color.mode, std::move(colors));
      ok = renderer.update_colors(pool, &why);
    }
    if (!ok) std::fprintf(stderr, "pointraster: colors: %s\n", why.c_str());
    return ok;
  }
};

/// Opens the survey, frames it and hands the renderer the (empty) pool. 0 or the exit code.
int open_stream(const Options& o, StreamRun& run, const RenderSettings& rs) {
  std::string why;
  if (!run.scene.open(o.files, &why)) {
    std::fprintf(stderr, "pointraster: %s\n", why.c_str());
    return 1;
  }
  run.print_messages();
  const FileInfo& info = run.scene.info();
  run.camera = stream_camera(o, info.bounds, double(rs.width) / double(rs.height));
  run.view = lod_view(run.camera, rs.width, rs.height, &rs.clip);
  RenderOptions ro = run.renderer.options();
  ro.sort = Toggle::kOff;  // the pool is drawn as stored: update_points() rewrites it in place
  ro.compact = false;
  run.renderer.set_options(ro);
  if (!run.renderer.set_cloud(run.scene.pool(), &why)) {
    std::fprintf(stderr, "pointraster: the renderer refused the pool: %s\n", why.c_str());
    return 1;
  }
  run.scene.pool_reallocated();  // the renderer has this pool
  const StreamOptions& so = run.scene.options();
  std::printf(
      "stream: %llu points in %llu tile(s), point budget %llu, sse %.2f px, cache %.0f MB\n",
      (unsigned long long)info.points, (unsigned long long)run.scene.stats().tiles,
      (unsigned long long)so.point_budget, so.sse_px, double(so.cache_bytes) / 1e6);
  return 0;
}

/// The color mode of --color for a survey: taken from its attributes (the pool has every
/// attribute some tile has); elevation's range from the survey's bounds, not the points drawn.
int stream_colors(const Options& o, StreamRun& run) {
  std::string why;
  PointCloud& pool = run.scene.pool();
  Options with_mode = o;  // the pool is empty yet: the survey's attributes choose the default
  if (with_mode.color.empty())
    with_mode.color = color_mode_name(stream_default_color(run.scene.info()));
  ColorSettings cs;
  if (!apply_color_options(with_mode, pool, up_axis_for(o, true), &cs, nullptr, &why)) {
    std::fprintf(stderr, "pointraster: %s\n", why.c_str());
    return 2;
  }
  run.color = cs;
  run.recolor = cs.mode != ColorMode::kRgb;
  if (cs.mode == ColorMode::kElevation && cs.auto_range) {
    const int axis = cs.up_axis;
    const Bounds& b = run.scene.info().bounds;
    run.color.auto_range = false;
    run.color.range_lo = b.min[axis];
    run.color.range_hi = b.max[axis];
  }
  declared_field_range(run.scene.info(), run.color);
  std::printf("colors: %s\n",
              cs.mode == ColorMode::kField ? cs.field.c_str() : color_mode_name(cs.mode));
  return 0;
}

/// Updates until the pool draws something (first image) and, unless --no-wait, until the view
/// converges. False after the message.
bool stream_until_ready(const Options& o, StreamRun& run, double& first_ms, double& converged_ms,
                        const Stopwatch& clock) {
  constexpr double kTimeoutMs = 600'000.0;
  first_ms = converged_ms = -1.0;
  while (clock.ms() < kTimeoutMs) {
    if (CancelOnSignals::signal() != 0) return false;  // --video's Ctrl-C: it says so
    if (!run.step()) return false;
    const StreamStats st = run.scene.stats();
    if (first_ms < 0.0 && st.points_drawn > 0) first_ms = clock.ms();
    if (st.converged) {
      converged_ms = clock.ms();
      if (first_ms < 0.0) first_ms = converged_ms;
      return true;
    }
    if (o.no_wait && first_ms >= 0.0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::fprintf(stderr, "pointraster: the view did not converge within %.0f s\n", kTimeoutMs / 1e3);
  return false;
}

/// --video of a survey: each frame's view read until it converges (--no-wait: until it draws
/// something), then drawn.
int stream_video(const Options& o, const std::string& mode, StreamRun& run,
                 const RenderSettings& look) {
  const DrawFrame draw = [&](const Camera& camera, const RenderSettings& rs, Image& img,
                             std::string* error) {
    run.camera = camera;
    run.view = lod_view(camera, rs.width, rs.height, &rs.clip);
    double first_ms = 0.0, converged_ms = 0.0;
    if (!stream_until_ready(o, run, first_ms, converged_ms, Stopwatch()) || !run.color_pool()) {
      *error = "the survey's view could not be read (above)";
      return FrameDraw::kFailed;
    }
    FrameStats st;
    return run.renderer.render(camera, rs, img, st, error) ? FrameDraw::kDrawn : FrameDraw::kFailed;
  };
  return run_video(o, mode, run.camera, look, draw);
}

int run_streamed(const Options& o, const std::string& mode, Renderer& renderer) {
  const RenderSettings rs = headless_settings(o);
  StreamRun run(stream_options(o, mode == "gpu"), renderer);
  const Stopwatch clock;
  if (const int rc = open_stream(o, run, rs); rc != 0) return rc;
  if (const int rc = stream_colors(o, run); rc != 0) return rc;
  run.scene.set_hidden_classes(hidden_class_mask(o));
  if (!o.save_view.empty() && !save_view(o, run.camera, run.color)) return 1;
  if (!o.video.empty()) return stream_video(o, mode, run, rs);
  double first_ms = 0.0, converged_ms = 0.0;
  if (!stream_until_ready(o, run, first_ms, converged_ms, clock)) return 1;
  // An image larger than one frame is drawn in tiles (draw_and_write()), the pool unchanged
  // meanwhile.
  const TilePlan plan = tiles_for(o, renderer, rs);
  if (!plan.whole()) std::printf("%s\n", tiles_line(plan, renderer, rs).c_str());
  const int frames = o.frames > 0 ? o.frames : plan.whole() ? 5 : 1;
  Image img;
  FrameTimes times;
  for (int f = 0; f < frames; ++f) {
    if (o.no_wait && f > 0 && !run.step()) return 1;
    if (!run.color_pool()) return 1;
    const std::string png = f + 1 == frames ? o.screenshot : "";
    if (plan.whole() ? !render_frames(renderer, run.camera, rs, mode == "gpu", 1, img, times)
                     : !tiled_frame(renderer, run.camera, rs, plan, f, png, times))
      return 1;
  }
  if (o.pick && !print_pick(o, renderer, run.scene.pool(), run.camera, rs)) return 1;
  if (plan.whole() && !write_screenshot(o, img)) return 1;
  const StreamStats st = run.scene.stats();
  std::printf(
      "summary mode=%s points=%llu width=%d height=%d frames=%d median_ms=%.4f min_ms=%.4f "
      "render_ms=%.4f lod_nodes=%llu lod_points=%llu bytes_read=%llu first_image_ms=%.1f "
      "converged_ms=%.1f\n",
      mode.c_str(), (unsigned long long)st.points_drawn, rs.width, rs.height,
      int(times.total.size()), median(times.total), min_of(times.total), median(times.render),
      (unsigned long long)st.nodes_drawn, (unsigned long long)st.points_drawn,
      (unsigned long long)st.bytes_read, first_ms, converged_ms);
  return 0;
}

/// --save-view without --headless: the inputs opened (a survey only for its bounds), the scene
/// written. The exit code.
int save_view_only(const Options& o) {
  std::string why;
  if (streams(o.files, o.stream, &why)) {
    StreamingScene scene(stream_options(o, false));
    if (!scene.open(o.files, &why)) {
      std::fprintf(stderr, "pointraster: %s\n", why.c_str());
      return 1;
    }
    const RenderSettings rs = headless_settings(o);
    const Camera cam = stream_camera(o, scene.info().bounds, double(rs.width) / double(rs.height));
    ColorSettings color;
    if (!o.color.empty())
      parse_color_mode(o.color, &color.mode, &color.field);
    else
      color.mode = stream_default_color(scene.info());
    color.colormap = o.colormap.value_or(Colormap::kViridis);
    return save_view(o, cam, color) ? 0 : 1;
  }
  if (!why.empty()) {
    std::fprintf(stderr, "pointraster: %s\n", why.c_str());
    return 1;
  }
  Startup s;
  return prepare_cloud(o, s);  // writes the scene
}

/// The frames, or the video, of a cloud the renderer holds; the exit code.
int draw_cloud(const Options& o, const std::string& mode, Renderer& renderer, const Startup& s,
               uint64_t points) {
  std::printf("positions: %s, %s renderer memory %.1f MB\n",
              renderer.compact_active() ? "compact (4 bytes, quantized)" : "float (12 bytes)",
              mode.c_str(), double(renderer.memory_bytes()) / 1e6);
  if (!o.video.empty()) {
    const DrawFrame draw = [&](const Camera& camera, const RenderSettings& rs, Image& img,
                               std::string* error) {
      FrameStats st;
      return renderer.render(camera, rs, img, st, error) ? FrameDraw::kDrawn : FrameDraw::kFailed;
    };
    return run_video(o, mode, s.camera, headless_settings(o), draw);
  }
  return render_and_report(o, mode, renderer, s, points);
}

/// A scene the host cannot hold, made on the GPU (GpuRenderer::generate_scene()) and drawn as a
/// host cloud is: in its own colors, without picks. The exit code.
int run_device_scene(const Options& o, Renderer& renderer, const std::string& name, uint64_t n) {
  auto* gpu = dynamic_cast<GpuRenderer*>(&renderer);
  std::string why;
  if (!gpu)
    why = "a scene of " + std::to_string(n) + " points needs the GPU renderer";
  else if (!o.color.empty() && o.color != "rgb")
    why = "option --color " + o.color + ": a scene made on the GPU shows its own colors (rgb)";
  else if (o.pick)
    why = "option --pick: a scene made on the GPU has no host copy to pick from";
  if (!why.empty()) {
    std::fprintf(stderr, "pointraster: %s\n", why.c_str());
    return 2;
  }
  Stopwatch made;
  Bounds bounds;
  if (!gpu->generate_scene(name, n, 1, &bounds, &why)) {
    std::fprintf(stderr, "pointraster: gpu renderer cannot make the scene: %s\n", why.c_str());
    return 1;
  }
  std::printf("cloud scene:%s: %llu points, made on the GPU in %.0f ms (no host copy)\n",
              name.c_str(), (unsigned long long)n, made.ms());
  Startup s;
  s.scene = name;
  const RenderSettings rs = headless_settings(o);
  s.camera = scene_starting_camera(o, name, bounds, double(rs.width) / double(rs.height));
  return draw_cloud(o, "gpu", renderer, s, n);
}

}  // namespace

int run_headless(const Options& o) {
  if (!o.headless) return save_view_only(o);
  const std::string mode = o.mode.value_or("cpu");
  auto renderer = make_headless_renderer(o);
  if (!renderer) return 1;
  std::string why;
  if (streams(o.files, o.stream, &why)) return run_streamed(o, mode, *renderer);
  if (!why.empty()) {
    std::fprintf(stderr, "pointraster: %s\n", why.c_str());
    return 1;
  }
  if (o.files.empty()) {  // a scene: on the host, on the GPU when the host cannot hold it
    const std::string name = o.scene.empty() ? kDefaultScene : o.scene;
    const uint64_t n = o.points.value_or(kDefaultScenePoints);
    const SceneHome home = scene_home(name, n, mode, host_memory_available(), &why);
    if (home == SceneHome::kNone) {
      std::fprintf(stderr, "pointraster: %s\n", why.c_str());
      return 1;
    }
    if (home == SceneHome::kDevice) return run_device_scene(o, *renderer, name, n);
  }
  Startup s;
  if (const int rc = prepare_cloud(o, s); rc != 0) return rc;
  if (!renderer->set_cloud(s.cloud, &why)) {
    std::fprintf(stderr, "pointraster: %s renderer refused the cloud: %s\n", mode.c_str(),
                 why.c_str());
    return 1;
  }
  return draw_cloud(o, mode, *renderer, s, s.cloud.size());
}

}  // namespace pr
