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
  out.resize(s.width, s.height, s.want_depth);
  return out.pixel_count() > 0 ? FrameStart::kDraw : FrameStart::kEmpty;
}

}  // namespace pr
