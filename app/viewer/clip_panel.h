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
#include "viewer/pick_panel.h"
#include "viewer/status_line.h"

namespace pr {

/// The box a rectangle dragged on the image makes: the rectangle's corners (x0, y0) and (x1, y1)
/// (window units, the frame of `camera` and `rs` in the window's `area`) cast along their rays
/// onto the horizontal plane through the middle of `bounds` (world; the camera's up axis), the
/// box spanning them across the plane and the bounds' whole height (2% more). Z up: turned by
/// the camera's yaw, so that its sides follow the rectangle's; y up: along the axes. False when
/// a corner's ray misses the plane in front of the camera (a view along the plane).
bool box_from_rectangle(const Camera& camera, const RenderSettings& rs, const ImageRect& area,
                        float x0, float y0, float x1, float y1, const Bounds& bounds, ClipBox* out);

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
  /// centre of each face, and a ring beyond the +x face. A left press at (x, y) (window units,
  /// the frame of `camera`, `rs` in the window's `area`) within 8 units of one takes it and
  /// returns true (the click picks nothing then); drag() moves the box in the view's plane at its
  /// centre's depth (the centre's handle), the face along its axis, the opposite face staying (a
  /// face's handle), or turns the box about z as the pointer turns around its centre's image
  /// (the ring); release() lets go.
  /// Where handle `handle` (as Drag::handle) of box `box` is drawn, in window units; false when
  /// there is no such handle or it lies behind the near plane.
  bool handle_at(int box, int handle, const Camera& camera, const RenderSettings& rs,
                 const ImageRect& area, float* x, float* y) const;
  /// `bounds` (world, the cloud's; may be null) is what a box drawn on the cloud spans in height.
  bool press(int x, int y, const Camera& camera, const RenderSettings& rs, const ImageRect& area,
             const Bounds* bounds = nullptr);
  void drag(int x, int y);
  void release();
  bool dragging() const { return drag_.box >= 0 || sketch_.on; }

  /// The section through three picked points (the panel's "through 3 picks"): while on, each
  /// point a click picks is taken (unless a measurement tool takes them); the third sets the
  /// section (its thickness kept, or a 50th of the cloud's extent) and ends the mode. Points on
  /// one line: a line in the status, and the three are taken again.
  bool three_points = false;
  std::vector<glm::dvec3> section_picks;
  /// Each frame: takes the points picked since the last call (`bounds`: the cloud's, world).
  void update(const PickState& picks, bool measuring, const Bounds& bounds, StatusLine& status);

  /// Drawing a box on the cloud (the panel's "draw a box"): the next left drag on the image
  /// draws a rectangle and its release makes a box of it (box_from_rectangle()); then the mode
  /// ends. A rectangle under 4 window units either way makes none.
  bool drawing = false;

 private:
  /// A drag under way: the box and handle (0 the centre, 1 + 2a + (0 for -, 1 for +) a face of
  /// axis a, 7 the yaw ring), the frame it started in, where it started and the box then.
  struct Drag {
    int box = -1, handle = 0;
    Camera camera;
    RenderSettings rs;
    ImageRect area;
    double x = 0.0, y = 0.0;
    ClipBox start;
  };
  Drag drag_;
  /// A rectangle being drawn on the image (`drawing`), in window units.
  struct Sketch {
    bool on = false;
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    Camera camera;
    RenderSettings rs;
    ImageRect area;
    Bounds bounds;
  };
  Sketch sketch_;
  uint64_t seen_picks_ = 0;  ///< PickState::picked when last looked at

  /// Keeps the clip valid after an edit: sizes and thickness at least 1e-6, a zero normal +z.
  void sanitize();
  void box_rows(PanelMarks& marks);
  void section_rows(const Bounds* bounds, const Camera& camera);
};

}  // namespace pr
