// Morton order (engine/morton.h): the order-coherence measure and the host sort of incoherent
// clouds, which leaves the image unchanged.
#include "engine/morton.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "engine/cpu_renderer.h"
#include "engine/scenes.h"
#include "render_test_util.h"

namespace pr {
namespace {

using test::count_drawn;
using test::kBg;
using test::render;

TEST(Morton, OrderCoherenceTellsRandomFromSpatialOrder) {
  PointCloud cube = make_scene("cube", 200'000);  // uniform random order
  const double random = order_coherence(cube);
  EXPECT_LT(random, 0.01);
  EXPECT_LT(random, kCoherentOrder);
  apply_order(cube, morton_order(cube));
  EXPECT_GT(order_coherence(cube), 0.85);
  // The procedural terrain is generated row by row: coherent; the galaxy is sampled at random.
  EXPECT_GT(order_coherence(make_scene("terrain", 200'000)), kCoherentOrder);
  EXPECT_LT(order_coherence(make_scene("galaxy", 200'000)), kCoherentOrder);
  // Degenerate clouds: nothing to gain from sorting.
  PointCloud one = make_scene("cube", 1);
  EXPECT_EQ(order_coherence(one), 1.0);
  EXPECT_EQ(order_coherence(PointCloud{}), 1.0);
  // Non-finite points are not counted: half of them NaN, the rest sorted.
  for (size_t i = 0; i < cube.size(); i += 2) cube.positions[i] = Float3{NAN, 0.f, 0.f};
  const double c = order_coherence(cube);
  EXPECT_EQ(c, 1.0);  // every pair has a NaN: none counted
  // Deterministic.
  EXPECT_EQ(order_coherence(cube), c);
}

TEST(Morton, SortIfIncoherentKeepsTheImageAndCoherentClouds) {
  // A random cloud is reordered; the CPU image (and depth) stays the same bit for bit, since the
  // depth test's tie-break is the color, not the position in the cloud.
  const PointCloud random = make_scene("cube", 200'000);
  PointCloud sorted = random;
  ASSERT_TRUE(sort_if_incoherent(sorted));
  EXPECT_GT(order_coherence(sorted), kCoherentOrder);
  EXPECT_NE(
      std::memcmp(sorted.positions.data(), random.positions.data(), random.size() * sizeof(Float3)),
      0);
  // The same points: sum of the colors and the bounds are unchanged.
  uint64_t sum_a = 0, sum_b = 0;
  for (size_t i = 0; i < random.size(); ++i) {
    sum_a += random.colors[i];
    sum_b += sorted.colors[i];
  }
  EXPECT_EQ(sum_a, sum_b);
  EXPECT_EQ(sorted.local_bounds().min, random.local_bounds().min);
  EXPECT_EQ(sorted.local_bounds().max, random.local_bounds().max);
  for (const char* cam : {"seed", "overview"}) {
    Camera c = scene_camera("cube", random);
    if (std::string(cam) == "overview") c.frame(random.world_bounds(), 4.0 / 3.0);
    RenderSettings rs;
    rs.width = 400;
    rs.height = 300;
    rs.want_depth = true;
    rs.background = kBg;
    CpuRenderer ra(2), rb(2);
    std::string err;
    ASSERT_TRUE(ra.set_cloud(random, &err)) << err;
    ASSERT_TRUE(rb.set_cloud(sorted, &err)) << err;
    const Image a = render(ra, c, rs), b = render(rb, c, rs);
    EXPECT_EQ(a.rgba, b.rgba) << cam;
    EXPECT_EQ(std::memcmp(a.depth.data(), b.depth.data(), a.depth.size() * sizeof(float)), 0)
        << cam;
    EXPECT_GT(count_drawn(a), 500u) << cam;  // the cube's own camera sees 0.6% of it
  }
  // Already coherent (row order), too large, or too small: left alone.
  PointCloud terrain = make_scene("terrain", 100'000);
  const PointCloud terrain0 = terrain;
  EXPECT_FALSE(sort_if_incoherent(terrain));
  EXPECT_EQ(std::memcmp(terrain.positions.data(), terrain0.positions.data(),
                        terrain.size() * sizeof(Float3)),
            0);
  PointCloud big = make_scene("cube", 5000);
  EXPECT_FALSE(sort_if_incoherent(big, 4999));
  PointCloud one = make_scene("cube", 1);
  EXPECT_FALSE(sort_if_incoherent(one));
}

}  // namespace
}  // namespace pr
