// The CPU rasterizer: depth order, ties, empty clouds, NaN points, point size, subsets, identical
// images for any thread count, and the same images with occlusion culling and binning on and off.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "engine/cpu_renderer.h"
#include "engine/cpu_renderer_testing.h"
#include "engine/image.h"
#include "engine/morton.h"
#include "engine/scenes.h"
#include "hiz_test_util.h"
#include "render_test_util.h"

namespace pr {
namespace {

constexpr uint32_t kBg = rgba(1, 2, 3);
const uint32_t kRed = rgba(255, 0, 0), kGreen = rgba(0, 255, 0), kBlue = rgba(0, 0, 255);

PointCloud cloud_of(std::initializer_list<std::pair<Float3, uint32_t>> pts) {
  PointCloud c;
  for (const auto& [p, col] : pts) {
    c.positions.push_back(p);
    c.colors.push_back(col);
  }
  return c;
}

Camera origin_camera(double focus = 1.0) {
  Camera cam;
  cam.position = {0, 0, 0};
  cam.focus = focus;
  return cam;
}

Image render(const PointCloud& c, const Camera& cam, int w, int h, unsigned threads = 0,
             int point_size = 1, uint64_t count = ~uint64_t{0}) {
  CpuRenderer r(threads);
  std::string err;
  EXPECT_TRUE(r.set_cloud(c, &err)) << err;
  RenderSettings s;
  s.width = w;
  s.height = h;
  s.background = kBg;
  s.point_size = point_size;
  s.point_count = count;
  s.want_depth = true;
  Image img;
  FrameStats st;
  EXPECT_TRUE(r.render(cam, s, img, st, &err)) << err;
  return img;
}

size_t count_not(const Image& img, uint32_t color) {
  size_t n = 0;
  for (uint32_t p : img.rgba) n += p != color;
  return n;
}

TEST(CpuRenderer, NearestPointWinsWhateverTheOrder) {
  // Three points on the optical axis at depths 5, 2, 9: the one at 2 (green) must win.
  const PointCloud a = cloud_of({{{0, 0, 5}, kRed}, {{0, 0, 2}, kGreen}, {{0, 0, 9}, kBlue}});
  const PointCloud b = cloud_of({{{0, 0, 9}, kBlue}, {{0, 0, 5}, kRed}, {{0, 0, 2}, kGreen}});
  for (const PointCloud* c : {&a, &b}) {
    const Image img = render(*c, origin_camera(), 8, 8);
    EXPECT_EQ(img.at(4, 4), kGreen);
    EXPECT_EQ(img.depth[4 * 8 + 4], 2.0f);
    EXPECT_EQ(count_not(img, kBg), 1u);
  }
}

TEST(CpuRenderer, EqualDepthTieGoesToTheSmallerColorWhateverTheOrder) {
  // kRed's word 0xff0000ff is the smallest of the three (rgba() puts red in the low byte). The
  // rule depends on the points alone, so every storage order and thread count gives kRed.
  ASSERT_LT(kRed, kGreen);
  ASSERT_LT(kRed, kBlue);
  const PointCloud a = cloud_of({{{0, 0, 3}, kRed}, {{0, 0, 3}, kGreen}, {{0, 0, 3}, kBlue}});
  const PointCloud b = cloud_of({{{0, 0, 3}, kBlue}, {{0, 0, 3}, kGreen}, {{0, 0, 3}, kRed}});
  const PointCloud c = cloud_of({{{0, 0, 3}, kGreen}, {{0, 0, 3}, kRed}, {{0, 0, 3}, kBlue}});
  for (const PointCloud* cl : {&a, &b, &c})
    for (unsigned t : {1u, 2u, 4u}) EXPECT_EQ(render(*cl, origin_camera(), 4, 4, t).at(2, 2), kRed);
  // Two equal depths of which neither is the smallest color overall: still the smaller word.
  const PointCloud d = cloud_of({{{0, 0, 3}, kBlue}, {{0, 0, 3}, kGreen}, {{0, 0, 4}, kRed}});
  EXPECT_EQ(render(d, origin_camera(), 4, 4).at(2, 2), kGreen);
}

TEST(CpuRenderer, EmptyCloudGivesBackground) {
  PointCloud empty;
  const Image img = render(empty, origin_camera(), 16, 9);
  ASSERT_EQ(img.rgba.size(), 16u * 9u);
  EXPECT_EQ(count_not(img, kBg), 0u);
  for (float d : img.depth) EXPECT_TRUE(std::isinf(d));
}

TEST(CpuRenderer, NanAndInfinitePointsAreSkipped) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const PointCloud c = cloud_of({{{nan, 0, 3}, kRed},
                                 {{0, inf, 3}, kRed},
                                 {{0, 0, nan}, kRed},
                                 {{0, 0, -inf}, kRed},
                                 {{0, 0, inf}, kRed},
                                 {{0, 0, 4}, kGreen}});
  const Image img = render(c, origin_camera(), 8, 8);
  EXPECT_EQ(img.at(4, 4), kGreen);
  EXPECT_EQ(count_not(img, kBg), 1u);
}

TEST(CpuRenderer, PointsBehindTheCameraAreNotMirrored) {
  // The NumPy projection's abs(z) would draw this point at the centre; it is culled.
  const PointCloud c = cloud_of({{{0, 0, -5}, kRed}});
  EXPECT_EQ(count_not(render(c, origin_camera(), 8, 8), kBg), 0u);
}

TEST(CpuRenderer, PointSizeCoversASquareAndStaysDepthTested) {
  // A big far red point and a small near green one at the same pixel.
  const PointCloud c = cloud_of({{{0, 0, 9}, kRed}, {{0, 0, 2}, kGreen}});
  const Image img = render(c, origin_camera(), 16, 16, 0, 3);
  EXPECT_EQ(img.at(8, 8), kGreen);  // nearer wins where both cover
  EXPECT_EQ(count_not(img, kBg), 9u);
  for (int y = 7; y <= 9; ++y)
    for (int x = 7; x <= 9; ++x) EXPECT_EQ(img.at(x, y), kGreen);
}

TEST(CpuRenderer, ZeroSizeImageIsNotAnError) {
  const PointCloud c = cloud_of({{{0, 0, 3}, kRed}});
  CpuRenderer r;
  std::string err;
  ASSERT_TRUE(r.set_cloud(c, &err));
  RenderSettings s;
  s.width = 0;
  s.height = 0;
  Image img;
  FrameStats st;
  EXPECT_TRUE(r.render(origin_camera(), s, img, st, &err));
  EXPECT_TRUE(img.rgba.empty());
}

TEST(CpuRenderer, IdenticalImagesForAnyThreadCount) {
  const PointCloud c = make_scene("terrain", 300000, 7);
  const Camera cam = scene_camera("terrain", c);
  const Image one = render(c, cam, 321, 207, 1);
  EXPECT_GT(count_not(one, kBg), 5000u);
  for (unsigned t : {2u, 3u, 8u}) {
    const Image many = render(c, cam, 321, 207, t);
    EXPECT_EQ(one.rgba, many.rgba) << t << " threads";
  }
  // And with splats.
  EXPECT_EQ(render(c, cam, 200, 100, 1, 4).rgba, render(c, cam, 200, 100, 5, 4).rgba);
}

TEST(CpuRenderer, SubsetDrawsFewerPoints) {
  const PointCloud c = make_scene("cube", 200000, 3);
  Camera cam = scene_camera("cube", c);
  cam.frame(c.world_bounds(), 640.0 / 480.0);
  const size_t all = count_not(render(c, cam, 640, 480), kBg);
  const size_t some = count_not(render(c, cam, 640, 480, 0, 1, 20000), kBg);
  EXPECT_GT(all, some);
  EXPECT_GT(some, 1000u);
}

TEST(CpuRenderer, CubeSceneSeenFromSeedCamera) {
  // The cube scene's benchmark (from the NumPy/CuPy projection the project grew from): camera at
  // (0,0,10) inside the cube, looking along +z with focus 5 (22.6 degrees). The frustum holds
  // integral_0^40 (2d/5)(2d/5 * 4/3) dd / 100^3 = 0.46% of the cube: about 455 of 100,000 points,
  // all in front of the near plane.
  const PointCloud c = make_scene("cube", 100000, 1);
  const Image img = render(c, scene_camera("cube", c), 400, 300);
  EXPECT_GT(count_not(img, kBg), 350u);
  EXPECT_LT(count_not(img, kBg), 560u);
  for (size_t i = 0; i < img.rgba.size(); ++i) {
    if (img.rgba[i] != kBg) {
      EXPECT_GT(img.depth[i], 0.0f);
    }
  }
}

TEST(CpuRenderer, OcclusionCullingKeepsEveryFrameTheSame) {
  // A dense Morton-ordered cube seen whole at a small size, so that most batches are hidden:
  // every frame of a camera path (still, moving in while turning, point size 3, inside, looking
  // away) is the same image with occlusion culling forced on as with it off, in float and compact
  // storage; at the still camera the second frame skips most batches, and the first runs the
  // two passes with nothing yet to defer.
  PointCloud c = make_scene("cube", 1'500'000, 5);
  apply_order(c, morton_order(c));
  const Bounds b = c.world_bounds();
  for (const bool compact : {false, true}) {
    SCOPED_TRACE(compact ? "compact" : "float");
    CpuRenderer on(2), off(2);
    RenderOptions o = test::compact_options(compact, true);
    o.occlusion = Toggle::kOn;
    on.set_options(o);
    o.occlusion = Toggle::kOff;
    off.set_options(o);
    std::string err;
    ASSERT_TRUE(on.set_cloud(c, &err)) << err;
    ASSERT_TRUE(off.set_cloud(c, &err)) << err;
    RenderSettings rs;
    rs.width = 203;  // not a whole number of tiles
    rs.height = 150;
    rs.want_depth = true;
    Camera overview;
    overview.frame(b, double(rs.width) / double(rs.height));
    uint64_t deferred_drawn_frames = 0;
    auto check = [&](const Camera& cam, const std::string& what) {
      SCOPED_TRACE(what);
      Image a, x;
      FrameStats st;
      ASSERT_TRUE(on.render(cam, rs, a, st, &err)) << err;
      ASSERT_TRUE(off.render(cam, rs, x, st, &err)) << err;
      EXPECT_TRUE(on.occlusion_ran());
      EXPECT_FALSE(off.occlusion_ran());
      std::string first;
      EXPECT_EQ(test::count_diff(a, x, &first), 0u) << first;
      EXPECT_EQ(std::memcmp(a.depth.data(), x.depth.data(), a.depth.size() * sizeof(float)), 0);
    };
    check(overview, "overview, first");
    EXPECT_EQ(on.occluded_batches(), 0u) << "no Hi-Z yet";
    check(overview, "overview, again");
    const size_t batches = compact ? on.compact().batches.size() : on.boxes().size();
    EXPECT_GT(on.occluded_batches(), batches / 4);
    {
      // Its second pass drew nothing, so the Hi-Z the renderer built (its own loop, which skips
      // untouched tiles) is the host reference build_hiz() of the final depths.
      EXPECT_EQ(on.second_pass_batches(), 0u);
      Image img;
      FrameStats st;
      ASSERT_TRUE(off.render(overview, rs, img, st, &err)) << err;
      EXPECT_TRUE(CpuRendererTesting::hiz(on) == test::hiz_of_depths(img))
          << "the CPU's Hi-Z differs from build_hiz()";
    }
    for (int i = 0; i < 8; ++i) {
      Camera cam = overview;
      cam.position += cam.forward() * glm::length(b.size()) * 0.1 * double(i);
      cam.yaw += 0.08 * double(i);
      rs.point_size = i % 4 == 3 ? 3 : 1;
      check(cam, "moving " + std::to_string(i));
      deferred_drawn_frames += on.second_pass_batches() > 0;
    }
    // Back out at once: the Hi-Z of the near view holds nearer depths than any batch now has, so
    // the first pass defers nearly everything and the second pass draws the image.
    Camera nearer = overview;  // the cube filling the image
    nearer.position += nearer.forward() * glm::length(b.size()) * 0.4;
    check(nearer, "nearer");
    check(overview, "back out");
    EXPECT_GT(on.second_pass_batches(), batches / 4);
    rs.point_size = 1;
    check(Camera{}, "the cube's own camera inside");
    Camera away = overview;
    away.yaw += 3.14159;
    check(away, "looking away");
    check(overview, "overview after");
    EXPECT_GT(deferred_drawn_frames, 0u);
  }
}

TEST(CpuRenderer, AutomaticOcclusionCullingLeavesSmallCloudsAlone) {
  // kAuto (the default) runs the two passes only for clouds of 2^25 points and more.
  const PointCloud c = make_scene("cube", 200'000, 3);
  CpuRenderer r(2);
  EXPECT_EQ(r.options().occlusion, Toggle::kAuto);
  std::string err;
  ASSERT_TRUE(r.set_cloud(c, &err)) << err;
  RenderSettings rs;
  rs.width = 64;
  rs.height = 48;
  Camera cam;
  cam.frame(c.world_bounds(), 64.0 / 48.0);
  Image img;
  FrameStats st;
  ASSERT_TRUE(r.render(cam, rs, img, st, &err)) << err;
  EXPECT_FALSE(r.occlusion_ran());
}

TEST(CpuRenderer, BinningGivesTheSameImages) {
  // Sort-middle binning forced on against the direct atomics: random cameras around a cube in
  // random and in Morton order, frame after frame on the same renderers (so a key the binning
  // left uncleared shows in a later frame), image widths that are not a whole number of tiles or
  // bands, subsets, compact positions, point size 3 (splats keep the atomics), thread counts
  // that do not divide the work; the same colors and depths every frame.
  PointCloud random_order = make_scene("cube", 300'000, 11);
  PointCloud morton = random_order;
  apply_order(morton, morton_order(morton));
  std::mt19937 rng(5);
  int frames_binned = 0;
  for (const bool compact : {false, true})
    for (const PointCloud* c : {&random_order, &morton})
      for (unsigned threads : {1u, 3u, 5u}) {
        SCOPED_TRACE(std::string(compact ? "compact" : "float") + ", " +
                     (c == &morton ? "morton" : "random") + ", " + std::to_string(threads) +
                     " threads");
        CpuRenderer on(threads), off(threads);
        RenderOptions o = test::compact_options(compact, true);
        o.binning = Toggle::kOn;
        on.set_options(o);
        o.binning = Toggle::kOff;
        off.set_options(o);
        std::string err;
        ASSERT_TRUE(on.set_cloud(*c, &err)) << err;
        ASSERT_TRUE(off.set_cloud(*c, &err)) << err;
        const Bounds b = c->world_bounds();
        for (int i = 0; i < 8; ++i) {
          RenderSettings rs;
          rs.width = i % 2 ? 203 : 640;
          rs.height = i % 2 ? 150 : 480;
          rs.want_depth = true;
          rs.background = test::kBg;
          rs.point_size = i == 5 ? 3 : 1;
          if (i == 6) rs.point_count = c->size() / 3;
          Camera cam = test::random_camera(rng, b);
          if (i % 4 == 0) cam.frame(b, double(rs.width) / double(rs.height));
          Image a, x;
          FrameStats st;
          ASSERT_TRUE(on.render(cam, rs, a, st, &err)) << err;
          ASSERT_TRUE(off.render(cam, rs, x, st, &err)) << err;
          EXPECT_EQ(CpuRendererTesting::binned(on), rs.point_size == 1) << "frame " << i;
          EXPECT_FALSE(CpuRendererTesting::binned(off));
          frames_binned += CpuRendererTesting::binned(on) && test::count_drawn(a) > 1000;
          std::string first;
          EXPECT_EQ(test::count_diff(a, x, &first), 0u) << "frame " << i << ": " << first;
          EXPECT_EQ(std::memcmp(a.depth.data(), x.depth.data(), a.depth.size() * sizeof(float)), 0)
              << "frame " << i;
        }
      }
  EXPECT_GT(frames_binned, 24);
}

TEST(CpuRenderer, AutomaticBinningTakesFramesOfAtMostTwoPointsAPixel) {
  const PointCloud c = make_scene("cube", 100'000, 3);
  CpuRenderer r(2);
  EXPECT_EQ(r.options().binning, Toggle::kAuto);
  std::string err;
  ASSERT_TRUE(r.set_cloud(c, &err)) << err;
  Camera cam;
  cam.frame(c.world_bounds(), 4.0 / 3.0);
  auto binned = [&](int w, int h, int point_size, uint64_t count) {
    RenderSettings rs;
    rs.width = w;
    rs.height = h;
    rs.point_size = point_size;
    rs.point_count = count;
    Image img;
    FrameStats st;
    EXPECT_TRUE(r.render(cam, rs, img, st, &err)) << err;
    return CpuRendererTesting::binned(r);
  };
  const uint64_t all = ~uint64_t{0};
  EXPECT_TRUE(binned(320, 240, 1, all));      // 100,000 points on 76,800 pixels
  EXPECT_FALSE(binned(160, 120, 1, all));     // on 19,200
  EXPECT_TRUE(binned(160, 120, 1, 38'400));   // a subset of two points a pixel
  EXPECT_FALSE(binned(160, 120, 1, 38'401));  // one more
  EXPECT_FALSE(binned(320, 240, 2, all));     // splats
  EXPECT_FALSE(binned(320, 240, 1, 0));       // nothing to draw
  // The cube's own camera (Camera{}) inside it: about 460 of the points draw. The first frame goes
  // by the frame before (all 100,000 drew); after it, too few draw for the binning's passes.
  cam = Camera{};
  EXPECT_TRUE(binned(320, 240, 1, all));
  EXPECT_FALSE(binned(320, 240, 1, all));
  EXPECT_FALSE(binned(320, 240, 1, all));
  cam.frame(c.world_bounds(), 4.0 / 3.0);  // back out: binned from the frame after
  EXPECT_FALSE(binned(320, 240, 1, all));
  EXPECT_TRUE(binned(320, 240, 1, all));
  EXPECT_FALSE(binned(320, 240, 3, all));  // splats, which count as drawn points too
  EXPECT_TRUE(binned(320, 240, 1, all));
}

TEST(CpuRenderer, LargeSplatsLeaveNothingBehindForTheNextFrame) {
  // Squares of up to 16 pixels span three 8-pixel occupancy tiles a side; the resolve resets only
  // the keys of marked tiles, so a middle tile left unmarked would keep its keys into the next
  // frame. Each frame after a frame of large squares must equal a fresh renderer's.
  const PointCloud c = make_scene("cube", 3000, 9);
  const Bounds b = c.world_bounds();
  std::mt19937 rng(17);
  CpuRenderer kept(2);
  std::string err;
  ASSERT_TRUE(kept.set_cloud(c, &err)) << err;
  for (int i = 0; i < 12; ++i) {
    RenderSettings rs;
    rs.width = 160;
    rs.height = 120;
    rs.want_depth = true;
    rs.background = test::kBg;
    rs.point_size = i % 2 ? 1 : 10 + i % 7;
    Camera cam = test::random_camera(rng, b);
    if (i % 3 == 0) cam.frame(b, 160.0 / 120.0);
    CpuRenderer fresh(2);
    ASSERT_TRUE(fresh.set_cloud(c, &err)) << err;
    const Image a = test::render(kept, cam, rs);
    const Image x = test::render(fresh, cam, rs);
    std::string first;
    EXPECT_EQ(test::count_diff(a, x, &first), 0u) << "frame " << i << ": " << first;
  }
}

}  // namespace
}  // namespace pr
