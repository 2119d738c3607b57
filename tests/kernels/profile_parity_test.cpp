// Profiles on both renderers: the unrolled corridor of a terrain (engine/profile.h) drawn by the
// CUDA renderer in its orthographic front view, panned and zoomed, is the CPU's image and depth
// pixel for pixel, over float and compact positions, point sizes 1 - 3, EDL and HQ splats. Skips
// without a device.
#include <gtest/gtest.h>

#include <string>

#include "engine/cpu_renderer.h"
#include "engine/profile.h"
#include "engine/scenes.h"
#include "gpu_test_util.h"

namespace pr {
namespace {

TEST(ProfileParity, GpuImageEqualsCpuImage) {
  PR_REQUIRE_GPU(gpu);
  // The terrain scene is y up: its ground is (z, x). A polyline of three segments across it.
  const PointCloud terrain = make_scene("terrain", 1'200'000, 7);
  const Bounds b = terrain.world_bounds();
  const glm::dvec3 c = b.center(), e = b.size();
  Profile prof;
  prof.line = {c + glm::dvec3(-0.4 * e.x, 0.0, -0.4 * e.z), c + glm::dvec3(0.1 * e.x, 0.0, 0.0),
               c + glm::dvec3(0.0, 0.0, 0.3 * e.z), c + glm::dvec3(0.4 * e.x, 0.0, 0.4 * e.z)};
  prof.width = 0.02 * e.x;
  ProfileCloud p;
  std::string err;
  ASSERT_TRUE(extract_profile(terrain, prof, UpAxis::kY, &p, &err)) << err;
  ASSERT_GT(p.cloud.size(), 5000u);
  for (const bool compact : {false, true}) {
    RenderOptions o;
    o.compact = compact;
    CpuRenderer cpu(0);
    ASSERT_NO_FATAL_FAILURE(test::set_both(cpu, *gpu, p.cloud, o));
    for (int v = 0; v < 6; ++v) {
      RenderSettings rs;
      rs.width = 900 - 100 * v;
      rs.height = 240 + 20 * v;
      rs.point_size = 1 + v % 3;
      rs.want_depth = true;
      rs.edl = v == 3;
      rs.hq = v == 4;
      rs.background = rgba(10, 20, 30);
      Camera cam = profile_camera(p, double(rs.width) / rs.height);
      cam.zoom(1.0 + 0.7 * v);  // the view's wheel
      cam.move_local(glm::dvec3(0.05 * v * cam.ortho_height, 0.02 * v * cam.ortho_height, 0.0));
      Image img;
      test::expect_same_frame(
          cpu, *gpu, cam, rs,
          std::string(compact ? "compact" : "float") + " view " + std::to_string(v), &img);
      EXPECT_GT(test::count_drawn(img, rs.background), 1000u) << v;
    }
  }
}

}  // namespace
}  // namespace pr
