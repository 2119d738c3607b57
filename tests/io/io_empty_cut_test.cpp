// Empty and cut files behave alike in every format: a file without points loads as an empty cloud
// with its FileInfo and no warning; a file cut short gives the points before the cut and exactly
// one warning naming the file and what was lost. Each table row writes its file here (the
// project's writers, or by hand), so that no file of tests/data is needed.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include "e57_build.h"
#include "engine/io/base/io_common.h"
#include "engine/io/convert.h"
#include "engine/io/io.h"
#include "engine/io/laz/chunk_table.h"
#include "engine/io/laz/writer.h"

namespace fs = std::filesystem;

namespace pr {
namespace {

constexpr size_t kPoints = 5000;

class IoEmptyCut : public ::testing::Test {
 public:  // the tables' rows write their files through the fixture
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pr_io_empty_" + std::to_string(::getpid()) + "_" +
                                        std::to_string(reinterpret_cast<uintptr_t>(this)));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& n) const { return (dir_ / n).string(); }
  std::string write(const std::string& n, const std::string& bytes) const {
    std::ofstream(path(n), std::ios::binary) << bytes;
    return path(n);
  }
  static std::string read(const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  }
  /// Points (i, i % 7, 1 + i / 1000) with colors and intensities: the cut files' source.
  static PointCloud cloud(size_t n) {
    PointCloud c;
    c.resize(n);
    c.intensity.resize(n);
    for (size_t i = 0; i < n; ++i) {
      c.positions[i] = {float(i), float(i % 7), float(1 + i / 1000)};
      c.colors[i] = rgba(uint8_t(i), uint8_t(i / 3), 200);
      c.intensity[i] = float(i % 100);
    }
    return c;
  }
  /// `writer` writes the cloud to `name`; the file's bytes.
  std::string saved(const std::string& name, const PointCloud& c,
                    const std::function<bool(const std::string&, const PointCloud&, std::string*)>&
                        writer) const {
    std::string err;
    EXPECT_TRUE(writer(path(name), c, &err)) << err;
    return read(path(name));
  }
  /// The cloud converted (engine/io/convert.h) to `name`: LAZ, COPC.
  std::string converted(const std::string& name, const PointCloud& c) const {
    std::string err;
    EXPECT_TRUE(save_las(path(name + ".src.las"), c, 7, &err)) << err;
    EXPECT_TRUE(
        convert_point_clouds({path(name + ".src.las")}, path(name), {}, nullptr, nullptr, &err))
        << err;
    return read(path(name));
  }
  fs::path dir_;
};

/// Loads `p`: success, and the cloud and its info agree.
void load_ok(const std::string& p, PointCloud& c, FileInfo& info) {
  std::string err;
  c.resize(3);  // the result replaces what was there
  ASSERT_TRUE(load_point_cloud(p, c, &info, &err)) << err;
  EXPECT_EQ(info.points, c.size());
  EXPECT_EQ(info.file, p);
}

// ---- files without points ----

struct EmptyCase {
  const char* name;
  const char* format;
  bool color, intensity;
  std::function<std::string(IoEmptyCut&)> bytes;
};

TEST_F(IoEmptyCut, FilesWithoutPointsAreValidFilesOfZeroPoints) {
  const PointCloud none;
  auto ply = [](const char* encoding) {
    return std::string("ply\nformat ") + encoding +
           " 1.0\nelement vertex 0\nproperty float x\nproperty float y\nproperty float z\n"
           "property uchar red\nproperty uchar green\nproperty uchar blue\n"
           "property float intensity\nelement face 0\nproperty list uchar int vertex_indices\n"
           "end_header\n";
  };
  auto pcd = [](const char* kind, const std::string& body) {
    return "VERSION 0.7\nFIELDS x y z rgb intensity\nSIZE 4 4 4 4 4\nTYPE F F F U F\n"
           "COUNT 1 1 1 1 1\nWIDTH 0\nHEIGHT 1\nPOINTS 0\nDATA " +
           std::string(kind) + "\n" + body;
  };
  const std::string zero_sizes(8, '\0');  // a compressed block of 0 bytes that holds 0
  const std::vector<EmptyCase> cases = {
      {"ascii.ply", "PLY", true, true, [&](IoEmptyCut&) { return ply("ascii"); }},
      {"le.ply", "PLY", true, true, [&](IoEmptyCut&) { return ply("binary_little_endian"); }},
      {"be.ply", "PLY", true, true, [&](IoEmptyCut&) { return ply("binary_big_endian"); }},
      {"a.pcd", "PCD", true, true, [&](IoEmptyCut&) { return pcd("ascii", ""); }},
      {"b.pcd", "PCD", true, true, [&](IoEmptyCut&) { return pcd("binary", ""); }},
      {"c.pcd", "PCD", true, true,
       [&](IoEmptyCut&) { return pcd("binary_compressed", zero_sizes); }},
      {"count.pts", "PTS", false, false, [](IoEmptyCut&) { return std::string("0\n"); }},
      {"empty.pts", "PTS", false, false, [](IoEmptyCut&) { return std::string(); }},
      {"empty.xyz", "XYZ", false, false, [](IoEmptyCut&) { return std::string(); }},
      {"empty.txt", "XYZ", false, false, [](IoEmptyCut&) { return std::string(); }},
      {"comments.txt", "XYZ", false, false,
       [](IoEmptyCut&) { return std::string("# no point yet\n\n// none\n"); }},
      {"header.csv", "XYZ", true, true,
       [](IoEmptyCut&) { return std::string("x,y,z,intensity,red,green,blue\n"); }},
      {"f1.las", "LAS", false, true,
       [&](IoEmptyCut& t) {
         return t.saved("f1.las.tmp", none,
                        [](auto p, auto& c, auto e) { return save_las(p, c, 1, e); });
       }},
      {"f7.las", "LAS", true, true,
       [&](IoEmptyCut& t) {
         return t.saved("f7.las.tmp", none,
                        [](auto p, auto& c, auto e) { return save_las(p, c, 7, e); });
       }},
      {"layered.laz", "LAZ", true, true, [&](IoEmptyCut& t) { return t.converted("e.laz", none); }},
      {"empty.copc.laz", "LAZ", true, true,
       [&](IoEmptyCut& t) { return t.converted("e.copc.laz", none); }},
      {"noscan.e57", "E57", false, false, [](IoEmptyCut&) { return test::build_e57({}); }},
      {"norecord.e57", "E57", false, false,
       [](IoEmptyCut&) {
         test::TestScan s;
         s.prototype_xml =
             "<cartesianX type=\"Float\"/><cartesianY type=\"Float\"/>"
             "<cartesianZ type=\"Float\"/>";
         s.streams.resize(3);
         return test::build_e57({s});
       }},
  };
  for (const EmptyCase& k : cases) {
    SCOPED_TRACE(k.name);
    const std::string p = write(k.name, k.bytes(*this));
    PointCloud c;
    FileInfo info;
    load_ok(p, c, info);
    EXPECT_TRUE(c.empty());
    EXPECT_EQ(info.format, k.format);
    EXPECT_FALSE(info.version.empty());
    EXPECT_EQ(info.has_color, k.color);
    EXPECT_EQ(info.has_intensity, k.intensity);
    EXPECT_TRUE(info.warnings.empty()) << info.warnings.front();
  }
}

TEST_F(IoEmptyCut, AFileThatIsNotOfItsFormatStillFails) {
  const std::pair<std::string, const char*> bad[] = {
      {write("zero.las", ""), "the file is empty"},
      {write("zero.ply", ""), "the file is empty"},
      {write("zero.bin", ""), "the file is empty"},
      {write("header.ply", "ply\nformat ascii 1.0\nelement vertex 0\n"),
       "PLY header has no end_header"},
      {write("words.txt", "no points here\n"),
       "line 1 is neither a header naming x, y, z nor numbers: 'no points here'"},
      {write("nofields.pcd", "VERSION 0.7\nPOINTS 0\nDATA ascii\n"),
       "PCD header has no FIELDS line"},
  };
  for (const auto& [p, words] : bad) {
    SCOPED_TRACE(p);
    PointCloud c;
    std::string err;
    EXPECT_FALSE(load_point_cloud(p, c, nullptr, &err));
    EXPECT_EQ(err, p + ": " + words) << err;
  }
}

// ---- files cut short ----

/// A LAZ 1.2 file of the point format 3 records of the LAS file `las` (from save_las), in
/// point-wise chunks of `chunk` points, its chunk table at the end.
std::string pointwise_laz(const std::string& las, uint32_t chunk) {
  uint32_t offset, n;
  uint16_t rec;
  std::memcpy(&offset, &las[96], 4);
  std::memcpy(&rec, &las[105], 2);
  std::memcpy(&n, &las[107], 4);
  const io::laz::Layout lo = io::laz::make_layout(3, 0, chunk);
  EXPECT_EQ(lo.record_length, rec);
  const std::vector<uint8_t> vlr = io::laz::layout_vlr(lo);
  std::string f = las.substr(0, 227);
  const uint32_t data_at = uint32_t(227 + 54 + vlr.size()), vlrs = 1;
  std::memcpy(&f[96], &data_at, 4);
  std::memcpy(&f[100], &vlrs, 4);
  f[104] = char(3 | 0x80);
  std::string v(54, '\0');
  std::memcpy(&v[2], "laszip encoded", 14);
  const uint16_t id = 22204, len = uint16_t(vlr.size());
  std::memcpy(&v[18], &id, 2);
  std::memcpy(&v[20], &len, 2);
  f += v + std::string(vlr.begin(), vlr.end()) + std::string(8, '\0');
  std::vector<uint64_t> sizes;
  for (uint32_t i = 0; i < n; i += chunk) {
    std::vector<uint8_t> bytes;
    const auto* r = reinterpret_cast<const uint8_t*>(las.data()) + offset + size_t(i) * rec;
    io::laz::write_chunk(lo, r, std::min(chunk, n - i), bytes);
    sizes.push_back(bytes.size());
    f.append(bytes.begin(), bytes.end());
  }
  const int64_t table_at = int64_t(f.size());
  std::memcpy(&f[data_at], &table_at, 8);
  const uint32_t head[2] = {0, uint32_t(sizes.size())};
  f.append(reinterpret_cast<const char*>(head), 8);
  const std::vector<uint8_t> entries = io::laz::encode_chunk_table({}, sizes, false);
  return f + std::string(entries.begin(), entries.end());
}

/// Where record `k` of a body of fixed records after `header` bytes is cut in half.
size_t mid_record(const std::string& f, size_t header, size_t k) {
  const size_t record = (f.size() - header) / kPoints;
  return header + k * record + record / 2;
}

/// Where the body that starts after `marker` is cut inside its line `k` (0-based).
size_t mid_line(const std::string& f, const std::string& marker, size_t k) {
  size_t at = f.find(marker) + marker.size();
  for (size_t i = 0; i < k; ++i) at = f.find('\n', at) + 1;
  return at + 5;
}

struct CutCase {
  const char* name;
  std::function<std::string(IoEmptyCut&)> whole;
  std::function<size_t(const std::string&)> cut;  ///< bytes kept
  size_t points;                                  ///< decoded; 0: between 1 and whole - 1
  const char* why;  ///< the warning after "cut short: N of M points decoded (" (or "N points")
};

/// World position of point i.
glm::dvec3 world(const PointCloud& c, size_t i) {
  return c.origin + glm::dvec3(c.positions[i].x, c.positions[i].y, c.positions[i].z);
}

/// Cut case k: loads its whole file and the file cut, and checks the points before the cut and
/// the one warning.
void expect_cut_short(IoEmptyCut& t, const CutCase& k) {
  SCOPED_TRACE(k.name);
  const std::string whole = k.whole(t);
  const std::string wp = t.write(std::string("whole_") + k.name, whole);
  const std::string p = t.write(k.name, whole.substr(0, k.cut(whole)));
  PointCloud all, c;
  FileInfo info_all, info;
  load_ok(wp, all, info_all);
  ASSERT_EQ(all.size(), kPoints);
  load_ok(p, c, info);
  if (k.points) {
    EXPECT_EQ(c.size(), k.points);
  } else {
    EXPECT_GT(c.size(), 0u);
    EXPECT_LT(c.size(), kPoints);
  }
  // The points before the cut, as the whole file gives them.
  ASSERT_LE(c.size(), all.size());
  for (size_t i = 0; i < c.size(); ++i) {
    ASSERT_LT(glm::length(world(c, i) - world(all, i)), 1e-3) << i;
    ASSERT_EQ(c.colors[i], all.colors[i]) << i;
  }
  // XYZ declares no count: its warning says the points read alone.
  const bool declares = std::string(k.name).find(".xyz") == std::string::npos;
  ASSERT_EQ(info.warnings.size(), 1u);
  EXPECT_EQ(info.warnings[0], io::cut_short_warning(p, c.size(), declares ? kPoints : 0, k.why));
  EXPECT_TRUE(info_all.warnings.empty());
}

TEST_F(IoEmptyCut, FilesCutShortGiveThePointsBeforeTheCutAndOneWarning) {
  const PointCloud src = cloud(kPoints);
  auto header_end = [](const std::string& f, const std::string& marker) {
    return f.find(marker) + marker.size();
  };
  auto ply = [&](PlyEncoding e) {
    return [&, e](IoEmptyCut& t) {
      return t.saved("src.ply", src,
                     [e](auto p, auto& c, auto err) { return save_ply(p, c, e, err); });
    };
  };
  auto pcd = [&](bool binary) {
    return [&, binary](IoEmptyCut& t) {
      return t.saved("src.pcd", src,
                     [binary](auto p, auto& c, auto err) { return save_pcd(p, c, binary, err); });
    };
  };
  auto las = [&](int fmt) {
    return [&, fmt](IoEmptyCut& t) {
      return t.saved("src.las", src,
                     [fmt](auto p, auto& c, auto err) { return save_las(p, c, fmt, err); });
    };
  };
  auto xyz = [&](IoEmptyCut& t) {
    return t.saved("src.xyz", src,
                   [](auto p, auto& c, auto err) { return save_xyz(p, c, ' ', err); });
  };
  // PCD binary_compressed by hand: x, y, z fields one after another in LZF literal runs of 32
  // bytes (33 compressed). Kept: 1625 runs and part of the next, 52,000 bytes that hold all x
  // and y and the first 3,000 z.
  auto compressed = [&](IoEmptyCut&) {
    std::string raw;
    for (float Float3::*a : {&Float3::x, &Float3::y, &Float3::z})
      for (size_t i = 0; i < kPoints; ++i)
        raw.append(reinterpret_cast<const char*>(&(src.positions[i].*a)), 4);
    std::string lzf;
    for (size_t at = 0; at < raw.size(); at += 32) lzf += char(31) + raw.substr(at, 32);
    const uint32_t sizes[2] = {uint32_t(lzf.size()), uint32_t(raw.size())};
    return "VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nWIDTH 5000\n"
           "HEIGHT 1\nPOINTS 5000\nDATA binary_compressed\n" +
           std::string(reinterpret_cast<const char*>(sizes), 8) + lzf;
  };
  const std::vector<CutCase> cases = {
      {"le.ply", ply(PlyEncoding::kBinaryLittleEndian),
       [&](const std::string& f) { return mid_record(f, header_end(f, "end_header\n"), 3000); },
       3000, "the vertex data ends early"},
      {"be.ply", ply(PlyEncoding::kBinaryBigEndian),
       [&](const std::string& f) { return mid_record(f, header_end(f, "end_header\n"), 3000); },
       3000, "the vertex data ends early"},
      {"ascii.ply", ply(PlyEncoding::kAscii),
       [](const std::string& f) { return mid_line(f, "end_header\n", 3000); }, 3000,
       "the vertex lines end early"},
      {"b.pcd", pcd(true),
       [&](const std::string& f) { return mid_record(f, header_end(f, "DATA binary\n"), 3000); },
       3000, "the binary data ends early"},
      {"a.pcd", pcd(false), [](const std::string& f) { return mid_line(f, "DATA ascii\n", 3000); },
       3000, "the point lines end early"},
      {"c.pcd", compressed,
       [&](const std::string& f) {
         return header_end(f, "binary_compressed\n") + 8 + 1625 * 33 + 9;
       },
       3000, "the compressed block ends early"},
      {"block.pts", [&](IoEmptyCut& t) { return "5000\n" + xyz(t); },
       [](const std::string& f) { return mid_line(f, "5000\n", 3000); }, 3000,
       "the last PTS block ends early"},
      {"lines.xyz", xyz, [](const std::string& f) { return mid_line(f, "", 3000); }, 3000,
       "the last line ends mid-line"},
      {"f3.las", las(3), [](const std::string& f) { return mid_record(f, 227, 3000); }, 3000,
       "the point data ends early"},
      {"f6.las", las(6), [](const std::string& f) { return mid_record(f, 375, 3000); }, 3000,
       "the point data ends early"},
      // Point-wise chunks of 2000: the cut in chunk 2 keeps the points of chunk 2 decoded before.
      {"pointwise.laz", [&](IoEmptyCut& t) { return pointwise_laz(las(3)(t), 2000); },
       [](const std::string& f) { return f.size() * 2 / 3; }, 0, "chunk 2 of 3 is truncated"},
      {"table.laz", [&](IoEmptyCut& t) { return pointwise_laz(las(3)(t), 2000); },
       [](const std::string& f) { return f.size() - 2; }, kPoints, "the chunk table is truncated"},
  };
  for (const CutCase& k : cases) expect_cut_short(*this, k);
}

// The warning's words, once in full.
TEST_F(IoEmptyCut, TheWarningNamesTheFileAndTheCounts) {
  EXPECT_EQ(io::cut_short_warning("x.laz", 133332, 200000, "chunk 3 of 4 is truncated"),
            "x.laz: cut short: 133,332 of 200,000 points decoded (chunk 3 of 4 is truncated)");
  EXPECT_EQ(io::cut_short_warning("x.xyz", 999, 0, "the last line ends mid-line"),
            "x.xyz: cut short: 999 points decoded (the last line ends mid-line)");
  EXPECT_EQ(io::group_digits(0), "0");
  EXPECT_EQ(io::group_digits(1000), "1,000");
  EXPECT_EQ(io::group_digits(18446744073709551615ull), "18,446,744,073,709,551,615");
}

// LAZ and COPC files our conversion writes (layered chunks of 50,000; COPC: variable chunks, the
// hierarchy at the end), cut: whole layered chunks only, and a COPC file's nodes before the cut
// read as plain LAZ.
TEST_F(IoEmptyCut, LayeredLazAndCopcCutShort) {
  PointCloud src = cloud(120000);
  for (const char* name : {"layered.laz", "octree.copc.laz"}) {
    SCOPED_TRACE(name);
    const std::string whole = converted(name, src);
    const std::string p = write(std::string("cut_") + name, whole.substr(0, whole.size() * 2 / 3));
    PointCloud c;
    FileInfo info;
    load_ok(p, c, info);
    ASSERT_EQ(info.warnings.size(), 1u);
    const std::string& w = info.warnings[0];
    EXPECT_EQ(w.rfind(p + ": cut short: " + io::group_digits(c.size()) + " of 120,000 points", 0),
              0u)
        << w;
    if (std::string(name) == "layered.laz") {
      EXPECT_EQ(c.size(), 50000u);  // the cut lies in chunk 2 of 3: a layered chunk needs it all
      EXPECT_NE(w.find("(chunk 2 of 3 is truncated)"), std::string::npos) << w;
    } else {
      EXPECT_GT(c.size(), 0u);
      EXPECT_LT(c.size(), 120000u);
      EXPECT_NE(w.find("the COPC hierarchy is lost"), std::string::npos) << w;
      EXPECT_FALSE(info.copc.present);
    }
    // Every point is one of the file's: (i, i % 7, 1 + i / 1000).
    for (size_t i = 0; i < c.size(); ++i) {
      const glm::dvec3 q = world(c, i);
      const double x = std::round(q.x);
      ASSERT_LT(glm::length(q - glm::dvec3(x, std::fmod(x, 7.0), 1 + std::floor(x / 1000))), 1e-2)
          << i;
    }
    // A point budget keeps its stride through the points before the cut.
    LoadOptions o;
    o.max_points = 1000;
    std::string err;
    ASSERT_TRUE(load_point_cloud(p, c, &info, &err, nullptr, &o)) << err;
    EXPECT_LE(c.size(), 1000u);
    EXPECT_GT(c.size(), 0u);
    EXPECT_EQ(info.warnings.size(), 1u);
  }
}

// E57 keeps its XML section at the end of the file: a cut file has lost what says what it holds,
// and fails with one line.
TEST_F(IoEmptyCut, CutE57FailsWithOneLine) {
  test::TestScan s;
  s.prototype_xml =
      "<cartesianX type=\"Float\"/><cartesianY type=\"Float\"/><cartesianZ type=\"Float\"/>";
  s.records = 100;
  s.streams.resize(3);
  for (auto& w : s.streams)
    for (int i = 0; i < 100; ++i) w.put_double(i);
  const std::string whole = test::build_e57({s});
  PointCloud c;
  FileInfo info;
  load_ok(write("whole.e57", whole), c, info);
  EXPECT_EQ(c.size(), 100u);
  const std::string p = write("cut.e57", whole.substr(0, whole.size() / 2));
  std::string err;
  EXPECT_FALSE(load_point_cloud(p, c, &info, &err));
  EXPECT_EQ(err.rfind(p + ": ", 0), 0u) << err;
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;
}

}  // namespace
}  // namespace pr
