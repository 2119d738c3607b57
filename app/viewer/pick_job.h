// A pick off the drawing thread: a click hands the frame's camera and settings to a PickJob, which
// finds the point on its own thread while the window keeps drawing (engine/pick.h: the GPU's pass
// where the GPU draws, else a pass over the host cloud); the viewer takes the picked point when it
// is ready. The job keeps the float positions' batch boxes it made for the next pick of the same
// cloud.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "engine/camera.h"
#include "engine/compact.h"
#include "engine/culling.h"
#include "engine/pick.h"
#include "engine/point_cloud.h"
#include "engine/renderer.h"
#include "engine/size_grid.h"

namespace pr {

class PickJob {
 public:
  /// One click: the pixel of the frame drawn with `camera` and `settings`, and the positions that
  /// frame drew from.
  struct Request {
    std::shared_ptr<const PointCloud> cloud;
    Camera camera;
    RenderSettings settings;
    int x = 0, y = 0, radius = 0;
    /// The GPU draws: the pick's pass runs there (RenderBackend::pick_window()); false with no
    /// message when the GPU holds another cloud (the pick is dropped).
    std::function<bool(const PointCloud&, const Camera&, const RenderSettings&, PickWindow*,
                       std::string*)>
        device;
    /// The CPU draws: its compact form when it draws one (held while the job runs), else float
    /// positions with its batch boxes when it has them for the cloud (empty: the job makes them,
    /// once for the cloud).
    std::shared_ptr<const CompactCloud> cpu_compact;
    PodVector<PointBox> boxes;
    /// The CPU draws adaptive sizes: the density grid its frames use (held while the job runs;
    /// null: the pick makes one, engine/pick.h).
    std::shared_ptr<const SizeGridTable> cpu_sizes;
  };
  struct Result {
    bool ok = false;    ///< the pick ran (whether or not it found a point)
    std::string error;  ///< why it did not
    PickResult pick;
    const PointCloud* cloud = nullptr;  ///< the cloud it picked in
    double ms = 0.0;
  };

  PickJob() = default;
  ~PickJob() { cancel(); }
  PickJob(const PickJob&) = delete;
  PickJob& operator=(const PickJob&) = delete;

  /// Starts the pick; refused (false) while one runs. The cloud's positions and colors must not
  /// change until it ends (reads()); the job holds the cloud itself.
  bool start(Request request);
  bool busy() const { return thread_.joinable(); }
  /// Whether a running pick reads `cloud`.
  bool reads(const PointCloud* cloud) const { return busy() && cloud_ == cloud; }
  /// When the pick has finished: joins and returns its result (once); otherwise false.
  bool take(Result& out);
  /// Stops a running pick (within a batch of points) and drops its result.
  void cancel();
  /// What the job made for the cloud came from positions that changed in place (the class
  /// filter, a streamed pool's arrivals); a running pick is cancelled.
  void forget_positions();
  /// Tests: while held, a started pick waits before its first point (so a test sees the window
  /// drawing with a pick in flight); releasing lets it run.
  void hold(bool on);

 private:
  void run(Request request);
  void pick_on_device(const Request& q, Result& r);
  void pick_on_host(const Request& q, Result& r);
  bool wait_while_held();  // false when cancelled meanwhile

  std::thread thread_;
  std::atomic<bool> done_{false}, cancel_{false};
  const PointCloud* cloud_ = nullptr;  // the running pick's cloud
  Result result_;
  std::mutex hold_mutex_;
  std::condition_variable hold_cv_;
  bool held_ = false;
  // Batch boxes made for `made_for_` (of its size), kept between picks.
  std::weak_ptr<const PointCloud> made_for_;
  uint64_t made_size_ = 0;
  PodVector<PointBox> boxes_;
};

}  // namespace pr
