// The points of the terrain and cube scenes (engine/scenes.h) as functions the host and the GPU
// share: point i of a scene is a pure function of (seed, i) and, for the terrain, of its
// heightfield (sampled once on the host, 2049 x 2049 heights and forest values). make_scene()
// calls them on every core; the CUDA renderer calls them in a kernel to make clouds that never
// lie on the host (GpuRenderer::generate_scene()). Both compile them without contracting a*b+c
// into FMA (the host's -ffp-contract=off, nvcc's -fmad=false) and use only IEEE-exact operations
// (+, -, *, /, sqrt, floor, fmod; sine and cosine by a fixed polynomial, scene_sincos()), so the
// two make the same floats and the CPU and GPU images of a generated scene stay identical.
#pragma once

#include <math.h>

#include <cstdint>

#include "engine/point_cloud.h"
#include "engine/projection.h"

namespace pr::scene {

constexpr double kPi = 3.14159265358979323846;

/// SplitMix64 finalizer: a good 64-bit mixing function.
PR_HD uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// A small counter-based generator: the stream for point i of a given seed.
struct Rng {
  uint64_t state;
  PR_HD Rng(uint64_t seed, uint64_t index)
      : state(mix64(seed * 0x632BE59BD9B4E019ull ^ mix64(index))) {}
  PR_HD uint64_t next() { return mix64(state++); }
  /// Uniform in [0, 1) with 24 bits (exact in float).
  PR_HD float uniform() { return float(next() >> 40) * (1.0f / 16777216.0f); }
  PR_HD double uniformd() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }
  PR_HD float range(float a, float b) { return a + (b - a) * uniform(); }
};

PR_HD float clampf(float v, float lo, float hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

PR_HD double clampd(double v, double lo, double hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

/// sin(a) and cos(a) for a in [0, 2 pi], from their Taylor series about pi to the 25th and 24th
/// power (error below 1e-13), in a fixed order of IEEE operations: the same on host and device.
PR_HD void scene_sincos(double a, double& s, double& c) {
  const double x = a - kPi, x2 = x * x;  // sin(a) = -sin(x), cos(a) = -cos(x)
  double ts = 1.0, tc = 1.0;
  for (int k = 12; k >= 1; --k) {
    ts = 1.0 - x2 / double((2 * k) * (2 * k + 1)) * ts;
    tc = 1.0 - x2 / double((2 * k - 1) * (2 * k)) * tc;
  }
  s = -(x * ts);
  c = -tc;
}

PR_HD uint32_t lerp_color(uint32_t a, uint32_t b, float t) {
  t = clampf(t, 0.0f, 1.0f);
  uint32_t out = 0;
  for (int s = 0; s < 32; s += 8) {
    const float ca = float((a >> s) & 255u), cb = float((b >> s) & 255u);
    out |= uint32_t(ca + (cb - ca) * t + 0.5f) << s;
  }
  return out;
}

PR_HD uint32_t shade(uint32_t c, float k) {
  k = clampf(k, 0.0f, 2.0f);
  uint32_t out = c & 0xff000000u;
  for (int s = 0; s < 24; s += 8) {
    const float v = float((c >> s) & 255u) * k;
    out |= uint32_t(v < 255.0f ? v : 255.0f) << s;
  }
  return out;
}

// ------------------------------------------------------------------ terrain ----

constexpr double kHalf = 500.0;  // terrain spans [-500, 500] in x and z
constexpr double kWater = 8.0;   // lake level
constexpr double kCityX0 = 120.0, kCityX1 = 420.0, kCityZ0 = -420.0, kCityZ1 = -120.0;
constexpr double kBlock = 30.0;  // city block size

/// The terrain's heightfield as the point functions read it (the arrays on the host or the
/// device): heights and forest values on a kN x kN grid of 0.5 m cells over [-kHalf, kHalf], and
/// the side of the grid of strata the ground points are spread over (ceil(sqrt(n))).
struct TerrainGrid {
  static constexpr int kN = 2049;  // samples per side
  static constexpr double kCell = 2.0 * kHalf / double(kN - 1);
  const float* height = nullptr;
  const float* forest = nullptr;
  uint64_t strata = 1;

  PR_HD static double lerp2(const float* g, double x, double z) {
    const double gx = clampd((x + kHalf) / kCell, 0.0, double(kN - 1) - 1e-9);
    const double gz = clampd((z + kHalf) / kCell, 0.0, double(kN - 1) - 1e-9);
    const uint64_t c = uint64_t(gx), r = uint64_t(gz);
    const double tx = gx - double(c), tz = gz - double(r);
    const float* p = g + r * uint64_t(kN) + c;
    const double a = p[0] + (p[1] - p[0]) * tx, b = p[kN] + (p[kN + 1] - p[kN]) * tx;
    return a + (b - a) * tz;
  }
  PR_HD double height_at(double x, double z) const { return lerp2(height, x, z); }
  PR_HD double forest_at(double x, double z) const { return lerp2(forest, x, z); }
};

PR_HD uint32_t ground_color(double h, double slope, Rng& r) {
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
PR_HD void building_point(uint64_t seed, Rng& r, Float3& pos, uint32_t& col) {
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
  const double u = fmod(x + z, 3.0), v = fmod(y - y0, 3.5);
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
PR_HD bool tree_point(const TerrainGrid& g, uint64_t seed, double x, double z, Rng& r, Float3& pos,
                      uint32_t& col) {
  const double gx = floor(x / 9.0), gz = floor(z / 9.0);
  const uint64_t th = mix64(seed ^ 0xABCDEFull ^ (uint64_t(int64_t(gx)) * 73856093u) ^
                            (uint64_t(int64_t(gz)) * 19349663u));
  const bool forest = g.forest_at(x, z) > 0.5;
  const bool in_city = x > kCityX0 - 20 && x < kCityX1 + 20 && z > kCityZ0 - 20 && z < kCityZ1 + 20;
  if (!forest || in_city || (th & 3) == 0) return false;
  const double tx = (gx + 0.3 + 0.4 * double((th >> 8) & 255) / 255.0) * 9.0;
  const double tz = (gz + 0.3 + 0.4 * double((th >> 16) & 255) / 255.0) * 9.0;
  const double ground = g.height_at(tx, tz);
  const double size = 2.5 + 2.0 * double((th >> 24) & 255) / 255.0;
  double sa, ca;
  if (r.uniform() < 0.12f) {  // trunk
    scene_sincos(r.uniformd() * 2.0 * kPi, sa, ca);
    pos = Float3{float(tx + 0.4 * ca), float(ground + r.uniformd() * size * 1.6),
                 float(tz + 0.4 * sa)};
    col = shade(rgba(90, 60, 35), r.range(0.8f, 1.1f));
  } else {  // crown: a point on a sphere
    scene_sincos(r.uniformd() * 2.0 * kPi, sa, ca);
    const double c = r.uniformd() * 2.0 - 1.0;
    const double s = sqrt(1.0 - c * c);
    pos = Float3{float(tx + size * s * ca), float(ground + size * 2.2 + size * c),
                 float(tz + size * s * sa)};
    col = shade(lerp_color(rgba(30, 90, 35), rgba(60, 120, 40), float(th >> 56) / 255.0f),
                float(0.75 + 0.35 * (c + 1.0) * 0.5) * r.range(0.9f, 1.05f));
  }
  return true;
}

/// The ground (or the lake) at (x, z), of height h.
PR_HD void ground_point(const TerrainGrid& g, double x, double z, double h, Rng& r, Float3& pos,
                        uint32_t& col) {
  if (h < kWater) {  // the lake: a flat, gently varying blue surface
    pos = Float3{float(x), float(kWater), float(z)};
    const double deep = (kWater - h) / 20.0;
    col = lerp_color(rgba(30, 70, 130), rgba(60, 110, 170),
                     float(deep < 1.0 ? deep : 1.0) * -1.0f + 1.0f);
    col = shade(col, r.range(0.95f, 1.05f));
    return;
  }
  // Slope from finite differences, for cliff coloring and shading.
  const double e = 1.5;
  const double dx = g.height_at(x + e, z) - h, dz = g.height_at(x, z + e) - h;
  const double slope = sqrt(dx * dx + dz * dz) / e;
  uint32_t c = ground_color(h, slope, r);
  // Simple sun shading from the north-west.
  const double nx = -dx / e, nz = -dz / e, ny = 1.0, nl = sqrt(nx * nx + ny * ny + nz * nz);
  const double lit = (nx * -0.5 + ny * 0.75 + nz * 0.43) / nl;
  const double light = lit > 0.0 ? lit : 0.0;
  c = shade(c, float(0.55 + 0.6 * light));
  pos = Float3{float(x), float(h), float(z)};
  col = c;
}

/// Point i of the terrain: a building (10%), a tree over its ground point where there is one
/// (up to 15%), else the ground.
PR_HD void terrain_point(const TerrainGrid& g, uint64_t seed, uint64_t i, Float3& pos,
                         uint32_t& col) {
  Rng r(seed, i);
  const float kind = r.uniform();
  if (kind < 0.10f) return building_point(seed, r, pos, col);
  // Point i sits in stratum i mod strata^2, visited row by row: consecutive points are
  // neighbours, so the heightfield lookups stay in cache, and the ground is evenly covered.
  const uint64_t cell = i % (g.strata * g.strata);
  const double span = 2.0 * kHalf / double(g.strata);
  const double x = -kHalf + (double(cell % g.strata) + r.uniformd()) * span;
  const double z = -kHalf + (double(cell / g.strata) + r.uniformd()) * span;
  const double h = g.height_at(x, z);
  if (kind < 0.25f && h > kWater + 2.0 && h < 70.0 && tree_point(g, seed, x, z, r, pos, col))
    return;
  ground_point(g, x, z, h, r, pos, col);
}

// --------------------------------------------------------------------- cube ----

/// The benchmark cube of the NumPy/CuPy projection the project grew from: (random(n,3) - 0.5) *
/// 2 * m with m = 50, uniform in [-50, 50)^3. Colored by position so the depth structure shows.
PR_HD void cube_point(uint64_t seed, uint64_t i, Float3& pos, uint32_t& col) {
  Rng r(seed, i);
  const float m = 50.0f;
  pos = Float3{(r.uniform() - 0.5f) * 2.0f * m, (r.uniform() - 0.5f) * 2.0f * m,
               (r.uniform() - 0.5f) * 2.0f * m};
  col = rgba(uint8_t(pos.x * 2.5f + 127.5f), uint8_t(pos.y * 2.5f + 127.5f),
             uint8_t(pos.z * 2.5f + 127.5f));
}

}  // namespace pr::scene
