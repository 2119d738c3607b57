// The CUDA renderer: owns the device copy of the cloud, the visibility buffer, the RGBA8 output
// buffer (for render(), the host-copy path) and the CUDA-OpenGL interop resource (render_to_gl(),
// which resolves straight into the GL pixel buffer). Each frame is three stream operations: the
// raster kernel, the resolve kernel (which also clears the visibility buffer for the next frame)
// and, for render(), one device-to-host copy; CUDA events between them give the stage timings.
#include <cuda_runtime_api.h>
// cuda_gl_interop.h includes <GL/gl.h> for GLuint/GLenum; nothing else of GL is used here.
#include <cuda_gl_interop.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "engine/morton.h"
#include "engine/parallel.h"
#include "kernels/cuda_renderer.h"
#include "raster.h"

namespace pr {

namespace {

/// "cudaMalloc(&pos, bytes): cudaErrorMemoryAllocation (out of memory)". Also clears the
/// (non-sticky) last error so the next call does not see this one.
std::string cuda_message(const char* call, cudaError_t e) {
  (void)cudaGetLastError();
  return std::string(call) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
}

// Every CUDA call goes through one of these; the message names the call.
#define PR_CUDA_TRY(call)                                        \
  do {                                                           \
    const cudaError_t pr_e_ = (call);                            \
    if (pr_e_ != cudaSuccess) {                                  \
      if (error) *error = "CUDA: " + cuda_message(#call, pr_e_); \
      return false;                                              \
    }                                                            \
  } while (0)

// For cleanup paths that cannot report: log once to stderr.
#define PR_CUDA_LOG(call)                                                                  \
  do {                                                                                     \
    const cudaError_t pr_e_ = (call);                                                      \
    if (pr_e_ != cudaSuccess)                                                              \
      std::fprintf(stderr, "pointraster: CUDA: %s\n", cuda_message(#call, pr_e_).c_str()); \
  } while (0)

std::string gib(double bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f GiB", bytes / double(1ull << 30));
  return b;
}

template <class T>
void free_device(T*& p) {
  if (p) PR_CUDA_LOG(cudaFree(p));
  p = nullptr;
}

/// Device bytes a batch keeps besides its box: its flag (this frame's box tests) and its entry in
/// the list of batches that draw (DrawnPoints::list).
constexpr size_t kPerBatchFlagAndList = 1 + sizeof(uint32_t);

class CudaRendererImpl final : public CudaRenderer {
 public:
  ~CudaRendererImpl() override {
    unregister_gl_buffer();
    free_points();
    free_boxes();
    free_device(keys_);
    free_device(rgba_);
    free_device(depth_);
    free_device(hiz_);
    free_device(hidden_);
    free_device(list_count_);
    if (hidden_host_) PR_CUDA_LOG(cudaFreeHost(hidden_host_));
    if (graph_exec_) PR_CUDA_LOG(cudaGraphExecDestroy(graph_exec_));
    for (cudaEvent_t& e : ev_)
      if (e) PR_CUDA_LOG(cudaEventDestroy(e));
    if (stream_) PR_CUDA_LOG(cudaStreamDestroy(stream_));
  }

  bool init(std::string* error) {
    PR_CUDA_TRY(cudaSetDevice(0));
    cudaDeviceProp prop{};
    PR_CUDA_TRY(cudaGetDeviceProperties(&prop, 0));
    char b[256];
    std::snprintf(b, sizeof b, "%s (sm_%d%d, %.0f GiB)", prop.name, prop.major, prop.minor,
                  double(prop.totalGlobalMem) / double(1ull << 30));
    device_name_ = b;
    PR_CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    for (cudaEvent_t& e : ev_) PR_CUDA_TRY(cudaEventCreate(&e));
    // Occlusion culling's count of hidden batches, on the device and copied back each frame.
    PR_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&hidden_), sizeof(uint32_t)));
    PR_CUDA_TRY(cudaHostAlloc(reinterpret_cast<void**>(&hidden_host_), sizeof(uint32_t),
                              cudaHostAllocDefault));
    // The counts of the culled frame's batch lists (the first pass's, the second pass's).
    PR_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&list_count_), 2 * sizeof(uint32_t)));
    if (const char* v = std::getenv("PR_CUDA_SORT")) {
      if (std::strcmp(v, "off") == 0 || std::strcmp(v, "0") == 0)
        sort_ = SortMode::kOff;
      else if (std::strcmp(v, "on") == 0 || std::strcmp(v, "1") == 0 ||
               std::strcmp(v, "morton") == 0)
        sort_ = SortMode::kOn;
    }
    if (const char* v = std::getenv("PR_CUDA_COMPACT"))
      compact_ = std::strcmp(v, "1") == 0 || std::strcmp(v, "on") == 0;
    if (const char* v = std::getenv("PR_CUDA_MEMORY_LIMIT"); v && *v) {
      char* end = nullptr;
      double b = std::strtod(v, &end);
      const char u = end ? *end : '\0';
      b *= u == 'k' || u == 'K'   ? 1024.0
           : u == 'm' || u == 'M' ? 1048576.0
           : u == 'g' || u == 'G' ? 1073741824.0
                                  : 1.0;
      if (end != v && b >= 1.0 && b < 1.8e19)
        memory_limit_ = uint64_t(b);
      else
        std::fprintf(stderr, "pointraster: PR_CUDA_MEMORY_LIMIT=%s ignored (bytes, or 4G)\n", v);
    }
    if (const char* v = std::getenv("PR_CUDA_STAGE_EVENTS"))
      stage_events_ = std::strcmp(v, "1") == 0 || std::strcmp(v, "on") == 0;
    if (const char* v = std::getenv("PR_CUDA_CULL"))
      cull_ = !(std::strcmp(v, "0") == 0 || std::strcmp(v, "off") == 0);
    if (const char* v = std::getenv("PR_CUDA_ROUNDS"); v && *v) {
      const int r = std::atoi(v);
      if (valid_rounds(r))
        forced_rounds_ = r;
      else
        std::fprintf(stderr, "pointraster: PR_CUDA_ROUNDS=%s ignored (1, 2, 4, 8 or 16)\n", v);
    }
    PR_CUDA_TRY(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, 0));
    // Programmatic dependent launches (compute capability 9.0 and up): the resolve after the
    // raster, a culled frame's raster after its box tests, occlusion culling's Hi-Z and flags.
    pdl_ = prop.major >= 9;
    if (const char* v = std::getenv("PR_CUDA_GRAPH"))
      graph_ = !(std::strcmp(v, "0") == 0 || std::strcmp(v, "off") == 0);
    if (const char* v = std::getenv("PR_CUDA_OCCLUSION"); v && !parse_toggle(v, &occlusion_))
      std::fprintf(stderr, "pointraster: PR_CUDA_OCCLUSION=%s ignored (auto, on or off)\n", v);
    return true;
  }

  void set_sort_mode(SortMode mode) override { sort_ = mode; }
  bool cloud_sorted() const override { return sorted_; }
  void set_compact_positions(bool on) override { compact_ = on; }
  void set_frame_graph(bool on) override { graph_ = on; }
  void set_culling(bool on) override { cull_ = on; }
  bool culling() const override { return cull_; }
  void set_raster_rounds(int rounds) override {
    forced_rounds_ = valid_rounds(rounds) ? rounds : -1;
  }
  bool download_boxes(PodVector<PointBox>* out, std::string* error) const override {
    if (!boxes_ready_) {
      if (error) *error = "the cloud has no batch boxes on the device";
      return false;
    }
    out->resize((points_ + kPointBatch - 1) / kPointBatch);
    PR_CUDA_TRY(
        cudaMemcpy(out->data(), boxes_, out->size() * sizeof(PointBox), cudaMemcpyDeviceToHost));
    return true;
  }
  void set_occlusion_culling(Toggle mode) override { occlusion_ = mode; }
  Toggle occlusion_culling() const override { return occlusion_; }
  bool last_batch_counts(BatchCounts* out, std::string* error) const override {
    *out = BatchCounts{};
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
  bool download_hiz(std::vector<uint32_t>* out, int* width, int* height,
                    std::string* error) const override {
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
  void set_memory_limit(uint64_t bytes) override { memory_limit_ = bytes; }
  void set_stage_timing(bool on) override { stage_events_ = on; }
  bool stage_timing() const override { return stage_events_; }
  bool frame_graph() const override { return graph_; }
  bool compact_positions() const override { return compact_active_; }
  bool compact_active() const override { return compact_active_; }
  bool download_compact(CompactCloud* out, std::string* error) const override {
    if (!compact_active_) {
      if (error) *error = "the cloud is not stored in compact form";
      return false;
    }
    const uint64_t nb = (points_ + kCompactBatch - 1) / kCompactBatch;
    out->words.resize(points_);
    out->batches.resize(nb);
    out->orig.clear();
    PR_CUDA_TRY(
        cudaMemcpy(out->words.data(), words_, points_ * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    PR_CUDA_TRY(cudaMemcpy(out->batches.data(), batches_, nb * sizeof(CompactBatch),
                           cudaMemcpyDeviceToHost));
    return true;
  }

  std::string name() const override { return "gpu"; }
  std::string device_name() const override { return device_name_; }

  size_t memory_bytes() const override {
    return cap_points_ * ((pos_ ? sizeof(Float3) : 0) + (words_ ? sizeof(uint32_t) : 0) +
                          (orig_ ? sizeof(uint32_t) : 0)) +
           (colors_ ? cuda::rgb_words(cap_points_) * sizeof(uint32_t) : 0) +
           cap_batches_ * (sizeof(CompactBatch) + kPerBatchFlagAndList) +
           cap_boxes_ * (sizeof(PointBox) + kPerBatchFlagAndList) +
           cap_pixels_ * (sizeof(unsigned long long) + sizeof(uint32_t)) +
           (depth_ ? cap_pixels_ * sizeof(float) : 0) + (hiz_ ? hiz_words_ * sizeof(uint32_t) : 0);
  }

  bool reserve_points(uint64_t n, std::string* error) override {
    points_ = 0;
    sorted_ = false;
    compact_active_ = false;
    boxes_ready_ = false;
    cloud_box_ = empty_point_box();
    hiz_stale_ = true;  // another cloud's depths
    last_flags_ = nullptr;
    last_batches_ = 0;
    last_hidden_ = UINT32_MAX;  // kAuto tries occlusion culling first
    last_occlusion_ = false;
    plain_frames_ = 0;
    free_device(orig_);  // belongs to the previous cloud's order
    host_orig_ = PodVector<uint32_t>();
    cloud_ = nullptr;
    if (n <= cap_points_ && n >= cap_points_ / 2 && (words_ != nullptr) == compact_) return true;
    free_points();
    cap_points_ = 0;
    cap_batches_ = 0;
    if (n == 0) return true;
    // Plain: float xyz (12 B); compact: a 3x10-bit word (4 B) + a 24-byte box, a flag byte and a
    // list entry per batch. Colors: 3 bytes (cuda::load_rgb()).
    const uint64_t batches = (n + kCompactBatch - 1) / kCompactBatch;
    const size_t pos_bytes =
        compact_ ? size_t(n) * sizeof(uint32_t) +
                       size_t(batches) * (sizeof(CompactBatch) + kPerBatchFlagAndList)
                 : size_t(n) * sizeof(Float3);
    const size_t col_bytes = size_t(cuda::rgb_words(n)) * sizeof(uint32_t);
    const bool over = memory_limit_ > 0 && pos_bytes + col_bytes > memory_limit_;
    cudaError_t e = over       ? cudaErrorMemoryAllocation
                    : compact_ ? cudaMalloc(reinterpret_cast<void**>(&words_), n * sizeof(uint32_t))
                               : cudaMalloc(reinterpret_cast<void**>(&pos_), pos_bytes);
    if (e == cudaSuccess && compact_)
      e = cudaMalloc(reinterpret_cast<void**>(&batches_), batches * sizeof(CompactBatch));
    if (e == cudaSuccess && compact_)
      e = cudaMalloc(reinterpret_cast<void**>(&batch_flags_), batches);
    if (e == cudaSuccess && compact_)
      e = cudaMalloc(reinterpret_cast<void**>(&batch_list_), batches * sizeof(uint32_t));
    if (e == cudaSuccess) e = cudaMalloc(reinterpret_cast<void**>(&colors_), col_bytes);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      free_points();
      size_t free_b = 0, total_b = 0;
      if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) (void)cudaGetLastError();
      if (error)
        *error = "out of GPU memory: " + std::to_string(n) + " points need " +
                 gib(double(pos_bytes + col_bytes)) + " (" + (compact_ ? "7" : "15") +
                 " bytes a point), " +
                 (over ? "over the limit of " + gib(double(memory_limit_)) +
                             " (set_memory_limit, PR_CUDA_MEMORY_LIMIT)"
                       : "the device has " + gib(double(free_b)) + " free of " +
                             gib(double(total_b)) + " (" + cudaGetErrorName(e) + ")");
      return false;
    }
    cap_points_ = n;
    cap_batches_ = compact_ ? batches : 0;
    return true;
  }

  bool set_cloud(const PointCloud& cloud, std::string* error) override {
    points_ = 0;
    origin_ = cloud.origin;
    const uint64_t n = cloud.size();
    if (n >= uint64_t(UINT32_MAX)) {
      if (error) *error = "cloud has too many points for a 32-bit point index";
      return false;
    }
    if (cloud.colors.size() != n) {
      if (error)
        *error = "cloud has " + std::to_string(cloud.colors.size()) + " colors for " +
                 std::to_string(n) + " points";
      return false;
    }
    // The bounds, once (a pass over the positions), for the sort's decision and its codes.
    const Bounds bounds = sort_ == SortMode::kOff ? Bounds{} : cloud.local_bounds();
    if (compact_) return set_compact_cloud(cloud, bounds, error);
    if (!reserve_points(n, error)) return false;
    if (n > 0 && !(want_sort(cloud, bounds) && upload_sorted(cloud, bounds))) {
      PR_CUDA_TRY(cudaMemcpyAsync(pos_, cloud.positions.data(), n * sizeof(Float3),
                                  cudaMemcpyHostToDevice, stream_));
      std::string what;
      if (const cudaError_t e = upload_colors(cloud, nullptr, &what); e != cudaSuccess) {
        if (error) *error = "CUDA: " + cuda_message(what.c_str(), e);
        return false;
      }
    }
    make_boxes(n);
    // Every upload is ordered on stream_ (a plain cudaMemcpy runs on the legacy stream, which
    // this non-blocking stream does not wait for); wait for it before the cloud counts as loaded.
    PR_CUDA_TRY(cudaStreamSynchronize(stream_));
    cloud_ = &cloud;
    points_ = n;
    return true;
  }

  bool render(const Camera& camera, const RenderSettings& s, Image& out, FrameStats& stats,
              std::string* error) override {
    Stopwatch total;
    const FrameStart start = begin_frame(s, out, stats, error);
    if (start != FrameStart::kDraw) return start == FrameStart::kEmpty;
    const size_t npix = out.pixel_count();
    if (!ensure_frame(npix, s.want_depth, error)) return false;
    if (!frame(camera, s, rgba_, s.want_depth ? depth_ : nullptr, stats, error)) return false;
    // The host-copy path: one device-to-host copy of the image (and depth when asked for).
    PR_CUDA_TRY(cudaMemcpyAsync(out.rgba.data(), rgba_, npix * sizeof(uint32_t),
                                cudaMemcpyDeviceToHost, stream_));
    if (s.want_depth)
      PR_CUDA_TRY(cudaMemcpyAsync(out.depth.data(), depth_, npix * sizeof(float),
                                  cudaMemcpyDeviceToHost, stream_));
    PR_CUDA_TRY(cudaEventRecord(ev_[4], stream_));
    PR_CUDA_TRY(cudaEventSynchronize(ev_[4]));
    if (!read_times(stats, true, error)) return false;
    stats.total_ms = total.ms();
    return true;
  }

  bool register_gl_buffer(unsigned int gl_buffer, int width, int height,
                          std::string* why) override {
    unregister_gl_buffer();
    // Interop needs the GL context on the CUDA device (not Mesa, not another GPU).
    unsigned int count = 0;
    int devices[8] = {};
    cudaError_t e = cudaGLGetDevices(&count, devices, 8, cudaGLDeviceListAll);
    if (e != cudaSuccess || count == 0) {
      if (why)
        *why =
            "the OpenGL context is not on a CUDA device" +
            (e != cudaSuccess ? " (" + cuda_message("cudaGLGetDevices", e) + ")" : std::string());
      (void)cudaGetLastError();
      return false;
    }
    int current = 0;
    if (cudaGetDevice(&current) != cudaSuccess) (void)cudaGetLastError();
    bool same = false;
    for (unsigned i = 0; i < count && i < 8; ++i) same = same || devices[i] == current;
    if (!same) {
      if (why)
        *why = "the OpenGL context runs on another GPU than CUDA device " + std::to_string(current);
      return false;
    }
    e = cudaGraphicsGLRegisterBuffer(&gl_res_, gl_buffer, cudaGraphicsRegisterFlagsWriteDiscard);
    if (e != cudaSuccess) {
      gl_res_ = nullptr;
      if (why) *why = "CUDA: " + cuda_message("cudaGraphicsGLRegisterBuffer", e);
      return false;
    }
    gl_width_ = width;
    gl_height_ = height;
    return true;
  }

  void unregister_gl_buffer() override {
    if (gl_res_) PR_CUDA_LOG(cudaGraphicsUnregisterResource(gl_res_));
    gl_res_ = nullptr;
    gl_width_ = gl_height_ = 0;
  }

  bool gl_buffer_registered() const override { return gl_res_ != nullptr; }

  bool render_to_gl(const Camera& camera, const RenderSettings& s, FrameStats& stats,
                    std::string* error) override {
    Stopwatch total;
    stats = FrameStats{};
    if (!gl_res_) {
      if (error) *error = "render_to_gl: no GL buffer registered";
      return false;
    }
    if (s.width != gl_width_ || s.height != gl_height_) {
      if (error)
        *error = "render_to_gl: frame is " + std::to_string(s.width) + "x" +
                 std::to_string(s.height) + " but the registered GL buffer is " +
                 std::to_string(gl_width_) + "x" + std::to_string(gl_height_);
      return false;
    }
    const size_t npix = size_t(s.width) * size_t(s.height);
    if (npix == 0) {
      stats.total_ms = total.ms();
      return true;
    }
    if (!ensure_frame(npix, false, error)) return false;
    Stopwatch map;
    PR_CUDA_TRY(cudaGraphicsMapResources(1, &gl_res_, stream_));
    void* ptr = nullptr;
    size_t bytes = 0;
    cudaError_t e = cudaGraphicsResourceGetMappedPointer(&ptr, &bytes, gl_res_);
    bool ok = e == cudaSuccess;
    if (!ok && error) *error = "CUDA: " + cuda_message("cudaGraphicsResourceGetMappedPointer", e);
    if (ok && bytes < npix * sizeof(uint32_t)) {
      ok = false;
      if (error)
        *error = "render_to_gl: the GL buffer has " + std::to_string(bytes) +
                 " bytes, the frame needs " + std::to_string(npix * sizeof(uint32_t));
    }
    double map_ms = map.ms();
    if (ok) ok = frame(camera, s, static_cast<uint32_t*>(ptr), nullptr, stats, error);
    // Unmap whatever happened: GL must get its buffer back.
    map.reset();
    e = cudaGraphicsUnmapResources(1, &gl_res_, stream_);
    if (e != cudaSuccess && ok) {
      ok = false;
      if (error) *error = "CUDA: " + cuda_message("cudaGraphicsUnmapResources", e);
    }
    if (!ok) return false;
    PR_CUDA_TRY(cudaEventRecord(ev_[4], stream_));
    PR_CUDA_TRY(cudaEventSynchronize(ev_[4]));
    if (!read_times(stats, false, error)) return false;
    stats.copy_ms = map_ms + map.ms();  // map + unmap: the hand-over to GL, no copy
    stats.total_ms = total.ms();
    return true;
  }

 private:
  /// Frees the cloud's point storage (positions, compact words and boxes, colors, index).
  void free_points() {
    free_device(pos_);
    free_device(colors_);
    free_device(orig_);
    free_device(words_);
    free_device(batches_);
    free_device(batch_flags_);
    free_device(batch_list_);
  }

  /// The plain storage's batch boxes, flags and list.
  void free_boxes() {
    free_device(boxes_);
    free_device(flags_);
    free_device(list_);
    cap_boxes_ = 0;
  }

  /// The batch boxes of the `n` stored positions (engine/culling.h), computed on the GPU after the
  /// upload (a read of the positions: about 4 ms for 1e9 points). Without room for them (24 bytes,
  /// a flag byte and a list entry a batch) frames draw unculled, with a note on stderr.
  void make_boxes(uint64_t n) {
    const uint64_t nb = (n + kPointBatch - 1) / kPointBatch;
    if (nb == 0) return;
    if (nb > cap_boxes_ || nb < cap_boxes_ / 2) {
      free_boxes();
      cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&boxes_), nb * sizeof(PointBox));
      if (e == cudaSuccess) e = cudaMalloc(reinterpret_cast<void**>(&flags_), nb);
      if (e == cudaSuccess) e = cudaMalloc(reinterpret_cast<void**>(&list_), nb * sizeof(uint32_t));
      if (e != cudaSuccess) {
        free_boxes();
        std::fprintf(stderr, "pointraster: batch culling off for this cloud (%s)\n",
                     cuda_message("cudaMalloc(boxes)", e).c_str());
        return;
      }
      cap_boxes_ = nb;
    }
    cudaError_t e = cuda::compute_boxes(pos_, n, boxes_, stream_);
    // The whole cloud's box, the union of the batches' (5.9 MB to copy for 1e9 points), for
    // frames that see all of it and need no batch tests (box_in_view()).
    PodVector<PointBox> host(nb);
    if (e == cudaSuccess)
      e = cudaMemcpyAsync(host.data(), boxes_, nb * sizeof(PointBox), cudaMemcpyDeviceToHost,
                          stream_);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream_);
    if (e != cudaSuccess) {
      std::fprintf(stderr, "pointraster: batch culling off for this cloud (%s)\n",
                   cuda_message("compute_boxes", e).c_str());
      return;
    }
    cloud_box_ = empty_point_box();
    for (const PointBox& b : host) box_grow(cloud_box_, b);
    boxes_ready_ = true;
  }

  static bool valid_rounds(int r) { return r == 1 || r == 2 || r == 4 || r == 8 || r == 16; }

  /// Rounds of 1024 points a block of the point kernel covers, for `n` stored points: the most,
  /// up to 8, that still give the GPU twice the blocks it holds at once. Measured on the H200
  /// (docs/GPU.md): more rounds a block are faster as long as the blocks fill the GPU (1e9 points
  /// overview 3.73 -> 3.16 ms unculled with 4 rounds, 3.13 with 8; 1e7: 0.078 -> 0.073 with 4
  /// rounds, 0.081 with 8, with fewer blocks than the GPU holds); one round keeps a small
  /// cloud's parallelism (1e5 points with a batch a block: 0.013 -> 0.023 ms). 16 rounds: no
  /// faster with every point in view, and slower inside the cloud at 1e8 points (0.077 against
  /// 0.055 ms with 8: the few visible batches sit in few blocks).
  int rounds_for(uint64_t n) const {
    if (forced_rounds_ > 0) return forced_rounds_;
    const uint64_t resident = uint64_t(sms_ > 0 ? sms_ : 1) * 8;  // 256-thread blocks at once
    int r = 1;
    while (r < 8 && n / (uint64_t(r) * 2 * 1024) >= 2 * resident) r *= 2;
    return r;
  }
  /// Whether a frame of `n` stored points seen with `p` culls batches: under 2^20 points a frame
  /// reads the whole cloud in a few microseconds and the box tests gain nothing (1e5 points
  /// inside the cloud: 0.0113 ms culled, 0.0111 not; 1e6: 0.0147, 0.0144); and when the whole
  /// cloud is in view no batch can be culled, so the tests (2 - 3% of such a frame) are skipped.
  /// Compact positions follow the same rule with their own batches.
  bool cull_for(uint64_t n, const ProjParams& p) const {
    const bool ready = compact_active_ ? batch_flags_ != nullptr : boxes_ready_;
    return cull_ && ready && (forced_rounds_ > 0 || n >= kMinCullPoints) &&
           !box_in_view(p, cloud_box_);
  }
  static constexpr uint64_t kMinCullPoints = uint64_t{1} << 20;

  /// Whether a frame drawing `count` of the stored points runs occlusion culling's two passes:
  /// asked for (kOn, or kAuto and at least kMinOcclusionPoints stored points), with culling on and
  /// the batches' boxes on the device, and a walk that reads the batch flags (every stored point,
  /// a subset of a permuted cloud, or compact positions).
  bool occlusion_for(uint64_t count) const {
    if (occlusion_ == Toggle::kOff || !cull_ || points_ == 0 || count == 0) return false;
    const bool ready = compact_active_ ? batch_flags_ != nullptr : boxes_ready_;
    if (!ready || (count < points_ && !sorted_ && !compact_active_)) return false;
    return occlusion_ == Toggle::kOn || points_ >= kMinOcclusionPoints;
  }
  // H200, Morton cube seen whole / turning: 1e7 points 0.0752 / 0.0966 ms with the passes against
  // 0.0651 / 0.0740 without, 2e7 0.083 / 0.120 against 0.101 / 0.110 (and only 3348 batches
  // hidden: the rule below turns it off), 3e7 0.090 / 0.122 against 0.129 / 0.134.
  static constexpr uint64_t kMinOcclusionPoints = uint64_t{1} << 24;

  /// occlusion_for(), and for kAuto whether it pays: the two passes cost three more dependent
  /// kernels (about 16 us a frame on the H200), which hidden batches must win back. A frame runs
  /// them while the last one that did found at least kMinHiddenBatches batches hidden by its
  /// first pass's Hi-Z (occlusion_flags(); the count the frame copies back after its resolve);
  /// otherwise every kProbeFrames-th frame tries again.
  bool occlusion_wanted(uint64_t count) {
    if (last_occlusion_) last_hidden_ = *hidden_host_;  // the last frame has completed
    if (!occlusion_for(count)) return false;
    if (occlusion_ == Toggle::kOn || last_hidden_ >= kMinHiddenBatches) {
      plain_frames_ = 0;
      return true;
    }
    return ++plain_frames_ % kProbeFrames == 0;
  }
  static constexpr uint32_t kMinHiddenBatches = 4096;  // 16 M points
  static constexpr uint32_t kProbeFrames = 16;

  /// The Hi-Z of a width x height frame (HizView), reset to empty for a new size or cloud (an
  /// empty Hi-Z defers no batch, so the first pass draws every batch in view).
  bool ensure_hiz(int width, int height, std::string* error) {
    if (hiz_ && width == hiz_w_ && height == hiz_h_ && !hiz_stale_) return true;
    HizView v;
    v.width = width;
    v.height = height;
    const size_t words = v.total_words();
    if (words > hiz_words_) {
      free_device(hiz_);
      hiz_words_ = 0;
      PR_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&hiz_), words * sizeof(uint32_t)));
      hiz_words_ = words;
    }
    PR_CUDA_TRY(cudaMemsetAsync(hiz_, 0xff, words * sizeof(uint32_t), stream_));
    hiz_w_ = width;
    hiz_h_ = height;
    hiz_stale_ = false;
    return true;
  }

  /// `bounds`: the cloud's local bounds.
  bool want_sort(const PointCloud& cloud, const Bounds& bounds) const {
    if (sort_ == SortMode::kOff || cloud.size() < 2) return false;
    return sort_ == SortMode::kOn || order_coherence(cloud, bounds) < kCoherentOrder;
  }

  /// The Morton order of `cloud`'s positions into the device array `order` (n entries), computed
  /// on the GPU from a temporary copy of the positions. The same cloud always gives the same order
  /// (a stable radix sort of the same codes). `src_out`, when not null, receives the temporary
  /// copy (the caller frees it); otherwise it is freed here.
  cudaError_t morton_order_of(const PointCloud& cloud, const Bounds& bounds, uint32_t* order,
                              Float3** src_out, std::string* what) {
    const uint64_t n = cloud.size();
    Float3* src = nullptr;
    *what = "cudaMalloc(sort source)";
    cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&src), n * sizeof(Float3));
    if (e == cudaSuccess) {
      *what = "cudaMemcpyAsync(sort source)";
      e = cudaMemcpyAsync(src, cloud.positions.data(), n * sizeof(Float3), cudaMemcpyHostToDevice,
                          stream_);
    }
    if (e == cudaSuccess) e = cuda::morton_order(src, order, n, morton_box(bounds), stream_, what);
    if (e == cudaSuccess && src_out)
      *src_out = src;
    else
      free_device(src);
    return e;
  }

  /// Host colors `from` (RGBA8), taken in `orig` (host, null: as stored), packed into colors_
  /// (3 bytes a point, cuda::load_rgb()) a chunk at a time through a host buffer of 48 MiB; waits
  /// for them.
  cudaError_t upload_rgb_from_host(const uint32_t* from, const uint32_t* orig, uint64_t n,
                                   std::string* what) {
    constexpr uint64_t kChunk = uint64_t{1} << 24;  // points a chunk, a multiple of 4
    PodVector<uint8_t> buf(size_t(std::min(n, kChunk)) * 3 + 4);
    for (uint64_t b = 0; b < n; b += kChunk) {
      const uint64_t e = std::min(n, b + kChunk);
      uint8_t* out = buf.data();
      parallel_for(size_t(e - b), [&](size_t lo, size_t hi) {
        for (size_t k = lo; k < hi; ++k) {
          const uint32_t c = from[orig ? orig[b + k] : b + k];
          out[3 * k] = uint8_t(c);
          out[3 * k + 1] = uint8_t(c >> 8);
          out[3 * k + 2] = uint8_t(c >> 16);
        }
      });
      // The last chunk ends the array's padding word with zeros.
      const size_t bytes = e == n ? size_t(cuda::rgb_words(n) * 4 - 3 * b) : size_t(e - b) * 3;
      for (size_t k = size_t(e - b) * 3; k < bytes; ++k) out[k] = 0;
      *what = "cudaMemcpyAsync(colors)";
      cudaError_t err = cudaMemcpyAsync(reinterpret_cast<uint8_t*>(colors_) + 3 * b, out, bytes,
                                        cudaMemcpyHostToDevice, stream_);
      // The buffer is refilled next: wait for the copy.
      if (err == cudaSuccess) err = cudaStreamSynchronize(stream_);
      if (err != cudaSuccess) return err;
    }
    return cudaSuccess;
  }

  /// The cloud's colors into colors_ (3 bytes a point), in `order` (device, null: as stored);
  /// waits for them.
  cudaError_t upload_colors(const PointCloud& cloud, const uint32_t* order, std::string* what) {
    const uint64_t n = cloud.size();
    if (!order) return upload_rgb_from_host(cloud.colors.data(), nullptr, n, what);
    uint32_t* csrc = nullptr;
    *what = "cudaMalloc(color source)";
    cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&csrc), n * sizeof(uint32_t));
    if (e == cudaSuccess) {
      *what = "cudaMemcpyAsync(color source)";
      e = cudaMemcpyAsync(csrc, cloud.colors.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice,
                          stream_);
    }
    if (e == cudaSuccess) {
      *what = "pack_rgb(colors)";
      e = cuda::pack_rgb(csrc, order, n, colors_, stream_);
    }
    if (e == cudaSuccess) {
      *what = "cudaStreamSynchronize(pack_rgb)";
      e = cudaStreamSynchronize(stream_);
    }
    free_device(csrc);
    return e;
  }

  /// The spatially sorted upload: the Morton order computed on the GPU, then positions and colors
  /// gathered into pos_ and colors_ in that order; no index is kept (the key's tie rule does not
  /// need one; a subset computes it again, ensure_orig()). False, with a note on stderr, when
  /// there is no room for the temporaries (about 36 bytes a point while it runs: a source copy,
  /// the order, two code arrays, an index array, CUB's scratch); the caller then uploads the cloud
  /// in its own order, which draws the same image more slowly.
  bool upload_sorted(const PointCloud& cloud, const Bounds& bounds) {
    const uint64_t n = cloud.size();
    uint32_t* order = nullptr;
    Float3* src = nullptr;
    std::string what = "cudaMalloc(order)";
    cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&order), n * sizeof(uint32_t));
    if (e == cudaSuccess) e = morton_order_of(cloud, bounds, order, &src, &what);
    if (e == cudaSuccess) {
      what = "gather(positions)";
      e = cuda::gather(src, order, n, pos_, stream_);
    }
    if (!finish_upload(e, what, cloud, src, order, "spatial sort skipped",
                       "uploading in file order"))
      return false;
    sorted_ = true;
    return true;
  }

  /// The common end of the GPU upload paths (the sorted upload and the compact encoder), after
  /// `e`, the error of their last step (`what`): waits for the stream, frees the temporary copy of
  /// the positions, packs the colors in `order` (null: as stored), frees the order. False, with
  /// "pointraster: <skipped> (<the failed call>); <instead>" on stderr, when any step failed.
  bool finish_upload(cudaError_t e, std::string& what, const PointCloud& cloud, Float3*& src,
                     uint32_t*& order, const char* skipped, const char* instead) {
    if (e == cudaSuccess) {
      what = "cudaStreamSynchronize(" + what + ")";
      e = cudaStreamSynchronize(stream_);
    }
    free_device(src);
    if (e == cudaSuccess) e = upload_colors(cloud, order, &what);
    free_device(order);
    if (e == cudaSuccess) return true;
    std::fprintf(stderr, "pointraster: %s (%s); %s\n", skipped,
                 cuda_message(what.c_str(), e).c_str(), instead);
    return false;
  }

  /// A subset of a permuted cloud needs each stored point's original index: made on the first
  /// such frame (4 bytes a point, kept until the next cloud): a compact cloud encoded on the host
  /// kept it there; otherwise the Morton order is computed again from the cloud on the GPU (the
  /// same codes and the same stable sort give the same order).
  bool ensure_orig(std::string* error) {
    if (orig_) return true;
    const uint64_t n = points_;
    cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&orig_), n * sizeof(uint32_t));
    std::string what = "cudaMalloc(original index)";
    if (e == cudaSuccess) {
      if (!host_orig_.empty()) {
        what = "cudaMemcpyAsync(original index)";
        e = cudaMemcpyAsync(orig_, host_orig_.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice,
                            stream_);
        if (e == cudaSuccess) e = cudaStreamSynchronize(stream_);
      } else if (cloud_ && cloud_->size() == n) {
        e = morton_order_of(*cloud_, cloud_->local_bounds(), orig_, nullptr, &what);
      } else {
        e = cudaErrorInvalidValue;
        what = "ensure_orig: the sorted cloud is gone";
      }
    }
    if (e != cudaSuccess) {
      free_device(orig_);
      if (error)
        *error =
            "CUDA: cannot draw a subset of the sorted cloud: " + cuda_message(what.c_str(), e) +
            " (" + std::to_string(n) +
            " points need 4 more bytes each; all points can still be drawn)";
      return false;
    }
    return true;
  }

  /// The compact upload, encoded on the GPU (the Morton order by the GPU sort, then one block a
  /// batch; the same words and boxes as the host's build_compact(), which the CPU renderer's
  /// compact mode runs), colors gathered into the same order. Without room for the temporaries
  /// (12 bytes a point for the positions, 4 for the order, the sort's own), encoded on the host
  /// instead (slower: 33 s for 1e9 points in Morton order on 16 cores).
  bool set_compact_cloud(const PointCloud& cloud, const Bounds& bounds, std::string* error) {
    const uint64_t n = cloud.size();
    const bool sort = want_sort(cloud, bounds);
    if (!reserve_points(n, error)) return false;
    // The compact form has boxes of its own: the plain cloud's go.
    free_boxes();
    if (n > 0 && !encode_on_gpu(cloud, sort, bounds)) {
      CompactCloud cc;
      if (!build_compact(cloud, sort, &cc, error)) return false;
      PR_CUDA_TRY(cudaMemcpyAsync(words_, cc.words.data(), n * sizeof(uint32_t),
                                  cudaMemcpyHostToDevice, stream_));
      PR_CUDA_TRY(cudaMemcpyAsync(batches_, cc.batches.data(),
                                  cc.batches.size() * sizeof(CompactBatch), cudaMemcpyHostToDevice,
                                  stream_));
      std::string what;
      if (const cudaError_t e = upload_rgb_from_host(
              cloud.colors.data(), cc.orig.empty() ? nullptr : cc.orig.data(), n, &what);
          e != cudaSuccess) {
        if (error) *error = "CUDA: " + cuda_message(what.c_str(), e);
        return false;
      }
      sorted_ = !cc.orig.empty();
      host_orig_ = std::move(cc.orig);
    }
    PR_CUDA_TRY(cudaStreamSynchronize(stream_));
    // The whole cloud's box, the union of the batches' decoded ranges (5.9 MB to copy for 1e9
    // points), for frames that see all of it: they need no batch tests (box_in_view()), and when
    // box_inside() holds for it no point tests either.
    cloud_box_ = empty_point_box();
    if (n > 0) {
      const uint64_t nb = (n + kCompactBatch - 1) / kCompactBatch;
      PodVector<CompactBatch> host(nb);
      PR_CUDA_TRY(
          cudaMemcpy(host.data(), batches_, nb * sizeof(CompactBatch), cudaMemcpyDeviceToHost));
      for (const CompactBatch& b : host) {
        double lo[3], hi[3];
        compact_box_bounds(b, lo, hi);
        // Rounded to float: box_inside() pads boxes by 1e-6 of their size, far more.
        PointBox pb;
        for (int a = 0; a < 3; ++a) {
          pb.lo[a] = float(lo[a]);
          pb.hi[a] = float(hi[a]);
        }
        box_grow(cloud_box_, pb);
      }
    }
    compact_active_ = true;
    cloud_ = &cloud;
    points_ = n;
    return true;
  }

  /// The GPU encoder of set_compact_cloud(); false (with a note on stderr) when it could not run.
  bool encode_on_gpu(const PointCloud& cloud, bool sort, const Bounds& bounds) {
    const uint64_t n = cloud.size();
    uint32_t* order = nullptr;
    Float3* src = nullptr;
    std::string what;
    cudaError_t e = cudaSuccess;
    if (sort) {
      what = "cudaMalloc(order)";
      e = cudaMalloc(reinterpret_cast<void**>(&order), n * sizeof(uint32_t));
      if (e == cudaSuccess) e = morton_order_of(cloud, bounds, order, &src, &what);
    } else {
      what = "cudaMalloc(positions)";
      e = cudaMalloc(reinterpret_cast<void**>(&src), n * sizeof(Float3));
      if (e == cudaSuccess) {
        what = "cudaMemcpyAsync(positions)";
        e = cudaMemcpyAsync(src, cloud.positions.data(), n * sizeof(Float3), cudaMemcpyHostToDevice,
                            stream_);
      }
    }
    if (e == cudaSuccess) {
      what = "encode_compact";
      e = cuda::encode_compact(src, order, n, words_, batches_, stream_);
    }
    if (!finish_upload(e, what, cloud, src, order, "compact encoding on the GPU skipped",
                       "on the host"))
      return false;
    sorted_ = sort;
    return true;
  }

  bool ensure_frame(size_t npix, bool want_depth, std::string* error) {
    if (npix != cap_pixels_) {
      free_device(keys_);
      free_device(rgba_);
      free_device(depth_);
      cap_pixels_ = 0;
      PR_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&keys_), npix * sizeof(unsigned long long)));
      PR_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&rgba_), npix * sizeof(uint32_t)));
      cap_pixels_ = npix;
      keys_clean_ = false;
    }
    if (want_depth && !depth_)
      PR_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&depth_), npix * sizeof(float)));
    return true;
  }

  /// Clear (only when the last resolve did not), raster, resolve into `rgba` (device memory or
  /// the mapped GL buffer). Records events 0..3; the caller records 4 after its copy.
  /// With set_frame_graph(true) (the default; PR_CUDA_GRAPH=0 turns it off) the frame's operations
  /// are captured into a CUDA graph and launched as one: the graph is re-captured each frame (the
  /// camera changes the kernels' parameters) and the instantiated graph updated in place
  /// (cudaGraphExecUpdate), so the GPU runs the stages back to back instead of waiting for each
  /// launch from the host.
  bool frame(const Camera& camera, const RenderSettings& s, uint32_t* rgba, float* depth,
             FrameStats& stats, std::string* error) {
    // The kernels index pixels with 32 bits (4 G pixels: 51 GB of frame buffers).
    if (uint64_t(s.width) * uint64_t(s.height) > uint64_t(UINT32_MAX)) {
      if (error)
        *error = "image of " + std::to_string(s.width) + "x" + std::to_string(s.height) +
                 " is too large for the GPU renderer (at most 2^32 - 1 pixels)";
      return false;
    }
    // A subset of a permuted cloud: the original index first (not inside a graph capture).
    if (sorted_ && effective_count(points_, s.point_count) < points_ && !ensure_orig(error))
      return false;
    occl_now_ = occlusion_wanted(effective_count(points_, s.point_count));
    if (occl_now_ && !ensure_hiz(s.width, s.height, error)) return false;
    if (!graph_) {
      if (!enqueue_frame(camera, s, rgba, depth, stats, false, error)) return false;
      keys_clean_ = true;
      return true;
    }
    PR_CUDA_TRY(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    std::string inner;
    const bool ok = enqueue_frame(camera, s, rgba, depth, stats, true, &inner);
    cudaGraph_t graph = nullptr;
    const cudaError_t end = cudaStreamEndCapture(stream_, &graph);  // always end the capture
    if (!ok || end != cudaSuccess) {
      if (graph) PR_CUDA_LOG(cudaGraphDestroy(graph));
      if (error) *error = !ok ? inner : "CUDA: " + cuda_message("cudaStreamEndCapture", end);
      return false;
    }
    // A frame of the same shape (same operations, other parameters) updates the instantiated
    // graph in place; another shape (the first frame's clear, a new variant, a subset) or a
    // refused update instantiates anew.
    if (graph_exec_ && shape_ == graph_shape_) {
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
    graph_shape_ = shape_;
    if (!graph_exec_) {
      const cudaError_t e = cudaGraphInstantiate(&graph_exec_, graph, 0);
      if (e != cudaSuccess) {
        graph_exec_ = nullptr;
        PR_CUDA_LOG(cudaGraphDestroy(graph));
        if (error) *error = "CUDA: " + cuda_message("cudaGraphInstantiate", e);
        return false;
      }
    }
    PR_CUDA_LOG(cudaGraphDestroy(graph));
    PR_CUDA_TRY(cudaGraphLaunch(graph_exec_, stream_));
    keys_clean_ = true;
    return true;
  }

  /// Records a timing event; inside a graph capture as an event-record node of the graph.
  cudaError_t record(cudaEvent_t e, bool capturing) {
    return capturing ? cudaEventRecordWithFlags(e, stream_, cudaEventRecordExternal)
                     : cudaEventRecord(e, stream_);
  }

  bool enqueue_frame(const Camera& camera, const RenderSettings& s, uint32_t* rgba, float* depth,
                     FrameStats& stats, bool capturing, std::string* error) {
    const size_t npix = size_t(s.width) * size_t(s.height);
    const uint64_t count = effective_count(points_, s.point_count);
    stats.points_drawn = count;
    const ProjParams p = camera.params(s.width, s.height, origin_, s.point_size);
    // Occlusion culling: the box tests defer the batches the last frame's Hi-Z hides; a first
    // raster pass draws the others, the Hi-Z of its keys is built, the deferred batches it does not
    // hide are drawn by a second pass (docs/GPU.md).
    const bool occl = occl_now_;  // frame() made the Hi-Z of this size (ensure_hiz())
    const bool cull = occl || cull_for(points_, p);
    const int rounds = rounds_for(points_);
    // With culling on and the whole cloud surely in view: no box tests, and no per-point image
    // tests either.
    const bool all_inside = cull_ && !cull && points_ > 0 && (compact_active_ || boxes_ready_) &&
                            box_inside(p, cloud_box_);
    const uint64_t batches = compact_active_ ? (points_ + kCompactBatch - 1) / kCompactBatch
                                             : (points_ + kPointBatch - 1) / kPointBatch;
    // The box tests list the batches that draw, for the raster kernels.
    uint32_t* const list = compact_active_ ? batch_list_ : list_;
    const bool listed = cull && list != nullptr;
    // What decides which operations the frame has (for the graph's in-place update).
    shape_ = uint64_t(!keys_clean_) | uint64_t(compact_active_) << 1 | uint64_t(sorted_) << 2 |
             uint64_t(count == points_) << 3 | uint64_t(count > 0) << 4 |
             uint64_t(s.point_size > 1) << 5 | uint64_t(depth != nullptr) << 6 |
             uint64_t(stage_events_) << 17 | uint64_t(cull) << 18 | uint64_t(rounds) << 19 |
             uint64_t(all_inside) << 24 | uint64_t(occl) << 27 | uint64_t(listed) << 28;
    PR_CUDA_TRY(record(ev_[0], capturing));
    if (!keys_clean_)  // kEmptyKey is all ones
      PR_CUDA_TRY(cudaMemsetAsync(keys_, 0xff, npix * sizeof(unsigned long long), stream_));
    keys_clean_ = false;
    if (stage_events_) PR_CUDA_TRY(record(ev_[1], capturing));
    bool launched = true;
    cuda::DrawnPoints drawn;
    drawn.colors = colors_;
    drawn.orig = orig_;
    drawn.permuted = sorted_;
    drawn.total = points_;
    drawn.count = count;
    drawn.pdl = pdl_;
    HizView hiz;
    hiz.words = hiz_;
    hiz.width = s.width;
    hiz.height = s.height;
    // The pixels this frame's points can write (the cloud's box, splats included); the whole
    // image when the box is not known.
    PixelRect reach{0, 0, s.width, s.height};
    if (compact_active_ || boxes_ready_) reach = box_pixel_rect(p, cloud_box_);
    last_flags_ = nullptr;
    if (listed) {
      // Both passes' counts from zero. The raster kernels run at most four times as many blocks
      // as the GPU holds at once (8 a multiprocessor), each over a share of the list.
      PR_CUDA_TRY(cudaMemsetAsync(list_count_, 0, 2 * sizeof(uint32_t), stream_));
      drawn.list = list;
      drawn.list_count = list_count_;
      drawn.list_blocks = unsigned(sms_ > 0 ? sms_ : 1) * 8u * 4u;
    }
    if (cull) {
      // The box tests first, a thread a batch; with occlusion culling they defer the batches the
      // last frame's Hi-Z hides.
      uint8_t* const flags = compact_active_ ? batch_flags_ : flags_;
      const HizView first_hiz = occl ? hiz : HizView{};
      uint32_t* const hidden = occl ? hidden_ : nullptr;
      uint32_t* const list_count = listed ? list_count_ : nullptr;
      if (compact_active_)
        cuda::launch_box_flags(p, batches_, batches, flags, first_hiz, hidden,
                               listed ? list : nullptr, list_count, stream_);
      else
        cuda::launch_box_flags(p, boxes_, batches, flags, first_hiz, hidden,
                               listed ? list : nullptr, list_count, stream_);
      PR_CUDA_TRY(cudaGetLastError());
      drawn.flags = flags;
      last_flags_ = flags;
    }
    drawn.all_inside = all_inside;
    cuda::CompactInput compact_in;
    cuda::RasterInput plain_in;
    // One raster pass over the stored points (the batches `drawn` flags and lists).
    auto draw_pass = [&](const cuda::DrawnPoints& d) {
      if (compact_active_) {
        static_cast<cuda::DrawnPoints&>(compact_in) = d;
        compact_in.words = words_;
        compact_in.batches = batches_;
        // Batches of kCompactBatch (4 rounds of 1024) a block, or for fewer rounds a part of one
        // (1024 or 2048 points, so that a small cloud fills the GPU as with the float storage).
        constexpr int kRoundsABatch = int(kCompactBatch / 1024);
        compact_in.rounds = std::max(1, rounds / kRoundsABatch);
        compact_in.parts = rounds < kRoundsABatch ? kRoundsABatch / rounds : 1;
        return cuda::launch_compact_raster(p, compact_in, keys_, stream_);
      }
      static_cast<cuda::DrawnPoints&>(plain_in) = d;
      plain_in.pos = pos_;
      plain_in.rounds = rounds;
      return cuda::launch_raster(p, plain_in, keys_, stream_);
    };
    launched = draw_pass(drawn);
    if (launched && occl) {
      const bool ok = compact_active_ ? between_passes(p, batches_, batches, hiz, reach,
                                                       batch_flags_, listed ? list : nullptr, error)
                                      : between_passes(p, boxes_, batches, hiz, reach, flags_,
                                                       listed ? list : nullptr, error);
      if (!ok) return false;
      if (listed) drawn.list_count = list_count_ + 1;  // the second pass's list
      launched = draw_pass(drawn);
    }
    last_batches_ = count > 0 ? batches : 0;
    if (count == 0) last_flags_ = nullptr;
    last_occlusion_ = occl;
    if (!launched) {
      if (error) *error = "CUDA: a subset of a sorted cloud without its original index";
      return false;
    }
    PR_CUDA_TRY(cudaGetLastError());  // the raster launch
    if (stage_events_) PR_CUDA_TRY(record(ev_[2], capturing));
    // The resolve reads only the keys of the pixels this frame's points can write (`reach`) and
    // writes the rest as background. With stage events an event sits between the raster and the
    // resolve: no dependent launch.
    cuda::launch_resolve(keys_, s.width, s.height, reach, s.background, rgba, depth, stream_,
                         pdl_ && !stage_events_);
    PR_CUDA_TRY(cudaGetLastError());  // the resolve launch
    PR_CUDA_TRY(record(ev_[3], capturing));
    // The hidden batches, for the next frame's choice (occlusion_wanted()); after the timed part.
    if (occl)
      PR_CUDA_TRY(cudaMemcpyAsync(hidden_host_, hidden_, sizeof(uint32_t), cudaMemcpyDeviceToHost,
                                  stream_));
    return true;
  }

  /// Occlusion culling between its raster passes: the Hi-Z of the first pass's keys (the pixels
  /// `reach` holds all it can have written), then the second pass's flags of the `n` batches (and
  /// its list in `list`, where the first pass had one).
  template <class Box>
  bool between_passes(const ProjParams& p, const Box* boxes, uint64_t n, const HizView& hiz,
                      const PixelRect& reach, uint8_t* flags, uint32_t* list, std::string* error) {
    PR_CUDA_TRY(cudaGetLastError());  // the first pass
    cuda::launch_hiz(keys_, hiz.width, hiz.height, reach, hiz_, stream_, pdl_);
    // The second pass's list where the first had one (its count, zeroed with the first's).
    cuda::launch_occlusion_flags(p, boxes, n, hiz, flags, hidden_, list,
                                 list ? list_count_ + 1 : nullptr, stream_, pdl_);
    PR_CUDA_TRY(cudaGetLastError());
    return true;
  }

  bool read_times(FrameStats& st, bool with_copy, std::string* error) {
    float ms[4] = {};
    if (stage_events_) {
      for (int i = 0; i < 3; ++i) PR_CUDA_TRY(cudaEventElapsedTime(&ms[i], ev_[i], ev_[i + 1]));
    } else {  // the whole GPU frame, reported as raster
      PR_CUDA_TRY(cudaEventElapsedTime(&ms[1], ev_[0], ev_[3]));
    }
    if (with_copy) PR_CUDA_TRY(cudaEventElapsedTime(&ms[3], ev_[3], ev_[4]));
    st.stages = stage_events_;
    st.clear_ms = ms[0];
    st.raster_ms = ms[1];
    st.resolve_ms = ms[2];
    st.copy_ms = ms[3];
    return true;
  }

  std::string device_name_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t ev_[5] = {};
  bool graph_ = true;  // each frame as one CUDA graph launch (PR_CUDA_GRAPH=0: separate launches)
  cudaGraphExec_t graph_exec_ = nullptr;
  uint64_t shape_ = 0, graph_shape_ = ~uint64_t{0};
  Float3* pos_ = nullptr;
  uint32_t* colors_ = nullptr;
  // A permuted cloud drawn as a subset: original index of each stored point (made on demand).
  uint32_t* orig_ = nullptr;
  PodVector<uint32_t> host_orig_;      // a host-encoded compact Morton build's original index
  const PointCloud* cloud_ = nullptr;  // the cloud uploaded last (for ensure_orig)
  // Upload-time Morton sort: requested (on by default), and in effect for the current cloud.
  SortMode sort_ = SortMode::kAuto;
  bool sorted_ = false;
  // Compact positions (engine/compact.h): requested, and in use for the current cloud.
  bool compact_ = false, compact_active_ = false;
  uint32_t* words_ = nullptr;
  CompactBatch* batches_ = nullptr;
  uint8_t* batch_flags_ = nullptr;  // this frame's box tests of the compact batches
  uint32_t* batch_list_ = nullptr;  // the compact batches a culled frame's pass draws
  uint64_t cap_batches_ = 0;
  // Batch culling (engine/culling.h): wanted, and boxes of the current plain cloud on the device.
  bool cull_ = true, boxes_ready_ = false;
  uint32_t* list_ = nullptr;        // the batches a culled frame's pass draws (with flags_)
  uint32_t* list_count_ = nullptr;  // the first and the second pass's counts
  int forced_rounds_ = -1;  // PR_CUDA_ROUNDS / set_raster_rounds: for every cloud (A/B, tests)
  int sms_ = 0;             // multiprocessors of the device
  PointBox* boxes_ = nullptr;
  PointBox cloud_box_{};      // the union of the batch boxes (plain or compact)
  uint8_t* flags_ = nullptr;  // this frame's box tests, a byte a batch
  uint64_t cap_boxes_ = 0;
  uint64_t cap_points_ = 0, points_ = 0;
  glm::dvec3 origin_{0.0};
  unsigned long long* keys_ = nullptr;
  uint32_t* rgba_ = nullptr;
  float* depth_ = nullptr;
  size_t cap_pixels_ = 0;
  bool keys_clean_ = false;
  uint64_t memory_limit_ = 0;  // set_memory_limit(): the point storage's most bytes, 0: none
  bool stage_events_ = false;  // events between the stages (set_stage_timing)
  bool pdl_ = false;           // programmatic dependent launches (compute capability >= 9.0)
  // Occlusion culling (PR_CUDA_OCCLUSION): the Hi-Z of the last frame's first pass.
  Toggle occlusion_ = Toggle::kAuto;
  uint32_t* hiz_ = nullptr;
  size_t hiz_words_ = 0;
  int hiz_w_ = 0, hiz_h_ = 0;
  bool hiz_stale_ = true;
  uint32_t* hidden_ = nullptr;       // batches the last occlusion frame hid (device)
  uint32_t* hidden_host_ = nullptr;  // its copy (pinned host memory)
  uint32_t last_hidden_ = UINT32_MAX;
  uint32_t plain_frames_ = 0;  // kAuto: frames since occlusion culling last ran
  bool occl_now_ = false;      // this frame runs occlusion culling
  // The last frame's batch flags (for last_batch_counts()), or null: no box tests.
  const uint8_t* last_flags_ = nullptr;
  uint64_t last_batches_ = 0;
  bool last_occlusion_ = false;
  cudaGraphicsResource_t gl_res_ = nullptr;
  int gl_width_ = 0, gl_height_ = 0;
};

}  // namespace

bool cuda_available(std::string* why) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    if (why) *why = "no usable CUDA device: " + cuda_message("cudaGetDeviceCount", e);
    return false;
  }
  if (count == 0) {
    if (why) *why = "no CUDA device found";
    return false;
  }
  return true;
}

std::unique_ptr<CudaRenderer> make_cuda_renderer(std::string* why) {
  if (!cuda_available(why)) return nullptr;
  auto r = std::make_unique<CudaRendererImpl>();
  if (!r->init(why)) return nullptr;
  return r;
}

}  // namespace pr
