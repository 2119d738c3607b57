// The pinhole camera: a position, an orientation from yaw and pitch, and a focal length
// ("focus"). See projection.h for the math and docs/CAMERA.md for units.
#pragma once

#include <glm/glm.hpp>

#include "engine/point_cloud.h"
#include "engine/projection.h"

namespace pr {

/// Which world axis points up.
///  kY: the procedural scenes' frame (and that of the NumPy/CuPy perspective projection the
///      project grew from): yaw = pitch = 0 looks along +z with +y up and +x to the right (the
///      identity rotation; a left-handed view).
///  kZ: geographic and scanner data (LAS, PTS, most XYZ: x east, y north, z up, right-handed):
///      yaw = 0 looks north (+y) with +z up and +x (east) to the right, not mirrored. yaw turns
///      about +z.
enum class UpAxis { kY, kZ };

class Camera {
 public:
  glm::dvec3 position{0.0, 0.0, 10.0};  ///< world coordinates (double: UTM-size values)
  double yaw = 0.0;    ///< radians, rotation about the world up (+y) axis; 0 looks along +z
  double pitch = 0.0;  ///< radians, positive looks up; clamped to (-pi/2, pi/2)
  double focus = 5.0;  ///< focal length in image-plane units; tan(vfov/2) = 1/focus
  double near_z = 0.01;
  UpAxis up_axis = UpAxis::kY;

  /// Rotation whose rows are the camera's right, up and forward axes.
  /// yaw = pitch = 0 gives the identity: right +x, up +y, forward +z.
  glm::dmat3 rows() const;
  glm::dvec3 right() const;
  glm::dvec3 up() const;
  glm::dvec3 forward() const;

  /// Vertical field of view (radians) for this focus, and the focus for a field of view.
  double vfov() const;
  static double focus_for_vfov(double vfov_radians);

  /// Moves by (right, up, forward) amounts in the camera's frame.
  void move_local(const glm::dvec3& delta);
  /// Turns by yaw/pitch deltas (radians); pitch is clamped just short of straight up/down.
  void turn(double dyaw, double dpitch);
  /// Maps a direction of the yaw/pitch frame (x right, y up, z forward at yaw = pitch = 0) to
  /// world coordinates: the identity for kY; for kZ it swaps y and z (a reflection, which turns
  /// the y-up frame's left-handed view into a right-handed one for z-up data).
  glm::dvec3 to_world(const glm::dvec3& v) const;
  /// Points the camera at a world position.
  void look_at(const glm::dvec3& target);
  /// Places the camera so the bounds fit in view for an image of the given aspect (W/H), keeping
  /// the current orientation.
  void frame(const Bounds& world_bounds, double aspect);
  /// Places the camera, keeping its orientation, where all 8 corners of the box project inside
  /// the middle `fill` of the image (of aspect W/H) on both axes, as near as that allows, moved
  /// sideways so that the corners' image is centred: the box fills most of the view, where
  /// frame()'s bounding sphere leaves a flat survey tile small. "Frame the cloud" and the starting
  /// view of files.
  void fill_view(const Bounds& world_bounds, double aspect, double fill = 0.9);

  /// Projection parameters for an image of width x height, for a cloud whose local frame is
  /// offset by `origin`.
  ProjParams params(int width, int height, const glm::dvec3& origin, int point_size = 1) const;
};

}  // namespace pr
