// A streaming pool built node by node, as engine/io/stream.h fills one, for the renderers'
// update_points() tests (engine and kernel tests): a scene cut into "nodes" of consecutive points
// in Morton order (so that their batches are small boxes that cull), copied into the node slots of
// an all-NaN pool in random order, with foreign nodes that come and go, resident nodes evicted
// back to NaN and copied in again elsewhere, and parts of nodes blanked and restored at unaligned
// offsets. At the end the pool holds every point of the scene once (in another order, with NaN
// gaps), which draws the scene's image: the key's tie rule (depth, then color) does not depend on
// the order of the points.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "engine/culling.h"
#include "engine/morton.h"
#include "engine/point_cloud.h"
#include "engine/scenes.h"

namespace pr::test {

/// Points of a node slot (two batches): nodes of 1 - kSlotPoints points.
inline constexpr uint64_t kSlotPoints = 2 * uint64_t(kPointBatch);

struct PoolScene {
  PointCloud whole;                                     ///< the scene, in Morton order
  std::vector<std::pair<uint64_t, uint64_t>> nodes;     ///< [begin, end) of `whole`
  PointCloud foreign;                                   ///< points of nodes that come and go
  std::vector<std::pair<uint64_t, uint64_t>> visitors;  ///< [begin, end) of `foreign`
  uint64_t slots = 0;                                   ///< node slots of the pool
};

/// `n` points of `scene` cut into nodes of random sizes (some of one point, some filling their
/// slot), foreign nodes from the "cube" scene moved into the scene's bounds, and a pool of
/// `spare` slots more than the nodes.
inline PoolScene make_pool_scene(const char* scene, uint64_t n, uint64_t spare, uint32_t seed) {
  PoolScene s;
  s.whole = make_scene(scene, n, seed);
  apply_order(s.whole, morton_order(s.whole));
  std::mt19937 rng(seed);
  for (uint64_t b = 0; b < n;) {
    const uint32_t r = rng() % 8;
    const uint64_t size = r == 0 ? 1 : r == 1 ? kSlotPoints : 1 + rng() % kSlotPoints;
    const uint64_t e = std::min(n, b + size);
    s.nodes.push_back({b, e});
    b = e;
  }
  const Bounds bb = s.whole.local_bounds();
  s.foreign = make_scene("cube", 3 * kSlotPoints, seed + 1);
  for (Float3& v : s.foreign.positions) {  // [-50, 50]^3 into the scene's box
    v.x = float(bb.center().x + double(v.x) / 100.0 * bb.size().x);
    v.y = float(bb.center().y + double(v.y) / 100.0 * bb.size().y);
    v.z = float(bb.center().z + double(v.z) / 100.0 * bb.size().z);
  }
  s.visitors = {
      {0, kSlotPoints}, {kSlotPoints, kSlotPoints + 1000}, {2 * kSlotPoints, 3 * kSlotPoints - 5}};
  s.slots = s.nodes.size() + spare;
  return s;
}

/// The pool of `s` with every point NaN (colors 0), at the scene's origin.
inline PointCloud empty_pool(const PoolScene& s) {
  PointCloud pool;
  pool.name = "pool";
  pool.origin = s.whole.origin;
  pool.resize(s.slots * kSlotPoints);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::fill(pool.positions.begin(), pool.positions.end(), Float3{nan, nan, nan});
  std::fill(pool.colors.begin(), pool.colors.end(), 0u);
  return pool;
}

/// A range of the pool that changed (what update_points() takes), and the step it is.
using PoolChange = std::function<void(uint64_t first, uint64_t count, int step)>;

/// fill_pool()'s state: which node each slot holds, the nodes still to copy in, the foreign
/// nodes still to come.
class PoolFiller {
 public:
  PoolFiller(const PoolScene& s, PointCloud& pool, uint32_t seed, const PoolChange& changed)
      : s_(s),
        pool_(pool),
        rng_(seed),
        changed_(changed),
        slot_of_node_(s.nodes.size(), -1),
        in_slot_(s.slots) {
    for (size_t i = 0; i < s.nodes.size(); ++i) queue_.push_back(i);
    std::shuffle(queue_.begin(), queue_.end(), rng_);
    for (size_t i = 0; i < s.visitors.size(); ++i) visitors_left_.push_back(i);
  }

  void run() {
    while (!queue_.empty()) {
      const uint32_t r = rng_() % 16;
      std::vector<size_t> resident;
      for (size_t k = 0; k < in_slot_.size(); ++k)
        if (in_slot_[k].from) resident.push_back(k);
      if (r == 0 && !resident.empty()) {
        evict(resident[rng_() % resident.size()]);
      } else if (r == 1 && !resident.empty()) {
        blank_and_restore(resident[rng_() % resident.size()]);
      } else if (const size_t k = free_slot(); k == ~size_t(0)) {
        evict(resident[rng_() % resident.size()]);  // full: make room
      } else if (r == 2 && !visitors_left_.empty()) {
        const auto [b, e] = s_.visitors[visitors_left_.back()];
        visitors_left_.pop_back();
        copy_in(k, Resident{&s_.foreign, b, e, true});
      } else {
        const size_t node = queue_.back();
        queue_.pop_back();
        slot_of_node_[node] = int(k);
        copy_in(k, Resident{&s_.whole, s_.nodes[node].first, s_.nodes[node].second, false});
      }
    }
    for (size_t k = 0; k < in_slot_.size(); ++k)
      if (in_slot_[k].foreign) evict(k);
  }

 private:
  struct Resident {
    const PointCloud* from = nullptr;
    uint64_t begin = 0, end = 0;  // of `from`
    bool foreign = false;
  };

  void copy(const Resident& r, uint64_t b, uint64_t e, uint64_t at) {
    std::copy(r.from->positions.begin() + ptrdiff_t(b), r.from->positions.begin() + ptrdiff_t(e),
              pool_.positions.begin() + ptrdiff_t(at));
    std::copy(r.from->colors.begin() + ptrdiff_t(b), r.from->colors.begin() + ptrdiff_t(e),
              pool_.colors.begin() + ptrdiff_t(at));
  }
  void blank(uint64_t at, uint64_t count) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::fill(pool_.positions.begin() + ptrdiff_t(at),
              pool_.positions.begin() + ptrdiff_t(at + count), Float3{nan, nan, nan});
  }
  void copy_in(size_t k, const Resident& r) {
    in_slot_[k] = r;
    copy(r, r.begin, r.end, k * kSlotPoints);
    changed_(k * kSlotPoints, r.end - r.begin, step_++);
  }
  size_t free_slot() {
    std::vector<size_t> free;
    for (size_t k = 0; k < in_slot_.size(); ++k)
      if (!in_slot_[k].from) free.push_back(k);
    return free.empty() ? ~size_t(0) : free[rng_() % free.size()];
  }
  /// NaN over slot k's node; a scene node waits to come back.
  void evict(size_t k) {
    const Resident r = in_slot_[k];
    for (size_t i = 0; i < slot_of_node_.size(); ++i)
      if (!r.foreign && slot_of_node_[i] == int(k)) {
        slot_of_node_[i] = -1;
        queue_.insert(queue_.begin() + ptrdiff_t(rng_() % (queue_.size() + 1)), i);
      }
    blank(k * kSlotPoints, r.end - r.begin);
    changed_(k * kSlotPoints, r.end - r.begin, step_++);
    in_slot_[k] = Resident{};
  }
  /// A part of slot k's node from an unaligned offset blanked, then copied in again.
  void blank_and_restore(size_t k) {
    const Resident& r = in_slot_[k];
    const uint64_t len = r.end - r.begin;
    const uint64_t off = rng_() % len, cnt = 1 + rng_() % (len - off);
    blank(k * kSlotPoints + off, cnt);
    changed_(k * kSlotPoints + off, cnt, step_++);
    copy(r, r.begin + off, r.begin + off + cnt, k * kSlotPoints + off);
    changed_(k * kSlotPoints + off, cnt, step_++);
  }

  const PoolScene& s_;
  PointCloud& pool_;
  std::mt19937 rng_;
  const PoolChange& changed_;
  std::vector<int> slot_of_node_;
  std::vector<Resident> in_slot_;
  std::vector<size_t> queue_, visitors_left_;
  int step_ = 0;
};

/// Fills `pool` (empty_pool(s)) with every node of `s` in random order, calling `changed` after
/// each change: a node copied into a free slot; a foreign node copied in, later evicted; a
/// resident node evicted (NaN over its points) and queued again; a part of a resident node at an
/// unaligned offset blanked, then restored. Ends with every node resident and no foreign one.
inline void fill_pool(const PoolScene& s, PointCloud& pool, uint32_t seed,
                      const PoolChange& changed) {
  PoolFiller(s, pool, seed, changed).run();
}

/// A pool that grows as a streaming pool does (engine/io/stream.h): it starts empty and is grown
/// to each size of `sizes` in turn, the new part holding the next points of `s.whole` (NaN past
/// its end), its arrays reserved for the last size so that they keep their address.
/// After each growth `changed` gets the new part and, every other step, an older range blanked
/// (an evicted node) and then restored.
inline void grow_pool(const PoolScene& s, PointCloud& pool, const std::vector<uint64_t>& sizes,
                      const PoolChange& changed) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  pool.positions.reserve(sizes.back());
  pool.colors.reserve(sizes.back());
  int step = 0;
  for (uint64_t n : sizes) {
    const uint64_t old = pool.size();
    pool.resize(n);
    for (uint64_t i = old; i < n; ++i) {
      const bool gap = i >= s.whole.size();  // past the scene: NaN, as a pool's slots are
      pool.positions[i] = gap ? Float3{nan, nan, nan} : s.whole.positions[i];
      pool.colors[i] = gap ? 0u : s.whole.colors[i];
    }
    changed(old, n - old, step++);
    if (old > 1000 && step % 2 == 0) {
      const uint64_t at = old / 3, count = 700;
      const std::vector<Float3> keep(pool.positions.begin() + ptrdiff_t(at),
                                     pool.positions.begin() + ptrdiff_t(at + count));
      std::fill_n(pool.positions.begin() + ptrdiff_t(at), count, Float3{nan, nan, nan});
      changed(at, count, step++);
      std::copy(keep.begin(), keep.end(), pool.positions.begin() + ptrdiff_t(at));
      changed(at, count, step++);
    }
  }
}

/// Sizes a pool of `s` grows through: from under one batch, unaligned, to the whole scene and
/// past it (NaN), so that a GPU storage grown by doubling is grown several times.
inline std::vector<uint64_t> growth_sizes(const PoolScene& s) {
  const uint64_t n = s.whole.size();
  return {1000, 5000, 3 * uint64_t(kPointBatch), n / 5, n / 5 + 1, n / 2, n, n + 3 * kPointBatch};
}

/// The boxes a renderer that was handed `pool` whole would compute.
inline PodVector<PointBox> fresh_boxes(const PointCloud& pool) {
  PodVector<PointBox> boxes;
  compute_point_boxes(pool.positions.data(), pool.size(), &boxes);
  return boxes;
}

/// Whether two box arrays are equal bit for bit (an empty box is +inf/-inf, never NaN).
inline bool same_boxes(const PodVector<PointBox>& a, const PodVector<PointBox>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    for (int k = 0; k < 3; ++k)
      if (float_bits(a[i].lo[k]) != float_bits(b[i].lo[k]) ||
          float_bits(a[i].hi[k]) != float_bits(b[i].hi[k]))
        return false;
  return true;
}

}  // namespace pr::test
