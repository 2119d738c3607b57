// A profile's corridor read from a COPC file (engine/io/corridor.h): the segment-box test against
// cases worked out by hand; every point of the file within the half width of the line is read
// (against the file read whole) at every level, a small budget reads the top level only, and bad
// requests get one line; a region at a resolution reads the levels down to the first as fine. EPT
// datasets (PDAL's), as a folder, an ept.json and a .vpc naming them, give exactly the points near
// the line that the dataset read whole gives. A .vpc of two tiles where one has a named field
// gives the other's points the field's no-data value.
#include "engine/io/corridor.h"

#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "engine/io/copc.h"
#include "engine/io/load.h"
#include "engine/io/open_byte_source.h"
#include "ept_data.h"
#include "late_field_survey.h"
#include "stream_test_util.h"
#include "testdata.h"

#ifndef PR_TEST_PYTHON
#define PR_TEST_PYTHON ""
#endif

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

/// The points of `c` within `half` of the segment a-b, with every attribute, sorted.
std::vector<test::StreamPoint> near_points(const PointCloud& c, glm::dvec2 a, glm::dvec2 b,
                                           double half) {
  const glm::dvec2 d = glm::normalize(b - a);
  const double len = glm::length(b - a);
  std::vector<test::StreamPoint> out;
  for (size_t i = 0; i < c.size(); ++i) {
    const Float3 f = c.positions[i];
    const glm::dvec2 g = glm::dvec2(c.origin) + glm::dvec2(f.x, f.y) - a;
    const double t = glm::dot(g, d), off = std::abs(d.x * g.y - d.y * g.x);
    if (t >= 0.0 && t <= len && off <= half) out.push_back(test::point_of(c, i));
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(IoCorridor, EptDatasetsGiveTheWholeReadsPointsNearTheLine) {
  REQUIRE_TESTDATA("ept");
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("pr_corridor_ept_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (const char* name : {"lone-star-laszip", "ellipsoid-zstandard"}) {
    SCOPED_TRACE(name);
    const std::string folder = test::ept_path(name);
    PointCloud whole;
    std::string err;
    ASSERT_TRUE(load_point_cloud(folder, whole, nullptr, &err)) << err;
    const Bounds b = whole.world_bounds();
    CorridorRequest r;
    r.line = {glm::dvec2(b.min) + 0.1 * glm::dvec2(b.size()),
              glm::dvec2(b.max) - 0.2 * glm::dvec2(b.size())};
    r.half_width = 0.02 * glm::length(glm::dvec2(b.size()));
    const auto want = near_points(whole, r.line[0], r.line[1], r.half_width);
    EXPECT_GT(want.size(), 100u);
    // A .vpc naming the dataset's ept.json (its declared box that of the points).
    const fs::path vpc = dir / (std::string(name) + ".vpc");
    std::ofstream(vpc) << R"({"type": "FeatureCollection", "features": [{"type": "Feature",)"
                       << R"( "id": "t", "properties": {"proj:bbox": [)" << b.min.x << ","
                       << b.min.y << "," << b.min.z << "," << b.max.x << "," << b.max.y << ","
                       << b.max.z << R"(]}, "assets": {"data": {"href": ")" << folder
                       << R"(/ept.json"}}}]})";
    for (const std::string& input : {folder, folder + "/ept.json", vpc.string()}) {
      SCOPED_TRACE(input);
      PointCloud read;
      CorridorStats st;
      ASSERT_TRUE(read_corridor({input}, r, &read, &st, &err)) << err;
      EXPECT_TRUE(st.complete);
      EXPECT_EQ(st.tiles, 1u);
      EXPECT_EQ(st.points, read.size());
      EXPECT_EQ(read.origin, whole.origin);
      EXPECT_TRUE(near_points(read, r.line[0], r.line[1], r.half_width) == want);
    }
  }
  fs::remove_all(dir);
}

TEST(IoCorridor, ATileWithoutAFieldGivesItsNoDataValue) {
  PR_LATE_FIELD_SURVEY(dir, "pr_corridor_field_");
  for (const bool declared : {false, true}) {
    SCOPED_TRACE(declared ? "no data declared" : "no data not declared");
    if (declared) {
      ASSERT_TRUE(test::declare_no_data(dir / "b.copc.laz", 255));
    }
    PointCloud a, b, read;
    std::string err;
    ASSERT_TRUE(load_point_cloud((dir / "a.copc.laz").string(), a, nullptr, &err)) << err;
    ASSERT_TRUE(load_point_cloud((dir / "b.copc.laz").string(), b, nullptr, &err)) << err;
    ASSERT_EQ(b.fields.size(), 1u);
    const std::string name = b.fields[0].name;
    // A corridor over the whole box: every point of both tiles.
    const Bounds box = b.world_bounds();
    CorridorRequest r;
    r.line = {glm::dvec2(box.min), glm::dvec2(box.max)};
    r.half_width = glm::length(glm::dvec2(box.size()));
    CorridorStats st;
    ASSERT_TRUE(read_corridor({(dir / "survey.vpc").string()}, r, &read, &st, &err)) << err;
    EXPECT_EQ(st.tiles, 2u);
    ASSERT_EQ(read.size(), a.size() + b.size());
    std::vector<test::FieldPoint> want = test::field_points(a, name, declared ? 255.0f : NAN);
    const std::vector<test::FieldPoint> from_b = test::field_points(b, name, 0.0f);
    want.insert(want.end(), from_b.begin(), from_b.end());
    std::sort(want.begin(), want.end());
    EXPECT_TRUE(test::field_points(read, name, 0.0f) == want);
  }
  std::filesystem::remove_all(dir);
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
    if (c.depth == 2) {
      EXPECT_EQ(read.size(), whole.size());
    }
  }
}

}  // namespace
}  // namespace pr
