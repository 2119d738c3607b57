// The GPU renderer as the program sees it: the engine's Renderer interface plus drawing straight
// into an OpenGL pixel buffer (CUDA-OpenGL interop), and the factory that makes one or says in one
// line why it cannot. The kernels library always builds: a build without CUDA compiles only a
// factory that answers "built without CUDA", so the program asks here at run time instead of
// knowing at compile time. No CUDA or GL headers: a GL buffer is its GLuint name.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine/renderer.h"

namespace pr {

/// The element type of device colors (DevicePointArrays::colors).
enum class DeviceColorType : uint8_t { kUint8, kFloat32, kFloat64 };

/// Points that already lie in device memory (CUDA pointers of this process, such as the arrays of
/// CuPy, PyTorch or JAX): `count` positions of floats or doubles at element strides, and optional
/// colors, read where they are by set_device_points().
struct DevicePointArrays {
  const void* xyz = nullptr;  ///< x of point i at xyz[i * point_stride], y and z coord_stride on
  bool xyz_double = false;    ///< doubles, else floats
  int64_t point_stride = 3, coord_stride = 1;  ///< in elements
  uint64_t count = 0;
  /// Subtracted (in double) from every position: the float positions are offsets from it.
  glm::dvec3 origin{0.0};
  /// Null, or 3 or 4 values (alpha not drawn) per point: uint8, or floats in [0, 1] (scaled by
  /// 255 and rounded, as the host's colors are).
  const void* colors = nullptr;
  DeviceColorType color_type = DeviceColorType::kUint8;
  int64_t color_point_stride = 3, color_channel_stride = 1;  ///< in elements
  /// Without colors: null (every point white), or a recipe of the stored positions
  /// (engine/colorize.h's ColorRecipe with Source::kPosition: elevation, made with `origin` and
  /// the bounds device_points_bounds() gives with `as_stored`), computed on the device: the
  /// colors colorize() gives the same points on the host.
  const ColorRecipe* recipe = nullptr;
};

class GpuRenderer : public Renderer {
 public:
  /// The finite bounds of device positions `points`, computed on the device: as given (its origin
  /// not applied: what the caller chooses an origin from), or `as_stored`, the bounds of the
  /// float positions set_device_points() stores (less the origin, rounded to float) plus the
  /// origin: the world bounds of the cloud it makes. False with the CUDA call that failed.
  virtual bool device_points_bounds(const DevicePointArrays& points, bool as_stored, Bounds* out,
                                    std::string* error) = 0;
  /// Takes a cloud that lies in device memory instead of a host cloud (set_cloud()): positions
  /// less the origin and packed colors copied device to device into the renderer's storage (the
  /// host holds no copy), sorted along a Morton curve unless RenderOptions::sort is off and in
  /// compact form with RenderOptions::compact, as a host cloud is stored (the same image), its
  /// batch boxes made. The arrays may be freed afterwards. Without a host cloud, adaptive point
  /// sizes and picks are not available. `world_bounds` receives the bounds of the finite points
  /// as stored. False with a message (out of device memory, a pointer not on this device).
  virtual bool set_device_points(const DevicePointArrays& points, Bounds* world_bounds,
                                 std::string* error) = 0;

  /// Makes `count` points of the procedural scene `name` ("terrain" or "cube"; engine/scenes.h)
  /// with `seed` on the device instead of taking a host cloud: each slice of points computed by
  /// the host's own functions (engine/scene_points.h), then stored as set_cloud() stores
  /// make_scene(name, count, seed) with RenderOptions::sort off (compact with
  /// RenderOptions::compact), so the image is the CPU renderer's of that cloud. No copy of the
  /// cloud on the host: clouds larger than the host's memory, up to 2^64 points (1e10 compact
  /// points take 70 GB). Such clouds are drawn whole: no point count below theirs, no picks, no
  /// adaptive sizes. `world_bounds`: the union of the batch boxes. False with a message: a scene
  /// made on the host only, out of GPU memory (the bytes needed and free).
  virtual bool generate_scene(const std::string& name, uint64_t count, uint64_t seed,
                              Bounds* world_bounds, std::string* error) = 0;

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
  /// Renders into the renderer's own device frame buffers and leaves the image there: `rgba`
  /// receives the device pointer of its frame_width x frame_height RGBA8 pixels (0xAABBGGRR, top
  /// row first), `depth` (with settings.want_depth; else null) its depths. No copy to the host;
  /// the frame is finished when this returns. The buffers stay valid until the next frame or
  /// cloud. False with a message on failure.
  virtual bool render_on_device(const Camera& camera, const RenderSettings& settings,
                                const uint32_t** rgba, const float** depth, FrameStats& stats,
                                std::string* error) = 0;
  /// "NVIDIA H200 (sm_90, 139 GiB)".
  virtual std::string device_name() const = 0;

  /// Whether the current cloud is stored sorted (false when RenderOptions::sort kept its order,
  /// or when the sort had no room and the cloud was uploaded in its own order).
  virtual bool cloud_sorted() const = 0;
  /// The most bytes the cloud's point storage (positions and colors) may take on the device, or
  /// 0 (the default) for no limit but the device's: a larger cloud is refused by set_cloud() as
  /// if the device were full ("out of GPU memory: ... over the limit"), so a GPU shared with
  /// other programs keeps room for them. Takes effect at the next set_cloud().
  virtual void set_memory_limit(uint64_t bytes) = 0;
  /// Times clear, raster and resolve apart (FrameStats::stages) instead of only the whole GPU
  /// frame, from the next frame (CudaTuning::stage_timing).
  virtual void set_stage_timing(bool on) = 0;
  virtual bool stage_timing() const = 0;

  /// What the last frame did with its batches (a copy of its flags).
  struct BatchCounts {
    uint64_t batches = 0;    ///< batches stored
    uint64_t culled = 0;     ///< out of view (the box test)
    uint64_t first = 0;      ///< drawn (by the first pass, with occlusion culling)
    uint64_t second = 0;     ///< drawn by the second pass
    uint64_t occluded = 0;   ///< skipped: hidden by the first pass's Hi-Z
    bool occlusion = false;  ///< the frame ran occlusion culling
  };
  /// A frame without box tests (the whole cloud in view): every batch drawn. False with a
  /// message before the first frame of a cloud, or when the last frame drew no points.
  virtual bool last_batch_counts(BatchCounts* out, std::string* error) const = 0;
};

/// The seed's projection (engine/projection.h's seed_project()) of `count` vertices in device
/// memory: floats or doubles at element strides, the 3x3 `unit_vec` by rows, `shift` and `focus`
/// (in the vertices' type when they are floats).
struct DeviceProjection {
  const void* vertices = nullptr;
  bool doubles = false;
  int64_t point_stride = 3, coord_stride = 1;  ///< in elements
  uint64_t count = 0;
  double unit_vec[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  double shift[3] = {0, 0, 0};
  double focus = 1.0;
};

/// Projects `in` on the device its vertices lie on (after the device's pending work) into a new
/// device array of count x 3 values of their type, row by row, in `*out` (free it with
/// free_device_array()). False with the reason in one line (built without CUDA, out of device
/// memory, a pointer not on the device).
bool project_on_device(const DeviceProjection& in, void** out, std::string* error);
/// Frees an array project_on_device() made.
void free_device_array(void* p);

/// Whether a GPU renderer can be made here; otherwise false with the reason in one line ("built
/// without CUDA", "no CUDA device found", ...). Cheaper than making one.
bool gpu_renderer_available(std::string* why);

/// The GPU renderer on device 0, or null with the reason in one line (those of
/// gpu_renderer_available(), or the device's failure: out of memory, ...).
std::unique_ptr<GpuRenderer> make_gpu_renderer(std::string* why);

}  // namespace pr
