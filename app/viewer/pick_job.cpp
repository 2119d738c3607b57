#include "viewer/pick_job.h"

#include <new>

#include "engine/frame_policy.h"
#include "engine/frame_stats.h"

namespace pr {

bool PickJob::start(Request request) {
  if (busy() || !request.cloud) return false;
  done_ = false;
  cancel_ = false;
  cloud_ = request.cloud.get();
  thread_ = std::thread([this, q = std::move(request)]() mutable { run(std::move(q)); });
  return true;
}

void PickJob::run(Request q) {
  Stopwatch sw;
  Result r;
  r.cloud = q.cloud.get();
  if (wait_while_held()) {
    try {
      if (!pick_on_device(q, r)) pick_on_host(q, r);
    } catch (const std::bad_alloc&) {
      gpu_compact_ = CompactCloud{};
      boxes_ = PodVector<PointBox>();
      r.error = "out of memory preparing the pick";
    }
  }
  r.ms = sw.ms();
  result_ = std::move(r);
  done_ = true;
}

bool PickJob::pick_on_device(const Request& q, Result& r) {
  if (!q.device) return false;
  PickWindow w;
  if (!pick_window_at(q.x, q.y, q.radius, q.settings.width, q.settings.height, &w)) {
    r.ok = true;  // outside the image: nothing there
    return true;
  }
  if (q.device(*q.cloud, q.camera, q.settings, &w, &r.error)) {
    r.pick = pick_from_window(*q.cloud, w, q.x, q.y, q.radius);
    r.ok = true;
    return true;
  }
  return !r.error.empty();  // failed with a message, or the host picks
}

void PickJob::pick_on_host(const Request& q, Result& r) {
  const PointCloud& pc = *q.cloud;
  if (made_for_.lock() != q.cloud || made_size_ != pc.size() || made_sort_ != q.sort) {
    gpu_compact_ = CompactCloud{};
    boxes_ = PodVector<PointBox>();
    made_for_ = q.cloud;
    made_size_ = pc.size();
    made_sort_ = q.sort;
  }
  const CompactCloud* compact = q.cpu_compact.get();
  if (q.gpu_compact) {
    if (gpu_compact_.words.size() != pc.size()) {
      const bool morton = wants_spatial_sort(q.sort, pc, pc.local_bounds());
      if (!build_compact(pc, morton, &gpu_compact_, &r.error)) {
        gpu_compact_ = CompactCloud{};
        return;
      }
    }
    compact = &gpu_compact_;
  }
  // Float positions: batch boxes let the pass skip the batches that cannot reach the click.
  const PodVector<PointBox>* boxes = compact            ? nullptr
                                     : !q.boxes.empty() ? &q.boxes
                                                        : boxes_for_pick(pc, nullptr, &boxes_);
  r.pick = pick_point(pc, compact, q.camera, q.settings, q.x, q.y, q.radius, 0, boxes, &cancel_);
  r.ok = !cancel_.load();
}

bool PickJob::wait_while_held() {
  std::unique_lock<std::mutex> lock(hold_mutex_);
  hold_cv_.wait(lock, [this] { return !held_ || cancel_.load(); });
  return !cancel_.load();
}

bool PickJob::take(Result& out) {
  if (!thread_.joinable() || !done_.load()) return false;
  thread_.join();
  out = std::move(result_);
  result_ = Result{};
  cloud_ = nullptr;
  return true;
}

void PickJob::cancel() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(hold_mutex_);
    cancel_ = true;
  }
  hold_cv_.notify_all();
  thread_.join();
  result_ = Result{};
  cloud_ = nullptr;
}

void PickJob::forget_positions() {
  cancel();
  made_for_.reset();
  gpu_compact_ = CompactCloud{};
  boxes_ = PodVector<PointBox>();
}

void PickJob::hold(bool on) {
  {
    std::lock_guard<std::mutex> lock(hold_mutex_);
    held_ = on;
  }
  hold_cv_.notify_all();
}

}  // namespace pr
