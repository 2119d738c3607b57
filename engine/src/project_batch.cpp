#include "project_batch.h"

namespace pr {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_ADDRESS__)
#define PR_TARGET_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define PR_TARGET_CLONES
#endif

namespace {

// Pixel (int(px), int(py)) as an index when `valid` (the depth tests passed) and the pixel is in
// the image (0 <= px < fw, 0 <= py < fh), else ~0u; branch-free for the vectorizer. Clamped (NaN to
// 0) before the conversion so that culled points convert harmlessly.
__attribute__((always_inline)) inline uint32_t pixel_index(const ProjParams& pp, float fw, float fh,
                                                           float px, float py, int valid) {
  const int inside = valid & int(px >= 0.0f) & int(px < fw) & int(py >= 0.0f) & int(py < fh);
  const float cpx = px >= 0.0f ? (px > fw - 1.0f ? fw - 1.0f : px) : 0.0f;
  const float cpy = py >= 0.0f ? (py > fh - 1.0f ? fh - 1.0f : py) : 0.0f;
  const uint32_t idx = uint32_t(int(cpy)) * uint32_t(pp.width) + uint32_t(int(cpx));
  const uint32_t m = 0u - uint32_t(inside);
  return (idx & m) | ~m;
}

// The loop for one projection kind: kOrtho is a template parameter, so that the perspective loop
// is the very loop it would be without orthographic views (no select per point) and the
// orthographic one skips the division; kTile: a tile of a larger image, whose origin is
// subtracted (pixel_coords(), engine/projection.h), which a whole frame skips.
template <bool kOrtho, bool kTile>
__attribute__((always_inline)) inline void project_loop(const ProjParams& pp,
                                                        const float* __restrict xyz, size_t n,
                                                        uint32_t* __restrict pix,
                                                        float* __restrict depth) {
  const float fw = float(pp.width), fh = float(pp.height);
  for (size_t j = 0; j < n; ++j) {
    float cx, cy, cz;
    // Positions read as a flat float array: GCC vectorizes stride-3 loads of floats, not of
    // struct members.
    to_camera(pp, xyz[3 * j], xyz[3 * j + 1], xyz[3 * j + 2], cx, cy, cz);
    // Exactly project() + to_pixel(), written for the vectorizer (image_factor() unrolled).
    const float f = kOrtho ? pp.ortho : pp.focus / cz;
    float px = (cx * f) * pp.scale + pp.cx;
    float py = pp.cy - (cy * f) * pp.scale;
    if constexpr (kTile) {
      px = px - pp.ox;
      py = py - pp.oy;
    }
    const int inside = int(cz > pp.near_z) & int(cz < 3.0e38f);
    pix[j] = pixel_index(pp, fw, fh, px, py, inside);
    depth[j] = cz;
  }
}

// compact_to_pixel() for a run of words, written for the vectorizer as project_loop() is: the
// forms' operations in compact_forms_project()'s order (an orthographic view's divisor is 1, so its
// products by 1 are left out: they change nothing).
template <bool kOrtho, bool kTile>
__attribute__((always_inline)) inline void compact_loop(const ProjParams& pp, const CompactForms& f,
                                                        const uint32_t* __restrict words, size_t n,
                                                        uint32_t* __restrict pix,
                                                        float* __restrict depth) {
  const float fw = float(pp.width), fh = float(pp.height);
  for (size_t j = 0; j < n; ++j) {
    const uint32_t w = words[j];
    const float q0 = float(int(w & kCompactMaxQ));
    const float q1 = float(int((w >> kCompactBits) & kCompactMaxQ));
    const float q2 = float(int(w >> (2 * kCompactBits)));
    const float d = f.d[3] + f.d[0] * q0 + f.d[1] * q1 + f.d[2] * q2;
    float px = f.x[3] + f.x[0] * q0 + f.x[1] * q1 + f.x[2] * q2;
    float py = f.y[3] + f.y[0] * q0 + f.y[1] * q1 + f.y[2] * q2;
    if constexpr (!kOrtho) {
      const float r = 1.0f / d;
      px = px * r;
      py = py * r;
    }
    if constexpr (kTile) {
      px = px - pp.ox;
      py = py - pp.oy;
    }
    const int valid = int((w & kCompactInvalid) == 0u) & int(d > pp.near_z) & int(d < 3.0e38f);
    pix[j] = pixel_index(pp, fw, fh, px, py, valid);
    depth[j] = d;
  }
}

}  // namespace

PR_TARGET_CLONES
void compact_project_batch(const ProjParams& p_in, const CompactForms& f_in,
                           const uint32_t* __restrict words, size_t n, uint32_t* __restrict pix,
                           float* __restrict depth) {
  const ProjParams pp = p_in;  // local copies: provably not aliased by the outputs
  const CompactForms f = f_in;
  const bool tile = pp.ox != 0.0f || pp.oy != 0.0f;
  if (pp.ortho > 0.0f) {
    if (tile)
      compact_loop<true, true>(pp, f, words, n, pix, depth);
    else
      compact_loop<true, false>(pp, f, words, n, pix, depth);
  } else if (tile) {
    compact_loop<false, true>(pp, f, words, n, pix, depth);
  } else {
    compact_loop<false, false>(pp, f, words, n, pix, depth);
  }
}

PR_TARGET_CLONES
void project_batch(const ProjParams& p_in, const float* __restrict xyz, size_t n,
                   uint32_t* __restrict pix, float* __restrict depth) {
  const ProjParams pp = p_in;  // a local copy: provably not aliased by the outputs
  const bool tile = pp.ox != 0.0f || pp.oy != 0.0f;
  if (pp.ortho > 0.0f) {
    if (tile)
      project_loop<true, true>(pp, xyz, n, pix, depth);
    else
      project_loop<true, false>(pp, xyz, n, pix, depth);
  } else if (tile) {
    project_loop<false, true>(pp, xyz, n, pix, depth);
  } else {
    project_loop<false, false>(pp, xyz, n, pix, depth);
  }
}

}  // namespace pr
