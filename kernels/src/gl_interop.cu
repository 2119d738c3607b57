// CUDA-OpenGL interop (gl_interop.h).
#include "gl_interop.h"
// cuda_gl_interop.h includes <GL/gl.h> for GLuint/GLenum; nothing else of GL is used here.
#include <cuda_gl_interop.h>

#include "cuda_check.h"

namespace pr::cuda {

bool GlBuffer::register_buffer(unsigned int gl_buffer, int width, int height, std::string* why) {
  unregister();
  // Interop needs the GL context on the CUDA device (not Mesa, not another GPU).
  unsigned int count = 0;
  int devices[8] = {};
  cudaError_t e = cudaGLGetDevices(&count, devices, 8, cudaGLDeviceListAll);
  if (e != cudaSuccess || count == 0) {
    if (why)
      *why = "the OpenGL context is not on a CUDA device" +
             (e != cudaSuccess ? " (" + cuda_message("cudaGLGetDevices", e) + ")" : std::string());
    (void)cudaGetLastError();
    return false;
  }
  int current = 0;
  if (cudaGetDevice(&current) != cudaSuccess) (void)cudaGetLastError();
  bool same = false;
  for (unsigned i = 0; i < count && i < 8; ++i) same = same || devices[i] == current;
  if (!same) {
    if (why)
      *why = "the OpenGL context runs on another GPU than CUDA device " + std::to_string(current);
    return false;
  }
  e = cudaGraphicsGLRegisterBuffer(&resource_, gl_buffer, cudaGraphicsRegisterFlagsWriteDiscard);
  if (e != cudaSuccess) {
    resource_ = nullptr;
    if (why) *why = "CUDA: " + cuda_message("cudaGraphicsGLRegisterBuffer", e);
    return false;
  }
  width_ = width;
  height_ = height;
  return true;
}

void GlBuffer::unregister() {
  if (resource_) PR_CUDA_LOG(cudaGraphicsUnregisterResource(resource_));
  resource_ = nullptr;
  width_ = height_ = 0;
}

bool GlBuffer::map(cudaStream_t stream, size_t pixels, uint32_t** out, std::string* error) {
  PR_CUDA_TRY(cudaGraphicsMapResources(1, &resource_, stream));
  void* ptr = nullptr;
  size_t bytes = 0;
  const cudaError_t e = cudaGraphicsResourceGetMappedPointer(&ptr, &bytes, resource_);
  std::string why;
  if (e != cudaSuccess)
    why = "CUDA: " + cuda_message("cudaGraphicsResourceGetMappedPointer", e);
  else if (bytes < pixels * sizeof(uint32_t))
    why = "render_to_gl: the GL buffer has " + std::to_string(bytes) + " bytes, the frame needs " +
          std::to_string(pixels * sizeof(uint32_t));
  if (why.empty()) {
    *out = static_cast<uint32_t*>(ptr);
    return true;
  }
  PR_CUDA_LOG(cudaGraphicsUnmapResources(1, &resource_, stream));
  if (error) *error = why;
  return false;
}

bool GlBuffer::unmap(cudaStream_t stream, std::string* error) {
  PR_CUDA_TRY(cudaGraphicsUnmapResources(1, &resource_, stream));
  return true;
}

}  // namespace pr::cuda
