// The LAZ reader: shared LAZ files load like their LAS twins (same points, colors, intensity,
// classification), every shared LAZ/COPC file loads, and damaged LAZ input (truncated, bytes
// flipped in the VLR, the chunk table and the chunks) fails with one line or decodes, never
// crashes, and a header that agrees with its chunk table on an enormous point count is refused
// before the cloud is allocated. Record-by-record comparison with laspy + lazrs:
// tests/io/compare_laz.py.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "engine/io.h"

namespace pr {
namespace {

namespace fs = std::filesystem;
const std::string kData = PR_TESTDATA_DIR;

bool under_ci() {
  const char* ci = std::getenv("CI");
  return ci && std::string(ci) == "true";
}

#define REQUIRE_LAZ_DATA()                                                                  \
  if (!fs::exists(kData + "/laz")) {                                                        \
    if (under_ci()) FAIL() << "test data " << kData << "/laz is absent under CI (CI=true)"; \
    GTEST_SKIP() << "test data " << kData << "/laz is absent";                              \
  }

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

TEST(IoLaz, SameCloudAsTheLasTwin) {
  REQUIRE_LAZ_DATA();
  for (const char* name : {"simple", "autzen_trim", "1_4_w_evlr"}) {
    SCOPED_TRACE(name);
    PointCloud a, b;
    FileInfo ia, ib;
    std::string err;
    ASSERT_TRUE(load_point_cloud(kData + "/laz/" + name + ".laz", a, &ia, &err)) << err;
    ASSERT_TRUE(load_point_cloud(kData + "/las/" + name + ".las", b, &ib, &err)) << err;
    EXPECT_EQ(ia.format, "LAZ");
    ASSERT_EQ(a.size(), b.size());
    ASSERT_EQ(a.has_intensity(), b.has_intensity());
    EXPECT_EQ(ia.has_color, ib.has_color);
    for (size_t i = 0; i < a.size(); ++i) {
      for (int k = 0; k < 3; ++k) {
        const double wa = a.origin[k] + double((&a.positions[i].x)[k]);
        const double wb = b.origin[k] + double((&b.positions[i].x)[k]);
        ASSERT_NEAR(wa, wb, 1e-3) << "point " << i;
      }
      ASSERT_EQ(a.colors[i], b.colors[i]) << "point " << i;
      ASSERT_EQ(a.intensity[i], b.intensity[i]) << "point " << i;
      ASSERT_EQ(a.classification[i], b.classification[i]) << "point " << i;
    }
  }
}

TEST(IoLaz, EverySharedFileLoads) {
  REQUIRE_LAZ_DATA();
  for (const auto& e : fs::directory_iterator(kData + "/laz")) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() != ".laz" || name.find("1.2r0") != std::string::npos) continue;
    SCOPED_TRACE(name);
    PointCloud c;
    FileInfo info;
    std::string err;
    EXPECT_TRUE(load_point_cloud(e.path().string(), c, &info, &err)) << err;
    EXPECT_EQ(info.format, "LAZ");
    EXPECT_GT(c.size(), 0u);
  }
}

TEST(IoLaz, DamagedInputFailsWithOneLine) {
  REQUIRE_LAZ_DATA();
  for (const char* name : {"simple.laz", "simple.copc.laz", "fullwave.laz", "extra.laz"}) {
    SCOPED_TRACE(name);
    const std::vector<uint8_t> good = read_file(kData + "/laz/" + name);
    ASSERT_FALSE(good.empty());
    auto check = [&](const std::vector<uint8_t>& bytes) {
      PointCloud c;
      std::string err;
      if (!parse_point_cloud(bytes.data(), bytes.size(), name, FileFormat::kUnknown, c, nullptr,
                             &err)) {
        EXPECT_TRUE(c.empty());
        EXPECT_EQ(err.find('\n'), std::string::npos) << err;
        EXPECT_NE(err.find(name), std::string::npos) << err;
      }
    };
    for (size_t cut = 0; cut < good.size(); cut += 1 + good.size() / 97) {
      check(std::vector<uint8_t>(good.begin(), good.begin() + std::ptrdiff_t(cut)));
    }
    uint32_t h = 12345;
    for (int k = 0; k < 300; ++k) {
      std::vector<uint8_t> bad = good;
      h = h * 1664525u + 1013904223u;
      // half the flips in the first 2 KiB (header, VLRs), the rest anywhere
      const size_t span = (k & 1) ? bad.size() : std::min<size_t>(bad.size(), 2048);
      bad[(h >> 8) % span] ^= uint8_t(1u << (h % 8));
      check(bad);
    }
  }
}

TEST(IoLaz, WithoutChunkTableWalksTheChunks) {
  REQUIRE_LAZ_DATA();
  // Point-wise (autzen_trim: 3 chunks) and layered (format 8 with extra bytes: 14 chunks).
  for (const char* name : {"autzen_trim.laz", "las_with_several_extra_byte_bloc.laz"}) {
    SCOPED_TRACE(name);
    std::vector<uint8_t> d = read_file(kData + "/laz/" + name);
    uint32_t offset;
    std::memcpy(&offset, d.data() + 96, 4);
    PointCloud a, b;
    FileInfo ia, ib;
    std::string err;
    ASSERT_TRUE(parse_point_cloud(d.data(), d.size(), name, FileFormat::kLaz, a, &ia, &err)) << err;
    const int64_t none = 0;  // the chunk table's offset, as a writer that never wrote it leaves it
    std::memcpy(d.data() + offset, &none, 8);
    ASSERT_TRUE(parse_point_cloud(d.data(), d.size(), name, FileFormat::kLaz, b, &ib, &err)) << err;
    EXPECT_EQ(ia.version, ib.version);
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(a.origin, b.origin);
    EXPECT_EQ(std::memcmp(a.positions.data(), b.positions.data(), a.size() * sizeof(Float3)), 0);
    EXPECT_EQ(a.colors, b.colors);
    EXPECT_EQ(a.intensity, b.intensity);
    // Cut inside the last chunk: one line naming the chunk.
    d.resize(d.size() - 2000);
    EXPECT_FALSE(parse_point_cloud(d.data(), d.size(), name, FileFormat::kLaz, b, &ib, &err));
    EXPECT_NE(err.find("chunk"), std::string::npos) << err;
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  }
}

/// The payload offset of the VLR (user id, record id) of a LAS file in memory, or 0.
size_t vlr_payload(const std::vector<uint8_t>& d, const char* user, uint16_t record) {
  uint16_t header_size, length, id;
  uint32_t count;
  std::memcpy(&header_size, d.data() + 94, 2);
  std::memcpy(&count, d.data() + 100, 4);
  size_t p = header_size;
  for (uint32_t i = 0; i < count && p + 54 <= d.size(); ++i, p += 54 + length) {
    std::memcpy(&id, d.data() + p + 18, 2);
    std::memcpy(&length, d.data() + p + 20, 2);
    if (std::strncmp(reinterpret_cast<const char*>(d.data() + p + 2), user, 16) == 0 &&
        id == record)
      return p + 54;
  }
  return 0;
}

void set_count64(std::vector<uint8_t>& d, uint64_t count) {
  const uint32_t legacy = 0;  // LAS 1.4 point formats 6-10 keep the legacy count at 0
  std::memcpy(d.data() + 107, &legacy, 4);
  std::memcpy(d.data() + 247, &count, 8);
}

TEST(IoLaz, EnormousAgreedCountIsRefusedBeforeAllocating) {
  REQUIRE_LAZ_DATA();
  const uint64_t memory = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE));
  // A layered file with 14 chunks of 50000 points and a chunk table: chunks of 2^32 - 2 points
  // (the LASzip VLR's chunk size) and a header count of 14 times that agree with the table.
  std::vector<uint8_t> big = read_file(kData + "/laz/las_with_several_extra_byte_bloc.laz");
  ASSERT_GT(big.size(), 375u);
  const size_t laszip = vlr_payload(big, "laszip encoded", 22204);
  ASSERT_NE(laszip, 0u);
  uint32_t offset, chunks;
  int64_t table;
  std::memcpy(&offset, big.data() + 96, 4);
  std::memcpy(&table, big.data() + offset, 8);
  ASSERT_GT(table, 0);
  std::memcpy(&chunks, big.data() + table + 4, 4);
  const uint32_t chunk_size = 0xFFFFFFFEu;
  std::memcpy(big.data() + laszip + 12, &chunk_size, 4);
  const uint64_t points = uint64_t(chunks) * chunk_size;
  set_count64(big, points);
  // Positions and colors alone take 16 bytes a point.
  if (points <= memory / 16) GTEST_SKIP() << "this machine holds " << points << " points";
  PointCloud cloud;
  cloud.resize(5);  // the result must be emptied
  std::string err;
  EXPECT_FALSE(parse_point_cloud(big.data(), big.size(), "huge.laz", FileFormat::kLaz, cloud,
                                 nullptr, &err));
  EXPECT_TRUE(cloud.empty());
  EXPECT_EQ(err.rfind("huge.laz: " + std::to_string(points) + " points of ", 0), 0u) << err;
  EXPECT_NE(err.find("physical memory"), std::string::npos) << err;
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  // decompress_laz sizes its records from the header count: the same refusal.
  const std::string path =
      (fs::temp_directory_path() / ("pr_huge_" + std::to_string(::getpid()) + ".laz")).string();
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(big.data()), std::streamsize(big.size()));
  std::vector<uint8_t> records;
  err.clear();
  EXPECT_FALSE(decompress_laz(path, records, nullptr, &err));
  fs::remove(path);
  EXPECT_TRUE(records.empty());
  EXPECT_NE(err.find("physical memory"), std::string::npos) << err;
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;
}

}  // namespace
}  // namespace pr
