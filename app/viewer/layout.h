// The window's layout: the panel docked at the left edge, full height, its width the user's (kept
// in the settings file), and the image in the rest of the window; Tab hides the panel and the
// image takes the whole window. The renderers draw at the image's size, clicks and marks use its
// rectangle, and framing uses its aspect. The math is in pure functions (tested without a window).
#pragma once

#include <cstdint>

namespace pr {

/// The part of the window that shows the rendered image: in the drawable's pixels (what the
/// renderers draw; top-left origin) and in window units (what mouse events and ImGui use).
struct ImageRect {
  int x = 0, y = 0, w = 0, h = 0;        ///< pixels
  float ux = 0, uy = 0, uw = 0, uh = 0;  ///< window units
  bool empty() const { return w <= 0 || h <= 0; }
  /// Whether the window-unit point (x, y) lies on the image.
  bool contains(float px, float py) const {
    return px >= ux && px < ux + uw && py >= uy && py < uy + uh;
  }
  /// Width / height (1 when empty).
  double aspect() const { return empty() ? 1.0 : double(w) / double(h); }
};

/// The panel's width in settings units (window units at --ui-scale 1) that a first run shows.
constexpr int kDefaultPanelWidth = 370;

/// The panel's width in window units for a window `window_w` units wide: `wanted` (settings
/// units) times `ui_scale`, at least 160 units at that scale, and leaving the image at least a
/// quarter of the window (the panel narrower than that minimum in a narrow window); 0, no panel,
/// where that leaves it less than 48 units.
float panel_width_units(int wanted, float window_w, float ui_scale);

/// The image's rectangle for a panel `panel_w` window units wide (0: hidden) at the left of a
/// window of `ww` x `wh` units whose drawable is `dw` x `dh` pixels. Empty for an empty window;
/// never negative.
ImageRect image_rect(float panel_w, int ww, int wh, int dw, int dh);

/// The panel's state: its width (settings units, the user's drag), whether it shows, and when it
/// was hidden (the hint that says how to bring it back shows for a few seconds).
class PanelLayout {
 public:
  int width = kDefaultPanelWidth;
  bool shown = true;

  /// Tab: hides or shows the panel.
  void toggle(uint32_t now_ms);
  /// The panel's width in window units this frame (0 while hidden).
  float drawn_width(float window_w, float ui_scale) const;
  /// Before the panel's ImGui::Begin(): its place (0, 0), the window's height, and its width:
  /// the user resizes it by its right edge, between the limits of panel_width_units().
  void before_begin(float window_w, float window_h, float ui_scale);
  /// Inside the panel's window, before End(): a width the user dragged becomes the setting.
  void after_begin(float window_w, float ui_scale);
  /// While hidden, for a few seconds: "Tab: show the panel" in the image's corner.
  void draw_hint(uint32_t now_ms, float ui_scale) const;

 private:
  float asked_ = -1.0f;  // the width in window units given to ImGui this frame
  uint32_t hidden_at_ = 0;
};

}  // namespace pr
