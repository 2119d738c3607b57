// Tiled images on the GPU (engine/tiled_render.h through the CUDA renderer's regions): a region
// is the whole image's pixels; the tiled image equals the GPU's whole image and the CPU's tiled
// one byte for byte (point sizes 1 - 3, adaptive sizes, eye-dome lighting, high-quality splats,
// compact positions, a clip), at 3000 x 2000 and at 16384 x 16384; the tiles are sized by the
// device's free memory.
#include <gtest/gtest.h>

#include <algorithm>

#include <string>
#include <vector>

#include "engine/cpu_renderer.h"
#include "engine/scenes.h"
#include "engine/tiled_render.h"
#include "gpu_test_util.h"

namespace pr {
namespace {

Image whole_frame(Renderer& r, const Camera& cam, const RenderSettings& s) {
  Image img;
  FrameStats st;
  std::string err;
  EXPECT_TRUE(r.render(cam, s, img, st, &err)) << err;
  return img;
}

Image tiled_image(Renderer& r, const Camera& cam, const RenderSettings& s, const TilePlan& plan) {
  Image img;
  std::string err;
  EXPECT_TRUE(render_tiled(r, cam, s, plan, img, &err)) << err;
  return img;
}

/// GPU whole == GPU tiled == CPU tiled, pixel for pixel (`what` names the case).
void expect_tiled_parity(Renderer& cpu, Renderer& gpu, const Camera& cam, const RenderSettings& s,
                         const TilePlan& plan, const std::string& what) {
  ASSERT_FALSE(plan.whole()) << what;
  const Image whole = whole_frame(gpu, cam, s);
  const Image tiled = tiled_image(gpu, cam, s, plan);
  std::string first;
  EXPECT_EQ(test::count_diff(whole, tiled, &first), 0u) << what << ", gpu tiled: " << first;
  const Image cpu_tiled = tiled_image(cpu, cam, s, plan);
  EXPECT_EQ(test::count_diff(cpu_tiled, tiled, &first), 0u) << what << ", cpu tiled: " << first;
  EXPECT_GT(test::count_drawn(whole, s.background), 0u) << what;
}

TEST(TiledParity, RegionIsTheWholeImagesPixels) {
  PR_REQUIRE_GPU(gpu);
  const PointCloud cloud = make_scene("terrain", 1500000, 3);
  std::string err;
  ASSERT_TRUE(gpu->set_cloud(cloud, &err)) << err;
  const Camera cam = scene_camera("terrain", cloud);
  RenderSettings s;
  s.width = 1001;
  s.height = 733;
  s.background = rgba(10, 20, 30);
  s.want_depth = true;
  const Image whole = whole_frame(*gpu, cam, s);
  for (const ImageRegion& g : {ImageRegion{1, 3, 500, 400}, ImageRegion{333, 211, 668, 522}}) {
    s.region = g;
    const Image part = whole_frame(*gpu, cam, s);
    ASSERT_EQ(part.width, g.width);
    size_t diff = 0;
    for (int y = 0; y < g.height; ++y)
      for (int x = 0; x < g.width; ++x) {
        const size_t a = size_t(y) * size_t(g.width) + size_t(x);
        const size_t b = size_t(y + g.y) * size_t(whole.width) + size_t(x + g.x);
        diff += part.rgba[a] != whole.rgba[b] || part.depth[a] != whole.depth[b];
      }
    EXPECT_EQ(diff, 0u) << "region at " << g.x << "," << g.y;
  }
}

TEST(TiledParity, TiledImagesEqualWholeOnesAndTheCpus) {
  PR_REQUIRE_GPU(gpu);
  // Over 2^20 points, so that the GPU culls batches against each tile (kGpuMinCullPoints).
  const PointCloud cloud = make_scene("terrain", 1500000, 3);
  struct Look {
    const char* name;
    int size;
    bool adaptive, edl, hq, compact, clip;
  };
  const Look looks[] = {{"plain", 1, false, false, false, false, false},
                        {"size 3", 3, false, false, false, false, false},
                        {"adaptive 2-9", 2, true, false, false, false, false},
                        {"edl", 1, false, true, false, false, false},
                        {"edl size 2 radius 3", 2, false, true, false, false, false},
                        {"hq size 3", 3, false, false, true, false, false},
                        {"hq edl size 3", 3, false, true, true, false, false},
                        {"compact size 2", 2, false, false, false, true, false},
                        {"clip size 2", 2, false, false, false, false, true}};
  Camera close = scene_camera("terrain", cloud);
  const Bounds b = cloud.local_bounds();
  close.position = cloud.origin + b.center() + glm::dvec3(0.0, b.size().y * 0.15, 0.0);
  close.pitch = -0.4;
  close.focus = 2.0;
  for (const Look& l : looks) {
    RenderOptions o;
    o.compact = l.compact;
    CpuRenderer cpu(0);
    ASSERT_NO_FATAL_FAILURE(test::set_both(cpu, *gpu, cloud, o));
    RenderSettings s;
    s.width = 3000;
    s.height = 2000;
    s.background = rgba(10, 20, 30);
    s.point_size = l.size;
    s.adaptive_size = l.adaptive;
    s.max_point_size = 9;
    s.edl = l.edl;
    s.edl_radius = l.size == 2 ? 3.0f : 1.4f;
    s.hq = l.hq;
    if (l.clip) {
      ClipBox box;
      box.centre = cloud.origin + b.center();
      box.size = b.size() * 0.5;
      box.yaw = 20.0;
      s.clip.boxes.push_back(box);
    }
    for (const Camera& cam : {scene_camera("terrain", cloud), close})
      expect_tiled_parity(cpu, *gpu, cam, s, plan_tiles(s, 777, 555), l.name);
  }
}

/// 16384 x 16384 with squares, eye-dome lighting and high-quality splats: the GPU draws it whole
/// (7 GB of frame buffers) and in tiles the device's free memory would allow were it a tenth as
/// large (at most an eighth of the image), and the CPU in bands: the same image.
TEST(TiledParity, Image16384) {
  PR_REQUIRE_GPU(gpu);
  const PointCloud cloud = make_scene("terrain", 4000000, 5);
  CpuRenderer cpu(0);
  ASSERT_NO_FATAL_FAILURE(test::set_both(cpu, *gpu, cloud, RenderOptions{}));
  RenderSettings s;
  s.width = 16384;
  s.height = 16384;
  s.background = rgba(10, 20, 30);
  s.point_size = 3;
  s.edl = true;
  s.hq = true;
  const FrameMemory m = gpu->frame_memory(s);
  EXPECT_EQ(m.device_bytes_per_pixel, 8u + 4u + 1u + 16u);
  ASSERT_GT(m.device_bytes_free, 0u);
  TileBudget budget;
  budget.host_bytes = 0;  // the device's memory alone decides
  const uint64_t limit = tile_pixel_limit(*gpu, s, budget);
  EXPECT_LE(limit, m.device_bytes_free / m.device_bytes_per_pixel);
  // A tenth of what the device allows, and at most an eighth of the image: on a card whose
  // free memory holds the image ten times over (an H200) it is drawn in tiles too.
  budget.max_pixels = std::min(limit / 10, uint64_t(s.width) * uint64_t(s.height) / 8);
  const TilePlan plan = plan_tiles_for(s, tile_pixel_limit(*gpu, s, budget));
  ASSERT_FALSE(plan.whole());
  for (int i = 0; i < plan.count(); ++i) {
    const ImageRegion d = plan.drawn(i);
    EXPECT_LE(uint64_t(d.width) * uint64_t(d.height), budget.max_pixels) << i;
  }
  const Camera cam = scene_camera("terrain", cloud);
  const Image whole = whole_frame(*gpu, cam, s);
  const Image tiled = tiled_image(*gpu, cam, s, plan);
  std::string first;
  EXPECT_EQ(test::count_diff(whole, tiled, &first), 0u) << "gpu tiled: " << first;
  const Image cpu_tiled = tiled_image(cpu, cam, s, plan_tiles_for(s, uint64_t(40) << 20));
  EXPECT_EQ(test::count_diff(cpu_tiled, whole, &first), 0u) << "cpu tiled: " << first;
}

}  // namespace
}  // namespace pr
