// The CUDA rasterizer behind the engine's Renderer interface, plus the entry points the viewer's
// display uses for CUDA-OpenGL interop. No CUDA or GL headers here: a GL buffer is its GLuint name.
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

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/compact.h"
#include "engine/culling.h"
#include "engine/renderer.h"

namespace pr {

/// Knobs of the CUDA renderer that only tests and benchmarks set; every setting draws the same
/// image.
struct CudaTuning {
  /// Rounds of 1024 consecutive stored points each block of the raster kernel covers: 1, 2, 4, 8
  /// or 16 (compact positions: rounds / 4 batches of 4096 a block, or for 1 and 2 rounds a quarter
  /// or a half of a batch), or -1 to choose by the cloud's size and the device (the most rounds, up
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

  bool operator==(const CudaTuning&) const = default;
};

class CudaRenderer : public Renderer {
 public:
  /// Registers a GL pixel buffer object of width*height*4 bytes for CUDA-OpenGL interop
  /// (write-discard). Returns false with the reason when interop is impossible (the GL context
  /// is not on the CUDA device: Mesa, another GPU); the caller then uses render() and uploads
  /// the host image (the fallback path). Needs the GL context current on this thread.
  virtual bool register_gl_buffer(unsigned int gl_buffer, int width, int height,
                                  std::string* why) = 0;
  /// Call before the GL context goes away.
  virtual void unregister_gl_buffer() = 0;
  virtual bool gl_buffer_registered() const = 0;
  /// Renders straight into the registered buffer: map, rasterize, resolve, unmap. No host copy.
  virtual bool render_to_gl(const Camera& camera, const RenderSettings& settings, FrameStats& stats,
                            std::string* error) = 0;
  /// "NVIDIA H200 (sm_90, 139 GiB)".
  virtual std::string device_name() const = 0;

  /// Takes effect at the next frame.
  virtual void set_tuning(const CudaTuning& tuning) = 0;
  virtual const CudaTuning& tuning() const = 0;

  /// Whether the current cloud is stored sorted (false when RenderOptions::sort kept its order,
  /// or when the sort had no room and the cloud was uploaded in its own order).
  virtual bool cloud_sorted() const = 0;
  /// Copies the device's compact form of the current cloud (words and batch boxes; `orig` left
  /// empty) back to the host, for tests and tools. False with a message when the cloud is not
  /// stored in compact form or a copy fails.
  virtual bool download_compact(CompactCloud* out, std::string* error) const = 0;
  /// What the last frame did with its batches (a copy of its flags; for tests and tools).
  struct BatchCounts {
    uint64_t batches = 0;    ///< batches stored
    uint64_t culled = 0;     ///< out of view (the box test)
    uint64_t first = 0;      ///< drawn (by the first pass, with occlusion culling)
    uint64_t second = 0;     ///< drawn by the second pass
    uint64_t occluded = 0;   ///< skipped: hidden by the first pass's Hi-Z
    bool occlusion = false;  ///< the frame ran occlusion culling
  };
  /// A frame without box tests (the whole cloud in view) drew every batch. False with a message
  /// before the first frame of a cloud, or when the last frame drew no points.
  virtual bool last_batch_counts(BatchCounts* out, std::string* error) const = 0;
  /// The Hi-Z the last occlusion-culled frame built from its first pass (engine/culling.h's
  /// HizView layout) and its image size; for tests.
  virtual bool download_hiz(std::vector<uint32_t>* out, int* width, int* height,
                            std::string* error) const = 0;
  /// Copies the boxes of the current (plain) cloud's batches to the host, for tests. False with
  /// a message when there are none (compact positions, no room for them, no cloud).
  virtual bool download_boxes(PodVector<PointBox>* out, std::string* error) const = 0;
  /// Makes room in device memory for a cloud of `points` points (15 bytes each: float xyz and
  /// RGB, points being drawn opaque; 7 in compact form, as options().compact asks); set_cloud()
  /// calls it. False with a message naming the sizes when the device cannot hold them; the
  /// renderer then has no cloud (draws the background) and keeps working.
  virtual bool reserve_points(uint64_t points, std::string* error) = 0;
  /// The most bytes the cloud's point storage (positions and colors) may take on the device, or
  /// 0 (the default) for no limit but the device's: a larger cloud is refused by
  /// reserve_points() as if the device were full ("out of GPU memory: ... over the limit"), so a
  /// GPU shared with other programs keeps room for them. Takes effect at the next set_cloud().
  virtual void set_memory_limit(uint64_t bytes) = 0;
};

/// True when a CUDA device can be used; otherwise false with the reason ("no CUDA device",
/// "driver too old", ...).
bool cuda_available(std::string* why);

/// The CUDA renderer on device 0, or null with the reason.
std::unique_ptr<CudaRenderer> make_cuda_renderer(std::string* why);

}  // namespace pr
