#include "session.h"

#include <cmath>

#include "engine/cpu_renderer.h"
#include "engine/morton.h"
#include "engine/scenes.h"
#if PR_HAVE_CUDA
#include "kernels/cuda_renderer.h"
#endif

namespace pr {

namespace {
constexpr double kDeg = 3.14159265358979323846 / 180.0;
}

void apply_camera_options(const Options& o, Camera& cam) {
  if (o.camera) {
    cam.position = {o.camera->x, o.camera->y, o.camera->z};
    cam.yaw = o.camera->yaw_deg * kDeg;
    cam.pitch = 0.0;
    cam.turn(0.0, o.camera->pitch_deg * kDeg);  // clamps pitch
  }
  if (o.focus) cam.focus = *o.focus;
}

UpAxis up_axis_for(const Options& o, bool from_files) {
  if (o.up) return *o.up == 'z' ? UpAxis::kZ : UpAxis::kY;
  return from_files ? UpAxis::kZ : UpAxis::kY;
}

void frame_files_camera(Camera& cam, const Bounds& world_bounds, double aspect, UpAxis up) {
  cam.up_axis = up;
  cam.yaw = 0.0;
  cam.pitch = -0.5;
  cam.frame(world_bounds, aspect);
}

bool build_session(const Options& o, Session& s, std::string* error) {
  s = Session{};
  if (!o.files.empty()) {
    for (const auto& f : o.files) {
      PointCloud c;
      FileInfo info;
      if (!load_point_cloud(f, c, &info, error)) return false;
      s.files.push_back(info);
      append_cloud(s.cloud, c);
    }
    sort_if_incoherent(s.cloud);  // as the viewer does: same image, faster on the CPU
    const int w = o.width.value_or(1280), h = o.height.value_or(720);
    s.camera.focus = 1.5;
    frame_files_camera(s.camera, s.cloud.world_bounds(), double(w) / double(h),
                       up_axis_for(o, true));
  } else {
    s.scene = o.scene.empty() ? kDefaultScene : o.scene;
    s.cloud = make_scene(s.scene, o.points.value_or(kDefaultScenePoints));
    sort_if_incoherent(s.cloud);
    s.camera = scene_camera(s.scene, s.cloud);
    if (up_axis_for(o, false) == UpAxis::kZ) {
      // The scenes are built y-up: keep the view, expressed in the z-up frame's angles.
      const glm::dvec3 target = s.camera.position + s.camera.forward();
      s.camera.up_axis = UpAxis::kZ;
      s.camera.look_at(target);
    }
  }
  apply_camera_options(o, s.camera);
  return true;
}

bool gpu_mode_available(std::string* why) {
#if PR_HAVE_CUDA
  return cuda_available(why);
#else
  if (why) *why = "this build has no CUDA renderer (nvcc was not found at configure time)";
  return false;
#endif
}

std::unique_ptr<Renderer> make_renderer(const std::string& mode, unsigned threads, bool compact,
                                        std::string* why) {
  if (mode == "cpu") {
    auto cpu = std::make_unique<CpuRenderer>(threads);
    cpu->set_compact(compact, true);  // in Morton order, as the GPU stores them
    return cpu;
  }
#if PR_HAVE_CUDA
  auto gpu = make_cuda_renderer(why);
  if (gpu) gpu->set_compact_positions(compact);
  return gpu;
#else
  (void)compact;
  (void)gpu_mode_available(why);
  return nullptr;
#endif
}

}  // namespace pr
