// The pick's buffers and launch on the device (device_cloud.h): a window of keys and point
// indices around the clicked pixel, on a stream of the least priority.
#include "device_cloud.h"

#include <algorithm>

#include "cuda_check.h"
#include "raster.h"

namespace pr::cuda {

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
                              uint32_t launch_batches, PickWindow* w, std::string* error,
                              const ClipParams& clip, const SizeGrid& size) {
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
  in.clip = clip;
  in.size = size;
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
  in.launch_batches = launch_batches;
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

}  // namespace pr::cuda
