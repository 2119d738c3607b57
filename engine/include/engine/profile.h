// Profiles (docs/PROFILE.md): the points of a cloud within half a width of a polyline, unrolled
// into a frame where x is the distance along the line (the station, measured across the ground
// along its segments), y the signed offset across it (positive to the left, walking the line) and
// z the elevation. The unrolled points are an ordinary PointCloud, drawn by either renderer in an
// orthographic front view (profile_camera()), so the CPU and the GPU draw the same profile.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "engine/camera.h"
#include "engine/point_cloud.h"

namespace pr {

/// A polyline in world coordinates and the corridor's full width across it.
struct Profile {
  std::vector<glm::dvec3> line;
  double width = 1.0;
};

/// Whether the profile can be extracted: at least 2 points, every coordinate finite,
/// consecutive points apart across the ground (`up` decides what the ground is) and a width that
/// is a finite number above zero; false with one line naming the problem.
bool validate_profile(const Profile& profile, UpAxis up, std::string* error);

/// The corridor's points, unrolled. `cloud`'s local frame: world (x, y, z) = origin + position
/// with x the station, y the offset and z the elevation; its attributes are those of the source
/// points, in the source's order. `source`, `station` and `offset` run along the points.
struct ProfileCloud {
  PointCloud cloud;
  PodVector<uint64_t> source;          ///< the point's index in the source cloud
  PodVector<double> station;           ///< distance along the line (double: what export writes)
  PodVector<double> offset;            ///< signed distance from the line across the ground
  std::vector<double> vertex_station;  ///< the station of each vertex of the line
  double length = 0.0;                 ///< the line's length across the ground
  double width = 0.0;
  UpAxis up = UpAxis::kZ;
};

/// The points of `source` within width / 2 of the line across the ground (the boundary
/// included), in parallel over `threads` (0: all cores). A point belongs to a segment when its
/// foot on the segment's line lies between the segment's ends; among several segments, to the
/// one it lies nearest (the first of equals). Non-finite points are skipped. False with
/// validate_profile()'s message.
bool extract_profile(const PointCloud& source, const Profile& profile, UpAxis up, ProfileCloud* out,
                     std::string* error, unsigned threads = 0);

/// The source point of profile point `i` in world coordinates.
glm::dvec3 profile_source_world(const PointCloud& source, const ProfileCloud& p, size_t i);

/// Copies the current display colors (and the file's colors set aside) of `source` to the
/// profile's points: a color mode applied to the source applies to the profile.
void profile_copy_colors(const PointCloud& source, ProfileCloud* p);

/// The profile's points in the source's world coordinates, with every attribute, each named
/// field, and a field "distance" holding the station (what --profile-out writes to LAS/LAZ).
PointCloud profile_export_cloud(const PointCloud& source, const ProfileCloud& p);

/// The orthographic front view of the unrolled cloud (z up, looking across the line, the
/// station growing to the right) framing the whole profile for an image of aspect W/H.
Camera profile_camera(const ProfileCloud& p, double aspect);

/// Between two points of the profile view: the distance along the line, the height difference
/// (the point of the greater station above the other), the straight distance in the plane of the
/// view and the slope, walking the line forward.
struct ProfileSpan {
  double along = 0.0;          ///< |station b - station a|
  double height = 0.0;         ///< elevation at the greater station - at the smaller one
  double distance = 0.0;       ///< hypot(along, height)
  double slope_percent = 0.0;  ///< 100 height / along (+-inf for a vertical span, 0 for none)
  double slope_degrees = 0.0;  ///< atan2(height, along), -90 to 90
};
ProfileSpan profile_span(double station_a, double z_a, double station_b, double z_b);

}  // namespace pr
