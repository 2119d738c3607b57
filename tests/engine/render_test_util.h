// Helpers shared by the engine's rendering tests (compact positions, batch culling).
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "engine/camera.h"
#include "engine/cpu_renderer.h"
#include "random_camera.h"

namespace pr::test {

inline constexpr uint32_t kBg = rgba(7, 8, 9);

inline size_t count_diff(const Image& a, const Image& b, std::string* first) {
  if (a.rgba.size() != b.rgba.size()) return ~size_t(0);
  size_t n = 0;
  for (size_t i = 0; i < a.rgba.size(); ++i)
    if (a.rgba[i] != b.rgba[i]) {
      if (n++ == 0 && first)
        *first = "first at (" + std::to_string(i % size_t(a.width)) + ", " +
                 std::to_string(i / size_t(a.width)) + ")";
    }
  return n;
}

inline size_t count_drawn(const Image& img) {
  size_t n = 0;
  for (uint32_t c : img.rgba) n += c != kBg;
  return n;
}

inline Image render(CpuRenderer& r, const Camera& cam, const RenderSettings& rs) {
  Image img;
  FrameStats st;
  std::string err;
  EXPECT_TRUE(r.render(cam, rs, img, st, &err)) << err;
  return img;
}

/// What compare_culling() saw.
struct CullingTally {
  uint64_t culled_batches = 0, frames_drawing = 0, frames_culling = 0;
};

/// Draws `frames` random cameras around `b` on a culling renderer and an unculled one (sizes,
/// point sizes 1-4 whose splats reach over the image edges, depth; every `subset_every`-th frame
/// a subset of a third of the `points`, 0: none) and expects the same image and depth. Point
/// sizes cycle 1-4, so splats reach over the image edges.
inline void compare_culling(CpuRenderer& culled, CpuRenderer& unculled, const Bounds& b,
                            uint64_t points, std::mt19937& rng, int frames, int subset_every,
                            const std::string& name, CullingTally& t) {
  for (int i = 0; i < frames; ++i) {
    const Camera cam = random_camera(rng, b);
    RenderSettings rs;
    rs.width = i % 3 == 0 ? 97 : 320;
    rs.height = i % 3 == 0 ? 61 : 200;
    rs.point_size = 1 + i % 4;
    rs.background = kBg;
    rs.want_depth = true;
    const bool subset = subset_every > 0 && i % subset_every == subset_every - 1;
    if (subset) rs.point_count = points / 3;
    const Image a = render(culled, cam, rs);
    const Image r = render(unculled, cam, rs);
    EXPECT_EQ(unculled.culled_batches(), 0u);
    // A subset of a plain cloud (every k-th point) is drawn unculled; compact forms cull it.
    if (subset && !culled.compact_active()) {
      EXPECT_EQ(culled.culled_batches(), 0u);
    }
    std::string first;
    EXPECT_EQ(count_diff(a, r, &first), 0u) << name << " camera " << i << ": " << first;
    EXPECT_EQ(std::memcmp(a.depth.data(), r.depth.data(), a.depth.size() * sizeof(float)), 0);
    t.culled_batches += culled.culled_batches();
    t.frames_drawing += count_drawn(a) > 0;
    t.frames_culling += culled.culled_batches() > 0 && count_drawn(a) > 0;
  }
}

}  // namespace pr::test
