// The procedural scenes (engine/scenes.h): deterministic, the cube, the terrain's structure,
// unknown names, and progress and cancelling while they are generated.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>

#include "engine/io/io.h"
#include "engine/point_cloud.h"
#include "engine/scene_points.h"
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

// An even subset is the whole scene's points at floor(j n / m): the same floats and colors, for
// every scene, a subset of the whole, and counts that do not divide.
TEST(Scenes, SubsetIsTheWholeScenesPointsAtEvenIndices) {
  constexpr uint64_t n = 1'000'003, m = 7'919;
  for (const auto& s : scene_list()) {
    const PointCloud whole = make_scene(s.name, n, 3);
    const PointCloud sub = make_scene_subset(s.name, n, m, 3);
    ASSERT_EQ(sub.size(), m) << s.name;
    EXPECT_EQ(sub.name, whole.name);
    for (uint64_t j = 0; j < m; ++j) {
      const uint64_t i = j * n / m;
      ASSERT_EQ(std::memcmp(&sub.positions[j], &whole.positions[i], sizeof(Float3)), 0)
          << s.name << " point " << j << " (index " << i << ")";
      ASSERT_EQ(sub.colors[j], whole.colors[i]) << s.name << " point " << j;
    }
    const PointCloud all = make_scene_subset(s.name, 5000, 9000, 3);  // more than there are
    const PointCloud same = make_scene(s.name, 5000, 3);
    ASSERT_EQ(all.size(), 5000u);
    EXPECT_EQ(std::memcmp(all.positions.data(), same.positions.data(), 5000 * sizeof(Float3)), 0);
  }
  // Counts whose j * n overflows 64 bits: the index is still floor(j n / m).
  __extension__ typedef unsigned __int128 Wide;
  const uint64_t big = 100'000'000'000'000'000;
  const PointCloud far = make_scene_subset("cube", big, 999, 1);
  ASSERT_EQ(far.size(), 999u);
  for (uint64_t j = 0; j < 999; ++j) {
    Float3 p;
    uint32_t c;
    scene::cube_point(1, uint64_t(Wide(j) * big / 999), p, c);
    ASSERT_EQ(std::memcmp(&far.positions[j], &p, sizeof p), 0) << "point " << j;
  }
  EXPECT_EQ(make_scene_subset("cube", 10, 0).size(), 0u);
  EXPECT_THROW(make_scene_subset("nope", 10, 5), std::invalid_argument);
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
