#include "lod.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

namespace pr {

void LodTile::add(const CopcKey& key, const LodEntry& entry) {
  auto [it, inserted] = entries.try_emplace(key, entry);
  if (!inserted) {
    // A page's own entry is replaced by the node it holds; a node stays a node.
    if (it->second.point_count >= 0 && entry.point_count < 0) return;
    const uint8_t children = it->second.children;
    it->second = entry;
    it->second.children = children;
  }
  if (key.level == 0) return;
  const CopcKey parent = key.parent();
  const int bit = (key.x & 1) | ((key.y & 1) << 1) | ((key.z & 1) << 2);
  entries[parent].children |= uint8_t(1u << bit);
}

Bounds LodTile::node_box(const CopcKey& key) const {
  const double size = 2.0 * halfsize / std::ldexp(1.0, key.level);
  Bounds b;
  b.min = center - glm::dvec3(halfsize) + glm::dvec3(key.x, key.y, key.z) * size;
  b.max = b.min + glm::dvec3(size);
  b.empty = false;
  if (!bounds.empty) {
    // The header's bounds hold every point; widened by a hair for their rounding.
    const double eps = 1e-6 * std::max(halfsize, 1.0);
    b.min = glm::max(b.min, bounds.min - eps);
    b.max = glm::min(b.max, bounds.max + eps);
    if (b.min.x > b.max.x || b.min.y > b.max.y || b.min.z > b.max.z) b.empty = true;
  }
  return b;
}

namespace {

/// The view's planes as n . p + d <= 0 for points inside, and the projection's scale.
struct Frustum {
  glm::dvec3 n[5];
  double d[5];
  glm::dvec3 eye;
  double near_z = 0.01;
  double pixels_per_unit = 1.0;  ///< focus * height / 2: pixels of a unit at distance 1
  bool ortho = false;            ///< then pixels_per_unit is that of a unit at any distance

  const std::function<bool(const Bounds&)>* hidden = nullptr;  // the view's clip, or null

  explicit Frustum(const LodView& v, double margin_px) {
    if (v.hidden) hidden = &v.hidden;
    eye = v.eye;
    near_z = v.near_z > 0 ? v.near_z : 1e-6;
    const double w = std::max(v.width, 1), h = std::max(v.height, 1);
    if (v.ortho > 0) {
      make_ortho(v, w, h, margin_px);
      return;
    }
    const double focus = v.focus > 0 ? v.focus : 1.0;
    pixels_per_unit = focus * h * 0.5;
    // Visible: |x| <= z * tx and |y| <= z * ty in camera coordinates (x right, y up, z forward),
    // tan of the half fields of view, each widened by the margin.
    const double tx = (w / h) / focus * (1.0 + 2.0 * margin_px / w);
    const double ty = 1.0 / focus * (1.0 + 2.0 * margin_px / h);
    n[0] = v.right - tx * v.forward;
    n[1] = -v.right - tx * v.forward;
    n[2] = v.up - ty * v.forward;
    n[3] = -v.up - ty * v.forward;
    n[4] = -v.forward;
    for (int i = 0; i < 4; ++i) d[i] = -glm::dot(n[i], eye);
    d[4] = near_z + glm::dot(v.forward, eye);
  }

  /// The orthographic view's planes: |x| <= tx and |y| <= ty in camera coordinates (half the
  /// image's extent in world units, widened by the margin), z >= near_z.
  void make_ortho(const LodView& v, double w, double h, double margin_px) {
    ortho = true;
    pixels_per_unit = v.ortho * h * 0.5;
    const double tx = (w / h) / v.ortho * (1.0 + 2.0 * margin_px / w);
    const double ty = 1.0 / v.ortho * (1.0 + 2.0 * margin_px / h);
    n[0] = v.right;
    n[1] = -v.right;
    n[2] = v.up;
    n[3] = -v.up;
    n[4] = -v.forward;
    const double t[4] = {tx, tx, ty, ty};
    for (int i = 0; i < 4; ++i) d[i] = -glm::dot(n[i], eye) - t[i];
    d[4] = near_z + glm::dot(v.forward, eye);
  }

  /// False when the box lies wholly outside one plane (its point nearest the inside is out).
  bool visible(const Bounds& b) const {
    if (b.empty) return false;
    if (hidden && (*hidden)(b)) return false;  // the clip shows none of its points
    for (int i = 0; i < 5; ++i) {
      const glm::dvec3 p{n[i].x > 0 ? b.min.x : b.max.x, n[i].y > 0 ? b.min.y : b.max.y,
                         n[i].z > 0 ? b.min.z : b.max.z};
      if (glm::dot(n[i], p) + d[i] > 0) return false;
    }
    return true;
  }

  /// Projected size of the box's bounding sphere, in pixels; infinite with the eye inside (in
  /// perspective).
  double priority(const Bounds& b) const {
    const double r = 0.5 * glm::length(b.max - b.min);
    if (ortho) return r * pixels_per_unit;  // the same size at any distance
    if (glm::all(glm::greaterThanEqual(eye, b.min)) && glm::all(glm::lessThanEqual(eye, b.max)))
      return std::numeric_limits<double>::infinity();
    const double dist = std::max(glm::length(eye - b.center()) - r, near_z);
    return r * pixels_per_unit / dist;
  }

  /// Pixels that `spacing` covers at the box's point nearest the eye.
  double projected_spacing(const Bounds& b, double spacing) const {
    if (ortho) return spacing * pixels_per_unit;
    const glm::dvec3 out = glm::max(glm::max(b.min - eye, eye - b.max), glm::dvec3(0.0));
    const double dist = std::max(glm::length(out), near_z);
    return spacing * pixels_per_unit / dist;
  }
};

struct Candidate {
  double priority;
  uint32_t tile;
  CopcKey key;
  bool operator<(const Candidate& o) const {
    if (priority != o.priority) return priority < o.priority;
    return key.level > o.key.level;  // ties (the eye inside): parents first
  }
};

}  // namespace

void select_lod(const std::vector<LodTile>& tiles, const LodView& view, const LodLimits& limits,
                LodSelection& out) {
  out.nodes.clear();
  out.pages.clear();
  out.tiles.clear();
  out.points = out.slots = out.visited = 0;
  const Frustum fr(view, limits.margin_px);
  const uint32_t align = std::max<uint32_t>(limits.slot_align, 1);
  const uint64_t max_slots = limits.max_slots ? limits.max_slots : ~0ull;

  std::vector<Candidate> heap_storage;
  heap_storage.reserve(1024);
  std::priority_queue<Candidate> heap(std::less<Candidate>(), std::move(heap_storage));
  for (uint32_t t = 0; t < tiles.size(); ++t) {
    const LodTile& tile = tiles[t];
    if (tile.failed) continue;
    if (!tile.open) {
      if (fr.visible(tile.bounds)) out.tiles.push_back({t, CopcKey{}, fr.priority(tile.bounds)});
      continue;
    }
    const Bounds box = tile.node_box(CopcKey{});
    if (tile.entries.count(CopcKey{}) && fr.visible(box)) heap.push({fr.priority(box), t, {}});
  }
  std::sort(out.tiles.begin(), out.tiles.end(),
            [](const LodItem& a, const LodItem& b) { return a.priority > b.priority; });

  while (!heap.empty()) {
    const Candidate c = heap.top();
    heap.pop();
    ++out.visited;
    const LodTile& tile = tiles[c.tile];
    const auto it = tile.entries.find(c.key);
    if (it == tile.entries.end()) continue;
    const LodEntry& e = it->second;
    if (e.point_count == kLodUnreadPage) {
      out.pages.push_back({c.tile, c.key, c.priority});
      continue;
    }
    if (e.point_count < 0) continue;  // a page that failed: nothing known below
    const uint64_t points = uint64_t(e.point_count), slots = lod_slots(points, align);
    if (out.points + points > limits.point_budget || out.slots + slots > max_slots) continue;
    out.points += points;
    out.slots += slots;
    out.nodes.push_back({c.tile, c.key, c.priority});
    if (!e.children) continue;
    const Bounds box = tile.node_box(c.key);
    const double spacing = tile.spacing / std::ldexp(1.0, c.key.level);
    if (limits.sse_px > 0 && fr.projected_spacing(box, spacing) <= limits.sse_px) continue;
    for (int i = 0; i < 8; ++i) {
      if (!(e.children & (1u << i))) continue;
      const CopcKey child = c.key.child(i);
      const Bounds cb = tile.node_box(child);
      if (fr.visible(cb)) heap.push({fr.priority(cb), c.tile, child});
    }
  }
}

}  // namespace pr
