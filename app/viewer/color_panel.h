// The viewer's colors (color_panel.cpp): the mode the cloud shows, the mode the panel asks for
// next, the job computing it in the background, and the class filter.
#pragma once

#include <array>

#include "engine/colorize.h"
#include "viewer/color_job.h"

namespace pr {

struct ColorState {
  ColorSettings shown;   // what the cloud on screen shows
  ColorSettings wanted;  // what the panel asks for; the job computes it when it differs
  Legend legend;
  ColorJob job;
  std::array<bool, 256> hidden_classes{};
  bool filter_dirty = false;  // the class filter changed and is not applied yet
  bool chosen = false;        // --color or the panel chose a mode (else each cloud's default)
  HiddenPoints hidden_points;
  /// The colors array the cloud showed before the last switch, for the next job to fill.
  PodVector<uint32_t> spare;
  /// The GPU shows the running job's colors already (computed from their recipe).
  bool gpu_ahead = false;

  /// A new cloud replaces the one the job and the spare array were of: waits for the job and
  /// drops what it left.
  void forget_cloud() {
    job.join();
    spare = PodVector<uint32_t>();
    gpu_ahead = false;
  }
  /// A mode asked for is not on screen yet (computed, or the class filter applied).
  bool busy() const { return job.busy() || !(wanted == shown) || filter_dirty; }
  /// The panel's choice of mode (its range found anew).
  void choose(const ColorSettings& c) {
    wanted = c;
    wanted.auto_range = true;
    chosen = true;
  }
  void set_class_visible(int code, bool visible) {
    if (code < 0 || code > 255) return;
    hidden_classes[size_t(code)] = !visible;
    filter_dirty = true;
  }
};

}  // namespace pr
