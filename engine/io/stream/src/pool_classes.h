// The class filter and the class counts of a streaming pool (stream_pool.h). Hidden classes are
// taken out as engine/colorize.h's apply_class_filter() takes them out of a loaded cloud: their
// points get NaN positions (both renderers skip them) and their positions wait here, by granule,
// so that a node copied in later is filtered as it arrives, a node leaving the pool takes its
// kept positions with it, and a changed filter shows and hides the nodes in the pool again.
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/point_cloud.h"

namespace pr {

class PoolClassFilter {
 public:
  /// The classes c with hidden[c] are hidden from now on; true when that changed.
  bool set(const std::array<bool, 256>& hidden);
  const std::array<bool, 256>& hidden() const { return hidden_; }
  /// Hides the points of hidden classes in `granules` of `pool` (each `size` points).
  void hide(PointCloud& pool, const std::vector<uint32_t>& granules, uint32_t size);
  /// Shows the points hidden in `granules` again.
  void show(PointCloud& pool, const std::vector<uint32_t>& granules, uint32_t size);
  /// Drops what is kept for `granules` (their node leaves the pool).
  void forget(const std::vector<uint32_t>& granules);
  /// Drops everything kept (a new pool); the hidden classes stay.
  void clear() { kept_.clear(); }

 private:
  struct Kept {
    std::vector<uint32_t> at;      ///< points of the granule, from its first
    std::vector<Float3> position;  ///< their positions
  };
  std::array<bool, 256> hidden_{};
  bool any_ = false;
  std::unordered_map<uint32_t, Kept> kept_;
};

/// The points of each class in a node (the pairs of the classes it has), for the counts of the
/// classes in the pool. A node without classification counts as class 0 (the pool's zeros).
std::vector<std::pair<uint8_t, uint32_t>> node_classes(const PointCloud& node);

}  // namespace pr
