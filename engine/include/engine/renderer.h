// The renderer interface that both the multi-threaded CPU rasterizer (engine/) and the CUDA
// rasterizer (kernels/) implement. No GL or CUDA types appear here.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "engine/camera.h"
#include "engine/clip.h"
#include "engine/frame_stats.h"
#include "engine/image.h"
#include "engine/point_cloud.h"

namespace pr {

/// A switch with a middle position: off, auto (the renderer's frame policy decides frame by frame,
/// engine/frame_policy.h) or on.
enum class Toggle : uint8_t { kOff, kAuto, kOn };

/// "off" or "0", "auto", "on" or "1"; false for anything else.
bool parse_toggle(std::string_view text, Toggle* out);
/// "off", "auto", "on".
const char* toggle_name(Toggle t);

/// How a renderer stores and draws the cloud: the same options for the CPU and the GPU renderer,
/// applied through Renderer::set_options(), so that the viewer, headless mode, the tests and the
/// benchmarks drive both the same way. Only `compact` changes the image (positions quantized; the
/// same compact image on both renderers); every other option changes only the speed.
struct RenderOptions {
  /// Batch culling (engine/culling.h): each frame tests the boxes of kPointBatch stored points
  /// against the view and skips the batches that cannot reach the image.
  bool culling = true;
  /// Occlusion culling (needs `culling`): batches hidden behind the last frame's depth pyramid
  /// are skipped. kAuto: engine/frame_policy.h's OcclusionPolicy.
  Toggle occlusion = Toggle::kAuto;
  /// Compact positions (engine/compact.h): 4 bytes a point, quantized in batches of
  /// kCompactBatch. Takes effect at the next set_cloud().
  bool compact = false;
  /// The stored order of the points along a Morton curve: the GPU sorts its upload, and both
  /// renderers encode compact positions in that order (which decides the quantization grid, so the
  /// CPU and the GPU draw the same compact image). kAuto: only clouds whose own order is incoherent
  /// (wants_spatial_sort(), engine/frame_policy.h). Takes effect at the next set_cloud().
  Toggle sort = Toggle::kAuto;
  /// Sort-middle binning of 1-pixel points (the CPU renderer; the GPU renderer has no use for it).
  /// kAuto: bin_frame(), engine/frame_policy.h.
  Toggle binning = Toggle::kAuto;

  bool operator==(const RenderOptions&) const = default;
};

/// A rectangle of an image's pixels, [x, x + width) x [y, y + height): the part of the image a
/// frame draws (RenderSettings::region). Empty (no pixel): the whole image.
struct ImageRegion {
  int x = 0, y = 0, width = 0, height = 0;
  bool empty() const { return width <= 0 || height <= 0; }
  bool operator==(const ImageRegion&) const = default;
};

struct RenderSettings {
  int width = 1280;  ///< the image's size in pixels (the whole image's, with a region)
  int height = 720;
  int point_size = 1;  ///< square splat side in pixels, >= 1
  /// Adaptive point size (engine/point_size.h): each point's square as wide as the spacing of the
  /// cloud around it projected at its depth, between point_size and max_point_size (off, or
  /// max_point_size <= point_size: every point point_size); the same image on both renderers.
  bool adaptive_size = false;
  int max_point_size = 8;       ///< the largest adaptive square, in pixels
  float adaptive_scale = 1.0f;  ///< adaptive sizes: pixels of size a pixel of projected spacing
  uint32_t background = rgba(0, 0, 0);  ///< RGBA8 of empty pixels
  uint64_t point_count = ~uint64_t{0};  ///< points to draw (an even subset when < cloud size)
  bool want_depth = false;              ///< also fill Image::depth
  /// Eye-dome lighting (engine/edl.h): points shaded by how far they stand out of their
  /// neighbours' depths; the same image on both renderers.
  bool edl = false;
  float edl_strength = 1.0f;  ///< >= 0: how dark the edges get
  float edl_radius = 1.4f;    ///< pixels to the neighbours (1.4: the 8 adjacent pixels)
  /// High-quality splats (engine/hq_splat.h): a pixel shows the average color of its points
  /// within 1% of the nearest one's depth, not the nearest one's alone (a second pass over the
  /// points drawn); the same image on both renderers.
  bool hq = false;
  /// Clip volumes and a section (engine/clip.h, docs/CLIP.md): points the clip hides draw
  /// nothing (and are not picked), highlighted ones draw tinted; the same image on both
  /// renderers. Inactive (the default): every point draws.
  Clip clip;
  /// A part of the width x height image (a tile, engine/tiled_render.h), or empty: the whole
  /// image. render() then draws an image of the region's size whose pixel (x, y) is the whole
  /// image's pixel (region.x + x, region.y + y), computed with the whole image's projection
  /// (ProjParams::ox, oy): the same bits, except that a point whose centre pixel lies outside the
  /// region draws nothing, so squares and eye-dome lighting differ near the region's edges
  /// (tiled_render.h draws each tile with a margin for them). The region must lie in the image.
  /// A pick (Renderer::pick_window(), engine/pick.h) ignores it: it reads the whole image.
  ImageRegion region;
};

/// The size of the image a frame draws: the region's when there is one, else width x height.
inline int frame_width(const RenderSettings& s) {
  return s.region.empty() ? s.width : s.region.width;
}
inline int frame_height(const RenderSettings& s) {
  return s.region.empty() ? s.height : s.region.height;
}

/// The projection of a frame drawn with `s`: the whole image's (Camera::params()), moved to the
/// region's origin and cut to its size when there is one.
ProjParams frame_params(const Camera& camera, const RenderSettings& s, const glm::dvec3& origin,
                        int point_size);

/// What the frame buffers of a renderer take, to size the tiles of a large image
/// (engine/tiled_render.h).
struct FrameMemory {
  uint64_t host_bytes_per_pixel = 0;    ///< host memory a pixel of a frame takes (its image too)
  uint64_t device_bytes_per_pixel = 0;  ///< device memory a pixel takes (0: no device)
  /// Device memory a frame may take now: what is free plus what the frame buffers hold (they are
  /// freed for a frame of another size); 0 without a device or when it is not known.
  uint64_t device_bytes_free = 0;
  uint64_t max_pixels = 0;  ///< the most pixels a frame may have
};

struct PickWindow;   // engine/pick.h
struct ColorRecipe;  // engine/colorize.h

class Renderer {
 public:
  virtual ~Renderer() = default;
  /// "cpu", "gpu".
  virtual std::string name() const = 0;
  /// Takes the cloud to draw (the GPU renderer uploads it here, once). The cloud must outlive the
  /// renderer's use of it or the next set_cloud(). Returns false with a message when it cannot
  /// (out of device memory, say); the renderer then draws nothing until a cloud is accepted.
  virtual bool set_cloud(const PointCloud& cloud, std::string* error) = 0;
  /// Takes new colors of the current cloud: `cloud` is the cloud of the last set_cloud(), with
  /// the same points and positions and new `colors` (a color mode, engine/colorize.h). Positions
  /// are not sent again: the CPU renderer reads the new array at the next frame, the GPU renderer
  /// packs and uploads its 3 bytes a point in its stored order. False with a message when `cloud`
  /// is not the current cloud or the upload fails (the renderer then has the cloud again only
  /// after set_cloud()).
  virtual bool update_colors(const PointCloud& cloud, std::string* error) = 0;
  /// update_colors()'s work done ahead, from another thread while this one's frames still draw
  /// the current colors: `colors` (one per point of the current cloud, in its order) is what
  /// `cloud.colors.data()` will point to at the next update_colors(), which then only swaps them
  /// in (the GPU renderer packs and uploads them here into a second array: 3 bytes a point while
  /// it waits). True when staged; false with the reason when not (update_colors() then does all
  /// the work). Not concurrent with set_cloud() or update_colors(). The CPU renderer reads the
  /// colors where they are: nothing to stage.
  virtual bool stage_colors(const PointCloud& cloud, const uint32_t* colors,
                            std::string* error) = 0;
  /// stage_colors() for colors the renderer computes itself, before the host has them: those of
  /// `recipe` (engine/colorize.h, made for `cloud`, the current cloud), which colorize() gives
  /// too. show_staged_recipe() then draws them from the next frame on; once the host's copy is
  /// in `cloud.colors`, the renderer needs no update_colors() for it. False with the reason when
  /// it cannot (the default: a renderer that reads the host's colors). Not concurrent with
  /// set_cloud() or update_colors().
  virtual bool stage_recipe(const PointCloud& cloud, const ColorRecipe& recipe,
                            std::string* error) {
    (void)cloud, (void)recipe;
    if (error) *error = "this renderer draws the host's colors";
    return false;
  }
  /// Draws the colors stage_recipe() staged for `cloud` from the next frame on; false (nothing
  /// changes) when none are staged for it.
  virtual bool show_staged_recipe(const PointCloud& cloud) {
    (void)cloud;
    return false;
  }
  /// Takes new points of the current cloud in [first, first + count): `cloud` is the cloud of the
  /// last set_cloud(), whose positions, colors and attributes changed in that range (streaming's
  /// pool). It may have grown since (the same object, the points before unchanged but for the
  /// ranges given): the renderer then draws the larger cloud, the new points handed over by
  /// update_points() calls of their own (the GPU renderer's storage grows by doubling, the new
  /// part uploaded by those calls alone). The CPU renderer recomputes the culling boxes of the
  /// batches the range touches; the GPU renderer uploads only that range (positions and colors)
  /// and recomputes those boxes. Only for a cloud stored as given (not sorted, not compact: set_cloud() with
  /// RenderOptions sort off and compact off); false with a reason otherwise, or when the range
  /// lies outside the cloud or the upload fails.
  virtual bool update_points(const PointCloud& cloud, uint64_t first, uint64_t count,
                             std::string* error) = 0;
  /// Renders one frame into `out` (host memory; resized as needed). Returns false with a message
  /// on failure.
  virtual bool render(const Camera& camera, const RenderSettings& settings, Image& out,
                      FrameStats& stats, std::string* error) = 0;
  /// Bytes this renderer holds for the cloud and framebuffers (device memory for the GPU).
  virtual size_t memory_bytes() const = 0;
  /// What a frame drawn with `settings` takes a pixel, and the room there is for one.
  virtual FrameMemory frame_memory(const RenderSettings& settings) const = 0;
  /// Whether the current cloud is stored in compact form.
  virtual bool compact_active() const = 0;
  /// A pick's pass where the renderer holds the cloud: fills `window` (engine/pick.h: the pixels
  /// around a click, emptied) with the smallest (key, original index) of each of its pixels in
  /// the frame `settings` draws from `camera`, as pick_point() finds them on the host. False with
  /// an empty `error` when the renderer has no such pass (the CPU renderer: pick_point() reads the
  /// host cloud); false with a message when it failed. May run on a thread other than the one
  /// drawing; the cloud and its colors must not change meanwhile.
  virtual bool pick_window(const Camera& camera, const RenderSettings& settings, PickWindow* window,
                           std::string* error) const {
    (void)camera, (void)settings, (void)window;
    if (error) error->clear();
    return false;
  }

  /// Culling, occlusion and binning take effect at the next frame; compact and sort at the next
  /// set_cloud().
  void set_options(const RenderOptions& options) { options_ = options; }
  const RenderOptions& options() const { return options_; }

 protected:
  RenderOptions options_;
};

/// The multi-threaded CPU rasterizer; threads = 0 means all hardware threads.
std::unique_ptr<Renderer> make_cpu_renderer(unsigned threads = 0);

/// The start every render() shares: resets `stats`, refuses a negative size (kError with
/// "negative image size") and a region outside the image, sizes `out` for the frame (the
/// region's size when there is one; with depth when asked for). kEmpty: the image has no pixel (a
/// minimized window), which is no error, just nothing to draw.
enum class FrameStart { kDraw, kEmpty, kError };
FrameStart begin_frame(const RenderSettings& settings, Image& out, FrameStats& stats,
                       std::string* error);

/// Points to draw for a cloud of `total` points when `requested` are asked for.
inline uint64_t effective_count(uint64_t total, uint64_t requested) {
  return requested < total ? requested : total;
}

}  // namespace pr
