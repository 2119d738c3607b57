// Orthographic views on both renderers: the CUDA renderer draws the CPU's image and depth pixel for
// pixel with orthographic cameras (random ones, and the seven standard views framing the cloud),
// over float and compact positions stored as given and sorted, occlusion culling on and off,
// eye-dome lighting, high-quality splats, point sizes 1 - 3 and subsets; and a pick on the GPU's
// frame names the CPU's point. Skips without a device.
#include <gtest/gtest.h>

#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../engine/random_camera.h"
#include "engine/cpu_renderer.h"
#include "engine/pick.h"
#include "engine/scenes.h"
#include "gpu_test_util.h"

namespace pr {
namespace {

struct OrthoCase {
  bool compact;
  bool sorted;
  const char* effect;  // "plain", "edl" or "hq"
};

std::ostream& operator<<(std::ostream& os, const OrthoCase& c) {
  return os << (c.compact ? "compact" : "float") << "_" << (c.sorted ? "sorted" : "stored") << "_"
            << c.effect;
}

std::string ortho_case_name(const testing::TestParamInfo<OrthoCase>& i) {
  std::ostringstream os;
  os << i.param;
  return os.str();
}

std::vector<OrthoCase> ortho_cases() {
  std::vector<OrthoCase> v;
  for (const bool compact : {false, true})
    for (const bool sorted : {false, true})
      for (const char* effect : {"plain", "edl", "hq"}) v.push_back({compact, sorted, effect});
  return v;
}

class OrthoParity : public testing::TestWithParam<OrthoCase> {};

/// Over 2^20 points, so that the GPU culls batches; the standard views first (framing the cloud,
/// both up axes), then random orthographic cameras, occlusion culling on every other scene.
TEST_P(OrthoParity, GpuImageEqualsCpuImage) {
  PR_REQUIRE_GPU(gpu);
  const OrthoCase& c = GetParam();
  std::mt19937 rng(23);
  int scene_i = 0;
  for (const char* scene : {"terrain", "galaxy", "cube"}) {
    const PointCloud cloud = make_scene(scene, 1'200'000, 7);
    RenderOptions o;
    o.compact = c.compact;
    o.sort = c.sorted ? Toggle::kOn : Toggle::kOff;
    o.occlusion = scene_i++ % 2 ? Toggle::kOn : Toggle::kAuto;
    CpuRenderer cpu(0);
    ASSERT_NO_FATAL_FAILURE(test::set_both(cpu, *gpu, cloud, o));
    const std::string effect = c.effect;
    auto add_effect = [&](RenderSettings& rs) {
      rs.edl = effect == "edl";
      rs.hq = effect == "hq";
    };
    size_t drawn = 0;
    for (int v = 0; v <= int(StandardView::kIso); ++v) {
      Camera cam;
      cam.up_axis = v % 2 ? UpAxis::kZ : UpAxis::kY;
      cam.projection = Projection::kOrthographic;
      cam.set_view(StandardView(v), cloud.local_bounds(), 400.0 / 300.0);
      RenderSettings rs;
      rs.width = 400;
      rs.height = 300;
      rs.point_size = 1 + v % 3;
      rs.want_depth = true;
      rs.background = rgba(10, 20, 30);
      add_effect(rs);
      Image img;
      test::expect_same_frame(cpu, *gpu, cam, rs,
                              std::string(scene) + " view " + standard_view_name(StandardView(v)),
                              &img);
      drawn += test::count_drawn(img, rs.background);
    }
    const Camera first = scene_camera(scene, cloud);
    for (int it = 1; it < 10; ++it) {
      Camera cam;
      RenderSettings rs;
      test::random_frame(it, rng, first, cloud.local_bounds(), &cam, &rs, true);
      if (it % 4 == 3) rs.point_count = cloud.size() / 3;
      add_effect(rs);
      test::expect_same_frame(cpu, *gpu, cam, rs,
                              std::string(scene) + " ortho frame " + std::to_string(it));
    }
    EXPECT_GT(drawn, 7u * 1000u) << scene;
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, OrthoParity, testing::ValuesIn(ortho_cases()), ortho_case_name);

TEST(OrthoParity, PickNamesThePointTheGpuDrew) {
  PR_REQUIRE_GPU(gpu);
  std::mt19937 rng(29);
  int hits = 0;
  const PointCloud cloud = make_scene("terrain", 1'200'000, 5);
  for (int form = 0; form < 4; ++form) {
    RenderOptions o;
    o.compact = form % 2 == 1;
    o.sort = form < 2 ? Toggle::kOff : Toggle::kOn;
    CpuRenderer cpu(0);
    ASSERT_NO_FATAL_FAILURE(test::set_both(cpu, *gpu, cloud, o));
    std::string err;
    for (int it = 0; it < 6; ++it) {
      Camera cam = test::random_camera(rng, cloud.local_bounds(), true);
      if (it == 0) cam.set_view(StandardView::kTop, cloud.local_bounds(), 400.0 / 300.0);
      RenderSettings rs;
      rs.width = 400;
      rs.height = 300;
      rs.point_size = 1 + it % 3;
      rs.want_depth = true;
      Image img;
      FrameStats st;
      ASSERT_TRUE(gpu->render(cam, rs, img, st, &err)) << err;
      for (int k = 0; k < 10; ++k) {
        const int x = int(rng() % 400), y = int(rng() % 300), radius = k % 2 ? 4 : 0;
        PickResult g, p;
        ASSERT_TRUE(pick_in_frame(*gpu, cloud, cam, rs, x, y, radius, &g, &err)) << err;
        ASSERT_TRUE(pick_in_frame(cpu, cloud, cam, rs, x, y, radius, &p, &err)) << err;
        EXPECT_EQ(pick_line(g), pick_line(p)) << "form " << form << " frame " << it;
        if (!g.hit) continue;
        ++hits;
        EXPECT_EQ(g.depth, img.depth[size_t(g.y) * 400 + size_t(g.x)]);
      }
    }
  }
  EXPECT_GT(hits, 20);
}

}  // namespace
}  // namespace pr
