// Camera::fill_view(): "frame the cloud" and the starting view of files. The corners of the
// bounds, projected in double, lie inside the image and span most of its width or height, for flat
// survey tiles (where the bounding sphere of frame() leaves the tile small), cubes and towers,
// seen from the files' starting angle and from random ones, at several aspects.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "engine/camera.h"

namespace pr {
namespace {

struct Span {
  bool inside = true;
  double w = 0.0, h = 0.0;  // the corners' extent as a share of the image's width and height
};

Span corner_span(const Camera& cam, const Bounds& b, int width, int height) {
  Span s;
  double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300;
  const glm::dvec3 r = cam.right(), u = cam.up(), f = cam.forward();
  for (int k = 0; k < 8; ++k) {
    const glm::dvec3 v((k & 1) ? b.max.x : b.min.x, (k & 2) ? b.max.y : b.min.y,
                       (k & 4) ? b.max.z : b.min.z);
    const glm::dvec3 d = v - cam.position;
    const double cz = glm::dot(d, f);
    if (!(cz > cam.near_z)) {
      s.inside = false;
      return s;
    }
    const double px = glm::dot(d, r) * cam.focus / cz * height * 0.5 + width * 0.5;
    const double py = height * 0.5 - glm::dot(d, u) * cam.focus / cz * height * 0.5;
    s.inside = s.inside && px >= 0 && px < width && py >= 0 && py < height;
    x0 = std::min(x0, px), x1 = std::max(x1, px), y0 = std::min(y0, py), y1 = std::max(y1, py);
  }
  s.w = (x1 - x0) / width;
  s.h = (y1 - y0) / height;
  return s;
}

Bounds box(glm::dvec3 lo, glm::dvec3 size) {
  Bounds b;
  b.extend(lo);
  b.extend(lo + size);
  return b;
}

TEST(FillView, BoundsFillMostOfTheWindowAndStayInside) {
  const Bounds boxes[] = {
      box({500000.0, 4100000.0, 120.0}, {1000.0, 1000.0, 30.0}),  // a flat UTM survey tile
      box({-50.0, -50.0, -50.0}, {100.0, 100.0, 100.0}),          // the cube scene
      box({0.0, 0.0, 0.0}, {5.0, 3.0, 80.0}),                     // a tower
      box({10.0, 20.0, 30.0}, {2000.0, 30.0, 5.0}),               // a road corridor
  };
  const std::pair<int, int> sizes[] = {{1920, 1080}, {1280, 720}, {800, 800}, {600, 1000}};
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  int looks = 0;
  for (const Bounds& b : boxes)
    for (const auto& [w, h] : sizes)
      for (int it = 0; it < 20; ++it) {
        Camera cam;
        cam.up_axis = UpAxis::kZ;
        if (it == 0) {  // the files' starting view
          cam.yaw = 0.0;
          cam.pitch = -0.5;
        } else {
          cam.yaw = u(rng) * 6.283185307;
          cam.pitch = (u(rng) - 0.5) * 3.0;
          cam.focus = 0.8 + u(rng) * 4.0;
        }
        cam.fill_view(b, double(w) / double(h));
        const Span s = corner_span(cam, b, w, h);
        EXPECT_TRUE(s.inside) << "box " << b.size().x << " view " << it << " " << w << "x" << h;
        EXPECT_GE(std::max(s.w, s.h), 0.6) << "box " << b.size().x << " view " << it << " " << w
                                           << "x" << h << ": " << s.w << " x " << s.h;
        ++looks;
      }
  EXPECT_EQ(looks, 4 * 4 * 20);
}

TEST(FillView, TheFlatTileFromTheStartingAngleFillsTheWidth) {
  const Bounds tile = box({500000.0, 4100000.0, 120.0}, {1000.0, 1000.0, 30.0});
  Camera cam;
  cam.up_axis = UpAxis::kZ;
  cam.pitch = -0.5;
  cam.focus = 1.5;
  cam.fill_view(tile, 16.0 / 9.0);
  const Span s = corner_span(cam, tile, 1920, 1080);
  EXPECT_TRUE(s.inside);
  EXPECT_GT(std::max(s.w, s.h), 0.85);
  Camera sphere = cam;
  sphere.frame(tile, 16.0 / 9.0);
  EXPECT_LT(
      std::max(corner_span(sphere, tile, 1920, 1080).w, corner_span(sphere, tile, 1920, 1080).h),
      0.6);  // the bounding sphere leaves it small
}

}  // namespace
}  // namespace pr
