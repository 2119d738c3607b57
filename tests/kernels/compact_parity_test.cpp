// Compact positions on both renderers: with the same RenderOptions (compact on, each sort mode)
// the CPU and the GPU renderer store the same quantized cloud (wants_spatial_sort() decides the
// order, and so the batches, for both) and draw the same image and depth, pixel for pixel, over
// procedural scenes and a real scan; and a viewer that switches renderers on the same cloud sees
// no pixel change. Skips without a device.
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "../engine/random_camera.h"
#include "engine/cpu_renderer.h"
#include "engine/frame_policy.h"
#include "engine/io/io.h"
#include "engine/scenes.h"
#include "gpu_test_util.h"
#include "testdata.h"

namespace pr {
namespace {

constexpr uint32_t kBackground = rgba(16, 18, 24);

/// The clouds of these tests: procedural scenes of 300,000 points, and a real airborne scan.
const PointCloud& test_cloud(const std::string& name) {
  static std::map<std::string, std::unique_ptr<PointCloud>> cache;
  auto& slot = cache[name];
  if (!slot) {
    slot = std::make_unique<PointCloud>();
    if (name == "autzen") {
      std::string err;
      const std::string path = pr::test::kData + "/las/autzen_trim.las";
      if (!load_point_cloud(path, *slot, nullptr, &err)) ADD_FAILURE() << path << ": " << err;
    } else {
      *slot = make_scene(name, 300'000);
    }
  }
  return *slot;
}

const char* sort_name(Toggle t) {
  return toggle_name(t);
}

struct CompactCase {
  std::string cloud;
  Toggle sort;
};

std::string compact_case_name(const testing::TestParamInfo<CompactCase>& i) {
  return i.param.cloud + "_sort_" + sort_name(i.param.sort);
}

class CompactParity : public testing::TestWithParam<CompactCase> {};

/// The CPU and the GPU renderer with RenderOptions{.compact = true, .sort = mode}: the same
/// stored order (cloud_sorted() against wants_spatial_sort()), and the same image and depth over
/// random cameras, the framing camera, point sizes 1 - 3, two image sizes and a subset.
TEST_P(CompactParity, CpuAndGpuDrawTheSameCompactImage) {
  PR_REQUIRE_GPU(gpu);
  const CompactCase& c = GetParam();
  const PointCloud& cloud = test_cloud(c.cloud);
  ASSERT_GT(cloud.size(), 1000u);
  RenderOptions options;
  options.compact = true;
  options.sort = c.sort;
  CpuRenderer cpu;
  cpu.set_options(options);
  gpu->set_options(options);
  std::string err;
  ASSERT_TRUE(cpu.set_cloud(cloud, &err)) << err;
  ASSERT_TRUE(gpu->set_cloud(cloud, &err)) << err;
  ASSERT_TRUE(cpu.compact_active());
  ASSERT_TRUE(gpu->compact_active());
  EXPECT_EQ(gpu->cloud_sorted(), wants_spatial_sort(c.sort, cloud, cloud.local_bounds()));
  std::mt19937 rng(5);
  size_t drawn = 0;
  const int kFrames = 24;
  for (int i = 0; i < kFrames; ++i) {
    RenderSettings rs;
    rs.width = i % 3 == 0 ? 97 : 320;
    rs.height = i % 3 == 0 ? 61 : 240;
    rs.point_size = 1 + i % 3;
    rs.background = kBackground;
    rs.want_depth = true;
    if (i % 8 == 7) rs.point_count = cloud.size() / 3;
    Camera cam = test::random_camera(rng, cloud.world_bounds());
    if (i % 4 == 0) cam.frame(cloud.world_bounds(), double(rs.width) / double(rs.height));
    Image g;
    ASSERT_NO_FATAL_FAILURE(
        test::expect_same_frame(cpu, *gpu, cam, rs, c.cloud + " camera " + std::to_string(i), &g));
    drawn += test::count_drawn(g, kBackground) > 0;
  }
  // Every framing camera draws, and some random ones.
  EXPECT_GE(drawn, size_t(kFrames / 4 + 2));
}

std::vector<CompactCase> compact_cases() {
  std::vector<CompactCase> v;
  for (const char* cloud : {"terrain", "galaxy", "cube", "autzen"})
    for (Toggle sort : {Toggle::kAuto, Toggle::kOn, Toggle::kOff}) v.push_back({cloud, sort});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Clouds, CompactParity, testing::ValuesIn(compact_cases()),
                         compact_case_name);

/// The viewer's CPU/GPU switch on one compact cloud: a camera path drawn by the GPU, then by the
/// CPU, then by the GPU again (each renderer keeping its upload, as the viewer does); no pixel
/// changes at any switch. The terrain keeps its order under kAuto, the cube is sorted.
TEST(CompactParity, SwitchingRenderersChangesNoPixel) {
  PR_REQUIRE_GPU(gpu);
  RenderOptions options;
  options.compact = true;
  for (const char* name : {"terrain", "cube"}) {
    SCOPED_TRACE(name);
    const PointCloud& cloud = test_cloud(name);
    CpuRenderer cpu;
    cpu.set_options(options);
    gpu->set_options(options);
    std::string err;
    ASSERT_TRUE(gpu->set_cloud(cloud, &err)) << err;
    ASSERT_TRUE(cpu.set_cloud(cloud, &err)) << err;
    RenderSettings rs;
    rs.width = 640;
    rs.height = 360;
    rs.background = kBackground;
    Camera cam = scene_camera(name, cloud);
    std::vector<Image> first;
    Renderer* order[] = {gpu.get(), &cpu, gpu.get()};
    for (int pass = 0; pass < 3; ++pass) {
      Camera c = cam;
      for (int k = 0; k < 6; ++k) {
        c.yaw = cam.yaw + 0.1 * k;
        rs.point_size = 1 + k % 2;
        Image img;
        FrameStats st;
        ASSERT_TRUE(order[pass]->render(c, rs, img, st, &err)) << err;
        if (pass == 0) {
          EXPECT_GT(test::count_drawn(img, kBackground), 100u) << "frame " << k;
          first.push_back(img);
          continue;
        }
        std::string diff;
        EXPECT_EQ(test::count_diff(first[size_t(k)], img, &diff), 0u)
            << (pass == 1 ? "GPU -> CPU" : "CPU -> GPU") << ", frame " << k << ": " << diff;
      }
    }
  }
}

}  // namespace
}  // namespace pr
