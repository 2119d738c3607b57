#include "viewer/frame_times.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "progress_bar.h"
#include "viewer/panel_widgets.h"

namespace pr {

namespace {

void plot(const char* label, const History& h, const char* unit) {
  const auto v = h.values();
  char over[64];
  std::snprintf(over, sizeof over, "avg %.2f %s, max %.2f", double(h.average()), unit,
                double(h.max()));
  ImGui::PlotLines(label, v.data(), int(v.size()), 0, over, 0.0f, std::max(h.max() * 1.1f, 1.0f),
                   ImVec2(0, 50));
}

}  // namespace

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

void FrameTimes::draw_section(RenderBackend& backend) const {
  if (!ImGui::CollapsingHeader("Timings", ImGuiTreeNodeFlags_DefaultOpen)) return;
  const FrameStats& st = last_stats;
  ImGui::Text("frame %.2f ms (%.1f FPS)", frame_avg_ms,
              frame_avg_ms > 0 ? 1000.0 / frame_avg_ms : 0.0);
  ImGui::Text("render %.2f  upload %.2f  UI %.2f ms", render_ms, upload_ms, ui_ms);
  if (st.stages)
    ImGui::Text("  clear %.2f raster %.2f resolve %.2f copy %.2f", st.clear_ms, st.raster_ms,
                st.resolve_ms, st.copy_ms);
  else
    ImGui::Text("  gpu frame %.3f  copy %.2f", st.raster_ms, st.copy_ms);
  if (backend.gpu_active()) {
    bool split = backend.stage_timing();
    if (ImGui::Checkbox("time the GPU stages apart", &split)) backend.set_stage_timing(split);
    tooltip(
        "Clear, raster and resolve timed apart with CUDA events between them.\n"
        "The events cost about 4 microseconds a frame, which matters for small clouds.");
  }
  ImGui::Text("renderer: %s points/s", human_points(st.points_per_second()).c_str());
  plot("frame", hist_frame, "ms");
  plot("render", hist_render, "ms");
  if (ImGui::TreeNode("upload and UI")) {
    plot("upload", hist_upload, "ms");
    plot("UI", hist_ui, "ms");
    ImGui::TreePop();
  }
}

}  // namespace pr
