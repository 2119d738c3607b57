// High-quality splats (Schütz, Kerbl and Wimmer, "Rendering Point Clouds with Compute Shaders and
// Vertex Order Optimization", 2021): instead of the nearest point's color alone, a pixel shows the
// average color of every point that lands in it within a small depth range behind the nearest.
// Dense clouds put many points in one pixel, and which of them is nearest changes with every small
// camera move: one color a pixel shimmers, the average of the front surface does not.
//
// A frame draws the depth test as usual (the visibility buffer of (depth, color) keys), then a
// second pass over the same points: a point whose depth d at a pixel holding key k satisfies
//
//   d <= depth(k) * kHqDepthRange        (float multiply, then a compare of the float bits)
//
// adds its color and a count to that pixel's accumulator. The resolve divides. The CPU renderer
// (engine/src/cpu_renderer.cpp) and the CUDA one (kernels/src/hq_splat.cu) both compile these
// functions, and the sums are integers (addition in any order gives the same total), so the two
// images are identical pixel for pixel whatever order the threads run in.
//
// The accumulator is two 64-bit words a pixel, added to with two 64-bit atomic adds a point:
//
//   a = sum(R) | sum(G) << 32        b = sum(B) | count << 32
//
// A channel's sum fits its 32 bits while the count is at most kHqMaxCount (255 * kHqMaxCount <
// 2^32); a pixel with more points in its range (no real cloud has 16 million points in one
// pixel's 1% depth range) shows its nearest point's color instead, on both renderers.
#pragma once

#include <cstdint>

#include "engine/projection.h"

namespace pr {

/// Points up to 1% behind the nearest one of their pixel are blended (Schütz et al. use 1%).
constexpr float kHqDepthRange = 1.01f;
/// The most points a pixel averages (each channel's sum stays below 2^32).
constexpr uint32_t kHqMaxCount = 16843009u;  // floor((2^32 - 1) / 255)

/// The float bits of the farthest depth blended at a pixel whose key is `key` (not empty).
PR_HD uint32_t hq_depth_limit(uint64_t key) {
  return float_bits(key_depth(key) * kHqDepthRange);
}

/// Whether a point with depth bits `depth_bits` at a pixel holding `key` is blended there.
/// Positive floats' bits order like the floats; an empty pixel blends nothing (no point of this
/// frame's depth test reached it).
PR_HD bool hq_blends(uint32_t depth_bits, uint64_t key) {
  return key != kEmptyKey && depth_bits <= hq_depth_limit(key);
}

/// The two words a point of RGBA8 `color` adds to a pixel's accumulator.
PR_HD uint64_t hq_word_a(uint32_t color) {
  return uint64_t(color & 0xffu) | (uint64_t((color >> 8) & 0xffu) << 32);
}
PR_HD uint64_t hq_word_b(uint32_t color) {
  return uint64_t((color >> 16) & 0xffu) | (uint64_t{1} << 32);
}

/// The color of a pixel with key `key` (not empty) and accumulator (a, b): each channel's sum
/// divided by the count, rounded to nearest (ties up), opaque; the key's own color when nothing
/// was added or the sums may have overflowed.
PR_HD uint32_t hq_color(uint64_t key, uint64_t a, uint64_t b) {
  const uint32_t n = uint32_t(b >> 32);
  if (n == 0 || n > kHqMaxCount) return key_color(key);
  const uint64_t half = n / 2;
  const uint32_t r = uint32_t(((a & 0xffffffffu) + half) / n);
  const uint32_t g = uint32_t(((a >> 32) + half) / n);
  const uint32_t bl = uint32_t(((b & 0xffffffffu) + half) / n);
  return r | (g << 8) | (bl << 16) | kOpaqueAlpha;
}

}  // namespace pr
