// A polygon selection (docs/CLIP.md): a prism through a polygon, either drawn on the image (the
// prism runs along the view of the camera it was drawn with, perspective or orthographic) or
// given in world XY (a vertical prism: what a polygon drawn in a top orthographic view means).
// It selects points for export (the converter's keep test, with the clip's); the renderers do
// not draw with it.
//
// A world point is in an image polygon when it lies in front of the camera (depth above
// near_z) and its pixel, projected in double precision as the frame drew it (Camera::image_scale,
// x right, y down, the image's centre at (w/2, h/2)), lies inside the polygon by the even-odd
// rule. A vertical prism tests (x, y) alone.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <glm/glm.hpp>

#include "engine/camera.h"
#include "engine/clip.h"

namespace pr {

struct ClipPolygon {
  /// The vertices: pixels of the image (`on_image`), else world x, y.
  std::vector<glm::dvec2> vertices;
  bool on_image = false;
  Camera camera;              ///< on_image: the view the polygon was drawn in
  int width = 0, height = 0;  ///< on_image: the image's size in pixels
};

/// Whether the polygon can be used: at least 3 vertices, every number finite, an area above
/// 1e-9 of its bounding box's (not all on one line), an image of positive size; false with one
/// line naming the problem.
bool validate_clip_polygon(const ClipPolygon& polygon, std::string* error);

/// Parses "X,Y;X,Y;..." (world x, y: a vertical prism) and validates it; false with one line.
bool parse_clip_polygon(std::string_view text, ClipPolygon* out, std::string* error);

/// Whether `p` lies in the 2D polygon `poly` (even-odd rule; a point on an edge may go either way).
bool polygon_contains(const std::vector<glm::dvec2>& poly, const glm::dvec2& p);

/// The pixel of the world point `p` in the polygon's image; false behind the camera.
bool clip_polygon_pixel(const ClipPolygon& polygon, const glm::dvec3& p, glm::dvec2* pixel);

/// Whether the prism holds the world point `p`.
bool clip_polygon_contains(const ClipPolygon& polygon, const glm::dvec3& p);

/// Whether no point of the world box [lo, hi] can lie in the prism (conservative: the box's
/// corners' pixels, or its x, y extent, miss the polygon's bounding rectangle, or the whole box
/// lies behind the camera).
bool clip_polygon_hides_box(const ClipPolygon& polygon, const glm::dvec3& lo, const glm::dvec3& hi);

/// What an export keeps: the points the clip shows (clip_keep(); every point without an active
/// clip) that lie in `polygon` too (when not null). Highlight boxes only tint: they keep their
/// points. An invalid clip or polygon keeps nothing.
std::function<bool(const glm::dvec3&)> export_keep(const Clip& clip, const ClipPolygon* polygon);

/// The matching box test (ConvertOptions::keep_box): true when some point of the world box
/// [lo, hi] may be kept (clip_hides_box(), clip_polygon_hides_box()).
std::function<bool(const glm::dvec3&, const glm::dvec3&)> export_keep_box(
    const Clip& clip, const ClipPolygon* polygon);

}  // namespace pr
