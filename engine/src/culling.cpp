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

bool parse_occlusion_mode(const std::string& text, OcclusionMode* mode) {
  if (text == "off" || text == "0")
    *mode = OcclusionMode::kOff;
  else if (text == "auto")
    *mode = OcclusionMode::kAuto;
  else if (text == "on" || text == "1")
    *mode = OcclusionMode::kOn;
  else
    return false;
  return true;
}

void build_hiz(const uint64_t* keys, int width, int height, uint32_t* words) {
  HizView v;
  v.width = width;
  v.height = height;
  const size_t l0 = v.level_words(0);
  std::fill(words, words + v.total_words(), 0u);
  const int tx = v.tiles_x(0), tx1 = v.tiles_x(1);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const uint32_t d = uint32_t(keys[size_t(y) * size_t(width) + size_t(x)] >> 32);
      uint32_t& w0 = words[size_t(y / kHizTile) * size_t(tx) + size_t(x / kHizTile)];
      uint32_t& w1 = words[l0 + size_t(y / kHizTile1) * size_t(tx1) + size_t(x / kHizTile1)];
      w0 = std::max(w0, d);
      w1 = std::max(w1, d);
    }
}

}  // namespace pr
