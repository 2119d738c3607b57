// Camera paths (camera_path.h). The positions: a centripetal Catmull-Rom segment between keys P1
// and P2, with their neighbours P0 and P3, is evaluated by the Barry-Goldman pyramid over the
// knots t0 = 0, t(k+1) = t(k) + |P(k+1) - P(k)|^0.5: three linear interpolations A1..A3 between
// neighbouring points, two B1, B2 between those, and the point C, each weighted by where t lies
// between the knots of its pair. The orientations: each key's yaw and pitch as the quaternion
// q = R_y(yaw) R_x(-pitch) of engine/camera.h's frame (forward (sin y cos p, sin p, cos y cos p)),
// slerp between consecutive keys, and the result's forward and up axes back to yaw and pitch.
#include "engine/camera_path.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <glm/gtc/quaternion.hpp>

namespace pr {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kDeg = kPi / 180.0;
/// Sub-steps of a segment's parameter in the constant-speed table. Both of its errors shrink with
/// the step's square: the chords' sum falls short of the arc by about (curvature * step)^2 / 24,
/// and the parameter read between two entries in proportion to the arc is off by about
/// (v'/v) step^2 / 8 where the speed v along the parameter changes (uneven keys); at 1024 steps
/// both stay about 1e-6 of the path's extent for uneven paths (tests/engine/path_compare.py).
constexpr int kArcSteps = 1024;

/// The rotation of a camera at `yaw`, `pitch` (radians) in the yaw/pitch frame.
glm::dquat pose_rotation(double yaw, double pitch) {
  return glm::angleAxis(yaw, glm::dvec3(0.0, 1.0, 0.0)) *
         glm::angleAxis(-pitch, glm::dvec3(1.0, 0.0, 0.0));
}

/// Spherical interpolation from `a` to `b` the shorter way (q and -q are the same rotation: the
/// one nearer `a` is taken); nearly equal rotations interpolate linearly and normalize, where
/// sin(angle) would divide by almost nothing.
glm::dquat slerp_shortest(const glm::dquat& a, glm::dquat b, double u) {
  double d = glm::dot(a, b);
  if (d < 0.0) {
    b = -b;
    d = -d;
  }
  if (d > 0.9995) return glm::normalize(a * (1.0 - u) + b * u);
  const double angle = std::acos(std::min(d, 1.0));
  const double s = std::sin(angle);
  return a * (std::sin((1.0 - u) * angle) / s) + b * (std::sin(u * angle) / s);
}

/// Yaw and pitch (radians) of rotation `q`: the pitch from its forward axis f, the yaw from the
/// horizontal direction f cos(p) - up sin(p), which for a camera without roll is exactly
/// (sin y, 0, cos y) at any pitch, straight up and down included (where f alone has no
/// heading); a slerp between two keys may add a little roll, which is dropped.
void rotation_angles(const glm::dquat& q, double* yaw, double* pitch) {
  const glm::dvec3 f = q * glm::dvec3(0.0, 0.0, 1.0);
  const glm::dvec3 up = q * glm::dvec3(0.0, 1.0, 0.0);
  *pitch = std::asin(std::clamp(f.y, -1.0, 1.0));
  const glm::dvec3 d = f * std::cos(*pitch) - up * std::sin(*pitch);
  *yaw = std::atan2(d.x, d.z);
}

/// One centripetal Catmull-Rom segment from P1 (u = 0) to P2 (u = 1). A neighbour that coincides
/// with its end (a repeated key) would make a knot interval of zero: it is replaced by the
/// reflection of the segment's other end, as at an open path's ends. A segment whose ends
/// coincide stays at its point.
glm::dvec3 catmull_rom(glm::dvec3 p0, const glm::dvec3& p1, const glm::dvec3& p2, glm::dvec3 p3,
                       double u) {
  const double l12 = glm::length(p2 - p1);
  if (!(l12 > 0.0)) return p1;
  if (!(glm::length(p1 - p0) > 1e-9 * l12)) p0 = 2.0 * p1 - p2;
  if (!(glm::length(p3 - p2) > 1e-9 * l12)) p3 = 2.0 * p2 - p1;
  const double t0 = 0.0;
  const double t1 = t0 + std::sqrt(glm::length(p1 - p0));
  const double t2 = t1 + std::sqrt(l12);
  const double t3 = t2 + std::sqrt(glm::length(p3 - p2));
  const double t = t1 + u * (t2 - t1);
  const glm::dvec3 a1 = ((t1 - t) * p0 + (t - t0) * p1) / (t1 - t0);
  const glm::dvec3 a2 = ((t2 - t) * p1 + (t - t1) * p2) / (t2 - t1);
  const glm::dvec3 a3 = ((t3 - t) * p2 + (t - t2) * p3) / (t3 - t2);
  const glm::dvec3 b1 = ((t2 - t) * a1 + (t - t0) * a2) / (t2 - t0);
  const glm::dvec3 b2 = ((t3 - t) * a2 + (t - t1) * a3) / (t3 - t1);
  return ((t2 - t) * b1 + (t - t1) * b2) / (t2 - t1);
}

bool finite(const glm::dvec3& v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

std::string number(double v) {
  char s[32];
  std::snprintf(s, sizeof s, "%g", v);
  return s;
}

}  // namespace

CameraPose camera_pose(const Camera& camera) {
  CameraPose p;
  p.position = camera.position;
  p.yaw_deg = camera.yaw / kDeg;
  p.pitch_deg = camera.pitch / kDeg;
  return p;
}

void apply_pose(const CameraPose& pose, Camera& camera) {
  camera.position = pose.position;
  camera.yaw = std::remainder(pose.yaw_deg * kDeg, 2.0 * kPi);
  camera.pitch = std::clamp(pose.pitch_deg * kDeg, -0.5 * kPi, 0.5 * kPi);
}

CameraPath path_at_equal_times(const std::vector<CameraPose>& poses, double duration, bool loop) {
  CameraPath path;
  path.loop = loop;
  const size_t n = poses.size();
  const double steps = double(loop ? n : n - 1);
  for (size_t i = 0; i < n; ++i)
    path.keys.push_back({poses[i], n > 1 ? double(i) * duration / steps : 0.0});
  return path;
}

bool validate_path(const CameraPath& path, std::string* error) {
  auto fail = [error](size_t i, const std::string& why) {
    if (error) *error = "camera path: key " + std::to_string(i + 1) + ": " + why;
    return false;
  };
  if (path.keys.empty()) {
    if (error) *error = "camera path: no keys";
    return false;
  }
  for (size_t i = 0; i < path.keys.size(); ++i) {
    const CameraKey& k = path.keys[i];
    if (!finite(k.pose.position) || !std::isfinite(k.pose.yaw_deg) ||
        !std::isfinite(k.pose.pitch_deg))
      return fail(i, "its position and angles must be finite numbers");
    if (std::abs(k.pose.pitch_deg) > 90.0)
      return fail(i, "pitch " + number(k.pose.pitch_deg) + " lies beyond +-90 degrees");
    if (!std::isfinite(k.time)) return fail(i, "its time must be a finite number");
    if (i > 0 && !(k.time > path.keys[i - 1].time))
      return fail(i, "its time (" + number(k.time) + " s) must come after key " +
                         std::to_string(i) + "'s (" + number(path.keys[i - 1].time) + " s)");
  }
  return true;
}

double path_duration(const CameraPath& path) {
  const size_t n = path.keys.size();
  if (n < 2) return 0.0;
  const double span = path.keys.back().time - path.keys.front().time;
  return path.loop ? span * double(n) / double(n - 1) : span;
}

CameraPathPlayer::CameraPathPlayer(const CameraPath& path) : path_(path) {
  std::stable_sort(path_.keys.begin(), path_.keys.end(),
                   [](const CameraKey& a, const CameraKey& b) { return a.time < b.time; });
  if (!path_.keys.empty()) start_ = path_.keys.front().time;
  duration_ = path_duration(path_);
  build_arc_table();
}

int CameraPathPlayer::segments() const {
  const int n = int(path_.keys.size());
  if (n < 2) return 0;
  return path_.loop ? n : n - 1;
}

glm::dvec3 CameraPathPlayer::position_at(double s) const {
  const std::vector<CameraKey>& k = path_.keys;
  const int n = int(k.size()), segs = segments();
  if (n == 0) return glm::dvec3(0.0);
  if (segs == 0) return k[0].pose.position;
  const int i = std::clamp(int(std::floor(s)), 0, segs - 1);
  const double u = std::clamp(s - double(i), 0.0, 1.0);
  const glm::dvec3& p1 = k[size_t(i)].pose.position;
  const glm::dvec3& p2 = k[size_t((i + 1) % n)].pose.position;
  // Neighbours: the keys beside, around the loop, or at an open end the reflection.
  const glm::dvec3 p0 =
      i > 0 || path_.loop ? k[size_t((i + n - 1) % n)].pose.position : 2.0 * p1 - p2;
  const glm::dvec3 p3 =
      i + 2 < n || path_.loop ? k[size_t((i + 2) % n)].pose.position : 2.0 * p2 - p1;
  return catmull_rom(p0, p1, p2, p3, u);
}

void CameraPathPlayer::build_arc_table() {
  arc_.clear();
  length_ = 0.0;
  const int segs = segments();
  if (segs == 0) return;
  arc_.reserve(size_t(segs) * kArcSteps + 1);
  arc_.push_back(0.0);
  glm::dvec3 last = position_at(0.0);
  for (int i = 0; i < segs; ++i)
    for (int j = 1; j <= kArcSteps; ++j) {
      const glm::dvec3 p = position_at(double(i) + double(j) / kArcSteps);
      length_ += glm::length(p - last);
      arc_.push_back(length_);
      last = p;
    }
}

void CameraPathPlayer::locate_arc(double s, int* segment, double* u) const {
  s = std::clamp(s, 0.0, length_);
  // The last table entry at or below s; between it and the next, the parameter in proportion
  // (steps of no length, where the camera only turns, are passed over).
  size_t j = size_t(std::upper_bound(arc_.begin(), arc_.end(), s) - arc_.begin());
  j = std::clamp<size_t>(j, 1, arc_.size() - 1) - 1;
  const double step = arc_[j + 1] - arc_[j];
  const double f = step > 0.0 ? std::clamp((s - arc_[j]) / step, 0.0, 1.0) : 0.0;
  const double g = (double(j) + f) / kArcSteps;
  *segment = std::min(int(std::floor(g)), segments() - 1);
  *u = std::clamp(g - double(*segment), 0.0, 1.0);
}

void CameraPathPlayer::locate(double t, int* segment, double* u) const {
  const std::vector<CameraKey>& k = path_.keys;
  const int n = int(k.size());
  double tt = t - start_;
  if (path_.loop) {
    tt = std::fmod(tt, duration_);
    if (tt < 0.0) tt += duration_;
  } else {
    tt = std::clamp(tt, 0.0, duration_);
  }
  if (path_.constant_speed && length_ > 0.0)
    return locate_arc(tt / duration_ * length_, segment, u);
  const double at = start_ + tt;
  int i = int(std::upper_bound(k.begin(), k.end(), at,
                               [](double v, const CameraKey& key) { return v < key.time; }) -
              k.begin()) -
          1;
  i = std::clamp(i, 0, n - 1);
  if (i == n - 1 && !path_.loop) {  // the end of an open path
    *segment = n - 2;
    *u = 1.0;
    return;
  }
  // The loop's closing segment lasts what is left of the round after the last key.
  const double span = i == n - 1 ? duration_ - (k[size_t(n - 1)].time - start_)
                                 : k[size_t(i + 1)].time - k[size_t(i)].time;
  *segment = i;
  *u = span > 0.0 ? std::clamp((at - k[size_t(i)].time) / span, 0.0, 1.0) : 0.0;
}

CameraPose CameraPathPlayer::pose(int segment, double u) const {
  const std::vector<CameraKey>& k = path_.keys;
  const CameraPose& a = k[size_t(segment)].pose;
  const CameraPose& b = k[size_t(segment + 1) % k.size()].pose;
  CameraPose p;
  p.position = position_at(double(segment) + u);
  const glm::dquat q = slerp_shortest(pose_rotation(a.yaw_deg * kDeg, a.pitch_deg * kDeg),
                                      pose_rotation(b.yaw_deg * kDeg, b.pitch_deg * kDeg), u);
  double yaw = 0.0, pitch = 0.0;
  rotation_angles(q, &yaw, &pitch);
  // The yaw on the branch of the segment's first key (350 -> 10 passes 360, not 0), so that the
  // angle moves continuously through the segment.
  p.yaw_deg = a.yaw_deg + std::remainder(yaw / kDeg - a.yaw_deg, 360.0);
  p.pitch_deg = pitch / kDeg;
  return p;
}

CameraPose CameraPathPlayer::at(double t) const {
  if (path_.keys.empty()) return CameraPose{};
  if (path_.keys.size() == 1) return path_.keys[0].pose;
  int segment = 0;
  double u = 0.0;
  locate(t, &segment, &u);
  return pose(segment, u);
}

}  // namespace pr
