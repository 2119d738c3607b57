// The CPU renderer's frame internals (engine/src/cpu_renderer.cpp): where a frame's depth tests
// write, and the entries of the sort-middle binning.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "engine/projection.h"

namespace pr {

/// Side of the CPU renderer's occupancy tiles, in pixels.
constexpr int kTile = 8;

namespace cpu_detail {

/// What a frame's depth tests write: the keys and the occupancy tiles (for the binning's point
/// sinks in cpu_renderer.cpp).
struct FrameTarget {
  FrameTarget(const ProjParams* pp, uint64_t* k, uint8_t* d, int w, int h, size_t tx)
      : p(pp),
        keys(k),
        dirty(d),
        width(uint32_t(w)),
        pixels(size_t(w) * size_t(h)),
        tiles_x(tx),
        recip(((uint64_t{1} << 32) + uint32_t(w) - 1) / uint32_t(w)) {}
  const ProjParams* p;  // the frame's projection (splat_rect())
  uint64_t* keys;
  uint8_t* dirty;
  uint32_t width;
  size_t pixels, tiles_x;
  uint64_t recip;  // ceil(2^32 / width): pixel / width by a multiply
  /// Points handed to the depth test (their pixel is in the image; splats not counted).
  mutable std::atomic<uint64_t> drawn{0};
  /// Marks the occupancy tile of pixel (x, y) (a relaxed atomic store: neighbouring bands and
  /// threads may mark the same tile).
  void mark(uint32_t x, uint32_t y) const {
    std::atomic_ref<uint8_t>(dirty[size_t(y / kTile) * tiles_x + x / kTile])
        .store(1, std::memory_order_relaxed);
  }
  /// The same for pixel index `pix` (y * width + x).
  void mark(uint32_t pix) const {
    // (pix * recip) >> 32 is pix / width or one more (recip exceeds 2^32 / width by less than
    // one, and pix < 2^32).
    uint32_t y = uint32_t((uint64_t(pix) * recip) >> 32);
    if (uint64_t(y) * width > pix) --y;
    mark(pix - y * width, y);
  }
};

/// A binned point: its key and pixel, packed into 12 bytes (the bins are written and read once
/// a frame: a quarter less memory traffic than 16).
struct __attribute__((packed)) BinEntry {
  uint64_t key;
  uint32_t pix;
};

}  // namespace cpu_detail
}  // namespace pr
