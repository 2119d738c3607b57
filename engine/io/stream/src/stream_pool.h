// The streaming scene's pool: one PointCloud of fixed capacity that the renderers draw, cut into
// slots of slot_align points (the renderers' culling batch) and each slot into 8 granules. A node
// takes a whole slot for each slot_align of its points (so a batch of a large node holds nothing
// else and its culling box stays tight) and granules for the rest, anywhere in the pool: a small
// node wastes less than a granule, and since no node needs adjacent room, freeing and taking
// never fragments the pool. Points outside a node have NaN positions and never draw.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "engine/io/stream_types.h"
#include "engine/point_cloud.h"

namespace pr {

class StreamPool {
 public:
  /// Slots for `point_budget` points, plus an eighth and 16 slots for the part of each node's
  /// last granule that stays empty. `attributes`: the pool carries intensity, classification,
  /// returns, point source and GPS time (zeros where a node lacks them); `fields`: the named
  /// scalar fields it carries (zeros where a node lacks one).
  void allocate(uint64_t point_budget, uint32_t slot_align, const glm::dvec3& origin,
                bool attributes, const std::vector<std::string>& fields, const std::string& name);
  /// Granules: the unit a node's room is counted in (a node of n points takes ceil(n / size)).
  uint64_t granules() const { return slot_count_ * per_slot_; }
  uint64_t free_granules() const { return free_granules_; }
  uint32_t granule_size() const { return granule_; }

  /// Copies `node` into free granules (their numbers appended to `taken`); false, taking
  /// nothing, when too few are free.
  bool insert(const PointCloud& node, std::vector<uint32_t>& taken);
  /// Frees `granules` (their positions become NaN).
  void remove(const std::vector<uint32_t>& granules);
  /// The granules changed since the last call, as sorted, disjoint point ranges (granules less
  /// than 65536 points apart merged, with the unchanged points between them).
  std::vector<PoolRange> take_changes();
  /// Counts `granules` as changed (their points were rewritten in place: the class filter).
  void touch(const std::vector<uint32_t>& granules) {
    changed_.insert(changed_.end(), granules.begin(), granules.end());
  }

  PointCloud& cloud() { return cloud_; }

 private:
  void copy_granule(const PointCloud& node, size_t from, size_t count, uint32_t granule);
  /// Takes a wholly free slot's granules; false when none is.
  bool take_slot(std::vector<uint32_t>& out);
  /// Takes `count` granules wherever free (partly used slots first).
  void take_granules(size_t count, std::vector<uint32_t>& out);

  PointCloud cloud_;
  uint32_t align_ = 1, granule_ = 1, per_slot_ = 1;
  uint64_t slot_count_ = 0, free_granules_ = 0;
  std::vector<uint8_t> free_mask_;      ///< per slot: bit k, granule k is free
  std::set<uint32_t> whole_, partial_;  ///< slots wholly free; partly free
  std::vector<uint32_t> changed_;
};

}  // namespace pr
