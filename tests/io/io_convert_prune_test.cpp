// A clip's box test in a conversion (ConvertOptions::keep_box): the COPC nodes whose cubes the
// clip (and a polygon) hide are passed by unread, and the output holds exactly the records the
// conversion that reads every node writes.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "engine/clip_polygon.h"
#include "engine/io/base/bytes.h"
#include "engine/io/convert.h"
#include "engine/io/copc.h"
#include "engine/io/io.h"
#include "engine/io/open_byte_source.h"
#include "io_test_files.h"
#include "testdata.h"

namespace pr {
namespace {

namespace fs = std::filesystem;
using test::kData;

/// The point records of a LAS or LAZ file, sorted.
std::vector<std::string> sorted_records(const std::string& path) {
  std::vector<uint8_t> bytes;
  size_t rec = 0;
  std::string err;
  if (path.size() > 4 && path.substr(path.size() - 4) == ".las") {
    const std::vector<uint8_t> d = test::file_bytes(path);
    EXPECT_GE(d.size(), 375u);
    if (d.size() < 375) return {};
    rec = io::get_le<uint16_t>(&d[105]);
    const uint32_t offset = io::get_le<uint32_t>(&d[96]);
    const uint64_t n = io::get_le<uint64_t>(&d[247]);
    bytes.assign(d.begin() + offset, d.begin() + ptrdiff_t(offset + n * rec));
  } else {
    EXPECT_TRUE(decompress_laz(path, bytes, &rec, &err)) << err;
  }
  std::vector<std::string> r;
  for (size_t at = 0; rec && at + rec <= bytes.size(); at += rec)
    r.emplace_back(reinterpret_cast<const char*>(bytes.data() + at), rec);
  std::sort(r.begin(), r.end());
  return r;
}

struct Outputs {
  fs::path dir;
  Outputs() {
    dir = fs::temp_directory_path() / ("pr_prune_" + std::to_string(::getpid()));
    fs::create_directories(dir);
  }
  ~Outputs() { fs::remove_all(dir); }
};

/// Converts lone-star.copc.laz with `keep`, once reading every node and once with `keep_box`;
/// both outputs hold the same records; returns the pruned run's result.
ConvertResult convert_both(
    const std::function<bool(const glm::dvec3&)>& keep,
    const std::function<bool(const glm::dvec3&, const glm::dvec3&)>& keep_box, const char* format) {
  Outputs out;
  const std::string in = kData + "/laz/lone-star.copc.laz";
  ConvertOptions o;
  o.threads = 2;
  o.keep = keep;
  ConvertResult all, pruned;
  std::string err;
  const std::string a = (out.dir / (std::string("all") + format)).string();
  const std::string b = (out.dir / (std::string("pruned") + format)).string();
  EXPECT_TRUE(convert_point_clouds({in}, a, o, nullptr, &all, &err)) << err;
  o.keep_box = keep_box;
  EXPECT_TRUE(convert_point_clouds({in}, b, o, nullptr, &pruned, &err)) << err;
  EXPECT_EQ(all.points_skipped, 0u);
  EXPECT_EQ(all.points, pruned.points);
  EXPECT_GT(pruned.points, 0u);
  EXPECT_TRUE(sorted_records(a) == sorted_records(b)) << "the pruned output's records differ";
  return pruned;
}

Bounds lone_star_bounds() {
  std::string err;
  const auto f = CopcFile::open(open_byte_source(kData + "/laz/lone-star.copc.laz", &err), &err);
  EXPECT_TRUE(f) << err;
  return f ? f->info().bounds : Bounds{};
}

TEST(IoConvertPrune, ASmallBoxReadsFewNodesAndWritesTheSamePoints) {
  REQUIRE_TESTDATA("laz");
  const Bounds b = lone_star_bounds();
  Clip clip;
  ClipBox box = clip_box_around(b.min, b.max);
  box.size.x *= 0.1;
  box.size.y *= 0.1;
  clip.boxes.push_back(box);
  for (const char* format : {".las", ".copc.laz"}) {
    const ConvertResult r =
        convert_both(export_keep(clip, nullptr), export_keep_box(clip, nullptr), format);
    // Most of the survey lies outside a box of a hundredth of its area.
    EXPECT_GT(r.points_skipped, 518862u / 2) << format;
    EXPECT_LT(r.points, 518862u / 20) << format;
  }
}

TEST(IoConvertPrune, APolygonPrunesToo) {
  REQUIRE_TESTDATA("laz");
  const Bounds b = lone_star_bounds();
  const glm::dvec3 c = b.center(), e = b.max - b.min;
  ClipPolygon poly;
  poly.vertices = {{c.x - 0.1 * e.x, c.y - 0.1 * e.y},
                   {c.x + 0.15 * e.x, c.y - 0.05 * e.y},
                   {c.x, c.y + 0.12 * e.y}};
  const ConvertResult r =
      convert_both(export_keep(Clip{}, &poly), export_keep_box(Clip{}, &poly), ".las");
  // The polygon's bounding rectangle spans a quarter of the survey across: the nodes of the
  // finer levels outside it are passed by.
  EXPECT_GT(r.points_skipped, 518862u / 10);
}

TEST(IoConvertPrune, AClipOverEverythingSkipsNothing) {
  REQUIRE_TESTDATA("laz");
  const Bounds b = lone_star_bounds();
  Clip clip;
  clip.boxes.push_back(clip_box_around(b.min - 1.0, b.max + 1.0));
  const ConvertResult r =
      convert_both(export_keep(clip, nullptr), export_keep_box(clip, nullptr), ".las");
  EXPECT_EQ(r.points_skipped, 0u);
  EXPECT_EQ(r.points, 518862u);
}

}  // namespace
}  // namespace pr
