// The projection against the formula of the NumPy/CuPy projection the project grew from, near-plane
// culling, pixel placement and edges.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "engine/camera.h"
#include "engine/projection.h"

namespace pr {
namespace {

/// That projection's render_all_verts for one vertex, in double: data = unit_vec . (v - shift);
/// data[:2] *= focus / abs(data[2]).
void seed_project(const glm::dmat3& unit_vec_rows, const glm::dvec3& shift, double focus,
                  const glm::dvec3& v, double out[3]) {
  const glm::dvec3 d = v - shift;
  double c[3];
  for (int r = 0; r < 3; ++r)
    c[r] = unit_vec_rows[0][r] * d.x + unit_vec_rows[1][r] * d.y + unit_vec_rows[2][r] * d.z;
  out[0] = c[0] * focus / std::abs(c[2]);
  out[1] = c[1] * focus / std::abs(c[2]);
  out[2] = c[2];
}

TEST(Projection, MatchesSeedFormulaForPointsInFront) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> u(-50.0, 50.0), ang(-1.2, 1.2);
  int checked = 0;
  for (int cam_i = 0; cam_i < 20; ++cam_i) {
    Camera cam;
    if (cam_i > 0) {  // cam 0 is its own: (0,0,10), identity, focus 5
      cam.position = {u(rng), u(rng), u(rng)};
      cam.yaw = ang(rng) * 2.5;
      cam.pitch = ang(rng);
      cam.focus = 1.0 + std::abs(u(rng)) * 0.1;
    }
    const ProjParams p = cam.params(1920, 1080, glm::dvec3(0.0));
    const glm::dmat3 rows = cam.rows();  // glm column-major: rows[c][r]
    for (int i = 0; i < 5000; ++i) {
      const glm::dvec3 v{float(u(rng)), float(u(rng)), float(u(rng))};
      double ref[3];
      seed_project(rows, cam.position, cam.focus, v, ref);
      if (ref[2] < 0.5) continue;  // it mirrors points behind; compare those in front
      const Projected q = project(p, float(v.x), float(v.y), float(v.z));
      ASSERT_TRUE(q.visible);
      // float32 tolerance relative to the magnitudes involved
      const double scale = 1.0 + std::abs(ref[0]) + std::abs(ref[1]);
      EXPECT_NEAR(q.u, ref[0], 2e-5 * scale * (100.0 / ref[2] + 1.0));
      EXPECT_NEAR(q.w, ref[1], 2e-5 * scale * (100.0 / ref[2] + 1.0));
      EXPECT_NEAR(q.depth, ref[2], 1e-4 * (1.0 + std::abs(ref[2])));
      ++checked;
    }
  }
  EXPECT_GT(checked, 20000);
}

TEST(Projection, SeedCameraIsIdentity) {
  Camera cam;  // defaults are the NumPy projection's camera
  const ProjParams p = cam.params(100, 100, glm::dvec3(0.0));
  const float id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(p.r[i], id[i], 1e-7);
  EXPECT_EQ(p.shift[2], 10.0f);
  EXPECT_EQ(p.focus, 5.0f);
}

TEST(Projection, CullsAtAndBehindNearPlane) {
  Camera cam;
  cam.position = {0, 0, 0};
  cam.near_z = 0.5;
  const ProjParams p = cam.params(64, 64, glm::dvec3(0.0));
  EXPECT_FALSE(project(p, 0, 0, -1).visible);  // behind: the NumPy projection would mirror it
  EXPECT_FALSE(project(p, 0, 0, 0).visible);
  EXPECT_FALSE(project(p, 0, 0, 0.5f).visible);  // exactly on the near plane
  EXPECT_TRUE(project(p, 0, 0, 0.5001f).visible);
  int ix, iy;
  uint64_t key;
  EXPECT_FALSE(project_to_pixel(p, 0.1f, 0.1f, -3.0f, 0, ix, iy, key));
}

TEST(Projection, NanAndInfinityAreNotVisible) {
  Camera cam;
  const ProjParams p = cam.params(64, 64, glm::dvec3(0.0));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  int ix, iy;
  uint64_t key;
  EXPECT_FALSE(project_to_pixel(p, nan, 0, 20, 0, ix, iy, key));
  EXPECT_FALSE(project_to_pixel(p, 0, nan, 20, 0, ix, iy, key));
  EXPECT_FALSE(project_to_pixel(p, 0, 0, nan, 0, ix, iy, key));
  EXPECT_FALSE(project_to_pixel(p, inf, 0, 20, 0, ix, iy, key));
  EXPECT_FALSE(project_to_pixel(p, 0, 0, inf, 0, ix, iy, key));
  EXPECT_FALSE(project_to_pixel(p, 0, -inf, 20, 0, ix, iy, key));
}

TEST(Projection, HandPlacedPixels) {
  Camera cam;
  cam.position = {0, 0, 0};
  cam.focus = 2.0;
  const ProjParams p = cam.params(200, 100, glm::dvec3(0.0));  // scale 50 px per unit
  int ix, iy;
  uint64_t key;
  // On the axis: the image centre (100, 50).
  ASSERT_TRUE(project_to_pixel(p, 0, 0, 10, 7, ix, iy, key));
  EXPECT_EQ(ix, 100);
  EXPECT_EQ(iy, 50);
  EXPECT_EQ(key_color(key), 7u | kOpaqueAlpha);  // points are drawn opaque
  EXPECT_EQ(key_depth(key), 10.0f);
  // x = 2.5 at z = 10: u = 2.5 * 2 / 10 = 0.5 -> px = 0.5 * 50 + 100 = 125.
  ASSERT_TRUE(project_to_pixel(p, 2.5f, 0, 10, 0, ix, iy, key));
  EXPECT_EQ(ix, 125);
  // y up: y = 2.5 -> w = 0.5 -> py = 50 - 25 = 25.
  ASSERT_TRUE(project_to_pixel(p, 0, 2.5f, 10, 0, ix, iy, key));
  EXPECT_EQ(iy, 25);
  EXPECT_EQ(ix, 100);
}

TEST(Projection, PointsExactlyOnImageEdges) {
  Camera cam;
  cam.position = {0, 0, 0};
  cam.focus = 1.0;
  // 8x4 image: scale 2 px/unit, centre (4, 2); u in [-2, 2), w in (-1, 1].
  const ProjParams p = cam.params(8, 4, glm::dvec3(0.0));
  int ix, iy;
  uint64_t key;
  // Left edge u = -2 (px = 0): inside, pixel 0.
  ASSERT_TRUE(project_to_pixel(p, -2.0f, 0, 1.0f, 0, ix, iy, key));
  EXPECT_EQ(ix, 0);
  // Right edge u = 2 (px = 8 = width): outside.
  EXPECT_FALSE(project_to_pixel(p, 2.0f, 0, 1.0f, 0, ix, iy, key));
  // Top edge w = 1 (py = 0): inside, row 0.
  ASSERT_TRUE(project_to_pixel(p, 0, 1.0f, 1.0f, 0, ix, iy, key));
  EXPECT_EQ(iy, 0);
  // Bottom edge w = -1 (py = 4 = height): outside.
  EXPECT_FALSE(project_to_pixel(p, 0, -1.0f, 1.0f, 0, ix, iy, key));
  // Just inside the bottom-right corner.
  ASSERT_TRUE(project_to_pixel(p, 1.99f, -0.99f, 1.0f, 0, ix, iy, key));
  EXPECT_EQ(ix, 7);
  EXPECT_EQ(iy, 3);
}

TEST(Projection, KeysOrderByDepthThenColor) {
  EXPECT_LT(pack_key(1.0f, 100), pack_key(2.0f, 0));
  EXPECT_LT(pack_key(1.0f, 3), pack_key(1.0f, 4));
  EXPECT_LT(pack_key(1e-6f, 0xfffffffe), pack_key(1e30f, 0));
  EXPECT_LT(pack_key(3e38f, 0xfffffffe), kEmptyKey);
  // The alpha a color carries is not drawn: every key's color is opaque, so colors that differ
  // only in alpha tie, and the GPU, which stores 3 bytes of color, draws the CPU's keys.
  EXPECT_EQ(pack_key(1.0f, 0x00123456u), pack_key(1.0f, 0x7f123456u));
  EXPECT_EQ(key_color(pack_key(1.0f, 0x00123456u)), 0xff123456u);
  EXPECT_LT(pack_key(1.0f, 0xff123455u), pack_key(1.0f, 0x00123456u));
}

TEST(Projection, SplatRectClipsToImage) {
  Camera cam;
  ProjParams p = cam.params(10, 10, glm::dvec3(0.0), 3);
  int x0, y0, x1, y1;
  splat_rect(p, 5, 5, x0, y0, x1, y1);
  EXPECT_EQ(x0, 4);
  EXPECT_EQ(x1, 7);
  splat_rect(p, 0, 9, x0, y0, x1, y1);
  EXPECT_EQ(x0, 0);
  EXPECT_EQ(x1, 2);
  EXPECT_EQ(y0, 8);
  EXPECT_EQ(y1, 10);
}

TEST(Projection, SubsetIsEvenAndInRange) {
  const uint64_t total = 1000003, count = 1000;
  const uint64_t step = subset_step(total, count);
  uint64_t prev = 0;
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t s = subset_index(i, step);
    ASSERT_LT(s, total);
    if (i > 0) {
      EXPECT_GE(s - prev, 999u);
      EXPECT_LE(s - prev, 1001u);
    }
    prev = s;
  }
  EXPECT_EQ(subset_index(12345, subset_step(total, total)), 12345u);
}

}  // namespace
}  // namespace pr
