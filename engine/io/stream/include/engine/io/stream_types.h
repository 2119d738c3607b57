// What streaming by level of detail (engine/io/stream.h) passes between its parts and to its
// caller: the view a selection is made for, the options, the ranges of the pool that changed, the
// statistics.
#pragma once

#include <cstdint>
#include <functional>

#include <glm/glm.hpp>

#include "engine/io/open_byte_source.h"
#include "engine/point_cloud.h"

namespace pr {

/// The view a selection is made for: a pinhole camera in world coordinates (the same camera
/// engine/camera.h describes: tan(vfov / 2) = 1 / focus).
struct LodView {
  glm::dvec3 eye{0.0};
  glm::dvec3 right{1, 0, 0}, up{0, 1, 0}, forward{0, 0, 1};  ///< world directions, unit length
  double focus = 5.0;
  int width = 1280, height = 720;  ///< pixels
  double near_z = 0.01;
  /// A clip (engine/clip.h; app/streaming.cpp's lod_view()): whether no point of a node's box can
  /// be shown. Such a node is not selected, nor anything below it, so it is not loaded. Unset:
  /// every node may be. `hidden_key` changes whenever `hidden` does (the selection runs again).
  std::function<bool(const Bounds&)> hidden;
  uint64_t hidden_key = 0;
  /// Orthographic: image-plane units per world unit (2 / the view's height; focus then unused);
  /// 0 for the pinhole camera.
  double ortho = 0.0;
};

/// pool_points_per_update for the CPU renderer, which takes a range of new points (its batch boxes)
/// on the frame's thread: on 2 cores 1e6 points a frame made the longest frame after a jump
/// 2.3 - 2.7x the median, 5e5 points 1.5 - 1.7x.
constexpr uint64_t kCpuPoolPointsPerUpdate = 500'000;

struct StreamOptions {
  uint64_t point_budget = 10'000'000;  ///< points selected at most (the pool's capacity)
  /// Target screen-space error in pixels: a node is refined while its point spacing on screen
  /// exceeds it. 0: refine every node in view (with a budget of at least the file's points, the
  /// whole cloud).
  double sse_px = 1.0;
  uint64_t cache_bytes = 1ull << 30;  ///< host memory for decoded nodes
  /// I/O and decode workers (0: one a core; at least 4 when a tile is read over HTTP(S)).
  unsigned threads = 0;
  /// The pool's slots: this many points (the renderers' culling batch, kPointBatch). A node
  /// takes a whole slot for each slot_align of its points (a batch of no other node) and
  /// granules of slot_align / 8 points for the rest (rests of several nodes may share a batch).
  uint32_t slot_align = 4096;
  /// Points copied into the pool per update() at most (bounds the frame's copy and upload: on an
  /// H100 over a 4e8-point survey at budget 1e8, 2.5e5 made the longest flight frame 12.4 - 17.2
  /// ms and the p99 11.1 - 13.9 ms, where 1e6 made them 18.4 - 20.2 and 13.2 - 15.6 ms).
  uint64_t pool_points_per_update = 250'000;
  /// A node in the pool that this many updates did not select gives its room to an arriving one
  /// before the pool grows (the cloud stays as large as the views need: room already written is
  /// reused, fresh memory written only while the views need more). Younger unselected nodes
  /// stay, for a view that turns back; all of them give room once the budget is reached.
  uint64_t pool_keep_updates = 120;
  HttpOptions http;
};

/// A part of the pool that changed in the last update(): new points in [first, first + count)
/// (nodes copied in; the rest of a node's last granule holds NaN positions, which never draw) or,
/// for an evicted node, NaN positions there. Ranges cover whole granules (slot_align / 8 points),
/// sorted and disjoint; ranges less than 65536 points apart are merged (the points between them,
/// unchanged, are handed over again: fewer, larger uploads).
struct PoolRange {
  uint64_t first = 0, count = 0;
};

struct StreamStats {
  uint64_t tiles = 0, tiles_open = 0;  ///< tiles of the survey; those whose header is read
  uint64_t nodes_selected = 0, points_selected = 0;
  uint64_t nodes_drawn = 0, points_drawn = 0;  ///< in the pool
  uint64_t nodes_cached = 0, cache_bytes = 0;
  uint64_t nodes_in_flight = 0;  ///< node and page requests queued or running
  uint64_t nodes_failed = 0;     ///< skipped: unreadable or corrupt (named once in messages)
  uint64_t bytes_read = 0;       ///< from every source so far
  double mb_per_s = 0.0;         ///< read rate over the last second
  /// The last update()'s parts, wall ms: taking the workers' results, the selection with the
  /// requests it makes, and copying arrived nodes into the pool.
  double results_ms = 0.0, select_ms = 0.0, copy_ms = 0.0;
  /// Every selected node is in the pool and nothing is in flight: the view is as good as the
  /// budget and the target error allow.
  bool converged = false;
};

}  // namespace pr
