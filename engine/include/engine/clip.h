// Clip volumes and sections (docs/CLIP.md): what the viewer, the command line and the converter
// describe in world coordinates (double), and its conversion into the renderers' ClipParams
// (engine/clip_math.h: the local float frame, the per-point and per-batch tests).
#pragma once

#include <array>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <glm/glm.hpp>

#include "engine/camera.h"
#include "engine/clip_math.h"
#include "engine/point_cloud.h"

namespace pr {

/// What a box does to the points inside it.
enum class ClipMode : uint8_t { kInside, kOutside, kHighlight };

/// "inside", "outside", "highlight"; false for anything else.
bool parse_clip_mode(std::string_view text, ClipMode* out);
const char* clip_mode_name(ClipMode m);

/// An oriented box: its centre and size in world units, turned by yaw about the file's z axis,
/// then pitch about the turned y axis, then roll about the turned x axis (degrees): its axes are
/// the columns of R = Rz(yaw) Ry(pitch) Rx(roll).
struct ClipBox {
  glm::dvec3 centre{0.0};
  glm::dvec3 size{1.0};
  double yaw = 0.0, pitch = 0.0, roll = 0.0;  ///< degrees
  ClipMode mode = ClipMode::kInside;
  bool operator==(const ClipBox&) const = default;
};

/// A section: the points within thickness / 2 of the plane through `point` with normal `normal`
/// (any length but zero).
struct ClipSection {
  bool enabled = false;
  glm::dvec3 point{0.0};
  glm::dvec3 normal{0.0, 0.0, 1.0};
  double thickness = 1.0;
  bool operator==(const ClipSection&) const = default;
};

/// A frame's clip in world coordinates: boxes (at most kMaxClipBoxes) and a section.
struct Clip {
  std::vector<ClipBox> boxes;
  ClipSection section;
  uint32_t tint = rgba(255, 200, 0);  ///< the highlight's color
  bool active() const { return !boxes.empty() || section.enabled; }
  bool operator==(const Clip&) const = default;
};

/// The rotation of a box (its axes as columns).
glm::dmat3 clip_box_rotation(const ClipBox& b);
/// The 8 corners of a box in world coordinates; corner k takes +size/2 on axis a when bit a of k
/// is set.
std::array<glm::dvec3, 8> clip_box_corners(const ClipBox& b);

/// Whether the clip can be used: at most kMaxClipBoxes boxes, every number finite, sizes and the
/// thickness above zero, a normal that is not zero; false with one line naming the problem.
bool validate_clip(const Clip& clip, std::string* error);

/// The clip in the local frame of a cloud whose positions are world - `origin`, as the renderers
/// take it; false (with validate_clip()'s message) when the clip cannot be used.
bool make_clip_params(const Clip& clip, const glm::dvec3& origin, ClipParams* out,
                      std::string* error);

/// Whether the clip shows the world point `p` (tinted or not) with the float test the renderers
/// run, in the local frame of `params` (made with `origin`).
bool clip_shows(const ClipParams& params, const glm::dvec3& origin, const glm::dvec3& p);

/// The test of world points the converter writes with (ConvertOptions::keep): clip_shows() in
/// a local frame anchored at the clip (its first box's centre, else the section's point), so
/// that points near the clip are tested at float precision whatever the coordinates' size. An
/// invalid clip keeps nothing.
std::function<bool(const glm::dvec3&)> clip_keep(const Clip& clip);

/// A key of the clip's numbers (FNV-1a over them): equal clips have equal keys.
uint64_t clip_key(const Clip& clip);

/// Whether no point of the world box [lo, hi] can be shown (clip_box_class(), kClipHidden): the
/// streaming selection's test of a node.
bool clip_hides_box(const ClipParams& params, const glm::dvec3& origin, const glm::dvec3& lo,
                    const glm::dvec3& hi);

/// Sections: across `axis` (0 x, 1 y, 2 z) at coordinate `at`; perpendicular to the camera's
/// view direction through `point`; through three points (false when they lie on one line).
ClipSection section_along_axis(int axis, double at, double thickness);
ClipSection section_facing(const Camera& camera, const glm::dvec3& point, double thickness);
bool section_through_points(const glm::dvec3& a, const glm::dvec3& b, const glm::dvec3& c,
                            double thickness, ClipSection* out, std::string* error);
/// Moves the section along its normal by `steps` thicknesses.
void step_section(ClipSection* s, double steps);

/// An axis-aligned box of mode `mode` around the world bounds [lo, hi].
ClipBox clip_box_around(const glm::dvec3& lo, const glm::dvec3& hi,
                        ClipMode mode = ClipMode::kInside);

}  // namespace pr
