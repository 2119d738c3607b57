// The CUDA renderer against the CPU renderer, pixel for pixel: scenes, sizes, cameras, point sizes,
// subsets, bad points, empty clouds, resizes and the out-of-memory path. Skips without a device.
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <ostream>
#include <random>

#include "../engine/hiz_test_util.h"
#include "../engine/random_camera.h"
#include "engine/compact.h"
#include "engine/cpu_renderer.h"
#include "engine/culling.h"
#include "engine/morton.h"
#include "engine/scenes.h"
#include "gpu_test_util.h"
#include "kernels/cuda_renderer_testing.h"

namespace pr {
namespace {

constexpr uint32_t kBackground = rgba(16, 18, 24);

// One option or knob changed, the others kept.
void set_sort(Renderer& r, Toggle sort) {
  RenderOptions o = r.options();
  o.sort = sort;
  r.set_options(o);
}
void set_sorted(Renderer& r, bool on) {
  set_sort(r, on ? Toggle::kOn : Toggle::kOff);
}
void set_compact(Renderer& r, bool on) {
  RenderOptions o = r.options();
  o.compact = on;
  r.set_options(o);
}
void set_culling(Renderer& r, bool on) {
  RenderOptions o = r.options();
  o.culling = on;
  r.set_options(o);
}
void set_occlusion(Renderer& r, Toggle occlusion) {
  RenderOptions o = r.options();
  o.occlusion = occlusion;
  r.set_options(o);
}
void set_rounds(CudaRenderer& r, int rounds) {
  CudaTuning t = r.tuning();
  t.rounds = rounds;
  r.set_tuning(t);
}
void set_frame_graph(CudaRenderer& r, bool on) {
  CudaTuning t = r.tuning();
  t.frame_graph = on;
  r.set_tuning(t);
}

const PointCloud& scene_cloud(const std::string& name, uint64_t n) {
  static std::map<std::pair<std::string, uint64_t>, std::unique_ptr<PointCloud>> cache;
  auto& slot = cache[{name, n}];
  if (!slot) slot = std::make_unique<PointCloud>(make_scene(name, n));
  return *slot;
}

/// The cameras the parity grid uses: the scene's own, inside the cloud, far away, looking away, and
/// one in the middle of the cloud so that half the points are behind it.
Camera make_camera(const std::string& kind, const std::string& scene, const PointCloud& cloud,
                   double aspect) {
  Camera cam = scene_camera(scene, cloud);
  const Bounds b = cloud.world_bounds();
  const glm::dvec3 c = b.center(), size = b.size();
  const double diag = glm::length(size);
  if (kind == "inside") {
    cam.position = b.min + size * 0.3;
    cam.look_at(c + glm::dvec3(0.0, size.y * 0.1, 0.0));
  } else if (kind == "far") {
    cam.frame(b, aspect);
    cam.position -= cam.forward() * diag * 200.0;  // the cloud shrinks to a few pixels
  } else if (kind == "away") {
    cam.position = c + glm::dvec3(0.0, 0.0, diag * 2.0);
    cam.yaw = 0.0;  // looking along +z, away from the cloud behind it
    cam.pitch = 0.0;
  } else if (kind == "behind") {
    cam.position = c;
    cam.yaw = 0.4;
    cam.pitch = -0.1;
  }
  return cam;
}

/// Exact ties: 50 positions, 40 points each (shuffled), all colors different, so only the color
/// word decides which point a pixel shows (seen from tie_camera()).
PointCloud tie_cloud() {
  PointCloud ties;
  ties.resize(2000);
  uint32_t state = 777;
  for (size_t i = 0; i < ties.size(); ++i) {
    state = state * 1664525u + 1013904223u;
    const int k = int((state >> 8) % 50);
    ties.positions[i] = Float3{float(k % 10) - 4.5f, float(k / 10) - 2.0f, 0.0f};
    ties.colors[i] = rgba(uint8_t(i), uint8_t(i >> 8), uint8_t(k), 255);
  }
  return ties;
}

/// The cube of 100,000 points with a NaN or a huge coordinate in every 7th point.
PointCloud bad_cloud() {
  PointCloud bad = make_scene("cube", 100'000);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (size_t i = 0; i < bad.size(); i += 7)
    bad.positions[i] = i % 2 ? Float3{nan, 0.f, 0.f} : Float3{1e-45f, 3.0e38f, -3.0e38f};
  return bad;
}

struct Frame {
  Image cpu, gpu;
  FrameStats cpu_stats, gpu_stats;
};

/// Renders the same frame on both renderers; fails the test on any error.
void render_both(CudaRenderer& gpu, const PointCloud& cloud, const Camera& cam,
                 const RenderSettings& rs, Frame& f, bool upload = true) {
  std::string err;
  auto cpu = make_cpu_renderer();
  ASSERT_TRUE(cpu->set_cloud(cloud, &err)) << err;
  if (upload) {
    ASSERT_TRUE(gpu.set_cloud(cloud, &err)) << err;
  }
  ASSERT_TRUE(cpu->render(cam, rs, f.cpu, f.cpu_stats, &err)) << err;
  ASSERT_TRUE(gpu.render(cam, rs, f.gpu, f.gpu_stats, &err)) << err;
}

/// The same colors, and the same depths bit for bit where both images have them.
void expect_same(const Frame& f, const std::string& what) {
  std::string first;
  const size_t diff = test::count_diff(f.cpu, f.gpu, &first);
  EXPECT_EQ(diff, 0u) << what << ": " << diff << " pixels differ, " << first;
  if (f.cpu.depth.empty() || f.gpu.depth.empty()) return;
  ASSERT_EQ(f.cpu.depth.size(), f.gpu.depth.size()) << what;
  size_t bad = 0;
  for (size_t i = 0; i < f.cpu.depth.size(); ++i)
    bad += std::memcmp(&f.cpu.depth[i], &f.gpu.depth[i], sizeof(float)) != 0;
  EXPECT_EQ(bad, 0u) << what << ": depth";
}

// ------------------------------------------------------------------ parity over a grid of cases

struct ParityCase {
  std::string scene;
  std::string camera;
  int width, height, point_size;
};

void PrintTo(const ParityCase& c, std::ostream* os) {
  *os << c.scene << "/" << c.camera << "/" << c.width << "x" << c.height << "/ps" << c.point_size;
}

std::string case_name(const testing::TestParamInfo<ParityCase>& i) {
  return i.param.scene + "_" + i.param.camera + "_" + std::to_string(i.param.width) + "x" +
         std::to_string(i.param.height) + "_ps" + std::to_string(i.param.point_size);
}

class Parity : public testing::TestWithParam<ParityCase> {};

TEST_P(Parity, GpuImageEqualsCpuImage) {
  PR_REQUIRE_GPU(gpu);
  const ParityCase& c = GetParam();
  const PointCloud& cloud = scene_cloud(c.scene, 300'000);
  RenderSettings rs;
  rs.width = c.width;
  rs.height = c.height;
  rs.point_size = c.point_size;
  rs.background = kBackground;
  const Camera cam = make_camera(c.camera, c.scene, cloud, double(c.width) / double(c.height));
  Frame f;
  render_both(*gpu, cloud, cam, rs, f);
  expect_same(f, case_name({c, 0}));
  const size_t drawn = test::count_drawn(f.gpu, kBackground);
  if (c.camera == "away") {
    EXPECT_EQ(drawn, 0u) << "a camera looking away from the cloud draws nothing";
  } else {
    EXPECT_GT(drawn, 0u) << "the case must draw something to prove parity";
  }
  EXPECT_EQ(f.gpu_stats.points_drawn, cloud.size());
}

std::vector<ParityCase> parity_cases() {
  std::vector<ParityCase> v;
  const int sizes[][3] = {{1023, 769, 1}, {640, 480, 3}, {1, 1, 1}, {1, 1, 3}, {1920, 1080, 1}};
  for (const char* scene : {"cube", "terrain", "galaxy"})
    for (const char* cam : {"scene", "inside", "far", "away", "behind"})
      for (const auto& s : sizes) {
        // 1x1 only draws where the centre ray hits: keep it to cameras that look at the cloud.
        if (s[0] == 1 && (std::string(cam) == "away" || std::string(cam) == "far")) continue;
        if (s[0] == 1 && std::string(scene) != "cube") continue;
        v.push_back({scene, cam, s[0], s[1], s[2]});
      }
  v.push_back({"terrain", "scene", 800, 600, 4});  // even sizes put the point off centre
  v.push_back({"galaxy", "scene", 333, 177, 2});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Scenes, Parity, testing::ValuesIn(parity_cases()), case_name);

// ------------------------------------------------------------------ focused cases

TEST(CudaRenderer, ReportsDeviceAndMemory) {
  PR_REQUIRE_GPU(gpu);
  EXPECT_EQ(gpu->name(), "gpu");
  EXPECT_NE(gpu->device_name().find("sm_"), std::string::npos) << gpu->device_name();
  std::string err;
  const PointCloud& cloud = scene_cloud("cube", 100'000);
  ASSERT_TRUE(gpu->set_cloud(cloud, &err)) << err;
  // Sorted by default, still 15 bytes a point (float xyz, RGB; no frame buffers yet) + a 24-byte
  // box, a flag byte and a 4-byte list entry a batch.
  EXPECT_TRUE(gpu->cloud_sorted());
  const size_t boxes = (100'000u + kPointBatch - 1) / kPointBatch * (sizeof(PointBox) + 5);
  EXPECT_EQ(gpu->memory_bytes(), 100'000u * 15u + boxes);
  // A subset of the sorted cloud makes the original index once (4 more bytes a point) and still
  // draws the CPU's image; the next cloud drops it.
  RenderSettings rs;
  rs.width = 64;
  rs.height = 48;
  rs.point_count = 30'000;
  Camera cam;
  cam.frame(cloud.world_bounds(), 4.0 / 3.0);
  Frame f;
  render_both(*gpu, cloud, cam, rs, f, /*upload=*/false);
  expect_same(f, "subset of the sorted cloud");
  const size_t frame_bytes = gpu->memory_bytes() - 100'000u * 19u - boxes;
  EXPECT_LT(frame_bytes, size_t(64 * 48 * 40)) << gpu->memory_bytes();
  ASSERT_TRUE(gpu->set_cloud(cloud, &err)) << err;
  EXPECT_EQ(gpu->memory_bytes(), 100'000u * 15u + boxes + frame_bytes);
}

TEST(CudaRenderer, AutomaticSortSortsOnlyIncoherentClouds) {
  PR_REQUIRE_GPU(gpu);
  std::string err;
  // The default mode: the random cube is sorted, the row-by-row terrain kept as it is; forcing
  // either way works; every image equals the CPU's.
  const PointCloud& cube = scene_cloud("cube", 300'000);
  const PointCloud& terrain = scene_cloud("terrain", 300'000);
  RenderSettings rs;
  rs.width = 320;
  rs.height = 240;
  rs.background = kBackground;
  struct Case {
    Toggle mode;
    const PointCloud* cloud;
    bool sorted;
  };
  for (const Case& c : {Case{Toggle::kAuto, &cube, true}, Case{Toggle::kAuto, &terrain, false},
                        Case{Toggle::kOn, &terrain, true}, Case{Toggle::kOff, &cube, false}}) {
    set_sort(*gpu, c.mode);
    Frame f;
    Camera cam;
    cam.frame(c.cloud->world_bounds(), 4.0 / 3.0);
    render_both(*gpu, *c.cloud, cam, rs, f);
    EXPECT_EQ(gpu->cloud_sorted(), c.sorted) << int(c.mode);
    expect_same(f, "sort mode " + std::to_string(int(c.mode)));
  }
}

TEST(CudaRenderer, SubsetCountsMatchCpu) {
  PR_REQUIRE_GPU(gpu);
  const PointCloud& cloud = scene_cloud("terrain", 300'000);
  const Camera cam = make_camera("scene", "terrain", cloud, 4.0 / 3.0);
  std::string err;
  ASSERT_TRUE(gpu->set_cloud(cloud, &err)) << err;
  for (uint64_t count : {uint64_t{100'000}, uint64_t{299'999}, uint64_t{7}, uint64_t{1},
                         uint64_t{0}, uint64_t{1'000'000}}) {
    RenderSettings rs;
    rs.width = 640;
    rs.height = 480;
    rs.background = kBackground;
    rs.point_count = count;
    Frame f;
    render_both(*gpu, cloud, cam, rs, f, /*upload=*/false);
    expect_same(f, "count " + std::to_string(count));
    EXPECT_EQ(f.gpu_stats.points_drawn, effective_count(cloud.size(), count));
    if (count >= 100'000) {
      EXPECT_GT(test::count_drawn(f.gpu, kBackground), 1000u);
    }
    if (count == 0) {
      EXPECT_EQ(test::count_drawn(f.gpu, kBackground), 0u);
    }
  }
}

TEST(CudaRenderer, EqualDepthsResolveToTheSmallestColor) {
  PR_REQUIRE_GPU(gpu);
  // 50 positions on a grid, each used by 40 points of different colors, shuffled: many exactly
  // equal depths per pixel, so only the color tie-break decides the winner, in file order and
  // after the upload-time sort (which puts the copies side by side in another order).
  PointCloud cloud;
  const int kPositions = 50, kCopies = 40;
  cloud.resize(size_t(kPositions) * kCopies);
  std::vector<int> best(kPositions, -1);  // the copy with the smallest color word
  uint32_t state = 12345;
  for (int i = 0; i < kPositions * kCopies; ++i) {
    state = state * 1664525u + 1013904223u;
    const int k = int((state >> 8) % kPositions);
    cloud.positions[i] = Float3{float(k % 10) - 4.5f, float(k / 10) - 2.0f, 0.0f};
    // Later points get smaller colors (blue, the opaque word's high byte, falls), so "first
    // stored" would be wrong; the alpha varies too and is not drawn (kOpaqueAlpha).
    cloud.colors[i] = rgba(uint8_t(k), uint8_t(i), uint8_t(255 - (i >> 3)), uint8_t(i >> 4));
    if (best[k] < 0 ||
        (cloud.colors[i] | kOpaqueAlpha) < (cloud.colors[size_t(best[k])] | kOpaqueAlpha))
      best[k] = i;
  }
  Camera cam;  // looking along +z at the grid in the z = 0 plane
  cam.position = {0.0, 0.0, -40.0};
  RenderSettings rs;
  rs.width = 320;
  rs.height = 240;
  rs.background = kBackground;
  for (bool sort : {false, true}) {
    set_sorted(*gpu, sort);
    Frame f;
    render_both(*gpu, cloud, cam, rs, f);
    EXPECT_EQ(gpu->cloud_sorted(), sort);
    expect_same(f, sort ? "ties, sorted" : "ties");
    // Independently of the CPU: each used position shows its smallest color.
    const ProjParams p = cam.params(rs.width, rs.height, cloud.origin);
    int checked = 0;
    for (int k = 0; k < kPositions; ++k) {
      if (best[k] < 0) continue;
      const Float3 v = cloud.positions[size_t(best[k])];
      int ix, iy;
      uint64_t key;
      ASSERT_TRUE(project_to_pixel(p, v.x, v.y, v.z, 0, ix, iy, key));
      EXPECT_EQ(f.gpu.at(ix, iy), cloud.colors[size_t(best[k])] | kOpaqueAlpha) << "position " << k;
      ++checked;
    }
    EXPECT_GT(checked, 40);
  }
}

TEST(CudaRenderer, ColorsAreStoredInThreeBytesAndDrawnOpaque) {
  PR_REQUIRE_GPU(gpu);
  // A grid of points, one a pixel, each with its own color and alpha: every pixel shows its
  // point's RGB with alpha 255, for point counts that end anywhere in a 32-bit word of the packed
  // array (3 bytes a point), in file order and sorted, with float and compact positions.
  std::string err;
  size_t frame_bytes = 0;  // the frame buffers, kept from the first frame on (one size)
  for (const int n : {1, 2, 3, 4, 5, 1001, 4099}) {
    PointCloud cloud;
    cloud.resize(size_t(n));
    uint32_t state = 777u + uint32_t(n);
    for (int i = 0; i < n; ++i) {
      // Pixel centres (one unit a pixel below), so rounding cannot move a point to a neighbour.
      cloud.positions[size_t(i)] = Float3{float(i % 80) - 39.5f, float(i / 80) - 29.5f, 0.0f};
      state = state * 1664525u + 1013904223u;
      cloud.colors[size_t(i)] = state;
    }
    Camera cam;  // looking along +z at the grid, one unit a pixel
    cam.position = {0.0, 0.0, -100.0};
    cam.focus = 1.0;
    RenderSettings rs;
    rs.width = 200;
    rs.height = 200;
    rs.background = kBackground;
    const ProjParams p = cam.params(rs.width, rs.height, cloud.origin);
    for (const bool compact : {false, true})
      for (const bool sort : {false, true}) {
        set_compact(*gpu, compact);
        set_sorted(*gpu, sort);
        CpuRenderer cpu;
        cpu.set_options(gpu->options());
        ASSERT_TRUE(cpu.set_cloud(cloud, &err)) << err;
        ASSERT_TRUE(gpu->set_cloud(cloud, &err)) << err;
        const std::string what = std::to_string(n) + (compact ? " compact" : " float") +
                                 (sort ? " sorted" : " file order");
        const uint64_t batches = compact ? (uint64_t(n) + kCompactBatch - 1) / kCompactBatch
                                         : (uint64_t(n) + kPointBatch - 1) / kPointBatch;
        const uint64_t per_batch = compact ? sizeof(CompactBatch) + 5 : sizeof(PointBox) + 5;
        const uint64_t rgb_bytes = (3 * uint64_t(n) + 3) / 4 * 4;
        const uint64_t cloud_bytes =
            uint64_t(n) * (compact ? 4u : 12u) + rgb_bytes + batches * per_batch;
        EXPECT_EQ(gpu->memory_bytes(), cloud_bytes + frame_bytes) << what;
        Image gi, ci;
        FrameStats st;
        ASSERT_TRUE(gpu->render(cam, rs, gi, st, &err)) << err;
        ASSERT_TRUE(cpu.render(cam, rs, ci, st, &err)) << err;
        EXPECT_EQ(gi.rgba, ci.rgba) << what;
        frame_bytes = gpu->memory_bytes() - cloud_bytes;
        for (int i = 0; i < n; ++i) {
          const Float3 v = cloud.positions[size_t(i)];
          int ix, iy;
          uint64_t key;
          ASSERT_TRUE(project_to_pixel(p, v.x, v.y, v.z, 0, ix, iy, key));
          ASSERT_EQ(gi.at(ix, iy), cloud.colors[size_t(i)] | kOpaqueAlpha)
              << what << " point " << i;
        }
      }
  }
}

TEST(CudaRenderer, NanAndInfinitePointsDrawNothingAndBreakNothing) {
  PR_REQUIRE_GPU(gpu);
  PointCloud cloud = make_scene("cube", 200'000);
  Camera overview;  // framed on the clean cloud (the huge finite values below would widen it)
  overview.frame(cloud.world_bounds(), 1023.0 / 769.0);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float bad[] = {nan, inf, -inf, 3.0e38f, -3.0e38f, 1e-45f};
  for (size_t i = 0; i < cloud.size(); i += 5) {
    Float3& v = cloud.positions[i];
    const float b = bad[(i / 5) % 6];
    switch ((i / 30) % 4) {
      case 0:
        v.x = b;
        break;
      case 1:
        v.y = b;
        break;
      case 2:
        v.z = b;
        break;
      default:
        v = Float3{b, b, b};
    }
  }
  RenderSettings rs;
  rs.width = 1023;
  rs.height = 769;
  rs.background = kBackground;
  Frame f;
  render_both(*gpu, cloud, overview, rs, f);
  expect_same(f, "nan/inf");
  EXPECT_GT(test::count_drawn(f.gpu, kBackground), 10'000u);
  // Every point bad: only background.
  PointCloud all_bad = make_scene("cube", 10'000);
  for (auto& v : all_bad.positions) v = Float3{nan, inf, -inf};
  render_both(*gpu, all_bad, Camera{}, rs, f);
  expect_same(f, "all bad");
  EXPECT_EQ(test::count_drawn(f.gpu, kBackground), 0u);
}

TEST(CudaRenderer, EmptyCloudAndNoCloudDrawTheBackground) {
  PR_REQUIRE_GPU(gpu);
  RenderSettings rs;
  rs.width = 64;
  rs.height = 48;
  rs.background = kBackground;
  Image img;
  FrameStats st;
  std::string err;
  ASSERT_TRUE(gpu->render(Camera{}, rs, img, st, &err)) << err;  // before any set_cloud
  EXPECT_EQ(img.width, 64);
  EXPECT_EQ(test::count_drawn(img, kBackground), 0u);
  PointCloud empty;
  ASSERT_TRUE(gpu->set_cloud(empty, &err)) << err;
  img.rgba.assign(img.rgba.size(), 0u);
  ASSERT_TRUE(gpu->render(Camera{}, rs, img, st, &err)) << err;
  EXPECT_EQ(test::count_drawn(img, kBackground), 0u);
  EXPECT_EQ(st.points_drawn, 0u);
}

TEST(CudaRenderer, ZeroAndNegativeSizes) {
  PR_REQUIRE_GPU(gpu);
  std::string err;
  ASSERT_TRUE(gpu->set_cloud(scene_cloud("cube", 100'000), &err)) << err;
  RenderSettings rs;
  rs.width = 0;
  rs.height = 480;
  Image img;
  FrameStats st;
  EXPECT_TRUE(gpu->render(Camera{}, rs, img, st, &err)) << err;  // a minimized window
  EXPECT_EQ(img.pixel_count(), 0u);
  rs.width = -5;
  err.clear();
  EXPECT_FALSE(gpu->render(Camera{}, rs, img, st, &err));
  EXPECT_FALSE(err.empty());
}

TEST(CudaRenderer, ResizesAndNewCloudsBetweenFrames) {
  PR_REQUIRE_GPU(gpu);
  const int sizes[][2] = {{640, 480}, {320, 200}, {640, 480}, {1, 1}, {1023, 769}, {640, 480}};
  int step = 0;
  for (const auto& s : sizes) {
    // Alternate clouds (smaller after bigger reuses the allocation; bigger after smaller grows it).
    const PointCloud& cloud =
        scene_cloud(step % 2 ? "galaxy" : "cube", step % 2 ? 150'000 : 300'000);
    RenderSettings rs;
    rs.width = s[0];
    rs.height = s[1];
    rs.background = kBackground;
    const Camera cam = make_camera("scene", step % 2 ? "galaxy" : "cube", cloud, 1.0);
    Frame f;
    render_both(*gpu, cloud, cam, rs, f);
    expect_same(f, "step " + std::to_string(step));
    // And a second frame of the same: the fused clear must leave an empty visibility buffer.
    Frame g;
    render_both(*gpu, cloud, cam, rs, g, /*upload=*/false);
    expect_same(g, "step " + std::to_string(step) + " again");
    ++step;
  }
}

TEST(CudaRenderer, DepthMatchesCpuBitForBit) {
  PR_REQUIRE_GPU(gpu);
  const PointCloud& cloud = scene_cloud("terrain", 300'000);
  RenderSettings rs;
  rs.width = 800;
  rs.height = 600;
  rs.want_depth = true;
  Frame f;
  render_both(*gpu, cloud, make_camera("scene", "terrain", cloud, 4.0 / 3.0), rs, f);
  expect_same(f, "depth frame");
  ASSERT_EQ(f.gpu.depth.size(), f.cpu.depth.size());
  ASSERT_EQ(f.gpu.depth.size(), size_t(800 * 600));
  EXPECT_EQ(std::memcmp(f.gpu.depth.data(), f.cpu.depth.data(), f.cpu.depth.size() * sizeof(float)),
            0);
  size_t finite = 0;
  for (float d : f.gpu.depth) finite += std::isfinite(d);
  EXPECT_GT(finite, 1000u);
}

TEST(CudaRenderer, OutOfDeviceMemoryFailsCleanlyAndKeepsWorking) {
  PR_REQUIRE_GPU(gpu);
  std::string err;
  // 2^40 points = 16 TiB: no device has that; cudaMalloc fails and must leave no sticky error.
  EXPECT_FALSE(reserve_points(*gpu, uint64_t{1} << 40, &err));
  EXPECT_NE(err.find("out of GPU memory"), std::string::npos) << err;
  EXPECT_NE(err.find("GiB"), std::string::npos) << err;
  // No cloud now: the background, no crash.
  RenderSettings rs;
  rs.width = 320;
  rs.height = 240;
  rs.background = kBackground;
  Image img;
  FrameStats st;
  ASSERT_TRUE(gpu->render(Camera{}, rs, img, st, &err)) << err;
  EXPECT_EQ(test::count_drawn(img, kBackground), 0u);
  // A cloud that fits is accepted afterwards and renders like the CPU.
  Frame f;
  render_both(*gpu, scene_cloud("cube", 100'000), Camera{}, rs, f);
  expect_same(f, "after out of memory");
  EXPECT_GT(test::count_drawn(f.gpu, kBackground), 100u);
}

TEST(CudaRenderer, StageTimesAreMeasured) {
  PR_REQUIRE_GPU(gpu);
  std::string err;
  ASSERT_TRUE(gpu->set_cloud(scene_cloud("cube", 300'000), &err)) << err;
  RenderSettings rs;
  rs.width = 640;
  rs.height = 480;
  Image img;
  FrameStats st;
  // By default only the whole GPU frame is timed (reported as raster).
  EXPECT_FALSE(gpu->tuning().stage_timing);
  ASSERT_TRUE(gpu->render(Camera{}, rs, img, st, &err)) << err;
  EXPECT_FALSE(st.stages);
  EXPECT_GT(st.raster_ms, 0.0);
  EXPECT_EQ(st.resolve_ms, 0.0);
  EXPECT_GT(st.copy_ms, 0.0);
  EXPECT_GE(st.total_ms, st.raster_ms);
  // Stages apart, with and without the frame graph; the image does not change.
  const Image whole = img;
  CudaTuning staged;
  staged.stage_timing = true;
  gpu->set_tuning(staged);
  for (bool graph : {true, false}) {
    set_frame_graph(*gpu, graph);
    ASSERT_TRUE(gpu->render(Camera{}, rs, img, st, &err)) << err;
    EXPECT_TRUE(st.stages);
    EXPECT_GT(st.raster_ms, 0.0);
    EXPECT_GT(st.resolve_ms, 0.0);
    EXPECT_GT(st.copy_ms, 0.0);
    EXPECT_GE(st.total_ms, st.raster_ms + st.resolve_ms);
    EXPECT_EQ(img.rgba, whole.rgba);
  }
}

// ------------------------------------------------------------------ stored orders and graphs

struct OrderCase {
  bool sort;
  bool graph = false;  // each frame as one CUDA graph launch
};

std::string order_case_name(const testing::TestParamInfo<OrderCase>& i) {
  return std::string(i.param.sort ? "sorted" : "file_order") + (i.param.graph ? "_graph" : "");
}

class StoredOrders : public testing::TestWithParam<OrderCase> {};

/// The grid the StoredOrders and CompactPositions suites draw for each scene: cameras (the scene's,
/// inside the cloud, in its middle) x sizes with point sizes 1 - 3, each frame twice (the second
/// after the fused clear). `draw(camera, settings, frame)` renders the frame's CPU and GPU images;
/// they must be equal, and the GPU's must draw something.
template <class Draw>
void check_grid(const char* scene, const PointCloud& cloud, Draw draw) {
  const int sizes[][3] = {{1023, 769, 1}, {640, 480, 3}, {1920, 1080, 1}, {333, 177, 2}};
  for (const char* cam : {"scene", "inside", "behind"})
    for (const auto& sz : sizes) {
      RenderSettings rs;
      rs.width = sz[0];
      rs.height = sz[1];
      rs.point_size = sz[2];
      rs.background = kBackground;
      const Camera c = make_camera(cam, scene, cloud, double(sz[0]) / double(sz[1]));
      const std::string what = std::string(scene) + "/" + cam + "/" + std::to_string(sz[0]) + "x" +
                               std::to_string(sz[1]) + "/ps" + std::to_string(sz[2]);
      for (int again = 0; again < 2; ++again) {
        Frame f;
        draw(c, rs, f);
        expect_same(f, what + (again ? " again" : ""));
        EXPECT_GT(test::count_drawn(f.gpu, kBackground), 0u) << what;
      }
    }
}

/// With and without the upload-time Morton sort, frame by frame or as graphs, the GPU draws the
/// CPU's image: scenes x cameras x sizes (point sizes 1 and 3), subsets, exact ties, NaN points, a
/// repeated frame (the fused clear) and a resize.
TEST_P(StoredOrders, EveryPathEqualsCpu) {
  PR_REQUIRE_GPU(gpu);
  const OrderCase& v = GetParam();
  std::string err;
  set_sorted(*gpu, v.sort);
  set_frame_graph(*gpu, v.graph);
  // These clouds are below the size the renderer culls by default: cull them anyway, with a
  // round a block (file order), a batch a block (sorted) or two batches a block (graphs).
  set_rounds(*gpu, v.graph ? 8 : v.sort ? 4 : 1);
  EXPECT_EQ(gpu->tuning().frame_graph, v.graph);
  for (const char* scene : {"cube", "terrain", "galaxy"}) {
    const PointCloud& cloud = scene_cloud(scene, 300'000);
    ASSERT_TRUE(gpu->set_cloud(cloud, &err)) << err;
    EXPECT_EQ(gpu->cloud_sorted(), v.sort);
    // 15 bytes a point sorted or not: no index is kept until a subset is drawn.
    EXPECT_GE(gpu->memory_bytes(), cloud.size() * 15u);
    check_grid(scene, cloud, [&](const Camera& c, const RenderSettings& rs, Frame& f) {
      render_both(*gpu, cloud, c, rs, f, /*upload=*/false);
    });
    for (uint64_t count :
         {uint64_t{100'000}, uint64_t{299'999}, uint64_t{7}, uint64_t{1}, uint64_t{0}}) {
      for (int ps : {1, 3}) {
        RenderSettings rs;
        rs.width = 640;
        rs.height = 480;
        rs.point_size = ps;
        rs.background = kBackground;
        rs.point_count = count;
        Frame f;
        render_both(*gpu, cloud, make_camera("scene", scene, cloud, 4.0 / 3.0), rs, f, false);
        expect_same(
            f, std::string(scene) + " count " + std::to_string(count) + " ps" + std::to_string(ps));
        EXPECT_EQ(f.gpu_stats.points_drawn, effective_count(cloud.size(), count));
      }
    }
  }
  // Exact ties: 50 positions, 40 points each (shuffled), all colors different: only the color
  // word decides, also when the sort puts the copies side by side.
  const PointCloud ties = tie_cloud();
  Camera tie_cam;
  tie_cam.position = {0.0, 0.0, -40.0};
  RenderSettings rs;
  rs.width = 320;
  rs.height = 240;
  rs.background = kBackground;
  Frame f;
  render_both(*gpu, ties, tie_cam, rs, f);
  expect_same(f, "ties");
  EXPECT_GT(test::count_drawn(f.gpu, kBackground), 40u);
  // Bad coordinates among good ones.
  const PointCloud bad = bad_cloud();
  Camera overview;  // framing the cube before its bad coordinates
  overview.frame(scene_cloud("cube", 100'000).world_bounds(), 4.0 / 3.0);
  render_both(*gpu, bad, overview, rs, f);
  expect_same(f, "nan");
  EXPECT_GT(test::count_drawn(f.gpu, kBackground), 1000u);
}

INSTANTIATE_TEST_SUITE_P(Kernels, StoredOrders,
                         testing::Values(OrderCase{false}, OrderCase{true}, OrderCase{false, true},
                                         OrderCase{true, true}),
                         order_case_name);

// ------------------------------------------------------------------ compact quantized positions

class CompactPositions : public testing::TestWithParam<bool> {};

std::string compact_case_name(const testing::TestParamInfo<bool>& i) {
  return i.param ? "morton_order" : "file_order";
}

/// Compact positions (engine/compact.h) on the GPU draw exactly what the CPU renderer draws from
/// the same compact form: the StoredOrders grid (scenes x cameras x sizes x point sizes, each frame
/// twice), subsets at point sizes 1 and 3, exact ties, NaN / huge coordinates; memory_bytes() is
/// the real allocation (8 B a point + 24 B a batch); switching compact off afterwards gives
/// the plain image again.
TEST_P(CompactPositions, GpuEqualsCpuCompact) {
  PR_REQUIRE_GPU(gpu);
  const bool morton = GetParam();
  std::string err;
  set_compact(*gpu, true);
  set_sorted(*gpu, morton);
  auto compact_frame = [&](CpuRenderer& cpu, const Camera& c, const RenderSettings& rs, Frame& f) {
    ASSERT_TRUE(cpu.render(c, rs, f.cpu, f.cpu_stats, &err)) << err;
    ASSERT_TRUE(gpu->render(c, rs, f.gpu, f.gpu_stats, &err)) << err;
  };
  for (const char* scene : {"cube", "terrain", "galaxy"}) {
    const PointCloud& cloud = scene_cloud(scene, 300'000);
    CpuRenderer cpu;
    cpu.set_options(gpu->options());
    ASSERT_TRUE(cpu.set_cloud(cloud, &err)) << err;
    ASSERT_TRUE(gpu->set_cloud(cloud, &err)) << err;
    EXPECT_TRUE(gpu->compact_active());
    EXPECT_EQ(gpu->cloud_sorted(), morton);
    if (std::string(scene) == "cube") {  // before any frame: no pixel buffers yet
      const size_t batches = (cloud.size() + kCompactBatch - 1) / kCompactBatch;
      EXPECT_EQ(gpu->memory_bytes(), cloud.size() * 7u + batches * (sizeof(CompactBatch) + 5));
    }
    check_grid(scene, cloud, [&](const Camera& c, const RenderSettings& rs, Frame& f) {
      compact_frame(cpu, c, rs, f);
    });
    for (uint64_t count :
         {uint64_t{100'000}, uint64_t{299'999}, uint64_t{7}, uint64_t{1}, uint64_t{0}}) {
      for (int ps : {1, 3}) {
        RenderSettings rs;
        rs.width = 640;
        rs.height = 480;
        rs.point_size = ps;
        rs.background = kBackground;
        rs.point_count = count;
        rs.want_depth = true;
        Frame f;
        compact_frame(cpu, make_camera("scene", scene, cloud, 4.0 / 3.0), rs, f);
        const std::string what =
            std::string(scene) + " count " + std::to_string(count) + " ps" + std::to_string(ps);
        expect_same(f, what);
        EXPECT_EQ(
            std::memcmp(f.gpu.depth.data(), f.cpu.depth.data(), f.cpu.depth.size() * sizeof(float)),
            0)
            << what;
        EXPECT_EQ(f.gpu_stats.points_drawn, effective_count(cloud.size(), count));
      }
    }
  }
  // Exact ties and bad coordinates, as in the StoredOrders suite.
  const PointCloud ties = tie_cloud();
  const PointCloud bad = bad_cloud();
  Camera tie_cam;
  tie_cam.position = {0.0, 0.0, -40.0};
  Camera overview;
  overview.frame(make_scene("cube", 100'000).world_bounds(), 4.0 / 3.0);
  RenderSettings rs;
  rs.width = 320;
  rs.height = 240;
  rs.background = kBackground;
  for (const PointCloud* c : {&ties, &bad}) {
    CpuRenderer cpu;
    cpu.set_options(gpu->options());
    ASSERT_TRUE(cpu.set_cloud(*c, &err)) << err;
    ASSERT_TRUE(gpu->set_cloud(*c, &err)) << err;
    Frame f;
    compact_frame(cpu, c == &ties ? tie_cam : overview, rs, f);
    expect_same(f, c == &ties ? "ties" : "nan");
    EXPECT_GT(test::count_drawn(f.gpu, kBackground), 40u);
  }
  // Off again: the next upload is the plain one and matches the plain CPU path.
  set_compact(*gpu, false);
  Frame f;
  render_both(*gpu, scene_cloud("cube", 300'000), Camera{}, rs, f);
  EXPECT_FALSE(gpu->compact_active());
  expect_same(f, "compact off again");
}

INSTANTIATE_TEST_SUITE_P(Kernels, CompactPositions, testing::Values(false, true),
                         compact_case_name);

// ------------------------------------------------------------------ frame sequences

class FrameSequences : public testing::TestWithParam<bool> {};

/// State carried from frame to frame (the fused clear, the graph's in-place update, the original
/// index made for a subset of a sorted cloud): a sequence that moves the camera, changes the
/// background, asks for depth, changes the point count and to zero, switches the point size and
/// the image size, and alternates with another cloud: every frame equals the CPU's
/// image (and depth) pixel for pixel. Param: CUDA graph per frame (the default) or launches.
TEST_P(FrameSequences, EveryFrameEqualsCpu) {
  PR_REQUIRE_GPU(gpu);
  set_frame_graph(*gpu, GetParam());
  std::string err;
  const PointCloud& small = scene_cloud("cube", 20'000);
  const PointCloud& big = scene_cloud("terrain", 300'000);
  auto cpu = make_cpu_renderer();
  ASSERT_TRUE(cpu->set_cloud(small, &err)) << err;
  ASSERT_TRUE(gpu->set_cloud(small, &err)) << err;
  RenderSettings rs;
  rs.width = 640;
  rs.height = 480;
  rs.background = kBackground;
  Camera cam;
  cam.frame(small.world_bounds(), 4.0 / 3.0);
  const Camera overview = cam;
  int frame_no = 0;
  auto check = [&](const std::string& what) {
    Frame f;
    ASSERT_TRUE(cpu->render(cam, rs, f.cpu, f.cpu_stats, &err)) << err;
    ASSERT_TRUE(gpu->render(cam, rs, f.gpu, f.gpu_stats, &err)) << err;
    expect_same(f, "frame " + std::to_string(frame_no) + ": " + what);
    ++frame_no;
  };
  for (int i = 0; i < 6; ++i) {  // orbit: each frame draws other pixels
    cam.yaw = overview.yaw + 0.15 * i;
    cam.position = overview.position + glm::dvec3(3.0 * i, -2.0 * i, 1.0 * i);
    check("orbit " + std::to_string(i));
  }
  cam = overview;
  check("back to the overview");
  check("the same frame again");
  cam.position = {0.0, 0.0, 10.0};  // inside the cube: few points in view
  cam.yaw = cam.pitch = 0.0;
  check("inside");
  cam = overview;
  check("overview after inside");
  rs.background = rgba(200, 10, 10);
  check("another background");
  rs.want_depth = true;
  check("depth on");
  cam.yaw += 0.3;
  check("depth on, moved");
  rs.want_depth = false;
  check("depth off");
  rs.point_count = 500;
  check("500 points");
  rs.point_count = 0;
  check("no points");
  rs.point_count = 10'000;
  check("10,000 points");
  rs.point_count = ~uint64_t{0};
  rs.point_size = 2;
  check("point size 2");
  rs.point_size = 1;
  check("point size 1 again");
  rs.width = 1023;
  rs.height = 769;
  check("resized");
  check("resized, again");
  // Another cloud in between, then the small one again.
  ASSERT_TRUE(cpu->set_cloud(big, &err)) << err;
  ASSERT_TRUE(gpu->set_cloud(big, &err)) << err;
  cam.frame(big.world_bounds(), 1023.0 / 769.0);
  check("terrain");
  check("terrain again");
  ASSERT_TRUE(cpu->set_cloud(small, &err)) << err;
  ASSERT_TRUE(gpu->set_cloud(small, &err)) << err;
  check("small cloud after the terrain");
  cam = overview;
  check("small cloud, overview");
  // Subsets of the sorted small cloud.
  rs.point_count = 5'000;
  check("subset of the sorted cloud");
  cam.yaw -= 0.2;
  check("subset, moved");
}

INSTANTIATE_TEST_SUITE_P(Kernels, FrameSequences, testing::Values(false, true),
                         [](const testing::TestParamInfo<bool>& i) {
                           return std::string(i.param ? "graph" : "launches");
                         });

/// set_memory_limit() caps the point storage: a cloud over it is refused with a message naming
/// the limit and the renderer keeps working (the background); the same cloud in compact form
/// (7 bytes a point instead of 15) fits under a limit of 10 bytes a point and draws the CPU's
/// compact image; without the limit the full-precision cloud is back.
TEST(CudaRenderer, MemoryLimitRefusesCloudsOverItAndCompactPositionsFit) {
  PR_REQUIRE_GPU(gpu);
  std::string err;
  const PointCloud& cloud = scene_cloud("cube", 100'000);
  RenderSettings rs;
  rs.width = 320;
  rs.height = 240;
  rs.background = kBackground;
  gpu->set_memory_limit(cloud.size() * 10);
  EXPECT_FALSE(gpu->set_cloud(cloud, &err));
  EXPECT_NE(err.find("over the limit"), std::string::npos) << err;
  Image img;
  FrameStats st;
  ASSERT_TRUE(gpu->render(Camera{}, rs, img, st, &err)) << err;
  EXPECT_EQ(test::count_drawn(img, kBackground), 0u);
  set_compact(*gpu, true);
  ASSERT_TRUE(gpu->set_cloud(cloud, &err)) << err;
  // The cloud's storage under the limit, plus the frame's visibility and color buffers (12 B a
  // pixel) of the render above.
  EXPECT_LE(gpu->memory_bytes(), cloud.size() * 10 + size_t(rs.width) * size_t(rs.height) * 12);
  CpuRenderer cpu;
  cpu.set_options(gpu->options());
  ASSERT_TRUE(cpu.set_cloud(cloud, &err)) << err;
  Frame f;
  ASSERT_TRUE(cpu.render(Camera{}, rs, f.cpu, f.cpu_stats, &err)) << err;
  ASSERT_TRUE(gpu->render(Camera{}, rs, f.gpu, f.gpu_stats, &err)) << err;
  expect_same(f, "compact under the limit");
  EXPECT_GT(test::count_drawn(f.gpu, kBackground), 100u);
  gpu->set_memory_limit(0);
  set_compact(*gpu, false);
  Frame g;
  render_both(*gpu, cloud, Camera{}, rs, g);
  expect_same(g, "no limit, full precision");
}

/// `cloud` on both renderers with the same options, in full precision or compact positions (the
/// CPU then draws the same dequantized points, in the order the GPU stores them in).
void load_both(CudaRenderer& gpu, CpuRenderer& cpu, const PointCloud& cloud, bool compact) {
  std::string err;
  set_compact(gpu, compact);
  cpu.set_options(gpu.options());
  ASSERT_TRUE(cpu.set_cloud(cloud, &err)) << err;
  ASSERT_TRUE(gpu.set_cloud(cloud, &err)) << err;
}

/// The resolve reads only the keys of box_pixel_rect() of the cloud's box and writes the rest as
/// background. A camera path moves the cloud across the image edges, far away (a rect of a few
/// pixels), out of view (an empty rect), inside the cloud (the whole image) and back, with point
/// sizes 1 and 3, an odd image width (quads that wrap rows) and depth output; float and compact
/// positions. Every frame equals the CPU's image and depth: a rect too small would lose points at
/// its edge, and a key left outside it would show in a later frame.
TEST(CudaRenderer, ResolveRectKeepsEveryFrameEqualToTheCpu) {
  PR_REQUIRE_GPU(gpu);
  std::string err;
  const PointCloud& cloud = scene_cloud("cube", 100'000);
  const Bounds b = cloud.world_bounds();
  for (const bool compact : {false, true}) {
    SCOPED_TRACE(compact ? "compact" : "float");
    CpuRenderer cpu;
    ASSERT_NO_FATAL_FAILURE(load_both(*gpu, cpu, cloud, compact));
    RenderSettings rs;
    rs.width = 641;  // odd: quads of four pixels wrap to the next row
    rs.height = 480;
    rs.background = kBackground;
    const double aspect = double(rs.width) / double(rs.height);
    Camera overview;
    overview.frame(b, aspect);
    // The cloud's box as the renderer sees it: the union of its batch boxes (float storage).
    PointBox box = empty_point_box();
    if (!compact) {
      PodVector<PointBox> boxes;
      ASSERT_TRUE(download_boxes(*gpu, &boxes, &err)) << err;
      for (const PointBox& pb : boxes) box_grow(box, pb);
    }
    int partial = 0, frame_no = 0;
    auto check = [&](const Camera& cam, const std::string& what) {
      SCOPED_TRACE("frame " + std::to_string(frame_no++) + ": " + what);
      if (!compact) {
        const PixelRect r =
            box_pixel_rect(cam.params(rs.width, rs.height, cloud.origin, rs.point_size), box);
        partial += int64_t(r.x1 - r.x0) * (r.y1 - r.y0) < int64_t(rs.width) * rs.height / 2;
      }
      Frame f;
      ASSERT_TRUE(cpu.render(cam, rs, f.cpu, f.cpu_stats, &err)) << err;
      ASSERT_TRUE(gpu->render(cam, rs, f.gpu, f.gpu_stats, &err)) << err;
      expect_same(f, what);
    };
    check(overview, "overview");
    for (int i = 0; i < 8; ++i) {  // the cloud swept across the left, right, top and bottom edges
      Camera c = overview;
      c.yaw += (i % 2 ? 0.35 : -0.35) * (i < 4 ? 1.0 : 0.0);
      c.pitch += (i % 2 ? 0.3 : -0.3) * (i >= 4 ? 1.0 : 0.0);
      rs.point_size = i % 3 == 2 ? 3 : 1;
      check(c, "swept " + std::to_string(i));
    }
    rs.point_size = 1;
    Camera far = overview;
    far.position -= far.forward() * glm::length(b.size()) * 40.0;
    check(far, "far away");
    rs.point_size = 3;
    check(far, "far away, point size 3");
    rs.point_size = 1;
    Camera away = overview;
    away.yaw += 3.14159;
    check(away, "looking away");
    check(Camera{}, "the default camera (0, 0, 10) inside the cube");
    rs.want_depth = true;
    far.position += far.forward() * glm::length(b.size()) * 30.0;
    check(far, "nearer, with depth");
    rs.want_depth = false;
    check(overview, "overview again");
    if (!compact) {
      EXPECT_GE(partial, 8);
    }
  }
  set_compact(*gpu, false);
}

/// Occlusion culling (RenderOptions::occlusion kOn) keeps every frame equal to the CPU's image over
/// a camera path that moves (the last frame's Hi-Z then defers batches that are now in front),
/// turns, leaves and re-enters the cloud, with point sizes 1 and 3, depth output and a subset, in
/// float and compact storage. At a camera that stays put it skips most of a dense cloud: from the
/// second frame on the first pass draws every batch that wins a pixel, the second draws none, and
/// the Hi-Z the renderer keeps is the host's build_hiz() of the CPU's final depths.
TEST(CudaRenderer, OcclusionCullingKeepsEveryFrameEqualToTheCpu) {
  PR_REQUIRE_GPU(gpu);
  std::string err;
  const PointCloud& cloud = scene_cloud("cube", 1'000'000);
  const Bounds b = cloud.world_bounds();
  set_occlusion(*gpu, Toggle::kOn);
  for (const bool compact : {false, true}) {
    SCOPED_TRACE(compact ? "compact" : "float");
    CpuRenderer cpu;
    ASSERT_NO_FATAL_FAILURE(load_both(*gpu, cpu, cloud, compact));
    RenderSettings rs;
    rs.width = 333;  // not a whole number of tiles
    rs.height = 190;
    rs.background = kBackground;
    Camera overview;
    overview.frame(b, double(rs.width) / double(rs.height));
    int frame_no = 0;
    uint64_t occluded = 0, second = 0;
    CudaRenderer::BatchCounts c;  // the last frame's
    auto check = [&](const Camera& cam, const std::string& what) {
      SCOPED_TRACE("frame " + std::to_string(frame_no++) + ": " + what);
      c = CudaRenderer::BatchCounts{};
      Frame f;
      ASSERT_TRUE(cpu.render(cam, rs, f.cpu, f.cpu_stats, &err)) << err;
      ASSERT_TRUE(gpu->render(cam, rs, f.gpu, f.gpu_stats, &err)) << err;
      expect_same(f, what);
      if (rs.point_count == 0) {  // nothing to draw: no passes, no counts
        EXPECT_FALSE(gpu->last_batch_counts(&c, &err));
        return;
      }
      ASSERT_TRUE(gpu->last_batch_counts(&c, &err)) << err;
      EXPECT_TRUE(c.occlusion);
      EXPECT_EQ(c.culled + c.first + c.second + c.occluded, c.batches);
      occluded += c.occluded;
      second += c.second;
    };
    rs.want_depth = true;
    check(overview, "overview, first");
    for (int k = 0; k < 2; ++k) {  // the same camera again: the Hi-Z of the last frame holds
      check(overview, "overview, again");
      EXPECT_EQ(c.second, 0u);
      EXPECT_GT(c.occluded, c.batches / 4) << "most of the dense cube is hidden";
      // The kept Hi-Z is that of the final image's keys.
      Image img;
      FrameStats st;
      ASSERT_TRUE(cpu.render(overview, rs, img, st, &err)) << err;
      const std::vector<uint32_t> want = test::hiz_of_depths(img);
      std::vector<uint32_t> got;
      int gw = 0, gh = 0;
      ASSERT_TRUE(download_hiz(*gpu, &got, &gw, &gh, &err)) << err;
      EXPECT_EQ(gw, rs.width);
      EXPECT_EQ(gh, rs.height);
      EXPECT_TRUE(got == want) << "the Hi-Z differs from the host's";
    }
    rs.want_depth = false;
    for (int i = 0; i < 10; ++i) {  // moving in, turning: batches deferred by a stale Hi-Z
      Camera cam = overview;
      cam.position += cam.forward() * glm::length(b.size()) * 0.08 * double(i);
      cam.yaw += 0.06 * double(i);
      cam.pitch -= 0.03 * double(i);
      rs.point_size = i % 4 == 3 ? 3 : 1;
      check(cam, "moving " + std::to_string(i));
    }
    // Back out at once: the near view's Hi-Z defers nearly every batch, the second pass draws.
    rs.point_size = 1;
    Camera nearer = overview;  // the cube filling the image
    nearer.position += nearer.forward() * glm::length(b.size()) * 0.4;
    check(nearer, "nearer");
    check(overview, "back out");
    EXPECT_GT(c.second, c.batches / 4);
    rs.point_size = 1;
    Camera away = overview;
    away.yaw += 3.14159;
    check(away, "looking away");
    check(Camera{}, "the default camera (0, 0, 10) inside the cube");
    check(overview, "overview after inside");
    rs.point_count = cloud.size() / 3;
    check(overview, "a third of the points");
    check(overview, "a third of the points, again");
    rs.point_count = 0;
    check(overview, "no point");
    rs.point_count = ~uint64_t{0};
    check(overview, "all again");
    EXPECT_GT(occluded, 0u);
    EXPECT_GT(second, 0u) << "no frame drew a deferred batch: the path does not test pass 2";
  }
  set_compact(*gpu, false);
  set_occlusion(*gpu, Toggle::kOff);
  // Off: the counts say so.
  RenderSettings rs;
  rs.width = 64;
  rs.height = 48;
  Image img;
  FrameStats st;
  ASSERT_TRUE(gpu->set_cloud(cloud, &err)) << err;
  ASSERT_TRUE(gpu->render(Camera{}, rs, img, st, &err)) << err;
  CudaRenderer::BatchCounts off;
  if (gpu->last_batch_counts(&off, &err)) {
    EXPECT_FALSE(off.occlusion);
  }
}

/// The default, kAuto: a cloud of 2^25 points seen whole through a small image hides most of its
/// batches, so its frames run occlusion culling; seen from inside, nothing is hidden, and then only
/// every 16th frame tries again. Every frame compared equals the CPU's image.
TEST(CudaRenderer, AutomaticOcclusionCullingRunsWhileItHidesEnough) {
  PR_REQUIRE_GPU(gpu);
  std::string err;
  PointCloud cloud = make_scene("cube", uint64_t{1} << 25);
  set_occlusion(*gpu, Toggle::kAuto);
  CpuRenderer cpu;
  ASSERT_TRUE(cpu.set_cloud(cloud, &err)) << err;
  ASSERT_TRUE(gpu->set_cloud(cloud, &err)) << err;
  RenderSettings rs;
  rs.width = 320;
  rs.height = 180;
  rs.background = kBackground;
  Camera overview;
  overview.frame(cloud.world_bounds(), double(rs.width) / double(rs.height));
  auto draw = [&](const Camera& cam, bool compare, CudaRenderer::BatchCounts* c) {
    Frame f;
    ASSERT_TRUE(gpu->render(cam, rs, f.gpu, f.gpu_stats, &err)) << err;
    ASSERT_TRUE(gpu->last_batch_counts(c, &err)) << err;
    if (!compare) return;
    ASSERT_TRUE(cpu.render(cam, rs, f.cpu, f.cpu_stats, &err)) << err;
    expect_same(f, c->occlusion ? "occlusion culled" : "plain");
  };
  CudaRenderer::BatchCounts c;
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE("overview " + std::to_string(i));
    draw(overview, i == 2, &c);
    EXPECT_TRUE(c.occlusion);
  }
  EXPECT_GT(c.occluded, 4096u);
  int tried = 0;
  for (int i = 0; i < 33; ++i) {
    SCOPED_TRACE("inside " + std::to_string(i));
    draw(Camera{}, i % 8 == 0, &c);
    EXPECT_EQ(c.occluded, 0u);
    if (i > 0) tried += c.occlusion;
  }
  EXPECT_EQ(tried, 2) << "frames 1 - 32 inside: a try every 16th";
  draw(overview, true, &c);  // a try finds the hidden batches again
  for (int i = 0; i < 16 && !c.occlusion; ++i) draw(overview, false, &c);
  EXPECT_TRUE(c.occlusion);
  draw(overview, true, &c);
  EXPECT_TRUE(c.occlusion);
  EXPECT_GT(c.occluded, 4096u);
  set_occlusion(*gpu, Toggle::kOff);
  static const PointCloud kEmpty;
  ASSERT_TRUE(gpu->set_cloud(kEmpty, &err)) << err;
}

/// The GPU's compact encoder (the GPU Morton sort, then one block a batch) stores the very words
/// and boxes of the host's build_compact(), bit for bit, in Morton and in file order, on scenes
/// and on a cloud with NaN, infinite, huge and signed-zero coordinates.
TEST(CudaRenderer, GpuCompactEncodingEqualsTheHosts) {
  PR_REQUIRE_GPU(gpu);
  std::string err;
  PointCloud odd = make_scene("cube", 50'000);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < odd.size(); i += 11) {
    const int k = int(i / 11 % 5);
    odd.positions[i] = k == 0   ? Float3{nan, 1.f, 2.f}
                       : k == 1 ? Float3{1.f, inf, 2.f}
                       : k == 2 ? Float3{2e30f, 0.f, 0.f}
                       : k == 3 ? Float3{-0.0f, -0.0f, 0.0f}
                                : Float3{0.0f, 0.0f, -0.0f};
  }
  set_compact(*gpu, true);
  for (bool morton : {true, false}) {
    set_sorted(*gpu, morton);
    for (const PointCloud* c :
         {&scene_cloud("cube", 300'000), &scene_cloud("terrain", 300'000),
          &scene_cloud("galaxy", 300'000), static_cast<const PointCloud*>(&odd)}) {
      ASSERT_TRUE(gpu->set_cloud(*c, &err)) << err;
      ASSERT_TRUE(gpu->compact_active());
      EXPECT_EQ(gpu->cloud_sorted(), morton);
      CompactCloud host, dev;
      ASSERT_TRUE(build_compact(*c, morton, &host, &err)) << err;
      ASSERT_TRUE(download_compact(*gpu, &dev, &err)) << err;
      ASSERT_EQ(dev.words.size(), host.words.size());
      ASSERT_EQ(dev.batches.size(), host.batches.size());
      size_t bad_words = 0, bad_boxes = 0;
      for (size_t i = 0; i < host.words.size(); ++i) bad_words += dev.words[i] != host.words[i];
      for (size_t i = 0; i < host.batches.size(); ++i)
        bad_boxes += std::memcmp(&dev.batches[i], &host.batches[i], sizeof(CompactBatch)) != 0;
      EXPECT_EQ(bad_words, 0u) << (morton ? "morton" : "file order") << ", " << c->size();
      EXPECT_EQ(bad_boxes, 0u) << (morton ? "morton" : "file order") << ", " << c->size();
    }
  }
  set_compact(*gpu, false);
  ASSERT_TRUE(gpu->set_cloud(odd, &err)) << err;
  EXPECT_FALSE(download_compact(*gpu, nullptr, &err));
  EXPECT_NE(err.find("compact"), std::string::npos) << err;
}

/// The batch boxes (engine/culling.h) the GPU computes after the upload equal the host's
/// compute_point_boxes() of the stored order bit for bit: the Morton order of the GPU sort (the
/// host's morton_order()) or the file order; with NaN, infinite, huge and signed-zero points.
TEST(CudaRenderer, GpuBatchBoxesEqualTheHosts) {
  PR_REQUIRE_GPU(gpu);
  std::string err;
  PointCloud odd = make_scene("galaxy", 3 * kPointBatch + 77);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < odd.size(); i += 13) {
    const int k = int(i / 13 % 5);
    odd.positions[i] = k == 0   ? Float3{nan, 1.f, 2.f}
                       : k == 1 ? Float3{1.f, -inf, 2.f}
                       : k == 2 ? Float3{2e30f, 0.f, -3e38f}
                       : k == 3 ? Float3{-0.0f, -0.0f, 0.0f}
                                : Float3{0.0f, 0.0f, -0.0f};
  }
  for (size_t i = kPointBatch; i < 2 * kPointBatch; ++i) odd.positions[i] = Float3{nan, 0.f, 0.f};
  for (bool sort : {true, false}) {
    set_sorted(*gpu, sort);
    for (const PointCloud* c : {&scene_cloud("cube", 300'000), &scene_cloud("terrain", 300'000),
                                static_cast<const PointCloud*>(&odd)}) {
      ASSERT_TRUE(gpu->set_cloud(*c, &err)) << err;
      EXPECT_EQ(gpu->cloud_sorted(), sort);
      PointCloud stored = *c;
      if (sort) apply_order(stored, morton_order(*c));
      PodVector<PointBox> host, dev;
      compute_point_boxes(stored.positions.data(), stored.size(), &host);
      ASSERT_TRUE(download_boxes(*gpu, &dev, &err)) << err;
      ASSERT_EQ(dev.size(), host.size());
      size_t bad = 0;
      for (size_t i = 0; i < host.size(); ++i)
        bad += std::memcmp(&dev[i], &host[i], sizeof(PointBox)) != 0;
      EXPECT_EQ(bad, 0u) << (sort ? "sorted" : "file order") << ", " << c->size() << " points";
    }
  }
  set_compact(*gpu, true);
  ASSERT_TRUE(gpu->set_cloud(odd, &err)) << err;
  EXPECT_FALSE(download_boxes(*gpu, nullptr, &err)) << "compact clouds keep their own boxes";
}

/// Frame i of the culling tests: a random camera around `cloud` (every tenth one framing the
/// whole cloud: no box tests, every batch inside the view), a small or a medium image with depth,
/// point sizes 1 .. max_point_size, every `subset_every`-th frame a third of the points; and the
/// GPU's switches: culling off every seventh frame, forced rounds (which cull clouds of every
/// size): rounds[0] for odd frames, rounds[1] for every fourth, rounds[2] for the others.
void culling_frame(CudaRenderer& gpu, int i, const PointCloud& cloud, std::mt19937& rng,
                   int max_point_size, int subset_every, std::array<int, 3> rounds, Camera* cam,
                   RenderSettings* rs) {
  *cam = test::random_camera(rng, cloud.world_bounds());
  rs->width = i % 3 == 0 ? 97 : 400;
  rs->height = i % 3 == 0 ? 61 : 240;
  if (i % 10 == 9) cam->frame(cloud.world_bounds(), double(rs->width) / double(rs->height));
  rs->point_size = 1 + i % max_point_size;
  rs->background = kBackground;
  rs->want_depth = true;
  if (i % subset_every == subset_every - 1) rs->point_count = cloud.size() / 3;
  set_culling(gpu, i % 7 != 3);
  set_rounds(gpu, i % 2 ? rounds[0] : i % 4 == 0 ? rounds[1] : rounds[2]);
}

/// Batch culling never changes the image: the GPU with culling (the default) and without it
/// against the unculled CPU renderer over random cameras inside and around coherent clouds
/// (sorted on upload or coherent as generated), point sizes 1 - 4, all points and subsets of
/// the sorted cloud (which walk every stored point, so they cull too).
TEST(CudaRenderer, CulledFramesEqualTheUnculledCpu) {
  PR_REQUIRE_GPU(gpu);
  EXPECT_TRUE(gpu->options().culling);
  std::string err;
  std::mt19937 rng(99);
  size_t cpu_would_cull = 0, frames = 0;
  for (const char* name : {"cube", "terrain", "galaxy"}) {
    const PointCloud& cloud = scene_cloud(name, 300'000);
    CpuRenderer cpu(0), probe(0);
    set_culling(cpu, false);
    ASSERT_TRUE(cpu.set_cloud(cloud, &err)) << err;
    ASSERT_TRUE(gpu->set_cloud(cloud, &err)) << err;
    PointCloud sorted = cloud;  // what the CPU culls like the GPU (the stored order)
    if (gpu->cloud_sorted()) apply_order(sorted, morton_order(cloud));
    ASSERT_TRUE(probe.set_cloud(sorted, &err)) << err;
    for (int i = 0; i < 60; ++i) {
      Camera cam;
      RenderSettings rs;
      culling_frame(*gpu, i, cloud, rng, 4, 6, {4, 1, 8}, &cam, &rs);
      Image g, pi;
      FrameStats ps;
      ASSERT_NO_FATAL_FAILURE(test::expect_same_frame(
          cpu, *gpu, cam, rs, std::string(name) + " camera " + std::to_string(i), &g));
      ASSERT_TRUE(probe.render(cam, rs, pi, ps, &err)) << err;
      frames += test::count_drawn(g, kBackground) > 0;
      cpu_would_cull += probe.culled_batches() > 0 && test::count_drawn(g, kBackground) > 0;
    }
  }
  set_culling(*gpu, true);
  set_rounds(*gpu, -1);
  // The comparison means something only if the cameras draw and their views skip batches.
  EXPECT_GT(frames, 60u);
  EXPECT_GT(cpu_would_cull, 30u);
}

/// The same for compact positions (their own batches): the GPU with culling on and off, cameras
/// that see the whole cloud, forced rounds (2 batches a block, or a half or a quarter of a batch a
/// block), against the CPU's compact form; and the views skip batches (the GPU's flags are not
/// readable, so the CPU's compact culling, which tests the same boxes with the same function,
/// counts them).
TEST(CudaRenderer, CulledCompactFramesEqualTheCpu) {
  PR_REQUIRE_GPU(gpu);
  std::string err;
  std::mt19937 rng(7);
  size_t culled = 0, frames = 0;
  set_compact(*gpu, true);
  for (const bool morton : {true, false}) {
    set_sorted(*gpu, morton);
    for (const char* name : {"cube", "galaxy"}) {
      const PointCloud& cloud = scene_cloud(name, 300'000);
      CpuRenderer cpu(0);
      cpu.set_options(gpu->options());
      ASSERT_TRUE(cpu.set_cloud(cloud, &err)) << err;
      ASSERT_TRUE(gpu->set_cloud(cloud, &err)) << err;
      for (int i = 0; i < 30; ++i) {
        Camera cam;
        RenderSettings rs;
        culling_frame(*gpu, i, cloud, rng, 3, 5, {8, 2, 1}, &cam, &rs);
        const std::string what = std::string(name) + (morton ? " morton" : " file order") +
                                 " camera " + std::to_string(i);
        Image g;
        ASSERT_NO_FATAL_FAILURE(test::expect_same_frame(cpu, *gpu, cam, rs, what, &g));
        const bool drawn = test::count_drawn(g, kBackground) > 0;
        frames += drawn;
        culled += drawn && cpu.culled_batches() > 0;
      }
    }
  }
  set_compact(*gpu, false);
  set_sort(*gpu, Toggle::kAuto);
  set_culling(*gpu, true);
  set_rounds(*gpu, -1);
  EXPECT_GT(frames, 40u);
  EXPECT_GT(culled, 15u);
}

/// A culled frame's raster kernels run over the list of batches the box tests made (and with
/// occlusion culling, the second pass over a list of its own): the same image and depth as the
/// CPU's over random cameras with forced rounds (a quarter batch a block, a batch, several listed
/// batches a block), point sizes 1 - 3, subsets, culling off now and then, float and compact
/// positions, with and without occlusion culling's two passes.
TEST(CudaRenderer, ListedBatchesDrawTheCpusFrames) {
  PR_REQUIRE_GPU(gpu);
  std::string err;
  std::mt19937 rng(31);
  size_t frames = 0;
  const PointCloud& cloud = scene_cloud("cube", 300'000);
  for (const bool compact : {false, true}) {
    set_compact(*gpu, compact);
    ASSERT_TRUE(gpu->set_cloud(cloud, &err)) << err;
    for (int i = 0; i < 40; ++i) {
      SCOPED_TRACE(std::string(compact ? "compact" : "float") + " frame " + std::to_string(i));
      Camera cam;
      RenderSettings rs;
      culling_frame(*gpu, i, cloud, rng, 3, 5, {1, 4, 8}, &cam, &rs);
      set_occlusion(*gpu, i % 4 < 2 ? Toggle::kOn : Toggle::kOff);
      CpuRenderer cpu;
      cpu.set_options(gpu->options());
      ASSERT_TRUE(cpu.set_cloud(cloud, &err)) << err;
      Frame f;
      ASSERT_TRUE(gpu->render(cam, rs, f.gpu, f.gpu_stats, &err)) << err;
      ASSERT_TRUE(cpu.render(cam, rs, f.cpu, f.cpu_stats, &err)) << err;
      expect_same(f, "listed batches against the CPU");
      frames += test::count_drawn(f.gpu, kBackground) > 0;
    }
  }
  set_compact(*gpu, false);
  set_occlusion(*gpu, Toggle::kAuto);
  set_culling(*gpu, true);
  set_rounds(*gpu, -1);
  // Half of the 80 random cameras see some of the cube (49 on the H200), or the comparison above
  // means little.
  EXPECT_GE(frames, 40u);
}

}  // namespace
}  // namespace pr
