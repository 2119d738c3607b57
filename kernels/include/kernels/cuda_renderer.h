// The CUDA rasterizer behind the GpuRenderer interface (kernels/gpu_renderer.h: the engine's
// Renderer plus CUDA-OpenGL interop), with the knobs tests and benchmarks turn (CudaTuning). Only
// a build with CUDA has it; the program makes its renderer through make_gpu_renderer(). No CUDA or
// GL headers here. What tests read back from the device is in kernels/cuda_renderer_testing.h.
//
// The renderer follows RenderOptions (Renderer::set_options(), engine/renderer.h) as the CPU
// renderer does:
// - culling: set_cloud() computes the bounding box of every kPointBatch stored points on the GPU
//   (24 bytes, a flag byte and a list entry of 4 bytes a batch: 0.007 bytes a point; compact
//   positions keep their own batch boxes); each frame first tests every box (the CPU's
//   conservative test, a thread a batch), lists the batches that draw, and the raster kernels run
//   over that list, so a camera inside a spatially coherent cloud reads only the batches around
//   its view. Batches wholly inside the view skip their points' image tests, and a frame that has
//   the whole cloud inside runs no box tests at all. Clouds under kGpuMinCullPoints
//   (engine/frame_policy.h) are not culled: their frames read the whole cloud in microseconds.
// - occlusion: each frame tests every batch in view against the Hi-Z (the farthest depth of each
//   16 x 16 and 64 x 64 pixel tile) of the last frame's first pass and defers those it hides; a
//   first raster pass draws the others, the Hi-Z of its keys is built, and a second pass draws the
//   deferred batches that Hi-Z does not hide. A batch is skipped only when each of its points
//   would land behind what every pixel it can write already holds, so the image is the same. kAuto
//   follows OcclusionPolicy with kGpuOcclusion (engine/frame_policy.h).
// - compact: positions quantized to 4 bytes in batches of kCompactBatch (engine/compact.h),
//   encoded on the GPU (the host's build_compact() when the GPU has no room for the temporaries;
//   both give the same words): 7 bytes a point instead of 15. The image equals the CPU renderer's
//   with the same options (not the full-precision image: each coordinate moves by up to half a
//   step of its batch box, 1/2046 of the box).
// - sort: set_cloud() reorders the points along a Morton curve on the GPU (CUB radix sort, once
//   per cloud; 1e9 points in about 2 s with the copy) when wants_spatial_sort() says so, so that
//   random-order input is drawn with the memory coherence of sorted input; compact positions are
//   encoded in that order. The image is unchanged (the key's tie rule is depth, then color,
//   whatever the storage order) and the cloud still costs 15 bytes a point; drawing a subset of a
//   sorted cloud makes each point's original index once (4 more bytes a point until the next
//   cloud). Without room for the sort's temporaries the cloud is uploaded in its own order.
#pragma once

#include <memory>
#include <string>

#include "kernels/gpu_renderer.h"

namespace pr {

/// Knobs of the CUDA renderer that only tests and benchmarks set; every setting draws the same
/// image.
struct CudaTuning {
  /// Rounds of 1024 consecutive stored points each block of the raster kernel covers: 1, 2, 4 or
  /// 8 (compact positions: rounds / 4 batches of 4096 a block, or for 1 and 2 rounds a quarter or
  /// a half of a batch), or -1 to choose by the cloud's size and the device (the most rounds, up
  /// to 8, that still give the GPU twice the blocks it holds at once). A forced value culls clouds
  /// of every size (with culling on). Other values count as -1.
  int rounds = -1;
  /// Each frame as one CUDA graph launch (captured and updated in place every frame) instead of
  /// separate launches: the GPU runs the stages back to back (1e5 points at 1080p on the H200:
  /// 0.018 instead of 0.021 ms).
  bool frame_graph = true;
  /// Times clear, raster and resolve apart (CUDA events between them, FrameStats::stages) instead
  /// of only the whole GPU frame. Inside a frame's graph the two extra events cost about 4 us
  /// (1e5 points at 1080p on the H200: 0.0140 against 0.0100 ms a frame).
  bool stage_timing = false;
  /// Points a pick (Renderer::pick_window()) lists as candidates for its window's pixels after
  /// its one pass over the points; when more come, a second pass finds the index instead. Room
  /// for them is made at the first pick, 16 bytes a candidate.
  uint32_t pick_candidates = 1u << 20;
  /// Listed batches a pick's walk takes in one launch, waited for before the next (a frame
  /// queues behind one launch of the pick at most); at least 1.
  uint32_t pick_launch_batches = 16384;

  bool operator==(const CudaTuning&) const = default;
};

class CudaRenderer : public GpuRenderer {
 public:
  /// Takes effect at the next frame.
  virtual void set_tuning(const CudaTuning& tuning) = 0;
  virtual const CudaTuning& tuning() const = 0;
};

/// True when a CUDA device can be used; otherwise false with the reason ("no CUDA device",
/// "driver too old", ...).
bool cuda_available(std::string* why);

/// The CUDA renderer on device 0, or null with the reason.
std::unique_ptr<CudaRenderer> make_cuda_renderer(std::string* why);

}  // namespace pr
