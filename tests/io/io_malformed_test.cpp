// Bad input: every malformed file fails with one line naming the file and the problem, and no
// reader allocates for a count the file cannot hold.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "engine/io/io.h"

namespace fs = std::filesystem;

namespace pr {
namespace {

class IoMalformed : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("pr_io_bad_" + std::to_string(reinterpret_cast<uintptr_t>(this)) + "_" +
            std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& n) const { return (dir_ / n).string(); }
  std::string write(const std::string& n, const std::string& s) const {
    std::ofstream(path(n), std::ios::binary) << s;
    return path(n);
  }
  std::string read(const std::string& p) const {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  }
  /// Loading `p` fails with one line naming the file and containing `word`.
  void expect_fail(const std::string& p, const std::string& word) {
    PointCloud c;
    c.resize(5);  // the result must be emptied
    std::string err;
    EXPECT_FALSE(load_point_cloud(p, c, nullptr, &err)) << p;
    EXPECT_TRUE(c.empty());
    EXPECT_EQ(err.rfind(p, 0), 0u) << err;
    EXPECT_NE(err.find(word), std::string::npos) << err;
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  }
  /// Loading `p` succeeds with `points` points and one warning naming the file and containing
  /// `word`.
  void expect_warning(const std::string& p, size_t points, const std::string& word) {
    PointCloud c;
    FileInfo info;
    std::string err;
    ASSERT_TRUE(load_point_cloud(p, c, &info, &err)) << err;
    EXPECT_EQ(c.size(), points);
    EXPECT_EQ(info.points, points);
    ASSERT_EQ(info.warnings.size(), 1u);
    const std::string& w = info.warnings[0];
    EXPECT_EQ(w.rfind(p, 0), 0u) << w;
    EXPECT_NE(w.find(word), std::string::npos) << w;
    EXPECT_EQ(w.find('\n'), std::string::npos) << w;
  }
  PointCloud cloud(size_t n) {
    PointCloud c;
    c.resize(n);
    for (size_t i = 0; i < n; ++i) {
      c.positions[i] = {float(i), float(i % 7), 1.0f};
      c.colors[i] = rgba(1, 2, 3);
    }
    return c;
  }
  fs::path dir_;
};

TEST_F(IoMalformed, PathsThatAreNotFiles) {
  expect_fail(dir_.string(), "directory");
  expect_fail(path("does_not_exist.ply"), "cannot open");
  expect_fail(write("empty.las", ""), "empty");
}

// A file cut inside its header is not a file of its format. (Cut inside its points, it loads
// the points before the cut: io_empty_cut_test.cpp.)
TEST_F(IoMalformed, TruncatedFiles) {
  std::string err;
  ASSERT_TRUE(save_las(path("t.las"), cloud(5000), 3, &err));
  // header only, cut in the middle of the header
  const std::string las = read(path("t.las"));
  expect_fail(write("h.las", las.substr(0, 100)), "truncated");
  expect_fail(write("h.ply", "ply\nformat binary_little_endian 1.0\nelement vertex 3\n"),
              "end_header");
  expect_fail(write("h.pcd", "VERSION 0.7\nFIELDS x y z\n"), "DATA");
}

// Counts near 2^32, 2^60 or 10^12 that the file cannot hold: the points present are read with a
// warning (a file cut short), and nothing is allocated for the count declared; a compressed PCD
// block whose sizes cannot agree is refused.
TEST_F(IoMalformed, HeaderClaimsMorePointsThanTheFileHolds) {
  std::string err;
  ASSERT_TRUE(save_las(path("a.las"), cloud(10), 0, &err));
  std::string las = read(path("a.las"));
  const uint32_t huge = 0xFFFFFFF0u;
  std::memcpy(&las[107], &huge, 4);
  expect_warning(write("big.las", las), 10, "cut short: 10 of 4,294,967,280 points decoded");
  ASSERT_TRUE(save_las(path("b.las"), cloud(10), 6, &err));
  las = read(path("b.las"));
  const uint64_t huge64 = uint64_t(1) << 60;
  std::memcpy(&las[247], &huge64, 8);
  expect_warning(write("big14.las", las), 10,
                 "cut short: 10 of 1,152,921,504,606,846,976 points decoded");
  expect_warning(write("big.ply",
                       "ply\nformat binary_little_endian 1.0\nelement vertex 999999999999\n"
                       "property float x\nproperty float y\nproperty float z\nend_header\n"
                       "0123456789ab"),
                 1, "cut short: 1 of 999,999,999,999 points decoded");
  expect_warning(write("biga.ply",
                       "ply\nformat ascii 1.0\nelement vertex 1000000000\nproperty float x\n"
                       "property float y\nproperty float z\nend_header\n1 2 3\n"),
                 1, "cut short: 1 of 1,000,000,000 points decoded");
  expect_warning(write("big.pcd",
                       "VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\n"
                       "WIDTH 100000000000\nHEIGHT 1\nPOINTS 100000000000\nDATA binary\n0123"),
                 0, "cut short: 0 of 100,000,000,000 points decoded");
  std::string pcdc =
      "VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 100000000\nHEIGHT 1\n"
      "POINTS 100000000\nDATA binary_compressed\n";
  const std::string pcdc_header = pcdc;
  const uint32_t cs = 4, us = 1200000000u;
  pcdc.append(reinterpret_cast<const char*>(&cs), 4);
  pcdc.append(reinterpret_cast<const char*>(&us), 4);
  pcdc += "abcd";
  expect_fail(write("bigc.pcd", pcdc), "PCD");
  // A compressed block that claims 4 GB and holds 100 bytes: only what they can give is kept.
  pcdc = pcdc_header;
  const uint32_t cs_big = 0xFFFFFFF0u;
  pcdc.append(reinterpret_cast<const char*>(&cs_big), 4);
  pcdc.append(reinterpret_cast<const char*>(&us), 4);
  pcdc += std::string(100, '\x1f');
  expect_warning(write("bigcut.pcd", pcdc), 0, "cut short: 0 of 100,000,000 points decoded");
  expect_warning(write("big.pts", "1000000\n1 2 3\n"), 1,
                 "cut short: 1 of 1,000,000 points decoded");
}

// A LAS file cut short (the header declares more points than whole records follow) gives the
// records present and one warning with both counts, as PDAL reads PDAL's
// 1.2-with-color-clipped.las; the cut record is not read.
TEST_F(IoMalformed, LasCutShort) {
  std::string err;
  const PointCloud c = cloud(5000);
  for (int fmt : {3, 6}) {
    SCOPED_TRACE(fmt);
    std::string name = "t";  // in steps: GCC 12 warns (-Wrestrict) on "t" + to_string()
    name += std::to_string(fmt);
    name += ".las";
    ASSERT_TRUE(save_las(path(name), c, fmt, &err)) << err;
    const std::string all = read(path(name));
    const size_t record = fmt == 3 ? 34 : 30, header = all.size() - 5000 * record;
    const std::string p = write("cut_" + name, all.substr(0, header + 3000 * record + record / 2));
    expect_warning(p, 3000, "cut short: 3,000 of 5,000 points decoded (the point data ends early)");
    PointCloud got;
    ASSERT_TRUE(load_point_cloud(p, got, nullptr, &err)) << err;
    for (size_t i = 0; i < got.size(); i += 499) {
      const glm::dvec3 w =
          glm::dvec3(got.positions[i].x, got.positions[i].y, got.positions[i].z) + got.origin;
      EXPECT_NEAR(w.x, double(i), 1e-3);
      EXPECT_NEAR(w.y, double(i % 7), 1e-3);
    }
    // A budget keeps its stride through the records present.
    LoadOptions o;
    o.max_points = 100;
    FileInfo info;
    ASSERT_TRUE(load_point_cloud(p, got, &info, &err, nullptr, &o)) << err;
    EXPECT_EQ(got.size(), 100u);
    EXPECT_EQ(info.warnings.size(), 1u);
  }
}

// A LAS file whose header counts no points (laspy's no-points.las) loads as an empty cloud with
// the header's bounds, and no warning.
TEST_F(IoMalformed, LasWithoutPoints) {
  std::string err;
  ASSERT_TRUE(save_las(path("z.las"), PointCloud{}, 1, &err)) << err;
  std::string las = read(path("z.las"));
  const double bounds[6] = {10.5, -1.0, 20.0, 2.0, 3.0, -4.25};  // max x, min x, max y, ...
  std::memcpy(&las[179], bounds, sizeof bounds);
  const std::string p = write("z_bounds.las", las);
  PointCloud c;
  c.resize(5);  // the result must be emptied
  FileInfo info;
  ASSERT_TRUE(load_point_cloud(p, c, &info, &err)) << err;
  EXPECT_TRUE(c.empty());
  EXPECT_EQ(info.points, 0u);
  EXPECT_EQ(info.format, "LAS");
  EXPECT_TRUE(info.warnings.empty());
  ASSERT_FALSE(info.bounds.empty);
  EXPECT_EQ(info.bounds.min, glm::dvec3(-1.0, 2.0, -4.25));
  EXPECT_EQ(info.bounds.max, glm::dvec3(10.5, 20.0, 3.0));
  ASSERT_TRUE(load_point_cloud(path("z.las"), c, &info, &err)) << err;
  EXPECT_TRUE(c.empty());
}

TEST_F(IoMalformed, UnknownTypesAndBadHeaders) {
  expect_fail(write("u.ply",
                    "ply\nformat ascii 1.0\nelement vertex 1\nproperty float128 x\n"
                    "end_header\n1\n"),
              "unknown property type");
  expect_fail(write("e.ply", "ply\nformat binary_middle_endian 1.0\nend_header\n"), "encoding");
  expect_fail(write("u.pcd",
                    "VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F Q\nWIDTH 1\nHEIGHT 1\n"
                    "POINTS 1\nDATA ascii\n1 2 3\n"),
              "unknown type");
  expect_fail(write("n.pcd",
                    "VERSION 0.7\nFIELDS a b\nSIZE 4 4\nTYPE F F\nWIDTH 1\nHEIGHT 1\n"
                    "POINTS 1\nDATA ascii\n1 2\n"),
              "x, y, z");
  std::string err;
  ASSERT_TRUE(save_las(path("f.las"), cloud(3), 1, &err));
  std::string las = read(path("f.las"));
  las[104] = 11;
  expect_fail(write("f11.las", las), "point format 11");
  las = read(path("f.las"));
  las[105] = 10, las[106] = 0;  // record length shorter than the format
  expect_fail(write("rl.las", las), "record length");
}

TEST_F(IoMalformed, GarbageAndCorruptData) {
  std::mt19937 rng(1);
  std::string g(100000, '\0');
  for (char& ch : g) ch = char(rng());
  expect_fail(write("garbage.bin", g), "unknown file format");
  expect_fail(write("garbage.ply", g), "not a PLY");
  expect_fail(write("garbage.xyz", "hello world\nthis is not\na point cloud\n"), "neither");
  std::string text;
  for (int i = 0; i < 100; ++i) text += i % 2 ? "1 2 three\n" : "1 2 3\n";
  expect_fail(write("half.xyz", text), "not points");
  // valid-looking PLY header followed by random bytes: loads (any float values) or fails cleanly
  const std::string hdr =
      "ply\nformat binary_little_endian 1.0\nelement vertex 8000\nproperty float x\n"
      "property float y\nproperty float z\nend_header\n";
  PointCloud c;
  std::string err;
  const bool ok = load_point_cloud(write("noise.ply", hdr + g), c, nullptr, &err);
  if (ok) {
    EXPECT_LE(c.size(), 8000u);
    for (size_t i = 0; i < c.size(); ++i) ASSERT_TRUE(std::isfinite(c.positions[i].x));
  } else {
    EXPECT_FALSE(err.empty());
  }
  // corrupt LZF stream
  std::string pcdc =
      "VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 2\nHEIGHT 1\n"
      "POINTS 2\nDATA binary_compressed\n";
  const uint32_t cs = 4, us = 24;
  pcdc.append(reinterpret_cast<const char*>(&cs), 4);
  pcdc.append(reinterpret_cast<const char*>(&us), 4);
  pcdc += "\xE0\xFF\xFF\xFF";  // back reference before the start of the output
  expect_fail(write("lzf.pcd", pcdc), "LZF");
}

TEST_F(IoMalformed, LazSignatures) {
  std::string err;
  ASSERT_TRUE(save_las(path("l.las"), cloud(3), 1, &err));
  std::string las = read(path("l.las"));
  las[104] = char(0x80 | 1);  // compressed bit
  expect_fail(write("l.laz", las), "LAZ");
  EXPECT_EQ(detect_format(las.data(), las.size(), "x.las"), FileFormat::kLaz);
}

}  // namespace
}  // namespace pr
