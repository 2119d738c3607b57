// The projection and rasterization math shared by the CPU renderer (engine/) and the CUDA renderer
// (kernels/). Both compile this one header, so both compute the same function: with IEEE float
// operations in the same order, no FMA contraction (host: -ffp-contract=off, nvcc: -fmad=false) and
// IEEE division, the CPU and GPU images are identical pixel for pixel.
//
// The model is the pinhole camera of the NumPy/CuPy perspective projection the project grew from
// (see docs/CAMERA.md):
//
//   camera space   c = R * (v - shift)           R's rows: the camera's right, up and forward axes
//   image plane    u = c.x * focus / c.z,  w = c.y * focus / c.z,  depth = c.z
//   pixels         px = u * s + W/2,  py = H/2 - w * s,   s = H/2
//
// so the image plane spans [-1, 1] vertically (y up) and [-W/H, W/H] horizontally, and
// tan(vfov/2) = 1/focus. Unlike that projection, which takes abs(z) and so mirrors points behind
// the camera in front of it, points with c.z <= near are culled.
//
// An orthographic camera (ProjParams::ortho = k > 0, image-plane units per world unit) drops the
// division: u = c.x * k, w = c.y * k, depth = c.z, the near plane as before. Its image spans 2/k
// world units vertically. The one factor f below (focus / c.z, or k) serves both, so the
// perspective path's float operations are those it has always had.
//
// The depth test packs (depth, color) into one 64-bit key: a positive float's bit pattern orders
// like the float, so the key's high word orders by depth and the low word (the point's RGBA8
// color) breaks ties: the nearest point wins, and of equal depths the smaller color word. The tie
// rule depends on the point alone, not on where it is stored, so a renderer may keep its points in
// any order (the CUDA renderer sorts them along a Morton curve) and still draw the same image; and
// two points at one depth with one color look the same whichever wins. One 64-bit atomicMin (GPU)
// or compare-exchange loop (CPU) per pixel does the whole depth test, and the resolve pass reads
// the winner's color straight from the key (no gather).
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define PR_HD __host__ __device__ __forceinline__
#else
#define PR_HD inline
#endif

namespace pr {

/// Everything a frame's projection needs, in plain floats so it can be passed to a kernel by value.
struct ProjParams {
  float r[9];         ///< rotation, row-major: rows are right, up, forward
  float shift[3];     ///< camera position in the cloud's local (float) frame
  float focus;        ///< focal length in image-plane units (seed: 5)
  float near_z;       ///< points with camera-space z <= near_z are culled
  float scale;        ///< pixels per image-plane unit (H/2)
  float cx, cy;       ///< image centre in pixels (W/2, H/2)
  int width, height;  ///< image size in pixels
  int point_size;     ///< square splat side in pixels (1 = one pixel per point); with adaptive
                      ///< sizes the largest (engine/point_size.h)
  /// Orthographic: image-plane units per world unit (2 / the view's height in world units);
  /// 0 for the perspective projection.
  float ortho;
  /// Where this frame lies in a larger image (a tile, engine/tiled_render.h): scale, cx and cy
  /// are the whole image's, and the whole image's pixel (px, py) is this frame's
  /// (px - ox, py - oy); width and height are this frame's. Whole numbers, exact in float; 0 for
  /// a frame that is the whole image (x - 0 is x for every float, so its pixels are the bits they
  /// always were).
  float ox = 0.0f, oy = 0.0f;
};

/// The factor a camera-space x or y is multiplied by to give image-plane u or w: focus / c.z in
/// perspective, the constant ProjParams::ortho in an orthographic view.
PR_HD float image_factor(const ProjParams& p, float cz) {
  return p.ortho > 0.0f ? p.ortho : p.focus / cz;
}

/// The key that marks an empty pixel (larger than any point's key).
constexpr uint64_t kEmptyKey = ~uint64_t{0};

PR_HD uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}

PR_HD float bits_float(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}

/// The alpha byte of every drawn color: points are opaque. The renderers draw a point's RGB and
/// ignore the alpha it may carry from its file, so the GPU stores 3 bytes of color a point.
constexpr uint32_t kOpaqueAlpha = 0xff000000u;

/// Depth (positive) and RGBA8 color (its alpha made kOpaqueAlpha) packed so that smaller keys are
/// nearer points (of equal depths, the smaller color word).
PR_HD uint64_t pack_key(float depth, uint32_t color) {
  return (uint64_t(float_bits(depth)) << 32) | color | kOpaqueAlpha;
}
PR_HD float key_depth(uint64_t key) {
  return bits_float(uint32_t(key >> 32));
}
PR_HD uint32_t key_color(uint64_t key) {
  return uint32_t(key & 0xffffffffu);
}

/// |v| with +0 for both zeros (std::abs's value), on the host and the device alike.
template <class T>
PR_HD T abs_value(T v) {
  return v <= T(0) ? T(0) - v : v;
}

/// The seed's projection of one vertex in T (float or double), as NumPy computes it
/// (bench/peers/seed_numpy.py: `dot(unit_vec, (v - shift).T)`, each row's sum left to right,
/// then x and y times focus / |z|): `m` the 3x3 unit_vec by rows. pointraster.project() runs it
/// on the host and on the device (kernels' project_on_device()), which give the same values.
template <class T>
PR_HD void seed_project(const T m[9], const T shift[3], T focus, T x, T y, T z, T out[3]) {
  x = x - shift[0];
  y = y - shift[1];
  z = z - shift[2];
  T o[3];
  for (int k = 0; k < 3; ++k) o[k] = m[3 * k] * x + m[3 * k + 1] * y + m[3 * k + 2] * z;
  const T f = focus / abs_value(o[2]);
  out[0] = o[0] * f;
  out[1] = o[1] * f;
  out[2] = o[2];
}

/// Camera-space coordinates of a point: c = R * (v - shift) (the NumPy projection's
/// `dot(unit_vec, (v - shift).T)`).
PR_HD void to_camera(const ProjParams& p, float x, float y, float z, float& cx, float& cy,
                     float& cz) {
  const float dx = x - p.shift[0];
  const float dy = y - p.shift[1];
  const float dz = z - p.shift[2];
  cx = p.r[0] * dx + p.r[1] * dy + p.r[2] * dz;
  cy = p.r[3] * dx + p.r[4] * dy + p.r[5] * dz;
  cz = p.r[6] * dx + p.r[7] * dy + p.r[8] * dz;
}

/// Result of projecting one point.
struct Projected {
  float u, w;    ///< image-plane coordinates (x*focus/z, y*focus/z; ortho: x*k, y*k)
  float depth;   ///< camera-space z
  bool visible;  ///< in front of the near plane and finite
};

/// The perspective (or orthographic: image_factor()) projection, with near-plane culling instead
/// of the NumPy projection's abs(z). NaN and infinite inputs come out not visible (every
/// comparison with NaN is false).
PR_HD Projected project(const ProjParams& p, float x, float y, float z) {
  Projected o;
  float cx, cy, cz;
  to_camera(p, x, y, z, cx, cy, cz);
  o.depth = cz;
  // `cz > near_z` is false for NaN; the upper bound rejects +inf.
  o.visible = (cz > p.near_z) & (cz < 3.0e38f);
  const float f = image_factor(p, cz);
  o.u = cx * f;
  o.w = cy * f;
  return o;
}

/// Pixel coordinates (not yet truncated) of a projected point: px = u s + W/2, py = H/2 - w s,
/// less the frame's origin in the whole image (ProjParams::ox, oy).
///
/// A tile draws exactly the whole image's pixels: the whole image's float px is computed as
/// ever, and subtracting a whole number ox <= px (both multiples of px's ulp, which is at most 1
/// below 2^24, the difference no larger than px) is exact, so int(px - ox) = int(px) - ox for
/// every point that lands in the tile. For a point outside it the subtraction rounds
/// monotonically and gives 0 only for px == ox, so the image tests (px - ox >= 0, px - ox < w)
/// decide as px >= ox and px < ox + w would.
PR_HD void pixel_coords(const ProjParams& p, const Projected& q, float& px, float& py) {
  px = (q.u * p.scale + p.cx) - p.ox;
  py = (p.cy - q.w * p.scale) - p.oy;
}

/// Pixel that image-plane point (u, w) falls in; false when outside the image (or NaN). A point
/// exactly on the left/top edge (px == 0) is inside, exactly on the right/bottom edge (px == W)
/// is outside: pixel i covers [i, i+1).
PR_HD bool to_pixel(const ProjParams& p, float u, float w, int& ix, int& iy) {
  const float px = (u * p.scale + p.cx) - p.ox;
  const float py = (p.cy - w * p.scale) - p.oy;
  // Written so that NaN fails every test.
  if (!(px >= 0.0f && px < float(p.width) && py >= 0.0f && py < float(p.height))) return false;
  ix = int(px);
  iy = int(py);
  // float(width) may round up for huge widths; clamp to stay inside.
  if (ix >= p.width) ix = p.width - 1;
  if (iy >= p.height) iy = p.height - 1;
  return true;
}

/// Project a point all the way to a pixel and its depth key; false when it draws nothing.
/// Branch-free up to the final test (the comparisons are combined with `&`, not `&&`): in a random
/// cloud whether a point is culled is a coin toss, and a mispredicted branch per point costs more
/// than the whole projection. Same results as project() followed by to_pixel().
PR_HD bool project_to_pixel(const ProjParams& p, float x, float y, float z, uint32_t color, int& ix,
                            int& iy, uint64_t& key) {
  const Projected q = project(p, x, y, z);
  float px, py;
  pixel_coords(p, q, px, py);
  const bool inside =
      q.visible & (px >= 0.0f) & (px < float(p.width)) & (py >= 0.0f) & (py < float(p.height));
  if (!inside) return false;
  ix = int(px);
  iy = int(py);
  if (ix >= p.width) ix = p.width - 1;
  if (iy >= p.height) iy = p.height - 1;
  key = pack_key(q.depth, color);
  return true;
}

/// project_to_pixel() for a point known to pass its tests (its batch's box_surely_inside(),
/// engine/culling.h): the same pixel and depth bits, without the tests and the clamp.
PR_HD void project_inside(const ProjParams& p, float x, float y, float z, int& ix, int& iy,
                          uint32_t& depth_bits) {
  const Projected q = project(p, x, y, z);
  float px, py;
  pixel_coords(p, q, px, py);
  ix = int(px);
  iy = int(py);
  depth_bits = float_bits(q.depth);
}

/// The footprint of a point of size `size` (>= 1) centred on pixel (ix, iy), clipped to the
/// image: pixels [x0, x1) x [y0, y1). Size s covers s x s pixels starting s/2 to the left/top.
PR_HD void splat_rect_sized(const ProjParams& p, int size, int ix, int iy, int& x0, int& y0,
                            int& x1, int& y1) {
  const int s = size < 1 ? 1 : size;
  const int h = s / 2;
  x0 = ix - h;
  y0 = iy - h;
  x1 = x0 + s;
  y1 = y0 + s;
  if (x0 < 0) x0 = 0;
  if (y0 < 0) y0 = 0;
  if (x1 > p.width) x1 = p.width;
  if (y1 > p.height) y1 = p.height;
}

/// splat_rect_sized() of the frame's one size, p.point_size.
PR_HD void splat_rect(const ProjParams& p, int ix, int iy, int& x0, int& y0, int& x1, int& y1) {
  splat_rect_sized(p, p.point_size, ix, iy, x0, y0, x1, y1);
}

/// Which source index the i-th drawn point reads when `count` of `total` points are drawn: an
/// evenly spread, deterministic subset (all points when count == total). `step` is
/// total/count in 32.32 fixed point, from subset_step().
PR_HD uint64_t subset_index(uint64_t i, uint64_t step) {
  return (i * step) >> 32;
}

inline uint64_t subset_step(uint64_t total, uint64_t count) {
  if (count == 0 || count >= total) return uint64_t{1} << 32;
  // floor(total * 2^32 / count); total < 2^32 here, so total << 32 fits in 64 bits.
  return (total << 32) / count;
}

}  // namespace pr
