// One frame of the CUDA renderer (frame.h).
#include "frame.h"

#include <algorithm>

#include "cuda_check.h"
#include "engine/hq_splat.h"
#include "engine/size_grid.h"
#include "raster.h"

namespace pr::cuda {

Frame::~Frame() {
  free_device(keys_);
  free_device(rgba_);
  free_device(depth_);
  free_device(hq_acc_);
  free_device(hiz_);
  free_device(hidden_);
  free_device(list_count_);
  if (hidden_host_) PR_CUDA_LOG(cudaFreeHost(hidden_host_));
  if (graph_exec_) PR_CUDA_LOG(cudaGraphExecDestroy(graph_exec_));
  for (cudaEvent_t& e : ev_)
    if (e) PR_CUDA_LOG(cudaEventDestroy(e));
}

bool Frame::init(int sms, bool pdl, std::string* error) {
  sms_ = sms > 0 ? sms : 1;
  pdl_ = pdl;
  for (cudaEvent_t& e : ev_) PR_CUDA_TRY(cudaEventCreate(&e));
  // Occlusion culling's count of hidden batches, on the device and copied back each frame.
  PR_CUDA_TRY(malloc_device(&hidden_, 1));
  PR_CUDA_TRY(cudaHostAlloc(reinterpret_cast<void**>(&hidden_host_), sizeof(uint32_t),
                            cudaHostAllocDefault));
  // The counts of a culled frame's batch lists (the first pass's, the second pass's).
  PR_CUDA_TRY(malloc_device(&list_count_, 2));
  return true;
}

void Frame::forget_cloud() {
  occlusion_.reset();  // kAuto tries occlusion culling first
  hidden_pending_ = false;
  hiz_stale_ = true;  // another cloud's depths
  last_flags_ = nullptr;
  last_batches_ = 0;
  last_occlusion_ = false;
}

size_t Frame::memory_bytes() const {
  return cap_pixels_ * (sizeof(unsigned long long) + sizeof(uint32_t)) +
         (depth_ ? cap_pixels_ * sizeof(float) : 0) +
         (hq_acc_ ? 2 * cap_pixels_ * sizeof(unsigned long long) : 0) +
         (hiz_ ? hiz_words_ * sizeof(uint32_t) : 0);
}

bool Frame::reserve(size_t pixels, bool want_depth, bool hq, std::string* error) {
  if (pixels != cap_pixels_) {
    free_device(keys_);
    free_device(rgba_);
    free_device(depth_);
    free_device(hq_acc_);
    cap_pixels_ = 0;
    PR_CUDA_TRY(malloc_device(&keys_, pixels));
    PR_CUDA_TRY(malloc_device(&rgba_, pixels));
    cap_pixels_ = pixels;
    keys_clean_ = false;
  }
  if (want_depth && !depth_) PR_CUDA_TRY(malloc_device(&depth_, pixels));
  if (hq && !hq_acc_) {
    PR_CUDA_TRY(malloc_device(&hq_acc_, 2 * pixels));
    PR_CUDA_TRY(cudaMemsetAsync(hq_acc_, 0, 2 * pixels * sizeof(unsigned long long), stream_));
  }
  return true;
}

/// The Hi-Z of a width x height frame (HizView), reset to empty for a new size or cloud (an empty
/// Hi-Z defers no batch, so the first pass draws every batch in view).
bool Frame::reserve_hiz(int width, int height, std::string* error) {
  if (hiz_ && width == hiz_w_ && height == hiz_h_ && !hiz_stale_) return true;
  HizView v;
  v.width = width;
  v.height = height;
  const size_t words = v.total_words();
  if (words > hiz_words_) {
    free_device(hiz_);
    hiz_words_ = 0;
    PR_CUDA_TRY(malloc_device(&hiz_, words));
    hiz_words_ = words;
  }
  PR_CUDA_TRY(cudaMemsetAsync(hiz_, 0xff, words * sizeof(uint32_t), stream_));
  hiz_w_ = width;
  hiz_h_ = height;
  hiz_stale_ = false;
  return true;
}

/// Rounds of 1024 points a block of the raster kernel covers, for `points` stored points: the
/// most, up to 8, that still give the GPU twice the blocks it holds at once. Measured on the H200
/// (docs/GPU.md): more rounds a block are faster as long as the blocks fill the GPU (1e9 points
/// overview 3.73 -> 3.16 ms unculled with 4 rounds, 3.13 with 8; 1e7: 0.078 -> 0.073 with 4
/// rounds, 0.081 with 8, with fewer blocks than the GPU holds); one round keeps a small cloud's
/// parallelism (1e5 points with a batch a block: 0.013 -> 0.023 ms). 16 rounds: no faster with
/// every point in view, and slower inside the cloud at 1e8 points (0.077 against 0.055 ms with 8:
/// the few visible batches sit in few blocks).
int Frame::rounds_for(uint64_t points, const CudaTuning& tuning) const {
  if (tuning.rounds > 0) return tuning.rounds;
  const uint64_t resident = uint64_t(sms_) * 8;  // 256-thread blocks at once
  int r = 1;
  while (r < 8 && points / (uint64_t(r) * 2 * 1024) >= 2 * resident) r *= 2;
  return r;
}

/// Whether a frame drawing `count` of the stored points can run occlusion culling's two passes:
/// asked for, with culling on, the batch boxes on the device, and a walk that reads the batch
/// flags (every stored point, a subset of a permuted cloud, or compact positions).
bool Frame::occlusion_possible(const DeviceCloud& cloud, uint64_t count,
                               const RenderOptions& options) const {
  if (options.occlusion == Toggle::kOff || !options.culling || count == 0 || !cloud.has_boxes())
    return false;
  return count == cloud.points() || cloud.sorted() || cloud.compact();
}

FramePlan Frame::plan(const DeviceCloud& cloud, const ProjParams& p, const RenderSettings& s,
                      const RenderOptions& options, const CudaTuning& tuning,
                      bool occlusion) const {
  FramePlan f;
  const uint64_t n = cloud.points();
  f.count = effective_count(n, s.point_count);
  f.rounds = rounds_for(n, tuning);
  f.occlusion = occlusion;
  // Batches are culled when the raster walks every stored point (the flags cover the stored
  // order), in clouds of kGpuMinCullPoints and more (or with forced rounds), and when the whole
  // cloud is not surely in view (then no batch can be culled, and the tests would cost 2 - 3% of
  // the frame) or some batches have no finite point (a streaming pool's free slots: culled in
  // every view).
  const bool walks_flags = f.count == n || cloud.sorted() || cloud.compact();
  // A box still on its way back from an update (box_exact()) is not known: every batch is tested.
  const bool box_known = cloud.box_exact();
  const bool cull_pays =
      (tuning.rounds > 0 || n >= kGpuMinCullPoints) &&
      (!box_known || cloud.empty_batches() > 0 || !box_corners_in_view(p, cloud.box()) ||
       clip_.active());  // a clip culls the batches it hides whole
  f.cull = occlusion ||
           (options.culling && cloud.has_boxes() && f.count > 0 && walks_flags && cull_pays);
  // With culling on and the whole cloud surely inside the view: no box tests, and no per-point
  // image tests either.
  f.all_inside = options.culling && !f.cull && cloud.has_boxes() && box_known &&
                 box_surely_inside(p, cloud.box());
  // The pixels this frame's points can write (the cloud's box, splats included); the whole image
  // when the box is not known.
  f.reach = cloud.has_boxes() && box_known ? box_pixel_rect(p, cloud.box())
                                           : PixelRect{0, 0, p.width, p.height};
  return f;
}

GraphShape Frame::shape_of(const DeviceCloud& cloud, const FramePlan& plan, const RenderSettings& s,
                           const CudaTuning& tuning) const {
  GraphShape g;
  g.clear = !keys_clean_;
  g.draws = plan.count > 0;
  g.compact = cloud.compact();
  g.splats = frame_point_size(s) > 1;
  g.adaptive = size_.active();
  g.walk = plan.count == cloud.points() ? 0 : cloud.sorted() ? 2 : 1;
  g.cull = plan.cull;
  g.occlusion = plan.occlusion;
  g.all_inside = plan.all_inside;
  g.stage_timing = tuning.stage_timing;
  g.edl = s.edl;
  g.hq = s.hq;
  return g;
}

bool Frame::draw(const DeviceCloud& cloud, const Camera& camera, const RenderSettings& s,
                 const RenderOptions& options, const CudaTuning& tuning, uint32_t* rgba,
                 float* depth, FrameStats& stats, std::string* error, const SizeGrid& size) {
  // The kernels index pixels with 32 bits (4 G pixels: 51 GB of frame buffers), and the compact
  // raster tests a pixel's coordinates as integers below 2^23 (compact_to_pixel()). A region's
  // frame is the region's size.
  const int fw = frame_width(s), fh = frame_height(s);
  if (uint64_t(fw) * uint64_t(fh) > uint64_t(UINT32_MAX) || fw >= (1 << 23) || fh >= (1 << 23)) {
    if (error)
      *error = "image of " + std::to_string(fw) + "x" + std::to_string(fh) +
               " is too large for the GPU renderer (at most 2^32 - 1 pixels, 2^23 - 1 a side)";
    return false;
  }
  const uint64_t count = effective_count(cloud.points(), s.point_count);
  // The last occlusion-culled frame has completed (finish() waited for it): its count of hidden
  // batches decides kAuto's next choice.
  if (hidden_pending_) {
    occlusion_.report(*hidden_host_, 0);
    hidden_pending_ = false;
  }
  const bool occlusion = occlusion_possible(cloud, count, options) &&
                         occlusion_.choose_for_frame(options.occlusion, cloud.points());
  if (occlusion && !reserve_hiz(fw, fh, error)) return false;
  const ProjParams p = frame_params(camera, s, cloud.origin(), frame_point_size(s));
  if (!make_clip_params(s.clip, cloud.origin(), &clip_, error)) return false;
  // A clip that shows the whole cloud untinted changes nothing: the frame is drawn as one
  // without a clip (no batch tests, no per-point tests).
  if (clip_.active() && cloud.has_boxes() && cloud.box_exact() &&
      clip_box_class(clip_, cloud.box()) == kClipShown)
    clip_ = ClipParams{};
  size_ = p.point_size > 1 ? size : SizeGrid{};
  const FramePlan f = plan(cloud, p, s, options, tuning, occlusion);
  stats.points_drawn = f.count;
  if (!tuning.frame_graph) {
    if (!enqueue(cloud, p, f, s, tuning, rgba, depth, false, error)) return false;
    keys_clean_ = true;
    return true;
  }
  const GraphShape shape = shape_of(cloud, f, s, tuning);
  PR_CUDA_TRY(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
  std::string inner;
  const bool ok = enqueue(cloud, p, f, s, tuning, rgba, depth, true, &inner);
  cudaGraph_t graph = nullptr;
  const cudaError_t end = cudaStreamEndCapture(stream_, &graph);  // always end the capture
  if (!ok || end != cudaSuccess) {
    if (graph) PR_CUDA_LOG(cudaGraphDestroy(graph));
    if (error) *error = !ok ? inner : "CUDA: " + cuda_message("cudaStreamEndCapture", end);
    return false;
  }
  const bool launched = launch_graph(shape, graph, error);
  PR_CUDA_LOG(cudaGraphDestroy(graph));
  if (!launched) return false;
  keys_clean_ = true;
  return true;
}

/// The frame's operations are captured into a CUDA graph and launched as one: the graph is
/// captured each frame (the camera changes the kernels' parameters) and the instantiated graph
/// updated in place (cudaGraphExecUpdate) when the shape is the same, so the GPU runs the stages
/// back to back instead of waiting for each launch from the host. Another shape, or a refused
/// update, instantiates anew.
bool Frame::launch_graph(const GraphShape& shape, cudaGraph_t graph, std::string* error) {
  if (graph_exec_ && shape == graph_shape_) {
    cudaGraphExecUpdateResultInfo info{};
    if (cudaGraphExecUpdate(graph_exec_, graph, &info) != cudaSuccess) {
      (void)cudaGetLastError();
      PR_CUDA_LOG(cudaGraphExecDestroy(graph_exec_));
      graph_exec_ = nullptr;
    }
  } else if (graph_exec_) {
    PR_CUDA_LOG(cudaGraphExecDestroy(graph_exec_));
    graph_exec_ = nullptr;
  }
  graph_shape_ = shape;
  if (!graph_exec_) {
    const cudaError_t e = cudaGraphInstantiate(&graph_exec_, graph, 0);
    if (e != cudaSuccess) {
      graph_exec_ = nullptr;
      if (error) *error = "CUDA: " + cuda_message("cudaGraphInstantiate", e);
      return false;
    }
  }
  PR_CUDA_TRY(cudaGraphLaunch(graph_exec_, stream_));
  return true;
}

/// Records a timing event; inside a graph capture as an event-record node of the graph.
cudaError_t Frame::record(cudaEvent_t e, bool capturing) {
  return capturing ? cudaEventRecordWithFlags(e, stream_, cudaEventRecordExternal)
                   : cudaEventRecord(e, stream_);
}

/// Clear (only when the last resolve did not), box tests, raster (two passes with occlusion
/// culling), resolve into `rgba`. Records events 0 - 3.
bool Frame::enqueue(const DeviceCloud& cloud, const ProjParams& p, const FramePlan& f,
                    const RenderSettings& s, const CudaTuning& tuning, uint32_t* rgba, float* depth,
                    bool capturing, std::string* error) {
  const size_t npix = size_t(p.width) * size_t(p.height);
  const bool stages = tuning.stage_timing;
  stages_timed_ = stages;
  PR_CUDA_TRY(record(ev_[0], capturing));
  if (!keys_clean_)  // kEmptyKey is all ones
    PR_CUDA_TRY(cudaMemsetAsync(keys_, 0xff, npix * sizeof(unsigned long long), stream_));
  keys_clean_ = false;
  if (stages) PR_CUDA_TRY(record(ev_[1], capturing));
  DrawnPoints drawn;
  drawn.colors = cloud.colors();
  drawn.orig = cloud.original_index();
  drawn.permuted = cloud.sorted();
  drawn.total = cloud.points();
  drawn.count = f.count;
  drawn.pdl = pdl_;
  drawn.all_inside = f.all_inside;
  drawn.clip = clip_;
  drawn.size = size_;
  HizView hiz;
  hiz.words = hiz_;
  hiz.width = p.width;
  hiz.height = p.height;
  // High-quality splats: a batch is hidden only beyond kHqDepthRange of the depths in front of it.
  hiz.depth_scale = s.hq ? kHqDepthRange : 1.0f;
  last_flags_ = nullptr;
  if (f.cull && !enqueue_box_tests(cloud, p, f, hiz, drawn, error)) return false;
  if (!enqueue_raster(cloud, p, f, hiz, drawn, error)) return false;
  const bool hq = s.hq && f.count > 0;
  if (hq && !enqueue_hq(cloud, p, drawn, error)) return false;
  if (stages) PR_CUDA_TRY(record(ev_[2], capturing));
  if (!enqueue_resolve(s, f.reach, hq, rgba, depth, stages, error)) return false;
  PR_CUDA_TRY(record(ev_[3], capturing));
  // The hidden batches, for the next frame's choice; after the timed part.
  if (f.occlusion) {
    PR_CUDA_TRY(
        cudaMemcpyAsync(hidden_host_, hidden_, sizeof(uint32_t), cudaMemcpyDeviceToHost, stream_));
    hidden_pending_ = true;
  }
  return true;
}

/// A culled frame's box tests, a thread a batch: this frame's flags and the first pass's list
/// (into `drawn`); with occlusion culling they defer the batches the last frame's Hi-Z hides.
bool Frame::enqueue_box_tests(const DeviceCloud& cloud, const ProjParams& p, const FramePlan& f,
                              const HizView& hiz, DrawnPoints& drawn, std::string* error) {
  // Both passes' list counts from zero. The raster kernels run at most four times as many
  // blocks as the GPU holds at once (8 a multiprocessor), each over a share of the list.
  PR_CUDA_TRY(cudaMemsetAsync(list_count_, 0, 2 * sizeof(uint32_t), stream_));
  drawn.list = cloud.list();
  drawn.list_count = list_count_;
  drawn.list_blocks = unsigned(sms_) * 8u * 4u;
  const HizView last_hiz = f.occlusion ? hiz : HizView{};
  uint32_t* const hidden = f.occlusion ? hidden_ : nullptr;
  if (cloud.compact())
    launch_box_flags(p, cloud.compact_batches(), cloud.batches(), cloud.flags(), last_hiz, hidden,
                     cloud.list(), list_count_, stream_, clip_);
  else
    launch_box_flags(p, cloud.boxes(), cloud.batches(), cloud.flags(), last_hiz, hidden,
                     cloud.list(), list_count_, stream_, clip_);
  PR_CUDA_TRY(cudaGetLastError());  // the box tests' launch
  drawn.flags = cloud.flags();
  last_flags_ = cloud.flags();
  return true;
}

/// One raster pass over the stored points (the batches `d` flags and lists). False (nothing
/// launched) for a subset of a sorted cloud without its original index.
bool Frame::raster_pass(const DeviceCloud& cloud, const ProjParams& p, const FramePlan& f,
                        const DrawnPoints& d) {
  if (cloud.compact()) {
    CompactInput in;
    static_cast<DrawnPoints&>(in) = d;
    in.words = cloud.words();
    in.batches = cloud.compact_batches();
    // Batches of kCompactBatch (4 rounds of 1024) a block, or for fewer rounds a part of one
    // (1024 or 2048 points, so that a small cloud fills the GPU as with the float storage).
    constexpr int kRoundsABatch = int(kCompactBatch / 1024);
    in.rounds = std::max(1, f.rounds / kRoundsABatch);
    in.parts = f.rounds < kRoundsABatch ? kRoundsABatch / f.rounds : 1;
    return launch_compact_raster(p, in, keys_, stream_);
  }
  RasterInput in;
  static_cast<DrawnPoints&>(in) = d;
  in.pos = cloud.positions();
  in.rounds = f.rounds;
  return launch_raster(p, in, keys_, stream_);
}

/// The raster pass, or with occlusion culling both passes and the Hi-Z and flags between them;
/// keeps what last_batch_counts() reports.
bool Frame::enqueue_raster(const DeviceCloud& cloud, const ProjParams& p, const FramePlan& f,
                           const HizView& hiz, DrawnPoints& drawn, std::string* error) {
  bool launched = raster_pass(cloud, p, f, drawn);
  if (launched && f.occlusion) {
    if (!between_passes(cloud, p, hiz, f.reach, error)) return false;
    drawn.list_count = list_count_ + 1;  // the second pass's list
    launched = raster_pass(cloud, p, f, drawn);
  }
  last_batches_ = f.count > 0 ? cloud.batches() : 0;
  if (f.count == 0) last_flags_ = nullptr;
  last_occlusion_ = f.occlusion;
  if (!launched) {
    if (error) *error = "CUDA: a subset of a sorted cloud without its original index";
    return false;
  }
  PR_CUDA_TRY(cudaGetLastError());  // the raster launch
  return true;
}

/// High-quality splats: the drawn points again, into the accumulators (hq_splat.cu).
bool Frame::enqueue_hq(const DeviceCloud& cloud, const ProjParams& p, const DrawnPoints& drawn,
                       std::string* error) {
  HqInput in;
  static_cast<DrawnPoints&>(in) = drawn;
  in.compact = cloud.compact();
  in.pos = cloud.positions();
  in.words = cloud.words();
  in.batches = cloud.compact_batches();
  if (!launch_hq_accumulate(p, in, keys_, hq_acc_, unsigned(sms_) * 8u * 4u, stream_)) {
    if (error) *error = "CUDA: a subset of a sorted cloud without its original index";
    return false;
  }
  PR_CUDA_TRY(cudaGetLastError());  // the accumulation's launch
  return true;
}

/// The resolve reads only the keys of the pixels this frame's points can write (`reach`) and
/// writes the rest as background; eye-dome lighting and high-quality splats (`hq`) take the
/// shaded resolve. With stage events an event sits between the raster and the resolve
/// (`stages`): no dependent launch.
bool Frame::enqueue_resolve(const RenderSettings& s, const PixelRect& reach, bool hq,
                            uint32_t* rgba, float* depth, bool stages, std::string* error) {
  const int fw = frame_width(s), fh = frame_height(s);
  if (s.edl || hq) {
    const EdlParams e = edl_params(s.edl_strength, s.edl_radius);
    PR_CUDA_TRY(launch_resolve_shaded(keys_, fw, fh, reach, s.edl ? &e : nullptr,
                                      hq ? hq_acc_ : nullptr, s.background, rgba, depth, stream_));
    return true;
  }
  launch_resolve(keys_, fw, fh, reach, s.background, rgba, depth, stream_, pdl_ && !stages);
  PR_CUDA_TRY(cudaGetLastError());  // the resolve launch
  return true;
}

/// Occlusion culling between its raster passes: the Hi-Z of the first pass's keys (the pixels
/// `reach` holds all it can have written), then the second pass's flags and list.
bool Frame::between_passes(const DeviceCloud& cloud, const ProjParams& p, const HizView& hiz,
                           const PixelRect& reach, std::string* error) {
  PR_CUDA_TRY(cudaGetLastError());  // the first pass
  launch_hiz(keys_, hiz.width, hiz.height, reach, hiz_, stream_, pdl_);
  if (cloud.compact())
    launch_occlusion_flags(p, cloud.compact_batches(), cloud.batches(), hiz, cloud.flags(), hidden_,
                           cloud.list(), list_count_ + 1, stream_, pdl_);
  else
    launch_occlusion_flags(p, cloud.boxes(), cloud.batches(), hiz, cloud.flags(), hidden_,
                           cloud.list(), list_count_ + 1, stream_, pdl_);
  PR_CUDA_TRY(cudaGetLastError());
  return true;
}

bool Frame::finish(FrameStats& st, bool with_copy, std::string* error) {
  PR_CUDA_TRY(cudaEventRecord(ev_[4], stream_));
  PR_CUDA_TRY(cudaEventSynchronize(ev_[4]));
  float ms[4] = {};
  if (stages_timed_) {
    for (int i = 0; i < 3; ++i) PR_CUDA_TRY(cudaEventElapsedTime(&ms[i], ev_[i], ev_[i + 1]));
  } else {  // the whole GPU frame, reported as raster
    PR_CUDA_TRY(cudaEventElapsedTime(&ms[1], ev_[0], ev_[3]));
  }
  if (with_copy) PR_CUDA_TRY(cudaEventElapsedTime(&ms[3], ev_[3], ev_[4]));
  st.stages = stages_timed_;
  st.clear_ms = ms[0];
  st.raster_ms = ms[1];
  st.resolve_ms = ms[2];
  st.copy_ms = ms[3];
  return true;
}

bool Frame::last_batch_counts(CudaRenderer::BatchCounts* out, std::string* error) const {
  *out = CudaRenderer::BatchCounts{};
  if (last_batches_ == 0) {
    if (error) *error = "the last frame drew no points (or there was none)";
    return false;
  }
  if (!last_flags_) {  // no box tests (the whole cloud in view): every batch drawn
    out->batches = out->first = last_batches_;
    return true;
  }
  std::vector<uint8_t> f(last_batches_);
  PR_CUDA_TRY(cudaMemcpyAsync(f.data(), last_flags_, f.size(), cudaMemcpyDeviceToHost, stream_));
  PR_CUDA_TRY(cudaStreamSynchronize(stream_));
  out->batches = last_batches_;
  out->occlusion = last_occlusion_;
  for (const uint8_t v : f) {
    if (v == kBatchCulled)
      ++out->culled;
    else if (v == kBatchOccluded)
      ++out->occluded;
    else if (v & kBatchFirst || !last_occlusion_)
      ++out->first;
    else
      ++out->second;
  }
  return true;
}

bool Frame::download_hiz(std::vector<uint32_t>* out, int* width, int* height,
                         std::string* error) const {
  if (!hiz_) {
    if (error) *error = "no Hi-Z: no frame ran occlusion culling";
    return false;
  }
  HizView v;
  v.width = hiz_w_;
  v.height = hiz_h_;
  out->resize(v.total_words());
  PR_CUDA_TRY(cudaMemcpyAsync(out->data(), hiz_, out->size() * sizeof(uint32_t),
                              cudaMemcpyDeviceToHost, stream_));
  PR_CUDA_TRY(cudaStreamSynchronize(stream_));
  *width = hiz_w_;
  *height = hiz_h_;
  return true;
}

}  // namespace pr::cuda
