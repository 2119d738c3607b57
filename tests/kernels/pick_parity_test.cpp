// Picking against the GPU's frames: pick_in_frame() with the CUDA renderer (its pass over the
// points on the device) names the same point as with the CPU renderer, and that point's depth and
// color are the GPU image's at the pixel, over scenes, random cameras, point sizes 1 - 3, subsets,
// float and compact positions, stored as given and sorted.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "../engine/random_camera.h"
#include "engine/cpu_renderer.h"
#include "engine/pick.h"
#include "engine/scenes.h"
#include "gpu_test_util.h"

namespace pr {
namespace {

TEST(PickParity, CpuAndGpuNameThePointTheGpuDrew) {
  PR_REQUIRE_GPU(gpu);
  std::mt19937 rng(3);
  int hits = 0;
  for (const char* scene : {"terrain", "galaxy", "cube"}) {
    const PointCloud cloud = make_scene(scene, 1200000, 5);
    for (int form = 0; form < 4; ++form) {  // float or compact, stored as given or sorted
      RenderOptions o;
      o.compact = form % 2 == 1;
      o.sort = form < 2 ? Toggle::kOff : Toggle::kOn;
      CpuRenderer cpu(0);
      ASSERT_NO_FATAL_FAILURE(test::set_both(cpu, *gpu, cloud, o));
      std::string err;
      for (int it = 0; it < 8; ++it) {
        const Camera cam =
            it == 0 ? scene_camera(scene, cloud) : test::random_camera(rng, cloud.local_bounds());
        RenderSettings rs;
        rs.width = 400;
        rs.height = 300;
        rs.point_size = 1 + it % 3;
        rs.want_depth = true;
        rs.edl = it % 2 == 1;
        if (it % 4 == 3) rs.point_count = 700000;
        Image img;
        FrameStats st;
        ASSERT_TRUE(gpu->render(cam, rs, img, st, &err)) << err;
        // The GPU picks on the device (Renderer::pick_window()), not through the host cloud.
        PickWindow w;
        ASSERT_TRUE(pick_window_at(200, 150, 4, rs.width, rs.height, &w));
        ASSERT_TRUE(gpu->pick_window(cam, rs, &w, &err)) << err;
        for (int k = 0; k < 10; ++k) {
          const int x = int(rng() % 400), y = int(rng() % 300), radius = k % 2 ? 4 : 0;
          PickResult g, c;
          ASSERT_TRUE(pick_in_frame(*gpu, cloud, cam, rs, x, y, radius, &g, &err)) << err;
          ASSERT_TRUE(pick_in_frame(cpu, cloud, cam, rs, x, y, radius, &c, &err)) << err;
          EXPECT_EQ(pick_line(g), pick_line(c)) << scene << " form " << form << " " << it;
          EXPECT_EQ(g.x, c.x);
          EXPECT_EQ(g.y, c.y);
          if (k % 4 != 0) {
            // Candidates that do not fit (the index from a second pass), walks in launches of 3
            // listed batches (several launches a pass), or both.
            const CudaTuning before = gpu->tuning();
            CudaTuning t = before;
            if (k % 2 == 1) t.pick_candidates = 1;
            if (k % 4 != 3) t.pick_launch_batches = 3;
            gpu->set_tuning(t);
            PickResult second;
            ASSERT_TRUE(pick_in_frame(*gpu, cloud, cam, rs, x, y, radius, &second, &err)) << err;
            EXPECT_EQ(pick_line(second), pick_line(c))
                << scene << " form " << form << " " << it << " k " << k;
            gpu->set_tuning(before);
          }
          if (!g.hit) continue;
          ++hits;
          const size_t at = size_t(g.y) * 400 + size_t(g.x);
          EXPECT_EQ(g.depth, img.depth[at]) << scene << " " << it;
          if (!rs.edl) {
            EXPECT_EQ(cloud.colors[g.index] | kOpaqueAlpha, img.rgba[at]);
          }
        }
      }
    }
  }
  EXPECT_GT(hits, 40);
}

}  // namespace
}  // namespace pr
