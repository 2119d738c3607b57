// Node selection for streaming by level of detail: which octree nodes of which tiles a view
// draws within a point budget, and which hierarchy pages and tile headers it needs read first.
// Pure (no I/O, no threads): the streaming scene keeps the known hierarchy in LodTile and calls
// select_lod() once a frame.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "engine/io/copc.h"
#include "engine/io/stream_types.h"
#include "engine/point_cloud.h"

namespace pr {

struct CopcKeyHash {
  size_t operator()(const CopcKey& k) const { return size_t(k.hash()); }
};

/// Point counts of LodEntry below 0.
inline constexpr int32_t kLodUnreadPage = -1;  ///< a hierarchy page not read yet
inline constexpr int32_t kLodFailedPage = -2;  ///< a page that could not be read: a leaf

/// A known hierarchy entry: a node (point_count >= 0) or a page that holds the node at its key
/// and the subtree below (point_count kLodUnreadPage or kLodFailedPage).
struct LodEntry {
  uint64_t offset = 0;
  int32_t byte_size = 0;
  int32_t point_count = 0;
  uint8_t children = 0;  ///< bit i: child i (CopcKey::child) has an entry
};

/// One tile of a survey as the selection sees it.
struct LodTile {
  /// Header read: the cube and the hierarchy below are known. A tile not open is only its
  /// declared `bounds` (a .vpc's), and is asked to open when they come into view.
  bool open = false;
  bool failed = false;  ///< did not open: never selected
  Bounds bounds;        ///< the points' bounds (header or declared); empty: the cube alone
  glm::dvec3 center{0.0};
  double halfsize = 0.0, spacing = 0.0;  ///< the root cube and the root's point spacing
  std::unordered_map<CopcKey, LodEntry, CopcKeyHash> entries;

  /// Adds or replaces the entry at `key` and marks it in its parent's child bits (the root has
  /// no parent). A node never gives way to a page.
  void add(const CopcKey& key, const LodEntry& entry);
  /// The box a node's points lie in: its cube, cut to `bounds` when they are known.
  Bounds node_box(const CopcKey& key) const;
};

struct LodLimits {
  uint64_t point_budget = 0;
  double sse_px = 1.0;
  uint32_t slot_align = 1;  ///< a node takes whole slots of this many points in the pool
  uint64_t max_slots = 0;   ///< the pool's slots (0: no limit)
  /// Pixels the view is widened by on every side for culling, so that a point whose splat
  /// reaches into the image from just outside is kept.
  double margin_px = 16.0;
};

/// A node, page or tile the view needs, with its projected size in pixels (the priority).
struct LodItem {
  uint32_t tile = 0;
  CopcKey key;
  double priority = 0.0;
};

struct LodSelection {
  /// Selected nodes, largest projected size first; a node comes after its parent.
  std::vector<LodItem> nodes;
  /// Unread pages the selection reached (their subtree is unknown), most important first.
  std::vector<LodItem> pages;
  /// Tiles not open whose declared bounds are in view (key: the root), most important first.
  std::vector<LodItem> tiles;
  uint64_t points = 0, slots = 0;  ///< of the selected nodes
  uint64_t visited = 0;            ///< candidates taken from the queue (for measurements)
};

/// Selects the nodes `view` draws. Each tile's root is a candidate when its box is in view;
/// candidates leave a max-heap by projected size (the box's bounding sphere radius r, the
/// distance d from the eye to its centre minus r, clamped at near: r * focus * (height / 2) / d;
/// infinite when the eye is inside). A candidate that would pass the point budget or the pool's
/// slots is skipped with its subtree while smaller ones still fill the budget (a fuller image
/// than stopping at the first one that does not fit; the budget is still never passed). A
/// selected node's children become candidates when its spacing on screen (spacing * focus *
/// (height / 2) / distance to the box's nearest point) exceeds sse_px, and only the children
/// whose box is in view: culling tests the box against the four side planes and the near plane,
/// widened by margin_px, so a node with a visible point is never culled. An orthographic view
/// (LodView::ortho = k) has parallel side planes and sizes independent of the distance: r k
/// (height / 2) and spacing k (height / 2).
void select_lod(const std::vector<LodTile>& tiles, const LodView& view, const LodLimits& limits,
                LodSelection& out);

/// Slots a node of `points` points takes in a pool of `slot_align`-point slots.
inline uint64_t lod_slots(uint64_t points, uint32_t slot_align) {
  return (points + slot_align - 1) / slot_align;
}

}  // namespace pr
