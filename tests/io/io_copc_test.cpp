// COPC and point budgets: the test data's COPC files' octrees (levels, nodes, points per level as
// laspy's CopcReader reads them), loading down to LoadOptions::max_depth or within max_points;
// max_points on LAS and LAZ keeps an even subset over the whole extent; a LAZ file and its LAS
// twin load bit-identically (origin, float positions, attributes) and render the identical image
// on the CPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "engine/cpu_renderer.h"
#include "engine/image.h"
#include "engine/io/io.h"
#include "testdata.h"

namespace pr {
namespace {

using test::kData;

struct CopcFile {
  const char* name;
  std::vector<uint64_t> level_points;  // laspy.CopcReader.level_query(level) for each level
  double spacing;
};

const std::vector<CopcFile>& copc_files() {
  static const std::vector<CopcFile> files = {
      {"lone-star.copc.laz", {58393, 105600, 354869}, 0.3184355468765716},
      {"1.2-with-color.copc.laz", {24, 66, 197, 778}, 36.216640624999854},
      {"simple.copc.laz", {24, 66, 197, 778}, 36.216640624999854},
      {"simple_with_page.copc.laz", {24, 66, 197, 778}, 36.216640624999854}};
  return files;
}

bool load(const std::string& path, PointCloud& c, FileInfo& info, const LoadOptions& o) {
  std::string err;
  const bool ok = load_point_cloud(path, c, &info, &err, nullptr, &o);
  EXPECT_TRUE(ok) << err;
  return ok;
}

TEST(IoCopc, OctreeAsLaspyReadsIt) {
  REQUIRE_TESTDATA("laz");
  for (const CopcFile& f : copc_files()) {
    SCOPED_TRACE(f.name);
    PointCloud c;
    FileInfo info;
    ASSERT_TRUE(load(kData + "/laz/" + f.name, c, info, {}));
    ASSERT_TRUE(info.copc.present);
    EXPECT_NE(info.version.find("COPC"), std::string::npos);
    EXPECT_DOUBLE_EQ(info.copc.spacing, f.spacing);
    ASSERT_EQ(info.copc.levels.size(), f.level_points.size());
    uint64_t total = 0;
    for (size_t l = 0; l < f.level_points.size(); ++l) {
      EXPECT_EQ(info.copc.levels[l].points, f.level_points[l]) << "level " << l;
      EXPECT_GT(info.copc.levels[l].nodes, 0u);
      EXPECT_TRUE(info.copc.levels[l].read);
      total += f.level_points[l];
    }
    EXPECT_EQ(info.copc.levels[0].nodes, 1u);
    EXPECT_EQ(c.size(), total);
  }
  // A plain LAZ file is no COPC file.
  PointCloud c;
  FileInfo info;
  ASSERT_TRUE(load(kData + "/laz/autzen_trim.laz", c, info, {}));
  EXPECT_FALSE(info.copc.present);
}

TEST(IoCopc, DepthAndBudgetChooseLevels) {
  REQUIRE_TESTDATA("laz");
  for (const CopcFile& f : copc_files()) {
    SCOPED_TRACE(f.name);
    const std::string path = kData + "/laz/" + f.name;
    PointCloud all;
    FileInfo all_info;
    ASSERT_TRUE(load(path, all, all_info, {}));
    uint64_t sum = 0;
    for (size_t d = 0; d < f.level_points.size(); ++d) {
      SCOPED_TRACE("depth " + std::to_string(d));
      sum += f.level_points[d];
      LoadOptions o;
      o.max_depth = int(d);
      PointCloud c;
      FileInfo info;
      ASSERT_TRUE(load(path, c, info, o));
      EXPECT_EQ(c.size(), sum);
      for (size_t l = 0; l < info.copc.levels.size(); ++l)
        EXPECT_EQ(info.copc.levels[l].read, l <= d) << "level " << l;
      // The top levels cover the whole survey: their bounds lie within, and span most of, the
      // full bounds.
      for (int k = 0; k < 2; ++k) {
        EXPECT_GE(info.bounds.min[k], all_info.bounds.min[k]);
        EXPECT_LE(info.bounds.max[k], all_info.bounds.max[k]);
        EXPECT_GT(info.bounds.max[k] - info.bounds.min[k],
                  0.5 * (all_info.bounds.max[k] - all_info.bounds.min[k]));
      }
      // A budget of exactly these levels reads them; one point less reads one level less
      // (level 0 at least); both reads agree with the depth's.
      LoadOptions b;
      b.max_points = sum;
      PointCloud cb;
      FileInfo ib;
      ASSERT_TRUE(load(path, cb, ib, b));
      EXPECT_EQ(cb.size(), sum);
      b.max_points = sum - 1;
      ASSERT_TRUE(load(path, cb, ib, b));
      EXPECT_EQ(cb.size(), d == 0 ? sum : sum - f.level_points[d]);
      // Depth and budget together: the smaller choice wins.
      b.max_points = f.level_points[0];
      b.max_depth = int(d);
      ASSERT_TRUE(load(path, cb, ib, b));
      EXPECT_EQ(cb.size(), f.level_points[0]);
    }
  }
}

TEST(IoBudget, LasAndLazKeepAnEvenSubset) {
  REQUIRE_TESTDATA("laz");
  for (const char* file : {"las/autzen_trim.las", "laz/autzen_trim.laz", "laz/simple.laz",
                           "las/simple.las", "laz/plane.laz"}) {
    SCOPED_TRACE(file);
    const std::string path = kData + "/" + file;
    PointCloud all;
    FileInfo all_info;
    ASSERT_TRUE(load(path, all, all_info, {}));
    for (uint64_t n :
         {uint64_t(1), uint64_t(100), uint64_t(1000), all.size() - 1, all.size(), all.size() + 5}) {
      SCOPED_TRACE("max_points " + std::to_string(n));
      LoadOptions o;
      o.max_points = n;
      PointCloud c;
      FileInfo info;
      ASSERT_TRUE(load(path, c, info, o));
      EXPECT_EQ(c.size(), std::min<uint64_t>(n, all.size()));
      EXPECT_EQ(c.origin, all.origin);
      if (n < 1000) continue;
      // Spread over the whole extent: the subset's bounds span most of the file's in x and y
      // (z extremes are single outliers), and each quarter of the x range holds a share of the
      // points near its share of the file's.
      const double w = all_info.bounds.max.x - all_info.bounds.min.x;
      for (int k = 0; k < 2; ++k)
        EXPECT_GT(info.bounds.max[k] - info.bounds.min[k],
                  0.75 * (all_info.bounds.max[k] - all_info.bounds.min[k]));
      auto quarters = [&](const PointCloud& p) {
        std::array<double, 4> q{};
        for (const Float3& v : p.positions) {
          const double x = p.origin.x + double(v.x);
          q[size_t(std::clamp(int(4.0 * (x - all_info.bounds.min.x) / w), 0, 3))] += 1.0;
        }
        for (double& s : q) s /= double(p.size());
        return q;
      };
      const auto qa = quarters(all), qc = quarters(c);
      for (int k = 0; k < 4; ++k)
        EXPECT_NEAR(qc[size_t(k)], qa[size_t(k)], 0.05) << "quarter " << k;
      // Every point kept is a point of the file, bit for bit.
      for (size_t i = 0; i < c.size(); i += 97) {
        const size_t j = size_t(uint64_t(i) * all.size() / c.size());
        EXPECT_EQ(std::memcmp(&c.positions[i], &all.positions[j], sizeof(Float3)), 0) << i;
        EXPECT_EQ(c.colors[i], all.colors[j]) << i;
      }
    }
  }
}

template <class T>
void put(std::vector<uint8_t>& d, size_t at, T v) {
  std::memcpy(d.data() + at, &v, sizeof v);
}
template <class T>
T get(const std::vector<uint8_t>& d, size_t at) {
  T v;
  std::memcpy(&v, d.data() + at, sizeof v);
  return v;
}

TEST(IoCopc, DamagedHierarchyFailsWithOneLine) {
  REQUIRE_TESTDATA("laz");
  std::ifstream in(kData + "/laz/simple.copc.laz", std::ios::binary);
  const std::vector<uint8_t> file{std::istreambuf_iterator<char>(in), {}};
  // The copc info VLR's payload: root page offset at +40, its size at +48.
  size_t info = 0;
  for (size_t p = 0; p + 6 < file.size() && !info; ++p)
    if (std::memcmp(&file[p], "copc\0", 5) == 0 && get<uint16_t>(file, p + 16) == 1) info = p + 52;
  ASSERT_GT(info, 0u);
  const uint64_t root = get<uint64_t>(file, info + 40), root_size = get<uint64_t>(file, info + 48);
  ASSERT_LT(root + root_size, file.size() + 1);
  auto expect_error = [&](std::vector<uint8_t> d, const char* words) {
    PointCloud c;
    FileInfo fi;
    std::string err;
    EXPECT_FALSE(
        parse_point_cloud(d.data(), d.size(), "x.copc.laz", FileFormat::kUnknown, c, &fi, &err));
    EXPECT_TRUE(c.empty());
    EXPECT_NE(err.find(words), std::string::npos) << err;
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  };
  std::vector<uint8_t> d = file;
  put<uint64_t>(d, info + 40, file.size() + 1000);
  expect_error(d, "COPC hierarchy page");
  d = file;
  put<uint64_t>(d, info + 48, root_size + 1);
  expect_error(d, "COPC hierarchy page");
  // A page that names itself as its child: the walk stops instead of looping.
  d = file;
  put<int32_t>(d, size_t(root) + 28, -1);
  put<uint64_t>(d, size_t(root) + 16, root);
  put<int32_t>(d, size_t(root) + 24, int32_t(root_size));
  expect_error(d, "COPC hierarchy");
  // A node whose bytes run past the file's end.
  d = file;
  put<int32_t>(d, size_t(root) + 24, int32_t(file.size()));
  expect_error(d, "COPC hierarchy entry");
  // More points in the nodes than the header declares.
  d = file;
  put<int32_t>(d, size_t(root) + 28, get<int32_t>(file, size_t(root) + 28) + 1);
  expect_error(d, "points");
}

Image render_cpu(const PointCloud& c) {
  CpuRenderer r(2);
  std::string err;
  EXPECT_TRUE(r.set_cloud(c, &err)) << err;
  RenderSettings s;
  s.width = 320;
  s.height = 240;
  Camera cam;
  cam.up_axis = UpAxis::kZ;
  const Bounds b = c.world_bounds();
  cam.position = b.center() + glm::dvec3(0.0, -1.5 * b.size().y, 0.8 * b.size().x);
  cam.look_at(b.center());
  Image img;
  FrameStats st;
  EXPECT_TRUE(r.render(cam, s, img, st, &err)) << err;
  return img;
}

TEST(IoLazTwin, LoadsBitIdenticallyAndRendersTheSameImage) {
  REQUIRE_TESTDATA("laz");
  for (const char* name : {"simple", "autzen_trim", "1_4_w_evlr"}) {
    for (uint64_t budget : {uint64_t(0), uint64_t(777)}) {
      SCOPED_TRACE(std::string(name) + " max_points " + std::to_string(budget));
      LoadOptions o;
      o.max_points = budget;
      PointCloud a, b;
      FileInfo ia, ib;
      ASSERT_TRUE(load(kData + "/laz/" + name + ".laz", a, ia, o));
      ASSERT_TRUE(load(kData + "/las/" + name + ".las", b, ib, o));
      EXPECT_EQ(a.origin, b.origin);
      ASSERT_EQ(a.size(), b.size());
      EXPECT_EQ(std::memcmp(a.positions.data(), b.positions.data(), a.size() * sizeof(Float3)), 0);
      EXPECT_EQ(a.colors, b.colors);
      EXPECT_EQ(a.intensity, b.intensity);
      EXPECT_EQ(a.classification, b.classification);
      const Image ra = render_cpu(a), rb = render_cpu(b);
      ASSERT_EQ(ra.rgba.size(), rb.rgba.size());
      size_t drawn = 0;
      for (uint32_t p : ra.rgba) drawn += p != ra.rgba[0];
      EXPECT_GT(drawn, 0u) << "the camera sees the cloud";
      EXPECT_EQ(ra.rgba, rb.rgba);
    }
  }
}

}  // namespace
}  // namespace pr
