// Measurements in world coordinates (double precision: the cloud's origin added back, so UTM
// coordinates keep their millimetres): a point's nearest cloud point, a polyline's length, a
// height difference, an angle, a polygon's area, a circle through three points, the points
// inside an oriented box, and the 2.5D volume between the points inside a polygon and a base
// height. "Horizontal" is perpendicular to the cloud's up axis (UpAxis, engine/camera.h).
// docs/MEASURE.md gives each one's definition and math.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <glm/glm.hpp>

#include "engine/camera.h"
#include "engine/point_cloud.h"

namespace pr {

/// The height of `p` along the up axis (z or y).
double up_component(const glm::dvec3& p, UpAxis up);
/// The two horizontal coordinates of `p`: (x, y) with z up, (z, x) with y up (a right-handed
/// pair seen from above, so that counter-clockwise polygons have positive shoelace areas).
glm::dvec2 ground_of(const glm::dvec3& p, UpAxis up);

/// A polyline's segments and total, straight (3D) and across the ground (horizontal).
struct PolylineLength {
  std::vector<double> segments, horizontal_segments;
  double total = 0.0, horizontal = 0.0;
  double height = 0.0;  ///< the last point's height above the first
};
/// At least 2 points; false with a message otherwise or for a point that is not finite.
bool polyline_length(const std::vector<glm::dvec3>& points, UpAxis up, PolylineLength* out,
                     std::string* error);

/// The angle at `vertex` between the rays to `a` and `c`, in degrees (0 - 180); false when either
/// point coincides with the vertex.
bool angle_at(const glm::dvec3& a, const glm::dvec3& vertex, const glm::dvec3& c, double* degrees,
              std::string* error);

/// A polygon's areas: its vector area (Newell's method; its length is the area of a planar
/// polygon, of a nearly planar one the area of its projection on the best plane, and its
/// direction that plane's normal) and the area of its projection on the ground (the shoelace
/// formula); the perimeters, closing edge included.
struct PolygonArea {
  double area = 0.0;       ///< |vector area|
  glm::dvec3 normal{0.0};  ///< the unit normal (counter-clockwise seen from its tip); 0 when area 0
  double horizontal = 0.0;  ///< the projected area (absolute)
  double perimeter = 0.0, horizontal_perimeter = 0.0;
};
/// At least 3 points; false with a message otherwise.
bool polygon_area(const std::vector<glm::dvec3>& points, UpAxis up, PolygonArea* out,
                  std::string* error);

/// The circle through three points: its centre, radius and the unit normal of its plane.
struct Circle {
  glm::dvec3 center{0.0};
  double radius = 0.0;
  glm::dvec3 normal{0.0};
};
/// False with a message when two points coincide or the three lie on a line.
bool circle_through(const glm::dvec3& a, const glm::dvec3& b, const glm::dvec3& c, Circle* out,
                    std::string* error);

/// An oriented box: its centre, its size along its own axes, and its rotation in radians: yaw
/// about the up axis, pitch about world x, roll about the third axis (y with z up, z with y up),
/// applied roll first, then pitch, then yaw. With the angles 0 its axes are the world's.
struct MeasureBox {
  glm::dvec3 center{0.0};
  glm::dvec3 size{1.0};
  double yaw = 0.0, pitch = 0.0, roll = 0.0;
};
/// The box's axes, as the columns of a rotation (local to world).
glm::dmat3 box_rotation(const MeasureBox& box, UpAxis up);
/// Whether world point `p` lies inside the box (its faces included).
bool inside_box(const MeasureBox& box, UpAxis up, const glm::dvec3& p);

struct BoxCount {
  double volume = 0.0;  ///< size.x * size.y * size.z
  uint64_t inside = 0;  ///< points of the cloud inside
};
/// A parallel pass over the cloud (`threads`, 0: all cores). False with a message for a size
/// that is not positive or a value that is not finite.
bool count_in_box(const PointCloud& cloud, const MeasureBox& box, UpAxis up, BoxCount* out,
                  std::string* error, unsigned threads = 0);

/// The cloud point nearest to `p` (3D), its index and distance; false for an empty cloud.
bool nearest_point(const PointCloud& cloud, const glm::dvec3& p, uint64_t* index, double* distance,
                   unsigned threads = 0);

/// How a 2.5D volume's cell takes its height from its points (CloudCompare's "cell height";
/// its default is the mean).
enum class CellHeight { kMin, kMean, kMax };
const char* cell_height_name(CellHeight h);
bool parse_cell_height(const std::string& s, CellHeight* out);

struct VolumeOptions {
  double base = 0.0;  ///< the base plane's height along the up axis
  double cell = 0.0;  ///< the grid's cell size (> 0)
  CellHeight height = CellHeight::kMean;
  UpAxis up = UpAxis::kZ;
  unsigned threads = 0;  ///< 0: all cores
};

/// The 2.5D volume between the cloud and the base plane inside a polygon (seen from above):
/// a grid of square cells over the polygon's box, the cells whose centre lies inside it, each
/// cell's height from its points, empty cells filled from the nearest filled ones.
struct VolumeResult {
  double cut = 0.0;           ///< above the base: sum of (height - base) * cell area where positive
  double fill = 0.0;          ///< below the base: sum of (base - height) * cell area where positive
  double net = 0.0;           ///< cut - fill
  uint64_t cells = 0;         ///< cells inside the polygon
  uint64_t filled = 0;        ///< of them, those with points
  uint64_t interpolated = 0;  ///< those filled from their neighbours
  double area = 0.0;          ///< cells * cell size^2: the area the grid covers
  double polygon_area = 0.0;  ///< the polygon's own horizontal area (shoelace)
  uint64_t points = 0;        ///< points inside the polygon's cells
  int columns = 0, rows = 0;  ///< the grid over the polygon's box
};
/// False with a message for a polygon of fewer than 3 points, a cell size that is not positive,
/// a value that is not finite, a grid of more than 2^28 cells, or no point inside the polygon.
bool volume_25d(const PointCloud& cloud, const std::vector<glm::dvec3>& polygon,
                const VolumeOptions& options, VolumeResult* out, std::string* error);

/// The measurements the program and the viewer make, by kind.
enum class MeasureKind { kPoint, kDistance, kHeight, kAngle, kArea, kCircle, kBox, kVolume };
const char* measure_kind_name(MeasureKind k);
bool parse_measure_kind(const std::string& s, MeasureKind* out);
/// The points a kind takes: [min, max] (max 0: any number from min).
void measure_point_count(MeasureKind k, int* min, int* max);

/// What a measurement needs beside its points.
struct MeasureParams {
  UpAxis up = UpAxis::kZ;
  bool auto_base = true;  ///< volume: the base is the mean height of the polygon's vertices
  double base = 0.0;
  double cell = 0.0;  ///< volume: the cell size; 0: the polygon box's longer side / 200
  CellHeight height = CellHeight::kMean;
  unsigned threads = 0;
};

/// One named result: a number, a list (a polyline's segments) or a position or direction.
struct MeasureValue {
  std::string name;
  std::vector<double> v;
  bool xyz = false;  ///< v is a position or direction: x, y, z
};

/// A measurement made: its kind, the points it was made from (world coordinates; for a box its
/// centre, its size and its yaw, pitch, roll in degrees), its values in order, and text
/// attributes (a point's, as the pick lists them).
struct Measurement {
  MeasureKind kind = MeasureKind::kDistance;
  std::vector<glm::dvec3> points;
  std::vector<MeasureValue> values;
  std::vector<std::pair<std::string, std::string>> attributes;
  /// The value named `name`'s first component, or NaN.
  double value(const std::string& name) const;
};

/// Measures `kind` from `points` on `cloud` (null where the kind reads no points: distance,
/// height, angle, area, circle). False with a one-line message for bad input.
bool evaluate_measurement(MeasureKind kind, const std::vector<glm::dvec3>& points,
                          const PointCloud* cloud, const MeasureParams& params, Measurement* out,
                          std::string* error);

/// The measurement's main figure as the viewer's list shows it ("12.504 m" style without unit:
/// "distance 12.504", "area 3.1 (horizontal 3.0)", ...).
std::string measurement_summary(const Measurement& m);

}  // namespace pr
