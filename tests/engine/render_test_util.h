// Helpers shared by the engine's rendering tests (compact positions, batch culling).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <random>
#include <string>

#include "engine/camera.h"
#include "engine/compact.h"
#include "engine/cpu_renderer.h"
#include "engine/culling.h"
#include "engine/projection.h"
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

/// Options with compact positions on or off, encoded in Morton order (sort kOn) or in the stored
/// order (sort kOff); the rest the defaults.
inline RenderOptions compact_options(bool compact, bool morton) {
  RenderOptions o;
  o.compact = compact;
  o.sort = morton ? Toggle::kOn : Toggle::kOff;
  return o;
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
/// sizes cycle 1-4, so splats reach over the image edges. `ortho`: orthographic cameras.
inline void compare_culling(CpuRenderer& culled, CpuRenderer& unculled, const Bounds& b,
                            uint64_t points, std::mt19937& rng, int frames, int subset_every,
                            const std::string& name, CullingTally& t, bool ortho = false) {
  for (int i = 0; i < frames; ++i) {
    const Camera cam = random_camera(rng, b, ortho);
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

/// Sample k of the float points in `b` for the box tests below: k < 8 the corners, 8 the centre,
/// then random points (always a point: true).
inline bool sample_point_box(const PointBox& b, int k, std::mt19937& rng, float& x, float& y,
                             float& z) {
  std::uniform_real_distribution<float> t(0.0f, 1.0f);
  float v[3];
  for (int a = 0; a < 3; ++a) {
    const float s = k < 8 ? float((k >> a) & 1) : k == 8 ? 0.5f : t(rng);
    v[a] = std::min(std::max(b.lo[a] + s * (b.hi[a] - b.lo[a]), b.lo[a]), b.hi[a]);
  }
  x = v[0];
  y = v[1];
  z = v[2];
  return true;
}

/// Sample k of the points compact batch `b` decodes to: k < 8 the corner steps, 8 the middle
/// step, then random steps (compact_decode()'s answer: always true for these valid words).
inline bool sample_compact_batch(const CompactBatch& b, int k, std::mt19937& rng, float& x,
                                 float& y, float& z) {
  std::uniform_int_distribution<uint32_t> q(0, kCompactMaxQ);
  uint32_t s[3];
  for (int a = 0; a < 3; ++a)
    s[a] = k < 8 ? ((k >> a) & 1 ? kCompactMaxQ : 0u) : k == 8 ? 511u : q(rng);
  return compact_decode(b, s[0] | (s[1] << 10) | (s[2] << 20), x, y, z);
}

/// A conservative box test against the projection: 20,000 random boxes (`make(i, x, rng)`: a box
/// near x, half of them near x = 1000 where float rounding is coarser) and random cameras;
/// whenever `visible` says no, none of the box's points `sample(box, k, rng)` (k < 8: the
/// corners, 8: the centre, then 200 random ones; false: no such point) lands in the image. The
/// test must both cull and keep many boxes. `ortho`: orthographic cameras.
template <class Box>
void check_box_test(
    uint32_t seed, const std::function<Box(int, float, std::mt19937&)>& make,
    const std::function<bool(const ProjParams&, const Box&)>& visible,
    const std::function<bool(const Box&, int, std::mt19937&, float&, float&, float&)>& sample,
    bool ortho = false) {
  std::mt19937 rng(seed);
  int rejected = 0, accepted = 0;
  Bounds world;
  world.extend(glm::dvec3(-10.0));
  world.extend(glm::dvec3(10.0));
  for (int i = 0; i < 20'000; ++i) {
    const float mag = i % 2 ? 1.0f : 1000.0f;  // large coordinates stress the rounding pads
    const Box b = make(i, mag - 1.0f, rng);
    Camera cam = random_camera(rng, world, ortho);
    cam.position.x += double(mag - 1.0f);
    const ProjParams p = cam.params(i % 2 ? 64 : 1920, i % 2 ? 48 : 1080, glm::dvec3(0.0));
    if (visible(p, b)) {
      ++accepted;
      continue;
    }
    ++rejected;
    for (int k = 0; k < 209; ++k) {
      float x, y, z;
      ASSERT_TRUE(sample(b, k, rng, x, y, z)) << "box " << i << " point " << k;
      int ix, iy;
      uint64_t key;
      ASSERT_FALSE(project_to_pixel(p, x, y, z, 0, ix, iy, key))
          << "box " << i << " culled but its point " << k << " (" << x << "," << y << "," << z
          << ") lands on pixel " << ix << "," << iy;
    }
  }
  EXPECT_GT(rejected, 2000);
  EXPECT_GT(accepted, 1000);
}

/// Where box i of check_inside_test() goes, for `cam`: every fourth box 1e-3 wide just beyond the
/// near plane, the others around the origin (x = 999 for the cameras near x = 1000), a third of
/// those 30 wide (larger than the view), the rest 4 wide.
inline void inside_test_place(int i, const Camera& cam, glm::dvec3* centre, float* size) {
  *centre = i % 4 == 0 ? cam.position + cam.forward() * (cam.near_z * 1.5)
                       : glm::dvec3(cam.position.x > 500.0 ? 999.0 : 0.0, 0.0, 0.0);
  *size = i % 4 == 0 ? 1e-3f : i % 3 == 0 ? 30.0f : 4.0f;
}

/// The dual of check_box_test(), for a "wholly inside the view" test (box_surely_inside()): 20,000
/// random cameras (half of them near x = 1000, where float rounding is coarser) looking at the
/// origin from 1.5 - 3 times a random camera's distance, random boxes (`make(i, cam, rng)`, which
/// may place them relative to the camera: just beyond its near plane, for instance); whenever
/// `inside` says yes, every sample `sample(box, k, rng)` (k < 8: corners, 8: the centre, then 200
/// random points) passes project_to_pixel() at the pixel and depth project_inside() gives. The
/// test must both accept and refuse many boxes. `ortho`: orthographic cameras.
template <class Box>
void check_inside_test(
    uint32_t seed, const std::function<Box(int, const Camera&, std::mt19937&)>& make,
    const std::function<bool(const ProjParams&, const Box&)>& inside,
    const std::function<bool(const Box&, int, std::mt19937&, float&, float&, float&)>& sample,
    bool ortho = false) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> far(1.5, 3.0);
  int accepted = 0, refused = 0;
  Bounds world;
  world.extend(glm::dvec3(-10.0));
  world.extend(glm::dvec3(10.0));
  for (int i = 0; i < 20'000; ++i) {
    const double x0 = i % 2 ? 0.0 : 999.0;  // large coordinates stress the rounding pads
    Camera cam = random_camera(rng, world, ortho);
    cam.position *= far(rng);
    cam.look_at(glm::dvec3(0.0));
    cam.position.x += x0;
    const ProjParams p = cam.params(i % 2 ? 64 : 1920, i % 2 ? 48 : 1080, glm::dvec3(0.0));
    const Box b = make(i, cam, rng);
    if (!inside(p, b)) {
      ++refused;
      continue;
    }
    ++accepted;
    for (int k = 0; k < 209; ++k) {
      float x, y, z;
      if (!sample(b, k, rng, x, y, z)) continue;  // a point that draws nothing by itself
      int ix = -1, iy = -1, jx = -2, jy = -2;
      uint64_t key = 0;
      uint32_t dbits = 0;
      ASSERT_TRUE(project_to_pixel(p, x, y, z, 0, ix, iy, key))
          << "box " << i << " said inside, its point " << k << " (" << x << "," << y << "," << z
          << ") does not draw";
      project_inside(p, x, y, z, jx, jy, dbits);
      ASSERT_EQ(ix, jx) << "box " << i << " point " << k;
      ASSERT_EQ(iy, jy) << "box " << i << " point " << k;
      ASSERT_EQ(uint32_t(key >> 32), dbits) << "box " << i << " point " << k;
    }
  }
  EXPECT_GT(accepted, 2000);
  EXPECT_GT(refused, 2000);
}

}  // namespace pr::test
