// Annotations in the viewer (annotation_panel.cpp): a title and a text at a world point
// (engine/annotation.h), drawn over the image as a marker and the title's label, listed in the
// panel's Annotations section (added at the last pick, edited, deleted, the camera saved with
// them); clicking one in the list or its label flies the camera there: a short smooth move to its
// saved camera, or to a view of its point from where the camera is.
#pragma once

#include <imgui.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/annotation.h"
#include "engine/camera.h"
#include "viewer/panel_marks.h"
#include "viewer/pick_panel.h"
#include "viewer/status_line.h"

namespace pr {

/// A short smooth move of the camera to a pose: position, yaw and pitch eased in and out
/// (smoothstep) over `seconds`, yaw the short way round.
struct CameraFlight {
  bool active = false;
  Camera from;
  glm::dvec3 to_position{0.0};
  double to_yaw = 0.0, to_pitch = 0.0;
  double seconds = 0.8, elapsed = 0.0;

  void start(const Camera& now, const glm::dvec3& position, double yaw, double pitch);
  /// Moves `cam` on by `dt` seconds (the last step lands exactly on the pose); false when no
  /// flight runs.
  bool step(Camera& cam, double dt);
};

/// Where a flight to `a` ends for a camera `now`: its saved camera, else a view of its point
/// along the line from the camera to it, `reach` world units away at most (or as near as the
/// camera is). Yaw and pitch in radians.
void annotation_view(const Annotation& a, const Camera& now, double reach, glm::dvec3* position,
                     double* yaw, double* pitch);

struct AnnotationState {
  std::vector<Annotation> items;
  char title[128] = "";  ///< the Add row's fields
  char text[512] = "";
  int editing = -1;  ///< the item whose fields show (-1: none)
  char edit_title[128] = "";
  char edit_text[512] = "";
  CameraFlight flight;
  /// The labels' rectangles drawn this frame (window units), and the item of each.
  std::vector<std::pair<ImVec4, size_t>> labels;

  /// Adds an annotation at `at` with the Add row's title (and text); false with the reason in
  /// `status` when the title is empty.
  bool add(const glm::dvec3& at, StatusLine& status);
  /// Starts the flight to item `i` from `now`; `reach`: as annotation_view().
  void fly_to(size_t i, const Camera& now, double reach);
  /// The item whose label is drawn at window point (x, y); -1 when none.
  int label_at(float x, float y) const;
  /// The markers and title labels over the image (clipped to it); a label the pointer rests on
  /// shows the annotation's text.
  void draw_marks(const PickFrame& frame, float ui_scale);
  /// The panel's Annotations section; `last_pick`: where Add puts one (none: Add is disabled).
  /// Returns the item to fly to (clicked in the list), or -1.
  int draw_section(const std::optional<glm::dvec3>& last_pick, const Camera& camera,
                   PanelMarks& marks, StatusLine& status);
};

}  // namespace pr
