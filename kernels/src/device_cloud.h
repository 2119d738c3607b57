// The cloud on the device: its storage (float positions or compact words, packed colors), the
// upload (in the cloud's own order or sorted along a Morton curve on the GPU), the compact
// encoder, the batch boxes the frames cull with, and the original index a subset of a sorted cloud
// needs.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "engine/colorize.h"
#include "engine/compact.h"
#include "engine/culling.h"
#include "engine/pick.h"
#include "engine/point_cloud.h"
#include "engine/point_size.h"
#include "engine/renderer.h"
#include "kernels/gpu_renderer.h"

namespace pr::cuda {

struct PickCandidate;  // raster.h

/// The finite bounds of device positions (device_points.cu), after the device's pending work:
/// as given, or `as_stored` (GpuRenderer::device_points_bounds()).
bool device_points_bounds(const DevicePointArrays& points, bool as_stored, cudaStream_t stream,
                          Bounds* out, std::string* error);

class DeviceCloud {
 public:
  /// Uploads, sorts and encodes on `stream` (the renderer's; it outlives this object).
  explicit DeviceCloud(cudaStream_t stream) : stream_(stream) {}
  ~DeviceCloud();
  DeviceCloud(const DeviceCloud&) = delete;
  DeviceCloud& operator=(const DeviceCloud&) = delete;

  /// The most bytes the point storage may take (0: no limit but the device's).
  void set_memory_limit(uint64_t bytes) { memory_limit_ = bytes; }

  /// Forgets the current cloud and makes room for `n` points, in compact form or not (keeping the
  /// allocation when it fits and is not more than twice too large). False with "out of GPU
  /// memory: ..." when the device (or the limit) cannot hold them; then there is no cloud.
  bool reserve(uint64_t n, bool compact, std::string* error);

  /// Stores `cloud` (which must outlive this object's use of it, for original_index()): in
  /// compact form when `compact`; sorted along a Morton curve when wants_spatial_sort(sort, ...)
  /// says so and the device has room for the sort. False with a message when it cannot.
  bool upload(const PointCloud& cloud, bool compact, Toggle sort, std::string* error);

  /// Stores a cloud that lies in device memory (device_points.cu): positions less its origin and
  /// packed colors (its own, its recipe's, or white) copied device to device, sorted along a
  /// Morton curve as upload() sorts (unless `sort` is off; the order kept as the original index)
  /// and in compact form when `compact`, its boxes made; no host cloud is kept (no
  /// update_colors()). `world_bounds`: the finite stored points' bounds plus the origin. False
  /// with a message.
  bool upload_device(const DevicePointArrays& points, bool compact, Toggle sort,
                     Bounds* world_bounds, std::string* error);

  /// Generates `n` points of the procedural scene `name` ("terrain" or "cube", engine/scenes.h)
  /// with `seed` on the device, in slices, straight into the storage (device_scene.cu): the
  /// points and colors of make_scene(name, n, seed), stored in their own order (as upload() with
  /// sort off), in compact form when `compact`; no host cloud. Clouds of 2^32 points and more
  /// are drawn whole (no subsets, no picks). `world_bounds`: the union of the batch boxes. False
  /// with a message: a scene the device does not make, out of GPU memory.
  bool generate_scene(const std::string& name, uint64_t n, uint64_t seed, bool compact,
                      Bounds* world_bounds, std::string* error);

  /// New colors of the uploaded cloud (the same object, points and positions): packed and
  /// uploaded in the stored order (as stored; through the host-encoded compact index; or, for a
  /// cloud sorted on the GPU, through the original index, made on the first call and kept: 4
  /// bytes a point). False with a message when `cloud` is not the uploaded cloud or a step fails.
  bool update_colors(const PointCloud& cloud, std::string* error);

  /// New points of the uploaded cloud in [first, first + count) (the same object and size; a
  /// streaming pool's node copied in or evicted): the range's positions and packed colors copied
  /// to their place through pinned buffers on a copy stream, the boxes of the batches it touches
  /// computed again there by compute_boxes(); the host does not wait: work on the cloud's stream
  /// (the next frame) waits for the copies on the device, and settle() makes the cloud's box the
  /// union of the boxes again once they are back. Only for a cloud stored as given (neither
  /// sorted nor compact). Drops staged
  /// colors (packed from the points before). False with a message when the cloud is not the
  /// uploaded one, is sorted or compact, the range lies outside it (nothing changed then), or a
  /// step fails (then there is no cloud until the next upload()).
  bool update_points(const PointCloud& cloud, uint64_t first, uint64_t count, std::string* error);
  /// Folds the boxes of finished update_points() copies into the cloud's box; called before a
  /// frame plans. Never waits.
  void settle();
  /// Whether box() and empty_batches() include every update_points() call (false while boxes of
  /// an update are on their way back: frames then test every batch and draw to the whole image).
  bool box_exact() const { return pending_.empty(); }

  /// update_colors()'s work done ahead, on a thread other than the one drawing, while frames
  /// still draw the current colors: `colors` (the cloud's next colors, one per point in its
  /// order) packed into a second color array in stored order, on a stream of this call's own, and
  /// waited for. False with a message when the cloud is not the uploaded one, the device has no
  /// room for the second array, or a sorted cloud has no original index yet (update_colors() then
  /// does the whole work). At most one call at a time; not concurrent with upload() (reserve()
  /// waits for it).
  bool stage_colors(const PointCloud& cloud, const uint32_t* colors, std::string* error);
  /// When stage_colors() staged `cloud`'s colors as they are now (`cloud.colors.data()` is the
  /// array staged): swaps the staged array in (the old one freed) and returns true. Otherwise
  /// drops what was staged and returns false.
  bool adopt_staged(const PointCloud& cloud);
  /// stage_colors() without the host's colors: the colors of `recipe` (engine/colorize.h, made
  /// for `cloud`, the cloud uploaded last) computed here from the stored float positions or from
  /// the cloud's values, uploaded on first use and kept until the cloud changes
  /// (recipe_colors.cu). False with the reason when it cannot: compact positions for a position's
  /// recipe, no room on the device or under the limit.
  bool stage_recipe(const PointCloud& cloud, const ColorRecipe& recipe, std::string* error);
  /// Swaps in the colors stage_recipe() staged for `cloud`: the frames draw them from now on.
  /// False (nothing changes) when none are staged for it.
  bool show_staged_recipe(const PointCloud& cloud);

  /// A pick's two passes (pick.cu) over the stored points drawn by a frame with `p` of `count`
  /// points: `window` (engine/pick.h, emptied) gets each pixel's smallest (key, original index).
  /// On a stream of its own, after the copies of update_points() calls, and waited for; the
  /// storage and its colors stay as they are meanwhile (reserve(), update_points() and the staged
  /// colors' swap wait for it). A sorted cloud needs its original index (make_original_index())
  /// first. False with a message when there is no cloud or a step fails.
  /// `candidates`: room for the points listed after the pass (CudaTuning::pick_candidates);
  /// `launch_batches`: listed batches a walk's launch takes (CudaTuning::pick_launch_batches).
  /// `clip`: the frame's clip (engine/clip_math.h); the points it hides are not picked.
  /// `size`: the frame's adaptive sizes (engine/point_size.h, the table on the device), or
  /// inactive.
  bool pick_window(const ProjParams& p, uint64_t count, uint32_t candidates,
                   uint32_t launch_batches, PickWindow* window, std::string* error,
                   const ClipParams& clip = ClipParams{}, const SizeGrid& size = SizeGrid{});
  /// Makes pick_window()'s stream and buffers ahead of the first pick (a window of up to 64 x 64
  /// pixels, room for `candidates`), so that the first click costs what the next ones do. A
  /// failure is left for pick_window() to meet and report.
  void prepare_pick(uint32_t candidates);

  /// A subset of a sorted cloud needs each stored point's original index: made on the first call
  /// (4 bytes a point, kept until the next cloud). False with a message when it cannot be made.
  bool make_original_index(std::string* error);

  uint64_t points() const { return points_; }
  /// The double-precision origin the cloud's float positions are offsets from.
  const glm::dvec3& origin() const { return origin_; }
  /// Batches of kPointBatch (= kCompactBatch) stored points.
  uint64_t batches() const { return (points_ + kPointBatch - 1) / kPointBatch; }
  /// Whether the current cloud is stored in compact form.
  bool compact() const { return compact_ && loaded_; }
  bool sorted() const { return sorted_; }
  /// Whether the batches have boxes on the device (and a flag byte and a list entry each), so that
  /// frames can cull them; false for a plain cloud whose boxes found no room.
  bool has_boxes() const { return points_ > 0 && (compact_ ? batches_ != nullptr : boxes_ready_); }
  /// The union of the batch boxes (empty without boxes).
  const PointBox& box() const { return cloud_box_; }
  /// Batches whose box is empty (no finite point; 0 without boxes): every view culls them.
  uint64_t empty_batches() const { return empty_batches_; }

  const Float3* positions() const { return pos_; }
  const uint32_t* words() const { return words_; }
  const CompactBatch* compact_batches() const { return batches_; }
  const PointBox* boxes() const { return boxes_; }
  const uint32_t* colors() const { return colors_; }
  /// The original index of each stored point (make_original_index()), or null.
  const uint32_t* original_index() const { return orig_; }
  /// A frame's flag byte and list entry a batch (batch_flags.cu), or null without boxes.
  uint8_t* flags() const { return compact_ ? compact_flags_ : flags_; }
  uint32_t* list() const { return compact_ ? compact_list_ : list_; }

  /// Device bytes held for the cloud.
  size_t memory_bytes() const;
  /// Copies of the device's compact form and plain batch boxes, for tests.
  bool download_compact(CompactCloud* out, std::string* error) const;
  bool download_boxes(PodVector<PointBox>* out, std::string* error) const;

 private:
  void free_points();
  void free_boxes();
  void make_boxes(uint64_t n);
  cudaError_t prepare_updates(int k, size_t bytes, std::string* what);
  cudaError_t grow(uint64_t n, std::string* what);
  cudaError_t pick_buffers(size_t pixels, uint32_t candidates, std::string* what);
  void finish_updates();
  bool make_compact_box(uint64_t n, std::string* error);
  /// The end of storing a cloud that has no host cloud (upload_device(), generate_scene()): its
  /// original index (or null) and order, its boxes, then `n` points loaded.
  bool adopt_device_cloud(uint64_t n, bool compact, uint32_t* orig, bool sorted, bool colors_file,
                          std::string* error);
  bool upload_plain(const PointCloud& cloud, bool sort, const Bounds& bounds, std::string* error);
  bool upload_compact(const PointCloud& cloud, bool sort, const Bounds& bounds, std::string* error);
  bool upload_sorted(const PointCloud& cloud, const Bounds& bounds);
  bool encode_on_gpu(const PointCloud& cloud, bool sort, const Bounds& bounds);
  /// upload_device()'s colors (device_points.cu).
  cudaError_t device_colors(const DevicePointArrays& points, const Float3* pos,
                            const uint32_t* order, std::string* what);
  /// The colors of position recipe `recipe` into colors_ for `n` stored points whose positions
  /// are pos[order[s]] (order null: pos[s]), on stream_ (not waited for).
  cudaError_t position_recipe_colors(const ColorRecipe& recipe, const Float3* pos,
                                     const uint32_t* order, uint64_t n, std::string* what);
  cudaError_t morton_order_of(const PointCloud& cloud, const Bounds& bounds, uint32_t* order,
                              Float3** src_out, std::string* what);
  void drop_staged();
  cudaError_t stage_buffer(std::string* what);
  bool swap_staged(const PointCloud& cloud, bool recipe);
  void drop_values();
  bool keep_file_colors();
  size_t values_bytes() const;
  bool room_for_values(size_t bytes) const;
  cudaError_t device_values(const PointCloud& cloud, const ColorRecipe& recipe, const void** out,
                            std::string* what);
  bool finish_staging(const PointCloud& cloud, const uint32_t* colors, cudaError_t e,
                      const std::string& what, std::string* error);
  /// The two pinned buffers of kPinnedBytes the host uploads go through, made on first use.
  cudaError_t pinned_buffers(std::string* what);
  cudaError_t upload_bytes(const void* from, size_t bytes, void* dst, cudaStream_t stream,
                           std::string* what);
  cudaError_t upload_rgb_from_host(const uint32_t* from, const uint32_t* orig, uint64_t n,
                                   void* dst, bool pack, cudaStream_t stream, std::string* what,
                                   bool pad_end = true);
  cudaError_t upload_colors(const uint32_t* from, const uint32_t* order, uint64_t n, uint32_t* dst,
                            cudaStream_t stream, std::string* what);
  cudaError_t write_colors(const uint32_t* from, uint32_t* dst, cudaStream_t stream,
                           std::string* what);
  bool finish_upload(cudaError_t e, std::string& what, const PointCloud& cloud, Float3*& src,
                     uint32_t*& order, const char* skipped, const char* instead);

  cudaStream_t stream_;
  uint64_t memory_limit_ = 0;
  uint64_t cap_points_ = 0, points_ = 0;
  bool compact_ = false;               // the storage reserved: compact words or float positions
  bool loaded_ = false;                // a cloud is stored (upload() succeeded)
  bool sorted_ = false;                // stored in Morton order
  const PointCloud* cloud_ = nullptr;  // the cloud uploaded last (for make_original_index())
  // Plain storage: float xyz; its batch boxes, flags and list (make_boxes()).
  Float3* pos_ = nullptr;
  PointBox* boxes_ = nullptr;
  uint8_t* flags_ = nullptr;
  uint32_t* list_ = nullptr;
  uint64_t cap_boxes_ = 0;
  bool boxes_ready_ = false;
  PodVector<PointBox> host_boxes_;  // a copy of the boxes, for the cloud's box (update_points())
  // Compact storage: a word a point, a box, a flag and a list entry a batch (reserve()).
  uint32_t* words_ = nullptr;
  CompactBatch* batches_ = nullptr;
  uint8_t* compact_flags_ = nullptr;
  uint32_t* compact_list_ = nullptr;
  uint64_t cap_batches_ = 0;
  uint32_t* colors_ = nullptr;     // packed RGB, 3 bytes a point (load_rgb())
  uint32_t* orig_ = nullptr;       // the original index (make_original_index())
  PodVector<uint32_t> host_orig_;  // a host-encoded compact Morton build's original index
  // Staged colors (stage_colors()): the second array, for which cloud and color array, the
  // stream that fills it; the pinned buffers the packing alternates between. `stage_mutex_` keeps
  // staging and the calls that change the storage apart.
  std::mutex stage_mutex_;
  uint32_t* staged_ = nullptr;
  const PointCloud* staged_cloud_ = nullptr;
  const uint32_t* staged_colors_ = nullptr;
  cudaStream_t stage_stream_ = nullptr;
  bool staged_recipe_ = false;  // the staged colors are stage_recipe()'s
  bool staged_file_ = false;    // ... of RGB: the file's colors
  // colors_ holds the file's colors (the cloud's source_colors()): known at upload and after a
  // swap to RGB's recipe; any other write of colors_ clears it. The swap of a recipe then keeps
  // them in file_rgb_ (packed, stored order) instead of freeing them, and RGB's recipe copies
  // them back on the device; RGB's values (4 bytes a point) are then dropped.
  bool colors_file_ = false;
  uint32_t* file_rgb_ = nullptr;
  static constexpr size_t kPinnedBytes = size_t{1} << 24;
  uint8_t* pinned_[2] = {};
  // stage_recipe(): the cloud's values it read, by ColorRecipe::attribute, and its table.
  struct Values {
    std::string name;
    void* ptr = nullptr;
    size_t bytes = 0;
    bool file_colors = false;  // RGB's: the file's colors
  };
  std::vector<Values> values_;
  uint32_t* recipe_table_ = nullptr;
  size_t recipe_table_cap_ = 0;
  // pick_window(): its stream, the window's keys and indices on the device (2 x pick_cap_) and
  // the candidates' and the listed batches' counts after them, the room for the candidates
  // (16 MiB, made once) and the batch list (4 bytes a batch).
  cudaStream_t pick_stream_ = nullptr;
  unsigned long long* pick_buf_ = nullptr;
  size_t pick_cap_ = 0;
  PickCandidate* pick_candidates_ = nullptr;
  uint32_t pick_candidates_cap_ = 0;
  uint32_t* pick_list_ = nullptr;  // the batches a pick walks (pick.cu's pick_list)
  uint64_t pick_list_cap_ = 0;
  cudaEvent_t pinned_free_[2] = {};
  // update_points(): its copy stream, the event after its last copy, two pinned staging buffers
  // (used in turn) and the events after their copies, a pinned mirror of the boxes, and the
  // batch ranges whose boxes settle() has not folded in yet.
  cudaStream_t copy_stream_ = nullptr;
  cudaEvent_t copied_ = nullptr;
  uint8_t* update_stage_[2] = {};
  size_t update_cap_[2] = {};
  cudaEvent_t update_free_[2] = {};
  int update_k_ = 0;
  PointBox* box_mirror_ = nullptr;
  uint64_t box_mirror_cap_ = 0;
  std::vector<std::pair<uint64_t, uint64_t>> pending_;
  PointBox cloud_box_ = empty_point_box();
  uint64_t empty_batches_ = 0;
  glm::dvec3 origin_{0.0};
};

}  // namespace pr::cuda
