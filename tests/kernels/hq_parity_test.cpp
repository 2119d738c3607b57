// High-quality splats on the GPU (kernels/src/hq_splat.cu, resolve_shaded.cu) against the CPU's
// (engine/src/cpu_renderer.cpp): the same image and depths pixel for pixel over the scenes with
// two interleaved colors, random cameras, point sizes 1 - 3, subsets, float and compact storage
// in their own and in Morton order, occlusion culling on and automatic, with and without EDL,
// and the whole cloud in a small image (hundreds of points a pixel); an HQ frame leaves the
// buffers clean for the next plain frame.
#include <gtest/gtest.h>

#include <memory>
#include <random>

#include "../engine/random_camera.h"
#include "engine/cpu_renderer.h"
#include "engine/scenes.h"
#include "gpu_test_util.h"

namespace pr {
namespace {

TEST(HqParity, ScenesStoragesCamerasPointSizes) {
  PR_REQUIRE_GPU(gpu);
  std::mt19937 rng(17);
  for (const char* scene : {"terrain", "galaxy", "cube"}) {
    // Over 2^20 points, so that the GPU culls batches (kGpuMinCullPoints).
    PointCloud cloud = make_scene(scene, 1500000, 3);
    for (size_t i = 0; i < cloud.size(); i += 2) cloud.colors[i] = rgba(250, 30, 40);
    for (int variant = 0; variant < 4; ++variant) {
      const RenderOptions o = test::storage_variant(variant);
      CpuRenderer cpu(0);
      ASSERT_NO_FATAL_FAILURE(test::set_both(cpu, *gpu, cloud, o));
      int differs = 0;
      const Camera first = scene_camera(scene, cloud);
      for (int it = 0; it < 12; ++it) {
        Camera cam;
        RenderSettings rs;
        test::random_frame(it, rng, first, cloud.local_bounds(), &cam, &rs);
        if (it % 4 == 3) rs.point_count = cloud.size() / 3;
        rs.edl = it % 3 == 1;
        const std::string what = std::string(scene) + " variant " + std::to_string(variant) +
                                 " frame " + std::to_string(it);
        rs.hq = true;
        Image hq, plain;
        test::expect_same_frame(cpu, *gpu, cam, rs, what, &hq);
        rs.hq = false;  // the next plain frame: the HQ frame cleared what it drew
        test::expect_same_frame(cpu, *gpu, cam, rs, what + " plain after", &plain);
        differs += hq.rgba != plain.rgba;
      }
      EXPECT_GE(differs, 1) << scene << " variant " << variant;  // random cameras see little
      // The whole cloud in a small image: hundreds of points a pixel, so that a warp's lanes
      // share pixels in long runs and sum their colors before the atomics.
      RenderSettings dense;
      dense.width = 80;
      dense.height = 45;
      dense.hq = true;
      test::expect_same_frame(
          cpu, *gpu, first, dense,
          std::string(scene) + " variant " + std::to_string(variant) + " dense");
    }
  }
}

TEST(HqParity, WithoutGraphsAndWithStageTiming) {
  PR_REQUIRE_GPU(gpu);
  PointCloud cloud = make_scene("terrain", 300000, 3);
  for (size_t i = 0; i < cloud.size(); i += 3) cloud.colors[i] = rgba(0, 0, 250);
  CpuRenderer cpu(0);
  test::expect_same_across_tunings(cpu, *gpu, cloud, [](RenderSettings& rs, int it) {
    rs.hq = it % 3 != 2;  // HQ and plain frames in turn
  });
}

}  // namespace
}  // namespace pr
