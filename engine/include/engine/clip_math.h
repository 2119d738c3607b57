// The clip test that both renderers compile (docs/CLIP.md): oriented boxes that show their inside,
// hide it or tint it, and a section (a slab between two parallel planes). Plain floats in the
// cloud's local frame (its origin subtracted), passed to kernels by value; the per-point test is
// the same float operations on the CPU and the GPU (no FMA contraction on either side), so both
// keep, hide and tint the same points.
//
// A point p is in box b when q = R_b^T (p - c_b), the point in the box's own axes, has
// |q_i| <= h_i on each axis (h: half the size). Several boxes combine as Potree's default
// (clip method "inside any"):
//   shown    when inside at least one "inside" box (when there is one), inside no "outside" box,
//            and within the section's slab (when there is one): |n . (p - s)| <= T / 2;
//   tinted   when shown and inside at least one "highlight" box: its color is the average of its
//            own and the tint, channel by channel, in integers.
// A batch's box (engine/culling.h) is classified in double precision with margins for the float
// rounding of the point test: wholly hidden (a renderer skips the batch), wholly shown untinted
// (its points skip the test), or mixed.
#pragma once

#include <cstdint>

#include "engine/compact.h"
#include "engine/culling.h"
#include "engine/projection.h"

namespace pr {

constexpr int kMaxClipBoxes = 8;  ///< boxes a frame's clip holds (ClipParams is passed by value)

/// What a box does to the points inside it (ClipBoxParams::mode).
enum ClipBoxMode : uint32_t { kClipShowInside = 0, kClipShowOutside = 1, kClipHighlight = 2 };

/// One oriented box in the local frame: centre, rotation into its axes (row-major R^T: row i is
/// the box's axis i in local coordinates) and half sizes.
struct ClipBoxParams {
  float c[3];
  float r[9];
  float h[3];
  uint32_t mode;  ///< a ClipBoxMode
};

/// A frame's clip, as the renderers take it (make_clip_params(), engine/clip.h).
struct ClipParams {
  int box_count = 0;                 ///< boxes in `box`, 0 .. kMaxClipBoxes
  int inside_count = 0;              ///< of them kClipShowInside
  int section = 0;                   ///< 1: the slab test below
  float sn[3] = {0.0f, 0.0f, 1.0f};  ///< the section's unit normal
  float sp[3] = {0.0f, 0.0f, 0.0f};  ///< a point on its mid plane
  float shalf = 0.0f;                ///< half its thickness
  uint32_t tint = 0;                 ///< RGB(A8) the highlight blends in
  ClipBoxParams box[kMaxClipBoxes] = {};
  PR_HD bool active() const { return box_count > 0 || section != 0; }
};

/// What the clip does to a point, or to every point of a box (clip_box_class()).
enum ClipClass : uint32_t { kClipHidden = 0, kClipShown = 1, kClipTinted = 2, kClipMixed = 3 };

/// Whether the float point (x, y, z) is in box `b` (false for NaN).
PR_HD bool clip_box_contains(const ClipBoxParams& b, float x, float y, float z) {
  const float dx = x - b.c[0], dy = y - b.c[1], dz = z - b.c[2];
  const float q0 = b.r[0] * dx + b.r[1] * dy + b.r[2] * dz;
  const float q1 = b.r[3] * dx + b.r[4] * dy + b.r[5] * dz;
  const float q2 = b.r[6] * dx + b.r[7] * dy + b.r[8] * dz;
  return (q0 <= b.h[0]) & (q0 >= -b.h[0]) & (q1 <= b.h[1]) & (q1 >= -b.h[1]) & (q2 <= b.h[2]) &
         (q2 >= -b.h[2]);
}

/// Whether the float point is within the section's slab.
PR_HD bool clip_slab_contains(const ClipParams& c, float x, float y, float z) {
  const float s = c.sn[0] * (x - c.sp[0]) + c.sn[1] * (y - c.sp[1]) + c.sn[2] * (z - c.sp[2]);
  return (s <= c.shalf) & (s >= -c.shalf);
}

/// kClipHidden, kClipShown or kClipTinted for one point.
PR_HD uint32_t clip_point(const ClipParams& c, float x, float y, float z) {
  bool in_inside = c.inside_count == 0, in_outside = false, in_tint = false;
  for (int i = 0; i < c.box_count; ++i) {
    const bool in = clip_box_contains(c.box[i], x, y, z);
    const uint32_t m = c.box[i].mode;
    in_inside |= in & (m == kClipShowInside);
    in_outside |= in & (m == kClipShowOutside);
    in_tint |= in & (m == kClipHighlight);
  }
  bool shown = in_inside & !in_outside;
  if (c.section) shown &= clip_slab_contains(c, x, y, z);
  return !shown ? kClipHidden : in_tint ? kClipTinted : kClipShown;
}

/// A tinted color: each of R, G, B the average of the color's and the tint's (rounded down); the
/// alpha byte opaque.
PR_HD uint32_t clip_tint(uint32_t color, uint32_t tint) {
  const uint32_t lo = ((color & 0x00fefefeu) >> 1) + ((tint & 0x00fefefeu) >> 1);
  return (lo + (color & tint & 0x00010101u)) | kOpaqueAlpha;
}

/// The color a point of class `k` draws with (k not kClipHidden).
PR_HD uint32_t clip_color(const ClipParams& c, uint32_t k, uint32_t color) {
  return k == kClipTinted ? clip_tint(color, c.tint) : color;
}

PR_HD double clip_abs(double v) {
  return v < 0.0 ? -v : v;
}

/// Where the box [lo, hi] (double, local frame) lies against box `b` in b's axes: -1 wholly
/// outside, 1 wholly inside, 0 unsure. The box's centre m and half extents e map to
/// q = R^T (m - c) with half extents |R^T| e (exact in real numbers); the margin covers the float
/// test's rounding (a few float epsilons of the terms it sums: 1e-5 of them) and the padding of
/// boxes whose points are only near them (1e-6 relative, as camera_box()).
PR_HD int clip_box_side(const ClipBoxParams& b, const double lo[3], const double hi[3]) {
  double m[3], e[3];
  for (int a = 0; a < 3; ++a) {
    const double pad = 1e-6 * (clip_abs(lo[a]) + clip_abs(hi[a]));
    m[a] = 0.5 * (lo[a] + hi[a]) - double(b.c[a]);
    e[a] = 0.5 * (hi[a] - lo[a]) + pad;
  }
  bool inside = true, outside = false;
  for (int i = 0; i < 3; ++i) {
    double q = 0.0, qe = 0.0, mag = 0.0;
    for (int a = 0; a < 3; ++a) {
      const double r = double(b.r[3 * i + a]);
      q += r * m[a];
      qe += clip_abs(r) * e[a];
      mag += clip_abs(r) * (clip_abs(m[a]) + e[a] + clip_abs(double(b.c[a])));
    }
    const double margin = 1e-5 * mag + 1e-30;
    const double h = double(b.h[i]);
    inside = inside && clip_abs(q) + qe + margin < h;
    outside = outside || clip_abs(q) - qe - margin > h;
  }
  return outside ? -1 : inside ? 1 : 0;
}

/// clip_box_side() of the section's slab.
PR_HD int clip_slab_side(const ClipParams& c, const double lo[3], const double hi[3]) {
  double s = 0.0, se = 0.0, mag = 0.0;
  for (int a = 0; a < 3; ++a) {
    const double pad = 1e-6 * (clip_abs(lo[a]) + clip_abs(hi[a]));
    const double m = 0.5 * (lo[a] + hi[a]) - double(c.sp[a]);
    const double e = 0.5 * (hi[a] - lo[a]) + pad;
    const double n = double(c.sn[a]);
    s += n * m;
    se += clip_abs(n) * e;
    mag += clip_abs(n) * (clip_abs(m) + e + clip_abs(double(c.sp[a])));
  }
  const double margin = 1e-5 * mag + 1e-30;
  const double h = double(c.shalf);
  if (clip_abs(s) - se - margin > h) return -1;
  return clip_abs(s) + se + margin < h ? 1 : 0;
}

/// What the clip does to every point in the box [lo, hi] (local frame): kClipHidden when no point
/// there is shown, kClipShown (kClipTinted) when every one is shown untinted (tinted), else
/// kClipMixed. Conservative: a renderer may skip a hidden box's points and the per-point test of
/// a shown one's. Written so that NaN answers kClipMixed.
PR_HD uint32_t clip_box_class(const ClipParams& c, const double lo[3], const double hi[3]) {
  bool any_in = false, all_out = true, outside_in = false, outside_all_out = true;
  bool tint_in = false, tint_all_out = true;
  for (int i = 0; i < c.box_count; ++i) {
    const int s = clip_box_side(c.box[i], lo, hi);
    const uint32_t m = c.box[i].mode;
    if (m == kClipShowInside) {
      any_in = any_in || s == 1;
      all_out = all_out && s == -1;
    } else if (m == kClipShowOutside) {
      outside_in = outside_in || s == 1;
      outside_all_out = outside_all_out && s == -1;
    } else {
      tint_in = tint_in || s == 1;
      tint_all_out = tint_all_out && s == -1;
    }
  }
  const int slab = c.section ? clip_slab_side(c, lo, hi) : 1;
  if ((c.inside_count > 0 && all_out) || outside_in || slab == -1) return kClipHidden;
  const bool shown = (c.inside_count == 0 || any_in) && outside_all_out && slab == 1;
  if (shown && tint_all_out) return kClipShown;
  if (shown && tint_in) return kClipTinted;
  return kClipMixed;
}

/// clip_box_class() of a plain cloud's batch box (an empty box: hidden).
PR_HD uint32_t clip_box_class(const ClipParams& c, const PointBox& b) {
  if (!(b.lo[0] <= b.hi[0])) return kClipHidden;
  const double lo[3] = {double(b.lo[0]), double(b.lo[1]), double(b.lo[2])};
  const double hi[3] = {double(b.hi[0]), double(b.hi[1]), double(b.hi[2])};
  return clip_box_class(c, lo, hi);
}

/// clip_box_class() of a compact batch (the box its points decode into).
PR_HD uint32_t clip_box_class(const ClipParams& c, const CompactBatch& b) {
  double lo[3], hi[3];
  compact_box_bounds(b, lo, hi);
  return clip_box_class(c, lo, hi);
}

/// project_to_pixel() under a clip: false when the clip hides the point, else the point's pixel
/// and key with its color as the clip draws it (tinted or not).
PR_HD bool clip_project_to_pixel(const ProjParams& p, const ClipParams& c, float x, float y,
                                 float z, uint32_t color, int& ix, int& iy, uint64_t& key) {
  const uint32_t k = clip_point(c, x, y, z);
  if (k == kClipHidden) return false;
  return project_to_pixel(p, x, y, z, clip_color(c, k, color), ix, iy, key);
}

}  // namespace pr
