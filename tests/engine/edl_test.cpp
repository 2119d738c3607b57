// Eye-dome lighting (engine/edl.h) and the CPU renderer's EDL resolve: the shared exp and log2
// approximations against libm, and EDL images against a reference computed here in double from
// the frame's own keys (rebuilt from a plain frame's colors and depths).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "engine/cpu_renderer.h"
#include "engine/edl.h"
#include "engine/scenes.h"
#include "random_camera.h"
#include "render_test_util.h"

namespace pr {
namespace {

TEST(Edl, Exp2MatchesLibm) {
  for (float y = 0.0f; y > -30.0f; y -= 0.0137f) {
    const double want = std::exp2(double(y));
    EXPECT_NEAR(double(edl_exp2_neg(y)), want, want * 2e-5) << y;
  }
  EXPECT_EQ(edl_exp2_neg(0.0f), 1.0f);
  EXPECT_EQ(edl_exp2_neg(-1.0f), 0.5f);
  EXPECT_EQ(edl_exp2_neg(-200.0f), 0.0f);
  EXPECT_EQ(edl_exp2_neg(-INFINITY), 0.0f);
}

TEST(Edl, Log2IsExactAtPowersOfTwoAndMonotonic) {
  for (int e = -20; e <= 20; ++e) {
    const float d = std::ldexp(1.0f, e);
    EXPECT_EQ(edl_log2_fixed(pack_key(d, 0)), e * (1 << 23));
  }
  int32_t last = edl_log2_fixed(pack_key(0.01f, 0));
  for (float d = 0.011f; d < 1e4f; d *= 1.01f) {
    const int32_t l = edl_log2_fixed(pack_key(d, 0));
    EXPECT_GT(l, last);
    // Mitchell's approximation lies at most 0.087 below log2.
    EXPECT_NEAR(double(l) / 8388608.0, std::log2(double(d)) - 0.043, 0.044);
    last = l;
  }
}

TEST(Edl, NeighboursLieOnTheRadius) {
  const EdlParams e = edl_params(1.0f, 1.4f);
  ASSERT_EQ(e.n, 8);
  for (int i = 0; i < e.n; ++i) {
    EXPECT_LE(std::abs(e.dx[i]), 1);
    EXPECT_LE(std::abs(e.dy[i]), 1);
    EXPECT_TRUE(e.dx[i] != 0 || e.dy[i] != 0);
  }
  const EdlParams f = edl_params(1.0f, 3.0f);
  for (int i = 0; i < f.n; ++i)
    EXPECT_NEAR(std::hypot(double(f.dx[i]), double(f.dy[i])), 3.0, 0.75);
}

/// The EDL image in double: Potree's formula on Mitchell's log2 (the float's bits / 2^23 - 127).
Image reference_edl(const Image& plain, float strength, float radius, uint32_t bg) {
  const EdlParams e = edl_params(strength, radius);
  auto empty = [&](int x, int y) {
    return std::isinf(plain.depth[size_t(y) * size_t(plain.width) + size_t(x)]);
  };
  auto log2_of = [&](int x, int y) {
    return double(float_bits(plain.depth[size_t(y) * size_t(plain.width) + size_t(x)])) /
               8388608.0 -
           127.0;
  };
  Image out = plain;
  for (int y = 0; y < plain.height; ++y)
    for (int x = 0; x < plain.width; ++x) {
      if (empty(x, y)) {
        out.rgba[size_t(y) * size_t(plain.width) + size_t(x)] = bg;
        continue;
      }
      double sum = 0.0;
      for (int i = 0; i < e.n; ++i) {
        const int nx = x + e.dx[i], ny = y + e.dy[i];
        if (nx < 0 || ny < 0 || nx >= plain.width || ny >= plain.height || empty(nx, ny)) continue;
        sum += std::max(0.0, log2_of(x, y) - log2_of(nx, ny));
      }
      const double shade = std::exp(-double(strength) * 300.0 * sum / double(e.n));
      const uint32_t c = plain.at(x, y);
      uint32_t o = c & 0xff000000u;
      for (int k = 0; k < 3; ++k)
        o |= uint32_t(std::floor(double((c >> (8 * k)) & 0xffu) * shade + 0.5)) << (8 * k);
      out.rgba[size_t(y) * size_t(plain.width) + size_t(x)] = o;
    }
  return out;
}

/// Channels that differ by more than one step (the float shade against the double one).
size_t count_off(const Image& a, const Image& b) {
  size_t n = 0;
  for (size_t i = 0; i < a.rgba.size(); ++i)
    for (int k = 0; k < 4; ++k) {
      const int ca = int((a.rgba[i] >> (8 * k)) & 0xffu), cb = int((b.rgba[i] >> (8 * k)) & 0xffu);
      n += std::abs(ca - cb) > 1;
    }
  return n;
}

TEST(Edl, CpuImageMatchesTheReference) {
  const PointCloud cloud = make_scene("terrain", 20000, 3);
  CpuRenderer r(2);
  ASSERT_TRUE(r.set_cloud(cloud, nullptr));
  std::mt19937 rng(11);
  int shaded_frames = 0;
  for (int it = 0; it < 12; ++it) {
    const Camera cam =
        it == 0 ? scene_camera("terrain", cloud) : test::random_camera(rng, cloud.local_bounds());
    RenderSettings rs;
    rs.width = 61 + it;
    rs.height = 47;
    rs.point_size = 1 + it % 3;
    rs.background = test::kBg;
    rs.want_depth = true;
    const Image plain = test::render(r, cam, rs);
    rs.edl = true;
    rs.edl_strength = it % 2 ? 1.0f : 0.3f;
    rs.edl_radius = it % 4 < 2 ? 1.4f : 2.5f;
    const Image lit = test::render(r, cam, rs);
    EXPECT_EQ(lit.depth, plain.depth) << it;
    const Image want = reference_edl(plain, rs.edl_strength, rs.edl_radius, rs.background);
    EXPECT_EQ(count_off(lit, want), 0u) << it;
    shaded_frames += lit.rgba != plain.rgba;
    // The EDL frame leaves the visibility buffer empty: the next plain frame is the same.
    rs.edl = false;
    EXPECT_EQ(test::render(r, cam, rs).rgba, plain.rgba) << it;
  }
  EXPECT_GT(shaded_frames, 3);
}

TEST(Edl, ZeroStrengthIsThePlainImage) {
  const PointCloud cloud = make_scene("cube", 5000, 2);
  CpuRenderer r(2);
  ASSERT_TRUE(r.set_cloud(cloud, nullptr));
  const Camera cam = scene_camera("cube", cloud);
  RenderSettings rs;
  rs.width = 80;
  rs.height = 60;
  const Image plain = test::render(r, cam, rs);
  rs.edl = true;
  rs.edl_strength = 0.0f;
  EXPECT_EQ(test::render(r, cam, rs).rgba, plain.rgba);
}

/// A near square in front of a far one: the near square's pixels stay lit, the far pixels next to
/// the near square's edge are shaded (they lie deeper than a neighbour), far pixels away from the
/// edge are not.
TEST(Edl, ShadesTheFarSideOfAnEdge) {
  PointCloud cloud;
  for (int layer = 0; layer < 2; ++layer)
    for (int i = -40; i <= 40; ++i)
      for (int j = -40; j <= 40; ++j) {
        if (layer == 0 && (std::abs(i) > 10 || std::abs(j) > 10)) continue;
        const float z = layer == 0 ? 5.0f : 20.0f;
        const float s = z / 5.0f * 0.02f;
        cloud.positions.push_back(Float3{float(i) * s, float(j) * s, z});
        cloud.colors.push_back(rgba(200, 200, 200));
      }
  CpuRenderer r(2);
  ASSERT_TRUE(r.set_cloud(cloud, nullptr));
  Camera cam;
  cam.position = {0.0, 0.0, 0.0};
  cam.focus = 2.0;
  RenderSettings rs;
  rs.width = 100;
  rs.height = 100;
  rs.point_size = 3;
  rs.edl = true;
  const Image img = test::render(r, cam, rs);
  EXPECT_EQ(img.at(50, 50), rgba(200, 200, 200));  // the near square's centre
  // The far square's pixels touching the near one's right edge are darker than those far out.
  int edge = -1;
  for (int x = 50; x < 100; ++x)
    if (img.at(x, 50) != rgba(200, 200, 200)) {
      edge = x;
      break;
    }
  ASSERT_GT(edge, 50);
  EXPECT_LT(img.at(edge, 50) & 0xffu, 150u);
}

TEST(Edl, OrthographicFramesMatchTheReference) {
  // EDL shades by the depth image alone, which an orthographic frame fills with camera-space z
  // as a perspective one does.
  const PointCloud cloud = make_scene("terrain", 20000, 3);
  CpuRenderer r(2);
  ASSERT_TRUE(r.set_cloud(cloud, nullptr));
  std::mt19937 rng(13);
  int shaded_frames = 0;
  for (int it = 0; it < 10; ++it) {
    Camera cam = test::random_camera(rng, cloud.local_bounds(), true);
    if (it < 7) cam.set_view(StandardView(it), cloud.local_bounds(), 61.0 / 47.0);
    RenderSettings rs;
    rs.width = 61;
    rs.height = 47;
    rs.point_size = 1 + it % 3;
    rs.background = test::kBg;
    rs.want_depth = true;
    const Image plain = test::render(r, cam, rs);
    rs.edl = true;
    const Image lit = test::render(r, cam, rs);
    EXPECT_EQ(lit.depth, plain.depth) << it;
    const Image want = reference_edl(plain, rs.edl_strength, rs.edl_radius, rs.background);
    EXPECT_EQ(count_off(lit, want), 0u) << it;
    shaded_frames += lit.rgba != plain.rgba;
  }
  EXPECT_GT(shaded_frames, 3);
}

}  // namespace
}  // namespace pr
