// A cloud with every attribute a color mode reads, for the tests that compare colors computed in
// two ways (colorize() and ColorRecipe on the host, and on the GPU): random positions about a
// non-zero origin, intensities, classes, returns, point sources and a field "Deviation", with
// NaN, infinite and out-of-range values among them.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>

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

}  // namespace pr::test
