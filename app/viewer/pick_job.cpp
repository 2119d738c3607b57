#include "viewer/pick_job.h"

#include <new>

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
      if (q.device)
        pick_on_device(q, r);
      else
        pick_on_host(q, r);
    } catch (const std::bad_alloc&) {
      boxes_ = PodVector<PointBox>();
      r.error = "out of memory preparing the pick";
    }
  }
  r.ms = sw.ms();
  result_ = std::move(r);
  done_ = true;
}

void PickJob::pick_on_device(const Request& q, Result& r) {
  PickWindow w;
  if (!pick_window_at(q.x, q.y, q.radius, q.settings.width, q.settings.height, &w)) {
    r.ok = true;  // outside the image: nothing there
    return;
  }
  // False with no message: the GPU holds another cloud, so the click's cloud is gone.
  r.ok = q.device(*q.cloud, q.camera, q.settings, &w, &r.error);
  if (r.ok) r.pick = pick_from_window(*q.cloud, w, q.x, q.y, q.radius);
}

void PickJob::pick_on_host(const Request& q, Result& r) {
  const PointCloud& pc = *q.cloud;
  if (made_for_.lock() != q.cloud || made_size_ != pc.size()) {
    boxes_ = PodVector<PointBox>();
    made_for_ = q.cloud;
    made_size_ = pc.size();
  }
  const CompactCloud* compact = q.cpu_compact.get();
  // Float positions: batch boxes let the pass skip the batches that cannot reach the click.
  const PodVector<PointBox>* boxes = compact            ? nullptr
                                     : !q.boxes.empty() ? &q.boxes
                                                        : boxes_for_pick(pc, nullptr, &boxes_);
  r.pick = pick_point(pc, compact, q.camera, q.settings, q.x, q.y, q.radius, 0, boxes, &cancel_,
                      q.cpu_sizes.get());
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
