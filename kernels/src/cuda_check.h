// Error handling of the host code's CUDA calls: every call is checked, and the message names it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <string>

namespace pr::cuda {

/// "cudaMalloc(&pos, bytes): cudaErrorMemoryAllocation (out of memory)". Also clears the
/// (non-sticky) last error so the next call does not see this one.
inline std::string cuda_message(const char* call, cudaError_t e) {
  (void)cudaGetLastError();
  return std::string(call) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
}

/// "1.50 GiB".
inline std::string gib(double bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f GiB", bytes / double(uint64_t{1} << 30));
  return b;
}

// In a function returning bool with a `std::string* error`: returns false with "CUDA: <call>:
// <error>" when the call fails.
#define PR_CUDA_TRY(call)                                                    \
  do {                                                                       \
    const cudaError_t pr_e_ = (call);                                        \
    if (pr_e_ != cudaSuccess) {                                              \
      if (error) *error = "CUDA: " + ::pr::cuda::cuda_message(#call, pr_e_); \
      return false;                                                          \
    }                                                                        \
  } while (0)

// For cleanup paths that cannot report: a line on stderr.
#define PR_CUDA_LOG(call)                                           \
  do {                                                              \
    const cudaError_t pr_e_ = (call);                               \
    if (pr_e_ != cudaSuccess)                                       \
      std::fprintf(stderr, "pointraster: CUDA: %s\n",               \
                   ::pr::cuda::cuda_message(#call, pr_e_).c_str()); \
  } while (0)

/// Frees a device allocation (logging a failure) and nulls the pointer.
template <class T>
void free_device(T*& p) {
  if (p) PR_CUDA_LOG(cudaFree(p));
  p = nullptr;
}

/// cudaMalloc of `count` elements of T into `p`.
template <class T>
cudaError_t malloc_device(T** p, uint64_t count) {
  return cudaMalloc(reinterpret_cast<void**>(p), count * sizeof(T));
}

}  // namespace pr::cuda
