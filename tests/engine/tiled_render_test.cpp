// Images drawn in tiles (engine/tiled_render.h): the plans cover the image once, a region draws
// exactly the whole image's pixels, and the tiled image equals the whole image byte for byte for
// every look (point sizes, adaptive sizes, eye-dome lighting, high-quality splats, clips, compact
// positions, subsets, orthographic views), tiles of odd sizes and bands of full rows alike.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "engine/cpu_renderer.h"
#include "engine/scenes.h"
#include "engine/tiled_render.h"
#include "random_camera.h"
#include "render_test_util.h"

namespace pr {
namespace {

/// Every pixel of the image in exactly one tile, every drawn region inside the image and holding
/// its tile with the margin (less where the image ends).
void expect_cover(const TilePlan& plan) {
  std::vector<int> hits(size_t(plan.width) * size_t(plan.height), 0);
  for (int i = 0; i < plan.count(); ++i) {
    const ImageRegion t = plan.tile(i), d = plan.drawn(i);
    ASSERT_FALSE(t.empty()) << i;
    for (int y = t.y; y < t.y + t.height; ++y)
      for (int x = t.x; x < t.x + t.width; ++x) ++hits[size_t(y) * size_t(plan.width) + size_t(x)];
    EXPECT_GE(d.x, 0);
    EXPECT_GE(d.y, 0);
    EXPECT_LE(d.x + d.width, plan.width);
    EXPECT_LE(d.y + d.height, plan.height);
    EXPECT_EQ(d.x, std::max(0, t.x - plan.margin)) << i;
    EXPECT_EQ(d.y, std::max(0, t.y - plan.margin)) << i;
    EXPECT_EQ(d.x + d.width, std::min(plan.width, t.x + t.width + plan.margin)) << i;
    EXPECT_EQ(d.y + d.height, std::min(plan.height, t.y + t.height + plan.margin)) << i;
  }
  for (size_t i = 0; i < hits.size(); ++i) ASSERT_EQ(hits[i], 1) << "pixel " << i;
}

TEST(TiledRender, PlansCoverTheImageOnce) {
  RenderSettings s;
  s.width = 3000;
  s.height = 2000;
  s.point_size = 3;
  s.edl = true;
  s.edl_radius = 3.0f;
  const TilePlan odd = plan_tiles(s, 777, 555);
  EXPECT_EQ(odd.columns, 4);
  EXPECT_EQ(odd.rows, 4);
  EXPECT_EQ(odd.margin, 1 + 3);  // half the square, and EDL's reach
  expect_cover(odd);
  expect_cover(plan_tiles(s, 1, 1999));
  const TilePlan whole = plan_tiles(s, 5000, 5000);
  EXPECT_TRUE(whole.whole());
  EXPECT_EQ(whole.margin, 0);
  expect_cover(whole);
}

TEST(TiledRender, PlansForMemoryKeepEachFrameWithinTheLimit) {
  RenderSettings s;
  s.width = 4000;
  s.height = 3000;
  s.point_size = 5;
  EXPECT_TRUE(plan_tiles_for(s, uint64_t(4000) * 3000).whole());
  // Bands of full rows, as equal as they come.
  const uint64_t limit = 4000 * 301;
  const TilePlan bands = plan_tiles_for(s, limit);
  EXPECT_EQ(bands.columns, 1);
  EXPECT_GT(bands.rows, 1);
  EXPECT_GE(bands.tile_height * bands.rows - s.height, 0);
  EXPECT_LT(bands.tile_height * bands.rows - s.height, bands.rows);
  // Squares when not even 16 rows fit.
  const TilePlan squares = plan_tiles_for(s, 4000 * 10);
  EXPECT_GT(squares.columns, 1);
  for (const TilePlan& p : {bands, squares}) {
    expect_cover(p);
    for (int i = 0; i < p.count(); ++i) {
      const ImageRegion d = p.drawn(i);
      EXPECT_LE(uint64_t(d.width) * uint64_t(d.height), p.whole() ? ~0ull : limit) << i;
    }
  }
  for (int i = 0; i < squares.count(); ++i) {
    const ImageRegion d = squares.drawn(i);
    EXPECT_LE(uint64_t(d.width) * uint64_t(d.height), uint64_t(4000 * 10)) << i;
  }
}

TEST(TiledRender, RegionOutsideTheImageIsRefused) {
  const PointCloud cloud = make_scene("cube", 1000, 3);
  CpuRenderer r(2);
  ASSERT_TRUE(r.set_cloud(cloud, nullptr));
  RenderSettings s;
  s.width = 100;
  s.height = 80;
  s.region = ImageRegion{60, 10, 50, 20};
  Image img;
  FrameStats st;
  std::string err;
  EXPECT_FALSE(r.render(scene_camera("cube", cloud), s, img, st, &err));
  EXPECT_NE(err.find("not inside the 100x80 image"), std::string::npos) << err;
}

/// The frame of `region` equals that part of the whole image for 1-pixel points (which need no
/// margin): the projection's pixels with the tile's origin subtracted are the whole image's.
TEST(TiledRender, RegionDrawsTheWholeImagesPixels) {
  const PointCloud cloud = make_scene("terrain", 200000, 11);
  CpuRenderer r(2);
  ASSERT_TRUE(r.set_cloud(cloud, nullptr));
  std::mt19937 rng(7);
  for (int it = 0; it < 6; ++it) {
    const Camera cam = it == 0 ? scene_camera("terrain", cloud)
                               : test::random_camera(rng, cloud.local_bounds(), it % 3 == 2);
    RenderSettings s;
    s.width = 1001;
    s.height = 733;
    s.background = test::kBg;
    s.want_depth = true;
    const Image whole = test::render(r, cam, s);
    const ImageRegion regions[] = {{0, 0, 1001, 733},
                                   {1, 3, 500, 400},
                                   {333, 211, 668, 522},
                                   {1000, 732, 1, 1},
                                   {517, 0, 13, 733}};
    for (const ImageRegion& g : regions) {
      s.region = g;
      const Image part = test::render(r, cam, s);
      ASSERT_EQ(part.width, g.width);
      ASSERT_EQ(part.height, g.height);
      size_t diff = 0;
      for (int y = 0; y < g.height; ++y)
        for (int x = 0; x < g.width; ++x) {
          const size_t a = size_t(y) * size_t(g.width) + size_t(x);
          const size_t b = size_t(y + g.y) * size_t(whole.width) + size_t(x + g.x);
          diff += part.rgba[a] != whole.rgba[b] ||
                  float_bits(part.depth[a]) != float_bits(whole.depth[b]);
        }
      EXPECT_EQ(diff, 0u) << "frame " << it << " region at " << g.x << "," << g.y;
    }
    s.region = ImageRegion{};
  }
}

/// One look of the image: settings changed from the plain ones, and the renderer options.
struct Look {
  const char* name;
  void (*apply)(RenderSettings& s, RenderOptions& o, const PointCloud& cloud);
};

const Look kLooks[] = {
    {"plain", [](RenderSettings&, RenderOptions&, const PointCloud&) {}},
    {"size 3", [](RenderSettings& s, RenderOptions&, const PointCloud&) { s.point_size = 3; }},
    {"size 4", [](RenderSettings& s, RenderOptions&, const PointCloud&) { s.point_size = 4; }},
    {"adaptive 2-9",
     [](RenderSettings& s, RenderOptions&, const PointCloud&) {
       s.point_size = 2;
       s.adaptive_size = true;
       s.max_point_size = 9;
     }},
    {"edl", [](RenderSettings& s, RenderOptions&, const PointCloud&) { s.edl = true; }},
    {"edl radius 3, size 2",
     [](RenderSettings& s, RenderOptions&, const PointCloud&) {
       s.edl = true;
       s.edl_radius = 3.0f;
       s.edl_strength = 2.0f;
       s.point_size = 2;
     }},
    {"hq size 3",
     [](RenderSettings& s, RenderOptions&, const PointCloud&) {
       s.hq = true;
       s.point_size = 3;
     }},
    {"hq edl",
     [](RenderSettings& s, RenderOptions&, const PointCloud&) {
       s.hq = true;
       s.edl = true;
     }},
    {"clip box and section",
     [](RenderSettings& s, RenderOptions&, const PointCloud& cloud) {
       const Bounds b = cloud.local_bounds();
       ClipBox box;
       box.centre = cloud.origin + b.center();
       box.size = b.size() * 0.5;
       box.yaw = 20.0;
       s.clip.boxes.push_back(box);
       s.clip.section.enabled = true;
       s.clip.section.point = cloud.origin + b.center();
       s.clip.section.normal = {1.0, 0.3, 0.0};
       s.clip.section.thickness = b.size().x * 0.3;
       s.point_size = 2;
     }},
    {"compact size 2",
     [](RenderSettings& s, RenderOptions& o, const PointCloud&) {
       o.compact = true;
       s.point_size = 2;
     }},
    {"subset", [](RenderSettings& s, RenderOptions&,
                  const PointCloud& cloud) { s.point_count = cloud.size() / 3; }},
    {"no culling, binned",
     [](RenderSettings&, RenderOptions& o, const PointCloud&) {
       o.culling = false;
       o.binning = Toggle::kOn;
     }},
    {"occlusion on, depth",
     [](RenderSettings& s, RenderOptions& o, const PointCloud&) {
       o.occlusion = Toggle::kOn;
       s.want_depth = true;
       s.point_size = 2;
     }},
};

/// The cameras: the scene's, a close-up inside the terrain (large adaptive squares, deep EDL
/// edges) and an orthographic view from above.
std::vector<Camera> tile_cameras(const PointCloud& cloud) {
  std::vector<Camera> cams;
  cams.push_back(scene_camera("terrain", cloud));
  Camera close = cams[0];
  const Bounds b = cloud.local_bounds();
  close.position = cloud.origin + b.center() + glm::dvec3(0.0, b.size().y * 0.15, 0.0);
  close.pitch = -0.4;
  close.focus = 2.0;
  cams.push_back(close);
  Bounds world = b;
  world.min += cloud.origin;
  world.max += cloud.origin;
  Camera top = cams[0];
  top.set_view(StandardView::kTop, world, 1.5);
  top.set_projection(Projection::kOrthographic, world);
  cams.push_back(top);
  return cams;
}

void expect_tiled_equals_whole(const PointCloud& cloud, int width, int height,
                               const std::vector<std::pair<int, int>>& tiles) {
  const std::vector<Camera> cams = tile_cameras(cloud);
  for (const Look& look : kLooks) {
    RenderSettings s;
    s.width = width;
    s.height = height;
    s.background = test::kBg;
    RenderOptions o;
    look.apply(s, o, cloud);
    CpuRenderer r(2);
    r.set_options(o);
    ASSERT_TRUE(r.set_cloud(cloud, nullptr));
    for (size_t c = 0; c < cams.size(); ++c) {
      const Image whole = test::render(r, cams[c], s);
      // Every camera in the first tiles, the first camera in all of them.
      for (const auto& [tw, th] : c == 0 ? tiles : std::vector{tiles[0]}) {
        const TilePlan plan = plan_tiles(s, tw, th);
        Image tiled;
        std::string err;
        ASSERT_TRUE(render_tiled(r, cams[c], s, plan, tiled, &err)) << err;
        std::string where;
        EXPECT_EQ(test::count_diff(tiled, whole, &where), 0u)
            << look.name << ", camera " << c << ", tiles " << tw << "x" << th << ": " << where;
        if (s.want_depth) {
          EXPECT_EQ(tiled.depth, whole.depth) << look.name << ", camera " << c;
        }
      }
    }
  }
}

TEST(TiledRender, TiledImageEqualsTheWholeImage) {
  const PointCloud cloud = make_scene("terrain", 300000, 2);
  expect_tiled_equals_whole(cloud, 3000, 2000, {{777, 555}, {3000, 333}, {1499, 2000}});
}

/// Without their margins the tiles of squares and of eye-dome lighting differ from the whole
/// image at their edges: the margin is what makes them equal.
TEST(TiledRender, TilesWithoutMarginDiffer) {
  const PointCloud cloud = make_scene("terrain", 300000, 2);
  CpuRenderer r(2);
  ASSERT_TRUE(r.set_cloud(cloud, nullptr));
  const Camera cam = scene_camera("terrain", cloud);
  for (const bool edl : {false, true}) {
    RenderSettings s;
    s.width = 1200;
    s.height = 800;
    s.background = test::kBg;
    s.point_size = edl ? 1 : 4;
    s.edl = edl;
    const Image whole = test::render(r, cam, s);
    TilePlan plan = plan_tiles(s, 301, 203);
    ASSERT_GT(plan.margin, 0);
    plan.margin = 0;
    Image tiled;
    std::string err;
    ASSERT_TRUE(render_tiled(r, cam, s, plan, tiled, &err)) << err;
    EXPECT_GT(test::count_diff(tiled, whole, nullptr), 0u) << (edl ? "edl" : "size 4");
  }
}

TEST(TiledRender, StepsHandTheRowsOnTopToBottom) {
  const PointCloud cloud = make_scene("galaxy", 50000, 4);
  CpuRenderer r(2);
  ASSERT_TRUE(r.set_cloud(cloud, nullptr));
  RenderSettings s;
  s.width = 640;
  s.height = 480;
  s.point_size = 2;
  const TilePlan plan = plan_tiles(s, 250, 130);
  TiledRender tiled(scene_camera("galaxy", cloud), s, plan);
  int next_row = 0, bands = 0;
  const RowSink sink = [&](int y, int rows, const uint32_t*, const float* depth, std::string*) {
    EXPECT_EQ(y, next_row);
    EXPECT_EQ(depth, nullptr);
    next_row = y + rows;
    ++bands;
    return true;
  };
  std::string err;
  while (!tiled.done()) {
    const double before = tiled.fraction();
    ASSERT_TRUE(tiled.step(r, sink, &err)) << err;
    EXPECT_GT(tiled.fraction(), before);
  }
  EXPECT_EQ(next_row, 480);
  EXPECT_EQ(bands, plan.rows);
  EXPECT_EQ(tiled.tiles_done(), plan.count());
  // A sink that fails stops the drawing with its message.
  TiledRender failing(scene_camera("galaxy", cloud), s, plan);
  const RowSink refuse = [](int, int, const uint32_t*, const float*, std::string* why) {
    *why = "disk full";
    return false;
  };
  bool ok = true;
  while (ok && !failing.done()) ok = failing.step(r, refuse, &err);
  EXPECT_FALSE(ok);
  EXPECT_EQ(err, "disk full");
  EXPECT_TRUE(failing.done());
}

}  // namespace
}  // namespace pr
