// The launchers of the device kernels: the rasterization of both storages (raster.cu,
// compact_raster.cu), the batch box tests (batch_flags.cu) and the upload's sort, encoder and boxes
// (spatial_sort.cu). Device pointers only: the host side (device_cloud.h, frame.h) owns the
// buffers, the stream and the timing events. No device code here (device_common.cuh has it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <cuda_runtime_api.h>

#include "engine/clip_math.h"
#include "engine/compact.h"
#include "engine/culling.h"
#include "engine/edl.h"
#include "engine/morton.h"
#include "engine/point_cloud.h"
#include "engine/point_size.h"
#include "engine/projection.h"
#include "kernels/cuda_renderer.h"

namespace pr::cuda {

/// Point colors on the device: 3 bytes a point (R, G, B; point i's at bytes 3i .. 3i + 2), the
/// array padded to whole 32-bit words, which the kernels read. The alpha is not stored: points
/// are drawn opaque (kOpaqueAlpha, projection.h), on the CPU too. 15 bytes a point with float
/// positions, 7 with compact ones.
inline uint64_t rgb_words(uint64_t points) {
  return (3 * points + 3) / 4;
}

/// dst (the packed form of load_rgb(), rgb_words(n) words) from n RGBA8 device colors `src`
/// taken in `order` (device, null: as stored).
cudaError_t pack_rgb(const uint32_t* src, const uint32_t* order, uint64_t n, uint32_t* dst,
                     cudaStream_t stream);

/// What the raster inputs of both storages share: the colors, and which stored points a frame
/// draws.
struct DrawnPoints {
  const uint32_t* colors = nullptr;  ///< packed RGB (load_rgb()) in storage order
  /// Points stored in another order than the cloud's (the Morton-sorted upload or build) and a
  /// subset drawn: the original index of each stored point, which decides membership. Null
  /// otherwise: the stored order is the original one, or every point is drawn.
  const uint32_t* orig = nullptr;
  bool permuted = false;  ///< stored in another order than the cloud's
  uint64_t total = 0;     ///< points stored
  uint64_t count = 0;     ///< points drawn: the subset subset_index(i, step), i < count
  /// Culled frames (flags): the raster kernel is launched as a programmatic dependent of the box
  /// tests before it (compute capability 9.0 and up; launch_kernel()).
  bool pdl = false;
  /// Culled frames: the batches this pass draws, as the box tests listed them (box_flags(),
  /// occlusion_flags()), `*list_count` of them in `list` (device). The raster kernel then runs
  /// at most `list_blocks` blocks over the list, where without it a block for every batch would
  /// read the batch's flag, most of them to do nothing else. Null: a block for every batch.
  const uint32_t* list = nullptr;
  const uint32_t* list_count = nullptr;
  unsigned list_blocks = 0;
  /// A byte a batch of kPointBatch (= kCompactBatch) stored points: this frame's box tests
  /// (launch_box_flags(), a BatchFlag of engine/culling.h), or null: no culling. Used when every
  /// stored point is walked (all points, a subset of a permuted cloud, or compact positions).
  const uint8_t* flags = nullptr;
  /// Without flags: every batch is wholly inside the view (the whole cloud's box_surely_inside()),
  /// so the points skip their image tests (flags mark such batches kBatchInside).
  bool all_inside = false;
  /// The frame's clip (engine/clip_math.h; inactive: every point draws): each point that draws
  /// is tested with clip_point(), the same float test as the CPU's, and drawn tinted or not at
  /// all; the box tests cull the batches it hides whole. One branch a point, the same for every
  /// thread of a frame.
  ClipParams clip;
  /// The frame's adaptive point sizes (engine/point_size.h; the table on the device), or inactive:
  /// every point p.point_size. Active only with p.point_size > 1 (the largest size): such frames
  /// run the splat kernels compiled with it (kAdaptive); the others stay as they are.
  SizeGrid size;
};
static_assert(kPointBatch == kCompactBatch, "one flag byte and list entry a batch of either");

struct RasterInput : DrawnPoints {
  const Float3* pos = nullptr;  ///< positions in storage order
  /// Rounds of 1024 consecutive points a block of the point kernel covers (>= 1). Splats take one
  /// point a thread, a batch a block when culled.
  int rounds = 1;
};

/// Projects the drawn points and depth-tests their keys into `keys` (W*H, kEmptyKey where empty).
/// The key's low word is the point's color, so ties resolve as on the CPU whatever the storage
/// order. Point size > 1 splats splat_rect() squares, as the CPU does. False (nothing launched)
/// when a subset of a permuted cloud is asked for without `orig`.
bool launch_raster(const ProjParams& p, const RasterInput& in, unsigned long long* keys,
                   cudaStream_t stream);

/// Turns the width x height visibility buffer into RGBA8 (the key's color word, or `background`)
/// and, when `depth` is not null, camera-space depth (+inf where empty). Resets every key to
/// kEmptyKey on the way, so the next frame needs no clear. Keys outside `rect` are not read: the
/// caller guarantees that no point of this frame wrote there (box_pixel_rect() of the cloud's
/// box), so they are still empty from the last resolve, and those pixels are background. Four
/// pixels a thread with 16-byte loads and stores (a quarter of the threads of one a pixel); a
/// tail of fewer than four pixels, or buffers that are not 16-byte aligned, one a thread.
/// `pdl` (devices of compute capability 9.0 and up): the four-pixel resolve is launched as a
/// programmatic dependent of the raster kernel before it (which lets it start early:
/// allow_dependents()), writes its quads outside `rect` while the raster still runs and waits for
/// the raster's results (wait_for_primary()) before it reads a key; each of its blocks waits
/// before it ends, so the work after the resolve also comes after the raster.
void launch_resolve(unsigned long long* keys, int width, int height, const PixelRect& rect,
                    uint32_t background, uint32_t* rgba, float* depth, cudaStream_t stream,
                    bool pdl);

/// launch_resolve() for frames with eye-dome lighting (engine/edl.h) or high-quality splats
/// (engine/hq_splat.h), or both (resolve_shaded.cu): every pixel's color (and depth) from the keys
/// as they are (EDL reads a pixel's neighbours' keys) and, with `hq_acc` (two words a pixel), the
/// average of the accumulators, which are reset to zero on the way; then the keys inside `rect`
/// reset to kEmptyKey by a memset of its rows. `edl` null: no EDL. Not a programmatic dependent.
/// Returns the launch's or the memset's error.
cudaError_t launch_resolve_shaded(unsigned long long* keys, int width, int height,
                                  const PixelRect& rect, const EdlParams* edl,
                                  unsigned long long* hq_acc, uint32_t background, uint32_t* rgba,
                                  float* depth, cudaStream_t stream);

/// What high-quality splats' second pass reads (hq_splat.cu): the frame's drawn points, as the
/// raster pass saw them, in either storage.
struct HqInput : DrawnPoints {
  bool compact = false;
  const Float3* pos = nullptr;            ///< float storage
  const uint32_t* words = nullptr;        ///< compact storage
  const CompactBatch* batches = nullptr;  ///< compact storage
};

/// High-quality splats' second pass, after the raster's passes: every point the raster drew
/// (the batches `in.flags` marks drawn, every batch without flags; the same subset) adds its color
/// to `acc` (two words a pixel, zero before) at each pixel of its square whose final key in
/// `keys` it lies within range of (hq_blends()). At most `max_blocks` blocks, grid-stride. False
/// (nothing launched) for a subset of a permuted cloud without `orig`.
bool launch_hq_accumulate(const ProjParams& p, const HqInput& in, const unsigned long long* keys,
                          unsigned long long* acc, unsigned max_blocks, cudaStream_t stream);

/// Builds the Hi-Z of the width x height `keys` (HizView's layout, engine/culling.h; `hiz` has
/// total_words() words) as build_hiz() does on the host. Tiles with no pixel in `rect` (the
/// pixels this frame's points can write) are written empty without a read. `pdl`: launched as a
/// programmatic dependent of the raster kernel before it; it waits for the raster's keys before
/// it writes anything.
void launch_hiz(const unsigned long long* keys, int width, int height, const PixelRect& rect,
                uint32_t* hiz, cudaStream_t stream, bool pdl);

/// The Morton (Z-order) order of `n` device positions `src` in `box` (morton_code_of(), the
/// host's function), by CUB's (stable) radix sort: `order[k]` is the index of the k-th point
/// along the curve (ties keep the original order), the very order of the host's morton_order().
/// Allocates its temporaries (about 16 bytes a point) and frees them before returning; on failure
/// returns the error with `what` naming the call.
cudaError_t morton_order(const Float3* src, uint32_t* order, uint64_t n, const MortonBox& box,
                         cudaStream_t stream, std::string* what);

/// The compact form (engine/compact.h) of `n` device positions `pos` taken in `order` (null: as
/// stored) into `words` (n) and `batches` (one per kCompactBatch): equal to build_compact()'s.
cudaError_t encode_compact(const Float3* pos, const uint32_t* order, uint64_t n, uint32_t* words,
                           CompactBatch* batches, cudaStream_t stream);

/// The boxes of `n` device positions in batches of kPointBatch (engine/culling.h), equal to the
/// host's compute_point_boxes() bit for bit: of `batches` batches from `first_batch` on (those
/// past the last point skipped), into boxes[first_batch] on.
cudaError_t compute_boxes(const Float3* pos, uint64_t n, PointBox* boxes, cudaStream_t stream,
                          uint64_t first_batch = 0, uint64_t batches = ~uint64_t{0});

/// dst[k] = src[order[k]] for k < n (device arrays; T is Float3).
template <class T>
cudaError_t gather(const T* src, const uint32_t* order, uint64_t n, T* dst, cudaStream_t stream);

/// The box tests of a frame, one thread a batch (batch_flags.cu), for the plain storage's
/// PointBox and the compact storage's CompactBatch alike: each of the `n` boxes into its BatchFlag
/// byte in `flags` (culled, drawn, or inside: every point surely draws at its pixel). With
/// `hiz.words` (occlusion culling's first pass: the last frame's Hi-Z) a batch in view that it
/// hides is deferred (| kBatchDeferred) and `*hidden` is zeroed for
/// launch_occlusion_flags(). `list` (or null): the batches that draw are appended there, counted
/// in `*list_count` (zeroed before the launch), for the raster kernels (DrawnPoints::list).
/// `clip` (active): the batches it hides whole (clip_box_class()) are culled too.
void launch_box_flags(const ProjParams& p, const PointBox* boxes, uint64_t n, uint8_t* flags,
                      const HizView& hiz, uint32_t* hidden, uint32_t* list, uint32_t* list_count,
                      cudaStream_t stream, const ClipParams& clip = ClipParams{});
void launch_box_flags(const ProjParams& p, const CompactBatch* boxes, uint64_t n, uint8_t* flags,
                      const HizView& hiz, uint32_t* hidden, uint32_t* list, uint32_t* list_count,
                      cudaStream_t stream, const ClipParams& clip = ClipParams{});

/// Occlusion culling's second pass flags, after the first raster pass and launch_hiz(): a
/// deferred batch that this frame's Hi-Z `hiz` no longer hides is drawn by the second pass, one it
/// still hides becomes kBatchOccluded, one the first pass drew kBatchFirst | its flag; `*hidden`
/// counts the batches in view this Hi-Z hides. `list` (or null): the second pass's batches.
/// `pdl`: a programmatic dependent of launch_hiz().
void launch_occlusion_flags(const ProjParams& p, const PointBox* boxes, uint64_t n,
                            const HizView& hiz, uint8_t* flags, uint32_t* hidden, uint32_t* list,
                            uint32_t* list_count, cudaStream_t stream, bool pdl);
void launch_occlusion_flags(const ProjParams& p, const CompactBatch* boxes, uint64_t n,
                            const HizView& hiz, uint8_t* flags, uint32_t* hidden, uint32_t* list,
                            uint32_t* list_count, cudaStream_t stream, bool pdl);

/// A compact cloud (engine/compact.h) as the compact raster kernel sees it.
struct CompactInput : DrawnPoints {
  const uint32_t* words = nullptr;        ///< one 3x10-bit word per stored point
  const CompactBatch* batches = nullptr;  ///< one box per kCompactBatch stored points
  int rounds = 1;                         ///< batches a block of the raster kernel covers
  /// Blocks a batch (1, 2 or 4; then rounds is 1): each covers kCompactBatch / parts consecutive
  /// points of its batch, so a small cloud still gives the GPU enough blocks.
  int parts = 1;
};

/// Blocks of in.rounds batches (with in.flags, this frame's box tests: only the batches that
/// draw), every stored point decoded with compact_decode() and depth-tested as in
/// launch_raster() (key = depth bits << 32 | color). Subsets keep the stored points whose original
/// index is in the subset. Point size > 1 splats splat_rect() squares. The same image as the CPU
/// renderer's compact mode. False (nothing launched) when a subset of a permuted cloud is asked
/// for without `orig`.
bool launch_compact_raster(const ProjParams& p, const CompactInput& in, unsigned long long* keys,
                           cudaStream_t stream);

/// A point that may own a pixel of a pick's window: its key there, the pixel (in the window) and
/// its original index.
struct PickCandidate {
  unsigned long long key;
  uint32_t pixel, id;
};

/// A pick's pass (pick.cu, Renderer::pick_window()): the stored points, the frame's drawn subset
/// and the click's window.
struct PickInput {
  ProjParams p;
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;  ///< the window: pixels [x0, x1) x [y0, y1)
  const Float3* pos = nullptr;         ///< float positions, or null with `words`
  const uint32_t* words = nullptr;     ///< compact positions (with `batches`)
  const CompactBatch* batches = nullptr;
  const PointBox* boxes = nullptr;   ///< the float positions' batch boxes, or null: no culling
  const uint32_t* colors = nullptr;  ///< packed RGB (load_rgb())
  const uint32_t* orig = nullptr;    ///< each stored point's original index; null: as stored
  ClipParams clip;                   ///< the frame's clip: the points it hides are not picked
  SizeGrid size;                     ///< the frame's adaptive sizes (device table), or inactive
  uint64_t total = 0;                ///< points stored
  uint64_t count = 0, step = 0;      ///< a subset: in_subset(original index, count, step)
  bool subset = false;
  /// Room for `capacity` candidates, and their count (device).
  PickCandidate* candidates = nullptr;
  unsigned long long* candidate_count = nullptr;
  uint64_t capacity = 0;
  /// Listed batches a walk's launch takes (CudaTuning::pick_launch_batches; 0 counts as 1).
  uint64_t launch_batches = CudaTuning{}.pick_launch_batches;
  /// Room for every batch's number, and their count (device): the batches whose box can put a
  /// pixel in the window, which the passes walk.
  uint32_t* list = nullptr;
  unsigned long long* list_count = nullptr;
};

/// Fills `keys` and `index` (the window's pixels, row by row, device) with the smallest key of
/// the drawn points whose splat covers each pixel, then the smallest original index among the
/// points with that key (kEmptyKey and ~0 where none does): pick_point()'s pairs, engine/pick.h.
/// A thread a batch lists the batches whose box reaches the window; one pass over their points;
/// the index comes from the candidates it lists, or, when they do not fit in.capacity, from a
/// second pass over those points. The passes run in launches of a bounded number of batches,
/// each waited for on `stream` (the host waits; the window is ready when it returns).
cudaError_t launch_pick(const PickInput& in, unsigned long long* keys, unsigned long long* index,
                        cudaStream_t stream);

}  // namespace pr::cuda
