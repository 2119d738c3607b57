// The cloud on the device (device_cloud.h).
#include "device_cloud.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <utility>

#include "cuda_check.h"
#include "engine/frame_policy.h"
#include "engine/morton.h"
#include "engine/parallel.h"
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

bool DeviceCloud::update_points(const PointCloud& cloud, uint64_t first, uint64_t count,
                                std::string* error) {
  // Staged colors and kept values are of the points before; staging reads the pinned buffers.
  std::lock_guard<std::mutex> lock(stage_mutex_);
  const uint64_t n = points_;
  const char* why = !loaded_ || &cloud != cloud_ || cloud.size() != n || cloud.colors.size() != n
                        ? "not the cloud uploaded last, or a color array of another size"
                    : compact_ ? "the cloud is stored in compact form"
                    : sorted_
                        ? "the cloud is stored sorted along a Morton curve (RenderOptions::sort)"
                    : first > n || count > n - first ? "the range lies outside the cloud"
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

cudaError_t DeviceCloud::pinned_buffers(std::string* what) {
  for (int k = 0; k < 2; ++k) {
    if (pinned_[k]) continue;
    *what = "cudaHostAlloc(upload chunk)";
    cudaError_t e =
        cudaHostAlloc(reinterpret_cast<void**>(&pinned_[k]), kPinnedBytes, cudaHostAllocDefault);
    if (e == cudaSuccess) {
      *what = "cudaEventCreate(upload chunk)";
      e = cudaEventCreateWithFlags(&pinned_free_[k], cudaEventDisableTiming);
    }
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

/// Host colors `from` (RGBA8), taken in `orig` (host, null: as stored), packed into colors_ (3
/// bytes a point, load_rgb()) a chunk at a time through a host buffer of 48 MiB; waits for them.
/// Packs n colors (from[orig[k]], or from[k]) into their 3-byte form (`pack`; else copies them
/// as they are, 4 bytes each) and copies them to `dst` on `stream`, in chunks through two pinned
/// buffers: the host fills one chunk while the last one is copied (a copy from pinned memory runs
/// without the host; one from pageable memory is staged by the calling thread through the
/// driver's buffers, and holds up the other threads' CUDA calls meanwhile). Waits for the last
/// copy.
cudaError_t DeviceCloud::upload_rgb_from_host(const uint32_t* from, const uint32_t* orig,
                                              uint64_t n, void* dst, bool pack, cudaStream_t stream,
                                              std::string* what, bool pad_end) {
  constexpr uint64_t kChunk = kPinnedBytes / 4;  // points a chunk, a multiple of 4
  if (cudaError_t e = pinned_buffers(what); e != cudaSuccess) return e;
  const uint64_t width = pack ? 3 : 4;  // bytes a point
  int k = 0;
  for (uint64_t b = 0; b < n; b += kChunk, k ^= 1) {
    const uint64_t e = std::min(n, b + kChunk);
    uint8_t* out = pinned_[k];
    *what = "cudaEventSynchronize(color chunk)";  // its last copy has finished
    if (cudaError_t err = cudaEventSynchronize(pinned_free_[k]); err != cudaSuccess) return err;
    if (pack) {
      parallel_for(size_t(e - b), [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) {
          const uint32_t c = from[orig ? orig[b + i] : b + i];
          out[3 * i] = uint8_t(c);
          out[3 * i + 1] = uint8_t(c >> 8);
          out[3 * i + 2] = uint8_t(c >> 16);
        }
      });
    } else {
      parallel_for(size_t(e - b), [&](size_t lo, size_t hi) {
        std::memcpy(out + 4 * lo, from + b + lo, (hi - lo) * 4);
      });
    }
    // The last packed chunk ends the array's padding word with zeros (`pad_end`; a range of the
    // array leaves the bytes after it alone).
    const size_t bytes =
        pack && pad_end && e == n ? size_t(rgb_words(n) * 4 - 3 * b) : size_t((e - b) * width);
    for (size_t i = size_t((e - b) * width); i < bytes; ++i) out[i] = 0;
    *what = "cudaMemcpyAsync(colors)";
    cudaError_t err = cudaMemcpyAsync(static_cast<uint8_t*>(dst) + width * b, out, bytes,
                                      cudaMemcpyHostToDevice, stream);
    if (err == cudaSuccess) err = cudaEventRecord(pinned_free_[k], stream);
    if (err != cudaSuccess) return err;
  }
  *what = "cudaStreamSynchronize(colors)";
  return cudaStreamSynchronize(stream);
}

/// n colors (`from`, host, one per point in the cloud's order) into `dst` (3 bytes a point) on
/// `stream`, in `order` (device, null: as stored): through the pinned buffers, then, with an
/// order, packed on the device (4 more bytes a point while it runs). Waits for them.
cudaError_t DeviceCloud::upload_colors(const uint32_t* from, const uint32_t* order, uint64_t n,
                                       uint32_t* dst, cudaStream_t stream, std::string* what) {
  if (!order) return upload_rgb_from_host(from, nullptr, n, dst, true, stream, what);
  uint32_t* csrc = nullptr;
  *what = "cudaMalloc(color source)";
  cudaError_t e = malloc_device(&csrc, n);
  if (e == cudaSuccess) e = upload_rgb_from_host(from, nullptr, n, csrc, false, stream, what);
  if (e == cudaSuccess) {
    *what = "pack_rgb(colors)";
    e = pack_rgb(csrc, order, n, dst, stream);
  }
  if (e == cudaSuccess) {
    *what = "cudaStreamSynchronize(pack_rgb)";
    e = cudaStreamSynchronize(stream);
  }
  free_device(csrc);
  return e;
}

/// New colors of the stored cloud (`from`, in the cloud's order) into `dst` in the stored order:
/// as stored, through the host-encoded compact index, or through the original index on the
/// device (which a sorted cloud must have by then).
cudaError_t DeviceCloud::write_colors(const uint32_t* from, uint32_t* dst, cudaStream_t stream,
                                      std::string* what) {
  if (sorted_ && !host_orig_.empty())
    return upload_rgb_from_host(from, host_orig_.data(), points_, dst, true, stream, what);
  return upload_colors(from, sorted_ ? orig_ : nullptr, points_, dst, stream, what);
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

bool DeviceCloud::update_colors(const PointCloud& cloud, std::string* error) {
  const uint64_t n = points_;
  if (!loaded_ || &cloud != cloud_ || cloud.size() != n || cloud.colors.size() != n) {
    if (error)
      *error = "update_colors: not the cloud uploaded last, or a color array of another size";
    return false;
  }
  if (n == 0) return true;
  // A cloud sorted on the GPU makes its original index here, once.
  if (sorted_ && host_orig_.empty() && !make_original_index(error)) return false;
  std::string what;
  colors_file_ = false;
  const cudaError_t e = write_colors(cloud.colors.data(), colors_, stream_, &what);
  if (e != cudaSuccess) {
    if (error) *error = "CUDA: " + cuda_message(what.c_str(), e);
    return false;
  }
  return true;
}

bool DeviceCloud::stage_colors(const PointCloud& cloud, const uint32_t* colors,
                               std::string* error) {
  std::lock_guard<std::mutex> lock(stage_mutex_);
  drop_staged();
  const uint64_t n = points_;
  if (!loaded_ || &cloud != cloud_ || cloud.size() != n || n == 0) {
    if (error) *error = "stage_colors: not the cloud uploaded last";
    return false;
  }
  if (sorted_ && host_orig_.empty() && !orig_) {
    if (error) *error = "stage_colors: the sorted cloud has no original index yet";
    return false;
  }
  std::string what;
  cudaError_t e = stage_buffer(&what);
  if (e == cudaSuccess) e = write_colors(colors, staged_, stage_stream_, &what);
  return finish_staging(cloud, colors, e, what, error);
}

/// The end of a staging call, with `e` the error of its last step (`what`): the staged colors are
/// `cloud`'s, from the host's array `colors` (stage_colors()) or, null, from a recipe
/// (stage_recipe()); or they are dropped.
bool DeviceCloud::finish_staging(const PointCloud& cloud, const uint32_t* colors, cudaError_t e,
                                 const std::string& what, std::string* error) {
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    drop_staged();
    if (error) *error = "CUDA: " + cuda_message(what.c_str(), e);
    return false;
  }
  staged_cloud_ = &cloud;
  staged_colors_ = colors;
  staged_recipe_ = !colors;
  return true;
}

/// The stage stream and the second color array (rgb_words() of the capacity), made for a
/// staging call.
cudaError_t DeviceCloud::stage_buffer(std::string* what) {
  *what = "cudaStreamCreate(stage)";
  cudaError_t e = stage_stream_ ? cudaSuccess
                                : cudaStreamCreateWithFlags(&stage_stream_, cudaStreamNonBlocking);
  if (e == cudaSuccess) {
    *what = "cudaMalloc(staged colors)";
    e = malloc_device(&staged_, rgb_words(cap_points_));
  }
  return e;
}

bool DeviceCloud::adopt_staged(const PointCloud& cloud) {
  return swap_staged(cloud, false);
}

bool DeviceCloud::show_staged_recipe(const PointCloud& cloud) {
  return swap_staged(cloud, true);
}

/// Swaps the staged colors in when they were staged for `cloud` as it is: by stage_recipe()
/// (`recipe`), or by stage_colors() from the array `cloud.colors` holds now. Drops what was
/// staged either way (the old array, or the staged one that does not match), but for the file's
/// colors, which a recipe's swap keeps (file_rgb_) when there is room.
bool DeviceCloud::swap_staged(const PointCloud& cloud, bool recipe) {
  std::lock_guard<std::mutex> lock(stage_mutex_);
  const bool match = staged_ && loaded_ && &cloud == cloud_ && staged_cloud_ == &cloud &&
                     cloud.size() == points_ && staged_recipe_ == recipe &&
                     (recipe || cloud.colors.data() == staged_colors_);
  if (match) {
    // A recipe's colors replace the file's: these go aside instead of being freed, when there is
    // room (a host's staging came because there was none).
    if (recipe && colors_file_ && !file_rgb_ && keep_file_colors())
      colors_ = staged_, staged_ = nullptr;
    else
      std::swap(colors_, staged_);
    colors_file_ = recipe && staged_file_;
  }
  drop_staged();
  return match;
}

void DeviceCloud::drop_staged() {
  free_device(staged_);
  staged_cloud_ = nullptr;
  staged_colors_ = nullptr;
  staged_recipe_ = false;
  staged_file_ = false;
}

/// pick_window()'s stream, the window's keys and indices (and the candidates' and the listed
/// batches' counts after them) for `pixels`, room for `candidates` and for the stored points'
/// batch list: made when missing or too small. The stream has the least priority: the frames'
/// blocks (on a stream of the greatest, cuda_renderer.cu) are scheduled before the pick's
/// waiting ones.
cudaError_t DeviceCloud::pick_buffers(size_t pixels, uint32_t candidates, std::string* what) {
  *what = "cudaStreamCreate(pick)";
  cudaError_t e = cudaSuccess;
  if (!pick_stream_) {
    int least = 0, greatest = 0;
    e = cudaDeviceGetStreamPriorityRange(&least, &greatest);
    if (e == cudaSuccess)
      e = cudaStreamCreateWithPriority(&pick_stream_, cudaStreamNonBlocking, least);
  }
  if (e == cudaSuccess && pick_cap_ < pixels) {
    free_device(pick_buf_);
    pick_cap_ = 0;
    *what = "cudaMalloc(pick window)";
    e = malloc_device(&pick_buf_, 2 * pixels + 2);
    if (e == cudaSuccess) pick_cap_ = pixels;
  }
  const uint64_t batches = (uint64_t(points_) + kPointBatch - 1) / kPointBatch;
  if (e == cudaSuccess && pick_list_cap_ < batches) {
    free_device(pick_list_);
    pick_list_cap_ = 0;
    *what = "cudaMalloc(pick batch list)";
    e = malloc_device(&pick_list_, batches);
    if (e == cudaSuccess) pick_list_cap_ = batches;
  }
  if (e == cudaSuccess && pick_candidates_cap_ != candidates) {
    free_device(pick_candidates_);
    pick_candidates_cap_ = 0;
    *what = "cudaMalloc(pick candidates)";
    e = malloc_device(&pick_candidates_, candidates);
    if (e == cudaSuccess) pick_candidates_cap_ = candidates;
  }
  return e;
}

void DeviceCloud::prepare_pick(uint32_t candidates) {
  std::lock_guard<std::mutex> lock(stage_mutex_);
  std::string what;
  if (pick_buffers(64 * 64, std::max(candidates, 1u), &what) != cudaSuccess)
    (void)cudaGetLastError();  // pick_window() tries again and reports
}

bool DeviceCloud::pick_window(const ProjParams& p, uint64_t count, uint32_t candidates,
                              PickWindow* w, std::string* error) {
  std::lock_guard<std::mutex> lock(stage_mutex_);
  const uint64_t n = points_;
  if (!loaded_ || n == 0 || (sorted_ && !orig_)) {
    if (error)
      *error = !loaded_ || n == 0 ? "pick: no cloud on the GPU"
                                  : "pick: the sorted cloud has no original index";
    return false;
  }
  PickInput in;
  in.p = p;
  in.x0 = w->x0, in.y0 = w->y0, in.x1 = w->x1, in.y1 = w->y1;
  if (compact_) {
    in.words = words_;
    in.batches = batches_;
  } else {
    in.pos = pos_;
    in.boxes = boxes_ready_ && pending_.empty() ? boxes_ : nullptr;  // boxes of every copy
  }
  in.colors = colors_;
  in.orig = sorted_ ? orig_ : nullptr;
  in.total = n;
  in.count = count;
  in.step = subset_step(n, count);
  in.subset = in.step != (uint64_t{1} << 32);  // not every point
  const size_t pixels = w->size();
  if (w->key.size() != pixels || w->index.size() != pixels) {
    if (error) *error = "pick: the window's arrays do not match its size";
    return false;
  }
  if (pixels == 0) return true;
  std::string what;
  cudaError_t e = pick_buffers(pixels, std::max(candidates, 1u), &what);
  in.candidates = pick_candidates_;
  in.candidate_count = pick_buf_ + 2 * pick_cap_;
  in.capacity = pick_candidates_cap_;
  in.list = pick_list_;
  in.list_count = pick_buf_ + 2 * pick_cap_ + 1;
  if (e == cudaSuccess && copied_) {  // update_points() copies on their way
    what = "cudaStreamWaitEvent(pick)";
    e = cudaStreamWaitEvent(pick_stream_, copied_, 0);
  }
  if (e == cudaSuccess) {
    what = "pick";
    e = launch_pick(in, pick_buf_, pick_buf_ + pixels, pick_stream_);
  }
  static_assert(sizeof(unsigned long long) == sizeof(uint64_t));
  if (e == cudaSuccess) {
    what = "cudaMemcpy(pick window)";
    e = cudaMemcpyAsync(w->key.data(), pick_buf_, pixels * sizeof(uint64_t), cudaMemcpyDeviceToHost,
                        pick_stream_);
  }
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(w->index.data(), pick_buf_ + pixels, pixels * sizeof(uint64_t),
                        cudaMemcpyDeviceToHost, pick_stream_);
  if (e == cudaSuccess) {
    what = "cudaStreamSynchronize(pick)";
    e = cudaStreamSynchronize(pick_stream_);
  }
  if (e != cudaSuccess) {
    if (error) *error = "CUDA: " + cuda_message(what.c_str(), e);
    return false;
  }
  return true;
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
