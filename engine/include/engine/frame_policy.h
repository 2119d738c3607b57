// When a renderer culls, occludes, bins and sorts: one policy for the CPU and the GPU renderer.
// The rules are the same; the thresholds that must differ (a frame's fixed costs differ by three
// orders of magnitude) are named per renderer, each with the measurement that set it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/point_cloud.h"
#include "engine/renderer.h"

namespace pr {

/// Occlusion culling's kAuto rule: clouds of at least `min_points` stored points run it while the
/// last frame that ran it found at least `min_hidden` batches hidden (and, when
/// `min_hidden_share` is not 0, at least 1 / min_hidden_share of the batches in view); otherwise
/// every `probe_frames`-th frame (at least 1) tries again.
struct OcclusionRule {
  uint64_t min_points;
  uint64_t min_hidden;
  uint32_t min_hidden_share;
  uint32_t probe_frames;
};

// The CPU: 2^25 points, and an eighth of the batches in view hidden. 2 cores: 1e7 points seen
// whole hide 46% of their batches yet draw in 27.7 ms with it, 26.2 without (the hidden points
// were cheap: a vectorized projection, then an early depth test that fails); 1e8 points draw in
// 60 ms with it, 213 without.
constexpr OcclusionRule kCpuOcclusion{uint64_t{1} << 25, 1, 8, 16};
// The GPU: 2^24 points, and 4096 batches hidden (the two passes cost three more dependent
// kernels, about 16 us a frame on the H200). H200, Morton cube seen whole: 3e7 points 0.090 ms
// with it, 0.129 without; 2e7 hid 3348 batches and lost.
constexpr OcclusionRule kGpuOcclusion{uint64_t{1} << 24, 4096, 0, 16};

/// Occlusion culling's choice across frames, for one renderer and one cloud.
class OcclusionPolicy {
 public:
  explicit OcclusionPolicy(const OcclusionRule& rule) : rule_(rule) {}
  /// A new cloud: nothing is known, so the next frame that can run occlusion culling does.
  void reset();
  /// Decides whether this frame runs occlusion culling, and counts the frame for kAuto's probes.
  /// Call once a frame, and only for frames that can run it (culling on, the batch boxes known).
  bool choose_for_frame(Toggle mode, uint64_t stored_points);
  /// What the last frame that ran it found: the batches its Hi-Z hid, and the batches in view
  /// (0 when the renderer does not count them; then only min_hidden applies).
  void report(uint64_t hidden_batches, uint64_t batches_in_view);

 private:
  OcclusionRule rule_;
  uint64_t hidden_ = ~uint64_t{0};  // unknown
  uint64_t in_view_ = 0;
  uint32_t plain_frames_ = 0;  // frames since it last ran
};

/// kAuto bins the CPU's 1-pixel points in frames whose last frame drew at least this many (fewer
/// do not pay for the binning's two more passes).
// 16 cores, 1e5 points with 600 drawn: 0.18 ms binned against 0.13 ms direct.
constexpr uint64_t kMinBinnedPoints = uint64_t{1} << 15;
/// kAuto bins only frames that draw at most this many points a pixel (denser frames keep the
/// direct early test, which most of their points fail without a write).
constexpr uint64_t kMaxBinnedPointsPerPixel = 2;

/// Whether a CPU frame bins its points: never for splats (point size > 1); kAuto as above, with
/// `last_drawn` the points the last frame handed to the depth test (~0 when unknown).
bool bin_frame(Toggle mode, bool splats, uint64_t points, size_t pixels, uint64_t last_drawn);

/// The GPU culls batches only in clouds of at least this many points (or with forced rounds).
// H200, 1e6 points inside the cloud: 0.0147 ms culled, 0.0144 not (the whole cloud reads in
// microseconds).
constexpr uint64_t kGpuMinCullPoints = uint64_t{1} << 20;

/// Whether the stored order of `cloud` is sorted along a Morton curve (RenderOptions::sort): kOff
/// never, kOn for every cloud of 2 points or more, kAuto when order_coherence() is below
/// kCoherentOrder (engine/morton.h). `local_bounds`: the cloud's local_bounds(). The GPU's upload
/// and both renderers' compact encoders ask this one function, so they store the same order.
bool wants_spatial_sort(Toggle sort, const PointCloud& cloud, const Bounds& local_bounds);

}  // namespace pr
