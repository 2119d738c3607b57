// Clip volumes and the section in the viewer (clip_panel.cpp; docs/CLIP.md): the clip the frames
// draw with (RenderSettings::clip, and so the picks too), the panel's Clip section that edits it,
// the boxes' edges drawn over the image, and the keys that step the section.
#pragma once

#include <SDL.h>

#include "engine/camera.h"
#include "engine/clip.h"
#include "engine/pick.h"
#include "engine/renderer.h"
#include "viewer/layout.h"
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
  /// the section (point, normal, thickness, steps). `bounds` null: no cloud yet. Returns whether
  /// the section is open (the polygon tool's rows follow).
  bool draw_section(const Bounds* bounds, const Camera& camera, const PickResult* picks,
                    int pick_count, PanelMarks& marks);
  /// Each box's edges over the image drawn with `camera` and `rs` in the window's `area`
  /// (ImGui's background draw list, clipped to the image).
  void draw_edges(const Camera& camera, const RenderSettings& rs, const ImageRect& area,
                  float ui_scale) const;

  /// The boxes' drag handles, drawn with their edges: a dot at each box's centre and at the
  /// centre of each face. A left press at (x, y) (window units, the frame of `camera`, `rs` in the
  /// window's `area`) within 8 units of one takes it and returns true (the click picks nothing
  /// then); drag() moves the box in the view's plane at its centre's depth (the centre's
  /// handle) or the face along its axis, the opposite face staying (a face's handle);
  /// release() lets go.
  /// Where handle `handle` (as Drag::handle) of box `box` is drawn, in window units; false when
  /// there is no such handle or it lies behind the near plane.
  bool handle_at(int box, int handle, const Camera& camera, const RenderSettings& rs,
                 const ImageRect& area, float* x, float* y) const;
  bool press(int x, int y, const Camera& camera, const RenderSettings& rs, const ImageRect& area);
  void drag(int x, int y);
  void release() { drag_.box = -1; }
  bool dragging() const { return drag_.box >= 0; }

 private:
  /// A drag under way: the box and handle (0 the centre, 1 + 2a + (0 for -, 1 for +) a face of
  /// axis a), the frame it started in, where it started and the box then.
  struct Drag {
    int box = -1, handle = 0;
    Camera camera;
    RenderSettings rs;
    ImageRect area;
    double x = 0.0, y = 0.0;
    ClipBox start;
  };
  Drag drag_;

  /// Keeps the clip valid after an edit: sizes and thickness at least 1e-6, a zero normal +z.
  void sanitize();
  void box_rows(PanelMarks& marks);
  void section_rows(const Bounds* bounds, const Camera& camera);
};

}  // namespace pr
