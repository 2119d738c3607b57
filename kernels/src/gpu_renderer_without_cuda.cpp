// The GPU renderer factory of a build without CUDA (nvcc not found, or POINTRASTER_CUDA off):
// there is no GPU renderer, and every question answers why.
#include "kernels/gpu_renderer.h"

namespace pr {

namespace {
// PR_WITHOUT_CUDA_WHY: the configure step's reason (kernels/CMakeLists.txt).
constexpr const char* kWhy = "built without CUDA (" PR_WITHOUT_CUDA_WHY ")";
}  // namespace

bool gpu_renderer_available(std::string* why) {
  if (why) *why = kWhy;
  return false;
}

bool project_on_device(const DeviceProjection&, void** out, std::string* error) {
  *out = nullptr;
  if (error) *error = kWhy;
  return false;
}

void free_device_array(void*) {}

std::unique_ptr<GpuRenderer> make_gpu_renderer(std::string* why) {
  if (why) *why = kWhy;
  return nullptr;
}

}  // namespace pr
