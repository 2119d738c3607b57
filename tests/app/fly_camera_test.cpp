// The fly camera: motion per second at any frame rate, mouse-look and the wheel.
#include "viewer/fly_camera.h"

#include <gtest/gtest.h>

#include <glm/glm.hpp>

TEST(FlyCamera, MotionIsFrameRateIndependent) {
  pr::FlyCamera fly;
  fly.speed = 3.0;
  fly.set_key(pr::FlyCamera::kForward, true);
  pr::Camera a, b;
  a.yaw = b.yaw = 0.4;
  for (int i = 0; i < 100; ++i) fly.update(a, 0.01);  // 100 fps for 1 s
  for (int i = 0; i < 5; ++i) fly.update(b, 0.2);     // 5 fps for 1 s
  EXPECT_NEAR(glm::length(a.position - b.position), 0.0, 1e-9);
  const glm::dvec3 moved = a.position - glm::dvec3(0, 0, 10);
  EXPECT_NEAR(glm::length(moved), 3.0, 1e-9);
  EXPECT_GT(glm::dot(moved, a.forward()), 2.99);
  fly.set_key(pr::FlyCamera::kFast, true);
  pr::Camera c;
  fly.update(c, 0.1);
  EXPECT_NEAR(glm::length(c.position - glm::dvec3(0, 0, 10)), 3.0 * fly.fast_factor * 0.1, 1e-9);
}

TEST(FlyCamera, MouseRightTurnsRightAndWheelScalesSpeed) {
  pr::FlyCamera fly;
  pr::Camera c;
  const glm::dvec3 right = c.right();
  fly.look(c, 100.0, 0.0);
  EXPECT_GT(glm::dot(c.forward(), right), 0.2);  // now looking partly toward the old right
  fly.look(c, 0.0, -100.0);                      // mouse up looks up
  EXPECT_GT(c.pitch, 0.2);
  const double s = fly.speed;
  fly.wheel(2.0);
  EXPECT_NEAR(fly.speed, s * 1.44, 1e-9);
}
