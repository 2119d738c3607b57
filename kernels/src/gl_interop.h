// CUDA-OpenGL interop: a GL pixel buffer object registered with CUDA, mapped for a frame so that
// the resolve writes the image straight into it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace pr::cuda {

class GlBuffer {
 public:
  GlBuffer() = default;
  ~GlBuffer() { unregister(); }
  GlBuffer(const GlBuffer&) = delete;
  GlBuffer& operator=(const GlBuffer&) = delete;

  /// Registers GL buffer `gl_buffer` of width x height RGBA8 pixels (write-discard). False with
  /// the reason when the GL context is not on the current CUDA device (Mesa, another GPU) or the
  /// registration fails.
  bool register_buffer(unsigned int gl_buffer, int width, int height, std::string* why);
  void unregister();
  bool registered() const { return resource_ != nullptr; }
  int width() const { return width_; }
  int height() const { return height_; }

  /// Maps the buffer on `stream` for a frame of `pixels` pixels: its device pointer. False with a
  /// message when the mapping fails or the buffer is too small (then it is unmapped again).
  bool map(cudaStream_t stream, size_t pixels, uint32_t** out, std::string* error);
  /// Hands the buffer back to GL; call after every successful map(), whatever happened between.
  bool unmap(cudaStream_t stream, std::string* error);

 private:
  cudaGraphicsResource_t resource_ = nullptr;
  int width_ = 0, height_ = 0;
};

}  // namespace pr::cuda
