// The procedural scenes (engine/scenes.h): deterministic, the cube, the terrain's structure,
// unknown names, and progress and cancelling while they are generated.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>

#include "engine/io/io.h"
#include "engine/point_cloud.h"
#include "engine/scenes.h"

namespace pr {
namespace {

TEST(Scenes, DeterministicForSeedAndCount) {
  for (const auto& s : scene_list()) {
    const PointCloud a = make_scene(s.name, 20000, 5);
    const PointCloud b = make_scene(s.name, 20000, 5);
    ASSERT_EQ(a.size(), 20000u);
    EXPECT_EQ(0, std::memcmp(a.positions.data(), b.positions.data(), a.size() * sizeof(Float3)))
        << s.name;
    EXPECT_EQ(a.colors, b.colors) << s.name;
    // For the random scenes a prefix of a larger cloud is the smaller cloud: point i depends on
    // (seed, i) only. (The terrain stratifies its ground by the point count.)
    if (s.name != "terrain") {
      const PointCloud big = make_scene(s.name, 50000, 5);
      EXPECT_EQ(0,
                std::memcmp(a.positions.data(), big.positions.data(), a.size() * sizeof(Float3)));
    }
    const PointCloud other = make_scene(s.name, 20000, 6);
    EXPECT_NE(0,
              std::memcmp(a.positions.data(), other.positions.data(), a.size() * sizeof(Float3)));
  }
}

TEST(Scenes, CubeIsTheSeedsCube) {
  const PointCloud c = make_scene("cube", 100000, 1);
  const Bounds b = c.local_bounds();
  EXPECT_GE(b.min.x, -50.0);
  EXPECT_LT(b.max.x, 50.0);
  EXPECT_LT(b.min.y, -49.0);
  EXPECT_GT(b.max.z, 49.0);
  double mean = 0;
  for (const auto& p : c.positions) mean += p.x;
  EXPECT_NEAR(mean / double(c.size()), 0.0, 0.5);  // uniform
  const Camera cam = scene_camera("cube", c);
  EXPECT_EQ(cam.position, glm::dvec3(0, 0, 10));
  EXPECT_EQ(cam.focus, 5.0);
  EXPECT_EQ(cam.yaw, 0.0);
  EXPECT_EQ(cam.pitch, 0.0);
}

TEST(Scenes, TerrainHasColorAndDepthStructure) {
  const PointCloud c = make_scene("terrain", 100000, 1);
  const Bounds b = c.local_bounds();
  EXPECT_GT(b.size().x, 900.0);
  EXPECT_GT(b.size().y, 60.0);  // mountains and towers
  size_t distinct = 0;
  for (size_t i = 1; i < 1000; ++i) distinct += c.colors[i] != c.colors[i - 1];
  EXPECT_GT(distinct, 500u);
  for (const auto& p : c.positions) ASSERT_TRUE(std::isfinite(p.x + p.y + p.z));
}

TEST(Scenes, UnknownSceneThrows) {
  EXPECT_THROW(make_scene("nope", 10), std::invalid_argument);
  EXPECT_FALSE(is_scene("nope"));
  EXPECT_TRUE(is_scene("terrain"));
}

TEST(Scenes, GenerationReportsProgressAndStopsWhenCancelled) {
  // With a progress object: the same cloud, and the fraction ends at 1.
  LoadProgress p;
  const PointCloud a = make_scene("terrain", 100'000, 1, &p);
  const PointCloud b = make_scene("terrain", 100'000);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.positions.data(), b.positions.data(), a.size() * sizeof(Float3)), 0);
  EXPECT_EQ(p.fraction.load(), 1.0);
  // Cancelled before it starts: an empty cloud at once.
  LoadProgress c;
  c.cancel = true;
  EXPECT_EQ(make_scene("cube", 50'000'000, 1, &c).size(), 0u);
  // Cancelled while it runs (20 slices of 4M points): it stops at the next slice.
  LoadProgress d;
  std::thread watcher([&] {
    while (d.fraction.load() == 0.0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    d.cancel = true;
  });
  const PointCloud e = make_scene("cube", 80'000'000, 1, &d);
  watcher.join();
  EXPECT_EQ(e.size(), 0u);
  EXPECT_LT(d.fraction.load(), 1.0);
}

}  // namespace
}  // namespace pr
