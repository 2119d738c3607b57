// What the viewer remembers between runs: window size, the panel's width, last renderer mode,
// vsync, point size (and adaptive size), the camera's projection, background and recent files, as
// key=value lines in $XDG_CONFIG_HOME/pointraster/settings.ini (ImGui keeps the panel layout in
// imgui.ini beside it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "viewer/layout.h"

namespace pr {

struct ViewerSettings {
  int width = 1280, height = 720;
  int panel_width =
      kDefaultPanelWidth;  ///< the docked panel's width in window units at --ui-scale 1 (layout.h)
  std::string mode = "auto";  ///< "cpu", "gpu", or "auto": gpu when a CUDA device is there
  bool vsync = true;
  int point_size = 1;
  bool adaptive_size = false;              ///< RenderSettings::adaptive_size
  int max_point_size = 8;                  ///< the largest adaptive size, 1 - 32
  std::string projection = "perspective";  ///< the camera's: "perspective" or "ortho"
  float background[3] = {0.063f, 0.071f, 0.094f};
  std::vector<std::string> recent;  ///< most recent first: absolute paths, and URLs as given
  std::string open_dir;             ///< folder shown in the Open box

  static constexpr size_t kMaxRecent = 10;
  void add_recent(const std::string& path);
};

/// $XDG_CONFIG_HOME/pointraster, else $HOME/.config/pointraster; empty when neither is set.
std::string config_dir();

/// Reads `path`; a missing file leaves the defaults. Unknown keys and bad values are ignored.
ViewerSettings load_settings(const std::string& path);
/// Writes `path` (creating its folder). False with a message on failure.
bool save_settings(const std::string& path, const ViewerSettings& s, std::string* error);

}  // namespace pr
