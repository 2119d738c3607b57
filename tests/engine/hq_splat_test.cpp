// High-quality splats (engine/hq_splat.h) on the CPU renderer: the average of each pixel's points
// within the depth range of the nearest, against a reference computed here point by point; the
// accumulator's arithmetic; and frames after an HQ frame unaffected.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "engine/cpu_renderer.h"
#include "engine/hq_splat.h"
#include "engine/scenes.h"
#include "random_camera.h"
#include "render_test_util.h"

namespace pr {
namespace {

TEST(HqSplat, ColorIsTheRoundedAverage) {
  const uint64_t key = pack_key(2.0f, rgba(1, 2, 3));
  EXPECT_EQ(hq_color(key, 0, 0), rgba(1, 2, 3));  // nothing added: the key's color
  uint64_t a = 0, b = 0;
  for (uint32_t c : {rgba(10, 0, 255), rgba(11, 255, 0), rgba(11, 0, 0)}) {
    a += hq_word_a(c);
    b += hq_word_b(c);
  }
  // (10 + 11 + 11) / 3 = 10.67 -> 11, 255 / 3 = 85, 255 / 3 = 85.
  EXPECT_EQ(hq_color(key, a, b), rgba(11, 85, 85));
  // Ties round up: (0 + 255) / 2 = 127.5 -> 128.
  EXPECT_EQ(hq_color(key, hq_word_a(rgba(0, 0, 0)) + hq_word_a(rgba(255, 255, 255)),
                     hq_word_b(rgba(0, 0, 0)) + hq_word_b(rgba(255, 255, 255))),
            rgba(128, 128, 128));
  // More points than the sums hold: the key's color.
  const uint64_t many = uint64_t(kHqMaxCount) + 1;
  EXPECT_EQ(hq_color(key, 0, many << 32), rgba(1, 2, 3));
  EXPECT_EQ(hq_color(key, 0, uint64_t(kHqMaxCount) << 32), rgba(0, 0, 0));
  EXPECT_LE(uint64_t(kHqMaxCount) * 255u, uint64_t(UINT32_MAX));
}

TEST(HqSplat, DepthRangeIsOnePercentBehindTheNearest) {
  const uint64_t key = pack_key(100.0f, 0);
  EXPECT_TRUE(hq_blends(float_bits(100.0f), key));
  EXPECT_TRUE(hq_blends(float_bits(100.99f), key));
  EXPECT_FALSE(hq_blends(float_bits(101.02f), key));
  EXPECT_FALSE(hq_blends(float_bits(1.0f), kEmptyKey));
}

/// The HQ image computed point by point: each drawn point's square (projection.h's shared
/// projection, the renderers' model), the nearest key of each pixel, then the sums of the points
/// within the range, averaged in 64-bit integers.
Image reference_hq(const PointCloud& cloud, const Camera& cam, const RenderSettings& rs) {
  const ProjParams p = cam.params(rs.width, rs.height, cloud.origin, rs.point_size);
  const size_t n = size_t(rs.width) * size_t(rs.height);
  std::vector<uint64_t> nearest(n, kEmptyKey);
  const uint64_t count = effective_count(cloud.size(), rs.point_count);
  const uint64_t step = subset_step(cloud.size(), count);
  auto each = [&](auto&& fn) {
    for (uint64_t i = 0; i < count; ++i) {
      const size_t s = size_t(subset_index(i, step));
      const Float3 v = cloud.positions[s];
      int ix, iy;
      uint64_t key;
      if (!project_to_pixel(p, v.x, v.y, v.z, cloud.colors[s], ix, iy, key)) continue;
      int x0, y0, x1, y1;
      splat_rect(p, ix, iy, x0, y0, x1, y1);
      for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) fn(size_t(y) * size_t(rs.width) + size_t(x), key);
    }
  };
  each([&](size_t pix, uint64_t key) { nearest[pix] = std::min(nearest[pix], key); });
  std::vector<uint64_t> sum(4 * n, 0);  // R, G, B, count
  each([&](size_t pix, uint64_t key) {
    const double limit = double(key_depth(nearest[pix])) * double(kHqDepthRange);
    if (double(key_depth(key)) > limit * (1.0 + 1e-7)) return;  // float rounding of the limit
    const uint32_t c = key_color(key);
    for (int k = 0; k < 3; ++k) sum[4 * pix + size_t(k)] += (c >> (8 * k)) & 0xffu;
    sum[4 * pix + 3] += 1;
  });
  Image out;
  out.width = rs.width;
  out.height = rs.height;
  out.rgba.assign(n, rs.background);
  for (size_t i = 0; i < n; ++i) {
    if (nearest[i] == kEmptyKey) continue;
    const uint64_t m = sum[4 * i + 3];
    uint32_t c = kOpaqueAlpha;
    for (int k = 0; k < 3; ++k) c |= uint32_t((sum[4 * i + size_t(k)] + m / 2) / m) << (8 * k);
    out.rgba[i] = c;
  }
  return out;
}

TEST(HqSplat, CpuImageMatchesTheReference) {
  // Two interleaved colors per surface, so that averaging shows.
  PointCloud cloud = make_scene("terrain", 60000, 5);
  for (size_t i = 0; i < cloud.size(); ++i)
    cloud.colors[i] = i % 2 ? rgba(250, 20, 30) : rgba(10, 200, 90);
  std::mt19937 rng(23);
  int blended = 0;
  for (const bool compact : {false, true}) {
    CpuRenderer r(2);
    r.set_options(test::compact_options(compact, false));
    ASSERT_TRUE(r.set_cloud(cloud, nullptr));
    for (int it = 0; it < 10; ++it) {
      const Camera cam =
          it == 0 ? scene_camera("terrain", cloud) : test::random_camera(rng, cloud.local_bounds());
      RenderSettings rs;
      rs.width = 90 + it;
      rs.height = 64;
      rs.point_size = 1 + it % 3;
      rs.background = test::kBg;
      if (it % 4 == 3) rs.point_count = cloud.size() / 3;
      const Image plain = test::render(r, cam, rs);
      rs.hq = true;
      const Image hq = test::render(r, cam, rs);
      if (!compact) {
        std::string where;
        EXPECT_EQ(test::count_diff(hq, reference_hq(cloud, cam, rs), &where), 0u)
            << "frame " << it << " " << where;
      }
      // The same pixels drawn as without HQ, and some blended to a color no point has.
      size_t mixed = 0;
      for (size_t i = 0; i < hq.rgba.size(); ++i) {
        EXPECT_EQ(hq.rgba[i] == test::kBg, plain.rgba[i] == test::kBg) << i;
        mixed += hq.rgba[i] != test::kBg && hq.rgba[i] != rgba(250, 20, 30) &&
                 hq.rgba[i] != rgba(10, 200, 90);
      }
      blended += mixed > 0;
      // The HQ frame leaves the buffers clean: the next plain frame is the plain image.
      rs.hq = false;
      EXPECT_EQ(test::render(r, cam, rs).rgba, plain.rgba) << it;
    }
  }
  EXPECT_GE(blended, 5);  // of 20 frames; random cameras see some clouds from afar
}

TEST(HqSplat, CullingAndBinningChangeNoPixel) {
  PointCloud cloud = make_scene("galaxy", 200000, 9);
  std::mt19937 rng(5);
  std::vector<RenderOptions> variants(4);
  variants[0].culling = false;
  variants[1].occlusion = Toggle::kOn;
  variants[2].binning = Toggle::kOn;
  variants[3].occlusion = Toggle::kOff;
  std::vector<std::unique_ptr<CpuRenderer>> rs_(variants.size());
  for (size_t v = 0; v < variants.size(); ++v) {
    rs_[v] = std::make_unique<CpuRenderer>(2);
    rs_[v]->set_options(variants[v]);
    ASSERT_TRUE(rs_[v]->set_cloud(cloud, nullptr));
  }
  for (int it = 0; it < 8; ++it) {
    const Camera cam = test::random_camera(rng, cloud.local_bounds());
    RenderSettings rs;
    rs.width = 160;
    rs.height = 120;
    rs.point_size = 1 + it % 2;
    rs.background = test::kBg;
    rs.hq = true;
    rs.edl = it % 3 == 2;
    const Image want = test::render(*rs_[0], cam, rs);
    for (size_t v = 1; v < variants.size(); ++v) {
      // Twice: occlusion culling's second frame uses the first one's Hi-Z.
      test::render(*rs_[v], cam, rs);
      std::string where;
      EXPECT_EQ(test::count_diff(test::render(*rs_[v], cam, rs), want, &where), 0u)
          << "variant " << v << " frame " << it << " " << where;
    }
  }
}

/// A near red layer and a green layer just behind it (inside the range) blend; a blue layer far
/// behind does not.
TEST(HqSplat, BlendsOnlyTheFrontSurface) {
  PointCloud cloud;
  const struct {
    float z;
    uint32_t color;
  } layers[] = {{10.0f, rgba(200, 0, 0)}, {10.05f, rgba(0, 200, 0)}, {12.0f, rgba(0, 0, 200)}};
  for (const auto& l : layers) {  // on the axis: each lands in the centre pixel
    cloud.positions.push_back(Float3{0.0f, 0.0f, l.z});
    cloud.colors.push_back(l.color);
  }
  CpuRenderer r(2);
  ASSERT_TRUE(r.set_cloud(cloud, nullptr));
  Camera cam;
  cam.position = {0.0, 0.0, 0.0};
  cam.focus = 30.0;
  RenderSettings rs;
  rs.width = 40;
  rs.height = 40;
  rs.point_size = 3;
  rs.background = test::kBg;
  const Image plain = test::render(r, cam, rs);
  rs.hq = true;
  const Image hq = test::render(r, cam, rs);
  for (int y = 0; y < rs.height; ++y)
    for (int x = 0; x < rs.width; ++x) {
      const bool square = std::abs(x - 20) <= 1 && std::abs(y - 20) <= 1;
      EXPECT_EQ(plain.at(x, y), square ? rgba(200, 0, 0) : test::kBg) << x << "," << y;
      EXPECT_EQ(hq.at(x, y), square ? rgba(100, 100, 0) : test::kBg) << x << "," << y;
    }
}

/// A batch behind a surface that covers its whole footprint is what occlusion culling skips, but
/// its points within 1% of that surface's depth belong in the averages: a frame with high-quality
/// splats draws them whatever the occlusion setting.
TEST(HqSplat, OcclusionCullingKeepsThePointsItBlends) {
  PointCloud cloud;
  // A red layer at z = 10 with a point in each pixel of the 64 x 64 image (one batch), and a green
  // one 0.5% behind it in the middle (the next batch).
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 64; ++j) {
      cloud.positions.push_back(
          Float3{(float(i) + 0.5f) / 32.0f - 1.0f, (float(j) + 0.5f) / 32.0f - 1.0f, 10.0f});
      cloud.colors.push_back(rgba(200, 0, 0));
    }
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 64; ++j) {
      cloud.positions.push_back(
          Float3{(float(i) - 32.0f) / 100.0f, (float(j) - 32.0f) / 100.0f, 10.05f});
      cloud.colors.push_back(rgba(0, 200, 0));
    }
  Camera cam;
  cam.position = {0.0, 0.0, 0.0};
  cam.focus = 10.0;
  RenderSettings rs;
  rs.width = 64;
  rs.height = 64;
  rs.background = test::kBg;
  rs.hq = true;
  RenderOptions off, on;
  off.occlusion = Toggle::kOff;
  on.occlusion = Toggle::kOn;
  CpuRenderer a(2), b(2);
  a.set_options(off);
  b.set_options(on);
  ASSERT_TRUE(a.set_cloud(cloud, nullptr));
  ASSERT_TRUE(b.set_cloud(cloud, nullptr));
  const Image want = test::render(a, cam, rs);
  EXPECT_NE(want.at(32, 32), rgba(200, 0, 0));  // blended with the green points behind
  EXPECT_EQ(want.at(2, 2), rgba(200, 0, 0));
  // Twice: the second frame defers the green batch behind the first one's depths.
  for (int frame = 0; frame < 2; ++frame)
    EXPECT_EQ(test::render(b, cam, rs).rgba, want.rgba) << "frame " << frame;
  // Without high-quality splats that batch is hidden, and the image the same as drawn whole.
  rs.hq = false;
  const Image plain = test::render(a, cam, rs);
  test::render(b, cam, rs);
  EXPECT_EQ(test::render(b, cam, rs).rgba, plain.rgba);
  EXPECT_GT(b.occluded_batches(), 0u);
}

}  // namespace
}  // namespace pr
