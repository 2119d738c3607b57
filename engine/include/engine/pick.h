// Picking: which point a frame drew at a pixel. The visibility buffer holds keys (depth bits and
// color), not point indices, so a pick re-projects the drawn points with the renderers' own
// project_to_pixel() and squares (splat_rect_sized() of the point's size, adaptive or not) into a
// small window of pixels around the click and keeps, for each pixel, the smallest (key, index): the
// key is the one the frame's depth test kept there (the same minimum over the same keys), the index
// the point that wrote it (of points with equal keys, the lowest index). The CPU renderer's pick
// runs on the host cloud (pick_point()); the GPU's runs where its cloud is
// (Renderer::pick_window(), kernels/src/pick.cu) and leaves the same (key, index) pairs in the same
// window, so both name the same point.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <glm/glm.hpp>

#include "engine/camera.h"
#include "engine/compact.h"
#include "engine/point_cloud.h"
#include "engine/renderer.h"
#include "engine/size_grid.h"

namespace pr {

class CpuRenderer;

struct PickResult {
  bool hit = false;       ///< a point was drawn within the radius
  uint64_t index = 0;     ///< the point's index in the cloud
  int x = 0, y = 0;       ///< the pixel it won
  float depth = 0.0f;     ///< its camera-space depth
  glm::dvec3 world{0.0};  ///< its position in the file's units: origin + local position, in double
  bool has_intensity = false;
  float intensity = 0.0f;
  bool has_class = false;
  uint8_t classification = 0;
};

/// The pixels around a click, each with the smallest (key, index) of the drawn points whose splat
/// covers it (kEmptyKey and ~0 where none does): what a pick's pass over the points leaves,
/// on the host (pick_point()) or where a renderer holds the cloud (Renderer::pick_window()).
struct PickWindow {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;  ///< pixels [x0, x1) x [y0, y1)
  std::vector<uint64_t> key, index;    ///< row by row from (x0, y0)
  size_t size() const { return size_t(x1 - x0) * size_t(y1 - y0); }
};

/// The empty window of a click at (x, y) within `radius` pixels (clamped to 0 - 64) of a width x
/// height image; false (and `w` untouched) when the click lies outside the image.
bool pick_window_at(int x, int y, int radius, int width, int height, PickWindow* w);

/// The pick a filled window gives: the point at (x, y), or when that pixel is empty at the
/// nearest drawn pixel within `radius` (as pick_point() says), with its attributes from `cloud`.
PickResult pick_from_window(const PointCloud& cloud, const PickWindow& w, int x, int y, int radius);

/// The point drawn at pixel (x, y) of the frame that `settings` draws of `cloud` from `camera`
/// (its size, point size and point count), or, when that pixel is empty, at the nearest drawn
/// pixel within `radius` pixels (Euclidean; ties: the upper, then the left pixel). `compact`:
/// the compact form the renderer draws from (CpuRenderer::compact(), or build_compact() in the
/// GPU's order), null for float positions. A parallel pass over the drawn points (`threads`, 0:
/// all cores). `boxes` (or null): the float cloud's batch boxes (compute_point_boxes(),
/// engine/culling.h), with which a frame of every point skips the batches whose pixels cannot
/// reach the pick's window; compact positions use their own batches' boxes. The same point
/// either way. `cancel` (or null): when it becomes true, the pass stops early and no point is
/// named (a pick on another thread dropped). `sizes` (or null): the density grid of `cloud` that
/// the renderer's adaptive frames use (CpuRenderer::size_table()); an adaptive frame without it
/// makes one (a pass over the points, the same grid).
PickResult pick_point(const PointCloud& cloud, const CompactCloud* compact, const Camera& camera,
                      const RenderSettings& settings, int x, int y, int radius,
                      unsigned threads = 0, const PodVector<PointBox>* boxes = nullptr,
                      const std::atomic<bool>* cancel = nullptr,
                      const SizeGridTable* sizes = nullptr);

/// The batch boxes a pick_point() of `cloud`'s float positions skips batches with: `cpu`'s (the
/// CPU renderer drawing the cloud, when it holds them for it; may be null), else `scratch`, made
/// when its size does not match the cloud (a pass over the points, cheaper than projecting them:
/// worth it for a cloud picked again and again), else (null `scratch`) none.
const PodVector<PointBox>* boxes_for_pick(const PointCloud& cloud, const CpuRenderer* cpu,
                                          PodVector<PointBox>* scratch);

/// The pick of the frame `renderer` draws: the renderer's own pass where it has one
/// (Renderer::pick_window(): the GPU's, over the points on the device), else pick_point() with
/// the CPU renderer's compact form when it draws one, or for float positions its batch boxes
/// when it has them. False with a message when the renderer's pass fails, or when a renderer
/// without a pass of its own draws compact positions (it holds them, not the host).
bool pick_in_frame(const Renderer& renderer, const PointCloud& cloud, const Camera& camera,
                   const RenderSettings& settings, int x, int y, int radius, PickResult* out,
                   std::string* error);

/// Between two picked points (world coordinates, double): the straight distance, the distance
/// across the ground (perpendicular to the up axis) and the height difference b - a along it.
struct Measure {
  double distance = 0.0, horizontal = 0.0, height = 0.0;
};
Measure measure(const glm::dvec3& a, const glm::dvec3& b, UpAxis up);

/// A picked point's attributes as the panel lists them, each a name and its value in text: the
/// file's color ("rgb", "r g b"; "none" when `file_colors` is false: the files hold no colors and
/// the points are drawn white), intensity, class ("2 ground": the ASPRS name), return ("1 of 3"),
/// point source, GPS time and every named field, those the cloud has, in that order.
std::vector<std::pair<std::string, std::string>> point_attributes(const PointCloud& cloud,
                                                                  uint64_t index,
                                                                  bool file_colors = true);

/// One line for scripts: "pick x=... y=... z=... intensity=... class=... index=N" (intensity and
/// class "none" where the cloud has none), or "pick none".
std::string pick_line(const PickResult& r);

}  // namespace pr
