// The layered LAZ encoder (POINT14, RGB14, RGBNIR14, BYTE14 version 3; point formats 6, 7 and 8,
// with and without extra bytes): records through ChunkWriter and back through ChunkReader come
// back byte for byte, for survey-like sequences (slowly varying coordinates, several scanner
// channels, returns sharing GPS times, interleaved time sequences, fields that never change and
// leave their layers empty, fields that first change late in the chunk) and for random bytes in
// every field, in several chunks, chunks of one and two points among them. A chunk whose first
// layer is empty is refused. The records of the test data's LAZ/COPC files of formats 6-8 re-encode
// to the same records, and the first chunk of files LASzip and laz-rs wrote re-encodes to its very
// bytes. A complete LAZ 1.4 file of our chunks (header, LASzip VLR, chunk table) reads back through
// laspy with the lazrs backend and with the laszip backend record for record (PR_TEST_PYTHON).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "engine/io/base/bytes.h"
#include "engine/io/io.h"
#include "engine/io/laz/chunk.h"
#include "engine/io/laz/chunk_table.h"
#include "engine/io/laz/writer.h"
#include "testdata.h"

#ifndef PR_TEST_PYTHON
#define PR_TEST_PYTHON ""
#endif

namespace pr {
namespace {

namespace fs = std::filesystem;
using io::get_le;
using io::put_le;
namespace laz = io::laz;
using laz::ChunkReader;
using laz::ChunkWriter;
using laz::Layout;

size_t color_size(int format) {
  return format == 7 ? 6 : format == 8 ? 8 : 0;
}

/// Survey-like records: each scanner channel sweeps its own line (coordinates drifting by a few
/// units), pulses of 1-4 returns share a GPS time, times advance in regular steps with jumps and
/// returns to earlier sequences; classification, intensity, scan angle and colour vary, while the
/// classification flags, user data, point source, NIR and the first extra byte never change.
std::vector<uint8_t> survey_records(int format, uint16_t extra, size_t n, uint64_t seed) {
  const size_t cs = color_size(format), rec = 30 + cs + extra;
  std::vector<uint8_t> out(n * rec);
  std::mt19937_64 rng(seed);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  struct Line {
    int32_t x, y, z;
    double t;
    uint16_t rgb[3];
  } lines[4];
  for (int c = 0; c < 4; ++c)
    lines[c] = {uni(0, 1 << 20), uni(0, 1 << 20), uni(0, 5000), 1e5 * (c + 1), {1000, 2000, 3000}};
  const int channels = uni(2, 4);
  int channel = 0, nret = 1, r = 1;
  uint8_t cls = 2;
  for (size_t i = 0; i < n; ++i) {
    uint8_t* p = &out[i * rec];
    if (r > nret) {  // a new pulse, perhaps on another channel
      if (uni(0, 40) == 0) channel = uni(0, channels - 1);
      Line& l = lines[channel];
      nret = uni(0, 3) == 0 ? uni(2, 4) : 1;
      r = 1;
      l.t += uni(0, 20) == 0 ? 1e-3 * uni(1, 9) : 1e-5;
      if (uni(0, 500) == 0) l.t += 3600.0;  // the next flight line
      l.x += uni(-40, 40);
      l.y += uni(-40, 40);
      l.z += uni(-20, 20);
      if (uni(0, 10) == 0)
        for (auto& c : l.rgb) c = uint16_t(c + uni(-300, 300));
    }
    Line& l = lines[channel];
    put_le(p, l.x + uni(-3, 3));
    put_le(p + 4, l.y + uni(-3, 3));
    put_le(p + 8, l.z - 50 * (r - 1));
    put_le(p + 12, uint16_t(uni(100, 400) / r));
    p[14] = uint8_t(r | (nret << 4));
    p[15] = uint8_t(channel << 4);  // classification flags, scan direction, edge: 0
    if (uni(0, 30) == 0) cls = uint8_t(uni(1, 6));
    p[16] = cls;
    p[17] = 7;                                               // user data
    put_le(p + 18, int16_t(int(l.x / 4000) % 3000 - 1500));  // scan angle
    put_le(p + 20, uint16_t(12));                            // point source
    put_le(p + 22, l.t);                                     // GPS time
    if (cs) std::memcpy(p + 30, l.rgb, 6);
    if (cs == 8) put_le(p + 36, uint16_t(4242));  // NIR
    for (uint16_t e = 0; e < extra; ++e) p[30 + cs + e] = uint8_t(e == 0 ? 9 : uni(0, e * 8));
    ++r;
  }
  return out;
}

std::vector<uint8_t> random_records(size_t rec, size_t n, uint64_t seed) {
  std::vector<uint8_t> out(n * rec);
  std::mt19937_64 rng(seed);
  for (auto& b : out) b = uint8_t(rng());
  return out;
}

/// Encodes `records` as consecutive chunks of the given sizes (the last repeated to the end).
std::vector<std::vector<uint8_t>> encode(const Layout& lo, const std::vector<uint8_t>& records,
                                         const std::vector<size_t>& sizes) {
  const size_t rec = lo.record_length, n = records.size() / rec;
  std::vector<std::vector<uint8_t>> chunks;
  ChunkWriter w(lo);
  size_t at = 0;
  for (size_t k = 0; at < n; ++k) {
    const size_t m = std::min(sizes[std::min(k, sizes.size() - 1)], n - at);
    w.start();
    for (size_t i = 0; i < m; ++i) w.add(&records[(at + i) * rec]);
    EXPECT_EQ(w.count(), m);
    chunks.emplace_back();
    w.finish(chunks.back());
    at += m;
  }
  return chunks;
}

/// Decodes the chunks with ChunkReader and expects `records` back; also that every decoder stays
/// within its layer and that the reader consumes each chunk exactly.
void expect_round_trip(const Layout& lo, const std::vector<uint8_t>& records,
                       const std::vector<size_t>& sizes) {
  const size_t rec = lo.record_length;
  const auto chunks = encode(lo, records, sizes);
  ChunkReader reader(lo);
  std::vector<uint8_t> got(rec);
  size_t at = 0;
  for (size_t c = 0; c < chunks.size(); ++c) {
    const uint32_t count = get_le<uint32_t>(chunks[c].data() + rec);
    std::string why;
    ASSERT_TRUE(reader.start(chunks[c].data(), chunks[c].size(), count, &why)) << why;
    for (uint32_t i = 0; i < count; ++i, ++at) {
      reader.next(got.data());
      ASSERT_EQ(0, std::memcmp(got.data(), &records[at * rec], rec))
          << "chunk " << c << ", point " << i << " (record " << at << ")";
    }
    EXPECT_FALSE(reader.overrun()) << "chunk " << c;
    EXPECT_EQ(reader.consumed(), chunks[c].size()) << "chunk " << c;
  }
  EXPECT_EQ(at * rec, records.size());
}

struct Case {
  int format;
  uint16_t extra;
};
const Case kCases[] = {{6, 0}, {6, 3}, {7, 0}, {7, 5}, {8, 0}, {8, 2}};

TEST(IoLazEncode, SurveyRecordsRoundTrip) {
  for (const Case& c : kCases) {
    SCOPED_TRACE("format " + std::to_string(c.format) + ", extra " + std::to_string(c.extra));
    const Layout lo = laz::make_layout(c.format, c.extra);
    const auto records = survey_records(c.format, c.extra, 6000, 17 + c.format);
    expect_round_trip(lo, records, {1, 2, 2500, 1000});
  }
}

TEST(IoLazEncode, RandomBytesRoundTrip) {
  for (const Case& c : kCases) {
    SCOPED_TRACE("format " + std::to_string(c.format) + ", extra " + std::to_string(c.extra));
    const Layout lo = laz::make_layout(c.format, c.extra);
    const auto records = random_records(lo.record_length, 3000, 99 + c.extra);
    expect_round_trip(lo, records, {2, 1, 1500, 700});
  }
}

/// Random records whose fields take few values: frequent channel switches, equal and repeated
/// GPS times (and -0.0 beside 0.0, NaN), returns beyond the number of returns, extreme values.
TEST(IoLazEncode, FewValuesRoundTrip) {
  std::mt19937_64 rng(5);
  for (const Case& c : kCases) {
    SCOPED_TRACE("format " + std::to_string(c.format) + ", extra " + std::to_string(c.extra));
    const Layout lo = laz::make_layout(c.format, c.extra);
    const size_t rec = lo.record_length, n = 4000;
    std::vector<uint8_t> records(n * rec);
    const double times[] = {0.0, -0.0, 1.0, 1.0 + 1e-9, NAN, 1e300, -5.5, 86400.25};
    const int32_t coords[] = {0, 1, -1, INT32_MAX, INT32_MIN, 1000, 1001};
    for (size_t i = 0; i < n; ++i) {
      uint8_t* p = &records[i * rec];
      for (int k = 0; k < 3; ++k) put_le(p + 4 * k, coords[rng() % 7]);
      for (size_t b = 12; b < rec; ++b) p[b] = uint8_t(rng() % 4 == 0 ? rng() : (rng() & 3) * 85);
      if (rng() % 3) put_le(p + 22, times[rng() % 8]);
    }
    expect_round_trip(lo, records, {1000, 1, 2, 3000});
  }
}

/// Layer sizes of a layered chunk: after the first record and the point count.
std::vector<uint32_t> layer_sizes(const std::vector<uint8_t>& chunk, size_t rec, size_t layers) {
  std::vector<uint32_t> s(layers);
  for (size_t i = 0; i < layers; ++i) s[i] = get_le<uint32_t>(chunk.data() + rec + 4 + 4 * i);
  return s;
}

TEST(IoLazEncode, UnchangingFieldsLeaveTheirLayersEmpty) {
  const Layout lo = laz::make_layout(8, 2);
  const auto records = survey_records(8, 2, 3000, 3);
  const auto chunks = encode(lo, records, {3000});
  ASSERT_EQ(chunks.size(), 1u);
  // POINT14: XY, Z, classification, flags, intensity, angle, user, source, GPS; RGB, NIR;
  // the two extra bytes.
  const auto s = layer_sizes(chunks[0], lo.record_length, 9 + 2 + 2);
  for (size_t i : {0, 1, 2, 4, 5, 8, 9, 12}) EXPECT_GT(s[i], 0u) << "layer " << i;
  for (size_t i : {3, 6, 7, 10, 11}) EXPECT_EQ(s[i], 0u) << "layer " << i;
  size_t total = lo.record_length + 4 + 4 * s.size();
  for (uint32_t v : s) total += v;
  EXPECT_EQ(total, chunks[0].size());
  // A chunk of one point: the record, the count, XY and Z ended with nothing in them, the rest
  // empty.
  const auto one = encode(lo, records, {1});
  const auto s1 = layer_sizes(one[0], lo.record_length, s.size());
  for (size_t i = 2; i < s1.size(); ++i) EXPECT_EQ(s1[i], 0u) << "layer " << i;
  EXPECT_EQ(std::memcmp(one[0].data(), records.data(), lo.record_length), 0);
}

/// Classification, flags, intensity, user data, a grey colour, NIR and the extra bytes constant
/// for a long start of the chunk (over channel switches) and changing from a different point on
/// each: their layers' symbols of the constant start, coded only once the field changes, come out
/// in order with the right models.
TEST(IoLazEncode, LateFirstChangesRoundTrip) {
  for (const Case& c : kCases) {
    SCOPED_TRACE("format " + std::to_string(c.format) + ", extra " + std::to_string(c.extra));
    const Layout lo = laz::make_layout(c.format, c.extra);
    const size_t rec = lo.record_length, n = 3000;
    auto records = survey_records(c.format, c.extra, n, 71 + c.format);
    std::mt19937_64 rng(c.format);
    for (size_t i = 0; i < n; ++i) {
      uint8_t* p = &records[i * rec];
      p[15] = uint8_t((p[15] & 0x30) | (i < 1200 ? 0 : rng() & 0xCF));  // flags from 1200
      if (i < 700) p[16] = 3;                                           // class from 700
      if (i < 1900) put_le(p + 12, uint16_t(100));                      // intensity from 1900
      p[17] = uint8_t(i < 2500 ? 7 : rng());                            // user data from 2500
      if (i % 97 == 0) p[15] = uint8_t((p[15] & 0xCF) | ((i / 97) % 4) << 4);  // channels
      const size_t cs = color_size(c.format);
      if (cs && i < 1500)  // grey from 1500
        for (int k = 0; k < 3; ++k) put_le(p + 30 + 2 * k, uint16_t(1000));
      if (cs == 8) put_le(p + 36, uint16_t(i < 2200 ? 4242 : rng()));  // NIR from 2200
      for (uint16_t e = 0; e < c.extra; ++e)
        p[30 + cs + e] =
            uint8_t(i < 800 + 500 * size_t(e) ? 9 : rng());  // extra bytes from 800, ...
    }
    expect_round_trip(lo, records, {n});
    const auto chunks = encode(lo, records, {n});
    const size_t layers = 9 + (c.format == 7 ? 1 : c.format == 8 ? 2 : 0) + c.extra;
    const auto s = layer_sizes(chunks[0], rec, layers);
    for (size_t l = 0; l < layers; ++l) {
      if (l == 5 || l == 7) continue;  // scan angle and point source change as they do
      EXPECT_GT(s[l], 0u) << "layer " << l;
    }
  }
}

TEST(IoLazEncode, WriteChunkAndChunkWriterAgree) {
  const Layout lo = laz::make_layout(7, 1);
  const auto records = survey_records(7, 1, 2000, 8);
  std::vector<uint8_t> a;
  laz::write_chunk(lo, records.data(), 2000, a);
  const auto b = encode(lo, records, {2000});
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(a, b[0]);
  // Chunks are independent: the writer reused after a chunk gives the same bytes again.
  const auto c = encode(lo, records, {700, 2000});
  std::vector<uint8_t> d;
  laz::write_chunk(lo, records.data() + 700 * lo.record_length, 1300, d);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[1], d);
}

/// A layered chunk of several points whose first layer (read for every point after the first) is
/// empty is refused, not decoded from an uninitialised or earlier chunk's decoder.
TEST(IoLazEncode, ChunkWithoutItsFirstLayerIsRefused) {
  const Layout lo = laz::make_layout(6, 0);
  const auto records = survey_records(6, 0, 3, 1);
  std::vector<uint8_t> chunk;
  laz::write_chunk(lo, records.data(), 3, chunk);
  ChunkReader reader(lo);
  std::string why;
  ASSERT_TRUE(reader.start(chunk.data(), chunk.size(), 3, &why)) << why;
  put_le(chunk.data() + lo.record_length + 4, uint32_t(0));
  EXPECT_FALSE(reader.start(chunk.data(), chunk.size(), 3, &why));
  EXPECT_NE(why.find("first layer"), std::string::npos) << why;
}

std::vector<uint8_t> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

/// Point format and extra bytes of a LAS/LAZ file's header.
void record_format(const std::vector<uint8_t>& file, int& format, uint16_t& extra) {
  format = file[104] & 0x3F;
  const size_t standard = format == 6 ? 30 : format == 7 ? 36 : 38;
  extra = uint16_t(get_le<uint16_t>(&file[105]) - standard);
}

/// The first chunk of a LAZ file with fixed-size chunks: where its bytes start (after the chunk
/// table's offset) and its records, decoded.
struct FirstChunk {
  int format = 0;
  uint16_t extra = 0;
  size_t begin = 0;
  std::vector<uint8_t> records;
};

void read_first_chunk(const std::vector<uint8_t>& file, FirstChunk& fc) {
  record_format(file, fc.format, fc.extra);
  Layout lo;
  size_t at = get_le<uint16_t>(&file[94]);
  for (uint32_t v = 0; v < get_le<uint32_t>(&file[100]); ++v) {
    const uint16_t len = get_le<uint16_t>(&file[at + 20]);
    std::string why;
    if (get_le<uint16_t>(&file[at + 18]) == 22204) {
      ASSERT_TRUE(laz::parse_layout(&file[at + 54], len, lo, &why)) << why;
    }
    at += 54 + len;
  }
  ASSERT_NE(lo.chunk_size, 0xFFFFFFFFu);
  const uint64_t count = std::min<uint64_t>(lo.chunk_size, get_le<uint64_t>(&file[247]));
  fc.begin = get_le<uint32_t>(&file[96]) + 8;
  ChunkReader reader(lo);
  std::string why;
  ASSERT_TRUE(reader.start(&file[fc.begin], file.size() - fc.begin, count, &why)) << why;
  fc.records.resize(count * lo.record_length);
  for (uint64_t i = 0; i < count; ++i) reader.next(&fc.records[i * lo.record_length]);
  ASSERT_FALSE(reader.overrun());
}

TEST(IoLazEncode, SharedFilesReencode) {
  REQUIRE_TESTDATA("laz");
  // COPC files (format 7, a chunk per node): every record.
  for (const char* name : {"simple.copc.laz", "1.2-with-color.copc.laz"}) {
    SCOPED_TRACE(name);
    const std::string path = test::kData + "/laz/" + name;
    std::vector<uint8_t> records;
    size_t rec = 0;
    std::string err;
    ASSERT_TRUE(decompress_laz(path, records, &rec, &err)) << err;
    int format;
    uint16_t extra;
    record_format(file_bytes(path), format, extra);
    const Layout lo = laz::make_layout(format, extra);
    ASSERT_EQ(lo.record_length, rec);
    expect_round_trip(lo, records, {1, 2, 300, 12345});
  }
  // Fixed chunks: the first one (formats 6 and 8 with extra bytes).
  for (const char* name : {"1_4_w_evlr.laz", "las_with_several_extra_byte_bloc.laz"}) {
    SCOPED_TRACE(name);
    FirstChunk fc;
    read_first_chunk(file_bytes(test::kData + "/laz/" + name), fc);
    expect_round_trip(laz::make_layout(fc.format, fc.extra), fc.records, {2, 1, 777, 20000});
  }
}

/// Files LASzip (las_with_several_extra_byte_bloc.laz, LASzip 3.4r3) and laz-rs (1_4_w_evlr.laz)
/// wrote with fixed chunks of 50000 points: their first chunk's records encode to that chunk's
/// bytes exactly (the same predictions, models, layer choices and stream ends).
TEST(IoLazEncode, SameChunkBytesAsLaszipAndLazrs) {
  REQUIRE_TESTDATA("laz");
  for (const char* name : {"1_4_w_evlr.laz", "las_with_several_extra_byte_bloc.laz"}) {
    SCOPED_TRACE(name);
    const auto file = file_bytes(test::kData + "/laz/" + name);
    FirstChunk fc;
    read_first_chunk(file, fc);
    const Layout lo = laz::make_layout(fc.format, fc.extra);
    std::vector<uint8_t> chunk;
    laz::write_chunk(lo, fc.records.data(), fc.records.size() / lo.record_length, chunk);
    ASSERT_LE(fc.begin + chunk.size(), file.size());
    EXPECT_EQ(0, std::memcmp(chunk.data(), &file[fc.begin], chunk.size()));
  }
}

// ---------------------------------------------------------------- a LAZ file for laspy

/// The chunk table LASzip reads for variable chunks: version 0, the chunk count, then each
/// chunk's point count and byte size as integers predicted from the previous chunk's, in one
/// arithmetic stream.
std::vector<uint8_t> chunk_table(const std::vector<std::vector<uint8_t>>& chunks, size_t rec) {
  std::vector<uint8_t> out(8, 0);
  put_le(out.data() + 4, uint32_t(chunks.size()));
  std::vector<uint64_t> counts, bytes;
  for (const auto& c : chunks) {
    counts.push_back(get_le<uint32_t>(c.data() + rec));
    bytes.push_back(c.size());
  }
  const std::vector<uint8_t> stream = laz::encode_chunk_table(counts, bytes, true);
  out.insert(out.end(), stream.begin(), stream.end());
  return out;
}

/// A LAZ 1.4 file: the 375-byte header, the LASzip VLR, the chunk table's offset, the chunks, the
/// chunk table.
std::vector<uint8_t> laz_file(int format, const Layout& lo,
                              const std::vector<std::vector<uint8_t>>& chunks, uint64_t points) {
  const std::vector<uint8_t> vlr = laz::layout_vlr(lo);
  std::vector<uint8_t> f(375 + 54 + vlr.size(), 0);
  std::memcpy(f.data(), "LASF", 4);
  put_le(&f[6], uint16_t(0x10));  // global encoding: WKT (formats 6-10)
  f[24] = 1, f[25] = 4;
  std::memcpy(&f[58], "pointraster test", 16);
  put_le(&f[94], uint16_t(375));
  put_le(&f[96], uint32_t(f.size()));
  put_le(&f[100], uint32_t(1));
  f[104] = uint8_t(format | 0x80);  // bit 7: compressed
  put_le(&f[105], uint16_t(lo.record_length));
  for (int k = 0; k < 3; ++k) put_le(&f[131 + 8 * k], 0.01);
  put_le(&f[247], points);
  uint8_t* v = &f[375];
  std::memcpy(v + 2, "laszip encoded", 14);
  put_le(v + 18, uint16_t(22204));
  put_le(v + 20, uint16_t(vlr.size()));
  std::memcpy(v + 54, vlr.data(), vlr.size());
  const size_t table_at_pos = f.size();
  f.resize(f.size() + 8);
  for (const auto& c : chunks) f.insert(f.end(), c.begin(), c.end());
  put_le(&f[table_at_pos], int64_t(f.size()));
  const auto table = chunk_table(chunks, lo.record_length);
  f.insert(f.end(), table.begin(), table.end());
  return f;
}

bool run(const std::string& cmd, std::string& out) {
  out.clear();
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return false;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  return pclose(p) == 0;
}

// Reads each LAZ file with laspy and each backend and writes its point records, as stored, to
// the file's name + "." + the backend.
const char* const kReadScript = R"(import sys, laspy
for path in sys.argv[1:]:
    for name, be in (("lazrs", laspy.LazBackend.Lazrs), ("laszip", laspy.LazBackend.Laszip)):
        with laspy.open(path, laz_backend=be) as f:
            points = f.read_points(f.header.point_count)
        open(path + "." + name, "wb").write(points.array.tobytes())
)";

TEST(IoLazEncode, LaspyReadsOurFiles) {
  const std::string python = PR_TEST_PYTHON;
  if (python.empty())
    GTEST_SKIP() << "no Python with laspy, lazrs and laszip (configure with -DPR_TEST_PYTHON=...)";
  const fs::path dir = fs::temp_directory_path() / ("pr_laz_encode_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string script = (dir / "read.py").string();
  std::ofstream(script) << kReadScript;
  // A file per case: survey records, then random ones, in chunks of 1, 2 and 1777 points.
  std::vector<std::vector<uint8_t>> written;
  std::string cmd = python + " " + script;
  for (const Case& c : kCases) {
    const Layout lo = laz::make_layout(c.format, c.extra);
    auto records = survey_records(c.format, c.extra, 5000, 40 + c.format);
    const auto noise = random_records(lo.record_length, 500, 41);
    records.insert(records.end(), noise.begin(), noise.end());
    const auto chunks = encode(lo, records, {1, 2, 1777});
    const auto file = laz_file(c.format, lo, chunks, records.size() / lo.record_length);
    const std::string path = (dir / ("ours" + std::to_string(written.size()) + ".laz")).string();
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(file.data()), std::streamsize(file.size()));
    cmd += " " + path;
    written.push_back(std::move(records));
  }
  std::string out;
  ASSERT_TRUE(run(cmd, out)) << out;
  for (size_t k = 0; k < written.size(); ++k) {
    const Case& c = kCases[k];
    const size_t r = laz::make_layout(c.format, c.extra).record_length;
    for (const char* backend : {"lazrs", "laszip"}) {
      SCOPED_TRACE("format " + std::to_string(c.format) + ", extra " + std::to_string(c.extra) +
                   ", " + backend);
      const auto got =
          file_bytes((dir / ("ours" + std::to_string(k) + ".laz." + backend)).string());
      ASSERT_EQ(got.size(), written[k].size());
      for (size_t i = 0; i < got.size() / r; ++i)
        ASSERT_EQ(0, std::memcmp(&got[i * r], &written[k][i * r], r)) << "record " << i;
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pr
