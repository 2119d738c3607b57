#include "cpu_edl.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>

#include "engine/hq_splat.h"
#include "engine/parallel.h"

namespace pr {

void resolve_edl(uint64_t* keys, uint8_t* dirty, int width, int height, int tile, int tiles_x,
                 int tiles_y, const EdlParams& e, uint32_t background, uint64_t* acc,
                 uint32_t* rgba, float* depth, unsigned threads) {
  const size_t W = size_t(width), tx_n = size_t(tiles_x);
  const auto key_at = [keys, W](int x, int y) { return keys[size_t(y) * W + size_t(x)]; };
  // The neighbours as offsets in the buffer, and how far they reach.
  ptrdiff_t offset[kEdlMaxNeighbours] = {};
  size_t reach = 0;
  for (int i = 0; i < e.n; ++i) {
    offset[i] = ptrdiff_t(e.dy[i]) * ptrdiff_t(W) + ptrdiff_t(e.dx[i]);
    reach = std::max({reach, size_t(std::abs(e.dx[i])), size_t(std::abs(e.dy[i]))});
  }
  // Colors from the keys as they are, row by row (a pixel reads rows up to the radius away).
  parallel_for(
      size_t(height),
      [&](size_t y0, size_t y1) {
        for (size_t y = y0; y < y1; ++y) {
          const uint8_t* flags = dirty + (y / size_t(tile)) * tx_n;
          const size_t row = y * W;
          for (size_t tx = 0; tx < tx_n; ++tx) {
            const size_t x0 = tx * size_t(tile), x1 = std::min(W, x0 + size_t(tile));
            if (!flags[tx]) {
              std::fill(rgba + row + x0, rgba + row + x1, background);
              if (depth) std::fill(depth + row + x0, depth + row + x1, INFINITY);
              continue;
            }
            for (size_t x = x0; x < x1; ++x) {
              const uint64_t key = keys[row + x];
              if (key == kEmptyKey) {
                rgba[row + x] = background;
                if (depth) depth[row + x] = INFINITY;
                continue;
              }
              const size_t at = row + x;
              const uint32_t color =
                  acc ? hq_color(key, acc[2 * at], acc[2 * at + 1]) : key_color(key);
              if (x >= reach && x + reach < W && y >= reach && y + reach < size_t(height)) {
                // Inside the image by the radius: the neighbours by their offsets, no tests.
                const int32_t l = edl_log2_fixed(key);
                const uint64_t* k = keys + at;
                int64_t sum = 0;
                for (int i = 0; i < e.n; ++i) sum += edl_term(l, k[offset[i]]);
                rgba[at] = edl_apply(color, edl_shade_of_sum(e, sum));
              } else {
                rgba[at] =
                    edl_apply(color, edl_shade(e, int(x), int(y), width, height, key, key_at));
              }
              if (depth) depth[at] = key_depth(key);
            }
          }
        }
      },
      threads, 8);
  // Then the clear of the next frame: the flagged tiles' keys, and the flags.
  parallel_for(
      size_t(tiles_y),
      [&](size_t ty0, size_t ty1) {
        for (size_t ty = ty0; ty < ty1; ++ty) {
          uint8_t* flags = dirty + ty * tx_n;
          const size_t y0 = ty * size_t(tile), y1 = std::min(size_t(height), y0 + size_t(tile));
          for (size_t tx = 0; tx < tx_n; ++tx) {
            if (!flags[tx]) continue;
            const size_t x0 = tx * size_t(tile), x1 = std::min(W, x0 + size_t(tile));
            for (size_t y = y0; y < y1; ++y) {
              std::fill(keys + y * W + x0, keys + y * W + x1, kEmptyKey);
              if (acc) std::fill(acc + 2 * (y * W + x0), acc + 2 * (y * W + x1), uint64_t{0});
            }
          }
          std::fill(flags, flags + tx_n, uint8_t{0});
        }
      },
      threads, 1);
}

}  // namespace pr
