// The compact upload (device_cloud.h): positions encoded on the GPU (on the host without room
// for the temporaries), the whole compact cloud's box, and the download tests compare.
#include "device_cloud.h"

#include <utility>

#include "cuda_check.h"
#include "raster.h"

namespace pr::cuda {

/// The compact upload, encoded on the GPU (the Morton order by the GPU sort, then one block a
/// batch; the same words and boxes as the host's build_compact(), which the CPU renderer's compact
/// mode runs), colors gathered into the same order. Without room for the temporaries (12 bytes a
/// point for the positions, 4 for the order, the sort's own), encoded on the host instead
/// (slower: 33 s for 1e9 points in Morton order on 16 cores), with the same `sort`.
bool DeviceCloud::upload_compact(const PointCloud& cloud, bool sort, const Bounds& bounds,
                                 std::string* error) {
  const uint64_t n = cloud.size();
  // The compact form has boxes of its own: the plain cloud's go.
  free_boxes();
  if (n > 0 && !encode_on_gpu(cloud, sort, bounds)) {
    CompactCloud cc;
    if (!build_compact(cloud, sort, &cc, error)) return false;
    PR_CUDA_TRY(cudaMemcpyAsync(words_, cc.words.data(), n * sizeof(uint32_t),
                                cudaMemcpyHostToDevice, stream_));
    PR_CUDA_TRY(cudaMemcpyAsync(batches_, cc.batches.data(),
                                cc.batches.size() * sizeof(CompactBatch), cudaMemcpyHostToDevice,
                                stream_));
    std::string what;
    if (const cudaError_t e =
            upload_rgb_from_host(cloud.colors.data(), cc.orig.empty() ? nullptr : cc.orig.data(), n,
                                 colors_, true, stream_, &what);
        e != cudaSuccess) {
      if (error) *error = "CUDA: " + cuda_message(what.c_str(), e);
      return false;
    }
    sorted_ = !cc.orig.empty();
    host_orig_ = std::move(cc.orig);
  }
  PR_CUDA_TRY(cudaStreamSynchronize(stream_));
  return make_compact_box(n, error);
}

/// The whole compact cloud's box, the union of the batches' decoded ranges (5.9 MB to copy for
/// 1e9 points), for frames that see all of it: they need no batch tests (box_corners_in_view()),
/// and when box_surely_inside() holds for it no point tests either.
bool DeviceCloud::make_compact_box(uint64_t n, std::string* error) {
  cloud_box_ = empty_point_box();
  if (n == 0) return true;
  const uint64_t nb = (n + kCompactBatch - 1) / kCompactBatch;
  PodVector<CompactBatch> host(nb);
  PR_CUDA_TRY(cudaMemcpy(host.data(), batches_, nb * sizeof(CompactBatch), cudaMemcpyDeviceToHost));
  for (const CompactBatch& b : host) {
    double lo[3], hi[3];
    compact_box_bounds(b, lo, hi);
    // Rounded to float: box_surely_inside() pads boxes by 1e-6 of their size, far more.
    PointBox pb;
    for (int a = 0; a < 3; ++a) {
      pb.lo[a] = float(lo[a]);
      pb.hi[a] = float(hi[a]);
    }
    box_grow(cloud_box_, pb);
  }
  return true;
}

/// The GPU encoder of upload_compact(); false (with a note on stderr) when it could not run.
bool DeviceCloud::encode_on_gpu(const PointCloud& cloud, bool sort, const Bounds& bounds) {
  const uint64_t n = cloud.size();
  uint32_t* order = nullptr;
  Float3* src = nullptr;
  std::string what;
  cudaError_t e = cudaSuccess;
  if (sort) {
    what = "cudaMalloc(order)";
    e = malloc_device(&order, n);
    if (e == cudaSuccess) e = morton_order_of(cloud, bounds, order, &src, &what);
  } else {
    what = "cudaMalloc(positions)";
    e = malloc_device(&src, n);
    if (e == cudaSuccess) {
      what = "cudaMemcpyAsync(positions)";
      e = cudaMemcpyAsync(src, cloud.positions.data(), n * sizeof(Float3), cudaMemcpyHostToDevice,
                          stream_);
    }
  }
  if (e == cudaSuccess) {
    what = "encode_compact";
    e = encode_compact(src, order, n, words_, batches_, stream_);
  }
  if (!finish_upload(e, what, cloud, src, order, "compact encoding on the GPU skipped",
                     "on the host"))
    return false;
  sorted_ = sort;
  return true;
}

bool DeviceCloud::download_compact(CompactCloud* out, std::string* error) const {
  if (!compact()) {
    if (error) *error = "the cloud is not stored in compact form";
    return false;
  }
  const uint64_t nb = (points_ + kCompactBatch - 1) / kCompactBatch;
  out->words.resize(points_);
  out->batches.resize(nb);
  out->orig.clear();
  PR_CUDA_TRY(
      cudaMemcpy(out->words.data(), words_, points_ * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  PR_CUDA_TRY(
      cudaMemcpy(out->batches.data(), batches_, nb * sizeof(CompactBatch), cudaMemcpyDeviceToHost));
  return true;
}

}  // namespace pr::cuda
