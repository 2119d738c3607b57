// Streaming by level of detail: clouds larger than memory (COPC files, EPT datasets, URLs, folders
// of tiles, virtual point clouds) drawn from the octree nodes the view needs, within a point
// budget.
//
// Each update() (once a frame, on the frame's thread; it never waits for I/O):
//  1. selects nodes: the octree is walked from every tile's root, largest projected size first;
//     a node outside the view is culled; a node is refined (its children considered) while its
//     point spacing projected on screen exceeds the target error; selection stops at the point
//     budget. Levels add up, so a selected node's ancestors are selected too.
//  2. asks the workers for the selected nodes that are neither cached nor in flight (hierarchy
//     pages first: a tile's hierarchy is read only once its cube is in view), most important
//     first, and cancels requests for nodes that left the selection;
//  3. copies arrived nodes into the pool (a PointCloud that the renderers draw like any cloud,
//     grown as nodes arrive up to the budget's capacity; opening costs nothing the budget sets),
//     evicting the nodes no longer selected, least recently selected first. A
//     node whose children are still loading stays drawn: no holes, no popping to empty.
// Decoded nodes wait in a host cache (bounded by StreamOptions::cache_bytes, least recently used
// evicted) so that turning back costs no I/O.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "engine/io/file_info.h"
#include "engine/io/stream_types.h"
#include "engine/point_cloud.h"

namespace pr {

/// The classes of a streamed survey as far as its nodes have arrived (the pool's classification).
struct StreamClasses {
  std::array<uint64_t, 256> points{};  ///< points in the pool per class, hidden ones too
  /// A node holding the class has been in the pool (a class whose nodes left it keeps its place,
  /// with 0 points).
  std::array<bool, 256> seen{};
};

class StreamingScene {
 public:
  explicit StreamingScene(const StreamOptions& options);
  ~StreamingScene();
  StreamingScene(const StreamingScene&) = delete;
  StreamingScene& operator=(const StreamingScene&) = delete;

  /// Opens a survey: COPC files or URLs, EPT datasets (ept.json, its folder or URL), folders of
  /// COPC files, `.vpc` virtual point clouds
  /// (survey.h), all as one scene. Reads each tile's header (a .vpc's tiles: nothing, their bounds
  /// and counts come from the .vpc) and no hierarchy. False with a one-line message when no tile
  /// opens; tiles that do not open are skipped and named in take_messages().
  bool open(const std::vector<std::string>& inputs, std::string* error);

  /// The survey as --info would sum it: format, points (all tiles), bounds (the tiles' declared
  /// or read bounds), attributes, origin (chosen from those bounds as a file's origin is from its
  /// own: tiles cut from one file get that file's origin, and its positions), copc (the first
  /// tile's cube and spacing).
  const FileInfo& info() const;

  /// Budget, target error and cache take effect at the next update(); a new point budget gives a
  /// new pool (pool_reallocated() then says so once).
  void set_options(const StreamOptions& options);
  const StreamOptions& options() const;

  /// Selects for `view`, asks for what is missing, and copies arrived nodes into the pool. The
  /// ranges of the pool that changed since the last update() (the renderers upload only those).
  std::vector<PoolRange> update(const LodView& view);

  /// What the renderers draw: positions relative to info().origin, the file's colors, and every
  /// attribute some tile has (zeros for a tile without it; a named field its no-data value, and a
  /// field of a tile opened later joins the pool then). It starts with one slot (slot_align
  /// points, NaN) and grows, in whole slots, as far as the nodes copied in so far reach (at most
  /// the pool's capacity: the point budget and an eighth); points outside drawn nodes are NaN. A
  /// range update() returns may lie beyond the size the renderers had (the pool grew: they take the
  /// larger cloud with update_points()). Its arrays keep their address until the pool is
  /// reallocated (room for the capacity is reserved, untouched, when the pool is made). A node's
  /// file colors go where the pool keeps the file's colors (PointCloud::source_colors():
  /// `file_colors` while the caller shows another color mode, engine/colorize.h's
  /// set_display_colors(), else `colors`); the caller colors the changed ranges of `colors` in its
  /// mode.
  PointCloud& pool();
  /// True once after the pool was reallocated (the caller hands it to the renderer again).
  bool pool_reallocated();

  /// The class filter (engine/colorize.h's apply_class_filter() for the pool): the points of every
  /// class c with hidden[c] are not drawn (NaN positions), in the nodes in the pool now (their
  /// ranges are handed over at the next update()) and in every node copied in later. It stays
  /// through a new pool.
  void set_hidden_classes(const std::array<bool, 256>& hidden);
  /// Empty while the survey has no classification.
  const StreamClasses& classes() const;

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

/// True when `input` should stream rather than load: a URL, a .vpc, a folder, a COPC file, an
/// EPT dataset's ept.json.
bool is_streamed_input(const std::string& input);

}  // namespace pr
