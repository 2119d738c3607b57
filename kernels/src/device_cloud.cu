// The cloud on the device (device_cloud.h): its storage, the uploads and the batch boxes.
#include "device_cloud.h"

#include <cstdio>
#include <utility>

#include "cuda_check.h"
#include "engine/frame_policy.h"
#include "engine/morton.h"
#include "raster.h"

namespace pr::cuda {

namespace {

/// Device bytes a batch keeps besides its box: its flag (this frame's box tests) and its entry in
/// the list of batches that draw (DrawnPoints::list).
constexpr size_t kPerBatchFlagAndList = 1 + sizeof(uint32_t);

}  // namespace

DeviceCloud::~DeviceCloud() {
  free_points();
  free_boxes();
  drop_staged();
  drop_values();
  free_device(recipe_table_);
  for (int k = 0; k < 2; ++k) {
    if (pinned_[k]) PR_CUDA_LOG(cudaFreeHost(pinned_[k]));
    if (pinned_free_[k]) PR_CUDA_LOG(cudaEventDestroy(pinned_free_[k]));
  }
  if (stage_stream_) PR_CUDA_LOG(cudaStreamDestroy(stage_stream_));
  free_device(pick_buf_);
  free_device(pick_candidates_);
  free_device(pick_list_);
  if (pick_stream_) PR_CUDA_LOG(cudaStreamDestroy(pick_stream_));
  if (copy_stream_) PR_CUDA_LOG(cudaStreamSynchronize(copy_stream_));
  for (int k = 0; k < 2; ++k) {
    if (update_stage_[k]) PR_CUDA_LOG(cudaFreeHost(update_stage_[k]));
    if (update_free_[k]) PR_CUDA_LOG(cudaEventDestroy(update_free_[k]));
  }
  if (box_mirror_) PR_CUDA_LOG(cudaFreeHost(box_mirror_));
  if (copied_) PR_CUDA_LOG(cudaEventDestroy(copied_));
  if (copy_stream_) PR_CUDA_LOG(cudaStreamDestroy(copy_stream_));
}

void DeviceCloud::free_points() {
  free_device(pos_);
  free_device(colors_);
  free_device(orig_);
  free_device(words_);
  free_device(batches_);
  free_device(compact_flags_);
  free_device(compact_list_);
}

void DeviceCloud::free_boxes() {
  free_device(boxes_);
  free_device(flags_);
  free_device(list_);
  cap_boxes_ = 0;
}

size_t DeviceCloud::memory_bytes() const {
  return cap_points_ * ((pos_ ? sizeof(Float3) : 0) + (words_ ? sizeof(uint32_t) : 0) +
                        (orig_ ? sizeof(uint32_t) : 0)) +
         (colors_ ? rgb_words(cap_points_) * sizeof(uint32_t) : 0) +
         cap_batches_ * (sizeof(CompactBatch) + kPerBatchFlagAndList) +
         cap_boxes_ * (sizeof(PointBox) + kPerBatchFlagAndList) + values_bytes();
}

bool DeviceCloud::reserve(uint64_t n, bool compact, std::string* error) {
  std::lock_guard<std::mutex> lock(stage_mutex_);  // a staging call in flight ends first
  drop_staged();
  drop_values();
  colors_file_ = false;
  finish_updates();
  points_ = 0;
  loaded_ = false;
  sorted_ = false;
  boxes_ready_ = false;
  host_boxes_ = PodVector<PointBox>();
  cloud_box_ = empty_point_box();
  empty_batches_ = 0;
  free_device(orig_);  // belongs to the previous cloud's order
  host_orig_ = PodVector<uint32_t>();
  cloud_ = nullptr;
  if (n <= cap_points_ && n >= cap_points_ / 2 && compact == compact_) return true;
  free_points();
  cap_points_ = 0;
  cap_batches_ = 0;
  compact_ = compact;
  if (n == 0) return true;
  // Plain: float xyz (12 B); compact: a 3x10-bit word (4 B) + a 24-byte box, a flag byte and a
  // list entry per batch. Colors: 3 bytes (load_rgb()).
  const uint64_t batches = (n + kCompactBatch - 1) / kCompactBatch;
  const size_t pos_bytes = compact
                               ? size_t(n) * sizeof(uint32_t) +
                                     size_t(batches) * (sizeof(CompactBatch) + kPerBatchFlagAndList)
                               : size_t(n) * sizeof(Float3);
  const size_t col_bytes = size_t(rgb_words(n)) * sizeof(uint32_t);
  const bool over = memory_limit_ > 0 && pos_bytes + col_bytes > memory_limit_;
  cudaError_t e = over      ? cudaErrorMemoryAllocation
                  : compact ? malloc_device(&words_, n)
                            : malloc_device(&pos_, n);
  if (e == cudaSuccess && compact) e = malloc_device(&batches_, batches);
  if (e == cudaSuccess && compact) e = malloc_device(&compact_flags_, batches);
  if (e == cudaSuccess && compact) e = malloc_device(&compact_list_, batches);
  if (e == cudaSuccess) e = malloc_device(&colors_, rgb_words(n));
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    free_points();
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) (void)cudaGetLastError();
    if (error)
      *error = "out of GPU memory: " + std::to_string(n) + " points need " +
               gib(double(pos_bytes + col_bytes)) + " (" + (compact ? "7" : "15") +
               " bytes a point), " +
               (over ? "over the limit of " + gib(double(memory_limit_)) + " (set_memory_limit)"
                     : "the device has " + gib(double(free_b)) + " free of " +
                           gib(double(total_b)) + " (" + cudaGetErrorName(e) + ")");
    return false;
  }
  cap_points_ = n;
  cap_batches_ = compact ? batches : 0;
  return true;
}

bool DeviceCloud::upload(const PointCloud& cloud, bool compact, Toggle sort, std::string* error) {
  points_ = 0;
  loaded_ = false;
  origin_ = cloud.origin;
  const uint64_t n = cloud.size();
  if (n >= uint64_t(UINT32_MAX)) {
    if (error) *error = "cloud has too many points for a 32-bit point index";
    return false;
  }
  if (cloud.colors.size() != n) {
    if (error)
      *error = "cloud has " + std::to_string(cloud.colors.size()) + " colors for " +
               std::to_string(n) + " points";
    return false;
  }
  // The bounds, once (a pass over the positions), for the sort's decision and its codes.
  const Bounds bounds = sort == Toggle::kOff ? Bounds{} : cloud.local_bounds();
  const bool sorted = wants_spatial_sort(sort, cloud, bounds);
  if (!reserve(n, compact, error)) return false;
  if (!(compact ? upload_compact(cloud, sorted, bounds, error)
                : upload_plain(cloud, sorted, bounds, error)))
    return false;
  cloud_ = &cloud;
  points_ = n;
  loaded_ = true;
  colors_file_ = cloud.file_colors.empty();  // no file colors set aside: they are on show
  return true;
}

bool DeviceCloud::upload_plain(const PointCloud& cloud, bool sort, const Bounds& bounds,
                               std::string* error) {
  const uint64_t n = cloud.size();
  if (n > 0 && !(sort && upload_sorted(cloud, bounds))) {
    PR_CUDA_TRY(cudaMemcpyAsync(pos_, cloud.positions.data(), n * sizeof(Float3),
                                cudaMemcpyHostToDevice, stream_));
    std::string what;
    if (const cudaError_t e =
            upload_colors(cloud.colors.data(), nullptr, n, colors_, stream_, &what);
        e != cudaSuccess) {
      if (error) *error = "CUDA: " + cuda_message(what.c_str(), e);
      return false;
    }
  }
  make_boxes(n);
  // Every upload is ordered on stream_ (a plain cudaMemcpy runs on the legacy stream, which this
  // non-blocking stream does not wait for); wait for it before the cloud counts as loaded.
  PR_CUDA_TRY(cudaStreamSynchronize(stream_));
  return true;
}

/// The batch boxes of the `n` stored positions (engine/culling.h), computed on the GPU after the
/// upload (a read of the positions: about 4 ms for 1e9 points). Without room for them (24 bytes,
/// a flag byte and a list entry a batch) frames draw unculled, with a note on stderr.
void DeviceCloud::make_boxes(uint64_t n) {
  const uint64_t nb = (n + kPointBatch - 1) / kPointBatch;
  if (nb == 0) return;
  if (nb > cap_boxes_ || nb < cap_boxes_ / 2) {
    free_boxes();
    cudaError_t e = malloc_device(&boxes_, nb);
    if (e == cudaSuccess) e = malloc_device(&flags_, nb);
    if (e == cudaSuccess) e = malloc_device(&list_, nb);
    if (e != cudaSuccess) {
      free_boxes();
      std::fprintf(stderr, "pointraster: batch culling off for this cloud (%s)\n",
                   cuda_message("cudaMalloc(boxes)", e).c_str());
      return;
    }
    cap_boxes_ = nb;
  }
  cudaError_t e = compute_boxes(pos_, n, boxes_, stream_);
  // The whole cloud's box, the union of the batches' (5.9 MB to copy for 1e9 points), for frames
  // that see all of it and need no batch tests (box_corners_in_view()).
  PodVector<PointBox> host(nb);
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(host.data(), boxes_, nb * sizeof(PointBox), cudaMemcpyDeviceToHost,
                        stream_);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream_);
  if (e != cudaSuccess) {
    std::fprintf(stderr, "pointraster: batch culling off for this cloud (%s)\n",
                 cuda_message("compute_boxes", e).c_str());
    return;
  }
  cloud_box_ = empty_point_box();
  empty_batches_ = 0;
  for (const PointBox& b : host) {
    box_grow(cloud_box_, b);
    empty_batches_ += !(b.lo[0] <= b.hi[0]);
  }
  host_boxes_ = std::move(host);
  boxes_ready_ = true;
}

/// The Morton order of `cloud`'s positions into the device array `order` (n entries), computed on
/// the GPU from a temporary copy of the positions. The same cloud always gives the same order (a
/// stable radix sort of the same codes). `src_out`, when not null, receives the temporary copy
/// (the caller frees it); otherwise it is freed here.
cudaError_t DeviceCloud::morton_order_of(const PointCloud& cloud, const Bounds& bounds,
                                         uint32_t* order, Float3** src_out, std::string* what) {
  const uint64_t n = cloud.size();
  Float3* src = nullptr;
  *what = "cudaMalloc(sort source)";
  cudaError_t e = malloc_device(&src, n);
  if (e == cudaSuccess) {
    *what = "cudaMemcpyAsync(sort source)";
    e = cudaMemcpyAsync(src, cloud.positions.data(), n * sizeof(Float3), cudaMemcpyHostToDevice,
                        stream_);
  }
  if (e == cudaSuccess) e = morton_order(src, order, n, morton_box(bounds), stream_, what);
  if (e == cudaSuccess && src_out)
    *src_out = src;
  else
    free_device(src);
  return e;
}

/// The spatially sorted upload: the Morton order computed on the GPU, then positions and colors
/// gathered into pos_ and colors_ in that order; no index is kept (the key's tie rule does not
/// need one; a subset computes it again, make_original_index()). False, with a note on stderr,
/// when there is no room for the temporaries (about 36 bytes a point while it runs: a source
/// copy, the order, two code arrays, an index array, CUB's scratch); the caller then uploads the
/// cloud in its own order, which draws the same image more slowly.
bool DeviceCloud::upload_sorted(const PointCloud& cloud, const Bounds& bounds) {
  const uint64_t n = cloud.size();
  uint32_t* order = nullptr;
  Float3* src = nullptr;
  std::string what = "cudaMalloc(order)";
  cudaError_t e = malloc_device(&order, n);
  if (e == cudaSuccess) e = morton_order_of(cloud, bounds, order, &src, &what);
  if (e == cudaSuccess) {
    what = "gather(positions)";
    e = gather(src, order, n, pos_, stream_);
  }
  if (!finish_upload(e, what, cloud, src, order, "spatial sort skipped", "uploading in file order"))
    return false;
  sorted_ = true;
  return true;
}

/// The common end of the GPU upload paths (the sorted upload and the compact encoder), after `e`,
/// the error of their last step (`what`): waits for the stream, frees the temporary copy of the
/// positions, packs the colors in `order` (null: as stored), frees the order. False, with
/// "pointraster: <skipped> (<the failed call>); <instead>" on stderr, when any step failed.
bool DeviceCloud::finish_upload(cudaError_t e, std::string& what, const PointCloud& cloud,
                                Float3*& src, uint32_t*& order, const char* skipped,
                                const char* instead) {
  if (e == cudaSuccess) {
    what = "cudaStreamSynchronize(" + what + ")";
    e = cudaStreamSynchronize(stream_);
  }
  free_device(src);
  if (e == cudaSuccess)
    e = upload_colors(cloud.colors.data(), order, cloud.size(), colors_, stream_, &what);
  free_device(order);
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "pointraster: %s (%s); %s\n", skipped, cuda_message(what.c_str(), e).c_str(),
               instead);
  return false;
}

bool DeviceCloud::make_original_index(std::string* error) {
  std::lock_guard<std::mutex> lock(stage_mutex_);  // stage_colors() reads orig_
  if (orig_) return true;
  // A compact cloud encoded on the host kept the index there; otherwise the Morton order is
  // computed again from the cloud on the GPU (the same codes and the same stable sort give the
  // same order).
  const uint64_t n = points_;
  cudaError_t e = malloc_device(&orig_, n);
  std::string what = "cudaMalloc(original index)";
  if (e == cudaSuccess) {
    if (!host_orig_.empty()) {
      what = "cudaMemcpyAsync(original index)";
      e = cudaMemcpyAsync(orig_, host_orig_.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice,
                          stream_);
      if (e == cudaSuccess) e = cudaStreamSynchronize(stream_);
    } else if (cloud_ && cloud_->size() == n) {
      e = morton_order_of(*cloud_, cloud_->local_bounds(), orig_, nullptr, &what);
    } else {
      e = cudaErrorInvalidValue;
      what = "make_original_index: the sorted cloud is gone";
    }
  }
  if (e != cudaSuccess) {
    free_device(orig_);
    if (error)
      *error = "CUDA: cannot draw a subset of the sorted cloud: " + cuda_message(what.c_str(), e) +
               " (" + std::to_string(n) +
               " points need 4 more bytes each; all points can still be drawn)";
    return false;
  }
  return true;
}

bool DeviceCloud::download_boxes(PodVector<PointBox>* out, std::string* error) const {
  if (!boxes_ready_) {
    if (error) *error = "the cloud has no batch boxes on the device";
    return false;
  }
  out->resize((points_ + kPointBatch - 1) / kPointBatch);
  if (copy_stream_) PR_CUDA_TRY(cudaStreamSynchronize(copy_stream_));
  PR_CUDA_TRY(
      cudaMemcpy(out->data(), boxes_, out->size() * sizeof(PointBox), cudaMemcpyDeviceToHost));
  return true;
}

}  // namespace pr::cuda
