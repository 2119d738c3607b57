// Measurements in the viewer: the tools' vertices come from the pick (a click picks the point
// drawn nearest the pointer on its own thread; the tool takes it when it lands), the values from
// engine/measure.h in double-precision world coordinates. The marks are drawn over the image
// with ImGui's background draw list, each point projected with the frame's camera: segments
// crossing the near plane are cut there, points behind the camera are skipped, and a label stays
// inside the window so that it can be read while flying.
#include "viewer/measure_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <new>
#include <optional>

#include "measure_export.h"
#include "viewer/overlay_label.h"
#include "viewer/screen_map.h"

namespace pr {

namespace {

constexpr double kPi = 3.14159265358979323846;

const MeasureKind kTools[] = {MeasureKind::kDistance, MeasureKind::kHeight, MeasureKind::kAngle,
                              MeasureKind::kArea,     MeasureKind::kCircle, MeasureKind::kVolume};

/// Whether the tool's measurement is a polyline or polygon of any number of points (finished by
/// hand) rather than a fixed number.
bool open_ended(MeasureKind k) {
  int lo = 0, hi = 0;
  measure_point_count(k, &lo, &hi);
  return hi == 0;
}

/// The lines of a measurement's points (closed for a polygon), and a dot at each.
void draw_lines(ImDrawList* dl, const ScreenMap& map, const std::vector<glm::dvec3>& pts,
                bool closed, ImU32 tint, float ui) {
  const size_t n = pts.size();
  const size_t segs = closed && n > 2 ? n : (n ? n - 1 : 0);
  for (size_t k = 0; k < segs; ++k) {
    ImVec2 a, b;
    if (map.segment(pts[k], pts[(k + 1) % n], &a, &b)) {
      dl->AddLine(a, b, IM_COL32(0, 0, 0, 160), 3.5f * ui);
      dl->AddLine(a, b, tint, 1.5f * ui);
    }
  }
  for (const glm::dvec3& p : pts)
    if (const auto q = map.point(p)) dl->AddCircleFilled(*q, 3.0f * ui, tint);
}

/// A circle's rim: 72 points in its plane.
std::vector<glm::dvec3> circle_rim(const Measurement& m) {
  glm::dvec3 c(0.0), n(0.0, 0.0, 1.0);
  for (const MeasureValue& v : m.values) {
    if (v.name == "center") c = {v.v[0], v.v[1], v.v[2]};
    if (v.name == "normal") n = {v.v[0], v.v[1], v.v[2]};
  }
  const double r = m.value("radius");
  const glm::dvec3 u = glm::normalize(m.points[0] - c), w = glm::cross(n, u);
  std::vector<glm::dvec3> rim;
  for (int k = 0; k < 72; ++k) {
    const double t = 2.0 * kPi * k / 72.0;
    rim.push_back(c + r * (std::cos(t) * u + std::sin(t) * w));
  }
  return rim;
}

/// Where a measurement's label goes: its vertex for an angle, else the mean of its points; when
/// that lies behind the camera, the first point in front; none when no point is.
std::optional<ImVec2> label_anchor(const Measurement& m, const ScreenMap& map) {
  if (m.kind == MeasureKind::kAngle && m.points.size() == 3) return map.point(m.points[1]);
  glm::dvec3 mean(0.0);
  for (const glm::dvec3& p : m.points) mean += p / double(m.points.size());
  if (const auto q = map.point(mean)) return q;
  for (const glm::dvec3& p : m.points)
    if (const auto q = map.point(p)) return q;
  return std::nullopt;
}

void draw_measurement(ImDrawList* dl, const ScreenMap& map, const Measurement& m,
                      const PickFrame& f, float ui, std::vector<ImVec4>& placed) {
  const ImU32 tint = IM_COL32(255, 200, 60, 255);
  if (m.kind == MeasureKind::kCircle) {
    draw_lines(dl, map, circle_rim(m), true, tint, ui);
    draw_lines(dl, map, m.points, false, IM_COL32(255, 255, 255, 0), ui);
  } else if (m.kind == MeasureKind::kAngle && m.points.size() == 3) {
    draw_lines(dl, map, {m.points[0], m.points[1], m.points[2]}, false, tint, ui);
  } else {
    const bool closed = m.kind == MeasureKind::kArea || m.kind == MeasureKind::kVolume;
    draw_lines(dl, map, m.points, closed, tint, ui);
  }
  if (const auto at = label_anchor(m, map))
    draw_overlay_label(dl, *at, measurement_summary(m), IM_COL32(255, 255, 255, 255), f.area, ui,
                       placed);
}

}  // namespace

bool MeasureJob::start(MeasureKind kind, std::vector<glm::dvec3> points,
                       std::shared_ptr<const PointCloud> cloud, const MeasureParams& params) {
  if (busy()) return false;
  done_ = false;
  cloud_ = cloud.get();
  thread_ = std::thread([this, kind, pts = std::move(points), c = std::move(cloud), params] {
    Measurement m;
    std::string why;
    try {
      ok_ = evaluate_measurement(kind, pts, c.get(), params, &m, &why);
    } catch (const std::bad_alloc&) {
      ok_ = false;
      why = std::string(measure_kind_name(kind)) + ": out of memory";
    }
    result_ = std::move(m);
    error_ = std::move(why);
    done_ = true;
  });
  return true;
}

bool MeasureJob::take(bool* ok, Measurement* m, std::string* error) {
  if (!thread_.joinable() || !done_.load()) return false;
  thread_.join();
  cloud_ = nullptr;
  *ok = ok_;
  *m = std::move(result_);
  *error = std::move(error_);
  return true;
}

void MeasureState::choose(bool on, MeasureKind kind) {
  active = on;
  tool = kind;
  pending.clear();
  finish_after_pick = false;
}

void MeasureState::update(const PickState& picks, const PickFrame& f, StatusLine& status) {
  bool ok = false;
  Measurement done;
  std::string why;
  if (job.take(&ok, &done, &why)) {
    if (!ok) {
      status.set("measure " + why, true);
    } else {
      status.set(measurement_summary(done), false);
      items.push_back({std::move(done), true});
    }
  }
  const std::optional<glm::dvec3> p = picks.newest_since(&seen_picks);
  if (!p || !active) return;
  take_vertex(pending, *p);
  int lo = 0, hi = 0;
  measure_point_count(tool, &lo, &hi);
  if ((hi && int(pending.size()) >= hi) || (finish_after_pick && int(pending.size()) >= lo))
    finish(f, status);
  finish_after_pick = false;
}

void MeasureState::clicked(bool double_click) {
  // A single click (or a double click whose pick found nothing) finishes nothing.
  finish_after_pick = active && double_click && open_ended(tool);
}

bool MeasureState::finish(const PickFrame& f, StatusLine& status) {
  if (!active || pending.empty()) return false;
  MeasureParams p;
  p.up = f.camera.up_axis;
  p.auto_base = auto_base;
  p.base = base;
  p.cell = cell;
  p.height = height;
  if (tool == MeasureKind::kVolume) {
    // It reads every point: on the job's thread, one at a time.
    if (job.busy()) {
      status.set("measure: a volume is still being computed", true);
      return false;
    }
    if (!f.cloud) {
      status.set("measure volume: no cloud on screen", true);
      return false;
    }
    job.start(tool, std::move(pending), f.cloud, p);
    pending.clear();
    status.set("computing the volume...", false);
    return true;
  }
  Measurement m;
  std::string why;
  const std::vector<glm::dvec3> pts = std::move(pending);
  pending.clear();
  if (!evaluate_measurement(tool, pts, f.cloud.get(), p, &m, &why)) {
    status.set("measure " + why, true);
    return false;
  }
  status.set(measurement_summary(m), false);
  items.push_back({std::move(m), true});
  return true;
}

bool MeasureState::cancel() {
  if (pending.empty()) return false;
  pending.clear();
  return true;
}

bool MeasureState::export_all(const std::string& path, StatusLine& status) const {
  std::vector<Measurement> all;
  for (const Item& it : items) all.push_back(it.m);
  std::string why;
  if (!write_measurements(path, all, &why)) {
    status.set("export: " + why, true);
    return false;
  }
  status.set("exported " + std::to_string(all.size()) + " measurements to " + path, false);
  return true;
}

namespace {

/// The tool's choice and, for a volume, its parameters.
void tool_choice(MeasureState& s) {
  if (ImGui::RadioButton("off", !s.active)) s.choose(false, s.tool);
  for (const MeasureKind k : kTools) {
    ImGui::SameLine();
    if (k == MeasureKind::kArea) ImGui::NewLine();
    if (ImGui::RadioButton(measure_kind_name(k), s.active && s.tool == k)) s.choose(true, k);
  }
  if (!s.active || s.tool != MeasureKind::kVolume) return;
  ImGui::Checkbox("base: the polygon's mean height", &s.auto_base);
  if (!s.auto_base) ImGui::InputDouble("base height", &s.base, 0.0, 0.0, "%.3f");
  ImGui::InputDouble("cell size (0: auto)", &s.cell, 0.0, 0.0, "%.3f");
  s.cell = std::max(s.cell, 0.0);
  int h = int(s.height);
  const char* kHeights[] = {"min", "mean", "max"};
  if (ImGui::Combo("cell height", &h, kHeights, 3)) s.height = CellHeight(h);
}

/// The list: show box, value, copy, delete; then export and clear.
void measurement_list(MeasureState& s, PanelMarks& marks, StatusLine& status) {
  int remove = -1;
  for (size_t i = 0; i < s.items.size(); ++i) {
    MeasureState::Item& it = s.items[i];
    ImGui::PushID(int(i));
    ImGui::Checkbox("##show", &it.visible);
    ImGui::SameLine();
    ImGui::TextUnformatted(measurement_summary(it.m).c_str());
    marks.mark(("measure.item." + std::to_string(i)).c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton("copy")) ImGui::SetClipboardText(measurement_line(it.m).c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton("x")) remove = int(i);
    ImGui::PopID();
  }
  if (remove >= 0) s.items.erase(s.items.begin() + remove);
  if (s.items.empty()) return;
  ImGui::InputText("##export", s.export_path, sizeof s.export_path);
  ImGui::SameLine();
  if (ImGui::Button("Export all")) s.export_all(s.export_path, status);
  ImGui::SameLine();
  if (ImGui::Button("Clear all")) s.items.clear();
}

void measure_section(MeasureState& s, const PickFrame& f, PanelMarks& marks, StatusLine& status) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
  ImGui::TextWrapped("choose a tool, click points; Enter or a double click ends a line or area");
  ImGui::PopStyleColor();
  tool_choice(s);
  if (s.job.busy()) ImGui::TextDisabled("computing the volume...");
  if (s.active && !s.pending.empty()) {
    ImGui::Text("%zu points", s.pending.size());
    ImGui::SameLine();
    if (open_ended(s.tool) && ImGui::Button("Finish")) s.finish(f, status);
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) s.cancel();
  }
  measurement_list(s, marks, status);
}

}  // namespace

void MeasureState::draw_marks(const PickFrame& f, float ui) {
  if (f.settings.width <= 0 || f.area.empty()) return;
  ImDrawList* dl = ImGui::GetBackgroundDrawList();
  const ScreenMap map(f.camera, f.settings, f.area);
  // Over the image only: a measurement beside the view leaves no line over the panel.
  dl->PushClipRect(ImVec2(f.area.ux, f.area.uy),
                   ImVec2(f.area.ux + f.area.uw, f.area.uy + f.area.uh));
  std::vector<ImVec4> placed;
  for (const Item& it : items)
    if (it.visible) draw_measurement(dl, map, it.m, f, ui, placed);
  const bool closed = tool == MeasureKind::kArea || tool == MeasureKind::kVolume;
  if (active) draw_lines(dl, map, pending, closed, IM_COL32(120, 230, 255, 255), ui);
  dl->PopClipRect();
}

void MeasureState::draw_section(const PickFrame& f, PanelMarks& marks, StatusLine& status) {
  if (ImGui::CollapsingHeader("Measurements", ImGuiTreeNodeFlags_DefaultOpen))
    measure_section(*this, f, marks, status);
}

}  // namespace pr
