// The OpenGL GL_POINTS baseline: what a user would write with the GPU's own
// rasterizer. The cloud goes into one vertex buffer (float xyz + RGBA8, 16 bytes a point), a
// vertex shader does the renderers' perspective projection (projection.h: c = R (v - shift),
// x*focus/z, near-plane culling, the same pixel mapping) and the fixed-function pipeline draws
// one-pixel points with a depth test into an offscreen framebuffer (RGBA8 + 32-bit float depth). No
// GL types here.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/camera.h"
#include "engine/image.h"
#include "engine/point_cloud.h"

namespace pr {

class GlPoints {
 public:
  /// Opens a hidden SDL2 window with an OpenGL 3.3 core context (SDL_VIDEODRIVER=offscreen on a
  /// headless NVIDIA machine, Xvfb + Mesa elsewhere). Null with the reason when there is no GL.
  static std::unique_ptr<GlPoints> create(std::string* why);
  ~GlPoints();
  GlPoints(const GlPoints&) = delete;
  GlPoints& operator=(const GlPoints&) = delete;

  /// "NVIDIA H200/PCIe/SSE2, 3.3.0 NVIDIA 580..." (GL_RENDERER, GL_VERSION).
  std::string renderer_name() const { return name_; }

  /// Uploads the cloud into one interleaved vertex buffer (in chunks, so the host needs no second
  /// copy of the cloud). False with a message when GL cannot hold it.
  bool set_cloud(const PointCloud& cloud, std::string* error);
  size_t memory_bytes() const { return vbo_bytes_; }

  /// Draws one frame of width x height (clear + draw). `gpu_ms` is the GL timer query's time of
  /// the clear and the draw; `wall_ms` the host time from the first call to glFinish's return.
  bool render(const Camera& camera, int width, int height, double& gpu_ms, double& wall_ms,
              std::string* error);
  /// Reads the last frame back (top row first, like pr::Image).
  bool read_image(Image& out, std::string* error);

 private:
  GlPoints() = default;
  bool ensure_target(int width, int height, std::string* error);

  void* window_ = nullptr;   // SDL_Window*
  void* context_ = nullptr;  // SDL_GLContext
  std::string name_;
  unsigned program_ = 0, vao_ = 0, vbo_ = 0, fbo_ = 0, color_rb_ = 0, depth_rb_ = 0, query_ = 0;
  int loc_r0_ = -1, loc_r1_ = -1, loc_r2_ = -1, loc_shift_ = -1, loc_proj_ = -1, loc_size_ = -1;
  int fb_w_ = 0, fb_h_ = 0;
  size_t vbo_bytes_ = 0;
  uint64_t points_ = 0;
  const PointCloud* cloud_ = nullptr;
  Bounds bounds_;  // of the cloud's local positions, for the depth range
};

}  // namespace pr
