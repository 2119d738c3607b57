// Building the compact form (engine/compact.h): optional Morton order, per-batch boxes, 10-bit
// offsets chosen as the nearest of the decoder's own 1024 steps.
#include "engine/compact.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "engine/compact_testing.h"
#include "engine/morton.h"
#include "engine/parallel.h"

namespace pr {

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
            if (!compact_valid(v.x, v.y, v.z)) continue;
            const float f[3] = {compact_unsign_zero(v.x), compact_unsign_zero(v.y),
                                compact_unsign_zero(v.z)};
            for (int a = 0; a < 3; ++a) {
              mn[a] = any ? std::min(mn[a], f[a]) : f[a];
              mx[a] = any ? std::max(mx[a], f[a]) : f[a];
            }
            any = true;
          }
          const CompactBatch box = compact_box(mn, mx);
          out->batches[b] = box;
          for (size_t s = s0; s < s1; ++s) {
            const Float3& v = at(s);
            out->words[s] = compact_encode(box, v.x, v.y, v.z);
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
