// The CUDA renderer (kernels/cuda_renderer.h): the device cloud (device_cloud.h), one frame's
// work (frame.h) and the GL buffer of the interop path (gl_interop.h) behind the Renderer
// interface, on one stream. render() resolves into a device image and copies it back through a
// pinned host buffer; render_to_gl() resolves straight into the mapped GL buffer.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

#include "cuda_check.h"
#include "device_cloud.h"
#include "engine/parallel.h"
#include "engine/size_grid.h"
#include "frame.h"
#include "gl_interop.h"
#include "kernels/cuda_renderer.h"
#include "kernels/cuda_renderer_testing.h"

namespace pr {

namespace {

using cuda::cuda_message;

class CudaRendererImpl final : public CudaRenderer {
 public:
  CudaRendererImpl() = default;
  ~CudaRendererImpl() override {
    gl_.unregister();
    if (staging_) PR_CUDA_LOG(cudaFreeHost(staging_));
    cuda::free_device(size_dev_);
    cloud_.reset();
    frame_.reset();
    if (stream_) PR_CUDA_LOG(cudaStreamDestroy(stream_));
  }

  bool init(std::string* error) {
    PR_CUDA_TRY(cudaSetDevice(0));
    cudaDeviceProp prop{};
    PR_CUDA_TRY(cudaGetDeviceProperties(&prop, 0));
    char b[256];
    std::snprintf(b, sizeof b, "%s (sm_%d%d, %.0f GiB)", prop.name, prop.major, prop.minor,
                  double(prop.totalGlobalMem) / double(uint64_t{1} << 30));
    device_name_ = b;
    int sms = 0;
    PR_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    // Frames at the greatest priority: a pick's blocks (DeviceCloud::pick_window(), the least)
    // wait for the SMs that the frame's blocks leave, so a click slows the frames less.
    int least = 0, greatest = 0;
    PR_CUDA_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    PR_CUDA_TRY(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, greatest));
    cloud_ = std::make_unique<cuda::DeviceCloud>(stream_);
    frame_ = std::make_unique<cuda::Frame>(stream_);
    // Programmatic dependent launches (compute capability 9.0 and up): the resolve after the
    // raster, a culled frame's raster after its box tests, occlusion culling's Hi-Z and flags.
    return frame_->init(sms, prop.major >= 9, error);
  }

  std::string name() const override { return "gpu"; }
  std::string device_name() const override { return device_name_; }
  void set_tuning(const CudaTuning& tuning) override {
    tuning_ = tuning;
    const int r = tuning.rounds;
    if (!(r == 1 || r == 2 || r == 4 || r == 8)) tuning_.rounds = -1;
  }
  const CudaTuning& tuning() const override { return tuning_; }
  void set_stage_timing(bool on) override { tuning_.stage_timing = on; }
  bool stage_timing() const override { return tuning_.stage_timing; }
  void set_memory_limit(uint64_t bytes) override { cloud_->set_memory_limit(bytes); }

  bool compact_active() const override { return cloud_->compact(); }
  bool cloud_sorted() const override { return cloud_->sorted(); }
  size_t memory_bytes() const override {
    return cloud_->memory_bytes() + frame_->memory_bytes() + size_dev_cap_ * sizeof(float);
  }
  /// Device memory: a key (8 bytes), the image (4), the depth (4) and the high-quality splats'
  /// accumulators (16) when asked for, and a byte for the Hi-Z; host memory: the image and its
  /// pinned staging copy (4 + 4, twice that with the depth).
  FrameMemory frame_memory(const RenderSettings& s) const override {
    FrameMemory m;
    m.host_bytes_per_pixel = s.want_depth ? 16 : 8;
    m.device_bytes_per_pixel = 8 + 4 + 1 + (s.want_depth ? 4 : 0) + (s.hq ? 16 : 0);
    size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) == cudaSuccess)
      m.device_bytes_free = uint64_t(free) + frame_->memory_bytes();
    else
      (void)cudaGetLastError();  // no room known: the tiles are sized by the host's cap alone
    m.max_pixels = UINT32_MAX;   // the kernels index pixels with 32 bits
    return m;
  }
  bool last_batch_counts(BatchCounts* out, std::string* error) const override {
    return frame_->last_batch_counts(out, error);
  }

  // kernels/cuda_renderer_testing.h's read-backs.
  const cuda::DeviceCloud& device_cloud() const { return *cloud_; }
  const cuda::Frame& frame() const { return *frame_; }

  bool reserve_points(uint64_t n, std::string* error) {
    frame_->forget_cloud();
    {
      std::lock_guard<std::mutex> lock(size_mutex_);
      host_ = nullptr;  // no cloud until the next set_cloud()
      size_age_.new_cloud();
    }
    return cloud_->reserve(n, options_.compact, error);
  }

  bool set_cloud(const PointCloud& cloud, std::string* error) override {
    frame_->forget_cloud();
    {
      std::lock_guard<std::mutex> lock(size_mutex_);
      host_ = &cloud;
      size_age_.new_cloud();
    }
    if (!cloud_->upload(cloud, options_.compact, options_.sort, error)) return false;
    cloud_->prepare_pick(tuning_.pick_candidates);
    return true;
  }

  bool device_points_bounds(const DevicePointArrays& points, bool as_stored, Bounds* out,
                            std::string* error) override {
    return cuda::device_points_bounds(points, as_stored, stream_, out, error);
  }

  bool set_device_points(const DevicePointArrays& points, Bounds* world_bounds,
                         std::string* error) override {
    frame_->forget_cloud();
    {
      std::lock_guard<std::mutex> lock(size_mutex_);
      host_ = nullptr;  // no host cloud: no adaptive sizes
      size_age_.new_cloud();
    }
    return cloud_->upload_device(points, options_.compact, options_.sort, world_bounds, error);
  }

  bool generate_scene(const std::string& name, uint64_t count, uint64_t seed, Bounds* world_bounds,
                      std::string* error) override {
    frame_->forget_cloud();
    {
      std::lock_guard<std::mutex> lock(size_mutex_);
      host_ = nullptr;  // no host cloud: no adaptive sizes
      size_age_.new_cloud();
    }
    return cloud_->generate_scene(name, count, seed, options_.compact, world_bounds, error);
  }

  bool update_colors(const PointCloud& cloud, std::string* error) override {
    if (cloud_->adopt_staged(cloud)) return true;
    return cloud_->update_colors(cloud, error);
  }
  bool stage_colors(const PointCloud& cloud, const uint32_t* colors, std::string* error) override {
    return cloud_->stage_colors(cloud, colors, error);
  }
  bool stage_recipe(const PointCloud& cloud, const ColorRecipe& recipe,
                    std::string* error) override {
    return cloud_->stage_recipe(cloud, recipe, error);
  }
  bool show_staged_recipe(const PointCloud& cloud) override {
    return cloud_->show_staged_recipe(cloud);
  }
  /// The range's positions and colors copied in place and its batches' boxes made again
  /// (DeviceCloud::update_points()), which the next frame waits for on the device. The frame
  /// keeps its Hi-Z and occlusion policy:
  /// the last frame's Hi-Z only defers batches to the second pass, which tests them against the
  /// frame's own first pass, so a changed batch is never skipped for stale depths.
  bool update_points(const PointCloud& cloud, uint64_t first, uint64_t count,
                     std::string* error) override {
    // A pool that grew may move the storage: the frame then keeps nothing of the old one (the
    // last frame's flags).
    const Float3* pos = cloud_->positions();
    const uint8_t* flags = cloud_->flags();
    const bool ok = cloud_->update_points(cloud, first, count, error);
    if (cloud_->positions() != pos || cloud_->flags() != flags) frame_->forget_cloud();
    if (!ok) return false;
    std::lock_guard<std::mutex> lock(size_mutex_);
    size_age_.points_changed(count);  // the grid is made again once enough points changed
    return true;
  }

  /// The pick on the device (DeviceCloud::pick_window()): the frame's drawn points with its
  /// camera, size and point size; a sorted cloud makes its original index first (4 bytes a
  /// point, kept). Another thread may draw meanwhile.
  bool pick_window(const Camera& camera, const RenderSettings& s, PickWindow* window,
                   std::string* error) const override {
    if (error) error->clear();
    const uint64_t n = cloud_->points();
    const uint64_t count = effective_count(n, s.point_count);
    if (count == 0 || window->size() == 0) return true;  // nothing drawn: the window stays empty
    if (cloud_->sorted() && !cloud_->make_original_index(error)) return false;
    const ProjParams p = camera.params(s.width, s.height, cloud_->origin(), frame_point_size(s));
    ClipParams clip;
    if (!make_clip_params(s.clip, cloud_->origin(), &clip, error)) return false;
    SizeGrid size;
    if (!frame_sizes(s, &size, error)) return false;
    return cloud_->pick_window(p, count, tuning_.pick_candidates, tuning_.pick_launch_batches,
                               window, error, clip, size);
  }

  bool render(const Camera& camera, const RenderSettings& s, Image& out, FrameStats& stats,
              std::string* error) override {
    Stopwatch total;
    const FrameStart start = begin_frame(s, out, stats, error);
    if (start != FrameStart::kDraw) return start == FrameStart::kEmpty;
    const size_t npix = out.pixel_count();
    if (!frame_->reserve(npix, s.want_depth, s.hq, error)) return false;
    if (!reserve_staging(npix, s.want_depth, error)) return false;
    float* depth = s.want_depth ? frame_->depth() : nullptr;
    if (!draw_frame(camera, s, depth, stats, error)) return false;
    // The image (and depth) into pinned host memory, which the copy engine writes at full speed,
    // then into `out`.
    uint32_t* host_rgba = staging_;
    float* host_depth = reinterpret_cast<float*>(staging_ + npix);
    PR_CUDA_TRY(cudaMemcpyAsync(host_rgba, frame_->rgba(), npix * sizeof(uint32_t),
                                cudaMemcpyDeviceToHost, stream_));
    if (depth)
      PR_CUDA_TRY(cudaMemcpyAsync(host_depth, depth, npix * sizeof(float), cudaMemcpyDeviceToHost,
                                  stream_));
    if (!frame_->finish(stats, true, error)) return false;
    Stopwatch copy;
    // Images of a megabyte and more are copied by several threads.
    parallel_for(
        npix,
        [&](size_t lo, size_t hi) {
          std::memcpy(out.rgba.data() + lo, host_rgba + lo, (hi - lo) * sizeof(uint32_t));
          if (depth) std::memcpy(out.depth.data() + lo, host_depth + lo, (hi - lo) * sizeof(float));
        },
        0, size_t{1} << 18);
    stats.copy_ms += copy.ms();  // the device-to-host copy (GPU time) and this one
    stats.total_ms = total.ms();
    return true;
  }

  /// The frame's kernels into the frame buffers (reserved), on the frame stream: the clip's
  /// subset, the adaptive sizes, the cloud's settled boxes, then the draw.
  bool draw_frame(const Camera& camera, const RenderSettings& s, float* depth, FrameStats& stats,
                  std::string* error) {
    if (!prepare_subset(s, error)) return false;
    SizeGrid size;
    if (!frame_sizes(s, &size, error)) return false;
    cloud_->settle();
    return frame_->draw(*cloud_, camera, s, options_, tuning_, frame_->rgba(), depth, stats, error,
                        size);
  }

  bool render_on_device(const Camera& camera, const RenderSettings& s, const uint32_t** rgba,
                        const float** depth_out, FrameStats& stats, std::string* error) override {
    Stopwatch total;
    *rgba = nullptr;
    *depth_out = nullptr;
    stats = FrameStats{};
    if (s.width < 0 || s.height < 0) {
      if (error) *error = "negative image size";
      return false;
    }
    const size_t npix = size_t(frame_width(s)) * size_t(frame_height(s));
    if (npix == 0) return true;
    if (!frame_->reserve(npix, s.want_depth, s.hq, error)) return false;
    float* depth = s.want_depth ? frame_->depth() : nullptr;
    if (!draw_frame(camera, s, depth, stats, error)) return false;
    if (!frame_->finish(stats, false, error)) return false;
    *rgba = frame_->rgba();
    *depth_out = depth;
    stats.total_ms = total.ms();
    return true;
  }

  bool register_gl_buffer(unsigned int gl_buffer, int width, int height,
                          std::string* why) override {
    return gl_.register_buffer(gl_buffer, width, height, why);
  }
  void unregister_gl_buffer() override { gl_.unregister(); }
  bool gl_buffer_registered() const override { return gl_.registered(); }

  bool render_to_gl(const Camera& camera, const RenderSettings& s, FrameStats& stats,
                    std::string* error) override {
    Stopwatch total;
    stats = FrameStats{};
    if (!gl_.registered()) {
      if (error) *error = "render_to_gl: no GL buffer registered";
      return false;
    }
    if (!s.region.empty()) {
      if (error) *error = "render_to_gl: draws whole frames, not a region";
      return false;
    }
    if (s.width != gl_.width() || s.height != gl_.height()) {
      if (error)
        *error = "render_to_gl: frame is " + std::to_string(s.width) + "x" +
                 std::to_string(s.height) + " but the registered GL buffer is " +
                 std::to_string(gl_.width()) + "x" + std::to_string(gl_.height());
      return false;
    }
    const size_t npix = size_t(s.width) * size_t(s.height);
    if (npix == 0) {
      stats.total_ms = total.ms();
      return true;
    }
    if (!frame_->reserve(npix, false, s.hq, error)) return false;
    if (!prepare_subset(s, error)) return false;
    SizeGrid size;
    if (!frame_sizes(s, &size, error)) return false;
    Stopwatch map;
    uint32_t* rgba = nullptr;
    if (!gl_.map(stream_, npix, &rgba, error)) return false;
    const double map_ms = map.ms();
    cloud_->settle();
    const bool ok =
        frame_->draw(*cloud_, camera, s, options_, tuning_, rgba, nullptr, stats, error, size);
    // Unmap whatever happened: GL must get its buffer back.
    map.reset();
    std::string unmap_error;
    const bool unmapped = gl_.unmap(stream_, &unmap_error);
    if (!ok) return false;
    if (!unmapped) {
      if (error) *error = unmap_error;
      return false;
    }
    if (!frame_->finish(stats, false, error)) return false;
    stats.copy_ms = map_ms + map.ms();  // map + unmap: the hand-over to GL, no copy
    stats.total_ms = total.ms();
    return true;
  }

 private:
  /// A subset of a sorted cloud keeps the stored points whose original index is in it: the index
  /// is made by the first such frame (outside the frame's graph capture) and kept with the cloud.
  bool prepare_subset(const RenderSettings& s, std::string* error) {
    const uint64_t n = cloud_->points();
    if (effective_count(n, s.point_count) == n) return true;
    if (n >= uint64_t(UINT32_MAX)) {  // subsets pick points by a 32-bit index
      if (error)
        *error =
            "a cloud of " + std::to_string(n) + " points is drawn whole (no point count below it)";
      return false;
    }
    if (!cloud_->sorted()) return true;
    return cloud_->make_original_index(error);
  }

  /// The adaptive sizes of a frame drawn with `s` (engine/size_grid.h), or inactive ones: the
  /// cloud's grid, made on the host from the cloud of set_cloud() when SizeGridAge says (a pass
  /// over the points), its table copied to the device (1 MiB at most). A pick on another thread may
  /// ask too: one at a time. False with the CUDA call that failed.
  bool frame_sizes(const RenderSettings& s, SizeGrid* out, std::string* error) const {
    *out = SizeGrid{};
    if (!adaptive_size_on(s) || !host_) return true;
    std::lock_guard<std::mutex> lock(size_mutex_);
    if (size_age_.stale(host_->size())) {
      build_size_grid(*host_, &size_table_);
      const size_t cells = size_table_.spacing.size();
      if (cells > size_dev_cap_) {
        cuda::free_device(size_dev_);
        size_dev_cap_ = 0;
        PR_CUDA_TRY(cuda::malloc_device(&size_dev_, cells));
        size_dev_cap_ = cells;
      }
      // Synchronous: no frame or pick reads the table meanwhile (the cloud's points changed,
      // which neither may overlap).
      PR_CUDA_TRY(cudaMemcpy(size_dev_, size_table_.spacing.data(), cells * sizeof(float),
                             cudaMemcpyHostToDevice));
      size_age_.remade();
    }
    const uint64_t n = cloud_->points();
    *out = frame_size_grid(size_table_, size_dev_, s, n, effective_count(n, s.point_count));
    return true;
  }

  /// The pinned host buffer of render()'s copy: the image, and the depth after it when asked for;
  /// kept and grown with the image.
  bool reserve_staging(size_t npix, bool want_depth, std::string* error) {
    const size_t words = npix * (want_depth ? 2 : 1);
    if (words <= staging_words_) return true;
    if (staging_) PR_CUDA_TRY(cudaFreeHost(staging_));
    staging_ = nullptr;
    staging_words_ = 0;
    PR_CUDA_TRY(cudaHostAlloc(reinterpret_cast<void**>(&staging_), words * sizeof(uint32_t),
                              cudaHostAllocDefault));
    staging_words_ = words;
    return true;
  }

  std::string device_name_;
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<cuda::DeviceCloud> cloud_;
  std::unique_ptr<cuda::Frame> frame_;
  cuda::GlBuffer gl_;
  CudaTuning tuning_;
  uint32_t* staging_ = nullptr;  // pinned host memory of render()'s copy
  size_t staging_words_ = 0;
  // Adaptive point size (frame_sizes()): the host cloud of set_cloud(), its grid, when to make
  // it again and the grid's table on the device.
  const PointCloud* host_ = nullptr;
  mutable std::mutex size_mutex_;
  mutable SizeGridTable size_table_;
  mutable SizeGridAge size_age_;
  mutable float* size_dev_ = nullptr;
  mutable size_t size_dev_cap_ = 0;
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

// make_cuda_renderer() makes only CudaRendererImpl.
bool download_compact(const CudaRenderer& renderer, CompactCloud* out, std::string* error) {
  return static_cast<const CudaRendererImpl&>(renderer).device_cloud().download_compact(out, error);
}

bool download_hiz(const CudaRenderer& renderer, std::vector<uint32_t>* out, int* width, int* height,
                  std::string* error) {
  return static_cast<const CudaRendererImpl&>(renderer).frame().download_hiz(out, width, height,
                                                                             error);
}

bool download_boxes(const CudaRenderer& renderer, PodVector<PointBox>* out, std::string* error) {
  return static_cast<const CudaRendererImpl&>(renderer).device_cloud().download_boxes(out, error);
}

bool reserve_points(CudaRenderer& renderer, uint64_t points, std::string* error) {
  return static_cast<CudaRendererImpl&>(renderer).reserve_points(points, error);
}

}  // namespace pr
