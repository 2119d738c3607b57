// Orthographic views against every consumer of the projection's parameters: the box tests of
// engine/culling.h (may draw, surely inside, corners in view, footprints) on float and compact
// boxes, and the CPU renderer's frames culled and unculled, with occlusion culling and without,
// all with orthographic cameras (the perspective ones are culling_test.cpp's and
// compact_test.cpp's).
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "engine/compact.h"
#include "engine/cpu_renderer.h"
#include "engine/culling.h"
#include "engine/morton.h"
#include "engine/scenes.h"
#include "render_test_util.h"

namespace pr {
namespace {

using test::count_diff;
using test::count_drawn;
using test::kBg;
using test::random_camera;
using test::render;

TEST(OrthoCulling, BoxTestNeverCullsADrawablePoint) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  test::check_box_test<PointBox>(
      21,
      [&](int i, float x0, std::mt19937& rng) {
        PointBox b;
        for (int a = 0; a < 3; ++a) {
          b.lo[a] = u(rng) * 10.0f + (a == 0 ? x0 : 0.0f);
          b.hi[a] = b.lo[a] + (u(rng) + 1.0f) * (i % 5 == 0 ? 1e-3f : 3.0f);
        }
        return b;
      },
      [](const ProjParams& p, const PointBox& b) { return box_may_draw(p, b); },
      test::sample_point_box, true);
}

TEST(OrthoCulling, BoxInsideMeansEveryPointDrawsAtItsPixel) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  test::check_inside_test<PointBox>(
      23,
      [&](int i, const Camera& cam, std::mt19937& rng) {
        PointBox b;
        glm::dvec3 c;
        float size;
        test::inside_test_place(i, cam, &c, &size);
        for (int a = 0; a < 3; ++a) {
          b.lo[a] = float(c[a]) + u(rng) * size;
          b.hi[a] = b.lo[a] + (u(rng) + 1.0f) * size * (i % 5 == 0 ? 1e-3f : 0.5f);
        }
        return b;
      },
      [](const ProjParams& p, const PointBox& b) { return box_surely_inside(p, b); },
      test::sample_point_box, true);
}

TEST(OrthoCulling, CompactBoxTestsAgainstDecodedPoints) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  test::check_box_test<CompactBatch>(
      27,
      [&](int i, float x0, std::mt19937& rng) {
        CompactBatch b;
        for (int a = 0; a < 3; ++a) {
          b.lo[a] = u(rng) * 10.0f + (a == 0 ? x0 : 0.0f);
          b.scale[a] = (u(rng) + 1.0f) * (i % 5 == 0 ? 1e-5f : 0.003f);
        }
        return b;
      },
      [](const ProjParams& p, const CompactBatch& b) { return compact_box_may_draw(p, b); },
      test::sample_compact_batch, true);
  test::check_inside_test<CompactBatch>(
      29,
      [&](int i, const Camera& cam, std::mt19937& rng) {
        CompactBatch b;
        glm::dvec3 c;
        float size;
        test::inside_test_place(i, cam, &c, &size);
        for (int a = 0; a < 3; ++a) {
          b.lo[a] = float(c[a]) + u(rng) * size;
          b.scale[a] = (u(rng) + 1.0f) * size * (i % 5 == 0 ? 1e-6f : 5e-4f);
        }
        return b;
      },
      [](const ProjParams& p, const CompactBatch& b) { return compact_box_surely_inside(p, b); },
      test::sample_compact_batch, true);
}

TEST(OrthoCulling, BoxInViewMeansEveryPointDraws) {
  std::mt19937 rng(31);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  Bounds world;
  world.extend(glm::dvec3(-10.0));
  world.extend(glm::dvec3(10.0));
  int inside = 0, outside = 0;
  for (int i = 0; i < 20'000; ++i) {
    PointBox b;
    for (int a = 0; a < 3; ++a) {
      b.lo[a] = u(rng) * 10.0f;
      b.hi[a] = b.lo[a] + (u(rng) + 1.0f) * 2.0f;
    }
    Camera cam = random_camera(rng, world, true);
    cam.position *= 3.0;
    cam.look_at(glm::dvec3(0.0));
    const ProjParams p = cam.params(i % 2 ? 64 : 1920, i % 2 ? 48 : 1080, glm::dvec3(0.0));
    if (!box_corners_in_view(p, b)) {
      ++outside;
      continue;
    }
    ++inside;
    EXPECT_TRUE(box_may_draw(p, b));
    for (int k = 0; k < 210; ++k) {
      float x, y, z;
      test::sample_point_box(b, k, rng, x, y, z);
      int ix, iy;
      uint64_t key;
      ASSERT_TRUE(project_to_pixel(p, x, y, z, 0, ix, iy, key))
          << "box " << i << " said in view, point " << k << " does not draw";
    }
  }
  EXPECT_GT(inside, 1000);
  EXPECT_GT(outside, 1000);
}

TEST(OrthoCulling, FootprintHoldsEveryPixelAndDepthOfTheBoxesPoints) {
  std::mt19937 rng(37);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  Bounds world;
  world.extend(glm::dvec3(-10.0));
  world.extend(glm::dvec3(10.0));
  int drawn = 0, small = 0;
  for (int i = 0; i < 20'000; ++i) {
    PointBox b;
    for (int a = 0; a < 3; ++a) {
      b.lo[a] = u(rng) * 10.0f;
      b.hi[a] = b.lo[a] + (u(rng) + 1.0f) * (i % 7 == 0 ? 1e-3f : 2.0f);
    }
    Camera cam = random_camera(rng, world, true);
    if (i % 3 == 0) {
      cam.position *= 4.0;
      cam.look_at(glm::dvec3(0.0));
    }
    const int w = i % 2 ? 64 : 1920, h = i % 2 ? 48 : 1080;
    const ProjParams p = cam.params(w, h, glm::dvec3(0.0), 1 + i % 4);
    const BoxFootprint f = box_footprint(p, b);
    const PixelRect r = f.rect;
    ASSERT_TRUE(r.x0 >= 0 && r.y0 >= 0 && r.x1 <= w && r.y1 <= h) << "box " << i;
    if (!r.empty() && int64_t(r.x1 - r.x0) * (r.y1 - r.y0) < int64_t(w) * h / 4) ++small;
    for (int k = 0; k < 210; ++k) {
      float x, y, z;
      test::sample_point_box(b, k, rng, x, y, z);
      int ix, iy;
      uint64_t key;
      if (!project_to_pixel(p, x, y, z, 0, ix, iy, key)) continue;
      ++drawn;
      ASSERT_GE(double(key_depth(key)), f.near_depth) << "box " << i << " point " << k;
      int x0, y0, x1, y1;
      splat_rect(p, ix, iy, x0, y0, x1, y1);
      ASSERT_TRUE(x0 >= r.x0 && x1 <= r.x1 && y0 >= r.y0 && y1 <= r.y1)
          << "box " << i << ", point " << k << " writes outside the footprint";
    }
  }
  EXPECT_GT(drawn, 100'000);
  EXPECT_GT(small, 2'000);
}

TEST(OrthoCulling, CulledAndUnculledFramesAreTheSameImage) {
  std::mt19937 rng(41);
  test::CullingTally tally;
  for (const bool compact : {false, true})
    for (const char* name : {"cube", "terrain"}) {
      PointCloud cloud = make_scene(name, 120'000);
      sort_if_incoherent(cloud);
      CpuRenderer culled(2), unculled(2);
      culled.set_options(test::compact_options(compact, true));
      RenderOptions o = test::compact_options(compact, true);
      o.culling = false;
      unculled.set_options(o);
      std::string err;
      ASSERT_TRUE(culled.set_cloud(cloud, &err)) << err;
      ASSERT_TRUE(unculled.set_cloud(cloud, &err)) << err;
      test::compare_culling(culled, unculled, cloud.world_bounds(), cloud.size(), rng, 60,
                            compact ? 0 : 5, std::string(name) + (compact ? " compact" : ""), tally,
                            true);
    }
  EXPECT_GT(tally.frames_drawing, 100u);
  EXPECT_GT(tally.frames_culling, 30u);
  EXPECT_GT(tally.culled_batches, 500u);
}

TEST(OrthoCulling, OcclusionCullingKeepsTheImage) {
  // The CPU renderer's occlusion culling tests footprints against the last frame's Hi-Z: with
  // orthographic cameras (a sequence of small moves, so that the last frame's depths hide
  // batches), the same images as without it.
  PointCloud cloud = make_scene("terrain", 300'000);
  sort_if_incoherent(cloud);
  CpuRenderer occ(2), plain(2);
  RenderOptions on, off;
  on.occlusion = Toggle::kOn;
  off.occlusion = Toggle::kOff;
  occ.set_options(on);
  plain.set_options(off);
  std::string err;
  ASSERT_TRUE(occ.set_cloud(cloud, &err)) << err;
  ASSERT_TRUE(plain.set_cloud(cloud, &err)) << err;
  Camera cam;
  cam.projection = Projection::kOrthographic;
  cam.set_view(StandardView::kIso, cloud.world_bounds(), 320.0 / 200.0);
  RenderSettings rs;
  rs.width = 320;
  rs.height = 200;
  rs.background = kBg;
  rs.want_depth = true;
  for (int i = 0; i < 12; ++i) {
    rs.point_size = 1 + i % 3;
    cam.turn(0.02, 0.01);
    cam.zoom(1.05);
    const Image a = render(occ, cam, rs);
    const Image b = render(plain, cam, rs);
    std::string first;
    EXPECT_EQ(count_diff(a, b, &first), 0u) << "frame " << i << ": " << first;
    EXPECT_EQ(a.depth, b.depth) << "frame " << i;
    EXPECT_GT(count_drawn(a), 1000u);
  }
}

}  // namespace
}  // namespace pr
