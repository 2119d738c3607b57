#include "startup.h"

#include <cmath>
#include <cstdio>

#include "engine/morton.h"
#include "engine/scenes.h"
#include "scene_home.h"

namespace pr {

namespace {
constexpr double kDeg = 3.14159265358979323846 / 180.0;
}

void apply_camera_options(const Options& o, Camera& cam, const Bounds& world_bounds,
                          double aspect) {
  if (o.camera) {
    cam.position = {o.camera->x, o.camera->y, o.camera->z};
    cam.yaw = o.camera->yaw_deg * kDeg;
    cam.pitch = 0.0;
    cam.turn(0.0, o.camera->pitch_deg * kDeg);  // clamps pitch
  }
  if (o.focus) cam.focus = *o.focus;
  if (o.projection) cam.set_projection(*o.projection, world_bounds);
  if (o.view) cam.set_view(*o.view, world_bounds, aspect);
}

UpAxis up_axis_for(const Options& o, bool from_files) {
  if (o.up) return *o.up == 'z' ? UpAxis::kZ : UpAxis::kY;
  return from_files ? UpAxis::kZ : UpAxis::kY;
}

void frame_files_camera(Camera& cam, const Bounds& world_bounds, double aspect, UpAxis up) {
  cam.up_axis = up;
  cam.yaw = 0.0;
  cam.pitch = -0.5;
  cam.fill_view(world_bounds, aspect);
}

Camera cloud_camera(const PointCloud& cloud, const std::string& scene, UpAxis up, double aspect,
                    double focus) {
  if (scene.empty()) {
    Camera cam;
    cam.focus = focus;
    frame_files_camera(cam, cloud.world_bounds(), aspect, up);
    return cam;
  }
  Camera cam = scene_camera(scene, cloud);
  if (up == UpAxis::kZ) {
    // The scenes are built y-up: keep the view, expressed in the z-up frame's angles.
    const glm::dvec3 target = cam.position + cam.forward();
    cam.up_axis = UpAxis::kZ;
    cam.look_at(target);
  }
  return cam;
}

bool scene_file_camera(const Options& o, bool from_files, Camera* cam) {
  if (!o.scene_extras.camera) return false;
  *cam = *o.scene_extras.camera;
  cam->up_axis = up_axis_for(o, from_files);
  return true;
}

Camera starting_camera(const Options& o, const PointCloud& cloud, const std::string& scene,
                       double aspect) {
  Camera cam;
  if (!scene_file_camera(o, scene.empty(), &cam))
    cam = cloud_camera(cloud, scene, up_axis_for(o, scene.empty()), aspect);
  apply_camera_options(o, cam, cloud.world_bounds(), aspect);
  return cam;
}

Camera scene_starting_camera(const Options& o, const std::string& scene, const Bounds& world_bounds,
                             double aspect) {
  Camera cam;
  if (!scene_file_camera(o, false, &cam))
    cam = cloud_camera(PointCloud{}, scene, up_axis_for(o, false), aspect);
  apply_camera_options(o, cam, world_bounds, aspect);
  return cam;
}

LoadOptions load_options(const Options& o) {
  LoadOptions lo;
  lo.scans = o.scans;
  lo.max_points = o.max_points;
  lo.max_depth = o.max_depth;
  return lo;
}

bool build_startup(const Options& o, Startup& s, std::string* error) {
  s = Startup{};
  if (!o.files.empty()) {
    const LoadOptions lo = load_options(o);
    for (const auto& f : o.files) {
      PointCloud c;
      FileInfo info;
      if (!load_point_cloud(f, c, &info, error, nullptr, &lo)) return false;
      s.files.push_back(info);
      append_cloud(s.cloud, c);
    }
  } else {
    s.scene = o.scene.empty() ? kDefaultScene : o.scene;
    const uint64_t n = o.points.value_or(kDefaultScenePoints);
    if (scene_home(s.scene, n, "cpu", host_memory_available(), error) != SceneHome::kHost)
      return false;
    s.cloud = make_scene(s.scene, n);
  }
  sort_if_incoherent(s.cloud);  // as the viewer does: same image, faster on the CPU
  const int w = o.width.value_or(1280), h = o.height.value_or(720);
  s.camera = starting_camera(o, s.cloud, s.scene, double(w) / double(h));
  return true;
}

ColorSettings color_settings(const Options& o, const PointCloud& cloud, UpAxis up) {
  ColorSettings cs;
  if (o.color.empty())
    cs.mode = default_color_mode(cloud);
  else
    parse_color_mode(o.color, &cs.mode, &cs.field);
  cs.colormap = o.colormap.value_or(Colormap::kViridis);
  cs.up_axis = up == UpAxis::kZ ? 2 : 1;
  cs.gamma = o.scene_extras.gamma;  // a scene file's Color section
  if (const auto& r = o.scene_extras.color_range) {
    cs.auto_range = false;
    cs.range_lo = r->first;
    cs.range_hi = r->second;
  }
  return cs;
}

bool apply_color_options(const Options& o, PointCloud& cloud, UpAxis up, ColorSettings* used,
                         Legend* legend, std::string* error) {
  const ColorSettings cs = color_settings(o, cloud, up);
  PodVector<uint32_t> colors;
  std::string why;
  if (cs.mode != ColorMode::kRgb && !colorize(cloud, cs, colors, legend, &why)) {
    if (error) *error = "option --color " + o.color + ": " + why;
    return false;
  }
  if (cs.mode == ColorMode::kRgb && legend) *legend = Legend{};
  set_display_colors(cloud, cs.mode, std::move(colors));
  if (used) *used = cs;
  return true;
}

RenderOptions render_options(const Options& o) {
  RenderOptions r;
  r.culling = o.culling;
  r.occlusion = o.occlusion;
  r.compact = o.compact;
  r.sort = o.sort;
  r.binning = o.binning;
  return r;
}

std::unique_ptr<CpuRenderer> make_cpu_renderer(const Options& o) {
  auto cpu = std::make_unique<CpuRenderer>(o.threads);
  cpu->set_options(render_options(o));
  return cpu;
}

std::unique_ptr<GpuRenderer> make_gpu_renderer(const Options& o, std::string* why) {
  auto gpu = make_gpu_renderer(why);
  if (!gpu) return nullptr;
  gpu->set_options(render_options(o));
  gpu->set_memory_limit(o.gpu_memory_limit);
  return gpu;
}

std::unique_ptr<Renderer> make_renderer(const std::string& mode, const Options& o,
                                        std::string* why) {
  if (mode == "cpu") return make_cpu_renderer(o);
  return make_gpu_renderer(o, why);
}

std::unique_ptr<Renderer> make_headless_renderer(const Options& o) {
  const std::string mode = o.mode.value_or("cpu");
  std::string why;
  auto renderer = make_renderer(mode, o, &why);
  if (!renderer)
    std::fprintf(stderr, "pointraster: --mode %s is not available: %s\n", mode.c_str(),
                 why.c_str());
  return renderer;
}

}  // namespace pr
