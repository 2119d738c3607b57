// The point-wise LAZ encoder (compressor 2: POINT10, GPSTIME11, RGB12 and BYTE, version 2) for
// point formats 0-3 with and without extra bytes: records written by ChunkWriter and read back by
// ChunkReader are the same bytes, for scanner-like sequences (slowly moving coordinates, returns
// sharing a GPS time, interleaved flight lines, big time jumps, constant fields), fully random
// bytes and identical records, in chunks of many points, of one and of two; the chunks end where
// the decoder stops reading. The records of the test data's LASzip-written files re-encode to
// exactly the chunks LASzip wrote, and decode back in formats 0-2 too. Small LAZ 1.2 files of these
// chunks (header, LASzip VLR, chunk table) read with laspy through lazrs and through LASzip give
// the same records (PR_TEST_PYTHON).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "engine/io/base/bytes.h"
#include "engine/io/io.h"
#include "engine/io/laz/chunk.h"
#include "engine/io/laz/chunk_table.h"
#include "engine/io/laz/writer.h"
#include "io_test_files.h"
#include "testdata.h"

#ifndef PR_TEST_PYTHON
#define PR_TEST_PYTHON ""
#endif

namespace pr {
namespace {

namespace fs = std::filesystem;
using io::get_le;
using io::put_le;
using io::laz::ChunkReader;
using io::laz::ChunkWriter;
using io::laz::Layout;
using io::laz::make_layout;
using test::file_bytes;

/// Byte offsets of the optional items in a record of `format` (POINT10 is at 0).
struct Offsets {
  size_t gps = 0, rgb = 0, extra = 0;
  bool has_gps = false, has_rgb = false;
};

Offsets offsets_of(int format) {
  Offsets o;
  size_t at = 20;
  if (format == 1 || format == 3) o.has_gps = true, o.gps = at, at += 8;
  if (format == 2 || format == 3) o.has_rgb = true, o.rgb = at, at += 6;
  o.extra = at;
  return o;
}

// ---------------------------------------------------------------- records

/// A scanner's records: pulses along zigzag scan lines of several flight lines whose points
/// interleave in runs, 1-4 returns a pulse sharing its GPS time, now and then a big jump in time
/// (and, for a few records, a time repeated from another line); intensity, classification, scan
/// angle and colors that change slowly or not at all; extra bytes a constant, a counter and noise.
std::vector<uint8_t> scanner_records(int format, uint16_t extra, size_t n, uint32_t seed) {
  const Layout lo = make_layout(format, extra);
  const Offsets o = offsets_of(format);
  std::mt19937 rng(seed);
  auto uni = [&](int a, int b) { return std::uniform_int_distribution<int>(a, b)(rng); };
  struct Line {
    double time;
    int32_t x, y, z;
    int dir;
    uint16_t psid;
  };
  std::vector<Line> lines;
  for (int i = 0; i < 3; ++i)
    lines.push_back(
        {300000.0 + 1800.0 * i, 500000 + 20000 * i, 4000000, 12000, 1, uint16_t(7 + i)});
  std::vector<uint8_t> recs(n * lo.record_length);
  size_t li = 0, run = 0;
  int returns = 1, ret = 1;
  uint16_t rgb[3] = {20000, 21000, 19000};
  for (size_t i = 0; i < n; ++i) {
    if (run == 0) li = size_t(uni(0, 2)), run = size_t(uni(1, 60));
    --run;
    Line& L = lines[li];
    if (ret > returns) {  // a new pulse
      returns = uni(1, 4), ret = 1;
      L.time += 1e-5 * (uni(0, 20) == 0 ? 3 : 1);
      if (uni(0, 900) == 0) L.time += 5e5;  // a big jump
      L.x += L.dir * uni(20, 40);
      L.y += uni(-3, 3);
      if (uni(0, 300) == 0) L.dir = -L.dir, L.y += 150;  // the next scan line
    }
    L.z += uni(-30, 30);
    uint8_t* r = recs.data() + i * lo.record_length;
    put_le(r, L.x + uni(-2, 2));
    put_le(r + 4, L.y);
    put_le(r + 8, L.z - 40 * (ret - 1));
    put_le(r + 12, uint16_t(ret == 1 ? uni(200, 260) : uni(20, 2000)));
    const int edge = uni(0, 300) == 0;
    r[14] = uint8_t(ret | (returns << 3) | ((L.dir > 0) << 6) | (edge << 7));
    r[15] = uint8_t(uni(0, 20) == 0 ? uni(3, 6) : (ret == returns ? 2 : 1));
    r[16] = uint8_t(int8_t(((L.x / 40) % 60) - 30));
    r[17] = 0;
    put_le(r + 18, L.psid);
    if (o.has_gps) put_le(r + o.gps, uni(0, 2000) == 0 ? lines[(li + 1) % 3].time : L.time);
    if (o.has_rgb) {
      const int gray = uni(0, 10) == 0;
      for (int c = 0; c < 3; ++c) rgb[c] = uint16_t(std::clamp(rgb[c] + uni(-300, 300), 0, 65535));
      for (int c = 0; c < 3; ++c) put_le(r + o.rgb + 2 * size_t(c), gray ? rgb[0] : rgb[c]);
    }
    for (uint16_t b = 0; b < extra; ++b)
      r[o.extra + b] = uint8_t(b == 0 ? 42 : (b == 1 ? i & 0xFF : uni(0, 255)));
    ++ret;
  }
  return recs;
}

std::vector<uint8_t> random_records(const Layout& lo, size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> recs(n * lo.record_length);
  for (auto& b : recs) b = uint8_t(rng());
  return recs;
}

// ---------------------------------------------------------------- chunks

struct Chunks {
  std::vector<uint8_t> bytes;
  std::vector<uint64_t> sizes, counts;
};

/// The records in chunks of `chunk` points, by one ChunkWriter started afresh for each.
Chunks encode(const Layout& lo, const std::vector<uint8_t>& recs, size_t chunk) {
  const size_t n = recs.size() / lo.record_length;
  Chunks c;
  ChunkWriter w(lo);
  for (size_t i = 0; i < n; i += chunk) {
    const size_t end = std::min(n, i + chunk);
    w.start();
    for (size_t k = i; k < end; ++k) w.add(recs.data() + k * lo.record_length);
    EXPECT_EQ(w.count(), end - i);
    const size_t before = c.bytes.size();
    w.finish(c.bytes);
    c.sizes.push_back(c.bytes.size() - before);
    c.counts.push_back(end - i);
  }
  return c;
}

/// Decodes every chunk with ChunkReader: the records come back byte for byte, no chunk is read
/// past its end and each is read to its last byte. Names the first record that differs.
void expect_decodes(const Layout& lo, const std::vector<uint8_t>& recs, const Chunks& c) {
  ChunkReader r(lo);
  const size_t rec = lo.record_length;
  std::vector<uint8_t> got(rec);
  size_t at = 0, point = 0;
  for (size_t k = 0; k < c.sizes.size(); ++k) {
    std::string why;
    ASSERT_TRUE(r.start(c.bytes.data() + at, c.sizes[k], c.counts[k], &why)) << why;
    for (uint64_t i = 0; i < c.counts[k]; ++i, ++point) {
      r.next(got.data());
      const uint8_t* want = recs.data() + point * rec;
      if (std::memcmp(got.data(), want, rec) != 0) {
        size_t b = 0;
        while (got[b] == want[b]) ++b;
        FAIL() << "record " << point << " (chunk " << k << ", point " << i << ") differs at byte "
               << b << " of " << rec;
      }
    }
    EXPECT_FALSE(r.overrun()) << "chunk " << k;
    EXPECT_EQ(r.consumed(), c.sizes[k]) << "chunk " << k << " of " << c.counts[k] << " points";
    at += c.sizes[k];
  }
  EXPECT_EQ(point, recs.size() / rec);
}

void round_trip(const Layout& lo, const std::vector<uint8_t>& recs, size_t chunk) {
  expect_decodes(lo, recs, encode(lo, recs, chunk));
}

constexpr uint16_t kExtras[] = {0, 3};

TEST(IoLazEncodePointwise, ScannerSequencesRoundTrip) {
  for (int format = 0; format <= 3; ++format) {
    for (uint16_t extra : kExtras) {
      SCOPED_TRACE("format " + std::to_string(format) + ", " + std::to_string(extra) + " extra");
      const Layout lo = make_layout(format, extra);
      const auto recs = scanner_records(format, extra, 6000, uint32_t(format * 10 + extra));
      round_trip(lo, recs, 2500);
    }
  }
}

TEST(IoLazEncodePointwise, RandomBytesRoundTrip) {
  for (int format = 0; format <= 3; ++format) {
    for (uint16_t extra : {uint16_t(0), uint16_t(1), uint16_t(9)}) {
      SCOPED_TRACE("format " + std::to_string(format) + ", " + std::to_string(extra) + " extra");
      const Layout lo = make_layout(format, extra);
      round_trip(lo, random_records(lo, 3000, uint32_t(format + 100 * extra)), 1200);
    }
  }
}

TEST(IoLazEncodePointwise, ConstantRecordsRoundTrip) {
  for (int format = 0; format <= 3; ++format) {
    SCOPED_TRACE("format " + std::to_string(format));
    const Layout lo = make_layout(format, 2);
    const auto one = random_records(lo, 1, uint32_t(format));
    std::vector<uint8_t> recs;
    for (int i = 0; i < 3000; ++i) recs.insert(recs.end(), one.begin(), one.end());
    const Chunks c = encode(lo, recs, 3000);
    expect_decodes(lo, recs, c);
    // Nothing changes: each point codes about ten near-certain symbols (a model's counts are
    // halved at 2^15, so certainty still costs a fraction of a bit): under 3 bits a point.
    EXPECT_LT(c.bytes.size() - lo.record_length, 3000u * 3 / 8);
  }
}

TEST(IoLazEncodePointwise, ChunksOfOneAndTwoPoints) {
  for (int format = 0; format <= 3; ++format) {
    SCOPED_TRACE("format " + std::to_string(format));
    const Layout lo = make_layout(format, 4);
    const auto recs = scanner_records(format, 4, 301, uint32_t(format));
    for (size_t chunk : {size_t(1), size_t(2), size_t(7)}) {
      SCOPED_TRACE("chunks of " + std::to_string(chunk));
      round_trip(lo, recs, chunk);
    }
    // A single point's chunk is the record and the four bytes the decoder reads at its start.
    const Chunks c = encode(lo, recs, 1);
    EXPECT_EQ(c.sizes.front(), lo.record_length + 4);
  }
}

/// Fields that the scanner records leave alone, each on its own: GPS time unchanged for long
/// runs, then differences that are multiples, negative and zero, times far apart.
TEST(IoLazEncodePointwise, GpsTimeCodesRoundTrip) {
  const Layout lo = make_layout(1, 0);
  std::mt19937 rng(5);
  std::vector<uint8_t> recs = scanner_records(1, 0, 4000, 9);
  const Offsets o = offsets_of(1);
  double t = 1e5;
  const double steps[] = {0.0, 1e-6, 2e-6, 3e-5, 1e-3, -1e-6, -4e-6, -1e-3, 1e4, -1e4, 7e-7};
  for (size_t i = 0; i < 4000; ++i) {
    if (i % 200 == 0) t = double(rng() % 1000000) * (rng() % 2 ? 1.0 : -1.0);
    t += steps[rng() % std::size(steps)];
    put_le(recs.data() + i * lo.record_length + o.gps, i % 500 < 100 ? std::floor(t) : t);
  }
  round_trip(lo, recs, 1500);
}

// ---------------------------------------------------------------- real files

/// Records of a LAZ file of the test data (format 3) as format `format` (its fields without GPS
/// time or RGB where that format has none; the extra bytes kept).
std::vector<uint8_t> as_format(const std::vector<uint8_t>& recs, size_t rec, int format) {
  const size_t extra = rec - 34;
  const Offsets o = offsets_of(format);
  const size_t out_rec = o.extra + extra;
  std::vector<uint8_t> out(recs.size() / rec * out_rec);
  for (size_t i = 0; i < recs.size() / rec; ++i) {
    const uint8_t* r = recs.data() + i * rec;
    uint8_t* w = out.data() + i * out_rec;
    std::memcpy(w, r, 20);
    if (o.has_gps) std::memcpy(w + o.gps, r + 20, 8);
    if (o.has_rgb) std::memcpy(w + o.rgb, r + 28, 6);
    std::memcpy(w + o.extra, r + 34, extra);
  }
  return out;
}

const char* const kLaszipFiles[] = {"autzen_trim.laz", "plane.laz", "simple.laz", "extra.laz",
                                    "laszip-generated.laz"};

TEST(IoLazEncodePointwise, LaszipFilesReencodeToTheirOwnChunks) {
  REQUIRE_TESTDATA("laz");
  for (const char* name : kLaszipFiles) {
    SCOPED_TRACE(name);
    const std::string path = test::data_path("laz") + "/" + name;
    std::vector<uint8_t> recs;
    size_t rec = 0;
    std::string err;
    ASSERT_TRUE(decompress_laz(path, recs, &rec, &err)) << err;
    ASSERT_GE(rec, 34u);
    // Each file is LASzip's point-wise v2 in chunks of 50000: its chunks lie between the chunk
    // table's offset (the first 8 bytes of the point data) and the chunk table.
    const std::vector<uint8_t> file = file_bytes(path);
    const uint32_t data_at = get_le<uint32_t>(file.data() + 96);
    const auto table_at = size_t(get_le<int64_t>(file.data() + data_at));
    ASSERT_LE(table_at, file.size());
    const std::vector<uint8_t> theirs(file.begin() + data_at + 8, file.begin() + int64_t(table_at));
    const Layout lo = make_layout(3, uint16_t(rec - 34));
    const Chunks ours = encode(lo, recs, 50000);
    EXPECT_EQ(ours.bytes.size(), theirs.size());
    EXPECT_TRUE(ours.bytes == theirs) << "the chunks differ from LASzip's";
    expect_decodes(lo, recs, ours);
    // Formats 0-2: the fields of the first 20000 records.
    recs.resize(std::min(recs.size(), 20000 * rec));
    for (int format = 0; format <= 2; ++format) {
      SCOPED_TRACE("as format " + std::to_string(format));
      const std::vector<uint8_t> sub = as_format(recs, rec, format);
      round_trip(make_layout(format, uint16_t(rec - 34)), sub, 7000);
    }
  }
}

// ---------------------------------------------------------------- LAZ files read by laspy

/// The chunk table (fixed chunk size: only each chunk's byte count, coded as the difference to
/// the previous one).
std::vector<uint8_t> chunk_table(const Chunks& c) {
  const std::vector<uint8_t> stream = io::laz::encode_chunk_table({}, c.sizes, false);
  std::vector<uint8_t> table(8);
  put_le(table.data(), uint32_t(0));  // version
  put_le(table.data() + 4, uint32_t(c.sizes.size()));
  table.insert(table.end(), stream.begin(), stream.end());
  return table;
}

/// A LAZ 1.2 file of `recs` (format `format`) in chunks of `chunk` points.
std::vector<uint8_t> laz_file(int format, uint16_t extra, const std::vector<uint8_t>& recs,
                              uint32_t chunk) {
  const Layout lo = make_layout(format, extra, chunk);
  const std::vector<uint8_t> vlr = io::laz::layout_vlr(lo);
  const Chunks c = encode(lo, recs, chunk);
  const size_t n = recs.size() / lo.record_length;
  const uint32_t data_at = uint32_t(227 + 54 + vlr.size());
  std::vector<uint8_t> f(data_at);
  std::memcpy(f.data(), "LASF", 4);
  f[24] = 1, f[25] = 2;  // version 1.2
  std::memcpy(f.data() + 58, "pointraster test", 16);
  put_le(f.data() + 94, uint16_t(227));
  put_le(f.data() + 96, data_at);
  put_le(f.data() + 100, uint32_t(1));
  f[104] = uint8_t(format | 0x80);  // compressed
  put_le(f.data() + 105, uint16_t(lo.record_length));
  put_le(f.data() + 107, uint32_t(n));
  for (int a = 0; a < 3; ++a) put_le(f.data() + 131 + 8 * size_t(a), 0.01);
  // The bounds (max, min per axis), in scaled units.
  for (int a = 0; a < 3; ++a) {
    int32_t lo_v = INT32_MAX, hi_v = INT32_MIN;
    for (size_t i = 0; i < n; ++i) {
      const int32_t v = get_le<int32_t>(recs.data() + i * lo.record_length + 4 * size_t(a));
      lo_v = std::min(lo_v, v), hi_v = std::max(hi_v, v);
    }
    put_le(f.data() + 179 + 16 * size_t(a), hi_v * 0.01);
    put_le(f.data() + 187 + 16 * size_t(a), lo_v * 0.01);
  }
  uint8_t* v = f.data() + 227;
  std::memcpy(v + 2, "laszip encoded", 14);
  put_le(v + 18, uint16_t(22204));
  put_le(v + 20, uint16_t(vlr.size()));
  std::memcpy(v + 54, vlr.data(), vlr.size());
  const uint64_t table_at = data_at + 8 + c.bytes.size();
  const size_t at = f.size();
  f.resize(at + 8);
  put_le(f.data() + at, int64_t(table_at));
  f.insert(f.end(), c.bytes.begin(), c.bytes.end());
  const std::vector<uint8_t> table = chunk_table(c);
  f.insert(f.end(), table.begin(), table.end());
  return f;
}

// Reads each LAZ file with laspy through lazrs and through LASzip and compares the records with
// the raw ones beside it; one line per file and backend.
const char* const kLaspyCheck = R"(import sys, laspy
bad = 0
for pair in sys.argv[1:]:
    laz, raw = pair.split(",")
    want = open(raw, "rb").read()
    for backend in (laspy.LazBackend.Lazrs, laspy.LazBackend.Laszip):
        try:
            got = laspy.read(laz, laz_backend=backend).points.array.tobytes()
        except Exception as e:
            print(laz, backend.name, "fails:", e)
            bad += 1
            continue
        if got == want:
            print(laz, backend.name, "same")
        else:
            at = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
            print(laz, backend.name, "differs at byte", at, "of", len(want), "got", len(got))
            bad += 1
sys.exit(1 if bad else 0)
)";

bool run(const std::string& command, const fs::path& log, std::string& out) {
  const int rc = std::system((command + " > " + log.string() + " 2>&1").c_str());
  std::ifstream in(log);
  out.assign(std::istreambuf_iterator<char>(in), {});
  return rc == 0;
}

void write_bytes(const fs::path& path, const std::vector<uint8_t>& d) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(d.data()), std::streamsize(d.size()));
}

TEST(IoLazEncodePointwise, LaspyReadsOurFilesThroughLazrsAndLaszip) {
  const std::string python = PR_TEST_PYTHON;
  if (python.empty()) GTEST_SKIP() << "no Python with laspy, lazrs and laszip (PR_TEST_PYTHON)";
  const fs::path dir = fs::temp_directory_path() / ("pr_laz_pw_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string args;
  size_t files = 0;
  auto add = [&](const std::string& name, int format, uint16_t extra,
                 const std::vector<uint8_t>& recs) {
    write_bytes(dir / (name + ".laz"), laz_file(format, extra, recs, 1000));
    write_bytes(dir / (name + ".bin"), recs);
    args += " " + (dir / (name + ".laz")).string() + "," + (dir / (name + ".bin")).string();
    ++files;
  };
  for (int format = 0; format <= 3; ++format) {
    for (uint16_t extra : kExtras) {
      const std::string name = "f" + std::to_string(format) + "e" + std::to_string(extra);
      add(name, format, extra, scanner_records(format, extra, 2500, uint32_t(format + extra)));
    }
  }
  const Layout lo3 = make_layout(3, 5);
  // 2001 points: the last chunk holds one.
  add("random", 3, 5, random_records(lo3, 2001, 3));
  std::ofstream(dir / "check.py") << kLaspyCheck;
  std::string out;
  const bool ok = run(python + " " + (dir / "check.py").string() + args, dir / "log.txt", out);
  EXPECT_TRUE(ok) << out;
  size_t same = 0;
  for (size_t p = out.find(" same"); p != std::string::npos; p = out.find(" same", p + 1)) ++same;
  EXPECT_EQ(same, 2 * files) << out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pr
