#include "engine/culling.h"

#include <algorithm>

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

}  // namespace pr
