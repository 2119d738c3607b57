// The CUDA rasterizer behind the engine's Renderer interface, plus the entry points the viewer's
// display uses for CUDA-OpenGL interop. No CUDA or GL headers here: a GL buffer is its GLuint name.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/compact.h"
#include "engine/renderer.h"

namespace pr {

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
  /// Upload-time spatial sort: set_cloud() reorders the points along a Morton curve on the GPU
  /// (CUB radix sort, once per cloud; 1e9 points in about 2 s with the copy), so random-order
  /// input is drawn with the memory coherence of sorted input. The image is unchanged (the key's
  /// tie rule is depth, then color, whatever the storage order) and the cloud still costs 15
  /// bytes a point; drawing a subset of a sorted cloud makes each point's original index once (4
  /// more bytes a point until the next cloud). Without room for the sort's temporaries the cloud
  /// is uploaded in its own order. kAuto (the default) sorts only clouds whose own order is not
  /// spatially coherent (order_coherence() below kCoherentOrder, engine/morton.h): a random-order
  /// cloud draws 2x faster sorted, while a scan or grid order is kept (re-sorting the procedural
  /// terrain made its frames slower). Takes effect at the next set_cloud().
  /// PR_CUDA_SORT=auto|on|off.
  enum class SortMode { kOff, kAuto, kOn };
  virtual void set_sort_mode(SortMode mode) = 0;
  /// set_sort_mode(on ? kOn : kOff).
  void set_spatial_sort(bool on) { set_sort_mode(on ? SortMode::kOn : SortMode::kOff); }
  /// Whether the current cloud is stored sorted (false when off, when kAuto kept a coherent order,
  /// or when the sort had no room and the cloud was uploaded in its own order).
  virtual bool cloud_sorted() const = 0;
  /// Each frame as one CUDA graph launch (on by default; captured and updated in place every
  /// frame) instead of separate launches: the GPU runs the stages back to back (1e5 points at
  /// 1080p on the H200: 0.018 instead of 0.021 ms). Same image. PR_CUDA_GRAPH=0|off turns it off.
  /// On devices of compute capability 9.0 and up the resolve is a programmatic dependent launch
  /// of the raster, and a culled frame's raster one of its box tests (docs/GPU.md): 2 - 10% off
  /// 1e5 - 1e7 point frames; PR_CUDA_PDL=0|off turns both off, PR_CUDA_PDL=resolve the second.
  virtual void set_frame_graph(bool on) = 0;
  /// Times clear, raster and resolve apart (CUDA events between them) instead of only the whole
  /// GPU frame (FrameStats::stages). Off by default: inside a frame's graph the two extra events
  /// cost about 4 us (1e5 points at 1080p on the H200: 0.0140 against 0.0100 ms a frame).
  /// PR_CUDA_STAGE_EVENTS=1 turns it on.
  virtual void set_stage_timing(bool on) = 0;
  virtual bool stage_timing() const = 0;
  virtual bool frame_graph() const = 0;
  /// Compact quantized positions (engine/compact.h; off by default): set_cloud() encodes the
  /// cloud on the GPU (batches of 4096 points, a float box each, 3 x 10-bit offsets a point; the
  /// host's build_compact() when the GPU has no room for the temporaries; both give the same
  /// words) and keeps 4 bytes of position a point instead of 12; frames cull whole batches
  /// against the view and decode with the CPU's decoder. The image equals CpuRenderer's with
  /// set_compact(true, sorted) (not the full-precision image: each coordinate moves by up to half
  /// a step of its batch box, 1/2046 of the box). With the spatial sort (see set_sort_mode) the
  /// points and colors are stored in Morton order: 7 bytes a point either way (4 of position, 3
  /// of color). Takes effect at
  /// the next set_cloud(). The default comes from PR_CUDA_COMPACT (1|on), else off.
  virtual void set_compact_positions(bool on) = 0;
  /// Whether the current cloud is stored in compact form.
  virtual bool compact_positions() const = 0;
  /// Copies the device's compact form of the current cloud (words and batch boxes; `orig` left
  /// empty) back to the host, for tests and tools. False with a message when the cloud is not
  /// stored in compact form or a copy fails.
  virtual bool download_compact(CompactCloud* out, std::string* error) const = 0;
  /// Batch culling (engine/culling.h; on by default): set_cloud() computes the bounding box of
  /// every kPointBatch stored points on the GPU (24 bytes, a flag byte and a list entry of 4 bytes
  /// a batch: 0.007 bytes a point); each frame first tests every box (the CPU's conservative test,
  /// a thread a batch) and the raster kernel skips the batches whose box cannot reach the image,
  /// so a camera inside a spatially coherent cloud (sorted on upload, or coherent as given) reads
  /// only the batches around its view. Same image. Compact positions cull their own batches the
  /// same way (a flag byte each beside their boxes) and follow this switch too. Takes effect at the
  /// next frame; PR_CUDA_CULL=0|off turns it off (for A/B measurements).
  virtual void set_culling(bool on) = 0;
  virtual bool culling() const = 0;
  /// Occlusion culling (docs/GPU.md): each frame tests every batch in view against the Hi-Z (the
  /// farthest depth of each 16 x 16 and 64 x 64 pixel tile) of the last frame's first pass and
  /// defers those it hides; a first raster pass draws the others, the Hi-Z of its keys is built,
  /// and a second pass draws the deferred batches that Hi-Z does not hide. A batch is skipped only
  /// when each of its points would land behind what every pixel it can write already holds, so
  /// the image is the same; a camera that looks through a dense cloud reads a fraction of it
  /// (H200, the Morton cube of 1e9 points in view: 0.44 instead of 2.74 ms). The two passes cost
  /// three more dependent kernels (about 16 us), so kAuto (the default) runs them only for clouds
  /// of 2^24 points and more, and only while the last frame that ran them hid at least 4096
  /// batches (16 M points); otherwise it tries again every 16th frame. kOn: every frame (tests,
  /// A/B). Takes effect at the next frame; PR_CUDA_OCCLUSION=auto|on|off.
  virtual void set_occlusion_culling(Toggle mode) = 0;
  virtual Toggle occlusion_culling() const = 0;
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
  /// Rounds of 1024 consecutive stored points each block of the point kernel covers: 1, 2, 4, 8
  /// or 16 (compact positions: rounds / 4 batches of 4096 a block, or for 1 and 2 rounds a quarter
  /// or a half of a batch), or -1 (the default) to choose by the cloud's size and the device (the
  /// most rounds, up to 8, that still give the GPU twice the blocks it holds at once; clouds under
  /// 2^20 points are then not culled: their frames read the whole cloud in a few microseconds). A
  /// forced value culls clouds of every size (when culling is on). For tests and A/B measurements
  /// (PR_CUDA_ROUNDS); every choice draws the same image.
  virtual void set_raster_rounds(int rounds) = 0;
  /// Copies the boxes of the current (plain) cloud's batches to the host, for tests. False with
  /// a message when there are none (compact positions, no room for them, no cloud).
  virtual bool download_boxes(PodVector<PointBox>* out, std::string* error) const = 0;
  /// Makes room in device memory for a cloud of `points` points (15 bytes each: float xyz and
  /// RGB, points being drawn opaque; 7 in compact form); set_cloud() calls it. False with a
  /// message naming the sizes when the device cannot hold them; the renderer then has no cloud
  /// (draws the background) and keeps working.
  virtual bool reserve_points(uint64_t points, std::string* error) = 0;
  /// The most bytes the cloud's point storage (positions and colors) may take on the device, or
  /// 0 (the default) for no limit but the device's: a larger cloud is refused by
  /// reserve_points() as if the device were full ("out of GPU memory: ... over the limit"), so a
  /// GPU shared with other programs keeps room for them. The default comes from
  /// PR_CUDA_MEMORY_LIMIT (bytes, or with a K, M or G suffix), else none. Takes effect at the
  /// next set_cloud().
  virtual void set_memory_limit(uint64_t bytes) = 0;
};

/// True when a CUDA device can be used; otherwise false with the reason ("no CUDA device",
/// "driver too old", ...).
bool cuda_available(std::string* why);

/// The CUDA renderer on device 0, or null with the reason.
std::unique_ptr<CudaRenderer> make_cuda_renderer(std::string* why);

}  // namespace pr
