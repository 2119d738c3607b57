// A cloud with every attribute a color mode reads, for the tests that compare colors computed in
// two ways (colorize() and ColorRecipe on the host, and on the GPU): random positions about a
// non-zero origin, intensities, classes, returns, point sources and a field "Deviation", with
// NaN, infinite and out-of-range values among them; and the color settings those tests run
// through.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>

#include <vector>

#include "engine/colorize.h"
#include "engine/point_cloud.h"

namespace pr::test {

inline PointCloud attribute_cloud(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-50.0f, 50.0f);
  PointCloud c;
  c.resize(n);
  c.origin = {1000.5, -20.25, 300.0};
  c.intensity.resize(n);
  c.classification.resize(n);
  c.returns.resize(n);
  c.point_source.resize(n);
  ScalarField f;
  f.name = "Deviation";
  f.values.resize(n);
  for (size_t i = 0; i < n; ++i) {
    c.positions[i] = Float3{u(rng), u(rng) * 0.2f, u(rng)};
    c.colors[i] = rgba(uint8_t(rng()), uint8_t(rng()), uint8_t(rng()));
    c.intensity[i] = float(rng() % 65536);
    c.classification[i] = uint8_t(rng() % 24);
    c.returns[i] = pack_returns(1 + rng() % 4, 1 + rng() % 4);
    c.point_source[i] = uint16_t(rng());
    f.values[i] = u(rng) * 0.01f;
  }
  // The odd values: NaN and infinite intensities and fields, a NaN position (a hidden point).
  for (size_t i = 7; i < n; i += 97) {
    c.intensity[i] = i % 2 ? NAN : INFINITY;
    f.values[i] = i % 3 ? -INFINITY : NAN;
  }
  if (n > 11) c.positions[11] = Float3{NAN, NAN, NAN};
  c.fields.push_back(std::move(f));
  return c;
}

/// Every mode but RGB, then colormaps, gamma, set ranges that clamp both ends (of
/// attribute_cloud()'s values) and both up axes, and last RGB (the file's colors back).
inline std::vector<ColorSettings> recipe_settings() {
  std::vector<ColorSettings> all;
  ColorSettings s;
  for (ColorMode m : {ColorMode::kIntensity, ColorMode::kElevation, ColorMode::kField,
                      ColorMode::kClassification, ColorMode::kReturn, ColorMode::kSource}) {
    s = ColorSettings{};
    s.mode = m;
    s.field = m == ColorMode::kField ? "Deviation" : "";
    all.push_back(s);
  }
  s = ColorSettings{};
  s.mode = ColorMode::kIntensity;
  s.gamma = 2.2;
  s.colormap = Colormap::kTurbo;
  all.push_back(s);
  s.auto_range = false;
  s.range_lo = 100.0;
  s.range_hi = 30000.0;
  all.push_back(s);
  s = ColorSettings{};
  s.mode = ColorMode::kElevation;
  s.up_axis = 1;
  s.colormap = Colormap::kInferno;
  all.push_back(s);
  s.auto_range = false;
  s.range_lo = -25.0;  // y is -20.25 +- 10
  s.range_hi = -18.0;
  all.push_back(s);
  s.up_axis = 2;
  s.range_lo = 290.0;  // z is 300 +- 50
  s.range_hi = 320.0;
  s.colormap = Colormap::kPlasma;
  all.push_back(s);
  s = ColorSettings{};  // back to the file's colors
  s.mode = ColorMode::kRgb;
  all.push_back(s);
  return all;
}

}  // namespace pr::test
