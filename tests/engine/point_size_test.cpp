// Adaptive point size (engine/point_size.h, engine/size_grid.h): the density grid (sparse cells
// have a larger spacing than dense ones, whatever the order of the points), the size function
// (projected spacing, rounded and clamped), and the CPU renderer's adaptive frames (a sparse
// close-up covers more pixels, a far view of a dense cloud keeps point_size, culling changes
// nothing, the pick names the point whose square covers the pixel).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "engine/cpu_renderer.h"
#include "engine/pick.h"
#include "engine/point_size.h"
#include "engine/size_grid.h"
#include "render_test_util.h"

namespace pr {
namespace {

/// A plane z = 0 of x, y in [0, 640): a lattice of spacing 1 for x < 320 (dense), of spacing 5
/// beyond (sparse), colored by region.
PointCloud two_densities() {
  PointCloud c;
  std::vector<Float3> pts;
  std::vector<uint32_t> colors;
  for (int y = 0; y < 640; ++y)
    for (int x = 0; x < 320; ++x) pts.push_back({float(x) + 0.5f, float(y) + 0.5f, 0.0f});
  colors.assign(pts.size(), rgba(200, 50, 50));
  for (int y = 0; y < 128; ++y)
    for (int x = 0; x < 64; ++x)
      pts.push_back({320.0f + 5.0f * float(x) + 2.5f, 5.0f * float(y) + 2.5f, 0.0f});
  colors.resize(pts.size(), rgba(50, 200, 50));
  c.resize(pts.size());
  std::copy(pts.begin(), pts.end(), c.positions.begin());
  std::copy(colors.begin(), colors.end(), c.colors.begin());
  return c;
}

float spacing_at(const SizeGridTable& t, float x, float y, float z) {
  return t.spacing[size_t(grid_cell(t.shape, x, y, z))];
}

TEST(SizeGrid, SparseCellsHaveTheLargerSpacing) {
  const PointCloud c = two_densities();
  SizeGridTable t;
  build_size_grid(c, &t, 2);
  EXPECT_EQ(t.points, c.size());
  EXPECT_EQ(t.shape.dims[0], kSizeGridCells);
  EXPECT_EQ(t.shape.dims[1], kSizeGridCells);
  EXPECT_EQ(t.shape.dims[2], 1);  // a flat cloud: one layer of cubic cells
  // About 100 points of spacing 1 in a cell of side 10: spacing about 1.
  EXPECT_NEAR(spacing_at(t, 100.0f, 100.0f, 0.0f), 1.0f, 0.15f);
  EXPECT_NEAR(spacing_at(t, 10.0f, 600.0f, 0.0f), 1.0f, 0.15f);
  // A lattice of 5: 1 to 4 points a cell, spacing 5 to 10.
  const float sparse = spacing_at(t, 500.0f, 300.0f, 0.0f);
  EXPECT_GE(sparse, 4.5f);
  EXPECT_LE(sparse, 10.5f);
}

TEST(SizeGrid, SameTableWhateverTheOrderAndThreads) {
  PointCloud c = two_densities();
  SizeGridTable a, b;
  build_size_grid(c, &a, 1);
  std::mt19937 rng(7);
  std::shuffle(c.positions.begin(), c.positions.end(), rng);
  build_size_grid(c, &b, 3);
  EXPECT_EQ(a.spacing, b.spacing);
  EXPECT_EQ(a.shape.inv_cell, b.shape.inv_cell);
}

TEST(SizeGrid, DegenerateCloudsGetOneCellOfSpacingZero) {
  PointCloud c;
  c.resize(3);
  for (size_t i = 0; i < 3; ++i) c.positions[i] = {1.0f, 2.0f, 3.0f}, c.colors[i] = 0;
  SizeGridTable t;
  build_size_grid(c, &t);
  ASSERT_EQ(t.spacing.size(), 1u);
  EXPECT_EQ(t.spacing[0], 0.0f);
  c.positions[0] = c.positions[1] = c.positions[2] = {NAN, 0.0f, 0.0f};  // no finite point
  build_size_grid(c, &t);
  ASSERT_EQ(t.spacing.size(), 1u);
  EXPECT_EQ(t.spacing[0], 0.0f);
}

TEST(SizeGrid, MadeAgainOnceAnEighthOfThePointsChanged) {
  SizeGridAge age;
  EXPECT_TRUE(age.stale(800));  // never made
  age.remade();
  EXPECT_FALSE(age.stale(800));
  age.points_changed(99);
  EXPECT_FALSE(age.stale(800));
  age.points_changed(1);  // 100 of 800
  EXPECT_TRUE(age.stale(800));
  age.remade();
  EXPECT_FALSE(age.stale(800));
  age.new_cloud();
  EXPECT_TRUE(age.stale(800));
}

/// A one-cell grid of spacing `s` and the projection of a point at depth 10: focus 5, 100 pixels
/// per image-plane unit, so a world unit is 50 pixels there.
struct OneCell {
  float table[1];
  SizeGrid g;
  ProjParams p{};
  explicit OneCell(float s) : table{s} {
    g.dims[0] = g.dims[1] = g.dims[2] = 1;
    g.spacing = table;
    g.min_size = 2;
    p.focus = 5.0f;
    p.scale = 100.0f;
    p.point_size = 8;  // the largest size
  }
  int size() const { return adaptive_point_size(p, g, 0.0f, 0.0f, 0.0f, 10.0f); }
};

TEST(AdaptivePointSize, ProjectedSpacingRoundedAndClamped) {
  EXPECT_EQ(OneCell(0.01f).size(), 2);  // 0.5 px: the smallest size
  EXPECT_EQ(OneCell(0.1f).size(), 5);   // 5 px
  EXPECT_EQ(OneCell(0.11f).size(), 6);  // 5.5 px rounds up
  EXPECT_EQ(OneCell(1.0f).size(), 8);   // 50 px: the largest
  EXPECT_EQ(OneCell(0.0f).size(), 2);   // an empty cell
  EXPECT_EQ(OneCell(NAN).size(), 8);
  OneCell twice(0.05f);
  twice.g.factor = 2.0f;  // a subset of a quarter of the points
  EXPECT_EQ(twice.size(), 5);
  OneCell ortho(0.3f);  // orthographic: 0.1 image-plane units a world unit at any depth
  ortho.p.ortho = 0.1f;
  EXPECT_EQ(ortho.size(), 3);
  EXPECT_EQ(point_size_of(ortho.p, nullptr, 0.0f, 0.0f, 0.0f, 10.0f), 8);
}

TEST(AdaptivePointSize, FrameGridFromSettings) {
  SizeGridTable t;
  build_size_grid(two_densities(), &t);
  RenderSettings s;
  s.point_size = 2;
  s.max_point_size = 6;
  s.adaptive_scale = 1.5f;
  EXPECT_FALSE(adaptive_size_on(s));
  EXPECT_EQ(frame_point_size(s), 2);
  s.adaptive_size = true;
  EXPECT_TRUE(adaptive_size_on(s));
  EXPECT_EQ(frame_point_size(s), 6);
  const SizeGrid g = frame_size_grid(t, t.spacing.data(), s, 400, 100);
  EXPECT_EQ(g.min_size, 2);
  EXPECT_FLOAT_EQ(g.factor, 3.0f);  // 1.5 * sqrt(400 / 100)
  EXPECT_TRUE(g.active());
  s.max_point_size = 2;  // no room above point_size: off
  EXPECT_FALSE(adaptive_size_on(s));
}

/// A camera at `height` above (x, y) of the plane, looking straight down.
Camera above(double x, double y, double height) {
  Camera cam;
  cam.position = {x, y, height};
  cam.look_at({x, y + 1e-3, 0.0});
  return cam;
}

RenderSettings adaptive_settings(bool on) {
  RenderSettings rs;
  rs.width = 160;
  rs.height = 120;
  rs.background = test::kBg;
  rs.adaptive_size = on;
  rs.max_point_size = 12;
  return rs;
}

TEST(CpuAdaptive, SparseCloseUpCoversMorePixels) {
  const PointCloud c = two_densities();
  CpuRenderer r(2);
  ASSERT_TRUE(r.set_cloud(c, nullptr));
  // Over the sparse half: spacing 5 - 10 at 2 pixels a unit, squares of 10 - 12 pixels on a
  // lattice 10 pixels apart.
  const Camera cam = above(480.0, 320.0, 150.0);
  const Image off = test::render(r, cam, adaptive_settings(false));
  const Image on = test::render(r, cam, adaptive_settings(true));
  EXPECT_GT(test::count_drawn(on), 4 * test::count_drawn(off));
  EXPECT_GT(test::count_drawn(on), size_t(160 * 120 / 2));  // the surface nearly closes
  RenderSettings no_room = adaptive_settings(true);
  no_room.max_point_size = 1;
  std::string diff;
  EXPECT_EQ(test::count_diff(test::render(r, cam, no_room), off, &diff), 0u) << diff;
}

TEST(CpuAdaptive, FarViewOfADenseRegionKeepsThePointSize) {
  const PointCloud c = two_densities();
  CpuRenderer r(2);
  ASSERT_TRUE(r.set_cloud(c, nullptr));
  // Spacing about 1 from 500 units: 1 * 5 / 500 * 60 = 0.6 px, which rounds to the smallest
  // size; the view (x 27 - 293) sees none of the sparse half.
  const Camera cam = above(160.0, 320.0, 500.0);
  std::string diff;
  EXPECT_EQ(test::count_diff(test::render(r, cam, adaptive_settings(true)),
                             test::render(r, cam, adaptive_settings(false)), &diff),
            0u)
      << diff;
}

TEST(CpuAdaptive, CullingDrawsTheSameImage) {
  const PointCloud c = two_densities();
  std::mt19937 rng(11);
  Bounds b = c.world_bounds();
  for (int k = 0; k < 6; ++k) {
    const Camera cam = test::random_camera(rng, b, k % 3 == 2);
    RenderSettings rs = adaptive_settings(true);
    rs.point_size = 1 + k % 2;
    CpuRenderer culled(2), plain(2);
    RenderOptions o;
    o.culling = false;
    plain.set_options(o);
    ASSERT_TRUE(culled.set_cloud(c, nullptr));
    ASSERT_TRUE(plain.set_cloud(c, nullptr));
    std::string diff;
    EXPECT_EQ(test::count_diff(test::render(culled, cam, rs), test::render(plain, cam, rs), &diff),
              0u)
        << "camera " << k << ": " << diff;
    // Compact positions (the culling margins of their batch boxes), culled and not.
    CpuRenderer compact(2), compact_plain(2);
    compact.set_options(test::compact_options(true, true));
    RenderOptions co = test::compact_options(true, true);
    co.culling = false;
    compact_plain.set_options(co);
    ASSERT_TRUE(compact.set_cloud(c, nullptr));
    ASSERT_TRUE(compact_plain.set_cloud(c, nullptr));
    EXPECT_EQ(test::count_diff(test::render(compact, cam, rs), test::render(compact_plain, cam, rs),
                               &diff),
              0u)
        << "compact, camera " << k << ": " << diff;
  }
}

TEST(CpuAdaptive, UpdatedPointsMakeTheGridAgain) {
  PointCloud c = two_densities();
  CpuRenderer r(2);
  RenderOptions o;
  o.sort = Toggle::kOff;  // update_points() needs the cloud as given
  r.set_options(o);
  ASSERT_TRUE(r.set_cloud(c, nullptr));
  EXPECT_EQ(r.size_table(), nullptr);             // no adaptive frame yet
  const Camera cam = above(160.0, 320.0, 150.0);  // over the dense half
  const Image before = test::render(r, cam, adaptive_settings(true));
  ASSERT_NE(r.size_table(), nullptr);
  const std::vector<float> dense = r.size_table()->spacing;
  // Every other row of the dense half leaves (a streaming pool's evicted slots): a few points
  // first, which keep the grid, then three quarters of the cloud, which make it again.
  const uint64_t n = 320 * 640;
  for (uint64_t i = 0; i < n; ++i)
    if ((i / 320) % 2) c.positions[i] = {NAN, NAN, NAN};
  std::string err;
  ASSERT_TRUE(r.update_points(c, 0, 1000, &err)) << err;
  test::render(r, cam, adaptive_settings(true));
  EXPECT_EQ(r.size_table()->spacing, dense);
  ASSERT_TRUE(r.update_points(c, 1000, n - 1000, &err)) << err;
  const Image after = test::render(r, cam, adaptive_settings(true));
  EXPECT_GT(spacing_at(*r.size_table(), 100.0f, 100.0f, 0.0f), 1.2f);  // sqrt(2) apart
  EXPECT_NE(before.rgba, after.rgba);
}

TEST(CpuAdaptive, PickNamesThePointWhoseSquareCoversThePixel) {
  const PointCloud c = two_densities();
  CpuRenderer r(2);
  ASSERT_TRUE(r.set_cloud(c, nullptr));
  const Camera cam = above(480.0, 320.0, 150.0);
  const RenderSettings on = adaptive_settings(true);
  const Image img = test::render(r, cam, on);
  // Every drawn pixel names a point of the sparse half's color, also pixels that no point's
  // centre falls in; with the one-pixel frame most of those pixels name none.
  int named = 0, tried = 0, named_off = 0;
  for (int y = 3; y < on.height; y += 17)
    for (int x = 5; x < on.width; x += 13) {
      if (img.rgba[size_t(y) * size_t(on.width) + size_t(x)] == test::kBg) continue;
      ++tried;
      const PickResult a =
          pick_point(c, nullptr, cam, on, x, y, 0, 2, nullptr, nullptr, r.size_table());
      const PickResult b = pick_point(c, nullptr, cam, on, x, y, 0, 2);  // a grid of its own
      named += a.hit && c.colors[a.index] == img.rgba[size_t(y) * size_t(on.width) + size_t(x)];
      EXPECT_EQ(a.hit, b.hit);
      EXPECT_EQ(a.index, b.index);
      named_off += pick_point(c, nullptr, cam, adaptive_settings(false), x, y, 0, 2).hit;
    }
  ASSERT_GT(tried, 20);
  EXPECT_EQ(named, tried);
  EXPECT_LT(named_off, tried / 2);
}

}  // namespace
}  // namespace pr
