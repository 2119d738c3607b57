// The cloud's colors on the device (device_cloud.h): uploads through pinned buffers, new
// colors for the stored cloud, and colors staged on another thread and swapped in between frames.
#include "device_cloud.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "cuda_check.h"
#include "engine/parallel.h"
#include "raster.h"

namespace pr::cuda {

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

}  // namespace pr::cuda
