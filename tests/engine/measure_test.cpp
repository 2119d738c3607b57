// Measurements (engine/measure.h): each measure against values worked out by hand, with a UTM-size
// origin where precision matters, both up axes, and the one-line errors of bad input; the 2.5D
// volume of flat slabs, of a pile known in closed form, with holes filled, and the same with any
// number of threads.
#include "engine/measure.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace pr {
namespace {

constexpr double kPi = 3.14159265358979323846;
const glm::dvec3 kUtm(636594.0, 5412310.0, 210.0);

/// A cloud of points at `world` positions, its origin at kUtm (as UTM files are read).
PointCloud cloud_of(const std::vector<glm::dvec3>& world) {
  PointCloud c;
  c.origin = kUtm;
  c.resize(world.size());
  for (size_t i = 0; i < world.size(); ++i) {
    const glm::dvec3 l = world[i] - kUtm;
    c.positions[i] = {float(l.x), float(l.y), float(l.z)};
    c.colors[i] = rgba(255, 255, 255);
  }
  return c;
}

/// A regular grid of n x n points over [x0, x0 + size)^2 (z up), each at height h(x, y).
template <class F>
PointCloud grid_cloud(double x0, double y0, double size, int n, F h) {
  std::vector<glm::dvec3> pts;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const double x = x0 + (i + 0.5) * size / n, y = y0 + (j + 0.5) * size / n;
      pts.emplace_back(x, y, h(x, y));
    }
  return cloud_of(pts);
}

std::vector<glm::dvec3> square(double x0, double y0, double size, double z) {
  return {{x0, y0, z}, {x0 + size, y0, z}, {x0 + size, y0 + size, z}, {x0, y0 + size, z}};
}

TEST(Measure, PolylineSegmentsAndTotalsInDouble) {
  const std::vector<glm::dvec3> p = {kUtm, kUtm + glm::dvec3(3, 4, 0), kUtm + glm::dvec3(3, 4, 12)};
  PolylineLength z;
  ASSERT_TRUE(polyline_length(p, UpAxis::kZ, &z, nullptr));
  ASSERT_EQ(z.segments.size(), 2u);
  EXPECT_DOUBLE_EQ(z.segments[0], 5.0);
  EXPECT_DOUBLE_EQ(z.segments[1], 12.0);
  EXPECT_DOUBLE_EQ(z.total, 17.0);
  EXPECT_DOUBLE_EQ(z.horizontal_segments[0], 5.0);
  EXPECT_DOUBLE_EQ(z.horizontal_segments[1], 0.0);
  EXPECT_DOUBLE_EQ(z.horizontal, 5.0);
  EXPECT_DOUBLE_EQ(z.height, 12.0);
  // y up: the 4 along y is height, the 12 along z horizontal.
  PolylineLength y;
  ASSERT_TRUE(polyline_length(p, UpAxis::kY, &y, nullptr));
  EXPECT_DOUBLE_EQ(y.horizontal_segments[0], 3.0);
  EXPECT_DOUBLE_EQ(y.horizontal_segments[1], 12.0);
  EXPECT_DOUBLE_EQ(y.height, 4.0);
  // Millimetres at UTM size survive.
  PolylineLength mm;
  ASSERT_TRUE(polyline_length({kUtm, kUtm + glm::dvec3(0.001, 0, 0)}, UpAxis::kZ, &mm, nullptr));
  EXPECT_NEAR(mm.total, 0.001, 1e-9);
}

TEST(Measure, PolylineRefusesTooFewPointsAndNaN) {
  PolylineLength r;
  std::string err;
  EXPECT_FALSE(polyline_length({kUtm}, UpAxis::kZ, &r, &err));
  EXPECT_EQ(err, "distance: needs at least 2 points, got 1");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(polyline_length({kUtm, glm::dvec3(nan, 0, 0)}, UpAxis::kZ, &r, &err));
  EXPECT_EQ(err, "distance: point 2 is not finite");
}

TEST(Measure, AngleAtAVertex) {
  double deg = 0.0;
  const glm::dvec3 v = kUtm;
  ASSERT_TRUE(angle_at(v + glm::dvec3(2, 0, 0), v, v + glm::dvec3(0, 0, 5), &deg, nullptr));
  EXPECT_NEAR(deg, 90.0, 1e-12);
  ASSERT_TRUE(angle_at(v + glm::dvec3(1, 0, 0), v, v + glm::dvec3(-3, 0, 0), &deg, nullptr));
  EXPECT_NEAR(deg, 180.0, 1e-12);
  ASSERT_TRUE(angle_at(v + glm::dvec3(1, 0, 0), v, v + glm::dvec3(1, 1, 0), &deg, nullptr));
  EXPECT_NEAR(deg, 45.0, 1e-12);
  std::string err;
  EXPECT_FALSE(angle_at(v, v, v + glm::dvec3(1, 0, 0), &deg, &err));
  EXPECT_EQ(err, "angle: point 1 coincides with the vertex (point 2)");
}

TEST(Measure, PolygonAreaNewellAndShoelace) {
  // A 4 x 3 rectangle tilted about x by 60 degrees: its area 12, seen from above 4 x 1.5.
  const double c = std::cos(kPi / 3), s = std::sin(kPi / 3);
  const std::vector<glm::dvec3> p = {kUtm, kUtm + glm::dvec3(4, 0, 0),
                                     kUtm + glm::dvec3(4, 3 * c, 3 * s),
                                     kUtm + glm::dvec3(0, 3 * c, 3 * s)};
  PolygonArea a;
  ASSERT_TRUE(polygon_area(p, UpAxis::kZ, &a, nullptr));
  EXPECT_NEAR(a.area, 12.0, 1e-9);
  EXPECT_NEAR(a.horizontal, 6.0, 1e-9);
  EXPECT_NEAR(a.perimeter, 14.0, 1e-9);
  EXPECT_NEAR(a.horizontal_perimeter, 11.0, 1e-9);
  EXPECT_NEAR(glm::length(a.normal - glm::dvec3(0, -s, c)), 0.0, 1e-9);
  // y up: seen from above (+y) the rectangle is 4 x 3 * sin 60.
  ASSERT_TRUE(polygon_area(p, UpAxis::kY, &a, nullptr));
  EXPECT_NEAR(a.horizontal, 12.0 * s, 1e-9);
  // An L of area 3 (clockwise: the area is absolute).
  const std::vector<glm::dvec3> l = {{0, 0, 0}, {0, 2, 0}, {1, 2, 0},
                                     {1, 1, 0}, {2, 1, 0}, {2, 0, 0}};
  ASSERT_TRUE(polygon_area(l, UpAxis::kZ, &a, nullptr));
  EXPECT_DOUBLE_EQ(a.area, 3.0);
  EXPECT_DOUBLE_EQ(a.horizontal, 3.0);
  EXPECT_DOUBLE_EQ(a.normal.z, -1.0);
  std::string err;
  EXPECT_FALSE(polygon_area({kUtm, kUtm}, UpAxis::kZ, &a, &err));
  EXPECT_EQ(err, "area: the polygon needs at least 3 points, got 2");
}

TEST(Measure, CircleThroughThreePoints) {
  // A circle of radius 7 about kUtm + (1, 2, 3) in a tilted plane.
  const glm::dvec3 centre = kUtm + glm::dvec3(1, 2, 3);
  const glm::dvec3 u = glm::normalize(glm::dvec3(1, 1, 0)),
                   v = glm::normalize(glm::dvec3(-1, 1, 1));
  auto at = [&](double t) { return centre + 7.0 * (std::cos(t) * u + std::sin(t) * v); };
  Circle c;
  ASSERT_TRUE(circle_through(at(0.1), at(2.0), at(4.0), &c, nullptr));
  EXPECT_NEAR(c.radius, 7.0, 1e-8);
  EXPECT_NEAR(glm::length(c.center - centre), 0.0, 1e-8);
  EXPECT_NEAR(std::fabs(glm::dot(c.normal, glm::cross(u, v))), 1.0, 1e-12);
  std::string err;
  EXPECT_FALSE(
      circle_through(kUtm, kUtm + glm::dvec3(1, 1, 1), kUtm + glm::dvec3(2, 2, 2), &c, &err));
  EXPECT_EQ(err, "circle: the three points lie on a line");
  EXPECT_FALSE(circle_through(kUtm, kUtm + glm::dvec3(1, 0, 0), kUtm, &c, &err));
  EXPECT_EQ(err, "circle: points 1 and 3 coincide");
}

TEST(Measure, BoxCountsThePointsInsideAndItsVolume) {
  const PointCloud cloud =
      grid_cloud(kUtm.x, kUtm.y, 10.0, 100, [](double, double) { return 210.5; });
  MeasureBox box;
  box.center = kUtm + glm::dvec3(5, 5, 0.5);
  box.size = {4.0, 2.0, 1.0};
  BoxCount r;
  ASSERT_TRUE(count_in_box(cloud, box, UpAxis::kZ, &r, nullptr, 2));
  EXPECT_DOUBLE_EQ(r.volume, 8.0);
  EXPECT_EQ(r.inside, 40u * 20u);  // the grid's spacing is 0.1
  // Turned 90 degrees about z: 2 along x, 4 along y (the same count), and at 30 degrees the count
  // of a point-by-point test.
  box.yaw = kPi / 2;
  ASSERT_TRUE(count_in_box(cloud, box, UpAxis::kZ, &r, nullptr, 2));
  EXPECT_EQ(r.inside, 800u);
  box.yaw = kPi / 6;
  box.pitch = 0.2;
  box.roll = 0.1;
  ASSERT_TRUE(count_in_box(cloud, box, UpAxis::kZ, &r, nullptr, 2));
  uint64_t expect = 0;
  for (size_t i = 0; i < cloud.size(); ++i) {
    const Float3& p = cloud.positions[i];
    expect += inside_box(box, UpAxis::kZ, cloud.origin + glm::dvec3(p.x, p.y, p.z));
  }
  EXPECT_EQ(r.inside, expect);
  EXPECT_GT(expect, 0u);
  std::string err;
  box.size.y = 0.0;
  EXPECT_FALSE(count_in_box(cloud, box, UpAxis::kZ, &r, &err));
  EXPECT_EQ(err, "box: the size must be above 0 along each axis");
}

TEST(Measure, NearestPoint) {
  const PointCloud cloud = cloud_of({kUtm, kUtm + glm::dvec3(5, 0, 0), kUtm + glm::dvec3(0, 9, 0)});
  uint64_t i = 9;
  double d = 0.0;
  ASSERT_TRUE(nearest_point(cloud, kUtm + glm::dvec3(4, 0, 1), &i, &d, 2));
  EXPECT_EQ(i, 1u);
  EXPECT_NEAR(d, std::sqrt(2.0), 1e-6);
  EXPECT_FALSE(nearest_point(PointCloud{}, kUtm, &i, &d));
}

TEST(Measure, VolumeOfFlatSlabsAboveAndBelowTheBase) {
  // Points at 2 m over a 10 x 10 square: 200 m^3 of cut above a base at 0, 300 of fill below 5.
  const PointCloud cloud =
      grid_cloud(kUtm.x, kUtm.y, 10.0, 200, [](double, double) { return 2.0; });
  VolumeOptions o;
  o.cell = 0.5;
  o.base = 0.0;
  VolumeResult r;
  ASSERT_TRUE(volume_25d(cloud, square(kUtm.x, kUtm.y, 10.0, 0.0), o, &r, nullptr));
  EXPECT_EQ(r.cells, 400u);
  EXPECT_EQ(r.filled, 400u);
  EXPECT_EQ(r.interpolated, 0u);
  EXPECT_EQ(r.points, 40000u);
  EXPECT_NEAR(r.cut, 200.0, 1e-3);
  EXPECT_DOUBLE_EQ(r.fill, 0.0);
  EXPECT_DOUBLE_EQ(r.area, 100.0);
  EXPECT_DOUBLE_EQ(r.polygon_area, 100.0);
  o.base = 5.0;
  ASSERT_TRUE(volume_25d(cloud, square(kUtm.x, kUtm.y, 10.0, 0.0), o, &r, nullptr));
  EXPECT_NEAR(r.fill, 300.0, 1e-3);
  EXPECT_NEAR(r.net, -300.0, 1e-3);
}

TEST(Measure, VolumeCellHeightMinMeanMax) {
  // Two layers, at 1 and 3 m: min 1, mean 2, max 3 over 4 x 4 m.
  std::vector<glm::dvec3> pts;
  for (int j = 0; j < 40; ++j)
    for (int i = 0; i < 40; ++i)
      for (double z : {1.0, 3.0})
        pts.emplace_back(kUtm.x + (i + 0.5) * 0.1, kUtm.y + (j + 0.5) * 0.1, z);
  const PointCloud cloud = cloud_of(pts);
  VolumeOptions o;
  o.cell = 1.0;
  const std::pair<CellHeight, double> cases[] = {
      {CellHeight::kMin, 16.0}, {CellHeight::kMean, 32.0}, {CellHeight::kMax, 48.0}};
  for (const auto& [how, cut] : cases) {
    o.height = how;
    VolumeResult r;
    ASSERT_TRUE(volume_25d(cloud, square(kUtm.x, kUtm.y, 4.0, 0.0), o, &r, nullptr));
    EXPECT_NEAR(r.cut, cut, 1e-3) << cell_height_name(how);
  }
}

TEST(Measure, VolumeFillsEmptyCellsFromTheNearest) {
  // A slope z = x with a hole of 4 x 4 m in its middle: the filled cells continue it closely.
  std::vector<glm::dvec3> pts;
  for (int j = 0; j < 100; ++j)
    for (int i = 0; i < 100; ++i) {
      const double x = (i + 0.5) * 0.1, y = (j + 0.5) * 0.1;
      if (x > 3 && x < 7 && y > 3 && y < 7) continue;
      pts.emplace_back(kUtm.x + x, kUtm.y + y, 10.0 + x);
    }
  const PointCloud cloud = cloud_of(pts);
  VolumeOptions o;
  o.cell = 0.5;
  o.base = 10.0;
  VolumeResult r;
  ASSERT_TRUE(volume_25d(cloud, square(kUtm.x, kUtm.y, 10.0, 0.0), o, &r, nullptr));
  EXPECT_EQ(r.cells, 400u);
  EXPECT_EQ(r.interpolated, 64u);
  EXPECT_EQ(r.filled, 336u);
  EXPECT_NEAR(r.cut, 500.0, 500.0 * 0.01);  // the integral of x over 10 x 10
}

TEST(Measure, VolumeOfAParaboloidPileWithinOnePercent) {
  // z = H (1 - r^2 / R^2) inside r < R, 0 outside: volume pi R^2 H / 2.
  const double kR = 20.0, kH = 6.0;
  const PointCloud cloud = grid_cloud(kUtm.x - 25, kUtm.y - 25, 50.0, 500, [&](double x, double y) {
    const double r2 = (x - kUtm.x) * (x - kUtm.x) + (y - kUtm.y) * (y - kUtm.y);
    return kUtm.z + std::max(0.0, kH * (1.0 - r2 / (kR * kR)));
  });
  VolumeOptions o;
  o.cell = 0.5;
  o.base = kUtm.z;
  VolumeResult r;
  ASSERT_TRUE(volume_25d(cloud, square(kUtm.x - 24, kUtm.y - 24, 48.0, kUtm.z), o, &r, nullptr));
  const double expect = kPi * kR * kR * kH / 2.0;
  EXPECT_NEAR(r.cut, expect, expect * 0.01);
  EXPECT_NEAR(r.fill, 0.0, 1e-6);
  // The same with one thread and with three (the mean's sums in another order: near, not equal).
  for (unsigned t : {1u, 3u}) {
    o.threads = t;
    VolumeResult q;
    ASSERT_TRUE(volume_25d(cloud, square(kUtm.x - 24, kUtm.y - 24, 48.0, kUtm.z), o, &q, nullptr));
    EXPECT_NEAR(q.cut, r.cut, 1e-9 * r.cut) << t;
    EXPECT_EQ(q.points, r.points);
  }
}

TEST(Measure, VolumeOfATrianglePolygonCoversItsCells) {
  const PointCloud cloud =
      grid_cloud(kUtm.x, kUtm.y, 10.0, 100, [](double, double) { return 1.0; });
  const std::vector<glm::dvec3> tri = {kUtm, kUtm + glm::dvec3(10, 0, 0),
                                       kUtm + glm::dvec3(0, 10, 0)};
  VolumeOptions o;
  o.cell = 0.1;
  VolumeResult r;
  ASSERT_TRUE(volume_25d(cloud, tri, o, &r, nullptr));
  EXPECT_NEAR(r.area, 50.0, 1.0);
  EXPECT_DOUBLE_EQ(r.polygon_area, 50.0);
  EXPECT_NEAR(r.cut, r.area * 1.0, 1e-3);
}

TEST(Measure, VolumeRefusesBadInput) {
  const PointCloud cloud = grid_cloud(0, 0, 10.0, 10, [](double, double) { return 1.0; });
  VolumeOptions o;
  o.cell = 1.0;
  VolumeResult r;
  std::string err;
  EXPECT_FALSE(volume_25d(cloud, {{0, 0, 0}, {1, 1, 0}}, o, &r, &err));
  EXPECT_EQ(err, "volume: the polygon needs at least 3 points, got 2");
  o.cell = 0.0;
  EXPECT_FALSE(volume_25d(cloud, square(0, 0, 10, 0), o, &r, &err));
  EXPECT_EQ(err, "volume: the cell size must be above 0");
  o.cell = 1.0;
  o.base = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(volume_25d(cloud, square(0, 0, 10, 0), o, &r, &err));
  EXPECT_EQ(err, "volume: the base height is not finite");
  o.base = 0.0;
  EXPECT_FALSE(volume_25d(cloud, square(100, 100, 10, 0), o, &r, &err));
  EXPECT_EQ(err, "volume: no point of the cloud lies inside the polygon");
  o.cell = 1e-6;
  EXPECT_FALSE(volume_25d(cloud, square(0, 0, 10, 0), o, &r, &err));
  EXPECT_EQ(err.rfind("volume: a grid of 10000000 x 10000000 cells is too large", 0), 0u) << err;
}

TEST(Measure, EvaluateNamesTheValuesAndCountsThePoints) {
  Measurement m;
  std::string err;
  MeasureParams p;
  ASSERT_TRUE(evaluate_measurement(MeasureKind::kHeight, {kUtm, kUtm + glm::dvec3(3, 4, -2)},
                                   nullptr, p, &m, &err));
  EXPECT_DOUBLE_EQ(m.value("height"), -2.0);
  EXPECT_DOUBLE_EQ(m.value("horizontal"), 5.0);
  EXPECT_FALSE(evaluate_measurement(MeasureKind::kAngle, {kUtm, kUtm}, nullptr, p, &m, &err));
  EXPECT_EQ(err, "angle: needs 3 points, got 2");
  EXPECT_FALSE(evaluate_measurement(MeasureKind::kHeight, {kUtm}, nullptr, p, &m, &err));
  EXPECT_EQ(err, "height: needs 2 points, got 1");
  EXPECT_FALSE(evaluate_measurement(MeasureKind::kArea, {kUtm}, nullptr, p, &m, &err));
  EXPECT_EQ(err, "area: needs at least 3 points, got 1");
  // A box from its centre, size and angles in degrees.
  const PointCloud cloud =
      grid_cloud(kUtm.x, kUtm.y, 10.0, 100, [](double, double) { return 210.5; });
  ASSERT_TRUE(evaluate_measurement(MeasureKind::kBox,
                                   {kUtm + glm::dvec3(5, 5, 0.5), {4, 2, 1}, {90, 0, 0}}, &cloud, p,
                                   &m, &err))
      << err;
  EXPECT_DOUBLE_EQ(m.value("volume"), 8.0);
  EXPECT_DOUBLE_EQ(m.value("inside"), 800.0);
  // A volume's base defaults to its vertices' mean height, its cell to the box's side / 200.
  ASSERT_TRUE(evaluate_measurement(MeasureKind::kVolume, square(kUtm.x, kUtm.y, 10.0, 210.0),
                                   &cloud, p, &m, &err))
      << err;
  EXPECT_DOUBLE_EQ(m.value("base"), 210.0);
  EXPECT_DOUBLE_EQ(m.value("cell"), 0.05);
  EXPECT_NEAR(m.value("cut"), 50.0, 0.5);
  // A point: the cloud's nearest, with its attributes.
  ASSERT_TRUE(evaluate_measurement(MeasureKind::kPoint, {kUtm + glm::dvec3(0.04, 0.06, 0.6)},
                                   &cloud, p, &m, &err));
  EXPECT_DOUBLE_EQ(m.value("index"), 0.0);
  EXPECT_FALSE(m.attributes.empty());
  MeasureKind k;
  EXPECT_TRUE(parse_measure_kind("circle", &k));
  EXPECT_EQ(k, MeasureKind::kCircle);
  EXPECT_FALSE(parse_measure_kind("radius", &k));
}

}  // namespace
}  // namespace pr
