// The viewer's window: the SDL2 window with its OpenGL 3.3 core context, Dear ImGui on it, the
// display that shows the rendered image, and what is kept between interactive runs (the settings
// file: window size, the panel's width, renderer, vsync, recent files; imgui.ini: ImGui's own).
#pragma once

#include <SDL.h>

#include <memory>
#include <string>

#include "options.h"
#include "viewer/display.h"
#include "viewer/settings.h"

namespace pr {

struct ViewerWindow {
  ViewerSettings settings;
  std::string settings_path, imgui_ini_path;
  bool persist = true;  // interactive runs save settings; scripted runs (--frames) do not
  bool vsync = true;

  SDL_Window* window = nullptr;
  SDL_GLContext gl = nullptr;
  bool imgui_ready = false;
  float ui_scale = 1.0f;
  std::unique_ptr<Display> display;

  /// Reads the settings of the config folder (none without one), the command line's over them.
  void load_settings(const Options& o);
  /// SDL's video, the window, the GL 3.3 core context and its functions, and the display. False
  /// with the reason when one of them cannot be made.
  bool create(const Options& o, std::string* error);
  /// Dear ImGui at the display's scale (--ui-scale, else the DPI). (The display takes the
  /// image's size, the drawable less the panel, in Viewer::Impl::fit_display().)
  void init_imgui(const Options& o);
  /// Interactive runs write the settings: the window's size, `mode` and vsync.
  void save_settings(const std::string& mode);
  /// Frees the display, ImGui, the context and the window (the display's GL objects first).
  void close();
  /// The drawable's size in pixels; 0x0 while minimized.
  void drawable_size(int* w, int* h) const;
  /// The display's aspect ratio, the image's (1 for an empty display).
  double aspect() const;
};

}  // namespace pr
