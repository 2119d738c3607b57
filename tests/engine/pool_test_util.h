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

/// Fills `pool` (empty_pool(s)) with every node of `s` in random order, calling `changed` after
/// each change: a node copied into a free slot; a foreign node copied in, later evicted; a
/// resident node evicted (NaN over its points) and queued again; a part of a resident node at an
/// unaligned offset blanked, then restored. Ends with every node resident and no foreign one.
inline void fill_pool(const PoolScene& s, PointCloud& pool, uint32_t seed,
                      const PoolChange& changed) {
  std::mt19937 rng(seed);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  struct Resident {
    const PointCloud* from;
    uint64_t begin, end;  // of `from`
    bool foreign;
  };
  std::vector<int> slot_of_node(s.nodes.size(), -1);
  std::vector<Resident> in_slot(s.slots, Resident{nullptr, 0, 0, false});
  std::vector<size_t> queue(s.nodes.size());
  for (size_t i = 0; i < queue.size(); ++i) queue[i] = i;
  std::shuffle(queue.begin(), queue.end(), rng);
  std::vector<size_t> visitors_left(s.visitors.size());
  for (size_t i = 0; i < visitors_left.size(); ++i) visitors_left[i] = i;
  int step = 0;
  auto copy_in = [&](const PointCloud& from, uint64_t b, uint64_t e, uint64_t at) {
    std::copy(from.positions.begin() + ptrdiff_t(b), from.positions.begin() + ptrdiff_t(e),
              pool.positions.begin() + ptrdiff_t(at));
    std::copy(from.colors.begin() + ptrdiff_t(b), from.colors.begin() + ptrdiff_t(e),
              pool.colors.begin() + ptrdiff_t(at));
  };
  auto blank = [&](uint64_t at, uint64_t count) {
    std::fill(pool.positions.begin() + ptrdiff_t(at),
              pool.positions.begin() + ptrdiff_t(at + count), Float3{nan, nan, nan});
  };
  auto free_slot = [&]() {
    std::vector<size_t> free;
    for (size_t k = 0; k < in_slot.size(); ++k)
      if (!in_slot[k].from) free.push_back(k);
    return free.empty() ? ~size_t(0) : free[rng() % free.size()];
  };
  auto evict = [&](size_t k) {
    const Resident r = in_slot[k];
    blank(k * kSlotPoints, r.end - r.begin);
    changed(k * kSlotPoints, r.end - r.begin, step++);
    in_slot[k] = Resident{nullptr, 0, 0, false};
  };
  while (!queue.empty()) {
    const uint32_t r = rng() % 16;
    std::vector<size_t> resident;
    for (size_t k = 0; k < in_slot.size(); ++k)
      if (in_slot[k].from) resident.push_back(k);
    if (r == 0 && !resident.empty()) {  // evicted; a scene node waits to come back
      const size_t k = resident[rng() % resident.size()];
      if (!in_slot[k].foreign)
        for (size_t i = 0; i < s.nodes.size(); ++i)
          if (slot_of_node[i] == int(k)) {
            slot_of_node[i] = -1;
            queue.insert(queue.begin() + ptrdiff_t(rng() % (queue.size() + 1)), i);
          }
      evict(k);
      continue;
    }
    if (r == 1 && !resident.empty()) {  // a part blanked, then restored
      const size_t k = resident[rng() % resident.size()];
      const Resident& res = in_slot[k];
      const uint64_t len = res.end - res.begin;
      const uint64_t off = rng() % len, cnt = 1 + rng() % (len - off);
      blank(k * kSlotPoints + off, cnt);
      changed(k * kSlotPoints + off, cnt, step++);
      copy_in(*res.from, res.begin + off, res.begin + off + cnt, k * kSlotPoints + off);
      changed(k * kSlotPoints + off, cnt, step++);
      continue;
    }
    const size_t k = free_slot();
    if (k == ~size_t(0)) {  // full: make room
      evict(resident[rng() % resident.size()]);
      continue;
    }
    if (r == 2 && !visitors_left.empty()) {  // a foreign node comes in
      const auto [b, e] = s.visitors[visitors_left.back()];
      visitors_left.pop_back();
      in_slot[k] = Resident{&s.foreign, b, e, true};
      copy_in(s.foreign, b, e, k * kSlotPoints);
      changed(k * kSlotPoints, e - b, step++);
      continue;
    }
    const size_t node = queue.back();
    queue.pop_back();
    const auto [b, e] = s.nodes[node];
    slot_of_node[node] = int(k);
    in_slot[k] = Resident{&s.whole, b, e, false};
    copy_in(s.whole, b, e, k * kSlotPoints);
    changed(k * kSlotPoints, e - b, step++);
  }
  for (size_t k = 0; k < in_slot.size(); ++k)
    if (in_slot[k].foreign) evict(k);
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
