#include "engine/culling.h"

#include <algorithm>

#include "engine/morton.h"
#include "engine/parallel.h"

namespace pr {

void compute_point_boxes(const Float3* pos, size_t n, PodVector<PointBox>* out) {
  const size_t batches = (n + kPointBatch - 1) / kPointBatch;
  out->resize(batches);
  PointBox* boxes = out->data();
  parallel_for(
      batches,
      [&](size_t b0, size_t b1) {
        for (size_t b = b0; b < b1; ++b) {
          PointBox box = empty_point_box();
          const size_t s1 = std::min(n, (b + 1) * size_t(kPointBatch));
          for (size_t s = b * kPointBatch; s < s1; ++s) {
            const Float3 v = pos[s];
            if (box_point(v.x, v.y, v.z)) box_grow(box, v.x, v.y, v.z);
          }
          boxes[b] = box;
        }
      },
      0, 16);
}

void front_to_back_orders(const PointBox* boxes, size_t n, PodVector<uint32_t>* out) {
  out->resize(8 * n);
  if (n == 0) return;
  Bounds all;
  for (size_t i = 0; i < n; ++i) {
    if (!(boxes[i].lo[0] <= boxes[i].hi[0])) continue;
    all.extend(glm::dvec3(boxes[i].lo[0], boxes[i].lo[1], boxes[i].lo[2]));
    all.extend(glm::dvec3(boxes[i].hi[0], boxes[i].hi[1], boxes[i].hi[2]));
  }
  const MortonBox mb = morton_box(all);
  PodVector<uint32_t> codes(n);
  for (size_t i = 0; i < n; ++i) {
    const PointBox& b = boxes[i];
    if (!(b.lo[0] <= b.hi[0])) {
      codes[i] = 0xffffffffu;  // after every real code, whatever the octant
      continue;
    }
    codes[i] = morton_code_of(mb, 0.5f * b.lo[0] + 0.5f * b.hi[0], 0.5f * b.lo[1] + 0.5f * b.hi[1],
                              0.5f * b.lo[2] + 0.5f * b.hi[2]);
  }
  parallel_for(
      8,
      [&](size_t o0, size_t o1) {
        for (size_t o = o0; o < o1; ++o) {
          // The octant's bits at every level of the 30-bit code.
          const uint32_t mask = (o & 1 ? morton_spread10(0x3ffu) : 0u) |
                                (o & 2 ? morton_spread10(0x3ffu) << 1 : 0u) |
                                (o & 4 ? morton_spread10(0x3ffu) << 2 : 0u);
          uint32_t* order = out->data() + o * n;
          for (size_t i = 0; i < n; ++i) order[i] = uint32_t(i);
          auto key = [&](uint32_t i) {
            return codes[i] == 0xffffffffu ? codes[i] : codes[i] ^ mask;
          };
          std::stable_sort(order, order + n,
                           [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
        }
      },
      0, 1);
}

}  // namespace pr
