// The multi-threaded CPU rasterizer: the same projection (projection.h) and the same
// visibility-buffer depth test as the CUDA renderer, with std::atomic_ref compare-exchange in place
// of atomicMin, so both produce identical images.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/compact.h"
#include "engine/culling.h"
#include "engine/frame_policy.h"
#include "engine/renderer.h"
#include "engine/size_grid.h"

namespace pr {

namespace cpu_detail {  // the frame internals, engine/src/cpu_frame.h
struct FrameTarget;
struct BinEntry;
}  // namespace cpu_detail

class CpuRenderer final : public Renderer {
 public:
  explicit CpuRenderer(unsigned threads = 0);
  ~CpuRenderer() override;
  std::string name() const override { return "cpu"; }
  bool set_cloud(const PointCloud& cloud, std::string* error) override;
  bool render(const Camera& camera, const RenderSettings& settings, Image& out, FrameStats& stats,
              std::string* error) override;
  /// The frames read the cloud's colors where they are: nothing to copy.
  bool update_colors(const PointCloud& cloud, std::string* error) override {
    if (&cloud == cloud_ && cloud.colors.size() == cloud.size()) return true;
    if (error)
      *error = "update_colors: not the cloud being drawn, or a color array of another size";
    return false;
  }
  bool stage_colors(const PointCloud&, const uint32_t*, std::string*) override { return true; }
  /// The frames read the positions and colors where they are: only the boxes of the batches the
  /// range touches are computed again (when the boxes exist; otherwise the first frame that culls
  /// computes them all). A plain cloud is always stored as given (RenderOptions::sort orders only
  /// the compact form), so only a compact cloud is refused.
  bool update_points(const PointCloud& cloud, uint64_t first, uint64_t count,
                     std::string* error) override;
  size_t memory_bytes() const override;
  FrameMemory frame_memory(const RenderSettings& settings) const override;
  /// Whether the current cloud is drawn from its compact form (RenderOptions::compact at its
  /// set_cloud(), which encodes it with build_compact(), in Morton order exactly when
  /// wants_spatial_sort() says so): frames decode the words batch by batch with box culling,
  /// exactly as the CUDA renderer's compact mode draws them.
  bool compact_active() const override { return compact_active_; }
  unsigned threads() const { return threads_; }
  /// The compact form the frames draw from (empty unless compact_active()): what a pick
  /// re-projects to name the point a frame drew (engine/pick.h).
  const CompactCloud& compact() const { return *compact_; }
  /// The same, shared: a pick on another thread holds it while set_cloud() makes the next one.
  std::shared_ptr<const CompactCloud> shared_compact() const { return compact_; }

  // Batch culling (RenderOptions::culling): the boxes of kPointBatch stored points (computed by
  // the first frame that culls, once per cloud, so a viewer drawing on the GPU never pays for
  // them; or the compact form's batches) are tested against the view before their points are
  // read. Frames that draw every point use it; a subset of a plain cloud (every k-th point) does
  // not. Same image either way.
  /// Batches culled in the last frame.
  uint64_t culled_batches() const { return culled_batches_; }

  // Occlusion culling (RenderOptions::occlusion, with culling; the CUDA renderer's two passes,
  // docs/GPU.md): the batches in view that the Hi-Z of the last frame's first pass hides are
  // deferred, the others drawn, the Hi-Z of their keys built, and the deferred batches it does
  // not hide drawn; the same image. kAuto: OcclusionPolicy with kCpuOcclusion
  // (engine/frame_policy.h).
  /// The last frame: whether it ran occlusion culling, and the batches it skipped as hidden.
  bool occlusion_ran() const { return occlusion_ran_; }
  uint64_t occluded_batches() const { return occluded_batches_; }
  /// The last frame's deferred batches that its own Hi-Z did not hide (drawn by the second pass).
  uint64_t second_pass_batches() const { return second_pass_batches_; }
  /// The boxes of the plain cloud's batches (empty in compact mode and before the first culled
  /// frame).
  const PodVector<PointBox>& boxes() const { return boxes_; }
  /// The density grid the last adaptive frame of the cloud drawn used, or null when no adaptive
  /// frame made one since set_cloud().
  const SizeGridTable* size_table() const {
    return cloud_ && size_age_.made ? size_table_.get() : nullptr;
  }
  /// The same, shared: a pick on another thread holds it while a frame makes the next one.
  std::shared_ptr<const SizeGridTable> shared_size_table() const {
    return cloud_ && size_age_.made ? size_table_ : nullptr;
  }

  // Sort-middle binning of 1-pixel points (RenderOptions::binning; kAuto: bin_frame(),
  // engine/frame_policy.h): each thread projects its share of the points into bins by band of
  // the image (2^15 consecutive pixels), then each band is depth-tested by one thread alone, with
  // plain loads and stores in keys its cache holds, instead of compare-exchanges on keys all
  // threads share; in groups of 2^18 points, so the bins stay small. Same image either way.
  // (Whether the last frame binned: CpuRendererTesting, engine/cpu_renderer_testing.h.)

 private:
  friend struct CpuRendererTesting;
  // What a frame's depth tests write, and a binned point.
  using FrameTarget = cpu_detail::FrameTarget;
  using BinEntry = cpu_detail::BinEntry;

  unsigned threads_;
  const PointCloud* cloud_ = nullptr;
  // The visibility buffer, kept all-empty between frames: the resolve pass resets every pixel it
  // reads, so there is no separate clear pass.
  std::vector<uint64_t> keys_;
  // High-quality splats' accumulators (engine/hq_splat.h), two words a pixel, allocated by the
  // first frame that asks for them and kept all-zero between frames by the resolve.
  std::vector<uint64_t> hq_acc_;
  // One flag per screen tile (kTile x kTile pixels): set when a point lands in it. The resolve
  // pass fills untouched tiles with the background without reading their keys, so a frame costs
  // in proportion to the covered area (most of the cube scene lies outside its camera's view).
  std::vector<uint8_t> tile_dirty_;
  int tiles_x_ = 0, tiles_y_ = 0, keys_w_ = 0, keys_h_ = 0;
  bool compact_active_ = false;
  std::shared_ptr<const CompactCloud> compact_ = std::make_shared<const CompactCloud>();
  PodVector<PointBox> boxes_;  // one per kPointBatch points of the plain cloud
  ClipParams clip_;            // this frame's clip (RenderSettings::clip) in the local frame
  // Adaptive point size (engine/size_grid.h): the cloud's grid, made when SizeGridAge says, and
  // this frame's sizes (inactive: one size).
  std::shared_ptr<const SizeGridTable> size_table_;  // a new one each time: picks may hold the last
  SizeGridAge size_age_;
  SizeGrid size_;
  uint64_t culled_batches_ = 0;
  // Occlusion culling: the choice across frames, the Hi-Z of the last frame that ran it
  // (HizView's layout) and its size, and each batch's pass this frame (draw_batches()).
  OcclusionPolicy occlusion_{kCpuOcclusion};
  std::vector<uint32_t> hiz_;
  int hiz_w_ = 0, hiz_h_ = 0;
  std::vector<uint8_t> pass_;
  std::vector<uint32_t> list_;  // the batches a pass draws
  bool occlusion_ran_ = false;
  uint64_t occluded_batches_ = 0, second_pass_batches_ = 0;
  bool binned_ = false;
  uint64_t last_drawn_ = ~uint64_t{0};  // the last frame's FrameTarget::drawn (unknown at first)
  // Thread slot s's bin of band b at s * bands + b; kept between groups and frames.
  std::vector<std::vector<BinEntry>> bins_;

  // The stages of render(): the keys and tile flags sized to the frame; the points drawn into
  // them (the plain cloud's or its compact form's, then the high-quality splats' pass); the keys
  // resolved into the image (and reset for the next frame).
  void size_buffers(int width, int height);
  void raster_plain(const ProjParams& p, const FrameTarget& t, uint64_t count, bool binned,
                    bool hq);
  void raster_compact(const ProjParams& p, const FrameTarget& t, uint64_t count, bool binned,
                      bool hq);
  void resolve(const RenderSettings& s, Image& out, bool hq);
  // size_ for a frame of `count` points drawn with `s` (the grid made first when stale).
  void prepare_sizes(const RenderSettings& s, uint64_t count);
  // The batches of a culled frame: box tests, then occlusion culling's two passes when
  // occlusion_ chooses them; unit(bi, emit) draws batch bi.
  template <class VisibleFn, class FootprintFn, class UnitFn>
  void draw_batches(const ProjParams& p, size_t batches, size_t stored_points, const FrameTarget& t,
                    bool binned, bool hq, VisibleFn visible, FootprintFn footprint, UnitFn unit);
  // What run_units() does with the points: depth-test them at once, bin them first, or (after
  // the depth test) add them to the high-quality splats' accumulators.
  enum class Pass { kDepth, kBinned, kHq };
  // Draws units (list[k], or k without a list, for k < units) in parallel: unit(u, emit) hands
  // each point that draws (its pixel and key, or its square) to `emit`.
  template <class UnitFn>
  void run_units(size_t units, const uint32_t* list, const FrameTarget& t, Pass pass, UnitFn unit);
  // The high-quality splats' pass over the batches that draw_batches() drew.
  template <class UnitFn>
  void hq_batches(const FrameTarget& t, UnitFn unit);
};

}  // namespace pr
