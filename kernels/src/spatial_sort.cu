// Upload-time spatial reordering: the points are sorted along a Morton (Z-order) curve once, in
// set_cloud(), so that a warp's consecutive points land on nearby pixels whatever order the file
// or generator gave them in. The raster kernels then read the 64-bit visibility buffer coherently
// (a few cache lines a warp instead of 32 random ones). The image does not change: the key's tie
// rule (depth, then color) does not depend on where a point is stored.
#include <cub/device/device_radix_sort.cuh>

#include "engine/compact.h"
#include "engine/morton.h"
#include "raster.h"

namespace pr::cuda {

namespace {

constexpr int kThreads = 256;

/// Each point's Morton code, by the host's own function (engine/morton.h: double precision,
/// invalid points last), and the identity index.
__global__ void morton_codes(const Float3* __restrict__ pos, uint64_t n, MortonBox b,
                             uint32_t* __restrict__ codes, uint32_t* __restrict__ index) {
  const uint64_t i = uint64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= n) return;
  const Float3 v = pos[i];
  codes[i] = morton_code_of(b, v.x, v.y, v.z);
  index[i] = uint32_t(i);
}

/// One block per batch of kCompactBatch stored points (stored point s is source point order[s],
/// or s without an order): the batch's box from the minimum and maximum of its valid points, then
/// each point's word, with the host encoder's functions (engine/compact.h), so the words and boxes
/// equal build_compact()'s. Minimum and maximum are exact in any order (zeros unsigned first).
__global__ void __launch_bounds__(kThreads)
    encode_compact(const Float3* __restrict__ pos, const uint32_t* __restrict__ order, uint64_t n,
                   uint32_t* __restrict__ words, CompactBatch* __restrict__ batches) {
  __shared__ float smn[3][kThreads], smx[3][kThreads];
  __shared__ int sany[kThreads];
  __shared__ CompactBatch box;
  const uint64_t s0 = uint64_t(blockIdx.x) * kCompactBatch;
  const uint64_t s1 = s0 + kCompactBatch < n ? s0 + kCompactBatch : n;
  float mn[3] = {0, 0, 0}, mx[3] = {0, 0, 0};
  bool any = false;
  for (uint64_t s = s0 + threadIdx.x; s < s1; s += kThreads) {
    const Float3 v = pos[order ? order[s] : s];
    if (!compact_valid(v.x, v.y, v.z)) continue;
    const float f[3] = {compact_unsign_zero(v.x), compact_unsign_zero(v.y),
                        compact_unsign_zero(v.z)};
    for (int a = 0; a < 3; ++a) {
      mn[a] = any ? fminf(mn[a], f[a]) : f[a];
      mx[a] = any ? fmaxf(mx[a], f[a]) : f[a];
    }
    any = true;
  }
  for (int a = 0; a < 3; ++a) {
    smn[a][threadIdx.x] = mn[a];
    smx[a][threadIdx.x] = mx[a];
  }
  sany[threadIdx.x] = any ? 1 : 0;
  __syncthreads();
  if (threadIdx.x == 0) {
    float bmn[3] = {0, 0, 0}, bmx[3] = {0, 0, 0};
    bool bany = false;
    for (int t = 0; t < kThreads; ++t) {
      if (!sany[t]) continue;
      for (int a = 0; a < 3; ++a) {
        bmn[a] = bany ? fminf(bmn[a], smn[a][t]) : smn[a][t];
        bmx[a] = bany ? fmaxf(bmx[a], smx[a][t]) : smx[a][t];
      }
      bany = true;
    }
    box = compact_box(bmn, bmx);
    batches[blockIdx.x] = box;
  }
  __syncthreads();
  const CompactBatch b = box;
  for (uint64_t s = s0 + threadIdx.x; s < s1; s += kThreads) {
    const Float3 v = pos[order ? order[s] : s];
    words[s] = compact_encode(b, v.x, v.y, v.z);
  }
}

/// One block per batch of kPointBatch stored points: the box of its finite points (box_point(),
/// box_grow(): the host's functions; minimum and maximum are exact in any order).
__global__ void __launch_bounds__(kThreads)
    point_boxes(const Float3* __restrict__ pos, uint64_t n, PointBox* __restrict__ boxes,
                uint64_t first_batch) {
  __shared__ PointBox part[kThreads / 32];
  const uint64_t batch = first_batch + blockIdx.x;
  const uint64_t s0 = batch * kPointBatch;
  const uint64_t s1 = s0 + kPointBatch < n ? s0 + kPointBatch : n;
  PointBox b = empty_point_box();
  for (uint64_t s = s0 + threadIdx.x; s < s1; s += kThreads) {
    const Float3 v = pos[s];
    if (box_point(v.x, v.y, v.z)) box_grow(b, v.x, v.y, v.z);
  }
  for (int o = 16; o > 0; o >>= 1) {
    PointBox other;
    for (int a = 0; a < 3; ++a) {
      other.lo[a] = __shfl_down_sync(0xffffffffu, b.lo[a], o);
      other.hi[a] = __shfl_down_sync(0xffffffffu, b.hi[a], o);
    }
    box_grow(b, other);
  }
  if ((threadIdx.x & 31u) == 0) part[threadIdx.x / 32] = b;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kThreads / 32; ++w) box_grow(b, part[w]);
    boxes[batch] = b;
  }
}

template <class T>
__global__ void gather_kernel(const T* __restrict__ src, const uint32_t* __restrict__ order,
                              uint64_t n, T* __restrict__ dst) {
  const uint64_t i = uint64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= n) return;
  dst[i] = src[order[i]];
}

/// Word j of the packed colors (raster.h, load_rgb()): bytes 4j .. 4j + 3, each a channel of
/// point byte / 3 (channel byte % 3), zero past the last point.
__global__ void pack_rgb_kernel(const uint32_t* __restrict__ src,
                                const uint32_t* __restrict__ order, uint64_t n, uint64_t words,
                                uint32_t* __restrict__ dst) {
  const uint64_t j = uint64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (j >= words) return;
  uint32_t out = 0;
  uint64_t loaded = ~uint64_t{0};
  uint32_t c = 0;
  for (uint32_t k = 0; k < 4; ++k) {
    const uint64_t byte = 4 * j + k;
    const uint64_t i = byte / 3;
    if (i >= n) break;
    if (i != loaded) {
      c = src[order ? order[i] : i];
      loaded = i;
    }
    out |= ((c >> (8 * uint32_t(byte % 3))) & 0xffu) << (8 * k);
  }
  dst[j] = out;
}

}  // namespace

cudaError_t pack_rgb(const uint32_t* src, const uint32_t* order, uint64_t n, uint32_t* dst,
                     cudaStream_t stream) {
  const uint64_t words = rgb_words(n);
  if (words == 0) return cudaSuccess;
  pack_rgb_kernel<<<unsigned((words + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      src, order, n, words, dst);
  return cudaGetLastError();
}

template <class T>
cudaError_t gather(const T* src, const uint32_t* order, uint64_t n, T* dst, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  gather_kernel<T>
      <<<unsigned((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(src, order, n, dst);
  return cudaGetLastError();
}
template cudaError_t gather<Float3>(const Float3*, const uint32_t*, uint64_t, Float3*,
                                    cudaStream_t);

cudaError_t encode_compact(const Float3* pos, const uint32_t* order, uint64_t n, uint32_t* words,
                           CompactBatch* batches, cudaStream_t stream) {
  const uint64_t nb = (n + kCompactBatch - 1) / kCompactBatch;
  if (nb == 0) return cudaSuccess;
  encode_compact<<<unsigned(nb), kThreads, 0, stream>>>(pos, order, n, words, batches);
  return cudaGetLastError();
}

cudaError_t compute_boxes(const Float3* pos, uint64_t n, PointBox* boxes, cudaStream_t stream,
                          uint64_t first_batch, uint64_t batches) {
  const uint64_t all = (n + kPointBatch - 1) / kPointBatch;
  if (first_batch >= all) return cudaSuccess;
  const uint64_t nb = batches < all - first_batch ? batches : all - first_batch;
  if (nb == 0) return cudaSuccess;
  point_boxes<<<unsigned(nb), kThreads, 0, stream>>>(pos, n, boxes, first_batch);
  return cudaGetLastError();
}

cudaError_t morton_order(const Float3* src, uint32_t* order, uint64_t n, const MortonBox& b,
                         cudaStream_t stream, std::string* what) {
  if (n == 0) return cudaSuccess;
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
