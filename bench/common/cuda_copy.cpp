#include "cuda_copy.h"

#include <cuda_runtime_api.h>

#include <vector>

#include "bench_util.h"

namespace pr {

bool measure_copy_bandwidth(double& bytes_per_second, std::string* error) {
  bytes_per_second = 0.0;
  const size_t bytes = size_t(1) << 31;
  void* a = nullptr;
  void* b = nullptr;
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  std::vector<double> ms;
  auto fail = [&](const char* what, cudaError_t e) {
    if (error) *error = std::string(what) + ": " + cudaGetErrorString(e);
    return false;
  };
  bool ok = true;
  cudaError_t e = cudaMalloc(&a, bytes);
  if (e != cudaSuccess) ok = fail("cudaMalloc (copy source, 2 GiB)", e);
  if (ok && (e = cudaMalloc(&b, bytes)) != cudaSuccess) ok = fail("cudaMalloc (copy target)", e);
  // Non-zero data: the copy engine must not see a page it can skip.
  if (ok && (e = cudaMemset(a, 0x5a, bytes)) != cudaSuccess) ok = fail("cudaMemset", e);
  if (ok && (e = cudaEventCreate(&e0)) != cudaSuccess) ok = fail("cudaEventCreate", e);
  if (ok && (e = cudaEventCreate(&e1)) != cudaSuccess) ok = fail("cudaEventCreate", e);
  for (int i = 0; ok && i < 13; ++i) {
    float t = 0.0f;
    if ((e = cudaEventRecord(e0)) != cudaSuccess ||
        (e = cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice)) != cudaSuccess ||
        (e = cudaEventRecord(e1)) != cudaSuccess || (e = cudaEventSynchronize(e1)) != cudaSuccess ||
        (e = cudaEventElapsedTime(&t, e0, e1)) != cudaSuccess) {
      ok = fail("timing cudaMemcpy device-to-device", e);
      break;
    }
    if (i >= 3) ms.push_back(double(t));  // the first copies warm up the pages and clocks
  }
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  cudaFree(a);
  cudaFree(b);
  (void)cudaGetLastError();
  if (!ok) return false;
  bytes_per_second = 2.0 * double(bytes) / (summarize(ms).median * 1e-3);
  return true;
}

}  // namespace pr
