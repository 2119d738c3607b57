#include "engine/frame_policy.h"

#include <algorithm>

#include "engine/morton.h"

namespace pr {

void OcclusionPolicy::reset() {
  hidden_ = ~uint64_t{0};
  in_view_ = 0;
  plain_frames_ = 0;
}

bool OcclusionPolicy::choose_for_frame(Toggle mode, uint64_t stored_points) {
  if (mode == Toggle::kOff) return false;
  if (mode == Toggle::kOn) return true;
  if (stored_points < rule_.min_points) return false;
  // Worth it while the last run hid enough batches (or before any run).
  const bool unknown = hidden_ == ~uint64_t{0};
  const bool enough = hidden_ >= rule_.min_hidden &&
                      (rule_.min_hidden_share == 0 || hidden_ * rule_.min_hidden_share >= in_view_);
  if (unknown || enough) {
    plain_frames_ = 0;
    return true;
  }
  return ++plain_frames_ % rule_.probe_frames == 0;
}

void OcclusionPolicy::report(uint64_t hidden_batches, uint64_t batches_in_view) {
  hidden_ = hidden_batches;
  in_view_ = batches_in_view;
}

bool bin_frame(Toggle mode, bool splats, uint64_t points, size_t pixels, uint64_t last_drawn) {
  if (splats || mode == Toggle::kOff) return false;
  if (mode == Toggle::kOn) return true;
  return points <= kMaxBinnedPointsPerPixel * uint64_t(pixels) &&
         std::min(points, last_drawn) >= kMinBinnedPoints;
}

bool wants_spatial_sort(Toggle sort, const PointCloud& cloud, const Bounds& local_bounds) {
  if (sort == Toggle::kOff || cloud.size() < 2) return false;
  return sort == Toggle::kOn || order_coherence(cloud, local_bounds) < kCoherentOrder;
}

}  // namespace pr
