// Procedural scenes. Every point is a pure function of (seed, index): a counter-based hash gives
// its random numbers, so generation runs on all cores and gives the same cloud for any thread
// count.
#include "engine/scenes.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "engine/parallel.h"
#include "engine/scene_points.h"

namespace pr {

namespace {

using namespace scene;  // NOLINT: the shared point functions

/// Value noise on an integer lattice, smoothly interpolated.
double lattice(int64_t x, int64_t z, uint64_t seed) {
  return double(mix64(seed ^ mix64(uint64_t(x) * 0x9E3779B1ull + uint64_t(z) * 0x85EBCA77ull)) >>
                11) *
         (1.0 / 9007199254740992.0);
}

double value_noise(double x, double z, uint64_t seed) {
  const double fx = std::floor(x), fz = std::floor(z);
  const int64_t ix = int64_t(fx), iz = int64_t(fz);
  double tx = x - fx, tz = z - fz;
  tx = tx * tx * (3.0 - 2.0 * tx);
  tz = tz * tz * (3.0 - 2.0 * tz);
  const double a = lattice(ix, iz, seed), b = lattice(ix + 1, iz, seed);
  const double c = lattice(ix, iz + 1, seed), d = lattice(ix + 1, iz + 1, seed);
  return (a + (b - a) * tx) + ((c + (d - c) * tx) - (a + (b - a) * tx)) * tz;
}

/// Terrain height: fractal noise, a ridge of mountains to the north, flattened where the city is.
double terrain_height(double x, double z, uint64_t seed) {
  double h = 0.0, amp = 1.0, freq = 1.0 / 180.0, norm = 0.0;
  for (int o = 0; o < 6; ++o) {
    h += amp * value_noise(x * freq, z * freq, seed + uint64_t(o));
    norm += amp;
    amp *= 0.5;
    freq *= 2.0;
  }
  h /= norm;                                                           // 0..1
  const double ridge = std::exp(-std::pow((z - 380.0) / 160.0, 2.0));  // mountains in the north
  double height = (h - 0.35) * 90.0 + ridge * 160.0 * h;
  // Flatten the city's land.
  const double cx =
      std::clamp((x - kCityX0) / 40.0, 0.0, 1.0) * std::clamp((kCityX1 - x) / 40.0, 0.0, 1.0);
  const double cz =
      std::clamp((z - kCityZ0) / 40.0, 0.0, 1.0) * std::clamp((kCityZ1 - z) / 40.0, 0.0, 1.0);
  const double city = cx * cz;
  return height * (1.0 - city) + 14.0 * city;
}

void terrain_fn(const void* ctx, uint64_t seed, uint64_t i, Float3& pos, uint32_t& col) {
  terrain_point(*static_cast<const TerrainGrid*>(ctx), seed, i, pos, col);
}

// ----------------------------------------------------------------- galaxy ----

/// Standard normal (Box-Muller).
double normal(Rng& r) {
  const double u1 = 1.0 - r.uniformd(), u2 = r.uniformd();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
}

void galaxy_point(const void*, uint64_t seed, uint64_t i, Float3& pos, uint32_t& col) {
  Rng r(seed, i);
  const float kind = r.uniform();
  double x, y, z;
  if (kind < 0.18f) {  // bulge: a gaussian ball, warm colors
    x = normal(r) * 40.0, y = normal(r) * 25.0, z = normal(r) * 40.0;
    const double d = std::sqrt(x * x + y * y + z * z) / 120.0;
    col = lerp_color(rgba(255, 240, 200), rgba(255, 180, 90), float(d));
  } else {  // four logarithmic spiral arms
    const int arm = int(r.uniform() * 4.0f);
    const double t = std::pow(r.uniformd(), 0.7);  // 0 centre .. 1 rim
    const double radius = 30.0 + t * 470.0;
    const double angle = arm * kPi * 0.5 + std::log(radius / 30.0) * 2.2 + normal(r) * 0.18;
    const double spread = 6.0 + 20.0 * t;
    x = radius * std::cos(angle) + normal(r) * spread;
    z = radius * std::sin(angle) + normal(r) * spread;
    y = normal(r) * (6.0 * (1.0 - t) + 2.0);
    const bool young = r.uniform() < 0.15f;
    col = young ? rgba(160, 190, 255)
                : lerp_color(rgba(255, 230, 200), rgba(120, 150, 255), float(t));
    if (r.uniform() < 0.04f) col = rgba(255, 120, 160);  // H II regions
  }
  col = shade(col, r.range(0.7f, 1.1f));
  pos = Float3{float(x), float(y), float(z)};
}

// ------------------------------------------------------------------- cube ----

void cube_fn(const void*, uint64_t seed, uint64_t i, Float3& pos, uint32_t& col) {
  cube_point(seed, i, pos, col);
}

using PointFn = void (*)(const void*, uint64_t, uint64_t, Float3&, uint32_t&);

PointFn scene_fn(const std::string& name) {
  if (name == "terrain") return terrain_fn;
  if (name == "galaxy") return galaxy_point;
  if (name == "cube") return cube_fn;
  return nullptr;
}

}  // namespace

uint64_t terrain_strata(uint64_t n) {
  return std::max<uint64_t>(1, uint64_t(std::ceil(std::sqrt(double(n)))));
}

TerrainField make_terrain_field(uint64_t seed, uint64_t n) {
  constexpr int kN = TerrainGrid::kN;
  TerrainField f;
  f.height.resize(size_t(kN) * kN);
  f.forest.resize(size_t(kN) * kN);
  f.strata = terrain_strata(n);
  parallel_for(
      size_t(kN),
      [&](size_t r0, size_t r1) {
        for (size_t r = r0; r < r1; ++r)
          for (size_t c = 0; c < size_t(kN); ++c) {
            const double x = -kHalf + double(c) * TerrainGrid::kCell;
            const double z = -kHalf + double(r) * TerrainGrid::kCell;
            f.height[r * kN + c] = float(terrain_height(x, z, seed));
            f.forest[r * kN + c] = float(value_noise(x / 120.0, z / 120.0, seed + 99));
          }
      },
      0, 16);
  return f;
}

const std::vector<SceneInfo>& scene_list() {
  static const std::vector<SceneInfo> list = {
      {"terrain", "mountains, a lake, forests and a city of towers (1 km square)"},
      {"galaxy", "a four-armed spiral galaxy with a bright bulge"},
      {"cube", "uniform random points in [-50, 50]^3, seen from inside"},
  };
  return list;
}

bool is_scene(const std::string& name) {
  return scene_fn(name) != nullptr;
}

namespace {

/// Points index_of(j) of the `n` points of scene `name`, for j < m: the cloud's point j.
template <typename IndexOf>
PointCloud scene_points(const std::string& name, uint64_t n, uint64_t m, uint64_t seed,
                        LoadProgress* progress, IndexOf index_of) {
  const PointFn fn = scene_fn(name);
  if (!fn) throw std::invalid_argument("unknown scene '" + name + "'");
  PointCloud c;
  c.name = "scene:" + name;
  c.resize(m);
  Float3* pos = c.positions.data();
  uint32_t* col = c.colors.data();
  TerrainField field;
  TerrainGrid grid;
  if (name == "terrain" && n > 0) {
    field = make_terrain_field(seed, n);
    grid = TerrainGrid{field.height.data(), field.forest.data(), field.strata};
  }
  const void* ctx = &grid;
  // In slices of 4M points, so that a cancel is seen within a fraction of a second; point i
  // depends only on (seed, i), so the slicing does not change the cloud.
  constexpr uint64_t kSlice = uint64_t{1} << 22;
  for (uint64_t s0 = 0; s0 < m; s0 += kSlice) {
    if (progress && progress->cancel.load()) return PointCloud{};
    const uint64_t s1 = std::min(m, s0 + kSlice);
    parallel_for(
        size_t(s1 - s0),
        [&](size_t b, size_t e) {
          for (size_t j = s0 + b; j < s0 + e; ++j) fn(ctx, seed, index_of(j), pos[j], col[j]);
        },
        0, 1 << 15);
    if (progress) progress->fraction = double(s1) / double(m);
  }
  if (progress && progress->cancel.load()) return PointCloud{};
  return c;
}

}  // namespace

PointCloud make_scene(const std::string& name, uint64_t n, uint64_t seed, LoadProgress* progress) {
  return scene_points(name, n, n, seed, progress, [](uint64_t j) { return j; });
}

PointCloud make_scene_subset(const std::string& name, uint64_t n, uint64_t m, uint64_t seed,
                             LoadProgress* progress) {
  m = std::min(m, n);
  // floor(j n / m) without the product's overflow: j (n / m) + floor(j (n % m) / m), where
  // j (n % m) < m^2 fits while m < 2^32.
  if (m >= (uint64_t{1} << 32))
    throw std::invalid_argument("a subset of 2^32 points or more: make the scene whole");
  if (m == 0) return make_scene(name, 0, seed, progress);
  const uint64_t q = n / m, r = n % m;
  return scene_points(name, n, m, seed, progress,
                      [q, r, m](uint64_t j) { return j * q + j * r / m; });
}

Camera scene_camera(const std::string& name, const PointCloud& cloud) {
  Camera cam;
  if (name == "cube") return cam;  // (0, 0, 10), identity rotation, focus 5: inside the cube
  cam.focus = 1.5;                 // about 67 degrees vertical field of view
  if (name == "terrain") {
    cam.position = {-60.0, 150.0, -640.0};
    cam.look_at({40.0, 10.0, -100.0});
    return cam;
  }
  cam.position = {0.0, 420.0, -720.0};
  cam.look_at({0.0, 0.0, 0.0});
  (void)cloud;
  return cam;
}

}  // namespace pr
