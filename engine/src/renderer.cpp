#include "engine/renderer.h"

namespace pr {

bool parse_toggle(std::string_view text, Toggle* out) {
  if (text == "off" || text == "0")
    *out = Toggle::kOff;
  else if (text == "auto")
    *out = Toggle::kAuto;
  else if (text == "on" || text == "1")
    *out = Toggle::kOn;
  else
    return false;
  return true;
}

const char* toggle_name(Toggle t) {
  switch (t) {
    case Toggle::kOff:
      return "off";
    case Toggle::kAuto:
      return "auto";
    case Toggle::kOn:
      return "on";
  }
  return "auto";
}

FrameStart begin_frame(const RenderSettings& s, Image& out, FrameStats& stats, std::string* error) {
  stats = FrameStats{};
  if (s.width < 0 || s.height < 0) {
    if (error) *error = "negative image size";
    return FrameStart::kError;
  }
  const ImageRegion& r = s.region;
  // A region's origin is a float of whole pixels (ProjParams::ox, oy): exact below 2^24.
  if (!r.empty() && (r.x < 0 || r.y < 0 || r.width > s.width - r.x || r.height > s.height - r.y ||
                     s.width > (1 << 24) || s.height > (1 << 24))) {
    if (error)
      *error = "region " + std::to_string(r.width) + "x" + std::to_string(r.height) + " at " +
               std::to_string(r.x) + "," + std::to_string(r.y) + " is not inside the " +
               std::to_string(s.width) + "x" + std::to_string(s.height) + " image";
    return FrameStart::kError;
  }
  out.resize(frame_width(s), frame_height(s), s.want_depth);
  return out.pixel_count() > 0 ? FrameStart::kDraw : FrameStart::kEmpty;
}

ProjParams frame_params(const Camera& camera, const RenderSettings& s, const glm::dvec3& origin,
                        int point_size) {
  ProjParams p = camera.params(s.width, s.height, origin, point_size);
  if (!s.region.empty()) {
    p.ox = float(s.region.x);
    p.oy = float(s.region.y);
    p.width = s.region.width;
    p.height = s.region.height;
  }
  return p;
}

}  // namespace pr
