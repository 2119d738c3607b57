// A streamed cloud's points replaced in place on the device (device_cloud.h): update_points()
// through pinned staging buffers on a copy stream, and the boxes of the batches it touched.
#include "device_cloud.h"

#include <algorithm>
#include <cstring>

#include "cuda_check.h"
#include "engine/parallel.h"
#include "raster.h"

namespace pr::cuda {

/// Makes sure the copy stream, its events, the pinned mirror of the boxes and pinned staging
/// buffer k (at least `bytes`) exist. Growing a staging buffer waits for its last copy.
cudaError_t DeviceCloud::prepare_updates(int k, size_t bytes, std::string* what) {
  cudaError_t e = cudaSuccess;
  *what = "cudaStreamCreate(update_points)";
  if (!copy_stream_) e = cudaStreamCreateWithFlags(&copy_stream_, cudaStreamNonBlocking);
  *what = "cudaEventCreate(update_points)";
  if (e == cudaSuccess && !copied_) e = cudaEventCreateWithFlags(&copied_, cudaEventDisableTiming);
  for (int i = 0; i < 2 && e == cudaSuccess; ++i)
    if (!update_free_[i]) e = cudaEventCreateWithFlags(&update_free_[i], cudaEventDisableTiming);
  const uint64_t nb = batches();
  if (e == cudaSuccess && box_mirror_cap_ < nb) {
    *what = "cudaHostAlloc(update_points boxes)";
    if (box_mirror_) e = cudaStreamSynchronize(copy_stream_);
    if (e == cudaSuccess && box_mirror_) e = cudaFreeHost(box_mirror_);
    box_mirror_ = nullptr;
    box_mirror_cap_ = 0;
    if (e == cudaSuccess)
      e = cudaHostAlloc(reinterpret_cast<void**>(&box_mirror_), nb * sizeof(PointBox),
                        cudaHostAllocDefault);
    if (e == cudaSuccess) box_mirror_cap_ = nb;
  }
  *what = "cudaEventSynchronize(update_points staging)";  // its last copy has finished
  if (e == cudaSuccess) e = cudaEventSynchronize(update_free_[k]);
  if (e == cudaSuccess && update_cap_[k] < bytes) {
    *what = "cudaHostAlloc(update_points staging)";
    if (update_stage_[k]) e = cudaFreeHost(update_stage_[k]);
    update_stage_[k] = nullptr;
    update_cap_[k] = 0;
    const size_t cap = std::max(bytes, size_t{1} << 24);
    if (e == cudaSuccess)
      e = cudaHostAlloc(reinterpret_cast<void**>(&update_stage_[k]), cap, cudaHostAllocDefault);
    if (e == cudaSuccess) update_cap_[k] = cap;
  }
  return e;
}

/// The boxes of the batches the updates since the last settle() touched, once their copies have
/// finished: into host_boxes_, and the cloud's box grown by them, or made again from all the
/// boxes when one of them shrank (an evicted node: a pass over 24 bytes a batch).
void DeviceCloud::settle() {
  if (pending_.empty() || cudaEventQuery(copied_) != cudaSuccess) return;
  bool shrank = false;
  for (const auto& [b0, b1] : pending_) {
    for (uint64_t i = b0; i < b1; ++i) {
      const PointBox& now = box_mirror_[i];
      PointBox& before = host_boxes_[i];
      for (int a = 0; a < 3; ++a)  // an empty box (+inf, -inf) lies in every box
        shrank = shrank || !(now.lo[a] <= before.lo[a] && before.hi[a] <= now.hi[a]);
      empty_batches_ += uint64_t(!(now.lo[0] <= now.hi[0]));
      empty_batches_ -= uint64_t(!(before.lo[0] <= before.hi[0]));
      before = now;
      if (!shrank) box_grow(cloud_box_, now);
    }
  }
  if (shrank) {
    cloud_box_ = empty_point_box();
    for (const PointBox& b : host_boxes_) box_grow(cloud_box_, b);
  }
  pending_.clear();
}

/// Waits for every update_points() copy and folds in the boxes (before storage changes).
void DeviceCloud::finish_updates() {
  if (copy_stream_) PR_CUDA_LOG(cudaStreamSynchronize(copy_stream_));
  settle();
  pending_.clear();
}

/// The storage grown from points_ to `n` points (a streaming pool that grew): kept when it has
/// room, else made twice as large (at least `n`) with the points and boxes so far copied over on
/// the device. The new points are NaN (0xFF bytes) until update_points() hands them over, the new
/// batches' boxes empty. Every update copy has finished and been folded in first.
cudaError_t DeviceCloud::grow(uint64_t n, std::string* what) {
  finish_updates();
  const uint64_t old = points_, old_nb = batches();
  const uint64_t nb = (n + kPointBatch - 1) / kPointBatch;
  cudaError_t e = cudaSuccess;
  if (n > cap_points_) {
    uint64_t cap = std::max(n, 2 * cap_points_);
    const auto bytes = [](uint64_t k) {
      return size_t(k) * sizeof(Float3) + size_t(rgb_words(k)) * sizeof(uint32_t);
    };
    if (memory_limit_ > 0 && bytes(cap) > memory_limit_) cap = n;
    if (memory_limit_ > 0 && bytes(cap) > memory_limit_) {
      *what = "the limit of " + gib(double(memory_limit_)) + " (set_memory_limit)";
      return cudaErrorMemoryAllocation;
    }
    Float3* pos = nullptr;
    uint32_t* colors = nullptr;
    *what = "cudaMalloc(grown points)";
    e = malloc_device(&pos, cap);
    if (e == cudaSuccess) e = malloc_device(&colors, rgb_words(cap));
    if (e == cudaSuccess && old > 0)
      e = cudaMemcpyAsync(pos, pos_, old * sizeof(Float3), cudaMemcpyDeviceToDevice, stream_);
    if (e == cudaSuccess && old > 0)
      e = cudaMemcpyAsync(colors, colors_, rgb_words(old) * sizeof(uint32_t),
                          cudaMemcpyDeviceToDevice, stream_);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream_);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      free_device(pos);
      free_device(colors);
      return e;
    }
    free_device(pos_);
    free_device(colors_);
    pos_ = pos;
    colors_ = colors;
    cap_points_ = cap;
  }
  // A cloud uploaded empty (a pool before its first node) gets its boxes with its first points.
  const bool boxed = boxes_ready_ || old_nb == 0;
  if (boxed && nb > cap_boxes_) {
    const uint64_t cap = std::max(nb, (cap_points_ + kPointBatch - 1) / kPointBatch);
    PointBox* boxes = nullptr;
    uint8_t* flags = nullptr;
    uint32_t* list = nullptr;
    *what = "cudaMalloc(grown boxes)";
    e = malloc_device(&boxes, cap);
    if (e == cudaSuccess) e = malloc_device(&flags, cap);
    if (e == cudaSuccess) e = malloc_device(&list, cap);
    if (e == cudaSuccess && old_nb > 0)
      e = cudaMemcpyAsync(boxes, boxes_, old_nb * sizeof(PointBox), cudaMemcpyDeviceToDevice,
                          stream_);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream_);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      free_device(boxes);
      free_device(flags);
      free_device(list);
      return e;
    }
    free_boxes();
    boxes_ = boxes;
    flags_ = flags;
    list_ = list;
    cap_boxes_ = cap;
  }
  // The new points NaN; the new batches' boxes empty, on the device and in the host's copy.
  // On the cloud's stream, waited for: the range copies that follow run on the copy stream.
  *what = "cudaMemsetAsync(grown points)";
  e = cudaMemsetAsync(pos_ + old, 0xFF, (n - old) * sizeof(Float3), stream_);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream_);
  if (e == cudaSuccess && boxed && nb > old_nb) {
    if (old_nb == 0) {
      host_boxes_.clear();
      cloud_box_ = empty_point_box();
      empty_batches_ = 0;
    }
    host_boxes_.resize(nb, empty_point_box());
    empty_batches_ += nb - old_nb;
    *what = "cudaMemcpyAsync(grown boxes)";
    e = cudaMemcpyAsync(boxes_ + old_nb, host_boxes_.data() + old_nb,
                        (nb - old_nb) * sizeof(PointBox), cudaMemcpyHostToDevice, stream_);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream_);  // before the copy stream's boxes
  }
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return e;
  }
  boxes_ready_ = boxed;
  points_ = n;
  return cudaSuccess;
}

bool DeviceCloud::update_points(const PointCloud& cloud, uint64_t first, uint64_t count,
                                std::string* error) {
  // Staged colors and kept values are of the points before; staging reads the pinned buffers.
  std::lock_guard<std::mutex> lock(stage_mutex_);
  const uint64_t n = cloud.size();
  const char* why = !loaded_ || &cloud != cloud_ || cloud.size() < points_ ||
                            cloud.colors.size() != n
                        ? "not the cloud uploaded last, or a color array of another size"
                    : compact_ ? "the cloud is stored in compact form"
                    : sorted_
                        ? "the cloud is stored sorted along a Morton curve (RenderOptions::sort)"
                    : first > n || count > n - first ? "the range lies outside the cloud"
                    : n >= uint64_t(UINT32_MAX)
                        ? "the cloud has too many points for a 32-bit point index"
                        : nullptr;
  if (why) {
    if (error)
      *error = "update_points [" + std::to_string(first) + ", +" + std::to_string(count) + ") of " +
               std::to_string(n) + " points: " + why;
    return false;
  }
  drop_staged();
  drop_values();
  colors_file_ = false;
  if (n > points_) {
    std::string what;
    if (const cudaError_t e = grow(n, &what); e != cudaSuccess) {
      if (error)
        *error = e == cudaErrorMemoryAllocation
                     ? "out of GPU memory: the streamed pool of " + std::to_string(n) +
                           " points does not fit (" + what + "); lower the point budget"
                     : "CUDA: update_points: " + cuda_message(what.c_str(), e);
      return false;
    }
  }
  if (count == 0) return true;
  // The range's positions and its colors packed 3 bytes a point (point i's bytes are 3i .. 3i + 2
  // of the packed array) go through a pinned staging buffer on the copy stream, the batches'
  // boxes are computed again there and copied back to a pinned mirror; the frame stream waits
  // for them on the device (cudaStreamWaitEvent), the host never: the next frame draws the range,
  // and settle() folds the boxes into the cloud's box once they are back (until then frames
  // plan without it: box_exact()).
  const int k = update_k_;
  update_k_ ^= 1;
  const size_t pos_bytes = count * sizeof(Float3), rgb_bytes = 3 * count;
  std::string what;
  cudaError_t e = prepare_updates(k, pos_bytes + rgb_bytes, &what);
  if (e == cudaSuccess) {
    uint8_t* stage = update_stage_[k];
    const Float3* pos = cloud.positions.data() + first;
    const uint32_t* col = cloud.colors.data() + first;
    uint8_t* out = stage + pos_bytes;
    // Large ranges (a jump's first nodes) on every core: 15 bytes a point through the host.
    auto pack = [&](size_t lo, size_t hi) {
      std::memcpy(stage + lo * sizeof(Float3), pos + lo, (hi - lo) * sizeof(Float3));
      for (size_t i = lo; i < hi; ++i) {
        out[3 * i] = uint8_t(col[i]);
        out[3 * i + 1] = uint8_t(col[i] >> 8);
        out[3 * i + 2] = uint8_t(col[i] >> 16);
      }
    };
    if (count >= (uint64_t{1} << 18))
      parallel_for(size_t(count), pack);
    else
      pack(0, size_t(count));
    what = "cudaMemcpyAsync(update_points)";
    e = cudaMemcpyAsync(pos_ + first, stage, pos_bytes, cudaMemcpyHostToDevice, copy_stream_);
    if (e == cudaSuccess)
      e = cudaMemcpyAsync(reinterpret_cast<uint8_t*>(colors_) + 3 * first, out, rgb_bytes,
                          cudaMemcpyHostToDevice, copy_stream_);
    if (e == cudaSuccess) e = cudaEventRecord(update_free_[k], copy_stream_);
  }
  if (e == cudaSuccess && boxes_ready_) {
    const uint64_t b0 = first / kPointBatch, b1 = (first + count - 1) / kPointBatch + 1;
    what = "compute_boxes(update_points)";
    e = compute_boxes(pos_, points_, boxes_, copy_stream_, b0, b1 - b0);
    if (e == cudaSuccess)
      e = cudaMemcpyAsync(box_mirror_ + b0, boxes_ + b0, (b1 - b0) * sizeof(PointBox),
                          cudaMemcpyDeviceToHost, copy_stream_);
    if (e == cudaSuccess) pending_.emplace_back(b0, b1);
  }
  if (e == cudaSuccess) {
    what = "cudaStreamWaitEvent(update_points)";
    e = cudaEventRecord(copied_, copy_stream_);
    if (e == cudaSuccess) e = cudaStreamWaitEvent(stream_, copied_, 0);
  }
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    points_ = 0;  // part of the range may be old: no cloud until the next upload()
    loaded_ = false;
    if (error) *error = "CUDA: update_points: " + cuda_message(what.c_str(), e);
    return false;
  }
  return true;
}

}  // namespace pr::cuda
