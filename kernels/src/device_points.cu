// A cloud that already lies in device memory (GpuRenderer::set_device_points(),
// kernels/gpu_renderer.h): its bounds, and its positions and colors copied device to device into
// DeviceCloud's storage with the same conversions the host applies to host arrays
// (python/src/cloud_arrays.cpp: doubles less the origin in double then rounded to float, float
// colors scaled by 255 and rounded), then stored as a host cloud is: sorted along the Morton curve
// when wants_spatial_sort() would sort it, compact when asked, colored by a position's recipe
// when it has no colors.
#include <algorithm>
#include <cmath>
#include <vector>

#include "cuda_check.h"
#include "device_cloud.h"
#include "engine/morton.h"
#include "raster.h"

namespace pr::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kBoundsBlocks = 1024;

/// DevicePointArrays as the kernels take it (plain values, no GLM types).
struct Layout {
  int64_t point_stride, coord_stride;
  uint64_t count;
  double origin[3];
  bool zero_origin;
  int64_t color_point_stride, color_channel_stride;
};

Layout layout_of(const DevicePointArrays& d) {
  return Layout{d.point_stride,
                d.coord_stride,
                d.count,
                {d.origin.x, d.origin.y, d.origin.z},
                d.origin.x == 0.0 && d.origin.y == 0.0 && d.origin.z == 0.0,
                d.color_point_stride,
                d.color_channel_stride};
}

template <class T>
__device__ __forceinline__ double coord(const T* xyz, const Layout& d, uint64_t i, int k) {
  return double(xyz[int64_t(i) * d.point_stride + k * d.coord_stride]);
}

/// Point i's position as positions_kernel() stores it (less the origin, rounded to float).
template <class T>
__device__ __forceinline__ Float3 stored_position(const T* xyz, const Layout& d, uint64_t i) {
  if constexpr (sizeof(T) == sizeof(float)) {
    if (d.zero_origin) {
      const T* r = xyz + int64_t(i) * d.point_stride;
      return Float3{r[0], r[d.coord_stride], r[2 * d.coord_stride]};
    }
  }
  return Float3{float(coord(xyz, d, i, 0) - d.origin[0]), float(coord(xyz, d, i, 1) - d.origin[1]),
                float(coord(xyz, d, i, 2) - d.origin[2])};
}

/// Each block's bounds of the finite points of a grid-stride share, six doubles a block (min xyz,
/// max xyz), reduced in shared memory: of the positions as given, or `as_stored` of the stored
/// float positions (stored_position()).
template <class T>
__global__ void bounds_kernel(const T* __restrict__ xyz, Layout d, bool as_stored, double* out) {
  __shared__ double lo[3][kThreads], hi[3][kThreads];
  double l[3] = {INFINITY, INFINITY, INFINITY}, h[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (uint64_t i = uint64_t(blockIdx.x) * kThreads + threadIdx.x; i < d.count;
       i += uint64_t(gridDim.x) * kThreads) {
    double v[3] = {coord(xyz, d, i, 0), coord(xyz, d, i, 1), coord(xyz, d, i, 2)};
    if (as_stored) {
      const Float3 p = stored_position(xyz, d, i);
      v[0] = p.x, v[1] = p.y, v[2] = p.z;
    }
    if (!(isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]))) continue;
    for (int k = 0; k < 3; ++k) {
      l[k] = fmin(l[k], v[k]);
      h[k] = fmax(h[k], v[k]);
    }
  }
  for (int k = 0; k < 3; ++k) {
    lo[k][threadIdx.x] = l[k];
    hi[k][threadIdx.x] = h[k];
  }
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s /= 2) {
    if (int(threadIdx.x) < s)
      for (int k = 0; k < 3; ++k) {
        lo[k][threadIdx.x] = fmin(lo[k][threadIdx.x], lo[k][threadIdx.x + s]);
        hi[k][threadIdx.x] = fmax(hi[k][threadIdx.x], hi[k][threadIdx.x + s]);
      }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    for (int k = 0; k < 3; ++k) {
      out[6 * blockIdx.x + k] = lo[k][0];
      out[6 * blockIdx.x + 3 + k] = hi[k][0];
    }
}

/// Positions less the origin (doubles: in double, then rounded to float; floats: as given when
/// the origin is 0).
template <class T>
__global__ void positions_kernel(const T* __restrict__ xyz, Layout d, Float3* __restrict__ out) {
  const uint64_t i = uint64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= d.count) return;
  out[i] = stored_position(xyz, d, i);
}

template <class T>
__device__ __forceinline__ uint32_t channel(const T* c, const Layout& d, uint64_t i, int k) {
  const T v = c[int64_t(i) * d.color_point_stride + k * d.color_channel_stride];
  if constexpr (sizeof(T) == 1) {
    return v;
  } else {
    const double r = round(double(v) * 255.0);
    return uint32_t(r > 255.0 ? 255.0 : r > 0.0 ? r : 0.0);  // NaN: 0
  }
}

/// RGBA8 words (opaque) of the colors, or white without colors.
template <class T>
__global__ void colors_kernel(const T* __restrict__ c, Layout d, uint32_t* __restrict__ out) {
  const uint64_t i = uint64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= d.count) return;
  if (!c) {
    out[i] = 0xffffffffu;
    return;
  }
  out[i] =
      channel(c, d, i, 0) | (channel(c, d, i, 1) << 8) | (channel(c, d, i, 2) << 16) | 0xff000000u;
}

unsigned blocks_for(uint64_t n) {
  return unsigned((n + kThreads - 1) / kThreads);
}

/// order_coherence() of `n` device positions `pos` with local bounds `bounds`: the pairs it
/// samples gathered on the device and read back.
cudaError_t sampled_coherence(const Float3* pos, uint64_t n, const Bounds& bounds,
                              cudaStream_t stream, double* coherence, std::string* what) {
  const std::vector<uint64_t> at = coherence_sample_indices(n);
  std::vector<uint32_t> index(at.begin(), at.end());  // n < 2^32
  std::vector<Float3> sampled(index.size());
  uint32_t* d_index = nullptr;
  Float3* d_sampled = nullptr;
  *what = "cudaMalloc(coherence samples)";
  cudaError_t e = malloc_device(&d_index, index.size());
  if (e == cudaSuccess) e = malloc_device(&d_sampled, index.size());
  if (e == cudaSuccess) {
    *what = "coherence samples";
    e = cudaMemcpyAsync(d_index, index.data(), index.size() * sizeof(uint32_t),
                        cudaMemcpyHostToDevice, stream);
  }
  if (e == cudaSuccess) e = gather(pos, d_index, index.size(), d_sampled, stream);
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(sampled.data(), d_sampled, sampled.size() * sizeof(Float3),
                        cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  free_device(d_index);
  free_device(d_sampled);
  if (e == cudaSuccess) *coherence = order_coherence_of(n, bounds, sampled);
  return e;
}

}  // namespace

namespace {

/// bounds_kernel()'s bounds, without the origin added back to stored positions.
bool raw_bounds(const DevicePointArrays& points, bool as_stored, cudaStream_t stream, Bounds* out,
                std::string* error) {
  const Layout d = layout_of(points);
  *out = Bounds{};
  if (d.count == 0) return true;
  // The producer's work (CuPy, PyTorch: on their streams, synchronized with the legacy default
  // stream when the array was handed over) is done before the points are read.
  PR_CUDA_TRY(cudaDeviceSynchronize());
  double* partial = nullptr;
  PR_CUDA_TRY(malloc_device(&partial, 6 * kBoundsBlocks));
  const unsigned blocks = unsigned(std::min<uint64_t>(kBoundsBlocks, blocks_for(d.count)));
  if (points.xyz_double)
    bounds_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const double*>(points.xyz), d,
                                                   as_stored, partial);
  else
    bounds_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const float*>(points.xyz), d,
                                                   as_stored, partial);
  std::vector<double> host(6 * size_t(blocks));
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(host.data(), partial, host.size() * sizeof(double), cudaMemcpyDeviceToHost,
                        stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  free_device(partial);
  if (e != cudaSuccess) {
    if (error) *error = "CUDA: " + cuda_message("bounds of the device points", e);
    return false;
  }
  for (unsigned b = 0; b < blocks; ++b) {
    const double* v = &host[6 * size_t(b)];
    if (!(v[0] <= v[3])) continue;  // no finite point in this block's share
    out->extend(glm::dvec3(v[0], v[1], v[2]));
    out->extend(glm::dvec3(v[3], v[4], v[5]));
  }
  return true;
}

/// `b` moved by `shift`.
Bounds shifted(const Bounds& b, const glm::dvec3& shift) {
  Bounds out;
  if (!b.empty) {
    out.extend(b.min + shift);
    out.extend(b.max + shift);
  }
  return out;
}

}  // namespace

bool device_points_bounds(const DevicePointArrays& points, bool as_stored, cudaStream_t stream,
                          Bounds* out, std::string* error) {
  if (!raw_bounds(points, as_stored, stream, out, error)) return false;
  if (as_stored) *out = shifted(*out, points.origin);
  return true;
}

/// The colors of device points `points` into colors_, in the stored order (`order`, null: the
/// arrays' own): the arrays' colors, the recipe's from the positions `pos` (in the arrays' order),
/// or white.
cudaError_t DeviceCloud::device_colors(const DevicePointArrays& points, const Float3* pos,
                                       const uint32_t* order, std::string* what) {
  const uint64_t n = points.count;
  if (!points.colors && points.recipe)
    return position_recipe_colors(*points.recipe, pos, order, n, what);
  const Layout d = layout_of(points);
  uint32_t* rgba = nullptr;
  *what = "cudaMalloc(device colors)";
  cudaError_t e = malloc_device(&rgba, n);
  if (e == cudaSuccess) {
    *what = "device points' colors";
    const unsigned nb = blocks_for(n);
    if (points.color_type == DeviceColorType::kFloat32)
      colors_kernel<<<nb, kThreads, 0, stream_>>>(static_cast<const float*>(points.colors), d,
                                                  rgba);
    else if (points.color_type == DeviceColorType::kFloat64)
      colors_kernel<<<nb, kThreads, 0, stream_>>>(static_cast<const double*>(points.colors), d,
                                                  rgba);
    else
      colors_kernel<<<nb, kThreads, 0, stream_>>>(static_cast<const uint8_t*>(points.colors), d,
                                                  rgba);
    e = cudaGetLastError();
    if (e == cudaSuccess) e = pack_rgb(rgba, order, n, colors_, stream_);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream_);
  }
  free_device(rgba);
  return e;
}

bool DeviceCloud::upload_device(const DevicePointArrays& points, bool compact, Toggle sort,
                                Bounds* world_bounds, std::string* error) {
  points_ = 0;
  loaded_ = false;
  origin_ = points.origin;
  *world_bounds = Bounds{};
  const Layout d = layout_of(points);
  const uint64_t n = d.count;
  if (n >= uint64_t(UINT32_MAX)) {
    if (error) *error = "cloud has too many points for a 32-bit point index";
    return false;
  }
  // The stored positions' bounds (the producer's writes are done after it): the Morton curve's
  // box as a host cloud's local bounds give it, and the world bounds.
  Bounds local;
  if (!raw_bounds(points, true, stream_, &local, error)) return false;
  *world_bounds = shifted(local, points.origin);
  const bool may_sort = sort != Toggle::kOff && n >= 2 && !local.empty;
  if (!reserve(n, compact, error)) return false;
  if (compact) free_boxes();  // the compact form has boxes of its own
  if (n == 0) {
    loaded_ = true;
    return true;
  }
  // The positions as stored, in the arrays' order: into the plain storage itself when it takes
  // them as they are, else into a temporary that the sort gathers from or the encoder reads.
  Float3* src = nullptr;
  uint32_t* order = nullptr;
  const bool direct = !compact && !may_sort;
  std::string what = "cudaMalloc(positions)";
  cudaError_t e = direct ? cudaSuccess : malloc_device(&src, n);
  Float3* stored = direct ? pos_ : src;
  if (e == cudaSuccess) {
    what = "positions of the device points";
    if (points.xyz_double)
      positions_kernel<<<blocks_for(n), kThreads, 0, stream_>>>(
          static_cast<const double*>(points.xyz), d, stored);
    else
      positions_kernel<<<blocks_for(n), kThreads, 0, stream_>>>(
          static_cast<const float*>(points.xyz), d, stored);
    e = cudaGetLastError();
  }
  // Sorted as wants_spatial_sort() decides for a host cloud: always when asked, and by default
  // when the arrays' own order is not coherent (the same sampled pairs, read here).
  bool sorted = may_sort;
  if (e == cudaSuccess && may_sort && sort == Toggle::kAuto) {
    double coherence = 1.0;
    e = sampled_coherence(src, n, local, stream_, &coherence, &what);
    sorted = coherence < kCoherentOrder;
  }
  if (e == cudaSuccess && sorted) {
    what = "cudaMalloc(order)";
    e = malloc_device(&order, n);
    if (e == cudaSuccess) e = morton_order(src, order, n, morton_box(local), stream_, &what);
  }
  if (e == cudaSuccess && compact) {
    what = "encode_compact";
    e = encode_compact(src, order, n, words_, batches_, stream_);
  } else if (e == cudaSuccess && sorted) {
    what = "gather(positions)";
    e = gather(src, order, n, pos_, stream_);
  } else if (e == cudaSuccess && !direct) {
    what = "cudaMemcpyAsync(positions)";
    e = cudaMemcpyAsync(pos_, src, n * sizeof(Float3), cudaMemcpyDeviceToDevice, stream_);
  }
  if (e == cudaSuccess) e = device_colors(points, src ? src : pos_, order, &what);
  if (e == cudaSuccess) {
    what = "cudaStreamSynchronize(device points)";
    e = cudaStreamSynchronize(stream_);
  }
  free_device(src);
  if (e != cudaSuccess) {
    free_device(order);
    (void)cudaGetLastError();
    if (error) *error = "CUDA: " + cuda_message(what.c_str(), e);
    return false;
  }
  // The order is the original index a subset of the sorted cloud is drawn through.
  return adopt_device_cloud(n, compact, order, sorted, points.colors != nullptr, error);
}

bool DeviceCloud::adopt_device_cloud(uint64_t n, bool compact, uint32_t* orig, bool sorted,
                                     bool colors_file, std::string* error) {
  orig_ = orig;
  sorted_ = sorted;
  if (compact) {
    if (!make_compact_box(n, error)) return false;
  } else {
    make_boxes(n);
  }
  PR_CUDA_TRY(cudaStreamSynchronize(stream_));
  cloud_ = nullptr;
  points_ = n;
  loaded_ = true;
  colors_file_ = colors_file;
  return true;
}

}  // namespace pr::cuda
