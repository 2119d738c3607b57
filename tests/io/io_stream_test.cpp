// StreamingScene on the test data's COPC files: the pool after convergence against the whole-file
// reader (every point exactly once, the same floats), budgets, views that turn away and back, the
// host cache's bound, several tiles, a node that cannot be decoded, destruction mid-flight, and
// a URL served by nginx on loopback.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <tuple>

#include <unistd.h>

#include "engine/colorize.h"
#include "engine/io/base/io_common.h"
#include "engine/io/convert.h"
#include "engine/io/copc.h"
#include "engine/io/io.h"
#include "engine/io/stream.h"
#include "engine/scenes.h"
#include "fault_proxy.h"
#include "nginx_server.h"
#include "stream_test_util.h"
#include "testdata.h"

namespace pr {
namespace {

namespace fs = std::filesystem;

std::string copc_path(const char* name) {
  return test::data_path("laz") + "/" + name;
}

/// A point with every attribute the pool carries, compared bit for bit.
using Point = test::StreamPoint;
using test::point_of;
using test::points_of;
using test::stream_options;
using test::view_of;

PointCloud load(const std::string& path) {
  PointCloud cloud;
  std::string error;
  EXPECT_TRUE(load_point_cloud(path, cloud, nullptr, &error)) << error;
  return cloud;
}

/// Every point of a COPC file, its nodes read relative to `origin` (the floats a survey with that
/// origin streams), sorted.
std::vector<Point> points_relative_to(const std::string& path, const glm::dvec3& origin) {
  std::string error;
  auto file = CopcFile::open(open_byte_source(path, &error), &error);
  EXPECT_TRUE(file) << error;
  std::vector<Point> out;
  if (!file) return out;
  for (std::vector<CopcPage> pages = {file->root_page()}; !pages.empty();) {
    const CopcPage page = pages.back();
    pages.pop_back();
    std::vector<CopcEntry> entries;
    EXPECT_TRUE(file->read_page(page, entries, nullptr, &error)) << error;
    for (const CopcEntry& e : entries) {
      if (e.is_page()) {
        pages.push_back({e.offset, uint64_t(e.byte_size)});
        continue;
      }
      PointCloud node;
      EXPECT_TRUE(file->read_node(e, origin, node, &error)) << error;
      for (size_t i = 0; i < node.size(); ++i) out.push_back(point_of(node, i));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Stream, ConvergedPoolHoldsEveryPointOnceWithTheSameFloats) {
  REQUIRE_TESTDATA("laz");
  for (const char* name : {"simple.copc.laz", "simple_with_page.copc.laz",
                           "1.2-with-color.copc.laz", "lone-star.copc.laz"}) {
    SCOPED_TRACE(name);
    const PointCloud whole = load(copc_path(name));
    StreamingScene scene(stream_options(whole.size(), 0.0));
    std::string error;
    ASSERT_TRUE(scene.open({copc_path(name)}, &error)) << error;
    EXPECT_EQ(scene.info().points, whole.size());
    EXPECT_EQ(scene.info().origin, whole.origin);
    ASSERT_TRUE(scene.wait_converged(view_of(scene.info().bounds), 20.0));
    EXPECT_TRUE(scene.pool_reallocated());
    EXPECT_EQ(scene.pool().origin, whole.origin);
    EXPECT_EQ(scene.pool().size() % scene.options().slot_align, 0u);
    const std::vector<Point> pool = points_of(scene.pool());
    EXPECT_EQ(pool.size(), whole.size());
    EXPECT_TRUE(pool == points_of(whole));
    const StreamStats st = scene.stats();
    EXPECT_EQ(st.points_drawn, whole.size());
    EXPECT_EQ(st.points_selected, whole.size());
    EXPECT_EQ(st.nodes_in_flight, 0u);
    EXPECT_EQ(st.nodes_failed, 0u);
    EXPECT_GT(st.bytes_read, 0u);
    EXPECT_TRUE(scene.take_messages().empty());
  }
}

TEST(Stream, FileColorsGoAsideWhileAnotherColorModeIsShown) {
  REQUIRE_TESTDATA("laz");
  const std::string path = copc_path("1.2-with-color.copc.laz");
  const PointCloud whole = load(path);
  StreamingScene scene(stream_options(1'000'000, 0.0));
  std::string error;
  ASSERT_TRUE(scene.open({path}, &error)) << error;
  const uint32_t shown = rgba(1, 2, 3);
  set_display_colors(scene.pool(), ColorMode::kElevation,
                     PodVector<uint32_t>(scene.pool().size(), shown));
  // The caller colors the changed ranges in its mode (the pool grows: new points among them).
  const LodView v = view_of(scene.info().bounds);
  for (int i = 0; i < 20000 && !scene.stats().converged; ++i) {
    for (const PoolRange& r : scene.update(v))
      std::fill_n(scene.pool().colors.begin() + long(r.first), r.count, shown);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(scene.stats().converged);
  EXPECT_FALSE(scene.pool().file_colors.empty());
  EXPECT_TRUE(points_of(scene.pool()) == points_of(whole));  // source_colors(): file_colors
  EXPECT_TRUE(std::all_of(scene.pool().colors.begin(), scene.pool().colors.end(),
                          [&](uint32_t c) { return c == shown; }));
}

TEST(Stream, SmallBudgetDrawsCoarseLevelsWithinIt) {
  REQUIRE_TESTDATA("laz");
  const std::string path = copc_path("lone-star.copc.laz");
  const PointCloud whole = load(path);
  const std::vector<Point> all = points_of(whole);
  const uint64_t budget = whole.size() / 6;
  StreamingScene scene(stream_options(budget, 0.0));
  std::string error;
  ASSERT_TRUE(scene.open({path}, &error)) << error;
  ASSERT_TRUE(scene.wait_converged(view_of(scene.info().bounds), 20.0));
  const StreamStats st = scene.stats();
  EXPECT_LE(st.points_selected, budget);
  EXPECT_GT(st.points_selected, 0u);
  EXPECT_EQ(st.points_drawn, st.points_selected);
  const std::vector<Point> pool = points_of(scene.pool());
  EXPECT_EQ(pool.size(), st.points_drawn);
  EXPECT_TRUE(std::includes(all.begin(), all.end(), pool.begin(), pool.end()));
  // The points drawn spread over the whole cloud (the root's share), not one corner of it.
  Bounds b;
  for (const Point& p : pool) b.extend(glm::dvec3(std::get<0>(p), std::get<1>(p), std::get<2>(p)));
  const glm::dvec3 full = whole.local_bounds().size();
  EXPECT_GT(b.size().x, 0.9 * full.x);
  EXPECT_GT(b.size().y, 0.9 * full.y);
}

TEST(Stream, AViewLookingAwaySelectsNothing) {
  REQUIRE_TESTDATA("laz");
  StreamingScene scene(stream_options(1'000'000, 1.0));
  std::string error;
  ASSERT_TRUE(scene.open({copc_path("lone-star.copc.laz")}, &error)) << error;
  LodView v = view_of(scene.info().bounds);
  v.forward = -v.forward;
  v.right = -v.right;
  ASSERT_TRUE(scene.wait_converged(v, 10.0));
  EXPECT_EQ(scene.stats().nodes_selected, 0u);
  EXPECT_EQ(scene.stats().points_drawn, 0u);
  EXPECT_TRUE(points_of(scene.pool()).empty());
}

TEST(Stream, MovingTheViewEvictsAndTurningBackReadsNothing) {
  REQUIRE_TESTDATA("laz");
  const std::string path = copc_path("lone-star.copc.laz");
  const std::vector<Point> all = points_of(load(path));
  StreamOptions o = stream_options(120'000, 0.0);
  o.slot_align = 256;
  StreamingScene scene(o);
  std::string error;
  ASSERT_TRUE(scene.open({path}, &error)) << error;
  const Bounds b = scene.info().bounds;
  const double w = b.size().x;
  // Close up on the left and on the right end of the cloud.
  const LodView left = view_of(b, 0.3, {-0.4 * w, 0, 0}), right = view_of(b, 0.3, {0.4 * w, 0, 0});
  ASSERT_TRUE(scene.wait_converged(left, 20.0));
  const std::vector<Point> seen_left = points_of(scene.pool());
  ASSERT_TRUE(scene.wait_converged(right, 20.0));
  const std::vector<Point> seen_right = points_of(scene.pool());
  EXPECT_NE(seen_left, seen_right);
  // The pool had no room for both: nodes of the left view went.
  EXPECT_FALSE(
      std::includes(seen_right.begin(), seen_right.end(), seen_left.begin(), seen_left.end()));
  EXPECT_LE(seen_right.size(), scene.pool().size());
  EXPECT_TRUE(std::includes(all.begin(), all.end(), seen_right.begin(), seen_right.end()));
  // Every selected node is drawn; the pool holds what it has room for besides.
  EXPECT_GE(scene.stats().points_drawn, scene.stats().points_selected);
  // Back to the left: the cache has every node, so nothing more is read.
  const uint64_t read = scene.stats().bytes_read;
  ASSERT_TRUE(scene.wait_converged(left, 20.0));
  EXPECT_EQ(scene.stats().bytes_read, read);
  const std::vector<Point> again = points_of(scene.pool());
  EXPECT_TRUE(std::includes(again.begin(), again.end(), seen_left.begin(), seen_left.end()));
}

TEST(Stream, PoolUpdatesReportTheRangesThatChanged) {
  REQUIRE_TESTDATA("laz");
  const std::string path = copc_path("lone-star.copc.laz");
  StreamOptions o = stream_options(600'000, 0.0);
  o.pool_points_per_update = 50'000;
  StreamingScene scene(o);
  std::string error;
  ASSERT_TRUE(scene.open({path}, &error)) << error;
  // A mirror of the pool kept only from the reported ranges ends equal to it (the pool grows as
  // nodes arrive: its new points come in the ranges too).
  std::vector<Float3> mirror(scene.pool().size(), Float3{NAN, NAN, NAN});
  const LodView v = view_of(scene.info().bounds);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 20000 && !scene.stats().converged; ++i) {
    const std::vector<PoolRange> ranges = scene.update(v);
    mirror.resize(scene.pool().size(), Float3{1e30f, 1e30f, 1e30f});  // to be overwritten
    uint64_t end = 0;
    for (const PoolRange& r : ranges) {
      EXPECT_GE(r.first, end);  // sorted and disjoint
      end = r.first + r.count;
      EXPECT_LE(end, scene.pool().size());
      std::copy_n(scene.pool().positions.begin() + long(r.first), r.count,
                  mirror.begin() + long(r.first));
    }
    if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(20)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(scene.stats().converged);
  EXPECT_EQ(
      0, std::memcmp(mirror.data(), scene.pool().positions.data(), mirror.size() * sizeof(Float3)));
}

// Opening costs nothing the budget sets: the pool starts with one slot, grows to what the view's
// nodes take (not to the budget), and its arrays keep their address while they grow.
TEST(Stream, ThePoolGrowsWithWhatArrivesNotWithTheBudget) {
  REQUIRE_TESTDATA("laz");
  const std::string path = copc_path("lone-star.copc.laz");
  StreamOptions o = stream_options(50'000'000, 0.0);
  o.pool_points_per_update = 20'000;  // several updates, each growing the pool
  StreamingScene scene(o);
  std::string error;
  ASSERT_TRUE(scene.open({path}, &error)) << error;
  EXPECT_EQ(scene.pool().size(), o.slot_align);  // one slot, whatever the budget
  const Float3* pos = scene.pool().positions.data();
  const uint32_t* colors = scene.pool().colors.data();
  const LodView v = view_of(scene.info().bounds);
  uint64_t grew = 0, last = 0;
  for (int i = 0; i < 20000 && !scene.stats().converged; ++i) {
    scene.update(v);
    grew += scene.pool().size() > last;
    EXPECT_GE(scene.pool().size(), last);
    last = scene.pool().size();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(scene.stats().converged);
  EXPECT_GT(grew, 1u);
  EXPECT_EQ(scene.pool().positions.data(), pos);
  EXPECT_EQ(scene.pool().colors.data(), colors);
  // Whole slots for each node's whole slot_align runs, granules (an eighth of a slot) for the
  // rest: at most one slot a node more than its points, far below the budget.
  const StreamStats st = scene.stats();
  const uint64_t align = o.slot_align;
  EXPECT_EQ(scene.pool().size() % align, 0u);
  EXPECT_LE(scene.pool().size(), st.points_drawn + (st.nodes_drawn + 1) * align);
  EXPECT_EQ(points_of(scene.pool()).size(), st.points_drawn);
}

// A view that moves along the survey: nodes left behind for pool_keep_updates give their room to
// the ones arriving, so the cloud stays as large as one view needs instead of growing with every
// node the flight has seen (until the budget).
TEST(Stream, NodesLeftBehindGiveTheirRoomBeforeThePoolGrows) {
  // A terrain of 2e6 points written as COPC by the project's converter: enough nodes that a view
  // from low above selects a part of them.
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("pr-keep-" + std::to_string(getpid()) + ".copc.laz");
  std::string error;
  ASSERT_TRUE(save_point_cloud(make_scene("terrain", 2'000'000), path.string(), ConvertOptions{},
                               nullptr, nullptr, &error))
      << error;
  // Per view: the points it selected and whether the pool holds all of them.
  const auto fly = [&](uint64_t keep, std::vector<uint64_t>& selected) {
    StreamOptions o = stream_options(50'000'000, 2.0);
    o.pool_keep_updates = keep;
    StreamingScene scene(o);
    EXPECT_TRUE(scene.open({path.string()}, &error)) << error;
    const Bounds b = scene.info().bounds;
    for (int k = 0; k < 5; ++k) {
      // Looking down on one fifth of the survey at a time, left to right.
      LodView v = view_of(b);
      v.forward = {0, 0, -1};
      v.up = {0, 1, 0};
      v.eye = {b.min.x + (0.1 + 0.2 * k) * b.size().x, b.center().y, b.max.z + 0.08 * b.size().x};
      const auto t0 = std::chrono::steady_clock::now();
      do {
        scene.update(v);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      } while (!scene.stats().converged &&
               std::chrono::steady_clock::now() - t0 < std::chrono::seconds(30));
      const StreamStats st = scene.stats();
      EXPECT_TRUE(st.converged);
      // The pool draws every point it holds: at least the view's, and those alone when
      // everything else left.
      EXPECT_EQ(points_of(scene.pool()).size(), st.points_drawn);
      EXPECT_GE(st.points_drawn, st.points_selected);
      selected.push_back(st.points_selected);
      for (int i = 0; i < 3; ++i) scene.update(v);  // the view stays: its nodes grow old elsewhere
    }
    return scene.pool().size();
  };
  std::vector<uint64_t> selected_kept, selected_reused;
  const uint64_t kept = fly(1'000'000, selected_kept);  // never old enough: the pool is a cache
  const uint64_t reused = fly(1, selected_reused);
  std::filesystem::remove(path);
  EXPECT_EQ(selected_kept, selected_reused);
  EXPECT_LT(reused, kept);
  // Room for the largest view and the nodes of the next one arriving while those of the last
  // still draw (a node leaves only once no view selects it).
  const uint64_t most = *std::max_element(selected_reused.begin(), selected_reused.end());
  EXPECT_LE(reused, 2 * most + 64 * uint64_t(4096));
}

TEST(Stream, HostCacheStaysWithinItsBound) {
  REQUIRE_TESTDATA("laz");
  const std::string path = copc_path("lone-star.copc.laz");
  StreamOptions o = stream_options(1'000'000, 0.0);
  o.cache_bytes = 1 << 20;  // a fraction of the file's decoded nodes
  StreamingScene scene(o);
  std::string error;
  ASSERT_TRUE(scene.open({path}, &error)) << error;
  const LodView v = view_of(scene.info().bounds);
  const auto t0 = std::chrono::steady_clock::now();
  while (!scene.stats().converged &&
         std::chrono::steady_clock::now() - t0 < std::chrono::seconds(30)) {
    scene.update(v);
    ASSERT_LE(scene.stats().cache_bytes, o.cache_bytes);
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  ASSERT_TRUE(scene.stats().converged);
  EXPECT_EQ(scene.stats().points_drawn, scene.info().points);
}

TEST(Stream, SeveralTilesOpenAsOneScene) {
  REQUIRE_TESTDATA("laz");
  const std::string a = copc_path("simple.copc.laz"), b = copc_path("lone-star.copc.laz");
  const PointCloud ca = load(a);
  StreamingScene scene(stream_options(10'000'000, 0.0));
  std::string error;
  ASSERT_TRUE(scene.open({a, b, a}, &error)) << error;
  const PointCloud cb = load(b);
  EXPECT_EQ(scene.info().points, 2 * ca.size() + cb.size());
  EXPECT_EQ(scene.stats().tiles, 3u);  // known from open()
  EXPECT_FALSE(scene.stats().converged);
  // One origin for the survey, from the bounds of its tiles (both files').
  EXPECT_EQ(scene.info().origin, io::choose_origin(scene.info().bounds));
  Bounds both = ca.world_bounds();
  both.extend(cb.world_bounds());
  ASSERT_TRUE(scene.wait_converged(view_of(both), 30.0));
  EXPECT_EQ(scene.stats().tiles, 3u);
  EXPECT_EQ(scene.stats().tiles_open, 3u);
  // Each point of `a` twice, relative to the survey's origin; lone-star's, if in view, too.
  const std::vector<Point> pool = points_of(scene.pool());
  std::vector<Point> twice = points_relative_to(a, scene.info().origin);
  std::vector<Point> wanted;
  for (const Point& p : twice) wanted.push_back(p), wanted.push_back(p);
  std::sort(wanted.begin(), wanted.end());
  EXPECT_TRUE(std::includes(pool.begin(), pool.end(), wanted.begin(), wanted.end()));
  EXPECT_EQ(scene.stats().points_drawn, pool.size());
}

/// The root page's entry for the first node of level 1 with points: its offset in the file.
bool level1_entry(const std::string& path, CopcEntry& found, uint64_t& entry_offset) {
  std::string error;
  auto file = CopcFile::open(open_byte_source(path, &error), &error);
  if (!file) return false;
  std::vector<CopcEntry> entries;
  if (!file->read_page(file->root_page(), entries, nullptr, &error)) return false;
  for (size_t i = 0; i < entries.size(); ++i)
    if (entries[i].key.level == 1 && entries[i].point_count > 0) {
      found = entries[i];
      entry_offset = file->root_page().offset + 32 * i;
      return true;
    }
  return false;
}

TEST(Stream, ANodeThatCannotBeDecodedIsSkippedAndNamedOnce) {
  REQUIRE_TESTDATA("laz");
  const std::string path = copc_path("lone-star.copc.laz");
  CopcEntry bad;
  uint64_t at = 0;
  ASSERT_TRUE(level1_entry(path, bad, at));
  // A copy whose entry claims twice the node's points: its chunk ends before them.
  std::vector<char> bytes(fs::file_size(path));
  std::ifstream(path, std::ios::binary).read(bytes.data(), long(bytes.size()));
  const int32_t lie = bad.point_count * 2;
  std::memcpy(bytes.data() + at + 28, &lie, 4);
  const fs::path copy = fs::temp_directory_path() / "pr_stream_bad_node.copc.laz";
  std::ofstream(copy, std::ios::binary).write(bytes.data(), long(bytes.size()));

  const PointCloud whole = load(path);
  StreamingScene scene(stream_options(10'000'000, 0.0));
  std::string error;
  ASSERT_TRUE(scene.open({copy.string()}, &error)) << error;
  const LodView v = view_of(scene.info().bounds);
  ASSERT_TRUE(scene.wait_converged(v, 20.0));
  for (int i = 0; i < 5; ++i) scene.update(v);
  EXPECT_EQ(scene.stats().nodes_failed, 1u);
  const std::vector<std::string> messages = scene.take_messages();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_NE(messages[0].find(copy.string()), std::string::npos) << messages[0];
  // Everything else, the failed node's children too, is drawn.
  EXPECT_EQ(points_of(scene.pool()).size(), whole.size() - size_t(bad.point_count));
  fs::remove(copy);
}

TEST(Stream, AHierarchyCycleIsRefusedAndTheRestDraws) {
  REQUIRE_TESTDATA("laz");
  const std::string path = copc_path("simple_with_page.copc.laz");
  std::string error;
  auto file = CopcFile::open(open_byte_source(path, &error), &error);
  ASSERT_TRUE(file) << error;
  const CopcPage root = file->root_page();
  std::vector<CopcEntry> entries;
  ASSERT_TRUE(file->read_page(root, entries, nullptr, &error)) << error;
  size_t page = entries.size();
  for (size_t i = 0; i < entries.size(); ++i)
    if (entries[i].is_page()) page = i;
  ASSERT_LT(page, entries.size()) << "the file has a child page";
  // A copy whose child page entry points back at the root page.
  std::vector<char> bytes(fs::file_size(path));
  std::ifstream(path, std::ios::binary).read(bytes.data(), long(bytes.size()));
  const uint64_t at = root.offset + 32 * page;
  const int32_t size = int32_t(root.size);
  std::memcpy(bytes.data() + at + 16, &root.offset, 8);
  std::memcpy(bytes.data() + at + 24, &size, 4);
  const fs::path copy = fs::temp_directory_path() / "pr_stream_cycle.copc.laz";
  std::ofstream(copy, std::ios::binary).write(bytes.data(), long(bytes.size()));

  const PointCloud whole = load(path);
  StreamingScene scene(stream_options(1'000'000, 0.0));
  ASSERT_TRUE(scene.open({copy.string()}, &error)) << error;
  ASSERT_TRUE(scene.wait_converged(view_of(scene.info().bounds), 20.0));
  const std::vector<std::string> messages = scene.take_messages();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_NE(messages[0].find("listed twice"), std::string::npos) << messages[0];
  const std::vector<Point> pool = points_of(scene.pool()), all = points_of(whole);
  EXPECT_GT(pool.size(), 0u);
  EXPECT_LT(pool.size(), all.size());  // the page's subtree is missing, the rest is there
  EXPECT_TRUE(std::includes(all.begin(), all.end(), pool.begin(), pool.end()));
  fs::remove(copy);
}

TEST(Stream, DestructionWithRequestsInFlightIsQuick) {
  REQUIRE_TESTDATA("laz");
  for (int round = 0; round < 5; ++round) {
    const auto t0 = std::chrono::steady_clock::now();
    {
      StreamOptions o = stream_options(1'000'000, 0.0);
      o.threads = 4;
      StreamingScene scene(o);
      std::string error;
      ASSERT_TRUE(scene.open({copc_path("lone-star.copc.laz")}, &error)) << error;
      const LodView v = view_of(scene.info().bounds);
      for (int i = 0; i < round; ++i) scene.update(v);
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("round %d: open, %d updates and destruction in %.3f s\n", round, round, s);
  }
}

TEST(Stream, BadInputsGiveOneLineMessages) {
  REQUIRE_TESTDATA("laz");
  StreamingScene scene(stream_options(1000, 1.0));
  std::string error;
  EXPECT_FALSE(scene.open({"/nonexistent/x.copc.laz"}, &error));
  EXPECT_NE(error.find("/nonexistent/x.copc.laz"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos);
  // A tile that does not open is skipped and named; the others stream.
  const std::string plain = test::data_path("las") + "/1.2-with-color.las";
  const std::string good = copc_path("simple.copc.laz");
  REQUIRE_TESTDATA("las");
  StreamingScene two(stream_options(10'000, 0.0));
  ASSERT_TRUE(two.open({plain, good}, &error)) << error;
  const std::vector<std::string> m = two.take_messages();
  ASSERT_EQ(m.size(), 1u);
  EXPECT_NE(m[0].find("1.2-with-color.las"), std::string::npos) << m[0];
  EXPECT_EQ(two.info().points, 1065u);
}

TEST(Stream, StreamedInputs) {
  REQUIRE_TESTDATA("laz");
  EXPECT_TRUE(is_streamed_input(copc_path("lone-star.copc.laz")));
  EXPECT_TRUE(is_streamed_input(test::data_path("laz")));
  EXPECT_TRUE(is_streamed_input("survey.VPC"));
  EXPECT_TRUE(is_streamed_input("https://example.org/a.laz"));
  EXPECT_FALSE(is_streamed_input("/nonexistent/file.las"));
  for (const auto& e : fs::directory_iterator(test::data_path("laz"))) {
    const std::string p = e.path().string();
    const bool copc = p.find(".copc.") != std::string::npos;
    if (e.is_regular_file()) {
      EXPECT_EQ(is_streamed_input(p), copc) << p;
    }
  }
}

TEST(Stream, UrlStreamsLikeThePath) {
  REQUIRE_TESTDATA("laz");
  START_NGINX(server, test::data_path("laz"), "");
  const std::string path = copc_path("lone-star.copc.laz");
  const PointCloud whole = load(path);
  StreamingScene scene(stream_options(whole.size(), 0.0));
  std::string error;
  ASSERT_TRUE(scene.open({server.url("lone-star.copc.laz")}, &error)) << error;
  EXPECT_EQ(scene.info().origin, whole.origin);
  ASSERT_TRUE(scene.wait_converged(view_of(scene.info().bounds), 30.0));
  EXPECT_TRUE(points_of(scene.pool()) == points_of(whole));
  EXPECT_GE(scene.stats().bytes_read, 1000u);
  // 15 nodes and one page: nodes adjacent in the file come in one request.
  uint64_t connections = 0, requests = 0;
  ASSERT_TRUE(server.counts(&connections, &requests, &error)) << error;
  EXPECT_LT(requests, 15u);
  std::printf("lone-star.copc.laz over HTTP: %llu requests on %llu connections\n",
              static_cast<unsigned long long>(requests),
              static_cast<unsigned long long>(connections));
}

TEST(Stream, DestructionCancelsStalledReads) {
  REQUIRE_TESTDATA("laz");
  START_NGINX(server, test::data_path("laz"), "");
  test::FaultProxy proxy(server.port());
  std::string error;
  ASSERT_TRUE(proxy.start(&error)) << error;
  const auto t0 = std::chrono::steady_clock::now();
  {
    StreamingScene scene(stream_options(1'000'000, 0.0));
    ASSERT_TRUE(scene.open({proxy.url("lone-star.copc.laz")}, &error)) << error;
    test::FaultProxy::Fault stall;
    stall.mode = test::FaultProxy::Mode::kStall;
    stall.stall_s = 60.0;
    proxy.set_fault(stall);
    const LodView v = view_of(scene.info().bounds);
    // Until a read is stalled mid-body (the proxy counts it when it starts the answer).
    for (int i = 0; i < 1000 && proxy.faulted() == 0; ++i) {
      scene.update(v);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_GT(proxy.faulted(), 0u);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(scene.stats().converged);
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("destroyed with a stalled read in flight after %.3f s\n", s);
  EXPECT_LT(s, 30.0);  // far below the stall: the read was cancelled, not waited for
}

std::string vpc_item(const std::string& href, const Bounds& b, uint64_t points) {
  char bbox[256];
  std::snprintf(bbox, sizeof bbox, "[%.3f, %.3f, %.3f, %.3f, %.3f, %.3f]", b.min.x, b.min.y,
                b.min.z, b.max.x, b.max.y, b.max.z);
  return R"({"type": "Feature", "stac_version": "1.0.0", "id": "t", "assets": {"data": {"href": ")" +
         href + R"(", "roles": ["data"]}}, "properties": {"pc:count": )" + std::to_string(points) +
         R"(, "proj:bbox": )" + bbox + "}}";
}

TEST(Stream, VpcTilesOpenWhenTheirBoundsComeIntoView) {
  REQUIRE_TESTDATA("laz");
  const std::string path = copc_path("lone-star.copc.laz");
  const PointCloud whole = load(path);
  const Bounds b = whole.world_bounds();
  Bounds far = b;
  far.min.x += 1e5;
  far.max.x += 1e5;
  const fs::path vpc = fs::temp_directory_path() / "pr_stream_test.vpc";
  std::ofstream(vpc) << R"({"type": "FeatureCollection", "features": [)"
                     << vpc_item(path, b, whole.size()) << ",\n"
                     << vpc_item(path, b, whole.size()) << ",\n"
                     << vpc_item(path, far, whole.size()) << "]}\n";
  StreamingScene scene(stream_options(3'000'000, 0.0));
  std::string error;
  ASSERT_TRUE(scene.open({vpc.string()}, &error)) << error;
  fs::remove(vpc);
  EXPECT_EQ(scene.info().points, 3 * whole.size());
  ASSERT_TRUE(scene.wait_converged(view_of(b), 30.0));
  EXPECT_EQ(scene.stats().tiles, 3u);
  EXPECT_EQ(scene.stats().tiles_open, 2u);  // the far tile is never opened
  // The survey's origin comes from its bounds, the far tile's included.
  Bounds all = b;
  all.extend(far);
  EXPECT_EQ(scene.info().origin, io::choose_origin(all));
  std::vector<Point> twice;
  for (const Point& p : points_relative_to(path, scene.info().origin))
    twice.push_back(p), twice.push_back(p);
  std::sort(twice.begin(), twice.end());
  EXPECT_TRUE(points_of(scene.pool()) == twice);
}

}  // namespace
}  // namespace pr
