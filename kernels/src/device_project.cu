// project_on_device() (kernels/gpu_renderer.h): the seed's projection of device vertices, one
// thread a vertex, through engine/projection.h's seed_project(), the host's function (compiled
// without contractions here and there: the same values).
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "engine/projection.h"
#include "kernels/gpu_renderer.h"

namespace pr {

namespace {

constexpr int kThreads = 256;

template <class T>
struct Args {
  T m[9], shift[3], focus;
  int64_t point_stride, coord_stride;
  uint64_t count;
};

template <class T>
__global__ void project_kernel(const T* __restrict__ v, Args<T> a, T* __restrict__ out) {
  const uint64_t i = uint64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= a.count) return;
  const T* r = v + int64_t(i) * a.point_stride;
  seed_project(a.m, a.shift, a.focus, r[0], r[a.coord_stride], r[2 * a.coord_stride], out + 3 * i);
}

template <class T>
bool run(const DeviceProjection& in, void** out, std::string* error) {
  Args<T> a;
  for (int k = 0; k < 9; ++k) a.m[k] = T(in.unit_vec[k]);
  for (int k = 0; k < 3; ++k) a.shift[k] = T(in.shift[k]);
  a.focus = T(in.focus);
  a.point_stride = in.point_stride;
  a.coord_stride = in.coord_stride;
  a.count = in.count;
  // The producer's work (CuPy, PyTorch: on their own streams) is done before the vertices are
  // read, and the result is complete when this returns.
  PR_CUDA_TRY(cudaDeviceSynchronize());
  T* dst = nullptr;
  PR_CUDA_TRY(cudaMalloc(&dst, (in.count ? in.count : 1) * 3 * sizeof(T)));
  if (in.count) {
    project_kernel<T><<<unsigned((in.count + kThreads - 1) / kThreads), kThreads>>>(
        static_cast<const T*>(in.vertices), a, dst);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      cudaFree(dst);
      if (error) *error = "CUDA: " + cuda::cuda_message("project", e);
      return false;
    }
  }
  *out = dst;
  return true;
}

}  // namespace

bool project_on_device(const DeviceProjection& in, void** out, std::string* error) {
  *out = nullptr;
  if (in.count >= (uint64_t(1) << 40)) {
    if (error) *error = "project: too many vertices";
    return false;
  }
  return in.doubles ? run<double>(in, out, error) : run<float>(in, out, error);
}

void free_device_array(void* p) {
  if (p) cudaFree(p);
}

}  // namespace pr
