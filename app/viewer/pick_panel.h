// Picking and measuring's state (pick_panel.cpp): up to two picked points, the cloud they belong
// to, the pick running off the drawing thread (pick_job.h) and the click waiting for it.
#pragma once

#include <optional>

#include "engine/camera.h"
#include "engine/pick.h"
#include "engine/point_cloud.h"
#include "engine/renderer.h"
#include "viewer/pick_job.h"

namespace pr {

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

  void clear() { count = 0; }
  /// A third pick starts again.
  void add(const PickResult& r) {
    if (count == 2) count = 0;
    points[count++] = r;
  }
  /// The picks belong to `now`'s cloud from here on; those of another cloud are dropped.
  void follow(const PointCloud* now) {
    if (cloud == now) return;
    count = 0;
    cloud = now;
  }
  /// Whether a pick runs or waits.
  bool pending() const { return job.busy() || waiting.has_value(); }
};

}  // namespace pr
