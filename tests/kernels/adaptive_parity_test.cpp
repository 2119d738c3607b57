// Adaptive point size on the GPU (engine/point_size.h in the raster, compact, HQ and pick
// kernels) against the CPU's: the same image and depths pixel for pixel over the scenes, random
// cameras, point sizes 1 - 3 up to max sizes 4 - 12, subsets, float and compact storage in their
// own and in Morton order, occlusion culling, with clips, EDL and HQ splats; the same picked
// point; the same images after update_points() (the grid made again); and the same images
// without frame graphs and with stage timing.
#include <gtest/gtest.h>

#include <random>

#include "../engine/random_camera.h"
#include "engine/clip.h"
#include "engine/cpu_renderer.h"
#include "engine/pick.h"
#include "engine/scenes.h"
#include "gpu_test_util.h"

namespace pr {
namespace {

/// Frame `it`'s adaptive settings: max sizes 4 - 12, a subset every fourth frame, a clip, EDL and
/// HQ splats in turn.
void adaptive_frame(int it, const Bounds& b, RenderSettings* rs) {
  rs->adaptive_size = true;
  rs->max_point_size = 4 + 4 * (it % 3);
  rs->adaptive_scale = it % 5 == 4 ? 2.0f : 1.0f;
  rs->edl = it % 3 == 1;
  rs->hq = it % 4 == 2;
  if (it % 5 == 3) {
    ClipBox box;
    box.centre = b.center();
    box.size = (b.max - b.min) * 0.5;
    box.yaw = 20.0;
    rs->clip.boxes.push_back(box);
  }
}

/// A camera with `first`'s orientation a 200th of the cloud's extent before point k * n / 3 + n /
/// 7 (world), looking at it: a close-up, where the points lie far apart on screen.
Camera close_up_camera(const PointCloud& cloud, const Camera& first, int k) {
  const size_t i = size_t(k) * cloud.size() / 3 + cloud.size() / 7;
  const Float3 q = cloud.positions[i];
  const glm::dvec3 target = cloud.origin + glm::dvec3(q.x, q.y, q.z);
  const Bounds b = cloud.world_bounds();
  Camera cam = first;
  cam.position = target - first.forward() * (glm::length(b.max - b.min) / 200.0);
  cam.look_at(target);
  return cam;
}

TEST(AdaptiveParity, ScenesStoragesEffects) {
  PR_REQUIRE_GPU(gpu);
  std::mt19937 rng(31);
  for (const char* scene : {"terrain", "galaxy", "cube"}) {
    // Over 2^20 points, so that the GPU culls batches (kGpuMinCullPoints).
    PointCloud cloud = make_scene(scene, 1500000, 5);
    for (size_t i = 0; i < cloud.size(); i += 2) cloud.colors[i] = rgba(250, 30, 40);
    for (int variant = 0; variant < 4; ++variant) {
      const RenderOptions o = test::storage_variant(variant);
      CpuRenderer cpu(0);
      ASSERT_NO_FATAL_FAILURE(test::set_both(cpu, *gpu, cloud, o));
      const Camera first = scene_camera(scene, cloud);
      // Random cameras (mostly far: their sizes stay near point_size), then two close-ups, where
      // the squares must grow: the adaptive image differs from the fixed one.
      for (int it = 0; it < 14; ++it) {
        Camera cam;
        RenderSettings rs;
        const bool close_up = it >= 12;
        test::random_frame(close_up ? 1 : it, rng, first, cloud.local_bounds(), &cam, &rs,
                           it % 6 == 5);
        if (close_up) cam = close_up_camera(cloud, first, it - 12);
        if (it % 4 == 3) rs.point_count = cloud.size() / 3;
        adaptive_frame(it, cloud.world_bounds(), &rs);
        // A clip could hide the close-up's point and leave both images empty.
        if (close_up) rs.clip = Clip{};
        const std::string what = std::string(scene) + " variant " + std::to_string(variant) +
                                 " frame " + std::to_string(it);
        Image adaptive, fixed;
        test::expect_same_frame(cpu, *gpu, cam, rs, what, &adaptive);
        rs.adaptive_size = false;  // the frame after: one size again
        test::expect_same_frame(cpu, *gpu, cam, rs, what + " fixed after", &fixed);
        if (close_up) {
          EXPECT_NE(adaptive.rgba, fixed.rgba) << what;
        }
      }
    }
  }
}

TEST(AdaptiveParity, PickNamesThePointTheGpuDrew) {
  PR_REQUIRE_GPU(gpu);
  std::mt19937 rng(5);
  int hits = 0;
  for (const char* scene : {"terrain", "cube"}) {
    const PointCloud cloud = make_scene(scene, 1200000, 9);
    for (int form = 0; form < 3; ++form) {  // float, compact, sorted float
      RenderOptions o;
      o.compact = form == 1;
      o.sort = form == 2 ? Toggle::kOn : Toggle::kOff;
      CpuRenderer cpu(0);
      ASSERT_NO_FATAL_FAILURE(test::set_both(cpu, *gpu, cloud, o));
      std::string err;
      for (int it = 0; it < 6; ++it) {
        const Camera cam =
            it == 0 ? scene_camera(scene, cloud) : test::random_camera(rng, cloud.local_bounds());
        RenderSettings rs;
        rs.width = 400;
        rs.height = 300;
        rs.point_size = 1 + it % 2;
        rs.want_depth = true;
        rs.adaptive_size = true;
        rs.max_point_size = 10;
        if (it % 3 == 2) rs.point_count = 600000;
        Image img;
        FrameStats st;
        ASSERT_TRUE(gpu->render(cam, rs, img, st, &err)) << err;
        for (int k = 0; k < 8; ++k) {
          const int x = int(rng() % 400), y = int(rng() % 300), radius = k % 2 ? 3 : 0;
          PickResult g, c;
          ASSERT_TRUE(pick_in_frame(*gpu, cloud, cam, rs, x, y, radius, &g, &err)) << err;
          ASSERT_TRUE(pick_in_frame(cpu, cloud, cam, rs, x, y, radius, &c, &err)) << err;
          EXPECT_EQ(pick_line(g), pick_line(c)) << scene << " form " << form << " " << it;
          if (!g.hit) continue;
          ++hits;
          const size_t at = size_t(g.y) * 400 + size_t(g.x);
          EXPECT_EQ(g.depth, img.depth[at]) << scene << " " << it;
          EXPECT_EQ(cloud.colors[g.index] | kOpaqueAlpha, img.rgba[at]);
        }
      }
    }
  }
  EXPECT_GT(hits, 20);
}

TEST(AdaptiveParity, GridFollowsUpdatedPoints) {
  PR_REQUIRE_GPU(gpu);
  PointCloud cloud = make_scene("terrain", 400000, 3);
  RenderOptions o;
  o.sort = Toggle::kOff;  // update_points() needs the cloud stored as given
  CpuRenderer cpu(0);
  ASSERT_NO_FATAL_FAILURE(test::set_both(cpu, *gpu, cloud, o));
  const Camera cam = scene_camera("terrain", cloud);
  RenderSettings rs;
  rs.width = 320;
  rs.height = 240;
  rs.adaptive_size = true;
  rs.max_point_size = 8;
  Image before, after;
  test::expect_same_frame(cpu, *gpu, cam, rs, "before", &before);
  // Three quarters of the points leave (a streaming pool's evicted slots): the rest is sparser.
  const uint64_t first = cloud.size() / 4;
  for (size_t i = size_t(first); i < cloud.size(); ++i) cloud.positions[i] = {NAN, NAN, NAN};
  std::string err;
  ASSERT_TRUE(cpu.update_points(cloud, first, cloud.size() - first, &err)) << err;
  ASSERT_TRUE(gpu->update_points(cloud, first, cloud.size() - first, &err)) << err;
  test::expect_same_frame(cpu, *gpu, cam, rs, "after", &after);
  EXPECT_NE(before.rgba, after.rgba);
}

TEST(AdaptiveParity, WithoutGraphsAndWithStageTiming) {
  PR_REQUIRE_GPU(gpu);
  const PointCloud cloud = make_scene("galaxy", 300000, 3);
  CpuRenderer cpu(0);
  test::expect_same_across_tunings(cpu, *gpu, cloud, [](RenderSettings& rs, int it) {
    rs.adaptive_size = it % 3 != 2;  // adaptive and fixed frames in turn
    rs.max_point_size = 9;
    rs.hq = it % 2 == 1;
  });
}

}  // namespace
}  // namespace pr
