// The camera (engine/camera.h): its axes against the NumPy/CuPy projection's the project grew from,
// focus and field of view, pitch limits, look_at(), frame(), local moves, and the z-up convention
// of files.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/camera.h"

namespace pr {
namespace {

TEST(Camera, RowsAreOrthonormalAndRightHandedLikeTheSeed) {
  for (double yaw : {0.0, 0.3, -2.0, 3.0}) {
    for (double pitch : {0.0, 0.7, -1.2}) {
      Camera c;
      c.yaw = yaw;
      c.pitch = pitch;
      const glm::dvec3 r = c.right(), u = c.up(), f = c.forward();
      EXPECT_NEAR(glm::length(r), 1.0, 1e-12);
      EXPECT_NEAR(glm::length(u), 1.0, 1e-12);
      EXPECT_NEAR(glm::length(f), 1.0, 1e-12);
      EXPECT_NEAR(glm::dot(r, u), 0.0, 1e-12);
      EXPECT_NEAR(glm::dot(r, f), 0.0, 1e-12);
      const glm::dvec3 x = glm::cross(r, u);  // the y-up identity: x cross y = z
      EXPECT_NEAR(glm::length(x - f), 0.0, 1e-12);
      EXPECT_GT(u.y, 0.0);  // never upside down
    }
  }
}

TEST(Camera, FocusAndFieldOfView) {
  Camera c;
  c.focus = 1.0;
  EXPECT_NEAR(c.vfov(), 3.14159265358979 / 2.0, 1e-12);  // tan(45 deg) = 1
  EXPECT_NEAR(Camera::focus_for_vfov(c.vfov()), 1.0, 1e-12);
  c.focus = 5.0;
  EXPECT_NEAR(c.vfov() * 180.0 / 3.14159265358979, 22.619864948, 1e-6);
}

TEST(Camera, PitchIsClamped) {
  Camera c;
  c.turn(0.0, 10.0);
  EXPECT_LT(c.pitch, 3.14159265358979 / 2.0);
  c.turn(0.0, -20.0);
  EXPECT_GT(c.pitch, -3.14159265358979 / 2.0);
}

TEST(Camera, LookAtPointsForwardAtTarget) {
  Camera c;
  c.position = {10, 20, 30};
  c.look_at({-5, 0, 100});
  const glm::dvec3 d = glm::normalize(glm::dvec3(-5, 0, 100) - c.position);
  EXPECT_NEAR(glm::length(c.forward() - d), 0.0, 1e-9);
}

TEST(Camera, FrameKeepsAllCornersInView) {
  Bounds b;
  b.extend({1000.0, -20.0, 5000.0});
  b.extend({1300.0, 80.0, 5100.0});
  for (double aspect : {0.5, 1.0, 16.0 / 9.0}) {
    Camera c;
    c.yaw = 0.8;
    c.pitch = -0.4;
    c.focus = 2.0;
    c.frame(b, aspect);
    const int h = 400, w = int(400 * aspect);
    const ProjParams p = c.params(w, h, b.center());
    for (int i = 0; i < 8; ++i) {
      const glm::dvec3 corner{i & 1 ? b.max.x : b.min.x, i & 2 ? b.max.y : b.min.y,
                              i & 4 ? b.max.z : b.min.z};
      const glm::dvec3 local = corner - b.center();
      int ix, iy;
      uint64_t key;
      EXPECT_TRUE(
          project_to_pixel(p, float(local.x), float(local.y), float(local.z), 0, ix, iy, key))
          << "corner " << i << " aspect " << aspect;
    }
  }
}

TEST(Camera, MoveLocalFollowsAxes) {
  Camera c;
  c.position = {0, 0, 0};
  c.yaw = 3.14159265358979 / 2.0;  // looking along +x
  c.move_local({0, 0, 2});
  EXPECT_NEAR(c.position.x, 2.0, 1e-9);
  EXPECT_NEAR(c.position.z, 0.0, 1e-9);
}

TEST(Camera, ZUpLooksNorthWithEastOnTheRightNotMirrored) {
  Camera c;
  c.up_axis = UpAxis::kZ;
  c.position = {0, 0, 0};
  EXPECT_NEAR(glm::length(c.forward() - glm::dvec3(0, 1, 0)), 0.0, 1e-12);
  EXPECT_NEAR(glm::length(c.up() - glm::dvec3(0, 0, 1)), 0.0, 1e-12);
  EXPECT_NEAR(glm::length(c.right() - glm::dvec3(1, 0, 0)), 0.0, 1e-12);
  // Right-handed world: right = forward x up (the y-up frame has right = up x forward).
  for (double yaw : {0.0, 0.7, -2.5})
    for (double pitch : {0.0, 0.4, -1.1}) {
      c.yaw = yaw;
      c.pitch = pitch;
      EXPECT_NEAR(glm::length(glm::cross(c.forward(), c.up()) - c.right()), 0.0, 1e-12);
      EXPECT_GT(c.up().z, 0.0);
    }
  // A point north-east and above, seen looking north: right half, upper half of the image.
  c.yaw = 0.0;
  c.pitch = 0.0;
  const ProjParams p = c.params(200, 100, glm::dvec3(0.0));
  int ix, iy;
  uint64_t key;
  ASSERT_TRUE(project_to_pixel(p, 1.0f, 10.0f, 1.0f, 0, ix, iy, key));  // focus 5: u = w = 0.5
  EXPECT_GT(ix, 100);
  EXPECT_LT(iy, 50);
  EXPECT_EQ(key_depth(key), 10.0f);
  // Yaw turns about +z: a quarter turn right looks east.
  c.turn(3.14159265358979 / 2.0, 0.0);
  EXPECT_NEAR(glm::length(c.forward() - glm::dvec3(1, 0, 0)), 0.0, 1e-12);
}

TEST(Camera, ZUpLookAtAndFrame) {
  Camera c;
  c.up_axis = UpAxis::kZ;
  c.position = {100, 200, 50};
  c.look_at({130, 260, 20});
  const glm::dvec3 d = glm::normalize(glm::dvec3(30, 60, -30));
  EXPECT_NEAR(glm::length(c.forward() - d), 0.0, 1e-9);
  Bounds b;
  b.extend({636000.0, 848900.0, 400.0});
  b.extend({637200.0, 849500.0, 520.0});
  c.pitch = -0.5;
  c.frame(b, 16.0 / 9.0);
  const ProjParams p = c.params(1600, 900, b.center());
  for (int i = 0; i < 8; ++i) {
    const glm::dvec3 corner{i & 1 ? b.max.x : b.min.x, i & 2 ? b.max.y : b.min.y,
                            i & 4 ? b.max.z : b.min.z};
    const glm::dvec3 local = corner - b.center();
    int ix, iy;
    uint64_t key;
    EXPECT_TRUE(project_to_pixel(p, float(local.x), float(local.y), float(local.z), 0, ix, iy, key))
        << "corner " << i;
  }
}

}  // namespace
}  // namespace pr
