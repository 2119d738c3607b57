// Picking and measuring's state (pick_panel.cpp): up to two picked points, the cloud they belong
// to, and the GPU's compact positions rebuilt on the host for picking (made by the first pick that
// needs them, for this cloud and stored order).
#pragma once

#include "engine/compact.h"
#include "engine/culling.h"
#include "engine/pick.h"
#include "engine/point_cloud.h"
#include "engine/renderer.h"

namespace pr {

struct PickState {
  PickResult points[2];
  int count = 0;
  const PointCloud* cloud = nullptr;
  CompactCloud compact;
  PodVector<PointBox> boxes;  // the float positions' batch boxes, made by the first pick
  Toggle compact_sort = Toggle::kAuto;

  void clear() { count = 0; }
  /// A third pick starts again.
  void add(const PickResult& r) {
    if (count == 2) count = 0;
    points[count++] = r;
  }
  /// The compact form and the boxes were made from positions that changed.
  void forget_positions() {
    compact = CompactCloud{};
    boxes = PodVector<PointBox>();
  }
  /// The picks belong to `now`'s cloud from here on; those of another cloud are dropped.
  void follow(const PointCloud* now) {
    if (cloud == now) return;
    count = 0;
    forget_positions();
    cloud = now;
  }
};

}  // namespace pr
