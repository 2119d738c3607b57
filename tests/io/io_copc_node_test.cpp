// COPC node by node (CopcFile): every hierarchy page walked from the root and every node read give,
// together, exactly the cloud load_point_cloud reads from the whole file (the same float bits,
// colors and attributes), per level as many nodes as the whole-file reader counts, each node's
// points inside its cube; nodes read from several threads at once; keys; what open() refuses and
// what read_page() skips (each named once) in files damaged byte by byte; and a file that copclib
// writes with nested hierarchy pages, read as laspy reads it.
#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "engine/io/copc.h"
#include "engine/io/io.h"
#include "engine/io/open_byte_source.h"
#include "io_test_files.h"
#include "testdata.h"

#ifndef PR_TEST_PYTHON
#define PR_TEST_PYTHON ""
#endif

namespace pr {
namespace {

namespace fs = std::filesystem;
using test::file_bytes;
using test::kData;
using test::rows;

const char* const kCopcFiles[] = {"lone-star.copc.laz", "1.2-with-color.copc.laz",
                                  "simple.copc.laz", "simple_with_page.copc.laz"};

template <class T>
void put(std::vector<uint8_t>& d, size_t at, T v) {
  std::memcpy(d.data() + at, &v, sizeof v);
}
template <class T>
T get(const std::vector<uint8_t>& d, size_t at) {
  T v;
  std::memcpy(&v, d.data() + at, sizeof v);
  return v;
}

std::string key_name(const CopcKey& k) {
  return std::to_string(k.level) + "-" + std::to_string(k.x) + "-" + std::to_string(k.y) + "-" +
         std::to_string(k.z);
}

std::unique_ptr<CopcFile> open_path(const std::string& path) {
  std::string err;
  auto src = open_byte_source(path, &err);
  EXPECT_TRUE(src) << err;
  if (!src) return nullptr;
  auto f = CopcFile::open(std::move(src), &err);
  EXPECT_TRUE(f) << err;
  return f;
}

std::unique_ptr<CopcFile> open_bytes(std::vector<uint8_t> bytes, std::string* err) {
  return CopcFile::open(memory_byte_source(std::move(bytes), "mem.copc.laz"), err);
}

/// Every node with or without points, from the root page down through every child page.
struct Walk {
  std::vector<CopcEntry> nodes;
  size_t child_pages = 0;
  std::vector<std::string> warnings;
};

Walk walk(const CopcFile& f) {
  Walk w;
  std::deque<CopcPage> pages{f.root_page()};
  std::set<uint64_t> seen;
  std::string err;
  while (!pages.empty() && seen.size() < 100000) {
    const CopcPage page = pages.front();
    pages.pop_front();
    EXPECT_TRUE(seen.insert(page.offset).second) << "page at " << page.offset << " twice";
    std::vector<CopcEntry> entries;
    EXPECT_TRUE(f.read_page(page, entries, &w.warnings, &err)) << err;
    for (const CopcEntry& e : entries) {
      if (e.is_page()) {
        pages.push_back({e.offset, uint64_t(e.byte_size)});
        ++w.child_pages;
      } else {
        w.nodes.push_back(e);
      }
    }
  }
  return w;
}

/// The rows of all nodes' clouds together, each checked against its entry and its cube.
std::vector<std::string> node_rows(const CopcFile& f, const Walk& w, const glm::dvec3& origin,
                                   double scale) {
  std::vector<std::string> all;
  std::string err;
  for (const CopcEntry& e : w.nodes) {
    PointCloud c;
    if (!f.read_node(e, origin, c, &err)) {
      ADD_FAILURE() << err;
      continue;
    }
    EXPECT_EQ(c.size(), size_t(e.point_count)) << key_name(e.key);
    EXPECT_EQ(c.origin, origin);
    // Inside the node's cube, but for the file's quantization and the float positions' rounding.
    const Bounds b = f.node_bounds(e.key);
    for (size_t i = 0; i < c.size(); ++i) {
      const glm::dvec3 p(c.positions[i].x, c.positions[i].y, c.positions[i].z);
      for (int a = 0; a < 3; ++a) {
        const double tol = scale + std::abs(p[a]) * std::ldexp(1.0, -23);
        const double v = origin[a] + p[a];
        if (v < b.min[a] - tol || v > b.max[a] + tol) {
          ADD_FAILURE() << "node " << key_name(e.key) << " point " << i << " axis " << a << ": "
                        << v << " outside [" << b.min[a] << ", " << b.max[a] << "]";
          i = c.size();
          break;
        }
      }
    }
    std::vector<std::string> r = rows(c);
    all.insert(all.end(), std::make_move_iterator(r.begin()), std::make_move_iterator(r.end()));
  }
  std::sort(all.begin(), all.end());
  return all;
}

double header_scale(const std::string& path) {
  const std::vector<uint8_t> d = file_bytes(path);
  return std::max({get<double>(d, 131), get<double>(d, 139), get<double>(d, 147)});
}

/// What open() says of the file agrees with what the whole-file read says.
void expect_info_as_whole(const CopcFile& f, const FileInfo& whole, double scale) {
  const FileInfo& i = f.info();
  EXPECT_EQ(i.format, whole.format);
  EXPECT_EQ(i.points, whole.points);
  EXPECT_EQ(i.origin, whole.origin);
  EXPECT_EQ(f.origin(), whole.origin);
  EXPECT_EQ(i.has_color, whole.has_color);
  EXPECT_EQ(i.has_intensity, whole.has_intensity);
  EXPECT_EQ(i.has_classification, whole.has_classification);
  // The same version line but for the number of chunks, which only the chunk table knows.
  const size_t layered = whole.version.find("layered, ");
  ASSERT_NE(layered, std::string::npos) << whole.version;
  EXPECT_EQ(i.version.substr(0, layered), whole.version.substr(0, layered));
  EXPECT_EQ(i.version.substr(i.version.size() - 6), ", COPC") << i.version;
  EXPECT_TRUE(i.copc.present);
  EXPECT_EQ(i.copc.center, whole.copc.center);
  EXPECT_EQ(i.copc.halfsize, whole.copc.halfsize);
  EXPECT_EQ(i.copc.spacing, whole.copc.spacing);
  EXPECT_TRUE(i.copc.levels.empty());
  for (int a = 0; a < 3; ++a) {  // the header's bounds, the points' bounds
    EXPECT_NEAR(i.bounds.min[a], whole.bounds.min[a], scale);
    EXPECT_NEAR(i.bounds.max[a], whole.bounds.max[a], scale);
  }
  for (int l = 0; l < 4; ++l) EXPECT_EQ(f.node_spacing(l), whole.copc.spacing / double(1 << l));
}

TEST(IoCopcNode, EveryNodeTogetherIsTheWholeFileCloud) {
  REQUIRE_TESTDATA("laz");
  for (const char* name : kCopcFiles) {
    SCOPED_TRACE(name);
    const std::string path = kData + "/laz/" + name;
    PointCloud whole;
    FileInfo whole_info;
    std::string err;
    ASSERT_TRUE(load_point_cloud(path, whole, &whole_info, &err)) << err;
    const auto f = open_path(path);
    ASSERT_TRUE(f);
    const double scale = header_scale(path);
    expect_info_as_whole(*f, whole_info, scale);
    const Walk w = walk(*f);
    EXPECT_TRUE(w.warnings.empty()) << w.warnings.front();
    // As many nodes with points on each level as the whole-file reader counts.
    std::vector<uint32_t> per_level(whole_info.copc.levels.size(), 0);
    for (const CopcEntry& e : w.nodes) {
      if (e.point_count == 0) continue;
      ASSERT_LT(size_t(e.key.level), per_level.size());
      per_level[size_t(e.key.level)]++;
    }
    for (size_t l = 0; l < per_level.size(); ++l)
      EXPECT_EQ(per_level[l], whole_info.copc.levels[l].nodes) << "level " << l;
    const std::vector<std::string> nodes = node_rows(*f, w, f->origin(), scale);
    const std::vector<std::string> all = rows(whole);
    ASSERT_EQ(nodes.size(), all.size());
    EXPECT_TRUE(nodes == all) << "the nodes' points differ from the whole-file cloud's";
  }
  // simple_with_page's hierarchy has a child page, which the walk followed.
  const auto f = open_path(kData + "/laz/simple_with_page.copc.laz");
  ASSERT_TRUE(f);
  EXPECT_GT(walk(*f).child_pages, 0u);
}

TEST(IoCopcNode, NodesReadFromSeveralThreadsAtOnce) {
  REQUIRE_TESTDATA("laz");
  const auto f = open_path(kData + "/laz/lone-star.copc.laz");
  ASSERT_TRUE(f);
  const Walk w = walk(*f);
  ASSERT_GT(w.nodes.size(), 8u);
  std::vector<PointCloud> serial(w.nodes.size()), threaded(w.nodes.size());
  std::string err;
  for (size_t i = 0; i < w.nodes.size(); ++i)
    ASSERT_TRUE(f->read_node(w.nodes[i], f->origin(), serial[i], &err)) << err;
  constexpr size_t kThreads = 4;
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (size_t i = t; i < w.nodes.size(); i += kThreads)
        if (!f->read_node(w.nodes[i], f->origin(), threaded[i], &errors[t])) return;
    });
  for (std::thread& t : threads) t.join();
  for (const std::string& e : errors) EXPECT_TRUE(e.empty()) << e;
  for (size_t i = 0; i < w.nodes.size(); ++i)
    EXPECT_TRUE(rows(serial[i]) == rows(threaded[i])) << key_name(w.nodes[i].key);
  // Another origin moves the floats, not the points.
  PointCloud shifted;
  const glm::dvec3 other = f->origin() + glm::dvec3(10.0, -20.0, 5.0);
  ASSERT_TRUE(f->read_node(w.nodes[0], other, shifted, &err)) << err;
  ASSERT_EQ(shifted.size(), serial[0].size());
  EXPECT_EQ(shifted.origin, other);
  EXPECT_NEAR(double(shifted.positions[0].x) + other.x,
              double(serial[0].positions[0].x) + f->origin().x, 1e-3);
  // A cancelled read ends with "cancelled", naming the node.
  const std::atomic<bool> cancel{true};
  EXPECT_FALSE(f->read_node(w.nodes[0], f->origin(), shifted, &err, &cancel));
  EXPECT_NE(err.find("cancelled"), std::string::npos) << err;
  EXPECT_NE(err.find("COPC node " + key_name(w.nodes[0].key)), std::string::npos) << err;
  EXPECT_TRUE(shifted.empty());
}

TEST(IoCopcKey, ParentsChildrenAndHashes) {
  const CopcKey root;
  EXPECT_EQ(root.parent(), root);
  std::set<uint64_t> hashes;
  std::vector<CopcKey> level{root};
  size_t keys = 0;
  for (int d = 0; d < 5; ++d) {
    std::vector<CopcKey> next;
    for (const CopcKey& k : level) {
      EXPECT_TRUE(hashes.insert(k.hash()).second) << key_name(k);
      ++keys;
      for (int i = 0; i < 8; ++i) {
        const CopcKey c = k.child(i);
        EXPECT_EQ(c.level, k.level + 1);
        EXPECT_EQ(c.x, 2 * k.x + (i & 1));
        EXPECT_EQ(c.y, 2 * k.y + ((i >> 1) & 1));
        EXPECT_EQ(c.z, 2 * k.z + ((i >> 2) & 1));
        EXPECT_EQ(c.parent(), k);
        next.push_back(c);
      }
    }
    level = std::move(next);
  }
  EXPECT_EQ(hashes.size(), keys);  // 4681 keys, no two alike
  EXPECT_NE((CopcKey{1, 0, 0, 1}.hash()), (CopcKey{1, 0, 1, 0}.hash()));
}

TEST(IoCopcNode, NodeBoundsCutTheCube) {
  REQUIRE_TESTDATA("laz");
  const auto f = open_path(kData + "/laz/simple.copc.laz");
  ASSERT_TRUE(f);
  const CopcInfo& c = f->info().copc;
  const Bounds root = f->node_bounds({});
  EXPECT_EQ(root.min, c.center - glm::dvec3(c.halfsize));
  EXPECT_EQ(root.max, c.center + glm::dvec3(c.halfsize));
  const Bounds b = f->node_bounds({2, 3, 1, 0});
  const double cell = c.halfsize / 2.0;
  EXPECT_EQ(b.min, root.min + glm::dvec3(3 * cell, cell, 0.0));
  EXPECT_EQ(b.max, b.min + glm::dvec3(cell));
}

bool same_entry(const CopcEntry& a, const CopcEntry& b) {
  return a.key == b.key && a.offset == b.offset && a.byte_size == b.byte_size &&
         a.point_count == b.point_count;
}

/// A header whose bounds do not hold: the bounds open() reports and the origin come from the info
/// VLR's cube, the same origin for the node reader and the whole-file reader, and every position
/// stays finite.
TEST(IoCopcNode, OriginFromTheCubeWhenTheHeaderBoundsDoNotHold) {
  REQUIRE_TESTDATA("laz");
  const std::string path = kData + "/laz/simple.copc.laz";
  for (const double bad : {1e300, double(NAN)}) {
    SCOPED_TRACE(bad);
    std::vector<uint8_t> d = file_bytes(path);
    put<double>(d, 179, bad);  // max X
    PointCloud whole;
    FileInfo whole_info;
    std::string err;
    ASSERT_TRUE(parse_point_cloud(d.data(), d.size(), "mem.copc.laz", FileFormat::kUnknown, whole,
                                  &whole_info, &err))
        << err;
    auto f = open_bytes(d, &err);
    ASSERT_TRUE(f) << err;
    const CopcInfo& c = f->info().copc;
    const glm::dvec3 centre = glm::round(c.center);
    EXPECT_EQ(f->origin(), centre);
    EXPECT_EQ(whole.origin, centre);
    EXPECT_EQ(f->info().bounds.min, c.center - glm::dvec3(c.halfsize));
    EXPECT_EQ(f->info().bounds.max, c.center + glm::dvec3(c.halfsize));
    const Walk w = walk(*f);
    EXPECT_TRUE(node_rows(*f, w, f->origin(), header_scale(path)) == rows(whole));
    for (const Float3& p : whole.positions)
      ASSERT_TRUE(std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z));
  }
}

/// Where the info VLR's payload and the root page lie in `d`.
struct Layout {
  size_t info = 0;
  uint64_t root = 0, root_size = 0;
};

Layout copc_layout(const std::vector<uint8_t>& d) {
  Layout l;
  for (size_t p = 375; p + 54 < d.size() && !l.info; ++p)
    if (std::memcmp(&d[p + 2], "copc\0", 5) == 0 && get<uint16_t>(d, p + 18) == 1) l.info = p + 54;
  if (l.info) {
    l.root = get<uint64_t>(d, l.info + 40);
    l.root_size = get<uint64_t>(d, l.info + 48);
  }
  return l;
}

void expect_open_fails(std::vector<uint8_t> d, const std::string& words) {
  std::string err;
  EXPECT_FALSE(open_bytes(std::move(d), &err)) << words;
  EXPECT_EQ(err.rfind("mem.copc.laz: ", 0), 0u) << err;
  EXPECT_NE(err.find(words), std::string::npos) << err;
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;
}

TEST(IoCopcNode, OpenRefusesWhatIsNotCopc) {
  REQUIRE_TESTDATA("laz");
  expect_open_fails(file_bytes(kData + "/laz/autzen_trim.laz"), "not a COPC file: LAS 1.2");
  expect_open_fails(file_bytes(kData + "/las/1.2-with-color.las"), "not a COPC file: LAS 1.2");
  expect_open_fails(file_bytes(kData + "/las/test1_4.las"), "not a COPC file");
  // LAS 1.4 format 8, LAZ, but fixed chunks and no info VLR.
  expect_open_fails(file_bytes(kData + "/laz/las_with_several_extra_byte_bloc.laz"),
                    "not a COPC file");
  expect_open_fails({}, "not a COPC file: it does not start with 'LASF'");
  expect_open_fails(std::vector<uint8_t>(1000, 7),
                    "not a COPC file: it does not start with 'LASF'");
  const std::vector<uint8_t> file = file_bytes(kData + "/laz/simple_with_page.copc.laz");
  expect_open_fails({file.begin(), file.begin() + 300}, "truncated LAS 1.4 header (300 bytes");
  expect_open_fails({file.begin(), file.begin() + 900}, "bad LAS offset to point data");
  const Layout l = copc_layout(file);
  ASSERT_GT(l.info, 0u);
  std::vector<uint8_t> d = file;
  d[l.info - 52] = '_';  // the user id "copc" becomes "_opc"
  expect_open_fails(d, "no COPC info VLR");
  d = file;
  put<uint64_t>(d, l.info + 40, file.size() - 16);
  expect_open_fails(d, "root COPC hierarchy page");
  d = file;
  put<uint64_t>(d, l.info + 48, l.root_size + 1);
  expect_open_fails(d, "not a whole number of 32-byte entries");
  d = file;
  put<double>(d, l.info + 24, -1.0);  // half size
  expect_open_fails(d, "COPC info VLR's cube");
  d = file;
  put<uint16_t>(d, 94, 227);  // a LAS 1.0 - 1.3 header's size
  expect_open_fails(d, "not a COPC file: a LAS header of 227 bytes");
  d = file;
  d[104] = 0x80 | 3;  // point format 3, compressed
  expect_open_fails(d, "not a COPC file: point format 3");
}

/// The root page's entries of simple_with_page.copc.laz, patched: each case names an entry that
/// read_page must skip with a one-line warning saying why.
TEST(IoCopcNode, DamagedEntriesAreSkippedAndNamedOnce) {
  REQUIRE_TESTDATA("laz");
  const std::vector<uint8_t> file = file_bytes(kData + "/laz/simple_with_page.copc.laz");
  const Layout l = copc_layout(file);
  ASSERT_GT(l.root_size, 32u * 6);
  std::string err;
  auto sound = open_bytes(file, &err);
  ASSERT_TRUE(sound) << err;
  std::vector<CopcEntry> original;
  ASSERT_TRUE(sound->read_page(sound->root_page(), original, nullptr, &err)) << err;
  ASSERT_EQ(original.size(), l.root_size / 32);
  // Entries 1 - 5 each damaged one way (entry 0 stays sound); where each lies in the file:
  auto at = [&](size_t entry, size_t field) { return size_t(l.root) + 32 * entry + field; };
  std::vector<uint8_t> d = file;
  put<uint64_t>(d, at(1, 16), file.size() - 8);               // bytes past the file's end
  put<int32_t>(d, at(2, 24), -5);                             // a negative size
  put<int32_t>(d, at(3, 28), -2);                             // a count below -1
  put<int32_t>(d, at(4, 4), 1 << get<int32_t>(d, at(4, 0)));  // x outside its level
  put<int32_t>(d, at(5, 0), 31);                              // a level too deep
  const char* reasons[] = {"bytes outside the point data", "a negative byte size",
                           "a point count below -1", "a cell outside its level",
                           "a level outside 0 - 30"};
  auto damaged = open_bytes(d, &err);
  ASSERT_TRUE(damaged) << err;
  std::vector<CopcEntry> entries;
  std::vector<std::string> warnings;
  ASSERT_TRUE(damaged->read_page(damaged->root_page(), entries, &warnings, &err)) << err;
  EXPECT_EQ(entries.size(), original.size() - 5);
  ASSERT_EQ(warnings.size(), 5u);
  for (size_t k = 0; k < 5; ++k) {
    const CopcEntry e = original[k + 1];
    EXPECT_EQ(warnings[k].rfind("mem.copc.laz: COPC hierarchy entry ", 0), 0u) << warnings[k];
    EXPECT_NE(warnings[k].find(reasons[k]), std::string::npos) << warnings[k];
    EXPECT_EQ(warnings[k].find('\n'), std::string::npos) << warnings[k];
    if (k != 3 && k != 4) {  // the key itself is what is wrong there
      EXPECT_NE(warnings[k].find(key_name(e.key)), std::string::npos) << warnings[k];
    }
  }
  EXPECT_TRUE(same_entry(entries[0], original[0]));
  for (size_t k = 6; k < original.size(); ++k) EXPECT_TRUE(same_entry(entries[k - 5], original[k]));
}

TEST(IoCopcNode, ChildPagesThatCannotBeRightAreSkipped) {
  REQUIRE_TESTDATA("laz");
  const std::vector<uint8_t> file = file_bytes(kData + "/laz/simple_with_page.copc.laz");
  const Layout l = copc_layout(file);
  size_t child = SIZE_MAX;
  for (size_t e = 0; e < l.root_size / 32 && child == SIZE_MAX; ++e)
    if (get<int32_t>(file, size_t(l.root) + 32 * e + 28) == -1) child = size_t(l.root) + 32 * e;
  ASSERT_NE(child, SIZE_MAX) << "simple_with_page has a child page";
  for (int k = 0; k < 2; ++k) {
    std::vector<uint8_t> d = file;
    if (k == 0) put<int32_t>(d, child + 24, get<int32_t>(file, child + 24) + 5);
    if (k == 1) put<uint64_t>(d, child + 16, file.size());
    std::string err;
    auto f = open_bytes(d, &err);
    ASSERT_TRUE(f) << err;
    std::vector<CopcEntry> entries;
    std::vector<std::string> warnings;
    ASSERT_TRUE(f->read_page(f->root_page(), entries, &warnings, &err)) << err;
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find(k == 0 ? "child page of no whole number" : "child page outside"),
              std::string::npos)
        << warnings[0];
    for (const CopcEntry& e : entries) EXPECT_FALSE(e.is_page());
  }
}

TEST(IoCopcNode, NodeHoldingOtherThanItsCountFailsNamingIt) {
  REQUIRE_TESTDATA("laz");
  const std::vector<uint8_t> file = file_bytes(kData + "/laz/simple_with_page.copc.laz");
  const Layout l = copc_layout(file);
  size_t node = SIZE_MAX;  // the first entry with points
  for (size_t e = 0; e < l.root_size / 32 && node == SIZE_MAX; ++e)
    if (get<int32_t>(file, size_t(l.root) + 32 * e + 28) > 0) node = size_t(l.root) + 32 * e;
  ASSERT_NE(node, SIZE_MAX);
  const int32_t count = get<int32_t>(file, node + 28), bytes = get<int32_t>(file, node + 24);
  const uint64_t offset = get<uint64_t>(file, node + 16);
  struct Case {
    const char* what;
    int32_t count, bytes;
    bool zero_chunk;
  } cases[] = {{"one point more than the chunk holds", count + 1, bytes, false},
               {"one point fewer", count - 1, bytes, false},
               {"half its bytes", count, bytes / 2, false},
               {"a chunk of zeros", count, bytes, true}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    std::vector<uint8_t> d = file;
    put<int32_t>(d, node + 28, c.count);
    put<int32_t>(d, node + 24, c.bytes);
    if (c.zero_chunk) std::fill(d.begin() + long(offset), d.begin() + long(offset) + bytes, 0);
    std::string err;
    auto f = open_bytes(d, &err);
    ASSERT_TRUE(f) << err;
    std::vector<CopcEntry> entries;
    ASSERT_TRUE(f->read_page(f->root_page(), entries, nullptr, &err)) << err;
    const auto e = std::find_if(entries.begin(), entries.end(),
                                [&](const CopcEntry& x) { return x.offset == offset; });
    ASSERT_NE(e, entries.end());
    PointCloud cloud;
    cloud.resize(3);
    EXPECT_FALSE(f->read_node(*e, f->origin(), cloud, &err));
    EXPECT_TRUE(cloud.empty());
    EXPECT_EQ(err.rfind("mem.copc.laz: COPC node " + key_name(e->key) + " (offset " +
                            std::to_string(offset) + ", " + std::to_string(c.bytes) + " bytes, " +
                            std::to_string(c.count) + " points): ",
                        0),
              0u)
        << err;
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  }
}

TEST(IoCopcNode, PagesOfNoWholeEntriesOrOutsideTheFileFail) {
  REQUIRE_TESTDATA("laz");
  const std::vector<uint8_t> file = file_bytes(kData + "/laz/simple.copc.laz");
  std::string err;
  auto f = open_bytes(file, &err);
  ASSERT_TRUE(f) << err;
  const CopcPage root = f->root_page();
  std::vector<CopcEntry> entries{CopcEntry{}};
  EXPECT_FALSE(f->read_page({root.offset, 33}, entries, nullptr, &err));
  EXPECT_EQ(err, "mem.copc.laz: COPC hierarchy page (offset " + std::to_string(root.offset) +
                     ", 33 bytes) is not a whole number of 32-byte entries");
  EXPECT_TRUE(entries.empty());
  EXPECT_FALSE(f->read_page({file.size() - 32, 64}, entries, nullptr, &err));
  EXPECT_NE(err.find("lies outside the file"), std::string::npos) << err;
  EXPECT_FALSE(f->read_page({UINT64_MAX - 10, 32}, entries, nullptr, &err));
  EXPECT_FALSE(f->read_page({32, UINT64_MAX - 31}, entries, nullptr, &err));
  EXPECT_TRUE(f->read_page({root.offset, 0}, entries, nullptr, &err)) << err;
  EXPECT_TRUE(entries.empty());
  EXPECT_FALSE(parse_copc_page(file.data(), 65, 0, file.size(), entries, nullptr, &err));
  EXPECT_NE(err.find("65 bytes"), std::string::npos) << err;
}

/// Whatever bytes a page holds, what read_page keeps can be followed safely: keys inside their
/// level, nodes' and pages' bytes inside the file.
TEST(IoCopcNode, GarbagePagesGiveOnlyEntriesThatHold) {
  REQUIRE_TESTDATA("laz");
  const std::vector<uint8_t> file = file_bytes(kData + "/laz/lone-star.copc.laz");
  std::string err;
  auto f = open_bytes(file, &err);
  ASSERT_TRUE(f) << err;
  std::mt19937_64 rng(27);
  std::vector<uint8_t> noise(32 * 512);
  size_t kept = 0;
  for (int round = 0; round < 200; ++round) {
    std::vector<CopcEntry> entries;
    std::vector<std::string> warnings;
    if (round % 2) {  // compressed points read as entries
      const uint64_t at = 1000 + rng() % (file.size() - 2000 - 32 * 64);
      ASSERT_TRUE(f->read_page({at, 32 * 64}, entries, &warnings, &err)) << err;
    } else {  // random bytes, half of them small numbers so that some entries pass
      for (size_t i = 0; i < noise.size(); ++i) noise[i] = uint8_t(rng() % (i % 4 ? 4 : 256));
      ASSERT_TRUE(
          parse_copc_page(noise.data(), noise.size(), 1000, file.size(), entries, &warnings, &err));
    }
    EXPECT_LE(warnings.size(), 9u);
    for (const CopcEntry& e : entries) {
      ASSERT_GE(e.key.level, 0);
      ASSERT_LE(e.key.level, 30);
      const int64_t cells = int64_t(1) << e.key.level;
      ASSERT_TRUE(e.key.x >= 0 && e.key.y >= 0 && e.key.z >= 0 && e.key.x < cells &&
                  e.key.y < cells && e.key.z < cells);
      ASSERT_GE(e.point_count, -1);
      ASSERT_GE(e.byte_size, 0);
      if (e.is_page() || e.point_count > 0) {
        ASSERT_GE(e.offset, 1000u);
        ASSERT_LE(e.offset + uint64_t(e.byte_size), file.size());
        ASSERT_GT(e.byte_size, 0);
      }
      if (e.is_page()) {
        ASSERT_EQ(e.byte_size % 32, 0);
      }
      // A node with points decodes or fails with a message, never more points than it says.
      if (e.point_count > 0 && kept++ < 50) {
        PointCloud c;
        if (f->read_node(e, f->origin(), c, &err)) {
          EXPECT_LE(c.size(), size_t(e.point_count));
        }
      }
    }
  }
}

/// Runs `command`; its output in `out`.
bool run(const std::string& command, std::string& out) {
  const fs::path log =
      fs::temp_directory_path() / ("pr_copc_" + std::to_string(::getpid()) + ".log");
  const int rc = std::system((command + " > " + log.string() + " 2>&1").c_str());
  std::ifstream in(log);
  out.assign(std::istreambuf_iterator<char>(in), {});
  fs::remove(log);
  return rc == 0;
}

/// laspy's reading of a file (make_copc.py --dump) as the rows the cloud of its points gives at
/// `origin`: positions from the integers, 16-bit colors' high bytes, the attributes.
std::vector<std::string> laspy_rows(const std::string& dump, const glm::dvec3& origin) {
  const std::vector<uint8_t> d = file_bytes(dump);
  const uint64_t n = get<uint64_t>(d, 0);
  double scale[3], offset[3];
  for (int a = 0; a < 3; ++a) {
    scale[a] = get<double>(d, 8 + 8 * size_t(a));
    offset[a] = get<double>(d, 32 + 8 * size_t(a));
  }
  size_t at = 56;
  auto column = [&](size_t bytes) {
    const size_t begin = at;
    at += bytes * n;
    return begin;
  };
  const size_t X = column(4), Y = column(4), Z = column(4), R = column(2), G = column(2),
               B = column(2), I = column(2), C = column(1), RN = column(1), NR = column(1),
               S = column(2), T = column(8);
  EXPECT_EQ(at, d.size());
  PointCloud c;
  c.resize(n);
  c.intensity.resize(n), c.classification.resize(n), c.returns.resize(n);
  c.point_source.resize(n), c.gps_time.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const int32_t xyz[3] = {get<int32_t>(d, X + 4 * i), get<int32_t>(d, Y + 4 * i),
                            get<int32_t>(d, Z + 4 * i)};
    float p[3];
    for (int a = 0; a < 3; ++a) p[a] = float(double(xyz[a]) * scale[a] + offset[a] - origin[a]);
    c.positions[i] = Float3{p[0], p[1], p[2]};
    c.colors[i] =
        rgba(uint8_t(get<uint16_t>(d, R + 2 * i) >> 8), uint8_t(get<uint16_t>(d, G + 2 * i) >> 8),
             uint8_t(get<uint16_t>(d, B + 2 * i) >> 8));
    c.intensity[i] = float(get<uint16_t>(d, I + 2 * i));
    c.classification[i] = d[C + i];
    c.returns[i] = pack_returns(d[RN + i], d[NR + i]);
    c.point_source[i] = get<uint16_t>(d, S + 2 * i);
    c.gps_time[i] = get<double>(d, T + 8 * i);
  }
  return rows(c);
}

TEST(IoCopcNode, CopclibFileWithNestedPagesAsLaspyReadsIt) {
  const std::string python = PR_TEST_PYTHON;
  if (python.empty())
    GTEST_SKIP() << "no Python with copclib and laspy (configure with -DPR_TEST_PYTHON=...)";
  const fs::path dir = fs::temp_directory_path() / ("pr_copc_node_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string script = (fs::path(__FILE__).parent_path() / "make_copc.py").string();
  const std::string copc = (dir / "made.copc.laz").string(), dump = (dir / "laspy.bin").string();
  std::string out;
  ASSERT_TRUE(run(python + " " + script + " " + copc + " --seed 7 --dump " + dump, out)) << out;
  std::istringstream lines(out);
  std::vector<uint32_t> levels;
  size_t pages = 0;
  uint64_t points = 0;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string what;
    words >> what;
    if (what == "levels")
      for (uint32_t n; words >> n;) levels.push_back(n);
    if (what == "pages") words >> pages;
    if (what == "points") words >> points;
  }
  ASSERT_GT(levels.size(), 3u) << out;
  ASSERT_GT(pages, 4u) << out;
  const auto f = open_path(copc);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->info().points, points);
  EXPECT_NE(f->origin(), glm::dvec3(0.0));
  const Walk w = walk(*f);
  EXPECT_TRUE(w.warnings.empty()) << w.warnings.front();
  EXPECT_EQ(w.child_pages, pages);
  std::vector<uint32_t> per_level(levels.size(), 0);
  for (const CopcEntry& e : w.nodes) {
    ASSERT_LT(size_t(e.key.level), per_level.size());
    per_level[size_t(e.key.level)]++;
  }
  EXPECT_EQ(per_level, levels);
  const std::vector<std::string> nodes = node_rows(*f, w, f->origin(), 0.01);
  ASSERT_EQ(nodes.size(), points);
  EXPECT_TRUE(nodes == laspy_rows(dump, f->origin())) << "the nodes' points differ from laspy's";
  PointCloud whole;
  FileInfo info;
  std::string err;
  ASSERT_TRUE(load_point_cloud(copc, whole, &info, &err)) << err;
  EXPECT_EQ(whole.origin, f->origin());
  EXPECT_TRUE(nodes == rows(whole)) << "the nodes' points differ from the whole-file cloud's";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pr
