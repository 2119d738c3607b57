// The LAZ reader: the test data's LAZ files load like their LAS twins (same points, colors,
// intensity, classification), every LAZ/COPC file of the test data loads, and damaged LAZ input
// (truncated, bytes flipped in the VLR, the chunk table and the chunks) fails with one line or
// decodes, never crashes, and a header that agrees with its chunk table on an enormous point count
// is refused before the cloud is allocated. LASzip 1.x's unchunked stream (the test data's
// version-1 file, and a point-wise chunk rewritten as one) decodes like its chunked twin, keeps the
// point budget's stride, reports progress, cancels, and fails with one line when cut. Extra bytes
// load as the same named fields as through the LAS reader. Record-by-record comparison with laspy +
// lazrs or LASzip: tests/io/compare_laz.py.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "engine/io/base/io_common.h"
#include "engine/io/io.h"
#include "testdata.h"

namespace pr {
namespace {

namespace fs = std::filesystem;
using test::kData;

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

TEST(IoLaz, SameCloudAsTheLasTwin) {
  REQUIRE_TESTDATA("laz");
  const std::pair<const char*, const char*> twins[] = {
      {"simple", "simple"},
      {"autzen_trim", "autzen_trim"},
      {"1_4_w_evlr", "1_4_w_evlr"},
      {"simple-laszip-compressor-version-1.2r0", "simple"}};  // version-1 items, unchunked
  for (const auto& [laz, las] : twins) {
    SCOPED_TRACE(laz);
    PointCloud a, b;
    FileInfo ia, ib;
    std::string err;
    ASSERT_TRUE(load_point_cloud(kData + "/laz/" + laz + ".laz", a, &ia, &err)) << err;
    ASSERT_TRUE(load_point_cloud(kData + "/las/" + las + ".las", b, &ib, &err)) << err;
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
  REQUIRE_TESTDATA("laz");
  for (const auto& e : fs::directory_iterator(kData + "/laz")) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() != ".laz") continue;
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
  REQUIRE_TESTDATA("laz");
  for (const char* name : {"simple.laz", "simple.copc.laz", "fullwave.laz", "extra.laz",
                           "simple-laszip-compressor-version-1.2r0.laz"}) {
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
  REQUIRE_TESTDATA("laz");
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
    // Cut inside the last chunk: the points before the cut (a point-wise chunk keeps those
    // decoded before its end, a layered one none) and one warning naming the chunk.
    d.resize(d.size() - 2000);
    ASSERT_TRUE(parse_point_cloud(d.data(), d.size(), name, FileFormat::kLaz, b, &ib, &err)) << err;
    ASSERT_LT(b.size(), a.size());
    ASSERT_GT(b.size(), 0u);
    for (size_t i = 0; i < b.size(); i += 97) {
      const glm::dvec3 pa =
          a.origin + glm::dvec3(a.positions[i].x, a.positions[i].y, a.positions[i].z);
      const glm::dvec3 pb =
          b.origin + glm::dvec3(b.positions[i].x, b.positions[i].y, b.positions[i].z);
      ASSERT_LT(glm::length(pa - pb), 1e-3) << i;
      ASSERT_EQ(a.colors[i], b.colors[i]) << i;
    }
    const size_t chunks = std::string(name) == "autzen_trim.laz" ? 3 : 14;
    ASSERT_EQ(ib.warnings.size(), 1u);
    EXPECT_EQ(ib.warnings[0], io::cut_short_warning(name, b.size(), a.size(),
                                                    "chunk " + std::to_string(chunks) + " of " +
                                                        std::to_string(chunks) + " is truncated"));
    if (chunks == 14) {
      EXPECT_EQ(b.size(), a.size() - a.size() % 50000);  // the last chunk lost
    }
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
  REQUIRE_TESTDATA("laz");
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

std::string temp_path(const std::string& name) {
  return (fs::temp_directory_path() / ("pr_" + std::to_string(::getpid()) + "_" + name)).string();
}

void write_file(const std::string& path, const std::vector<uint8_t>& d) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(d.data()), std::streamsize(d.size()));
}

std::vector<uint8_t> records_of(const std::string& name, const std::vector<uint8_t>& d) {
  const std::string path = temp_path(name);
  write_file(path, d);
  std::vector<uint8_t> records;
  std::string err;
  EXPECT_TRUE(decompress_laz(path, records, nullptr, &err)) << err;
  fs::remove(path);
  return records;
}

/// autzen_trim.laz's first chunk (50000 points, point-wise) as LASzip 1.x's unchunked
/// compressor writes a file: the stream at the offset to the point data (moved past the chunk
/// table's offset), compressor 1, chunk size 0, and the header counting the chunk's points. The
/// later chunks stay behind it as bytes no point reaches.
std::vector<uint8_t> unchunked_autzen() {
  std::vector<uint8_t> d = read_file(kData + "/laz/autzen_trim.laz");
  uint32_t offset;
  std::memcpy(&offset, d.data() + 96, 4);
  offset += 8;
  std::memcpy(d.data() + 96, &offset, 4);
  const uint32_t count = 50000;
  std::memcpy(d.data() + 107, &count, 4);
  const size_t vlr = vlr_payload(d, "laszip encoded", 22204);
  const uint16_t compressor = 1;
  const uint32_t chunk_size = 0;
  std::memcpy(d.data() + vlr, &compressor, 2);
  std::memcpy(d.data() + vlr + 12, &chunk_size, 4);
  return d;
}

TEST(IoLaz, UnchunkedStreamDecodesLikeItsChunk) {
  REQUIRE_TESTDATA("laz");
  const std::vector<uint8_t> chunked = read_file(kData + "/laz/autzen_trim.laz");
  const std::vector<uint8_t> d = unchunked_autzen();
  const std::vector<uint8_t> all = records_of("chunked.laz", chunked);
  const std::vector<uint8_t> first = records_of("unchunked.laz", d);
  ASSERT_EQ(first.size(), size_t(50000) * 34);
  ASSERT_GE(all.size(), first.size());
  EXPECT_TRUE(std::equal(first.begin(), first.end(), all.begin()));
  PointCloud c;
  FileInfo info;
  std::string err;
  ASSERT_TRUE(
      parse_point_cloud(d.data(), d.size(), "unchunked.laz", FileFormat::kLaz, c, &info, &err))
      << err;
  EXPECT_EQ(c.size(), 50000u);
  EXPECT_NE(info.version.find("point-wise, unchunked"), std::string::npos) << info.version;
  // Cut inside the stream: the points decoded before the cut and one warning. The first chunk
  // of autzen_trim.laz takes about 270 KB: cutting the later chunks behind it leaves the stream
  // whole.
  uint32_t offset;
  std::memcpy(&offset, d.data() + 96, 4);
  size_t before = 0;
  for (const size_t keep : {size_t(2000), size_t(150000), size_t(300000)}) {
    SCOPED_TRACE(keep);
    const std::vector<uint8_t> cut(d.begin(), d.begin() + std::ptrdiff_t(offset + keep));
    PointCloud part;
    FileInfo pi;
    ASSERT_TRUE(
        parse_point_cloud(cut.data(), cut.size(), "cut.laz", FileFormat::kLaz, part, &pi, &err))
        << err;
    if (keep == 300000) {
      EXPECT_EQ(part.size(), 50000u);
      EXPECT_TRUE(pi.warnings.empty());
      continue;
    }
    EXPECT_GT(part.size(), before);  // more bytes, more points
    EXPECT_LT(part.size(), 50000u);
    before = part.size();
    for (size_t i = 0; i < part.size(); ++i) ASSERT_EQ(part.colors[i], c.colors[i]) << i;
    ASSERT_EQ(pi.warnings.size(), 1u);
    EXPECT_EQ(pi.warnings[0],
              io::cut_short_warning("cut.laz", part.size(), 50000, "the LAZ stream is truncated"));
  }
}

TEST(IoLaz, UnchunkedStreamKeepsTheBudgetsStride) {
  REQUIRE_TESTDATA("laz");
  const std::vector<uint8_t> streams[] = {
      unchunked_autzen(), read_file(kData + "/laz/simple-laszip-compressor-version-1.2r0.laz")};
  for (const std::vector<uint8_t>& d : streams) {
    PointCloud full;
    std::string err;
    ASSERT_TRUE(
        parse_point_cloud(d.data(), d.size(), "u.laz", FileFormat::kLaz, full, nullptr, &err))
        << err;
    const uint64_t n = full.size();
    for (const uint64_t budget : {uint64_t(1), uint64_t(7), uint64_t(1000), n - 1, n, n + 5}) {
      SCOPED_TRACE(budget);
      LoadOptions o;
      o.max_points = budget;
      PointCloud c;
      ASSERT_TRUE(parse_point_cloud(d.data(), d.size(), "u.laz", FileFormat::kLaz, c, nullptr, &err,
                                    nullptr, &o))
          << err;
      ASSERT_EQ(c.size(), std::min(budget, n));
      EXPECT_EQ(c.origin, full.origin);
      // Point k is record floor(k n / N): an even stride through the stream.
      for (size_t k = 0; k < c.size(); ++k) {
        const size_t r = budget >= n ? k : size_t(k * n / budget);
        ASSERT_EQ(std::memcmp(&c.positions[k], &full.positions[r], sizeof(Float3)), 0) << k;
        ASSERT_EQ(c.colors[k], full.colors[r]) << k;
        ASSERT_EQ(c.gps_time[k], full.gps_time[r]) << k;
      }
    }
  }
}

TEST(IoLaz, UnchunkedStreamReportsProgressAndCancels) {
  REQUIRE_TESTDATA("laz");
  const std::vector<uint8_t> d = unchunked_autzen();
  std::string err;
  {
    LoadProgress p;
    PointCloud c;
    ASSERT_TRUE(
        parse_point_cloud(d.data(), d.size(), "u.laz", FileFormat::kLaz, c, nullptr, &err, &p))
        << err;
    EXPECT_EQ(p.fraction.load(), 1.0);
  }
  // The stream is one block of the loader: it reports a fraction strictly inside (0, 1) as it
  // decodes, and stops when asked. A load that ends before the cancel lands is tried again.
  bool cancelled = false;
  for (int attempt = 0; attempt < 20 && !cancelled; ++attempt) {
    LoadProgress p;
    PointCloud c;
    bool ok = true;
    std::atomic<bool> done{false};
    std::thread t([&] {
      ok = parse_point_cloud(d.data(), d.size(), "u.laz", FileFormat::kLaz, c, nullptr, &err, &p);
      done = true;
    });
    double seen = 0.0;
    while ((seen = p.fraction.load()) == 0.0 && !done) std::this_thread::yield();
    p.cancel = true;
    t.join();
    if (ok) {
      EXPECT_EQ(c.size(), 50000u);
      continue;
    }
    EXPECT_GT(seen, 0.0);
    EXPECT_LT(seen, 1.0);
    EXPECT_EQ(err, "u.laz: cancelled");
    EXPECT_TRUE(c.empty());
    cancelled = true;
  }
  EXPECT_TRUE(cancelled) << "no load was still decoding when cancelled";
}

/// The LAS twin of a LAZ file: its header and VLRs, the point format's compression bits cleared
/// and the LASzip VLR renamed (so that nothing calls it LAZ), and its decompressed records.
std::vector<uint8_t> las_twin(const std::string& name, const std::vector<uint8_t>& laz) {
  uint32_t offset;
  std::memcpy(&offset, laz.data() + 96, 4);
  std::vector<uint8_t> d(laz.begin(), laz.begin() + offset);
  d[104] &= 0x3F;
  const size_t vlr = vlr_payload(d, "laszip encoded", 22204);
  d[vlr - 54 + 2] = 'X';
  if (d.size() >= 375) std::memset(d.data() + 235, 0, 12);  // no EVLRs
  const std::vector<uint8_t> records = records_of(name, laz);
  d.insert(d.end(), records.begin(), records.end());
  return d;
}

TEST(IoLaz, ExtraBytesAreTheNamedFieldsOfTheLasTwin) {
  REQUIRE_TESTDATA("laz");
  // extra.laz: scalar Intensity (uint32) and Time (uint64) besides arrays and untyped bytes;
  // las_with_several_extra_byte_bloc.laz: Deviation (uint16) in the first of two descriptors.
  const std::pair<const char*, std::vector<std::string>> files[] = {
      {"extra.laz", {"Intensity", "Time"}},
      {"las_with_several_extra_byte_bloc.laz", {"Deviation"}}};
  for (const auto& [name, names] : files) {
    SCOPED_TRACE(name);
    const std::vector<uint8_t> laz = read_file(kData + "/laz/" + name);
    const std::vector<uint8_t> las = las_twin(name, laz);
    PointCloud a, b;
    FileInfo ia, ib;
    std::string err;
    ASSERT_TRUE(parse_point_cloud(laz.data(), laz.size(), name, FileFormat::kUnknown, a, &ia, &err))
        << err;
    ASSERT_TRUE(
        parse_point_cloud(las.data(), las.size(), "twin.las", FileFormat::kUnknown, b, &ib, &err))
        << err;
    EXPECT_EQ(ia.format, "LAZ");
    EXPECT_EQ(ib.format, "LAS");
    ASSERT_EQ(a.size(), b.size());
    ASSERT_EQ(a.fields.size(), names.size());
    ASSERT_EQ(b.fields.size(), names.size());
    for (size_t f = 0; f < names.size(); ++f) {
      EXPECT_EQ(a.fields[f].name, names[f]);
      EXPECT_EQ(b.fields[f].name, names[f]);
      EXPECT_EQ(a.fields[f].values, b.fields[f].values) << names[f];
      EXPECT_EQ(a.fields[f].values.capacity(), a.size());
    }
    // Under a point budget the fields follow the points kept.
    LoadOptions o;
    o.max_points = a.size() / 3;
    PointCloud c;
    ASSERT_TRUE(parse_point_cloud(laz.data(), laz.size(), name, FileFormat::kUnknown, c, nullptr,
                                  &err, nullptr, &o))
        << err;
    ASSERT_EQ(c.size(), o.max_points);
    ASSERT_EQ(c.fields.size(), names.size());
    for (size_t f = 0; f < names.size(); ++f) {
      ASSERT_EQ(c.fields[f].values.size(), c.size());
      for (size_t k = 0; k < c.size(); ++k)
        ASSERT_EQ(c.fields[f].values[k], a.fields[f].values[k * a.size() / c.size()]) << k;
    }
  }
}

}  // namespace
}  // namespace pr
