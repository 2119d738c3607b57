// Procedural scenes. Every point is a pure function of (seed, index): a counter-based hash gives
// its random numbers, so generation runs on all cores and gives the same cloud for any thread
// count.
#include "engine/scenes.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "engine/parallel.h"

namespace pr {

namespace {

constexpr double kPi = 3.14159265358979323846;

/// SplitMix64 finalizer: a good 64-bit mixing function.
inline uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// A small counter-based generator: the stream for point i of a given seed.
struct Rng {
  uint64_t state;
  Rng(uint64_t seed, uint64_t index) : state(mix64(seed * 0x632BE59BD9B4E019ull ^ mix64(index))) {}
  uint64_t next() { return mix64(state++); }
  /// Uniform in [0, 1) with 24 bits (exact in float).
  float uniform() { return float(next() >> 40) * (1.0f / 16777216.0f); }
  double uniformd() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }
  float range(float a, float b) { return a + (b - a) * uniform(); }
  /// Standard normal (Box-Muller).
  double normal() {
    const double u1 = 1.0 - uniformd(), u2 = uniformd();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
  }
};

inline uint32_t lerp_color(uint32_t a, uint32_t b, float t) {
  t = std::clamp(t, 0.0f, 1.0f);
  uint32_t out = 0;
  for (int s = 0; s < 32; s += 8) {
    const float ca = float((a >> s) & 255u), cb = float((b >> s) & 255u);
    out |= uint32_t(ca + (cb - ca) * t + 0.5f) << s;
  }
  return out;
}

inline uint32_t shade(uint32_t c, float k) {
  k = std::clamp(k, 0.0f, 2.0f);
  uint32_t out = c & 0xff000000u;
  for (int s = 0; s < 24; s += 8)
    out |= uint32_t(std::min(255.0f, float((c >> s) & 255u) * k)) << s;
  return out;
}

// ---------------------------------------------------------------- terrain ----

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

constexpr double kHalf = 500.0;  // terrain spans [-500, 500] in x and z
constexpr double kWater = 8.0;   // lake level
constexpr double kCityX0 = 120.0, kCityX1 = 420.0, kCityZ0 = -420.0, kCityZ1 = -120.0;
constexpr double kBlock = 30.0;  // city block size

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

/// The terrain sampled once on a grid (0.5 m cells), so each point costs a bilinear lookup rather
/// than 18 octaves of noise: 100 million points generate in seconds.
struct Heightfield {
  static constexpr int kN = 2049;  // samples per side, over [-kHalf, kHalf]
  static constexpr double kCell = 2.0 * kHalf / double(kN - 1);
  std::vector<float> h, forest;
  uint64_t strata = 1;  // ground points are stratified on a strata x strata grid, row by row

  Heightfield(uint64_t seed, uint64_t n) : h(size_t(kN) * kN), forest(size_t(kN) * kN) {
    strata = std::max<uint64_t>(1, uint64_t(std::ceil(std::sqrt(double(n)))));
    parallel_for(
        size_t(kN),
        [&](size_t r0, size_t r1) {
          for (size_t r = r0; r < r1; ++r)
            for (size_t c = 0; c < size_t(kN); ++c) {
              const double x = -kHalf + double(c) * kCell, z = -kHalf + double(r) * kCell;
              h[r * kN + c] = float(terrain_height(x, z, seed));
              forest[r * kN + c] = float(value_noise(x / 120.0, z / 120.0, seed + 99));
            }
        },
        0, 16);
  }
  static double lerp2(const std::vector<float>& g, double x, double z) {
    const double gx = std::clamp((x + kHalf) / kCell, 0.0, double(kN - 1) - 1e-9);
    const double gz = std::clamp((z + kHalf) / kCell, 0.0, double(kN - 1) - 1e-9);
    const size_t c = size_t(gx), r = size_t(gz);
    const double tx = gx - double(c), tz = gz - double(r);
    const float* p = &g[r * kN + c];
    const double a = p[0] + (p[1] - p[0]) * tx, b = p[kN] + (p[kN + 1] - p[kN]) * tx;
    return a + (b - a) * tz;
  }
  double height(double x, double z) const { return lerp2(h, x, z); }
  double forestness(double x, double z) const { return lerp2(forest, x, z); }
};

uint32_t ground_color(double h, double slope, Rng& r) {
  const float j = r.range(0.88f, 1.08f);
  uint32_t c;
  if (h <= kWater + 0.8)
    c = rgba(214, 200, 150);  // sand
  else if (h < 45.0)
    c = lerp_color(rgba(86, 140, 60), rgba(70, 110, 50), float((h - kWater) / 37.0));
  else if (h < 95.0)
    c = lerp_color(rgba(90, 100, 60), rgba(125, 115, 105), float((h - 45.0) / 50.0));
  else if (h < 125.0)
    c = rgba(130, 125, 120);  // rock
  else
    c = rgba(245, 248, 252);                                                  // snow
  if (slope > 0.9 && h > 20.0) c = lerp_color(c, rgba(120, 112, 104), 0.7f);  // cliffs are rock
  return shade(c, j);
}

/// A point on the walls or roof of one of the city's buildings: a block picked at random, its
/// building's size and height from a hash of the block.
void building_point(uint64_t seed, Rng& r, Float3& pos, uint32_t& col) {
  const int nx = int((kCityX1 - kCityX0) / kBlock), nz = int((kCityZ1 - kCityZ0) / kBlock);
  const int bx = int(r.uniform() * float(nx)), bz = int(r.uniform() * float(nz));
  const uint64_t bh = mix64(seed ^ (uint64_t(bx) * 7919u + uint64_t(bz) * 104729u));
  const double w = 10.0 + double(bh & 7), d = 10.0 + double((bh >> 3) & 7);
  const double height = 15.0 + double((bh >> 8) % 120) * (((bh >> 20) & 3) == 0 ? 1.0 : 0.4);
  const double x0 = kCityX0 + (bx + 0.5) * kBlock - w * 0.5,
               z0 = kCityZ0 + (bz + 0.5) * kBlock - d * 0.5;
  const double y0 = 14.0;
  const double face = r.uniformd() * (2.0 * (w + d) * height + w * d);
  double x, y, z;
  bool roof = false;
  if (face >= 2.0 * (w + d) * height) {
    x = x0 + r.uniformd() * w, z = z0 + r.uniformd() * d, y = y0 + height;
    roof = true;
  } else {
    double t = r.uniformd() * 2.0 * (w + d);
    y = y0 + r.uniformd() * height;
    if (t < w)
      x = x0 + t, z = z0;
    else if ((t -= w) < d)
      x = x0 + w, z = z0 + t;
    else if ((t -= d) < w)
      x = x0 + w - t, z = z0 + d;
    else
      t -= w, x = x0, z = z0 + d - t;
  }
  const uint32_t base =
      lerp_color(rgba(150, 150, 160), rgba(190, 180, 165), float((bh >> 30) & 255) / 255.0f);
  // Windows: a lit grid on the walls.
  const double u = std::fmod(x + z, 3.0), v = std::fmod(y - y0, 3.5);
  const bool window = !roof && u > 0.8 && u < 2.2 && v > 1.0 && v < 2.6;
  const bool lit =
      window &&
      (mix64(bh ^ uint64_t(int64_t((x + z) / 3.0)) * 31u ^ uint64_t(int64_t(y / 3.5))) & 3) != 0;
  col = roof ? shade(base, 0.8f) : window ? (lit ? rgba(255, 215, 120) : rgba(40, 50, 70)) : base;
  pos = Float3{float(x), float(y), float(z)};
}

/// A point of the tree over ground point (x, z), when the forest noise puts one there: on a 9 m
/// grid, in cells the noise says are forest and outside the city; a trunk and a round crown.
/// False (nothing drawn from `r`) where there is no tree.
bool tree_point(const Heightfield& hf, uint64_t seed, double x, double z, Rng& r, Float3& pos,
                uint32_t& col) {
  const double gx = std::floor(x / 9.0), gz = std::floor(z / 9.0);
  const uint64_t th = mix64(seed ^ 0xABCDEFull ^ (uint64_t(int64_t(gx)) * 73856093u) ^
                            (uint64_t(int64_t(gz)) * 19349663u));
  const bool forest = hf.forestness(x, z) > 0.5;
  const bool in_city = x > kCityX0 - 20 && x < kCityX1 + 20 && z > kCityZ0 - 20 && z < kCityZ1 + 20;
  if (!forest || in_city || (th & 3) == 0) return false;
  const double tx = (gx + 0.3 + 0.4 * double((th >> 8) & 255) / 255.0) * 9.0;
  const double tz = (gz + 0.3 + 0.4 * double((th >> 16) & 255) / 255.0) * 9.0;
  const double ground = hf.height(tx, tz);
  const double size = 2.5 + 2.0 * double((th >> 24) & 255) / 255.0;
  if (r.uniform() < 0.12f) {  // trunk
    const double a = r.uniformd() * 2.0 * kPi;
    pos = Float3{float(tx + 0.4 * std::cos(a)), float(ground + r.uniformd() * size * 1.6),
                 float(tz + 0.4 * std::sin(a))};
    col = shade(rgba(90, 60, 35), r.range(0.8f, 1.1f));
  } else {  // crown: a point on a sphere
    const double a = r.uniformd() * 2.0 * kPi, c = r.uniformd() * 2.0 - 1.0;
    const double s = std::sqrt(1.0 - c * c);
    pos = Float3{float(tx + size * s * std::cos(a)), float(ground + size * 2.2 + size * c),
                 float(tz + size * s * std::sin(a))};
    col = shade(lerp_color(rgba(30, 90, 35), rgba(60, 120, 40), float(th >> 56) / 255.0f),
                float(0.75 + 0.35 * (c + 1.0) * 0.5) * r.range(0.9f, 1.05f));
  }
  return true;
}

/// The ground (or the lake) at (x, z), of height h.
void ground_point(const Heightfield& hf, double x, double z, double h, Rng& r, Float3& pos,
                  uint32_t& col) {
  if (h < kWater) {  // the lake: a flat, gently varying blue surface
    pos = Float3{float(x), float(kWater), float(z)};
    col = lerp_color(rgba(30, 70, 130), rgba(60, 110, 170),
                     float(std::min(1.0, (kWater - h) / 20.0)) * -1.0f + 1.0f);
    col = shade(col, r.range(0.95f, 1.05f));
    return;
  }
  // Slope from finite differences, for cliff coloring and shading.
  const double e = 1.5;
  const double dx = hf.height(x + e, z) - h, dz = hf.height(x, z + e) - h;
  const double slope = std::sqrt(dx * dx + dz * dz) / e;
  uint32_t c = ground_color(h, slope, r);
  // Simple sun shading from the north-west.
  const double nx = -dx / e, nz = -dz / e, ny = 1.0, nl = std::sqrt(nx * nx + ny * ny + nz * nz);
  const double light = std::max(0.0, (nx * -0.5 + ny * 0.75 + nz * 0.43) / nl);
  c = shade(c, float(0.55 + 0.6 * light));
  pos = Float3{float(x), float(h), float(z)};
  col = c;
}

void terrain_point(const void* ctx, uint64_t seed, uint64_t i, Float3& pos, uint32_t& col) {
  const Heightfield& hf = *static_cast<const Heightfield*>(ctx);
  Rng r(seed, i);
  const float kind = r.uniform();
  if (kind < 0.10f) return building_point(seed, r, pos, col);
  // Point i sits in stratum i mod strata^2, visited row by row: consecutive points are
  // neighbours, so the heightfield lookups stay in cache, and the ground is evenly covered.
  const uint64_t cell = i % (hf.strata * hf.strata);
  const double span = 2.0 * kHalf / double(hf.strata);
  const double x = -kHalf + (double(cell % hf.strata) + r.uniformd()) * span;
  const double z = -kHalf + (double(cell / hf.strata) + r.uniformd()) * span;
  const double h = hf.height(x, z);
  if (kind < 0.25f && h > kWater + 2.0 && h < 70.0 && tree_point(hf, seed, x, z, r, pos, col))
    return;
  ground_point(hf, x, z, h, r, pos, col);
}

// ----------------------------------------------------------------- galaxy ----

void galaxy_point(const void*, uint64_t seed, uint64_t i, Float3& pos, uint32_t& col) {
  Rng r(seed, i);
  const float kind = r.uniform();
  double x, y, z;
  if (kind < 0.18f) {  // bulge: a gaussian ball, warm colors
    x = r.normal() * 40.0, y = r.normal() * 25.0, z = r.normal() * 40.0;
    const double d = std::sqrt(x * x + y * y + z * z) / 120.0;
    col = lerp_color(rgba(255, 240, 200), rgba(255, 180, 90), float(d));
  } else {  // four logarithmic spiral arms
    const int arm = int(r.uniform() * 4.0f);
    const double t = std::pow(r.uniformd(), 0.7);  // 0 centre .. 1 rim
    const double radius = 30.0 + t * 470.0;
    const double angle = arm * kPi * 0.5 + std::log(radius / 30.0) * 2.2 + r.normal() * 0.18;
    const double spread = 6.0 + 20.0 * t;
    x = radius * std::cos(angle) + r.normal() * spread;
    z = radius * std::sin(angle) + r.normal() * spread;
    y = r.normal() * (6.0 * (1.0 - t) + 2.0);
    const bool young = r.uniform() < 0.15f;
    col = young ? rgba(160, 190, 255)
                : lerp_color(rgba(255, 230, 200), rgba(120, 150, 255), float(t));
    if (r.uniform() < 0.04f) col = rgba(255, 120, 160);  // H II regions
  }
  col = shade(col, r.range(0.7f, 1.1f));
  pos = Float3{float(x), float(y), float(z)};
}

// ------------------------------------------------------------------- cube ----

/// The benchmark cube of the NumPy/CuPy projection the project grew from: (random(n,3) - 0.5) *
/// 2 * m with m = 50, uniform in [-50, 50)^3. Colored by
/// position so the depth structure shows.
void cube_point(const void*, uint64_t seed, uint64_t i, Float3& pos, uint32_t& col) {
  Rng r(seed, i);
  const float m = 50.0f;
  pos = Float3{(r.uniform() - 0.5f) * 2.0f * m, (r.uniform() - 0.5f) * 2.0f * m,
               (r.uniform() - 0.5f) * 2.0f * m};
  col = rgba(uint8_t(pos.x * 2.5f + 127.5f), uint8_t(pos.y * 2.5f + 127.5f),
             uint8_t(pos.z * 2.5f + 127.5f));
}

using PointFn = void (*)(const void*, uint64_t, uint64_t, Float3&, uint32_t&);

PointFn scene_fn(const std::string& name) {
  if (name == "terrain") return terrain_point;
  if (name == "galaxy") return galaxy_point;
  if (name == "cube") return cube_point;
  return nullptr;
}

}  // namespace

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

PointCloud make_scene(const std::string& name, uint64_t n, uint64_t seed, LoadProgress* progress) {
  const PointFn fn = scene_fn(name);
  if (!fn) throw std::invalid_argument("unknown scene '" + name + "'");
  PointCloud c;
  c.name = "scene:" + name;
  c.resize(n);
  Float3* pos = c.positions.data();
  uint32_t* col = c.colors.data();
  std::unique_ptr<Heightfield> hf;
  if (name == "terrain" && n > 0) hf = std::make_unique<Heightfield>(seed, n);
  const void* ctx = hf.get();
  // In slices of 4M points, so that a cancel is seen within a fraction of a second; point i
  // depends only on (seed, i), so the slicing does not change the cloud.
  constexpr uint64_t kSlice = uint64_t{1} << 22;
  for (uint64_t s0 = 0; s0 < n; s0 += kSlice) {
    if (progress && progress->cancel.load()) return PointCloud{};
    const uint64_t s1 = std::min(n, s0 + kSlice);
    parallel_for(
        size_t(s1 - s0),
        [&](size_t b, size_t e) {
          for (size_t i = s0 + b; i < s0 + e; ++i) fn(ctx, seed, i, pos[i], col[i]);
        },
        0, 1 << 15);
    if (progress) progress->fraction = double(s1) / double(n);
  }
  if (progress && progress->cancel.load()) return PointCloud{};
  return c;
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
