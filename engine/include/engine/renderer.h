// The renderer interface that both the multi-threaded CPU rasterizer (engine/) and the CUDA
// rasterizer (kernels/) implement. No GL or CUDA types appear here.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine/camera.h"
#include "engine/frame_stats.h"
#include "engine/image.h"
#include "engine/point_cloud.h"

namespace pr {

struct RenderSettings {
  int width = 1280;
  int height = 720;
  int point_size = 1;                   ///< square splat side in pixels, >= 1
  uint32_t background = rgba(0, 0, 0);  ///< RGBA8 of empty pixels
  uint64_t point_count = ~uint64_t{0};  ///< points to draw (an even subset when < cloud size)
  bool want_depth = false;              ///< also fill Image::depth
};

class Renderer {
 public:
  virtual ~Renderer() = default;
  /// "cpu", "gpu".
  virtual std::string name() const = 0;
  /// Takes the cloud to draw (the GPU renderer uploads it here, once). The cloud must outlive the
  /// renderer's use of it or the next set_cloud(). Returns false with a message when it cannot
  /// (out of device memory, say); the renderer then draws nothing until a cloud is accepted.
  virtual bool set_cloud(const PointCloud& cloud, std::string* error) = 0;
  /// Renders one frame into `out` (host memory; resized as needed). Returns false with a message
  /// on failure.
  virtual bool render(const Camera& camera, const RenderSettings& settings, Image& out,
                      FrameStats& stats, std::string* error) = 0;
  /// Bytes this renderer holds for the cloud and framebuffers (device memory for the GPU).
  virtual size_t memory_bytes() const = 0;
};

/// The multi-threaded CPU rasterizer; threads = 0 means all hardware threads.
std::unique_ptr<Renderer> make_cpu_renderer(unsigned threads = 0);

/// The start every render() shares: resets `stats`, refuses a negative size (kError with
/// "negative image size"), sizes `out` for the frame (with depth when asked for). kEmpty: the
/// image has no pixel (a minimized window), which is no error, just nothing to draw.
enum class FrameStart { kDraw, kEmpty, kError };
FrameStart begin_frame(const RenderSettings& settings, Image& out, FrameStats& stats,
                       std::string* error);

/// Points to draw for a cloud of `total` points when `requested` are asked for.
inline uint64_t effective_count(uint64_t total, uint64_t requested) {
  return requested < total ? requested : total;
}

}  // namespace pr
