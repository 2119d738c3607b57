// The viewer's timings: the last frame's stages (render, upload, UI, the whole frame), their
// histories for the Timings section, the FPS readout's average, and for scripted runs (--frames)
// each counted frame's times, whose medians the run prints when it ends; the panel's Timings
// section.
#pragma once

#include <string>
#include <vector>

#include "engine/frame_stats.h"
#include "viewer/render_backend.h"

namespace pr {

struct FrameTimes {
  FrameStats last_stats;  // the renderer's, for the last frame drawn
  double render_ms = 0, upload_ms = 0, ui_ms = 0, frame_ms = 0;
  double frame_avg_ms = 0;  // exponential average over about 20 frames, for the FPS readout
  History hist_frame{300}, hist_render{300}, hist_upload{300}, hist_ui{300};
  // Scripted runs: the counted frames' times.
  std::vector<double> t_frame, t_render, t_upload, t_ui;

  /// A frame began `ms` after the last one.
  void frame_started(double ms);
  /// The frame was rendered (render_ms and upload_ms set).
  void frame_rendered();
  /// The frame's UI took `ms`.
  void ui_drawn(double ms);
  /// Keeps the frame's times for the summary.
  void sample();
  /// The scripted run's last line: the medians of the sampled frames (nothing when none were).
  void print_summary(const std::string& mode, bool vsync, const std::string& path) const;
  /// The panel's Timings section; `backend`: the GPU's stage timing switch.
  void draw_section(RenderBackend& backend) const;
};

}  // namespace pr
