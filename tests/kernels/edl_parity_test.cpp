// Eye-dome lighting on the GPU (kernels/src/resolve_shaded.cu) against the CPU's
// (engine/src/cpu_edl.cpp): the same image and depths pixel for pixel over the scenes, random
// cameras, point sizes 1 - 3, culled and unculled frames, compact positions, graphs on and off; an
// EDL frame leaves the visibility buffer empty for the next plain frame.
#include <gtest/gtest.h>

#include <memory>
#include <random>

#include "../engine/random_camera.h"
#include "engine/cpu_renderer.h"
#include "engine/scenes.h"
#include "gpu_test_util.h"

namespace pr {
namespace {

TEST(EdlParity, ScenesRandomCamerasPointSizes) {
  PR_REQUIRE_GPU(gpu);
  std::mt19937 rng(5);
  for (const char* scene : {"terrain", "galaxy", "cube"}) {
    // Over 2^20 points, so that the GPU culls batches (kGpuMinCullPoints).
    const PointCloud cloud = make_scene(scene, 1500000, 7);
    for (const bool compact : {false, true}) {
      RenderOptions o;
      o.compact = compact;
      CpuRenderer cpu(0);
      ASSERT_NO_FATAL_FAILURE(test::set_both(cpu, *gpu, cloud, o));
      int shaded = 0;
      const Camera first = scene_camera(scene, cloud);
      for (int it = 0; it < 16; ++it) {
        Camera cam;
        RenderSettings rs;
        test::random_frame(it, rng, first, cloud.local_bounds(), &cam, &rs);
        rs.edl = true;
        rs.edl_strength = 0.2f + float(it % 5) * 0.4f;
        rs.edl_radius = it % 4 == 3 ? 3.0f : 1.4f;
        const std::string what =
            std::string(scene) + (compact ? " compact" : "") + " frame " + std::to_string(it);
        Image lit, plain;
        test::expect_same_frame(cpu, *gpu, cam, rs, what, &lit);
        // The next plain frame: the EDL frame cleared what it drew.
        rs.edl = false;
        test::expect_same_frame(cpu, *gpu, cam, rs, what + " plain after", &plain);
        shaded += lit.rgba != plain.rgba;
      }
      EXPECT_GT(shaded, 2) << scene;
    }
  }
}

TEST(EdlParity, WithoutGraphsAndWithStageTiming) {
  PR_REQUIRE_GPU(gpu);
  const PointCloud cloud = make_scene("terrain", 300000, 3);
  CpuRenderer cpu(0);
  test::expect_same_across_tunings(cpu, *gpu, cloud, [](RenderSettings& rs, int it) {
    rs.edl = it % 3 != 2;  // EDL and plain frames in turn
  });
}

}  // namespace
}  // namespace pr
