// Profiles (engine/profile.h): the corridor against a brute-force reference over random points
// at a UTM-size origin (one and several segments, any number of threads), stations and offsets
// worked out by hand, the unrolled frame, attributes carried over, the one-line errors of bad
// input, the export cloud, the camera and the span between two picks.
#include "engine/profile.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "engine/cpu_renderer.h"

namespace pr {
namespace {

const glm::dvec3 kUtm(636594.0, 5412310.0, 210.0);

PointCloud cloud_of(const std::vector<glm::dvec3>& world) {
  PointCloud c;
  c.origin = kUtm;
  c.resize(world.size());
  c.intensity.resize(world.size());
  c.classification.resize(world.size());
  for (size_t i = 0; i < world.size(); ++i) {
    const glm::dvec3 l = world[i] - kUtm;
    c.positions[i] = {float(l.x), float(l.y), float(l.z)};
    c.colors[i] = rgba(uint8_t(i), 20, 30);
    c.intensity[i] = float(i);
    c.classification[i] = uint8_t(i % 7);
  }
  return c;
}

glm::dvec3 world_of(const PointCloud& c, size_t i) {
  const Float3& f = c.positions[i];
  return c.origin + glm::dvec3(f.x, f.y, f.z);
}

TEST(Profile, OneSegmentStationsOffsetsAndFrame) {
  const glm::dvec3 a = kUtm + glm::dvec3(10.0, 0.0, 0.0);
  // Along +x: the offset is +y (to the left walking east).
  const PointCloud c = cloud_of({a + glm::dvec3(5.0, 1.0, 3.0), a + glm::dvec3(2.0, -1.5, -1.0),
                                 a + glm::dvec3(7.0, 2.5, 0.0), a + glm::dvec3(-0.5, 0.0, 0.0),
                                 a + glm::dvec3(20.5, 0.0, 0.0), a + glm::dvec3(20.0, -2.0, 4.0)});
  Profile prof{{a, a + glm::dvec3(20.0, 0.0, 5.0)}, 4.0};
  ProfileCloud p;
  std::string err;
  ASSERT_TRUE(extract_profile(c, prof, UpAxis::kZ, &p, &err)) << err;
  ASSERT_EQ(p.cloud.size(), 3u);
  EXPECT_EQ(p.source[0], 0u);
  EXPECT_EQ(p.source[1], 1u);
  EXPECT_EQ(p.source[2], 5u);  // on the corridor's edge at the line's end: inside
  EXPECT_DOUBLE_EQ(p.length, 20.0);
  EXPECT_NEAR(p.station[0], 5.0, 1e-6);
  EXPECT_NEAR(p.offset[0], 1.0, 1e-6);
  EXPECT_NEAR(p.station[1], 2.0, 1e-6);
  EXPECT_NEAR(p.offset[1], -1.5, 1e-6);
  EXPECT_NEAR(p.station[2], 20.0, 1e-6);
  for (size_t k = 0; k < p.cloud.size(); ++k) {
    const glm::dvec3 u = world_of(p.cloud, k);
    EXPECT_NEAR(u.x, p.station[k], 1e-5);
    EXPECT_NEAR(u.y, p.offset[k], 1e-5);
    EXPECT_NEAR(u.z, world_of(c, p.source[k]).z, 1e-5);
    EXPECT_EQ(p.cloud.colors[k], c.colors[p.source[k]]);
    EXPECT_EQ(p.cloud.intensity[k], c.intensity[p.source[k]]);
    EXPECT_EQ(p.cloud.classification[k], c.classification[p.source[k]]);
  }
}

TEST(Profile, ABendGivesEachPointItsNearestSegment) {
  // East 10 m, then north 10 m: (9, 1) lies in both corridors, 1 from the first segment and 1
  // from the second (the first of equals: station 9); (9.5, 1.8) lies 1.8 from the first and 0.5
  // from the second (station 10 + 1.8); (11, -1) lies in no corridor (outside the bend).
  const glm::dvec3 o = kUtm;
  const PointCloud c = cloud_of({o + glm::dvec3(9.0, 1.0, 0.0), o + glm::dvec3(9.5, 1.8, 0.0),
                                 o + glm::dvec3(11.0, -1.0, 0.0), o + glm::dvec3(10.5, 5.0, 0.0)});
  Profile prof{{o, o + glm::dvec3(10.0, 0.0, 0.0), o + glm::dvec3(10.0, 10.0, 0.0)}, 4.0};
  ProfileCloud p;
  std::string err;
  ASSERT_TRUE(extract_profile(c, prof, UpAxis::kZ, &p, &err)) << err;
  ASSERT_EQ(p.cloud.size(), 3u);
  EXPECT_NEAR(p.station[0], 9.0, 1e-5);
  EXPECT_NEAR(p.offset[0], 1.0, 1e-5);
  EXPECT_NEAR(p.station[1], 11.8, 1e-5);
  EXPECT_NEAR(p.offset[1], 0.5, 1e-5);
  EXPECT_EQ(p.source[2], 3u);
  EXPECT_NEAR(p.station[2], 15.0, 1e-5);
  EXPECT_NEAR(p.offset[2], -0.5, 1e-5);  // east of a line walking north: to the right
  EXPECT_EQ(p.vertex_station, (std::vector<double>{0.0, 10.0, 20.0}));
}

/// Brute force over random points around a random polyline: every point within the half width
/// of a segment (foot inside it) is taken, with the nearest segment's station, whatever the
/// thread count.
TEST(Profile, MatchesBruteForce) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-50.0, 50.0);
  std::vector<glm::dvec3> pts;
  for (int i = 0; i < 200000; ++i) pts.push_back(kUtm + glm::dvec3(u(rng), u(rng), u(rng) * 0.1));
  const PointCloud c = cloud_of(pts);
  Profile prof;
  for (int k = 0; k < 5; ++k) prof.line.push_back(kUtm + glm::dvec3(u(rng), u(rng), 0.0));
  prof.width = 6.0;
  ProfileCloud p1, p4;
  std::string err;
  ASSERT_TRUE(extract_profile(c, prof, UpAxis::kZ, &p1, &err, 1)) << err;
  ASSERT_TRUE(extract_profile(c, prof, UpAxis::kZ, &p4, &err, 4)) << err;
  ASSERT_EQ(p1.source, p4.source);
  ASSERT_EQ(p1.station, p4.station);
  size_t expected = 0, k = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    const glm::dvec3 w = world_of(c, i);
    double best = 1e300, station = 0.0, start = 0.0;
    for (size_t s = 0; s + 1 < prof.line.size(); ++s) {
      const glm::dvec2 a(prof.line[s]), b(prof.line[s + 1]), g(w);
      const double len = glm::length(b - a);
      const glm::dvec2 d = (b - a) / len;
      const double t = glm::dot(g - a, d);
      const double off = std::abs(d.x * (g - a).y - d.y * (g - a).x);
      if (t >= 0.0 && t <= len && off <= 3.0 && off < best) best = off, station = start + t;
      start += len;
    }
    if (best > 3.0) continue;
    ++expected;
    ASSERT_LT(k, p1.source.size());
    ASSERT_EQ(p1.source[k], i);
    EXPECT_DOUBLE_EQ(p1.station[k], station);
    ++k;
  }
  EXPECT_EQ(p1.source.size(), expected);
  EXPECT_GT(expected, 1000u);
}

TEST(Profile, BadInputGetsOneLine) {
  const PointCloud c = cloud_of({kUtm});
  ProfileCloud p;
  p.length = 7.0;
  std::string err;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const glm::dvec3 b = kUtm + glm::dvec3(1.0, 0.0, 0.0);
  struct Case {
    Profile prof;
    const char* says;
  } cases[] = {
      {{{kUtm}, 1.0}, "needs at least 2 points, got 1"},
      {{{kUtm, b}, 0.0}, "the width must be a number above 0"},
      {{{kUtm, b}, -2.0}, "the width must be a number above 0"},
      {{{kUtm, b}, nan}, "the width must be a number above 0"},
      {{{kUtm, glm::dvec3(nan, 0.0, 0.0)}, 1.0}, "point 2 is not finite"},
      {{{kUtm, kUtm + glm::dvec3(0.0, 0.0, 5.0)}, 1.0}, "points 1 and 2 lie at the same place"},
  };
  for (const Case& cs : cases) {
    err.clear();
    EXPECT_FALSE(extract_profile(c, cs.prof, UpAxis::kZ, &p, &err));
    EXPECT_NE(err.find(cs.says), std::string::npos) << err;
    EXPECT_EQ(err.find('\n'), std::string::npos);
    EXPECT_EQ(p.length, 7.0);  // nothing changed
  }
}

TEST(Profile, YUpGroundIsZX) {
  // y up: the ground is (z, x); a line along +z, a point 1 above and 0.5 across.
  PointCloud c = cloud_of({kUtm + glm::dvec3(0.5, 1.0, 3.0)});
  Profile prof{{kUtm, kUtm + glm::dvec3(0.0, 0.0, 10.0)}, 2.0};
  ProfileCloud p;
  std::string err;
  ASSERT_TRUE(extract_profile(c, prof, UpAxis::kY, &p, &err)) << err;
  ASSERT_EQ(p.cloud.size(), 1u);
  EXPECT_NEAR(p.station[0], 3.0, 1e-5);
  EXPECT_NEAR(std::abs(p.offset[0]), 0.5, 1e-5);
  EXPECT_NEAR(world_of(p.cloud, 0).z, kUtm.y + 1.0, 1e-5);
}

TEST(Profile, ExportCloudHasWorldPointsAndDistance) {
  PointCloud c = cloud_of({kUtm + glm::dvec3(3.0, 0.5, 1.0), kUtm + glm::dvec3(30.0, 0.0, 0.0),
                           kUtm + glm::dvec3(8.0, -0.2, 2.0)});
  c.fields.push_back({"height", {1.0f, 2.0f, 3.0f}});
  Profile prof{{kUtm, kUtm + glm::dvec3(10.0, 0.0, 0.0)}, 2.0};
  ProfileCloud p;
  std::string err;
  ASSERT_TRUE(extract_profile(c, prof, UpAxis::kZ, &p, &err)) << err;
  const PointCloud e = profile_export_cloud(c, p);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(world_of(e, 1), world_of(c, 2));
  ASSERT_EQ(e.fields.size(), 2u);
  EXPECT_EQ(e.fields[0].values[1], 3.0f);
  EXPECT_EQ(e.fields[1].name, "distance");
  EXPECT_NEAR(e.fields[1].values[0], 3.0, 1e-5);
  EXPECT_NEAR(e.fields[1].values[1], 8.0, 1e-5);
  EXPECT_EQ(e.intensity[1], 2.0f);
}

TEST(Profile, CameraDrawsTheWholeProfile) {
  std::vector<glm::dvec3> pts;
  for (int i = 0; i <= 100; ++i) pts.push_back(kUtm + glm::dvec3(i * 10.0, 0.0, i % 10));
  const PointCloud c = cloud_of(pts);
  Profile prof{{kUtm, kUtm + glm::dvec3(1000.0, 0.0, 0.0)}, 10.0};
  ProfileCloud p;
  std::string err;
  ASSERT_TRUE(extract_profile(c, prof, UpAxis::kZ, &p, &err)) << err;
  ASSERT_EQ(p.cloud.size(), 101u);
  const Camera cam = profile_camera(p, 4.0);
  EXPECT_TRUE(cam.ortho());
  CpuRenderer r(2);
  ASSERT_TRUE(r.set_cloud(p.cloud, &err)) << err;
  RenderSettings rs;
  rs.width = 800;
  rs.height = 200;
  Image img;
  FrameStats st;
  ASSERT_TRUE(r.render(cam, rs, img, st, &err)) << err;
  size_t drawn = 0, leftmost = 800;
  for (int y = 0; y < rs.height; ++y)
    for (int x = 0; x < rs.width; ++x)
      if (img.rgba[size_t(y) * rs.width + x] != rs.background) {
        ++drawn;
        leftmost = std::min(leftmost, size_t(x));
      }
  EXPECT_EQ(drawn, 101u);  // every point apart on the screen
  EXPECT_LT(leftmost, 80u);
}

TEST(Profile, Span) {
  const ProfileSpan s = profile_span(10.0, 5.0, 6.0, 7.0);
  EXPECT_DOUBLE_EQ(s.along, 4.0);
  EXPECT_DOUBLE_EQ(s.height, -2.0);  // from station 6 (z 7) to 10 (z 5): falling
  EXPECT_DOUBLE_EQ(s.slope_percent, -50.0);
  EXPECT_NEAR(s.slope_degrees, -26.565051177, 1e-8);
  EXPECT_DOUBLE_EQ(s.distance, std::sqrt(20.0));
  EXPECT_TRUE(std::isinf(profile_span(1.0, 0.0, 1.0, 2.0).slope_percent));
}

}  // namespace
}  // namespace pr
