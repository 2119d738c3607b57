// Clip volumes and the section in the viewer (clip_panel.cpp; docs/CLIP.md): the clip the frames
// draw with (RenderSettings::clip, and so the picks too), the panel's Clip section that edits it,
// the boxes' edges drawn over the image, and the keys that step the section.
#pragma once

#include <SDL.h>

#include "engine/camera.h"
#include "engine/clip.h"
#include "engine/pick.h"
#include "engine/renderer.h"
#include "viewer/panel_marks.h"

namespace pr {

struct ClipState {
  Clip clip;  ///< always valid (validate_clip()): the panel keeps sizes and thickness above zero

  /// A box of half the cloud's extent at its centre (`bounds`: world).
  void add_box(const Bounds& bounds);
  /// An axis-aligned box around what the view sees at the depth of the cloud's centre: centred on
  /// the view's axis there, each side the height the view spans at that depth.
  void add_box_around_view(const Camera& camera, const Bounds& bounds);
  /// A box around the picked points (one or two), padded by 5% of their distance and at least
  /// 1% of the cloud's extent.
  void add_box_around_picks(const PickResult* picks, int count, const Bounds& bounds);
  /// The section across the view direction through the cloud's centre, a 50th of its extent
  /// thick.
  void section_across_view(const Camera& camera, const Bounds& bounds);
  /// PageUp / PageDown step an enabled section by its thickness (forward / back along its
  /// normal); true when the key was taken.
  bool key(SDL_Keycode k);

  /// The panel's Clip section: the boxes (centre, size, angles, mode, remove), the quick starts,
  /// the section (point, normal, thickness, steps). `bounds` null: no cloud yet.
  void draw_section(const Bounds* bounds, const Camera& camera, const PickResult* picks,
                    int pick_count, PanelMarks& marks);
  /// Each box's edges over the image drawn with `camera` and `rs` in a window of ww x wh units
  /// (ImGui's background draw list: under the panel).
  void draw_edges(const Camera& camera, const RenderSettings& rs, int ww, int wh,
                  float ui_scale) const;

 private:
  /// Keeps the clip valid after an edit: sizes and thickness at least 1e-6, a zero normal +z.
  void sanitize();
  void box_rows(PanelMarks& marks);
  void section_rows(const Bounds* bounds, const Camera& camera);
};

}  // namespace pr
