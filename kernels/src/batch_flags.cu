// Batch culling's box tests on the device, one thread a batch, for both storages: the plain
// cloud's PointBox (engine/culling.h) and the compact cloud's CompactBatch (engine/compact.h),
// each tested with the CPU's own conservative double-precision function. A kernel of its own
// before the raster kernel: measured against thread 0 of each raster block testing its own batch
// (whose double arithmetic raised the raster kernel's registers or spilled them), 1e9 points 3.24
// against 3.44 ms with every point in view, 0.27 against 0.43 ms inside the cloud (docs/GPU.md).
#include "device_common.cuh"
#include "engine/compact.h"
#include "raster.h"

namespace pr::cuda {

namespace {

/// The box tests of both storages under one name, for the kernels below.
__device__ __forceinline__ bool batch_may_draw(const ProjParams& p, const PointBox& b) {
  return box_may_draw(p, b);
}
__device__ __forceinline__ bool batch_may_draw(const ProjParams& p, const CompactBatch& b) {
  return compact_box_may_draw(p, b);
}
__device__ __forceinline__ bool batch_surely_inside(const ProjParams& p, const PointBox& b) {
  return box_surely_inside(p, b);
}
__device__ __forceinline__ bool batch_surely_inside(const ProjParams& p, const CompactBatch& b) {
  return compact_box_surely_inside(p, b);
}
__device__ __forceinline__ BoxFootprint batch_footprint(const ProjParams& p, const PointBox& b) {
  return box_footprint(p, b);
}
__device__ __forceinline__ BoxFootprint batch_footprint(const ProjParams& p,
                                                        const CompactBatch& b) {
  return compact_box_footprint(p, b);
}

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

/// Each of `n` boxes into its BatchFlag byte: culled when no point can draw, inside when every
/// point surely draws at its pixel (the raster kernels then skip the points' image tests), drawn
/// otherwise. With `hiz` (occlusion culling's first pass: the last frame's Hi-Z) a batch in view
/// that it hides is deferred (| kBatchDeferred): the first raster pass skips it and
/// occlusion_flags() decides after that pass. `list` (or null): the batches that draw are listed
/// there too, counted in `*list_count` (zeroed before the launch).
template <class Box>
__global__ void box_flags(ProjParams p, const Box* __restrict__ boxes, uint64_t n,
                          uint8_t* __restrict__ flags, HizView hiz, uint32_t* hidden,
                          uint32_t* list, uint32_t* list_count, ClipParams clip) {
  allow_dependents();  // the raster may be scheduled beside these blocks (DrawnPoints::pdl)
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  // occlusion_flags() counts into it after this grid has completed.
  if (hidden && i == 0) *hidden = 0;
  uint8_t f = kBatchCulled;
  if (i < n) {
    const Box b = boxes[i];
    f = !batch_may_draw(p, b)       ? kBatchCulled
        : batch_surely_inside(p, b) ? kBatchInside
                                    : kBatchDrawn;
    // A batch the clip hides whole (engine/clip_math.h) draws nothing either; one it shows
    // whole, untinted, draws without the per-point clip test.
    if (f != kBatchCulled && clip.active()) {
      const uint32_t k = clip_box_class(clip, b);
      if (k == kClipHidden)
        f = kBatchCulled;
      else if (k == kClipShown)
        f |= kBatchClipShown;
    }
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

unsigned flag_blocks(uint64_t n) {
  return unsigned((n + kThreads - 1) / kThreads);
}

template <class Box>
void launch_box_flags_of(const ProjParams& p, const Box* boxes, uint64_t n, uint8_t* flags,
                         const HizView& hiz, uint32_t* hidden, uint32_t* list, uint32_t* list_count,
                         cudaStream_t stream, const ClipParams& clip) {
  if (n == 0) return;
  box_flags<Box><<<flag_blocks(n), kThreads, 0, stream>>>(p, boxes, n, flags, hiz, hidden, list,
                                                          list_count, clip);
}

template <class Box>
void launch_occlusion_flags_of(const ProjParams& p, const Box* boxes, uint64_t n,
                               const HizView& hiz, uint8_t* flags, uint32_t* hidden, uint32_t* list,
                               uint32_t* list_count, cudaStream_t stream, bool pdl) {
  if (n == 0) return;
  launch_kernel(occlusion_flags<Box>, flag_blocks(n), unsigned(kThreads), stream, pdl, p, boxes, n,
                hiz, flags, hidden, list, list_count);
}

}  // namespace

void launch_box_flags(const ProjParams& p, const PointBox* boxes, uint64_t n, uint8_t* flags,
                      const HizView& hiz, uint32_t* hidden, uint32_t* list, uint32_t* list_count,
                      cudaStream_t stream, const ClipParams& clip) {
  launch_box_flags_of(p, boxes, n, flags, hiz, hidden, list, list_count, stream, clip);
}
void launch_box_flags(const ProjParams& p, const CompactBatch* boxes, uint64_t n, uint8_t* flags,
                      const HizView& hiz, uint32_t* hidden, uint32_t* list, uint32_t* list_count,
                      cudaStream_t stream, const ClipParams& clip) {
  launch_box_flags_of(p, boxes, n, flags, hiz, hidden, list, list_count, stream, clip);
}

void launch_occlusion_flags(const ProjParams& p, const PointBox* boxes, uint64_t n,
                            const HizView& hiz, uint8_t* flags, uint32_t* hidden, uint32_t* list,
                            uint32_t* list_count, cudaStream_t stream, bool pdl) {
  launch_occlusion_flags_of(p, boxes, n, hiz, flags, hidden, list, list_count, stream, pdl);
}
void launch_occlusion_flags(const ProjParams& p, const CompactBatch* boxes, uint64_t n,
                            const HizView& hiz, uint8_t* flags, uint32_t* hidden, uint32_t* list,
                            uint32_t* list_count, cudaStream_t stream, bool pdl) {
  launch_occlusion_flags_of(p, boxes, n, hiz, flags, hidden, list, list_count, stream, pdl);
}

}  // namespace pr::cuda
