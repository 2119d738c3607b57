// GpuRenderer::generate_scene(): the terrain and the cube made on the device draw the CPU
// renderer's image of make_scene()'s cloud pixel for pixel, in float and compact storage, over a
// partial last batch and over several slices; the host-only galaxy and a cloud over the memory
// limit are refused with a message. Skips without a device.
#include <random>
#include <string>

#include "engine/scenes.h"
#include "gpu_test_util.h"

namespace pr {
namespace {

RenderOptions own_order(bool compact) {
  RenderOptions o;
  o.compact = compact;
  o.sort = Toggle::kOff;  // generate_scene() stores the points in their own order
  return o;
}

/// The scene made on the device against make_scene() on the host: the scene's own camera at full
/// HD, then four random frames.
void expect_host_image(GpuRenderer& gpu, const std::string& name, uint64_t n, bool compact) {
  SCOPED_TRACE(name + ", " + std::to_string(n) + (compact ? " compact" : " float"));
  const PointCloud cloud = make_scene(name, n, 3);
  CpuRenderer cpu(0);
  cpu.set_options(own_order(compact));
  gpu.set_options(own_order(compact));
  std::string err;
  ASSERT_TRUE(cpu.set_cloud(cloud, &err)) << err;
  Bounds world;
  ASSERT_TRUE(gpu.generate_scene(name, n, 3, &world, &err)) << err;
  if (!compact) {  // the batch boxes of float positions are the points' own bounds
    EXPECT_EQ(world.min, cloud.world_bounds().min);
    EXPECT_EQ(world.max, cloud.world_bounds().max);
  }
  EXPECT_EQ(gpu.compact_active(), compact);
  const Camera start = scene_camera(name, cloud);
  std::mt19937 rng(7);
  for (int it = 0; it < 5; ++it) {
    Camera cam;
    RenderSettings rs;
    test::random_frame(it, rng, start, cloud.world_bounds(), &cam, &rs);
    test::expect_same_frame(cpu, gpu, cam, rs, "frame " + std::to_string(it));
  }
}

TEST(DeviceScene, DrawsTheHostScenesImage) {
  PR_REQUIRE_GPU(gpu);
  for (const bool compact : {false, true}) {
    expect_host_image(*gpu, "terrain", 300'001, compact);  // a partial last batch
    expect_host_image(*gpu, "cube", 200'000, compact);
  }
}

TEST(DeviceScene, SlicesMakeTheWholeCloud) {
  PR_REQUIRE_GPU(gpu);
  // More than one slice of 2^26 points, the last one partial.
  expect_host_image(*gpu, "terrain", (uint64_t{1} << 26) + 123'457, true);
}

TEST(DeviceScene, RefusesWhatItCannotMake) {
  PR_REQUIRE_GPU(gpu);
  std::string err;
  Bounds world;
  EXPECT_FALSE(gpu->generate_scene("galaxy", 1000, 1, &world, &err));
  EXPECT_NE(err.find("host only"), std::string::npos) << err;
  gpu->set_memory_limit(1'000'000);
  err.clear();
  EXPECT_FALSE(gpu->generate_scene("terrain", 1'000'000, 1, &world, &err));
  EXPECT_NE(err.find("out of GPU memory"), std::string::npos) << err;
  // The renderer still takes a cloud that fits.
  gpu->set_memory_limit(0);
  EXPECT_TRUE(gpu->generate_scene("cube", 5000, 1, &world, &err)) << err;
  Image img;
  FrameStats st;
  EXPECT_TRUE(gpu->render(scene_camera("cube", PointCloud{}), RenderSettings{}, img, st, &err))
      << err;
}

}  // namespace
}  // namespace pr
