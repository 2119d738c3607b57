// Renderer::update_points() on the GPU renderer: a streaming pool (tests/engine/pool_test_util.h)
// built range by range on the GPU and on the CPU draws the CPU's image pixel for pixel at every
// step (culling forced on small clouds, occlusion culling, EDL, high-quality splats, with and
// without frame graphs), the device's batch boxes equal those of the pool handed over whole, a
// pick between the steps (before a frame takes the new boxes in) names the CPU's point, an
// all-NaN batch is culled in every view, and at the end the pool draws the scene's own image.
// Sorted and compact clouds and ranges outside the cloud are refused. Skips without a device.
#include <random>
#include <string>

#include "../engine/pool_test_util.h"
#include "../engine/random_camera.h"
#include "engine/cpu_renderer.h"
#include "engine/pick.h"
#include "engine/scenes.h"
#include "gpu_test_util.h"
#include "kernels/cuda_renderer_testing.h"

namespace pr {
namespace {

constexpr uint32_t kBackground = rgba(16, 18, 24);

/// The options of frame k: culling off, on, with occlusion culling (binning only changes the
/// CPU's work).
RenderOptions frame_options(int k) {
  RenderOptions o;
  o.sort = Toggle::kOff;
  o.culling = k % 4 != 0;
  o.occlusion = k % 4 == 2 || k % 4 == 3 ? Toggle::kOn : Toggle::kOff;
  o.binning = k % 2 ? Toggle::kOn : Toggle::kOff;
  return o;
}

/// Frame k's tuning: forced rounds (which cull clouds of every size) or the renderer's choice
/// (which culls none this small), with and without a frame graph.
CudaTuning frame_tuning(int k) {
  CudaTuning t;
  t.rounds = k % 3 == 0 ? -1 : k % 3 == 1 ? 1 : 4;
  t.frame_graph = k % 2 == 0;
  return t;
}

/// Frame k's settings: 320 x 200 (the first of each four 1280 x 720) with depth, point sizes 1 - 3,
/// EDL on every third, high-quality splats on every fourth.
RenderSettings frame_settings(int k) {
  RenderSettings rs;
  rs.width = k % 4 == 0 ? 1280 : 320;
  rs.height = k % 4 == 0 ? 720 : 200;
  rs.background = kBackground;
  rs.want_depth = true;
  rs.point_size = 1 + k % 3;
  rs.edl = k % 3 == 1;
  rs.hq = k % 4 == 2;
  return rs;
}

/// Frame k on both renderers in its options and tuning: the same image and depths; with culling
/// forced, the GPU culls exactly the batches the CPU culls (a pool of no points has no batches:
/// `empty`).
void expect_same(CpuRenderer& cpu, CudaRenderer& gpu, const Camera& cam, int k,
                 const std::string& what, bool empty = false) {
  const RenderOptions o = frame_options(k);
  const CudaTuning t = frame_tuning(k);
  cpu.set_options(o);
  gpu.set_options(o);
  gpu.set_tuning(t);
  ASSERT_NO_FATAL_FAILURE(test::expect_same_frame(cpu, gpu, cam, frame_settings(k),
                                                  what + " frame " + std::to_string(k)));
  if (!o.culling || t.rounds < 0) return;
  GpuRenderer::BatchCounts counts;
  std::string err;
  if (empty) {
    EXPECT_FALSE(gpu.last_batch_counts(&counts, &err)) << what << ": batches in no points";
    EXPECT_EQ(cpu.culled_batches(), 0u) << what;
    return;
  }
  ASSERT_TRUE(gpu.last_batch_counts(&counts, &err)) << err;
  EXPECT_EQ(counts.culled, cpu.culled_batches()) << what << " frame " << k;
}

TEST(GpuPool, BuiltRangeByRangeDrawsTheCpuImageAndTheScene) {
  PR_REQUIRE_GPU(gpu);
  const test::PoolScene s = test::make_pool_scene("terrain", 150'000, 3, 7);
  PointCloud pool = test::empty_pool(s);
  RenderOptions plain;
  plain.sort = Toggle::kOff;
  CpuRenderer cpu(0);
  ASSERT_NO_FATAL_FAILURE(test::set_both(cpu, *gpu, pool, plain));
  std::mt19937 rng(3);
  const Bounds bounds = s.whole.local_bounds();
  const Camera home = scene_camera("terrain", s.whole);
  std::string err;
  {  // all NaN: every batch culled, nothing drawn
    ASSERT_NO_FATAL_FAILURE(expect_same(cpu, *gpu, home, 1, "empty pool"));
    GpuRenderer::BatchCounts counts;
    ASSERT_TRUE(gpu->last_batch_counts(&counts, &err)) << err;
    EXPECT_EQ(counts.culled, pool.size() / kPointBatch);
    EXPECT_EQ(counts.first + counts.second, 0u);
  }
  int frames = 0, picks = 0, hits = 0;
  test::fill_pool(s, pool, 11, [&](uint64_t first, uint64_t count, int step) {
    ASSERT_TRUE(gpu->update_points(pool, first, count, &err)) << err;
    ASSERT_TRUE(cpu.update_points(pool, first, count, &err)) << err;
    if (step % 2 != 0) {
      // A pick before a frame has taken the copies' boxes in: the GPU's walks every batch.
      ++picks;
      const RenderSettings rs = frame_settings(step);
      PickResult g, c;
      const int x = int(rng() % uint32_t(rs.width)), y = int(rng() % uint32_t(rs.height));
      ASSERT_TRUE(pick_in_frame(*gpu, pool, home, rs, x, y, 6, &g, &err)) << err;
      ASSERT_TRUE(pick_in_frame(cpu, pool, home, rs, x, y, 6, &c, &err)) << err;
      EXPECT_EQ(pick_line(g), pick_line(c)) << "step " << step;
      hits += g.hit;
      return;
    }
    PodVector<PointBox> boxes;
    ASSERT_TRUE(download_boxes(*gpu, &boxes, &err)) << err;
    EXPECT_TRUE(test::same_boxes(boxes, test::fresh_boxes(pool))) << "step " << step;
    const int k = frames++;
    const Camera cam = k % 3 == 0 ? home : test::random_camera(rng, bounds);
    ASSERT_NO_FATAL_FAILURE(expect_same(cpu, *gpu, cam, k, "step " + std::to_string(step)));
  });
  ASSERT_GT(frames, 15);
  EXPECT_GT(picks, 15);
  EXPECT_GT(hits, 3);  // the pool fills: later picks find points
  // Every node resident: the scene's image on the GPU, and the CPU's.
  CpuRenderer scene(0);
  scene.set_options(plain);
  ASSERT_TRUE(scene.set_cloud(s.whole, &err)) << err;
  for (int k = 0; k < 16; ++k) {
    const Camera cam = k % 4 == 0 ? home : test::random_camera(rng, bounds);
    ASSERT_NO_FATAL_FAILURE(expect_same(cpu, *gpu, cam, k, "final"));
    scene.set_options(frame_options(k));
    gpu->set_tuning(frame_tuning(k));
    Image out;
    ASSERT_NO_FATAL_FAILURE(test::expect_same_frame(scene, *gpu, cam, frame_settings(k),
                                                    "scene frame " + std::to_string(k), &out));
    if (k % 4 == 0) {
      EXPECT_GT(test::count_drawn(out, kBackground), 1000u);
    }
  }
}

// A pool that grows (a streamed survey's, which starts empty): the device's storage grows by
// doubling, the points so far copied over, and every step draws the CPU's image with the boxes
// of the pool handed over whole; in the end the scene's image.
TEST(GpuPool, AGrowingPoolDrawsTheCpuImage) {
  PR_REQUIRE_GPU(gpu);
  const test::PoolScene s = test::make_pool_scene("terrain", 150'000, 3, 7);
  PointCloud pool;
  pool.origin = s.whole.origin;
  RenderOptions plain;
  plain.sort = Toggle::kOff;
  CpuRenderer cpu(0);
  ASSERT_NO_FATAL_FAILURE(test::set_both(cpu, *gpu, pool, plain));
  std::mt19937 rng(5);
  const Bounds bounds = s.whole.local_bounds();
  const Camera home = scene_camera("terrain", s.whole);
  std::string err;
  ASSERT_NO_FATAL_FAILURE(expect_same(cpu, *gpu, home, 1, "empty pool", true));
  int frames = 0;
  test::grow_pool(s, pool, test::growth_sizes(s), [&](uint64_t first, uint64_t count, int step) {
    ASSERT_TRUE(gpu->update_points(pool, first, count, &err)) << err;
    ASSERT_TRUE(cpu.update_points(pool, first, count, &err)) << err;
    PodVector<PointBox> boxes;
    ASSERT_TRUE(download_boxes(*gpu, &boxes, &err)) << err;
    EXPECT_TRUE(test::same_boxes(boxes, test::fresh_boxes(pool))) << "step " << step;
    const int k = frames++;
    const Camera cam = k % 3 == 0 ? home : test::random_camera(rng, bounds);
    ASSERT_NO_FATAL_FAILURE(expect_same(cpu, *gpu, cam, k, "step " + std::to_string(step)));
  });
  ASSERT_GT(frames, 8);
  CpuRenderer scene(0);
  scene.set_options(plain);
  ASSERT_TRUE(scene.set_cloud(s.whole, &err)) << err;
  for (int k = 0; k < 8; ++k) {
    const Camera cam = k % 4 == 0 ? home : test::random_camera(rng, bounds);
    scene.set_options(frame_options(k));
    gpu->set_options(frame_options(k));
    gpu->set_tuning(frame_tuning(k));
    ASSERT_NO_FATAL_FAILURE(test::expect_same_frame(scene, *gpu, cam, frame_settings(k),
                                                    "scene frame " + std::to_string(k)));
  }
}

TEST(GpuPool, UpdatePointsRefusesSortedAndCompactCloudsAndRangesOutside) {
  PR_REQUIRE_GPU(gpu);
  const PointCloud cloud = make_scene("cube", 20'000, 2);
  std::string err;
  RenderOptions o;
  o.sort = Toggle::kOn;
  gpu->set_options(o);
  ASSERT_TRUE(gpu->set_cloud(cloud, &err)) << err;
  ASSERT_TRUE(gpu->cloud_sorted());
  EXPECT_FALSE(gpu->update_points(cloud, 0, 100, &err));
  EXPECT_NE(err.find("sorted"), std::string::npos) << err;
  o.compact = true;
  o.sort = Toggle::kOff;
  gpu->set_options(o);
  ASSERT_TRUE(gpu->set_cloud(cloud, &err)) << err;
  EXPECT_FALSE(gpu->update_points(cloud, 0, 100, &err));
  EXPECT_NE(err.find("compact"), std::string::npos) << err;
  o.compact = false;
  gpu->set_options(o);
  ASSERT_TRUE(gpu->set_cloud(cloud, &err)) << err;
  EXPECT_TRUE(gpu->update_points(cloud, 0, 100, &err)) << err;
  EXPECT_TRUE(gpu->update_points(cloud, 20'000, 0, &err)) << err;
  EXPECT_TRUE(gpu->update_points(cloud, 19'999, 1, &err)) << err;
  EXPECT_FALSE(gpu->update_points(cloud, 19'999, 2, &err));
  EXPECT_NE(err.find("outside"), std::string::npos) << err;
  EXPECT_FALSE(gpu->update_points(cloud, 5, ~uint64_t{0}, &err));
  const PointCloud other = cloud;
  EXPECT_FALSE(gpu->update_points(other, 0, 100, &err));
  EXPECT_NE(err.find("not the cloud"), std::string::npos) << err;
  // Refusals change nothing: the cloud still draws as the CPU draws it.
  CpuRenderer cpu(0);
  cpu.set_options(o);
  ASSERT_TRUE(cpu.set_cloud(cloud, &err)) << err;
  RenderSettings rs;
  rs.width = 320;
  rs.height = 200;
  rs.want_depth = true;
  ASSERT_NO_FATAL_FAILURE(
      test::expect_same_frame(cpu, *gpu, scene_camera("cube", cloud), rs, "after refusals"));
}

/// Colors changed in a range of an unaligned length (the packed colors' bytes 3 * first on) and
/// positions moved there: the GPU draws what the CPU draws, and the colors around the range stay.
TEST(GpuPool, UnalignedRangesKeepTheirNeighboursColors) {
  PR_REQUIRE_GPU(gpu);
  PointCloud cloud = make_scene("cube", 50'001, 4);
  RenderOptions o;
  o.sort = Toggle::kOff;
  CpuRenderer cpu(0);
  ASSERT_NO_FATAL_FAILURE(test::set_both(cpu, *gpu, cloud, o));
  std::mt19937 rng(5);
  std::string err;
  const Bounds bounds = cloud.local_bounds();
  for (int it = 0; it < 12; ++it) {
    const uint64_t first = rng() % cloud.size();
    const uint64_t count = 1 + rng() % std::min<uint64_t>(9000, cloud.size() - first);
    for (uint64_t i = first; i < first + count; ++i) {
      cloud.colors[i] = rgba(uint8_t(rng()), uint8_t(rng()), uint8_t(rng()));
      Float3& v = cloud.positions[i];
      v = Float3{v.y * 0.5f, v.z, v.x};
    }
    ASSERT_TRUE(gpu->update_points(cloud, first, count, &err)) << err;
    ASSERT_TRUE(cpu.update_points(cloud, first, count, &err)) << err;
    const Camera cam = it == 0 ? scene_camera("cube", cloud) : test::random_camera(rng, bounds);
    ASSERT_NO_FATAL_FAILURE(expect_same(cpu, *gpu, cam, it, "range " + std::to_string(it)));
  }
}

}  // namespace
}  // namespace pr
