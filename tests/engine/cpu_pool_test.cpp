// Renderer::update_points() on the CPU renderer: a streaming pool (pool_test_util.h) built range
// by range draws what a renderer handed the same pool whole draws, with the same batch boxes at
// every step, and in the end the image of the scene itself, with culling, occlusion culling and
// binning on and off, EDL and high-quality splats.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "engine/cpu_renderer.h"
#include "pool_test_util.h"
#include "render_test_util.h"

namespace pr {
namespace {

using test::count_diff;
using test::kBg;

/// The options a frame of the comparisons is drawn in: culling, occlusion culling and binning in
/// the combinations that do different work.
RenderOptions frame_options(int k) {
  RenderOptions o;
  o.sort = Toggle::kOff;
  o.culling = k % 5 != 0;
  o.occlusion = k % 5 == 2 || k % 5 == 3 ? Toggle::kOn : Toggle::kOff;
  o.binning = k % 5 == 3 || k % 5 == 4 || k % 5 == 0 ? Toggle::kOn : Toggle::kOff;
  return o;
}

/// The settings of frame k: 320 x 200 with depth, point sizes 1 - 2, EDL on every third frame,
/// high-quality splats on every fourth.
RenderSettings frame_settings(int k) {
  RenderSettings rs;
  rs.width = 320;
  rs.height = 200;
  rs.background = kBg;
  rs.want_depth = true;
  rs.point_size = 1 + k % 2;
  rs.edl = k % 3 == 1;
  rs.hq = k % 4 == 2;
  return rs;
}

/// One frame of `r` in the options `o`.
Image draw(CpuRenderer& r, const RenderOptions& o, const Camera& cam, const RenderSettings& rs) {
  r.set_options(o);
  return test::render(r, cam, rs);
}

void expect_same(const Image& a, const Image& b, const std::string& what) {
  std::string first;
  EXPECT_EQ(count_diff(a, b, &first), 0u) << what << ": " << first;
  ASSERT_EQ(a.depth.size(), b.depth.size()) << what;
  EXPECT_EQ(std::memcmp(a.depth.data(), b.depth.data(), a.depth.size() * sizeof(float)), 0) << what;
}

TEST(CpuPool, BuiltRangeByRangeDrawsWhatTheWholeCloudDraws) {
  const test::PoolScene s = test::make_pool_scene("terrain", 150'000, 3, 7);
  PointCloud pool = test::empty_pool(s);
  RenderOptions plain;
  plain.sort = Toggle::kOff;
  plain.compact = false;
  CpuRenderer streamed(2);
  streamed.set_options(plain);
  std::string err;
  ASSERT_TRUE(streamed.set_cloud(pool, &err)) << err;
  std::mt19937 rng(3);
  const Bounds bounds = s.whole.local_bounds();
  const Camera home = scene_camera("terrain", s.whole);
  // An all-NaN pool: every batch is culled, nothing drawn.
  {
    RenderOptions o = plain;
    o.occlusion = Toggle::kOn;
    const Image img = draw(streamed, o, home, frame_settings(0));
    EXPECT_EQ(test::count_drawn(img), 0u);
    EXPECT_EQ(streamed.culled_batches(), pool.size() / kPointBatch);
    EXPECT_TRUE(test::same_boxes(streamed.boxes(), test::fresh_boxes(pool)));
  }
  int frames = 0;
  test::fill_pool(s, pool, 11, [&](uint64_t first, uint64_t count, int step) {
    ASSERT_TRUE(streamed.update_points(pool, first, count, &err)) << err;
    if (step % 2 != 0) return;
    // The boxes are those of the pool as it is, and a frame (after a frame of another camera, so
    // that occlusion culling has a Hi-Z of other points) is what a renderer handed the pool
    // whole draws.
    EXPECT_TRUE(test::same_boxes(streamed.boxes(), test::fresh_boxes(pool))) << "step " << step;
    const int k = frames++;
    const PointCloud copy = pool;
    CpuRenderer whole(2);
    whole.set_options(plain);
    ASSERT_TRUE(whole.set_cloud(copy, &err)) << err;
    const Camera cam = k % 3 == 0 ? home : test::random_camera(rng, bounds);
    const RenderOptions o = frame_options(k);
    const RenderSettings rs = frame_settings(k);
    expect_same(draw(streamed, o, cam, rs), draw(whole, o, cam, rs),
                "step " + std::to_string(step));
    if (o.culling) {
      EXPECT_EQ(streamed.culled_batches(), whole.culled_batches()) << "step " << step;
    }
  });
  ASSERT_GT(frames, 15);
  EXPECT_TRUE(test::same_boxes(streamed.boxes(), test::fresh_boxes(pool)));
  // Every node resident: the scene's own image, in every option and effect.
  CpuRenderer scene(2);
  scene.set_options(plain);
  ASSERT_TRUE(scene.set_cloud(s.whole, &err)) << err;
  for (int k = 0; k < 20; ++k) {
    const Camera cam = k % 4 == 0 ? home : test::random_camera(rng, bounds);
    const RenderSettings rs = frame_settings(k);
    const RenderOptions o = frame_options(k);
    const Image a = draw(streamed, o, cam, rs), b = draw(scene, o, cam, rs);
    expect_same(a, b, "final frame " + std::to_string(k));
    if (k % 4 == 0) {
      EXPECT_GT(test::count_drawn(a), 1000u);
    }
  }
}

// A pool that grows (a streamed survey's, which starts empty) draws at every size what a
// renderer handed it whole draws, with the same boxes, and in the end the scene's image.
TEST(CpuPool, AGrowingPoolDrawsWhatTheWholeCloudDraws) {
  const test::PoolScene s = test::make_pool_scene("terrain", 150'000, 3, 7);
  PointCloud pool;
  pool.origin = s.whole.origin;
  RenderOptions plain;
  plain.sort = Toggle::kOff;
  plain.compact = false;
  CpuRenderer streamed(2);
  streamed.set_options(plain);
  std::string err;
  ASSERT_TRUE(streamed.set_cloud(pool, &err)) << err;
  std::mt19937 rng(5);
  const Bounds bounds = s.whole.local_bounds();
  const Camera home = scene_camera("terrain", s.whole);
  EXPECT_EQ(test::count_drawn(draw(streamed, plain, home, frame_settings(0))), 0u);
  int frames = 0;
  test::grow_pool(s, pool, test::growth_sizes(s), [&](uint64_t first, uint64_t count, int step) {
    ASSERT_TRUE(streamed.update_points(pool, first, count, &err)) << err;
    const int k = frames++;
    const PointCloud copy = pool;
    CpuRenderer whole(2);
    whole.set_options(plain);
    ASSERT_TRUE(whole.set_cloud(copy, &err)) << err;
    const Camera cam = k % 3 == 0 ? home : test::random_camera(rng, bounds);
    const RenderOptions o = frame_options(k);
    const RenderSettings rs = frame_settings(k);
    expect_same(draw(streamed, o, cam, rs), draw(whole, o, cam, rs),
                "step " + std::to_string(step));
    if (!streamed.boxes().empty()) {
      EXPECT_TRUE(test::same_boxes(streamed.boxes(), test::fresh_boxes(pool))) << "step " << step;
    }
  });
  ASSERT_GT(frames, 8);
  EXPECT_TRUE(test::same_boxes(streamed.boxes(), test::fresh_boxes(pool)));
  CpuRenderer scene(2);
  scene.set_options(plain);
  ASSERT_TRUE(scene.set_cloud(s.whole, &err)) << err;
  for (int k = 0; k < 10; ++k) {
    const Camera cam = k % 4 == 0 ? home : test::random_camera(rng, bounds);
    expect_same(draw(streamed, frame_options(k), cam, frame_settings(k)),
                draw(scene, frame_options(k), cam, frame_settings(k)),
                "final frame " + std::to_string(k));
  }
}

TEST(CpuPool, AllNanBatchesAreCulledAndPartlyNanBatchesDrawTheirFinitePoints) {
  const test::PoolScene s = test::make_pool_scene("terrain", 20'000, 1, 5);
  PointCloud pool = test::empty_pool(s);
  RenderOptions plain;
  plain.sort = Toggle::kOff;
  plain.occlusion = Toggle::kOff;
  CpuRenderer r(2);
  r.set_options(plain);
  std::string err;
  ASSERT_TRUE(r.set_cloud(pool, &err)) << err;
  const Camera home = scene_camera("terrain", s.whole);
  RenderSettings rs = frame_settings(0);
  (void)test::render(r, home, rs);  // the boxes, all empty
  // Every other point of the scene's first 5000 into slot 0 (batches 0 and 1, the second only
  // partly filled, both with NaN between the points).
  PointCloud finite;
  finite.origin = pool.origin;
  for (uint64_t i = 0; i < 5000; i += 2) {
    pool.positions[i] = s.whole.positions[i];
    pool.colors[i] = s.whole.colors[i];
    finite.positions.push_back(s.whole.positions[i]);
    finite.colors.push_back(s.whole.colors[i]);
  }
  ASSERT_TRUE(r.update_points(pool, 0, 5000, &err)) << err;
  const PodVector<PointBox>& boxes = r.boxes();
  ASSERT_EQ(boxes.size(), pool.size() / kPointBatch);
  for (size_t b = 2; b < boxes.size(); ++b)  // all NaN: empty, culled by every camera
    EXPECT_TRUE(boxes[b].lo[0] > boxes[b].hi[0] &&
                !box_may_draw(home.params(320, 200, pool.origin, 1), boxes[b]));
  PodVector<PointBox> expected;
  compute_point_boxes(finite.positions.data(), 2048, &expected);  // points 0, 2, ... 4094
  for (int a = 0; a < 3; ++a) {
    EXPECT_EQ(boxes[0].lo[a], expected[0].lo[a]);
    EXPECT_EQ(boxes[0].hi[a], expected[0].hi[a]);
  }
  CpuRenderer dense(2);
  dense.set_options(plain);
  ASSERT_TRUE(dense.set_cloud(finite, &err)) << err;
  for (int k = 0; k < 6; ++k) {
    rs = frame_settings(k);
    const Image a = draw(r, frame_options(k), home, rs),
                b = draw(dense, frame_options(k), home, rs);
    expect_same(a, b, "frame " + std::to_string(k));
    EXPECT_GT(test::count_drawn(a), 100u);
    // Culled: at least the all-NaN batches; the dense cloud has one batch.
    if (frame_options(k).culling) {
      EXPECT_GE(r.culled_batches(), boxes.size() - 2);
    }
  }
}

TEST(CpuPool, UpdatePointsRefusesCompactCloudsForeignCloudsAndRangesOutside) {
  const PointCloud cloud = make_scene("cube", 10'000, 2);
  CpuRenderer r(2);
  std::string err;
  RenderOptions o;
  o.compact = true;
  o.sort = Toggle::kOff;
  r.set_options(o);
  ASSERT_TRUE(r.set_cloud(cloud, &err)) << err;
  EXPECT_FALSE(r.update_points(cloud, 0, 100, &err));
  EXPECT_NE(err.find("compact"), std::string::npos) << err;
  o.compact = false;
  r.set_options(o);
  ASSERT_TRUE(r.set_cloud(cloud, &err)) << err;
  EXPECT_TRUE(r.update_points(cloud, 0, 100, &err)) << err;
  EXPECT_TRUE(r.update_points(cloud, 10'000, 0, &err)) << err;
  EXPECT_TRUE(r.update_points(cloud, 9'999, 1, &err)) << err;
  err.clear();
  EXPECT_FALSE(r.update_points(cloud, 9'999, 2, &err));
  EXPECT_NE(err.find("outside"), std::string::npos) << err;
  EXPECT_FALSE(r.update_points(cloud, 10'001, 0, &err));
  EXPECT_FALSE(r.update_points(cloud, 5, ~uint64_t{0}, &err));  // first + count wraps
  const PointCloud other = cloud;
  EXPECT_FALSE(r.update_points(other, 0, 100, &err));
  EXPECT_NE(err.find("not the cloud"), std::string::npos) << err;
}

}  // namespace
}  // namespace pr
