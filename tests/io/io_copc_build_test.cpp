// The COPC octree build (build_copc_nodes): every record in exactly one node, nodes inside their
// cubes, one point a grid cell above the leaves, leaves no larger than asked, the same nodes in
// memory and through the temporary folder (also when buckets are split), with 1 or 4 threads, and
// the folder removed after success, cancel and a failing sink.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <tuple>

#include "copc_build.h"

namespace pr::io {
namespace {

namespace fs = std::filesystem;

constexpr uint16_t kRecordLength = 30;

/// Records held in memory, handed out in blocks from any thread.
class TestSource : public RecordSource {
 public:
  /// `declared`: the records spec() says (0: those held).
  TestSource(RecordSpec spec, std::vector<uint8_t> records, size_t block = 997,
             uint64_t declared = 0)
      : spec_(std::move(spec)), records_(std::move(records)), block_(block) {
    spec_.points = declared ? declared : records_.size() / spec_.record_length;
  }
  const RecordSpec& spec() const override { return spec_; }
  bool next(std::vector<uint8_t>& out) override {
    std::lock_guard<std::mutex> lock(m_);
    const size_t rl = spec_.record_length, n = records_.size() / rl;
    if (at_ >= n) return false;
    const size_t take = std::min(block_, n - at_);
    out.assign(records_.begin() + long(at_ * rl), records_.begin() + long((at_ + take) * rl));
    at_ += take;
    return true;
  }
  std::string error() const override { return {}; }
  /// In two parts (a third, the rest), as two files would be.
  bool direct(DirectRecords* out) const override {
    if (!offer_direct) return false;
    const uint64_t n = records_.size() / spec_.record_length, third = n / 3;
    *out = DirectRecords();
    out->add(records_.data(), third);
    out->add(records_.data() + third * spec_.record_length, n - third);
    return true;
  }
  bool offer_direct = false;  ///< the build may bin indices into records_

 private:
  RecordSpec spec_;
  std::vector<uint8_t> records_;
  size_t block_, at_ = 0;
  std::mutex m_;
};

using Record = std::string;
using Nodes = std::map<std::tuple<int, int, int, int>, std::vector<Record>>;

/// Keeps every node; fails at node `fail_at` (counting from 1), or sets cancel there.
class TestSink : public NodeSink {
 public:
  bool node(const CopcKey& key, const uint8_t* records, uint64_t count) override {
    std::lock_guard<std::mutex> lock(m_);
    ++calls;
    if (!watch.empty() && !fs::is_empty(watch)) saw_temp = true;
    if (fail_at && calls == fail_at) return false;
    if (cancel_at && calls == cancel_at) progress->cancel = true;
    auto& v = nodes[{key.level, key.x, key.y, key.z}];
    EXPECT_TRUE(v.empty()) << "node " << key.level << "-" << key.x << "-" << key.y << "-" << key.z
                           << " handed over twice";
    EXPECT_GT(count, 0u);
    for (uint64_t i = 0; i < count; ++i)
      v.emplace_back(reinterpret_cast<const char*>(records + i * kRecordLength), kRecordLength);
    return true;
  }
  Nodes nodes;
  uint64_t calls = 0, fail_at = 0, cancel_at = 0;
  fs::path watch;         ///< a folder to look into at each node
  bool saw_temp = false;  ///< `watch` held something while nodes came
  ConvertProgress* progress = nullptr;
  std::mutex m_;
};

RecordSpec make_spec(double scale = 0.001) {
  RecordSpec s;
  s.record_length = kRecordLength;
  s.scale = glm::dvec3(scale);
  s.offset = glm::dvec3(1000.0, -2000.0, 50.0);
  return s;
}

void put_record(std::vector<uint8_t>& out, const int32_t xyz[3], uint32_t id, std::mt19937& rng) {
  const size_t at = out.size();
  out.resize(at + kRecordLength);
  std::memcpy(&out[at], xyz, 12);
  std::memcpy(&out[at + 12], &id, 4);
  for (size_t i = 16; i < kRecordLength; ++i) out[at + i] = uint8_t(rng());
}

/// Bounds of the records' world positions.
Bounds world_bounds(const RecordSpec& s, const std::vector<uint8_t>& records) {
  Bounds b;
  for (size_t at = 0; at < records.size(); at += kRecordLength) {
    int32_t xyz[3];
    std::memcpy(xyz, &records[at], 12);
    b.extend(glm::dvec3(xyz[0], xyz[1], xyz[2]) * s.scale + s.offset);
  }
  return b;
}

/// Records with integer coordinates drawn by `gen(rng, xyz)`.
template <class Gen>
std::vector<uint8_t> make_records(size_t n, uint32_t seed, Gen gen) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> out;
  out.reserve(n * kRecordLength);
  for (size_t i = 0; i < n; ++i) {
    int32_t xyz[3];
    gen(rng, xyz);
    put_record(out, xyz, uint32_t(i), rng);
  }
  return out;
}

/// A bumpy terrain over `extent` integer units, points clustered in a few patches.
std::vector<uint8_t> terrain(size_t n, uint32_t seed, int32_t extent = 200000) {
  return make_records(n, seed, [extent](std::mt19937& rng, int32_t xyz[3]) {
    std::uniform_int_distribution<int32_t> u(0, extent);
    std::normal_distribution<double> g(0.0, extent / 40.0);
    const bool cluster = rng() % 3 == 0;
    xyz[0] = cluster ? std::clamp(int32_t(extent / 3 + g(rng)), 0, extent) : u(rng);
    xyz[1] = cluster ? std::clamp(int32_t(extent / 2 + g(rng)), 0, extent) : u(rng);
    xyz[2] = int32_t(2000.0 * std::sin(xyz[0] * 1e-4) * std::cos(xyz[1] * 7e-5)) + 3000;
  });
}

struct BuildRun {
  bool ok = false;
  std::string error;
  Nodes nodes;
  OctreeCube cube;
  ConvertProgress progress;
};

class CopcBuild : public ::testing::Test {
 protected:
  void SetUp() override {
    temp_ = fs::temp_directory_path() /
            ("pr_copc_build_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
             "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(temp_);
    fs::create_directories(temp_);
  }
  void TearDown() override { fs::remove_all(temp_); }

  bool temp_empty() const { return fs::is_empty(temp_); }

  /// Builds `records`; `memory` 0: no limit (in memory).
  void build(BuildRun& r, const RecordSpec& spec, const std::vector<uint8_t>& records,
             unsigned threads, uint64_t memory, uint64_t leaf, TestSink* sink_in = nullptr,
             bool direct = false) {
    RecordSpec s = spec;
    s.bounds = world_bounds(spec, records);
    TestSource source(s, records);
    source.offer_direct = direct;
    r.cube = octree_cube(s.bounds, 0.001);
    BuildOptions o;
    o.temp_dir = temp_.string();
    o.memory_bytes = memory;
    o.threads = threads;
    o.progress = &r.progress;
    BuildTuning t;
    t.leaf_points = leaf;
    TestSink own;
    TestSink& sink = sink_in ? *sink_in : own;
    sink.progress = &r.progress;
    r.ok = build_copc_nodes(source, r.cube, o, t, sink, &r.error);
    r.nodes = std::move(sink.nodes);
  }

  fs::path temp_;
};

std::multiset<Record> all_records(const std::vector<uint8_t>& records) {
  std::multiset<Record> s;
  for (size_t at = 0; at < records.size(); at += kRecordLength)
    s.emplace(reinterpret_cast<const char*>(&records[at]), kRecordLength);
  return s;
}

/// Every record once; nodes inside their cubes, with their parents; above the leaves one point a
/// grid cell; leaves at most `leaf` points unless at the depth cap. Returns the deepest level.
int check_octree(const BuildRun& r, const RecordSpec& spec, const std::vector<uint8_t>& records,
                 uint64_t leaf) {
  std::multiset<Record> out;
  for (const auto& [k, v] : r.nodes) out.insert(v.begin(), v.end());
  EXPECT_TRUE(out == all_records(records))
      << "records in " << out.size() << " vs " << records.size() / kRecordLength;
  const copc_build::Frame f = copc_build::make_frame(r.cube, spec);
  const glm::dvec3 lo = r.cube.center - glm::dvec3(r.cube.halfsize);
  int deepest = 0;
  for (const auto& [k, v] : r.nodes) {
    const auto [level, x, y, z] = k;
    deepest = std::max(deepest, level);
    if (level > 0) {
      EXPECT_TRUE(r.nodes.count({level - 1, x >> 1, y >> 1, z >> 1})) << level;
    }
    bool inner = false;  // has children
    for (int c = 0; c < 8 && !inner; ++c)
      inner = r.nodes.count({level + 1, 2 * x + (c & 1), 2 * y + (c >> 1 & 1), 2 * z + (c >> 2)});
    const double edge = 2.0 * r.cube.halfsize / double(1 << level);
    const glm::dvec3 nmin = lo + glm::dvec3(x, y, z) * edge;
    std::set<std::array<uint32_t, 3>> cells;
    for (const Record& rec : v) {
      int32_t xyz[3];
      std::memcpy(xyz, rec.data(), 12);
      const glm::dvec3 w = glm::dvec3(xyz[0], xyz[1], xyz[2]) * spec.scale + spec.offset;
      for (int i = 0; i < 3; ++i) {
        EXPECT_GE(w[i], nmin[i] - 1e-9 * edge);
        EXPECT_LE(w[i], nmin[i] + edge * (1 + 1e-9));
      }
      const copc_build::Pos p = f.position(reinterpret_cast<const uint8_t*>(rec.data()));
      const int s = 25 - level;
      if (inner) {
        EXPECT_TRUE(cells.insert({p[0] >> s, p[1] >> s, p[2] >> s}).second) << level;
      }
    }
    if (!inner && level < f.cap) {
      EXPECT_LE(v.size(), leaf) << "leaf at level " << level;
    }
    EXPECT_LE(v.size(), std::max<uint64_t>(leaf, 128u * 128u * 128u));
  }
  return deepest;
}

TEST_F(CopcBuild, CubeHoldsTheBounds) {
  Bounds b;
  b.extend(glm::dvec3(10, 20, 30));
  b.extend(glm::dvec3(110, 40, 35));
  const OctreeCube c = octree_cube(b, 0.001);
  // The cube starts at the bounds' minimum and its edge is their longest extent (x: 100).
  EXPECT_DOUBLE_EQ(c.center.x, 60.0);
  EXPECT_DOUBLE_EQ(c.center.y, 70.0);
  EXPECT_DOUBLE_EQ(c.center.z, 80.0);
  EXPECT_DOUBLE_EQ(c.halfsize, 50.0);
  EXPECT_DOUBLE_EQ(c.spacing, 100.0 / 128.0);
  Bounds one;
  one.extend(glm::dvec3(5, 5, 5));
  EXPECT_DOUBLE_EQ(octree_cube(one, 0.001).halfsize, 0.0005);
}

TEST_F(CopcBuild, TerrainInMemory) {
  const RecordSpec spec = make_spec();
  const std::vector<uint8_t> rec = terrain(60000, 1);
  BuildRun r;
  build(r, spec, rec, 2, 0, 2000);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_GE(check_octree(r, spec, rec, 2000), 2);
  EXPECT_EQ(r.progress.stage.load(), ConvertProgress::kBuild);
  EXPECT_EQ(r.progress.done.load(), 60000u);
  EXPECT_TRUE(temp_empty());
}

TEST_F(CopcBuild, DiskPathGivesTheSameNodes) {
  const RecordSpec spec = make_spec();
  const std::vector<uint8_t> rec = terrain(120000, 2);
  BuildRun mem, disk;
  build(mem, spec, rec, 1, 0, 3000);
  ASSERT_TRUE(mem.ok) << mem.error;
  // 1 MB for 3.6 MB of records: bucket files, and buckets split.
  TestSink sink;
  sink.watch = temp_;
  build(disk, spec, rec, 3, 1u << 20, 3000, &sink);
  ASSERT_TRUE(disk.ok) << disk.error;
  EXPECT_TRUE(sink.saw_temp);
  EXPECT_EQ(disk.progress.done.load(), 120000u);
  check_octree(disk, spec, rec, 3000);
  EXPECT_TRUE(mem.nodes == disk.nodes);
  EXPECT_TRUE(temp_empty());
}

TEST_F(CopcBuild, ThreadsGiveTheSameNodes) {
  const RecordSpec spec = make_spec();
  const std::vector<uint8_t> rec = terrain(100000, 3);
  BuildRun one, four;
  build(one, spec, rec, 1, 0, 1000);
  build(four, spec, rec, 4, 0, 1000);
  ASSERT_TRUE(one.ok && four.ok) << one.error << four.error;
  check_octree(four, spec, rec, 1000);
  EXPECT_TRUE(one.nodes == four.nodes);
}

TEST_F(CopcBuild, DirectSourceGivesTheSameNodes) {
  // Binning indices into the source's records (in memory) or copies (in memory, and on disk where
  // a direct source is read through next() as any other).
  const RecordSpec spec = make_spec();
  const std::vector<uint8_t> rec = terrain(150000, 4);
  BuildRun copied, direct, disk;
  build(copied, spec, rec, 2, 0, 2000);
  build(direct, spec, rec, 2, 0, 2000, nullptr, true);
  build(disk, spec, rec, 2, 1u << 20, 2000, nullptr, true);
  ASSERT_TRUE(copied.ok && direct.ok && disk.ok) << copied.error << direct.error << disk.error;
  check_octree(direct, spec, rec, 2000);
  EXPECT_EQ(direct.progress.done.load(), 150000u);
  EXPECT_TRUE(copied.nodes == direct.nodes);
  EXPECT_TRUE(disk.nodes == direct.nodes);
  EXPECT_TRUE(temp_empty());
}

TEST_F(CopcBuild, DenseClusterFarFromAnOutlier) {
  // The outlier makes the cube 10^5 times the cluster: on disk the cluster's bucket is split past
  // level 7, its upper levels chosen while splitting.
  const RecordSpec spec = make_spec();
  std::vector<uint8_t> rec = make_records(40000, 4, [](std::mt19937& rng, int32_t xyz[3]) {
    std::uniform_int_distribution<int32_t> u(0, 2000);
    for (int i = 0; i < 3; ++i) xyz[i] = u(rng);
  });
  std::mt19937 rng(5);
  const int32_t far[3] = {200000000, 1000, 1000};
  put_record(rec, far, 99999999, rng);
  BuildRun mem, disk;
  build(mem, spec, rec, 1, 0, 500);
  build(disk, spec, rec, 2, 256u << 10, 500);
  ASSERT_TRUE(mem.ok && disk.ok) << mem.error << disk.error;
  EXPECT_GE(check_octree(disk, spec, rec, 500), 10);
  EXPECT_TRUE(mem.nodes == disk.nodes);
  EXPECT_TRUE(temp_empty());
}

TEST_F(CopcBuild, DuplicatesEndAtTheDepthCap) {
  const RecordSpec spec = make_spec();
  std::vector<uint8_t> rec;
  std::mt19937 rng(6);
  const int32_t a[3] = {5, 5, 5}, b[3] = {100000, 70000, 3};
  for (uint32_t i = 0; i < 3000; ++i) put_record(rec, i % 2 ? a : b, 7, rng);
  for (size_t at = 16; at < rec.size(); at += kRecordLength)
    std::memset(&rec[at], 0, kRecordLength - 16);  // every record of a place equal
  BuildRun mem, disk;
  build(mem, spec, rec, 2, 0, 100);
  build(disk, spec, rec, 2, 64u << 10, 100);
  ASSERT_TRUE(mem.ok && disk.ok) << mem.error << disk.error;
  const int deepest = check_octree(mem, spec, rec, 100);
  EXPECT_EQ(deepest, copc_build::make_frame(mem.cube, spec).cap);
  EXPECT_LE(deepest, 24);
  EXPECT_TRUE(mem.nodes == disk.nodes);
}

TEST_F(CopcBuild, SinglePoint) {
  const RecordSpec spec = make_spec();
  std::vector<uint8_t> rec;
  std::mt19937 rng(7);
  const int32_t p[3] = {-123456, 42, 7};
  put_record(rec, p, 1, rng);
  BuildRun r;
  build(r, spec, rec, 2, 0, 100);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.nodes.size(), 1u);
  EXPECT_EQ(r.nodes.begin()->first, std::make_tuple(0, 0, 0, 0));
  check_octree(r, spec, rec, 100);
}

TEST_F(CopcBuild, NoRecords) {
  BuildRun r;
  build(r, make_spec(), {}, 2, 4096, 100);
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.nodes.empty());
}

TEST_F(CopcBuild, FlatPlane) {
  const RecordSpec spec = make_spec(0.01);
  const std::vector<uint8_t> rec = make_records(80000, 8, [](std::mt19937& rng, int32_t xyz[3]) {
    std::uniform_int_distribution<int32_t> u(0, 50000);
    xyz[0] = u(rng);
    xyz[1] = u(rng);
    xyz[2] = 0;
  });
  BuildRun r;
  build(r, spec, rec, 2, 0, 4000);
  ASSERT_TRUE(r.ok) << r.error;
  check_octree(r, spec, rec, 4000);
  // One layer of nodes: at each level every node has the same z.
  std::map<int, std::set<int>> z_of_level;
  for (const auto& [k, v] : r.nodes) z_of_level[std::get<0>(k)].insert(std::get<3>(k));
  for (const auto& [level, zs] : z_of_level) EXPECT_EQ(zs.size(), 1u) << level;
  EXPECT_GE(z_of_level.size(), 2u);
}

TEST_F(CopcBuild, CancelAndSinkFailureRemoveTheFolder) {
  const RecordSpec spec = make_spec();
  const std::vector<uint8_t> rec = terrain(50000, 9);
  for (int disk = 0; disk < 2; ++disk) {
    BuildRun cancelled, failed;
    TestSink cancel_sink, fail_sink;
    cancel_sink.cancel_at = 2;
    fail_sink.fail_at = 3;
    build(cancelled, spec, rec, 2, disk ? 256u << 10 : 0, 500, &cancel_sink);
    EXPECT_FALSE(cancelled.ok);
    EXPECT_EQ(cancelled.error, "cancelled");
    EXPECT_TRUE(temp_empty());
    build(failed, spec, rec, 2, disk ? 256u << 10 : 0, 500, &fail_sink);
    EXPECT_FALSE(failed.ok);
    EXPECT_NE(failed.error.find("could not be written"), std::string::npos) << failed.error;
    EXPECT_TRUE(temp_empty());
  }
}

TEST_F(CopcBuild, TooLittleDiskIsSaidBeforeReading) {
  const RecordSpec spec = make_spec();
  const std::vector<uint8_t> rec = terrain(5000, 11);
  RecordSpec s = spec;
  s.bounds = world_bounds(spec, rec);
  TestSource source(s, rec, 997, uint64_t(1) << 50);  // declares 30 PiB of records
  BuildOptions o;
  o.temp_dir = temp_.string();
  o.memory_bytes = 1u << 20;
  TestSink sink;
  std::string error;
  EXPECT_FALSE(build_copc_nodes(source, octree_cube(s.bounds, 0.001), o, sink, &error));
  EXPECT_NE(error.find("not enough free disk"), std::string::npos) << error;
  EXPECT_NE(error.find(o.temp_dir), std::string::npos) << error;
  EXPECT_TRUE(sink.nodes.empty());
  EXPECT_TRUE(temp_empty());
}

TEST_F(CopcBuild, MissingTempFolderIsNamed) {
  const RecordSpec spec = make_spec();
  const std::vector<uint8_t> rec = terrain(5000, 10);
  RecordSpec s = spec;
  s.bounds = world_bounds(spec, rec);
  TestSource source(s, rec);
  BuildOptions o;
  o.temp_dir = (temp_ / "no" / "such").string();
  o.memory_bytes = 1u << 16;
  TestSink sink;
  std::string error;
  EXPECT_FALSE(build_copc_nodes(source, octree_cube(s.bounds, 0.001), o, sink, &error));
  EXPECT_NE(error.find(o.temp_dir), std::string::npos) << error;
  EXPECT_TRUE(sink.nodes.empty());
}

}  // namespace
}  // namespace pr::io
