// Camera paths: camera poses (keyframes) at times, and the smooth motion through them
// (docs/VIDEO.md gives the math):
//  - positions on a centripetal Catmull-Rom spline (alpha = 0.5) through the keys' positions: no
//    cusps or loops within a segment, even where keys are unevenly spaced. An open path's end
//    segments use a phantom point reflected through the end key (P[-1] = 2 P[0] - P[1]), so that
//    two keys give a straight line travelled at constant speed; a loop closes the spline (the
//    last key joins the first with the same smoothness as any other pair).
//  - orientations by spherical interpolation (slerp) of the keys' quaternions, the shorter way
//    round (yaw 350 to 10 turns through 0, not back through 180), turned back into yaw and pitch.
//  - timing: each key at its time, or (constant_speed) at constant speed along the spline, the
//    path's duration kept: the spline's parameter from its arc length by a numeric table.
#pragma once

#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "engine/camera.h"

namespace pr {

/// A camera pose as the command line gives it: a world position and yaw and pitch in degrees
/// (the frame of engine/camera.h).
struct CameraPose {
  glm::dvec3 position{0.0};
  double yaw_deg = 0.0;
  double pitch_deg = 0.0;
};

/// A keyframe: a pose at a time (seconds from the path's start).
struct CameraKey {
  CameraPose pose;
  double time = 0.0;
};

/// Keyframes in time order; played once or looped, at the keys' times or at constant speed.
/// A loop's closing segment (the last key back to the first) lasts the keys' mean interval,
/// (last time - first time) / (keys - 1), so that keys at equal times stay equally spaced.
struct CameraPath {
  std::vector<CameraKey> keys;
  bool loop = false;
  bool constant_speed = false;
};

/// The pose of `camera` (its yaw and pitch in degrees).
CameraPose camera_pose(const Camera& camera);
/// Places `camera` at `pose`: its position, yaw (brought into (-180, 180]) and pitch (held to
/// [-90, 90]); its focus, projection and up axis stay.
void apply_pose(const CameraPose& pose, Camera& camera);

/// `poses` at equal times over `duration` seconds: key i at i * duration / (n - 1), or for a
/// loop at i * duration / n (its closing segment then lasts duration / n too, and one round
/// takes `duration`).
CameraPath path_at_equal_times(const std::vector<CameraPose>& poses, double duration, bool loop);

/// Whether `path` can be played: at least one key, finite positions and angles, times finite and
/// strictly increasing; false with one line naming the key and the problem.
bool validate_path(const CameraPath& path, std::string* error);

/// Seconds from the first key's time to the end: the last key's time for an open path, one round
/// (the closing segment included) for a loop; 0 for fewer than two keys.
double path_duration(const CameraPath& path);

/// A path made ready to play: the constant-speed table built once. Copies the path.
class CameraPathPlayer {
 public:
  CameraPathPlayer() = default;
  /// `path` should pass validate_path(); keys out of time order are sorted by time.
  explicit CameraPathPlayer(const CameraPath& path);

  /// The pose at time `t` (seconds on the keys' clock): before the first key its pose, after an
  /// open path's end its last pose; a loop repeats. No keys: the default pose.
  CameraPose at(double t) const;
  /// The positions' spline at `s` in [0, segments()]: segment floor(s), its local parameter
  /// s - floor(s) (the spline's own parameter, not time). For drawing the path.
  glm::dvec3 position_at(double s) const;
  /// Spline segments: keys - 1, or keys for a loop (0 for fewer than two keys).
  int segments() const;
  /// The first key's time, and path_duration().
  double start() const { return start_; }
  double duration() const { return duration_; }
  /// The spline's arc length (world units).
  double length() const { return length_; }
  const CameraPath& path() const { return path_; }

 private:
  /// The segment and its local parameter in [0, 1] at time `t`.
  void locate(double t, int* segment, double* u) const;
  /// The segment and local parameter at arc length `s` from the start (the table).
  void locate_arc(double s, int* segment, double* u) const;
  CameraPose pose(int segment, double u) const;
  void build_arc_table();

  CameraPath path_;
  double start_ = 0.0, duration_ = 0.0, length_ = 0.0;
  /// Constant speed: the arc length at even steps of each segment's parameter (the
  /// chords' sum), segment by segment; arc_[0] = 0, arc_.back() = length_.
  std::vector<double> arc_;
};

}  // namespace pr
