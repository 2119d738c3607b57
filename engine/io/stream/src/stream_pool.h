// The streaming scene's pool: one PointCloud of fixed capacity that the renderers draw, cut into
// slots of slot_align points (the renderers' culling batch) and each slot into 8 granules. A node
// takes a whole slot for each slot_align of its points (so a batch of a large node holds nothing
// else and its culling box stays tight) and granules for the rest, anywhere in the pool: a small
// node wastes less than a granule, and since no node needs adjacent room, freeing and taking
// never fragments the pool. Points outside a node have NaN positions and never draw.
//
// The pool's capacity is the budget's, but its cloud holds only the slots used so far (the
// extent): slots are taken lowest first, and taking one beyond the extent grows the cloud to it
// (its arrays reserved for the capacity up front, so they keep their address; the new points
// NaN and reported as changed). Opening a survey costs nothing the budget sets: the first image
// waits only for its nodes, and the cloud the renderers draw is as large as the views so far
// needed.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "engine/io/file_info.h"
#include "engine/io/stream_types.h"
#include "engine/point_cloud.h"

namespace pr {

/// What the pool holds for a point of a tile without the field: the value its descriptor declares
/// for "no data", else NaN (no value: left out of the field's automatic range, drawn in the
/// colormap's first color).
float field_no_data(const FieldInfo& field);

class StreamPool {
 public:
  /// Capacity: slots for `point_budget` points, plus an eighth and 16 slots for the part of each
  /// node's last granule that stays empty; the cloud starts with one slot (NaN). `attributes`:
  /// the pool carries intensity, classification, returns, point source and GPS time (zeros
  /// where a node lacks them); `fields`: the named scalar fields it carries (field_no_data() where
  /// a node lacks one).
  void allocate(uint64_t point_budget, uint32_t slot_align, const glm::dvec3& origin,
                bool attributes, const std::vector<FieldInfo>& fields, const std::string& name);
  /// Adds a named field the pool does not carry yet (a tile opened later brought it): every point
  /// so far holds its field_no_data(), its room reserved for the capacity as the others'. False
  /// when the pool carries it already.
  bool add_field(const FieldInfo& field);
  /// Makes the pool carry intensity, classification, returns, point source and GPS time when it
  /// does not yet (a tile opened later has them): zeros for every point so far. False when it
  /// carries them already.
  bool add_attributes();
  /// Granules: the unit a node's room is counted in (a node of n points takes ceil(n / size)).
  uint64_t granules() const { return slot_count_ * per_slot_; }
  uint64_t free_granules() const { return free_granules_; }
  uint32_t granule_size() const { return granule_; }
  /// Whether insert() can take `granules` without growing the cloud.
  bool fits_in_extent(uint64_t granules) const;

  /// Takes free granules for `node` (their numbers appended to `taken`) and queues its copy into
  /// them for flush(); false, taking nothing, when too few are free. `node` must live until
  /// flush().
  bool insert(const PointCloud& node, std::vector<uint32_t>& taken);
  /// Runs the copies insert() queued and writes the granules the cloud grew by, on every core
  /// when there are many. The cloud's new points hold garbage until then.
  void flush();
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
  /// Slots the cloud holds now (the extent) and at most (the capacity).
  uint64_t extent_slots() const { return extent_; }
  uint64_t capacity_slots() const { return slot_count_; }

 private:
  /// Grows the cloud to `slots` slots (every array it has), reporting the new granules as changed
  /// and as fresh: flush() writes them (NaN positions, zeros for the rest, where no copy goes).
  void extend(uint64_t slots);
  void copy_granule(const PointCloud& node, size_t from, size_t count, uint32_t granule);
  /// Writes a fresh granule's points from `from` on: NaN positions (unless `copied`: a copy
  /// wrote them), zeros for the rest.
  void clear_granule(uint32_t granule, size_t from, bool copied);
  /// Takes a wholly free slot's granules; false when none is.
  bool take_slot(std::vector<uint32_t>& out);
  /// Takes `count` granules wherever free (partly used slots first).
  void take_granules(size_t count, std::vector<uint32_t>& out);

  PointCloud cloud_;
  uint32_t align_ = 1, granule_ = 1, per_slot_ = 1;
  uint64_t slot_count_ = 0, free_granules_ = 0;
  uint64_t extent_ = 0;  ///< slots the cloud holds
  bool attributes_ = false;
  std::vector<float> no_data_;          ///< per field of cloud_.fields: its field_no_data()
  std::vector<uint8_t> free_mask_;      ///< per slot: bit k, granule k is free
  std::set<uint32_t> whole_, partial_;  ///< slots wholly free; partly free
  std::vector<uint32_t> changed_;
  struct Copy {
    const PointCloud* node;
    size_t from, count;
    uint32_t granule;
    bool fresh;  ///< the granule is new to the cloud (flush() sets it)
  };
  std::vector<Copy> copies_;     ///< queued by insert(), run by flush()
  std::vector<uint32_t> fresh_;  ///< granules the cloud grew by since the last flush()
};

}  // namespace pr
