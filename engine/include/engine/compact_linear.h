// The linear projection of a compact batch (engine/compact.h): for a batch whose box is small
// against its distance from the camera, the perspective projection of its points differs from an
// affine map of their 10-bit offsets q by a small fraction of a pixel, so a compact frame projects
// such a batch's points with that map,
//
//   px = a0 qx + a1 qy + a2 qz + bx,  py = ...,  depth = ...
//
// nine products and nine sums a point, where the exact projection decodes, moves into camera
// space and divides (compact_decode() and project_to_pixel(): twice the instructions, a division
// among them). The map is the projection's first-order expansion about the batch's centre; a
// batch gets one only when the second-order term's bound is at most kCompactLinearError pixels
// (compact_linear()), so its points land within that of their exact projection (plus the float
// rounding of a few products: a few thousandths of a pixel); depth is affine in q, so the map's
// depth is the exact one up to rounding. Batches without a map (near the camera, or spanning a
// large part of the view) keep the exact projection.
//
// The map is computed in float by the same function on the CPU and the GPU (IEEE, no FMA), and
// every consumer of a compact frame's pixels (the rasters, high-quality splats, the picks) projects
// through compact_to_pixel(), so both renderers still draw identical images and the picks name
// the points the frame drew. The box tests keep the exact projection's margins: one pixel
// (box_may_draw(), box_surely_inside()) and two (box_footprint()), far more than
// kCompactLinearError, and a depth pad of 1e-6 of the box's distance, far more than the map's
// rounding.
#pragma once

#include <cstdint>

#include "engine/compact.h"
#include "engine/projection.h"

namespace pr {

/// The largest distance, in pixels, between a point's linear and exact projections that a batch
/// with a linear map may have (the bound compact_linear() tests; the float rounding of the map
/// adds a few thousandths of a pixel).
constexpr float kCompactLinearError = 1.0f / 8.0f;

/// A batch's affine map from offsets q to the whole image's (px, py) and the depth; `ok` false
/// when the batch keeps the exact projection.
struct CompactLinear {
  float a[9];  ///< rows px, py, depth; columns qx, qy, qz
  float b[3];
  bool ok;
};

PR_HD float linear_abs(float v) {
  return v < 0.0f ? -v : v;
}

/// Batch `bt`'s linear map in the frame seen with `p` (ok false when it has none).
///
/// With h the batch's half extents and m its centre, camera coordinates are affine in q:
/// c(q) = c0 + A (q - 511.5), A = R diag(scale), so depth is exact and px = F c.x / c.z + cx
/// (F = focus * scale) has the first-order expansion px0 + (F / z0) dx - (F x0 / z0^2) dz. Its
/// remainder is F (dz / z) (x0 dz / z0 - dx) / z0, at most F (ez / zmin) (|x0| ez / z0 + ex) / z0
/// over the box's camera half extents e (zmin = z0 - ez); py likewise. An orthographic view is
/// affine: every batch has a map. The batch must lie beyond the near plane by twice its depth
/// extent.
PR_HD CompactLinear compact_linear(const ProjParams& p, const CompactBatch& bt) {
  CompactLinear l;
  l.ok = false;
  const float half = 0.5f * float(kCompactMaxQ);
  float m[3], h[3];
  for (int j = 0; j < 3; ++j) {
    h[j] = half * bt.scale[j];
    m[j] = (bt.lo[j] + h[j]) - p.shift[j];
  }
  float c[3], e[3], A[9];
  for (int i = 0; i < 3; ++i) {
    const float* r = p.r + 3 * i;
    c[i] = (r[0] * m[0] + r[1] * m[1]) + r[2] * m[2];
    e[i] = (linear_abs(r[0]) * h[0] + linear_abs(r[1]) * h[1]) + linear_abs(r[2]) * h[2];
    for (int j = 0; j < 3; ++j) A[3 * i + j] = r[j] * bt.scale[j];
  }
  const bool ortho = p.ortho > 0.0f;
  const float F = (ortho ? p.ortho : p.focus) * p.scale;
  float px0, py0, fx[3], fy[3];  // px0 + fx . (c - c0), py0 + fy . (c - c0)
  if (ortho) {
    px0 = c[0] * F + p.cx;
    py0 = p.cy - c[1] * F;
    fx[0] = F, fx[1] = 0.0f, fx[2] = 0.0f;
    fy[0] = 0.0f, fy[1] = -F, fy[2] = 0.0f;
  } else {
    const float z0 = c[2], zmin = c[2] - e[2];
    if (!(zmin - e[2] > p.near_z && z0 < 1e30f)) return l;  // NaN fails too
    const float f = F / z0, g = f / z0;
    const float t = e[2] / zmin;
    const float errx = f * t * (linear_abs(c[0]) * e[2] / z0 + e[0]);
    const float erry = f * t * (linear_abs(c[1]) * e[2] / z0 + e[1]);
    const float err = errx > erry ? errx : erry;
    if (!(err <= kCompactLinearError)) return l;
    px0 = c[0] * f + p.cx;
    py0 = p.cy - c[1] * f;
    fx[0] = f, fx[1] = 0.0f, fx[2] = -(c[0] * g);
    fy[0] = 0.0f, fy[1] = -f, fy[2] = c[1] * g;
  }
  const float centre[3] = {px0, py0, c[2]};
  for (int i = 0; i < 3; ++i) {
    float sum = 0.0f;
    for (int j = 0; j < 3; ++j) {
      const float v = i == 0   ? fx[0] * A[j] + fx[2] * A[6 + j]
                      : i == 1 ? fy[1] * A[3 + j] + fy[2] * A[6 + j]
                               : A[6 + j];
      l.a[3 * i + j] = v;
      sum = sum + v;
    }
    l.b[i] = centre[i] - sum * half;
  }
  bool finite = true;
  for (int k = 0; k < 9; ++k) finite = finite && l.a[k] - l.a[k] == 0.0f;
  for (int k = 0; k < 3; ++k) finite = finite && l.b[k] - l.b[k] == 0.0f;
  l.ok = finite;
  return l;
}

/// The whole image's (px, py) and the depth of word `w` (a valid point's) under map `l`.
PR_HD void compact_linear_eval(const CompactLinear& l, uint32_t w, float& px, float& py,
                               float& depth) {
  const float qx = float(w & kCompactMaxQ);
  const float qy = float((w >> kCompactBits) & kCompactMaxQ);
  const float qz = float((w >> (2 * kCompactBits)) & kCompactMaxQ);
  px = ((l.a[0] * qx + l.a[1] * qy) + l.a[2] * qz) + l.b[0];
  py = ((l.a[3] * qx + l.a[4] * qy) + l.a[5] * qz) + l.b[1];
  depth = ((l.a[6] * qx + l.a[7] * qy) + l.a[8] * qz) + l.b[2];
}

/// project_to_pixel() of a valid point through its batch's map: this frame's pixel (less the
/// tile's origin, exact as in pixel_coords()) and key, with the same tests.
PR_HD bool compact_linear_to_pixel(const ProjParams& p, const CompactLinear& l, uint32_t w,
                                   uint32_t color, int& ix, int& iy, uint64_t& key) {
  float px, py, depth;
  compact_linear_eval(l, w, px, py, depth);
  px = px - p.ox;
  py = py - p.oy;
  const bool inside = (depth > p.near_z) & (depth < 3.0e38f) & (px >= 0.0f) &
                      (px < float(p.width)) & (py >= 0.0f) & (py < float(p.height));
  if (!inside) return false;
  ix = int(px);
  iy = int(py);
  if (ix >= p.width) ix = p.width - 1;
  if (iy >= p.height) iy = p.height - 1;
  key = pack_key(depth, color);
  return true;
}

/// A compact point's pixel and key as every compact frame draws it: through its batch's map when
/// the batch has one, else the exact projection of its decoded position (x, y, z).
PR_HD bool compact_to_pixel(const ProjParams& p, const CompactLinear& l, uint32_t w, float x,
                            float y, float z, uint32_t color, int& ix, int& iy, uint64_t& key) {
  if (l.ok) return compact_linear_to_pixel(p, l, w, color, ix, iy, key);
  return project_to_pixel(p, x, y, z, color, ix, iy, key);
}

}  // namespace pr
