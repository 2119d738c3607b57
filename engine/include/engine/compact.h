// Compact quantized positions (opt-in: RenderOptions::compact; after Schuetz et al., "Software
// Rasterization of 2 Billion Points in Real Time", HPG 2022): the cloud is cut into batches of
// kCompactBatch consecutive stored points; each batch keeps its bounding box as a float corner
// `lo` and a float step `scale` per axis, and each point one 32-bit word of three 10-bit offsets:
//
//   x = lo.x + float(q.x) * scale.x,   q = (word & 1023, word >> 10 & 1023, word >> 20 & 1023)
//
// so positions cost 4 bytes a point (plus 24 bytes a batch). The CPU and the GPU both project a
// batch's words through the same float forms made from its box and the frame's camera
// (compact_forms() below: IEEE float, no FMA: host -ffp-contract=off, nvcc -fmad=false), so they
// draw identical images; compact_decode() gives a point's position where a clip, adaptive sizes
// or a pick need it.
//
// Precision: scale = (max - min) / 1023 of the batch's points, and the encoder picks the nearest
// of the 1024 steps, so each coordinate is off by at most scale/2 (+ float rounding): 1/2046 of
// the batch box's extent on that axis. In file order the batches of a random cloud span the whole
// cloud (1/2046 of its size: a display-quality level of detail, visible as a grid when the camera
// is close); after the Morton sort (build_compact(..., morton = true), which the renderers ask
// for when wants_spatial_sort() says so) a batch of 4096 points of a billion-point cube spans
// about 1/60 of the cube per axis, so the error is about 1/125,000 of the cube. Points with a
// non-finite coordinate or one beyond +-kCompactMaxCoord are stored as invalid (bit 31) and draw
// nothing.
//
// Culling: compact_box_may_draw() tests a batch's box against the view with engine/culling.h's
// box_may_draw() (near plane and the four image edges, in double precision with margins for every
// float rounding of decode and projection, and the forms' slack), so it returns false only when
// no point of the batch can land in the image.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "engine/culling.h"
#include "engine/point_cloud.h"
#include "engine/projection.h"

namespace pr {

constexpr uint32_t kCompactBatch = 4096;                      ///< points per batch
constexpr int kCompactBits = 10;                              ///< bits per axis
constexpr uint32_t kCompactMaxQ = (1u << kCompactBits) - 1u;  ///< 1023
constexpr uint32_t kCompactInvalid = 0x80000000u;  ///< word flag: the point draws nothing
constexpr float kCompactMaxCoord = 1e30f;          ///< larger |coordinates| are invalid

/// A batch's box: points decode to lo + q * scale, q in [0, 1023] per axis.
struct CompactBatch {
  float lo[3];
  float scale[3];
};
static_assert(sizeof(CompactBatch) == 24);

/// The shared decoder. False for invalid points (their coordinates are then meaningless).
PR_HD bool compact_decode(const CompactBatch& b, uint32_t w, float& x, float& y, float& z) {
  x = b.lo[0] + float(w & kCompactMaxQ) * b.scale[0];
  y = b.lo[1] + float((w >> kCompactBits) & kCompactMaxQ) * b.scale[1];
  z = b.lo[2] + float((w >> (2 * kCompactBits)) & kCompactMaxQ) * b.scale[2];
  return (w & kCompactInvalid) == 0u;
}

/// Whether a point can be stored in compact form: finite and within +-kCompactMaxCoord on every
/// axis. Written so that NaN fails. The Morton codes (engine/morton.h) use the same rule.
PR_HD bool compact_valid(float x, float y, float z) {
  const float m = kCompactMaxCoord;
  return (x >= -m) & (x <= m) & (y >= -m) & (y <= m) & (z >= -m) & (z <= m);
}

/// A batch's box from the minimum and maximum of its valid points (mn = mx = 0 when it has none):
/// lo = mn, scale = (mx - mn) / 1023 per axis.
PR_HD CompactBatch compact_box(const float mn[3], const float mx[3]) {
  CompactBatch b;
  for (int a = 0; a < 3; ++a) {
    b.lo[a] = mn[a];
    // |coordinates| <= 1e30, so the extent is finite.
    b.scale[a] = (mx[a] - mn[a]) / float(kCompactMaxQ);
  }
  return b;
}

/// -0 as +0, so that a batch's minimum and maximum do not depend on the order they are taken in.
PR_HD float compact_unsign_zero(float f) {
  return f + 0.0f;
}

PR_HD float compact_fabsf(float f) {
  return f < 0.0f ? -f : f;
}

/// The word of one point of a batch with box `b`: per axis the nearest of the decoder's 1024 steps
/// (floor and floor +- 1 of the exact quotient, each decoded as compact_decode() does); invalid
/// points (compact_valid() false) get kCompactInvalid. The host's build_compact() and the CUDA
/// renderer's GPU encoder both call this, so they store the same words.
PR_HD uint32_t compact_encode(const CompactBatch& b, float x, float y, float z) {
  if (!compact_valid(x, y, z)) return kCompactInvalid;
  const float f[3] = {x, y, z};
  uint32_t w = 0;
  for (int a = 0; a < 3; ++a) {
    uint32_t q = 0;
    if (b.scale[a] > 0.0f) {
      const double t = (double(f[a]) - double(b.lo[a])) / double(b.scale[a]);
      double fl = floor(t);
      fl = fl < 0.0 ? 0.0 : (fl > double(kCompactMaxQ) ? double(kCompactMaxQ) : fl);
      const uint32_t q0 = uint32_t(fl);
      q = q0;
      float best = compact_fabsf(b.lo[a] + float(q0) * b.scale[a] - f[a]);
      const uint32_t cands[2] = {q0 + 1u, q0 > 0u ? q0 - 1u : q0};
      for (uint32_t cand : cands) {
        if (cand > kCompactMaxQ) continue;
        const float err = compact_fabsf(b.lo[a] + float(cand) * b.scale[a] - f[a]);
        if (err < best) {
          best = err;
          q = cand;
        }
      }
    }
    w |= q << (kCompactBits * a);
  }
  return w;
}

/// The box batch `b`'s points decode into, [lo, lo + 1023 scale] per axis, in double.
PR_HD void compact_box_bounds(const CompactBatch& b, double lo[3], double hi[3]) {
  for (int a = 0; a < 3; ++a) {
    lo[a] = double(b.lo[a]);
    hi[a] = lo[a] + double(kCompactMaxQ) * double(b.scale[a]);
  }
}

// Projection. A batch's points are projected through three forms in their steps q (exact
// integers in float), each f[3] + f[0] q0 + f[1] q1 + f[2] q2 evaluated left to right:
//
//   d = the camera depth c.z,   x = px c.z,   y = py c.z   (perspective, px py the whole image's)
//   d = c.z,                    x = px,       y = py       (an orthographic view)
//
// so that a point costs three forms, one division and two products instead of a decode, the
// camera transform and the projection. In real numbers the forms are exactly the projection of the
// decoded point (decode and camera transform are affine in q); in float they differ from
// project_to_pixel() of compact_decode()'s floats by about 1e-4 pixel. compact_forms() makes them
// from the batch's box with the frame's camera, in float, in one order; both renderers make and
// evaluate them with the same operations (no FMA), so they draw the same pixels and depths.

/// A batch's forms for one frame (compact_forms()).
struct CompactForms {
  float d[4];  ///< depth
  float x[4];  ///< px times the divisor (c.z; 1 in an orthographic view)
  float y[4];  ///< py times the divisor
};

/// The forms of batch `b` seen with `p`.
PR_HD CompactForms compact_forms(const ProjParams& p, const CompactBatch& b) {
  const bool ortho = p.ortho > 0.0f;
  const float k = (ortho ? p.ortho : p.focus) * p.scale;
  const float e0 = b.lo[0] - p.shift[0], e1 = b.lo[1] - p.shift[1], e2 = b.lo[2] - p.shift[2];
  const float c0 = p.r[0] * e0 + p.r[1] * e1 + p.r[2] * e2;
  const float c1 = p.r[3] * e0 + p.r[4] * e1 + p.r[5] * e2;
  const float c2 = p.r[6] * e0 + p.r[7] * e1 + p.r[8] * e2;
  CompactForms f;
  for (int a = 0; a < 3; ++a) {
    const float da = p.r[6 + a] * b.scale[a];
    const float wa = ortho ? 0.0f : da;  // the divisor's step
    f.d[a] = da;
    f.x[a] = k * (p.r[a] * b.scale[a]) + p.cx * wa;
    f.y[a] = p.cy * wa - k * (p.r[3 + a] * b.scale[a]);
  }
  const float w = ortho ? 1.0f : c2;  // the divisor at the box's corner
  f.d[3] = c2;
  f.x[3] = k * c0 + p.cx * w;
  f.y[3] = p.cy * w - k * c1;
  return f;
}

/// How far compact_forms()' float forms may lie from their real values over batch `b` (the
/// slack of engine/culling.h's box tests): 64 float epsilons of the sum of the magnitudes of the
/// products that make them, which bounds the roundings of making and evaluating them (about 10
/// epsilons of it) with room to spare.
PR_HD BoxSlack compact_forms_slack(const ProjParams& p, const CompactBatch& b) {
  const double eps = 64.0 * 5.9604644775390625e-08;  // 64 * 2^-24
  double mag[3];
  for (int i = 0; i < 3; ++i) {
    mag[i] = 0.0;
    for (int a = 0; a < 3; ++a) {
      const double e = cull_abs(double(b.lo[a]) - double(p.shift[a]));
      mag[i] += cull_abs(double(p.r[3 * i + a])) *
                (e + double(kCompactMaxQ) * cull_abs(double(b.scale[a])));
    }
  }
  const bool ortho = p.ortho > 0.0f;
  const double k = double(ortho ? p.ortho : p.focus) * double(p.scale);
  const double w = ortho ? 1.0 : mag[2];
  BoxSlack s;
  s.d = eps * mag[2];
  s.x = eps * (k * mag[0] + cull_abs(double(p.cx)) * w);
  s.y = eps * (k * mag[1] + cull_abs(double(p.cy)) * w);
  return s;
}

/// int(v) for 0 <= v < 2^23, exactly: on the GPU v + 2^23 rounded toward zero is 2^23 + floor(v),
/// on the FP32 pipe rather than the conversion unit.
PR_HD int compact_pixel(float v) {
#if defined(__CUDA_ARCH__)
  return int(__float_as_uint(__fadd_rz(v, 8388608.0f)) - 0x4B000000u);
#else
  return int(v);
#endif
}

PR_HD float compact_form(const float f[4], float q0, float q1, float q2) {
  return f[3] + f[0] * q0 + f[1] * q1 + f[2] * q2;
}

/// A compact point projected through its batch's forms: its frame pixel coordinates (px, py, not
/// yet truncated: the whole image's less ProjParams::ox, oy) and depth.
struct CompactProjected {
  float px, py, depth;
};

PR_HD CompactProjected compact_forms_project(const ProjParams& p, const CompactForms& f,
                                             uint32_t w) {
  // The steps. Bit 30 is clear, so a valid word's third step needs no mask (bit 31 marks an
  // invalid word, whose projection is never used).
  const float q0 = float(w & kCompactMaxQ);
  const float q1 = float((w >> kCompactBits) & kCompactMaxQ);
  const float q2 = float(w >> (2 * kCompactBits));
  CompactProjected o;
  o.depth = compact_form(f.d, q0, q1, q2);
  const float r = 1.0f / (p.ortho > 0.0f ? 1.0f : o.depth);
  o.px = compact_form(f.x, q0, q1, q2) * r - p.ox;
  o.py = compact_form(f.y, q0, q1, q2) * r - p.oy;
  return o;
}

/// Word `w` of a batch with forms `f`: its pixel and depth bits, false when it draws nothing
/// (invalid, not beyond the near plane, beyond 3e38 or outside the image). The tests of
/// project_to_pixel(), written so that NaN fails them.
PR_HD bool compact_to_pixel(const ProjParams& p, const CompactForms& f, uint32_t w, int& ix,
                            int& iy, uint32_t& depth_bits) {
  const CompactProjected o = compact_forms_project(p, f, w);
#if defined(__CUDA_ARCH__)
  // The image tests on the integers: the bits of v + 2^23 rounded toward zero, less those of 2^23,
  // are floor(v) for 0 <= v < 2^23, and as unsigned at least 2^23 for any other v (negative, NaN
  // and infinite ones too). So for a frame under 2^23 pixels a side (the GPU renderer refuses
  // larger ones) `u < side` is `0 <= v < side`, and u the pixel.
  const uint32_t ux = __float_as_uint(__fadd_rz(o.px, 8388608.0f)) - 0x4B000000u;
  const uint32_t uy = __float_as_uint(__fadd_rz(o.py, 8388608.0f)) - 0x4B000000u;
  if (!((w & kCompactInvalid) == 0u && o.depth > p.near_z && o.depth < 3.0e38f &&
        ux < uint32_t(p.width) && uy < uint32_t(p.height)))
    return false;
  ix = int(ux);
  iy = int(uy);
#else
  const bool inside = ((w & kCompactInvalid) == 0u) & (o.depth > p.near_z) & (o.depth < 3.0e38f) &
                      (o.px >= 0.0f) & (o.px < float(p.width)) & (o.py >= 0.0f) &
                      (o.py < float(p.height));
  if (!inside) return false;
  ix = int(o.px);
  iy = int(o.py);
  if (ix >= p.width) ix = p.width - 1;
  if (iy >= p.height) iy = p.height - 1;
#endif
  depth_bits = float_bits(o.depth);
  return true;
}

/// compact_to_pixel() for a valid word of a batch compact_box_surely_inside() accepts: the same
/// pixel and depth bits without the tests and the clamp.
PR_HD void compact_inside(const ProjParams& p, const CompactForms& f, uint32_t w, int& ix, int& iy,
                          uint32_t& depth_bits) {
  const CompactProjected o = compact_forms_project(p, f, w);
  ix = compact_pixel(o.px);
  iy = compact_pixel(o.py);
  depth_bits = float_bits(o.depth);
}

/// Whether any point of batch `b` may draw (conservative: false only when none can): the box
/// test of engine/culling.h on compact_box_bounds(), which pads the box for the decode's float
/// rounding (1e-6 relative), with the forms' slack.
PR_HD bool compact_box_may_draw(const ProjParams& p, const CompactBatch& b) {
  double lo[3], hi[3];
  compact_box_bounds(b, lo, hi);
  return box_may_draw(p, lo, hi, compact_forms_slack(p, b));
}

/// The footprint (engine/culling.h's box_footprint()) of batch `b`'s points.
PR_HD BoxFootprint compact_box_footprint(const ProjParams& p, const CompactBatch& b) {
  double lo[3], hi[3];
  compact_box_bounds(b, lo, hi);
  return box_footprint(p, lo, hi, compact_forms_slack(p, b));
}

/// Whether every valid point of batch `b` surely draws at its compact_inside() pixel:
/// box_surely_inside() of engine/culling.h on the same box, with the forms' slack.
PR_HD bool compact_box_surely_inside(const ProjParams& p, const CompactBatch& b) {
  double lo[3], hi[3];
  compact_box_bounds(b, lo, hi);
  return box_surely_inside(p, lo, hi, compact_forms_slack(p, b));
}

/// Whether original index j is in the drawn subset {subset_index(i, step) : i < count} (step from
/// subset_step(), >= 2^32). i -> subset_index(i, step) is strictly increasing, and the i that maps
/// to j (if any) lies in [j 2^32 / step, j 2^32 / step + 1): i0 = floor(j 2^32 / step) or i0 + 1.
PR_HD bool in_subset(uint32_t j, uint64_t count, uint64_t step) {
  const uint64_t i0 = (uint64_t(j) << 32) / step;
  if (i0 < count && subset_index(i0, step) == j) return true;
  const uint64_t i1 = i0 + 1;
  return i1 < count && subset_index(i1, step) == j;
}

/// A cloud's positions in compact form, built on the host (build_compact) and uploaded as is by
/// the CUDA renderer, so both renderers draw from the same words.
struct CompactCloud {
  PodVector<uint32_t> words;        ///< one per stored point
  PodVector<CompactBatch> batches;  ///< one per kCompactBatch stored points
  PodVector<uint32_t> orig;         ///< empty (stored in original order) or original index
  uint64_t size() const { return words.size(); }
  /// Bytes of the arrays: 4 a point (+4 with orig) + 24 a batch.
  size_t memory_bytes() const {
    return words.size() * 4 + orig.size() * 4 + batches.size() * sizeof(CompactBatch);
  }
};

/// Encodes `cloud` (positions only; colors stay in the cloud, in original order). With `morton`,
/// the points are first ordered along a 30-bit Morton curve of the cloud's bounds (ties by
/// original index) and `orig` keeps each stored point's original index, so batches are compact
/// boxes (precise and cullable). False with a message when the cloud has 2^32 - 1 points or more.
bool build_compact(const PointCloud& cloud, bool morton, CompactCloud* out, std::string* error);

}  // namespace pr
