// A profile's corridor read from a COPC file (engine/io/corridor.h): the segment-box test against
// cases worked out by hand; every point of the file within the half width of the line is read
// (against the file read whole) at every level, a small budget reads the top level only, and bad
// requests get one line; a region at a resolution reads the levels down to the first as fine.
#include "engine/io/corridor.h"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/io/copc.h"
#include "engine/io/load.h"
#include "engine/io/open_byte_source.h"
#include "testdata.h"

namespace pr {
namespace {

TEST(IoCorridor, SegmentNearBox) {
  const glm::dvec2 lo(0.0, 0.0), hi(10.0, 10.0);
  EXPECT_TRUE(segment_near_box({-5, 5}, {15, 5}, lo, hi, 0.0));     // across it
  EXPECT_TRUE(segment_near_box({2, 2}, {3, 3}, lo, hi, 0.0));       // inside it
  EXPECT_FALSE(segment_near_box({-5, 12}, {15, 12}, lo, hi, 1.9));  // 2 above it
  EXPECT_TRUE(segment_near_box({-5, 12}, {15, 12}, lo, hi, 2.0));
  // Past a corner: (10, 10) lies 6 / sqrt(2) from the segment, its foot inside it.
  EXPECT_FALSE(segment_near_box({11, 15}, {15, 11}, lo, hi, 4.2));
  EXPECT_TRUE(segment_near_box({11, 15}, {15, 11}, lo, hi, 4.25));
  // A segment ending short of the box: the end's distance counts, not its line's.
  EXPECT_FALSE(segment_near_box({20, 5}, {30, 5}, lo, hi, 9.9));
  EXPECT_TRUE(segment_near_box({20, 5}, {30, 5}, lo, hi, 10.0));
}

/// The points of `c` within `half` of the segment a-b across the ground (brute force).
size_t inside(const PointCloud& c, glm::dvec2 a, glm::dvec2 b, double half) {
  const glm::dvec2 d = glm::normalize(b - a);
  const double len = glm::length(b - a);
  size_t n = 0;
  for (const Float3& f : c.positions) {
    const glm::dvec2 g = glm::dvec2(c.origin) + glm::dvec2(f.x, f.y) - a;
    const double t = glm::dot(g, d), off = std::abs(d.x * g.y - d.y * g.x);
    n += t >= 0.0 && t <= len && off <= half;
  }
  return n;
}

TEST(IoCorridor, ReadsEveryPointNearTheLine) {
  REQUIRE_TESTDATA("laz");
  const std::string copc = test::data_path("laz") + "/lone-star.copc.laz";
  PointCloud whole;
  std::string err;
  ASSERT_TRUE(load_point_cloud(copc, whole, nullptr, &err)) << err;
  const Bounds b = whole.world_bounds();
  CorridorRequest r;
  r.line = {glm::dvec2(b.min) + glm::dvec2(3.0, 2.0), glm::dvec2(b.max) - glm::dvec2(5.0, 9.0)};
  r.half_width = 0.75;
  PointCloud read;
  CorridorStats st;
  ASSERT_TRUE(read_corridor({copc}, r, &read, &st, &err)) << err;
  EXPECT_TRUE(st.complete);
  EXPECT_EQ(st.depth, 2);
  EXPECT_EQ(st.points, read.size());
  EXPECT_LT(read.size(), whole.size());  // only the nodes near the line
  const size_t want = inside(whole, r.line[0], r.line[1], r.half_width);
  EXPECT_GT(want, 1000u);
  EXPECT_EQ(inside(read, r.line[0], r.line[1], r.half_width), want);
  EXPECT_EQ(read.has_intensity(), whole.has_intensity());
  r.point_budget = 1;  // the root alone (the first level is always read)
  ASSERT_TRUE(read_corridor({copc}, r, &read, &st, &err)) << err;
  EXPECT_FALSE(st.complete);
  EXPECT_EQ(st.depth, 0);
  EXPECT_EQ(st.nodes, 1u);
  r.half_width = 0.0;
  EXPECT_FALSE(read_corridor({copc}, r, &read, &st, &err));
  EXPECT_NE(err.find("width above 0"), std::string::npos) << err;
}

TEST(IoCorridor, RegionReadsDownToItsResolution) {
  REQUIRE_TESTDATA("laz");
  const std::string copc = test::data_path("laz") + "/lone-star.copc.laz";
  std::string err;
  std::unique_ptr<CopcFile> file = CopcFile::open(open_byte_source(copc, &err), &err);
  ASSERT_TRUE(file) << err;
  const double spacing = file->node_spacing(0);
  PointCloud whole;
  ASSERT_TRUE(load_point_cloud(copc, whole, nullptr, &err)) << err;
  // Level l's spacing is spacing / 2^l; the file has levels 0 to 2.
  const struct {
    double resolution;
    int depth;
  } cases[] = {{spacing * 4.0, 0},
               {spacing, 0},
               {spacing * 0.99, 1},
               {spacing / 2.0, 1},
               {spacing / 2.5, 2},
               {spacing * 1e-6, 2},
               {0.0, 2}};
  uint64_t last = 0;
  for (const auto& c : cases) {
    RegionRequest r;
    r.resolution = c.resolution;
    PointCloud read;
    CorridorStats st;
    ASSERT_TRUE(read_region({copc}, r, &read, &st, &err)) << err;
    EXPECT_EQ(st.depth, c.depth) << c.resolution;
    EXPECT_TRUE(st.complete);
    EXPECT_GE(read.size(), last);
    last = read.size();
    if (c.depth == 2) EXPECT_EQ(read.size(), whole.size());
  }
}

}  // namespace
}  // namespace pr
