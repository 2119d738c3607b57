// The pinhole camera: a position, an orientation from yaw and pitch, and a focal length
// ("focus"). See projection.h for the math and docs/CAMERA.md for units.
#pragma once

#include <string>

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

/// How the camera projects: through the pinhole (perspective), or along parallel rays
/// (orthographic: no foreshortening; the image spans ortho_height world units vertically).
enum class Projection { kPerspective, kOrthographic };

/// The standard views, in the yaw/pitch frame (the same angles for both up axes): front looks
/// along the frame's forward axis (+z for kY, north +y for kZ) with yaw = pitch = 0, back the
/// other way, right from the +x side (looking along -x), left from -x, top straight down the up
/// axis (pitch -pi/2, +x to the right), bottom straight up it, iso from the front-right corner
/// above (yaw -pi/4, pitch -atan(1/sqrt 2): the three axes equally foreshortened).
enum class StandardView { kTop, kBottom, kFront, kBack, kLeft, kRight, kIso };

/// The view's name ("top", "bottom", "front", "back", "left", "right", "iso") and back.
const char* standard_view_name(StandardView v);
bool parse_standard_view(const std::string& name, StandardView* out);

class Camera {
 public:
  glm::dvec3 position{0.0, 0.0, 10.0};  ///< world coordinates (double: UTM-size values)
  double yaw = 0.0;  ///< radians, rotation about the world up (+y) axis; 0 looks along +z
  /// Radians, positive looks up; turn() keeps it just short of straight up or down, the
  /// standard views set exactly +-pi/2 (right() does not depend on the pitch, so the view
  /// straight down is as well defined as any).
  double pitch = 0.0;
  double focus = 5.0;  ///< focal length in image-plane units; tan(vfov/2) = 1/focus
  double near_z = 0.01;
  UpAxis up_axis = UpAxis::kY;
  Projection projection = Projection::kPerspective;
  /// Orthographic: the world units the image's height spans (the image plane's 2 units).
  double ortho_height = 10.0;

  bool ortho() const { return projection == Projection::kOrthographic; }
  /// Image-plane units per world unit at camera-space depth `depth`: focus / depth, or
  /// 2 / ortho_height in an orthographic view (any depth). Pixels: times height / 2.
  double image_scale(double depth) const;

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
  /// the current orientation (orthographic: sets ortho_height, the camera in front of the box).
  void frame(const Bounds& world_bounds, double aspect);
  /// Places the camera, keeping its orientation, where all 8 corners of the box project inside
  /// the middle `fill` of the image (of aspect W/H) on both axes, as near as that allows, moved
  /// sideways so that the corners' image is centred: the box fills most of the view, where
  /// frame()'s bounding sphere leaves a flat survey tile small. "Frame the cloud" and the starting
  /// view of files. Orthographic: the corners' image centred in the middle `fill`, ortho_height
  /// as small as that allows, the camera in front of the whole box (fill_ortho()).
  void fill_view(const Bounds& world_bounds, double aspect, double fill = 0.9);

  /// Switches the projection keeping what is seen at the cloud's centre: perspective to
  /// orthographic takes the scale at the depth of the box's centre (ortho_height =
  /// 2 depth / focus) and moves the camera back along its axis until the whole box lies in
  /// front of it (an orthographic image does not change along the axis, and a view from inside
  /// a cloud would cut it); orthographic to perspective places the camera at the distance from
  /// that depth where the scale is the same. `world_bounds` may be empty (then the depth is
  /// taken as focus * ortho_height / 2 and the camera stays).
  void set_projection(Projection p, const Bounds& world_bounds);
  /// Zooms an orthographic view: the height it spans divided by `factor` (kept within
  /// 1e-9 - 1e12 world units). No effect in perspective (the camera moves instead).
  void zoom(double factor);
  /// Turns to a standard view and frames the bounds (fill_view()).
  void set_view(StandardView v, const Bounds& world_bounds, double aspect);

  /// Projection parameters for an image of width x height, for a cloud whose local frame is
  /// offset by `origin`.
  ProjParams params(int width, int height, const glm::dvec3& origin, int point_size = 1) const;

 private:
  void fill_ortho(const Bounds& world_bounds, double aspect, double fill);
};

}  // namespace pr
