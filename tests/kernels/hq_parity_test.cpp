// High-quality splats on the GPU (kernels/src/hq_splat.cu, resolve_shaded.cu) against the CPU's
// (engine/src/cpu_renderer.cpp): the same image and depths pixel for pixel over the scenes with
// two interleaved colors, random cameras, point sizes 1 - 3, subsets, float and compact storage
// in their own and in Morton order, occlusion culling on and automatic, with and without EDL;
// an HQ frame leaves the buffers clean for the next plain frame.
#include <gtest/gtest.h>

#include <memory>
#include <random>

#include "../engine/random_camera.h"
#include "engine/cpu_renderer.h"
#include "engine/scenes.h"
#include "gpu_test_util.h"

namespace pr {
namespace {

void expect_same(CpuRenderer& cpu, Renderer& gpu, const Camera& cam, const RenderSettings& rs,
                 const std::string& what, Image* out = nullptr) {
  Image a, b;
  FrameStats st;
  std::string err;
  ASSERT_TRUE(cpu.render(cam, rs, a, st, &err)) << err;
  ASSERT_TRUE(gpu.render(cam, rs, b, st, &err)) << err;
  std::string first;
  EXPECT_EQ(test::count_diff(a, b, &first), 0u) << what << ": " << first;
  EXPECT_EQ(a.depth, b.depth) << what;
  if (out) *out = std::move(b);
}

TEST(HqParity, ScenesStoragesCamerasPointSizes) {
  PR_REQUIRE_GPU(gpu);
  std::mt19937 rng(17);
  for (const char* scene : {"terrain", "galaxy", "cube"}) {
    // Over 2^20 points, so that the GPU culls batches (kGpuMinCullPoints).
    PointCloud cloud = make_scene(scene, 1500000, 3);
    for (size_t i = 0; i < cloud.size(); i += 2) cloud.colors[i] = rgba(250, 30, 40);
    for (int variant = 0; variant < 4; ++variant) {
      RenderOptions o;
      o.compact = variant >= 2;
      o.sort = variant % 2 ? Toggle::kOn : Toggle::kOff;
      o.occlusion = variant == 1 ? Toggle::kOn : Toggle::kAuto;
      CpuRenderer cpu(0);
      cpu.set_options(o);
      gpu->set_options(o);
      std::string err;
      ASSERT_TRUE(cpu.set_cloud(cloud, &err)) << err;
      ASSERT_TRUE(gpu->set_cloud(cloud, &err)) << err;
      int differs = 0;
      for (int it = 0; it < 12; ++it) {
        const Camera cam =
            it == 0 ? scene_camera(scene, cloud) : test::random_camera(rng, cloud.local_bounds());
        RenderSettings rs;
        rs.width = it == 0 ? 1920 : 100 + int(rng() % 500);
        rs.height = it == 0 ? 1080 : 80 + int(rng() % 400);
        rs.point_size = 1 + it % 3;
        rs.background = rgba(10, 20, 30);
        rs.want_depth = it % 2 == 0;
        if (it % 4 == 3) rs.point_count = cloud.size() / 3;
        rs.edl = it % 3 == 1;
        const std::string what = std::string(scene) + " variant " + std::to_string(variant) +
                                 " frame " + std::to_string(it);
        rs.hq = true;
        Image hq, plain;
        expect_same(cpu, *gpu, cam, rs, what, &hq);
        rs.hq = false;  // the next plain frame: the HQ frame cleared what it drew
        expect_same(cpu, *gpu, cam, rs, what + " plain after", &plain);
        differs += hq.rgba != plain.rgba;
      }
      EXPECT_GE(differs, 1) << scene << " variant " << variant;  // random cameras see little
    }
  }
}

TEST(HqParity, WithoutGraphsAndWithStageTiming) {
  PR_REQUIRE_GPU(gpu);
  PointCloud cloud = make_scene("terrain", 300000, 3);
  for (size_t i = 0; i < cloud.size(); i += 3) cloud.colors[i] = rgba(0, 0, 250);
  CpuRenderer cpu(0);
  std::string err;
  ASSERT_TRUE(cpu.set_cloud(cloud, &err)) << err;
  ASSERT_TRUE(gpu->set_cloud(cloud, &err)) << err;
  auto* cuda = dynamic_cast<CudaRenderer*>(gpu.get());
  ASSERT_TRUE(cuda);
  std::mt19937 rng(9);
  for (int mode = 0; mode < 2; ++mode) {
    CudaTuning t;
    t.frame_graph = mode == 0 ? false : true;
    t.stage_timing = mode == 1;
    cuda->set_tuning(t);
    for (int it = 0; it < 6; ++it) {
      RenderSettings rs;
      rs.width = 320;
      rs.height = 200;
      rs.point_size = 1 + it % 3;
      rs.hq = it % 3 != 2;  // HQ and plain frames in turn
      const Camera cam = test::random_camera(rng, cloud.local_bounds());
      expect_same(cpu, *gpu, cam, rs,
                  "mode " + std::to_string(mode) + " frame " + std::to_string(it));
    }
  }
}

}  // namespace
}  // namespace pr
