// Picking and measuring (pick_panel.cpp): up to two picked points, the cloud they belong to, the
// pick running off the drawing thread (pick_job.h), the click waiting for it, and the panel's
// Pick section with the marks on the image.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "engine/camera.h"
#include "engine/pick.h"
#include "engine/point_cloud.h"
#include "engine/renderer.h"
#include "viewer/layout.h"
#include "viewer/panel_marks.h"
#include "viewer/pick_job.h"
#include "viewer/render_backend.h"
#include "viewer/status_line.h"

namespace pr {

/// The frame on screen, as a click and the marks see it.
struct PickFrame {
  std::shared_ptr<const PointCloud> cloud;  ///< the cloud on screen (may be null)
  bool drawn = false;                       ///< it has points and an image of it is on screen
  Camera camera;                            ///< what the frame was drawn with
  RenderSettings settings;
  ImageRect area;  ///< where the image shows in the window (clicks come in window units)
};

/// Appends `p` to a tool's vertices unless it repeats the last one (a double click's second
/// press picks the same point again); true when appended.
inline bool take_vertex(std::vector<glm::dvec3>& vertices, const glm::dvec3& p) {
  if (!vertices.empty() && vertices.back() == p) return false;
  vertices.push_back(p);
  return true;
}

struct PickState {
  PickResult points[2];
  int count = 0;
  const PointCloud* cloud = nullptr;
  PickJob job;
  /// A click made while a pick ran: its pixel and the frame it was made on (a newer click
  /// replaces it); picked when the running one ends, unless the cloud changed meanwhile.
  struct Click {
    const PointCloud* cloud = nullptr;
    Camera camera;
    RenderSettings settings;
    int x = 0, y = 0;
  };
  std::optional<Click> waiting;
  double last_ms = 0.0;  ///< the last pick's time on its thread
  uint64_t picked = 0;   ///< points picked so far (the measure tools take each new one)

  void clear() { count = 0; }
  /// The newest pick's world point when a point was picked since `*seen` (which moves on to
  /// now): how the tools that take picks as vertices (measure, section, profile) see each one.
  std::optional<glm::dvec3> newest_since(uint64_t* seen) const {
    if (picked == *seen) return std::nullopt;
    *seen = picked;
    if (count == 0) return std::nullopt;
    return points[count - 1].world;
  }
  /// A third pick starts again.
  void add(const PickResult& r) {
    if (count == 2) count = 0;
    points[count++] = r;
    ++picked;
  }
  /// The picks belong to `now`'s cloud from here on; those of another cloud are dropped.
  void follow(const PointCloud* now) {
    if (cloud == now) return;
    count = 0;
    cloud = now;
  }
  /// Whether a pick runs or waits.
  bool pending() const { return job.busy() || waiting.has_value(); }

  /// A left click at (window_x, window_y): on the image, a pick job on `frame`, or the click
  /// waiting while one runs.
  void click(int window_x, int window_y, const PickFrame& frame, RenderBackend& backend);
  /// The click waiting, once no pick runs, unless the cloud on screen (`now`) changed.
  void start_waiting(const std::shared_ptr<const PointCloud>& now, RenderBackend& backend);
  /// Each frame: a finished pick's point (kept when it is of `now`), and the click waiting.
  void update(const std::shared_ptr<const PointCloud>& now, RenderBackend& backend,
              StatusLine& status);
  /// The marks on the image (clipped to it).
  void draw_marks(const PickFrame& frame, float ui_scale);
  /// The panel's Pick section (inside the panel's window).
  void draw_section(const PickFrame& frame, bool file_colors, PanelMarks& marks);
};

}  // namespace pr
