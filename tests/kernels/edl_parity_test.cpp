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

struct Frames {
  Image cpu, gpu;
};

Frames draw_both(CpuRenderer& cpu, Renderer& gpu, const Camera& cam, const RenderSettings& rs) {
  Frames f;
  FrameStats st;
  std::string err;
  EXPECT_TRUE(cpu.render(cam, rs, f.cpu, st, &err)) << err;
  EXPECT_TRUE(gpu.render(cam, rs, f.gpu, st, &err)) << err;
  return f;
}

void expect_same(const Frames& f, const std::string& what) {
  std::string first;
  EXPECT_EQ(test::count_diff(f.cpu, f.gpu, &first), 0u) << what << ": " << first;
  EXPECT_EQ(f.cpu.depth, f.gpu.depth) << what;
}

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
      cpu.set_options(o);
      gpu->set_options(o);
      std::string err;
      ASSERT_TRUE(cpu.set_cloud(cloud, &err)) << err;
      ASSERT_TRUE(gpu->set_cloud(cloud, &err)) << err;
      int shaded = 0;
      for (int it = 0; it < 16; ++it) {
        const Camera cam =
            it == 0 ? scene_camera(scene, cloud) : test::random_camera(rng, cloud.local_bounds());
        RenderSettings rs;
        rs.width = it == 0 ? 1920 : 100 + int(rng() % 500);
        rs.height = it == 0 ? 1080 : 80 + int(rng() % 400);
        rs.point_size = 1 + it % 3;
        rs.background = rgba(10, 20, 30);
        rs.want_depth = it % 2 == 0;
        rs.edl = true;
        rs.edl_strength = 0.2f + float(it % 5) * 0.4f;
        rs.edl_radius = it % 4 == 3 ? 3.0f : 1.4f;
        const std::string what =
            std::string(scene) + (compact ? " compact" : "") + " frame " + std::to_string(it);
        const Frames lit = draw_both(cpu, *gpu, cam, rs);
        expect_same(lit, what);
        // The next plain frame: the EDL frame cleared what it drew.
        rs.edl = false;
        const Frames plain = draw_both(cpu, *gpu, cam, rs);
        expect_same(plain, what + " plain after");
        shaded += lit.gpu.rgba != plain.gpu.rgba;
      }
      EXPECT_GT(shaded, 2) << scene;
    }
  }
}

TEST(EdlParity, WithoutGraphsAndWithStageTiming) {
  PR_REQUIRE_GPU(gpu);
  const PointCloud cloud = make_scene("terrain", 300000, 3);
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
      rs.edl = it % 3 != 2;  // EDL and plain frames in turn
      const Camera cam = test::random_camera(rng, cloud.local_bounds());
      expect_same(draw_both(cpu, *gpu, cam, rs),
                  "mode " + std::to_string(mode) + " frame " + std::to_string(it));
    }
  }
}

}  // namespace
}  // namespace pr
