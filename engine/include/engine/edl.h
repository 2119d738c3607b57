// Eye-dome lighting (EDL): screen-space shading from the depth image, as Potree and CloudCompare
// draw it, shared by the CPU resolve (engine/src/cpu_edl.cpp) and the CUDA one
// (kernels/src/edl.cu). Both compile these functions, so both images are identical bit for bit.
//
// For a pixel holding a point of depth d, with N neighbours at offsets (dx_i, dy_i) (about
// `radius` pixels away, on a circle):
//
//   L(d)     = log2 of the depth, approximated by the float's bits: exponent + mantissa
//              (Mitchell's approximation, bits / 2^23 - 127: exact at powers of two, continuous,
//              monotonic, at most 0.086 below log2), kept as the integer bits - 127 * 2^23
//   sum      = sum over the neighbours of max(0, L(d) - L(d_i)), in units of 2^-23; an empty
//              neighbour (or one outside the image) is infinitely far and adds 0
//   shade    = exp(-strength * 300 * sum / (N * 2^23))       (Potree's response and shade)
//   color    = each RGB channel c -> trunc(c * shade + 0.5)
//
// Only operations that IEEE 754 rounds correctly, in one order, are used (integer math, int to
// float conversion, float * and +, no FMA: host -ffp-contract=off, CUDA -fmad=false): exp is
// 2^y with y split into an integer (built as float bits) and a fraction (a fixed polynomial),
// not libm's expf, which differs between the host and CUDA.
#pragma once

#include <cmath>
#include <cstdint>

#include "engine/projection.h"

namespace pr {

/// The most neighbours EDL samples.
constexpr int kEdlMaxNeighbours = 8;

/// What the EDL pass of a frame needs, made once a frame by edl_params() (plain data, passed to a
/// kernel by value).
struct EdlParams {
  int n = 0;                       ///< neighbours
  int dx[kEdlMaxNeighbours] = {};  ///< neighbour offsets in pixels
  int dy[kEdlMaxNeighbours] = {};
  float scale = 0.0f;  ///< strength * 300 * log2(e) / (N * 2^23): sum -> -y of shade = 2^y
};

/// The frame's EDL parameters: 8 neighbours on a circle of `radius` pixels (at least 1: offsets
/// rounded to whole pixels, radius 1.4 giving the 8 adjacent pixels), `strength` >= 0.
inline EdlParams edl_params(float strength, float radius) {
  EdlParams e;
  const double r = radius < 1.0f ? 1.0 : double(radius);
  e.n = kEdlMaxNeighbours;
  for (int i = 0; i < e.n; ++i) {
    const double a = double(i) * (2.0 * 3.14159265358979323846 / double(e.n));
    e.dx[i] = int(std::lround(r * std::cos(a)));
    e.dy[i] = int(std::lround(r * std::sin(a)));
  }
  const double s = strength < 0.0f ? 0.0 : double(strength);
  e.scale = float(s * 300.0 * 1.4426950408889634 / (double(e.n) * 8388608.0));
  return e;
}

/// How far the neighbours of `e` lie from a pixel, in whole pixels along either axis: a pixel's
/// shade reads the keys up to this far (a tile of a larger image is drawn this much wider,
/// engine/tiled_render.h).
inline int edl_reach(const EdlParams& e) {
  int r = 0;
  for (int i = 0; i < e.n; ++i) {
    const int ax = e.dx[i] < 0 ? -e.dx[i] : e.dx[i], ay = e.dy[i] < 0 ? -e.dy[i] : e.dy[i];
    r = ax > r ? ax : r;
    r = ay > r ? ay : r;
  }
  return r;
}

/// L(d) of a key's depth (see above): its float bits minus 127 * 2^23.
PR_HD int32_t edl_log2_fixed(uint64_t key) {
  return int32_t(uint32_t(key >> 32)) - (int32_t(127) << 23);
}

/// 2^y for y <= 0 (0 below -126): 2^floor(y) as float bits times a degree-6 polynomial of the
/// fraction f in [0, 1) (Taylor series of 2^f = e^(f ln 2), relative error under 2e-5 on [0, 1), a
/// tenth of a color step),
/// in Horner form with separate multiplies and adds.
PR_HD float edl_exp2_neg(float y) {
  if (!(y > -126.0f)) return 0.0f;
  int n = int(y);  // truncation toward zero: y <= 0, so n >= y
  if (float(n) > y) n -= 1;
  const float f = y - float(n);  // exact: y and n share the exponent range
  float p = 1.5403530e-4f;
  p = p * f + 1.3333558e-3f;
  p = p * f + 9.6181291e-3f;
  p = p * f + 5.5504109e-2f;
  p = p * f + 2.4022651e-1f;
  p = p * f + 6.9314718e-1f;
  p = p * f + 1.0f;
  return p * bits_float(uint32_t(n + 127) << 23);
}

/// One neighbour's term of the sum: max(0, L(d) - L(d_i)), 0 for an empty neighbour.
PR_HD int64_t edl_term(int32_t l, uint64_t neighbour) {
  if (neighbour == kEmptyKey) return 0;
  const int32_t d = l - edl_log2_fixed(neighbour);
  return d > 0 ? d : 0;
}

/// The shade for a neighbour sum (2^-23 units).
PR_HD float edl_shade_of_sum(const EdlParams& e, int64_t sum) {
  return edl_exp2_neg(-(float(sum) * e.scale));
}

/// The shade of a pixel whose key is `key` (not empty), its neighbours' keys given by
/// key_at(x, y) for pixels inside the width x height image.
template <class KeyAt>
PR_HD float edl_shade(const EdlParams& e, int x, int y, int width, int height, uint64_t key,
                      const KeyAt& key_at) {
  const int32_t l = edl_log2_fixed(key);
  int64_t sum = 0;
  for (int i = 0; i < e.n; ++i) {
    const int nx = x + e.dx[i], ny = y + e.dy[i];
    if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
    sum += edl_term(l, key_at(nx, ny));
  }
  return edl_shade_of_sum(e, sum);
}

/// The RGBA8 color `color` (0xAABBGGRR) shaded: each RGB channel c -> trunc(c * shade + 0.5).
PR_HD uint32_t edl_apply(uint32_t color, float shade) {
  uint32_t out = color & 0xff000000u;
  for (int c = 0; c < 3; ++c) {
    const float v = float((color >> (8 * c)) & 0xffu) * shade + 0.5f;
    out |= (uint32_t(v) & 0xffu) << (8 * c);
  }
  return out;
}

}  // namespace pr
