// Streaming by level of detail: clouds larger than memory (COPC files, URLs, folders of tiles,
// virtual point clouds) drawn from the octree nodes the view needs, within a point budget.
//
// Each update() (once a frame, on the frame's thread; it never waits for I/O):
//  1. selects nodes: the octree is walked from every tile's root, largest projected size first;
//     a node outside the view is culled; a node is refined (its children considered) while its
//     point spacing projected on screen exceeds the target error; selection stops at the point
//     budget. Levels add up, so a selected node's ancestors are selected too.
//  2. asks the workers for the selected nodes that are neither cached nor in flight (hierarchy
//     pages first: a tile's hierarchy is read only once its cube is in view), most important
//     first, and cancels requests for nodes that left the selection;
//  3. copies arrived nodes into the pool (a PointCloud of fixed capacity that the renderers draw
//     like any cloud), evicting the nodes no longer selected, least recently selected first. A
//     node whose children are still loading stays drawn: no holes, no popping to empty.
// Decoded nodes wait in a host cache (bounded by StreamOptions::cache_bytes, least recently used
// evicted) so that turning back costs no I/O.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "engine/io/byte_source.h"
#include "engine/io/io.h"
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
};

struct StreamOptions {
  uint64_t point_budget = 10'000'000;  ///< points selected at most (the pool's capacity)
  /// Target screen-space error in pixels: a node is refined while its point spacing on screen
  /// exceeds it. 0: refine every node in view (with a budget of at least the file's points, the
  /// whole cloud).
  double sse_px = 1.0;
  uint64_t cache_bytes = 1ull << 30;  ///< host memory for decoded nodes
  unsigned threads = 0;               ///< I/O and decode workers (0: the cores, at least 4)
  /// The pool's slots: this many points (the renderers' culling batch, kPointBatch). A node
  /// takes a whole slot for each slot_align of its points (a batch of no other node) and
  /// granules of slot_align / 8 points for the rest (rests of several nodes may share a batch).
  uint32_t slot_align = 4096;
  /// Points copied into the pool per update() at most (bounds the frame's upload).
  uint64_t pool_points_per_update = 8'000'000;
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
  /// Every selected node is in the pool and nothing is in flight: the view is as good as the
  /// budget and the target error allow.
  bool converged = false;
};

class StreamingScene {
 public:
  explicit StreamingScene(const StreamOptions& options);
  ~StreamingScene();
  StreamingScene(const StreamingScene&) = delete;
  StreamingScene& operator=(const StreamingScene&) = delete;

  /// Opens a survey: COPC files or URLs, folders of COPC files, `.vpc` virtual point clouds
  /// (survey.h), all as one scene. Reads each tile's header (a .vpc's tiles: nothing, their bounds
  /// and counts come from the .vpc) and no hierarchy. False with a one-line message when no tile
  /// opens; tiles that do not open are skipped and named in take_messages().
  bool open(const std::vector<std::string>& inputs, std::string* error);

  /// The survey as --info would sum it: format, points (all tiles), bounds, attributes, origin
  /// (the first tile's), copc (the first tile's cube and spacing).
  const FileInfo& info() const;

  /// Budget, target error and cache take effect at the next update(); a new point budget gives a
  /// new pool (pool_reallocated() then says so once).
  void set_options(const StreamOptions& options);
  const StreamOptions& options() const;

  /// Selects for `view`, asks for what is missing, and copies arrived nodes into the pool. The
  /// ranges of the pool that changed since the last update() (the renderers upload only those).
  std::vector<PoolRange> update(const LodView& view);

  /// What the renderers draw: positions relative to info().origin, the file's colors, and every
  /// attribute some tile has (zeros for a tile without it). Its size is the pool's capacity
  /// (>= point_budget, a multiple of slot_align); points outside drawn nodes are NaN. Its arrays
  /// keep their address until the pool is reallocated. A node's file colors go where the pool
  /// keeps the file's colors (PointCloud::source_colors(): `file_colors` while the caller shows
  /// another color mode, engine/colorize.h's set_display_colors(), else `colors`); the caller
  /// colors the changed ranges of `colors` in its mode.
  PointCloud& pool();
  /// True once after the pool was reallocated (the caller hands it to the renderer again).
  bool pool_reallocated();

  StreamStats stats() const;
  /// Messages for the user (a tile that did not open, a node skipped, a server error), each once,
  /// in order; taking them empties the list.
  std::vector<std::string> take_messages();

  /// Blocks until the selection for `view` has converged (update() called in a loop, every
  /// `poll_ms`) or `timeout_s` passes; true when converged. For headless mode and tests.
  bool wait_converged(const LodView& view, double timeout_s, int poll_ms = 2);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// True when `input` should stream rather than load: a URL, a .vpc, a folder, a COPC file.
bool is_streamed_input(const std::string& input);

}  // namespace pr
