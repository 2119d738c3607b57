// LoadOptions::max_points on every format but COPC (LAS and LAZ: io_copc_test.cpp): the points
// read are exactly the records that an even stride (io/stride.h) picks, as a full load of the same
// file holds them (positions bit for bit, colors, intensity, class, named fields), the origin is
// the full file's, and nothing is allocated for the points not kept. Budgets of 1, a few, a
// third, all but one, all and more than all, on files generated here (PLY ascii/LE/BE with named
// properties and with list properties, PCD ascii/binary/binary_compressed, XYZ with a header,
// CRLF and blank lines, PTS in blocks, E57 with two scans) and on the test data's files. Also:
// ascii PLY and PCD keep their named fields with the same values as the binary encodings.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "e57_build.h"
#include "engine/io/base/stride.h"
#include "engine/io/io.h"
#include "testdata.h"

namespace fs = std::filesystem;

namespace pr {
namespace {

using test::kData;

struct Read {
  bool ok = false;
  PointCloud cloud;
  FileInfo info;
  std::string error;
};

Read read(const std::string& name, const std::string& bytes, uint64_t max_points,
          std::vector<uint32_t> scans = {}) {
  Read r;
  LoadOptions o;
  o.max_points = max_points;
  o.scans = std::move(scans);
  r.ok = parse_point_cloud(bytes.data(), bytes.size(), name, FileFormat::kUnknown, r.cloud, &r.info,
                           &r.error, nullptr, &o);
  return r;
}

std::string file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

/// The k-th point of `c` is record s.record(k) of `full`, every attribute alike.
void expect_picked(const PointCloud& full, const PointCloud& c, const io::Stride& s) {
  ASSERT_EQ(c.size(), s.keep);
  EXPECT_EQ(c.origin, full.origin);
  EXPECT_EQ(c.intensity.size(), full.has_intensity() ? c.size() : 0u);
  EXPECT_EQ(c.classification.size(), full.classification.empty() ? 0u : c.size());
  ASSERT_EQ(c.fields.size(), full.fields.size());
  for (size_t f = 0; f < c.fields.size(); ++f) {
    EXPECT_EQ(c.fields[f].name, full.fields[f].name);
    ASSERT_EQ(c.fields[f].values.size(), c.size());
  }
  for (size_t k = 0; k < c.size(); ++k) {
    const size_t r = size_t(s.record(k));
    ASSERT_EQ(std::memcmp(&c.positions[k], &full.positions[r], sizeof(Float3)), 0)
        << "point " << k << " record " << r;
    ASSERT_EQ(c.colors[k], full.colors[r]) << k;
    if (!c.intensity.empty()) {
      ASSERT_EQ(c.intensity[k], full.intensity[r]) << k;
    }
    if (!c.classification.empty()) {
      ASSERT_EQ(c.classification[k], full.classification[r]) << k;
    }
    for (size_t f = 0; f < c.fields.size(); ++f)
      ASSERT_EQ(c.fields[f].values[k], full.fields[f].values[r]) << c.fields[f].name << " " << k;
  }
}

std::vector<uint64_t> budgets(uint64_t records) {
  std::vector<uint64_t> b = {1,           2,           3,       10,          1000,
                             records / 3, records - 1, records, records + 1, 3 * records};
  b.erase(std::remove(b.begin(), b.end(), uint64_t(0)), b.end());
  std::sort(b.begin(), b.end());
  b.erase(std::unique(b.begin(), b.end()), b.end());
  return b;
}

/// Loads `bytes` whole and with each budget; every record of the file is a point.
void expect_budgets_honoured(const std::string& name, const std::string& bytes,
                             std::vector<uint32_t> scans = {}) {
  SCOPED_TRACE(name);
  const Read full = read(name, bytes, 0, scans);
  ASSERT_TRUE(full.ok) << full.error;
  const uint64_t records = full.cloud.size();
  EXPECT_EQ(full.info.points, records) << "--info counts every point of the file";
  for (const uint64_t n : budgets(records)) {
    SCOPED_TRACE("max_points " + std::to_string(n));
    const Read r = read(name, bytes, n, scans);
    ASSERT_TRUE(r.ok) << r.error;
    LoadOptions o;
    o.max_points = n;
    const io::Stride s = io::Stride::of(records, o);
    EXPECT_EQ(r.cloud.size(), std::min(n, records));
    EXPECT_EQ(r.info.points, r.cloud.size());
    expect_picked(full.cloud, r.cloud, s);
    // One allocation of exactly the points kept, for every array.
    EXPECT_EQ(r.cloud.positions.capacity(), r.cloud.size());
    EXPECT_EQ(r.cloud.colors.capacity(), r.cloud.size());
    for (const ScalarField& f : r.cloud.fields) EXPECT_EQ(f.values.capacity(), r.cloud.size());
  }
}

// ---- files generated here ----

/// Vertex i of the generated files: every property a function of i, so that any encoding holds
/// the same numbers (floats printed with 9 digits read back exactly).
struct Gen {
  float x, y, z;
  uint8_t r, g, b, cls;
  float intensity, quality;
  int32_t label;
  int16_t temp;
};

Gen gen(size_t i) {
  Gen v;
  v.x = float((i * 7919) % 10007) * 0.25f - 1000.0f;
  v.y = float(i % 977) * 0.5f + 0.125f;
  v.z = float(i) * 0.001f;
  v.r = uint8_t(i * 7), v.g = uint8_t(i * 13), v.b = uint8_t(i * 29), v.cls = uint8_t(i % 20);
  v.intensity = float(i % 4000);
  v.quality = float(i) * 0.37f;
  v.label = int32_t(i % 1000) - 500;
  v.temp = int16_t(int(i % 30000) - 15000);
  return v;
}

std::string f9(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

template <class T>
void put(std::string& s, T v, bool big) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  if (big) std::reverse(b, b + sizeof(T));
  s.append(b, sizeof(T));
}

enum class Enc { kAscii, kLittle, kBig };

/// PLY: x y z red green blue classification intensity, and quality, label, temp as named fields;
/// `lists`: a list property in the vertex element (records of varying size).
std::string make_ply(size_t n, Enc enc, bool lists) {
  static const char* kFormat[] = {"ascii", "binary_little_endian", "binary_big_endian"};
  std::string s = std::string("ply\nformat ") + kFormat[int(enc)] +
                  " 1.0\ncomment budget test\nelement vertex " + std::to_string(n) +
                  "\nproperty float x\nproperty float y\nproperty float z\n"
                  "property uchar red\nproperty uchar green\nproperty uchar blue\n"
                  "property uchar classification\nproperty float intensity\n"
                  "property float quality\nproperty int label\nproperty short temp\n";
  if (lists) s += "property list uchar int ids\n";
  s += "end_header\n";
  const bool big = enc == Enc::kBig;
  for (size_t i = 0; i < n; ++i) {
    const Gen v = gen(i);
    const size_t nl = i % 3;
    if (enc == Enc::kAscii) {
      s += f9(v.x) + " " + f9(v.y) + " " + f9(v.z) + " " + std::to_string(v.r) + " " +
           std::to_string(v.g) + " " + std::to_string(v.b) + " " + std::to_string(v.cls) + " " +
           f9(v.intensity) + " " + f9(v.quality) + " " + std::to_string(v.label) + " " +
           std::to_string(v.temp);
      if (lists) {
        s += " " + std::to_string(nl);
        for (size_t k = 0; k < nl; ++k) s += " " + std::to_string(i + k);
      }
      s += "\n";
    } else {
      put(s, v.x, big), put(s, v.y, big), put(s, v.z, big);
      put(s, v.r, big), put(s, v.g, big), put(s, v.b, big), put(s, v.cls, big);
      put(s, v.intensity, big), put(s, v.quality, big), put(s, v.label, big), put(s, v.temp, big);
      if (lists) {
        put(s, uint8_t(nl), big);
        for (size_t k = 0; k < nl; ++k) put(s, int32_t(i + k), big);
      }
    }
  }
  return s;
}

enum class PcdData { kAscii, kBinary, kCompressed };

/// PCD: x y z rgb (packed, U4) intensity, and quality, label, temp as named fields; `nan_every`:
/// every such point has NaN coordinates (an organized cloud's invalid points).
std::string make_pcd(size_t n, PcdData data, size_t nan_every = 0) {
  static const char* kKind[] = {"ascii", "binary", "binary_compressed"};
  std::string s =
      "# budget test\nVERSION 0.7\nFIELDS x y z rgb intensity quality label temp\n"
      "SIZE 4 4 4 4 4 4 4 2\nTYPE F F F U F F I I\nCOUNT 1 1 1 1 1 1 1 1\nWIDTH " +
      std::to_string(n) + "\nHEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS " + std::to_string(n) +
      "\nDATA " + kKind[int(data)] + "\n";
  auto point = [&](size_t i) {
    Gen v = gen(i);
    if (nan_every && i % nan_every == nan_every - 1) v.x = v.y = v.z = NAN;
    return v;
  };
  auto rgb = [](const Gen& v) { return (uint32_t(v.r) << 16) | (uint32_t(v.g) << 8) | v.b; };
  if (data == PcdData::kAscii) {
    for (size_t i = 0; i < n; ++i) {
      const Gen v = point(i);
      s += (std::isnan(v.x) ? "nan nan nan" : f9(v.x) + " " + f9(v.y) + " " + f9(v.z)) + " " +
           std::to_string(rgb(v)) + " " + f9(v.intensity) + " " + f9(v.quality) + " " +
           std::to_string(v.label) + " " + std::to_string(v.temp) + "\n";
    }
    return s;
  }
  if (data == PcdData::kBinary) {
    for (size_t i = 0; i < n; ++i) {
      const Gen v = point(i);
      put(s, v.x, false), put(s, v.y, false), put(s, v.z, false), put(s, rgb(v), false);
      put(s, v.intensity, false), put(s, v.quality, false), put(s, v.label, false);
      put(s, v.temp, false);
    }
    return s;
  }
  // binary_compressed: each field's values one after another, as LZF literal runs of 32 bytes.
  std::string raw;
  for (int f = 0; f < 8; ++f)
    for (size_t i = 0; i < n; ++i) {
      const Gen v = point(i);
      const float fl[] = {v.x, v.y, v.z, 0.0f, v.intensity, v.quality};
      if (f == 3)
        put(raw, rgb(v), false);
      else if (f == 6)
        put(raw, v.label, false);
      else if (f == 7)
        put(raw, v.temp, false);
      else
        put(raw, fl[f], false);
    }
  std::string lzf;
  for (size_t i = 0; i < raw.size(); i += 32) {
    const size_t k = std::min<size_t>(32, raw.size() - i);
    lzf += char(k - 1);
    lzf += raw.substr(i, k);
  }
  put(s, uint32_t(lzf.size()), false);
  put(s, uint32_t(raw.size()), false);
  return s + lzf;
}

/// XYZ with a header line, CRLF, and a blank line every 1000 lines (blank lines are not records).
std::string make_xyz(size_t n) {
  std::string s = "X,Y,Z,Intensity,R,G,B\r\n";
  for (size_t i = 0; i < n; ++i) {
    const Gen v = gen(i);
    s += f9(v.x) + "," + f9(v.y) + "," + f9(v.z) + "," + f9(v.intensity) + "," +
         std::to_string(v.r) + "," + std::to_string(v.g) + "," + std::to_string(v.b) + "\r\n";
    if (i % 1000 == 999) s += "\r\n";
  }
  return s;
}

/// PTS in three blocks, each a count line and its points.
std::string make_pts(size_t n) {
  std::string s;
  const size_t cut[] = {0, n / 2, n / 2 + n / 3, n};
  for (int b = 0; b < 3; ++b) {
    s += std::to_string(cut[b + 1] - cut[b]) + "\n";
    for (size_t i = cut[b]; i < cut[b + 1]; ++i) {
      const Gen v = gen(i);
      s += f9(v.x) + " " + f9(v.y) + " " + f9(v.z) + " " + f9(v.intensity) + " " +
           std::to_string(v.r) + " " + std::to_string(v.g) + " " + std::to_string(v.b) + "\n";
    }
  }
  return s;
}

/// An E57 scan of n records: x y z doubles, a 12-bit intensity and 8-bit colors, `first` the
/// value shift that tells the scans apart.
test::TestScan e57_scan(size_t n, size_t first) {
  test::TestScan s;
  s.records = n;
  s.packets = 3;
  s.prototype_xml =
      "<cartesianX type=\"Float\"/><cartesianY type=\"Float\"/><cartesianZ type=\"Float\"/>"
      "<intensity type=\"Integer\" minimum=\"0\" maximum=\"4095\"/>"
      "<colorRed type=\"Integer\" minimum=\"0\" maximum=\"255\"/>"
      "<colorGreen type=\"Integer\" minimum=\"0\" maximum=\"255\"/>"
      "<colorBlue type=\"Integer\" minimum=\"0\" maximum=\"255\"/>";
  test::BitWriter x, y, z, in, r, g, b;
  for (size_t i = 0; i < n; ++i) {
    const Gen v = gen(first + i);
    x.put_double(v.x), y.put_double(v.y), z.put_double(v.z);
    in.put((first + i) % 4096, 12);
    r.put(v.r, 8), g.put(v.g, 8), b.put(v.b, 8);
  }
  s.streams = {x, y, z, in, r, g, b};
  return s;
}

constexpr size_t kPoints = 100003;  // two 65536-record blocks, many text chunks

TEST(IoBudget, PlyEveryEncoding) {
  expect_budgets_honoured("a.ply", make_ply(kPoints, Enc::kAscii, false));
  expect_budgets_honoured("le.ply", make_ply(kPoints, Enc::kLittle, false));
  expect_budgets_honoured("be.ply", make_ply(kPoints, Enc::kBig, false));
}

TEST(IoBudget, PlyWithListProperties) {
  expect_budgets_honoured("a.ply", make_ply(5003, Enc::kAscii, true));
  expect_budgets_honoured("le.ply", make_ply(5003, Enc::kLittle, true));
  expect_budgets_honoured("be.ply", make_ply(5003, Enc::kBig, true));
}

TEST(IoBudget, PcdEveryDataKind) {
  expect_budgets_honoured("a.pcd", make_pcd(kPoints, PcdData::kAscii));
  expect_budgets_honoured("b.pcd", make_pcd(kPoints, PcdData::kBinary));
  expect_budgets_honoured("c.pcd", make_pcd(kPoints, PcdData::kCompressed));
}

TEST(IoBudget, PcdWithInvalidPointsKeepsAtMostTheBudget) {
  // The stride runs over the records; the NaN ones it picks give no point.
  for (const PcdData d : {PcdData::kAscii, PcdData::kBinary, PcdData::kCompressed}) {
    const std::string f = make_pcd(10000, d, 10);
    for (const uint64_t n : {uint64_t(1), uint64_t(10), uint64_t(999), uint64_t(5000)}) {
      const Read r = read("n.pcd", f, n);
      ASSERT_TRUE(r.ok) << r.error;
      LoadOptions o;
      o.max_points = n;
      const io::Stride s = io::Stride::of(10000, o);
      uint64_t valid = 0;
      for (uint64_t k = 0; k < s.keep; ++k) valid += s.record(k) % 10 != 9;
      EXPECT_EQ(r.cloud.size(), valid) << n;
      for (const ScalarField& field : r.cloud.fields) EXPECT_EQ(field.values.size(), valid);
    }
  }
}

TEST(IoBudget, TextFormats) {
  expect_budgets_honoured("a.xyz", make_xyz(kPoints));
  expect_budgets_honoured("a.pts", make_pts(kPoints));
}

TEST(IoBudget, E57AcrossTheScansRead) {
  const std::string f = test::build_e57({e57_scan(70001, 0), e57_scan(40000, 70001)});
  expect_budgets_honoured("two.e57", f);
  expect_budgets_honoured("two.e57", f, {1});
  expect_budgets_honoured("two.e57", f, {1, 0});
  // Each scan keeps its share of the points.
  const Read r = read("two.e57", f, 1100);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.info.scans.size(), 2u);
  LoadOptions o;
  o.max_points = 1100;
  const uint64_t first = io::Stride::of(110001, o).before(70001);  // kept records of scan 0
  EXPECT_EQ(r.info.scans[0].points, first);
  EXPECT_EQ(r.info.scans[1].points, 1100u - first);
  EXPECT_NEAR(double(first), 1100.0 * 70001.0 / 110001.0, 1.0);
  EXPECT_EQ(r.info.scans[0].records, 70001u);
}

// ---- the test data's files ----

TEST(IoBudget, SharedFiles) {
  REQUIRE_TESTDATA("ply");
  for (const char* f : {"ply/cube.ply",
                        "ply/issue_2421.ply",
                        "ply/mesh.ply",
                        "ply/simple_binary.ply",
                        "ply/simple_text.ply",
                        "ply/sized_dims.ply",
                        "ply/text_extradim.ply",
                        "ply/unsized_dims.ply",
                        "pcd/autzen-utm.pcd",
                        "pcd/bunny.pcd",
                        "pcd/colored_cloud.pcd",
                        "pcd/pcl_logo.pcd",
                        "pcd/utm17_comma.pcd",
                        "pcd/utm17_space.pcd",
                        "pcd/utm17_tab.pcd",
                        "pts/autzen.pts",
                        "pts/bunny_8.pts",
                        "pts/test.pts",
                        "text/crlf_test.txt",
                        "text/data.xyz",
                        "text/utm17_1.txt",
                        "e57/A4.e57",
                        "e57/B2.e57",
                        "e57/A_B.e57",
                        "e57/A_B_different_dims.e57",
                        "las/extrabytes.las",
                        "laz/extra.laz"}) {
    const std::string path = kData + "/" + f;
    ASSERT_TRUE(fs::exists(path)) << path;
    expect_budgets_honoured(path, file_bytes(path));
  }
}

TEST(IoBudget, SharedOrganizedPcdWithInvalidPoints) {
  REQUIRE_TESTDATA("ply");
  const std::string path = kData + "/pcd/table_scene_mug_stereo_textured.pcd";
  const std::string bytes = file_bytes(path);
  const Read full = read(path, bytes, 0);
  ASSERT_TRUE(full.ok) << full.error;
  for (const uint64_t n : {uint64_t(1000), uint64_t(100000)}) {
    const Read r = read(path, bytes, n);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_LE(r.cloud.size(), n);
    EXPECT_GT(r.cloud.size(), n / 2) << "most of the stride's records are valid points";
    EXPECT_EQ(r.cloud.origin, full.cloud.origin);
  }
}

// ---- named fields: ascii as binary ----

TEST(IoFields, AsciiKeepsTheFieldsOfTheBinaryEncodings) {
  const size_t n = 20011;
  for (const bool lists : {false, true}) {
    SCOPED_TRACE(lists ? "PLY with a list property" : "PLY");
    const Read a = read("a.ply", make_ply(n, Enc::kAscii, lists), 0);
    const Read le = read("le.ply", make_ply(n, Enc::kLittle, lists), 0);
    const Read be = read("be.ply", make_ply(n, Enc::kBig, lists), 0);
    ASSERT_TRUE(a.ok && le.ok && be.ok) << a.error << le.error << be.error;
    for (const Read* r : {&a, &le, &be}) {
      ASSERT_EQ(r->cloud.fields.size(), 3u);
      EXPECT_EQ(r->cloud.fields[0].name, "quality");
      EXPECT_EQ(r->cloud.fields[1].name, "label");
      EXPECT_EQ(r->cloud.fields[2].name, "temp");
      for (size_t i = 0; i < n; i += 101) {
        const Gen v = gen(i);
        ASSERT_EQ(r->cloud.fields[0].values[i], v.quality) << i;
        ASSERT_EQ(r->cloud.fields[1].values[i], float(v.label)) << i;
        ASSERT_EQ(r->cloud.fields[2].values[i], float(v.temp)) << i;
      }
      for (size_t f = 0; f < 3; ++f)
        EXPECT_EQ(r->cloud.fields[f].values, le.cloud.fields[f].values);
    }
  }
  // PCD, with every tenth point invalid: the fields follow the points that are kept.
  const Read a = read("a.pcd", make_pcd(n, PcdData::kAscii, 10), 0);
  const Read b = read("b.pcd", make_pcd(n, PcdData::kBinary, 10), 0);
  const Read c = read("c.pcd", make_pcd(n, PcdData::kCompressed, 10), 0);
  ASSERT_TRUE(a.ok && b.ok && c.ok) << a.error << b.error << c.error;
  for (const Read* r : {&a, &b, &c}) {
    ASSERT_EQ(r->cloud.size(), n - n / 10);
    ASSERT_EQ(r->cloud.fields.size(), 3u);
    EXPECT_EQ(r->cloud.fields[0].name, "quality");
    EXPECT_EQ(r->cloud.fields[1].name, "label");
    EXPECT_EQ(r->cloud.fields[2].name, "temp");
    // Cloud index k is point k + k / 9 of the file (one in ten dropped).
    for (size_t k = 0; k < r->cloud.size(); k += 97) {
      const Gen v = gen(k + k / 9);
      ASSERT_EQ(r->cloud.origin.x + double(r->cloud.positions[k].x), double(v.x)) << k;
      ASSERT_EQ(r->cloud.fields[0].values[k], v.quality) << k;
      ASSERT_EQ(r->cloud.fields[1].values[k], float(v.label)) << k;
      ASSERT_EQ(r->cloud.fields[2].values[k], float(v.temp)) << k;
    }
    for (size_t f = 0; f < 3; ++f) EXPECT_EQ(r->cloud.fields[f].values, b.cloud.fields[f].values);
  }
}

}  // namespace
}  // namespace pr

namespace pr {
namespace {

// LoadOptions::whole_chunks: a LAZ file read in whole chunks spread through it (the viewer's
// preview of a large LAZ file): the first chunk and others, every point of them at the world
// position the whole load gives it, fewer points than the whole.
TEST(IoBudget, LazWholeChunksSpreadThroughTheFile) {
  REQUIRE_TESTDATA("laz");
  const std::string path = kData + "/laz/autzen_trim.laz";
  PointCloud whole, part;
  FileInfo info;
  std::string error;
  ASSERT_TRUE(load_point_cloud(path, whole, &info, &error)) << error;
  LoadOptions o;
  o.whole_chunks = true;
  o.max_points = 50'000;
  ASSERT_TRUE(load_point_cloud(path, part, nullptr, &error, nullptr, &o)) << error;
  ASSERT_GT(part.size(), 0u);
  EXPECT_LT(part.size(), whole.size());
  EXPECT_GE(part.size(), o.max_points);  // whole chunks, the fewest that reach the budget
  // The first chunk comes first, as in the whole load: the same points in world coordinates.
  for (size_t i = 0; i < 1000; ++i) {
    const glm::dvec3 a =
        whole.origin + glm::dvec3(whole.positions[i].x, whole.positions[i].y, whole.positions[i].z);
    const glm::dvec3 b =
        part.origin + glm::dvec3(part.positions[i].x, part.positions[i].y, part.positions[i].z);
    ASSERT_NEAR(a.x, b.x, 1e-3);
    ASSERT_NEAR(a.y, b.y, 1e-3);
    ASSERT_NEAR(a.z, b.z, 1e-3);
    ASSERT_EQ(whole.colors[i], part.colors[i]);
  }
  // Without the budget, or with one above the file's points: every chunk.
  o.max_points = whole.size();
  ASSERT_TRUE(load_point_cloud(path, part, nullptr, &error, nullptr, &o)) << error;
  EXPECT_EQ(part.size(), whole.size());
}

}  // namespace
}  // namespace pr
