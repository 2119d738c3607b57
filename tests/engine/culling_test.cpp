// Batch culling (engine/culling.h): the boxes equal a brute-force minimum and maximum of each
// batch's finite points; the box test never culls a box that holds a drawable point (random boxes,
// cameras and points in them); and the CPU renderer draws the same image culled and unculled over
// many random cameras, scenes, point sizes and subsets, while really culling; occlusion culling's
// Hi-Z test never hides a box that could change a pixel, and the host Hi-Z builder reads only
// occupied tiles without changing its result.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "cpu_frame.h"  // kTile
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

TEST(Culling, BoxesAreTheMinimumAndMaximumOfTheFinitePoints) {
  PointCloud cloud = make_scene("galaxy", 3 * kPointBatch + 123);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  // Batch 1: NaN, infinite, huge (finite, so counted) and signed-zero coordinates.
  cloud.positions[kPointBatch + 1] = Float3{nan, 0.f, 0.f};
  cloud.positions[kPointBatch + 2] = Float3{0.f, -inf, 0.f};
  cloud.positions[kPointBatch + 3] = Float3{3e38f, -2e30f, 1e-45f};
  cloud.positions[kPointBatch + 4] = Float3{-0.0f, -0.0f, -0.0f};
  // Batch 2: no finite point at all.
  for (size_t i = 2 * kPointBatch; i < 3 * kPointBatch; ++i)
    cloud.positions[i] = i % 2 ? Float3{nan, nan, nan} : Float3{inf, 0.f, 0.f};
  PodVector<PointBox> boxes;
  compute_point_boxes(cloud.positions.data(), cloud.size(), &boxes);
  ASSERT_EQ(boxes.size(), 4u);
  for (size_t b = 0; b < boxes.size(); ++b) {
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    bool any = false;
    for (size_t i = b * kPointBatch; i < std::min(cloud.size(), (b + 1) * kPointBatch); ++i) {
      const Float3 v = cloud.positions[i];
      if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z)) continue;
      const float f[3] = {v.x, v.y, v.z};
      for (int a = 0; a < 3; ++a) {
        lo[a] = std::min(lo[a], double(f[a]));
        hi[a] = std::max(hi[a], double(f[a]));
      }
      any = true;
    }
    if (!any) {
      for (int a = 0; a < 3; ++a) EXPECT_GT(boxes[b].lo[a], boxes[b].hi[a]) << "batch " << b;
      ProjParams p = Camera{}.params(64, 48, glm::dvec3(0.0));
      EXPECT_FALSE(box_may_draw(p, boxes[b])) << "an empty batch draws nothing";
      continue;
    }
    for (int a = 0; a < 3; ++a) {
      EXPECT_EQ(double(boxes[b].lo[a]), lo[a]) << "batch " << b << " axis " << a;
      EXPECT_EQ(double(boxes[b].hi[a]), hi[a]) << "batch " << b << " axis " << a;
      // Zeros come out unsigned, whatever order the points were taken in.
      EXPECT_FALSE(boxes[b].lo[a] == 0.0f && std::signbit(boxes[b].lo[a]));
    }
  }
  EXPECT_EQ(boxes[1].hi[0], 3e38f);  // huge but finite points count
  EXPECT_EQ(boxes[1].lo[1], -2e30f);
}

TEST(Culling, BoxTestNeverCullsADrawablePoint) {
  // Whenever the box test says "not visible", none of the box's corners, its centre or 200
  // random float points in it projects into the image.
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  test::check_box_test<PointBox>(
      11,
      [&](int i, float x0, std::mt19937& rng) {
        PointBox b;
        for (int a = 0; a < 3; ++a) {
          b.lo[a] = u(rng) * 10.0f + (a == 0 ? x0 : 0.0f);
          b.hi[a] = b.lo[a] + (u(rng) + 1.0f) * (i % 5 == 0 ? 1e-3f : 3.0f);
        }
        return b;
      },
      [](const ProjParams& p, const PointBox& b) { return box_may_draw(p, b); },
      test::sample_point_box);
}

TEST(Culling, BoxInViewMeansEveryPointDraws) {
  // Random boxes and cameras: whenever box_corners_in_view() says the whole box is in view, its
  // corners, centre and 200 random points in it all land in the image.
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  int inside = 0;
  Bounds world;
  world.extend(glm::dvec3(-10.0));
  world.extend(glm::dvec3(10.0));
  for (int i = 0; i < 20'000; ++i) {
    PointBox b;
    for (int a = 0; a < 3; ++a) {
      b.lo[a] = u(rng) * 10.0f;
      b.hi[a] = b.lo[a] + (u(rng) + 1.0f) * 2.0f;
    }
    Camera cam = random_camera(rng, world);
    cam.position *= 3.0;  // mostly outside the boxes, so that many are wholly in view
    cam.look_at(glm::dvec3(0.0));
    const ProjParams p = cam.params(i % 2 ? 64 : 1920, i % 2 ? 48 : 1080, glm::dvec3(0.0));
    if (!box_corners_in_view(p, b)) continue;
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
  PointBox empty = empty_point_box();
  EXPECT_FALSE(box_corners_in_view(Camera{}.params(64, 48, glm::dvec3(0.0)), empty));
}

TEST(Culling, PixelRectHoldsEveryPixelTheBoxesPointsWrite) {
  // Random boxes, cameras (inside, around and far from the boxes, deep near planes), image sizes
  // and point sizes: every pixel that a corner, the centre or a random float point of the box
  // writes (its splat's square) lies in box_pixel_rect(); and the rect is often much smaller than
  // the image, so the test is not passed by answering the whole image.
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  Bounds world;
  world.extend(glm::dvec3(-10.0));
  world.extend(glm::dvec3(10.0));
  int drawn = 0, small = 0, empty_with_points = 0;
  for (int i = 0; i < 20'000; ++i) {
    PointBox b;
    for (int a = 0; a < 3; ++a) {
      b.lo[a] = u(rng) * 10.0f;
      b.hi[a] = b.lo[a] + (u(rng) + 1.0f) * (i % 7 == 0 ? 1e-3f : 2.0f);
    }
    Camera cam = random_camera(rng, world);
    if (i % 3 == 0) {  // from outside, looking at the boxes: small rects
      cam.position *= 4.0;
      cam.look_at(glm::dvec3(0.0));
    }
    const int w = i % 2 ? 64 : 1920, h = i % 2 ? 48 : 1080;
    const int ps = 1 + i % 4;
    const ProjParams p = cam.params(w, h, glm::dvec3(0.0), ps);
    const PixelRect r = box_pixel_rect(p, b);
    ASSERT_TRUE(r.x0 >= 0 && r.y0 >= 0 && r.x1 <= w && r.y1 <= h) << "box " << i;
    if (!r.empty() && int64_t(r.x1 - r.x0) * (r.y1 - r.y0) < int64_t(w) * h / 4) ++small;
    for (int k = 0; k < 210; ++k) {
      float x, y, z;
      test::sample_point_box(b, k, rng, x, y, z);
      int ix, iy;
      uint64_t key;
      if (!project_to_pixel(p, x, y, z, 0, ix, iy, key)) continue;
      ++drawn;
      empty_with_points += r.empty();
      int x0, y0, x1, y1;
      splat_rect(p, ix, iy, x0, y0, x1, y1);
      ASSERT_TRUE(x0 >= r.x0 && x1 <= r.x1 && y0 >= r.y0 && y1 <= r.y1)
          << "box " << i << ", point " << k << " writes [" << x0 << ", " << x1 << ") x [" << y0
          << ", " << y1 << ") outside the rect [" << r.x0 << ", " << r.x1 << ") x [" << r.y0 << ", "
          << r.y1 << ")";
    }
  }
  EXPECT_EQ(empty_with_points, 0);
  EXPECT_GT(drawn, 200'000);
  EXPECT_GT(small, 2'000);
  // No finite point, or the whole box behind the near plane: nothing to read.
  const ProjParams p = Camera{}.params(64, 48, glm::dvec3(0.0));
  EXPECT_TRUE(box_pixel_rect(p, empty_point_box()).empty());
  PointBox behind{{-1.0f, -1.0f, -5.0f}, {1.0f, 1.0f, -4.0f}};
  Camera back;
  back.position = glm::dvec3(0.0);
  back.look_at(glm::dvec3(0.0, 0.0, 1.0));  // looking along +z; the box is at z < 0
  EXPECT_TRUE(box_pixel_rect(back.params(64, 48, glm::dvec3(0.0)), behind).empty());
  // NaN in the camera: the whole image.
  ProjParams bad = p;
  bad.r[0] = std::numeric_limits<float>::quiet_NaN();
  const PointBox ahead{{0.0f, 0.0f, 20.0f}, {1.0f, 1.0f, 21.0f}};  // Camera{} looks at it
  EXPECT_FALSE(box_pixel_rect(p, ahead).empty());
  const PixelRect r = box_pixel_rect(bad, ahead);
  EXPECT_TRUE(r.x0 == 0 && r.y0 == 0 && r.x1 == 64 && r.y1 == 48);
}

TEST(Culling, BoxInsideMeansEveryPointDrawsAtItsPixel) {
  // box_surely_inside() (no per-point tests needed) against the projection itself: boxes around the
  // origin, some far larger than the view, and some just beyond the near plane.
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  test::check_inside_test<PointBox>(
      13,
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
      test::sample_point_box);
  EXPECT_FALSE(box_surely_inside(Camera{}.params(64, 48, glm::dvec3(0.0)), empty_point_box()));
}

TEST(Culling, CulledAndUnculledFramesAreTheSameImage) {
  std::mt19937 rng(2026);
  test::CullingTally tally;
  for (const char* name : {"cube", "terrain", "galaxy"}) {
    PointCloud cloud = make_scene(name, 150'000);
    // Spatially coherent, as the viewer keeps or makes it (the cube and the galaxy are
    // generated in random order; the terrain row by row).
    sort_if_incoherent(cloud);
    CpuRenderer culled(2), unculled(2);
    RenderOptions o;
    o.culling = false;
    unculled.set_options(o);
    EXPECT_TRUE(culled.options().culling);
    std::string err;
    ASSERT_TRUE(culled.set_cloud(cloud, &err)) << err;
    ASSERT_TRUE(unculled.set_cloud(cloud, &err)) << err;
    EXPECT_TRUE(culled.boxes().empty()) << "made by the first culled frame, not set_cloud()";
    // Every fifth frame a subset (every third point), which is drawn unculled.
    test::compare_culling(culled, unculled, cloud.world_bounds(), cloud.size(), rng, 150, 5, name,
                          tally);
    EXPECT_EQ(culled.boxes().size(), (cloud.size() + kPointBatch - 1) / kPointBatch);
    EXPECT_TRUE(unculled.boxes().empty());
  }
  // The comparison means something only if cameras both draw and cull.
  EXPECT_GT(tally.frames_drawing, 150u);
  EXPECT_GT(tally.frames_culling, 50u);
  EXPECT_GT(tally.culled_batches, 1000u);
}

TEST(Culling, SeedCameraInsideTheCubeSkipsMostBatches) {
  // The default camera (Camera{}) inside the random cube sees 0.6% of the points: in Morton order
  // nearly every batch lies outside the view.
  PointCloud cloud = make_scene("cube", 400'000);
  sort_if_incoherent(cloud);
  CpuRenderer r(2);
  std::string err;
  ASSERT_TRUE(r.set_cloud(cloud, &err)) << err;
  RenderSettings rs;
  rs.width = 320;
  rs.height = 180;
  rs.background = kBg;
  Camera seed = scene_camera("cube", cloud);
  const Image img = render(r, seed, rs);
  EXPECT_GT(count_drawn(img), 100u);
  EXPECT_GT(r.culled_batches(), r.boxes().size() * 3 / 4)
      << r.culled_batches() << " of " << r.boxes().size();
}

TEST(Culling, OccludedBoxesCannotChangeAnyPixel) {
  // Random visibility buffers (each pixel's depth between half and 1.1 times the distance to the
  // boxes, a few pixels and a few whole rows empty), their Hi-Z (build_hiz()), and random boxes,
  // cameras, image and point sizes: when footprint_occluded() says a box is hidden, every pixel
  // that a corner, the centre or a random float point of the box writes holds a nearer key, so
  // the point loses the depth test whatever its color; every drawn point lies at box_footprint()'s
  // near depth or beyond. Enough boxes come out hidden, and enough not, for both answers to count.
  std::mt19937 rng(23);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::uniform_real_distribution<double> t(0.0, 1.0);
  Bounds world;
  world.extend(glm::dvec3(-10.0));
  world.extend(glm::dvec3(10.0));
  int hidden = 0, shown = 0, hidden_points = 0;
  for (int i = 0; i < 400; ++i) {
    Camera cam = test::random_camera(rng, world);
    cam.position *= 4.0;
    cam.look_at(glm::dvec3(0.0));
    const double dist = glm::length(cam.position);
    const int w = 40 + int(t(rng) * 400), h = 30 + int(t(rng) * 300);
    const ProjParams p = cam.params(w, h, glm::dvec3(0.0), 1 + i % 4);
    std::vector<uint64_t> keys(size_t(w) * size_t(h));
    const int empty_row = i % 5 == 0 ? int(t(rng) * h) : -1;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        keys[size_t(y) * w + x] =
            y == empty_row || t(rng) < 1e-4
                ? kEmptyKey
                : pack_key(float(dist * (0.5 + 0.6 * t(rng))), uint32_t(rng()));
    HizView hiz;
    hiz.width = w;
    hiz.height = h;
    std::vector<uint32_t> words(hiz.total_words());
    build_hiz(keys.data(), w, h, words.data());
    hiz.words = words.data();
    for (int j = 0; j < 50; ++j) {
      PointBox b;
      for (int a = 0; a < 3; ++a) {
        b.lo[a] = u(rng) * 10.0f;
        b.hi[a] = b.lo[a] + (u(rng) + 1.0f) * (j % 3 == 0 ? 0.05f : 1.0f);
      }
      const double lo[3] = {b.lo[0], b.lo[1], b.lo[2]}, hi[3] = {b.hi[0], b.hi[1], b.hi[2]};
      const BoxFootprint f = box_footprint(p, lo, hi);
      const bool occluded = footprint_occluded(f, hiz);
      (occluded ? hidden : shown)++;
      for (int k = 0; k < 60; ++k) {
        float x, y, z;
        test::sample_point_box(b, k, rng, x, y, z);
        int ix, iy;
        uint64_t key;
        if (!project_to_pixel(p, x, y, z, 0, ix, iy, key)) continue;
        ASSERT_GE(double(key_depth(key)), f.near_depth) << "box " << i << "." << j;
        if (!occluded) continue;
        ++hidden_points;
        int x0, y0, x1, y1;
        splat_rect(p, ix, iy, x0, y0, x1, y1);
        for (int yy = y0; yy < y1; ++yy)
          for (int xx = x0; xx < x1; ++xx)
            ASSERT_LT(key_depth(keys[size_t(yy) * w + xx]), key_depth(key))
                << "box " << i << "." << j << ", point " << k << " at (" << xx << ", " << yy
                << ") would draw";
      }
    }
  }
  EXPECT_GT(hidden, 1'000);
  EXPECT_GT(shown, 2'000);
  EXPECT_GT(hidden_points, 50'000);
  // No Hi-Z, or an empty footprint: never hidden.
  BoxFootprint f;
  f.near_depth = 1e30;
  EXPECT_FALSE(footprint_occluded(f, HizView{}));
}

TEST(Culling, HizOfOccupiedTilesEqualsTheHizOfEveryKey) {
  // build_hiz() with occupancy flags (which skips the Hi-Z tiles whose flags are all 0) gives the
  // same words as without them and as a plain per-pixel maximum, for images that are not a whole
  // number of tiles, occupancy tiles of several sizes (flags also set over empty tiles), and any
  // thread count: key buffers with empty regions, single empty pixels and keys of any depth.
  std::mt19937 rng(31);
  std::uniform_real_distribution<double> t(0.0, 1.0);
  int skipped_tiles = 0;
  for (int i = 0; i < 60; ++i) {
    const int w = 1 + int(t(rng) * 300), h = 1 + int(t(rng) * 200);
    std::vector<uint64_t> keys(size_t(w) * size_t(h), kEmptyKey);
    // Filled rectangles of random depths, a few empty pixels inside them.
    for (int r = 0; r < 1 + i % 6; ++r) {
      const int x0 = int(t(rng) * w), y0 = int(t(rng) * h);
      const int x1 = std::min(w, x0 + 1 + int(t(rng) * w / 2));
      const int y1 = std::min(h, y0 + 1 + int(t(rng) * h / 2));
      for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x)
          keys[size_t(y) * w + x] =
              t(rng) < 1e-3 ? kEmptyKey : pack_key(float(1.0 + 100.0 * t(rng)), uint32_t(rng()));
    }
    HizView v;
    v.width = w;
    v.height = h;
    // The reference: every pixel's depth word into both levels.
    std::vector<uint32_t> want(v.total_words(), 0u);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const uint32_t d = uint32_t(keys[size_t(y) * w + x] >> 32);
        uint32_t& w0 = want[size_t(y / kHizTile) * v.tiles_x(0) + size_t(x / kHizTile)];
        uint32_t& w1 =
            want[v.level_words(0) + size_t(y / kHizTile1) * v.tiles_x(1) + size_t(x / kHizTile1)];
        w0 = std::max(w0, d);
        w1 = std::max(w1, d);
      }
    for (int y = 0; y < v.tiles_y(0); ++y)
      for (int x = 0; x < v.tiles_x(0); ++x)
        skipped_tiles += want[size_t(y) * v.tiles_x(0) + x] == 0xffffffffu;
    std::vector<uint32_t> words(v.total_words(), 0x12345678u);
    build_hiz(keys.data(), w, h, words.data(), {}, 1 + unsigned(i % 3));
    EXPECT_EQ(words, want) << w << "x" << h << ", no flags";
    for (const int tile : {kTile, 4, 5, 16, 32}) {
      HizOccupancy occ;
      occ.tile = tile;
      occ.tiles_x = (w + tile - 1) / tile;
      occ.tiles_y = (h + tile - 1) / tile;
      std::vector<uint8_t> flags(size_t(occ.tiles_x) * size_t(occ.tiles_y), 0);
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
          if (keys[size_t(y) * w + x] != kEmptyKey)
            flags[size_t(y / tile) * occ.tiles_x + x / tile] = 1;
      for (uint8_t& f : flags) f |= t(rng) < 0.05;  // a flag over an empty tile costs a read only
      occ.flags = flags.data();
      std::fill(words.begin(), words.end(), 0x12345678u);
      build_hiz(keys.data(), w, h, words.data(), occ, 1 + unsigned(i % 4));
      EXPECT_EQ(words, want) << w << "x" << h << ", occupancy tiles of " << tile;
    }
  }
  EXPECT_GT(skipped_tiles, 1000) << "empty tiles to skip";
}

}  // namespace
}  // namespace pr
