// Building the compact form (engine/compact.h): optional Morton order, per-batch boxes, 10-bit
// offsets chosen as the nearest of the decoder's own 1024 steps.
#include "engine/compact.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "engine/parallel.h"

namespace pr {

namespace {

bool valid_point(const Float3& v) {
  auto ok = [](float f) { return std::isfinite(f) && std::fabs(f) <= kCompactMaxCoord; };
  return ok(v.x) && ok(v.y) && ok(v.z);
}

uint32_t spread10(uint32_t v) {
  v &= 0x3ffu;
  v = (v | (v << 16)) & 0x030000ffu;
  v = (v | (v << 8)) & 0x0300f00fu;
  v = (v | (v << 4)) & 0x030c30c3u;
  v = (v | (v << 2)) & 0x09249249u;
  return v;
}

/// Storage order along a Morton curve of the valid points' bounds: (code << 32 | index) keys,
/// bucketed by the code's top 15 bits in parallel (counting sort), then each bucket sorted.
/// Invalid points get the largest code, so they gather in the last batches.
std::vector<uint32_t> morton_order(const PointCloud& cloud) {
  const size_t n = cloud.size();
  double lo[3] = {0, 0, 0}, inv[3] = {0, 0, 0};
  // Bounds of the finite points (parallel); huge ones only widen the curve's box.
  const Bounds bb = cloud.local_bounds();
  if (!bb.empty)
    for (int a = 0; a < 3; ++a) {
      lo[a] = bb.min[a];
      inv[a] = bb.max[a] > bb.min[a] ? 1.0 / (bb.max[a] - bb.min[a]) : 0.0;
    }
  std::vector<uint64_t> keys(n);
  parallel_for(n, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) {
      const Float3& v = cloud.positions[i];
      uint32_t code = 0x3fffffffu;
      if (valid_point(v)) {
        const float f[3] = {v.x, v.y, v.z};
        code = 0;
        for (int a = 0; a < 3; ++a) {
          const double t = std::clamp((double(f[a]) - lo[a]) * inv[a] * 1023.0, 0.0, 1023.0);
          code |= spread10(uint32_t(t)) << a;
        }
      }
      keys[i] = (uint64_t(code) << 32) | i;
    }
  });
  // Counting sort by the top 15 of the 30 code bits, per thread range, then sort each bucket.
  constexpr int kShift = 32 + 15;
  constexpr size_t kBuckets = size_t(1) << 15;
  const unsigned threads = default_threads();
  const size_t chunk = (n + threads - 1) / std::max(1u, threads);
  std::vector<std::vector<uint64_t>> hist(threads, std::vector<uint64_t>(kBuckets, 0));
  parallel_for(
      threads,
      [&](size_t t0, size_t t1) {
        for (size_t t = t0; t < t1; ++t)
          for (size_t i = t * chunk; i < std::min(n, (t + 1) * chunk); ++i)
            ++hist[t][keys[i] >> kShift];
      },
      threads, 1);
  std::vector<uint64_t> bucket_start(kBuckets + 1, 0);
  uint64_t run = 0;
  for (size_t k = 0; k < kBuckets; ++k) {
    bucket_start[k] = run;
    for (unsigned t = 0; t < threads; ++t) {
      const uint64_t c = hist[t][k];
      hist[t][k] = run;  // becomes the thread's write cursor in bucket k
      run += c;
    }
  }
  bucket_start[kBuckets] = run;
  std::vector<uint64_t> sorted(n);
  parallel_for(
      threads,
      [&](size_t t0, size_t t1) {
        for (size_t t = t0; t < t1; ++t)
          for (size_t i = t * chunk; i < std::min(n, (t + 1) * chunk); ++i)
            sorted[hist[t][keys[i] >> kShift]++] = keys[i];
      },
      threads, 1);
  keys = std::vector<uint64_t>();
  parallel_for(
      kBuckets,
      [&](size_t k0, size_t k1) {
        for (size_t k = k0; k < k1; ++k)
          std::sort(sorted.begin() + long(bucket_start[k]),
                    sorted.begin() + long(bucket_start[k + 1]));
      },
      threads, 64);
  std::vector<uint32_t> order(n);
  parallel_for(n, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) order[i] = uint32_t(sorted[i] & 0xffffffffu);
  });
  return order;
}

}  // namespace

bool build_compact(const PointCloud& cloud, bool morton, CompactCloud* out, std::string* error) {
  const size_t n = cloud.size();
  if (n >= size_t(std::numeric_limits<uint32_t>::max())) {
    if (error) *error = "cloud has too many points for a 32-bit point index";
    return false;
  }
  out->words.resize(n);
  out->orig.clear();
  out->orig.shrink_to_fit();
  const size_t nb = (n + kCompactBatch - 1) / kCompactBatch;
  out->batches.resize(nb);
  std::vector<uint32_t> order;
  if (morton && n > 0) {
    order = morton_order(cloud);
    out->orig.resize(n);
    std::copy(order.begin(), order.end(), out->orig.begin());
  }
  const Float3* pos = cloud.positions.data();
  const uint32_t* ord = order.empty() ? nullptr : order.data();
  parallel_for(
      nb,
      [&](size_t b0, size_t b1) {
        for (size_t b = b0; b < b1; ++b) {
          const size_t s0 = b * kCompactBatch, s1 = std::min(n, s0 + kCompactBatch);
          auto at = [&](size_t s) -> const Float3& { return pos[ord ? ord[s] : s]; };
          float mn[3] = {0, 0, 0}, mx[3] = {0, 0, 0};
          bool any = false;
          for (size_t s = s0; s < s1; ++s) {
            const Float3& v = at(s);
            if (!valid_point(v)) continue;
            const float f[3] = {v.x, v.y, v.z};
            for (int a = 0; a < 3; ++a) {
              mn[a] = any ? std::min(mn[a], f[a]) : f[a];
              mx[a] = any ? std::max(mx[a], f[a]) : f[a];
            }
            any = true;
          }
          CompactBatch& box = out->batches[b];
          for (int a = 0; a < 3; ++a) {
            box.lo[a] = mn[a];
            // |coordinates| <= 1e30, so the extent is finite.
            box.scale[a] = (mx[a] - mn[a]) / float(kCompactMaxQ);
          }
          for (size_t s = s0; s < s1; ++s) {
            const Float3& v = at(s);
            if (!valid_point(v)) {
              out->words[s] = kCompactInvalid;
              continue;
            }
            const float f[3] = {v.x, v.y, v.z};
            uint32_t w = 0;
            for (int a = 0; a < 3; ++a) {
              uint32_t q = 0;
              if (box.scale[a] > 0.0f) {
                // Nearest of the decoder's steps: try floor and floor + 1 of the exact quotient,
                // decoded exactly as compact_decode() does.
                const double t = (double(f[a]) - double(box.lo[a])) / double(box.scale[a]);
                const uint32_t q0 = uint32_t(std::clamp(std::floor(t), 0.0, double(kCompactMaxQ)));
                q = q0;
                float best = std::fabs(box.lo[a] + float(q0) * box.scale[a] - f[a]);
                for (uint32_t cand : {q0 + 1u, q0 > 0 ? q0 - 1u : q0}) {
                  if (cand > kCompactMaxQ) continue;
                  const float err = std::fabs(box.lo[a] + float(cand) * box.scale[a] - f[a]);
                  if (err < best) {
                    best = err;
                    q = cand;
                  }
                }
              }
              w |= q << (kCompactBits * a);
            }
            out->words[s] = w;
          }
        }
      },
      0, 16);
  return true;
}

PointCloud decode_compact(const CompactCloud& c, const PointCloud& source) {
  PointCloud d;
  d.name = source.name;
  d.origin = source.origin;
  const size_t n = c.size();
  d.resize(n);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (size_t s = 0; s < n; ++s) {
    const size_t j = c.orig.empty() ? s : c.orig[s];
    Float3 v;
    if (!compact_decode(c.batches[s / kCompactBatch], c.words[s], v.x, v.y, v.z))
      v = Float3{nan, nan, nan};
    d.positions[j] = v;
    d.colors[j] = j < source.colors.size() ? source.colors[j] : 0u;
  }
  return d;
}

}  // namespace pr
