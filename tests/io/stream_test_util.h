// What the streaming tests of tests/io share: a cloud's points with every attribute (the pool's
// non-NaN ones), the camera they stream for, options that refine every node in view, and a survey
// streamed that way until it converges.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <glm/glm.hpp>

#include "engine/io/stream.h"
#include "engine/io/stream_types.h"
#include "engine/point_cloud.h"

namespace pr::test {

/// A point: x, y, z, its file color, intensity, class, returns, point source, GPS time.
using StreamPoint =
    std::tuple<float, float, float, uint32_t, float, uint8_t, uint8_t, uint16_t, double>;

template <class V>
auto at_or_zero(const V& v, size_t i) {
  return i < v.size() ? v[i] : typename V::value_type{};
}

inline StreamPoint point_of(const PointCloud& c, size_t i) {
  const Float3 p = c.positions[i];
  return {p.x,
          p.y,
          p.z,
          c.source_colors()[i],
          at_or_zero(c.intensity, i),
          at_or_zero(c.classification, i),
          at_or_zero(c.returns, i),
          at_or_zero(c.point_source, i),
          at_or_zero(c.gps_time, i)};
}

/// The points of a cloud (the pool: its non-NaN ones), sorted.
inline std::vector<StreamPoint> points_of(const PointCloud& c) {
  std::vector<StreamPoint> out;
  for (size_t i = 0; i < c.size(); ++i)
    if (!std::isnan(c.positions[i].x)) out.push_back(point_of(c, i));
  std::sort(out.begin(), out.end());
  return out;
}

/// A camera `distance` radii from the centre of `b` (moved by `shift`) on -y, looking at it (z
/// up), 90 degrees, 256 x 256 pixels.
inline LodView view_of(const Bounds& b, double distance = 3.0, glm::dvec3 shift = glm::dvec3(0.0)) {
  const double r = std::max(0.5 * glm::length(b.size()), 1e-3);
  LodView v;
  v.forward = {0, 1, 0};
  v.right = {1, 0, 0};
  v.up = {0, 0, 1};
  v.eye = b.center() + shift - v.forward * (distance * r);
  v.focus = 1.0;
  v.width = v.height = 256;
  return v;
}

/// A budget, a target error (0: every node in view), 2 workers, a 256 MiB cache.
inline StreamOptions stream_options(uint64_t budget, double sse = 0.0) {
  StreamOptions o;
  o.point_budget = budget;
  o.sse_px = sse;
  o.threads = 2;
  o.cache_bytes = 256ull << 20;
  return o;
}

/// What streaming a survey at full detail gives once its view converged.
struct Streamed {
  bool opened = false;
  std::string error;  ///< why it did not open
  FileInfo info;
  std::vector<StreamPoint> points;    ///< the pool's, sorted
  std::vector<std::string> messages;  ///< the scene's, in order
  uint64_t nodes_failed = 0;
};

/// `inputs` streamed with `budget` and every node in view refined (stream_options()), seen from
/// view_of() their bounds until the view converges (30 s at most) and 3 updates more.
inline Streamed stream_converged(const std::vector<std::string>& inputs,
                                 uint64_t budget = 10'000'000) {
  StreamingScene scene(stream_options(budget));
  Streamed s;
  s.opened = scene.open(inputs, &s.error);
  if (!s.opened) return s;
  s.info = scene.info();
  const LodView v = view_of(s.info.bounds);
  EXPECT_TRUE(scene.wait_converged(v, 30.0));
  for (int i = 0; i < 3; ++i) scene.update(v);
  s.messages = scene.take_messages();
  s.points = points_of(scene.pool());
  s.nodes_failed = scene.stats().nodes_failed;
  return s;
}

}  // namespace pr::test
