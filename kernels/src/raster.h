// The rasterization kernels' launchers (kernels/src/raster.cu) and the upload-time spatial sort
// (kernels/src/spatial_sort.cu). Device pointers only: the host-side class in cuda_renderer.cu owns
// the buffers, the stream and the timing events.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <cuda_runtime_api.h>

#include "engine/compact.h"
#include "engine/culling.h"
#include "engine/morton.h"
#include "engine/point_cloud.h"
#include "engine/projection.h"

namespace pr::cuda {

/// Point colors on the device: 3 bytes a point (R, G, B; point i's at bytes 3i .. 3i + 2), the
/// array padded to whole 32-bit words, which the kernels read. The alpha is not stored: points
/// are drawn opaque (kOpaqueAlpha, projection.h), on the CPU too. 15 bytes a point with float
/// positions, 7 with compact ones.
inline uint64_t rgb_words(uint64_t points) {
  return (3 * points + 3) / 4;
}

#if defined(__CUDACC__)
/// Point i's color from the packed array `rgb` (rgb_words() words): R | G << 8 | B << 16 |
/// kOpaqueAlpha, the RGBA8 word the CPU's keys carry. The word holding its first byte, and the
/// next one when its bytes straddle two (both in the padded array).
__device__ __forceinline__ uint32_t load_rgb(const uint32_t* __restrict__ rgb, uint64_t i) {
  const uint64_t byte = 3 * i;
  const uint32_t shift = uint32_t(byte & 3) * 8;
  const uint32_t* w = rgb + (byte >> 2);
  const uint32_t lo = __ldg(w);
  const uint32_t hi = shift > 8 ? __ldg(w + 1) : 0u;
  return __funnelshift_r(lo, hi, shift) | kOpaqueAlpha;
}
#endif

/// dst (the packed form of load_rgb(), rgb_words(n) words) from n RGBA8 device colors `src`
/// taken in `order` (device, null: as stored).
cudaError_t pack_rgb(const uint32_t* src, const uint32_t* order, uint64_t n, uint32_t* dst,
                     cudaStream_t stream);

/// The cloud as the raster kernels see it.
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
  /// (Writable: the compact launcher runs the box tests that fill them.)
  uint32_t* list = nullptr;
  uint32_t* list_count = nullptr;
  unsigned list_blocks = 0;
};

struct RasterInput : DrawnPoints {
  const Float3* pos = nullptr;  ///< positions in storage order
  /// One byte per kPointBatch stored points from launch_box_flags() (this frame's box tests,
  /// a BatchFlag of engine/culling.h), or null: no culling. Used when every
  /// stored point is walked (all points, or a subset of a permuted cloud).
  const uint8_t* flags = nullptr;
  /// Rounds of 1024 consecutive points a block of the point kernel covers (>= 1). Splats take one
  /// point a thread, a batch a block when culled.
  int rounds = 1;
  /// Without flags: every batch is wholly inside the view (the cloud's box_inside()), so the
  /// points skip their image tests (flags mark such batches kBatchInside).
  bool all_inside = false;
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
/// host's compute_point_boxes() bit for bit.
cudaError_t compute_boxes(const Float3* pos, uint64_t n, PointBox* boxes, cudaStream_t stream);

/// dst[k] = src[order[k]] for k < n (device arrays; T is Float3).
template <class T>
cudaError_t gather(const T* src, const uint32_t* order, uint64_t n, T* dst, cudaStream_t stream);

}  // namespace pr::cuda

#include "engine/compact.h"

namespace pr::cuda {

/// A compact cloud (engine/compact.h) as the compact raster kernel sees it.
struct CompactInput : DrawnPoints {
  const uint32_t* words = nullptr;        ///< one 3x10-bit word per stored point
  const CompactBatch* batches = nullptr;  ///< one box per kCompactBatch stored points
  int rounds = 1;                         ///< batches a block of the raster kernel covers
  /// Blocks a batch (1, 2 or 4; then rounds is 1): each covers kCompactBatch / parts consecutive
  /// points of its batch, so a small cloud still gives the GPU enough blocks.
  int parts = 1;
  /// A byte a batch that the launch fills with this frame's box tests (compact_box_visible(),
  /// the CPU's, a kernel of its own) before the raster kernel skips the culled batches; null:
  /// every batch is drawn.
  uint8_t* flags = nullptr;
  /// Without flags: every batch is wholly inside the view (the whole cloud's box_inside()).
  bool all_inside = false;
  /// Occlusion culling: the box tests defer the batches this Hi-Z hides and zero `hidden`
  /// (box_flags()).
  HizView hiz;
  uint32_t* hidden = nullptr;
  /// The flags are this frame's already (occlusion culling's second pass): no box tests.
  bool flags_ready = false;
};

/// Blocks of in.rounds batches: (with in.flags) the box tests first, then every stored point
/// decoded with compact_decode and depth-tested like the simple variant (key = depth bits << 32 |
/// color). Subsets keep the stored points whose original index is in the subset. Point size > 1
/// splats splat_rect() squares. Same image as CpuRenderer with set_compact(true). False (nothing
/// launched) when a subset of a permuted cloud is asked for without `orig`.
bool launch_compact_raster(const ProjParams& p, const CompactInput& in, unsigned long long* keys,
                           cudaStream_t stream);

#if defined(__CUDACC__)
/// Programmatic dependent launch (compute capability 9.0 and up; nothing on older devices, and
/// nothing when the next kernel was not launched as a dependent): a raster kernel calls
/// allow_dependents() first, so the resolve after it may be scheduled as soon as every raster
/// block has started; the resolve calls wait_for_primary() before it reads what the raster wrote
/// (it returns once the raster grid has completed and its writes are visible).
__device__ __forceinline__ void allow_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__device__ __forceinline__ void wait_for_primary() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// Launches `kernel` on `blocks` blocks of `threads` on `stream`; `dependent`: as a programmatic
/// dependent of the kernel before it in the stream (which then must call allow_dependents(); the
/// dependent calls wait_for_primary() before it reads that kernel's results). A launch error is
/// left for cudaGetLastError().
template <class... Params, class... Args>
void launch_kernel(void (*kernel)(Params...), unsigned blocks, unsigned threads,
                   cudaStream_t stream, bool dependent, Args... args) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(blocks);
  cfg.blockDim = dim3(threads);
  cfg.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = dependent ? 1 : 0;
  (void)cudaLaunchKernelEx(&cfg, kernel, args...);
}

/// The batch box tests of both storages under one name (engine/culling.h's for PointBox,
/// engine/compact.h's for CompactBatch), for box_flags().
__device__ __forceinline__ bool batch_visible(const ProjParams& p, const PointBox& b) {
  return point_box_visible(p, b);
}
__device__ __forceinline__ bool batch_visible(const ProjParams& p, const CompactBatch& b) {
  return compact_box_visible(p, b);
}
__device__ __forceinline__ bool batch_inside(const ProjParams& p, const PointBox& b) {
  return box_inside(p, b);
}
__device__ __forceinline__ bool batch_inside(const ProjParams& p, const CompactBatch& b) {
  return compact_box_inside(p, b);
}

__device__ __forceinline__ BoxFootprint batch_footprint(const ProjParams& p, const PointBox& b) {
  return box_footprint(p, b);
}
__device__ __forceinline__ BoxFootprint batch_footprint(const ProjParams& p,
                                                        const CompactBatch& b) {
  return compact_box_footprint(p, b);
}

/// Batch culling (engine/culling.h), one thread a batch: the box test of each of `n` boxes
/// (double precision, conservative, the CPU's function) into its BatchFlag byte: culled when no
/// point can draw, inside (only when `inside` allows it) when every point surely draws at its
/// pixel, so the raster kernel skips the points' image tests, drawn otherwise. A kernel of its
/// own before the raster kernel: measured against thread 0 of each raster block testing its own
/// batch (whose double arithmetic raised the raster kernel's registers or spilled them), 1e9
/// points 3.24 against 3.44 ms with every point in view, 0.27 against 0.43 ms inside the cloud
/// (docs/GPU.md). With `hiz` (occlusion culling's first pass: the last frame's Hi-Z) a batch in
/// view that it hides is deferred (| kBatchDeferred): the first raster pass skips it and
/// occlusion_flags() decides after that pass.
/// Appends `value` to `list` where `yes`, one atomicAdd on `*count` a warp (every lane of the warp
/// calls it). The order of the entries between warps is the order of their atomics.
__device__ __forceinline__ void append_to_list(bool yes, uint32_t value, uint32_t* list,
                                               uint32_t* count) {
  const unsigned votes = __ballot_sync(0xffffffffu, yes);
  if (!votes) return;
  const unsigned lane = threadIdx.x & 31u;
  const int leader = __ffs(int(votes)) - 1;
  uint32_t base = 0;
  if (int(lane) == leader) base = atomicAdd(count, uint32_t(__popc(votes)));
  base = __shfl_sync(0xffffffffu, base, leader);
  if (yes) list[base + uint32_t(__popc(votes & ((1u << lane) - 1u)))] = value;
}

/// `list` (DrawnPoints::list; or null): the batches that draw are listed there too, counted in
/// `*list_count` (zeroed before the launch).
template <class Box>
__global__ void box_flags(ProjParams p, const Box* __restrict__ boxes, uint64_t n, bool inside,
                          uint8_t* __restrict__ flags, HizView hiz, uint32_t* hidden,
                          uint32_t* list, uint32_t* list_count) {
  allow_dependents();  // the raster may be scheduled beside these blocks (DrawnPoints::pdl)
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  // occlusion_flags() counts into it after this grid has completed.
  if (hidden && i == 0) *hidden = 0;
  uint8_t f = kBatchCulled;
  if (i < n) {
    const Box b = boxes[i];
    f = !batch_visible(p, b)           ? kBatchCulled
        : inside && batch_inside(p, b) ? kBatchInside
                                       : kBatchDrawn;
    if (hiz.words && f != kBatchCulled && footprint_occluded(batch_footprint(p, b), hiz))
      f |= kBatchDeferred;
    flags[i] = f;
  }
  if (list) append_to_list(batch_draws(f), uint32_t(i), list, list_count);
}

/// Occlusion culling's second pass, one thread a batch, after the first raster pass and
/// launch_hiz(): a deferred batch that this frame's Hi-Z (`hiz`) no longer hides is drawn by the
/// second pass (its flag without kBatchDeferred); one it still hides becomes kBatchOccluded, one
/// drawn by the first pass kBatchFirst | its flag, so the second pass draws only the former.
/// `hidden` (zeroed by box_flags()) counts the batches in view that this Hi-Z hides, those the
/// first pass drew among them: what the next frame would skip if the camera stayed (the measure
/// of whether the two passes pay, whatever the Hi-Z that chose this frame's first pass).
/// `list` (or null): the batches the second pass draws are listed there too, counted in
/// `*list_count` (zeroed before the frame).
template <class Box>
__global__ void occlusion_flags(ProjParams p, const Box* __restrict__ boxes, uint64_t n,
                                HizView hiz, uint8_t* __restrict__ flags, uint32_t* hidden,
                                uint32_t* list, uint32_t* list_count) {
  allow_dependents();  // the second raster pass
  wait_for_primary();  // the Hi-Z of the first pass
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  bool hid = false;
  uint8_t next = kBatchCulled;
  if (i < n) {
    const uint8_t f = flags[i];
    if (f != kBatchCulled) {
      hid = footprint_occluded(batch_footprint(p, boxes[i]), hiz);
      next = !(f & kBatchDeferred) ? uint8_t(f | kBatchFirst)
             : hid                 ? uint8_t(kBatchOccluded)
                                   : uint8_t(f & ~kBatchDeferred);
      flags[i] = next;
    }
  }
  const unsigned votes = __ballot_sync(0xffffffffu, hid);  // one atomic a warp
  if (votes && (threadIdx.x & 31) == 0) atomicAdd(hidden, uint32_t(__popc(votes)));
  if (list) append_to_list(batch_draws(next), uint32_t(i), list, list_count);
}

constexpr unsigned kFlagThreads = 256;

/// `hiz` and `hidden`: occlusion culling's first pass (box_flags()), or none.
/// `list`, `list_count`: box_flags()'s (or null).
template <class Box>
void launch_box_flags(const ProjParams& p, const Box* boxes, uint64_t n, bool inside,
                      uint8_t* flags, cudaStream_t stream, HizView hiz = HizView{},
                      uint32_t* hidden = nullptr, uint32_t* list = nullptr,
                      uint32_t* list_count = nullptr) {
  if (n == 0) return;
  box_flags<Box><<<unsigned((n + kFlagThreads - 1) / kFlagThreads), kFlagThreads, 0, stream>>>(
      p, boxes, n, inside, flags, hiz, hidden, list, list_count);
}

/// occlusion_flags() as a programmatic dependent of launch_hiz() where `pdl` allows.
template <class Box>
void launch_occlusion_flags(const ProjParams& p, const Box* boxes, uint64_t n, HizView hiz,
                            uint8_t* flags, uint32_t* hidden, uint32_t* list, uint32_t* list_count,
                            cudaStream_t stream, bool pdl) {
  if (n == 0) return;
  launch_kernel(occlusion_flags<Box>, unsigned((n + kFlagThreads - 1) / kFlagThreads), kFlagThreads,
                stream, pdl, p, boxes, n, hiz, flags, hidden, list, list_count);
}
#endif

}  // namespace pr::cuda
