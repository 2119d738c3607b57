// GpuRenderer::set_device_points(): a cloud handed over in device memory (floats or doubles with
// an origin, colors as bytes or floats, or none and colored by an elevation recipe on the device)
// draws the CPU renderer's image of the same points as a host cloud pixel for pixel: stored in
// its own order, sorted along a Morton curve on the device, or sorted and encoded compact there;
// a subset of the sorted cloud (a point budget) draws the host's subset; by default the device
// sorts the points the host would sort (random order, not a coherent scan order), so the compact
// words agree. Skips without a device.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <tuple>
#include <vector>

#include "../engine/random_camera.h"
#include "engine/colorize.h"
#include "engine/cpu_renderer.h"
#include "engine/morton.h"
#include "gpu_test_util.h"

namespace pr {
namespace {

/// A device copy of `values` (freed with the object).
template <class T>
struct DeviceArray {
  T* ptr = nullptr;
  explicit DeviceArray(const std::vector<T>& values) {
    EXPECT_EQ(cudaMalloc(&ptr, values.size() * sizeof(T)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(ptr, values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice),
              cudaSuccess);
  }
  ~DeviceArray() { cudaFree(ptr); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
};

/// `n` points in random order in a 40 x 30 x 8 box around `center` (as doubles), a few of them
/// NaN, with random colors (RGB bytes).
void random_points(size_t n, const glm::dvec3& center, std::vector<double>* xyz,
                   std::vector<uint8_t>* rgb) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  xyz->resize(3 * n);
  rgb->resize(3 * n);
  for (size_t i = 0; i < n; ++i) {
    (*xyz)[3 * i] = center.x + 40.0 * u(rng);
    (*xyz)[3 * i + 1] = center.y + 30.0 * u(rng);
    (*xyz)[3 * i + 2] = center.z + 8.0 * u(rng) * u(rng);
    for (int c = 0; c < 3; ++c) (*rgb)[3 * i + c] = uint8_t(rng() & 255);
    if (i % 997 == 3) (*xyz)[3 * i + 1] = NAN;
  }
}

/// The host cloud of the same points: positions less `origin` in double, rounded to float.
PointCloud host_cloud(const std::vector<double>& xyz, const std::vector<uint8_t>* rgb,
                      const glm::dvec3& origin) {
  PointCloud c;
  c.origin = origin;
  const size_t n = xyz.size() / 3;
  c.positions.resize(n);
  c.colors.resize(n);
  for (size_t i = 0; i < n; ++i) {
    c.positions[i] = Float3{float(xyz[3 * i] - origin.x), float(xyz[3 * i + 1] - origin.y),
                            float(xyz[3 * i + 2] - origin.z)};
    c.colors[i] =
        rgb ? rgba((*rgb)[3 * i], (*rgb)[3 * i + 1], (*rgb)[3 * i + 2]) : rgba(255, 255, 255);
  }
  return c;
}

/// The points reordered in scan order (by 5 x 5 columns, then height): coherent, as a scanner's
/// file is, but not the Morton order.
void scan_order(std::vector<double>* xyz, std::vector<uint8_t>* rgb) {
  const size_t n = xyz->size() / 3;
  std::vector<size_t> idx(n);
  for (size_t i = 0; i < n; ++i) idx[i] = i;
  auto key = [&](size_t i) {
    const double* p = &(*xyz)[3 * i];
    return std::make_tuple(std::isnan(p[1]), std::floor(p[0] / 5.0), std::floor(p[1] / 5.0), p[2]);
  };
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
  std::vector<double> x2(xyz->size());
  std::vector<uint8_t> c2(rgb->size());
  for (size_t k = 0; k < n; ++k)
    for (int c = 0; c < 3; ++c) {
      x2[3 * k + c] = (*xyz)[3 * idx[k] + c];
      c2[3 * k + c] = (*rgb)[3 * idx[k] + c];
    }
  xyz->swap(x2);
  rgb->swap(c2);
}

struct Case {
  const char* name;
  bool doubles;
  bool colors;  // else colored by elevation
  RenderOptions options;
  bool scan = false;  // in scan order (coherent: not sorted by default)
};

RenderOptions options_of(bool compact, Toggle sort) {
  RenderOptions o;
  o.compact = compact;
  o.sort = sort;
  return o;
}

// The orders the test below draws: the host sorts the random one and keeps the scan; the
// two-step coherence the device computes is the host's.
TEST(DevicePoints, ScanOrderIsCoherentAndRandomOrderIsNot) {
  for (const bool scan : {false, true}) {
    std::vector<double> xyz;
    std::vector<uint8_t> rgb;
    random_points(60000, glm::dvec3(0.0), &xyz, &rgb);
    if (scan) scan_order(&xyz, &rgb);
    const PointCloud cloud = host_cloud(xyz, &rgb, glm::dvec3(0.0));
    const double coherence = order_coherence(cloud);
    EXPECT_EQ(coherence >= kCoherentOrder, scan) << coherence;
    std::vector<Float3> sampled;
    for (uint64_t i : coherence_sample_indices(cloud.size())) sampled.push_back(cloud.positions[i]);
    EXPECT_EQ(order_coherence_of(cloud.size(), cloud.local_bounds(), sampled), coherence);
  }
}

TEST(DevicePoints, DrawTheHostCloudsImageInEveryStorage) {
  PR_REQUIRE_GPU(gpu);
  const Case cases[] = {
      {"floats, own order", false, true, options_of(false, Toggle::kOff)},
      {"floats, sorted", false, true, options_of(false, Toggle::kAuto)},
      {"floats, sorted, compact", false, true, options_of(true, Toggle::kOn)},
      {"floats, compact in own order", false, true, options_of(true, Toggle::kOff)},
      {"doubles about an origin, sorted", true, true, options_of(false, Toggle::kAuto)},
      {"doubles, by elevation, sorted", true, false, options_of(false, Toggle::kAuto)},
      {"floats, by elevation, compact", false, false, options_of(true, Toggle::kOn)},
      {"floats in scan order, compact", false, true, options_of(true, Toggle::kAuto), true},
      {"floats at random, compact", false, true, options_of(true, Toggle::kAuto)},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const glm::dvec3 center = c.doubles ? glm::dvec3(512010.0, 4321020.0, 130.0) : glm::dvec3(0.0);
    const glm::dvec3 origin = c.doubles ? glm::dvec3(512010.0, 4321020.0, 130.0) : glm::dvec3(0.0);
    std::vector<double> xyz;
    std::vector<uint8_t> rgb;
    random_points(60000, center, &xyz, &rgb);
    if (c.scan) scan_order(&xyz, &rgb);
    PointCloud cloud = host_cloud(xyz, c.colors ? &rgb : nullptr, origin);
    // The host colors a cloud without colors by elevation; the device follows its recipe.
    ColorSettings cs;
    cs.mode = ColorMode::kElevation;
    ColorRecipe recipe;
    if (!c.colors) {
      PodVector<uint32_t> colors;
      std::string why;
      ASSERT_TRUE(colorize(cloud, cs, colors, nullptr, &why)) << why;
      set_display_colors(cloud, ColorMode::kElevation, std::move(colors));
      ASSERT_TRUE(color_recipe(cloud, cs, &recipe));
    }
    std::vector<float> floats(xyz.begin(), xyz.end());
    DeviceArray<double> dxyz(xyz);
    DeviceArray<float> fxyz(floats);
    DeviceArray<uint8_t> drgb(rgb);
    DevicePointArrays d;
    d.xyz = c.doubles ? static_cast<const void*>(dxyz.ptr) : fxyz.ptr;
    d.xyz_double = c.doubles;
    d.count = xyz.size() / 3;
    d.origin = origin;
    d.colors = c.colors ? drgb.ptr : nullptr;
    d.recipe = c.colors ? nullptr : &recipe;
    gpu->set_options(c.options);
    std::string err;
    Bounds stored;
    ASSERT_TRUE(gpu->device_points_bounds(d, true, &stored, &err)) << err;
    Bounds world;
    ASSERT_TRUE(gpu->set_device_points(d, &world, &err)) << err;
    EXPECT_EQ(world.min, cloud.world_bounds().min);
    EXPECT_EQ(world.max, cloud.world_bounds().max);
    EXPECT_EQ(stored.min, world.min);
    EXPECT_EQ(stored.max, world.max);
    CpuRenderer cpu(2);
    cpu.set_options(c.options);
    ASSERT_TRUE(cpu.set_cloud(cloud, &err)) << err;
    // The cloud from above at full HD, random cameras, then a subset of the stored points (drawn
    // through the original index) from above again.
    Camera above;
    above.up_axis = UpAxis::kZ;
    above.position = center + glm::dvec3(0.0, -45.0, 35.0);
    above.look_at(center);
    std::mt19937 rng(3);
    for (int it = 0; it < 5; ++it) {
      Camera cam;
      RenderSettings rs;
      test::random_frame(it, rng, above, cloud.world_bounds(), &cam, &rs);
      if (it == 4) {
        cam = above;
        rs.point_count = cloud.size() * 2 / 5;
      }
      Image img;
      test::expect_same_frame(cpu, *gpu, cam, rs, "frame " + std::to_string(it), &img);
      if (it == 0 || it == 4) {
        EXPECT_GT(test::count_drawn(img, rs.background), 10000u);
      }
    }
  }
}

}  // namespace
}  // namespace pr
