// One frame of the CUDA renderer: what it runs (the plan: culling, occlusion culling, the inside
// shortcut, the rounds a block), the stream operations that run it (clear, box tests, raster
// passes, Hi-Z, resolve), the CUDA graph that launches them as one, and the events that time it.
// It owns the frame buffers: the 64-bit visibility buffer, the RGBA8 and depth images of the
// host-copy path, the Hi-Z.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "device_cloud.h"
#include "engine/camera.h"
#include "engine/clip_math.h"
#include "engine/culling.h"
#include "engine/frame_policy.h"
#include "engine/frame_stats.h"
#include "engine/point_size.h"
#include "engine/renderer.h"
#include "kernels/cuda_renderer.h"

namespace pr::cuda {

struct DrawnPoints;  // raster.h

/// What a frame runs, decided before anything is enqueued.
struct FramePlan {
  uint64_t count = 0;       ///< points drawn
  int rounds = 1;           ///< rounds of 1024 points a raster block
  bool cull = false;        ///< box tests (which list the batches that draw) before the raster
  bool occlusion = false;   ///< occlusion culling's two passes (with cull)
  bool all_inside = false;  ///< no box tests, and the whole cloud surely inside the view
  PixelRect reach;          ///< the pixels this frame's points can write
};

/// What decides the operations a frame's graph holds and the kernels they launch: two frames of
/// the same shape differ only in parameters, so the instantiated graph is updated in place.
struct GraphShape {
  bool clear = false;     ///< a memset of the keys first (the last resolve did not clear them)
  bool draws = false;     ///< raster passes at all (points to draw)
  bool compact = false;   ///< the compact raster kernel
  bool splats = false;    ///< point size > 1
  bool adaptive = false;  ///< adaptive point sizes: the splat kernels compiled with them
  uint8_t walk = 0;   ///< 0 every stored point, 1 a subset in stored order, 2 of a permuted cloud
  bool cull = false;  ///< box tests and the list
  bool occlusion = false;     ///< two passes, the Hi-Z and the second pass's flags
  bool all_inside = false;    ///< the raster kernel without image tests
  bool stage_timing = false;  ///< events between the stages
  bool edl = false;           ///< the resolve with eye-dome lighting, then a clear of the keys
  bool hq = false;            ///< high-quality splats' second pass, and the resolve that averages
  bool operator==(const GraphShape&) const = default;
};

class Frame {
 public:
  /// Runs on `stream` (the renderer's; it outlives this object).
  explicit Frame(cudaStream_t stream) : stream_(stream) {}
  ~Frame();
  Frame(const Frame&) = delete;
  Frame& operator=(const Frame&) = delete;

  /// The events and small device buffers; `sms`: the device's multiprocessors, `pdl`: whether it
  /// runs programmatic dependent launches (compute capability 9.0 and up).
  bool init(int sms, bool pdl, std::string* error);
  /// A new cloud: the Hi-Z, the occlusion policy and the last frame's counts belong to the old one.
  void forget_cloud();

  /// The buffers of a frame of `pixels` pixels (the depth image when `want_depth`, the
  /// high-quality splats' accumulators when `hq`).
  bool reserve(size_t pixels, bool want_depth, bool hq, std::string* error);
  uint32_t* rgba() const { return rgba_; }
  float* depth() const { return depth_; }

  /// Draws `cloud` into `rgba` (device memory or the mapped GL buffer) and `depth` (or null),
  /// after reserve(): plans, enqueues (as one graph launch with tuning.frame_graph) and records
  /// events 0 - 3. Nothing waits for it: the caller enqueues its copies, then calls finish().
  /// `size`: the frame's adaptive point sizes (engine/point_size.h, the table on the device), or
  /// inactive.
  bool draw(const DeviceCloud& cloud, const Camera& camera, const RenderSettings& settings,
            const RenderOptions& options, const CudaTuning& tuning, uint32_t* rgba, float* depth,
            FrameStats& stats, std::string* error, const SizeGrid& size = SizeGrid{});
  /// Records the last event after the caller's copies, waits for it and fills the GPU times of
  /// `stats` (copy_ms: the copies between draw() and finish() when `with_copy`).
  bool finish(FrameStats& stats, bool with_copy, std::string* error);

  bool last_batch_counts(CudaRenderer::BatchCounts* out, std::string* error) const;
  bool download_hiz(std::vector<uint32_t>* out, int* width, int* height, std::string* error) const;
  /// Device bytes of the frame buffers.
  size_t memory_bytes() const;

 private:
  FramePlan plan(const DeviceCloud& cloud, const ProjParams& p, const RenderSettings& settings,
                 const RenderOptions& options, const CudaTuning& tuning, bool occlusion) const;
  bool occlusion_possible(const DeviceCloud& cloud, uint64_t count,
                          const RenderOptions& options) const;
  int rounds_for(uint64_t points, const CudaTuning& tuning) const;
  GraphShape shape_of(const DeviceCloud& cloud, const FramePlan& plan, const RenderSettings& s,
                      const CudaTuning& tuning) const;
  bool reserve_hiz(int width, int height, std::string* error);
  bool enqueue(const DeviceCloud& cloud, const ProjParams& p, const FramePlan& plan,
               const RenderSettings& s, const CudaTuning& tuning, uint32_t* rgba, float* depth,
               bool capturing, std::string* error);
  bool between_passes(const DeviceCloud& cloud, const ProjParams& p, const HizView& hiz,
                      const PixelRect& reach, std::string* error);
  bool enqueue_box_tests(const DeviceCloud& cloud, const ProjParams& p, const FramePlan& f,
                         const HizView& hiz, DrawnPoints& drawn, std::string* error);
  bool raster_pass(const DeviceCloud& cloud, const ProjParams& p, const FramePlan& f,
                   const DrawnPoints& d);
  bool enqueue_raster(const DeviceCloud& cloud, const ProjParams& p, const FramePlan& f,
                      const HizView& hiz, DrawnPoints& drawn, std::string* error);
  bool enqueue_hq(const DeviceCloud& cloud, const ProjParams& p, const DrawnPoints& drawn,
                  std::string* error);
  bool enqueue_resolve(const RenderSettings& s, const PixelRect& reach, bool hq, uint32_t* rgba,
                       float* depth, bool stages, std::string* error);
  bool launch_graph(const GraphShape& shape, cudaGraph_t graph, std::string* error);
  cudaError_t record(cudaEvent_t e, bool capturing);

  cudaStream_t stream_;
  ClipParams clip_;  // this frame's clip (RenderSettings::clip) in the cloud's local frame
  SizeGrid size_;    // this frame's adaptive sizes, or inactive
  int sms_ = 1;
  bool pdl_ = false;
  cudaEvent_t ev_[5] = {};
  bool stages_timed_ = false;  // the last frame recorded events 1 and 2
  // The visibility buffer (kEmptyKey where empty, kept so by the resolve) and the images of the
  // host-copy path.
  unsigned long long* keys_ = nullptr;
  uint32_t* rgba_ = nullptr;
  float* depth_ = nullptr;
  // High-quality splats' accumulators (engine/hq_splat.h): two words a pixel, all zero between
  // frames (the resolve resets what the frame added).
  unsigned long long* hq_acc_ = nullptr;
  size_t cap_pixels_ = 0;
  bool keys_clean_ = false;
  // The graph of the last frame, and its shape.
  cudaGraphExec_t graph_exec_ = nullptr;
  GraphShape graph_shape_;
  // Occlusion culling: the Hi-Z of the last frame's first pass, the batches it hid (on the device
  // and its copy in pinned host memory), the counts of both passes' batch lists.
  OcclusionPolicy occlusion_{kGpuOcclusion};
  uint32_t* hiz_ = nullptr;
  size_t hiz_words_ = 0;
  int hiz_w_ = 0, hiz_h_ = 0;
  bool hiz_stale_ = true;
  uint32_t* hidden_ = nullptr;
  uint32_t* hidden_host_ = nullptr;
  bool hidden_pending_ = false;  // an occlusion-culled frame's count still to report
  uint32_t* list_count_ = nullptr;
  // The last frame's batch flags (for last_batch_counts()), or null: no box tests.
  const uint8_t* last_flags_ = nullptr;
  uint64_t last_batches_ = 0;
  bool last_occlusion_ = false;
};

}  // namespace pr::cuda
