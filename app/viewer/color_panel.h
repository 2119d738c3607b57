// The viewer's colors (color_panel.cpp): the mode the cloud shows, the mode the panel asks for
// next, the job computing it in the background, the class filter, and the panel's Color section.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/colorize.h"
#include "engine/io/io.h"
#include "engine/io/stream.h"
#include "options.h"
#include "viewer/cloud_job.h"
#include "viewer/color_job.h"
#include "viewer/render_backend.h"
#include "viewer/status_line.h"

namespace pr {

/// The cloud the colors are for, as the frame sees it.
struct ColorTarget {
  PointCloud* cloud = nullptr;  ///< the cloud on screen; null when there is none
  bool drawable = false;        ///< it has points
  Bounds bounds;                ///< its world bounds (elevation's automatic range)
  int up_axis = 2;              ///< elevation's axis: 2 (z) or 1 (y)
  /// The streamed survey whose pool the cloud is (its class filter and classes), or null.
  StreamingScene* stream = nullptr;
  /// A save or a pick reads the cloud on other threads: its colors and the class filter's
  /// positions change once they have ended.
  bool read_elsewhere = false;
  /// The cloud is a scene the GPU made (the host holds a subset): drawn in its own colors only.
  bool device_scene = false;
};

struct ColorState {
  ColorSettings shown;   // what the cloud on screen shows
  ColorSettings wanted;  // what the panel asks for; the job computes it when it differs
  Legend legend;
  ColorJob job;
  std::array<bool, 256> hidden_classes{};
  bool filter_dirty = false;  // the class filter changed and is not applied yet
  bool chosen = false;        // --color or the panel chose a mode (else each cloud's default)
  HiddenPoints hidden_points;
  /// A streamed survey's classes (as far as its nodes have arrived), for the class table; unset
  /// for a cloud read whole, whose classes the legend counts.
  std::optional<StreamClasses> survey_classes;
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

  /// The colors the next cloud job gives its cloud: the mode asked for, or before the panel
  /// chose one --color (with --colormap), which then becomes the choice; each cloud's default
  /// mode while nothing is chosen. `files_up`: elevation's axis for files (--up for scenes).
  ColorRequest request_for_jobs(const Options& opt, UpAxis files_up);
  /// Each frame: a finished job's colors to the cloud and the renderers, the class filter
  /// applied, and a job started for the mode asked for when it is not on screen. Returns whether
  /// the class filter moved points (what a pick made of the positions is stale).
  bool update(const ColorTarget& target, RenderBackend& backend, StatusLine& status);
  /// A new cloud's colors, as its job computed them.
  void take_cloud_colors(const CloudJob::Result& r, StatusLine& status);
  /// A streamed survey's colors: the file's when it has them, else intensity, else elevation
  /// (over the survey's bounds), unless the panel or --color chose a mode.
  void start_survey(const FileInfo& info, UpAxis files_up);
  /// The mode shown with its range fixed, for points that arrive later (a streamed pool's).
  ColorSettings shown_fixed() const;
  /// The panel's Color section for `cloud` (null when there is none).
  void draw_section(const PointCloud* cloud, float ui_scale);
};

/// The modes the mode combo offers for `cloud`: the built-in modes it can show, then its named
/// fields (a streamed survey's pool: the fields of its tiles).
std::vector<ColorSettings> color_modes(const ColorState& cs, const PointCloud& cloud);

/// The class table's rows: each class the cloud holds (a streamed survey: each class its arrived
/// nodes held) with its points.
std::vector<std::pair<int, uint64_t>> class_rows(const ColorState& cs);

}  // namespace pr
