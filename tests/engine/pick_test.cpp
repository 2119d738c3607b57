// Picking (engine/pick.h): the point pick_point() names at a pixel is the one whose key the CPU
// renderer's frame kept there (its depth and color are the pixel's), over scenes, random cameras,
// point sizes 1 - 3, subsets and compact positions; known points of a synthetic cloud with a UTM
// origin come back with their coordinates in double; ties go to the lowest index; the radius finds
// the nearest drawn pixel; distances in double.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <memory>
#include <random>

#include "engine/cpu_renderer.h"
#include "engine/pick.h"
#include "engine/scenes.h"
#include "random_camera.h"
#include "render_test_util.h"

namespace pr {
namespace {

TEST(Pick, NamesThePointWhoseKeyWonThePixel) {
  std::mt19937 rng(21);
  int hits = 0;
  for (const char* scene : {"terrain", "galaxy", "cube"}) {
    const PointCloud cloud = make_scene(scene, 60000, 4);
    for (const bool compact : {false, true}) {
      CpuRenderer r(2);
      RenderOptions o;
      o.compact = compact;
      r.set_options(o);
      ASSERT_TRUE(r.set_cloud(cloud, nullptr));
      for (int it = 0; it < 8; ++it) {
        const Camera cam =
            it == 0 ? scene_camera(scene, cloud) : test::random_camera(rng, cloud.local_bounds());
        RenderSettings rs;
        rs.width = 90;
        rs.height = 70;
        rs.point_size = 1 + it % 3;
        rs.want_depth = true;
        rs.background = test::kBg;
        if (it % 4 == 3) rs.point_count = 25000;
        const Image img = test::render(r, cam, rs);
        for (int k = 0; k < 12; ++k) {
          const int x = int(rng() % 90), y = int(rng() % 70);
          const PickResult p =
              pick_point(cloud, compact ? &r.compact() : nullptr, cam, rs, x, y, 0);
          const float d = img.depth[size_t(y) * 90 + size_t(x)];
          ASSERT_EQ(p.hit, !std::isinf(d)) << scene << " " << it << " " << x << "," << y;
          if (!p.hit) continue;
          ++hits;
          EXPECT_EQ(p.x, x);
          EXPECT_EQ(p.y, y);
          EXPECT_EQ(p.depth, d);
          EXPECT_EQ(cloud.colors[p.index] | kOpaqueAlpha, img.at(x, y));
          // The answer does not depend on the threads.
          const PickResult q =
              pick_point(cloud, compact ? &r.compact() : nullptr, cam, rs, x, y, 0, 1);
          EXPECT_EQ(q.index, p.index);
        }
        // With the batch boxes (float positions), within a radius too: the same answers.
        PodVector<PointBox> boxes;
        compute_point_boxes(cloud.positions.data(), cloud.size(), &boxes);
        for (int k = 0; k < 12; ++k) {
          const int x = int(rng() % 90), y = int(rng() % 70), radius = k % 3 * 2;
          const CompactCloud* c = compact ? &r.compact() : nullptr;
          const PickResult a = pick_point(cloud, c, cam, rs, x, y, radius);
          const PickResult b = pick_point(cloud, c, cam, rs, x, y, radius, 0, &boxes);
          EXPECT_EQ(a.hit, b.hit) << scene << " " << it << " " << x << "," << y;
          EXPECT_EQ(a.index, b.index);
          EXPECT_EQ(a.x, b.x);
          EXPECT_EQ(a.y, b.y);
        }
      }
    }
  }
  EXPECT_GT(hits, 50);
}

/// A grid of points far from 0 (a UTM origin), one a pixel, seen straight on.
PointCloud grid_cloud() {
  PointCloud c;
  c.origin = {512345.25, 4123456.5, 101.0};
  for (int j = 0; j < 20; ++j)
    for (int i = 0; i < 20; ++i) {
      c.positions.push_back(Float3{float(i) * 0.5f, float(j) * 0.5f, 0.25f * float(i % 3)});
      c.colors.push_back(rgba(uint8_t(10 * i), uint8_t(10 * j), 77));
      c.intensity.push_back(float(i * 100 + j));
      c.classification.push_back(uint8_t(2 + (i + j) % 5));
    }
  return c;
}

// A pick on another thread: a cancelled pass names no point, and the CPU renderer's compact form
// it holds outlives the renderer's next cloud.
TEST(Pick, CancelledPassNamesNothingAndHeldCompactFormOutlivesTheNextCloud) {
  const PointCloud cloud = make_scene("terrain", 50000, 4);
  CpuRenderer r(2);
  RenderOptions o;
  o.compact = true;
  r.set_options(o);
  ASSERT_TRUE(r.set_cloud(cloud, nullptr));
  const Camera cam = scene_camera("terrain", cloud);
  RenderSettings rs;
  rs.width = 120;
  rs.height = 80;
  const std::shared_ptr<const CompactCloud> held = r.shared_compact();
  std::atomic<bool> cancel{false};
  const PickResult plain = pick_point(cloud, held.get(), cam, rs, 60, 40, 6);
  ASSERT_TRUE(plain.hit);
  const PickResult running = pick_point(cloud, held.get(), cam, rs, 60, 40, 6, 2, nullptr, &cancel);
  EXPECT_TRUE(running.hit);
  EXPECT_EQ(running.index, plain.index);
  cancel = true;
  EXPECT_FALSE(pick_point(cloud, held.get(), cam, rs, 60, 40, 6, 2, nullptr, &cancel).hit);
  // The renderer takes another cloud; the pick's compact form is still the first cloud's.
  const PointCloud other = make_scene("cube", 1000, 4);
  ASSERT_TRUE(r.set_cloud(other, nullptr));
  EXPECT_EQ(r.compact().size(), other.size());
  ASSERT_EQ(held->size(), cloud.size());
  const PickResult again = pick_point(cloud, held.get(), cam, rs, 60, 40, 6);
  EXPECT_EQ(again.index, plain.index);
}

TEST(Pick, KnownPointsComeBackInDouble) {
  const PointCloud c = grid_cloud();
  Camera cam;  // y-up frame, looking along +z at the grid from below
  cam.position = c.origin + glm::dvec3(4.75, 4.75, -20.0);
  cam.focus = 4.0;
  RenderSettings rs;
  rs.width = 200;
  rs.height = 200;
  const ProjParams p = cam.params(rs.width, rs.height, c.origin);
  int checked = 0;
  for (size_t i = 0; i < c.size(); i += 7) {
    int ix, iy;
    uint64_t key;
    ASSERT_TRUE(project_to_pixel(p, c.positions[i].x, c.positions[i].y, c.positions[i].z,
                                 c.colors[i], ix, iy, key));
    const PickResult r = pick_point(c, nullptr, cam, rs, ix, iy, 0);
    ASSERT_TRUE(r.hit);
    EXPECT_EQ(r.index, i);
    EXPECT_EQ(r.world, c.origin + glm::dvec3(c.positions[i].x, c.positions[i].y, c.positions[i].z));
    EXPECT_TRUE(r.has_intensity);
    EXPECT_EQ(r.intensity, c.intensity[i]);
    EXPECT_TRUE(r.has_class);
    EXPECT_EQ(r.classification, c.classification[i]);
    ++checked;
  }
  EXPECT_GT(checked, 50);
  // An empty pixel: none at radius 0, the nearest drawn pixel within a radius.
  const PickResult none = pick_point(c, nullptr, cam, rs, 2, 2, 0);
  EXPECT_FALSE(none.hit);
  EXPECT_EQ(pick_line(none), "pick none");
  int ix, iy;
  uint64_t key;
  ASSERT_TRUE(project_to_pixel(p, c.positions[0].x, c.positions[0].y, c.positions[0].z, c.colors[0],
                               ix, iy, key));
  const PickResult near = pick_point(c, nullptr, cam, rs, ix - 2, iy + 1, 3);
  ASSERT_TRUE(near.hit);
  EXPECT_EQ(near.index, 0u);
  EXPECT_FALSE(pick_point(c, nullptr, cam, rs, ix - 3, iy + 3, 3).hit);
  // The line scripts read.
  const PickResult first = pick_point(c, nullptr, cam, rs, ix, iy, 0);
  EXPECT_EQ(pick_line(first),
            "pick x=512345.250000 y=4123456.500000 z=101.000000 intensity=0 class=2 index=0");
}

TEST(Pick, EqualKeysGoToTheLowestIndex) {
  PointCloud c;
  for (int k = 0; k < 5; ++k) {
    c.positions.push_back(Float3{0.0f, 0.0f, 5.0f});
    c.colors.push_back(rgba(1, 2, 3));
  }
  c.positions.push_back(Float3{0.0f, 0.0f, 6.0f});  // behind them
  c.colors.push_back(rgba(0, 0, 0));
  Camera cam;
  cam.position = {0.0, 0.0, 0.0};
  RenderSettings rs;
  rs.width = 11;
  rs.height = 11;
  const PickResult r = pick_point(c, nullptr, cam, rs, 5, 5, 0);
  ASSERT_TRUE(r.hit);
  EXPECT_EQ(r.index, 0u);
  EXPECT_FALSE(r.has_intensity);
  EXPECT_NE(pick_line(r).find("intensity=none class=none"), std::string::npos);
}

TEST(Pick, MeasuresInDouble) {
  const glm::dvec3 a(512000.125, 4100000.25, 100.0), b(512003.125, 4100004.25, 112.0);
  const Measure z = measure(a, b, UpAxis::kZ);
  EXPECT_DOUBLE_EQ(z.horizontal, 5.0);
  EXPECT_DOUBLE_EQ(z.height, 12.0);
  EXPECT_DOUBLE_EQ(z.distance, 13.0);
  const Measure y = measure(a, b, UpAxis::kY);
  EXPECT_DOUBLE_EQ(y.height, 4.0);
  EXPECT_DOUBLE_EQ(y.horizontal, std::sqrt(9.0 + 144.0));
  EXPECT_DOUBLE_EQ(y.distance, std::sqrt(9.0 + 16.0 + 144.0));
}

}  // namespace
}  // namespace pr

namespace pr {
namespace {

TEST(Pick, AttributesNameTheClassAndListWhatTheCloudHas) {
  PointCloud c;
  c.positions = {Float3{0, 0, 0}, Float3{1, 0, 0}};
  c.colors = {rgba(10, 20, 30), rgba(1, 2, 3)};
  EXPECT_EQ(point_attributes(c, 1),
            (std::vector<std::pair<std::string, std::string>>{{"rgb", "1 2 3"}}));
  EXPECT_TRUE(point_attributes(c, 2).empty());
  // Files without colors: their points are drawn white, and the panel says so.
  EXPECT_EQ(point_attributes(c, 1, false),
            (std::vector<std::pair<std::string, std::string>>{{"rgb", "none"}}));
  c.intensity = {0.5f, 1234.0f};
  c.classification = {2, 6};
  c.returns = {pack_returns(1, 3), pack_returns(2, 2)};
  c.point_source = {7, 65535};
  c.gps_time = {0.25, 1.0e9 + 0.125};
  c.fields.push_back(ScalarField{"Amplitude", {}});
  c.fields.back().values = {3.5f, -2.0f};
  // A color mode shows: the file's colors are still the ones listed.
  c.file_colors = c.colors;
  c.colors = {rgba(0, 0, 0), rgba(0, 0, 0)};
  const std::vector<std::pair<std::string, std::string>> want = {
      {"rgb", "1 2 3"},     {"intensity", "1234"},     {"class", "6 building"},
      {"return", "2 of 2"}, {"point source", "65535"}, {"GPS time", "1000000000.125000"},
      {"Amplitude", "-2"}};
  EXPECT_EQ(point_attributes(c, 1), want);
  EXPECT_EQ(point_attributes(c, 0)[2].second, "2 ground");
}

}  // namespace
}  // namespace pr
