// Batch culling against the view frustum (after Schuetz et al., HPG 2022): the stored
// points are cut into batches of kPointBatch consecutive points, each with the bounding box of its
// points; a frame first tests each box against the view and skips the batches of which no point can
// land in the image. In a spatially coherent order (the Morton-sorted upload, a scanner's tiles,
// sort_if_incoherent()) a batch is a small box, so a camera inside a cloud skips most of it.
//
// The test is the same function on the CPU and the GPU (PR_HD, double precision) and conservative:
// box_may_draw() returns false only when no float point of the box can pass project_to_pixel(), so
// culled and unculled frames are the same image (tested over thousands of random cameras). The
// compact positions (engine/compact.h) use it for their batches too.
//
// Three box tests, each conservative in the direction its user needs:
//   box_may_draw()        false only when no point of the box can draw: the batch is skipped;
//   box_surely_inside()   true only when every point of the box draws at its own pixel: the
//                         batch's points skip their image tests;
//   box_corners_in_view() true only when the whole box lies well inside the view (its corners
//                         projected exactly, 2 pixels in): no batch of a cloud in that box can be
//                         culled, so the frame skips the box tests.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "engine/point_cloud.h"
#include "engine/projection.h"

namespace pr {

constexpr uint32_t kPointBatch = 4096;  ///< stored points per box (24 B: 0.006 B a point)

/// A batch's flag for one frame, as the GPU renderer's box-test kernels write it.
enum BatchFlag : uint8_t {
  kBatchCulled = 0,  ///< no point of the batch can draw (box_may_draw() false)
  kBatchDrawn = 1,   ///< drawn, each point with its own image tests
  kBatchInside =
      2,  ///< wholly inside the view (box_surely_inside()): the points skip the image tests
  // Occlusion culling's frames (the CUDA renderer's two passes; docs/GPU.md): bits over the above.
  kBatchDeferred = 4,   ///< pass 1: hidden by the last frame's Hi-Z, left to pass 2's test
  kBatchFirst = 8,      ///< pass 2: drawn in pass 1 (its flag | 8), not again
  kBatchOccluded = 16,  ///< pass 2: deferred and hidden by this frame's pass-1 Hi-Z: not drawn
  /// A frame with a clip: every point of the batch is shown untinted (clip_box_class(),
  /// engine/clip_math.h), so its points skip the per-point clip test. A bit over the above.
  kBatchClipShown = 32,
};

/// Whether a raster pass draws a batch of this flag: only kBatchDrawn and kBatchInside draw.
PR_HD bool batch_draws(uint8_t f) {
  return uint32_t(f & ~uint32_t(kBatchClipShown)) - 1u < 2u;
}

/// Whether a batch of this flag is drawn wholly inside the view (kBatchInside).
PR_HD bool batch_inside(uint8_t f) {
  return (f & ~uint32_t(kBatchClipShown)) == kBatchInside;
}

/// Whether a batch of this flag skips the per-point clip test (kBatchClipShown).
PR_HD bool batch_clip_shown(uint8_t f) {
  return (f & kBatchClipShown) != 0;
}

/// The bounding box of a batch's finite points (lo > hi on every axis when it has none).
struct PointBox {
  float lo[3];
  float hi[3];
};
static_assert(sizeof(PointBox) == 24);

PR_HD double cull_abs(double v) {
  return v < 0.0 ? -v : v;
}

/// The box [lo, hi] in camera space, for box_may_draw() and box_surely_inside(): centre `cc` and
/// half extents `ch` of a box that holds the float camera coordinates of every float point in (or
/// near) [lo, hi].
///
/// The camera transform c = R (v - shift) maps the box into the box centred on R (centre - shift)
/// with half extents |R| h (exact in real numbers), padded by the float camera transform's
/// rounding (a few float epsilons times |v - shift|: 1e-6 of it). The box itself is padded by 1e-6
/// relative, for callers whose points are only near it (the compact decoder's rounding).
/// Extra slack of the box tests for points projected otherwise than by project_to_pixel(): the
/// compact storage's forms (engine/compact.h, compact_forms_slack()). `d`: how far a point's float
/// depth may lie from its camera z; `x`, `y`: how far the float px c.z and py c.z (or px, py in an
/// orthographic view) may lie from their real values. Zero for the float storage.
struct BoxSlack {
  double x = 0.0, y = 0.0, d = 0.0;
};

PR_HD void camera_box(const ProjParams& p, const double lo_in[3], const double hi_in[3],
                      double cc[3], double ch[3], const BoxSlack& slack = BoxSlack{}) {
  double c[3], h[3];
  double mag = 0.0;
  for (int a = 0; a < 3; ++a) {
    double lo = lo_in[a], hi = hi_in[a];
    const double pad = 1e-6 * (cull_abs(lo) + cull_abs(hi));
    lo -= pad;
    hi += pad;
    const double s = double(p.shift[a]);
    c[a] = 0.5 * ((lo - s) + (hi - s));
    h[a] = 0.5 * (hi - lo);
    const double m0 = cull_abs(lo - s), m1 = cull_abs(hi - s);
    mag += m0 > m1 ? m0 : m1;
  }
  const double delta = 1e-6 * mag;  // float camera-transform rounding, generously
  for (int i = 0; i < 3; ++i) {
    cc[i] = 0.0;
    ch[i] = delta;
    for (int a = 0; a < 3; ++a) {
      const double r = double(p.r[3 * i + a]);
      cc[i] += r * c[a];
      ch[i] += cull_abs(r) * h[a];
    }
  }
  ch[2] += slack.d;
}

/// The image edges' tests below are linear forms in (c.x or c.y, d), d being the projection's
/// divisor: d = c.z in perspective (px = c.x F / c.z + cx), d = 1 in an orthographic view
/// (px = c.x F + cx, F = k * pixels per unit): its centre and half extent over the camera box,
/// and F.
PR_HD double edge_divisor(const ProjParams& p, const double cc[3], const double ch[3], double& dc,
                          double& dh) {
  const bool ortho = p.ortho > 0.0f;
  dc = ortho ? 1.0 : cc[2];
  dh = ortho ? 0.0 : ch[2];
  return double(ortho ? p.ortho : p.focus) * double(p.scale);
}

/// The image edges' linear forms over a camera box (centre cc, half extents ch; the divisor's
/// centre dc and half extent dh from edge_divisor()): max() is the maximum over the box of
/// alpha * c.x (axis 0) or alpha * c.y (axis 1) plus beta * d, widened by the slack: its x (y),
/// and the divisor's slack times the largest px (py) of the image's edges in the whole image (a
/// tile's lie ox, oy from the whole image's).
struct EdgeForms {
  const double* cc;
  const double* ch;
  double dc, dh, sx, sy;
  PR_HD double max(int axis, double alpha, double beta) const {
    return alpha * cc[axis] + beta * dc + cull_abs(alpha) * ch[axis] + cull_abs(beta) * dh +
           (axis == 0 ? sx : sy);
  }
};

PR_HD EdgeForms edge_forms(const ProjParams& p, const double cc[3], const double ch[3], double dc,
                           double dh, const BoxSlack& slack) {
  const bool ortho = p.ortho > 0.0f;
  const double W = double(p.width), H = double(p.height);
  EdgeForms e;
  e.cc = cc;
  e.ch = ch;
  e.dc = dc;
  e.dh = dh;
  e.sx = slack.x + (ortho ? 0.0 : (W + cull_abs(double(p.ox)) + cull_abs(double(p.cx))) * slack.d);
  e.sy = slack.y + (ortho ? 0.0 : (H + cull_abs(double(p.oy)) + cull_abs(double(p.cy))) * slack.d);
  return e;
}

/// Whether a point in the box [lo, hi] may draw (conservative: false only when none can).
///
/// A point draws only when its float c.z > near_z, so the box is culled when even the largest
/// padded z (camera_box()) is not beyond the near plane. With near_z > 0 a drawn point has
/// c.z > 0, and then px >= 0 is c.x F / c.z + cx >= 0 (F = focus * pixels per unit), i.e. the
/// linear form c.x F + (cx + M) c.z >= 0, with a margin M of one pixel for the rounding of the
/// division and the products. A linear form is negative over the whole box when its maximum, at
/// the centre plus sum |coefficient| * half extent, is negative; so each image edge is one such
/// test (in an orthographic view with 1 in place of c.z: edge_divisor()). Written so that NaN
/// anywhere culls nothing. Only the centre pixel of a point decides whether it draws (a splat
/// whose centre is outside the image draws nothing, as on the CPU), so point sizes need no
/// margin.
PR_HD bool box_may_draw(const ProjParams& p, const double lo_in[3], const double hi_in[3],
                        const BoxSlack& slack = BoxSlack{}) {
  double cc[3], ch[3];
  camera_box(p, lo_in, hi_in, cc, ch, slack);
  const double near_z = double(p.near_z);
  if (cc[2] + ch[2] <= near_z) return false;  // wholly behind the near plane
  if (!(near_z > 0.0)) return true;           // the edge tests below need c.z > 0
  double dc, dh;
  const double F = edge_divisor(p, cc, ch, dc, dh);
  const double M = 1.0;
  const double W = double(p.width), H = double(p.height);
  // The centre in this frame's pixels (a tile's: less its origin, exact in double).
  const double px0 = double(p.cx) - double(p.ox), py0 = double(p.cy) - double(p.oy);
  const EdgeForms e = edge_forms(p, cc, ch, dc, dh, slack);
  if (e.max(0, F, px0 + M) < 0.0) return false;       // px < -M: left of the image
  if (e.max(0, -F, W + M - px0) < 0.0) return false;  // px > W + M: right of it
  if (e.max(1, -F, py0 + M) < 0.0) return false;      // py < -M: above it
  if (e.max(1, F, H + M - py0) < 0.0) return false;   // py > H + M: below it
  return true;
}

/// Whether every float point in (or near) the box [lo, hi] surely passes project_to_pixel()'s
/// tests: in front of the near plane, not beyond 1e30, and its pixel more than M pixels inside
/// the image. The dual of box_may_draw() (conservative the other way: false when unsure), with the
/// same camera box: its smallest z must exceed near_z, and each edge's linear form must have the
/// right sign over the whole box (its maximum below zero), with M = 1 pixel plus 4e-6 of the whole
/// image's size (a tile's too: ProjParams::ox, oy) for the rounding of the division and the
/// products. A renderer may then skip those tests
/// for the box's points and take int(px), int(py) as their pixel: project_to_pixel() would give
/// the same pixel (its clamp does nothing there). Not for points outside the box (NaN ones among
/// them). Written so that NaN anywhere answers false.
PR_HD bool box_surely_inside(const ProjParams& p, const double lo_in[3], const double hi_in[3],
                             const BoxSlack& slack = BoxSlack{}) {
  double cc[3], ch[3];
  camera_box(p, lo_in, hi_in, cc, ch, slack);
  const double near_z = double(p.near_z);
  if (!(near_z > 0.0)) return false;
  if (!(cc[2] - ch[2] > near_z && cc[2] + ch[2] < 1e30)) return false;
  double dc, dh;
  const double F = edge_divisor(p, cc, ch, dc, dh);
  const double W = double(p.width), H = double(p.height);
  // The rounding grows with the whole image's size (2 cx + 2 cy; a tile's W + H is less).
  const double M = 1.0 + 4e-6 * (2.0 * (double(p.cx) + double(p.cy)));
  const double px0 = double(p.cx) - double(p.ox), py0 = double(p.cy) - double(p.oy);
  const EdgeForms e = edge_forms(p, cc, ch, dc, dh, slack);
  // d > 0 on the whole box, so px > M is F c.x + (cx - M) d > 0, i.e. its negation's maximum
  // is below zero; likewise px < W - M, py > M, py < H - M.
  return e.max(0, -F, M - px0) < 0.0 && e.max(0, F, px0 - W + M) < 0.0 &&
         e.max(1, F, M - py0) < 0.0 && e.max(1, -F, py0 - H + M) < 0.0;
}

/// box_surely_inside() of a PointBox; false for an empty one.
PR_HD bool box_surely_inside(const ProjParams& p, const PointBox& b) {
  if (!(b.lo[0] <= b.hi[0])) return false;
  const double lo[3] = {double(b.lo[0]), double(b.lo[1]), double(b.lo[2])};
  const double hi[3] = {double(b.hi[0]), double(b.hi[1]), double(b.hi[2])};
  return box_surely_inside(p, lo, hi);
}

/// A batch's box test: an empty box (no finite point) draws nothing.
PR_HD bool box_may_draw(const ProjParams& p, const PointBox& b) {
  if (b.lo[0] > b.hi[0]) return false;
  const double lo[3] = {double(b.lo[0]), double(b.lo[1]), double(b.lo[2])};
  const double hi[3] = {double(b.hi[0]), double(b.hi[1]), double(b.hi[2])};
  return box_may_draw(p, lo, hi);
}

/// Whether the whole box certainly lies in view: its 8 corners in front of the near plane and
/// projected at least two pixels inside the image, so every point in it draws (the image of a box
/// in front of the camera is the convex hull of its corners' images). A renderer that knows this
/// skips the per-batch tests of a frame (no batch can be culled); false when unsure (it is only a
/// shortcut: culling or not gives the same image).
inline bool box_corners_in_view(const ProjParams& p, const PointBox& b) {
  if (!(b.lo[0] <= b.hi[0])) return false;
  const bool ortho = p.ortho > 0.0f;
  const double F = double(ortho ? p.ortho : p.focus) * double(p.scale), M = 2.0;
  for (int c = 0; c < 8; ++c) {
    double d[3];
    for (int a = 0; a < 3; ++a)
      d[a] = double((c >> a) & 1 ? b.hi[a] : b.lo[a]) - double(p.shift[a]);
    double q[3];
    for (int i = 0; i < 3; ++i)
      q[i] =
          double(p.r[3 * i]) * d[0] + double(p.r[3 * i + 1]) * d[1] + double(p.r[3 * i + 2]) * d[2];
    if (!(q[2] > double(p.near_z) * 1.01 + 1e-3 && q[2] < 1e30)) return false;
    const double dv = ortho ? 1.0 : q[2];  // the divisor: c.z, or 1 in an orthographic view
    const double px = q[0] * F / dv + (double(p.cx) - double(p.ox));
    const double py = (double(p.cy) - double(p.oy)) - q[1] * F / dv;
    if (!(px >= M && px <= double(p.width) - M && py >= M && py <= double(p.height) - M))
      return false;
  }
  return true;
}

/// A half-open rectangle of pixels, [x0, x1) x [y0, y1).
struct PixelRect {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  PR_HD bool empty() const { return x0 >= x1 || y0 >= y1; }
};

/// Where a box's points can land in a frame: the pixels they can write (box_pixel_rect()) and the
/// smallest camera-space depth any of them can have (a drawn point's float c.z is at least this).
struct BoxFootprint {
  PixelRect rect;
  double near_depth = 0.0;
};

/// The footprint of the box [lo, hi] seen with `p`: a superset of the pixels its points can write,
/// splats included, clamped to the image (empty when no point can draw, the whole image when
/// unsure), and the least depth of a drawn point (near_z when unsure).
///
/// A drawn point's float camera coordinates lie in camera_box() with c.z > near_z, so in the box
/// [x-, x+] x [y-, y+] x [max(z-, near_z), z+]. With near_z > 0 that box is in front of the
/// camera, where px = c.x F / c.z + cx and py = cy - c.y F / c.z are linear-fractional functions
/// of c (linear in an orthographic view, F = k * pixels per unit, no division): they take their
/// extremes over the box at its corners. The margin is 2 pixels for the float division's
/// rounding, plus point_size pixels for a splat's square around its centre.
PR_HD BoxFootprint box_footprint(const ProjParams& p, const double lo[3], const double hi[3],
                                 const BoxSlack& slack = BoxSlack{}) {
  BoxFootprint f;
  const PixelRect full{0, 0, p.width > 0 ? p.width : 0, p.height > 0 ? p.height : 0};
  const double near_z = double(p.near_z);
  f.near_depth = near_z;
  double cc[3], ch[3];
  camera_box(p, lo, hi, cc, ch, slack);
  const double zhi = cc[2] + ch[2];
  if (zhi <= near_z) return f;  // wholly behind the near plane: nothing draws
  f.rect = full;
  if (!(near_z > 0.0)) return f;
  const double zlo = cc[2] - ch[2] > near_z ? cc[2] - ch[2] : near_z;
  const bool ortho = p.ortho > 0.0f;
  const double F = double(ortho ? p.ortho : p.focus) * double(p.scale);
  double xmin = 1e300, xmax = -1e300, ymin = 1e300, ymax = -1e300;
  bool finite = true;
  for (int c = 0; c < 8; ++c) {
    const double x = c & 1 ? cc[0] + ch[0] : cc[0] - ch[0];
    const double y = c & 2 ? cc[1] + ch[1] : cc[1] - ch[1];
    const double z = c & 4 ? zhi : zlo;
    const double d = ortho ? 1.0 : z;  // the divisor: c.z, or 1 in an orthographic view
    const double px = x * F / d + (double(p.cx) - double(p.ox));
    const double py = (double(p.cy) - double(p.oy)) - y * F / d;
    // Finite when v - v is zero (NaN and infinities give NaN).
    finite = finite && px - px == 0.0 && py - py == 0.0;
    xmin = px < xmin ? px : xmin;
    xmax = px > xmax ? px : xmax;
    ymin = py < ymin ? py : ymin;
    ymax = py > ymax ? py : ymax;
  }
  if (!finite) return f;  // NaN or overflow anywhere: unsure
  f.near_depth = zlo;
  // The slack in pixels: its x (y) over the nearest divisor, with the divisor's slack times the
  // largest whole-image px (py) of a pixel drawn.
  const double d_lo = ortho ? 1.0 : zlo;
  const double wx = double(p.width) + cull_abs(double(p.ox)),
               wy = double(p.height) + cull_abs(double(p.oy));
  const double sx = (slack.x + (ortho ? 0.0 : wx * slack.d)) / d_lo;
  const double sy = (slack.y + (ortho ? 0.0 : wy * slack.d)) / d_lo;
  const double m = 2.0 + double(p.point_size > 1 ? p.point_size : 1);
  // floor() by truncation of a value clamped to [0, n]: the clamp keeps it non-negative.
  auto clamp_to = [](double v, int n) { return v <= 0.0 ? 0 : v >= double(n) ? n : int(v); };
  f.rect.x0 = clamp_to(xmin - m - sx, full.x1);
  f.rect.x1 = clamp_to(xmax + m + 1.0 + sx, full.x1);
  f.rect.y0 = clamp_to(ymin - m - sy, full.y1);
  f.rect.y1 = clamp_to(ymax + m + 1.0 + sy, full.y1);
  return f;
}

/// The pixels that points of the box can write in a frame seen with `p`, splats included: a
/// superset, clamped to the image; empty when no point can draw, the whole image when unsure
/// (box_footprint()). A renderer whose points all lie in the box can resolve the rest of the image
/// as background without reading it (the CUDA renderer's resolve).
PR_HD BoxFootprint box_footprint(const ProjParams& p, const PointBox& b) {
  if (!(b.lo[0] <= b.hi[0])) return BoxFootprint{};  // no finite point: an empty rect
  const double lo[3] = {double(b.lo[0]), double(b.lo[1]), double(b.lo[2])};
  const double hi[3] = {double(b.hi[0]), double(b.hi[1]), double(b.hi[2])};
  return box_footprint(p, lo, hi);
}
PR_HD PixelRect box_pixel_rect(const ProjParams& p, const PointBox& b) {
  return box_footprint(p, b).rect;
}

// Occlusion culling (both renderers; docs/GPU.md): a hierarchical depth buffer ("Hi-Z") holds,
// for each tile of kHizTile x kHizTile pixels, the largest depth of the keys in it (the key's high
// word, all ones for a tile with an empty pixel), and for each tile of kHizTile1 pixels the largest
// of its small tiles. A batch whose every point would land behind what every pixel of its
// footprint already holds cannot change the image: the depth buffer only gets nearer during a
// frame, and a key of a greater depth loses whatever its color.
constexpr int kHizTile = 16;   ///< pixels on a side of a level-0 tile
constexpr int kHizTile1 = 64;  ///< of a level-1 tile
constexpr int kHizSpan = 6;    ///< most tiles on a side a footprint is tested over, per level

/// A Hi-Z of a width x height image: level 0 (tiles_x(0) x tiles_y(0) words, row-major) and
/// level 1 after it.
struct HizView {
  const uint32_t* words = nullptr;
  int width = 0, height = 0;
  /// The tiles' depths are multiplied by this (in float) before the test: 1 for a plain frame,
  /// kHqDepthRange (engine/hq_splat.h) for high-quality splats, whose pixels average the points
  /// within that factor of their nearest depth. A point of depth d joins a pixel of depth D when
  /// d <= fl(D * kHqDepthRange); the final D is at most the tile's depth H, and fl(x * k) grows
  /// with x, so a batch with fl(H * k) < its nearest depth adds to no average: culling it leaves
  /// the image exact, in a tile of a larger image too.
  float depth_scale = 1.0f;
  PR_HD int tiles_x(int level) const {
    const int t = level ? kHizTile1 : kHizTile;
    return (width + t - 1) / t;
  }
  PR_HD int tiles_y(int level) const {
    const int t = level ? kHizTile1 : kHizTile;
    return (height + t - 1) / t;
  }
  PR_HD size_t level_words(int level) const {
    return size_t(tiles_x(level)) * size_t(tiles_y(level));
  }
  PR_HD size_t total_words() const { return level_words(0) + level_words(1); }
};

/// Whether every pixel of the footprint's rect already holds a point nearer than f.near_depth in
/// `hiz` (false when unsure: an empty rect, a rect over more than kHizSpan tiles a side even at
/// level 1, a tile with an empty pixel). The tiles are read as one unrolled batch of loads.
PR_HD bool footprint_occluded(const BoxFootprint& f, const HizView& hiz) {
  if (f.rect.empty() || !hiz.words) return false;
  for (int level = 0; level < 2; ++level) {
    const int t = level ? kHizTile1 : kHizTile;
    const int tx0 = f.rect.x0 / t, tx1 = (f.rect.x1 - 1) / t;
    const int ty0 = f.rect.y0 / t, ty1 = (f.rect.y1 - 1) / t;
    if (tx1 - tx0 >= kHizSpan || ty1 - ty0 >= kHizSpan) continue;
    const uint32_t* w = hiz.words + (level ? hiz.level_words(0) : 0);
    const int stride = hiz.tiles_x(level);
    bool occluded = true;
    for (int j = 0; j < kHizSpan; ++j)
      for (int i = 0; i < kHizSpan; ++i)
        if (ty0 + j <= ty1 && tx0 + i <= tx1)
          // All ones (an empty pixel) is a NaN: the comparison is false.
          occluded &=
              double(bits_float(w[(ty0 + j) * stride + tx0 + i]) * hiz.depth_scale) < f.near_depth;
    return occluded;
  }
  return false;
}

/// Which tiles of a key buffer hold a key: one flag a tile of `tile` x `tile` pixels (tiles_x x
/// tiles_y, row-major), 0 only when every key of the tile is kEmptyKey (the CPU renderer's
/// occupancy tiles). No flags: every tile is read.
struct HizOccupancy {
  const uint8_t* flags = nullptr;
  int tile = 0;
  int tiles_x = 0, tiles_y = 0;
};

/// The Hi-Z (HizView's layout, hiz.total_words() words) of a width x height buffer of keys, on
/// the host, in parallel on up to `threads` threads (0: all): what the CUDA renderer builds on
/// the device, what the CPU renderer's occlusion culling tests against, and the tests' reference.
/// A Hi-Z tile whose occupancy flags are all 0 is all ones without its keys being read.
void build_hiz(const uint64_t* keys, int width, int height, uint32_t* words,
               const HizOccupancy& occupancy = {}, unsigned threads = 0);

/// Whether a point counts for its batch's box: all three coordinates finite (a point with an
/// infinite or NaN coordinate never draws: its camera-space z is NaN or infinite). Huge finite
/// coordinates count (they can draw), and the test's double arithmetic holds them.
PR_HD bool box_point(float x, float y, float z) {
  return (x - x == 0.0f) & (y - y == 0.0f) & (z - z == 0.0f);
}

/// The empty box, to be grown by box_grow().
PR_HD PointBox empty_point_box() {
  PointBox b;
  for (int a = 0; a < 3; ++a) {
    b.lo[a] = bits_float(0x7f800000u);  // +inf
    b.hi[a] = bits_float(0xff800000u);  // -inf
  }
  return b;
}

/// Grows `b` by a point (box_point() must hold) or by another box. -0 counts as +0, so that the
/// box does not depend on the order its points are taken in (min and max are otherwise exact).
PR_HD void box_grow(PointBox& b, float x, float y, float z) {
  const float f[3] = {x + 0.0f, y + 0.0f, z + 0.0f};
  for (int a = 0; a < 3; ++a) {
    b.lo[a] = f[a] < b.lo[a] ? f[a] : b.lo[a];
    b.hi[a] = f[a] > b.hi[a] ? f[a] : b.hi[a];
  }
}
PR_HD void box_grow(PointBox& b, const PointBox& o) {
  for (int a = 0; a < 3; ++a) {
    b.lo[a] = o.lo[a] < b.lo[a] ? o.lo[a] : b.lo[a];
    b.hi[a] = o.hi[a] > b.hi[a] ? o.hi[a] : b.hi[a];
  }
}

/// The boxes of `n` positions in batches of kPointBatch (parallel, on the host): what the CUDA
/// renderer computes on the device for its stored order, and what the CPU renderer culls with.
void compute_point_boxes(const Float3* pos, size_t n, PodVector<PointBox>* out);

}  // namespace pr
