// The GPU renderer factory of a build with CUDA: the CUDA renderer (cuda_renderer.cu).
#include "kernels/cuda_renderer.h"
#include "kernels/gpu_renderer.h"

namespace pr {

bool gpu_renderer_available(std::string* why) {
  return cuda_available(why);
}

std::unique_ptr<GpuRenderer> make_gpu_renderer(std::string* why) {
  return make_cuda_renderer(why);
}

}  // namespace pr
