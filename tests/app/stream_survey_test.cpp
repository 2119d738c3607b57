// A survey of tiles draws as the file they were cut from: 300,000 points written as one LAS file
// and as its four quadrants (the same scale and offset), each converted to COPC (which keeps the
// LAS scale and offset), then streamed headless on the CPU at full detail (a budget of every
// point, --sse 0) as the whole file, as a .vpc of the tiles and as the four tile files. The
// survey's origin is the whole file's (engine/io/stream.h: chosen from the survey's bounds), so
// every point has the float position the whole file gives it and the images agree but for
// points of equal depth in one pixel, which draw in the pool's order.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "engine/image_testing.h"
#include "engine/io/convert.h"
#include "engine/io/copc.h"
#include "engine/io/io.h"
#include "engine/io/open_byte_source.h"
#include "engine/io/stream.h"
#include "headless.h"
#include "options.h"

namespace fs = std::filesystem;

namespace {

constexpr double kScale = 0.01;
constexpr double kOffset[3] = {500000.0, 4000000.0, 100.0};
constexpr int32_t kSide = 100000;  ///< the survey is kSide x kSide integers (1 km) across

struct LasPoint {
  int32_t x, y, z;
  uint16_t r, g, b;
};

template <class T>
void put(std::vector<uint8_t>& v, size_t at, T value) {
  std::memcpy(v.data() + at, &value, sizeof(T));
}

/// A LAS 1.2 file of point format 2 (positions and RGB) with the header's bounds the points'
/// own, as the LAS reader computes them (integer * scale + offset).
void write_las(const fs::path& path, const std::vector<LasPoint>& points) {
  constexpr size_t kHeader = 227, kRecord = 26;
  std::vector<uint8_t> h(kHeader, 0);
  std::memcpy(h.data(), "LASF", 4);
  h[24] = 1, h[25] = 2;
  put<uint16_t>(h, 94, kHeader);
  put<uint32_t>(h, 96, kHeader);
  h[104] = 2;
  put<uint16_t>(h, 105, kRecord);
  put<uint32_t>(h, 107, uint32_t(points.size()));
  put<uint32_t>(h, 111, uint32_t(points.size()));  // all first returns
  int32_t lo[3] = {INT32_MAX, INT32_MAX, INT32_MAX}, hi[3] = {INT32_MIN, INT32_MIN, INT32_MIN};
  for (const LasPoint& p : points) {
    const int32_t v[3] = {p.x, p.y, p.z};
    for (int a = 0; a < 3; ++a) lo[a] = std::min(lo[a], v[a]), hi[a] = std::max(hi[a], v[a]);
  }
  for (int a = 0; a < 3; ++a) {
    put<double>(h, 131 + 8 * size_t(a), kScale);
    put<double>(h, 155 + 8 * size_t(a), kOffset[a]);
    put<double>(h, 179 + 16 * size_t(a), double(hi[a]) * kScale + kOffset[a]);
    put<double>(h, 187 + 16 * size_t(a), double(lo[a]) * kScale + kOffset[a]);
  }
  std::vector<uint8_t> records(points.size() * kRecord, 0);
  for (size_t i = 0; i < points.size(); ++i) {
    const LasPoint& p = points[i];
    const size_t at = i * kRecord;
    put<int32_t>(records, at, p.x);
    put<int32_t>(records, at + 4, p.y);
    put<int32_t>(records, at + 8, p.z);
    records[at + 14] = 1 | (1 << 3);  // return 1 of 1
    put<uint16_t>(records, at + 20, p.r);
    put<uint16_t>(records, at + 22, p.g);
    put<uint16_t>(records, at + 24, p.b);
  }
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(h.data()), std::streamsize(h.size()));
  f.write(reinterpret_cast<const char*>(records.data()), std::streamsize(records.size()));
}

/// Hilly ground with a random color a point: the colors make any point drawn in another's place
/// show.
std::vector<LasPoint> terrain(size_t n) {
  std::mt19937 rng(2024);
  std::uniform_int_distribution<int32_t> across(0, kSide - 1);
  std::vector<LasPoint> points(n);
  for (LasPoint& p : points) {
    p.x = across(rng);
    p.y = across(rng);
    const double x = p.x * kScale, y = p.y * kScale;
    const double z = 40.0 * std::sin(x / 90.0) * std::cos(y / 130.0) + 15.0 * std::sin(x / 23.0);
    p.z = int32_t(std::lround(z / kScale)) + int32_t(rng() % 30);
    p.r = uint16_t(rng()), p.g = uint16_t(rng()), p.b = uint16_t(rng());
  }
  return points;
}

bool to_copc(const fs::path& las, const fs::path& copc) {
  pr::ConvertResult result;
  std::string error;
  const bool ok = pr::convert_point_clouds({las.string()}, copc.string(), pr::ConvertOptions{},
                                           nullptr, &result, &error);
  EXPECT_TRUE(ok) << error;
  EXPECT_TRUE(result.scale_from_input) << copc;
  return ok;
}

/// The file's header bounds (what a .vpc's proj:bbox declares).
pr::Bounds header_bounds(const fs::path& copc) {
  std::string error;
  auto file = pr::CopcFile::open(pr::open_byte_source(copc.string(), &error), &error);
  EXPECT_TRUE(file) << error;
  return file ? file->info().bounds : pr::Bounds{};
}

/// A .vpc listing `tiles` (relative to its folder) with their points and header bounds.
void write_vpc(const fs::path& vpc, const std::vector<std::string>& tiles,
               const std::vector<size_t>& counts) {
  std::string s = "{\"type\": \"FeatureCollection\", \"features\": [";
  for (size_t i = 0; i < tiles.size(); ++i) {
    const pr::Bounds b = header_bounds(vpc.parent_path() / tiles[i]);
    char item[1024];
    std::snprintf(item, sizeof item,
                  "%s{\"type\": \"Feature\", \"stac_version\": \"1.0.0\", \"id\": \"%s\", "
                  "\"properties\": {\"pc:count\": %zu, \"proj:bbox\": [%.17g, %.17g, %.17g, "
                  "%.17g, %.17g, %.17g]}, \"assets\": {\"data\": {\"href\": \"./%s\"}}}",
                  i ? ", " : "", tiles[i].c_str(), counts[i], b.min.x, b.min.y, b.min.z, b.max.x,
                  b.max.y, b.max.z, tiles[i].c_str());
    s += item;
  }
  std::ofstream(vpc) << s << "]}";
}

/// Renders `inputs` headless on the CPU at full detail to `png`.
void render(const std::vector<std::string>& inputs, const fs::path& png) {
  std::vector<std::string> args = {"--headless",
                                   "--mode",
                                   "cpu",
                                   "--width",
                                   "800",
                                   "--height",
                                   "500",
                                   "--frames",
                                   "1",
                                   "--color",
                                   "rgb",
                                   "--sse",
                                   "0",
                                   "--point-budget",
                                   "10M",
                                   "--camera",
                                   "500200,4000050,450,33,-35",
                                   "--screenshot",
                                   png.string()};
  args.insert(args.end(), inputs.begin(), inputs.end());
  pr::Options o;
  std::string error;
  ASSERT_EQ(pr::parse_arguments(args, o, &error), 0) << error;
  testing::internal::CaptureStdout();
  const int rc = pr::run_headless(o);
  const std::string out = testing::internal::GetCapturedStdout();
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find(" lod_points=300000"), std::string::npos) << out;
}

/// The pixels that differ between two images of one size; `lit`: those of `a` off the background.
size_t differing_pixels(const fs::path& a, const fs::path& b, size_t* lit) {
  pr::Image ia, ib;
  std::string error;
  EXPECT_TRUE(pr::read_png(a.string(), ia, &error)) << error;
  EXPECT_TRUE(pr::read_png(b.string(), ib, &error)) << error;
  EXPECT_EQ(ia.rgba.size(), ib.rgba.size());
  size_t differ = 0;
  *lit = 0;
  for (size_t i = 0; i < std::min(ia.rgba.size(), ib.rgba.size()); ++i) {
    differ += ia.rgba[i] != ib.rgba[i];
    *lit += ia.rgba[i] != ia.rgba[0];
  }
  return differ;
}

}  // namespace

TEST(StreamSurvey, TilesDrawAsTheWholeFile) {
  const fs::path dir = fs::temp_directory_path() / ("pr_stream_survey_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::vector<LasPoint> points = terrain(300000);
  std::vector<std::vector<LasPoint>> quadrants(4);
  for (const LasPoint& p : points)
    quadrants[size_t(p.x >= kSide / 2) + 2 * size_t(p.y >= kSide / 2)].push_back(p);
  write_las(dir / "whole.las", points);
  ASSERT_TRUE(to_copc(dir / "whole.las", dir / "whole.copc.laz"));
  std::vector<std::string> names, paths;
  std::vector<size_t> counts;
  for (size_t q = 0; q < 4; ++q) {
    names.push_back("tile" + std::to_string(q) + ".copc.laz");
    paths.push_back((dir / names.back()).string());
    counts.push_back(quadrants[q].size());
    const fs::path las = dir / ("tile" + std::to_string(q) + ".las");
    write_las(las, quadrants[q]);
    ASSERT_TRUE(to_copc(las, paths.back()));
  }
  write_vpc(dir / "survey.vpc", names, counts);

  // One origin for the three: the whole file's.
  glm::dvec3 origins[3];
  const std::vector<std::string> inputs[3] = {
      {(dir / "whole.copc.laz").string()}, {(dir / "survey.vpc").string()}, paths};
  for (int i = 0; i < 3; ++i) {
    pr::StreamingScene scene(pr::StreamOptions{});
    std::string error;
    ASSERT_TRUE(scene.open(inputs[i], &error)) << error;
    origins[i] = scene.info().origin;
  }
  EXPECT_EQ(origins[1], origins[0]);
  EXPECT_EQ(origins[2], origins[0]);
  EXPECT_NE(origins[0], glm::dvec3(0.0));  // UTM-sized coordinates: an origin near the points

  render(inputs[0], dir / "whole.png");
  render(inputs[1], dir / "vpc.png");
  render(inputs[2], dir / "files.png");
  // Equal-depth points in one pixel draw in the pool's order: a handful of pixels, at most 5 of
  // the 400,000.
  size_t lit = 0;
  const size_t vpc = differing_pixels(dir / "whole.png", dir / "vpc.png", &lit);
  const size_t files = differing_pixels(dir / "whole.png", dir / "files.png", &lit);
  std::printf(
      "survey vs whole file: %zu (.vpc) and %zu (four files) of 400000 pixels differ, "
      "%zu lit\n",
      vpc, files, lit);
  RecordProperty("differing_pixels_vpc", std::to_string(vpc));
  RecordProperty("differing_pixels_files", std::to_string(files));
  EXPECT_LE(vpc, 5u);
  EXPECT_LE(files, 5u);
  EXPECT_GT(lit, 100000u) << "the view shows the survey";
  fs::remove_all(dir);
}
