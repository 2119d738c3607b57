// The E57 reader: the test data's files from PDAL, files built here byte by byte (poses, spherical
// coordinates, bit-packed integers straddling packets, scaled integers, invalid points, scan
// choice), and malformed input (checksums, truncation, XML, sections outside the file, codecs,
// packets lying about their lengths), which must fail with one line and no crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "../fuzz/e57_pages.h"
#include "e57_build.h"
#include "engine/io/io.h"
#include "testdata.h"

namespace fs = std::filesystem;

namespace pr {
namespace {

const std::string kE57Dir = pr::test::kData + "/e57";

using test::BitWriter;
using test::build_e57;
using test::put_le;
using test::TestScan;

struct Parsed {
  bool ok;
  PointCloud cloud;
  FileInfo info;
  std::string error;
};

Parsed parse(const std::string& bytes, const LoadOptions* opt = nullptr) {
  Parsed p;
  p.ok = parse_point_cloud(bytes.data(), bytes.size(), "t.e57", FileFormat::kUnknown, p.cloud,
                           &p.info, &p.error, nullptr, opt);
  return p;
}

glm::dvec3 world(const PointCloud& c, size_t i) {
  return c.origin + glm::dvec3(c.positions[i].x, c.positions[i].y, c.positions[i].z);
}

/// A cartesian scan: x, y, z as doubles; intensity as a 12-bit Integer; red/green/blue as 8-bit
/// Integers with limits 0..255; an invalid state of 2 bits (every 5th point invalid); fields in
/// the order given by `color_first`.
TestScan cartesian_scan(size_t n, int packets, bool color_first) {
  TestScan s;
  s.records = n;
  s.packets = packets;
  const std::string xyz =
      "<cartesianX type=\"Float\"/><cartesianY type=\"Float\"/><cartesianZ type=\"Float\"/>";
  const std::string rest =
      "<intensity type=\"Integer\" minimum=\"0\" maximum=\"4095\"/>"
      "<cartesianInvalidState type=\"Integer\" minimum=\"0\" maximum=\"2\"/>"
      "<rowIndex type=\"Integer\" minimum=\"0\" maximum=\"1000000\"/>";
  const std::string color =
      "<colorRed type=\"Integer\" minimum=\"0\" maximum=\"255\"/>"
      "<colorGreen type=\"Integer\" minimum=\"0\" maximum=\"255\"/>"
      "<colorBlue type=\"Integer\" minimum=\"0\" maximum=\"255\"/>";
  s.prototype_xml = color_first ? color + xyz + rest : xyz + rest + color;
  BitWriter x, y, z, in, st, row, r, g, b;
  for (size_t i = 0; i < n; ++i) {
    x.put_double(double(i) * 0.5);
    y.put_double(-double(i));
    z.put_double(1.0 + double(i % 7));
    in.put(i % 4096, 12);
    st.put(i % 5 == 4 ? 2 : 0, 2);
    row.put(i, 20);
    r.put(i % 256, 8), g.put((i * 3) % 256, 8), b.put(255 - i % 256, 8);
  }
  if (color_first) {
    s.streams = {r, g, b, x, y, z, in, st, row};
  } else {
    s.streams = {x, y, z, in, st, row, r, g, b};
  }
  return s;
}

// ---- the test data's files ----

TEST(IoE57, SharedFiles) {
  REQUIRE_TESTDATA("e57");
  struct Expect {
    const char* file;
    uint64_t points;
    size_t scans;
  } expect[] = {
      {"A4.e57", 4, 1}, {"B2.e57", 2, 1}, {"A_B.e57", 6, 2}, {"A_B_different_dims.e57", 2, 2}};
  for (const auto& e : expect) {
    SCOPED_TRACE(e.file);
    PointCloud c;
    FileInfo info;
    std::string err;
    ASSERT_TRUE(load_point_cloud(kE57Dir + "/" + e.file, c, &info, &err)) << err;
    EXPECT_EQ(info.format, "E57");
    EXPECT_EQ(c.size(), e.points);
    EXPECT_EQ(info.scans.size(), e.scans);
    EXPECT_TRUE(info.has_color);
  }
  // A4's bounds as its XML's cartesianBounds states them (floats written by CloudCompare).
  PointCloud c;
  FileInfo info;
  std::string err;
  ASSERT_TRUE(load_point_cloud(kE57Dir + "/A4.e57", c, &info, &err)) << err;
  EXPECT_NEAR(info.bounds.min.x, -44.9522018432617188, 1e-9);
  EXPECT_NEAR(info.bounds.max.z, 0.369399994611740112, 1e-9);
  // A_B_different_dims: scan 0 has intensity and no color (white), scan 1 color and no intensity.
  ASSERT_TRUE(load_point_cloud(kE57Dir + "/A_B_different_dims.e57", c, &info, &err)) << err;
  EXPECT_EQ(c.colors[0], rgba(255, 255, 255));
  EXPECT_NEAR(c.intensity[0], 0.759648263, 1e-6);
  EXPECT_EQ(c.intensity[1], 0.0f);
  // --scan: only the second scan of A_B (A4's 4 points).
  LoadOptions opt;
  opt.scans = {1};
  ASSERT_TRUE(load_point_cloud(kE57Dir + "/A_B.e57", c, &info, &err, nullptr, &opt)) << err;
  EXPECT_EQ(c.size(), 4u);
  EXPECT_FALSE(info.scans[0].read);
  EXPECT_EQ(info.scans[1].points, 4u);
}

// ---- files built here ----

TEST(IoE57, CartesianFieldsPacketsAndInvalidPoints) {
  for (const bool color_first : {false, true}) {
    for (const int packets : {1, 3, 7}) {
      SCOPED_TRACE(testing::Message() << "packets " << packets << " color_first " << color_first);
      const size_t n = 3001;
      const Parsed p = parse(build_e57({cartesian_scan(n, packets, color_first)}));
      ASSERT_TRUE(p.ok) << p.error;
      ASSERT_EQ(p.cloud.size(), n - n / 5);  // every 5th point is invalid
      ASSERT_TRUE(p.cloud.has_intensity());
      size_t k = 0;
      for (size_t i = 0; i < n; ++i) {
        if (i % 5 == 4) continue;
        const glm::dvec3 w = world(p.cloud, k);
        ASSERT_NEAR(w.x, double(i) * 0.5, 1e-3) << i;
        ASSERT_NEAR(w.y, -double(i), 1e-3) << i;
        ASSERT_NEAR(w.z, 1.0 + double(i % 7), 1e-4) << i;
        ASSERT_EQ(p.cloud.intensity[k], float(i % 4096)) << i;
        ASSERT_EQ(p.cloud.colors[k], rgba(uint8_t(i), uint8_t(i * 3), uint8_t(255 - i % 256))) << i;
        ++k;
      }
      ASSERT_EQ(p.info.scans.size(), 1u);
      EXPECT_EQ(p.info.scans[0].records, n);
      EXPECT_EQ(p.info.scans[0].points, n - n / 5);
    }
  }
}

TEST(IoE57, SphericalScaledIntegerWithPose) {
  // Range as a ScaledInteger (0.001 m steps, offset 1 m), azimuth and elevation as single floats;
  // pose: 90 degrees about z, then a translation. Color limits 0..1023 scale to 0..255.
  TestScan s;
  const size_t n = 500;
  s.records = n;
  s.packets = 2;
  s.prototype_xml =
      "<sphericalAzimuth type=\"Float\" precision=\"single\"/>"
      "<sphericalRange type=\"ScaledInteger\" minimum=\"0\" maximum=\"100000\" scale=\"0.001\" "
      "offset=\"1\"/>"
      "<sphericalElevation type=\"Float\" precision=\"single\"/>"
      "<colorRed type=\"Integer\" minimum=\"0\" maximum=\"1023\"/>"
      "<colorGreen type=\"Integer\" minimum=\"0\" maximum=\"1023\"/>"
      "<colorBlue type=\"Integer\" minimum=\"0\" maximum=\"1023\"/>";
  const double h = std::sqrt(0.5);
  s.extra_xml =
      "<pose type=\"Structure\"><rotation type=\"Structure\"><w type=\"Float\">" +
      std::to_string(h) + "</w><x type=\"Float\"/><y type=\"Float\"/><z type=\"Float\">" +
      std::to_string(h) +
      "</z></rotation><translation type=\"Structure\"><x type=\"Float\">1000</x><y "
      "type=\"Float\">2000</y><z type=\"Float\">-5</z></translation></pose>"
      "<colorLimits type=\"Structure\"><colorRedMinimum type=\"Integer\"/><colorRedMaximum "
      "type=\"Integer\">1023</colorRedMaximum><colorGreenMinimum type=\"Integer\"/>"
      "<colorGreenMaximum type=\"Integer\">1023</colorGreenMaximum><colorBlueMinimum "
      "type=\"Integer\"/><colorBlueMaximum type=\"Integer\">1023</colorBlueMaximum></colorLimits>";
  BitWriter az, rg, el, r, g, b;
  for (size_t i = 0; i < n; ++i) {
    float a = float(i) * 0.01f, e = float(i % 50) * 0.02f - 0.5f;
    uint32_t u;
    std::memcpy(&u, &a, 4);
    az.put(u, 32);
    std::memcpy(&u, &e, 4);
    el.put(u, 32);
    rg.put(i * 97, 17);
    r.put(1023, 10), g.put(0, 10), b.put(i % 1024, 10);
  }
  s.streams = {az, rg, el, r, g, b};
  const Parsed p = parse(build_e57({s}));
  ASSERT_TRUE(p.ok) << p.error;
  ASSERT_EQ(p.cloud.size(), n);
  for (size_t i = 0; i < n; i += 7) {
    const double a = double(float(i) * 0.01f), e = double(float(i % 50) * 0.02f - 0.5f);
    const double range = double(i * 97) * 0.001 + 1.0;
    const double x = range * std::cos(e) * std::cos(a), y = range * std::cos(e) * std::sin(a),
                 z = range * std::sin(e);
    const glm::dvec3 w = world(p.cloud, i);
    EXPECT_NEAR(w.x, -y + 1000.0, 1e-3) << i;  // 90 degrees about z: (x, y) -> (-y, x)
    EXPECT_NEAR(w.y, x + 2000.0, 1e-3) << i;
    EXPECT_NEAR(w.z, z - 5.0, 1e-3) << i;
    const uint32_t c = p.cloud.colors[i];
    EXPECT_EQ(c & 255u, 255u);
    EXPECT_EQ((c >> 8) & 255u, 0u);
    EXPECT_EQ((c >> 16) & 255u, uint32_t(std::lround(double(i % 1024) * 255.0 / 1023.0)));
  }
  EXPECT_FALSE(p.info.has_intensity);
}

TEST(IoE57, ScansMergedOrChosen) {
  const std::string f = build_e57({cartesian_scan(100, 1, false), cartesian_scan(50, 2, true)});
  Parsed p = parse(f);
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.cloud.size(), 80u + 40u);
  ASSERT_EQ(p.info.scans.size(), 2u);
  EXPECT_EQ(p.info.scans[1].name, "scan 1");
  LoadOptions opt;
  opt.scans = {1};
  p = parse(f, &opt);
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.cloud.size(), 40u);
  EXPECT_EQ(p.info.scans[0].points, 0u);
  opt.scans = {2};
  p = parse(f, &opt);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.error.find("no scan 2"), std::string::npos) << p.error;
}

TEST(IoE57, ProgressAndCancel) {
  const std::string f = build_e57({cartesian_scan(200000, 4, false)});
  LoadProgress prog;
  PointCloud c;
  std::string err;
  ASSERT_TRUE(
      parse_point_cloud(f.data(), f.size(), "t.e57", FileFormat::kE57, c, nullptr, &err, &prog))
      << err;
  EXPECT_EQ(prog.fraction.load(), 1.0);
  prog.cancel = true;
  EXPECT_FALSE(
      parse_point_cloud(f.data(), f.size(), "t.e57", FileFormat::kE57, c, nullptr, &err, &prog));
  EXPECT_NE(err.find("cancelled"), std::string::npos) << err;
  EXPECT_TRUE(c.empty());
}

// ---- malformed input: one line naming the file and the problem ----

void expect_failure(const std::string& bytes, const char* what) {
  const Parsed p = parse(bytes);
  EXPECT_FALSE(p.ok) << "expected: " << what;
  EXPECT_TRUE(p.cloud.empty());
  EXPECT_EQ(p.error.rfind("t.e57: ", 0), 0u) << p.error;
  EXPECT_EQ(p.error.find('\n'), std::string::npos) << p.error;
  EXPECT_NE(p.error.find(what), std::string::npos) << p.error;
}

TEST(IoE57, Malformed) {
  const std::string good = build_e57({cartesian_scan(2000, 3, false)});
  ASSERT_TRUE(parse(good).ok);
  {
    std::string f = good;
    f[1500] ^= 0x40;  // a byte of page 1, its checksum left as it was
    expect_failure(f, "page 1 (bytes 1024-2047) fails its CRC-32C checksum");
  }
  expect_failure(good.substr(0, good.size() - 100), "truncated");
  {
    std::string f = good;  // a length that is not whole pages
    put_le<uint64_t>(f, 16, f.size() - 100);
    test::e57_fix_checksums(reinterpret_cast<uint8_t*>(f.data()), f.size());
    expect_failure(f, "truncated page");
  }
  expect_failure(build_e57({cartesian_scan(10, 1, false)},
                           [](std::string x) { return x.substr(0, x.size() - 20); }),
                 "bad XML section");
  expect_failure(build_e57({cartesian_scan(10, 1, false)},
                           [](std::string x) {
                             const size_t a = x.find("fileOffset=\"") + 12;
                             return x.replace(a, x.find('"', a) - a, "99999999");
                           }),
                 "lies outside the file");
  {
    TestScan s = cartesian_scan(10, 1, false);
    s.codecs_xml = "<vectorChild type=\"Structure\"/>";
    expect_failure(build_e57({s}), "codec other than bit-pack");
  }
  expect_failure(build_e57({cartesian_scan(10, 1, false)},
                           [](std::string x) {
                             const size_t a = x.find("recordCount=\"") + 13;
                             return x.replace(a, x.find('"', a) - a, "11");
                           }),
                 "fewer than the 11 records");
  expect_failure(build_e57({cartesian_scan(10, 1, false)},
                           [](std::string x) {
                             const size_t a = x.find("recordCount=\"") + 13;
                             return x.replace(a, x.find('"', a) - a, "18446744073709551");
                           }),
                 "declares 18446744073709551 records");
  {
    // A packet whose bytestream lengths add up to more than the packet.
    std::string f = good;
    // The first data packet starts at logical 48 + 32 = 80; its first stream length at +6.
    put_le<uint16_t>(f, 86, 60000);
    test::e57_fix_checksums(reinterpret_cast<uint8_t*>(f.data()), f.size());
    expect_failure(f, "overrun");
  }
  {
    // A packet claiming a length past its section.
    std::string f = good;
    put_le<uint16_t>(f, 82, 65535);
    test::e57_fix_checksums(reinterpret_cast<uint8_t*>(f.data()), f.size());
    expect_failure(f, "runs past its section");
  }
  expect_failure(build_e57({cartesian_scan(10, 1, false)},
                           [](std::string x) {
                             const size_t a = x.find("<cartesianX type=\"Float\"/>");
                             return x.replace(a, 26, "<cartesianX type=\"String\"/>");
                           }),
                 "cannot hold");
}

}  // namespace
}  // namespace pr
