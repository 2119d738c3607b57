// Upload-time spatial reordering: the points are sorted along a Morton (Z-order) curve once, in
// set_cloud(), so that a warp's consecutive points land on nearby pixels whatever order the file
// or generator gave them in. The raster kernels then read the 64-bit visibility buffer coherently
// (a few cache lines a warp instead of 32 random ones). The image does not change: the key's tie
// rule (depth, then color) does not depend on where a point is stored.
#include <cub/device/device_radix_sort.cuh>

#include "engine/morton.h"
#include "raster.h"

namespace pr::cuda {

namespace {

constexpr int kThreads = 256;

struct Box {
  float lo[3], inv[3];
};

/// 30-bit Morton code of each point in the box (NaN and points outside clamp to the box's
/// faces: the order only affects speed, never the image) and the identity index.
__global__ void morton_codes(const Float3* __restrict__ pos, uint64_t n, Box b,
                             uint32_t* __restrict__ codes, uint32_t* __restrict__ index) {
  const uint64_t i = uint64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= n) return;
  const Float3 v = pos[i];
  auto q = [](float x, float lo, float inv) {
    const float t = (x - lo) * inv * 1023.0f;
    return uint32_t(t >= 0.0f ? (t <= 1023.0f ? t : 1023.0f) : 0.0f);  // NaN -> 0
  };
  codes[i] =
      morton_code(q(v.x, b.lo[0], b.inv[0]), q(v.y, b.lo[1], b.inv[1]), q(v.z, b.lo[2], b.inv[2]));
  index[i] = uint32_t(i);
}

template <class T>
__global__ void gather_kernel(const T* __restrict__ src, const uint32_t* __restrict__ order,
                              uint64_t n, T* __restrict__ dst) {
  const uint64_t i = uint64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= n) return;
  dst[i] = src[order[i]];
}

}  // namespace

template <class T>
cudaError_t gather(const T* src, const uint32_t* order, uint64_t n, T* dst, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  gather_kernel<T>
      <<<unsigned((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(src, order, n, dst);
  return cudaGetLastError();
}
template cudaError_t gather<Float3>(const Float3*, const uint32_t*, uint64_t, Float3*,
                                    cudaStream_t);
template cudaError_t gather<uint32_t>(const uint32_t*, const uint32_t*, uint64_t, uint32_t*,
                                      cudaStream_t);

cudaError_t morton_order(const Float3* src, uint32_t* order, uint64_t n, const float lo[3],
                         const float hi[3], cudaStream_t stream, std::string* what) {
  if (n == 0) return cudaSuccess;
  Box b{};
  for (int a = 0; a < 3; ++a) {
    const float ext = hi[a] - lo[a];
    b.lo[a] = lo[a];
    b.inv[a] = ext > 0.0f ? 1.0f / ext : 0.0f;
  }
  uint32_t *codes = nullptr, *codes_alt = nullptr, *index = nullptr;
  void* temp = nullptr;
  size_t temp_bytes = 0;
  cudaError_t e = cudaSuccess;
  auto step = [&](cudaError_t r, const char* call) {
    if (e == cudaSuccess && r != cudaSuccess) {
      e = r;
      if (what) *what = call;
    }
    return e == cudaSuccess;
  };
  const unsigned blocks = unsigned((n + kThreads - 1) / kThreads);
  if (step(cudaMalloc(reinterpret_cast<void**>(&codes), n * 4), "cudaMalloc(codes)") &&
      step(cudaMalloc(reinterpret_cast<void**>(&codes_alt), n * 4), "cudaMalloc(codes_alt)") &&
      step(cudaMalloc(reinterpret_cast<void**>(&index), n * 4), "cudaMalloc(index)")) {
    morton_codes<<<blocks, kThreads, 0, stream>>>(src, n, b, codes, index);
    step(cudaGetLastError(), "morton_codes<<<>>>");
  }
  cub::DoubleBuffer<uint32_t> keys(codes, codes_alt), vals(index, order);
  if (e == cudaSuccess &&
      step(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys, vals, n, 0, 30, stream),
           "cub::DeviceRadixSort::SortPairs(size)") &&
      step(cudaMalloc(&temp, temp_bytes), "cudaMalloc(sort temp)") &&
      step(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys, vals, n, 0, 30, stream),
           "cub::DeviceRadixSort::SortPairs")) {
    if (vals.Current() != order)
      step(cudaMemcpyAsync(order, vals.Current(), n * 4, cudaMemcpyDeviceToDevice, stream),
           "cudaMemcpyAsync(order)");
  }
  step(cudaStreamSynchronize(stream), "cudaStreamSynchronize(sort)");
  if (e != cudaSuccess) (void)cudaGetLastError();
  cudaFree(temp);
  cudaFree(codes);
  cudaFree(codes_alt);
  cudaFree(index);
  return e;
}

}  // namespace pr::cuda
