// The Clip section's polygon selection (docs/CLIP.md): the "Polygon" tool takes left clicks on
// the image as vertices, drawn over it; Enter, a double-click or a click on the first vertex
// closes it, Esc drops it. Closed, it is a prism along the view of the camera on screen then
// (engine/clip_polygon.h): part of what an export writes (the Save section), with the clip. The
// frames do not draw with it: its outline shows over the image while the view is the one it was
// drawn in.
#pragma once

#include <SDL.h>

#include <optional>
#include <vector>

#include <glm/glm.hpp>

#include "engine/clip_polygon.h"
#include "viewer/panel_marks.h"
#include "viewer/pick_panel.h"
#include "viewer/status_line.h"

namespace pr {

struct PolygonTool {
  bool drawing = false;               ///< the tool is on: left clicks on the image add vertices
  std::vector<glm::dvec2> vertices;   ///< the polygon under way, in window units
  std::optional<ClipPolygon> closed;  ///< the selection (image pixels and the camera)

  /// The panel's "Polygon" button: the tool on, a polygon under way dropped.
  void start();
  /// A left press at (x, y) (window units) while drawing, on the frame `f`: a vertex, or the
  /// polygon closed (`double_click`, or a press within 8 units of the first vertex). True when
  /// the tool took the press (the click picks nothing then).
  bool click(float x, float y, bool double_click, const PickFrame& f, StatusLine& status);
  /// Enter closes, Esc drops the polygon under way; true when the key was taken.
  bool key(SDL_Keycode k, const PickFrame& f, StatusLine& status);
  /// Closes the polygon under way with the frame's camera: the selection, or (fewer than 3
  /// vertices, all on one line, no image) one status line and nothing changes but the tool
  /// going on. False then.
  bool close(const PickFrame& f, StatusLine& status);
  /// Drops the polygon under way and turns the tool off.
  void cancel();
  /// Takes the closed polygon away.
  void clear() { closed.reset(); }
  const ClipPolygon* selection() const { return closed ? &*closed : nullptr; }

  /// The rows in the Clip section: the tool's button, what is under way, the selection's line
  /// and its "clear".
  void draw_rows(const PickFrame& f, PanelMarks& marks, StatusLine& status);
  /// The polygon under way (and the line to the pointer) and the closed one, when the view is
  /// the one it was drawn in, over the image.
  void draw_over(const PickFrame& f, float ui_scale) const;
};

/// Whether the frame `f` shows the view a polygon was drawn in: the same camera and image size.
bool same_view(const ClipPolygon& p, const PickFrame& f);

}  // namespace pr
