#include "viewer/frame_times.h"

#include <cstdio>

namespace pr {

void FrameTimes::frame_started(double ms) {
  frame_ms = ms;
  hist_frame.push(float(frame_ms));
  frame_avg_ms = frame_avg_ms == 0 ? frame_ms : 0.95 * frame_avg_ms + 0.05 * frame_ms;
}

void FrameTimes::frame_rendered() {
  hist_render.push(float(render_ms));
  hist_upload.push(float(upload_ms));
}

void FrameTimes::ui_drawn(double ms) {
  ui_ms = ms;
  hist_ui.push(float(ui_ms));
}

void FrameTimes::sample() {
  t_frame.push_back(frame_ms);
  t_render.push_back(render_ms);
  t_upload.push_back(upload_ms);
  t_ui.push_back(ui_ms);
}

void FrameTimes::print_summary(const std::string& mode, bool vsync, const std::string& path) const {
  if (t_frame.empty()) return;
  // frame = wall time from one loop iteration to the next: events, render, display, UI, swap.
  std::printf(
      "viewer summary mode=%s points=%llu frames=%zu median_frame_ms=%.4f median_render_ms=%.4f "
      "median_upload_ms=%.4f median_ui_ms=%.4f vsync=%s path=\"%s\"\n",
      mode.c_str(), (unsigned long long)last_stats.points_drawn, t_frame.size(), median(t_frame),
      median(t_render), median(t_upload), median(t_ui), vsync ? "on" : "off", path.c_str());
}

}  // namespace pr
