// A corridor of a streamed survey read at full depth: the octree nodes of COPC files, EPT
// datasets (ept.json, its folder or URL), URLs, folders of COPC files or .vpc surveys of either
// whose cubes come within a half width of a polyline across the ground (x, y: both are z up), level
// by level from the root as far as a point budget allows, read and decoded in parallel into one
// cloud. What a profile (engine/profile.h) of a survey reads: only the nodes near its line, every
// level of them.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "engine/io/open_byte_source.h"
#include "engine/point_cloud.h"

namespace pr {

struct CorridorRequest {
  std::vector<glm::dvec2> line;  ///< the polyline across the ground, at least 2 points
  double half_width = 0.5;       ///< above 0
  /// At most this many points are read (0: no limit): the levels of the nodes that meet the
  /// corridor are taken from the root down while their points, with those above, fit.
  uint64_t point_budget = 0;
  unsigned threads = 0;  ///< reading threads (0: every core)
  HttpOptions http;      ///< for URLs
};

struct CorridorStats {
  uint64_t tiles = 0;     ///< tiles whose bounds meet the corridor
  uint64_t nodes = 0;     ///< nodes read
  uint64_t points = 0;    ///< points read
  int depth = -1;         ///< the deepest level read
  bool complete = false;  ///< every level of the corridor's nodes was read (the budget held)
};

/// A region of a survey: the nodes whose world box `meets` accepts (also asked of each tile's
/// bounds, to skip tiles whole), read as a corridor's are.
struct RegionRequest {
  std::function<bool(const Bounds&)> meets;  ///< unset: every node
  uint64_t point_budget = 0;                 ///< as CorridorRequest's
  /// The point spacing wanted (0: every level): each tile's levels down to the first whose
  /// spacing (the root's / 2^level) is at most this; deeper nodes are not read.
  double resolution = 0.0;
  unsigned threads = 0;
  HttpOptions http;  ///< for URLs
};

/// Whether the segment a-b comes within `distance` of the rectangle [lo, hi] (2D).
bool segment_near_box(const glm::dvec2& a, const glm::dvec2& b, const glm::dvec2& lo,
                      const glm::dvec2& hi, double distance);

/// Reads the corridor of `inputs` (what list_survey() takes) into `out` (replaced; positions
/// relative to the first tile's origin, the attributes any tile has; a named field holds its
/// no-data value where a tile lacks it, as the streamed pool does). False with a one-line
/// message for a bad request, an input that is not a survey of COPC files or EPT datasets, a
/// node that cannot be read, or `cancel` set.
bool read_corridor(const std::vector<std::string>& inputs, const CorridorRequest& request,
                   PointCloud* out, CorridorStats* stats, std::string* error,
                   const std::atomic<bool>* cancel = nullptr);

/// Reads the region of `inputs` into `out` as read_corridor() reads a corridor: the nodes `meets`
/// accepts, whole levels from the root down within the budget, every attribute. What the viewer's
/// Save reads of a survey on a server (the converter reads local files only).
bool read_region(const std::vector<std::string>& inputs, const RegionRequest& request,
                 PointCloud* out, CorridorStats* stats, std::string* error,
                 const std::atomic<bool>* cancel = nullptr);

}  // namespace pr
