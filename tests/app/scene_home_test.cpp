// Where a scene is made (app/scene_home.h): on the host while it fits the host's memory and a
// 32-bit index, else on the GPU for terrain and cube in GPU mode, else nowhere with one line; and
// headless mode refusing a scene the host cannot hold before it takes any memory.
#include "scene_home.h"

#include <gtest/gtest.h>

#include <string>

#include "headless_test_util.h"

namespace pr {
namespace {

constexpr uint64_t kGB = 1'000'000'000;

TEST(SceneHome, HostWhileTheCloudFitsItsMemoryAndIndex) {
  std::string why;
  EXPECT_EQ(scene_home("terrain", 1'000'000, "cpu", 8 * kGB, &why), SceneHome::kHost);
  EXPECT_EQ(scene_home("galaxy", 400'000'000, "gpu", 8 * kGB, &why), SceneHome::kHost);
  // Unknown memory counts as enough.
  EXPECT_EQ(scene_home("terrain", 1'000'000'000, "cpu", 0, &why), SceneHome::kHost);
  EXPECT_TRUE(why.empty()) << why;
}

TEST(SceneHome, TheGpuMakesTerrainAndCubeTheHostCannotHold) {
  std::string why;
  EXPECT_EQ(scene_home("terrain", 10'000'000'000, "gpu", 128 * kGB, &why), SceneHome::kDevice);
  EXPECT_EQ(scene_home("cube", 1'000'000'000, "gpu", 8 * kGB, &why), SceneHome::kDevice);
  // 2^32 points fit 128 GB but not the host renderers' 32-bit index.
  EXPECT_EQ(scene_home("terrain", uint64_t{1} << 32, "gpu", 128 * kGB, &why), SceneHome::kDevice);
}

TEST(SceneHome, OtherwiseNowhereWithTheReason) {
  std::string why;
  EXPECT_EQ(scene_home("terrain", 10'000'000'000, "cpu", 24 * kGB, &why), SceneHome::kNone);
  EXPECT_EQ(why,
            "10000000000 points of scene terrain: the host would need 160 GB (16 bytes a point) "
            "and has 24 GB available; GPU mode (--mode gpu) makes terrain clouds on the "
            "device");
  EXPECT_EQ(scene_home("galaxy", 5'000'000'000, "gpu", 128 * kGB, &why), SceneHome::kNone);
  EXPECT_EQ(why,
            "5000000000 points of scene galaxy: the host's renderers index fewer than 2^32 - 1 "
            "points; GPU mode makes only terrain and cube clouds on the device");
  // No overflow in the bytes of an absurd count.
  EXPECT_EQ(scene_home("cube", uint64_t{1} << 62, "cpu", 24 * kGB, &why), SceneHome::kNone);
  EXPECT_NE(why.find("the host would need"), std::string::npos) << why;
}

TEST(SceneHome, HostMemoryIsKnownHere) {
  const uint64_t available = host_memory_available();
  EXPECT_GT(available, 100'000'000u);  // /proc/meminfo on Linux
  EXPECT_EQ(gigabytes(160 * kGB), "160 GB");
  EXPECT_EQ(gigabytes(1'600'000'000), "1.6 GB");
}

TEST(SceneHome, HeadlessRefusesWhatTheHostCannotHoldBeforeTakingIt) {
  // Ten times this machine's available memory: refused in one line, exit code 1, nothing made.
  const uint64_t n = host_memory_available() / kSceneHostBytesPerPoint * 10;
  std::string err;
  EXPECT_EQ(test::run_err({"--headless", "--mode", "cpu", "--scene", "terrain", "--points",
                           std::to_string(n), "--frames", "1"},
                          &err),
            1);
  EXPECT_NE(err.find("points of scene terrain: the host would need"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

}  // namespace
}  // namespace pr
