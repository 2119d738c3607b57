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

void build_hiz(const uint64_t* keys, int width, int height, uint32_t* words,
               const HizOccupancy& occupancy, unsigned threads) {
  HizView v;
  v.width = width;
  v.height = height;
  uint32_t* l0 = words;
  uint32_t* l1 = words + v.level_words(0);
  const int tx0 = v.tiles_x(0), ty0 = v.tiles_y(0), tx1 = v.tiles_x(1);
  const HizOccupancy& occ = occupancy;
  static_assert(kHizTile1 % kHizTile == 0);
  // A row of level-1 tiles at a time: its level-0 tiles, then their maxima.
  parallel_for(
      size_t(v.tiles_y(1)),
      [&](size_t r0, size_t r1) {
        for (size_t r = r0; r < r1; ++r) {
          const int ty_begin = int(r) * (kHizTile1 / kHizTile);
          const int ty_end = std::min(ty0, ty_begin + kHizTile1 / kHizTile);
          for (int i = 0; i < tx1; ++i) l1[r * size_t(tx1) + size_t(i)] = 0;
          for (int ty = ty_begin; ty < ty_end; ++ty)
            for (int tx = 0; tx < tx0; ++tx) {
              const int x0 = tx * kHizTile, x1 = std::min(width, x0 + kHizTile);
              const int y0 = ty * kHizTile, y1 = std::min(height, y0 + kHizTile);
              // No key in the tile's occupancy tiles: its keys are all empty.
              bool any = occ.flags == nullptr;
              if (!any) {
                const int cx1 = std::min(occ.tiles_x - 1, (x1 - 1) / occ.tile);
                const int cy1 = std::min(occ.tiles_y - 1, (y1 - 1) / occ.tile);
                for (int cy = y0 / occ.tile; cy <= cy1; ++cy)
                  for (int cx = x0 / occ.tile; cx <= cx1; ++cx)
                    any = any || occ.flags[size_t(cy) * size_t(occ.tiles_x) + size_t(cx)];
              }
              uint32_t m = 0xffffffffu;
              if (any) {
                m = 0;
                for (int y = y0; y < y1; ++y)
                  for (int x = x0; x < x1; ++x)
                    m = std::max(m, uint32_t(keys[size_t(y) * size_t(width) + size_t(x)] >> 32));
              }
              l0[size_t(ty) * size_t(tx0) + size_t(tx)] = m;
              uint32_t& w1 = l1[r * size_t(tx1) + size_t(tx * kHizTile / kHizTile1)];
              w1 = std::max(w1, m);
            }
        }
      },
      threads, 1);
}

}  // namespace pr
