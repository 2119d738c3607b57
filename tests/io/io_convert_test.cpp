// Conversion to COPC, LAZ and LAS (convert_point_clouds, save_point_cloud): the test data's files
// of every format, alone and merged, converted to the three outputs. The LAS output read back
// (load_point_cloud) gives the input's points in the input's order, positions within half the
// output's scale (identical integers when the scale and offset are kept), and the input's
// attributes; the LAZ and COPC outputs hold the LAS output's records, byte for byte, as a
// multiset; the COPC file read node by node (CopcFile) gives the whole-file cloud, each node's
// points inside its cube. Then copclib and laspy (lazrs and laszip) read the same records
// (check_copc.py). Bad input, cancel and an output in a missing folder leave no file behind.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "engine/io/base/bytes.h"
#include "engine/io/convert.h"
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
using io::get_le;
using test::file_bytes;
using test::kData;
using test::rows;

/// A fresh folder for one test's outputs, removed at the end.
struct TempDir {
  fs::path path;
  explicit TempDir(const char* name) {
    path = fs::temp_directory_path() /
           ("pr_convert_" + std::string(name) + "_" + std::to_string(::getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string operator/(const char* f) const { return (path / f).string(); }
  /// The names of the files the folder holds.
  std::vector<std::string> files() const {
    std::vector<std::string> r;
    for (const auto& e : fs::directory_iterator(path)) r.push_back(e.path().filename().string());
    std::sort(r.begin(), r.end());
    return r;
  }
};

/// A LAS or LAZ file's point records (record_length bytes each, in file order).
std::vector<std::string> records(const std::string& path, size_t* record_length = nullptr) {
  std::vector<uint8_t> bytes;
  size_t rec = 0;
  const std::vector<uint8_t> d = file_bytes(path);
  EXPECT_GE(d.size(), 227u) << path;
  if (d.size() < 227) return {};
  if ((d[104] & 0xC0) == 0) {
    rec = get_le<uint16_t>(&d[105]);
    const uint32_t offset = get_le<uint32_t>(&d[96]);
    uint64_t n = get_le<uint32_t>(&d[107]);
    if (d[25] >= 4 && n == 0) n = get_le<uint64_t>(&d[247]);
    bytes.assign(d.begin() + offset, d.begin() + ptrdiff_t(offset + n * rec));
  } else {
    std::string err;
    EXPECT_TRUE(decompress_laz(path, bytes, &rec, &err)) << err;
  }
  if (record_length) *record_length = rec;
  std::vector<std::string> r;
  for (size_t at = 0; rec && at + rec <= bytes.size(); at += rec)
    r.emplace_back(reinterpret_cast<const char*>(bytes.data() + at), rec);
  return r;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

PointCloud load(const std::string& path) {
  PointCloud c;
  std::string err;
  EXPECT_TRUE(load_point_cloud(path, c, nullptr, &err)) << err;
  return c;
}

glm::dvec3 world(const PointCloud& c, size_t i) {
  return c.origin + glm::dvec3(c.positions[i].x, c.positions[i].y, c.positions[i].z);
}

/// LAS intensities of a cloud's: integers within 0-65535 as they are, other values spread
/// linearly from their range over 0-65535.
std::vector<float> las_intensities(const PointCloud& c) {
  float lo = INFINITY, hi = -INFINITY;
  bool integers = true;
  for (const float v : c.intensity) {
    lo = std::min(lo, v), hi = std::max(hi, v);
    integers = integers && v == std::round(v);
  }
  const bool keep = (integers && lo >= 0.0f && hi <= 65535.0f) || lo == hi;
  std::vector<float> r;
  for (const float v : c.intensity)
    r.push_back(keep ? std::clamp(std::round(v), 0.0f, 65535.0f)
                     : float(std::round((double(v) - lo) * 65535.0 / (double(hi) - lo))));
  return r;
}

/// The input cloud `in` and the LAS output's cloud `out` hold the same points in the same order:
/// positions within half the output's scale (and the floats' rounding), the input's attributes.
void expect_same_points(const PointCloud& in, const PointCloud& out, const glm::dvec3& scale,
                        const std::string& what) {
  ASSERT_EQ(in.size(), out.size()) << what;
  const std::vector<float> intensity = las_intensities(in);
  size_t bad = 0;
  for (size_t i = 0; i < in.size() && bad < 5; ++i) {
    const glm::dvec3 a = world(in, i), b = world(out, i);
    for (int k = 0; k < 3; ++k) {
      const double tol = 0.5 * scale[k] + 1e-7 * (std::abs(a[k] - in.origin[k]) + 1.0) +
                         1e-7 * (std::abs(b[k] - out.origin[k]) + 1.0);
      if (std::abs(a[k] - b[k]) > tol) {
        ADD_FAILURE() << what << ": point " << i << " axis " << k << ": " << a[k] << " vs " << b[k];
        ++bad;
      }
    }
    auto expect = [&](bool same, const char* field) {
      if (!same) ADD_FAILURE() << what << ": point " << i << ": " << field << " differs", ++bad;
    };
    expect((in.colors[i] & 0xFFFFFF) == (out.colors[i] & 0xFFFFFF), "color");
    if (in.has_intensity()) expect(intensity[i] == out.intensity[i], "intensity");
    if (!in.classification.empty()) expect(in.classification[i] == out.classification[i], "class");
    if (!in.returns.empty()) expect(in.returns[i] == out.returns[i], "returns");
    if (!in.point_source.empty()) expect(in.point_source[i] == out.point_source[i], "source");
    if (!in.gps_time.empty()) expect(in.gps_time[i] == out.gps_time[i], "GPS time");
    for (const ScalarField& f : in.fields) {
      const ScalarField* g = out.field(f.name);
      expect(g && g->values[i] == f.values[i], "a named field");
    }
  }
}

/// A COPC file read node by node (every page from the root) gives the whole-file cloud, each
/// node's points inside its cube; returns the child pages walked.
size_t expect_nodes_make_the_cloud(const std::string& path) {
  std::string err;
  auto src = open_byte_source(path, &err);
  EXPECT_TRUE(src) << err;
  if (!src) return 0;
  const auto f = CopcFile::open(std::move(src), &err);
  EXPECT_TRUE(f) << err;
  if (!f) return 0;
  std::deque<CopcPage> pages{f->root_page()};
  std::vector<std::string> all;
  size_t child_pages = 0;
  while (!pages.empty()) {
    std::vector<CopcEntry> entries;
    std::vector<std::string> warnings;
    EXPECT_TRUE(f->read_page(pages.front(), entries, &warnings, &err)) << err;
    EXPECT_TRUE(warnings.empty()) << warnings.front();
    pages.pop_front();
    for (const CopcEntry& e : entries) {
      if (e.is_page()) {
        pages.push_back({e.offset, uint64_t(e.byte_size)});
        ++child_pages;
        continue;
      }
      if (e.point_count == 0) continue;
      PointCloud c;
      EXPECT_TRUE(f->read_node(e, f->origin(), c, &err)) << err;
      EXPECT_EQ(c.size(), size_t(e.point_count));
      const Bounds b = f->node_bounds(e.key);
      for (size_t i = 0; i < c.size(); ++i) {
        const glm::dvec3 p = world(c, i);
        for (int a = 0; a < 3; ++a) {
          // The float positions' rounding (2^-24 of their magnitude) on top of the cube's.
          const double local = std::abs(double((&c.positions[i].x)[a]));
          const double tol = 1e-6 * (std::abs(p[a]) + 1.0) + local * std::ldexp(1.0, -23);
          EXPECT_TRUE(p[a] >= b.min[a] - tol && p[a] <= b.max[a] + tol)
              << path << " node " << e.key.level << "-" << e.key.x << "-" << e.key.y << "-"
              << e.key.z << " point " << i << " axis " << a;
        }
      }
      const std::vector<std::string> r = rows(c);
      all.insert(all.end(), r.begin(), r.end());
    }
  }
  std::sort(all.begin(), all.end());
  EXPECT_TRUE(all == rows(load(path))) << path << ": the nodes differ from the whole-file cloud";
  return child_pages;
}

bool convert(const std::vector<std::string>& inputs, const std::string& out, ConvertResult* r,
             std::string* err, ConvertProgress* progress = nullptr) {
  ConvertOptions o;
  o.threads = 2;
  return convert_point_clouds(inputs, out, o, progress, r, err);
}

/// Runs check_copc.py on the outputs (skipped without a Python).
void check_with_python(const std::string& las, const std::string& copc, const std::string& laz) {
  const std::string python = PR_TEST_PYTHON;
  if (python.empty()) return;
  const std::string script = (fs::path(__FILE__).parent_path() / "check_copc.py").string();
  const std::string log = las + ".log";
  const std::string command = python + " " + script + " " + las + " --copc " + copc + " --laz " +
                              laz + " > " + log + " 2>&1";
  const int rc = std::system(command.c_str());
  std::ifstream in(log);
  const std::string out{std::istreambuf_iterator<char>(in), {}};
  EXPECT_EQ(rc, 0) << out;
}

/// Converts `inputs` to .las, .laz and .copc.laz and checks them against each other and against
/// the inputs read whole (one input: point by point in order; several: as a multiset of rows).
ConvertResult convert_three(const std::vector<std::string>& inputs, const TempDir& dir,
                            bool python = false) {
  const std::string las = dir / "out.las", laz = dir / "out.laz", copc = dir / "out.copc.laz";
  ConvertResult rl, rz, rc;
  std::string err;
  EXPECT_TRUE(convert(inputs, las, &rl, &err)) << err;
  EXPECT_TRUE(convert(inputs, laz, &rz, &err)) << err;
  EXPECT_TRUE(convert(inputs, copc, &rc, &err)) << err;
  if (::testing::Test::HasFailure()) return rl;
  EXPECT_EQ(dir.files(), (std::vector<std::string>{"out.copc.laz", "out.las", "out.laz"}));
  PointCloud in;
  for (const std::string& p : inputs) append_cloud(in, load(p));
  const PointCloud out = load(las);
  if (inputs.size() == 1) expect_same_points(in, out, rl.scale, inputs[0]);
  EXPECT_EQ(rl.points, in.size());
  EXPECT_EQ(rc.points, in.size());
  EXPECT_EQ(rz.points, in.size());
  const std::vector<std::string> ref = sorted(records(las));
  EXPECT_EQ(ref.size(), in.size());
  EXPECT_TRUE(sorted(records(laz)) == ref) << "the LAZ output's records differ from the LAS's";
  EXPECT_TRUE(sorted(records(copc)) == ref) << "the COPC output's records differ from the LAS's";
  EXPECT_EQ(rc.point_format, rl.point_format);
  EXPECT_GE(rc.nodes, 1u);
  EXPECT_GE(rc.levels, 1);
  expect_nodes_make_the_cloud(copc);
  if (python) check_with_python(las, copc, laz);
  return rl;
}

TEST(IoConvert, LasFilesOfEveryFormatKeepTheirIntegers) {
  REQUIRE_TESTDATA("las");
  struct Case {
    const char* file;
    int format;  // of the output
  } cases[] = {{"las/1.0_0.las", 6},
               {"las/1.2_1.las", 6},
               {"las/1.2_2.las", 7},
               {"las/1.2_3.las", 7},
               {"las/simple.las", 7},
               {"las/simple1_3.las", 6},
               {"las/test1_4.las", 6},
               {"las/extrabytes.las", 7},
               {"laz/simple.laz", 7},
               {"laz/extra.laz", 7},
               {"laz/fullwave.laz", 8},
               {"laz/1.2-with-color.copc.laz", 7},
               {"laz/simple-laszip-compressor-version-1.2r0.laz", 7}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    TempDir dir("las");
    const std::string in = kData + "/" + c.file;
    const ConvertResult r = convert_three({in}, dir, c.format == 8);
    EXPECT_EQ(r.point_format, c.format);
    EXPECT_TRUE(r.scale_from_input);
    size_t in_rec = 0;
    const std::vector<std::string> a = records(in, &in_rec), b = records(dir / "out.las");
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i].substr(0, 12), b[i].substr(0, 12)) << i;
    // Formats 6-8 records stay byte for byte (format 10's wave packets are left out).
    const uint8_t in_format = file_bytes(in)[104] & 0x3F;
    if (in_format == c.format) {
      for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], b[i]) << i;
    }
  }
}

TEST(IoConvert, OtherFormatsAsRecords) {
  REQUIRE_TESTDATA("");
  const char* files[] = {"ply/text_extradim.ply",
                         "ply/simple_binary.ply",
                         "pcd/colored_cloud.pcd",
                         "pcd/autzen-utm.pcd",
                         "pts/bunny_8.pts",
                         "text/data.xyz",
                         "e57/A_B.e57"};
  for (const char* f : files) {
    SCOPED_TRACE(f);
    TempDir dir("other");
    const ConvertResult r = convert_three({kData + "/" + f}, dir);
    EXPECT_FALSE(r.scale_from_input);
    EXPECT_EQ(r.scale, glm::dvec3(0.001));
    ASSERT_FALSE(r.messages.empty());
  }
}

TEST(IoConvert, SeveralInputsMerge) {
  REQUIRE_TESTDATA("");
  {
    // The same scale and offset: kept.
    TempDir dir("merge_las");
    const ConvertResult r =
        convert_three({kData + "/las/simple.las", kData + "/laz/simple.laz"}, dir);
    EXPECT_TRUE(r.scale_from_input);
    EXPECT_EQ(r.points, 2130u);
  }
  {
    // Offsets differ: chosen from the bounds, and said.
    TempDir dir("merge_mixed");
    const ConvertResult r = convert_three({kData + "/laz/simple.copc.laz", kData + "/las/1.2_0.las",
                                           kData + "/ply/text_extradim.ply"},
                                          dir, true);
    EXPECT_FALSE(r.scale_from_input);
    EXPECT_EQ(r.point_format, 7);
    EXPECT_GT(r.extra_bytes, 0);  // the PLY's named fields, as floats
  }
  {
    // A folder: its point-cloud files, sorted.
    TempDir dir("merge_folder");
    const fs::path folder = dir.path / "in";
    fs::create_directories(folder);
    fs::create_symlink(kData + "/las/simple.las", folder / "b.las");
    fs::create_symlink(kData + "/laz/extra.laz", folder / "a.laz");
    std::ofstream(folder / "notes.md") << "not a cloud\n";
    ConvertResult r;
    std::string err;
    ASSERT_TRUE(convert({folder.string()}, dir / "f.las", &r, &err)) << err;
    const std::vector<std::string> a = records(kData + "/laz/extra.laz"),
                                   b = records(kData + "/las/simple.las"),
                                   out = records(dir / "f.las");
    ASSERT_EQ(out.size(), a.size() + b.size());
    // extra.laz (a.laz) first; its extra bytes and simple.las's (none) differ: as floats.
    EXPECT_EQ(out[0].substr(0, 12), a[0].substr(0, 12));
    EXPECT_EQ(out[a.size()].substr(0, 12), b[0].substr(0, 12));
    // Converted into itself, twice: the second conversion does not read the first's output.
    const std::string inside = (folder / "merged.las").string();
    for (int k = 0; k < 2; ++k) {
      ASSERT_TRUE(convert({folder.string()}, inside, &r, &err)) << err;
      EXPECT_EQ(r.points, out.size());
    }
  }
}

// LAS tiles of the output's format, scale and offset are read straight from their maps (no
// translation): cut in two, a file converts to the COPC of the whole, node for node.
TEST(IoConvert, TilesOfOneFormatMergeAsTheWholeFile) {
  REQUIRE_TESTDATA("las");
  TempDir dir("tiles");
  const std::string whole = dir / "whole.las";
  ConvertResult r;
  std::string err;
  ASSERT_TRUE(convert({kData + "/las/autzen_trim.las"}, whole, &r, &err)) << err;
  ASSERT_EQ(r.point_format, 7);
  // Two tiles: the header and VLRs each, the records split at 40%, no EVLRs.
  const std::vector<uint8_t> bytes = file_bytes(whole);
  const uint32_t offset = get_le<uint32_t>(&bytes[96]);
  const uint16_t rl = get_le<uint16_t>(&bytes[105]);
  const uint64_t n = get_le<uint64_t>(&bytes[247]), cut = n * 2 / 5;
  const std::string tiles[2] = {dir / "a.las", dir / "b.las"};
  for (int t = 0; t < 2; ++t) {
    const uint64_t first = t == 0 ? 0 : cut, count = t == 0 ? cut : n - cut;
    std::vector<uint8_t> h(bytes.begin(), bytes.begin() + offset);
    const uint32_t legacy = uint32_t(count);
    std::memcpy(&h[107], &legacy, 4);
    std::memcpy(&h[247], &count, 8);
    std::memset(&h[235], 0, 12);  // EVLR start and count
    std::ofstream out(tiles[t], std::ios::binary);
    out.write(reinterpret_cast<const char*>(h.data()), long(h.size()));
    out.write(reinterpret_cast<const char*>(&bytes[offset + first * rl]), long(count * rl));
  }
  ConvertResult rw, rt;
  ASSERT_TRUE(convert({whole}, dir / "whole.copc.laz", &rw, &err)) << err;
  ASSERT_TRUE(convert({tiles[0], tiles[1]}, dir / "tiles.copc.laz", &rt, &err)) << err;
  EXPECT_TRUE(rt.scale_from_input);
  EXPECT_EQ(rt.points, n);
  EXPECT_GT(rw.nodes, 1u);
  EXPECT_EQ(rt.nodes, rw.nodes);
  EXPECT_EQ(rt.levels, rw.levels);
  EXPECT_TRUE(sorted(records(dir / "tiles.copc.laz")) == sorted(records(whole)));
  expect_nodes_make_the_cloud(dir / "tiles.copc.laz");
}

TEST(IoConvert, SavePointCloudRoundTrips) {
  PointCloud c;
  const size_t n = 5000;
  c.origin = glm::dvec3(500000.0, 4000000.0, 100.0);
  c.resize(n);
  c.intensity.resize(n);
  c.classification.resize(n);
  c.fields.push_back(ScalarField{"curvature", {}});
  c.fields[0].values.resize(n);
  std::mt19937 rng(5);
  for (size_t i = 0; i < n; ++i) {
    // Multiples of 1/8: exact as floats and as integers of scale 0.001.
    c.positions[i] =
        Float3{float(rng() % 8000) / 8.0f, float(rng() % 8000) / 8.0f, float(rng() % 800) / 8.0f};
    c.colors[i] = rgba(uint8_t(rng()), uint8_t(rng()), uint8_t(rng()));
    c.intensity[i] = float(rng() % 65536);
    c.classification[i] = uint8_t(rng() % 20);
    c.fields[0].values[i] = float(rng() % 1000) / 7.0f;
  }
  TempDir dir("save");
  for (const char* name : {"s.copc.laz", "s.laz", "s.las"}) {
    ConvertResult r;
    std::string err;
    ASSERT_TRUE(save_point_cloud(c, dir / name, ConvertOptions{}, nullptr, &r, &err)) << err;
    EXPECT_EQ(r.points, n);
    EXPECT_EQ(r.point_format, 7);
    EXPECT_EQ(r.extra_bytes, 4);
    const PointCloud back = load(dir / name);
    ASSERT_EQ(back.size(), n);
    // Rows of world positions (exact here), colors, intensity, class and the field.
    auto world_rows = [](const PointCloud& p) {
      std::vector<std::string> v;
      for (size_t i = 0; i < p.size(); ++i) {
        const glm::dvec3 w = world(p, i);
        char b[200];
        std::snprintf(b, sizeof b, "%.3f %.3f %.3f %08x %g %d %g", w.x, w.y, w.z,
                      p.colors[i] & 0xFFFFFF, double(p.intensity[i]), p.classification[i],
                      double(p.field("curvature")->values[i]));
        v.push_back(b);
      }
      std::sort(v.begin(), v.end());
      return v;
    };
    EXPECT_TRUE(world_rows(back) == world_rows(c)) << name;
  }
}

TEST(IoConvert, DeepTreeHasChildPages) {
  // 120,000 points in a 10 m cube and 100 spread over 100 km: the nodes over the cube split down
  // a dozen levels (a node keeps one point per cell of its 128^3 grid, a leaf up to 100,000),
  // deeper than a hierarchy page reaches.
  PointCloud c;
  const size_t n = 120100;
  c.origin = glm::dvec3(500000.0, 4000000.0, 0.0);
  c.resize(n);
  c.gps_time.resize(n);
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> near(0.0f, 10.0f), far(-50000.0f, 50000.0f);
  for (size_t i = 0; i < n; ++i) {
    c.positions[i] = i < 120000 ? Float3{near(rng), near(rng), near(rng)}
                                : Float3{far(rng), far(rng), far(rng) * 0.01f};
    c.colors[i] = rgba(255, 255, 255);
    c.gps_time[i] = double(i) * 0.25;
  }
  TempDir dir("deep");
  ConvertResult r;
  std::string err;
  ASSERT_TRUE(save_point_cloud(c, dir / "d.copc.laz", ConvertOptions{}, nullptr, &r, &err)) << err;
  EXPECT_GE(r.levels, 9);
  EXPECT_EQ(r.point_format, 6);
  ASSERT_TRUE(save_point_cloud(c, dir / "d.las", ConvertOptions{}, nullptr, &r, &err)) << err;
  EXPECT_TRUE(sorted(records(dir / "d.copc.laz")) == sorted(records(dir / "d.las")));
  EXPECT_GE(expect_nodes_make_the_cloud(dir / "d.copc.laz"), 2u);
  const std::string python = PR_TEST_PYTHON;
  if (!python.empty()) {
    const std::string script = (fs::path(__FILE__).parent_path() / "check_copc.py").string();
    const std::string log = dir / "log";
    const int rc = std::system((python + " " + script + " " + dir / "d.las" + " --copc " +
                                dir / "d.copc.laz" + " > " + log + " 2>&1")
                                   .c_str());
    std::ifstream in(log);
    EXPECT_EQ(rc, 0) << std::string{std::istreambuf_iterator<char>(in), {}};
  }
}

// Inputs without points convert into a valid file of 0 points (laspy through both LAZ backends,
// laspy's CopcReader and copclib read it back: check_copc.py), with the fields the inputs
// declare; beside inputs with points they are passed by with a note. A cut input (loaded whole,
// or LAZ read out of core) converts the points before its cut, its warning a note.
TEST(IoConvert, EmptyInputsGiveEmptyFilesAndCutInputsTheirPoints) {
  TempDir dir("empty");
  const std::string ply = dir / "empty.ply", las = dir / "empty.las";
  std::string err;
  {
    std::ofstream(ply) << "ply\nformat ascii 1.0\nelement vertex 0\nproperty float x\n"
                          "property float y\nproperty float z\nproperty uchar red\n"
                          "property uchar green\nproperty uchar blue\nend_header\n";
  }
  ASSERT_TRUE(save_las(las, PointCloud{}, 3, &err)) << err;
  for (const std::vector<std::string>& inputs :
       {std::vector<std::string>{ply}, std::vector<std::string>{ply, las}}) {
    SCOPED_TRACE(inputs.size());
    for (const char* out : {"o.las", "o.laz", "o.copc.laz"}) {
      ConvertResult r;
      ASSERT_TRUE(convert(inputs, dir / out, &r, &err)) << err;
      EXPECT_EQ(r.points, 0u);
      EXPECT_EQ(r.point_format, 7);  // the inputs' colors
      PointCloud c;
      FileInfo info;
      ASSERT_TRUE(load_point_cloud(dir / out, c, &info, &err)) << err;
      EXPECT_TRUE(c.empty());
      EXPECT_TRUE(info.has_color);
      EXPECT_TRUE(info.warnings.empty());
    }
    check_with_python(dir / "o.las", dir / "o.copc.laz", dir / "o.laz");
  }
  // Beside an input with points: passed by, with a note.
  PointCloud three;
  three.resize(3);
  for (size_t i = 0; i < 3; ++i) three.positions[i] = {float(i), 1.0f, 2.0f};
  ASSERT_TRUE(save_ply(dir / "three.ply", three, PlyEncoding::kBinaryLittleEndian, &err)) << err;
  ConvertResult r;
  ASSERT_TRUE(convert({dir / "three.ply", ply}, dir / "m.laz", &r, &err)) << err;
  EXPECT_EQ(r.points, 3u);
  EXPECT_NE(std::find(r.messages.begin(), r.messages.end(), ply + ": holds no points; skipped"),
            r.messages.end());
  // A PLY cut inside its third vertex: two points and the reader's warning.
  std::ifstream in(dir / "three.ply", std::ios::binary);
  std::string bytes{std::istreambuf_iterator<char>(in), {}};
  std::ofstream(dir / "cut.ply", std::ios::binary) << bytes.substr(0, bytes.size() - 5);
  ASSERT_TRUE(convert({dir / "cut.ply"}, dir / "c.copc.laz", &r, &err)) << err;
  EXPECT_EQ(r.points, 2u);
  EXPECT_NE(std::find(r.messages.begin(), r.messages.end(),
                      dir / "cut.ply" +
                          ": cut short: 2 of 3 points decoded (the vertex data ends early)"),
            r.messages.end());
  EXPECT_EQ(load(dir / "c.copc.laz").size(), 2u);
  // A LAZ file of three chunks (50,000, 50,000, 20,000) cut inside the second: read out of core,
  // the whole chunks before the cut convert, the warning a note.
  PointCloud big;
  big.resize(120000);
  // Noisy heights, so that each chunk's bytes grow with its points and two thirds of the file
  // end inside the second chunk.
  uint32_t noise = 1;
  for (size_t i = 0; i < big.size(); ++i) {
    noise = noise * 1664525u + 1013904223u;
    big.positions[i] = {float(i % 1000), float(i / 1000), float(noise >> 16) * 1e-3f};
  }
  ASSERT_TRUE(save_point_cloud(big, dir / "big.laz", ConvertOptions{}, nullptr, &r, &err)) << err;
  std::ifstream lz(dir / "big.laz", std::ios::binary);
  bytes.assign(std::istreambuf_iterator<char>(lz), {});
  std::ofstream(dir / "cut.laz", std::ios::binary) << bytes.substr(0, bytes.size() * 2 / 3);
  ASSERT_TRUE(convert({dir / "cut.laz"}, dir / "c.las", &r, &err)) << err;
  EXPECT_EQ(r.points, 50000u);
  EXPECT_NE(
      std::find(r.messages.begin(), r.messages.end(),
                dir / "cut.laz" + ": cut short: 50,000 of 120,000 points decoded (chunk 2 of 3 is "
                                  "truncated)"),
      r.messages.end());
  EXPECT_EQ(load(dir / "c.las").size(), 50000u);
}

TEST(IoConvert, BadInputCancelAndMissingFolderLeaveNoFile) {
  REQUIRE_TESTDATA("las");
  TempDir dir("bad");
  const std::string garbage = dir / "garbage.las";
  std::ofstream(garbage) << "LASF but not a header";
  std::string err;
  ConvertResult r;
  for (const char* out : {"o.copc.laz", "o.laz", "o.las"}) {
    EXPECT_FALSE(convert({kData + "/las/simple.las", garbage, kData + "/laz/simple.laz"}, dir / out,
                         &r, &err));
    EXPECT_NE(err.find(garbage), std::string::npos) << err;
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;
    EXPECT_FALSE(convert({kData + "/las/simple.las", dir / "absent.ply"}, dir / out, &r, &err));
    EXPECT_NE(err.find("absent.ply"), std::string::npos) << err;
    ConvertProgress cancel;
    cancel.cancel = true;
    EXPECT_FALSE(convert({kData + "/las/simple.las"}, dir / out, &r, &err, &cancel));
    EXPECT_NE(err.find("cancelled"), std::string::npos) << err;
  }
  EXPECT_EQ(dir.files(), std::vector<std::string>{"garbage.las"});
  EXPECT_FALSE(convert({kData + "/las/simple.las"}, dir / "missing/o.copc.laz", &r, &err));
  EXPECT_NE(err.find("does not exist"), std::string::npos) << err;
  EXPECT_FALSE(convert({kData + "/las/simple.las"}, dir / "o.txt", &r, &err));
  EXPECT_NE(err.find(".copc.laz"), std::string::npos) << err;
  EXPECT_EQ(dir.files(), std::vector<std::string>{"garbage.las"});
}

}  // namespace
}  // namespace pr
