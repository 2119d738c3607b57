// Per-frame timings by stage, and a rolling history for the panel's plot.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace pr {

struct FrameStats {
  double clear_ms = 0.0;      ///< clearing the depth/visibility buffer
  double raster_ms = 0.0;     ///< projection and depth-tested rasterization
  double resolve_ms = 0.0;    ///< visibility buffer -> RGBA8
  double copy_ms = 0.0;       ///< device->host or device->GL copy, when there is one
  double total_ms = 0.0;      ///< whole render() call
  uint64_t points_drawn = 0;  ///< points submitted this frame
  /// Whether clear/raster/resolve are timed apart. The CUDA renderer times only the whole GPU
  /// frame unless asked (set_stage_timing): then raster_ms holds clear + raster + resolve.
  bool stages = true;
  double points_per_second() const {
    return total_ms > 0.0 ? double(points_drawn) / (total_ms * 1e-3) : 0.0;
  }
};

/// A fixed-size ring of the last N values, oldest first via values().
class History {
 public:
  explicit History(size_t capacity = 300) : data_(capacity, 0.0f) {}
  void push(float v) {
    data_[next_] = v;
    next_ = (next_ + 1) % data_.size();
    if (count_ < data_.size()) ++count_;
  }
  size_t size() const { return count_; }
  size_t capacity() const { return data_.size(); }
  /// Values oldest first (copies; for plotting).
  std::vector<float> values() const;
  float average() const;
  float max() const;

 private:
  std::vector<float> data_;
  size_t next_ = 0, count_ = 0;
};

/// A monotonic stopwatch in milliseconds.
class Stopwatch {
 public:
  Stopwatch() : t0_(std::chrono::steady_clock::now()) {}
  void reset() { t0_ = std::chrono::steady_clock::now(); }
  double ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_)
        .count();
  }

 private:
  std::chrono::steady_clock::time_point t0_;
};

/// Median of a list of values (copies); 0 for an empty list.
double median(std::vector<double> v);

}  // namespace pr
