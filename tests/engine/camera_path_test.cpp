// Camera paths (engine/camera_path.h) against closed forms: two keys and collinear equally spaced
// keys move along a straight line at constant speed, each key is passed at its time with its
// pose, slerp about one axis turns at a constant rate (yaw 350 -> 10 through 0, not 180; straight
// down keeps its heading), constant speed makes equal arc steps where key times do not, a loop
// repeats and is smooth where it closes, and bad paths are named. tests/engine/path_compare.py
// checks the spline and the slerp against an independent NumPy and pyquaternion computation.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/camera_path.h"

namespace pr {
namespace {

CameraPose pose(double x, double y, double z, double yaw, double pitch) {
  CameraPose p;
  p.position = {x, y, z};
  p.yaw_deg = yaw;
  p.pitch_deg = pitch;
  return p;
}

/// The difference of two angles in degrees, in (-180, 180].
double angle_diff(double a, double b) {
  return std::remainder(a - b, 360.0);
}

/// The arc length of the path's positions between times a and b, by 64 chords.
double arc_between(const CameraPathPlayer& p, double a, double b) {
  double len = 0.0;
  glm::dvec3 last = p.at(a).position;
  for (int k = 1; k <= 64; ++k) {
    const glm::dvec3 q = p.at(a + (b - a) * k / 64.0).position;
    len += glm::length(q - last);
    last = q;
  }
  return len;
}

/// The largest and smallest arc step between `n` + 1 equally spaced times of the whole path.
void arc_steps(const CameraPathPlayer& p, int n, double* lo, double* hi) {
  *lo = 1e300, *hi = 0.0;
  for (int k = 0; k < n; ++k) {
    const double s =
        arc_between(p, p.start() + p.duration() * k / n, p.start() + p.duration() * (k + 1) / n);
    *lo = std::min(*lo, s), *hi = std::max(*hi, s);
  }
}

/// An uneven, curved path: keys close together, then far apart, with turns.
CameraPath curved_path() {
  return path_at_equal_times({pose(0, 0, 0, 0, 0), pose(1, 0, 0.5, 20, -5),
                              pose(30, 5, 10, 60, -20), pose(32, 5, 40, 120, 10)},
                             9.0, false);
}

TEST(CameraPath, TwoKeysMoveAlongAStraightLineAtConstantSpeed) {
  const CameraPath path =
      path_at_equal_times({pose(1, 2, 3, 10, 0), pose(11, -18, 8, 40, 0)}, 4.0, false);
  const CameraPathPlayer p(path);
  EXPECT_DOUBLE_EQ(p.duration(), 4.0);
  EXPECT_NEAR(p.length(), std::sqrt(100.0 + 400.0 + 25.0), 1e-9);
  for (double t = 0.0; t <= 4.0; t += 0.25) {
    const glm::dvec3 want = glm::dvec3(1, 2, 3) + (t / 4.0) * glm::dvec3(10, -20, 5);
    EXPECT_NEAR(glm::length(p.at(t).position - want), 0.0, 1e-9) << "t " << t;
    // Yaw alone at pitch 0: one axis, turned at a constant rate.
    EXPECT_NEAR(angle_diff(p.at(t).yaw_deg, 10.0 + 30.0 * t / 4.0), 0.0, 1e-9) << "t " << t;
    EXPECT_NEAR(p.at(t).pitch_deg, 0.0, 1e-9);
  }
}

TEST(CameraPath, CollinearEquallySpacedKeysMoveUniformly) {
  std::vector<CameraPose> poses;
  for (int i = 0; i < 5; ++i) poses.push_back(pose(2.0 * i, 1.0, -3.0 * i, 0, 0));
  const CameraPathPlayer p(path_at_equal_times(poses, 8.0, false));
  for (double t = 0.0; t <= 8.0; t += 0.1) {
    const glm::dvec3 want(0.5 * t * 2.0, 1.0, -0.5 * t * 3.0);  // a key each 2 s
    EXPECT_NEAR(glm::length(p.at(t).position - want), 0.0, 1e-9) << "t " << t;
  }
}

TEST(CameraPath, EachKeyIsPassedAtItsTimeWithItsPose) {
  const CameraPath path = curved_path();
  const CameraPathPlayer p(path);
  for (const CameraKey& k : path.keys) {
    const CameraPose at = p.at(k.time);
    EXPECT_NEAR(glm::length(at.position - k.pose.position), 0.0, 1e-9) << "t " << k.time;
    EXPECT_NEAR(angle_diff(at.yaw_deg, k.pose.yaw_deg), 0.0, 1e-7) << "t " << k.time;
    EXPECT_NEAR(at.pitch_deg, k.pose.pitch_deg, 1e-7) << "t " << k.time;
  }
  // Before the start and after the end: the end keys' poses.
  EXPECT_NEAR(glm::length(p.at(-5.0).position - path.keys[0].pose.position), 0.0, 1e-12);
  EXPECT_NEAR(glm::length(p.at(50.0).position - path.keys[3].pose.position), 0.0, 1e-9);
}

TEST(CameraPath, PitchAloneTurnsAtAConstantRate) {
  const CameraPathPlayer p(
      path_at_equal_times({pose(0, 0, 0, 25, -40), pose(0, 0, 1, 25, 30)}, 1.0, false));
  for (double u = 0.0; u <= 1.0; u += 0.125) {
    EXPECT_NEAR(p.at(u).pitch_deg, -40.0 + 70.0 * u, 1e-9) << "u " << u;
    EXPECT_NEAR(angle_diff(p.at(u).yaw_deg, 25.0), 0.0, 1e-9) << "u " << u;
  }
}

TEST(CameraPath, YawWrapsTheShortWayThroughZero) {
  const CameraPathPlayer p(
      path_at_equal_times({pose(0, 0, 0, 350, 0), pose(1, 0, 0, 10, 0)}, 2.0, false));
  EXPECT_NEAR(angle_diff(p.at(1.0).yaw_deg, 0.0), 0.0, 1e-9);
  for (double t = 0.0; t <= 2.0; t += 0.1) {
    const double yaw = p.at(t).yaw_deg;
    EXPECT_NEAR(angle_diff(yaw, 350.0 + 10.0 * t), 0.0, 1e-9) << "t " << t;
    // Continuous on the first key's branch: from 350 up to 370.
    EXPECT_GE(yaw, 350.0 - 1e-9);
    EXPECT_LE(yaw, 370.0 + 1e-9);
  }
  // And the other way: -170 to 170 passes 180, not 0.
  const CameraPathPlayer q(
      path_at_equal_times({pose(0, 0, 0, -170, 0), pose(1, 0, 0, 170, 0)}, 2.0, false));
  EXPECT_NEAR(std::abs(angle_diff(q.at(1.0).yaw_deg, 0.0)), 180.0, 1e-9);
}

TEST(CameraPath, StraightDownKeepsItsHeadingAndTurnsAboutTheVertical) {
  const CameraPathPlayer p(
      path_at_equal_times({pose(0, 10, 0, 0, -90), pose(0, 10, 1, 90, -90)}, 1.0, false));
  for (double u = 0.0; u <= 1.0; u += 0.25) {
    EXPECT_NEAR(p.at(u).pitch_deg, -90.0, 1e-6) << "u " << u;
    EXPECT_NEAR(angle_diff(p.at(u).yaw_deg, 90.0 * u), 0.0, 1e-6) << "u " << u;
  }
}

TEST(CameraPath, ConstantSpeedMakesEqualArcSteps) {
  CameraPath path = curved_path();
  double lo = 0, hi = 0;
  arc_steps(CameraPathPlayer(path), 90, &lo, &hi);
  EXPECT_GT(hi, 5.0 * lo) << "the keys' times make uneven steps on this path";
  path.constant_speed = true;
  const CameraPathPlayer p(path);
  arc_steps(p, 90, &lo, &hi);
  EXPECT_NEAR(lo, p.length() / 90.0, 1e-4 * p.length() / 90.0);
  EXPECT_NEAR(hi, p.length() / 90.0, 1e-4 * p.length() / 90.0);
  // It still starts and ends at the end keys, in the same time.
  EXPECT_NEAR(glm::length(p.at(0.0).position - path.keys[0].pose.position), 0.0, 1e-9);
  EXPECT_NEAR(glm::length(p.at(9.0).position - path.keys[3].pose.position), 0.0, 1e-9);
  EXPECT_NEAR(angle_diff(p.at(9.0).yaw_deg, 120.0), 0.0, 1e-7);
}

TEST(CameraPath, ALoopRepeatsAndIsSmoothWhereItCloses) {
  CameraPath path = path_at_equal_times(
      {pose(0, 0, 0, 0, 0), pose(10, 0, 0, 90, 0), pose(10, 0, 10, 180, 0), pose(0, 0, 10, 270, 0)},
      8.0, true);
  EXPECT_DOUBLE_EQ(path.keys[3].time, 6.0);  // 8 s a round, 4 segments of 2 s
  const CameraPathPlayer p(path);
  EXPECT_DOUBLE_EQ(p.duration(), 8.0);
  EXPECT_EQ(p.segments(), 4);
  for (double t = 0.0; t < 8.0; t += 0.7) {
    EXPECT_NEAR(glm::length(p.at(t).position - p.at(t + 8.0).position), 0.0, 1e-9);
    EXPECT_NEAR(glm::length(p.at(t).position - p.at(t - 16.0).position), 0.0, 1e-9);
  }
  // The closing segment ends at the first key, and the velocity is the same either side of it
  // (a square's corners on a closed centripetal spline: symmetric, so equal by symmetry too).
  EXPECT_NEAR(glm::length(p.at(8.0).position - path.keys[0].pose.position), 0.0, 1e-9);
  const double h = 1e-4;
  const glm::dvec3 before = (p.at(8.0).position - p.at(8.0 - h).position) / h;
  const glm::dvec3 after = (p.at(8.0 + h).position - p.at(8.0).position) / h;
  EXPECT_NEAR(glm::length(before - after), 0.0, 1e-3 * glm::length(before));
  EXPECT_GT(glm::length(before), 1.0);
  // The yaw goes on turning the same way through the closing segment: 270 -> 360.
  EXPECT_NEAR(angle_diff(p.at(7.0).yaw_deg, 315.0), 0.0, 1e-9);
}

TEST(CameraPath, RepeatedKeysTurnInPlace) {
  // The camera stops at a point and turns there: the segment between the repeated keys stays put,
  // and the segments beside it stay finite.
  const CameraPathPlayer p(path_at_equal_times(
      {pose(0, 0, 0, 0, 0), pose(5, 0, 0, 0, 0), pose(5, 0, 0, 90, 0), pose(5, 0, 5, 90, 0)}, 3.0,
      false));
  for (double t = 1.0; t <= 2.0; t += 0.125)
    EXPECT_NEAR(glm::length(p.at(t).position - glm::dvec3(5, 0, 0)), 0.0, 1e-12) << "t " << t;
  for (double t = 0.0; t <= 3.0; t += 0.01) {
    const glm::dvec3 q = p.at(t).position;
    ASSERT_TRUE(std::isfinite(q.x) && std::isfinite(q.y) && std::isfinite(q.z)) << "t " << t;
  }
  EXPECT_NEAR(angle_diff(p.at(1.5).yaw_deg, 45.0), 0.0, 1e-9);
}

TEST(CameraPath, OneKeyHoldsItsPose) {
  const CameraPathPlayer p(path_at_equal_times({pose(1, 2, 3, 4, 5)}, 10.0, false));
  EXPECT_EQ(p.segments(), 0);
  EXPECT_DOUBLE_EQ(p.duration(), 0.0);
  EXPECT_EQ(p.at(3.0).position, glm::dvec3(1, 2, 3));
  EXPECT_DOUBLE_EQ(p.at(3.0).yaw_deg, 4.0);
}

TEST(CameraPath, BadPathsAreNamed) {
  std::string why;
  EXPECT_FALSE(validate_path(CameraPath{}, &why));
  EXPECT_EQ(why, "camera path: no keys");
  CameraPath path = curved_path();
  EXPECT_TRUE(validate_path(path, &why)) << why;
  path.keys[2].time = path.keys[1].time;
  EXPECT_FALSE(validate_path(path, &why));
  EXPECT_EQ(why, "camera path: key 3: its time (3 s) must come after key 2's (3 s)");
  path = curved_path();
  path.keys[1].pose.pitch_deg = 95.0;
  EXPECT_FALSE(validate_path(path, &why));
  EXPECT_EQ(why, "camera path: key 2: pitch 95 lies beyond +-90 degrees");
  path = curved_path();
  path.keys[0].pose.position.x = std::nan("");
  EXPECT_FALSE(validate_path(path, &why));
  EXPECT_NE(why.find("key 1"), std::string::npos) << why;
}

TEST(CameraPath, PosesOfCamerasRoundTrip) {
  Camera c;
  c.up_axis = UpAxis::kZ;
  c.focus = 2.5;
  apply_pose(pose(7, 8, 9, 270, -90), c);
  EXPECT_EQ(c.position, glm::dvec3(7, 8, 9));
  EXPECT_NEAR(c.yaw, -3.14159265358979323846 / 2.0, 1e-12);  // 270 is -90
  EXPECT_NEAR(c.pitch, -3.14159265358979323846 / 2.0, 1e-12);
  EXPECT_EQ(c.focus, 2.5);
  EXPECT_EQ(c.up_axis, UpAxis::kZ);
  const CameraPose back = camera_pose(c);
  EXPECT_NEAR(angle_diff(back.yaw_deg, 270.0), 0.0, 1e-9);
  EXPECT_NEAR(back.pitch_deg, -90.0, 1e-9);
  apply_pose(pose(0, 0, 0, 0, 120), c);
  EXPECT_NEAR(c.pitch, 3.14159265358979323846 / 2.0, 1e-12);  // held to straight up
}

}  // namespace
}  // namespace pr
