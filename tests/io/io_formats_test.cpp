// Reading the real files of tests/data (written by other tools) and round trips through
// our own writers for every format variant.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "engine/io/io.h"
#include "testdata.h"

namespace fs = std::filesystem;

namespace pr {
namespace {

using test::kData;

struct Loaded {
  bool ok;
  PointCloud cloud;
  FileInfo info;
  std::string error;
};

Loaded load(const std::string& path) {
  Loaded l;
  l.ok = load_point_cloud(path, l.cloud, &l.info, &l.error);
  return l;
}

glm::dvec3 world(const PointCloud& c, size_t i) {
  return c.origin + glm::dvec3(c.positions[i].x, c.positions[i].y, c.positions[i].z);
}

struct Expect {
  const char* file;
  const char* format;
  uint64_t points;
  bool color, intensity;
};

TEST(IoSharedFiles, EveryGoodFileLoads) {
  REQUIRE_TESTDATA("");
  const Expect expect[] = {
      {"las/1.0_0.las", "LAS", 1, false, true},
      {"las/1.0_1.las", "LAS", 1, false, true},
      {"las/1.1_0.las", "LAS", 1, false, true},
      {"las/1.1_1.las", "LAS", 1, false, true},
      {"las/1.2_0.las", "LAS", 1, false, true},
      {"las/1.2_1.las", "LAS", 1, false, true},
      {"las/1.2_2.las", "LAS", 1, true, true},
      {"las/1.2_3.las", "LAS", 1, true, true},
      {"las/100-points.las", "LAS", 100, true, true},
      {"las/simple.las", "LAS", 1065, true, true},
      {"las/1.2-with-color.las", "LAS", 1065, true, true},
      {"las/autzen_trim.las", "LAS", 110000, true, true},
      {"las/simple1_1.las", "LAS", 1065, false, true},
      {"las/simple1_3.las", "LAS", 999, false, true},
      {"las/test1_4.las", "LAS", 1000, false, true},
      {"las/1_4_w_evlr.las", "LAS", 1000, false, true},
      {"las/extrabytes.las", "LAS", 1065, true, true},
      {"ply/simple_text.ply", "PLY", 3, false, false},
      {"ply/simple_binary.ply", "PLY", 3, false, false},
      {"ply/text_extradim.ply", "PLY", 1, true, false},
      {"ply/mesh.ply", "PLY", 4, false, false},
      {"ply/cube.ply", "PLY", 24, false, false},
      {"ply/issue_2421.ply", "PLY", 1, false, false},
      {"ply/sized_dims.ply", "PLY", 1, false, false},
      {"ply/unsized_dims.ply", "PLY", 1, false, false},
      {"pcd/bunny.pcd", "PCD", 397, false, false},
      {"pcd/colored_cloud.pcd", "PCD", 1000, true, false},
      {"pcd/pcl_logo.pcd", "PCD", 12909, true, false},
      {"pcd/autzen-utm.pcd", "PCD", 1065, true, true},
      {"pcd/utm17_comma.pcd", "PCD", 10, false, false},
      {"pcd/utm17_space.pcd", "PCD", 10, false, false},
      {"pcd/utm17_tab.pcd", "PCD", 10, false, false},
      {"pts/autzen.pts", "PTS", 10, true, true},
      {"pts/bunny_8.pts", "PTS", 8, false, false},
      {"pts/test.pts", "PTS", 19, true, true},
      {"text/utm17_1.txt", "XYZ", 10, false, false},
      {"text/crlf_test.txt", "XYZ", 10, false, true},
      {"text/data.xyz", "XYZ", 400, false, false},
  };
  for (const Expect& e : expect) {
    SCOPED_TRACE(e.file);
    Loaded l = load(kData + "/" + e.file);
    ASSERT_TRUE(l.ok) << l.error;
    EXPECT_EQ(l.info.format, e.format);
    EXPECT_EQ(l.info.points, e.points);
    EXPECT_EQ(l.cloud.size(), e.points);
    EXPECT_EQ(l.info.has_color, e.color);
    EXPECT_EQ(l.info.has_intensity, e.intensity);
    EXPECT_EQ(l.cloud.colors.size(), l.cloud.size());
    EXPECT_EQ(l.cloud.has_intensity(), e.intensity);
    // Bounds are those of the points, and float positions keep millimetres around the origin.
    const Bounds wb = l.cloud.world_bounds();
    for (int k = 0; k < 3; ++k) {
      EXPECT_NEAR(wb.min[k], l.info.bounds.min[k], 1e-3 + 1e-7 * std::abs(wb.min[k]));
      EXPECT_NEAR(wb.max[k], l.info.bounds.max[k], 1e-3 + 1e-7 * std::abs(wb.max[k]));
    }
  }
}

TEST(IoSharedFiles, KnownValues) {
  REQUIRE_TESTDATA("");
  {  // first record of simple.las (laspy: X=637012.24 Y=849028.31 Z=431.66, I=143, class 1,
     // RGB 68 77 88 stored as 8-bit values)
    Loaded l = load(kData + "/las/simple.las");
    ASSERT_TRUE(l.ok) << l.error;
    const glm::dvec3 p = world(l.cloud, 0);
    EXPECT_NEAR(p.x, 637012.24, 1e-3);
    EXPECT_NEAR(p.y, 849028.31, 1e-3);
    EXPECT_NEAR(p.z, 431.66, 1e-3);
    EXPECT_EQ(l.cloud.intensity[0], 143.0f);
    EXPECT_EQ(l.cloud.classification[0], 1);
    EXPECT_EQ(l.cloud.colors[0], rgba(68, 77, 88));
    EXPECT_NE(l.info.origin, glm::dvec3(0.0));
  }
  {  // text_extradim.ply: uchar red/green, char blue
    Loaded l = load(kData + "/ply/text_extradim.ply");
    ASSERT_TRUE(l.ok) << l.error;
    EXPECT_EQ(l.cloud.colors[0], rgba(63, 200, 64));
    EXPECT_NEAR(l.cloud.positions[0].x, -2.64944f, 1e-6);
  }
  {  // PTS: x y z intensity r g b
    Loaded l = load(kData + "/pts/autzen.pts");
    ASSERT_TRUE(l.ok) << l.error;
    const glm::dvec3 p = world(l.cloud, 0);
    EXPECT_NEAR(p.x, 636110.300003, 1e-3);
    EXPECT_NEAR(p.y, 849345.050003, 1e-3);
    EXPECT_EQ(l.cloud.intensity[0], -1613.0f);
    EXPECT_EQ(l.cloud.colors[0], rgba(52, 70, 64));
  }
  {  // organized cloud with NaN points: 640x480 declared, the valid ones kept
    Loaded l = load(kData + "/pcd/table_scene_mug_stereo_textured.pcd");
    ASSERT_TRUE(l.ok) << l.error;
    EXPECT_GT(l.cloud.size(), 100000u);
    EXPECT_LT(l.cloud.size(), 307200u);
    for (size_t i = 0; i < l.cloud.size(); i += 97)
      ASSERT_TRUE(std::isfinite(l.cloud.positions[i].z));
  }
  {  // CRLF and a header naming the intensity column
    Loaded l = load(kData + "/text/crlf_test.txt");
    ASSERT_TRUE(l.ok) << l.error;
    EXPECT_EQ(l.cloud.intensity[9], 9.0f);
    EXPECT_NEAR(world(l.cloud, 0).z, 170.76, 1e-3);
  }
}

TEST(IoSharedFiles, BadFilesFailWithMessage) {
  REQUIRE_TESTDATA("");
  const std::pair<const char*, const char*> bad[] = {
      {"pcd/missingheader.pcd", "header"},
      {"ply/no_vertex.ply", "vertex"},
  };
  for (const auto& [f, word] : bad) {
    SCOPED_TRACE(f);
    Loaded l = load(kData + "/" + f);
    EXPECT_FALSE(l.ok);
    EXPECT_TRUE(l.cloud.empty());
    EXPECT_NE(l.error.find(f), std::string::npos) << l.error;
    EXPECT_NE(l.error.find(word), std::string::npos) << l.error;
    EXPECT_EQ(l.error.find('\n'), std::string::npos) << l.error;
  }
}

// ---- round trips through our writers ----

class IoRoundTrip : public ::testing::Test {
 protected:
  void SetUp() override {
    // The process id keeps parallel test processes apart (ctest -j runs each test in its own
    // process, and under AddressSanitizer their fixtures can sit at the same address).
    dir_ = fs::temp_directory_path() / ("pr_io_rt_" + std::to_string(::getpid()) + "_" +
                                        std::to_string(reinterpret_cast<uintptr_t>(this)));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& n) const { return (dir_ / n).string(); }

  static PointCloud make(size_t n, glm::dvec3 origin, bool intensity) {
    PointCloud c;
    c.origin = origin;
    c.resize(n);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-500.0f, 500.0f);
    if (intensity) c.intensity.resize(n);
    c.classification.resize(n);
    for (size_t i = 0; i < n; ++i) {
      // millimetre grid so LAS (scale 0.001) stores the points exactly
      c.positions[i] = {std::round(u(rng) * 1000.0f) / 1000.0f,
                        std::round(u(rng) * 1000.0f) / 1000.0f,
                        std::round(u(rng) * 100.0f) / 1000.0f};
      c.colors[i] = rgba(uint8_t(i * 7), uint8_t(i * 13), uint8_t(i * 29));
      if (intensity) c.intensity[i] = float(i % 4000);
      c.classification[i] = uint8_t(i % 20);
    }
    return c;
  }

  static void expect_same(const PointCloud& a, const PointCloud& b, double tol, bool color) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      const glm::dvec3 pa = world(a, i), pb = world(b, i);
      ASSERT_NEAR(pa.x, pb.x, tol) << i;
      ASSERT_NEAR(pa.y, pb.y, tol) << i;
      ASSERT_NEAR(pa.z, pb.z, tol) << i;
      if (color) {
        ASSERT_EQ(a.colors[i], b.colors[i]) << i;
      }
    }
  }

  fs::path dir_;
};

TEST_F(IoRoundTrip, LasEveryPointFormat) {
  const PointCloud src = make(70000, {500000.0, 4300000.0, 200.0}, true);
  for (int fmt = 0; fmt <= 10; ++fmt) {
    SCOPED_TRACE("format " + std::to_string(fmt));
    // Built with append: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string&&.
    std::string name = "f";
    name += std::to_string(fmt);
    name += ".las";
    const std::string p = path(name);
    std::string err;
    ASSERT_TRUE(save_las(p, src, fmt, &err, fmt == 3 ? 7 : 0)) << err;
    Loaded l = load(p);
    ASSERT_TRUE(l.ok) << l.error;
    EXPECT_EQ(l.info.format, "LAS");
    const bool rgb = fmt == 2 || fmt == 3 || fmt == 5 || fmt == 7 || fmt == 8 || fmt == 10;
    EXPECT_EQ(l.info.has_color, rgb);
    expect_same(src, l.cloud, 1.5e-3, rgb);
    EXPECT_EQ(l.cloud.intensity[123], src.intensity[123]);
    EXPECT_EQ(l.cloud.classification[19], fmt >= 6 ? 19 : 19 & 0x1F);
    // UTM-size coordinates: the origin is near the data, not 0
    EXPECT_LT(glm::length(l.cloud.origin - src.origin), 1000.0);
  }
}

TEST_F(IoRoundTrip, LasEightBitColorsDetected) {
  PointCloud src = make(1000, {0, 0, 0}, false);
  const std::string p = path("c.las");
  std::string err;
  ASSERT_TRUE(save_las(p, src, 2, &err)) << err;
  // rewrite the 16-bit colors as 8-bit values (c instead of c * 257), as some writers do
  std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
  for (size_t i = 0; i < src.size(); ++i) {
    for (int k = 0; k < 3; ++k) {
      const uint16_t v = uint16_t((src.colors[i] >> (8 * k)) & 255);
      f.seekp(std::streamoff(227 + i * 26 + 20 + 2 * k));
      f.write(reinterpret_cast<const char*>(&v), 2);
    }
  }
  f.close();
  Loaded l = load(p);
  ASSERT_TRUE(l.ok) << l.error;
  expect_same(src, l.cloud, 1.5e-3, true);
}

TEST_F(IoRoundTrip, PlyAllEncodings) {
  for (const glm::dvec3 origin : {glm::dvec3(0.0), glm::dvec3(650000.5, 5200000.25, 80.0)}) {
    const PointCloud src = make(50000, origin, true);
    const PlyEncoding encs[] = {PlyEncoding::kAscii, PlyEncoding::kBinaryLittleEndian,
                                PlyEncoding::kBinaryBigEndian};
    for (PlyEncoding e : encs) {
      SCOPED_TRACE(int(e));
      const std::string p = path("x.ply");
      std::string err;
      ASSERT_TRUE(save_ply(p, src, e, &err)) << err;
      Loaded l = load(p);
      ASSERT_TRUE(l.ok) << l.error;
      EXPECT_TRUE(l.info.has_color);
      EXPECT_TRUE(l.info.has_intensity);
      expect_same(src, l.cloud, 1e-3, true);
      EXPECT_EQ(l.cloud.intensity[4321], src.intensity[4321]);
    }
  }
}

TEST_F(IoRoundTrip, PcdAsciiAndBinary) {
  for (const glm::dvec3 origin : {glm::dvec3(0.0), glm::dvec3(300000.0, 4000000.0, 0.0)}) {
    const PointCloud src = make(20000, origin, false);
    for (bool bin : {false, true}) {
      const std::string p = path("x.pcd");
      std::string err;
      ASSERT_TRUE(save_pcd(p, src, bin, &err)) << err;
      Loaded l = load(p);
      ASSERT_TRUE(l.ok) << l.error;
      EXPECT_EQ(l.info.version, bin ? "0.7 binary" : "0.7 ascii");
      expect_same(src, l.cloud, 1e-3, true);
    }
  }
}

TEST_F(IoRoundTrip, XyzEverySeparator) {
  const PointCloud src = make(30000, {0, 0, 0}, false);
  for (char sep : {' ', ',', '\t', ';'}) {
    const std::string p = path("x.csv");
    std::string err;
    ASSERT_TRUE(save_xyz(p, src, sep, &err)) << err;
    Loaded l = load(p);
    ASSERT_TRUE(l.ok) << l.error;
    EXPECT_EQ(l.info.format, "XYZ");
    expect_same(src, l.cloud, 1e-3, true);
  }
}

void write_file(const std::string& p, const std::string& s) {
  std::ofstream(p, std::ios::binary) << s;
}

TEST_F(IoRoundTrip, PlyVariants) {
  // vertex not first, faces before it with list properties, CRLF, comments, short/ushort/float
  // colors, r/g/b names, scalar_ intensity
  std::string ply =
      "ply\r\nformat ascii 1.0\r\ncomment hi\r\nobj_info x\r\nelement face 2\r\n"
      "property list uchar int vertex_indices\r\nelement vertex 2\r\nproperty double x\r\n"
      "property double y\r\n  property double z  \r\nproperty ushort r\r\nproperty ushort g\r\n"
      "property ushort b\r\nproperty float scalar_Reflectance\r\nend_header\r\n";
  ply.append("3 0 1 2\r\n3 1 2 3\r\n1 2 3 65535 0 32896 0.5\r\n4 5 6 0 65535 0 7\r\n");
  write_file(path("a.ply"), ply);
  Loaded l = load(path("a.ply"));
  ASSERT_TRUE(l.ok) << l.error;
  ASSERT_EQ(l.cloud.size(), 2u);
  EXPECT_EQ(l.cloud.colors[0], rgba(255, 0, 128));
  EXPECT_EQ(l.cloud.positions[1].z, 6.0f);
  EXPECT_EQ(l.cloud.intensity[1], 7.0f);

  // binary big endian with a face element (list) first and float colors in 0..1
  std::string b =
      "ply\nformat binary_big_endian 1.0\nelement face 1\nproperty list uchar int vertex_indices\n"
      "element vertex 1\nproperty float x\nproperty float y\nproperty float z\n"
      "property float diffuse_red\nproperty float diffuse_green\nproperty float diffuse_blue\n"
      "end_header\n";
  auto be32 = [&](uint32_t v) {
    for (int k = 3; k >= 0; --k) b += char((v >> (8 * k)) & 255);
  };
  auto bef = [&](float f) {
    uint32_t v;
    std::memcpy(&v, &f, 4);
    be32(v);
  };
  b += char(3);
  be32(0), be32(1), be32(2);
  bef(1.5f), bef(-2.0f), bef(3.25f), bef(1.0f), bef(0.0f), bef(0.5f);
  write_file(path("b.ply"), b);
  l = load(path("b.ply"));
  ASSERT_TRUE(l.ok) << l.error;
  ASSERT_EQ(l.cloud.size(), 1u);
  EXPECT_EQ(l.cloud.positions[0].y, -2.0f);
  EXPECT_EQ(l.cloud.colors[0], rgba(255, 0, 128));
}

TEST_F(IoRoundTrip, PcdCompressedPaddingAndCase) {
  // binary_compressed written with literal-only LZF runs; fields X Y Z in upper case, a padding
  // field `_`, a NaN point (organized cloud) and float-packed rgb
  const size_t n = 3;
  const float xs[n] = {1, NAN, 3}, ys[n] = {4, 5, 6}, zs[n] = {7, 8, 9};
  const uint32_t rgb[n] = {0x00FF8000u, 0, 0x000000FFu};
  std::string raw;
  auto add = [&](const void* p, size_t k) { raw.append(static_cast<const char*>(p), k); };
  add(xs, 12), add(ys, 12), add(zs, 12);
  const uint32_t pad[n] = {0, 0, 0};
  add(pad, 12);
  add(rgb, 12);
  std::string lzf;
  for (size_t i = 0; i < raw.size(); i += 32) {
    const size_t k = std::min<size_t>(32, raw.size() - i);
    lzf += char(k - 1);
    lzf += raw.substr(i, k);
  }
  std::string f =
      "# test\nVERSION .7\nFIELDS X Y Z _ RGB\nSIZE 4 4 4 4 4\nTYPE F F F U F\nCOUNT 1 1 1 1 1\n"
      "WIDTH 3\nHEIGHT 1\nPOINTS 3\nDATA binary_compressed\n";
  const uint32_t cs = uint32_t(lzf.size()), us = uint32_t(raw.size());
  f.append(reinterpret_cast<const char*>(&cs), 4);
  f.append(reinterpret_cast<const char*>(&us), 4);
  f += lzf;
  write_file(path("c.pcd"), f);
  Loaded l = load(path("c.pcd"));
  ASSERT_TRUE(l.ok) << l.error;
  ASSERT_EQ(l.cloud.size(), 2u);  // the NaN point is dropped
  EXPECT_EQ(l.cloud.positions[1].x, 3.0f);
  EXPECT_EQ(l.cloud.positions[1].z, 9.0f);
  EXPECT_EQ(l.cloud.colors[0], rgba(255, 128, 0));
  EXPECT_EQ(l.cloud.colors[1], rgba(0, 0, 255));
}

TEST_F(IoRoundTrip, TextVariants) {
  write_file(path("a.txt"), "//X;Y;Z;R;G;B\r\n1;2;3;0.5;1;0\r\n\r\n4;5;6;0;0.25;1\r\n");
  Loaded l = load(path("a.txt"));
  ASSERT_TRUE(l.ok) << l.error;
  ASSERT_EQ(l.cloud.size(), 2u);
  EXPECT_EQ(l.cloud.colors[0], rgba(128, 255, 0));
  write_file(path("b.pts"), "2\n1 2 3 10 1 2 3\n4 5 6 11 4 5 6\n1\n7 8 9 12 7 8 9\n");
  l = load(path("b.pts"));
  ASSERT_TRUE(l.ok) << l.error;
  ASSERT_EQ(l.cloud.size(), 3u);
  EXPECT_EQ(l.cloud.intensity[2], 12.0f);
  EXPECT_EQ(l.cloud.colors[2], rgba(7, 8, 9));
  write_file(path("c.xyz"), "1 2 3 9\n4 5 6 8\n");  // 4 columns: x y z intensity
  l = load(path("c.xyz"));
  ASSERT_TRUE(l.ok) << l.error;
  EXPECT_TRUE(l.info.has_intensity);
  EXPECT_EQ(l.cloud.intensity[1], 8.0f);
}

TEST_F(IoRoundTrip, FormatByContentNotExtension) {
  const PointCloud src = make(100, {0, 0, 0}, false);
  std::string err;
  ASSERT_TRUE(save_las(path("really_las.txt"), src, 1, &err)) << err;
  ASSERT_TRUE(save_ply(path("really_ply.dat"), src, PlyEncoding::kBinaryLittleEndian, &err)) << err;
  EXPECT_EQ(load(path("really_las.txt")).info.format, "LAS");
  EXPECT_EQ(load(path("really_ply.dat")).info.format, "PLY");
}

TEST_F(IoRoundTrip, ProgressAndCancel) {
  const PointCloud src = make(300000, {0, 0, 0}, false);
  std::string err;
  ASSERT_TRUE(save_las(path("p.las"), src, 0, &err)) << err;
  LoadProgress prog;
  PointCloud c;
  ASSERT_TRUE(load_point_cloud(path("p.las"), c, nullptr, &err, &prog)) << err;
  EXPECT_EQ(prog.fraction.load(), 1.0);
  LoadProgress cancel;
  cancel.cancel = true;
  EXPECT_FALSE(load_point_cloud(path("p.las"), c, nullptr, &err, &cancel));
  EXPECT_NE(err.find("cancelled"), std::string::npos) << err;
  EXPECT_TRUE(c.empty());
}

}  // namespace
}  // namespace pr
