// Node selection (lod.h) on synthetic octrees: culling, refinement by screen-space error, the
// point budget, pages and tiles not read yet, and its speed on a million known nodes (printed).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>
#include <tuple>
#include <unordered_set>

#include "lod.h"

namespace pr {
namespace {

/// A full octree of `depth` levels below the root, `points` points a node, cube centre `c`.
LodTile full_tile(int depth, int32_t points, glm::dvec3 c = glm::dvec3(0.0), double half = 100.0) {
  LodTile t;
  t.open = true;
  t.center = c;
  t.halfsize = half;
  t.spacing = 2.0 * half / 128.0;
  for (int level = 0; level <= depth; ++level) {
    const int32_t n = 1 << level;
    for (int32_t x = 0; x < n; ++x)
      for (int32_t y = 0; y < n; ++y)
        for (int32_t z = 0; z < n; ++z) {
          LodEntry e;
          e.point_count = points;
          t.add(CopcKey{level, x, y, z}, e);
        }
  }
  return t;
}

/// A camera at `eye` looking at `target` (z up), 90 degrees of vertical field of view.
LodView look_at(glm::dvec3 eye, glm::dvec3 target) {
  LodView v;
  v.eye = eye;
  v.forward = glm::normalize(target - eye);
  v.right = glm::normalize(glm::cross(v.forward, glm::dvec3(0, 0, 1)));
  v.up = glm::cross(v.right, v.forward);
  v.focus = 1.0;
  v.width = 200;
  v.height = 100;
  return v;
}

struct KeySet {
  std::unordered_set<CopcKey, CopcKeyHash> keys;
  explicit KeySet(const LodSelection& s) {
    for (const LodItem& it : s.nodes) keys.insert(it.key);
  }
  bool has(const CopcKey& k) const { return keys.count(k) != 0; }
};

/// Every selected node's parent is selected before it.
void expect_parents_first(const LodSelection& s) {
  std::set<std::tuple<uint32_t, int32_t, int32_t, int32_t, int32_t>> seen;
  for (const LodItem& it : s.nodes) {
    const CopcKey p = it.key.parent();
    if (it.key.level > 0) {
      EXPECT_TRUE(seen.count({it.tile, p.level, p.x, p.y, p.z}));
    }
    seen.insert({it.tile, it.key.level, it.key.x, it.key.y, it.key.z});
  }
}

TEST(Lod, EverythingInViewWithoutErrorOrBudget) {
  std::vector<LodTile> tiles{full_tile(3, 100)};
  LodLimits lim;
  lim.point_budget = ~0ull;
  lim.sse_px = 0.0;
  LodSelection s;
  select_lod(tiles, look_at({0, -1000, 0}, {0, 0, 0}), lim, s);
  EXPECT_EQ(s.nodes.size(), 1u + 8 + 64 + 512);
  EXPECT_EQ(s.points, 100u * s.nodes.size());
  EXPECT_TRUE(s.pages.empty());
  expect_parents_first(s);
  EXPECT_EQ(s.nodes.front().key, CopcKey{});
}

TEST(Lod, LookingAwaySelectsNothing) {
  std::vector<LodTile> tiles{full_tile(3, 100)};
  LodLimits lim;
  lim.point_budget = ~0ull;
  lim.sse_px = 0.0;
  LodSelection s;
  select_lod(tiles, look_at({0, -1000, 0}, {0, -2000, 0}), lim, s);
  EXPECT_TRUE(s.nodes.empty());
  // Beside the cube, looking along it: nothing either.
  select_lod(tiles, look_at({500, 0, 0}, {500, 100, 0}), lim, s);
  EXPECT_TRUE(s.nodes.empty());
}

TEST(Lod, BudgetIsNeverPassedAndSelectionIsCoarseToFine) {
  std::vector<LodTile> tiles{full_tile(4, 1000)};
  LodLimits lim;
  lim.sse_px = 0.0;
  for (uint64_t budget : {999u, 1000u, 5500u, 20000u, 123456u}) {
    lim.point_budget = budget;
    LodSelection s;
    select_lod(tiles, look_at({30, -250, 20}, {0, 0, 0}), lim, s);
    EXPECT_LE(s.points, budget);
    EXPECT_EQ(s.nodes.size(), budget / 1000);  // every node has 1000 points: fills exactly
    expect_parents_first(s);
  }
}

TEST(Lod, SlotsLimitTheSelection) {
  std::vector<LodTile> tiles{full_tile(2, 10)};
  LodLimits lim;
  lim.sse_px = 0.0;
  lim.point_budget = ~0ull;
  lim.slot_align = 64;
  lim.max_slots = 5;
  LodSelection s;
  select_lod(tiles, look_at({0, -1000, 0}, {0, 0, 0}), lim, s);
  EXPECT_EQ(s.nodes.size(), 5u);
  EXPECT_EQ(s.slots, 5u);
}

TEST(Lod, RefinesWhileSpacingOnScreenExceedsTheError) {
  std::vector<LodTile> tiles{full_tile(5, 10)};
  LodLimits lim;
  lim.point_budget = ~0ull;
  const LodView v = look_at({0, -1000, 0}, {0, 0, 0});
  size_t last = 0;
  // Root spacing 200/128 at ~900 units with focus 1 and height 100: ~0.09 px. A target of 1 px
  // keeps the root alone; finer targets select more, each a superset's worth.
  for (double sse : {1.0, 0.05, 0.02, 0.005, 0.0}) {
    lim.sse_px = sse;
    LodSelection s;
    select_lod(tiles, v, lim, s);
    if (sse == 1.0) {
      EXPECT_EQ(s.nodes.size(), 1u);
    }
    EXPECT_GE(s.nodes.size(), last);
    last = s.nodes.size();
    expect_parents_first(s);
  }
  EXPECT_EQ(last, size_t(1 + 8 + 64 + 512 + 4096 + 32768));
}

TEST(Lod, CullingKeepsEveryNodeWithAVisiblePoint) {
  std::vector<LodTile> tiles{full_tile(4, 1)};
  LodLimits lim;
  lim.point_budget = ~0ull;
  lim.sse_px = 0.0;
  lim.margin_px = 0.0;
  const LodView v = look_at({20, -60, 10}, {-40, 30, -20});  // inside the cube's reach, tilted
  LodSelection s;
  select_lod(tiles, v, lim, s);
  const KeySet sel(s);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-100.0, 100.0);
  int visible = 0;
  for (int i = 0; i < 20000; ++i) {
    const glm::dvec3 p{u(rng), u(rng), u(rng)};
    const glm::dvec3 d = p - v.eye;
    const double z = glm::dot(d, v.forward);
    if (z <= v.near_z) continue;
    const double px = glm::dot(d, v.right) / z * v.focus * v.height / 2;
    const double py = glm::dot(d, v.up) / z * v.focus * v.height / 2;
    if (std::abs(px) > v.width / 2.0 || std::abs(py) > v.height / 2.0) continue;
    ++visible;
    const int n = 16;
    const CopcKey leaf{4, int32_t((p.x + 100) / 200 * n), int32_t((p.y + 100) / 200 * n),
                       int32_t((p.z + 100) / 200 * n)};
    EXPECT_TRUE(sel.has(leaf)) << p.x << " " << p.y << " " << p.z;
  }
  EXPECT_GT(visible, 1000);
  EXPECT_LT(s.nodes.size(), size_t(1 + 8 + 64 + 512 + 4096));  // and something was culled
}

TEST(Lod, OrthographicViewsCullByParallelPlanesAndRefineAtAnyDistance) {
  // An orthographic view 50 units high (k = 0.04; 200 x 100 pixels: 100 units across) looking
  // down the cube from above: every node with a point inside the parallel planes is kept, the
  // others culled; the same view from 10 times as far selects as many nodes (sizes do not
  // shrink with the distance), where a perspective camera selects fewer.
  std::vector<LodTile> tiles{full_tile(4, 1)};
  LodLimits lim;
  lim.point_budget = ~0ull;
  lim.sse_px = 0.0;
  lim.margin_px = 0.0;
  LodView v = look_at({10, -20, 300}, {10, -20, 0});
  v.right = {1, 0, 0};
  v.up = {0, 1, 0};
  v.forward = {0, 0, -1};
  v.ortho = 0.04;
  LodSelection s;
  select_lod(tiles, v, lim, s);
  const KeySet sel(s);
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-100.0, 100.0);
  int visible = 0, outside = 0;
  for (int i = 0; i < 20000; ++i) {
    const glm::dvec3 p{u(rng), u(rng), u(rng)};
    const glm::dvec3 d = p - v.eye;
    const double px = glm::dot(d, v.right) * v.ortho * v.height / 2;
    const double py = glm::dot(d, v.up) * v.ortho * v.height / 2;
    if (std::abs(px) > v.width / 2.0 || std::abs(py) > v.height / 2.0) {
      ++outside;
      continue;
    }
    ++visible;
    const int n = 16;
    const CopcKey leaf{4, int32_t((p.x + 100) / 200 * n), int32_t((p.y + 100) / 200 * n),
                       int32_t((p.z + 100) / 200 * n)};
    EXPECT_TRUE(sel.has(leaf)) << p.x << " " << p.y << " " << p.z;
  }
  EXPECT_GT(visible, 2000);
  EXPECT_GT(outside, 10000);
  EXPECT_LT(s.nodes.size(), size_t(1 + 8 + 64 + 512 + 4096) / 2);
  // Refined by the screen-space error: root spacing 200/128 is 3.1 px at any distance.
  lim.sse_px = 0.5;
  select_lod(tiles, v, lim, s);
  EXPECT_GT(s.nodes.size(), 1u);
  LodView far = v;
  far.eye.z = 3000;
  LodSelection s_far;
  select_lod(tiles, far, lim, s_far);
  EXPECT_EQ(s_far.nodes.size(), s.nodes.size());
  // The pinhole camera of the same scale at 300 units selects less from 10 times as far.
  LodView persp = v, persp_far = far;
  persp.ortho = persp_far.ortho = 0.0;
  persp.focus = persp_far.focus = 0.04 * 300.0;
  LodSelection s_persp, s_persp_far;
  select_lod(tiles, persp, lim, s_persp);
  select_lod(tiles, persp_far, lim, s_persp_far);
  EXPECT_LT(s_persp_far.nodes.size(), s_persp.nodes.size());
}

TEST(Lod, UnreadPagesAndClosedTilesAreReportedInView) {
  std::vector<LodTile> tiles(3);
  tiles[0] = full_tile(1, 5);
  LodEntry page;
  page.point_count = kLodUnreadPage;
  tiles[0].add(CopcKey{2, 0, 0, 0}, page);  // below node 1-0-0-0
  // Tile 1: not open, declared bounds in view; tile 2: not open, behind the camera.
  tiles[1].bounds.extend(glm::dvec3(150, 0, 0));
  tiles[1].bounds.extend(glm::dvec3(250, 50, 50));
  tiles[2].bounds.extend(glm::dvec3(0, -3000, 0));
  tiles[2].bounds.extend(glm::dvec3(10, -2900, 10));
  LodLimits lim;
  lim.point_budget = ~0ull;
  lim.sse_px = 0.0;
  LodSelection s;
  select_lod(tiles, look_at({0, -1000, 0}, {0, 0, 0}), lim, s);
  EXPECT_EQ(s.nodes.size(), 9u);
  ASSERT_EQ(s.pages.size(), 1u);
  EXPECT_EQ(s.pages[0].key, (CopcKey{2, 0, 0, 0}));
  ASSERT_EQ(s.tiles.size(), 1u);
  EXPECT_EQ(s.tiles[0].tile, 1u);
  // A failed page is a leaf: nothing asked, nothing below.
  tiles[0].entries[CopcKey{2, 0, 0, 0}].point_count = kLodFailedPage;
  select_lod(tiles, look_at({0, -1000, 0}, {0, 0, 0}), lim, s);
  EXPECT_TRUE(s.pages.empty());
}

TEST(Lod, NearNodesComeFirst) {
  // Two tiles side by side; the eye close to one: its nodes lead the selection.
  std::vector<LodTile> tiles{full_tile(2, 10, {0, 0, 0}), full_tile(2, 10, {1000, 0, 0})};
  LodLimits lim;
  lim.point_budget = 100;
  lim.sse_px = 0.0;
  LodSelection s;
  select_lod(tiles, look_at({1000, -150, 0}, {1000, 0, 0}), lim, s);
  ASSERT_EQ(s.nodes.size(), 10u);
  for (const LodItem& it : s.nodes) EXPECT_EQ(it.tile, 1u);
}

TEST(Lod, ThousandsOfTilesAndAMillionNodesSelectQuickly) {
  // 2000 tiles of 585 nodes (depth 3), 1.17M known nodes, on a 40 x 50 grid seen from above.
  std::vector<LodTile> tiles;
  tiles.reserve(2000);
  const LodTile one = full_tile(3, 5000);
  for (int i = 0; i < 2000; ++i) {
    tiles.push_back(one);
    tiles.back().center = glm::dvec3((i % 40) * 200.0, (i / 40) * 200.0, 0.0);
  }
  LodLimits lim;
  lim.point_budget = 100'000'000;
  lim.sse_px = 1.0;
  lim.slot_align = 4096;
  LodView v = look_at({4000, -500, 600}, {4000, 3000, 0});
  v.width = 1920;
  v.height = 1080;
  v.focus = 1.5;
  LodSelection s;
  select_lod(tiles, v, lim, s);
  const auto t0 = std::chrono::steady_clock::now();
  const int runs = 5;
  for (int i = 0; i < runs; ++i) select_lod(tiles, v, lim, s);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
      runs;
  std::printf(
      "select_lod: 2000 tiles, %zu known nodes: %zu selected (%llu points), %llu visited,"
      " %.2f ms\n",
      tiles.size() * one.entries.size(), s.nodes.size(), static_cast<unsigned long long>(s.points),
      static_cast<unsigned long long>(s.visited), ms);
  EXPECT_LE(s.points, lim.point_budget);
  EXPECT_GT(s.nodes.size(), 100u);
  expect_parents_first(s);
}

}  // namespace
}  // namespace pr

namespace pr {
namespace {

// A clip (LodView::hidden) keeps the nodes it hides whole out of the selection, and all below
// them: here every node wholly at x > 0.
TEST(Lod, NodesAClipHidesAreNotSelected) {
  std::vector<LodTile> tiles{full_tile(3, 100)};
  LodLimits lim;
  lim.point_budget = ~0ull;
  lim.sse_px = 0.0;
  LodView view = look_at({0, -1000, 0}, {0, 0, 0});
  view.hidden = [](const Bounds& b) { return b.min.x >= 0.0; };
  view.hidden_key = 1;
  LodSelection s;
  select_lod(tiles, view, lim, s);
  // Of each level's 8^L nodes, the half at x < 0.
  EXPECT_EQ(s.nodes.size(), 1u + 4 + 32 + 256);
  for (const LodItem& it : s.nodes) EXPECT_LT(tiles[0].node_box(it.key).min.x, 0.0);
  expect_parents_first(s);
}

}  // namespace
}  // namespace pr
