// The CPU rasterizer's vectorized batch projections (compiled for AVX-512/AVX2/SSE4, picked at load
// time) must give exactly what the scalar project_to_pixel() and compact_to_pixel() give, which
// the GPU also computes.
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <vector>

#include "engine/camera.h"
#include "project_batch.h"

namespace pr {
namespace {

TEST(ProjectBatch, EqualsScalarProjectionBitForBit) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(-60.0f, 60.0f);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (int c = 0; c < 8; ++c) {
    Camera cam;
    cam.position = {u(rng) * 0.2, u(rng) * 0.2, u(rng) * 0.2};
    cam.yaw = u(rng) * 0.05;
    cam.pitch = u(rng) * 0.02;
    cam.focus = 0.5 + c * 0.7;
    const int w = 100 + 97 * c, h = 60 + 41 * c;
    const ProjParams p = cam.params(w, h, glm::dvec3(0.0));
    const size_t n = 4099;  // not a multiple of any vector width
    std::vector<float> xyz(3 * n);
    for (auto& v : xyz) v = u(rng);
    xyz[3 * 5] = nan;
    xyz[3 * 6 + 1] = inf;
    xyz[3 * 7 + 2] = -inf;
    xyz[3 * 8 + 2] = nan;
    std::vector<uint32_t> pix(n);
    std::vector<float> dep(n);
    project_batch(p, xyz.data(), n, pix.data(), dep.data());
    size_t drawn = 0;
    for (size_t i = 0; i < n; ++i) {
      int ix = -1, iy = -1;
      uint64_t key = 0;
      const bool hit =
          project_to_pixel(p, xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2], uint32_t(i), ix, iy, key);
      ASSERT_EQ(hit, pix[i] != ~0u) << "point " << i << " camera " << c;
      if (!hit) continue;
      ++drawn;
      EXPECT_EQ(pix[i], uint32_t(iy) * uint32_t(w) + uint32_t(ix));
      EXPECT_EQ(pack_key(dep[i], uint32_t(i)), key);
    }
    EXPECT_GT(drawn, 50u);
  }
}

TEST(ProjectBatch, CompactWordsEqualScalarFormsBitForBit) {
  // Random batches and words (invalid ones among them) seen by perspective and orthographic
  // cameras, whole frames and tiles: compact_project_batch() against compact_to_pixel().
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::uniform_int_distribution<uint32_t> word(0, 0x3fffffffu);
  size_t drawn = 0;
  for (int c = 0; c < 48; ++c) {
    Camera cam;
    cam.position = {u(rng) * 12.0, u(rng) * 12.0, u(rng) * 12.0 - 30.0};
    cam.yaw = u(rng) * 0.3;
    cam.pitch = u(rng) * 0.3;
    cam.focus = 0.5 + (c % 8) * 0.7;
    if (c % 6 == 5) cam.projection = Projection::kOrthographic;
    const int w = 100 + 97 * (c % 8), h = 60 + 41 * (c % 8);
    ProjParams p = cam.params(w, h, glm::dvec3(0.0));
    if (c % 4 == 3) {  // a tile (frame_params())
      p.ox = float(w / 3);
      p.oy = float(h / 4);
      p.width = w / 2;
      p.height = h / 2;
    }
    CompactBatch b;
    for (int a = 0; a < 3; ++a) {
      b.lo[a] = u(rng) * 10.0f;
      b.scale[a] = (u(rng) + 1.0f) * (c % 3 == 0 ? 0.02f : 0.002f);
    }
    const CompactForms f = compact_forms(p, b);
    const size_t n = 4099;  // not a multiple of any vector width
    std::vector<uint32_t> words(n);
    for (size_t i = 0; i < n; ++i) words[i] = word(rng) | (i % 97 == 5 ? kCompactInvalid : 0u);
    std::vector<uint32_t> pix(n);
    std::vector<float> dep(n);
    compact_project_batch(p, f, words.data(), n, pix.data(), dep.data());
    for (size_t i = 0; i < n; ++i) {
      int ix = -1, iy = -1;
      uint32_t dbits = 0;
      const bool hit = compact_to_pixel(p, f, words[i], ix, iy, dbits);
      ASSERT_EQ(hit, pix[i] != ~0u) << "word " << i << " camera " << c;
      if (!hit) continue;
      ++drawn;
      EXPECT_EQ(pix[i], uint32_t(iy) * uint32_t(p.width) + uint32_t(ix));
      EXPECT_EQ(float_bits(dep[i]), dbits);
    }
  }
  EXPECT_GT(drawn, 10'000u);
}

}  // namespace
}  // namespace pr
