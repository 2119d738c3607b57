// The multi-threaded CPU rasterizer: the same projection (projection.h) and the same
// visibility-buffer depth test as the CUDA renderer, with std::atomic_ref compare-exchange in place
// of atomicMin, so both produce identical images.
#pragma once

#include <vector>

#include "engine/renderer.h"

namespace pr {

/// Side of the CPU renderer's occupancy tiles, in pixels.
constexpr int kTile = 8;

class CpuRenderer final : public Renderer {
 public:
  explicit CpuRenderer(unsigned threads = 0);
  std::string name() const override { return "cpu"; }
  bool set_cloud(const PointCloud& cloud, std::string* error) override;
  bool render(const Camera& camera, const RenderSettings& settings, Image& out, FrameStats& stats,
              std::string* error) override;
  size_t memory_bytes() const override {
    return keys_.capacity() * sizeof(uint64_t) + tile_dirty_.capacity();
  }
  unsigned threads() const { return threads_; }

  /// The visibility buffer of the last frame (W*H keys, kEmptyKey where empty). For tests.
  const std::vector<uint64_t>& keys() const { return keys_; }

 private:
  unsigned threads_;
  const PointCloud* cloud_ = nullptr;
  // The visibility buffer, kept all-empty between frames: the resolve pass resets every pixel it
  // reads, so there is no separate clear pass.
  std::vector<uint64_t> keys_;
  // One flag per kTile x kTile screen tile: set when a point lands in it. The resolve pass fills
  // untouched tiles with the background without reading their keys, so a frame costs in
  // proportion to the covered area (most of the seed's cube lies outside its narrow view).
  std::vector<uint8_t> tile_dirty_;
  int tiles_x_ = 0, tiles_y_ = 0, keys_w_ = 0, keys_h_ = 0;
};

/// Resolves one visibility-buffer key to a pixel color: the winning point's color, or the
/// background. Shared by the CPU resolve and the tests.
inline uint32_t resolve_key(uint64_t key, const uint32_t* colors, uint32_t background) {
  return key == kEmptyKey ? background : colors[key_index(key)];
}

}  // namespace pr
