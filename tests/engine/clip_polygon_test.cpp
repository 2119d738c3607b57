// Polygon selections (engine/clip_polygon.h): validation with one line, parsing, the even-odd
// test, the image prism of a perspective and an orthographic camera (a polygon drawn in a top
// orthographic view is the vertical prism over its world outline), points behind the camera out,
// the conservative box test, and the export's keep test (clip AND polygon).
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "engine/clip_polygon.h"

namespace pr {
namespace {

std::vector<glm::dvec2> square(double lo, double hi) {
  return {{lo, lo}, {hi, lo}, {hi, hi}, {lo, hi}};
}

TEST(ClipPolygon, BadPolygonsGetOneLine) {
  std::string error;
  ClipPolygon p;
  p.vertices = {{0, 0}, {1, 0}};
  EXPECT_FALSE(validate_clip_polygon(p, &error));
  EXPECT_EQ(error, "polygon: 2 vertices, at least 3 needed");
  p.vertices = {{0, 0}, {1, 1}, {2, 2}, {3, 3}};
  EXPECT_FALSE(validate_clip_polygon(p, &error));
  EXPECT_NE(error.find("on one line"), std::string::npos) << error;
  p.vertices = {{0, 0}, {0, 0}, {0, 0}};
  EXPECT_FALSE(validate_clip_polygon(p, &error));
  p.vertices = {{0, 0}, {1, 0}, {0, NAN}};
  EXPECT_FALSE(validate_clip_polygon(p, &error));
  EXPECT_EQ(error, "polygon: a vertex is not finite");
  p.vertices = square(0, 1);
  EXPECT_TRUE(validate_clip_polygon(p, &error));
  p.on_image = true;
  EXPECT_FALSE(validate_clip_polygon(p, &error));
  EXPECT_EQ(error.find('\n'), std::string::npos);
}

TEST(ClipPolygon, ParsesWorldXY) {
  ClipPolygon p;
  std::string error;
  ASSERT_TRUE(parse_clip_polygon("0,0;10,0;10,5.5;-2e1,5", &p, &error)) << error;
  EXPECT_FALSE(p.on_image);
  ASSERT_EQ(p.vertices.size(), 4u);
  EXPECT_EQ(p.vertices[2], glm::dvec2(10.0, 5.5));
  EXPECT_EQ(p.vertices[3], glm::dvec2(-20.0, 5.0));
  const ClipPolygon before = p;
  EXPECT_FALSE(parse_clip_polygon("0,0;1,1", &p, &error));
  EXPECT_EQ(error, "polygon: 2 vertices, at least 3 needed");
  EXPECT_FALSE(parse_clip_polygon("0,0;1,x;0,1", &p, &error));
  EXPECT_NE(error.find("'1,x'"), std::string::npos) << error;
  EXPECT_FALSE(parse_clip_polygon("0,0;1,0;0,1;", &p, &error));
  EXPECT_FALSE(parse_clip_polygon("", &p, &error));
  EXPECT_EQ(p.vertices, before.vertices);  // nothing changes on bad input
}

TEST(ClipPolygon, EvenOddOfAConcavePolygon) {
  // An L: the square [0, 2]^2 less its upper right quarter.
  const std::vector<glm::dvec2> l = {{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}};
  EXPECT_TRUE(polygon_contains(l, {0.5, 0.5}));
  EXPECT_TRUE(polygon_contains(l, {1.5, 0.5}));
  EXPECT_TRUE(polygon_contains(l, {0.5, 1.5}));
  EXPECT_FALSE(polygon_contains(l, {1.5, 1.5}));
  EXPECT_FALSE(polygon_contains(l, {-0.5, 0.5}));
  EXPECT_FALSE(polygon_contains(l, {2.5, 0.5}));
  // Clockwise the same.
  const std::vector<glm::dvec2> cw(l.rbegin(), l.rend());
  EXPECT_FALSE(polygon_contains(cw, {1.5, 1.5}));
  EXPECT_TRUE(polygon_contains(cw, {1.5, 0.5}));
}

/// A top orthographic view of [-50, 50]^2 (z up) in a 640 x 480 image.
ClipPolygon top_view_polygon() {
  ClipPolygon p;
  p.on_image = true;
  p.width = 640;
  p.height = 480;
  p.camera.up_axis = UpAxis::kZ;
  p.camera.projection = Projection::kOrthographic;
  Bounds b;
  b.extend(glm::dvec3(-50, -50, 0));
  b.extend(glm::dvec3(50, 50, 10));
  p.camera.set_view(StandardView::kTop, b, 640.0 / 480.0);
  return p;
}

TEST(ClipPolygon, TopOrthographicPolygonIsTheVerticalPrism) {
  ClipPolygon img = top_view_polygon();
  // The world outline (a triangle) drawn as the pixels of its corners.
  const std::vector<glm::dvec2> world = {{-30, -20}, {35, -10}, {0, 40}};
  for (const glm::dvec2& w : world) {
    glm::dvec2 px;
    ASSERT_TRUE(clip_polygon_pixel(img, glm::dvec3(w, 5.0), &px));
    img.vertices.push_back(px);
  }
  ASSERT_TRUE(validate_clip_polygon(img, nullptr));
  ClipPolygon prism;
  prism.vertices = world;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-50, 50), z(0, 10);
  int in = 0, checked = 0;
  for (int i = 0; i < 20000; ++i) {
    const glm::dvec3 p(u(rng), u(rng), z(rng));
    // Points within 1e-6 of an edge may go either way in the two tests.
    bool near = false;
    for (size_t k = 0; k < 3; ++k) {
      const glm::dvec2 a = world[k], b = world[(k + 1) % 3], d = b - a;
      const double t = glm::clamp(glm::dot(glm::dvec2(p) - a, d) / glm::dot(d, d), 0.0, 1.0);
      near = near || glm::length(glm::dvec2(p) - (a + d * t)) < 1e-6;
    }
    if (near) continue;
    ++checked;
    const bool want = clip_polygon_contains(prism, p);
    in += want;
    ASSERT_EQ(clip_polygon_contains(img, p), want) << p.x << " " << p.y << " " << p.z;
  }
  EXPECT_GT(in, 1000);
  EXPECT_LT(in, checked - 1000);
}

TEST(ClipPolygon, PerspectivePrismAndPointsBehindTheCamera) {
  ClipPolygon p;
  p.on_image = true;
  p.width = 200;
  p.height = 100;
  p.camera.position = glm::dvec3(0, 0, 0);                  // kY: looks along +z
  p.vertices = {{90, 40}, {110, 40}, {110, 60}, {90, 60}};  // around the image's centre
  EXPECT_TRUE(clip_polygon_contains(p, glm::dvec3(0, 0, 10)));
  EXPECT_TRUE(clip_polygon_contains(p, glm::dvec3(0.1, -0.1, 1000)));
  EXPECT_FALSE(clip_polygon_contains(p, glm::dvec3(0, 0, -10)));  // behind: out
  EXPECT_FALSE(clip_polygon_contains(p, glm::dvec3(5, 0, 10)));   // off to the right
  // The prism widens with depth: a point 1 unit right is out at depth 10, in at depth 1000.
  EXPECT_FALSE(clip_polygon_contains(p, glm::dvec3(1, 0, 10)));
  EXPECT_TRUE(clip_polygon_contains(p, glm::dvec3(1, 0, 1000)));
}

TEST(ClipPolygon, BoxTestNeverHidesAKeptPoint) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-60, 60), s(0.1, 20), z(-5, 15);
  ClipPolygon prism;
  prism.vertices = {{-30, -20}, {35, -10}, {0, 40}};
  ClipPolygon img = top_view_polygon();
  img.vertices = {{300, 200}, {400, 220}, {330, 300}};
  ClipPolygon persp = img;
  persp.camera.projection = Projection::kPerspective;
  int hidden = 0;
  for (int i = 0; i < 3000; ++i) {
    const glm::dvec3 lo(u(rng), u(rng), z(rng));
    const glm::dvec3 hi = lo + glm::dvec3(s(rng), s(rng), s(rng));
    for (const ClipPolygon* p : {&prism, &img, &persp}) {
      if (!clip_polygon_hides_box(*p, lo, hi)) continue;
      ++hidden;
      std::uniform_real_distribution<double> t(0.0, 1.0);
      for (int k = 0; k < 50; ++k) {
        const glm::dvec3 q = lo + (hi - lo) * glm::dvec3(t(rng), t(rng), t(rng));
        ASSERT_FALSE(clip_polygon_contains(*p, q));
      }
    }
  }
  EXPECT_GT(hidden, 1000);
  // A box over the polygon is not hidden; one far away is; one wholly behind the camera is.
  EXPECT_FALSE(clip_polygon_hides_box(prism, glm::dvec3(0, 0, 0), glm::dvec3(1, 1, 1)));
  EXPECT_TRUE(clip_polygon_hides_box(prism, glm::dvec3(100, 0, 0), glm::dvec3(101, 1, 1)));
  const glm::dvec3 eye = persp.camera.position, f = persp.camera.forward();
  EXPECT_TRUE(clip_polygon_hides_box(persp, eye - f * 10.0 - 1.0, eye - f * 10.0 + 1.0));
}

TEST(ClipPolygon, ExportKeepsTheClipAndThePolygon) {
  Clip clip;
  ClipBox b;
  b.centre = glm::dvec3(0, 0, 0);
  b.size = glm::dvec3(10, 10, 10);
  clip.boxes.push_back(b);
  ClipPolygon poly;
  poly.vertices = square(2, 20);
  const auto keep = export_keep(clip, &poly);
  EXPECT_TRUE(keep(glm::dvec3(3, 3, 0)));
  EXPECT_FALSE(keep(glm::dvec3(-3, -3, 0)));  // in the box, not the polygon
  EXPECT_FALSE(keep(glm::dvec3(8, 8, 0)));    // in the polygon, not the box
  const auto box = export_keep_box(clip, &poly);
  EXPECT_TRUE(box(glm::dvec3(2.5), glm::dvec3(3.5)));
  EXPECT_FALSE(box(glm::dvec3(-4), glm::dvec3(-3)));
  EXPECT_FALSE(box(glm::dvec3(8), glm::dvec3(9)));
  // Highlight boxes only tint: an export keeps their points and the rest.
  clip.boxes[0].mode = ClipMode::kHighlight;
  const auto tint = export_keep(clip, nullptr);
  EXPECT_TRUE(tint(glm::dvec3(0)));
  EXPECT_TRUE(tint(glm::dvec3(100)));
  EXPECT_TRUE(export_keep_box(clip, nullptr)(glm::dvec3(90), glm::dvec3(100)));
  // No clip, no polygon: everything; a bad polygon: nothing.
  EXPECT_TRUE(export_keep(Clip{}, nullptr)(glm::dvec3(1e9)));
  poly.vertices.resize(2);
  EXPECT_FALSE(export_keep(Clip{}, &poly)(glm::dvec3(3)));
}

}  // namespace
}  // namespace pr
