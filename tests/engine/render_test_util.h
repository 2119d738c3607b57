// Helpers shared by the engine's rendering tests (compact positions, batch culling).
#pragma once

#include <gtest/gtest.h>

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

}  // namespace pr::test
