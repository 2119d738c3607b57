// What a streamed pool carries beyond positions and colors, against the file read whole: the class
// filter (the points of hidden classes NaN, in nodes copied in before and after it is set, through
// a new pool, and shown again), the classes of the nodes that arrived, and the named scalar fields
// of COPC files with extra bytes, also those a .vpc's tile opened later brings (copclib writes the
// tiles, make_copc.py).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <tuple>

#include "engine/colorize.h"
#include "engine/io/io.h"
#include "engine/io/stream.h"
#include "extra_bytes_copc.h"
#include "late_field_survey.h"
#include "stream_test_util.h"
#include "testdata.h"

#ifndef PR_TEST_PYTHON
#define PR_TEST_PYTHON ""
#endif

namespace pr {
namespace {

namespace fs = std::filesystem;

std::string copc_path(const char* name) {
  return test::data_path("laz") + "/" + name;
}

/// A point's position, class and named fields, compared bit for bit.
using test::stream_options;
using test::view_of;
using Point = std::tuple<float, float, float, uint8_t, std::vector<float>>;

/// The drawn (non-NaN) points of a cloud, sorted: position, class, every field's value.
std::vector<Point> drawn_points(const PointCloud& c) {
  std::vector<Point> out;
  for (size_t i = 0; i < c.size(); ++i) {
    const Float3 p = c.positions[i];
    if (std::isnan(p.x)) continue;
    std::vector<float> fields;
    for (const ScalarField& f : c.fields) fields.push_back(f.values[i]);
    out.emplace_back(p.x, p.y, p.z, i < c.classification.size() ? c.classification[i] : 0,
                     std::move(fields));
  }
  std::sort(out.begin(), out.end());
  return out;
}

PointCloud load(const std::string& path) {
  PointCloud cloud;
  std::string error;
  EXPECT_TRUE(load_point_cloud(path, cloud, nullptr, &error)) << error;
  return cloud;
}

/// The loaded cloud with the classes of `hidden` taken out by the loaded path's filter.
PointCloud hidden_whole(const PointCloud& whole, const std::array<bool, 256>& hidden) {
  PointCloud c = whole;
  HiddenPoints stash;
  apply_class_filter(c, hidden, stash);
  return c;
}

// Hidden classes are NaN in the pool as apply_class_filter() makes them in the loaded cloud: set
// before any node arrives, changed after convergence (the pool's nodes rewritten and handed over),
// and kept through a new pool.
TEST(StreamFeatures, ClassFilterHidesWhatTheLoadedCloudHides) {
  REQUIRE_TESTDATA("laz");
  const std::string path = copc_path("1.2-with-color.copc.laz");
  const PointCloud whole = load(path);
  std::array<bool, 256> ground{};
  ground[2] = true;
  const std::vector<Point> without_ground = drawn_points(hidden_whole(whole, ground));
  ASSERT_LT(without_ground.size(), whole.size());
  ASSERT_FALSE(without_ground.empty());

  StreamingScene scene(stream_options(whole.size()));
  std::string error;
  scene.set_hidden_classes(ground);
  ASSERT_TRUE(scene.open({path}, &error)) << error;
  EXPECT_TRUE(scene.pool_reallocated());  // the first pool
  const LodView view = view_of(scene.info().bounds);
  ASSERT_TRUE(scene.wait_converged(view, 20.0));
  EXPECT_TRUE(drawn_points(scene.pool()) == without_ground);

  // Shown again: every point, and the update hands over the ranges of the pool's nodes.
  scene.set_hidden_classes({});
  std::vector<PoolRange> ranges = scene.update(view);
  EXPECT_FALSE(ranges.empty());
  EXPECT_TRUE(drawn_points(scene.pool()) == drawn_points(whole));

  // The other class hidden, then a new budget: a new pool, filled again, still filtered.
  std::array<bool, 256> unclassified{};
  unclassified[1] = true;
  scene.set_hidden_classes(unclassified);
  ranges = scene.update(view);
  EXPECT_FALSE(ranges.empty());
  const std::vector<Point> without_1 = drawn_points(hidden_whole(whole, unclassified));
  EXPECT_TRUE(drawn_points(scene.pool()) == without_1);
  StreamOptions o = scene.options();
  o.point_budget = whole.size() + 5000;
  scene.set_options(o);
  ASSERT_TRUE(scene.wait_converged(view, 20.0));
  EXPECT_TRUE(scene.pool_reallocated());
  EXPECT_TRUE(drawn_points(scene.pool()) == without_1);
}

// A filter set while the view still loads applies to the nodes that arrive after it.
TEST(StreamFeatures, NodesArrivingAfterTheFilterAreFiltered) {
  REQUIRE_TESTDATA("laz");
  const std::string path = copc_path("simple_with_page.copc.laz");
  const PointCloud whole = load(path);
  std::array<bool, 256> ground{};
  ground[2] = true;
  StreamingScene scene(stream_options(whole.size()));
  std::string error;
  ASSERT_TRUE(scene.open({path}, &error)) << error;
  const LodView view = view_of(scene.info().bounds);
  scene.update(view);  // the first requests, nothing in the pool yet
  scene.set_hidden_classes(ground);
  ASSERT_TRUE(scene.wait_converged(view, 20.0));
  EXPECT_TRUE(drawn_points(scene.pool()) == drawn_points(hidden_whole(whole, ground)));
}

// The classes of the nodes in the pool, counted as the file holds them (hidden ones too).
TEST(StreamFeatures, ClassesOfTheArrivedNodes) {
  REQUIRE_TESTDATA("laz");
  const std::string path = copc_path("simple.copc.laz");
  const PointCloud whole = load(path);
  std::map<int, uint64_t> want;
  for (const uint8_t c : whole.classification) ++want[c];
  StreamingScene scene(stream_options(whole.size()));
  std::string error;
  ASSERT_TRUE(scene.open({path}, &error)) << error;
  for (const bool seen : scene.classes().seen) EXPECT_FALSE(seen);  // nothing arrived yet
  std::array<bool, 256> ground{};
  ground[2] = true;
  scene.set_hidden_classes(ground);
  ASSERT_TRUE(scene.wait_converged(view_of(scene.info().bounds), 20.0));
  std::map<int, uint64_t> got;
  for (int c = 0; c < 256; ++c) {
    EXPECT_EQ(scene.classes().seen[size_t(c)], scene.classes().points[size_t(c)] > 0) << c;
    if (scene.classes().points[size_t(c)]) got[c] = scene.classes().points[size_t(c)];
  }
  EXPECT_EQ(got, want);
}

// A COPC file with extra bytes: the pool carries its named fields, each point's values those of
// the file read whole; the survey names them.
TEST(StreamFeatures, PoolCarriesTheNamedFields) {
  REQUIRE_TESTDATA("las");
  const fs::path dir = fs::temp_directory_path() / ("pr_stream_fields_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string copc, error;
  ASSERT_TRUE(test::extra_bytes_copc(dir, false, &copc, &error)) << error;
  const PointCloud whole = load(copc);
  ASSERT_FALSE(whole.fields.empty());
  StreamingScene scene(stream_options(whole.size()));
  ASSERT_TRUE(scene.open({copc}, &error)) << error;
  ASSERT_EQ(scene.info().fields.size(), whole.fields.size());
  for (size_t k = 0; k < whole.fields.size(); ++k)
    EXPECT_EQ(scene.info().fields[k].name, whole.fields[k].name);
  ASSERT_TRUE(scene.wait_converged(view_of(scene.info().bounds), 20.0));
  ASSERT_EQ(scene.pool().fields.size(), whole.fields.size());
  for (size_t k = 0; k < whole.fields.size(); ++k)
    EXPECT_EQ(scene.pool().fields[k].name, whole.fields[k].name);
  const std::vector<Point> pool = drawn_points(scene.pool());
  EXPECT_EQ(pool.size(), whole.size());
  EXPECT_TRUE(pool == drawn_points(whole));
  fs::remove_all(dir);
}

// The range a file's extra-bytes descriptor declares (its min and max) is the survey's field
// range; a field without one has none.
TEST(StreamFeatures, DeclaredFieldRanges) {
  REQUIRE_TESTDATA("las");
  const fs::path dir = fs::temp_directory_path() / ("pr_stream_range_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string copc, error;
  ASSERT_TRUE(test::extra_bytes_copc(dir, true, &copc, &error)) << error;
  StreamingScene scene(stream_options(1'000'000));
  ASSERT_TRUE(scene.open({copc}, &error)) << error;
  int checked = 0;
  for (const FieldInfo& f : scene.info().fields) {
    if (f.name == "Time") {
      EXPECT_TRUE(f.has_range);
      EXPECT_EQ(f.lo, double(test::kDeclaredTimeLo));
      EXPECT_EQ(f.hi, double(test::kDeclaredTimeHi));
      ++checked;
    } else if (f.name == "Intensity") {
      EXPECT_FALSE(f.has_range);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2);
  fs::remove_all(dir);
}

// A .vpc of two COPC tiles where only the second has an extra-bytes field (FIELD_0): the survey
// opens the first tile alone, so the pool starts without the field; once the second tile comes
// into view and opens, the pool carries the field: the second tile's points hold its values (those
// of the tile read whole), the first tile's the field's no-data value (NaN, or the value the
// descriptor declares).
TEST(StreamFeatures, ATileOpenedLaterAddsItsFieldsToThePool) {
  PR_LATE_FIELD_SURVEY(dir, "pr_stream_late_");
  for (const bool declared : {false, true}) {
    SCOPED_TRACE(declared ? "no data declared" : "no data not declared");
    if (declared) {
      ASSERT_TRUE(test::declare_no_data(dir / "b.copc.laz", 255));
    }
    const PointCloud a = load((dir / "a.copc.laz").string());
    const PointCloud b = load((dir / "b.copc.laz").string());
    ASSERT_TRUE(a.fields.empty());
    ASSERT_EQ(b.fields.size(), 1u);
    const std::string name = b.fields[0].name;
    StreamingScene scene(stream_options(a.size() + b.size()));
    std::string error;
    ASSERT_TRUE(scene.open({(dir / "survey.vpc").string()}, &error)) << error;
    EXPECT_EQ(scene.stats().tiles_open, 1u);
    EXPECT_TRUE(scene.pool().fields.empty());
    EXPECT_TRUE(scene.info().fields.empty());
    ASSERT_TRUE(scene.wait_converged(view_of(scene.info().bounds), 20.0));
    EXPECT_EQ(scene.stats().tiles_open, 2u);
    ASSERT_EQ(scene.pool().fields.size(), 1u);
    EXPECT_EQ(scene.pool().fields[0].name, name);
    ASSERT_EQ(scene.info().fields.size(), 1u);
    EXPECT_EQ(scene.info().fields[0].has_no_data, declared);
    // The pool's origin is the survey's, the files' their own: both tiles share make_copc.py's
    // box, so their origins are the survey's.
    ASSERT_EQ(a.origin, scene.info().origin);
    ASSERT_EQ(b.origin, scene.info().origin);
    std::vector<test::FieldPoint> want = test::field_points(a, name, declared ? 255.0f : NAN);
    const std::vector<test::FieldPoint> from_b = test::field_points(b, name, 0.0f);
    want.insert(want.end(), from_b.begin(), from_b.end());
    std::sort(want.begin(), want.end());
    const std::vector<test::FieldPoint> got = test::field_points(scene.pool(), name, 0.0f);
    EXPECT_EQ(got.size(), a.size() + b.size());
    EXPECT_TRUE(got == want);
    // The field colors: a color mode of the pool.
    EXPECT_TRUE(color_mode_available(scene.pool(), ColorMode::kField, name));
  }
  fs::remove_all(dir);
}

// A tile opened later that has intensity and classification, in a survey whose first tile has
// neither (an EPT dataset of X, Y, Z only): the pool carries them from then on, zeros for the
// first tile's points and the file's own values for the later tile's.
TEST(StreamFeatures, ATileOpenedLaterAddsIntensityAndClassesToThePool) {
  REQUIRE_TESTDATA("ept");
  REQUIRE_TESTDATA("laz");
  const std::string first = test::data_path("ept") + "/bcbf/ept.json";
  const std::string later = copc_path("lone-star.copc.laz");
  const PointCloud a = load(first), b = load(later);
  ASSERT_TRUE(a.intensity.empty() && a.classification.empty());
  ASSERT_EQ(b.intensity.size(), b.size());
  const fs::path dir = fs::temp_directory_path() / ("pr_stream_attrs_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const Bounds bb = b.world_bounds();
  std::ofstream(dir / "survey.vpc")
      << R"({"type": "FeatureCollection", "features": [)"
      << R"({"type": "Feature", "id": "a", "assets": {"data": {"href": ")" << first << R"("}}},)"
      << R"({"type": "Feature", "id": "b", "assets": {"data": {"href": ")" << later
      << R"("}}, "properties": {"proj:bbox": [)" << std::floor(bb.min.x) - 1 << ", "
      << std::floor(bb.min.y) - 1 << ", " << std::floor(bb.min.z) - 1 << ", "
      << std::ceil(bb.max.x) + 1 << ", " << std::ceil(bb.max.y) + 1 << ", "
      << std::ceil(bb.max.z) + 1 << "]}}]}";
  StreamingScene scene(stream_options(10'000'000));
  std::string error;
  ASSERT_TRUE(scene.open({(dir / "survey.vpc").string()}, &error)) << error;
  EXPECT_EQ(scene.stats().tiles_open, 1u);
  EXPECT_FALSE(scene.info().has_intensity);
  EXPECT_TRUE(scene.pool().intensity.empty());
  // The whole survey's view opens the later tile; a view of that tile then streams it whole.
  ASSERT_TRUE(scene.wait_converged(view_of(scene.info().bounds), 20.0));
  EXPECT_EQ(scene.stats().tiles_open, 2u);
  ASSERT_TRUE(scene.wait_converged(view_of(bb), 20.0));
  for (int i = 0; i < 3; ++i) scene.update(view_of(bb));
  EXPECT_TRUE(scene.info().has_intensity);
  EXPECT_TRUE(scene.info().has_classification);
  const PointCloud& pool = scene.pool();
  ASSERT_EQ(pool.intensity.size(), pool.size());
  ASSERT_EQ(pool.classification.size(), pool.size());
  // The (intensity, class) of every drawn point: zeros for the first tile's (within 1000 units of
  // the world's origin, the later tile's 500 km away) and the later file's own for the others.
  using Pair = std::pair<float, uint8_t>;
  std::vector<Pair> want, got;
  for (size_t i = 0; i < b.size(); ++i) want.emplace_back(b.intensity[i], b.classification[i]);
  size_t first_tile = 0;
  for (size_t i = 0; i < pool.size(); ++i) {
    if (std::isnan(pool.positions[i].x)) continue;
    if (std::abs(pool.origin.x + double(pool.positions[i].x)) <= 1001.0) {
      ++first_tile;
      EXPECT_EQ(pool.intensity[i], 0.0f);
      EXPECT_EQ(pool.classification[i], 0);
    } else {
      got.emplace_back(pool.intensity[i], pool.classification[i]);
    }
  }
  EXPECT_LE(first_tile, a.size());
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got.size(), want.size());
  EXPECT_TRUE(got == want);
  EXPECT_TRUE(color_mode_available(pool, ColorMode::kIntensity, ""));
  EXPECT_TRUE(color_mode_available(pool, ColorMode::kClassification, ""));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pr
