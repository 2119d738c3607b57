// The linear projection of compact batches (engine/compact_linear.h): a batch with a map puts every
// point within kCompactLinearError (plus the map's rounding) of its exact projection, at the exact
// depth up to rounding; a batch inside the view draws every point through it; tiles draw the whole
// image's pixels; and the CPU renderer's compact frames, which use the maps, stay within a few
// pixels of the exact projection of the decoded positions.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "engine/compact.h"
#include "engine/compact_linear.h"
#include "engine/compact_testing.h"
#include "engine/cpu_renderer.h"
#include "engine/scenes.h"
#include "random_camera.h"
#include "render_test_util.h"

namespace pr {
namespace {

/// The exact projection of (x, y, z) in double: the whole image's px, py and the depth.
void exact(const ProjParams& p, float x, float y, float z, double& px, double& py, double& d) {
  const double v[3] = {double(x) - double(p.shift[0]), double(y) - double(p.shift[1]),
                       double(z) - double(p.shift[2])};
  double c[3];
  for (int i = 0; i < 3; ++i)
    c[i] =
        double(p.r[3 * i]) * v[0] + double(p.r[3 * i + 1]) * v[1] + double(p.r[3 * i + 2]) * v[2];
  const double f = p.ortho > 0.0f ? double(p.ortho) : double(p.focus) / c[2];
  px = c[0] * f * double(p.scale) + double(p.cx);
  py = double(p.cy) - c[1] * f * double(p.scale);
  d = c[2];
}

/// The largest magnitude the map's sums reach (its rounding is a few float epsilons of it).
double map_magnitude(const CompactLinear& l, int row) {
  double m = std::abs(double(l.b[row]));
  for (int j = 0; j < 3; ++j) m += std::abs(double(l.a[3 * row + j])) * double(kCompactMaxQ);
  return m;
}

/// Batch `i` of the tests: a box in front of `cam` at a random distance, from a hundredth to
/// twice its distance wide, stretched or flattened per axis.
CompactBatch random_batch(const Camera& cam, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double dist = cam.near_z + 0.5 + u(rng) * 50.0;
  const glm::dvec3 centre = cam.position + cam.forward() * dist +
                            glm::dvec3(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5) * dist;
  const double size = dist * std::pow(10.0, -2.0 + 2.3 * u(rng));
  CompactBatch b;
  for (int a = 0; a < 3; ++a) {
    const double ext = size * (0.05 + u(rng));
    b.lo[a] = float(centre[a] - 0.5 * ext);
    b.scale[a] = float(ext / double(kCompactMaxQ));
  }
  return b;
}

TEST(CompactLinear, PointsLandWithinTheBoundOfTheirExactProjection) {
  std::mt19937 rng(91);
  Bounds world;
  world.extend(glm::dvec3(-10.0));
  world.extend(glm::dvec3(10.0));
  std::uniform_int_distribution<uint32_t> q(0, kCompactMaxQ);
  int with = 0, without = 0;
  double worst = 0.0;
  for (int i = 0; i < 4000; ++i) {
    const bool ortho = i % 4 == 3;
    const Camera cam = test::random_camera(rng, world, ortho);
    const ProjParams p = cam.params(1920, 1080, glm::dvec3(0.0));
    const CompactBatch b = random_batch(cam, rng);
    const CompactLinear l = compact_linear(p, b);
    if (!l.ok) {
      ++without;
      EXPECT_FALSE(ortho) << "an orthographic view maps every batch, batch " << i;
      continue;
    }
    ++with;
    for (int k = 0; k < 60; ++k) {
      // The corners, the centre, then random offsets.
      uint32_t s[3];
      for (int a = 0; a < 3; ++a)
        s[a] = k < 8 ? ((k >> a) & 1 ? kCompactMaxQ : 0u) : k == 8 ? 511u : q(rng);
      const uint32_t w = s[0] | (s[1] << 10) | (s[2] << 20);
      float x, y, z;
      ASSERT_TRUE(compact_decode(b, w, x, y, z));
      double ex, ey, ed;
      exact(p, x, y, z, ex, ey, ed);
      float px, py, d;
      compact_linear_eval(l, w, px, py, d);
      // Float positions and their differences from the camera round by a few epsilons of the
      // coordinates' magnitude (`pad`, in world units), the decoder's as the map's; a pixel moves
      // by at most `slope` pixels a unit there.
      double pad = 0.0;
      for (int a = 0; a < 3; ++a)
        pad += 4.8e-7 * (std::abs(double(b.lo[a])) + std::abs(double(p.shift[a])) +
                         double(kCompactMaxQ) * double(b.scale[a]));
      const double F = double(ortho ? p.ortho : p.focus) * double(p.scale);
      const double slope =
          ortho ? F
                : F / ed * (1.0 + (std::abs(ex - double(p.cx)) + std::abs(ey - double(p.cy))) / F);
      const double tol_x = double(kCompactLinearError) + 1e-6 * map_magnitude(l, 0) + pad * slope;
      const double tol_y = double(kCompactLinearError) + 1e-6 * map_magnitude(l, 1) + pad * slope;
      const double tol_d = 1e-6 * (map_magnitude(l, 2) + std::abs(ed)) + pad;
      ASSERT_LE(std::abs(double(px) - ex), tol_x) << "batch " << i << " point " << k;
      ASSERT_LE(std::abs(double(py) - ey), tol_y) << "batch " << i << " point " << k;
      ASSERT_LE(std::abs(double(d) - ed), tol_d) << "batch " << i << " point " << k;
      worst = std::max(worst, std::max(std::abs(double(px) - ex), std::abs(double(py) - ey)));
    }
  }
  // Both kinds of batch, and the maps' points really off the exact ones by a measurable amount.
  EXPECT_GT(with, 1000);
  EXPECT_GT(without, 500);
  EXPECT_GT(worst, 1e-3);
}

TEST(CompactLinear, BatchInsideTheViewDrawsEveryPointAndTilesDrawTheWholeImagesPixels) {
  // compact_box_surely_inside() with a map: every point draws through it (no test fails, so a
  // renderer may skip them), and a tile's pixel is the whole image's less the tile's origin.
  std::mt19937 rng(7);
  Bounds world;
  world.extend(glm::dvec3(-10.0));
  world.extend(glm::dvec3(10.0));
  std::uniform_int_distribution<uint32_t> q(0, kCompactMaxQ);
  int inside = 0;
  for (int i = 0; i < 4000; ++i) {
    Camera cam = test::random_camera(rng, world, i % 4 == 3);
    cam.position *= 2.0;
    cam.look_at(glm::dvec3(0.0));
    const ProjParams p = cam.params(1920, 1080, glm::dvec3(0.0));
    CompactBatch b = random_batch(cam, rng);
    const CompactLinear l = compact_linear(p, b);
    if (!l.ok || !compact_box_surely_inside(p, b)) continue;
    ++inside;
    // The tile of 256 x 256 pixels at (512, 256) of the same image.
    ProjParams t = p;
    t.ox = 512.0f;
    t.oy = 256.0f;
    t.width = 256;
    t.height = 256;
    for (int k = 0; k < 60; ++k) {
      const uint32_t w = q(rng) | (q(rng) << 10) | (q(rng) << 20);
      int ix, iy;
      uint64_t key;
      ASSERT_TRUE(compact_linear_to_pixel(p, l, w, 0u, ix, iy, key)) << "batch " << i;
      float px, py, d;
      compact_linear_eval(l, w, px, py, d);
      EXPECT_EQ(ix, int(std::floor(px)));
      EXPECT_EQ(iy, int(std::floor(py)));
      EXPECT_EQ(uint32_t(key >> 32), float_bits(d));
      int tx, ty;
      uint64_t tkey;
      const bool in_tile = ix >= 512 && ix < 768 && iy >= 256 && iy < 512;
      ASSERT_EQ(compact_linear_to_pixel(t, l, w, 0u, tx, ty, tkey), in_tile) << "batch " << i;
      if (in_tile) {
        EXPECT_EQ(tx, ix - 512);
        EXPECT_EQ(ty, iy - 256);
        EXPECT_EQ(tkey, key);
      }
    }
  }
  EXPECT_GT(inside, 300);
}

TEST(CompactLinear, CpuFramesStayNearTheExactProjectionOfTheDecodedPositions) {
  // The terrain of 2e6 points seen from three times its camera's distance at 640x360 (a part of
  // its batches have a map): the compact frame against the plain renderer's frame of the decoded
  // positions. A map moves a point by at most kCompactLinearError, so only points near a pixel's
  // edge change pixels: few pixels differ.
  const PointCloud cloud = make_scene("terrain", 2'000'000);
  CpuRenderer compact(2);
  compact.set_options(test::compact_options(true, true));
  std::string err;
  ASSERT_TRUE(compact.set_cloud(cloud, &err)) << err;
  const PointCloud decoded = decode_compact(compact.compact(), cloud);
  CpuRenderer plain(2);
  ASSERT_TRUE(plain.set_cloud(decoded, &err)) << err;
  Camera cam = scene_camera("terrain", cloud);
  const glm::dvec3 centre = cloud.world_bounds().center();
  cam.position = centre + (cam.position - centre) * 3.0;
  RenderSettings rs;
  rs.width = 640;
  rs.height = 360;
  rs.background = test::kBg;
  const ProjParams p = cam.params(rs.width, rs.height, cloud.origin);
  size_t mapped = 0;
  for (const CompactBatch& b : compact.compact().batches) mapped += compact_linear(p, b).ok;
  EXPECT_GT(mapped, compact.compact().batches.size() / 20) << "the test needs batches with maps";
  const Image a = test::render(compact, cam, rs);
  const Image r = test::render(plain, cam, rs);
  const size_t drawn = test::count_drawn(r);
  std::string first;
  const size_t diff = test::count_diff(a, r, &first);
  EXPECT_GT(diff, 0u) << "the maps must move some points";
  EXPECT_LT(diff, drawn / 20) << first;
  EXPECT_GT(test::count_drawn(a), drawn - drawn / 100);
}

}  // namespace
}  // namespace pr
