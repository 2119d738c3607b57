// What the small CUDA benchmarks (bench/gpu/*.cu) share: the CUDA error check that names the
// program and the call, and the skip without a device (ctest's SKIP_RETURN_CODE 77).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdio>

namespace pr {

/// The exit status of a CUDA benchmark that found no CUDA device (ctest's SKIP_RETURN_CODE).
constexpr int kNoCudaDevice = 77;

/// True on success; otherwise prints "program: what: the CUDA error" to stderr.
inline bool cuda_ok(const char* program, cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "%s: %s: %s\n", program, what, cudaGetErrorString(e));
  return false;
}

/// Whether a CUDA device is present; if not, prints "program: skipped: no CUDA device".
inline bool cuda_device_present(const char* program) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) return true;
  std::printf("%s: skipped: no CUDA device\n", program);
  return false;
}

}  // namespace pr
