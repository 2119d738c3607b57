// The orthographic camera and the standard views: the projection against its formula in double,
// the perspective path untouched, the vectorized batch projection, known points on predicted
// pixels, a top view of the terrain against an independent projection of its points, the
// standard views' axes for both up axes, framing, zoom, switching projections, and picks along
// parallel rays.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "engine/camera.h"
#include "engine/cpu_renderer.h"
#include "engine/pick.h"
#include "engine/projection.h"
#include "engine/scenes.h"
#include "project_batch.h"
#include "random_camera.h"
#include "render_test_util.h"

namespace pr {
namespace {

constexpr double kHalfPi = 1.5707963267948966;

TEST(Ortho, ProjectsAlongParallelRays) {
  // u = c.x k, w = c.y k, depth = c.z, in double against the float projection; points behind the
  // near plane are culled as in perspective.
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-50.0, 50.0), ang(-1.5, 1.5);
  int checked = 0, culled = 0;
  for (int c = 0; c < 20; ++c) {
    Camera cam;
    cam.projection = Projection::kOrthographic;
    cam.position = {u(rng), u(rng), u(rng)};
    cam.yaw = ang(rng) * 2.0;
    cam.pitch = ang(rng);
    cam.ortho_height = 1.0 + std::abs(u(rng));
    cam.up_axis = c % 2 ? UpAxis::kZ : UpAxis::kY;
    const ProjParams p = cam.params(640, 480, glm::dvec3(0.0));
    ASSERT_FLOAT_EQ(p.ortho, float(2.0 / cam.ortho_height));
    for (int i = 0; i < 2000; ++i) {
      const glm::dvec3 v{float(u(rng)), float(u(rng)), float(u(rng))};
      const glm::dvec3 d = v - cam.position;
      const double cx = glm::dot(d, cam.right()), cy = glm::dot(d, cam.up());
      const double cz = glm::dot(d, cam.forward());
      const Projected q = project(p, float(v.x), float(v.y), float(v.z));
      if (cz < cam.near_z - 1e-3) {
        EXPECT_FALSE(q.visible);
        ++culled;
        continue;
      }
      if (cz < cam.near_z + 1e-3) continue;
      ASSERT_TRUE(q.visible);
      const double k = 2.0 / cam.ortho_height;
      EXPECT_NEAR(q.u, cx * k, 1e-5 * (1.0 + std::abs(cx * k)) + 2e-5 * 100.0 * k);
      EXPECT_NEAR(q.w, cy * k, 1e-5 * (1.0 + std::abs(cy * k)) + 2e-5 * 100.0 * k);
      EXPECT_NEAR(q.depth, cz, 1e-4 * (1.0 + std::abs(cz)));
      ++checked;
    }
  }
  EXPECT_GT(checked, 10000);
  EXPECT_GT(culled, 10000);
}

TEST(Ortho, PerspectiveFactorIsTheDivisionItWas) {
  // A perspective camera's ProjParams::ortho is 0 and project() computes u = c.x (focus / c.z),
  // the very float operations of the pinhole model.
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> u(-20.0f, 20.0f);
  Camera cam;
  cam.position = {1.0, 2.0, -30.0};
  cam.yaw = 0.1;
  const ProjParams p = cam.params(320, 200, glm::dvec3(0.0));
  EXPECT_EQ(p.ortho, 0.0f);
  for (int i = 0; i < 1000; ++i) {
    const float x = u(rng), y = u(rng), z = u(rng);
    float cx, cy, cz;
    to_camera(p, x, y, z, cx, cy, cz);
    const float f = p.focus / cz;
    const Projected q = project(p, x, y, z);
    EXPECT_EQ(float_bits(q.u), float_bits(cx * f));
    EXPECT_EQ(float_bits(q.w), float_bits(cy * f));
  }
}

TEST(Ortho, BatchProjectionEqualsScalarProjectionBitForBit) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-60.0f, 60.0f);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Bounds world;
  world.extend(glm::dvec3(-60.0));
  world.extend(glm::dvec3(60.0));
  for (int c = 0; c < 8; ++c) {
    const Camera cam = test::random_camera(rng, world, true);
    const int w = 100 + 97 * c, h = 60 + 41 * c;
    const ProjParams p = cam.params(w, h, glm::dvec3(0.0));
    const size_t n = 4099;
    std::vector<float> xyz(3 * n);
    for (auto& v : xyz) v = u(rng);
    xyz[3 * 5] = nan;
    xyz[3 * 6 + 1] = std::numeric_limits<float>::infinity();
    std::vector<uint32_t> pix(n);
    std::vector<float> dep(n);
    project_batch(p, xyz.data(), n, pix.data(), dep.data());
    for (size_t i = 0; i < n; ++i) {
      int ix = -1, iy = -1;
      uint64_t key = 0;
      const bool hit =
          project_to_pixel(p, xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2], uint32_t(i), ix, iy, key);
      ASSERT_EQ(hit, pix[i] != ~0u) << "point " << i << " camera " << c;
      if (!hit) continue;
      EXPECT_EQ(pix[i], uint32_t(iy) * uint32_t(w) + uint32_t(ix));
      EXPECT_EQ(pack_key(dep[i], uint32_t(i)), key);
    }
  }
}

/// A cloud of the given points, each its own color.
PointCloud points_cloud(const std::vector<glm::dvec3>& pts) {
  PointCloud c;
  for (size_t i = 0; i < pts.size(); ++i) {
    c.positions.push_back(Float3{float(pts[i].x), float(pts[i].y), float(pts[i].z)});
    c.colors.push_back(rgba(uint8_t(10 + i), uint8_t(200 - i), 77));
  }
  return c;
}

TEST(Ortho, KnownPointsLandOnPredictedPixels) {
  // A top view of a z-up cloud, 8 world units high on a 200 x 100 image (k = 0.25, 50 pixels a
  // unit of the image plane, so 12.5 pixels a world unit): east is +px, north is -py, whatever
  // the height. The same with y up.
  for (const UpAxis up : {UpAxis::kZ, UpAxis::kY}) {
    const bool z_up = up == UpAxis::kZ;
    auto world = [&](double east, double north, double height) {
      return z_up ? glm::dvec3(east, north, height) : glm::dvec3(east, height, north);
    };
    const PointCloud cloud = points_cloud({world(2.5, -1.25, 0.0), world(-3.0, 1.5, -40.0)});
    Camera cam;
    cam.up_axis = up;
    cam.projection = Projection::kOrthographic;
    cam.set_view(StandardView::kTop, cloud.world_bounds(), 2.0);
    cam.ortho_height = 8.0;
    cam.position = world(0.0, 0.0, 100.0);
    CpuRenderer r(1);
    ASSERT_TRUE(r.set_cloud(cloud, nullptr));
    RenderSettings rs;
    rs.width = 200;
    rs.height = 100;
    rs.background = test::kBg;
    rs.want_depth = true;
    const Image img = test::render(r, cam, rs);
    // px = 100 + 12.5 east, py = 50 - 12.5 north.
    EXPECT_EQ(img.at(131, 65), cloud.colors[0] | kOpaqueAlpha);  // 131.25, 65.625
    EXPECT_EQ(img.at(62, 31), cloud.colors[1] | kOpaqueAlpha);   // 62.5, 31.25
    EXPECT_EQ(img.depth[size_t(65) * 200 + 131], 100.0f);
    EXPECT_EQ(img.depth[size_t(31) * 200 + 62], 140.0f);
    EXPECT_EQ(test::count_drawn(img), 2u);
  }
}

TEST(Ortho, TopViewOfTheTerrainMatchesAnIndependentProjection) {
  // Every point projected in double (x right, z up on the image for the y-up terrain seen from
  // above): a point clearly inside a pixel (not within 1e-3 of its edges) draws that pixel, at a
  // depth no greater than its own; every drawn pixel holds such a point's color and depth, or
  // one near an edge.
  const PointCloud cloud = make_scene("terrain", 100'000);
  const int W = 160, H = 120;
  Camera cam;
  cam.projection = Projection::kOrthographic;
  cam.set_view(StandardView::kTop, cloud.world_bounds(), double(W) / H);
  CpuRenderer r(2);
  ASSERT_TRUE(r.set_cloud(cloud, nullptr));
  RenderSettings rs;
  rs.width = W;
  rs.height = H;
  rs.background = test::kBg;
  rs.want_depth = true;
  const Image img = test::render(r, cam, rs);
  const double k = 2.0 / cam.ortho_height, s = H * 0.5;
  const glm::dvec3 o = cloud.origin;
  std::vector<double> best(size_t(W) * H, 1e300);
  std::vector<uint8_t> near_edge(size_t(W) * H, 0);
  size_t clear = 0;
  for (size_t i = 0; i < cloud.size(); ++i) {
    const Float3 q = cloud.positions[i];
    // The top view of a y-up cloud: right +x, up +z on the image, looking down -y.
    const double px = (double(q.x) + o.x - cam.position.x) * k * s + W * 0.5;
    const double py = H * 0.5 - (double(q.z) + o.z - cam.position.z) * k * s;
    const double depth = cam.position.y - (double(q.y) + o.y);
    ASSERT_GT(depth, cam.near_z) << "the framed camera is above every point";
    if (!(px >= 0 && px < W && py >= 0 && py < H)) continue;
    const size_t at = size_t(py) * W + size_t(px);
    const double ex = px - std::floor(px), ey = py - std::floor(py);
    if (ex < 1e-3 || ex > 1 - 1e-3 || ey < 1e-3 || ey > 1 - 1e-3) {
      // It may land in either pixel of the edge.
      for (const double dx : {-1e-3, 1e-3})
        for (const double dy : {-1e-3, 1e-3}) {
          const double qx = px + dx, qy = py + dy;
          if (qx >= 0 && qx < W && qy >= 0 && qy < H) near_edge[size_t(qy) * W + size_t(qx)] = 1;
        }
      continue;
    }
    ++clear;
    ASSERT_NE(img.rgba[at], test::kBg) << "point " << i << " at " << px << ", " << py;
    best[at] = std::min(best[at], depth);
  }
  EXPECT_GT(clear, 50'000u);
  size_t drawn = 0;
  for (size_t at = 0; at < best.size(); ++at) {
    if (img.rgba[at] == test::kBg) continue;
    ++drawn;
    if (near_edge[at]) continue;
    ASSERT_LT(best[at], 1e300) << "pixel " << at << " drawn without a point";
    EXPECT_NEAR(img.depth[at], best[at], 1e-4 * (1.0 + best[at])) << "pixel " << at;
  }
  EXPECT_GT(drawn, size_t(W) * H / 2);
}

TEST(Ortho, StandardViewsFaceAlongTheAxes) {
  struct Want {
    StandardView v;
    glm::dvec3 forward, right;  // in the y-up frame: (east, up, north)
  };
  const Want wants[] = {
      {StandardView::kTop, {0, -1, 0}, {1, 0, 0}},  {StandardView::kBottom, {0, 1, 0}, {1, 0, 0}},
      {StandardView::kFront, {0, 0, 1}, {1, 0, 0}}, {StandardView::kBack, {0, 0, -1}, {-1, 0, 0}},
      {StandardView::kLeft, {1, 0, 0}, {0, 0, -1}}, {StandardView::kRight, {-1, 0, 0}, {0, 0, 1}},
  };
  Bounds b;
  b.extend(glm::dvec3(-1.0, -2.0, -3.0));
  b.extend(glm::dvec3(4.0, 5.0, 6.0));
  for (const UpAxis up : {UpAxis::kY, UpAxis::kZ}) {
    for (const Want& w : wants) {
      Camera cam;
      cam.up_axis = up;
      cam.set_view(w.v, b, 1.5);
      const char* name = standard_view_name(w.v);
      // For z up, (east, up, north) is (x, z, y).
      auto to_up = [&](glm::dvec3 v) { return up == UpAxis::kZ ? glm::dvec3(v.x, v.z, v.y) : v; };
      for (int a = 0; a < 3; ++a) {
        EXPECT_NEAR(cam.forward()[a], to_up(w.forward)[a], 1e-15) << name;
        EXPECT_NEAR(cam.right()[a], to_up(w.right)[a], 1e-15) << name;
      }
      // The camera's axes stay a rotation (or, z up, its mirror) even straight up or down.
      EXPECT_NEAR(glm::length(cam.up()), 1.0, 1e-15) << name;
      EXPECT_NEAR(glm::dot(cam.up(), cam.forward()), 0.0, 1e-15) << name;
      StandardView back;
      ASSERT_TRUE(parse_standard_view(name, &back));
      EXPECT_EQ(back, w.v);
    }
  }
  StandardView v;
  EXPECT_TRUE(parse_standard_view("iso", &v));
  EXPECT_EQ(v, StandardView::kIso);
  EXPECT_FALSE(parse_standard_view("Top", &v));
  EXPECT_FALSE(parse_standard_view("", &v));
  // Top in z up: north up on the image.
  Camera top;
  top.up_axis = UpAxis::kZ;
  top.set_view(StandardView::kTop, b, 1.0);
  EXPECT_NEAR(top.up().y, 1.0, 1e-15);
  EXPECT_EQ(top.pitch, -kHalfPi);
}

TEST(Ortho, TurningFromStraightDownStaysDefined) {
  Camera cam;
  cam.pitch = -kHalfPi;
  cam.turn(0.3, 0.0);  // yawing straight down keeps the pitch
  EXPECT_EQ(cam.pitch, -kHalfPi);
  cam.turn(0.0, -0.5);  // and it goes no further
  EXPECT_EQ(cam.pitch, -kHalfPi);
  cam.turn(0.0, 0.2);
  EXPECT_NEAR(cam.pitch, -kHalfPi + 0.2, 1e-12);
  Camera level;
  level.turn(0.0, 10.0);  // from level, the limit short of straight up holds
  EXPECT_LT(level.pitch, kHalfPi - 0.005);
}

TEST(Ortho, FramingPutsTheBoxInFrontAndInsideTheImage) {
  Bounds b;
  b.extend(glm::dvec3(1000.0, -20.0, 3.0));
  b.extend(glm::dvec3(1300.0, 80.0, 9.0));
  const double aspect = 1.6;
  const int W = 320, H = 200;
  for (const UpAxis up : {UpAxis::kY, UpAxis::kZ})
    for (int v = 0; v <= int(StandardView::kIso); ++v) {
      Camera cam;
      cam.up_axis = up;
      cam.projection = Projection::kOrthographic;
      cam.set_view(StandardView(v), b, aspect);
      const ProjParams p = cam.params(W, H, glm::dvec3(0.0));
      double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300;
      for (int c = 0; c < 8; ++c) {
        const glm::dvec3 k{(c & 1) ? b.max.x : b.min.x, (c & 2) ? b.max.y : b.min.y,
                           (c & 4) ? b.max.z : b.min.z};
        const Projected q = project(p, float(k.x), float(k.y), float(k.z));
        ASSERT_TRUE(q.visible) << standard_view_name(StandardView(v));
        float px, py;
        pixel_coords(p, q, px, py);
        x0 = std::min(x0, double(px)), x1 = std::max(x1, double(px));
        y0 = std::min(y0, double(py)), y1 = std::max(y1, double(py));
      }
      // Inside the middle 90%, touching it on one axis, centred.
      const char* name = standard_view_name(StandardView(v));
      EXPECT_GE(x0, 0.05 * W - 0.01) << name;
      EXPECT_LE(x1, 0.95 * W + 0.01) << name;
      EXPECT_GE(y0, 0.05 * H - 0.01) << name;
      EXPECT_LE(y1, 0.95 * H + 0.01) << name;
      EXPECT_TRUE(std::abs(x1 - x0 - 0.9 * W) < 0.02 || std::abs(y1 - y0 - 0.9 * H) < 0.02) << name;
      EXPECT_NEAR(x0 + x1, W, 0.02) << name;
      EXPECT_NEAR(y0 + y1, H, 0.02) << name;
      // frame(): the bounding sphere inside the narrower side, the box in front.
      cam.frame(b, aspect);
      EXPECT_NEAR(cam.ortho_height, glm::length(b.size()), 1e-9);
      EXPECT_GT(glm::dot(b.center() - cam.position, cam.forward()), 0.5 * glm::length(b.size()));
    }
}

TEST(Ortho, ZoomAndSwitchingProjectionsKeepTheScaleAtTheCentre) {
  Bounds b;
  b.extend(glm::dvec3(-5.0, -5.0, -5.0));
  b.extend(glm::dvec3(5.0, 5.0, 5.0));
  Camera cam;
  cam.position = {0.0, 0.0, -40.0};
  cam.focus = 2.0;
  const Camera start = cam;
  cam.zoom(2.0);  // perspective: nothing
  EXPECT_EQ(cam.position, start.position);
  cam.set_projection(Projection::kOrthographic, b);
  EXPECT_TRUE(cam.ortho());
  // The centre 40 ahead: a world unit there is focus / 40 image-plane units in both.
  EXPECT_NEAR(cam.image_scale(1.0), 2.0 / 40.0, 1e-12);
  EXPECT_NEAR(start.image_scale(40.0), cam.image_scale(123.0), 1e-12);
  cam.zoom(2.0);
  EXPECT_NEAR(cam.ortho_height, 20.0, 1e-12);
  cam.zoom(0.5);
  EXPECT_NEAR(cam.ortho_height, 40.0, 1e-12);
  cam.set_projection(Projection::kPerspective, b);
  EXPECT_FALSE(cam.ortho());
  EXPECT_NEAR(glm::length(cam.position - start.position), 0.0, 1e-9);
  // From inside the box, the orthographic camera backs out of it: all of it in front.
  Camera inside;
  inside.position = {0.0, 0.0, 3.0};
  inside.set_projection(Projection::kOrthographic, b);
  EXPECT_LT(inside.position.z, -5.0);
  EXPECT_EQ(inside.position.x, 0.0);
  EXPECT_GT(inside.ortho_height, 0.0);
}

TEST(Ortho, PickFollowsParallelRays) {
  // Two points on one vertical line and one beside them, seen from above: the pick at their
  // pixel names the upper one (the nearer along the parallel ray), the other its own pixel.
  const PointCloud cloud =
      points_cloud({{1.0, 2.0, -5.0}, {1.0, 2.0, 3.0}, {-2.0, -1.0, 0.0}, {4.0, 4.0, 4.0}});
  Camera cam;
  cam.up_axis = UpAxis::kZ;
  cam.projection = Projection::kOrthographic;
  cam.set_view(StandardView::kTop, cloud.world_bounds(), 2.0);
  RenderSettings rs;
  rs.width = 200;
  rs.height = 100;
  rs.background = test::kBg;
  const ProjParams p = cam.params(rs.width, rs.height, cloud.origin);
  for (const uint64_t want : {uint64_t{1}, uint64_t{2}}) {
    const Float3 v = cloud.positions[want];
    int ix, iy;
    uint64_t key;
    ASSERT_TRUE(project_to_pixel(p, v.x, v.y, v.z, 0, ix, iy, key));
    const PickResult r = pick_point(cloud, nullptr, cam, rs, ix, iy, 0);
    ASSERT_TRUE(r.hit);
    EXPECT_EQ(r.index, want);
    EXPECT_NEAR(r.world.z, want == 1 ? 3.0 : 0.0, 1e-6);
  }
  // A click one pixel off finds the nearest drawn pixel within the radius.
  const PickResult near = pick_point(cloud, nullptr, cam, rs, 0, 0, 3);
  EXPECT_FALSE(near.hit);
}

}  // namespace
}  // namespace pr
