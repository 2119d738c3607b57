// Clip volumes and sections on the GPU (the raster, compact, HQ and pick kernels, the box tests)
// against the CPU renderer: the same image and depths pixel for pixel over the scenes, float and
// compact storage in their own and in Morton order, occlusion culling on and automatic, point
// sizes 1 - 3, subsets, EDL and HQ splats; frame graphs on and off; the same picked point; the
// batches a small box hides culled.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "../engine/random_camera.h"
#include "engine/clip.h"
#include "engine/cpu_renderer.h"
#include "engine/pick.h"
#include "engine/scenes.h"
#include "gpu_test_util.h"

namespace pr {
namespace {

/// Boxes of every mode around the middle of `b` (the inside one turned), and with `section` a
/// slab across y.
Clip clip_for(const Bounds& b, bool section) {
  const glm::dvec3 c = b.center(), e = b.max - b.min;
  Clip clip;
  ClipBox in;
  in.centre = c;
  in.size = e * 0.55;
  in.yaw = 25.0;
  in.roll = 15.0;
  clip.boxes.push_back(in);
  ClipBox out = in;
  out.size = e * 0.12;
  out.mode = ClipMode::kOutside;
  clip.boxes.push_back(out);
  ClipBox hi;
  hi.centre = c - e * 0.15;
  hi.size = e * 0.25;
  hi.pitch = -20.0;
  hi.mode = ClipMode::kHighlight;
  clip.boxes.push_back(hi);
  if (section) clip.section = section_along_axis(1, c.y, e.y * 0.3);
  return clip;
}

TEST(ClipParity, ScenesStoragesEffects) {
  PR_REQUIRE_GPU(gpu);
  std::mt19937 rng(23);
  for (const char* scene : {"terrain", "galaxy", "cube"}) {
    // Over 2^20 points, so that the GPU culls batches (kGpuMinCullPoints).
    const PointCloud cloud = make_scene(scene, 1500000, 7);
    for (int variant = 0; variant < 4; ++variant) {
      const RenderOptions o = test::storage_variant(variant);
      CpuRenderer cpu(0);
      ASSERT_NO_FATAL_FAILURE(test::set_both(cpu, *gpu, cloud, o));
      const Camera first = scene_camera(scene, cloud);
      for (int it = 0; it < 10; ++it) {
        Camera cam;
        RenderSettings rs;
        test::random_frame(it, rng, first, cloud.local_bounds(), &cam, &rs);
        if (it % 4 == 3) rs.point_count = cloud.size() / 3;
        rs.edl = it % 3 == 1;
        rs.hq = it % 3 == 2;
        rs.clip = clip_for(cloud.local_bounds(), it % 2 == 1);
        test::expect_same_frame(cpu, *gpu, cam, rs,
                                std::string(scene) + " variant " + std::to_string(variant) +
                                    " frame " + std::to_string(it));
      }
      // A box away from every point: nothing draws, on both.
      RenderSettings none;
      none.width = 200;
      none.height = 120;
      ClipBox far;
      far.centre = cloud.local_bounds().max + glm::dvec3(1e3);
      none.clip.boxes.push_back(far);
      Image img;
      test::expect_same_frame(cpu, *gpu, first, none, std::string(scene) + " empty", &img);
      EXPECT_EQ(test::count_drawn(img, none.background), 0u) << scene;
    }
  }
}

TEST(ClipParity, WithoutGraphsAndWithStageTiming) {
  PR_REQUIRE_GPU(gpu);
  const PointCloud cloud = make_scene("terrain", 300000, 3);
  CpuRenderer cpu(0);
  const Clip clip = clip_for(cloud.local_bounds(), true);
  test::expect_same_across_tunings(cpu, *gpu, cloud, [&](RenderSettings& rs, int it) {
    if (it % 3 != 2) rs.clip = clip;  // clipped and plain frames in turn
    rs.edl = it % 2 == 1;
  });
}

TEST(ClipParity, PickNamesTheSameShownPoint) {
  PR_REQUIRE_GPU(gpu);
  std::mt19937 rng(8);
  const PointCloud cloud = make_scene("terrain", 1200000, 5);
  const Clip clip = clip_for(cloud.local_bounds(), false);
  for (int form = 0; form < 2; ++form) {
    RenderOptions o;
    o.compact = form == 1;
    CpuRenderer cpu(0);
    ASSERT_NO_FATAL_FAILURE(test::set_both(cpu, *gpu, cloud, o));
    const Camera cam = scene_camera("terrain", cloud);
    RenderSettings rs;
    rs.width = 400;
    rs.height = 300;
    rs.clip = clip;
    std::string err;
    for (int k = 0; k < 40; ++k) {
      const int x = int(rng() % 400), y = int(rng() % 300), radius = k % 2 ? 3 : 0;
      PickResult g, c;
      ASSERT_TRUE(pick_in_frame(*gpu, cloud, cam, rs, x, y, radius, &g, &err)) << err;
      ASSERT_TRUE(pick_in_frame(cpu, cloud, cam, rs, x, y, radius, &c, &err)) << err;
      EXPECT_EQ(pick_line(g), pick_line(c)) << "form " << form << " " << x << "," << y;
    }
  }
}

TEST(ClipParity, BoxTestsCullTheBatchesASmallBoxHides) {
  PR_REQUIRE_GPU(gpu);
  const PointCloud cloud = make_scene("terrain", 2000000, 1);
  RenderOptions o;
  o.sort = Toggle::kOn;
  o.occlusion = Toggle::kOff;
  CpuRenderer cpu(0);
  ASSERT_NO_FATAL_FAILURE(test::set_both(cpu, *gpu, cloud, o));
  const Bounds b = cloud.local_bounds();
  RenderSettings rs;
  rs.width = 320;
  rs.height = 200;
  rs.clip.boxes.push_back(clip_box_around(b.min, b.min + (b.max - b.min) * 0.2));
  test::expect_same_frame(cpu, *gpu, scene_camera("terrain", cloud), rs, "small box");
  GpuRenderer::BatchCounts counts;
  std::string err;
  ASSERT_TRUE(gpu->last_batch_counts(&counts, &err)) << err;
  EXPECT_GT(counts.culled, counts.batches / 2);
}

// Batches a box shows whole draw without the per-point test (kBatchClipShown), beside batches it
// cuts (tested point by point) and batches it hides: float and compact, sorted; a box around the
// whole cloud draws the image of no clip at all.
TEST(ClipParity, BatchesABoxShowsWholeSkipThePointTest) {
  PR_REQUIRE_GPU(gpu);
  const PointCloud cloud = make_scene("terrain", 2000000, 4);
  const Bounds b = cloud.local_bounds();
  const glm::dvec3 e = b.max - b.min;
  for (int form = 0; form < 2; ++form) {
    RenderOptions o;
    o.sort = Toggle::kOn;
    o.compact = form == 1;
    CpuRenderer cpu(0);
    ASSERT_NO_FATAL_FAILURE(test::set_both(cpu, *gpu, cloud, o));
    const Camera cam = scene_camera("terrain", cloud);
    RenderSettings rs;
    rs.width = 480;
    rs.height = 270;
    rs.clip.boxes.push_back(
        clip_box_around(b.min - e * 0.01, b.min + e * glm::dvec3(0.6, 1.01, 0.55)));
    const std::string what = std::string(o.compact ? "compact" : "float") + " half box";
    test::expect_same_frame(cpu, *gpu, cam, rs, what);
    rs.point_size = 2;
    test::expect_same_frame(cpu, *gpu, cam, rs, what + ", size 2");
    rs.point_size = 1;
    // Around everything: the image without a clip.
    RenderSettings all = rs, plain = rs;
    all.clip.boxes = {clip_box_around(b.min - e * 0.01, b.max + e * 0.01)};
    plain.clip = Clip{};
    Image with_box, without;
    test::expect_same_frame(cpu, *gpu, cam, all, what + ", box around all", &with_box);
    test::expect_same_frame(cpu, *gpu, cam, plain, what + ", no clip", &without);
    EXPECT_EQ(with_box.rgba, without.rgba) << what;
  }
}

}  // namespace
}  // namespace pr
